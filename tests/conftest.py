"""pytest 公共设置：把 lecture14/ 放进 sys.path，测试里可以直接 import evolve、fidelity；
引擎的共用夹具（计时表、训练/测试形状、进化出的程序、密的形状网格、随机程序）。

05 脚本只在这里载入和运行：load_script() 当模块载入，start_script() / run_script() 像学生一样
（改几行再）运行它。script_runs 是测试要看的那几遍（默认设置两种宽度，加上学生的几种改法）：
收集完测试就在后台一起开跑，读它们的测试排到最后。
"""
import importlib.util
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from itertools import product

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "lecture14"))
SCRIPT = os.path.join(ROOT, "lecture14", "05_alphaevolve_ablations.py")

import evolve as E  # noqa: E402


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
    """random_program(rng, n_rules=8)：随机的规则表，区间有空的、开的、单点的，
    配置在整个搜索空间里（也有不能启动的）。"""
    def bound(rng, values):
        lo, hi = sorted(rng.sample(values, 2))
        return rng.choice([E.UNBOUNDED, (lo, hi), (0, hi), (lo, math.inf), (hi - 1, hi), (hi, lo)])

    def make(rng, n_rules=8):
        ms = [0] + list(E.M_VALUES)
        ns = [0, 1024, 1280, 4096, 8192, 28672]
        ks = [0, 1024, 4096, 8192, 14336]
        rules = tuple(E.Rule((bound(rng, ms), bound(rng, ns), bound(rng, ks)),
                             rng.choice(E.CONFIGS))
                      for _ in range(rng.randrange(n_rules)))
        return E.Program(rules, rng.choice(E.CONFIGS))
    return make


# —— 05 脚本：只在这里载入和运行 ——

# 改过的源码照原路径执行：__file__、import 都和直接运行脚本一样
# 改过的源码照原路径执行：__file__、import、sys.argv 都和直接运行脚本一样
_EXEC = ("import sys; path, source = sys.argv[1:3]; sys.argv = [path] + sys.argv[3:]; "
         "exec(compile(source, path, 'exec'), {'__name__': '__main__', '__file__': path})")


