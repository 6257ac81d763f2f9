"""pytest 公共设置：把 lecture14/ 放进 sys.path，测试里可以直接 import evolve、fidelity；
引擎的共用夹具（计时表、训练/测试形状、进化出的程序、密的形状网格、随机程序）和几个测试文件
都用的提出者（SMALL_AND_FULL、Recorder）。

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
import threading
import time
from itertools import product

import pytest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# 真模型的那一间（lecture14/real_llm/）另放进 sys.path：讲义自己从不 import 它
sys.path[:0] = [os.path.join(ROOT, "lecture14"), os.path.join(ROOT, "lecture14", "real_llm")]
SCRIPT = os.path.join(ROOT, "lecture14", "05_alphaevolve_ablations.py")

import evolve as E  # noqa: E402
from runs import usable_cores  # noqa: E402

# 画图的测试要 matplotlib（可选的依赖：没装时 --plot 只说一句怎么装）。没装时只跳过它们：
# 命令行、按选项分组、没装时的那句话不画图，照样跑（.ci/run 在没有 matplotlib 的 venv 里跑这些）
draws = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                           reason="没装 matplotlib（可选的依赖，--plot 画图才要）")


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch):
    """测试不看跑测试的终端有多宽：去掉 COLUMNS、LINES（pytest -n 的进程里它们是 80、24）。
    要某个宽度的测试自己设。"""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


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
def setup(table, split):
    """(计时表, 训练形状, 测试形状)：真模型那一间的测试一次要这三样。"""
    return (table, *split)


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


# —— 提出者：几个测试文件都用的 ——

# 两个 MockLLM 一起（Ensemble）：没有内核常识的和完整的
SMALL_AND_FULL = [E.MockLLM(knowledge=False), E.MockLLM()]


class Recorder:
    """一个最小的提出者：记下每次拿到什么，轮流返回 None（给不出）、父程序的源码、一个新程序。"""

    def __init__(self):
        self.calls = []

    def propose(self, parent, feedback, inspirations, rng):
        self.calls.append((parent, feedback, inspirations, rng))
        kind = len(self.calls) % 3
        if kind == 0:
            return None
        if kind == 1:
            return E.render(parent)
        cfg = rng.choice([c for c in E.CONFIGS if E.static_valid(c)])
        rule = E.Rule(((0, rng.choice(E.M_VALUES)), E.UNBOUNDED, E.UNBOUNDED), cfg)
        return E.Program((rule,) + parent.rules, parent.default)


# —— 05 脚本：只在这里载入和运行 ——

# 改过的源码照原路径执行：__file__、import、sys.argv 都和直接运行脚本一样；linecache 里也是
# 改过的源码（traceback、checks 读源码时读到的是学生改过的那份，和学生存了文件再运行一样）
_EXEC = ("import linecache, sys; path, source = sys.argv[1:3]; sys.argv = [path] + sys.argv[3:]; "
         "linecache.cache[path] = (len(source), None, source.splitlines(True), path); "
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


def script_command(edits=None, path=SCRIPT, args=()):
    """运行 05 脚本的命令。edits = {原文: 改成}：像学生一样先改几行；path 可以是相对 cwd 的路径；
    args 是命令行参数。"""
    if not edits:
        return [sys.executable, path, *args]
    with open(SCRIPT, encoding="utf-8") as f:
        source = f.read()
    for old, new in edits.items():
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return [sys.executable, "-c", _EXEC, path, source, *args]


# 测试起的子进程另开一个会话，没有控制终端：输出到管道时 console 就不会去量跑测试的那个终端
# （/dev/tty）有多宽，在终端里跑测试和在 CI 里一样
DETACHED = {"start_new_session": True}


def start_command(command, env=None, nice=False, **popen):
    """开跑 command，返回 Popen（默认 stdout、stderr 是文本管道，没有控制终端）。
    环境去掉 COLUMNS（宽度由 env 给）、加 NO_COLOR。"""
    base = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env = dict(base, NO_COLOR="1", **(env or {}))
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True, **DETACHED}
    pipes.update(popen)
    return subprocess.Popen(command, env=env, preexec_fn=_as_in_a_terminal(nice), **pipes)


def press_ctrl_c(proc, within=20):
    """按一次 Ctrl-C（SIGINT 发给 proc 的整个进程组，和终端一样），等它退出：返回 (退出码,
    stderr, 按下之后过了几秒)。within 秒还没停下：杀掉整个组（不留在后台），测试失败。"""
    pressed = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    return proc.returncode, err, time.monotonic() - pressed


def group_ends(pgid, within):
    """进程组 pgid 里的进程在 within 秒之内都退出了吗。退出了、还没被收走的进程（僵尸）也还在组里：
    主进程没了，它们归 init 收，有的机器上（比如容器里）要一秒多。"""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def start_script(edits=None, path=SCRIPT, env=None, args=(), nice=False, **popen):
    """运行 05 脚本（见 script_command、start_command），返回 Popen。"""
    return start_command(script_command(edits, path, args), env, nice, **popen)


def run_script(edits=None, timeout=120, **kw):
    """start_script 并等它结束：返回 (退出码, stdout, stderr)。"""
    proc = start_script(edits, **kw)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def variants_edit(drop=(), add=""):
    """改 VARIANTS：把 drop 里的变体那一行注释掉，在字典最后加上 add 这几行。"""
    edits = {f'    "{name}": ': f'    # "{name}": ' for name in drop}
    if add:
        edits["}\n# 学生改的那一块到此为止"] = add + "}\n# 学生改的那一块到此为止"
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
    # 删掉 4 个变体，再加一个中位数比 no_evolution 还低的：不进化、只盯最差的 3 个
    # （两边看和 no_evolution 分不出）
    "new_lowest": {**smaller(2, 100, (50, 100)),
                   **variants_edit(drop=("fb_roofline", "no_borrow", "one_island", "no_cascade"),
                                   add='    "no_evo_worst3": {"evolution": False, '
                                       '"llm": MockLLM(focus="worst3")},\n')},
    # 表里只有一个时刻
    "one_mark": smaller(2, 100, (100,)),
    # lecture14/README.md 的例子：讲义的八个变体都删掉，加三个自己的
    "readme_example": {**smaller(2, 100, (50, 100)), **variants_edit(drop=LECTURE_VARIANTS, add=(
        '    "eight_islands": {"n_islands": 8},\n'
        '    "small_no_fb": {"llm": MockLLM(knowledge=False, feedback=None)},\n'
        '    "no_evo_no_cascade": {"evolution": False, "cascade": False},\n'))},
    # 只留 no_evolution 和 full：一个变体没有"最"可说
    "only_no_evolution": {**smaller(2, 100, (50, 100)),
                          **variants_edit(drop=[v for v in LECTURE_VARIANTS
                                                if v != "no_evolution"])},
    # 两个 MockLLM 一起（issue 37）：AlphaEvolve 的固定配比和 ShinkaEvolve 的 bandit 各一行
    "ensembles": {**smaller(2, 100, (50, 100)), **variants_edit(drop=LECTURE_VARIANTS, add=(
        '    "mix": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], '
        'weights=[4, 1])},\n'
        '    "bandit": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], '
        'bandit=True)},\n'))},
    # 改弱了的 full：观察里的"完整方法"是学生的版本
    "weakened_full": {**smaller(2, 100, (50, 100)),
                      '    "full": {},\n':
                          '    "full": {"llm": MockLLM(knowledge=False)},\n'},
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


# —— 在后台跑的那几遍：收集完测试就开跑，读它们的测试排到最后 ——
# 前面的测试在跑的时候，这几遍用空着的核（降低优先级，不和前面的测试抢）。
# 用 pytest -n（pytest-xdist）时有几个 pytest 进程，每个都收集全部测试：第一个收集完的进程
# 开跑这几遍，stdout、stderr、退出码都写进共用的目录，读它们的测试不管在哪个进程里都从那里读。
# 目录由最先载入 conftest 的进程（用 -n 时是分派测试的那个）建好，经环境变量传给后来的进程。

_SHARED_DIR = "ABLATIONS_TEST_RUNS"
_OWNS_DIR = _SHARED_DIR not in os.environ
if _OWNS_DIR:
    os.environ[_SHARED_DIR] = tempfile.mkdtemp(prefix="ablations-")
# 后台那几遍的输出、--plot 的图都在这个目录里
SHARED = os.environ[_SHARED_DIR]
# --plot 的那一遍把幻灯片存在它旁边（curves_demo1.png……，curves.slide_paths）
PLOT_FILE = os.path.join(SHARED, "curves.png")
WIDE = {"COLUMNS": "1000"}

# 后台的每一遍：{读它的夹具: {这一遍的名字: (命令, 环境, 工作目录)}}；
# 测试文件也可以加（见 in_background）
_BACKGROUND = {"script_runs": {}}
# 这个进程开跑的那几遍：{名字: Popen}，和等它们结束、写下退出码的线程
_STARTED = {}
_WAITERS = []


def in_background(fixture, name, command, env, cwd=None):
    """登记一遍后台运行：有测试用到 fixture 这个夹具时，收集完就开跑（见 background_results）。"""
    _BACKGROUND.setdefault(fixture, {})[name] = (command, env, cwd)


# 从哪里运行 05 脚本：(脚本的路径, 工作目录)。后两种和学生在终端里敲的一样，__file__ 是相对路径
ANYWHERE = (SCRIPT, None)
FROM_ROOT = (os.path.join("lecture14", "05_alphaevolve_ablations.py"), ROOT)
FROM_LECTURE14 = ("05_alphaevolve_ablations.py", os.path.join(ROOT, "lecture14"))


def _script_in_background(name, edits=None, env=None, args=(), where=ANYWHERE):
    path, cwd = where
    in_background("script_runs", name, script_command(edits, path, args), env, cwd)


# 进程池的几种设置（tests/test_runs.py）：JOBS = 2、3，fork 和 spawn，两个 PYTHONHASHSEED。
# 三样各两种值，两两搭配各出现一次就够 4 遍（而不是全排列的 8 遍）：
# 哪两样凑在一起才出错，也在这 4 遍里。PYTHONHASHSEED=1 的两遍从 lecture14/ 里运行，
# 别的从仓库根目录（见 _register_script_runs）
POOL_SETTINGS = {f"jobs{jobs}_{method}_hash{seed}": {"JOBS": jobs, "JOBS_START": method,
                                                     "PYTHONHASHSEED": seed}
                 for jobs, method, seed in (("2", "fork", "0"), ("2", "spawn", "1"),
                                            ("3", "fork", "1"), ("3", "spawn", "0"))}
# 每种设置都跑学生的这种改法（2 个种子、100 个提案：还有几十次 evolve），拿来对照的是它
# 本来那一遍：一个进程（JOBS=1，不开池）、从仓库根目录运行
POOL_BASELINE = "seeds_2_budget_100"
# 进程池的每一遍也存幻灯片（tests/test_curves.py 拿它们和 JOBS=1 的 "plot" 那一遍逐字节比）：
# 幻灯片只看表用的那些对象，和 evolve 在哪个进程里跑无关。4:3 的小尺寸，画得快
PLOT_SIZE = ("--size", "1024x768")


def pool_where(name):
    """进程池 name 那一遍从哪里运行（脚本的路径, 工作目录）：PYTHONHASHSEED=1 的两遍从 lecture14/
    里，别的从仓库根目录。"""
    return FROM_LECTURE14 if POOL_SETTINGS[name]["PYTHONHASHSEED"] == "1" else FROM_ROOT


def pool_plot_file(name):
    """进程池 name 那一遍的 --plot（幻灯片存在它旁边）。"""
    return os.path.join(SHARED, f"pool_{name}.png")


def _register_script_runs():
    """默认设置两种宽度，STUDENT_EDITS 的每一种，--plot 的两遍（装了、没装 matplotlib，
    设置和 seeds_2_budget_100 一样），进程池的各种设置（每一遍也存图）。
    默认设置的两遍：100 列的一个进程（不开池），1000 列的是学生什么都不设时的样子
    （进程池的进程数 = 核数，fork 起的）。"""
    _script_in_background("piped", env={"JOBS": "1", "PYTHONHASHSEED": "0"})
    _script_in_background("wide", env=WIDE)
    for name, edits in STUDENT_EDITS.items():
        if name == POOL_BASELINE:
            _script_in_background(name, edits, env=dict(WIDE, JOBS="1"), where=FROM_ROOT)
        else:
            _script_in_background(name, edits, env=WIDE)
    same = STUDENT_EDITS[POOL_BASELINE]
    for name, env in POOL_SETTINGS.items():
        _script_in_background("pool_" + name, same, env=dict(WIDE, **env), where=pool_where(name),
                              args=("--plot", pool_plot_file(name)) + PLOT_SIZE)
    # --size 从命令行一路传到存下的图（默认的 1920×1080 见 test_curves.py）；一个进程（JOBS=1）：
    # evolve 都在这个进程里跑，MockLLM 的缓存也在这里
    plot = ("--plot", PLOT_FILE) + PLOT_SIZE
    _script_in_background("plot", same, env=dict(WIDE, JOBS="1"), args=plot)
    # 没装 matplotlib 的那一遍从这里载入一个"没装"的 matplotlib
    fake = os.path.join(SHARED, "no_matplotlib")
    without = dict(WIDE, PYTHONPATH=fake)
    _script_in_background("plot_without_matplotlib", same, env=without, args=plot)
    if _OWNS_DIR:
        os.makedirs(os.path.join(fake, "matplotlib"))
        with open(os.path.join(fake, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ImportError('No module named matplotlib')\n")


_register_script_runs()


def _output_file(name, kind):
    return os.path.join(SHARED, f"{name}.{kind}")


def _start_in_background(fixture):
    """开跑 fixture 那一组的每一遍（不等它们），除非别的 pytest 进程已经开跑了。"""
    try:
        # mkdir 要么建成、要么报错：几个进程同时来，只有一个建得成
        os.mkdir(os.path.join(SHARED, "started-" + fixture))
    except FileExistsError:
        return
    started = {}
    for name, (command, env, cwd) in _BACKGROUND[fixture].items():
        out_file, err_file = _output_file(name, "out"), _output_file(name, "err")
        with open(out_file, "wb") as out, open(err_file, "wb") as err:
            started[name] = start_command(command, env, nice=True, stdout=out, stderr=err,
                                          cwd=cwd)
    _STARTED.update(started)
    waiter = threading.Thread(target=_write_exit_codes, args=(started,), daemon=True)
    waiter.start()
    _WAITERS.append(waiter)


def _write_exit_codes(started):
    """每一遍结束时写下它的退出码（先写到别的名字再改名：读的一方看不到写了一半的文件）。"""
    for name, proc in started.items():
        code = proc.wait()
        partial = _output_file(name, "rc.partial")
        with open(partial, "w") as f:
            f.write(str(code))
        os.replace(partial, _output_file(name, "rc"))


def background_results(fixture, timeout=300):
    """fixture 那一组的 {名字: (stdout, stderr)}（等它们跑完；哪一遍退出码不是 0 就失败）。"""
    _start_in_background(fixture)
    deadline = time.monotonic() + timeout
    results = {}
    for name in _BACKGROUND[fixture]:
        while not os.path.exists(_output_file(name, "rc")):
            assert time.monotonic() < deadline, f"{name} 过了 {timeout} 秒还没跑完"
            time.sleep(0.05)
        with open(_output_file(name, "rc")) as f:
            code = int(f.read())
        out, err = (_read(_output_file(name, kind)) for kind in ("out", "err"))
        assert code == 0, (name, err)
        results[name] = (out, err)
    return results


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()



def pytest_itemcollected(item):
    """读后台那几遍的测试都要等整个 05 脚本（或种子脚本）跑完：标成 slow。
    -m "not slow" 时它们不在，那几遍也就不开跑。"""
    if set(_BACKGROUND) & set(item.fixturenames):
        item.add_marker(pytest.mark.slow)

# 装了 pytest-xdist 时默认 -n auto（命令行给了 -n 就照它），没装就在这一个进程里跑：-n 不写进
# pytest.ini 的 addopts，因为没装 xdist 的 pytest 不认 -n，一开始就停。tryfirst，而且这个文件比
# xdist 后注册、先被调用：赶在 xdist 的 pytest_cmdline_main 把 auto 换成进程数之前。
# xdist 分出的进程（有 workerinput）自己不再分
@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    has_xdist = config.pluginmanager.hasplugin("xdist")
    if has_xdist and not hasattr(config, "workerinput") and config.option.numprocesses is None:
        config.option.numprocesses = "auto"


# pytest-xdist 问 -n auto 是几个进程时：能用的核数再加一个。不少测试在等（服务器的期限、
# 子进程），多一个进程，等的时候核也不空着；再多就只是多收集、多建几份共用的夹具
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    return usable_cores() + 1


# 排在 -k、-m 挑完测试之后：只开跑挑剩的测试要读的那几组
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """用到后台那几遍的测试排到最后（彼此的顺序不变），它们要的那几遍现在就开跑。"""
    reads = [item for item in items if set(_BACKGROUND) & set(item.fixturenames)]
    items[:] = [item for item in items if item not in reads] + reads
    # 只列出测试（--collect-only）时什么都不跑
    if config.option.collectonly:
        return
    for fixture in _BACKGROUND:
        if any(fixture in item.fixturenames for item in reads):
            _start_in_background(fixture)


def pytest_terminal_summary(terminalreporter):
    """跳过的测试不加 -rs 也说为什么：每个原因一行，跳过了几个（例如没有中文字体时 --plot 的
    中文标注那几个，和装哪个包）。"""
    reasons = {}
    for report in terminalreporter.stats.get("skipped", []):
        # 跳过的报告是 (文件, 行号, "Skipped: 原因")
        if isinstance(report.longrepr, tuple):
            reason = report.longrepr[2].removeprefix("Skipped: ")
            reasons[reason] = reasons.get(reason, 0) + 1
    for reason, count in sorted(reasons.items()):
        terminalreporter.write_line(f"跳过了 {count} 个测试：{reason}")


def pytest_sessionfinish(session, exitstatus):
    """用 -n 时，这个进程开跑的那几遍别的 pytest 进程也许还要读：等它们写下退出码。
    只有一个 pytest 进程、或者按了 Ctrl-C 时，还在跑的那几遍一起结束，不留在后台。
    建目录的那个进程最后删掉它。"""
    others_may_read = "PYTEST_XDIST_WORKER" in os.environ
    if not others_may_read or exitstatus == pytest.ExitCode.INTERRUPTED:
        for proc in _STARTED.values():
            if proc.poll() is None:
                proc.kill()
    for waiter in _WAITERS:
        waiter.join()
    if _OWNS_DIR:
        shutil.rmtree(SHARED, ignore_errors=True)


@pytest.fixture(scope="session")
def script_runs():
    """05 脚本那几遍的 (stdout, stderr)（等它们跑完）。

    "piped"：重定向到管道时学生看到的样子（不是终端 → 100 列，表头折行），逐字节对照 tests/golden；
    "wide"：COLUMNS=1000，表格和观察都不换行，讲义故事逐行读数字用它；"pool_…" 是进程池的各种设置；
    其余的键是 STUDENT_EDITS 的改法和 --plot 的两遍（也是 1000 列）。
    """
    return background_results("script_runs")


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
