"""
CS349E · 第 14 讲 · curves.py —— 把演示 1 画成一张图（AlphaEvolve 论文图 8 的样子），放进幻灯片

    python3 lecture14/05_alphaevolve_ablations.py --plot talk.png
    python3 lecture14/05_alphaevolve_ablations.py --plot slides_4x3/ --size 1600x1200

屏幕上的文字和不加 --plot 时一字不差；另外存四张幻灯片（talk_demo1.png……，给目录就存在它里面），
演示 1 那张是这里画的，另外三张见 slides.py。默认 1920×1080 像素（16:9 的幻灯片），
--size 宽x高 换成别的大小（4:3 的幻灯片用 1600x1200 或 1024x768）。
每个去掉的部件一幅小图（按每一行比 full 改了哪个部件来分，学生自己加的变体也一样；
改了几个部件的画在"其他"），每幅都有 full 的黑色粗线。横轴是提出的程序数（对数坐标），
纵轴是训练形状上相对专家的几何平均加速比。线是各种子的中位数，阴影是种子之间的最小–最大，
虚线是逐形状最优的上限。装了中文字体（Noto Sans CJK、文泉驿……）就用中文标注，没有就用英文。

matplotlib 是可选的依赖：没装时 --plot 只多一句话说怎么装，别的照常。

自上而下读：
  1. 命令行：--plot FILE、--size 宽x高
  2. 按部件分组：变体画在哪一幅里
  3. 画图：save（别的脚本也能用：给它每幅图的曲线就行，不用知道 05 脚本）
"""
import contextlib
import itertools
import logging
import math
import os
import re
import shlex
import tempfile
import warnings

import numpy as np

from checks import Kind, OneSentenceParser, problem, sentence
from needs_numpy import venv_python


# ==== 1. 命令行 ===================================================================================

SLIDE = (1920, 1080)


def size_of(text):
    """"1600x1200" → (1600, 1200)；写法不对是 None（x 也可以写成 X 或 ×）。"""
    match = re.fullmatch(r"(\d+)[xX×](\d+)", text)
    if match is None:
        return None
    return int(match[1]), int(match[2])


def slide_size(text):
    """图能排得下的大小：宽 640–7680、高 480–4320 像素，宽高比在 4:3 到 16:9 之间。"""
    size = size_of(text)
    if size is None:
        return False
    width, height = size
    fits = 640 <= width <= 7680 and 480 <= height <= 4320
    return fits and 4 / 3 <= width / height <= 16 / 9


SIZE = Kind("宽x高，例如 1920x1080 或 1600x1200（宽 640–7680、高 480–4320 像素，"
            "宽高比在 4:3 到 16:9 之间）", slide_size)


def image_formats():
    """matplotlib 存得了的格式（扩展名，小写）；没装 matplotlib 是 None（那时本来就不画）。"""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        return None
    return tuple(FigureCanvasBase.get_supported_filetypes())


def writable(path):
    """path 写得进去吗：不是目录的名字、所在的目录真能建文件（只读的文件系统、/proc 这样的地方，
    权限位看不出来，只有试一下才知道）。写不进去时返回为什么（一句话的后半句），写得进去是 None。"""
    if os.path.isdir(path):
        return f"{path} 是一个目录"
    if os.path.exists(path) and not os.access(path, os.W_OK):
        return f"{path} 不让写"
    folder = os.path.dirname(os.path.abspath(path))
    try:
        # 试着在那里建一个临时文件（马上删掉）；真要写的文件等画好了才写
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:
        return f"目录 {folder} 里建不了文件（只读的文件系统、没有写权限，或者像 /proc 这样的地方）"
    return None


def plot_path(path, given=None):
    """--plot 给的文件名 → 真要写的文件：没有扩展名时 matplotlib 存成 PNG、在名字后面加上 .png，
    这里先加上，说出来的就是它写的那个文件。所在的目录不存在、写不进去、格式存不了，都是一句话退出
    （开跑之前），说的是学生写的 given（默认就是 path）。"""
    given = given or path
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise SystemExit(sentence(f"--plot {given}：目录 {folder} 不存在，图存不进去"))
    root, extension = os.path.splitext(path)
    extension = extension.lstrip(".").lower()
    formats = image_formats()
    if extension and formats is not None and extension not in formats:
        listed = "、".join(sorted(formats))
        raise SystemExit(sentence(f"--plot {given}：matplotlib 存不了 .{extension} 的图，格式看"
                                  f"扩展名，可选：{listed}（例如 --plot curves.png）"))
    written = path if extension else path + ".png"
    why = writable(written)
    if why:
        raise SystemExit(sentence(f"--plot {given}：{why}，图存不进去；换一个能写的地方"))
    return written


