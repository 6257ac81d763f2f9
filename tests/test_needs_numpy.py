"""没装 numpy 的 Python（Debian、Ubuntu 的系统 python3）运行用户会运行的每个脚本：一句话说怎样
照 README 装好再运行，不打 traceback——从仓库根目录运行，和照脚本开头说的在它自己的目录里运行都一样。

没有 numpy 的 Python 是用这个 Python 建的一个空 venv（不带 pip，看不见 site-packages），像系统的
python3；脚本自己把 lecture14、lecture01 放进 sys.path，所以别的都照常。这个 Python 的路径可以带
".."（在 lecture14/ 里用 ../.venv/bin/python 跑时就是）：那句话里的路径按用户读的样子比，
化简掉 ".." 再比。加 -S 运行（不载入 site，装好的 numpy 也找不到）是另一句话：去掉 -S。"""
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
           "lecture14/nvidia_heuristics.py",
           "lecture14/winning_prompts.py", "lecture14/real_llm/evolve_with_llm.py",
           "lecture14/real_llm/llm_ablations.py",
           "lecture14/real_llm/openevolve_peer.py", "lecture14/real_llm/shinka_peer.py",
           "lecture14/real_llm/proposal_seconds.py",
           "tests/benchmark.py", "tests/benchmark_parallel.py", "tests/compare_checkouts.py")


@pytest.fixture(scope="session")
def no_numpy(tmp_path_factory):
    """没有 numpy 的 Python：用这个 Python 建的空 venv 里的 python（建它约 0.2 秒）。"""
    venv = tmp_path_factory.mktemp("no-numpy") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    return str(venv / "bin" / "python")

# 那句话：第一行说是哪个 Python，然后是建虚拟环境、装依赖的两条命令，再是运行的那条
SAID = re.compile(r"这个 Python（(.+)）里没有 numpy："
                  r"照 README 的\"运行\"一节先建虚拟环境、装依赖，\n"
                  r"  (python3 -m venv .+)\n  (.+ -m pip install -r .+)\n"
                  r"然后用虚拟环境的 Python 运行：\n  (.+)$")


def test_the_empty_venv_has_no_numpy(no_numpy):
    """下面的测试要的前提：空 venv 的 Python 真的 import 不了 numpy。"""
    probe = subprocess.run([no_numpy, "-c", "import numpy"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'numpy'" in probe.stderr


def without_numpy(python, script, from_its_folder, columns=200):
    """在仓库根目录或脚本自己的目录里，用没有 numpy 的 python 运行 script --help：
    (运行的目录, 敲的脚本路径, 退出码, stdout, stderr)。"""
    cwd = os.path.join(ROOT, os.path.dirname(script)) if from_its_folder else ROOT
    typed = os.path.basename(script) if from_its_folder else script
    env = dict(os.environ, NO_COLOR="1", COLUMNS=str(columns))
    ran = subprocess.run([python, typed, "--help"], cwd=cwd, capture_output=True,
                         text=True, env=env)
    return cwd, typed, ran.returncode, ran.stdout, ran.stderr.rstrip("\n")


@pytest.mark.parametrize("from_its_folder", [False, True])
@pytest.mark.parametrize("script", SCRIPTS)
def test_without_numpy_each_script_says_one_sentence_on_how_to_set_up(script, from_its_folder,
                                                                     no_numpy):
    cwd, typed, status, out, said = without_numpy(no_numpy, script, from_its_folder)
    assert status == 1 and out == "" and "Traceback" not in said
    python, create, install, again = SAID.fullmatch(said).groups()
    # 用户读到的是化简过的路径：就是运行的那个 Python
    assert python == os.path.normpath(no_numpy)
    venv = shlex.split(create)[-1]
    venv_python, *_, requirements = shlex.split(install)
    # 路径都相对运行的目录：照抄就是 README 的 .venv、requirements.txt，再用它运行同一条命令
    at = os.path.join
    assert os.path.normpath(at(cwd, venv)) == os.path.normpath(at(ROOT, ".venv"))
    assert os.path.normpath(at(cwd, requirements)) == os.path.normpath(at(ROOT, "requirements.txt"))
    assert venv_python == at(venv, "bin", "python")
    assert shlex.split(again) == [venv_python, typed, "--help"]


def test_the_python_is_named_as_a_user_reads_it_even_when_its_path_has_dot_dot(no_numpy):
    """Python 的路径是 venv/bin/../bin/python 这样带 ".." 的时也一样。"""
    detour = os.path.join(os.path.dirname(no_numpy), "..", "bin", "python")
    ran = subprocess.run([detour, "lecture14/fidelity.py"], cwd=ROOT, capture_output=True,
                         text=True, env=dict(os.environ, COLUMNS="200"))
    python = SAID.fullmatch(ran.stderr.rstrip("\n")).group(1)
    assert ".." not in python.split(os.sep) and os.path.samefile(python, no_numpy)


@pytest.mark.parametrize("from_its_folder", [False, True])
def test_with_dash_s_the_sentence_says_to_drop_it_not_to_make_a_venv(from_its_folder):
    """python -S（不载入 site）：numpy 装好了也找不到。那句话说去掉 -S、照抄就能运行的命令，
    不叫学生去建一个已经有了的 venv。"""
    script = "lecture14/05_alphaevolve_ablations.py"
    cwd = os.path.join(ROOT, os.path.dirname(script)) if from_its_folder else ROOT
    typed = os.path.basename(script) if from_its_folder else script
    ran = subprocess.run([sys.executable, "-S", typed, "--help"], cwd=cwd, capture_output=True,
                         text=True, env=dict(os.environ, COLUMNS="200"))
    python = os.path.normpath(sys.executable)
    assert ran.returncode == 1 and ran.stdout == "" and "-m venv" not in ran.stderr
    assert ran.stderr == (f"这个 Python（{python}）是加 -S 运行的：不载入 site-packages，"
                          "装好的 numpy 也找不到。去掉 -S 再运行：\n"
                          f"  {shlex.join([python, typed, '--help'])}\n")


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
                                                                  columns, no_numpy):
    _, typed, _, _, said = without_numpy(no_numpy, script, from_its_folder, columns)
    lines = said.split("\n")
    assert all(display_width(line) <= columns for line in lines)
    wide = SAID.fullmatch(without_numpy(no_numpy, script, from_its_folder)[-1]).groups()[1:]
    # 三条命令照原样印出来；放得下的整条占一行，放不下的才用 shell 的续行符接着写
    assert [command for command, _ in printed_commands(lines)] == list(wide)
    for command, n in printed_commands(lines):
        assert (n == 1) == (2 + len(command) <= columns)
