"""基准：05 脚本整体要多久（一个进程、所有核），每次 evolve 各要多久、关键路径，所有进程的内存峰值（PSS）。

    python3 tests/benchmark.py            # 测这个仓库
    python3 tests/benchmark.py --repo DIR # 测另一份检出（比如优化前的提交），好对比前后

打印数字，不做断言——速度是基准的事，不是测试的事。
没有进程池的检出（没有 lecture14/runs.py，比如优化前的 217f78c）不认 JOBS、总在一个进程里跑：
只量 JOBS=1 的时间和内存，少了的几行先用一句话说为什么。

关键路径：脚本里的几十次 evolve 互相独立，进程池按交的顺序把它们分给先空下来的进程。
有 W 个进程时，整个脚本至少要"串行的部分 + 按这个顺序分给 W 个进程后最忙的那个进程的时间"，
而且不会少于最长的那一次 evolve。下面按量到的每次时间，算出 W = 1、2、4、8 时的这个下界。
"""
import argparse
import contextlib
import heapq
import io
import os
import runpy
import statistics
import subprocess
import sys
import time
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lecture14"))
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）。这里不 import 这个仓库的 evolve 等模块：
# 量另一份检出时，它的脚本要载入它自己的（同名模块载入过一次，再 import 拿到的就是那一个）
import needs_numpy  # noqa: F401,E402

RUNS = 3
# 量内存时多久看一次 /proc
SAMPLE_SECONDS = 0.02


def wall_time(path, jobs):
    env = dict(os.environ, JOBS=str(jobs))
    start = time.perf_counter()
    subprocess.run([sys.executable, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True, env=env)
    return time.perf_counter() - start


def _descendants(pid):
    """pid 和它所有的子孙进程（Linux 的 /proc/PID/task/*/children）。"""
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            continue
    return found


def _pss_kib(pid):
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def peak_memory(path, jobs):
    """跑一遍脚本，每 SAMPLE_SECONDS 把它和所有子进程的 PSS 加起来：(峰值 MiB, 那时有几个进程)。"""
    env = dict(os.environ, JOBS=str(jobs))
    proc = subprocess.Popen([sys.executable, path], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    peak, processes = 0, 0
    while proc.poll() is None:
        pids = _descendants(proc.pid)
        total = sum(_pss_kib(p) for p in pids)
        if total > peak:
            peak, processes = total, len(pids)
        time.sleep(SAMPLE_SECONDS)
    return peak / 1024, processes


def memory_line(peak, processes, jobs):
    """内存峰值那一行：几个进程时是加起来的和平均每个的，一个进程时就是它自己的。"""
    if processes == 1:
        return f"内存峰值（JOBS={jobs}，1 个进程的 PSS）：{peak:.1f} MiB"
    return (f"内存峰值（JOBS={jobs}，{processes} 个进程的 PSS 加起来）：{peak:.1f} MiB，"
            f"平均每个进程 {peak / processes:.1f} MiB")


def run_durations(path):
    """path 那份脚本 __main__ 里交给进程池的那些 evolve，在这个进程里一个一个跑：每次的秒数，
    按交的顺序；再加上串行的部分（计时表、演示 2、打印）要的秒数。脚本当模块载入（不跑 __main__），
    它 import 的是它那份检出里的 evolve、runs。"""
    script = SimpleNamespace(**runpy.run_path(path, run_name="ablations"))
    from runs import Runs
    shapes = script.all_shapes()
    table = script.TimeTable()
    start = time.perf_counter()
    for s in shapes:
        table.oracle(s)
    train, test = script.split_shapes(shapes)
    jobs = script.all_jobs()
    with Runs(train, test, table) as runs:
        finished = runs.results(jobs)
        evolving = sum(f.seconds for f in finished)
        with contextlib.redirect_stdout(io.StringIO()):
            script.demo1_ablations(table, train, test, runs)
            script.demo2_feedback(table, train)
            script.demo3_branches(table, train, test, runs)
    serial = time.perf_counter() - start - evolving
    return [f.seconds for f in finished], serial


def critical_path(durations, workers):
    """按交的顺序，每次 evolve 分给最先空下来的进程（进程池就是这样分的）：最忙的那个进程要多久。"""
    free_at = [0.0] * workers
    for d in durations:
        heapq.heappush(free_at, heapq.heappop(free_at) + d)
    return max(free_at)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=os.path.join(HERE, ".."))
    repo = os.path.abspath(parser.parse_args().repo)
    path = os.path.join(repo, "lecture14", "05_alphaevolve_ablations.py")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    has_pool = os.path.exists(os.path.join(repo, "lecture14", "runs.py"))
    print(f"仓库：{repo}")
    if not has_pool:
        print("这份检出没有进程池（没有 lecture14/runs.py）：它不认 JOBS，总在一个进程里跑，"
              "所以只量 JOBS=1 的时间和内存；每次 evolve 的时间和关键路径要用 runs.py "
              "一次一次地跑，这两样也不量。")
    # 一个进程和所有核交替着跑：机器忙闲的变化落在两边
    walls = {1: [], cores: []} if has_pool else {1: []}
    for _ in range(RUNS):
        for jobs in walls:
            walls[jobs].append(wall_time(path, jobs))
    for jobs, times in walls.items():
        shown = ", ".join(f"{w:.2f}" for w in times)
        print(f"整个脚本，JOBS={jobs}（{RUNS} 次的中位数）："
              f"{statistics.median(times):.2f} s（{shown}）")
    most = max(walls)
    print(memory_line(*peak_memory(path, most), most))
    if not has_pool:
        return
    durations, serial = run_durations(path)
    print(f"{len(durations)} 次 evolve，一共 {sum(durations):.2f} s；最长 {max(durations):.2f} s，"
          f"中位数 {statistics.median(durations):.3f} s；串行的部分 {serial:.2f} s")
    for workers in (1, 2, 4, 8):
        path_s = critical_path(durations, workers)
        print(f"  {workers} 个进程：关键路径 {path_s:.2f} s，整个脚本至少 {serial + path_s:.2f} s")


if __name__ == "__main__":
    main()
