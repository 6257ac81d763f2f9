"""
CS349E · 第 14 讲 · nvidia_heuristics.py —— 和 NVIDIA 的启发式比，再请它的模型当第二个评估器

讲义里进化出来的程序在训练形状上比"专家"快 24%，专家是我们自己写的四档表，分数来自我们自己的
计时模型。这里拿 NVIDIA 发布的 nvMatmulHeuristics（cuBLAS 的一部分启发式背后的解析模型，
Triton 目标，只用 CPU）回答三个问题：
  1. NVIDIA 的启发式给讲义的每个形状挑的配置，放进我们的搜索空间，在我们的模型里比专家、
     进化出的程序快多少？（H100）
  2. 换一个评估器：同样这几个程序用 NVIDIA 的估时算，进化比专家的好处还在吗？（H100）
  3. 哪个模型更贴近硬件：data/ 里真实 H200 的 Triton 测量上，两个模型给各配置排的名次和实测的
     Spearman ρ，和照各自的模型挑配置比实测最快慢多少。
两种配置之间怎样对应（nvidia_model.py 第 2 节）是一个会改变答案的选择：每一步都写明理由，
对不上的都在这里数出来。

它是可选的：要装 lecture14/requirements-nvidia.txt（NVIDIA 的许可证，仓库里不带它的文件）。
没装、或者这台机器用不了时只说一句怎样装，别的脚本都不受影响。

运行：python3 lecture14/nvidia_heuristics.py [--plot nvidia.png]（--plot 另存一张幻灯片）

和 NVIDIA 的库打交道的（载入它、两种配置之间的映射、它的候选和估时）在 nvidia_model.py。

自上而下读：
  1. 三个对照（测试 import 这几个函数，逻辑只有一份）
  2. 打印
  3. 幻灯片
"""
import importlib.metadata
import math
import os
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lecture01"))

from console import (print_header, print_message, print_observations,  # noqa: E402
                     print_paragraph, print_table, stops_cleanly)

# 载入 numpy 时按 Ctrl-C 也只留一行"已中断。"；没装 numpy 时只说一句怎样装（needs_numpy.py）
with stops_cleanly():
    import needs_numpy  # noqa: F401
    import numpy as np
    from evolve import (CONFIG_CHOICES, EXPERT, GROUP_M, H100, H200, Config,  # noqa: E402
                        TimeTable, all_shapes, choose, oracle_speedup, speedup_score,
                        split_shapes, static_valid)
    import curves  # noqa: E402
    import fidelity  # noqa: E402
    from ablation import printed  # noqa: E402
    from compare import ABOVE, BELOW, WITHIN, Spread, versus  # noqa: E402
    import slide_layout  # noqa: E402
    import slides  # noqa: E402
    from nvidia_model import (GPUS, MODES, PRECISION, Mapped, Nvidia,  # noqa: E402
                              nvidia_library, to_ours)
    from runs import Job, Runs, workers_or_exit  # noqa: E402


# ==== 1. 三个对照 =================================================================================

@dataclass(frozen=True)
class Pick:
    """NVIDIA 在一个形状上挑的：first 是它的首选放进我们的搜索空间的样子（Mapped）；
    rank 是用了它的第几个候选（从 1 数：首选放进来能启动就是 1；一个都不能启动是 None）；
    cfg 是用的那个配置（None：没有一个能启动，这个形状上它的时间是 inf）。"""
    first: Mapped
    rank: int
    cfg: Config


def pick(candidates, hw):
    """从它的候选（按它的顺序）里挑：第一个放进我们的搜索空间后能启动的。"""
    mapped = [to_ours(kernel) for kernel in candidates]
    for rank, one in enumerate(mapped, 1):
        if static_valid(one.cfg, hw):
            return Pick(mapped[0], rank, one.cfg)
    return Pick(mapped[0], None, None)


def nvidia_picks(nvidia, shapes):
    """{形状: Pick}：NVIDIA 给每个形状挑的配置，放进我们的搜索空间。"""
    return {s: pick(nvidia.candidates(s), nvidia.hw) for s in shapes}


