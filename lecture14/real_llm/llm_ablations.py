"""
=============================================================================
CS349E · 第 14 讲 · real_llm/llm_ablations.py —— 真模型的消融：把提交的录制回放一遍，排成一张表
=============================================================================

    python3 lecture14/real_llm/llm_ablations.py [--plot 图.png [--size 宽x高]]

lecture14/real_llm/data/ 里每份录制（*.jsonl）按它第 1 行的设置回放（不联网），按提出者和变体
分组：一处改动的完整方法、提示里没有反馈表（"No context in the prompt"）、不进化
（"No evolution"）、整个程序（"No full-file evolution" 的反面，见本目录的 README.md）、说明由模型
改写（"No meta prompt evolution" 的反面）。三个对照
（随机改一处、MockLLM(knowledge=False)、MockLLM()）照 evolve_with_llm.py 的跑法在同样的种子上
当场跑，进化和不进化各一次；随机改一处再照同样的设置当 (1+1) 爬山跑一次（一个岛、只留一个程序：
种群要不要）；OpenEvolve、ShinkaEvolve 的结果来自本目录 openevolve_peer.py、
shinka_peer.py 存下的 JSON。
每行是种子的中位数和最小–最大，训练、测试形状各一组；表下的几句话由这些数决定。
--plot 另存一张 AlphaEvolve 图 8 样子的图（lecture14/curves.py 画）：每个消融一幅，都和完整的比。
【依赖】numpy；本目录的 evolve_with_llm 和它用的模块；../../lecture01 的 console；
  --plot 要 matplotlib。
"""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
import curves  # noqa: E402
import evolve_with_llm as cli  # noqa: E402
import openevolve_peer  # noqa: E402
from console import (print_header, print_message, print_observations,  # noqa: E402
                     print_paragraph, print_table, stops_cleanly)
from evolve import TimeTable, all_shapes, oracle_speedup, split_shapes  # noqa: E402
from llm import ChatEnsemble, from_transcript, mix_name  # noqa: E402
from transcripts import ChatError  # noqa: E402
from compare import ABOVE, BELOW, DIGITS, Spread, verdict  # noqa: E402

# 变体：(要法, 有没有反馈表, 进不进化, 说明由不由模型改写, 见过的程序再不再问) → 表里的名字
# （跟在提出者后面），按这个顺序排
VARIANTS = {("diff", True, True, False, False): "一处改动",
            ("diff", False, True, False, False): "没有反馈表",
            ("diff", True, False, False, False): "不进化",
            ("full", True, True, False, False): "整个程序",
            ("diff", True, True, True, False): "说明由模型改写",
            ("diff", True, True, False, True): "见过的程序再问"}
# 一处改动的完整方法：别的变体都和同一个提出者的它比
COMPLETE = ("diff", True, True, False, False)
META = ("diff", True, True, True, False)
RESAMPLED = ("diff", True, True, False, True)
# 整个程序、不进化（recount.py 数页上讲它们的那两段）
WHOLE_PROGRAM = ("full", True, True, False, False)
NOT_EVOLVED = ("diff", True, False, False, False)
NO_EVOLUTION = "，不进化"
# 随机改一处的 (1+1) 爬山：同样的预算、种子、评估器，只是一个岛、每岛只留一个程序（evolve 的
# n_islands、population）。它不要模型，当场跑几乎不花时间；录下的请求回放不了新的循环，所以模型
# 没有爬山的行
RANDOM = "随机改一处"
CLIMBER = RANDOM + "，爬山"
CLIMBING = {"n_islands": 1, "population": 1}
# 同行的框架：它们的行以框架的名字开头，后面是要法（diff、full……）和模型的短名字
PEERS = ("OpenEvolve", "ShinkaEvolve")
# 模型在表里的短名字；几个模型一起时按录制第 1 行的配比或 bandit 再加几个字
SHORT = {"SmolLM2-135M-Instruct": "SmolLM2", "gemma-3-270m": "Gemma",
         "qwen2.5-coder-1.5b-instruct": "Qwen"}
