"""
CS349E · 第 14 讲 · runs.py —— 互相独立的 evolve 运行：一个一个跑，或者用进程池在所有核上一起跑

05 脚本要跑几十次 evolve（每个变体 × 每个种子，分支检查开 / 关）。每一次都只由它的选项和种子决定，
彼此不交换任何东西，所以可以在几个进程里同时跑，结果和一个一个跑完全一样；脚本照原来的顺序打印。

    runs = Runs(train, test, table, workers=jobs_from_environment())
    runs.submit([Job("full", {}, seed, 1000) for seed in range(5)])
    finished = runs.results([Job("full", {}, seed, 1000) for seed in range(5)])   # 按给的顺序

自上而下读：
  1. Job 和 Finished：一次运行要什么、交回什么
  2. run_job：真正跑一次（进程池里的进程和 workers=1 时的本进程都用它）
  3. 几个进程：环境变量 JOBS，或者这个进程能用的核数
  4. Runs：workers=1 时用到才跑；否则交给进程池，等结果时把各进程报来的进度画在进度行上

进程池里的进程不接 Ctrl-C（只有主进程接）：主进程一停就让它们在下一个提案停下，卡在学生的代码里的
过一秒自己退出，不留进程。
任务只用这个模块里的函数和能 pickle 的选项（MockLLM 可以），
所以脚本从一份拷贝、甚至从字符串运行也行，fork 和 spawn 两种启动方式都一样。
"""
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import pickle
import queue
import signal
import sys
import threading
import time
from dataclasses import asdict, dataclass

from checks import (POSITIVE_INT, StudentCodeFailed, check_choice, problem, sentence,
                    student_failure)
from evolve import EvolveResult, check_options, evolve, geomean_speedup, simplify
from memo import MemoEvaluator


# ==== 1. 一次运行 =================================================================================

@dataclass(frozen=True)
class Job:
    """一次 evolve：变体名、传给 evolve 的选项、种子、预算、分支检查开不开。"""
    name: str
    options: dict
    seed: int
    budget: int
    check: bool = True

    def key(self):
        """同样的变体名和选项、种子、预算和分支检查，结果一定一样：只跑一次。
        选项按它们是什么来比（check_options(...).describe() 是 variants.Variant：MockLLM、Ensemble
        说出自己的设置，{} 和 {"llm": MockLLM()} 是同一组），写成 JSON 好当 dict 的键（设置里可以
        有列表，不能直接当键）；不用 id、对象的 repr，它们随进程变。学生自己的提出者不从
        evolve.Proposer 派生时只说得出类名，靠变体名分开。"""
        described = asdict(check_options(**self.options).describe())
        options = json.dumps(described, sort_keys=True)
        return (self.name, options, self.seed, self.budget, self.check)


@dataclass(frozen=True)
class Finished:
    """跑完的一次：evolve 的结果、最好程序在测试形状上的分数、跑内核次数、化简后的分支数、
    用了几秒（基准看它）。"""
    job: Job
    out: EvolveResult
    test: float
    bench_runs: int
    n_rules: int
    seconds: float


# ==== 2. 跑一次 ===================================================================================

def run_job(job, train, test, table, report=None):
    """跑一次 evolve，交回 Finished。report(step, outcome) 每个提案之后调用（可以是 None）。
    学生自己的提出者抛出异常时，是 checks.StudentCodeFailed：只说学生的哪一行、说了什么
    （在进程池里也是这几行，不是进程池的 traceback）。"""
    start = time.perf_counter()
    ev = MemoEvaluator(train, table, check_all_branches=job.check)
    try:
        out = evolve(ev, job.budget, seed=job.seed, report=report, **job.options)
    except Exception as error:
        said = student_failure(error, f"变体 {job.name!r} 的提出者")
        if said is None:
            raise
        raise StudentCodeFailed(said) from None
    best = out.best.program
    test_score = geomean_speedup(best, test, table)
    n_rules = simplify(best).n_rules()
    seconds = time.perf_counter() - start
    return Finished(job, out, test_score, ev.bench_runs, n_rules, seconds)


# ==== 3. 几个进程 =================================================================================

def usable_cores():
    """这个进程能用几个核（容器、taskset 限制过的话比机器的核少）。"""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def jobs_from_environment(environ=os.environ):
    """环境变量 JOBS 说用几个进程（JOBS=1：就在这个进程里一个一个跑）；没设就用所有能用的核。
    JOBS 写错了是 ValueError，一句话。"""
    text = environ.get("JOBS", "").strip()
    if not text:
        return usable_cores()
    number = int(text) if text.isascii() and text.isdigit() else 0
    if number < 1:
        # 说学生写的原样（环境变量总是字符串）
        raise ValueError(problem("JOBS", text, POSITIVE_INT, "同时跑几个进程"))
    return number


