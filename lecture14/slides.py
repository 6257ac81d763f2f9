"""
CS349E · 第 14 讲 · slides.py —— --plot 的另外三张幻灯片：演示 2、演示 3、进化出来的启发式

    python3 lecture14/05_alphaevolve_ablations.py --plot slides/

演示 1 那张是 curves.py 画的（图 8 的曲线）；这里画表格藏起来的那几件关于形状空间的事：
  演示 2：48 个训练形状按两种排序读的数（vs_roofline、vs_best）摆开，0.95 那条线以上是
          "没有已知改进"的形状，三种挑法各把多少提案权重花在它们身上。
  演示 3：一个带不能启动的分支的程序（分支检查关）铺在形状空间上（横轴 M，纵轴层）：
          它的分支、坏的那个、训练形状（一个都不走进去）、100 个新形状和其中走进去出错的。
  启发式：完整方法的最好程序（种子的中位数那个）给每个形状选的配置，和它在每个训练、测试形状上
          相对专家的加速比，旁边是那个形状的上限（逐形状最优）。

每张画的数都是 05 脚本的表和句子用的那些对象（它把它们传进来），这里不另跑 evolve。
一张幻灯片怎样排（标题和说明、图例放在下面、字号、中英文）在 slide_layout.py。

自上而下读：
  1. 图上的字（中文、英文）
  2. 几张共用的：一个程序在形状空间上的分支图
  3. 演示 2 的幻灯片
  4. 演示 3 的幻灯片：挑哪个程序
  5. 启发式的幻灯片：挑哪个种子
  6. 收尾的那几句话
"""
import math
from dataclasses import dataclass

import numpy as np

import curves
from ablation import changed_parts
from boxes import first_match
from code_manipulation import rule_condition
from evolve import (DECODE_M, EXPERT, LAYERS, choose, config_fields, launch_conditions,
                    oracle_speedup, outside_search_space, speedups, static_valid)
from slide_layout import SMALL, Slide, legend_below

# ==== 1. 图上的字 =================================================================================

