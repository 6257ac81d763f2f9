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
  full         ：完整的方法（内核常识的定向修改 + 按"离见过的最快还差多少"加权挑形状
                 + 借规则 + 4 个岛 + 级联 + 分支检查）
  fb_roofline  ：定向修改按"离 roofline 还差多少"挑形状
  fb_worst3    ：定向修改只盯着"差得最多的 3 个形状"
  no_feedback  ：定向修改随便挑形状（不看评估结果）
  small_llm    ：没有内核常识，只会单字段的小改动（"Small base LLM only"）
  no_evolution ：每次都从初始程序出发改（"No evolution"）
  no_borrow    ：不从别的程序借规则
  one_island   ：只有 1 个岛
  no_cascade   ：不做级联，每个程序都完整评估

【关于数字】"硬件"是第 13 讲的解析模型（evolve.py 第 3 节）；所有结果确定（固定随机种子），
  每次运行完全相同。
【运行】python3 05_alphaevolve_ablations.py （几秒，看机器：python3 ../tests/benchmark.py 量整个脚本
  用所有核、JOBS=1 只用一个核各要多久；在哪台机器上、哪天量的多少见 tests/README.md）
  加 --plot slides/：文字照常，另外每个演示一张幻灯片、进化出来的启发式一张（slides/demo1.png……；
  --plot talk.png 是 talk_demo1.png……；要装 matplotlib，见 curves.py、slides.py）；
  默认 1920x1080，--size 1600x1200 换成 4:3 的
【依赖】numpy；本目录的 evolve；../lecture01 的 console。
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# 脚本 import 它旁边的 evolve 和 ../lecture01 的 console：拷到别处运行时说一句，不打 traceback
if not os.path.exists(os.path.join(HERE, "evolve.py")):
    sys.exit(f"这个脚本要在讲义的 lecture14/ 里运行（它 import 旁边的 evolve.py 和\n"
             f"../lecture01/console.py），可它在 {HERE}：在 lecture14/ 里拷一份、换个名字再运行。")
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lecture01"))
from console import (Progress, print_header, print_message, print_observations,  # noqa: E402
                     print_paragraph, print_table, stops_cleanly)

# 载入 numpy 时按 Ctrl-C 也只留一行"已中断。"；没装 numpy 时只说一句怎样装（needs_numpy.py）
with stops_cleanly():
    import needs_numpy  # noqa: F401
    import numpy as np
    from evolve import (Evaluator, MockLLM, Shape, LAYERS, TimeTable,  # noqa: E402
                        all_branches_valid, all_shapes, check_options, evolve, oracle_speedup,
                        pick_weights, split_shapes)
    # 方法的扩展：学生在 VARIANTS 里可以写 Ensemble(...)
    from ensemble import Ensemble  # noqa: E402,F401
    from checks import sentence, settings_excepthook, settings_problem  # noqa: E402
    from memo import MemoEvaluator  # noqa: E402
    from runs import Job, Runs, workers_or_exit  # noqa: E402
    import curves  # noqa: E402
    import observations as obs  # noqa: E402
    from ablation import LECTURE_FULL, Ablation, Row, described, printed  # noqa: E402

# —— 学生改这一块 ——
# 写错一个选项或名字（MockLLM(feedbak=...)、MockLLm、false）只说一句话和第几行，不打 traceback；
# 少了逗号、括号这样的语法错误，Python 在跑任何一行之前就停下，报的是它自己的英文 SyntaxError
# （也指出第几行）
sys.excepthook = settings_excepthook(__file__)
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
# 学生改的那一块到此为止：再往下出的错照常打 traceback
sys.excepthook = sys.__excepthook__

# 演示 2 看 300 个程序之后的最好程序（不跟着 BUDGET 变）
DEMO2_BUDGET = 300
# --plot 存的幻灯片：每个演示一张，加上进化出来的启发式（slides.py）
SLIDES = ("demo1", "demo2", "demo3", "heuristic")
# 演示 2 说"没有已知改进"的形状：见过的最快比它快不到 5%（vs_best > 0.95）
NO_KNOWN_IMPROVEMENT = 0.95