def is_folder(path):
    """--plot 给的是一个目录：已有的目录，或者以 / 结尾。"""
    return os.path.isdir(path) or path.endswith(("/", os.sep))


def slide_names(path, slides):
    """几张幻灯片（slides 是它们的名字，例如 ("demo1", "demo2")）各叫什么：path 是目录
    （已有的，或者以 / 结尾）时是它里面的 demo1.png……；否则是 path 旁边加上名字的文件
    （talk.png → talk_demo1.png……，格式看 path 的扩展名，没有就是 PNG）。只算名字，不查。"""
    if is_folder(path):
        return {slide: os.path.join(path, f"{slide}.png") for slide in slides}
    root, extension = os.path.splitext(path)
    return {slide: f"{root}_{slide}{extension or '.png'}" for slide in slides}


def slide_paths(path, slides):
    """slide_names，每个文件都照 plot_path 查过（目录在不在、写不写得进去、格式）。"""
    return {slide: plot_path(file, path) for slide, file in slide_names(path, slides).items()}


def plot_request(argv, slides=None, description=None):
    """命令行（OneSentenceParser：--help 印用法，写错的参数一句话）：没有参数，或者
    --plot FILE [--size 宽x高]。返回 (要写的文件, (宽, 高)) 或 None；给了 slides
    （几张幻灯片的名字）时要写的是 {名字: 文件}（slide_paths）。都在开跑之前查完：FILE 的目录、
    写不写得进去、格式（plot_path）、大小（SIZE），不对就一句话退出。
    description 是 --help 开头那段说明（别的脚本说它自己是什么）；默认说分数曲线那一张图
    （llm_ablations.py）或那几张幻灯片（05 脚本）。"""
    # 只存一张图的是 llm_ablations.py：它画的是真模型那几组的分数曲线（curves.save），不是演示 1
    what = ("把分数随提出的程序数的曲线存成一张图（AlphaEvolve 论文图 8 的样子，要 matplotlib）"
            if slides is None else
            f"每个演示一张幻灯片、进化出来的启发式一张（{len(slides)} 张，要 matplotlib）")
    where = ("存到这个文件，格式看扩展名（.png、.pdf、.svg……；不写就是 .png）" if slides is None
             else "存到这个目录（已有的，或者以 / 结尾：DIR/demo1.png……），或者这个文件名的旁边"
                  "（talk.png → talk_demo1.png……），格式看扩展名")
    parser = OneSentenceParser(description=description or f"--plot：文字照常，另外{what}。")
    parser.add_argument("--plot", metavar="FILE", help=where)
    parser.add_argument("--size", metavar="WxH",
                        help=f"图的像素大小，默认 {SLIDE[0]}x{SLIDE[1]}（16:9 的幻灯片），"
                             "4:3 的用 1600x1200")
    args = parser.parse_args(argv)
    if args.plot is None:
        if args.size is not None:
            parser.error("--size 只和 --plot 一起用")
        return None
    # --plot ""（或 --plot=）：不然存成当前目录里的 _demo1.png……
    if not args.plot.strip():
        parser.error(f"--plot 后面要跟一个文件名或目录（例如 --plot talk.png），收到 {args.plot!r}")
    if slides is None and is_folder(args.plot):
        raise SystemExit(sentence(f"--plot {args.plot}：这是一个目录，要的是一个文件名，"
                                  f"例如 --plot {os.path.join(args.plot, 'curves.png')}"))
    path = plot_path(args.plot) if slides is None else slide_paths(args.plot, slides)
    text = args.size or "x".join(map(str, SLIDE))
    slip = problem("--size", text, SIZE, "图的像素大小")
    if slip:
        raise SystemExit(sentence(slip))
    return path, size_of(text)