# 标题里的全名（按这个顺序）：表里有哪个模型的录制，标题就写哪个
FULL_NAMES = {"SmolLM2": "SmolLM2-135M", "Gemma": "Gemma 3 270M", "Qwen": "Qwen2.5-Coder 1.5B"}
SMOLLM2 = "SmolLM2"
# 每份录制、每次同行的运行要的预算：100 个模型请求（record.sh 的 BUDGET，同行的 --iterations、
# --generations）。同行的运行没跑满的，行名后面写跑了几轮
BUDGET = 100


def variant(settings):
    """录制第 1 行的设置 → 变体的键；较早的录制没记 edit、context、evolution、meta_prompt、
    resample，是默认值（resample 只看开没开）。"""
    names = ("edit", "context", "evolution", "meta_prompt")
    given = tuple(settings.get(name, cli.DEFAULTS[name]) for name in names)
    return given + (settings.get("resample", cli.DEFAULTS["resample"]) > 0,)


def proposer(settings):
    """录制是谁提的：一个模型是它的短名字，几个模型是"A + B 4:1"（固定配比）或"A + B bandit"。"""
    names = [SHORT.get(model, model) for model in cli.recorded_models(settings)]
    if len(names) == 1:
        return names[0]
    return " + ".join(names) + " " + mix_name(settings["weights"], settings["bandit"])


def named(who, key):
    """表里的一行：提出者，变体。"""
    return f"{who}，{VARIANTS[key]}"


# SmolLM2 的完整方法：别的行都和它比，图的每幅都画它
FULL = named(SMOLLM2, COMPLETE)


def recorded_loop(settings):
    """录制的设置里进化循环的那几项（预算、种子……），没写的取命令行的默认。"""
    return {name: settings.get(name, cli.DEFAULTS[name]) for name in cli.LOOP_SETTINGS}


def replayed_runs(data=DATA):
    """每份录制回放一遍：{行的名字: [run 的结果（加上 seed、每份预算等模型的秒数、回复和见过的
    程序的几个计数，几个模型时每个模型问了模型的提案数和进步数）, ...]}。
    行的顺序：SmolLM2 的几个变体，别的模型，几个模型一起的。"""
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    runs, order = {}, {}
    loops = set()
    for path in sorted(glob.glob(os.path.join(data, "*.jsonl"))):
        chat = from_transcript(path)
        loop = recorded_loop(chat.settings)
        result = cli.run(chat, loop, train, test, table, None)
        replies = sum(chat.stats.values()) - chat.stats["spent"]
        result.update(path=path, seed=loop["seed"], wait=chat.seconds / loop["budget"],
                      replies=replies,
                      repeats=chat.repeats, first_repeats=chat.first_repeats,
                      asked_again=chat.asked_again, withheld=chat.withheld)
        who, key = proposer(chat.settings), variant(chat.settings)
        result.update(by=[SHORT.get(m, m) for m in cli.recorded_models(chat.settings)])
        if isinstance(chat, ChatEnsemble):
            result.update(models=[SHORT.get(c.model, c.model) for c in chat.members],
                          proposals=chat.asked, improvements=chat.improvements)
        name = named(who, key)
        runs.setdefault(name, []).append(result)
        models = len(cli.recorded_models(chat.settings))
        order[name] = (models, who != SMOLLM2, chat.settings.get("bandit", False), who,
                       list(VARIANTS).index(key))
        # 对照不改写说明（随机改动不照说明做）：说明由模型改写的录制，对照照常
        loops.add(tuple(sorted({**loop, "meta_prompt": False}.items())))
    ordered = {name: runs[name] for name in sorted(runs, key=order.get)}
    return ordered, baseline_runs(sorted(loops), train, test, table)