WORDS = {
    "zh": {
        "demo2_title": "演示 2：\"离 roofline 远\"和\"离见过的最快远\"指向不同的形状",
        "demo2_note": "{budget} 个程序之后的最好程序，{n} 个训练形状各一个点；"
                      "{stuck}/{n} 个在虚线以上：没有已知改进（vs_best > {threshold}）",
        "demo2_x": "vs_roofline = roofline 下界 / 时间（越靠左离 roofline 越远）",
        "demo2_y": "vs_best = 见过的最快 / 时间（越低越有已知的更快配置）",
        "stuck": "没有已知改进（{stuck} 个）", "movable": "有已知的更快配置（{movable} 个）",
        "line": "vs_best = {threshold}",
        "top_roof": "表里按 roofline 最该改的 5 个", "top_best": "表里按见过的最快最该改的 5 个",
        "bars_title": "挑形状的三种办法：提案落在\"没有已知改进\"的形状上的比例",
        "bars": ("随便挑", "按 roofline\n加权", "按见过的\n最快加权"),
        "demo3_title": "演示 3：训练形状走不到的分支里藏着不能启动的配置",
        "demo3_note": "{which}\n红色：返回 {config} 的分支（{why}）；训练形状一个都不走进去，"
                      "{extra} 个新形状里有 {failing} 个走进去、出错",
        "best_of": "种子 {seed} 的最好程序，分支检查关"
                   "（最好程序带坏分支的种子里，新形状走进去出错最多的）",
        "db_of": "种子 {seed} 最终数据库里的一个程序，分支检查关（没有一个最好程序带图上画得出来的"
                 "坏分支；带这样的坏分支的程序里，新形状走进去出错最多的）",
        "none": "种子 0 的最好程序（分支检查关）：这次进过数据库的程序没有一个带不能启动的分支",
        "evicted": "种子 0 的最好程序（分支检查关）：这次进过数据库的程序里有 {entered} 个带不能"
                   "启动的分支，到最后一个也没留下（表里\"进数据库的\"那几列），图上没有红色的分支",
        "demo3_hidden": "{which}\n它返回 {config} 的分支（{why}）不在这张图画的形状上："
                        "条件是 {condition}（前面的规则先管的形状除外）；训练形状一个都不走进去，"
                        "{extra} 个新形状里有 {failing} 个走进去",
        "lecture_full": "跑的是讲义的完整方法 {}，不是你改过的 full", "then": "；",
        "demo3_table": "表里种子 {seed} 那一行：最终数据库里 {stayed} 个程序带不合法分支，"
                       "其中 {crashed} 个在 {extra} 个新形状上出错",
        "demo3_x": "M（一批的 token 数，对数坐标）",
        "train_shapes": "训练形状（都不走进红色分支）", "train_plain": "训练形状",
        "new_shapes": "100 个新形状",
        "failing": "走进红色分支、出错的新形状", "bad_branch": "不能启动的分支",
        "why": {"shared_memory": "共享内存超了", "registers": "寄存器超了",
                "mma_tile": "warp 分不到 MMA 块", "outside": "不在搜索空间里"},
        "heuristic_title": "进化找到的：{full} 的最好程序 vs. 专家",
        "gain_title": "进化找到的：{full} 比专家快的部分，{share}在 {part} 形状上",
        "share": "{share:.0%} ", "all": "全部",
        "parts": {"decode": f"decode（M ≤ {DECODE_M}）", "prefill": f"prefill（M > {DECODE_M}）"},
        "axis_parts": ("decode", "prefill"),
        "heuristic_note": "种子 {seed}（{which}）；几何平均加速比："
                          "训练 {train:.3f}、测试 {test:.3f}，上限 {upper_train:.3f}、"
                          "{upper_test:.3f}",
        "config_axis": "选的配置（BM×BN×BK、warp 数、流水级数）",
        "speed_axis": "相对专家的加速比",
        "train_dot": "训练形状", "test_dot": "测试形状", "bound": "上限（逐形状最优）",
        "expert": "专家 = 1",
        "edited": "你改过的 full",
        "which_seed": {"only": "只跑了这 1 个种子", "median": "{seeds} 个种子里训练分数居中的那个",
                       "lower": "{seeds} 个种子里训练分数居中偏低的那个"},
    },
    "en": {
        "demo2_title": "Demo 2: 'far from roofline' and 'far from the fastest seen' "
                       "point at different shapes",
        "demo2_note": "best program after {budget} proposals, one dot per training shape ({n}); "
                      "{stuck}/{n} above the dashed line: no known improvement "
                      "(vs_best > {threshold})",
        "demo2_x": "vs_roofline = roofline bound / time (left: far from roofline)",
        "demo2_y": "vs_best = fastest seen / time (low: a faster config is known)",
        "stuck": "no known improvement ({stuck})",
        "movable": "a faster config is known ({movable})",
        "line": "vs_best = {threshold}",
        "top_roof": "table: top 5 by roofline", "top_best": "table: top 5 by fastest seen",
        "bars_title": "share of proposals landing on shapes with no known improvement",
        "bars": ("uniform", "by\nroofline", "by fastest\nseen"),
        "demo3_title": "Demo 3: a branch no training shape walks into holds a config "
                       "that cannot launch",
        "demo3_note": "{which}\nred: the branch returning {config} ({why}); no training shape "
                      "enters it, {failing} of the {extra} new shapes do and fail",
        "best_of": "seed {seed}'s best program, branch check off (of the seeds whose best program "
                   "has a bad branch, the one where the most new shapes fail)",
        "db_of": "a program in seed {seed}'s final database, branch check off (no best program has "
                 "a bad branch this map can show; of those that have one, the one the most new "
                 "shapes fail on)",
        "none": "seed 0's best program (branch check off): no program that entered the database "
                "in this run has a branch that cannot launch",
        "evicted": "seed 0's best program (branch check off): {entered} of the programs that "
                   "entered the database had a branch that cannot launch; none was left at the end "
                   "(the table's 'entered' columns), so there is no red branch to draw",
        "demo3_hidden": "{which}\nits branch returning {config} ({why}) lies outside the shapes "
                        "drawn here: its condition is {condition} (less what earlier rules take); "
                        "no training shape enters it, {failing} of the {extra} new shapes do",
        "lecture_full": "the lecture's full {}, not your edited full", "then": "; ",
        "demo3_table": "the table's row for seed {seed}: {stayed} programs in its final database "
                       "have a bad branch, {crashed} fail on the {extra} new shapes",
        "demo3_x": "M (tokens in the batch, log scale)",
        "train_shapes": "training shapes (none enters the red branch)",
        "train_plain": "training shapes",
        "new_shapes": "the 100 new shapes",
        "failing": "new shapes that enter it and fail", "bad_branch": "branch that cannot launch",
        "why": {"shared_memory": "too much shared memory", "registers": "too many registers",
                "mma_tile": "no MMA tile per warp", "outside": "outside the search space"},
        "heuristic_title": "What evolution found: {full}'s best program vs. the expert",
        "gain_title": "What evolution found: {share}of {full}'s gain over the expert "
                      "is on {part} shapes",
        "share": "{share:.0%} ", "all": "all ",
        "parts": {"decode": f"decode (M ≤ {DECODE_M})", "prefill": f"prefill (M > {DECODE_M})"},
        "axis_parts": ("decode", "prefill"),
        "heuristic_note": "seed {seed} ({which}); geomean "
                          "speedup: training {train:.3f}, test {test:.3f}; upper bound "
                          "{upper_train:.3f} / {upper_test:.3f}",
        "config_axis": "config chosen (BM×BN×BK, warps, stages)",
        "speed_axis": "speedup over the expert",
        "train_dot": "training shape", "test_dot": "test shape",
        "bound": "upper bound (best config per shape)", "expert": "expert = 1",
        "edited": "your edited full",
        "which_seed": {"only": "the only seed",
                       "median": "the median training score of {seeds} seeds",
                       "lower": "the lower middle training score of {seeds} seeds"},
    },
}