def matplotlib_missing(cwd=None):
    """没装 matplotlib 时说怎么装的那一句话（命令里的 Python 写成相对 cwd 的，默认是当前目录）；
    装了就是 None。"""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        # 和没装 numpy 时那句话一样，给的是 README 建的虚拟环境的 Python：Debian 的系统 python3
        # 不让 pip 往里装（PEP 668）。命令单占一行（console.print_message）
        install = shlex.join([venv_python(cwd or os.getcwd()), "-m", "pip", "install",
                              "matplotlib"])
        return ("--plot 要用 matplotlib，这里没装，所以只打印文字、不画图。"
                f"装进 README 的\"运行\"一节建的虚拟环境，再用它的 Python 运行：\n  {install}")
    return None


# ==== 2. 按部件分组 ===============================================================================

# 改了几个部件、或者说不出改的是哪个部件（换了一种提出者）时画在"其他"那幅
OTHER = "other"
# 每幅小图：它的键 → 标题（中文、英文）。按这个顺序画
PANELS = {
    "feedback": ("挑形状时怎么用反馈", "how feedback picks the shape"),
    "knowledge": ("内核常识", "kernel knowledge"),
    "evolution": ("进化、岛、借规则", "evolution, islands, borrowing"),
    "cascade": ("级联", "cascade"),
    "meta_prompt": ("提示和程序一起进化（meta prompt）", "meta prompt evolution"),
    OTHER: ("其他（改了几样或别的）", "other (several or other changes)"),
}


# 每个部件（observations.PARTS 的名字，那里说每个部件是哪几项设置）画在哪幅里：
# 讲义的 no_evolution、no_borrow、one_island 各去掉一个部件，三个部件共用一幅
PANEL_OF_PART = {
    "反馈怎么用": "feedback",
    "内核常识": "knowledge",
    "进化": "evolution", "借规则": "evolution", "数据库": "evolution",
    "级联": "cascade",
    "提示和程序一起进化": "meta_prompt",
}


def panel_of(parts):
    """一行画在哪幅里：parts 是它比 full 改了的部件（observations.parts_changed）。只改了一个部件
    就画在那个部件的那幅；改了几个、一个没改、说不出是哪个部件（None）时画在"其他"——一幅小图
    的标题说的是哪个部件，画在里面的行就只差在它上面。"""
    if parts is None or len(parts) != 1:
        return OTHER
    return PANEL_OF_PART[parts[0]]


def panels_by_part(parts, histories):
    """parts：变体名 → 它比 full 改了的部件（full 以外的每一行），histories：变体名 → 各种子的
    历史分数。返回 save 要的 panels：PANELS 的键 → {变体名: 历史}，只留有变体的那几幅，
    不含 full。"""
    where = {name: panel_of(changed) for name, changed in parts.items()}
    panels = {key: {name: histories[name] for name in where if where[name] == key}
              for key in PANELS}
    return {key: curves for key, curves in panels.items() if curves}


# ==== 3. 画图 =====================================================================================

# 按这个顺序找中文字体：找到第一个装了的就用它
CJK_FONTS = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Zen Hei",
             "WenQuanYi Micro Hei", "Microsoft YaHei", "SimHei", "PingFang SC", "Heiti SC")
# 每幅小图里 full 以外的曲线的颜色（tab10 去掉灰色：灰色留给 full 的阴影）
COLORS = ("C0", "C1", "C2", "C3", "C4", "C5", "C6", "C8", "C9")
# 图总是 9 英寸高：字号（磅）和高度的比例不变，1080 和 768 像素高的图看起来一样，只是清晰度不同
HEIGHT_INCHES = 9
# 最上面留给总标题和说明的那一条（占图高的比例），下面由 matplotlib 排
HEADER = 0.13

