"""没装 numpy 的 Python（Debian、Ubuntu 的系统 python3）运行用户会运行的每个脚本：一句话说怎样
照 README 装好再运行，不打 traceback——从仓库根目录运行，和照脚本开头说的在它自己的目录里运行都一样。

没有 numpy 的 Python 是这个 Python 加 -S：不载入 site，site-packages 里的 numpy 就找不到；
脚本自己把 lecture14、lecture01 放进 sys.path，所以别的都照常。这个 Python 的路径可以带 ".."
（在 lecture14/ 里用 ../.venv/bin/python 跑 pytest 时就是）：那句话里的路径按用户读的样子比，
化简掉 ".." 再比。"""
import os
import re
import shlex
import subprocess
import sys

import pytest
from conftest import ROOT
from lecture01.console import display_width

# 每个测试都在没有 numpy 的 Python 里跑一个脚本：都是慢的（tests/README.md）
pytestmark = pytest.mark.slow

# 用户运行的脚本（相对仓库根目录）
SCRIPTS = ("lecture14/05_alphaevolve_ablations.py", "lecture14/fidelity.py",
           "lecture14/real_llm/evolve_with_llm.py", "lecture14/real_llm/llm_ablations.py",
           "lecture14/real_llm/openevolve_peer.py", "lecture14/real_llm/shinka_peer.py",
           "lecture14/real_llm/proposal_seconds.py",
           "tests/benchmark.py", "tests/benchmark_parallel.py", "tests/compare_checkouts.py")
WITHOUT_NUMPY = [sys.executable, "-S"]
# 那句话：第一行说是哪个 Python，然后是建虚拟环境、装依赖的两条命令，再是运行的那条
SAID = re.compile(r"这个 Python（(.+)）里没有 numpy："
                  r"照 README 的\"运行\"一节先建虚拟环境、装依赖，\n"
                  r"  (python3 -m venv .+)\n  (.+ -m pip install -r .+)\n"
                  r"然后用虚拟环境的 Python 运行：\n  (.+)$")


def test_this_python_with_dash_s_has_no_numpy():
    """下面的测试要的前提：-S 的这个 Python 真的 import 不了 numpy。"""
    probe = subprocess.run(WITHOUT_NUMPY + ["-c", "import numpy"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'numpy'" in probe.stderr


def without_numpy(script, from_its_folder, columns=200):
    """在仓库根目录或脚本自己的目录里，用没有 numpy 的 Python 运行 script --help：
    (运行的目录, 敲的脚本路径, 退出码, stdout, stderr)。"""
    cwd = os.path.join(ROOT, os.path.dirname(script)) if from_its_folder else ROOT
    typed = os.path.basename(script) if from_its_folder else script
    env = dict(os.environ, NO_COLOR="1", COLUMNS=str(columns))
    ran = subprocess.run(WITHOUT_NUMPY + [typed, "--help"], cwd=cwd, capture_output=True,
                         text=True, env=env)
    return cwd, typed, ran.returncode, ran.stdout, ran.stderr.rstrip("\n")


@pytest.mark.parametrize("from_its_folder", [False, True])
@pytest.mark.parametrize("script", SCRIPTS)
def test_without_numpy_each_script_says_one_sentence_on_how_to_set_up(script, from_its_folder):
    cwd, typed, status, out, said = without_numpy(script, from_its_folder)
    assert status == 1 and out == "" and "Traceback" not in said
    python, create, install, again = SAID.fullmatch(said).groups()
    # 用户读到的是化简过的路径：和 sys.executable 指的是同一个文件
    assert python == os.path.normpath(sys.executable)
    venv = shlex.split(create)[-1]
    venv_python, *_, requirements = shlex.split(install)
    # 路径都相对运行的目录：照抄就是 README 的 .venv、requirements.txt，再用它运行同一条命令
    at = os.path.join
    assert os.path.normpath(at(cwd, venv)) == os.path.normpath(at(ROOT, ".venv"))
    assert os.path.normpath(at(cwd, requirements)) == os.path.normpath(at(ROOT, "requirements.txt"))
    assert venv_python == at(venv, "bin", "python")
    assert shlex.split(again) == [venv_python, typed, "--help"]


def test_the_python_is_named_as_a_user_reads_it_even_when_its_path_has_dot_dot():
    """pytest 的 Python 是 lecture14/../.venv/bin/python 这样带 ".." 的路径时也一样。"""
    detour = os.path.join(ROOT, "lecture14", "..", os.path.relpath(sys.executable, ROOT))
    ran = subprocess.run([detour, "-S", "lecture14/fidelity.py"], cwd=ROOT, capture_output=True,
                         text=True, env=dict(os.environ, COLUMNS="200"))
    python = SAID.fullmatch(ran.stderr.rstrip("\n")).group(1)
    assert ".." not in python.split(os.sep) and os.path.samefile(python, sys.executable)


def printed_commands(lines):
    """各行里的命令（以两个空格开头的行；行尾 " \\" 续到下一行）：[(命令, 占了几行)]。"""
    commands, going_on = [], False
    for line in lines:
        if not line.startswith("  "):
            going_on = False
            continue
        words = line.strip().removesuffix(" \\")
        if going_on:
            command, n = commands.pop()
            commands.append((f"{command} {words}", n + 1))
        else:
            commands.append((words, 1))
        going_on = line.endswith(" \\")
    return commands


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("from_its_folder", [False, True])
@pytest.mark.parametrize("script", ["lecture14/05_alphaevolve_ablations.py",
                                    "lecture14/real_llm/evolve_with_llm.py"])
def test_the_sentence_fits_the_terminal_and_each_command_is_whole(script, from_its_folder,
                                                                  columns):
    _, typed, _, _, said = without_numpy(script, from_its_folder, columns)
    lines = said.split("\n")
    assert all(display_width(line) <= columns for line in lines)
    wide = SAID.fullmatch(without_numpy(script, from_its_folder)[-1]).groups()[1:]
    # 三条命令照原样印出来；放得下的整条占一行，放不下的才用 shell 的续行符接着写
    assert [command for command, _ in printed_commands(lines)] == list(wide)
    for command, n in printed_commands(lines):
        assert (n == 1) == (2 + len(command) <= columns)
