"""pytest 公共设置：把 lecture14/ 放进 sys.path，测试里可以直接 import evolve、fidelity；共用的夹具（计时表、
训练/测试形状、进化出的程序、密的形状网格、随机程序）；05 脚本整个跑两遍（同时跑）。"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14"))

import math  # noqa: E402
import subprocess  # noqa: E402
from itertools import product  # noqa: E402

import pytest  # noqa: E402

import evolve as E  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14", "05_alphaevolve_ablations.py")


# —— 引擎的夹具 ——

@pytest.fixture(scope="session")
def table():
    return E.TimeTable()


@pytest.fixture(scope="session")
def split():
    return E.split_shapes(E.all_shapes())


@pytest.fixture(scope="session")
def train(split):
    return split[0]


@pytest.fixture(scope="session")
def evolved(table, split):
    """几个真实进化出来的程序（关掉分支检查，好让坏分支也出现）：数据库里的全部程序。"""
    out = E.evolve(E.Evaluator(split[0], table, check_all_branches=False), 300, seed=3)
    return [p for pop in out["db"].islands for p, _ in pop]


@pytest.fixture(scope="session")
def dense_shapes():
    """比讲义密得多的形状网格：包括阈值两侧 ±1、讲义外的 N、K。"""
    ms = sorted({1, 2, 3} | {m + d for m in E.M_VALUES for d in (-1, 0, 1)} | {20000, 50000})
    ns = [1, 1279, 1280, 1281, 4096, 6144, 16384, 28672, 40000]
    ks = [1, 1024, 4095, 4096, 4097, 8192, 14336, 16384, 20000]
    return [E.Shape("grid", m, n, k) for m, n, k in product(ms, ns, ks) if m > 0]


@pytest.fixture(scope="session")
def random_program():
    """random_program(rng)：随机的规则表，区间有空的、开的、单点的，配置在整个搜索空间里（也有不能启动的）。"""
    def bound(rng, values):
        lo, hi = sorted(rng.sample(values, 2))
        return rng.choice([E.UNBOUNDED, (lo, hi), (0, hi), (lo, math.inf), (hi - 1, hi), (hi, lo)])

    def make(rng):
        rules = tuple(E.Rule((bound(rng, [0] + list(E.M_VALUES)), bound(rng, [0, 1024, 1280, 4096, 8192, 28672]),
                              bound(rng, [0, 1024, 4096, 8192, 14336])), rng.choice(E.CONFIGS))
                      for _ in range(rng.randrange(8)))
        return E.Program(rules, rng.choice(E.CONFIGS))
    return make


# —— 05 脚本 ——

@pytest.fixture(scope="session")
def script_runs():
    """05 脚本的 stdout，两种宽度各一遍，两个进程同时跑（2 核上不比跑一遍慢多少）。

    "piped"：重定向到管道时学生看到的样子（不是终端 → 100 列，表头折行），逐字节对照 tests/golden；
    "wide"：COLUMNS=1000，表格和观察都不换行，讲义故事逐行读数字用它。两遍都不加粗。
    """
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["NO_COLOR"] = "1"
    procs = {name: subprocess.Popen([sys.executable, SCRIPT], env=dict(env, **extra), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
             for name, extra in (("piped", {}), ("wide", {"COLUMNS": "1000"}))}
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate()
        assert proc.returncode == 0, stderr
        out[name] = stdout
    return out


@pytest.fixture(scope="session")
def script_stdout(script_runs):
    """学生把输出重定向到文件或管道时看到的 stdout（100 列）。"""
    return script_runs["piped"]


@pytest.fixture(scope="session")
def wide_stdout(script_runs):
    """不换行的 stdout：每个表格一行表头，每条观察一行。"""
    return script_runs["wide"]