def how_mapped(picks):
    """映射的计数：(完全对上, 取了最近值, 对不上, Counter((字段, 它的值, 我们的值) → 次数))。
    看的是它的首选：对不上的用了它后面的候选（Pick.rank）；Counter 数的是所有首选取的近似。"""
    firsts = [p.first for p in picks.values()]
    unmapped = sum(1 for p in picks.values() if p.rank != 1)
    exact = sum(1 for p in picks.values() if p.rank == 1 and not p.first.rounded)
    rounded = Counter(change for m in firsts for change in m.rounded)
    return exact, len(picks) - exact - unmapped, unmapped, rounded


def chooser(p):
    """一个程序 → 形状到配置的函数（NVIDIA 挑的是 {形状: Pick}，也变成这样的函数）。"""
    if isinstance(p, dict):
        return lambda s: p[s].cfg
    return lambda s: choose(p, s)


def score(chosen, shapes, time):
    """讲义的分数：shapes 上相对专家程序的几何平均加速比（speedup_score），时间由 time(cfg, 形状)
    给——我们的 TimeTable.time 或 Nvidia.time。有一个形状上不能启动（inf）就是 0。"""
    expert = [time(choose(EXPERT, s), s) for s in shapes]
    mine = [math.inf if chosen(s) is None else time(chosen(s), s) for s in shapes]
    return speedup_score(expert, mine)


def unseen_fields(nvidia, pairs):
    """NVIDIA 的估时看不看 warp 数和流水级数：pairs 是 [(配置, 形状)]，把每个配置的 warps、stages
    各换成别的取值（我们的模型里能启动的），它的时间变没变。返回 (比了几对, 变了几对)。"""
    compared = changed = 0
    for cfg, shape in pairs:
        base = nvidia.time(cfg, shape)
        for field in ("warps", "stages"):
            for value in CONFIG_CHOICES[field]:
                other = replace(cfg, **{field: value})
                if other == cfg or not static_valid(other, nvidia.hw):
                    continue
                compared += 1
                changed += nvidia.time(other, shape) != base
    return compared, changed


def lecture_runs(train, test, table, workers):
    """讲义的 full（05 脚本演示 1 的设置：fidelity.EVOLVE_SEEDS 个种子 × EVOLVE_BUDGET 个提案）：
    各种子的 runs.Finished，按种子排。"""
    jobs = [Job("full", {}, seed, fidelity.EVOLVE_BUDGET) for seed in fidelity.EVOLVE_SEEDS]
    with Runs(train, test, table, workers) as runs:
        return runs.results(jobs)


# 表里的两个估时模型
MODELS = ("我们的模型", "NVIDIA 的模型")
PARTS = ("训练", "测试")


@dataclass(frozen=True)
class Comparison:
    """第 1、2 个对照算出的一切（表、观察、幻灯片用的都是它）。rows 是 行名 → {(部分, 模型): 分数}
    （部分是 PARTS，模型是 MODELS；NVIDIA 的模型里没有的是 None）；seeds 是 (部分, 模型) → 各种子
    最好程序的分数；median_seed 是表里"进化"那一行的种子；picks 是 模式 → {形状: Pick}；
    unseen 是 unseen_fields 的 (比了几对, 变了几对)；inverse 是我们的配置 NVIDIA 不认的
    (形状, 程序) 个数；shapes 是讲义的形状数。"""
    rows: dict
    seeds: dict
    median_seed: int
    picks: dict
    unseen: tuple
    inverse: int
    shapes: int


EXPERT_ROW = "专家"
UPPER_ROW = "上限（逐形状最优）"


def evolved_row(seed):
    return f"进化（full，种子 {seed}）"


def nvidia_row(mode):
    return f"NVIDIA（{mode}）"


def scores(p, parts, times):
    """程序 p 在每个部分（训练、测试）、每个模型下相对专家的几何平均加速比：
    {(部分, 模型): 分数}。"""
    return {(part, model): score(chooser(p), parts[part], times[model])
            for part in PARTS for model in MODELS}


def not_recognised(programs, shapes, theirs):
    """这些程序给这些形状选的配置，映射过去 NVIDIA 不认的（它的估时是 0）有几个。"""
    chosen = [(chooser(p)(s), s) for p in programs for s in shapes]
    return sum(1 for cfg, s in chosen if cfg is not None and math.isinf(theirs.time(cfg, s)))


