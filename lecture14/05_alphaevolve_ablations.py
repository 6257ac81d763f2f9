"""
=============================================================================
CS349E · 第 14 讲 · 05_alphaevolve_ablations.py —— 迷你 AlphaEvolve 的消融：每个部件值多少
=============================================================================

【这个脚本要回答的问题】
AlphaEvolve 论文的消融实验（图 8）去掉一个部件看效果掉多少：No evolution、No context in the prompt、
Small base LLM only、No full-file evolution、No meta prompt evolution。我们在迷你版上做同样的事：
  演示 1：9 个变体 × 5 个随机种子，分数随"提出的程序数"怎样上升，测试形状上的分数，评估成本。
  演示 2：反馈怎么用——同样是"看评估反馈"，挑哪个形状下手、拿什么当参照，结果差别很大。
  演示 3：不检查所有分支会怎样——数据库里藏着多少"测试没走到的、根本不能启动的分支"。

【变体】（"LLM"都是 evolve.MockLLM，没有真正的语言模型）
  full         ：完整的方法（内核常识的定向修改 + 按"离见过的最快还差多少"加权挑形状 + 借规则 + 4 个岛 + 级联 + 分支检查）
  fb_roofline  ：定向修改按"离 roofline 还差多少"挑形状
  fb_worst3    ：定向修改只盯着"差得最多的 3 个形状"
  no_feedback  ：定向修改随便挑形状（不看评估结果）
  small_llm    ：没有内核常识，只会单字段的小改动（"Small base LLM only"）
  no_evolution ：每次都从初始程序出发改（"No evolution"）
  no_borrow    ：不从别的程序借规则
  one_island   ：只有 1 个岛
  no_cascade   ：不做级联，每个程序都完整评估

【关于数字】"硬件"是第 13 讲的解析模型（evolve.py 第 3 节）；所有结果确定（固定随机种子），每次运行完全相同。
【运行】python3 05_alphaevolve_ablations.py （约 6 秒）
【依赖】numpy；本目录的 evolve；../lecture01 的 console。
"""
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lecture01"))
from console import (print_header, print_observations, print_paragraph, print_table, progress,  # noqa: E402
                     stops_cleanly)

with stops_cleanly():                          # 载入 numpy 时按 Ctrl-C 也只留一行"已中断。"
    import numpy as np
    from evolve import (Evaluator, MockLLM, Shape, LAYERS, TimeTable, all_shapes, check_options, choose,  # noqa: E402
                        evolve, geomean_speedup, oracle_speedup, render, simplify, split_shapes,
                        static_check_program)
    from checks import is_int                  # 整数（numpy 的也算），True/False 不算：和 evolve 检查参数时一样


def sentence(text):
    """一句话以句号收尾（原话已经以句号、问号结尾就不再加）。"""
    return text if text.endswith(("。", "？", "！")) else text + "。"


# —— 学生改这一块。MockLLM(...) 一建好就检查自己的选项，所以这里写错也只说一句话（见 except），不打 traceback ——
try:
    SEEDS = 5
    BUDGET = 1000
    MARKS = (50, 100, 300, 1000)

    VARIANTS = {
        "full": {},
        "fb_roofline": {"llm": MockLLM(feedback="roofline")},
        "fb_worst3": {"llm": MockLLM(focus="worst3")},
        "no_feedback": {"llm": MockLLM(feedback=None)},
        "small_llm": {"llm": MockLLM(knowledge=False)},
        "no_evolution": {"evolution": False},
        "no_borrow": {"llm": MockLLM(use_inspirations=False)},
        "one_island": {"n_islands": 1},
        "no_cascade": {"cascade": False},
    }
except (TypeError, ValueError) as slip:
    sys.exit(sentence(f"设置有误：第 {slip.__traceback__.tb_lineno} 行：{slip}"))