def reporter(progress, doing, budget):
    """给 evolve(report=...) 的函数：每个提案之后进度行（console.Progress）前进一步。"""
    def report(step, outcome):
        progress.advance(1, lambda: f"{doing}：第 {step + 1:,}/{budget:,} 个提案")
    return report


def variant_jobs(name, kw, check=True):
    """一个变体的 SEEDS 次 evolve（runs.Job：变体名、选项、种子、预算、分支检查开不开）。"""
    return [Job(name, kw, seed, BUDGET, check) for seed in range(SEEDS)]


def all_jobs():
    """脚本要跑的 evolve：演示 1 每个变体，演示 3 的完整方法 {}（分支检查开、关），同一个
    Job.key() 只留一个。默认设置下 full 就是 {}，演示 3 开的那几次就是演示 1 的，不再跑。"""
    demo1 = [job for name, kw in VARIANTS.items() for job in variant_jobs(name, kw)]
    demo3 = variant_jobs("full", {}) + variant_jobs("full", {}, check=False)
    unique = {}
    for job in demo1 + demo3:
        unique.setdefault(job.key(), job)
    return list(unique.values())


def run_variant(kw, train, test, table, check=True, runs=None, name="full"):
    """跑 SEEDS 次，返回每次的 runs.Finished：evolve 的输出（.out）、
    最好程序在测试形状上的分数（.test）、跑内核次数（.bench_runs）、化简后的规则数（.n_rules）。
    runs 是 __main__ 里的进程池（在所有核上同时跑，结果和一个一个跑完全一样）；
    None 就在这里一个一个跑。"""
    if runs is None:
        with Runs(train, test, table) as here:
            return here.results(variant_jobs(name, kw, check))
    return runs.results(variant_jobs(name, kw, check))


def demo1_ablations(table, train, test, runs=None):
    print_header(f"演示 1：消融——{len(VARIANTS)} 个变体 × {SEEDS} 个种子（中位数），"
                 "分数 = 训练形状上相对专家的几何平均加速比")
    res = {}
    rows = []
    printed_rows = {}
    for name, kw in VARIANTS.items():
        outs = run_variant(kw, train, test, table, runs=runs, name=name)
        res[name] = outs
        hist = np.array([o.out.history for o in outs])
        at = {m: printed(np.median(hist[:, m - 1])) for m in MARKS}
        last = hist[:, MARKS[-1] - 1]
        bench = int(np.median([o.bench_runs for o in outs]))
        row = Row(at, printed(last.min()), printed(last.max()), bench)
        printed_rows[name] = row
        cells = [f"{at[m]:.3f}" for m in MARKS]
        cells.append(f"{row.lo:.3f}–{row.hi:.3f}")
        rows.append([name] + cells + [f"{np.median([o.test for o in outs]):.3f}", f"{bench:,}",
                                      f"{np.median([o.n_rules for o in outs]):.0f}"])
    if runs is not None:
        # 结果都到了，要打表了：这时才擦掉进度行
        runs.clear_progress()
    # 后三列来自整个 BUDGET：分数列停得比它早时，表头写明它们是哪一刻的
    at_budget = "" if MARKS[-1] == BUDGET else f"（{BUDGET} 个后）"
    # 表头照讲义写，太宽时 console 像中文正文一样折行。"跑内核次数"写成元组：当字符串时 80 列
    # 折成"跑内 / 核次数"，把"内核"拆开了
    headers = (["变体"] + [f"{m} 个程序后" for m in MARKS]
               + [f"{MARKS[-1]} 个后（最小–最大）", "测试形状" + at_budget,
                  ("跑内核", "次数" + at_budget), "规则数（化简后）" + at_budget])
    # 表太宽时，几列共用的"N 个程序后"提到它们上面只写一次，每列只留自己的数
    groups = {"N 个程序后": {f"{m} 个程序后": str(m) for m in MARKS}}
    print_table(headers, rows, groups=groups)
    print(f"上限（逐形状最优）：训练 {oracle_speedup(train, table):.3f}，"
          f"测试 {oracle_speedup(test, table):.3f}")
    # 每个变体是什么：观察按它们判断讲义的话对这一行成立不成立、学生改没改 full
    ablation = Ablation(tuple(MARKS), SEEDS, printed_rows, described(VARIANTS))
    print_observations(obs.demo1(ablation))
    return res


