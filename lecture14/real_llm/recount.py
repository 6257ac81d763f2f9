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
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
import evolve_with_llm as cli  # noqa: E402
import llm_ablations as ablations  # noqa: E402
from checks import OneSentenceParser  # noqa: E402
from console import print_table, stops_cleanly  # noqa: E402
from code_manipulation import config_source  # noqa: E402
from edits import TABLE_TITLE  # noqa: E402
from evolve import (Evaluator, Program, TimeTable, all_shapes, choose, evolve,  # noqa: E402
                    split_shapes)
from llm import from_transcript  # noqa: E402
from transcripts import load_transcript  # noqa: E402

# 一行改动（edits.py 的三种写法）：是不是"before rule"，改的是第几条
EDIT_LINE = re.compile(r"(before )?rule (\d+):")
CONFIG = re.compile(r"Config\([^)]*\)")


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


def user_prompt(call):
    """一次请求里给模型的那段话（user 消息）。"""
    return next(m["content"] for m in call.request["messages"] if m["role"] == "user")


def table_rows(prompt):
    """提示里的反馈表（edits.rule_table）：{形状的 (M, N, K): 表里那个更快的配置}；没有表是 {}。"""
    if TABLE_TITLE not in prompt:
        return {}
    rows = {}
    # 表头两行之后每行是 M N K rule time_us speedup，最后是配置
    for line in prompt[prompt.index(TABLE_TITLE):].splitlines()[2:]:
        cells, faster = line.split(), CONFIG.search(line)
        if faster is None:
            break
        rows[tuple(int(x) for x in cells[:3])] = faster.group()
    return rows


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
            faster = table_rows(user_prompt(call))
            if not faster:
                continue
            counts["tabled"] += 1
            written = CONFIG.findall(call.reply)
            counts["copied"] += bool(written) and written[-1] in faster.values()
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
    streaks = [(longest_streak(r["path"]), r["seed"]) for r in results]
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


# ==== SmolLM2 的几段：一处改动改了什么、整个程序、不进化的提示 ==================================

# "一处改动的完整版改了什么"一段和它下面那张提示的对比表一样只说种子 0、1：另一种提示只录了
# 这两个种子，两段放在一起比
DIFF_SEEDS = (0, 1)
# 表里最常见的那个更快的配置（BK=128、stages=5）：页上数模型写了它几次
COMMON = ("BK=128", "stages=5")


class PairsSeen(Evaluator):
    """记下交来和父程序比的每个子程序，按提案的顺序：[(父程序, 子程序), ...]。"""

    def __init__(self, train, table):
        super().__init__(train, table)
        self.pairs = []

    def judge(self, child, parent=None):
        if parent is not None and isinstance(child, Program):
            self.pairs.append((parent, child))
        return super().judge(child, parent)


def judged_pairs(proposer, settings, train, table):
    """照录制的设置再跑一次进化循环（proposer：回放的模型，或随机改一处），交来评估的父子。"""
    ev = PairsSeen(train, table)
    evolve(ev, llm=proposer, **ablations.recorded_loop(settings))
    return ev.pairs


def moved(parent, child, shapes):
    """子程序有没有让 shapes 里的哪个形状换了配置。"""
    return any(choose(parent, s) != choose(child, s) for s in shapes)


def what_an_edit_did(parent, child, call, train):
    """一个改动（父程序、子程序和它的请求）做了什么，每项是 0 或 1：让至少一个训练形状换了配置
    （moved）、落在反馈表列出的形状上（listed）、抄了表里的配置而表里列着它的形状也真的换成了它
    （landed）、写的是 COMMON 那个配置（common）。"""
    faster = table_rows(user_prompt(call))
    listed = [s for s in train if (s.M, s.N, s.K) in faster]
    written = CONFIG.findall(call.reply)[-1]
    # 抄了表里的配置，表里列着它的形状也真的换成了它
    landed = [s for s in listed if faster[s.M, s.N, s.K] == written
              and config_source(choose(parent, s)) != written
              and config_source(choose(child, s)) == written]
    return {"moved": moved(parent, child, train), "listed": moved(parent, child, listed),
            "landed": bool(landed), "common": all(part in written for part in COMMON)}


