"""
CS349E · 第 14 讲 · slide_layout.py —— 一张幻灯片怎样排：投影出来后排的学生也看得清

slides.py 的四张（05 脚本的 --plot）和 nvidia_heuristics.py 的那张都这样排：最上面一条是标题
（比幻灯片宽时按比例缩小）和它下面几行说明（太长的行折开，不缩小），下面是 subplot_mosaic 排好的
几幅，图例放在幻灯片最下面、不压在任何数据上。字号、9 英寸高、中英文的规矩和 curves.py 相同
（有中文字体用中文的字，没有用英文的，见 curves.cjk_font）。每张幻灯片带着自己的字（Slide.words）。

自上而下读：Slide（一张怎么画）→ header、wrapped（最上面一条）→ drawn、save → legend_below。
"""
import contextlib
import textwrap
from dataclasses import dataclass, field
from typing import Callable

import curves

# 图例、注释的字号（磅）：和演示 1 的图例一样大
SMALL = 14



# 最上面那一条（英寸）：标题一行（24 磅，和 curves.header 一样大）占的，说明每行（15 磅）占的
TITLE_INCHES = 0.6
NOTE_LINE_INCHES = 0.3


def wrapped(text, fig, renderer, room):
    """把 text（fig 上的一段字）的每一行折到 room 像素以内：按这一行量出来的宽度估每行能放几个字，
    英文在空格处断，中文在字之间断（textwrap）。"""
    lines = []
    for line in text.get_text().split("\n"):
        if not line:
            lines.append(line)
            continue
        probe = fig.text(0, 0, line, fontsize=text.get_fontsize())
        width = probe.get_window_extent(renderer).width
        probe.remove()
        fits = max(10, int(len(line) * room / width)) if width > room else len(line)
        lines += textwrap.wrap(line, fits)
    text.set_text("\n".join(lines))


def header(fig, title, note):
    """最上面那一条：标题（比幻灯片宽时按比例缩小），和它下面几行说明（note 里的换行就是分行，
    太长的行折开，不缩小：投影时说明也要读得清）。返回这一条占图高的比例。"""
    inches = curves.HEIGHT_INCHES
    shown = fig.text(0.5, 1 - 0.1 / inches, title, ha="center", va="top", fontsize=24)
    said = fig.text(0.5, 1 - TITLE_INCHES / inches, note, ha="center", va="top", fontsize=15,
                    linespacing=1.4)
    renderer = fig.canvas.get_renderer()
    room = 0.97 * fig.bbox.width
    width = shown.get_window_extent(renderer).width
    if width > room:
        shown.set_fontsize(shown.get_fontsize() * room / width)
    wrapped(said, fig, renderer, room)
    lines = said.get_text().count("\n") + 1
    return (TITLE_INCHES + NOTE_LINE_INCHES * lines + 0.1) / inches


@dataclass(frozen=True)
class Slide:
    """一张幻灯片怎么画：title、note 是 语言的字（words 的一种）→ 标题、说明（换行就是分行）；
    mosaic、grid 是 subplot_mosaic 的排法；draw(fig, axes, words) 在排好的几块里画。
    words 是 {"zh": {...}, "en": {...}}：这张幻灯片上的字（slides.WORDS、
    nvidia_heuristics.WORDS）。"""
    title: Callable
    note: Callable
    mosaic: list
    draw: Callable
    words: dict
    grid: dict = field(default_factory=dict)


@contextlib.contextmanager
def drawn(slide, size):
    """画好的幻灯片（matplotlib 的 Figure），在 with 里用：curves 的字号和字体只在 with 里有效，
    最上面一条是标题和说明（header）。matplotlib 缺字的警告不打（curves.quiet_glyphs）。"""
    plt = curves.pyplot()
    font = curves.cjk_font()
    words = slide.words["zh" if font else "en"]
    with curves.quiet_glyphs(), plt.rc_context(curves.rc_style(plt, font)):
        width, height = size
        dpi = height / curves.HEIGHT_INCHES
        fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi, layout="constrained")
        band = header(fig, slide.title(words), slide.note(words))
        fig.get_layout_engine().set(rect=(0, 0, 1, 1 - band))
        axes = fig.subplot_mosaic(slide.mosaic, **slide.grid)
        slide.draw(fig, axes, words)
        # 比它那幅宽的小标题折成几行（4:3 的幻灯片上几幅并排时会这样）；要先排一遍才知道宽度
        titled = [ax for ax in axes.values() if ax.get_title()]
        if titled:
            fig.draw_without_rendering()
            renderer = fig.canvas.get_renderer()
        # 留一成半的余量：按字数折，字有宽有窄；折了以后 constrained layout 还会再挪一挪
        for ax in titled:
            wrapped(ax.title, fig, renderer, 0.85 * ax.get_window_extent(renderer).width)
        yield fig
    plt.close(fig)


def save(path, size, slide):
    """把 slide 画成 size（宽, 高）像素的图，存成 path（格式看扩展名）。"""
    with drawn(slide, size) as fig:
        fig.savefig(path)


def legend_below(fig, handles, columns):
    """图例放在幻灯片最下面，不压在任何数据上。"""
    fig.legend(handles=handles, loc="outside lower center", ncols=columns, fontsize=SMALL,
               frameon=False)
