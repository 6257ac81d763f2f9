"""两间屋子（issue 35）：顶层只有课程的设计点名的东西；
讲义的模块不 import 真模型那一间的任何模块。"""
import ast
import glob
import os
import re
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


# 方法的扩展：各在 evolve.py 旁边一个模块里（issue 49）。meta prompt 是 evolve 的选项
# （meta_prompt=True），在 evolve.py 里：它单独运行时这个选项也要能用（issue 55）
EXTENSIONS = ("ensemble", "memo")


def test_evolve_py_imports_none_of_its_extensions_and_they_use_only_its_public_names():
    """evolve.py 不定义几个提出者一起、评估器的记性；哪里都不 import 扩展（函数里也不，也不经
    importlib / __import__）。扩展只用 evolve 公开的名字。"""
    path = os.path.join(LECTURE14, "evolve.py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    top = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    top |= {target.id for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}
    for name in ("Ensemble", "EXPLORATION", "MemoEvaluator", "CACHE_LIMIT"):
        assert name not in top, name
    assert not imported_modules(path) & {*EXTENSIONS, "meta_prompt", "importlib"}
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert "__import__" not in names
    for extension in EXTENSIONS:
        with open(os.path.join(LECTURE14, f"{extension}.py"), encoding="utf-8") as f:
            used = [alias.name for node in ast.walk(ast.parse(f.read()))
                    if isinstance(node, ast.ImportFrom) and node.module == "evolve"
                    for alias in node.names]
        assert used and not [name for name in used if name.startswith("_")], extension


def test_the_decode_limit_is_defined_once_and_every_text_derives_from_it():
    """decode 的 M 上限只在 evolve.py 定义一次（DECODE_M）：fidelity.py、slides.py import 它，
    印出来、画出来的"M ≤ 128"都由它生成。源码的字符串里没有写死的 128 的 decode 上限，
    也没有第二个 DECODE… = 数。"""
    import evolve
    import fidelity
    import slides
    assert fidelity.DECODE_M is evolve.DECODE_M and slides.DECODE_M is evolve.DECODE_M
    assert evolve.HINTS["decode_rule"].startswith(f"decode（M ≤ {evolve.DECODE_M}）")
    assert slides.WORDS["zh"]["parts"]["prefill"] == f"prefill（M > {evolve.DECODE_M}）"
    written = []
    for path in sorted(glob.glob(os.path.join(LECTURE14, "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            literal = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if literal and re.search(r"M [≤>] 128\b", node.value):
                written.append((os.path.relpath(path, ROOT), node.lineno, node.value))
            names = [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
            if any(name.startswith("DECODE") for name in names):
                written.append((os.path.relpath(path, ROOT), node.lineno, names))
    assert written == [("lecture14/evolve.py", evolve_line("DECODE_M = "), ["DECODE_M"])]


def evolve_line(start):
    """evolve.py 里以 start 开头的那一行的行号。"""
    with open(os.path.join(LECTURE14, "evolve.py"), encoding="utf-8") as f:
        return next(i for i, line in enumerate(f, 1) if line.startswith(start))