def demo2_feedback(table, train, progress=None):
    """progress 是整个脚本的进度行；单独调用这个演示时（测试）用一个只管这几个提案的。"""
    print_header("演示 2：反馈怎么用——\"离 roofline 多远\"和\"离见过的最快多远\"指向的形状不一样")
    # 和演示 1、3 的每次 evolve 一样用记性好的评估器（memo.py）：结果和 Evaluator 的一模一样，
    # 这 300 个提案快 4 倍
    ev = MemoEvaluator(train, table)
    progress = progress or Progress(DEMO2_BUDGET)
    out = evolve(ev, DEMO2_BUDGET, seed=0, report=reporter(progress, "演示 2", DEMO2_BUDGET))
    progress.clear()
    bp, _ = out["best"]
    fb = ev.per_shape(bp)
    by_roof = sorted(fb, key=lambda x: x["vs_roofline"])[:5]
    by_best = sorted(fb, key=lambda x: x["vs_best"])[:5]
    rows = []
    for a, b in zip(by_roof, by_best):
        rows.append([a["shape"].label(), f"{a['vs_roofline']:.2f}", f"{a['vs_best']:.2f}",
                     b["shape"].label(), f"{b['vs_roofline']:.2f}", f"{b['vs_best']:.2f}"])
    print_paragraph(f"（{DEMO2_BUDGET} 个程序之后的最好程序；vs_roofline = roofline 下界 / 时间，"
                    "vs_best = 见过的最快 / 时间，都是越小越\"该改\"）")
    print_table(["按 roofline 最该改的", "vs_roofline", "vs_best", "按\"见过的最快\"最该改的",
                 "vs_roofline", "vs_best"], rows)
    # 学生改了演示 1 的 full：这张表跑的仍是讲义的，说一句（默认设置下没有这句）
    say_lecture_full()
    no_known = [x["vs_best"] > NO_KNOWN_IMPROVEMENT for x in fb]
    stuck = [x for x in by_roof if x["vs_best"] > NO_KNOWN_IMPROVEMENT]
    overlap = len({x["shape"] for x in by_roof} & {x["shape"] for x in by_best})

    def mass_on_stuck(key):
        """按 MockLLM 的加权方式（evolve.pick_weights），提案落在"没有已知改进"的形状上的比例。"""
        w = pick_weights(np.array([x[key] for x in fb]))
        return float(w[no_known].sum() / w.sum())

    n_stuck = sum(no_known)
    m_roof, m_best = mass_on_stuck("vs_roofline"), mass_on_stuck("vs_best")
    print_paragraph(f"训练形状里有 {n_stuck}/{len(fb)} 个\"没有已知改进\""
                    f"（vs_best > {NO_KNOWN_IMPROVEMENT}）。"
                    "按权重抽形状时，提案落在它们身上的比例："
                    f"按 roofline {m_roof:.0%}，按见过的最快 {m_best:.0%}")
    examples = "、".join(x["shape"].label() for x in stuck) if stuck else "M 很小的 decode 形状"
    print_observations([
        f"两种排序的前 5 个有 {overlap} 个相同——差得多的形状，往往两种看法都差。"
        f"区别在\"已经做到见过的最好\"的那些形状：按 roofline 加权时，"
        f"{m_roof:.0%} 的提案落在它们身上（例如 {examples}："
        "离 roofline 远是因为启动开销、补齐、块太少占不满 132 个 SM，换配置也改不了多少）；"
        f"按见过的最快加权时只有 {m_best:.0%}。"
        "提案花在\"还不知道怎么改、甚至根本改不动\"的地方，命中率就低。",
        "按\"见过的最快\"排，指向的是**确实有更快的配置、只是当前程序没用上**的形状，"
        "而且直接给出了那个配置——这个信息来自评估器已经做过的测量，不花额外的成本。"
        "KernelBench 的迭代优化里，profiler 的输出比单纯的\"对 / 错 + 时间\"更有用，"
        "是同一个道理：反馈要**可操作**，而不只是\"离理想有多远\"。",
        "只盯\"最差的 3 个\"会反复改同几个形状、失去多样性；"
        "按差距**加权随机**挑，既偏向该改的，也给其他形状机会。"
        "真正的 LLM 读反馈时没有这样一条固定的规则，"
        "它怎么用反馈是 AlphaEvolve 能否成功的关键，也是我们的模拟最不像的地方。",
    ])
    # 幻灯片（slides.py）画的就是这些：表和句子用的同一组数
    return {"per_shape": fb, "threshold": NO_KNOWN_IMPROVEMENT, "budget": DEMO2_BUDGET,
            "on_stuck": {"roofline": m_roof, "best": m_best}}