def baseline_runs(loops, train, test, table):
    """三个对照，在录制用过的每种（预算、种子、进不进化）上各跑一次，照命令行的跑法；进化的
    那几种上随机改一处再爬山跑一次（不进化时每个提案都从专家程序改，没有爬山可言）。"""
    runs = {}
    for items in loops:
        loop = dict(items)
        suffix = "" if loop["evolution"] else NO_EVOLUTION
        controls = [(name + suffix, make, loop) for name, make in cli.BASELINES.items()]
        if loop["evolution"]:
            controls.append((CLIMBER, cli.BASELINES[RANDOM], {**loop, **CLIMBING}))
        for name, make, how in controls:
            result = cli.run(make(), how, train, test, table, None)
            result.update(seed=loop["seed"], wait=None)
            runs.setdefault(name, []).append(result)
    return runs


def peer_files(data=DATA):
    """openevolve_peer.py、shinka_peer.py 存下的结果：[(文件, 读出来的 dict), ...]，
    先 OpenEvolve。"""
    saved_files = [os.path.join(data, f"{prefix}_*.json") for prefix in ("openevolve", "shinka")]
    found = []
    for path in [path for pattern in saved_files for path in sorted(glob.glob(pattern))]:
        with open(path, encoding="utf-8") as f:
            found.append((path, json.load(f)))
    return found


def peer_runs(data=DATA):
    """同行框架存下的结果：{"OpenEvolve diff，SmolLM2": [...], ...}（框架、要法和模型）。最好的
    程序重新解析、在训练和测试形状上重新打分（只读源码），和 openevolve_peer 打印的一样。"""
    runs = {}
    for _, saved in peer_files(data):
        train, test = openevolve_peer.scores(saved["best_source"])
        model = SHORT.get(saved["model"], saved["model"])
        name = f"{openevolve_peer.peer(saved)} {saved['mode']}，{model}"
        rounds = saved["iterations"]
        name += f"（{rounds}/{BUDGET} 轮）" if rounds < BUDGET else ""
        runs.setdefault(name, []).append({
            "score": train, "test": test,
            "parsed": openevolve_peer.parsed(saved), "added": saved["in_database"],
            "seed": saved["seed"], "wait": saved["seconds"] / saved["iterations"],
            "budget": saved["iterations"], "candidates": saved["candidates"]})
    return runs


# ==== 表和几句话 ==================================================================================

def spread(results, key):
    """中位数、最小、最大（compare.Spread）。"""
    return Spread.of([r[key] for r in results])


def span(results, key):
    return ranged([r[key] for r in results], DIGITS)


def ranged(values, digits):
    """最小–最大，印 digits 位；只有一个数时就是它。"""
    low, high = min(values), max(values)
    return f"{low:.{digits}f}" if len(values) == 1 else f"{low:.{digits}f}–{high:.{digits}f}"


# 元组的每一段是一个词：表太宽时只在词与词之间折（"每份 / 预算 / 等 / 模型 s"），不拆开"模型"
COLUMNS = ["提出者", "种子", ("训练", "中位数"), ("训练", "最小–最大"), ("测试", "中位数"),
           ("测试", "最小–最大"), "解析", "进库", ("每份", "预算", "等", "模型 s")]
COLUMNS_NOTE = ("（分数相对专家程序，种子之间的中位数和最小–最大；只有一个种子时就是那个数。"
                "一份预算是一次模型请求：一个提案、写一次说明，或者回复是见过的程序时再问一次。"
                "解析、进库是提案里的个数（写说明、再问的那几份预算不算提案）；等模型 s 是录制时"
                "每份预算平均等模型的秒数。这两项都取种子之间的中位数。）")


def rows(groups):
    out = []
    for name, results in groups.items():
        if not results:
            continue
        waits = [r["wait"] for r in results if r["wait"] is not None]
        wait = f"{statistics.median(waits):.1f}" if waits else "—"
        seeds = ",".join(str(r["seed"]) for r in sorted(results, key=lambda r: r["seed"]))
        out.append([name, seeds, f"{spread(results, 'score').median:.3f}", span(results, "score"),
                    f"{spread(results, 'test').median:.3f}", span(results, "test"),
                    f"{statistics.median(r['parsed'] for r in results):g}",
                    f"{statistics.median(r['added'] for r in results):g}", wait])
    return out