# —— 学生会改上面的常数：开跑之前先检查，错了就用一句话说清楚是哪个、规则是什么 ——
EARLY = 100              # 观察 5 比较"100 个程序时的分数"（表里有这一列的话）
DEMO2_BUDGET = 300       # 演示 2 看 300 个程序之后的最好程序


def seeds_and_budget_problem():
    if not is_int(SEEDS) or SEEDS < 1:
        return f"SEEDS 是每个变体跑几个随机种子，必须是 ≥ 1 的整数，现在是 {SEEDS!r}"
    if not is_int(BUDGET) or BUDGET < 1:
        return f"BUDGET 是每次 evolve 提出几个程序，必须是 ≥ 1 的整数，现在是 {BUDGET!r}"
    return None


def marks_problem():
    if not isinstance(MARKS, (tuple, list)) or not MARKS or not all(is_int(m) for m in MARKS) \
            or any(a >= b for a, b in zip(MARKS, MARKS[1:])):
        return f"MARKS 是表里看分数的几个时刻，必须是从小到大、不重复的整数，例如 (50, 100, 300, 1000)，现在是 {MARKS!r}"
    bad = [m for m in MARKS if not 1 <= m <= BUDGET]
    if bad:
        return f"MARKS 里的 {bad[0]} 不行：每个时刻都要 ≥ 1 且 ≤ BUDGET（现在 BUDGET = {BUDGET}）"
    return None


def variants_problem():
    if not isinstance(VARIANTS, dict):
        return f"VARIANTS 必须是 dict：变体名 → 传给 evolve 的参数，现在是 {type(VARIANTS).__name__}"
    if "full" not in VARIANTS:
        return "VARIANTS 里少了 'full'：每条观察都拿别的变体和完整方法比，它要留着；别的变体都可以删"
    for name, kw in VARIANTS.items():
        if not isinstance(kw, dict):
            return f"VARIANTS[{name!r}] 必须是传给 evolve 的参数 dict，例如 {{\"n_islands\": 8}}，现在是 {kw!r}"
        try:
            check_options(**kw)
        except (TypeError, ValueError) as e:
            return f"VARIANTS[{name!r}]：{e}"
    return None


def check_settings():
    """在跑任何东西之前检查 SEEDS、BUDGET、MARKS、VARIANTS；有错就打印一句话并退出（不打 traceback）。"""
    problem = seeds_and_budget_problem() or marks_problem() or variants_problem()
    if problem:
        sys.exit(sentence(f"设置有误：{problem}"))


# —— 进度：stderr 上一行，跑到哪一步、还要多久（只在终端上显示）——

def _duration(seconds):
    m, s = divmod(int(seconds + 0.5), 60)
    h, m = divmod(m, 60)
    return f"{h} 小时 {m} 分" if h else f"{m} 分 {s} 秒" if m else f"{s} 秒"


class Clock:
    """整个脚本要提多少个提案开跑前就知道；按已经用的时间估计剩下的。每 0.2 秒最多写一次，BUDGET 再大也不拖慢。"""

    def __init__(self, total):
        self.total, self.done, self.start, self.shown = total, 0, time.monotonic(), -math.inf

    def reporter(self, label, budget):
        """给 evolve(..., report=...) 的函数：每个提案之后调用一次。"""
        def report(step, outcome):
            self.done += 1
            now = time.monotonic()
            if now - self.shown >= 0.2:
                self.shown = now
                left = (now - self.start) / self.done * (self.total - self.done)
                progress(f"{label}：第 {step + 1:,}/{budget:,} 个提案，还要约 {_duration(left)}")
        return report


def total_proposals():
    return SEEDS * BUDGET * len(VARIANTS) + DEMO2_BUDGET + 2 * SEEDS * BUDGET    # 演示 1、2、3（分支检查开、关）


def reporter(clock, label, budget):
    """clock 是 None（测试、基准直接调用演示函数时）就不报进度。"""
    return None if clock is None else clock.reporter(label, budget)