def compare(nvmmh, workers):
    """第 1、2 个对照：讲义的形状、H100。"""
    train, test = split_shapes(all_shapes())
    parts = dict(zip(PARTS, (train, test)))
    table = TimeTable(H100)
    theirs = Nvidia(nvmmh, H100)
    times = dict(zip(MODELS, (table.time, theirs.time)))
    finished = lecture_runs(train, test, table, workers)
    # 和 --plot 的启发式那张幻灯片挑同一个种子（slides.median_seed：训练分数居中的）
    middle = slides.median_seed(finished)
    best = [run.out.best.program for run in finished]
    picks = {mode: nvidia_picks(Nvidia(nvmmh, H100, mode), train + test) for mode in MODES}
    # 表里一行一个程序：专家、进化（训练分数居中的种子）、NVIDIA 的两种首选；每行两个模型各打分
    programs = {EXPERT_ROW: EXPERT, evolved_row(finished[middle].job.seed): best[middle],
                **{nvidia_row(mode): picks[mode] for mode in MODES}}
    rows = {name: scores(p, parts, times) for name, p in programs.items()}
    # 上限是讲义印的那个（我们的模型里的逐形状最优）；NVIDIA 的模型那一列不给
    rows[UPPER_ROW] = {(part, model): oracle_speedup(parts[part], table)
                       if model == MODELS[0] else None for part in PARTS for model in MODELS}
    # 进化的每个种子也打分：观察用讲义的两边规则比（two_sided）
    per_seed = [scores(p, parts, times) for p in best]
    seeds = {key: [scored[key] for scored in per_seed] for key in per_seed[0]}
    inverse = not_recognised(programs.values(), train + test, theirs)
    unseen = unseen_fields(theirs, [(choose(best[middle], s), s) for s in train + test])
    return Comparison(rows, seeds, finished[middle].job.seed, picks, unseen, inverse,
                      len(train + test))


@dataclass(frozen=True)
class Agreement:
    """一个实测形状上两个模型和实测比：compared 是实测跑成功、两个模型都给了时间的配置数，
    rejected 是其中我们的模型给了时间、NVIDIA 的不认的；rho、regret 是 (我们的, NVIDIA 的)
    的 Spearman ρ 和照模型挑的 ÷ 实测最快（fidelity.pick_regret）；tied 是 NVIDIA 的最短时间有
    几个配置并列。"""
    shape: object
    compared: int
    rejected: int
    rho: tuple
    regret: tuple
    tied: int


def agreement(ours, theirs, rows):
    """data/ 里每个实测形状上（rows：fidelity.load_measured），我们的模型 ours（TimeTable）和 NVIDIA
    的 theirs（Nvidia）各和实测比。配置和 fidelity.py 第 2、3 节一样用实测跑成功的那些，
    映射过去用 nvidia_model.to_nvidia。返回 [Agreement]，按文件里的顺序。"""
    out = []
    for shape, group in fidelity.by_shape(rows).items():
        ran = [r for r in group if r["ok"]]
        mine = np.array([ours.time(r["cfg"], shape) for r in ran])
        nvidia = np.array([theirs.time(r["cfg"], shape) for r in ran])
        real = np.array([r["us"] for r in ran])
        both = np.isfinite(mine) & np.isfinite(nvidia)
        rejected = int((np.isfinite(mine) & ~np.isfinite(nvidia)).sum())
        mine, nvidia, real = mine[both], nvidia[both], real[both]
        rho = (fidelity.spearman(mine, real), fidelity.spearman(nvidia, real))
        regret = (fidelity.pick_regret(mine, real), fidelity.pick_regret(nvidia, real))
        tied = int((nvidia == nvidia.min()).sum())
        out.append(Agreement(shape, int(both.sum()), rejected, rho, regret, tied))
    return out


# ==== 2. 打印 =====================================================================================

def cell(x):
    return "—" if x is None else f"{x:.3f}"


def spread(values):
    return f"{min(values):.3f}–{max(values):.3f}"