# 每份请求换来了什么：同样多的模型请求里，回复有几成是见过的程序（父程序、数据库里的），评估了几个
# 新程序，几个子程序比父程序好（issue 51）
REQUEST_COLUMNS = ["提出者", "种子", "请求", ("回复是见过", "的程序"), ("评估的", "新程序"),
                   ("比父程序", "好"), ("每 100 个", "请求进步"), ("每个请求", "等模型 s")]
REQUEST_NOTE = ("（种子之间的中位数。请求：问了模型几次（对照没有模型，一个提案算一次）；"
                "回复是见过的程序：占回复的几成，见过的是这次运行的父程序、提示里的程序、交回过的"
                "子程序；评估的新程序：交给评估器的不同程序，起点不算；比父程序好：打了分、又比父"
                "程序高的子程序。）")


def request_rows(groups):
    """每份请求换来了什么：用一处改动的完整方法和见过的程序再问的模型行，加上随机改一处和它的
    爬山。"""
    ways = ("，" + VARIANTS[COMPLETE], "，" + VARIANTS[RESAMPLED])
    names = [name for name in groups if name.endswith(ways) and "replies" in groups[name][0]]
    names += [name for name in (RANDOM, CLIMBER) if groups.get(name)]
    out = []
    for name in names:
        results = groups[name]
        seeds = ",".join(str(r["seed"]) for r in sorted(results, key=lambda r: r["seed"]))

        def median(value):
            return statistics.median(value(r) for r in results)
        repeated = (f"{median(lambda r: r['repeats'] / r['replies']):.0%}"
                    if "replies" in results[0] else "—")
        per_request = median(lambda r: 100 * r["improved"] / r["requests"])
        waits = [r["wait"] for r in results if r["wait"] is not None]
        wait = f"{statistics.median(waits):.1f}" if waits else "—"
        out.append([name, seeds, f"{median(lambda r: r['requests']):g}", repeated,
                    f"{median(lambda r: r['new']):g}", f"{median(lambda r: r['improved']):g}",
                    f"{per_request:.1f}", wait])
    return out


def compare(a, b, groups):
    """a 比 b 怎样，训练、测试各一句，用 verdict 的规则：两边看都成立才说"更好 / 更差"，
    否则说差距在种子的波动之内；两行都只有一个种子、一样高时说一样。
    只有一个种子的一边看不出波动，也说出来；一个种子时它的"范围"就是那一个数。"""
    single = [name for name in (a, b) if len(groups[name]) == 1]
    caveat = f"（{'、'.join(single)} 只有一个种子）" if single else ""
    said = []
    for what, key in (("训练", "score"), ("测试", "test")):
        values = [[r[key] for r in groups[name]] for name in (a, b)]
        side, digits = verdict(*values)
        ma, mb = (statistics.median(v) for v in values)
        numbers = (f"（中位数 {ma:.{digits}f} 对 {mb:.{digits}f}，"
                   f"范围 {ranged(values[0], digits)} 对 {ranged(values[1], digits)}）")
        if side == ABOVE:
            said.append(f"{what}形状上更好{numbers}")
        elif side == BELOW:
            said.append(f"{what}形状上更差{numbers}")
        elif len(set(values[0] + values[1])) == 1:
            said.append(f"{what}形状上一样{numbers}")
        else:
            said.append(f"{what}形状上差距在种子的波动之内{numbers}")
    return f"{a} 对 {b}{caveat}：" + "；".join(said) + "。"


