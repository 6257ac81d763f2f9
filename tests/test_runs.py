"""进程池（lecture14/runs.py）：几个进程一起跑，输出和一个一个跑逐字节相同；Ctrl-C 不留进程。"""
import multiprocessing
import os
import pickle
import pty
import select
import signal
import sys
import time

import pytest

import curves
import evolve as E
from ensemble import Ensemble
from conftest import (POOL_BASELINE, POOL_SETTINGS, ROOT, WIDE, group_ends, pool_plot_file,
                      pool_where, press_ctrl_c, smaller, start_command, start_script)
from lecture01.console import Progress, message_lines
from runs import Job, Runs, doing, jobs_from_environment, run_job, start_method, usable_cores


def test_every_worker_count_start_method_hash_seed_and_directory_prints_the_same(script_runs):
    """JOBS = 1、2、3，fork 和 spawn，两个 PYTHONHASHSEED，从仓库根目录和从 lecture14/ 运行
    （两两搭配，见 conftest）：stdout 逐字节相同；不是终端，stderr 上不打进度，
    只有 --plot 的那一句（进程池的这几遍都存幻灯片，在 tests/test_curves.py 里比；
    没装 matplotlib 时是怎么装的那一句）。"""
    expected, quiet = script_runs[POOL_BASELINE]
    assert "演示 3" in expected and quiet == ""
    for name in POOL_SETTINGS:
        stdout, stderr = script_runs["pool_" + name]
        assert stdout == expected, name
        first = curves.slide_names(pool_plot_file(name), ("demo1",))["demo1"]
        saved = stderr.startswith(f"幻灯片存到了：演示 1 {first}、") and stderr.count("\n") == 1
        assert saved or stderr == without_matplotlib(name), name


def without_matplotlib(name):
    """没装 matplotlib 时进程池 name 那一遍 stderr 上的那一句：它在哪个目录里运行，装的命令就
    相对哪里写（命令单占一行）。"""
    missing = curves.matplotlib_missing(pool_where(name)[1])
    return "".join(line + "\n" for line in message_lines(missing, int(WIDE["COLUMNS"])))


def test_the_progress_line_numbers_seeds_as_demo_3s_table_does(script):
    """演示 3 的表列出种子 0…SEEDS−1（enumerate）；进度行说的是同一个数，不是从 1 数。"""
    first, last = script.variant_jobs("full", {})[0], script.variant_jobs("full", {})[-1]
    assert (first.seed, last.seed) == (0, script.SEEDS - 1)
    assert doing(first, 7, 1) == "full，种子 0：第 7/1,000 个提案"
    assert doing(Job("full", {}, 4, 1000, False), 7, 2) == (
        "full，不查分支，种子 4：第 7/1,000 个提案（2 个进程）")


@pytest.mark.slow
def test_ctrl_c_ends_the_script_and_every_worker():
    """Ctrl-C（发给整个进程组，和终端一样）：进度行擦掉，留一行"已中断。"，退出码 130，
    进程池里的进程一个不留。"""
    proc, terminal, screen = _running_in_a_terminal()
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=30)
    assert proc.returncode == 130
    # 终端上最后看得见的：擦掉进度行（\r\033[K），然后是那一行（伪终端把 \n 写成 \r\n）
    screen += _read_to_the_end(terminal)
    assert screen.endswith("\r\033[K已中断。\r\n")
    assert group_ends(proc.pid, within=10)


@pytest.mark.slow
def test_workers_exit_when_the_script_is_killed():
    """主进程被 kill -9（没机会收拾）：进程池里的进程也跟着退出，不留在后台。"""
    proc, terminal, _ = _running_in_a_terminal()
    proc.kill()
    proc.communicate(timeout=30)
    os.close(terminal)
    assert group_ends(proc.pid, within=10)


# 学生的提出者卡住了：propose 先留一个记号（文件名带进程号），再睡下去
SLEEPY = """import os
import time

from evolve import MockLLM, Proposer


class Sleeper(MockLLM):
    def propose(self, parent, feedback, inspirations, rng):
        open(os.environ["SLEEPY_MARK"] + str(os.getpid()), "w").close()
        time.sleep(1000)


class SleepingProposer(Proposer):
    def propose(self, parent, feedback, inspirations, rng):
        open(os.environ["SLEEPY_MARK"] + str(os.getpid()), "w").close()
        time.sleep(1000)
"""

# 它在自己的模块里（进程池要 pickle 它，fork 和 spawn 都从这个模块找到它）。full 用它：
# 进程池一开始就卡住，后面还排着讲义的几十次运行
SLEEPY_SCRIPT = {**smaller(5, 100, (50, 100)),
                 '    "full": {},\n': '    "full": {"llm": Sleeper()},\n',
                 "VARIANTS = {\n": "from sleepy import Sleeper  # noqa: E402\n\nVARIANTS = {\n"}

