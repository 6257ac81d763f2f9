"""
=============================================================================
CS349E · 第 14 讲 · real_llm/recount.py —— 页上引的录制里的计数，从 .jsonl 重新数
=============================================================================

    python3 lecture14/real_llm/recount.py

本目录 README.md 的句子里引的计数（回复是见过的程序、再问、交去评估的和父程序一样的、几个模型
各分到多少）不是手抄的：这里把提交的录制全部回放（llm_ablations.replayed_runs，不联网），
一行一个：哪一行的数（表里的名字），和页上那句话里的原文。tests/test_readme.py 查每一句原文
都在页上：录制或数法一改，页上的数就得跟着改。
【依赖】numpy；本目录的 llm_ablations 和它用的模块；../../lecture01 的 console。
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
import llm_ablations as ablations  # noqa: E402
from console import stops_cleanly  # noqa: E402


def by_seed(results, value):
    """各种子的一个数，按种子排，"、"连起来：46、59、52。"""
    return "、".join(f"{value(r)}" for r in sorted(results, key=lambda r: r["seed"]))


def asked_again(results):
    """第一次问和再问的回复里各有几个是见过的程序（几个种子加起来）。第一次问的请求数 =
    请求 - 再问的；再问的回复里见过的 = 见过的 - 第一次问里见过的。"""
    first = sum(r["requests"] - r["asked_again"] for r in results)
    first_seen = sum(r["first_repeats"] for r in results)
    again = sum(r["asked_again"] for r in results)
    again_seen = sum(r["repeats"] - r["first_repeats"] for r in results)
    seen_first = f"{first_seen / first:.0%} 是见过的程序（{first} 个里 {first_seen} 个）"
    seen_again = f"{again_seen / again:.0%}（{again} 个里 {again_seen} 个）"
    return f"第一次问的回复 {seen_first}，再问的 {seen_again}"


def recounts(groups):
    """[(行的名字, 页上那句话里的原文), ...]：见过的程序再问的每一行和它不再问的那一行，
    几个模型一起的每一行。"""
    said = []
    for name in ablations.resample_rows(groups):
        said.append((name, asked_again(groups[name])))
        plain = ablations.named(name.rpartition("，")[0], ablations.COMPLETE)
        for row in (plain, name):
            results = groups.get(row, [])
            if not results:
                continue
            same = by_seed(results, lambda r: r["out"].n_unchanged)
            better = by_seed(results, lambda r: r["improved"])
            said += [(row, f"交去评估的子程序里和父程序一样的依次是 {same} 个"),
                     (row, f"比父程序好的依次是 {better} 个")]
        said.append((name, f"问满了还是见过的 {by_seed(groups[name], lambda r: r['withheld'])} "
                           "个提案不交"))
    for name, results in groups.items():
        if "models" not in results[0]:
            continue
        last = results[0]["models"][-1]
        share = by_seed(results, lambda r: f"{r['proposals'][-1] / sum(r['proposals']):.0%}")
        said += [(name, f"{last} 分到的提案依次是 {share}"),
                 (name, f"子程序比父程序好的，{ablations.member_rates(results)}")]
    return said


def main():
    runs, _ = ablations.replayed_runs()
    for name, phrase in recounts(runs):
        print(f"{name}：{phrase}")
    return 0


if __name__ == "__main__":
    with stops_cleanly():
        sys.exit(main())
