"""两间屋子（issue 35）：顶层只有课程的设计点名的东西；
讲义的模块不 import 真模型那一间的任何模块。"""
import ast
import glob
import os
import subprocess

import pytest
from conftest import ROOT

LECTURE14 = os.path.join(ROOT, "lecture14")
REAL_LLM = os.path.join(LECTURE14, "real_llm")
# 课程的设计点名的顶层（加上 CI 和几个配置文件）
TOP_LEVEL = {"lecture01", "lecture14", "tests", "README.md", "requirements.txt", ".ci",
             "pytest.ini", ".gitignore"}


def imported_modules(path):
    """一个 .py 文件 import 的顶层模块名（import a.b 和 from a.b import c 都算 a）。"""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_no_lecture_module_imports_the_real_model_folder():
    real = {os.path.splitext(os.path.basename(p))[0]
            for p in glob.glob(os.path.join(REAL_LLM, "*.py"))}
    assert {"llm", "prompt", "transcripts", "evolve_with_llm"} <= real
    for path in glob.glob(os.path.join(LECTURE14, "*.py")):
        assert not imported_modules(path) & real, os.path.basename(path)


def test_the_top_level_holds_only_what_the_course_names():
    try:
        listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                                check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("不是 git 的检出：看不出哪些文件是仓库的")
    assert {path.split("/")[0] for path in listed} <= TOP_LEVEL