# 图上的字：有中文字体时用中文，没有时用英文
WORDS = {
    "zh": {"title": "演示 1：消融——分数随提出的程序数怎样上升",
           "note": "线：{seeds} 个种子的中位数；阴影：种子之间的最小–最大\n"
                   "每幅都画 {reference}（黑色粗线）",
           "one_seed": "线：1 个种子的分数（只有 1 个种子，看不出种子之间的波动）\n"
                       "每幅都画 {reference}（黑色粗线）",
           "dashed": "；虚线：上限（逐形状最优）",
           "x": "提出的程序数（对数坐标）",
           "y": "训练形状上相对专家的几何平均加速比",
           "same": "{name}（和 {reference} 完全相同）",
           "upper": "上限 {value:.3f}"},
    "en": {"title": "Demo 1: ablations - training score vs. number of proposals",
           "note": "line: median of {seeds} seeds; band: min-max over seeds\n"
                   "{reference} (thick black) in every panel",
           "one_seed": "line: the score of 1 seed (no spread between seeds to show)\n"
                       "{reference} (thick black) in every panel",
           "dashed": "; dashed: upper bound (best config per shape)",
           "x": "programs proposed (log scale)",
           "y": "geomean speedup over the expert (training shapes)",
           "same": "{name} (same as {reference})",
           "upper": "upper bound {value:.3f}"},
}


def cjk_font():
    """装了的第一个中文字体的名字；一个都没有是 None。
    matplotlib 记着上次找到的字体：之后才装的字体要再看一遍系统的字体目录才认得。"""
    from matplotlib import font_manager
    # 字体的粗细对不上时（文泉驿只有一种粗细）matplotlib 会一行行地警告：换一种粗细就是了，不用说
    logging.getLogger("matplotlib.font_manager").setLevel(logging.ERROR)
    known = {font.fname for font in font_manager.fontManager.ttflist}
    for path in font_manager.findSystemFonts():
        # 坏了的字体文件 matplotlib 自己也跳过
        if path not in known:
            with contextlib.suppress(OSError, RuntimeError):
                font_manager.fontManager.addfont(path)
    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in CJK_FONTS if name in installed), None)


def boxed(texts):
    """texts 里哪些画在图上会有方框：没有中文字体时，matplotlib 默认的字体（DejaVu Sans）里没有的字
    （例如学生起的中文变体名）。有中文字体时是空的。"""
    if cjk_font():
        return []
    from matplotlib import font_manager, ft2font
    fallback = font_manager.findfont(font_manager.FontProperties(family=["sans-serif"]))
    known = ft2font.FT2Font(fallback).get_charmap()
    return [text for text in texts if any(ord(c) not in known for c in text)]


def font_note(names=()):
    """有中文字体时是空的；没有时是一句话：图上用了英文，names 里哪些名字的字是方框，
    装哪个包就是中文。"""
    if cjk_font():
        return ""
    shown = boxed(names)
    boxes = f"变体名 {'、'.join(shown)} 在图上是方框；" if shown else ""
    return (f"没找到中文字体，图上的字用了英文；{boxes}装上 fonts-noto-cjk 就是中文"
            "（Debian/Ubuntu：sudo apt-get install fonts-noto-cjk）。")


@contextlib.contextmanager
def quiet_glyphs():
    """没有中文字体时，matplotlib 每画一个缺的字警告一行（Glyph … missing from font）：
    是方框这件事 font_note 已经用一句话说了，不再一行行地说。"""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from")
        yield


def seeds_said(curves):
    """说明里的种子数：每条曲线一样多就是那个数，不一样就是"最少–最多"。"""
    counts = [len(runs) for runs in curves]
    fewest, most = min(counts), max(counts)
    return str(most) if fewest == most else f"{fewest}–{most}"


def band(runs):
    """一条曲线要画的：(提案序号, 中位数, 最小, 最大)，都按种子算。"""
    scores = np.asarray(runs, dtype=float)
    steps = np.arange(1, scores.shape[1] + 1)
    return steps, np.median(scores, axis=0), scores.min(axis=0), scores.max(axis=0)


def grid(count):
    """count 幅小图排成几行几列：尽量接近方形，列不少于行。"""
    columns = math.ceil(math.sqrt(count))
    return math.ceil(count / columns), columns


