"""README 说的话照着做得通：它的代码段能贴、能从两个目录运行，它的变体能跑，CI 跑的正是它的命令。"""
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from evolve import Evaluator, MockLLM, evolve


def readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


# README 里"改一改"和示例用到的组合
README_VARIANTS = {
    "eight_islands": {"n_islands": 8},
    "small_llm_no_feedback": {"llm": MockLLM(knowledge=False, feedback=None)},
    "no_evolution_no_cascade": {"evolution": False, "cascade": False},
    "roofline_worst3": {"llm": MockLLM(feedback="roofline", focus="worst3")},
}


def test_readme_python_snippets_paste_as_valid_python():
    import ast
    blocks = re.findall(r"```python\n(.*?)```", readme(), re.S)
    assert any(b.startswith("VARIANTS = {") for b in blocks)
    for block in blocks:
        # 贴进脚本或 REPL 不会 SyntaxError
        ast.parse(block)


def test_ci_runs_the_readmes_own_set_up_and_test_commands():
    """README"运行"一节的命令（虚拟环境、装依赖、运行讲义、跑测试）：
    .ci/run 一条不少、原样照跑。"""
    section = readme()[readme().index("## 运行"):readme().index("## 第 14 讲")]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [line for block in blocks[:2] for line in block.splitlines()]
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    ci = [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]
    assert commands == ci
    assert commands[0] == "python3 -m venv .venv"


def test_readme_snippet_runs_from_the_root_and_from_lecture14():
    """"看一个程序"那段照抄进 python3（从标准输入）：在仓库根目录和 lecture14/ 里都跑得通。"""
    section = readme()[readme().index("### 看一个程序"):]
    snippet = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    # 300 个提案改成 30：只看它跑不跑得通
    code = snippet.replace(", 300, seed=0)", ", 30, seed=0)")
    pipe = subprocess.PIPE
    pipes = {"stdin": pipe, "stdout": pipe, "stderr": pipe, "text": True}
    procs = [subprocess.Popen([sys.executable, "-"], cwd=cwd, **pipes)
             for cwd in (ROOT, os.path.join(ROOT, "lecture14"))]
    for proc in procs:
        out, err = proc.communicate(code, timeout=120)
        assert proc.returncode == 0, err
        assert out.splitlines()[-1] == "(True, [])"


@pytest.mark.parametrize("name", list(README_VARIANTS))
def test_readme_variants_run_and_beat_the_expert(name, table, train):
    """专家程序的分数按定义是 1.0：每个 README 里的变体 120 个提案内都找到更好的，历史只升不降。"""
    out = evolve(Evaluator(train, table), 120, seed=0, **README_VARIANTS[name])
    history = out["history"]
    assert len(history) == 120 and history == sorted(history)
    assert history[-1] > 1.0 and out["n_added"] > 0