def workers_or_exit():
    """开跑之前：JOBS 说的进程数，JOBS_START 也查过（start_method）。写错了就一句话退出
    （"设置有误：……"），用进程池的每个脚本都这样说。"""
    try:
        workers = jobs_from_environment()
        start_method()
    except ValueError as slip:
        raise SystemExit(sentence(f"设置有误：{slip}")) from None
    return workers


START_METHODS = ("fork", "spawn")


def start_method(environ=os.environ):
    """进程池怎么起进程。fork 最省（子进程直接共用已经载入的 numpy 和计时表），Linux 上默认用它；
    没有 fork 的系统（Windows）和 fork 不安全的 macOS 用 spawn（子进程重新 import）。
    两种方式的结果完全相同；环境变量 JOBS_START=spawn 可以在 Linux 上试 spawn。"""
    chosen = environ.get("JOBS_START", "").strip()
    if chosen:
        return check_choice("JOBS_START", chosen, START_METHODS)
    if "fork" in multiprocessing.get_all_start_methods() and sys.platform.startswith("linux"):
        return "fork"
    return "spawn"


# ==== 4. Runs =====================================================================================

# 进程池里的进程多久向主进程报一次进度：报得太勤，进程间通信比跑提案还贵
REPORT_SECONDS = 0.1

# 主进程要停了（Ctrl-C、学生的代码出错、stdout 关了）以后，进程池里的进程最多再等多久就退出。
# 跑着提案的运行每 REPORT_SECONDS 看一次要不要停，在下一个提案就停下；卡在学生的代码里的
# （propose 里睡着、死循环）到不了下一个提案，过了这么久就直接退出：主进程不用等它，
# 按一次 Ctrl-C 就停。1 秒是 REPORT_SECONDS 的 10 倍：机器忙时讲义的运行也来得及自己停下
STOP_GRACE_SECONDS = 1.0

# 进程池里每个进程自己的那一份（_start_worker 填上）
_worker = None


@dataclass(frozen=True)
class _Worker:
    train: list
    test: list
    table: object
    progress: object
    stop: object


class _Stopped(Exception):
    """主进程要停（Ctrl-C、stdout 关了）：进程池里的运行在下一个提案停下。"""


def _start_worker(train, test, table, progress, stop):
    global _worker
    # Ctrl-C 发给整个进程组：只让主进程处理，它会让这边停下
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # 主进程没来得及收拾就没了（kill -9、崩溃）：这边也跟着退出，不留在后台空等
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    # 主进程要停了，这边却卡在学生的代码里：过一会儿直接退出
    threading.Thread(target=_exit_when_stopped, args=(stop,), daemon=True).start()
    _worker = _Worker(train, test, table, progress, stop)


def _exit_with_parent():
    multiprocessing.parent_process().join()
    os._exit(1)


def _exit_when_stopped(stop):
    """主进程要停了（stop）：STOP_GRACE_SECONDS 之后这个进程还在，就直接退出。"""
    stop.wait()
    time.sleep(STOP_GRACE_SECONDS)
    os._exit(1)


def _run_in_worker(index, job):
    """进程池里跑第 index 个任务：每 REPORT_SECONDS 把做完的提案数报给主进程，顺便看要不要停。"""
    if _worker.stop.is_set():
        raise _Stopped()
    done = 0
    last = time.monotonic()

    def report(step, outcome):
        nonlocal done, last
        done += 1
        now = time.monotonic()
        if now - last >= REPORT_SECONDS:
            if _worker.stop.is_set():
                raise _Stopped()
            _worker.progress.put((index, done))
            done = 0
            last = now

    finished = run_job(job, _worker.train, _worker.test, _worker.table, report)
    _worker.progress.put((index, done))
    return finished


def doing(job, done, workers):
    """进度行上"在做什么"那半句：哪个变体、哪个种子（和演示 3 的表一样从 0 数）、第几个提案。
    几个进程时说的是刚报来进度的那一次；进程数放最后，终端窄时先截掉它。"""
    unchecked = "" if job.check else "，不查分支"
    text = f"{job.name}{unchecked}，种子 {job.seed}：第 {done:,}/{job.budget:,} 个提案"
    if workers > 1:
        text += f"（{workers} 个进程）"
    return text