def report_mapping(c):
    print_header("1. NVIDIA 挑的配置，放进我们的搜索空间")
    print_paragraph("映射：BM、BN、BK = 它的 CTA 块；warps = CTA 块里的 warp 块数"
                    "（CTA_M/warp_M × CTA_N/warp_N × CTA_K/warp_K）；stages = 加载级数；"
                    "split_k = split-K；不在我们的取值里的取最近的（按对数，一样近取小的）。"
                    "swizzle、CTA 顺序、cluster、指令块我们的配置里没有，都丢掉"
                    f"（我们的内核总是 {GROUP_M} 行一组启动、不用 cluster）")
    for mode, picks in c.picks.items():
        exact, rounded, unmapped, changes = how_mapped(picks)
        listed = "、".join(f"{f} {a}→{b} {n} 次" for (f, a, b), n in sorted(changes.items()))
        ranks = Counter(p.rank for p in picks.values() if p.rank != 1)
        fallback = "；".join(f"{n} 个用了第 {r} 个候选" if r else f"{n} 个一个候选都不能启动"
                            for r, n in sorted(ranks.items(), key=lambda x: x[0] or 0))
        print_paragraph(f"{nvidia_row(mode)}，{len(picks)} 个形状的首选：完全对上 {exact} 个，"
                        f"取了最近的值 {rounded} 个（{listed or '无'}），放进来不能启动 "
                        f"{unmapped} 个{'（' + fallback + '）' if fallback else ''}")


def report_scores(c):
    print_header("2. 两个评估器：相对专家的几何平均加速比（H100，讲义的形状）")
    print_paragraph("第 1 个评估器是我们的模型（讲义打分用的），第 2 个是 NVIDIA 的估时"
                    "（我们的配置映射过去：CTA 块就是 BM×BN×BK，warp 照 Triton 的规则排）。"
                    "NVIDIA 那两行在两个模型里用的是同一组放进来的配置")
    headers = ["程序"] + [f"{part}：{model}" for part in PARTS for model in MODELS]
    groups = {f"{part}形状": {f"{part}：{model}": model for model in MODELS} for part in PARTS}
    rows = [[name] + [cell(values[(part, model)]) for part in PARTS for model in MODELS]
            for name, values in c.rows.items()]
    seeds = len(next(iter(c.seeds.values())))
    rows.insert(2, [f"进化（{seeds} 个种子，最小–最大）"]
                + [spread(c.seeds[(part, model)]) for part in PARTS for model in MODELS])
    print_table(headers, rows, groups=groups)
    compared, changed = c.unseen
    print_paragraph(f"我们的配置 NVIDIA 不认的（它的估时是 0）：{c.inverse} 个（形状 × 程序）。"
                    f"它看不看 warp 数和流水级数：进化程序在 {c.shapes} 个形状上选的配置只换 "
                    f"warps 或 stages（{compared} 对），它的时间变了 {changed} 对")


def report_hardware(agreements):
    print_header("3. 哪个模型更贴近硬件：H200 的 Triton 实测（data/）")
    print_paragraph("每个形状上实测跑成功、两个模型都给了时间的配置：ρ 是模型时间和实测时间的"
                    "名次相关（Spearman），挑的 ÷ 最快 是照模型挑的配置实测比实测最快慢多少"
                    "（模型给几个配置一样短的时间时，取它们实测的平均）")
    headers = (["形状", ("配置", "数")] + [f"ρ：{m}" for m in MODELS]
               + [f"挑的：{m}" for m in MODELS])
    groups = {"ρ": {f"ρ：{m}": m for m in MODELS},
              "挑的 ÷ 实测最快": {f"挑的：{m}": m for m in MODELS}}
    rows = [[a.shape.label(), a.compared, *(f"{x:.3f}" for x in a.rho),
             *(f"{x:.3f}" for x in a.regret)] for a in agreements]
    print_table(headers, rows, groups=groups)


def report_observations(c, agreements):
    print_observations([
        ours_sentence(c), survives_sentence(c), unseen_sentence(c),
        *hardware_sentences(agreements), in_sample_sentence(),
    ])


# —— 观察：每一句由这次的数决定 ——

def two_sided(a, b):
    """讲义比两行的规则（observations.versus，两边看），用印出来的三位小数：a、b 是两行各种子的数
    （确定的一行只有一个数）。a 的中位数在 b 所有种子的外面、b 的中位数也在 a 所有种子的外面，
    才说 a 高于或低于 b；否则是在种子的波动以内（WITHIN）。"""
    a, b = (Spread.of([printed(x) for x in values]) for values in (a, b))
    return versus(a, b)


def placed(side, what):
    """two_sided 的结果说成半句：高于 / 低于 / 和……分不出高低。"""
    if side == WITHIN:
        return f"和{what}分不出高低"
    return f"{side}{what}"