def load_script(path=SCRIPT):
    """05 脚本当作模块载入（不跑 __main__），测试里可以改它的常数、调用它的函数；
    path 可以是另一份检出里的。"""
    spec = importlib.util.spec_from_file_location("ablations", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _as_in_a_terminal(nice):
    """子进程开跑前：Ctrl-C（SIGINT）恢复成默认——pytest 在后台（cmd &）启动时它是被忽略的，
    Python 就不会把它变成 KeyboardInterrupt；nice 时降低优先级（后台那几遍不和前面的测试抢）。"""
    def setup():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if nice:
            os.nice(5)
    return setup


def start_script(edits=None, path=SCRIPT, env=None, args=(), nice=False, **popen):
    """运行 05 脚本，返回 Popen（stdout、stderr 是文本管道）。
    edits = {原文: 改成}：像学生一样先改几行；path 可以是相对 cwd 的路径；args 是命令行参数。
    环境去掉 COLUMNS（宽度由 env 给）、加 NO_COLOR。"""
    base = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env = dict(base, NO_COLOR="1", **(env or {}))
    command = [sys.executable, path, *args]
    if edits:
        with open(SCRIPT, encoding="utf-8") as f:
            source = f.read()
        for old, new in edits.items():
            assert source.count(old) == 1, old
            source = source.replace(old, new)
        command = [sys.executable, "-c", _EXEC, path, source, *args]
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    return subprocess.Popen(command, env=env, preexec_fn=_as_in_a_terminal(nice), **pipes, **popen)


def run_script(edits=None, timeout=120, **kw):
    """start_script 并等它结束：返回 (退出码, stdout, stderr)。"""
    proc = start_script(edits, **kw)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def variants_edit(drop=(), add=""):
    """改 VARIANTS：把 drop 里的变体那一行注释掉，在字典最后加上 add 这几行。"""
    edits = {f'        "{name}": ': f'        # "{name}": ' for name in drop}
    if add:
        edits["    }\nexcept"] = add + "    }\nexcept"
    return edits


# 讲义里除了 full 的八个变体
LECTURE_VARIANTS = ("fb_roofline", "fb_worst3", "no_feedback", "small_llm", "no_evolution",
                    "no_borrow", "one_island", "no_cascade")


def smaller(seeds, budget, marks):
    """改 SEEDS、BUDGET、MARKS 三个常数：学生想跑快些、或者想看别的时刻时就这样改。"""
    return {"SEEDS = 5\n": f"SEEDS = {seeds}\n", "BUDGET = 1000\n": f"BUDGET = {budget}\n",
            "MARKS = (50, 100, 300, 1000)": f"MARKS = {marks!r}"}


# 学生会做的改法（issue 14、23 里列的，加上几种自己的），
# 每种都用还显得出它那条性质的最小 SEEDS、BUDGET（演示 2 总是 300 个提案）。
# 都按 COLUMNS=1000 跑：一行一个表头、一条观察，好逐行读数字
STUDENT_EDITS = {
    # 1 个种子：谈波动的句子都说看不出波动；文字里的"几个种子""多少个后"跟着常数走
    "seeds_1": smaller(1, 120, (50, 100, 120)),
    # 2 个种子、100 个提案：表里没有比 100 更早的"100 个程序时"，观察 5 改看最早的时刻
    "seeds_2_budget_100": smaller(2, 100, (50, 100)),
    # 最后一个时刻早于 BUDGET：分数列停在 150，别的列来自 200
    "marks_before_budget": smaller(2, 200, (50, 100, 150)),
    # 删掉 4 个变体，再加一个比 no_evolution 还低的：不进化、只盯最差的 3 个
    "new_lowest": {**smaller(2, 100, (50, 100)),
                   **variants_edit(drop=("fb_roofline", "no_borrow", "one_island", "no_cascade"),
                                   add='        "no_evo_worst3": {"evolution": False, '
                                       '"llm": MockLLM(focus="worst3")},\n')},
    # 表里只有一个时刻
    "one_mark": smaller(2, 100, (100,)),
    # README 的例子：讲义的八个变体都删掉，加三个自己的
    "readme_example": {**smaller(2, 100, (50, 100)), **variants_edit(drop=LECTURE_VARIANTS, add=(
        '        "eight_islands": {"n_islands": 8},\n'
        '        "small_no_fb": {"llm": MockLLM(knowledge=False, feedback=None)},\n'
        '        "no_evo_no_cascade": {"evolution": False, "cascade": False},\n'))},
    # 只留 no_evolution 和 full：一个变体没有"最"可说
    "only_no_evolution": {**smaller(2, 100, (50, 100)),
                          **variants_edit(drop=[v for v in LECTURE_VARIANTS
                                                if v != "no_evolution"])},
    # 改弱了的 full：观察里的"完整方法"是学生的版本
    "weakened_full": {**smaller(2, 100, (50, 100)),
                      '        "full": {},\n':
                          '        "full": {"llm": MockLLM(knowledge=False)},\n'},
}


@pytest.fixture
def ctrl_c_at_start_up(tmp_path):
    """PYTHONPATH：上面有一个一载入就"被按了 Ctrl-C"的 numpy。
    脚本还在启动时按 Ctrl-C，结果不靠时机。"""
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("raise KeyboardInterrupt\n")
    return str(tmp_path)


@pytest.fixture(scope="session")
def script():
    """05 脚本当作模块载入（不跑 __main__）：测试里调用它的演示函数、用 monkeypatch 改它的常数。"""
    return load_script()


# —— 05 脚本的那几遍：收集完测试就在后台开跑，读它们的测试排到最后 ——
# 前面的测试在一个核上跑的时候，这几遍用另一个核（降低优先级，不和前面的测试抢）

WIDE = {"COLUMNS": "1000"}
_RUNS = {}
# --plot 的那一遍把图存在这里；没装 matplotlib 的那一遍从这里载入一个"没装"的 matplotlib
_SCRATCH = tempfile.mkdtemp(prefix="ablations-")
PLOT_FILE = os.path.join(_SCRATCH, "curves.png")


# 进程池的几种设置（tests/test_runs.py）：JOBS = 2、3，fork 和 spawn，两个 PYTHONHASHSEED
POOL_SETTINGS = {f"jobs{jobs}_{method}_hash{seed}": {"JOBS": str(jobs), "JOBS_START": method,
                                                     "PYTHONHASHSEED": seed}
                 for jobs in (2, 3) for method in ("fork", "spawn") for seed in ("0", "1")}
# 每种设置都要跑一遍，用小一号的脚本：还有几十次 evolve、几百个提案
POOL_EDITS = smaller(2, 200, (50, 100, 200))


def _start_script_runs():
    """默认设置两种宽度，STUDENT_EDITS 的每一种，--plot 的两遍（装了、没装 matplotlib，
    设置和 seeds_2_budget_100 一样），进程池的各种设置，全部同时开跑（不等它们）。
    默认设置的三遍各用一种进程池：一个进程（不开池）、fork 起的进程、spawn 起的 3 个进程。"""
    _RUNS["piped"] = start_script(env={"JOBS": "1", "PYTHONHASHSEED": "0"}, nice=True)
    spawned = {"JOBS": "3", "JOBS_START": "spawn", "PYTHONHASHSEED": "1"}
    _RUNS["piped_spawn"] = start_script(env=spawned, nice=True)
    _RUNS["wide"] = start_script(env=WIDE, nice=True)
    _RUNS["pool_jobs1"] = start_script(POOL_EDITS, env={"JOBS": "1"}, nice=True)
    for name, env in POOL_SETTINGS.items():
        _RUNS["pool_" + name] = start_script(POOL_EDITS, env=env, nice=True)
    for name, edits in STUDENT_EDITS.items():
        _RUNS[name] = start_script(edits, env=WIDE, nice=True)
    same = STUDENT_EDITS["seeds_2_budget_100"]
    plot = ("--plot", PLOT_FILE)
    _RUNS["plot"] = start_script(same, env=WIDE, args=plot, nice=True)
    fake = os.path.join(_SCRATCH, "no_matplotlib")
    os.makedirs(os.path.join(fake, "matplotlib"))
    with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
        f.write("raise ImportError('No module named matplotlib')\n")
    without = dict(WIDE, PYTHONPATH=fake)
    _RUNS["plot_without_matplotlib"] = start_script(same, env=without, args=plot, nice=True)


def pytest_collection_modifyitems(session, config, items):
    """用到 script_runs 的测试排到最后（彼此的顺序不变），它们要的那几遍现在就开跑。"""
    reads = [item for item in items if "script_runs" in item.fixturenames]
    if reads and not _RUNS:
        items[:] = [item for item in items if item not in reads] + reads
        _start_script_runs()


def pytest_sessionfinish(session, exitstatus):
    """测试中途停下（-x、Ctrl-C）时，还在跑的那几遍一起结束，不留在后台；临时文件删掉。"""
    for proc in _RUNS.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    shutil.rmtree(_SCRATCH, ignore_errors=True)


@pytest.fixture(scope="session")
def script_runs():
    """05 脚本那几遍的 (stdout, stderr)（等它们跑完）。

    "piped"：重定向到管道时学生看到的样子（不是终端 → 100 列，表头折行），逐字节对照 tests/golden；
    "piped_spawn" 是同样的一遍，换成 spawn 起的 3 个进程；"pool_…" 是进程池的各种设置；
    "wide"：COLUMNS=1000，表格和观察都不换行，讲义故事逐行读数字用它；
    其余的键是 STUDENT_EDITS 的改法和 --plot 的两遍（也是 1000 列）。
    """
    if not _RUNS:
        _start_script_runs()
    out = {}
    for name, proc in _RUNS.items():
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, (name, stderr)
        out[name] = (stdout, stderr)
    return out


@pytest.fixture(scope="session")
def script_stdout(script_runs):
    """学生把输出重定向到文件或管道时看到的 stdout（100 列）。"""
    return script_runs["piped"][0]


@pytest.fixture(scope="session")
def wide_stdout(script_runs):
    """不换行的 stdout：每个表格一行表头，每条观察一行。"""
    return script_runs["wide"][0]


@pytest.fixture()
def serve():
    """serve(script) 起一个 ScriptedServer；serve(behave, RawServer)、serve(目录, PlainServer)
    起别的（见 servers.py）。测试结束时都关掉。"""
    from servers import ScriptedServer
    servers = []

    def start(arg, kind=ScriptedServer):
        servers.append(kind(arg))
        return servers[-1]
    yield start
    for s in servers:
        s.close()


@pytest.fixture()
def nobody_listens():
    """一个没人听的地址：绑一个随机端口再关掉（连它是 Connection refused）。"""
    import socket
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