def runs(name, kw, train, table, clock, check=True):
    """一个变体的 SEEDS 次 evolve，一次交出一个 (种子, 评估器, 输出)：用完就扔，BUDGET 再大内存也不涨。"""
    for seed in range(SEEDS):
        ev = Evaluator(train, table, check_all_branches=check)
        label = f"{name}，分支检查{'开' if check else '关'}，种子 {seed + 1}/{SEEDS}"
        yield seed, ev, evolve(ev, BUDGET, seed=seed, report=reporter(clock, label, BUDGET), **kw)


# —— 演示 1 的数和观察。观察只读表里印出来的数（三位小数），每一句都由这些数决定 ——

def printed(x):
    return float(f"{x:.3f}")


class Ablation:
    """演示 1 的表里印出来的数：at[变体][时刻] 是中位数，lo、hi 是最后一个时刻的最小、最大，runs 是跑内核次数。"""

    def __init__(self, marks, seeds):
        self.marks, self.seeds = tuple(marks), seeds
        self.at, self.lo, self.hi, self.runs = {}, {}, {}, {}

    def add(self, name, scores, runs):
        """scores[种子][时刻]：这个变体每个种子在各时刻的分数。"""
        scores = np.array(scores)
        self.at[name] = {m: printed(np.median(scores[:, k])) for k, m in enumerate(self.marks)}
        self.lo[name], self.hi[name] = printed(scores[:, -1].min()), printed(scores[:, -1].max())
        self.runs[name] = int(np.median(runs))

    def last(self, name):
        return self.at[name][self.marks[-1]]

    def lowest(self):
        return min(self.at, key=self.last)                       # 并列时取表里靠前的那一行

    def spread(self, mark):
        values = [row[mark] for row in self.at.values()]
        return max(values) - min(values)

    def versus_full(self, x):
        """x 和完整方法比：低于它最差的种子、在它的最小–最大以内、高于它最好的种子。1 个种子时就是和那一个数比。"""
        lo, hi = self.lo["full"], self.hi["full"]
        if self.seeds == 1:
            return "低于" if x < lo else "高于" if x > hi else "等于", f"完整方法（{lo:.3f}）"
        if x < lo:
            return "低于", f"完整方法最差的种子（{lo:.3f}）"
        if x > hi:
            return "高于", f"完整方法最好的种子（{hi:.3f}）"
        return "在", f"完整方法种子之间的波动以内（{lo:.3f}–{hi:.3f}）"


def compared(a, x):
    verb, what = a.versus_full(x)
    return verb + what


ONE_SEED = "只有 1 个种子，看不出种子之间的波动"


def obs_no_evolution(a):
    """"掉得最多"：印出来的每一行里，最后一个时刻的中位数最低（学生自己加的变体也算）。"""
    if "no_evolution" not in a.at:
        return None
    x, m, lowest = a.last("no_evolution"), a.marks[-1], a.lowest()
    head = "去掉\"进化\"（每次都从初始程序出发）"
    why = "一次修改只能走一小步，好程序要靠在好程序上继续改才能积累出来"
    if lowest == "no_evolution":
        return (f"{head}掉得最多：{m} 个程序后只有 {x:.3f}，完整方法 {a.last('full'):.3f}。{why}——"
                "AlphaEvolve 的消融里 \"No evolution\" 同样是最差的之一。")
    return (f"{head}：{m} 个程序后 {x:.3f}，{compared(a, x)}；掉得最多的是 {lowest}（{a.last(lowest):.3f}）。"
            + (f"{why}。" if a.versus_full(x)[0] == "低于" else ""))


