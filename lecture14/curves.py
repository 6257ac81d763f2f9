"""
CS349E · 第 14 讲 · curves.py —— 把演示 1 画成一张图（AlphaEvolve 论文图 8 的样子），放进幻灯片

    python3 lecture14/05_alphaevolve_ablations.py --plot curves.png

屏幕上的文字和不加 --plot 时一字不差；另外把演示 1 存成图：横轴是提出的程序数（对数坐标），
纵轴是训练形状上相对专家的几何平均加速比。每个变体一条线（各种子的中位数），
阴影是种子之间的最小–最大，虚线是逐形状最优的上限。
装了中文字体（Noto Sans CJK、文泉驿……）就用中文标注，没有就用英文。

matplotlib 是可选的依赖：没装时 --plot 只多一句话说怎么装，别的照常。
"""
import logging
import os

# 按这个顺序找中文字体：找到第一个装了的就用它
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
             "WenQuanYi Micro Hei", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC")

# 图上的字：有中文字体时用中文，没有时用英文
WORDS = {
    "zh": {"title": "演示 1：消融——分数随提出的程序数怎样上升",
           "x": "提出的程序数（对数坐标）",
           "y": "训练形状上相对专家的几何平均加速比",
           "band": "线：{seeds} 个种子的中位数\n阴影：种子之间的最小–最大",
           "upper": "上限（逐形状最优）{value:.3f}"},
    "en": {"title": "Demo 1: ablations - training score vs. number of proposals",
           "x": "programs proposed (log scale)",
           "y": "geomean speedup over the expert (training shapes)",
           "band": "line: median of {seeds} seeds\nband: min-max over seeds",
           "upper": "upper bound (best config per shape) {value:.3f}"},
}

USAGE = "用法：python3 05_alphaevolve_ablations.py [--plot 图.png]（--plot 把演示 1 另存成一张图）"


def plot_path(argv):
    """命令行参数：没有，或者 --plot FILE（也可以写成 --plot=FILE）。返回 FILE 或 None；
    别的写法、FILE 所在的目录不存在，都是一句话退出（开跑之前）。"""
    if not argv:
        return None
    if len(argv) == 1 and argv[0].startswith("--plot="):
        argv = ["--plot", argv[0][len("--plot="):]]
    if len(argv) != 2 or argv[0] != "--plot" or not argv[1] or argv[1].startswith("-"):
        raise SystemExit(f"命令行有误：{' '.join(argv)}。{USAGE}")
    folder = os.path.dirname(os.path.abspath(argv[1]))
    if not os.path.isdir(folder):
        raise SystemExit(f"--plot {argv[1]}：目录 {folder} 不存在，图存不进去。")
    return argv[1]


def matplotlib_missing():
    """没装 matplotlib 时说怎么装的那一句话；装了就是 None。"""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return ("--plot 要用 matplotlib，这里没装，所以只打印文字、不画图。"
                "装上它：python3 -m pip install matplotlib"
                "（在虚拟环境里，见 README 的\"运行\"一节）。")
    return None


def cjk_font(font_manager):
    """装了的第一个中文字体的名字；一个都没有是 None。"""
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


def save(path, histories, upper):
    """histories：变体名 → 各种子的历史分数（种子 × 提案，表里的顺序）；
    upper：训练形状上逐形状最优的分数。
    存成 path（格式看扩展名：.png、.pdf、.svg），1920×1080 像素，字够大，投影在幻灯片上也看得清。"""
    import matplotlib
    import matplotlib.ticker
    # 不开窗口，直接写文件（没有显示器的机器上也行）
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib import font_manager

    # 字体的粗细对不上时（文泉驿只有一种粗细）matplotlib 会一行行地警告：换一种粗细就是了，不用说
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    font = cjk_font(font_manager)
    words = WORDS["zh" if font else "en"]
    style = {"font.size": 20, "axes.titlesize": 26, "axes.labelsize": 22, "legend.fontsize": 18,
             "axes.unicode_minus": False}
    if font:
        style["font.sans-serif"] = [font] + list(plt.rcParams["font.sans-serif"])
    with plt.rc_context(style):
        fig, ax = plt.subplots(figsize=(16, 9), dpi=120)
        seeds = 0
        for name, runs in histories.items():
            scores = np.asarray(runs)
            seeds = len(scores)
            steps = np.arange(1, scores.shape[1] + 1)
            # 完整方法画得粗、画在最上面：它是每条线比较的对象（和它一样的变体也盖不住它）
            full = name == "full"
            line, = ax.plot(steps, np.median(scores, axis=0), linewidth=5 if full else 2.5,
                            zorder=3 if full else 2, label=name)
            ax.fill_between(steps, scores.min(axis=0), scores.max(axis=0), color=line.get_color(),
                            alpha=0.15, linewidth=0)
        ax.axhline(upper, color="black", linestyle="--", linewidth=2,
                   label=words["upper"].format(value=upper))
        ax.set_xscale("log")
        ax.set_xlim(1, steps[-1])
        # 横轴写 1、10、100、1000，不写 10 的几次方
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.set_title(words["title"])
        ax.set_xlabel(words["x"])
        ax.set_ylabel(words["y"])
        ax.grid(True, which="major", alpha=0.3)
        legend = ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False,
                           title=words["band"].format(seeds=seeds))
        legend.get_title().set_fontsize(16)
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