# 不是 05 脚本：学生自己的一个脚本，直接调用 evolve
PLAIN_EVOLVE = ("import sys; sys.path.insert(0, {lecture14!r})\n"
                "from evolve import Evaluator, TimeTable, all_shapes, evolve, split_shapes\n"
                "from sleepy import SleepingProposer\n"
                "train, _ = split_shapes(all_shapes())\n"
                "evolve(Evaluator(train, TimeTable()), 100, llm=SleepingProposer(), parallel=4)\n")


def _ctrl_c_when_asleep(proc, mark):
    """等到学生的 propose 睡下（有了记号），按一次 Ctrl-C（发给整个进程组，和终端一样）。
    返回 (退出码, stderr, 按下之后过了几秒)。"""
    deadline = time.monotonic() + 60
    while not any(name.startswith(mark.name) for name in os.listdir(mark.parent)):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    return press_ctrl_c(proc)


@pytest.mark.slow
@pytest.mark.parametrize("jobs, start", [("1", "fork"), ("2", "fork"), ("2", "spawn")])
def test_one_ctrl_c_stops_a_proposer_that_hangs_and_every_worker(jobs, start, tmp_path):
    """学生的 propose 卡住了（睡着）：按一次 Ctrl-C，几秒之内脚本停下，只留一行"已中断。"，
    退出码 130，进程池里的进程一个不留（issue 63：以前第一次什么也不印，第二次印了"已中断。"
    还要等进程池里卡住的进程，直到手动杀掉）。"""
    (tmp_path / "sleepy.py").write_text(SLEEPY, encoding="utf-8")
    mark = tmp_path / "asleep"
    env = {"JOBS": jobs, "JOBS_START": start, "SLEEPY_MARK": str(mark),
           "PYTHONPATH": str(tmp_path)}
    proc = start_script(SLEEPY_SCRIPT, env=env)
    code, err, seconds = _ctrl_c_when_asleep(proc, mark)
    assert (code, err) == (130, "已中断。\n") and seconds < 5
    assert group_ends(proc.pid, within=10)


@pytest.mark.slow
def test_ctrl_c_stops_a_plain_evolve_whose_proposer_hangs(tmp_path):
    """学生自己的脚本里直接调用 evolve（parallel=4），提出者卡住了：Ctrl-C 当场停下——
    KeyboardInterrupt 照常传出去（REPL 回到提示符；脚本像 Python 一样被 SIGINT 结束，shell 里
    是 130），不留进程。"""
    (tmp_path / "sleepy.py").write_text(SLEEPY, encoding="utf-8")
    mark = tmp_path / "asleep"
    code = PLAIN_EVOLVE.format(lecture14=os.path.join(ROOT, "lecture14"))
    env = {"SLEEPY_MARK": str(mark), "PYTHONPATH": str(tmp_path)}
    proc = start_command([sys.executable, "-c", code], env=env)
    returncode, err, seconds = _ctrl_c_when_asleep(proc, mark)
    assert returncode == -signal.SIGINT and err.endswith("KeyboardInterrupt\n") and seconds < 5
    assert group_ends(proc.pid, within=10)


def _running_in_a_terminal():
    """开跑一个停不下来的脚本（JOBS=2），stderr 接一个伪终端，像在终端里跑；等到进度行画出来：
    那是进程池里的进程报来的第一步，说明它们已经在跑了（不靠睡多久）。
    返回 (Popen, 伪终端读的一端, 到那时为止终端上的输出)。"""
    endless = smaller(2, 100_000, (50, 100))
    terminal, stderr = pty.openpty()
    proc = start_script(endless, env={"JOBS": "2"}, start_new_session=True, stderr=stderr)
    os.close(stderr)
    screen = ""
    deadline = time.monotonic() + 30
    while "正在估计还要多久" not in screen:
        assert time.monotonic() < deadline and proc.poll() is None, screen
        screen += _read_some(terminal, timeout=1)
    return proc, terminal, screen


def _read_some(fd, timeout):
    """伪终端上已经写出来的字（等最多 timeout 秒）；写的一方都关了就是 ""。"""
    ready, _, _ = select.select([fd], [], [], timeout)
    if not ready:
        return ""
    try:
        return os.read(fd, 4096).decode("utf-8", errors="replace")
    # Linux 上写的一方都关了时读它报 EIO
    except OSError:
        return ""


def _read_to_the_end(fd):
    """读到写的一方都关了为止，再关掉 fd。"""
    text = ""
    while True:
        chunk = _read_some(fd, timeout=10)
        if not chunk:
            os.close(fd)
            return text
        text += chunk


