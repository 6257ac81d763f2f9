"""
=============================================================================
CS349E · 第 14 讲 · real_llm/recount.py —— 页上引的录制里的计数，从 .jsonl 重新数
=============================================================================

    python3 lecture14/real_llm/recount.py

本目录 README.md 的句子里引的计数（回复是见过的程序、再问、交去评估的和父程序一样的、几个模型
各分到多少，同行框架存下的结果里的候选、失败的原因和我们的判定）不是手抄的：这里把提交的录制
全部回放（llm_ablations.replayed_runs，不联网）、读同行存下的 JSON，一行一个：哪一行的数（表里
的名字或文件名），和页上那句话里的原文。tests/test_readme.py 查每一句原文都在页上：录制或数法
一改，页上的数就得跟着改。
【依赖】numpy；本目录的 llm_ablations 和它用的模块；../../lecture01 的 console。
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
import llm_ablations as ablations  # noqa: E402
from console import print_table, stops_cleanly  # noqa: E402
from transcripts import load_transcript  # noqa: E402

# 一行改动（edits.py 的三种写法）：是不是"before rule"，改的是第几条
EDIT_LINE = re.compile(r"(before )?rule (\d+):")
CONFIG = re.compile(r"Config\([^)]*\)")
# 提示里反馈表的开头（edits.edit_messages）：表里每行最后是那个更快的配置
TABLE = "Training shapes where a faster config is known"


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


def spread_text(values):
    """各种子的数："41–54"，都一样时就是那个数。"""
    low, high = min(values), max(values)
    return f"{low}" if low == high else f"{low}–{high}"


def edit_replies(results):
    """一行的几份录制里，模型写的每个改动（写说明的回复不算）：几个是在某条规则前加一条新规则，
    几个改的是第 1 条规则，提示里有反馈表的几个、其中写的配置是表里列着的更快配置的几个。"""
    counts = dict.fromkeys(("edits", "inserted", "first_rule", "tabled", "copied"), 0)
    for r in results:
        for _, call in load_transcript(r["path"])[1]:
            edit = EDIT_LINE.match((call.reply or "").strip())
            if edit is None:
                continue
            counts["edits"] += 1
            counts["inserted"] += edit.group(1) is not None
            counts["first_rule"] += edit.group(1) is None and edit.group(2) == "1"
            prompt = next(m["content"] for m in call.request["messages"] if m["role"] == "user")
            if TABLE not in prompt:
                continue
            counts["tabled"] += 1
            written = CONFIG.findall(call.reply)
            counts["copied"] += bool(written) and written[-1] in CONFIG.findall(
                prompt[prompt.index(TABLE):])
    return counts


# 回复的表（README 的"写代码的模型"一节）：每行的名字，和它从 edit_replies、run 的结果里怎样算
REPLY_ROWS = {
    "100 个回复里和父程序不同的（每个种子）":
        lambda results, n: spread_text([r["changed"] for r in results]),
    "每个分支都能启动的（每个种子）":
        lambda results, n: spread_text([r["checked"] for r in results]),
    "在某条规则前加一条新规则": lambda results, n: f"{n['inserted'] / n['edits']:.0%}",
    "改的是第 1 条规则（decode 的 M <= 16）":
        lambda results, n: f"{n['first_rule'] / n['edits']:.0%}",
    "写的配置是反馈表里列着的更快配置（提示里有表时）":
        lambda results, n: f"{n['copied'] / n['tabled']:.0%}",
}


def single_models(groups):
    """一个模型、一处改动的完整方法的那几行：SmolLM2、Gemma、Qwen。"""
    return [name for name in groups if name.endswith("，" + ablations.VARIANTS[ablations.COMPLETE])
            and len(groups[name][0].get("by", [])) == 1]


def reply_table(groups):
    """回复的表：(表头：模型的短名字, 每行：REPLY_ROWS 的名字和每个模型的数)。"""
    names = single_models(groups)
    counts = {name: edit_replies(groups[name]) for name in names}
    head = [name.rpartition("，")[0] for name in names]
    body = [[label] + [row(groups[name], counts[name]) for name in names]
            for label, row in REPLY_ROWS.items()]
    return head, body


def reply_phrases(name, results):
    """说明由模型改写的那一节比的几个数：和父程序不同的、加新规则的、照抄表里更快配置的。"""
    counts = edit_replies(results)
    return [(name, f"和父程序不同的 {spread_text([r['changed'] for r in results])} 个"),
            (name, f"加新规则的 {counts['inserted'] / counts['edits']:.0%}"),
            (name, f"写的是表里更快配置的 {counts['copied'] / counts['tabled']:.0%}")]


def longest_streak(path):
    """一份录制里最后一个成员连着分到的最长一段请求：(第几个起, 第几个止, 几个)。"""
    settings, calls = load_transcript(path)
    last = settings["members"][-1]["model"]
    best, start = (0, 0, 0), None
    for i, (_, call) in enumerate(calls, 1):
        if call.request["model"] != last:
            start = None
            continue
        start = start or i
        best = max(best, (i - start + 1, start, i))
    n, first, end = best
    return first, end, n


def streak_phrases(name, results):
    """bandit 那几行（不再问，所以一个请求就是一个提案）：最长的一段在哪个种子、第几到第几个，
    最短的那个种子上最长一段是 1 时说它没有连着分到过两个。"""
    streaks = sorted((longest_streak(r["path"]), r["seed"]) for r in results)
    (_, _, shortest), low_seed = min(streaks, key=lambda s: (s[0][2], s[1]))
    (first, end, longest), high_seed = max(streaks, key=lambda s: (s[0][2], -s[1]))
    said = [(name, f"种子 {high_seed} 上它第 {first}–{end} 个提案连着分到 {longest} 个")]
    if shortest == 1:
        said.append((name, f"种子 {low_seed} 上它没有连着分到过两个"))
    return said


def recounts(groups):
    """[(行的名字, 页上那句话里的原文), ...]：见过的程序再问的每一行和它不再问的那一行，
    几个模型一起的每一行（bandit 的还有最后一个成员连着分到的最长一段）。"""
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
    for name in ablations.meta_rows(groups):
        plain = ablations.named(name.rpartition("，")[0], ablations.COMPLETE)
        said += reply_phrases(name, groups[name]) + reply_phrases(plain, groups[plain])
    for name, results in groups.items():
        if "models" not in results[0]:
            continue
        last = results[0]["models"][-1]
        share = by_seed(results, lambda r: f"{r['proposals'][-1] / sum(r['proposals']):.0%}")
        said += [(name, f"{last} 分到的提案依次是 {share}"),
                 (name, f"子程序比父程序好的，{ablations.member_rates(results)}")]
        settings = load_transcript(results[0]["path"])[0]
        if settings.get("bandit") and not settings.get("resample"):
            said += streak_phrases(name, results)
    return said


# 同行框架存下的结果里，一代（ShinkaEvolve）或一轮（OpenEvolve）没变成候选程序的原因，页上的说法
FAILURES = {
    "No valid diffs found in response": "没写出 SEARCH/REPLACE 块",
    "Unmatched SEARCH/REPLACE delimiter outside a diff block": "块的分隔符没配对",
    "None of the N SEARCH block(s) matched the parent program": "SEARCH 那段和父程序对不上",
    "Malformed SEARCH/REPLACE delimiter sequence": "分隔符写错了顺序",
    "Diff did not change the parent program": "改完和父程序一样",
    "Rewrite is identical to the parent program": "和父程序一字不差",
    "SEARCH text not found in editable regions": "SEARCH 那段在父程序里找不到",
    "No changes applied": "没改成任何东西",
    "Could not extract code from patch string": "的回复抽不出代码",
}
# 候选程序我们的评估怎么判（openevolve_peer.judge_source 的结论），页上的说法
VERDICTS = {"ok": "过了检查", "outside_subset": "不在子集里", "syntax_error": "不是合法的 Python",
            "bad_branch": "有分支启动不了", "outside_space": "配置不在搜索空间里",
            "crash": "在训练形状上启动不了", "cascade": "级联第一关被拒"}


def peer_phrases(data=ablations.DATA):
    """同行框架存下的每个结果：几个回复变成了候选程序，没变成的各为什么，变成的我们怎么判。
    页上没有说法的原因、结论照原文引。"""
    said = []
    for path, saved in ablations.peer_files(data):
        name = os.path.basename(path)
        unit = "代" if saved.get("peer") == "ShinkaEvolve" else "轮"
        said.append((name, f"{saved['candidates']} 个回复变成了候选程序"))
        for reason, n in sorted(saved["failed_iterations"].items()):
            words = FAILURES.get(reason, f'是 "{reason}"')
            # 英文开头的说法前空一格："16 轮 SEARCH 那段……"
            gap = " " if words[0].isascii() else ""
            said.append((name, f"{n} {unit}{gap}{words}"))
        for verdict, n in sorted(saved["verdicts"].items()):
            said.append((name, f"{n} 个" + VERDICTS.get(verdict, f"判为 {verdict}")))
    return said


def main():
    runs, _ = ablations.replayed_runs()
    for name, phrase in recounts(runs) + peer_phrases():
        print(f"{name}：{phrase}")
    head, body = reply_table(runs)
    print_table(["回复"] + head, body)
    return 0


if __name__ == "__main__":
    with stops_cleanly():
        sys.exit(main())