# ==== 2. 几张共用的 ===============================================================================

# 横轴画到哪里：讲义和演示 3 的 M 都在 1 到 16,384 之间，两头各留一点（对数坐标上）
M_RANGE = (1 / 1.6, 16384 * 1.6)


def branch_map(p, layers):
    """程序 p 在形状空间上的分支：(每层一行、每格一列的分支编号（len(p.rules) 是默认）, 格子在
    横轴上的边)。格子由 p 的规则在 M 上的边界切出：规则全是阈值比较，同一格里 N、K 相同的形状
    走同一个分支，所以每格查它最小的那个 M 就查了整格——画出来的边界是准的。layers 是
    [(层名, (N, K))]。"""
    bounds = {b for rule in p.rules for b in rule.bounds[0] if 1 <= b < M_RANGE[1]}
    starts = np.array(sorted({1} | {int(b) + 1 for b in bounds}))
    # 边画在两个整数中间（M ≤ b 和 M ≥ b + 1 之间）
    edges = np.concatenate([[M_RANGE[0]], starts[1:] - 0.5, [M_RANGE[1]]])
    n = np.array([[N] for _, (N, K) in layers])
    k = np.array([[K] for _, (N, K) in layers])
    boxes = tuple(rule.bounds for rule in p.rules)
    return first_match(boxes, {"M": starts[None, :], "N": n, "K": k}), edges


def m_axis(ax, words_x):
    """横轴是 M：对数坐标，刻度是讲义的 M（1、16、128、1,024、16,384）。"""
    import matplotlib.ticker
    ax.set_xscale("log")
    ax.set_xlim(*M_RANGE)
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator([1, 16, 128, 1024, 16384]))
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    if words_x:
        ax.set_xlabel(words_x)


def layer_rows(ax, layers):
    """纵轴：每层一行，从上往下按 layers 的顺序，刻度写层名和它的 N、K。"""
    ax.set_ylim(len(layers) - 0.5, -0.5)
    ax.set_yticks(range(len(layers)))
    ax.set_yticklabels([f"{name}  N={N:,} K={K:,}" for name, (N, K) in layers])


def shapes_at(ax, shapes, layers, **style):
    """把形状画成点：横坐标 M，纵坐标它那一层的行。"""
    row = {name: i for i, (name, _) in enumerate(layers)}
    ax.scatter([s.M for s in shapes], [row[s.name] for s in shapes], **style)


# ==== 3. 演示 1（curves.py 画）和演示 2 ===========================================================