def ours_sentence(c):
    """我们的模型里：NVIDIA 两种首选对进化程序的各种子，训练、测试各比一次。"""
    seeds = len(c.seeds[(PARTS[0], MODELS[0])])
    said = []
    for mode in MODES:
        values = c.rows[nvidia_row(mode)]
        parts = []
        for part in PARTS:
            x = values[(part, MODELS[0])]
            evolved = c.seeds[(part, MODELS[0])]
            side = two_sided([x], evolved)
            parts.append(f"{part} {x:.3f}，"
                         + placed(side, f"进化程序的 {seeds} 个种子（{spread(evolved)}）"))
        said.append(f"{nvidia_row(mode)}" + "；".join(parts))
    return ("在我们的模型里，" + "。".join(said) + "。NVIDIA 的首选没有见过我们的模型，"
            "进化程序是在它上面、在训练形状上挑出来的：测试形状上的差别才是两者在没见过的形状上"
            "的比较。")


def survives_sentence(c):
    """NVIDIA 的模型里：进化程序的各种子对专家（确定的 1.000），训练、测试各比一次。"""
    seeds = len(c.seeds[(PARTS[0], MODELS[0])])
    parts = []
    for part in PARTS:
        ours, theirs = c.seeds[(part, MODELS[0])], c.seeds[(part, MODELS[1])]
        verdict = {ABOVE: "每个种子都比专家快", BELOW: "每个种子都比专家慢",
                   WITHIN: "和专家分不出快慢"}[two_sided(theirs, [1.0])]
        than_ours = placed(two_sided(theirs, ours), f"我们的模型里的 {spread(ours)}")
        parts.append(f"{part}形状上是 {spread(theirs)}，{verdict}，{than_ours}")
    return (f"进化的好处换一个评估器还在吗？NVIDIA 的模型里，进化程序 {seeds} 个种子相对专家："
            + "；".join(parts) + "。")


def unseen_sentence(c):
    compared, changed = c.unseen
    if changed:
        return (f"NVIDIA 的估时也看 warp 数和流水级数：只换 warps 或 stages 的 {compared} 对里，"
                f"它的时间变了 {changed} 对。")
    return (f"NVIDIA 的估时只看 CTA 块和 split-K：只换 warps 或 stages 的 {compared} 对配置，"
            "它的时间一对也没变。进化程序在这两个字段上的选择（实测里它们是要紧的，见 "
            "fidelity.md 的四个机制）它看不见：它检验的只是块和 split-K 的那部分好处。")


def worst(agreements, which, key):
    """which 是 0（我们的）或 1（NVIDIA 的）；key 是 "rho"（最低的）或 "regret"（最高的）。"""
    pick = min if key == "rho" else max
    return pick(agreements, key=lambda a: getattr(a, key)[which])


def hardware_sentences(agreements):
    n = len(agreements)
    said = []
    for key, name, better in (("rho", "名次相关 ρ", "高"), ("regret", "挑的 ÷ 实测最快", "低")):
        values = [[getattr(a, key)[i] for a in agreements] for i in range(2)]
        medians = [statistics.median(v) for v in values]
        worsts = [worst(agreements, i, key) for i in range(2)]
        parts = [f"{model}的中位数 {m:.3f}（最差 {w.shape.label()} {getattr(w, key)[i]:.3f}）"
                 for i, (model, m, w) in enumerate(zip(MODELS, medians, worsts))]
        ahead = sum(1 for a in agreements
                    if (getattr(a, key)[0] > getattr(a, key)[1]) == (better == "高")
                    and getattr(a, key)[0] != getattr(a, key)[1])
        said.append(f"{n} 个实测形状上的{name}：" + "，".join(parts)
                    + f"；{ahead} 个形状上我们的模型更{better}。")
    tied = sum(1 for a in agreements if a.tied > 1)
    said[-1] += (f"NVIDIA 的模型不分 warp 数和级数，{n} 个形状里 {tied} 个的最短时间有几个配置"
                 "并列，它挑的按并列者实测的平均算。")
    return said


def in_sample_sentence():
    return ("这不是公平的比赛：我们的模型的几个系数（MMA_SYNC_EFF、L2_BW_PER_SM、HIDE_WARPS）"
            "就是在这两份 H200 测量上定的（fidelity.md），上面它的数是**样本内**的；NVIDIA 的模型"
            "没见过它们，它的数是样本外的。fidelity.md 的留一层交叉验证说明我们的模型没有背下"
            "这些形状，但内核和 GPU 还是同一个：换一个内核或一块 GPU 谁更准，这里的数据说不了。")