class Runs:
    """一组互相独立的 evolve 运行。
    workers=1：results 要到谁才在本进程里跑谁（和原来的脚本一模一样）；
    workers > 1：submit 交给进程池，results 按给的顺序等它们跑完。
    progress 是 console.Progress（可以是 None）：跑的时候每个提案前进一步。results 交回结果时
    不擦进度行（接着还要等别的结果时，擦了它就空着闪一下）；调用的一方往 stdout 打字之前
    clear_progress()。用完要 close()（with 也行）。"""

    def __init__(self, train, test, table, workers=1, progress=None):
        self.train, self.test, self.table = train, test, table
        self.workers = workers
        self.progress = progress
        # Job.key() → 这一次做完了几个提案（进度行上说）
        self._steps = {}
        # Job.key() → Finished（跑完的）或 Future（进程池里的）
        self._done = {}
        self._pending = {}
        # 交给进程池的任务和它的 key（key 要检查、描述选项：只算一次），按交的顺序
        # （进程报进度时说的是第几个）
        self._jobs = []
        self._pool = None
        self._queue = None
        self._stop = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def submit(self, jobs):
        """把这些运行交出去（workers=1 时只记下，要结果时再跑）。同一个 key 只跑一次。"""
        pooled = {}
        for job in jobs:
            key = job.key()
            if key in self._done or key in self._pending or key in pooled:
                continue
            if self.workers > 1 and _picklable(job):
                pooled[key] = job
        for key, job in pooled.items():
            self._pending[key] = self._pooled(job, key, len(pooled))

    def results(self, jobs):
        """这些运行的 Finished，按给的顺序；还没跑完的等它们跑完。"""
        self.submit(jobs)
        return [self._result(job) for job in jobs]

    def clear_progress(self):
        """要往 stdout 打字了：擦掉进度行（没有进度行就什么都不做）。"""
        if self.progress is not None:
            self.progress.clear()

    def _result(self, job):
        key = job.key()
        if key not in self._done:
            future = self._pending.pop(key, None)
            if future is None:
                self._done[key] = self._run_here(job, key)
            else:
                self._done[key] = self._wait(future)
            if not self._pending:
                # 交出去的都跑完了：进程池里的进程这就退出，把内存还回去
                self.close()
        return self._done[key]

    def _advance(self, job, key, steps):
        self._steps[key] = self._steps.get(key, 0) + steps
        self.progress.advance(steps, lambda: doing(job, self._steps[key], self.workers))

    def _run_here(self, job, key):
        # JOBS=1 时每个提案都调用一次：只记数，那一行要重画时（最多每 0.2 秒）才写出来
        def report(step, outcome):
            self._advance(job, key, 1)
        return run_job(job, self.train, self.test, self.table,
                       None if self.progress is None else report)

    def _pooled(self, job, key, submitted):
        if self._pool is None:
            context = multiprocessing.get_context(start_method())
            self._queue = context.Queue()
            self._stop = context.Event()
            # 进程不比一起交出去的运行多：JOBS=1000 而只有 50 次 evolve 时，多出来的 950 个进程
            # 只会一个个起来、载入、空等（2 核上整个脚本从 6 s 变成 38 s）
            self._pool = concurrent.futures.ProcessPoolExecutor(
                min(self.workers, submitted), mp_context=context, initializer=_start_worker,
                initargs=(self.train, self.test, self.table, self._queue, self._stop))
        self._jobs.append((job, key))
        # 进程池在 submit 里起新进程：新进程从一开始就收不到 Ctrl-C，要等 _start_worker 忽略它
        # 之前（spawn 时载入模块要一两秒）按下 Ctrl-C，也不会各打一段 traceback
        with _ctrl_c_blocked_for_new_processes():
            return self._pool.submit(_run_in_worker, len(self._jobs) - 1, job)

    def _wait(self, future):
        """等一个进程池里的运行跑完；等的时候把各进程报来的进度画在进度行上。"""
        while True:
            self._drain()
            try:
                finished = future.result(timeout=REPORT_SECONDS)
            except concurrent.futures.TimeoutError:
                continue
            self._drain()
            return finished

    def _drain(self):
        while True:
            try:
                index, steps = self._queue.get_nowait()
            except queue.Empty:
                return
            if self.progress is not None and steps:
                job, key = self._jobs[index]
                self._advance(job, key, steps)

    def close(self):
        """等进程都退出。还有没跑完的（Ctrl-C、出错时）先让它们停下：在下一个提案停下，卡在学生的
        代码里的 STOP_GRACE_SECONDS 之后自己退出。"""
        if self._pool is None:
            return
        # 没跑完的不 cancel：进程池里一个进程自己退出时，Python 3.11 的进程池要给每个没跑完的
        # 结果设上异常，碰到 cancel 过的就在它的线程里抛 InvalidStateError（打一段 traceback）。
        # 不 cancel 也一样快：stop 设上以后，还没开始的运行一开始就停（_run_in_worker）
        if self._pending:
            self._stop.set()
        self._pool.shutdown(wait=True)
        self._pool = None


@contextlib.contextmanager
def _ctrl_c_blocked_for_new_processes():
    """这段时间里这个线程收不到 Ctrl-C（SIGINT）；这时起的进程继承这一点（fork、spawn 都是）。
    主进程照样接得住它：信号交给别的线程，Python 在主线程里抛 KeyboardInterrupt。
    没有 pthread_sigmask 的系统（Windows）上什么都不做。"""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _picklable(job):
    """进程池只收能 pickle 的任务（MockLLM、数、字符串都行）。学生在脚本里现写的提出者类可能不行：
    那一次就在本进程里跑，结果一样，只是不并行。"""
    try:
        pickle.dumps(job)
    except (pickle.PicklingError, AttributeError, TypeError):
        return False
    return True
