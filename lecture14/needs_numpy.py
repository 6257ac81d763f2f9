"""
CS349E · 第 14 讲 · needs_numpy.py —— 没装 numpy 时的那一句话

脚本开头写的是 `python3 脚本.py`，可系统的 python3（Debian、Ubuntu 自带的）多半没有 numpy。
那时学生该看到的不是一屏 ModuleNotFoundError 的 traceback，而是一句话：照 README 建虚拟环境、
装依赖，再用虚拟环境的 Python 运行同一条命令。用户运行的每个脚本在 import numpy 之前
import 这个模块（它自己只用标准库）；numpy 在的话它什么都不做。
"""
import os
import shlex
import sys

# 仓库根目录：README、requirements.txt 和 README 建的 .venv 都在这里
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def set_up_sentence(python, cwd, argv):
    """python（没有 numpy 的解释器）在 cwd 里运行 argv 时，照 README 装好再运行的那一句话。
    路径都相对 cwd：在 lecture14/ 里运行时是 ../.venv，照抄就能用。"""
    root = os.path.relpath(ROOT, cwd)

    def at_root(*parts):
        return os.path.normpath(os.path.join(root, *parts))
    venv = at_root(".venv")
    # Windows 上虚拟环境的 Python 在 Scripts\ 里
    venv_python = os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")
    create = shlex.join(["python3", "-m", "venv", venv])
    install = shlex.join([venv_python, "-m", "pip", "install", "-r", at_root("requirements.txt")])
    again = shlex.join([venv_python, *argv])
    return (f"这个 Python（{python}）里没有 numpy：照 README 的\"运行\"一节先建虚拟环境、装依赖"
            f"（{create}，再 {install}），然后用虚拟环境的 Python 运行：{again}")


try:
    import numpy  # noqa: F401
except ModuleNotFoundError as missing:
    # numpy 自己装坏了（缺的是它里面的模块）不是这种情况：照常报出来
    if missing.name != "numpy":
        raise
    sys.exit(set_up_sentence(sys.executable, os.getcwd(), sys.argv))