def test_jobs_from_the_environment():
    assert jobs_from_environment({}) == usable_cores() >= 1
    assert jobs_from_environment({"JOBS": " 3 "}) == 3
    for bad in ("0", "-1", "two", "1.5", "²"):
        with pytest.raises(ValueError) as e:
            jobs_from_environment({"JOBS": bad})
        assert str(e.value) == f"JOBS 是同时跑几个进程，必须是 ≥ 1 的整数，收到 {bad!r}"
    assert start_method({"JOBS_START": "spawn"}) == "spawn"
    with pytest.raises(ValueError, match="可选：'fork', 'spawn'"):
        start_method({"JOBS_START": "threads"})


class _Local:
    """一个只在这个测试文件里的提出者：能 pickle（按名字），MockLLM 的行为。"""

    def __init__(self):
        self.inner = E.MockLLM(feedback=None)

    def propose(self, parent, feedback, inspirations, rng):
        return self.inner.propose(parent, feedback, inspirations, rng)


def test_pool_results_are_the_serial_results(table, split):
    """进程池和本进程给出一样的 Finished（历史、测试分数、跑内核次数、规则数），按给的顺序；
    同一个 key 只跑一次；不能 pickle 的任务（现写的 lambda 做提出者）在本进程里跑。
    两种跑法都让进度行每个提案前进一步。"""
    train, test = split

    class Unpicklable:
        propose = staticmethod(lambda parent, fb, inspirations, rng: E.MockLLM().propose(
            parent, fb, inspirations, rng))

    jobs = [Job("full", {}, 0, 120), Job("local", {"llm": _Local()}, 1, 120),
            Job("lambda", {"llm": Unpicklable()}, 2, 120), Job("full", {}, 0, 120, check=False)]
    # 钟不走：进度行只画第一次
    pooled_progress, serial_progress = (Progress(4 * 120, clock=lambda: 0.0) for _ in range(2))
    with Runs(train, test, table, workers=2, progress=pooled_progress) as pool:
        pool.submit(jobs + jobs[:1])
        pooled = pool.results(jobs)
    with Runs(train, test, table, progress=serial_progress) as here:
        serial = here.results(jobs)

    def summary(f):
        return (f.job.key(), f.out.history, f.out.outcomes, f.test, f.bench_runs, f.n_rules)
    assert [summary(f) for f in pooled] == [summary(f) for f in serial]
    assert pooled_progress.done == serial_progress.done == 4 * 120



def _mix(**how):
    """AlphaEvolve 的 4:1（默认），或 how 给的另一种挑法。"""
    return Ensemble([E.MockLLM(knowledge=False), E.MockLLM()], **(how or {"weights": [4, 1]}))


def test_a_job_is_known_by_what_its_options_are():
    """Job.key()：选项按它们是什么来比——{} 就是 {"llm": MockLLM()}，两个一样的 Ensemble 一样，
    pickle 出的拷贝（进程池里的那一份）也一样；名字、任何一项选项、种子、预算、分支检查
    不同就是另一次运行。"""
    same = [Job("full", {}, 0, 100), Job("full", {"llm": E.MockLLM()}, 0, 100),
            Job("full", {"evolution": True, "n_islands": 4, "cascade": True}, 0, 100)]
    assert len({job.key() for job in same}) == 1
    mix = Job("mix", {"llm": _mix()}, 0, 100)
    assert Job("mix", {"llm": _mix()}, 0, 100).key() == mix.key()
    assert pickle.loads(pickle.dumps(mix)).key() == mix.key()
    different = [Job("full", {}, 0, 100), Job("other", {}, 0, 100),
                 Job("full", {"evolution": False}, 0, 100), Job("full", {"n_islands": 1}, 0, 100),
                 Job("full", {"llm": E.MockLLM(feedback=None)}, 0, 100),
                 Job("full", {"llm": _mix()}, 0, 100),
                 Job("full", {"llm": _mix(bandit=True)}, 0, 100),
                 Job("full", {}, 1, 100), Job("full", {}, 0, 200), Job("full", {}, 0, 100, False)]
    assert len({job.key() for job in different}) == len(different)


def test_two_jobs_with_one_name_and_different_options_are_two_runs(table, split):
    """同名、选项不同的两次（学生改了 full，演示 3 还跑 {}）：各得各的结果，不是先跑的那一次的。"""
    train, test = split
    jobs = [Job("full", {}, 0, 60), Job("full", {"evolution": False}, 0, 60)]
    with Runs(train, test, table) as here:
        finished = here.results(jobs)
    alone = [run_job(job, train, test, table) for job in jobs]
    assert [f.out.history for f in finished] == [f.out.history for f in alone]
    assert finished[0].out.history != finished[1].out.history

@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork 只在 Linux 上是默认")
def test_fork_is_the_default_on_linux():
    assert start_method({}) == "fork"