def curves_parts(results, variants, train, table):
    """演示 1 那张（curves.py 画，AlphaEvolve 图 8 的样子）的参数 (panels, reference, upper)：
    results 是 变体名 → 各种子的 runs.Finished，variants 是 05 脚本的 VARIANTS（按每行改了的
    部件分幅），上限是演示 1 印的那个（逐形状最优）。"""
    histories = {name: [o.out.history for o in outs] for name, outs in results.items()}
    panels = curves.panels_by_part(changed_parts(variants), histories)
    return panels, ("full", histories["full"]), oracle_speedup(train, table)


def save_curves(path, size, results, variants, train, table):
    """演示 1 那张存成 path（curves.save）。"""
    panels, reference, upper = curves_parts(results, variants, train, table)
    curves.save(path, panels, reference, upper, size)


def demo2_numbers(per_shape, threshold, on_stuck):
    """演示 2 的幻灯片画的几个数：没有已知改进的形状有几个、三种挑法落在它们身上的比例
    （随便挑就是它们占的比例；两种加权的是演示 2 那句话里的两个数）。"""
    stuck = sum(1 for x in per_shape if x["vs_best"] > threshold)
    shares = (stuck / len(per_shape), on_stuck["roofline"], on_stuck["best"])
    return stuck, shares


def demo2(per_shape, threshold, budget, on_stuck, edited_full):
    """演示 2：per_shape 是 Evaluator.per_shape 的那 48 行，threshold 是"没有已知改进"的线，
    on_stuck 是两种加权落在它们身上的比例（演示 2 印的那两个数）。演示 2 和种子脚本一样跑讲义的
    完整方法：edited_full（学生的 full 比讲义的改了什么）不空时说明里说一句。"""
    import matplotlib.lines
    stuck, shares = demo2_numbers(per_shape, threshold, on_stuck)
    n = len(per_shape)
    top_roof = sorted(per_shape, key=lambda x: x["vs_roofline"])[:5]
    top_best = sorted(per_shape, key=lambda x: x["vs_best"])[:5]

    def draw(fig, axes, words):
        ax = axes["shapes"]
        above = [x for x in per_shape if x["vs_best"] > threshold]
        below = [x for x in per_shape if x["vs_best"] <= threshold]
        for group, color in ((above, "C3"), (below, "C0")):
            ax.scatter([x["vs_roofline"] for x in group], [x["vs_best"] for x in group],
                       s=110, color=color, alpha=0.8, zorder=3)
        ax.scatter([x["vs_roofline"] for x in top_roof], [x["vs_best"] for x in top_roof],
                   s=420, facecolors="none", edgecolors="black", linewidths=2, marker="s",
                   zorder=4)
        ax.scatter([x["vs_roofline"] for x in top_best], [x["vs_best"] for x in top_best],
                   s=700, facecolors="none", edgecolors="C2", linewidths=2.5, zorder=4)
        ax.axhline(threshold, color="black", linestyle="--", linewidth=1.5, zorder=2)
        ax.set_xlim(0, 1.02)
        ax.set_ylim(min(x["vs_best"] for x in per_shape) - 0.05, 1.04)
        ax.set_xlabel(words["demo2_x"])
        ax.set_ylabel(words["demo2_y"])
        ax.grid(True, alpha=0.3)
        bars = axes["bars"]
        colors = ("0.6", "C1", "C2")
        bars.bar(range(3), [100 * v for v in shares], color=colors, width=0.6)
        for i, share in enumerate(shares):
            bars.annotate(f"{share:.0%}", (i, 100 * share), xytext=(0, 4),
                          textcoords="offset points", ha="center", va="bottom", fontsize=20)
        bars.set_ylim(0, 115)
        bars.set_yticks(range(0, 101, 25), [f"{v}%" for v in range(0, 101, 25)])
        bars.set_xticks(range(3), words["bars"], fontsize=SMALL)
        bars.set_title(words["bars_title"], fontsize=17)
        handles = [
            matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=11, color="C3",
                                    label=words["stuck"].format(stuck=stuck)),
            matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=11, color="C0",
                                    label=words["movable"].format(movable=n - stuck)),
            matplotlib.lines.Line2D([], [], color="black", linestyle="--",
                                    label=words["line"].format(threshold=threshold)),
            matplotlib.lines.Line2D([], [], marker="s", linestyle="", markersize=18,
                                    markerfacecolor="none", markeredgecolor="black",
                                    markeredgewidth=2, label=words["top_roof"]),
            matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=22,
                                    markerfacecolor="none", markeredgecolor="C2",
                                    markeredgewidth=2.5, label=words["top_best"]),
        ]
        legend_below(fig, handles, 3)

    def note(words):
        said = words["demo2_note"].format(budget=budget, n=n, stuck=stuck, threshold=threshold)
        return f"{said}\n{words['lecture_full']}" if edited_full else said

    return Slide(lambda w: w["demo2_title"], note, [["shapes", "bars"]], draw, WORDS,
                 {"width_ratios": [2.4, 1]})


