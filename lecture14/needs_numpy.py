"""
CS349E · 第 14 讲 · needs_numpy.py —— 没装 numpy 时的那一句话

脚本开头写的是 `python3 脚本.py`，可系统的 python3（Debian、Ubuntu 自带的）多半没有 numpy。
那时学生该看到的不是一屏 ModuleNotFoundError 的 traceback，而是一句话：照 README 建虚拟环境、
装依赖，再用虚拟环境的 Python 运行同一条命令。用户运行的每个脚本在 import numpy 之前
import 这个模块（它自己只用标准库）；numpy 在的话它什么都不做。
curves.py 说怎样装 matplotlib 时也用这里的 venv_python：两句话给的是同一个 Python。
"""
import os
import shlex
import sys

# 仓库根目录：README、requirements.txt 和 README 建的 .venv 都在这里
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def at_root(cwd, *parts):
    """仓库根目录下的 parts，写成相对 cwd 的路径：在 lecture14/ 里运行时是 ../.venv，照抄就能用。"""
    return os.path.normpath(os.path.join(os.path.relpath(ROOT, cwd), *parts))


def venv_python(cwd):
    """README 建的虚拟环境里的 Python，相对 cwd。Windows 上它在 Scripts\\ 里。"""
    return os.path.join(at_root(cwd, ".venv"), "Scripts" if os.name == "nt" else "bin", "python")


def set_up_sentence(python, cwd, argv):
    """python（没有 numpy 的解释器）在 cwd 里运行 argv 时，照 README 装好再运行的那一句话。
    三条命令各占一行（console.print_message 的写法：以两个空格开头），照抄就能用。
    python 的路径照用户读的样子写：../.venv/bin/python 运行时 sys.executable 里的 ".." 化简掉。"""
    create = shlex.join(["python3", "-m", "venv", at_root(cwd, ".venv")])
    install = shlex.join([venv_python(cwd), "-m", "pip", "install", "-r",
                          at_root(cwd, "requirements.txt")])
    again = shlex.join([venv_python(cwd), *argv])
    return (f"这个 Python（{os.path.normpath(python)}）里没有 numpy：照 README 的\"运行\"一节"
            f"先建虚拟环境、装依赖，\n  {create}\n  {install}\n"
            f"然后用虚拟环境的 Python 运行：\n  {again}")


def without_site_sentence(python, argv):
    """python 是加 -S 运行的（不载入 site）：numpy 装在 site-packages 里也找不到。那一句话说
    去掉 -S，再给照抄就能运行的命令——不叫学生去建一个已经有了的虚拟环境。"""
    python = os.path.normpath(python)
    again = shlex.join([python, *argv])
    return (f"这个 Python（{python}）是加 -S 运行的：不载入 site-packages，"
            f"装好的 numpy 也找不到。去掉 -S 再运行：\n  {again}")


try:
    import numpy  # noqa: F401
except ModuleNotFoundError as missing:
    # numpy 自己装坏了（缺的是它里面的模块）不是这种情况：照常报出来
    if missing.name != "numpy":
        raise
    # 按终端宽度换行、命令不拆开（console 只用标准库；有的脚本这时还没把 lecture01 放进 sys.path）
    sys.path.insert(0, os.path.join(ROOT, "lecture01"))
    from console import print_message
    if sys.flags.no_site:
        said = without_site_sentence(sys.executable, sys.argv)
    else:
        said = set_up_sentence(sys.executable, os.getcwd(), sys.argv)
    print_message(said, file=sys.stderr)
    sys.exit(1)
