"""
CS349E · 第 14 讲 · fidelity.py —— 计时模型和真实 GPU 对得上吗？

evolve.py 在一个解析计时模型上进化分块启发式；进化出来的东西只有在模型靠谱时才有意义。
这里拿 data/ 里在一块真实 H200 上测的时间（见 data/README.md）对照同一个模型
（换成 H200 的显存和 L2），看五件事：
  1. 共享内存：Triton 拒绝的配置，模型也拒绝，而且算出的字节数一样
  2. 排序：同一个形状上，模型给各配置排的快慢顺序和实测一致吗（Spearman ρ）
  3. 挑选：照模型挑最快的配置，实测比真正最快的慢多少
  4. cuBLAS：模型在全部 2,880 个配置里的最优，和 cuBLAS 差多少
  5. 讲义的结论在硬件上成立吗：在模型上进化出来的程序，实测比专家程序快多少
2、3 用 triton.csv（一格配置）和 triton_wide.csv（整个搜索空间里抽的样）两份测量的全部形状。
最后打印模型本身（H100，讲义的 96 个形状）给出的几个数。

运行：python3 lecture14/fidelity.py
"""
import csv
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lecture01"))

from console import print_header, print_paragraph, print_table, stops_cleanly  # noqa: E402

# 载入 numpy 时按 Ctrl-C 也只留一行"已中断。"；没装 numpy 时只说一句怎样装（needs_numpy.py）
with stops_cleanly():
    import needs_numpy  # noqa: F401
    import numpy as np
    from evolve import (CONFIGS, DECODE_M, EXPERT, H100, H200, Config, Shape,  # noqa: E402
                        TimeTable, all_shapes, choose, config_fields, evolve, geomean,
                        invalid_reasons, roofline, shared_memory, split_shapes)
    from checks import OneSentenceParser  # noqa: E402
    # 五个种子各进化一次：记性好的评估器（memo.py）和 Evaluator 打的分一样，快三倍
    from memo import MemoEvaluator  # noqa: E402

DATA = os.path.join(HERE, "data")
# 模型最优在 cuBLAS 的 1/1.5 到 1.5 倍之间算“对得上”
CUBLAS_TOLERANCE = 1.5
# M ≥ 4096 算大形状
LARGE_M = 4096
# Triton 实测扫过的配置格（data/README.md）
TRITON_GRID = {"BM": (16, 64, 128, 256), "BN": (32, 64, 128, 256), "BK": (64, 128),
               "warps": (4, 8), "stages": (3, 4), "split_k": (1, 4)}
_REQUIRED = re.compile(r"Required: (\d+)")
# 同一个内核、同一块 H200：一格配置 + 整个搜索空间的抽样
MEASURED = ("triton.csv", "triton_wide.csv")
# 第 5 节：和 05 脚本的演示 1 一样，full 跑 5 个种子、每个 1000 个提案
EVOLVE_SEEDS = range(5)
EVOLVE_BUDGET = 1000


# ----------------------------------------------------------------------------
# 读数据
# ----------------------------------------------------------------------------

def load_triton(name="triton.csv"):
    """data/ 里的一个 Triton 测量文件 → 每行一个 dict：shape、cfg、ok、us（秒；被拒的是 None）、
    required（Triton 报的字节数）、file（来自哪个文件）。"""
    rows = []
    with open(os.path.join(DATA, name), newline="") as f:
        for r in csv.DictReader(f):
            shape = Shape(r["layer"], int(r["M"]), int(r["N"]), int(r["K"]))
            cfg = Config(*(int(r[k]) for k in ("BM", "BN", "BK", "warps", "stages", "split_k")))
            ok = r["status"] == "ok"
            m = _REQUIRED.search(r["status"])
            rows.append({"shape": shape, "cfg": cfg, "ok": ok, "status": r["status"],
                         "us": float(r["us"]) * 1e-6 if ok else None,
                         "required": int(m.group(1)) if m else None, "file": name})
    return rows


def load_measured():
    """两份 Triton 测量合在一起（两份的形状不重叠：triton_wide.csv 测的是另外两层）。"""
    return [r for name in MEASURED for r in load_triton(name)]


def load_cublas(path=os.path.join(DATA, "cublas.csv")):
    """cublas.csv → [(set, Shape, 秒), ...]，共 196 行。"""
    with open(path, newline="") as f:
        return [(r["set"], Shape(r["layer"], int(r["M"]), int(r["N"]), int(r["K"])),
                 float(r["us"]) * 1e-6) for r in csv.DictReader(f)]