# ==== 4. 演示 3 ===================================================================================

def extra_layers(extra):
    """演示 3 的新形状所在的层 [(层名, (N, K))]：讲义的 8 个投影、405B 的 2 个，按出现的顺序。"""
    return list(dict.fromkeys((s.name, (s.N, s.K)) for s in extra))


def bad_branches(p, hw):
    """p 的哪几个分支返回不能启动的配置（编号同 Program.configs()）。"""
    return [i for i, cfg in enumerate(p.configs()) if not static_valid(cfg, hw)]


def failing(p, shapes, hw):
    """shapes 里走进 p 的坏分支、因此出错的那些。"""
    return [s for s in shapes if not static_valid(choose(p, s), hw)]


def drawn_branches(p, branches, layers):
    """branches 里画得出来的那几个：图上（layers 这几层、M 的范围里）有一格走进它。
    一个坏分支的条件可能只管图上没有的 N、K（或者被前面的规则先管了）：那样它画不出红色。"""
    where, _ = branch_map(p, layers)
    return [i for i in branches if np.any(where == i)]


@dataclass(frozen=True)
class Latent:
    """演示 3 画的那个程序：哪个种子的、程序、是不是那个种子的最好程序，它的坏分支（编号），
    和其中画得出来的那几个（drawn_branches）。"""
    seed: int
    program: object
    is_best: bool
    bad: list
    drawn: list


def pick_latent(runs, extra, hw):
    """演示 3 画哪个程序（分支检查关的那几个种子里），按这个顺序挑：坏分支画得出来的先（这一张要
    讲的就是图上那块红色）；再是种子的最好程序（表里"最好的程序带不合法分支？"那一列）先于最终
    数据库里的；再是走进坏分支出错的新形状多的（"新形状走进去才出事"）；一样时取小的种子。
    一个带坏分支的都没有时，是种子 0 的最好程序。"""
    layers = extra_layers(extra)
    best = [(seed, r.out.best[0], True) for seed, r in enumerate(runs)]
    in_db = [(seed, p, False) for seed, r in enumerate(runs)
             for pop in r.out.db.islands for p, _ in pop]
    candidates = []
    for seed, p, is_best in best + in_db:
        bad = bad_branches(p, hw)
        if bad:
            candidates.append(Latent(seed, p, is_best, bad, drawn_branches(p, bad, layers)))
    if not candidates:
        return Latent(0, best[0][1], True, [], [])
    return max(candidates, key=lambda c: (bool(c.drawn), c.is_best,
                                          len(failing(c.program, extra, hw)), -c.seed))


def why_not(cfg, hw, words):
    """cfg 为什么不能启动：launch_conditions 的哪几条不成立（短语，图上用）；不在搜索空间里的配置
    另说。"""
    if outside_search_space(cfg):
        return words["why"]["outside"]
    ok = launch_conditions(config_fields(cfg), hw)
    failed = [name for name in ("shared_memory", "registers", "mma_tile")
              if not bool(np.all(getattr(ok, name)))]
    return ", ".join(words["why"][name] for name in failed)


def config_said(cfg):
    """配置的短写法：BM×BN×BK、warp 数、流水级数、split-K（大于 1 时）。"""
    text = f"{cfg.BM}×{cfg.BN}×{cfg.BK} w{cfg.warps} s{cfg.stages}"
    return text + (f" split-K {cfg.split_k}" if cfg.split_k > 1 else "")