def demo3_branches(table, train, test, runs=None):
    print_header("演示 3：不检查所有分支——数据库里藏着多少\"测试没走到的、不能启动的分支\"")
    extra = new_shapes()
    # 和种子脚本一样看讲义的完整方法 {}：学生改了 VARIANTS["full"]，这里也不跟着变
    runs_by_check = {check: run_variant({}, train, test, table, check=check, runs=runs)
                     for check in (True, False)}
    # all_branches_valid 查程序的每个分支都 static_valid（和形状无关）；新形状上的评估器不查分支，
    # judge 以 "crash" 拒掉就是某个新形状选到了不能启动的配置
    on_extra = Evaluator(extra, table, check_all_branches=False)
    rows = []
    off = []
    for check, outs in runs_by_check.items():
        for seed, o in enumerate(outs):
            n_final, counted = latent_bugs(o.out, on_extra, table.hw)
            rows.append(["开" if check else "关", seed, o.out["n_added"], counted.entered,
                         n_final, counted.stayed, counted.crashed,
                         "是" if counted.best_bad else "否"])
            if not check:
                off.append(counted)
    if runs is not None:
        runs.clear_progress()
    # 这张表的表头写成元组（词在哪里由我们指出）：当成中文字符串时只能在两个汉字之间断，
    # 80 列里"分支检查""最好的程序带不合法分支？"会各占一整行，把别的列挤成四五行
    bad = ("其中", "带", "不合法", "分支的")
    into = ("进", "数据库", "的", "程序")
    final = ("最终", "数据库", "里的", "程序")
    headers = [("分支", "检查"), "种子", into, bad, final, bad,
               ("在 ", f"{len(extra)} 个", "新形状上", "出错的"),
               ("最好的", "程序", "带", "不合法", "分支？")]
    # 两组列共用的词在表太宽时提到上面只写一次
    groups = {("进", "数据库的"): {into: "程序", bad: bad},
              ("最终", "数据库里的"): {final: "程序", bad: bad}}
    print_table(headers, rows, groups=groups)
    say_lecture_full()
    print_observations([
        obs.latent_enter_sentence(off),
        obs.latent_crash_sentence(off, len(extra)),
        "对策很便宜：对程序的**每个**分支做静态检查"
        "（这里是 static_valid：共享内存、寄存器、warp 的块）。"
        "AlphaEvolve 的 TPU 电路优化要求\"通过严格的验证\"，"
        "FlashAttention 的 IR 优化最后由人确认\"对所有输入都正确\"——"
        "评估器测的是样本，部署面对的是全体。",
    ])
    # 幻灯片（slides.py）画的就是这些：表里的每个种子（分支检查关）、它们的程序、新形状
    return {"extra": extra, "unchecked": off, "runs": runs_by_check[False],
            "edited_full": edited_full()}