def obs_small_llm(a):
    """"明显变差"：低于完整方法最差的种子，而且不止 1 个种子。"""
    if "small_llm" not in a.at:
        return None
    x = a.last("small_llm")
    head = f"去掉\"内核常识\"（small_llm，只会单字段小改动）：{x:.3f}"
    if a.seeds > 1 and a.versus_full(x)[0] == "低于":
        return (f"{head}。很多好配置要几个字段一起改才到得了（04 脚本演示 2），小改动走不过去。"
                "AlphaEvolve 的 \"Small base LLM only\" 消融也明显变差，论文的解释是更强的模型能提出更好的修改。")
    why = ONE_SEED if a.seeds == 1 else "这个设置下还看不出内核常识的作用"
    return f"{head}，{compared(a, x)}——{why}。"


FEEDBACK_USES = (("fb_roofline", "按\"离 roofline 还差多少\"加权挑"), ("no_feedback", "不看反馈随便挑"),
                 ("fb_worst3", "只盯最差的 3 个"))


def obs_feedback(a):
    """"影响很大"：每一种别的用法都低于完整方法最差的种子（超出种子之间的波动）。"""
    others = [(name, what) for name, what in FEEDBACK_USES if name in a.at]
    if not others:
        return None
    values = f"按\"离见过的最快还差多少\"加权挑形状（full）{a.last('full'):.3f}，" \
             + "，".join(f"{what} {a.last(name):.3f}" for name, what in others)
    if "fb_worst3" in a.at and "no_feedback" in a.at and a.last("fb_worst3") < a.last("no_feedback"):
        values += "——只盯最差的 3 个比随便挑还差"
    not_below = [name for name, _ in others if a.versus_full(a.last(name))[0] != "低于"]
    if a.seeds > 1 and not not_below:
        return f"反馈怎么用影响很大：{values}。演示 2 看它们各自指向哪些形状。"
    why = ONE_SEED + "，说不上影响大不大" if a.seeds == 1 else \
        f"{'、'.join(not_below)} 没有低于完整方法最差的种子（{a.lo['full']:.3f}），这个设置下看不出反馈怎么用影响很大"
    return f"反馈怎么用：{values}。{why}。演示 2 看它们各自指向哪些形状。"


PARTS = (("借规则", "no_borrow"), ("岛屿数", "one_island"), ("级联", "no_cascade"))


def cascade_saving(a):
    """级联省下多少评估：跑内核次数那一列，full 比 no_cascade 少多少。"""
    if "no_cascade" not in a.runs:
        return ""
    saved = 1 - a.runs["full"] / a.runs["no_cascade"]
    if saved <= 0:
        return "级联这次没有省下评估（看\"跑内核次数\"那一列）。"
    if saved <= 1 / 3:
        return "级联只省下一小部分评估（这个问题上坏程序不多）。"
    return f"级联省下了 {saved:.0%} 的评估（看\"跑内核次数\"那一列）。"


def obs_small_parts(a):
    """"在波动以内"：中位数在完整方法的最小–最大以内；"略高"：中位数高于完整方法的中位数。"""
    parts = [(what, name) for what, name in PARTS if name in a.at]
    if not parts:
        return None
    f = a.last("full")
    head = "、".join(f"{what}（{name} {a.last(name):.3f}）" for what, name in parts) + f"和完整方法（{f:.3f}）"
    if a.seeds == 1:
        return f"{head}：{ONE_SEED}，这几个差别说明不了谁更好。{cascade_saving(a)}一个小实验得不出\"它们没用\"的结论。"
    outside = [name for _, name in parts if a.versus_full(a.last(name))[0] != "在"]
    if outside:
        inside = [name for _, name in parts if name not in outside]
        said = [f"{'、'.join(inside)} {compared(a, a.last(inside[0]))}"] if inside else []
        said += [f"{name} {compared(a, a.last(name))}" for name in outside]
        return f"{head}：{'，'.join(said)}；看\"最小–最大\"那一列。{cascade_saving(a)}"
    higher = "，有的变体的中位数还略高" if any(a.last(name) > f for _, name in parts) else ""
    return (f"{head}的差别在种子之间的波动以内（看\"最小–最大\"那一列）{higher}。{cascade_saving(a)}"
            "这些部件的价值在更大、更难、评估更贵的问题上（多样性、并行、省钱）才显出来——"
            f"一个小实验得不出\"它们没用\"的结论；反过来，{a.seeds} 个种子的中位数差 0.02 也不能说明谁更好。")


