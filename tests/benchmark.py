"""基准：05 脚本整体要多久、每个阶段各占多少、每秒处理多少个提案。

    python3 tests/benchmark.py            # 测这个仓库
    python3 tests/benchmark.py --repo DIR # 测另一份检出（比如优化前的提交），好对比前后

打印数字，不做断言——速度是基准的事，不是测试的事。
"""
import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import load_script  # noqa: E402

RUNS = 3


def wall_time(path):
    start = time.perf_counter()
    subprocess.run([sys.executable, path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def phase_times(script):
    """和脚本的 __main__ 一样的四步，分别计时（输出丢掉）。"""
    times = {}
    with contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        shapes = script.all_shapes()
        table = script.TimeTable()
        for s in shapes:
            table.oracle(s)
        train, test = script.split_shapes(shapes)
        times["oracle"] = time.perf_counter() - start
        for name, run in (("demo1", lambda: script.demo1_ablations(table, train, test)),
                          ("demo2", lambda: script.demo2_feedback(table, train)),
                          ("demo3", lambda: script.demo3_branches(table, train, test))):
            start = time.perf_counter()
            run()
            times[name] = time.perf_counter() - start
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    repo = os.path.abspath(parser.parse_args().repo)
    path = os.path.join(repo, "lecture14", "05_alphaevolve_ablations.py")
    script = load_script(path)
    walls = [wall_time(path) for _ in range(RUNS)]
    phases = [phase_times(script) for _ in range(RUNS)]
    median = {k: statistics.median(p[k] for p in phases) for k in phases[0]}
    proposals = (script.SEEDS * script.BUDGET * len(script.VARIANTS)   # 演示 1
                 + 300                                                 # 演示 2
                 + 2 * script.SEEDS * script.BUDGET)                   # 演示 3：分支检查开、关
    evolving = median["demo1"] + median["demo2"] + median["demo3"]
    print(f"仓库：{repo}")
    print(f"整个脚本（{RUNS} 次的中位数）：{statistics.median(walls):.2f} s（{', '.join(f'{w:.2f}' for w in walls)}）")
    print("各阶段（中位数）：" + "，".join(f"{k} {v:.2f} s" for k, v in median.items()))
    print(f"提案：{proposals:,} 个，{proposals / evolving:,.0f} 个/秒")


if __name__ == "__main__":
    main()
