"""没装 numpy 的 Python（Debian、Ubuntu 的系统 python3）运行用户会运行的每个脚本：一句话说怎样
照 README 装好再运行，不打 traceback——从仓库根目录运行，和照脚本开头说的在它自己的目录里运行都一样。

没有 numpy 的 Python 是这个 Python 加 -S：不载入 site，site-packages 里的 numpy 就找不到；
脚本自己把 lecture14、lecture01 放进 sys.path，所以别的都照常。"""
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

# 每个测试都在没有 numpy 的 Python 里跑一个脚本：都是慢的（tests/README.md）
pytestmark = pytest.mark.slow

# 用户运行的脚本（相对仓库根目录）
SCRIPTS = ("lecture14/05_alphaevolve_ablations.py", "lecture14/fidelity.py",
           "lecture14/real_llm/evolve_with_llm.py", "lecture14/real_llm/llm_ablations.py",
           "lecture14/real_llm/openevolve_peer.py", "tests/benchmark.py",
           "tests/benchmark_parallel.py")
WITHOUT_NUMPY = [sys.executable, "-S"]
# 那句话里的三条命令：建虚拟环境、装依赖、再运行
COMMANDS = re.compile(r"（python3 -m venv (\S+)，再 (\S+) -m pip install -r (\S+)），"
                      r"然后用虚拟环境的 Python 运行：(\S+) (.+)$")


def test_this_python_with_dash_s_has_no_numpy():
    """下面的测试要的前提：-S 的这个 Python 真的 import 不了 numpy。"""
    probe = subprocess.run(WITHOUT_NUMPY + ["-c", "import numpy"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'numpy'" in probe.stderr


@pytest.mark.parametrize("from_its_folder", [False, True])
@pytest.mark.parametrize("script", SCRIPTS)
def test_without_numpy_each_script_says_one_sentence_on_how_to_set_up(script, from_its_folder):
    cwd = os.path.join(ROOT, os.path.dirname(script)) if from_its_folder else ROOT
    typed = os.path.basename(script) if from_its_folder else script
    ran = subprocess.run(WITHOUT_NUMPY + [typed, "--help"], cwd=cwd, capture_output=True,
                         text=True, env=dict(os.environ, NO_COLOR="1"))
    assert ran.returncode != 0 and ran.stdout == ""
    said = ran.stderr.rstrip("\n")
    assert "\n" not in said and "Traceback" not in said
    assert said.startswith(f"这个 Python（{sys.executable}）里没有 numpy：照 README")
    venv, python, requirements, again, argv = COMMANDS.search(said).groups()
    # 路径都相对运行的目录：照抄就是 README 的 .venv、requirements.txt，再用它运行同一条命令
    at = os.path.join
    assert os.path.normpath(at(cwd, venv)) == os.path.normpath(at(ROOT, ".venv"))
    assert os.path.normpath(at(cwd, requirements)) == os.path.normpath(at(ROOT, "requirements.txt"))
    assert python == again == at(venv, "bin", "python")
    assert argv == f"{typed} --help"