def obs_budget(a):
    """"早期差别小、后期差别大"：表里有更早和更晚的时刻，而且最高和最低之差变大了。"""
    if len(a.at) < 2:
        return None
    late = a.marks[-1]
    advice = "比较搜索方法一定要看\"随预算变化的曲线\"，不能只看一个点。"
    if len(a.marks) == 1:
        return f"表里只有一个时刻（{late} 个程序后），看不出差别怎样随预算变化；{advice}"
    early = EARLY if EARLY in a.marks[:-1] else a.marks[0]
    quoted = "、".join(f"{name} {a.at[name][early]:.3f}" for name in ("full", "no_feedback", "small_llm", "no_evolution")
                      if name in a.at)
    if a.spread(late) > a.spread(early):
        return f"{early} 个程序时的分数：{quoted}——早期差别小、后期差别大；{advice}"
    return (f"{early} 个程序时的分数：{quoted}——最高和最低差 {a.spread(early):.3f}，到 {late} 个程序后差 "
            f"{a.spread(late):.3f}，差别没有随预算变大；{advice}")


def demo1_observations(a):
    """删掉的变体，谈它的观察就不说；一条都说不了时说为什么。"""
    said = [text for text in (obs_no_evolution(a), obs_small_llm(a), obs_feedback(a), obs_small_parts(a), obs_budget(a))
            if text]
    return said or ["表里只有完整方法（full）一行，没有别的变体可以和它比较。"]


def demo1_ablations(table, train, test, clock=None):
    print_header(f"演示 1：消融——{len(VARIANTS)} 个变体 × {SEEDS} 个种子（中位数），分数 = 训练形状上相对专家的几何平均加速比")
    a = Ablation(MARKS, SEEDS)
    rows = []
    for name, kw in VARIANTS.items():
        scores, tests, bench, rules = [], [], [], []
        for _, ev, out in runs(name, kw, train, table, clock):
            best, _ = out["best"]
            scores.append([out["history"][m - 1] for m in MARKS])
            tests.append(geomean_speedup(best, test, table))
            bench.append(ev.bench_runs)
            rules.append(simplify(best).n_rules())
        a.add(name, scores, bench)
        rows.append([name] + [f"{a.at[name][m]:.3f}" for m in MARKS]
                    + [f"{a.lo[name]:.3f}–{a.hi[name]:.3f}", f"{np.median(tests):.3f}", f"{a.runs[name]:,}",
                       f"{np.median(rules):.0f}"])
    progress("")
    print_table(["变体"] + [f"{m} 个程序后" for m in MARKS]
                + [(f"{MARKS[-1]} 个后", "（最小–", "最大）"), ("测试", "形状"), ("跑内核", "次数"), ("规则数", "（化简后）")],
                rows, groups=[(1, "N 个程序后", [str(m) for m in MARKS])])
    print(f"上限（逐形状最优）：训练 {oracle_speedup(train, table):.3f}，测试 {oracle_speedup(test, table):.3f}")
    print_observations(demo1_observations(a))
    return a