def observations(groups):
    """表下的几句话：拿来比的每一对行一句（compared_pairs；只在两边都有数时说），几个模型一起的
    每行说每个模型分到多少，OpenEvolve、ShinkaEvolve 每个种子一句。"""
    others = other_proposers(groups)
    resampled = resample_rows(groups)
    said = [compare(a, b, groups) for a, b in compared_pairs(groups)
            if groups.get(a) and groups.get(b)]
    said += [shares(name, groups[name]) for name in others + resampled
             if "models" in groups[name][0]]
    for name in [name for name in groups if name.split()[0] in PEERS]:
        for r in groups[name]:
            said.append(f"{name}，种子 {r['seed']}：{r['budget']} 轮里 {r['candidates']} 个回复"
                        f"变成了候选程序，{r['parsed']} 个解析成程序，"
                        f"最好的训练分数 {r['score']:.3f}。")
    return said


def compared_pairs(groups):
    """表下拿来比的每一对行 (a, b)，按说的顺序，同一对只有一次。"""
    full, blind, still, whole = (named(SMOLLM2, key) for key in list(VARIANTS)[:4])
    randomly = RANDOM
    pairs = [(full, randomly), (blind, full), (blind, randomly), (still, full),
             (still, randomly + NO_EVOLUTION), (randomly + NO_EVOLUTION, randomly),
             (full, "MockLLM()"), (whole, randomly)]
    # 种群要不要：同样随机改，只留一个程序爬山，对同样随机改的进化循环、独立采样（不进化），
    # 对进化循环里最好的模型行（SmolLM2 的完整方法，每行都和它比）——都是同样多的提案、种子
    pairs += [(CLIMBER, randomly), (CLIMBER, randomly + NO_EVOLUTION), (CLIMBER, full)]
    # 别的模型、几个模型一起的（完整的方法）：和 SmolLM2 的完整版比，和随机改比
    others = other_proposers(groups)
    pairs += [(name, against) for name in others for against in (full, randomly)]
    # 说明由模型改写的：和同一个模型不改写说明的比（AlphaEvolve 的 No meta prompt evolution）
    for name in meta_rows(groups):
        who = name.rpartition("，")[0]
        pairs += [(name, named(who, COMPLETE)), (name, randomly)]
    # 见过的程序再问的：和同一个提出者不再问的比、和 SmolLM2 单独比（几个模型一起时就是论文的
    # "Small base LLM only"）、和随机改比——都是同样多的模型请求
    resampled = resample_rows(groups)
    small_resampled = named(SMOLLM2, RESAMPLED)
    for name in resampled:
        who = name.rpartition("，")[0]
        pairs += [(name, named(who, COMPLETE)), (name, full), (name, randomly)]
        # 几个模型一起也再问时，"只用小模型"的另一边是同样再问的 SmolLM2
        if name != small_resampled:
            pairs.append((name, small_resampled))
    # 同一对只说一次（SmolLM2 自己再问时，"不再问的它"就是 full）
    return list(dict.fromkeys(pairs))


def other_proposers(groups):
    """SmolLM2 以外的提出者（别的模型、几个模型一起）用完整方法的那几行。"""
    return [name for name in groups if name.endswith("，" + VARIANTS[COMPLETE]) and name != FULL]


def resample_rows(groups):
    """见过的程序再问的那几行（--resample）。"""
    return [name for name in groups if name.endswith("，" + VARIANTS[RESAMPLED])]


def meta_rows(groups):
    """说明由模型改写的那几行（每个模型一行）。"""
    return [name for name in groups if name.endswith("，" + VARIANTS[META])]


def meta_panel(groups):
    """说明由模型改写的那幅：每个这样的行，和同一个模型不改写说明的那行。"""
    names = []
    for name in meta_rows(groups):
        names += [named(name.rpartition("，")[0], COMPLETE), name]
    return [name for name in names if name != FULL]


