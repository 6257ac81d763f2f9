"""
=============================================================================
CS349E · 第 14 讲 · evolve_with_llm.py —— 同一个进化循环，换成真的语言模型
=============================================================================

    python3 lecture14/evolve_with_llm.py --base-url http://127.0.0.1:8000/v1 --model NAME
                                         [--budget 50] [--seed 0] [--record FILE] [--replay FILE]

真模型（llm.ChatLLM，OpenAI 兼容的 chat API）和 MockLLM 各跑一次 evolve：同样的预算、种子、评估器、级联、
分支检查和岛屿。打印对比表、模型的回复各是什么结果、最好的程序。进度打到 stderr，一个提案一行。

--record FILE 把每次调用存成一行 JSON；--replay FILE 照它重放，不联网，stdout 和录制时一字不差。
所以表里的秒数是**等模型的秒数**：录制时测的、存进文件，回放时照原样读出。引擎自己的用时每次都不同，只打到 stderr。
【依赖】numpy；本目录的 evolve、llm；../lecture01 的 console。
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lecture01"))
from evolve import (EXPERT, OUTCOMES, Evaluator, MockLLM, TimeTable, all_shapes, evolve, geomean_speedup,  # noqa: E402
                    render, simplify, split_shapes)
from llm import RESULTS, ChatLLM, ReplayError  # noqa: E402
from console import (clip, print_header, print_observations, print_table, progress, stops_cleanly,  # noqa: E402
                     terminal_columns)


def parse_args(argv):
    ap = argparse.ArgumentParser(description="用真的语言模型跑迷你 AlphaEvolve，和 MockLLM 对比。")
    ap.add_argument("--base-url", help="OpenAI 兼容 API 的地址，例如 http://127.0.0.1:8000/v1（只回放时不用）")
    ap.add_argument("--model", required=True, help="模型名（回放时要和录制时相同）")
    ap.add_argument("--budget", type=int, default=50, help="提案数（默认 50）")
    ap.add_argument("--seed", type=int, default=0, help="随机种子（默认 0）")
    ap.add_argument("--record", help="把每次调用追加到这个文件（JSON 行）")
    ap.add_argument("--replay", help="从这个录制文件回放，不联网")
    ap.add_argument("--timeout", type=float, default=300.0, help="每次调用的超时，秒（默认 300：CPU 上的模型很慢）")
    ap.add_argument("--max-tokens", type=int, default=1024, help="每次回复最多几个 token（默认 1024）")
    return ap.parse_args(argv)


def problem_with(args):
    """命令行参数的问题，一句话；没问题是 None。"""
    for flag, value in (("--budget", args.budget), ("--max-tokens", args.max_tokens), ("--timeout", args.timeout)):
        if value <= 0:
            return f"{flag} 应 > 0，收到 {value:g}"
    if args.record and args.replay:
        return "--record 和 --replay 只能选一个：录制时联网，回放时不联网"
    if not args.replay and not args.base_url:
        return "要么给 --base-url（连一个模型服务器），要么给 --replay（回放录好的文件）"
    if args.record and os.path.exists(args.record):
        return f"录制文件 {args.record} 已经存在：换个名字，或者先删掉它（录制是往文件末尾追加的）"
    if args.replay and not os.path.isfile(args.replay):
        return f"回放文件 {args.replay} 不存在"
    return None


def run(llm, budget, seed, train, test, table, report):
    """跑一次 evolve，返回表里要的数。"""
    start = time.monotonic()
    out = evolve(Evaluator(train, table), budget, seed=seed, llm=llm, report=report)
    best, score = out["best"]
    outcomes = out["outcomes"]
    parsed = budget - out["n_failed"]
    checked = parsed - outcomes.count("bad_branch")
    return {"out": out, "best": best, "score": score, "test": geomean_speedup(best, test, table), "parsed": parsed,
            "checked": checked, "cascade": outcomes.count("added") + outcomes.count("not_added"),
            "added": out["n_added"], "wall": time.monotonic() - start}


def line_per_proposal(chat, budget):
    """stderr 上一个提案一行：模型的回复是什么结果，进化循环又怎么处理了它，再是细节（截到终端宽度）。"""
    def report(step, outcome):
        result, detail = chat.last
        line = f"[{chat.model} {step + 1}/{budget}] {RESULTS[result]} → {OUTCOMES[outcome]}"
        line += f"：{detail}" if detail else ""
        print(clip(line, terminal_columns(sys.stderr), "…"), file=sys.stderr, flush=True)
    return report


def main(argv=None):
    args = parse_args(argv)
    problem = problem_with(args)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    try:
        chat = ChatLLM(args.base_url, args.model, max_tokens=args.max_tokens, timeout=args.timeout, record=args.record,
                       replay=args.replay)
    except ValueError as e:                                    # 地址写错、回放文件不是录制文件……：一句话
        print(e, file=sys.stderr)
        return 2
    print(f"模型：{args.model}，" + (f"回放 {args.replay}" if args.replay else f"服务器 {args.base_url}")
          + (f"，录制到 {args.record}" if args.record else ""), file=sys.stderr)
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    try:
        real = run(chat, args.budget, args.seed, train, test, table, line_per_proposal(chat, args.budget))
    except ReplayError as e:
        print(e, file=sys.stderr)
        return 2
    mock = run(MockLLM(), args.budget, args.seed, train, test, table,
               lambda step, _: progress(f"MockLLM：提案 {step + 1}/{args.budget}"))
    progress("")
    print(f"用时：{args.model} {real['wall']:.1f} s（其中等模型 {chat.seconds:.1f} s），MockLLM {mock['wall']:.1f} s",
          file=sys.stderr)
    report(args, chat, real, mock)
    return 0


def report(args, chat, real, mock):
    print_header(f"{args.model} 和 MockLLM：各 {args.budget} 个提案，种子 {args.seed}")
    rows = [[name, f"{r['score']:.3f}", f"{r['test']:.3f}", r["parsed"], r["checked"], r["cascade"], r["added"], secs]
            for name, r, secs in ((args.model, real, f"{chat.seconds:.1f}"), ("MockLLM()", mock, "—"))]
    print_table(["提出者", "训练分数", "测试分数", "解析", "过检查", "过级联", "进库", "等模型 s"], rows)
    print("（分数：相对专家程序的几何平均加速比。")
    print("  解析 → 过检查 → 过级联 → 进库：提案一关关剩下的个数。")
    print("  等模型 s：等模型回答的秒数，录制时测的，回放时照原样读出。）")

    print_header(f"{args.model} 的 {args.budget} 个回复")
    print_table(["结果", "个数"], [[text, chat.stats[key]] for key, text in RESULTS.items() if chat.stats[key]])
    print(f"（429/5xx 之后重试了 {chat.retries} 次）")

    best = real["best"]
    print_header(f"{args.model} 找到的最好程序（化简后），训练分数 {real['score']:.3f}")
    print(render(simplify(best)), end="")

    failed = {key: n for key, n in chat.stats.items() if key != "ok" and n}
    print_observations([
        f"{args.model} 的 {args.budget} 个提案：{real['parsed']} 个解析成程序，{real['checked']} 个过了分支检查，"
        f"{real['cascade']} 个过了级联，{real['added']} 个进了数据库。MockLLM 在同样的位置是 {mock['parsed']}、"
        f"{mock['checked']}、{mock['cascade']}、{mock['added']}。",
        (f"没变成程序的 {args.budget - real['parsed']} 个：" + "，".join(f"{RESULTS[k]} {n} 个" for k, n in failed.items())
         + "。" if failed else "每个回复都解析成了程序。")
        + "模型写的代码从来没有被执行：parse_program 只读源码，不在子集里的直接拒掉；不能启动的分支由分支检查拒掉，"
        "一个内核都不跑。",
        f"同样的预算和种子：{args.model} 到了 {real['score']:.3f}（测试形状 {real['test']:.3f}），"
        f"MockLLM 到了 {mock['score']:.3f}（测试形状 {mock['test']:.3f}）。"
        + ("它最好的程序还是初始的专家程序：没有一个提案比专家好。" if real["best"] == EXPERT else ""),
    ])


if __name__ == "__main__":
    with stops_cleanly():                                      # Ctrl-C、… | head：一行说明或安静退出
        sys.exit(main())