def draw_branch_map(ax, latent, train, extra, fails, words):
    """演示 3 那一幅：latent 的程序铺在形状空间上（能启动的分支浅灰，画得出来的坏分支红色），
    训练形状、新形状、走进坏分支出错的新形状。"""
    import matplotlib.colors
    layers = extra_layers(extra)
    where, edges = branch_map(latent.program, layers)
    greys = ["0.95", "0.85", "0.9", "0.8"]
    shade = np.where(np.isin(where, latent.bad), len(greys), where % len(greys))
    cmap = matplotlib.colors.ListedColormap(greys + ["#d62728"])
    ax.pcolormesh(edges, np.arange(len(layers) + 1) - 0.5, shade, cmap=cmap,
                  vmin=-0.5, vmax=len(greys) + 0.5, shading="flat")
    m_axis(ax, words["demo3_x"])
    layer_rows(ax, layers)
    shapes_at(ax, train, layers, s=60, color="black", zorder=3)
    shapes_at(ax, extra, layers, s=130, facecolors="none", edgecolors="C0", linewidths=2,
              zorder=4)
    if fails:
        shapes_at(ax, fails, layers, s=260, marker="X", color="gold", edgecolors="black",
                  linewidths=1.5, zorder=5)


def demo3_legend(latent, fails, words):
    """图例只列图上画了的：画得出来的坏分支才有红色的格子，有新形状出错才有叉。"""
    import matplotlib.lines
    import matplotlib.patches
    handles = [matplotlib.lines.Line2D([], [], marker="o", linestyle="", color="black",
                                       markersize=8,
                                       label=words["train_shapes" if latent.drawn
                                                   else "train_plain"]),
               matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=12,
                                       markerfacecolor="none", markeredgecolor="C0",
                                       markeredgewidth=2, label=words["new_shapes"])]
    if latent.drawn:
        red = matplotlib.patches.Patch(color="#d62728", label=words["bad_branch"])
        handles.insert(0, red)
    if fails:
        handles.append(matplotlib.lines.Line2D([], [], marker="X", linestyle="", markersize=16,
                                               color="gold", markeredgecolor="black",
                                               label=words["failing"]))
    return handles


def demo3_note(hw, latent, unchecked, extra, fails, edited_full, words):
    """演示 3 的说明，用的是表里的数（unchecked：分支检查关时各种子那一行）：画的是哪个程序；它的
    坏分支返回什么、为什么不能启动（画不出来时说它的条件）；表里那个种子那一行。一个带坏分支的程序
    都没留下时，说表里进过数据库的有几个。"""
    if latent.bad:
        kind = "best_of" if latent.is_best else "db_of"
    else:
        kind = "evicted" if sum(row.entered for row in unchecked) else "none"
    which = words[kind].format(seed=latent.seed,
                               entered=sum(row.entered for row in unchecked))
    if edited_full:
        which = f"{which}{words['then']}{words['lecture_full']}"
    if not latent.bad:
        return which
    branch = (latent.drawn or latent.bad)[0]
    cfg = latent.program.configs()[branch]
    said = {"which": which, "config": config_said(cfg), "why": why_not(cfg, hw, words),
            "failing": len(fails), "extra": len(extra)}
    if latent.drawn:
        named = words["demo3_note"].format(**said)
    else:
        rule = latent.program.rules[branch].bounds
        named = words["demo3_hidden"].format(condition=rule_condition(rule), **said)
    row = unchecked[latent.seed]
    return named + "\n" + words["demo3_table"].format(seed=latent.seed, stayed=row.stayed,
                                                       crashed=row.crashed, extra=len(extra))


def demo3(hw, train, extra, unchecked, runs, edited_full):
    """演示 3：runs 是分支检查关的各种子（runs.Finished），unchecked 是表里它们那几行
    （observations.Unchecked），train 是训练形状，extra 是 100 个新形状，edited_full 是学生的 full
    比讲义的改了什么（variants.Changes，没改是空的）。"""
    latent = pick_latent(runs, extra, hw)
    fails = failing(latent.program, extra, hw)

    def draw(fig, axes, words):
        draw_branch_map(axes["map"], latent, train, extra, fails, words)
        legend_below(fig, demo3_legend(latent, fails, words), 2)

    def note(words):
        return demo3_note(hw, latent, unchecked, extra, fails, edited_full, words)

    return Slide(lambda w: w["demo3_title"], note, [["map"]], draw, WORDS)


# ==== 5. 进化出来的启发式 =========================================================================