def by_shape(rows):
    """按形状分组，保持文件里的顺序。"""
    groups = {}
    for r in rows:
        groups.setdefault(r["shape"], []).append(r)
    return groups


# ----------------------------------------------------------------------------
# 统计
# ----------------------------------------------------------------------------

def ranks(x):
    """从 1 开始的名次；并列的取平均名次。"""
    x = np.asarray(x, dtype=np.float64)
    order = np.argsort(x, kind="stable")
    r = np.empty(len(x))
    r[order] = np.arange(1, len(x) + 1)
    values, inverse = np.unique(x, return_inverse=True)
    sums = np.bincount(inverse, weights=r)
    counts = np.bincount(inverse)
    return (sums / counts)[inverse]


def spearman(a, b):
    """Spearman ρ = 两组名次的 Pearson 相关。"""
    ra, rb = ranks(a), ranks(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    return float((ra * rb).sum() / np.sqrt((ra * ra).sum() * (rb * rb).sum()))


# ----------------------------------------------------------------------------
# 四个对照（测试里 import 这几个函数，逻辑只有一份）
# ----------------------------------------------------------------------------

def smem_refusals(rows, hw=H200):
    """Triton 因共享内存拒绝的每个 (配置, 形状)：模型是否也以共享内存为由拒绝、字节数是否一致。
    返回 (对上的个数, 被拒总数, 对不上的行)。"""
    refused = [r for r in rows if not r["ok"]]
    bad = []
    for r in refused:
        # 空 = 模型认为能启动
        reasons = invalid_reasons(r["cfg"], hw)
        # 模型算的共享内存和 Triton 拒绝时报的 Required 是同一个数
        same_bytes = shared_memory(config_fields(r["cfg"])) == r["required"]
        if not any(s.startswith("共享内存") for s in reasons) or not same_bytes:
            bad.append(r)
    return len(refused) - len(bad), len(refused), bad


def _both_accept(table, group):
    """一个形状上两边都能跑的配置：(模型时间, 实测时间)。"""
    model = np.array([table.time(r["cfg"], r["shape"]) for r in group if r["ok"]])
    real = np.array([r["us"] for r in group if r["ok"]])
    keep = np.isfinite(model)
    return model[keep], real[keep]


def ranking(table, rows):
    """每个实测形状：模型时间和实测时间在两边都接受的配置上的 Spearman ρ。返回 {Shape: ρ}。"""
    return {shape: spearman(*_both_accept(table, group)) for shape, group in by_shape(rows).items()}


def pick_regret(model, real):
    """照模型挑配置（模型时间最短的那个），实测比实测最快慢多少：实测时间 ÷ 实测最快。
    模型给几个配置一样短的时间时（NVIDIA 的模型不看 warp 数和流水级数，常常这样；
    nvidia_heuristics.py）它说不出挑哪个：取这几个的实测时间的平均，就是在它们里随便挑一个时
    平均慢多少。"""
    model, real = np.asarray(model), np.asarray(real)
    tied = model == model.min()
    return float(real[tied].mean() / real.min())


def picking(table, rows):
    """每个实测形状：模型挑的配置（模型时间最短）的实测时间 ÷ 实测最快。返回 {Shape: 比值}。"""
    return {shape: pick_regret(*_both_accept(table, group))
            for shape, group in by_shape(rows).items()}


def cublas_ratios(table, cublas):
    """每个 cuBLAS 形状：模型在全部 CONFIGS 上的最优时间 ÷ cuBLAS 时间。
    返回 [(set, Shape, 比值), ...]。"""
    return [(group, shape, table.oracle(shape)[1] / t) for group, shape, t in cublas]


def within(ratios, tol=CUBLAS_TOLERANCE):
    """比值落在 [1/tol, tol] 里的比例。"""
    ratios = np.asarray(ratios)
    return float(np.mean((ratios >= 1 / tol) & (ratios <= tol)))


def measured_times(rows):
    """(形状, 配置) → 实测时间（秒），只含跑成功的。"""
    return {(r["shape"], r["cfg"]): r["us"] for r in rows if r["ok"]}


def _geomean_or_nan(ratios):
    """几个比值的几何平均；一个都没有（没有对照得上的形状）是 nan。"""
    return geomean(ratios) if ratios else float("nan")


def evolved_vs_expert(rows, seeds=EVOLVE_SEEDS, budget=EVOLVE_BUDGET):
    """讲义的结论拿到硬件上：在 H100 模型、讲义的训练形状上进化 full（05 脚本演示 1 的设置），
    再看每个实测形状：专家程序和进化出的程序选的配置都实测过时，取实测时间之比。
    返回每个种子一个 dict：covered（对照了几个形状）、measured（实测加速比的几何平均）、
    model（同样这些形状上 H200 模型预测的加速比）、pairs（[(形状, 专家的配置, 进化的配置)]）。"""
    times = measured_times(rows)
    shapes = list(by_shape(rows))
    train, _ = split_shapes(all_shapes())
    h100, h200 = TimeTable(H100), TimeTable(H200)
    out = []
    for seed in seeds:
        best, _ = evolve(MemoEvaluator(train, h100), budget, seed=seed)["best"]
        pairs = [(s, choose(EXPERT, s), choose(best, s)) for s in shapes]
        pairs = [(s, a, b) for s, a, b in pairs if (s, a) in times and (s, b) in times]
        measured = [times[(s, a)] / times[(s, b)] for s, a, b in pairs]
        model = [h200.time(a, s) / h200.time(b, s) for s, a, b in pairs]
        out.append({"seed": seed, "covered": len(pairs), "pairs": pairs,
                    "measured": _geomean_or_nan(measured), "model": _geomean_or_nan(model)})
    return out


# ----------------------------------------------------------------------------
# 模型本身给出的数（H100，讲义的 96 个形状）
# ----------------------------------------------------------------------------

def triton_grid_mask():
    """CONFIGS 里落在 Triton 实测配置格里的那些。"""
    return np.array([all(getattr(c, f) in v for f, v in TRITON_GRID.items()) for c in CONFIGS])


def roofline_fraction(table, shapes):
    """每个形状：屋顶线时间 ÷ 模型最优时间（1 = 贴着屋顶线）。"""
    best = table.matrix(shapes).min(axis=1)
    return np.array([roofline(s, table.hw) for s in shapes]) / best


def median_over_best(table, shapes, mask=None):
    """每个形状：能启动的配置（可再用 mask 限定）里时间的中位数 ÷ 最优。"""
    T = table.matrix(shapes)
    if mask is not None:
        T = T[:, mask]
    out = []
    for row in T:
        row = row[np.isfinite(row)]
        out.append(np.median(row) / row.min())
    return np.array(out)


# ----------------------------------------------------------------------------

def _range(x, fmt="{:.2f}"):
    return f"{fmt.format(np.min(x))}–{fmt.format(np.max(x))}"


# 这个脚本不要参数；--help 印这一句
def main():
    # 没有参数（--help 印用法，别的参数一句话）
    OneSentenceParser(description="读 data/ 里的测量，对照计时模型，打印五张表"
                                  "（见文件开头）。").parse_args()
    triton, cublas = load_measured(), load_cublas()
    table = TimeTable(H200)
    groups = by_shape(triton)
    files = " + ".join("data/" + n for n in MEASURED)
    print_paragraph(f"数据：{files} 共 {len(triton):,} 行（{len(groups)} 个形状），"
                    f"data/cublas.csv {len(cublas)} 个形状；模型用 {table.hw.name} 的显存和 L2")
    report_smem(triton)
    report_ranking_and_picking(table, triton, groups)
    report_cublas(table, cublas)
    report_evolved(triton, groups)
    report_model_alone()


def report_smem(triton):
    print_header("1. 共享内存：Triton 拒绝的配置，模型也拒绝，字节数一样")
    matched, total, bad = smem_refusals(triton)
    print_paragraph(f"对上 {matched} / {total}（配置 × 形状）")
    for r in bad[:5]:
        print_paragraph(f"对不上：{r['cfg']}  Triton 要 {r['required']} B，"
                        f"模型算 {shared_memory(config_fields(r['cfg']))} B")


def report_ranking_and_picking(table, triton, groups):
    print_header("2. 排序：每个形状上模型的快慢顺序和实测的 Spearman ρ")
    rho = ranking(table, triton)
    pick = picking(table, triton)
    rows = [[shape.label(), group[0]["file"], len(_both_accept(table, group)[1]),
             f"{rho[shape]:.3f}", f"{pick[shape]:.3f}"] for shape, group in groups.items()]
    # 这两个表头用元组：60 列时"配置 / 数"让出两列，"模型 / 挑的 ÷ / 最快"就不用把 ÷ 单独放一行
    print_table(["形状", "文件", ("配置", "数"), "ρ", ("模型", "挑的 ÷ ", "最快")], rows)
    rho_v = np.array(list(rho.values()))
    print_paragraph(f"ρ 中位数 {np.median(rho_v):.3f}，最小 {rho_v.min():.3f}")

    print_header("3. 挑选：照模型挑配置，实测比最快的慢多少")
    for name in (None,) + MEASURED:
        v = np.array([x for shape, x in pick.items() if name in (None, groups[shape][0]["file"])])
        which = "两份合起来" if name is None else name
        print_paragraph(f"{which}（{len(v)} 个形状）：模型挑的配置实测时间 ÷ 实测最快，"
                        f"中位数 {np.median(v):.3f}，最大 {v.max():.3f}")


def report_cublas(table, cublas):
    print_header("4. cuBLAS：模型在 2,880 个配置里的最优 ÷ cuBLAS")
    cb = cublas_ratios(table, cublas)
    rows = []
    for group in ("main", "new", "全部"):
        r = np.array([x for g, _, x in cb if group in (g, "全部")])
        rows.append([group, len(r), f"{np.median(r):.3f}", _range(r, "{:.3f}"),
                     f"{100 * within(r):.1f}%"])
    print_table(["形状集", "形状数", "中位数", "范围", f"在 {CUBLAS_TOLERANCE}× 以内"], rows)
    worst = sorted(cb, key=lambda x: abs(np.log(x[2])), reverse=True)[:5]
    print_paragraph("差得最远的：" + "；".join(f"{s.label()} {x:.2f}" for _, s, x in worst))


def report_evolved(triton, groups):
    print_header("5. 讲义的结论在硬件上：进化出来的程序 vs 专家程序，都用实测时间")
    print_paragraph(f"在 H100 模型上进化 full（讲义的训练形状，{EVOLVE_BUDGET} 个提案），"
                    f"再到 {len(groups)} 个实测形状上对照：专家和进化程序选的配置都测过的形状，"
                    "取实测时间之比")
    runs = evolved_vs_expert(triton)
    headers = ["种子", "对照的形状", "实测加速比（几何平均）", "模型预测（同样这些形状）",
               "模型 ÷ 实测"]
    print_table(headers, [[r["seed"], r["covered"], f"{r['measured']:.3f}", f"{r['model']:.3f}",
                           f"{r['model'] / r['measured']:.3f}"] for r in runs])
    measured = [r["measured"] for r in runs]
    ratio = np.median([r["model"] / r["measured"] for r in runs])
    spread = f"{min(measured):.3f}–{max(measured):.3f}"
    verdict = (f"模型比实测乐观：预测的加速比是实测的 {ratio:.2f} 倍" if ratio > 1 else
               f"模型比实测保守：预测的加速比只有实测的 {ratio:.2f} 倍")
    print_paragraph(f"实测加速比的中位数 {np.median(measured):.3f}（{spread}）；{verdict}")


def report_model_alone():
    print_header("模型本身给出的数（H100，讲义的 96 个形状）")
    h100 = TimeTable(H100)
    shapes = all_shapes()
    decode = [s for s in shapes if s.M <= DECODE_M]
    large = [s for s in shapes if s.M >= LARGE_M]
    grid = triton_grid_mask()
    figures = [
        (f"decode（M ≤ {DECODE_M}）：屋顶线 ÷ 最优", roofline_fraction(h100, decode)),
        (f"大形状（M ≥ {LARGE_M}）：屋顶线 ÷ 最优", roofline_fraction(h100, large)),
        ("中位配置 ÷ 最优（全部 2,880 个）", median_over_best(h100, shapes)),
        (f"中位配置 ÷ 最优（Triton 格里的 {grid.sum()} 个）", median_over_best(h100, shapes, grid)),
    ]
    print_table(["量", "范围", "中位数"],
                [[name, _range(x), f"{np.median(x):.2f}"] for name, x in figures])


if __name__ == "__main__":
    # Ctrl-C、… | head：一行说明或安静退出，不打 traceback
    with stops_cleanly():
        main()