def demo2_feedback(table, train, clock=None):
    print_header("演示 2：反馈怎么用——\"离 roofline 多远\"和\"离见过的最快多远\"指向的形状不一样")
    ev = Evaluator(train, table)
    out = evolve(ev, DEMO2_BUDGET, seed=0, report=reporter(clock, "演示 2", DEMO2_BUDGET))
    progress("")
    bp, _ = out["best"]
    fb = ev.per_shape(bp)
    by_roof = sorted(fb, key=lambda x: x["vs_roofline"])[:5]
    by_best = sorted(fb, key=lambda x: x["vs_best"])[:5]
    rows = []
    for a, b in zip(by_roof, by_best):
        rows.append([a["shape"].label(), f"{a['vs_roofline']:.2f}", f"{a['vs_best']:.2f}",
                     b["shape"].label(), f"{b['vs_roofline']:.2f}", f"{b['vs_best']:.2f}"])
    print_paragraph(f"（{DEMO2_BUDGET} 个程序之后的最好程序；vs_roofline = roofline 下界 / 时间，vs_best = 见过的最快 / 时间，都是越小越\"该改\"）")
    print_table(["按 roofline 最该改的", "vs_roofline", "vs_best", ("按\"见过的最快\"", "最该改的"), "vs_roofline", "vs_best"],
                rows)
    stuck = [x for x in by_roof if x["vs_best"] > 0.95]
    overlap = len({x["shape"] for x in by_roof} & {x["shape"] for x in by_best})

    def mass_on_stuck(key):
        """按 MockLLM 的加权方式（权重 = 1/比值 − 1 + 0.05），提案落在"没有已知改进"的形状（vs_best > 0.95）上的比例。"""
        w = np.array([1.0 / x[key] - 1.0 + 0.05 for x in fb])
        return float(w[[x["vs_best"] > 0.95 for x in fb]].sum() / w.sum())

    n_stuck = sum(1 for x in fb if x["vs_best"] > 0.95)
    m_roof, m_best = mass_on_stuck("vs_roofline"), mass_on_stuck("vs_best")
    print_paragraph(f"训练形状里有 {n_stuck}/{len(fb)} 个\"没有已知改进\"（vs_best > 0.95）。按权重抽形状时，提案落在它们身上的比例："
                    f"按 roofline {m_roof:.0%}，按见过的最快 {m_best:.0%}")
    print_observations([
        f"两种排序的前 5 个有 {overlap} 个相同——差得多的形状，往往两种看法都差。区别在\"已经做到见过的最好\"的那些形状：按 roofline 加权时，"
        f"{m_roof:.0%} 的提案落在它们身上（例如 " + ("、".join(x["shape"].label() for x in stuck) if stuck else "M 很小的 decode 形状")
        + "：离 roofline 远是因为启动开销、补齐、块太少占不满 132 个 SM，换配置也改不了多少）；按见过的最快加权时只有 "
        f"{m_best:.0%}。提案花在\"还不知道怎么改、甚至根本改不动\"的地方，命中率就低。",
        "按\"见过的最快\"排，指向的是**确实有更快的配置、只是当前程序没用上**的形状，而且直接给出了那个配置——这个信息来自评估器已经做过的测量，"
        "不花额外的成本。KernelBench 的迭代优化里，profiler 的输出比单纯的\"对 / 错 + 时间\"更有用，是同一个道理："
        "反馈要**可操作**，而不只是\"离理想有多远\"。",
        "只盯\"最差的 3 个\"会反复改同几个形状、失去多样性；按差距**加权随机**挑，既偏向该改的，也给其他形状机会。"
        "真正的 LLM 读反馈时没有这样一条固定的规则，它怎么用反馈是 AlphaEvolve 能否成功的关键，也是我们的模拟最不像的地方。",
    ])


def obs_latent_enter(off):
    """off：分支检查关时每个种子一行 (进数据库的带隐患程序, 最终数据库里带隐患的, 最好程序带隐患吗)。"""
    entered, stayed, best = sum(r[0] for r in off), sum(r[1] for r in off), sum(r[2] for r in off)
    if not entered:
        return (f"不做分支检查时，这次进数据库的程序里（{len(off)} 个种子合计）没有一个带不能启动的分支；"
                "真有的话，训练形状从来走不到那个分支，分数也看不出来。")
    first = (f"不做分支检查时，进数据库的程序里有 {entered} 个（{len(off)} 个种子合计）至少有一个分支返回不能启动的配置——"
             "训练形状从来没走到那个分支，所以分数看不出来。")
    if not stayed:
        return first + "这次它们都没有留到最终的数据库里。"
    return (first + f"最终的数据库里仍有 {stayed} 个这样的程序，"
            + (f"{best} 个种子的\"最好程序\"本身就带着一个。" if best else "不过没有一个种子的\"最好程序\"带着它们。"))


