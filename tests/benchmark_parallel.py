"""基准：--parallel K 值多少。127.0.0.1 上一个每次回答都要 DELAY 秒的假模型服务器
（可以同时答很多个，像 vLLM 或云上的 API），同样的预算，K = 1、4、16 各跑一次 evolve，
打印每分钟几个提案。

    python3 tests/benchmark_parallel.py [--delay 0.4] [--budget 48]

打印数字，不做断言——速度是基准的事，不是测试的事。测试（test_llm.py 的并发那一节）
查的是 K 个请求真的同时在路上、结果和到达的先后无关。
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
LECTURE14 = os.path.join(HERE, "..", "lecture14")
sys.path[:0] = [LECTURE14, os.path.join(LECTURE14, "real_llm")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
from evolve import (EXPERT, Evaluator, TimeTable, all_shapes, evolve, render,  # noqa: E402
                    split_shapes)
from llm import ChatLLM  # noqa: E402
from servers import SeededServer  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=0.4,
                        help="假服务器每次回答要几秒（默认 0.4）")
    parser.add_argument("--budget", type=int, default=48, help="每次 evolve 的提案数（默认 48）")
    args = parser.parse_args()
    replies = [render(EXPERT).replace("M <= 16", "M <= 4"), "no code"]
    server = SeededServer(replies, lambda seed: args.delay)
    table = TimeTable()
    train, _ = split_shapes(all_shapes())
    try:
        base = None
        for k in (1, 4, 16):
            start = time.perf_counter()
            chat = ChatLLM(server.url, "fake")
            evolve(Evaluator(train, table), args.budget, seed=0, llm=chat, parallel=k)
            per_minute = args.budget / (time.perf_counter() - start) * 60
            base = base or per_minute
            times = per_minute / base
            print(f"--parallel {k:>2}：{per_minute:7.0f} 个提案/分钟（{times:.1f} 倍），"
                  f"同时在路上最多 {server.in_flight_max} 个")
            server.in_flight_max = 0
    finally:
        server.close()


if __name__ == "__main__":
    main()