# ==== 3. 幻灯片 ===================================================================================

# 幻灯片上的字：有中文字体时用中文，没有时用英文（slide_layout.drawn 挑）
WORDS = {
    "zh": {"title": "换一个评估器：进化的好处在 NVIDIA 的模型里还剩多少？",
           "note": "左：相对专家的几何平均加速比（H100，讲义的形状），进化是 {seeds} 个种子"
                   "（点是表里的种子 {seed}，线是最小–最大）\n右：H200 的 Triton 实测上，"
                   "每个形状一个点；我们的模型的系数是在这份数据上定的（样本内）",
           "ours": "我们的模型", "theirs": "NVIDIA 的模型",
           "train": "训练形状", "test": "测试形状", "speedup": "相对专家的加速比",
           "expert": "专家 = 1", "upper": "上限（我们的模型里逐形状最优）",
           "rho": "ρ：对角线以下，我们的模型更准",
           "regret": "挑的÷最快：对角线以上，我们更好",
           "rho_x": "我们的模型的 ρ", "rho_y": "NVIDIA 的模型的 ρ",
           "regret_x": "我们的模型挑的 ÷ 最快", "regret_y": "NVIDIA 的模型挑的 ÷ 最快",
           "diagonal": "一样准（对角线）",
           "rows": {EXPERT_ROW: "专家", "evolved": "进化（full）",
                    nvidia_row("默认"): "NVIDIA（默认）",
                    nvidia_row("按它的模型排"): "NVIDIA（按它的模型排）"}},
    "en": {"title": "A second evaluator: how much of the evolved gain survives NVIDIA's model?",
           "note": "left: geomean speedup over the expert (H100, lecture shapes); evolved = "
                   "{seeds} seeds (dot: seed {seed} of the table, line: min-max)\nright: "
                   "measured Triton on an H200, one dot per shape; our model's constants were "
                   "fitted on these data (in-sample)",
           "ours": "our model", "theirs": "NVIDIA's model",
           "train": "training shapes", "test": "test shapes", "speedup": "speedup over expert",
           "expert": "expert = 1", "upper": "upper bound (best per shape, our model)",
           "rho": "rank agreement ρ: below the line, ours is closer",
           "regret": "pick / fastest: above the line, ours is better",
           "rho_x": "our model's ρ", "rho_y": "NVIDIA's model's ρ",
           "regret_x": "our pick / fastest", "regret_y": "NVIDIA's pick / fastest",
           "diagonal": "equally good (diagonal)",
           "rows": {EXPERT_ROW: "expert", "evolved": "evolved (full)",
                    nvidia_row("默认"): "NVIDIA (default)",
                    nvidia_row("按它的模型排"): "NVIDIA (ranked by its model)"}},
}
COLORS = {MODELS[0]: "C0", MODELS[1]: "C1"}


def draw_scores(ax, c, part, words):
    """表 2 的一幅（part 是训练或测试）：每个程序一行，两个模型各一个点（上下错开一点）；
    进化那一行再画各种子的最小–最大；专家 = 1 的实线，上限的虚线。"""
    evolved = evolved_row(c.median_seed)
    names = [EXPERT_ROW, evolved] + [nvidia_row(mode) for mode in MODES]
    y = np.arange(len(names))
    for model, offset in zip(MODELS, (-0.15, 0.15)):
        values = [c.rows[name][(part, model)] for name in names]
        seeds = c.seeds[(part, model)]
        ax.hlines(names.index(evolved) + offset, min(seeds), max(seeds), color=COLORS[model],
                  linewidth=3, zorder=2)
        ax.scatter(values, y + offset, s=150, color=COLORS[model], zorder=3)
    ax.axvline(1, color="black", linewidth=1.2, zorder=1)
    upper = c.rows[UPPER_ROW][(part, MODELS[0])]
    ax.axvline(upper, color="black", linestyle="--", linewidth=1.5, zorder=1)
    ax.set_yticks(y, [words["rows"]["evolved" if name == evolved else name] for name in names])
    ax.set_ylim(len(names) - 0.5, -0.5)
    ax.set_xlim(0.98, upper + 0.02)
    ax.set_title(words[dict(zip(PARTS, ("train", "test")))[part]])
    ax.set_xlabel(words["speedup"])
    ax.grid(True, axis="x", alpha=0.3)


