"""pytest 公共设置：把 lecture14/ 放进 sys.path，测试里可以直接 import evolve、fidelity；05 脚本只整个跑一次。"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14"))

import subprocess  # noqa: E402

import pytest  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14", "05_alphaevolve_ablations.py")


@pytest.fixture(scope="session")
def script_stdout():
    """05 脚本完整跑一遍的 stdout（不加粗、不换行，方便逐行读）。讲义故事和逐字节对照共用这一次运行。"""
    env = dict(os.environ, NO_COLOR="1", COLUMNS="1000")
    return subprocess.run([sys.executable, SCRIPT], env=env, capture_output=True, text=True, check=True).stdout
