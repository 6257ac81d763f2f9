"""比两份检出谁快：交替运行两边的 05 脚本（A、B、A、B……），各取中位数。

    python3 tests/compare_checkouts.py ../before .        # 默认各 5 次，JOBS=1
    python3 tests/compare_checkouts.py ../before . --runs 9 --jobs 2

机器忙闲会变（别的任务、别的 agent）：先跑完一边再跑另一边的话，两边量的是不同时候的机器，
同一份代码也能差一倍。交替着跑，两边碰上的忙闲差不多，中位数之比才说得上是代码的差别。
打印数字，不做断言——速度是基准的事，不是测试的事。
"""
import argparse
import os
import statistics

# 跑一遍脚本、量墙钟时间的是 benchmark.py 的 wall_time（没装 numpy 时它只说一句怎样装）
from benchmark import wall_time

SCRIPT = os.path.join("lecture14", "05_alphaevolve_ablations.py")


def schedule(runs):
    """交替的顺序：[0, 1, 0, 1, ...]，两边各 runs 次（0 是第一份检出，1 是第二份）。"""
    return [side for _ in range(runs) for side in (0, 1)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", help="第一份检出（例如改之前的 ../before）")
    parser.add_argument("second", help="第二份检出（例如工作区 .）")
    parser.add_argument("--runs", type=int, default=5, help="每边跑几次（默认 5）")
    parser.add_argument("--jobs", type=int, default=1, help="JOBS，几个进程（默认 1）")
    args = parser.parse_args(argv)
    repos = [os.path.abspath(args.first), os.path.abspath(args.second)]
    for repo in repos:
        if not os.path.isfile(os.path.join(repo, SCRIPT)):
            parser.error(f"{repo} 里没有 {SCRIPT}：要给仓库的根目录")
    times = ([], [])
    for side in schedule(args.runs):
        times[side].append(wall_time(os.path.join(repos[side], SCRIPT), args.jobs))
    medians = [statistics.median(t) for t in times]
    for repo, median, runs in zip(repos, medians, times):
        shown = ", ".join(f"{t:.2f}" for t in runs)
        print(f"{repo}：JOBS={args.jobs}，{len(runs)} 次的中位数 {median:.2f} s（{shown}）")
    print(f"第二份 ÷ 第一份：{medians[1] / medians[0]:.2f}")


if __name__ == "__main__":
    main()