def new_shapes():
    """演示 3 的 100 个新形状：讲义的 8 个投影加上 405B 分片的 2 个（新的 N、K），
    各配 10 个训练里没有的 M。"""
    layers = list(LAYERS.items()) + [("405B/8 qkv", (2560, 16384)), ("405B/8 down", (16384, 6656))]
    new_ms = (2, 8, 32, 96, 192, 384, 768, 1536, 3072, 6144)
    return [Shape(n, M, N, K) for n, (N, K) in layers for M in new_ms]


def latent_bugs(out, on_extra, hw):
    """一次 evolve 的结果里带隐患的程序：(最终数据库里的程序数, observations.Unchecked：
    进数据库的带坏分支的、留到最后的、其中在新形状上出错的、最好程序带不带)。"""
    progs = [p for pop in out["db"].islands for p, _ in pop]
    stayed = sum(1 for p in progs if not all_branches_valid(p, hw))
    crashed = sum(1 for p in progs if on_extra.judge(p).rejection == "crash")
    best_bad = not all_branches_valid(out["best"][0], hw)
    return len(progs), obs.Unchecked(out["n_added_bad_branch"], stayed, crashed, best_bad)


def say_lecture_full():
    """演示 2、3 和种子脚本一样跑讲义的完整方法 {}：学生改了演示 1 的 full 时，表下说一句。"""
    edited = edited_full()
    if edited:
        print_paragraph(f"这张表跑的是讲义的完整方法 {{}}，不是演示 1 里你改过的 full"
                        f"（它比讲义的改了 {'、'.join(edited.written())}）。")


def edited_full():
    """学生的 full 比讲义的改了什么（variants.Changes，没改是空的；MockLLM() 这样的等价写法
    不算改）。"""
    return check_options(**VARIANTS["full"]).describe().against(LECTURE_FULL)


if __name__ == "__main__":
    # Ctrl-C、… | head：一行说明或安静退出，不打 traceback
    with stops_cleanly():
        # --plot FILE [--size 宽x高]：文字照常，另外存几张幻灯片；没装 matplotlib 只说一句怎么装
        plot_to = curves.plot_request(sys.argv[1:], SLIDES)
        # 学生会改上面的常数：开跑之前先检查，错了就用一句话说清楚是哪个、规则是什么
        slip = settings_problem(SEEDS, BUDGET, MARKS, VARIANTS, check_options, __file__)
        if slip:
            sys.exit(sentence(f"设置有误：{slip}"))
        workers = workers_or_exit()
        missing = plot_to and curves.matplotlib_missing()
        if missing:
            print_message(missing, file=sys.stderr)
            plot_to = None
        jobs = all_jobs()
        # 整个脚本要提多少个提案，开跑前就知道：这些 evolve 加上演示 2
        progress = Progress(len(jobs) * BUDGET + DEMO2_BUDGET)
        shapes = all_shapes()
        table = TimeTable()
        for s in shapes:
            table.oracle(s)
        train, test = split_shapes(shapes)
        # 所有的 evolve 一开始就交给进程池（JOBS=1 时要到才跑），演示按原来的顺序等它们的结果
        # --plot：每张幻灯片在它的演示之后就画（进程池这时还在跑演示 3，两个核都用上），
        # 画的是表和句子用过的那些对象，不另算一遍
        with Runs(train, test, table, workers, progress) as runs:
            runs.submit(jobs)
            res = demo1_ablations(table, train, test, runs)
            if plot_to:
                import slides
                from slide_layout import save
                files, size = plot_to
                slides.save_curves(files["demo1"], size, res, VARIANTS, train, table)
                save(files["heuristic"], size,
                     slides.heuristic(res["full"], train, test, table, edited_full()))
            weighed = demo2_feedback(table, train, progress)
            if plot_to:
                save(files["demo2"], size, slides.demo2(edited_full=edited_full(), **weighed))
            latent = demo3_branches(table, train, test, runs)
        if plot_to:
            save(files["demo3"], size, slides.demo3(table.hw, train, **latent))
            print_message(slides.closing(files, VARIANTS), file=sys.stderr)