def draw_panel(ax, title, curves, reference, words):
    """一幅小图：reference（名字, 历史）画成黑色粗线和灰色阴影，curves 的每条画在它上面。"""
    name, runs = reference
    steps, median, lo, hi = band(runs)
    # full 在最下面、最粗：别的线和它重合时，它在那条线两边露出黑边
    ax.fill_between(steps, lo, hi, color="0.6", alpha=0.3, linewidth=0, zorder=1)
    ax.plot(steps, median, color="black", linewidth=6, zorder=2, label=name)
    drawn = (median, lo, hi)
    for (label, runs), color in zip(curves.items(), itertools.cycle(COLORS)):
        steps, median, lo, hi = band(runs)
        # 和 full 画出来一模一样的（例如学生加的 {}）被它的黑边围着，图例里也说出来
        if all(np.array_equal(a, b) for a, b in zip((median, lo, hi), drawn)):
            label = words["same"].format(name=label, reference=name)
        ax.fill_between(steps, lo, hi, color=color, alpha=0.2, linewidth=0, zorder=3)
        ax.plot(steps, median, color=color, linewidth=2.5, zorder=4, label=label)
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)


def mark_upper(ax, upper, words):
    """上限的虚线，它的说明写在线上方的右端（不占图例的地方）。"""
    ax.axhline(upper, color="black", linestyle="--", linewidth=1.5, zorder=5)
    ax.annotate(words["upper"].format(value=upper), xy=(0.99, upper),
                xycoords=ax.get_yaxis_transform(), xytext=(0, 3), textcoords="offset points",
                ha="right", va="bottom", fontsize=13)


def value_range(every, upper):
    """纵轴的范围：所有阴影和上限都在里面，上面多留一点给上限的说明。"""
    lowest = min(band(runs)[2].min() for runs in every)
    highest = max([band(runs)[3].max() for runs in every]
                  + [-math.inf if upper is None else upper])
    span = max(highest - lowest, 0.01)
    return lowest - 0.04 * span, highest + 0.12 * span


def pyplot():
    """matplotlib 的 pyplot，画进文件、不开窗口（没有显示器的机器上也行）。"""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def rc_style(plt, font):
    """图上的字号；有中文字体时把它排在 matplotlib 默认的无衬线字体前面。"""
    style = {"font.size": 15, "axes.titlesize": 19, "legend.fontsize": 14,
             "axes.unicode_minus": False}
    if font:
        style["font.sans-serif"] = [font] + list(plt.rcParams["font.sans-serif"])
    return style


def canvas(plt, size, count):
    """size（宽, 高）像素的空图，和排成格子的 count 幅小图（共用横轴、纵轴）：(Figure, [Axes])。"""
    width, height = size
    # 图总是 HEIGHT_INCHES 高，每英寸的像素数由要的大小定
    dpi = height / HEIGHT_INCHES
    fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi, layout="constrained")
    # 两列之间多空一点：左边那幅横轴的"1,000"和右边那幅的"1"不挨着
    fig.get_layout_engine().set(rect=(0, 0, 1, 1 - HEADER), wspace=0.06)
    rows, columns = grid(count)
    axes = list(fig.subplots(rows, columns, sharex=True, sharey=True, squeeze=False).flat)
    # 空着的格子拿掉；它上面那幅的横轴数字要露出来（共享横轴时只有最下一行有）
    for empty in range(count, len(axes)):
        fig.delaxes(axes[empty])
        axes[empty - columns].xaxis.set_tick_params(labelbottom=True)
    return fig, axes[:count]


def panel_title(key, language):
    """小图的标题：PANELS 的键按语言取中文或英文，别的键本身就是标题。"""
    zh, en = PANELS.get(key, (key, key))
    return en if language == "en" else zh


def proposal_axis(ax, end):
    """横轴（各幅共用）：提出的程序数，对数坐标，从 1 到 end。"""
    import matplotlib.ticker
    ax.set_xscale("log")
    # 只有 1 个提案时横轴也要有宽度（对数坐标上 1 到 1 画不出来）
    end = max(2, end)
    ax.set_xlim(1, end)
    # 横轴的数：1、10、100……，最后一个提案离上一个数够远（至少 2 倍）时也写上它（例如 50）
    decades = [10 ** k for k in range(len(str(end))) if 10 ** k <= end]
    ends = [end] if end >= 2 * decades[-1] else []
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(decades + ends))
    # 写成 1,000，不写 10 的几次方；不到三个数量级时 matplotlib 会给
    # 2、3、5 这些小刻度也写上数，挤在一起：不写
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:,.0f}"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def subtitle(words, every, reference, upper):
    """总标题下的说明：线和阴影是什么（只有 1 个种子时没有阴影）、黑色粗线是谁、虚线是什么。"""
    seeds = seeds_said(every)
    text = words["one_seed" if seeds == "1" else "note"].format(seeds=seeds, reference=reference)
    if upper is not None:
        text += words["dashed"]
    return text