def median_seed(outs):
    """完整方法的哪个种子：训练分数（history 的最后一个）居中的那个。按分数排（一样时种子小的
    在前），
    取第 (n-1)//2 个：种子数是奇数时它的分数就是演示 1 印的中位数；偶数时是中间偏低的那个
    （不挑好的给人看）。"""
    order = sorted(range(len(outs)), key=lambda i: (outs[i].out.history[-1], i))
    return order[(len(outs) - 1) // 2]


def per_shape_speedups(p, shapes, table):
    """每个形状上 p 和逐形状最优相对专家的加速比：(p 的, 上限)，各是一个数组。"""
    expert = [table.time(choose(EXPERT, s), s) for s in shapes]
    mine = [table.time(choose(p, s), s) for s in shapes]
    best = [table.oracle(s)[1] for s in shapes]
    return speedups(expert, mine), speedups(expert, best)


def gain_from(p, train, table):
    """p 比专家快的部分（训练形状上加速比的对数之和：几何平均的分子）落在哪儿：返回 (部分, 占比)，
    部分是 "decode" 或 "prefill" 里占得多的那个（占比大于 1：另一部分反而慢了）。整体不比专家快时
    是 None。标题里占比取整后是 100% 就说"全部"。"""
    mine, _ = per_shape_speedups(p, train, table)
    logs = np.log(mine)
    decode = float(logs[[s.M <= DECODE_M for s in train]].sum())
    total = float(logs.sum())
    if total <= 0:
        return None
    part, share = max((("decode", decode / total), ("prefill", 1 - decode / total)),
                      key=lambda x: x[1])
    return part, share


def jittered(shapes, layers):
    """同一个 M 上 8 层的点左右错开一点（对数坐标上等距），不叠成一个。"""
    row = {name: i for i, (name, _) in enumerate(layers)}
    middle = (len(layers) - 1) / 2
    return np.array([s.M * 1.09 ** (row[s.name] - middle) for s in shapes])


def draw_config_map(ax, p, train, test, words):
    """启发式的上面那幅：p 给讲义 8 层上每个形状选的配置（同一个配置一种颜色，只列分支图里出现的），
    训练形状黑点、测试形状白点，上边写 decode、prefill；图例放在右边。"""
    import matplotlib.colors
    import matplotlib.lines
    import matplotlib.patches
    import matplotlib.ticker
    layers = list(LAYERS.items())
    where, edges = branch_map(p, layers)
    branch_cfg = p.configs()
    shown = list(dict.fromkeys(branch_cfg[i] for i in np.unique(where)))
    color_of = np.array([shown.index(cfg) if cfg in shown else 0 for cfg in branch_cfg])
    palette = [matplotlib.colormaps["tab20"](i) for i in range(20)]
    colors = [palette[i % 20] for i in range(len(shown))]
    cmap = matplotlib.colors.ListedColormap(colors)
    ax.pcolormesh(edges, np.arange(len(layers) + 1) - 0.5, color_of[where], cmap=cmap,
                  vmin=-0.5, vmax=len(shown) - 0.5, shading="flat")
    m_axis(ax, None)
    ax.tick_params(labelbottom=False)
    layer_rows(ax, layers)
    top = ax.secondary_xaxis("top")
    top.set_xticks([math.sqrt(M_RANGE[0] * DECODE_M),
                    math.sqrt(2 * DECODE_M * M_RANGE[1])], words["axis_parts"])
    top.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    top.tick_params(length=0, labelsize=17)
    shapes_at(ax, train, layers, s=55, color="black", zorder=3)
    shapes_at(ax, test, layers, s=55, facecolors="white", edgecolors="black", zorder=3)
    patches = [matplotlib.patches.Patch(color=c, label=config_said(cfg))
               for c, cfg in zip(colors, shown)]
    patches += [matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=9,
                                        markerfacecolor=face, markeredgecolor="black",
                                        label=words[label])
                for face, label in (("black", "train_dot"), ("white", "test_dot"))]
    ax.legend(handles=patches, loc="center left", bbox_to_anchor=(1.01, 0.5),
              fontsize=SMALL, frameon=False, ncols=1 + len(patches) // 13,
              title=words["config_axis"], title_fontsize=SMALL, alignment="left")