def diff_phrases(results, train, table):
    """"一处改动的完整版改了什么"：DIFF_SEEDS 上 SmolLM2 的每个改动（都解析成了程序、都交去
    评估，所以父子和请求一一对上），和同样设置的随机改一处。改动、看得到表的、抄了表里配置的
    几个，edit_replies 数。"""
    n = dict.fromkeys(("moved", "listed", "landed", "common"), 0)
    random_moved = []
    chosen = sorted((r for r in results if r["seed"] in DIFF_SEEDS), key=lambda r: r["seed"])
    replies = edit_replies(chosen)
    for r in chosen:
        settings, calls = load_transcript(r["path"])
        pairs = judged_pairs(from_transcript(r["path"]), settings, train, table)
        if len(pairs) != len(calls):
            raise ValueError(f"{r['path']}：{len(calls)} 个请求，{len(pairs)} 个交去评估，对不上")
        for (parent, child), (_, call) in zip(pairs, calls):
            for key, did in what_an_edit_did(parent, child, call, train).items():
                n[key] += did
        random = cli.BASELINES[ablations.RANDOM]()
        random_pairs = judged_pairs(random, settings, train, table)
        random_moved.append(sum(moved(parent, child, train) for parent, child in random_pairs))
    inserted = replies["inserted"]
    return [f"{replies['edits']} 个改动", f"{replies['first_rule']} 个改的是第 1 条",
            "一次都没加过新规则" if inserted == 0 else f"{inserted} 次加了新规则",
            f"{n['moved']} 个改动让至少一个训练形状换了配置",
            f"随机改一处是 {' + '.join(str(m) for m in random_moved)} 个",
            f"{n['listed']} 个落在反馈表里列出的形状上",
            f"{replies['tabled']} 个看得到表的改动里 {replies['copied']} 次",
            f"其中 {n['landed']} 次表里列着它的形状真的换成了它",
            f"{n['common']} 个是 `{', '.join(COMMON)}`"]


def whole_program_phrases(results, train, table):
    """"整个程序"一段（一份录制）：解析、程序有几条规则（中位数）、每个分支都能启动、进了数据库、
    级联第一关被拒、有不能启动的分支。"""
    (r,) = results
    outcomes = r["out"]["outcomes"]
    settings = load_transcript(r["path"])[0]
    pairs = judged_pairs(from_transcript(r["path"]), settings, train, table)
    rules = statistics.median(len(child.rules) for _, child in pairs)
    return [f"{r['parsed']} 个回复全部解析成程序" if r["parsed"] == r["proposals"]
            else f"{r['parsed']} 个回复解析成程序", f"中位数 {rules:g} 条规则",
            f"{r['checked']} 个每个分支都能启动", f"{r['added']} 个进了数据库",
            f"{outcomes.count('cascade')} 个在级联第一关就被拒了",
            f"{outcomes.count('bad_branch')} 个有不能启动的分支"]


def repeated_prompts(results):
    """不进化的录制里，和上一个请求一字不差的请求（父程序没换、反馈表也没变）有几个。"""
    def same(r):
        calls = [call for _, call in load_transcript(r["path"])[1]]
        return sum(a.request["messages"] == b.request["messages"] for a, b in zip(calls, calls[1:]))
    return f"100 个请求有 {by_seed(results, same)} 个是这样"


# ==== Qwen 单独的几次录制等了多久 =================================================================

# 前几个请求缓存还是空的，每个都从头读提示：中位数从这之后数
WARM = 10


def waits(results):
    """每份录制：100 个提案一共等了模型几秒，前 WARM 个之后每个请求的中位数。"""
    said = []
    for r in sorted(results, key=lambda r: r["seed"]):
        seconds = [call.seconds for _, call in load_transcript(r["path"])[1]]
        warm = statistics.median(seconds[WARM:])
        said.append(f"种子 {r['seed']} {sum(seconds):,.0f} s、{warm:.1f} s")
    return "；".join(said)


def paragraph_phrases(groups):
    """SmolLM2 那几段和 Qwen 等了多久的计数：[(行的名字, 原文), ...]。"""
    table = TimeTable()
    train, _ = split_shapes(all_shapes())
    diff = ablations.named(ablations.SMOLLM2, ablations.COMPLETE)
    whole = ablations.named(ablations.SMOLLM2, ablations.WHOLE_PROGRAM)
    still = ablations.named(ablations.SMOLLM2, ablations.NOT_EVOLVED)
    qwen = ablations.named("Qwen", ablations.COMPLETE)
    return ([(diff, phrase) for phrase in diff_phrases(groups[diff], train, table)]
            + [(whole, phrase) for phrase in whole_program_phrases(groups[whole], train, table)]
            + [(still, repeated_prompts(groups[still])), (qwen, waits(groups[qwen]))])


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


def main(argv=None):
    # 没有参数（--help 印用法，别的参数一句话）：不然 --help 也一声不响地回放全部录制
    OneSentenceParser(description="页上引的录制里的计数，从 .jsonl 重新数：一行一个，哪一行的数和"
                                  "页上那句话里的原文（见文件开头）。").parse_args(argv)
    runs, _ = ablations.replayed_runs()
    for name, phrase in recounts(runs) + paragraph_phrases(runs) + peer_phrases():
        print(f"{name}：{phrase}")
    head, body = reply_table(runs)
    print_table(["回复"] + head, body)
    return 0


if __name__ == "__main__":
    with stops_cleanly():
        sys.exit(main())