def member_rows(groups):
    """几个模型一起的行：每个模型在每个种子上分到的提案、其中比父程序好的（bandit 的奖励）。"""
    out = []
    for name, results in groups.items():
        for r in sorted(results, key=lambda r: r["seed"]):
            if "models" not in r:
                continue
            total, better = sum(r["proposals"]), sum(r["improvements"])
            for model, n, good in zip(r["models"], r["proposals"], r["improvements"]):
                of_better = f"{good / better:.0%}" if better else "—"
                out.append([name, r["seed"], model, n, f"{n / total:.0%}", good, of_better])
    return out


MEMBER_COLUMNS = ["提出者", "种子", "模型", "提案", ("提案", "占"), ("比父程序", "好"),
                  ("进步", "占")]


def member_rates(results):
    """每个模型的子程序比父程序好的，几个种子加起来："SmolLM2 36/193（19%），Qwen 5/45（11%）"。"""
    models = results[0]["models"]
    proposals = [sum(r["proposals"][i] for r in results) for i in range(len(models))]
    better = [sum(r["improvements"][i] for r in results) for i in range(len(models))]
    return "，".join(f"{m} {b}/{n}（{b / n:.0%}）" if n else f"{m} 没分到提案"
                    for m, n, b in zip(models, proposals, better))


def shares(name, results):
    """一句话：几个模型一起时提案分给了谁，谁的子程序更常比父程序好（三个种子加起来）。"""
    models = results[0]["models"]
    per_seed = "、".join(f"{r['proposals'][-1] / sum(r['proposals']):.0%}"
                         for r in sorted(results, key=lambda r: r["seed"]))
    rates = member_rates(results)
    # 一个种子时只有一个数，不说"依次"
    listed = "是" if len(results) == 1 else "依次是"
    return (f"{name}：{len(results)} 个种子上 {models[-1]} 分到的提案{listed} {per_seed}；"
            f"子程序比父程序好的，{rates}。")


# ==== 图：每个消融一幅，都和完整的比（curves.save） ===============================================

# 每幅小图的标题（中文、英文；AlphaEvolve 图 8 的说法）和它画的几组；完整的那组每幅都画
# 别的模型、几个模型一起的那幅（有这些录制时才画）：黑色粗线就是"只用小模型"（SmolLM2 单独），
# 图 8 的 "Small base LLM only" 是它和大小模型一起比
OTHERS_PANEL = ("只用小模型（Small base LLM only）", "Small base LLM only")
META_PANEL = ("说明由模型改写（meta prompt）", "meta prompt evolution")
PLOT_PANELS = {("提示里没有反馈表（No context）", "No context in the prompt"):
               (named(SMOLLM2, ("diff", False, True, False, False)),),
               ("不进化（No evolution）", "No evolution"):
               (named(SMOLLM2, ("diff", True, False, False, False)), RANDOM + NO_EVOLUTION),
               ("要整个程序（--edit full）", "whole program (--edit full)"):
               (named(SMOLLM2, ("full", True, True, False, False)),),
               ("对照", "baselines"): (RANDOM, CLIMBER, "MockLLM(knowledge=False)", "MockLLM()")}
# 没有中文字体时图例用的名字
ENGLISH_VARIANTS = {"一处改动": "one-line diff", "没有反馈表": "no feedback table",
                    "不进化": "no evolution", "整个程序": "whole program",
                    "说明由模型改写": "meta prompt"}
ENGLISH = {RANDOM: "random edits", RANDOM + NO_EVOLUTION: "random edits, no evolution",
           CLIMBER: "random edits, hill climber"}


def model_names(groups):
    """录制里出现过的模型的全名，按 FULL_NAMES 的顺序；不认得的模型用它的短名字。"""
    seen = {model for results in groups.values() for r in results for model in r.get("by", [])}
    known = [FULL_NAMES[m] for m in FULL_NAMES if m in seen]
    return known + sorted(m for m in seen if m not in FULL_NAMES)