def header(fig, title, text):
    """最上面那一条（HEADER）：总标题，和它下面的说明。返回总标题的 Text
    （shrink_to_fit 要量它）。"""
    shown = fig.text(0.5, 1 - HEADER * 0.25, title, ha="center", va="center", fontsize=24)
    fig.text(0.5, 1 - HEADER * 0.7, text, ha="center", va="center", fontsize=15, linespacing=1.4)
    return shown


def shrink_to_fit(fig, legends, title):
    """比图宽的总标题、比它那幅小图宽的图例，字号按比例缩小到放得下（字的宽度和字号成正比）。
    名字是学生或录制给的，长短事先不知道：量过再缩，放得下的一个都不动。"""
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    pairs = [(title, [title], fig.bbox.width)]
    pairs += [(legend, legend.get_texts(), ax.get_window_extent(renderer).width)
              for ax, legend in legends]
    for shown, texts, room in pairs:
        width = shown.get_window_extent(renderer).width
        if width > room:
            # 留 3% 的余量：缩小以后边框、行距的取整会让宽度差一两个像素
            scale = 0.97 * room / width
            for text in texts:
                text.set_fontsize(text.get_fontsize() * scale)


@contextlib.contextmanager
def figure(panels, reference, upper=None, size=SLIDE, title=None):
    """画好的图（matplotlib 的 Figure），在 with 里用：字体、字号只在 with 里有效。参数见 save。"""
    plt = pyplot()
    font = cjk_font()
    language = "zh" if font else "en"
    words = WORDS[language]
    # 只有 full 的时候（学生删掉了别的变体）就画一幅只有它的
    panels = panels or {reference[0]: {}}
    every = [reference[1]] + [runs for curves in panels.values() for runs in curves.values()]
    bottom, top = value_range(every, upper)
    # 图例放在左上角、上限的虚线下面（左边是最初的几个提案，曲线都还低）
    below_upper = 1.0 if upper is None else (upper - bottom) / (top - bottom)
    with plt.rc_context(rc_style(plt, font)):
        fig, axes = canvas(plt, size, len(panels))
        legends = []
        for ax, (key, curves) in zip(axes, panels.items()):
            draw_panel(ax, panel_title(key, language), curves, reference, words)
            if upper is not None:
                mark_upper(ax, upper, words)
            legend = ax.legend(loc="upper left", bbox_to_anchor=(0, below_upper), framealpha=0.9)
            legends.append((ax, legend))
        # 各幅共用横轴、纵轴：设在第一幅上就是设在每一幅上
        axes[0].set_ylim(bottom, top)
        proposal_axis(axes[0], max(len(runs[0]) for runs in every))
        shown = header(fig, title or words["title"], subtitle(words, every, reference[0], upper))
        fig.supxlabel(words["x"], fontsize=18)
        fig.supylabel(words["y"], fontsize=18)
        shrink_to_fit(fig, legends, shown)
        yield fig
    plt.close(fig)


def save(path, panels, reference, upper=None, size=SLIDE, title=None):
    """把几幅小图存成 path（格式看扩展名：.png、.pdf、.svg），size 是 (宽, 高) 像素。
    panels：每幅小图 → {曲线名: 各种子的历史分数（种子 × 提案，每个种子一样长）}，按给的顺序画；
      每幅的键是 PANELS 的键（标题按字体换成中文或英文）或者直接就是标题。
    reference：(名字, 历史)，每幅都画的那条（黑色粗线），例如 ("full", full 的历史)。
    upper：上限（虚线），None 就不画。title：总标题，None 就是演示 1 的。
    和 reference 画出来一模一样的曲线，图例里写明"和它完全相同"（不然就被它盖住了）。"""
    with quiet_glyphs(), figure(panels, reference, upper, size, title) as fig:
        fig.savefig(path)