def draw_speedups(ax, p, train, test, table, words):
    """启发式的下面那幅：每个训练、测试形状上 p 相对专家的加速比，和那个形状的上限（灰色短横），
    同一个 M 上的几层左右错开；图例放在右边。"""
    import matplotlib.lines
    layers = list(LAYERS.items())
    for shapes, filled in ((train, True), (test, False)):
        mine, bound = per_shape_speedups(p, shapes, table)
        x = jittered(shapes, layers)
        ax.vlines(x, mine, bound, color="0.7", linewidth=1.5, zorder=1)
        ax.scatter(x, bound, marker="_", s=160, color="0.35", linewidths=2.5, zorder=2)
        style = ({"color": "C0"} if filled
                 else {"facecolors": "white", "edgecolors": "C1", "linewidths": 2})
        ax.scatter(x, mine, s=70, zorder=3, **style)
    ax.axhline(1, color="black", linewidth=1.2, zorder=0)
    m_axis(ax, words["demo3_x"])
    ax.set_ylabel(words["speed_axis"])
    ax.grid(True, axis="y", alpha=0.3)
    handles = [matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=10,
                                       color="C0", label=words["train_dot"]),
               matplotlib.lines.Line2D([], [], marker="o", linestyle="", markersize=10,
                                       markerfacecolor="white", markeredgecolor="C1",
                                       markeredgewidth=2, label=words["test_dot"]),
               matplotlib.lines.Line2D([], [], marker="_", linestyle="", markersize=16,
                                       markeredgewidth=2.5, color="0.35", label=words["bound"]),
               matplotlib.lines.Line2D([], [], color="black", label=words["expert"])]
    ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.01, 0.5),
              fontsize=SMALL, frameon=False)


def heuristic_title(gain, edited_full, words):
    """启发式的标题：比专家快的部分多少在 decode（或 prefill）上；整体不比专家快时只说比的是谁。"""
    name = words["edited"] if edited_full else "full"
    if gain is None:
        return words["heuristic_title"].format(full=name)
    part, share = gain
    said = words["all"] if round(share, 2) >= 1 else words["share"].format(share=share)
    return words["gain_title"].format(share=said, full=name, part=words["parts"][part])


def heuristic(outs, train, test, table, edited_full):
    """进化出来的启发式：outs 是演示 1 里 full 的各种子（runs.Finished），取训练分数居中的那个种子的
    最好程序，和专家比。edited_full：学生的 full 比讲义的改了什么（标题里说是"你改过的 full"）。"""
    seed = median_seed(outs)
    p, score = outs[seed].out.best
    upper = {name: oracle_speedup(shapes, table) for name, shapes in (("train", train),
                                                                      ("test", test))}
    gain = gain_from(p, train, table)
    # 种子数是偶数时没有正好居中的那个：说是中间偏低的
    which = "only" if len(outs) == 1 else "median" if len(outs) % 2 else "lower"

    def draw(fig, axes, words):
        draw_config_map(axes["map"], p, train, test, words)
        draw_speedups(axes["speed"], p, train, test, table, words)
        # decode 和 prefill 之间一条竖线：两幅都画，对得上
        boundary = math.sqrt(DECODE_M * 2 * DECODE_M)
        for panel in axes.values():
            panel.axvline(boundary, color="black", linestyle=":", linewidth=2, zorder=6)

    def note(words):
        said = words["which_seed"][which].format(seeds=len(outs))
        return words["heuristic_note"].format(seed=seed, which=said, train=score,
                                              test=outs[seed].test, upper_train=upper["train"],
                                              upper_test=upper["test"])

    return Slide(lambda words: heuristic_title(gain, edited_full, words), note,
                 [["map"], ["speed"]], draw, WORDS, {"height_ratios": [1, 1.15]})


# ==== 6. 收尾的那几句话 ===========================================================================

# 每张幻灯片是什么（收尾那句话里说）
WHAT = {"demo1": "演示 1", "demo2": "演示 2", "demo3": "演示 3", "heuristic": "进化出来的启发式"}


def closing(files, variants):
    """收尾的话：每张幻灯片存到了哪个文件（只说真写了的），没有中文字体时再一句（curves.font_note：
    图上用英文，学生起的变体名里 DejaVu Sans 没有的字是方框）。"""
    listed = "、".join(f"{WHAT[slide]} {path}" for slide, path in files.items())
    return f"幻灯片存到了：{listed}。{curves.font_note(list(variants))}"