def draw_agreement(ax, agreements, key, words):
    """表 3 的一幅（key 是 "rho" 或 "regret"）：每个实测形状一个点，横轴我们的模型、纵轴 NVIDIA 的，
    对角线是两个一样好。"""
    x = [getattr(a, key)[0] for a in agreements]
    y = [getattr(a, key)[1] for a in agreements]
    ax.scatter(x, y, s=80, color="C2", alpha=0.8, zorder=3)
    low, high = min(x + y), max(x + y)
    pad = 0.05 * (high - low)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color="black", linestyle=":",
            zorder=2)
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(low - pad, high + pad)
    ax.set_title(words[key])
    ax.set_xlabel(words[f"{key}_x"])
    ax.set_ylabel(words[f"{key}_y"])
    ax.grid(True, alpha=0.3)


def slide(c, agreements):
    """一张幻灯片（slide_layout.Slide）：左边两幅是表 2 的数（训练、测试），右边两幅是表 3 的。"""
    import matplotlib.lines

    def draw(fig, axes, words):
        draw_scores(axes["train"], c, PARTS[0], words)
        draw_scores(axes["test"], c, PARTS[1], words)
        draw_agreement(axes["rho"], agreements, "rho", words)
        draw_agreement(axes["regret"], agreements, "regret", words)
        handles = [matplotlib.lines.Line2D([], [], marker="o", linestyle="-", linewidth=3,
                                           markersize=12, color=COLORS[m], label=words[key])
                   for m, key in zip(MODELS, ("ours", "theirs"))]
        handles += [matplotlib.lines.Line2D([], [], color="black", label=words["expert"]),
                    matplotlib.lines.Line2D([], [], color="black", linestyle="--",
                                            label=words["upper"]),
                    matplotlib.lines.Line2D([], [], color="black", linestyle=":",
                                            label=words["diagonal"])]
        slide_layout.legend_below(fig, handles, len(handles))

    seeds = len(c.seeds[(PARTS[0], MODELS[0])])
    return slide_layout.Slide(lambda w: w["title"],
                              lambda w: w["note"].format(seeds=seeds, seed=c.median_seed),
                              [["train", "rho"], ["test", "regret"]], draw, WORDS,
                              {"width_ratios": [1.5, 1]})


def main(argv):
    plot_to = curves.plot_request(argv, description=(
        "和 NVIDIA 的 nvMatmulHeuristics 比：它挑的配置放进讲义的模型，它的估时当第二个评估器，"
        "两个模型对照 H200 的实测（见文件开头；要装 lecture14/requirements-nvidia.txt）。"
        "--plot 另存一张幻灯片（要 matplotlib）。"))
    nvmmh, missing = nvidia_library()
    if missing:
        print_message(missing, file=sys.stderr)
        return
    workers = workers_or_exit()
    no_plot = plot_to and curves.matplotlib_missing()
    if no_plot:
        print_message(no_plot, file=sys.stderr)
        plot_to = None
    c = compare(nvmmh, workers)
    agreements = agreement(TimeTable(H200), Nvidia(nvmmh, H200), fidelity.load_measured())
    version = importlib.metadata.version("nvidia-matmul-heuristics")
    print_paragraph(f"NVIDIA nvMatmulHeuristics {version}，Triton 目标，精度 {PRECISION}（fp16 "
                    f"输入、fp32 累加、fp16 输出）；讲义的模型是 {H100.name}（NVIDIA 的 "
                    f"{GPUS[H100.name]}），实测是 {H200.name}（{GPUS[H200.name]}）；进化程序是 "
                    f"full {len(fidelity.EVOLVE_SEEDS)} 个种子里训练分数居中的种子 "
                    f"{c.median_seed}（讲义 --plot 的启发式幻灯片画的也是它）")
    report_mapping(c)
    report_scores(c)
    report_hardware(agreements)
    report_observations(c, agreements)
    if plot_to:
        path, size = plot_to
        slide_layout.save(path, size, slide(c, agreements))
        print_message(f"幻灯片存到了 {path}。{curves.font_note()}", file=sys.stderr)


if __name__ == "__main__":
    # Ctrl-C、… | head：一行说明或安静退出，不打 traceback
    with stops_cleanly():
        main(sys.argv[1:])