@pytest.mark.slow
def test_a_bad_jobs_value_is_one_sentence():
    proc = start_script(env={"JOBS": "many"})
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and out == ""
    assert err.strip() == "设置有误：JOBS 是同时跑几个进程，必须是 ≥ 1 的整数，收到 'many'。"


@pytest.mark.parametrize("script", ["lecture14/winning_prompts.py",
                                    "lecture14/05_alphaevolve_ablations.py"])
@pytest.mark.parametrize("env, says", [
    ({"JOBS": "many"}, "设置有误：JOBS 是同时跑几个进程，必须是 ≥ 1 的整数，收到 'many'。"),
    ({"JOBS_START": "threads"},
     "设置有误：JOBS_START='threads' 不是可选值；可选：'fork', 'spawn'。"),
])
@pytest.mark.slow
def test_every_script_with_a_pool_says_a_bad_jobs_setting_in_one_sentence(script, env, says):
    """用进程池的脚本都用 runs.workers_or_exit：winning_prompts.py 以前打的是 ValueError 的
    traceback。"""
    proc = start_command([sys.executable, os.path.join(ROOT, script)], env=env)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1 and out == "" and err.strip() == says


def test_workers_do_not_outlive_a_closed_pool(table, split):
    """close() 之后进程池里的进程都退出了（用完就关，不留在后台）。"""
    train, test = split
    pool = Runs(train, test, table, workers=2)
    pool.submit([Job("full", {}, seed, 2000) for seed in range(4)])
    pool.results([Job("full", {}, 0, 2000)])
    assert multiprocessing.active_children()
    pool.close()
    assert multiprocessing.active_children() == []


def test_the_pool_starts_no_more_processes_than_the_runs_it_was_given(table, split):
    """JOBS=1000 而只交了 3 次运行：只起 3 个进程（fork 的进程池一开始就起满 JOBS 个，多出来的只会
    载入、空等）；结果照常。"""
    train, test = split
    with Runs(train, test, table, workers=1000) as pool:
        jobs = [Job("full", {}, seed, 20) for seed in range(3)]
        pool.submit(jobs)
        assert len(multiprocessing.active_children()) == 3
        assert [f.job.seed for f in pool.results(jobs)] == [0, 1, 2]


class Unreadable(E.MockLLM):
    """学生的提出者：交回读不成程序的源码。"""
    def propose(self, parent, feedback, inspirations, rng):
        return "def choose_config(M, N, K): ..."


@pytest.mark.parametrize("workers", [1, 2])
def test_a_proposer_handing_back_unreadable_source_is_one_sentence(workers, table, split):
    """提出者交回的东西 evolve 收不下（ProposerSlip）：一个一个跑和在进程池里都是一句话，
    说出变体、提出者和那一行，像 sys.exit 一样结束脚本。"""
    from checks import StudentCodeFailed
    train, test = split
    with pytest.raises(StudentCodeFailed) as failed:
        with Runs(train, test, table, workers) as runs:
            runs.results([Job("mine", {"llm": Unreadable()}, seed, 20) for seed in range(2)])
    said = failed.value.code
    assert said.startswith("变体 'mine' 的提出者：Unreadable 交回的源码读不成程序：第 1 行")
    assert "\n" not in said and "Traceback" not in said


class Raising(E.MockLLM):
    """学生的提出者：第一个提案就出错（下面的测试要它所在的行号）。"""
    def propose(self, parent, feedback, inspirations, rng):
        return parent.rules[5]


RAISING_LINE = Raising.propose.__code__.co_firstlineno + 1


@pytest.mark.parametrize("workers", [1, 2])
def test_a_raising_proposer_is_a_short_report_with_the_students_line(workers, table, split):
    """学生的 propose 抛出异常：一个一个跑和在进程池里都是同样的几行——变体名、学生的文件和
    第几行、那一行代码、异常和消息——不是进程池和引擎的 traceback。它像 sys.exit 一样结束脚本
    （SystemExit，console.stops_cleanly 把它打到 stderr）。"""
    from checks import StudentCodeFailed
    train, test = split
    jobs = [Job("mine", {"llm": Raising()}, seed, 20) for seed in range(2)]
    with pytest.raises(StudentCodeFailed) as failed:
        with Runs(train, test, table, workers) as runs:
            runs.results(jobs)
    said = failed.value.code
    assert isinstance(said, str) and said.startswith("变体 'mine' 的提出者出错：")
    assert f"test_runs.py 第 {RAISING_LINE} 行（在 propose 里：return parent.rules[5]）" in said
    assert said.endswith("IndexError: tuple index out of range") and "Traceback" not in said
    assert "/runs.py" not in said and "evolve.py" not in said and "process" not in said