def in_english(name):
    """图例的英文名：随机改一处查 ENGLISH；别的行是"提出者，变体"
    （MockLLM() 等的名字本来就是英文），变体换成英文。"""
    if name in ENGLISH:
        return ENGLISH[name]
    who, _, variant = name.rpartition("，")
    return f"{who}, {ENGLISH_VARIANTS[variant]}" if variant in ENGLISH_VARIANTS else name


def figure_parts(groups):
    """图的几样东西：(各幅小图, 每幅都画的那条, 上限, 总标题)，照 curves.figure 的参数。"""
    table = TimeTable()
    train, _ = split_shapes(all_shapes())
    english = curves.cjk_font() is None

    def legend(name):
        return in_english(name) if english else name

    def proposer_only(name):
        # 这一幅的行都是一处改动的完整方法，图例只写提出者：图例窄了，右边升上去的曲线不被挡住
        return name.rpartition("，")[0]

    def histories(name):
        return [r["out"]["history"] for r in sorted(groups[name], key=lambda r: r["seed"])]
    # 图是 AlphaEvolve 图 8 的几个消融；见过的程序再问是客户端的一个设置，不是其中之一：它的行只在
    # 表和句子里（和这一幅挤在一起时，十条图例盖住了曲线）
    chosen = {**PLOT_PANELS, OTHERS_PANEL: other_proposers(groups), META_PANEL: meta_panel(groups)}
    panels = {}
    for titles, names in chosen.items():
        label = proposer_only if titles == OTHERS_PANEL else legend
        panels[titles[english]] = {label(name): histories(name) for name in names
                                   if groups.get(name)}
    reference = (legend(FULL), histories(FULL))
    models = model_names(groups)
    if english:
        title = f"{', '.join(models)} as proposers: ablations ({BUDGET} model requests each)"
    else:
        title = f"{'、'.join(models)} 当提出者：消融（各 {BUDGET} 份预算）"
    drawn = {key: curves for key, curves in panels.items() if curves}
    return drawn, reference, oracle_speedup(train, table), title


def plot(path, size, groups):
    """把有历史的几组画成图：每幅的曲线是各种子的历史分数。"""
    panels, reference, upper, title = figure_parts(groups)
    curves.save(path, panels, reference, upper, size, title)
    print_message(f"图存到了 {path}。{curves.font_note()}", file=sys.stderr)


def all_groups(data=DATA):
    """表和图的每一行：{行的名字: [各种子的结果]}，按表里的顺序：模型的几个变体、三个对照、
    随机改一处的爬山、OpenEvolve 和 ShinkaEvolve、不进化的三个对照。"""
    runs, baselines = replayed_runs(data)
    evolved = {name: baselines[name] for name in [*cli.BASELINES, CLIMBER] if name in baselines}
    return {**runs, **evolved, **peer_runs(data), **baselines}


def main(argv):
    plot_to = curves.plot_request(argv)
    missing = plot_to and curves.matplotlib_missing()
    if missing:
        print_message(missing, file=sys.stderr)
        plot_to = None
    try:
        groups = all_groups()
    except ChatError as e:
        # 一份录制答不了回放（录到一半、改过）：一句话说是哪个文件第几行
        sys.exit(str(e))
    print_header(f"真模型的消融：{'、'.join(model_names(groups))}，各 {BUDGET} 份预算，"
                 "种子之间的中位数和最小–最大")
    print_table(COLUMNS, rows(groups))
    print_paragraph(COLUMNS_NOTE)
    members = member_rows(groups)
    if members:
        print_header("两个模型一起：每个模型分到的提案，其中子程序比父程序好的")
        print_table(MEMBER_COLUMNS, members)
    print_header("每份请求换来了什么：见过的程序、新程序、进步")
    print_table(REQUEST_COLUMNS, request_rows(groups))
    print_paragraph(REQUEST_NOTE)
    print_observations(observations(groups))
    if plot_to:
        plot(*plot_to, groups)
    return 0


if __name__ == "__main__":
    with stops_cleanly():
        sys.exit(main(sys.argv[1:]))