def obs_latent_crash(stayed, crashed, n_extra):
    """"大多潜伏着"：最终数据库里带隐患的程序，在新形状上出错的不超过一半。"""
    where = f"在 {n_extra} 个新形状上（新的 M、405B 分片的 N、K）"
    moral = "这正是\"测试覆盖不到的分支\"在生产里出事的方式。"
    if not stayed:
        return (f"这次最终的数据库里没有带隐患的程序，{where}也就没有一个出错。隐患要等某个没见过的形状碰巧走进那个分支才出事——"
                + moral)
    if 2 * crashed <= stayed:
        return f"{where}真正出错的有 {crashed} 个：隐患大多潜伏着，直到某个没见过的形状碰巧走进那个分支。" + moral
    return (f"{where}真正出错的有 {crashed} 个，超过最终数据库里带隐患的 {stayed} 个的一半：这次多数隐患一碰到没见过的形状就发作。"
            + moral)


def demo3_branches(table, train, test, clock=None):
    print_header("演示 3：不检查所有分支——数据库里藏着多少\"测试没走到的、不能启动的分支\"")
    extra = [Shape(n, M, N, K) for n, (N, K) in list(LAYERS.items()) + [("405B/8 qkv", (2560, 16384)),
                                                                         ("405B/8 down", (16384, 6656))]
             for M in (2, 8, 32, 96, 192, 384, 768, 1536, 3072, 6144)]
    rows = []
    for check in (True, False):
        for seed, _, out in runs("full", VARIANTS["full"], train, table, clock, check=check):
            progs = [p for pop in out["db"].islands for p, _ in pop]
            latent = sum(1 for p in progs if not static_check_program(render(p))[0])
            crash = sum(1 for p in progs if any(not math.isfinite(table.time(choose(p, s), s)) for s in extra))
            bp, _ = out["best"]
            rows.append(["开" if check else "关", seed, out["n_added"], out["n_added_bad_branch"], len(progs), latent, crash,
                         "是" if not static_check_program(render(bp))[0] else "否"])
    progress("")
    bad = ("其中", "带", "不合法", "分支的")
    print_table([("分支", "检查"), "种子", ("进", "数据库", "的", "程序"), bad, ("最终", "数据库", "里的", "程序"), bad,
                 ("在 ", f"{len(extra)} 个", "新形状上", "出错的"), ("最好的", "程序", "带", "不合法", "分支？")], rows,
                groups=[(2, ("进", "数据库的"), ["程序", bad]), (4, ("最终", "数据库里的"), ["程序", bad])])
    off = [r for r in rows if r[0] == "关"]
    print_observations([
        obs_latent_enter([(r[3], r[5], r[7] == "是") for r in off]),
        obs_latent_crash(sum(r[5] for r in off), sum(r[6] for r in off), len(extra)),
        "对策很便宜：对程序的**每个**分支做静态检查（这里是 static_valid：共享内存、寄存器、warp 的块）。"
        "AlphaEvolve 的 TPU 电路优化要求\"通过严格的验证\"，FlashAttention 的 IR 优化最后由人确认\"对所有输入都正确\"——"
        "评估器测的是样本，部署面对的是全体。",
    ])


if __name__ == "__main__":
    with stops_cleanly():                      # Ctrl-C、… | head：一行说明或安静退出，不打 traceback
        check_settings()
        clock = Clock(total_proposals())
        shapes = all_shapes()
        table = TimeTable()
        for s in shapes:
            table.oracle(s)
        train, test = split_shapes(shapes)
        demo1_ablations(table, train, test, clock)
        demo2_feedback(table, train, clock)
        demo3_branches(table, train, test, clock)
