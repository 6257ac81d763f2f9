"""--plot 的图（lecture14/curves.py）：命令行、按选项分组、排版（字不出画布、不互相压着、
小图铺满画布）、中英文标注，加上 05 脚本带 --plot 跑的那两遍（文字一字不差）。

排版用编出来的历史分数检查（不跑 evolve），在 16:9 和 4:3 两种大小上。
"""
import os
import shlex
import sys

import numpy as np
import pytest

import ablation
import curves
from conftest import draws, load_script
from evolve import Evaluator, MockLLM, evolve
from needs_numpy import venv_python


def made_up_runs(seeds, budget, ceiling, rng):
    """一个变体各种子的历史分数：从 1 开始一步步升到 ceiling（和 evolve 的历史一样只升不降）。"""
    # 大多是很小的一步，偶尔一大步（像找到了好配置）
    steps = rng.random((seeds, budget)) ** 20
    grown = np.cumsum(steps, axis=1)
    return (1 + (ceiling - 1) * grown / grown[:, -1:]).tolist()


def made_up(names, seeds=5, budget=1000):
    """变体名 → 编出来的历史；full 升得最高。"""
    rng = np.random.default_rng(0)
    ceilings = np.linspace(1.24, 1.05, len(names))
    return {name: made_up_runs(seeds, budget, top, rng) for name, top in zip(names, ceilings)}


# 讲义的九个变体（05 脚本里的 VARIANTS）
LECTURE = load_script().VARIANTS


def grouping(variants):
    """演示 1 那张的分幅（按每行改了的部件，ablation.changed_parts），只看每幅里有哪些变体。"""
    histories = {name: [[1.0]] for name in variants}
    panels = curves.panels_by_part(ablation.changed_parts(variants), histories)
    return {key: list(names) for key, names in panels.items()}


# —— 按选项分组 ——

def test_the_lecture_variants_fall_into_four_panels_by_what_they_remove():
    assert grouping(LECTURE) == {"feedback": ["fb_roofline", "fb_worst3", "no_feedback"],
                                 "knowledge": ["small_llm"],
                                 "evolution": ["no_evolution", "no_borrow", "one_island"],
                                 "cascade": ["no_cascade"]}


def test_the_panels_stay_the_same_after_the_variants_proposers_have_run_in_this_process(
        table, train):
    """JOBS=1 跑 evolve 的是画图的这个进程：MockLLM 记下了训练形状的缓存，分幅不能因此变。"""
    variants = load_script().VARIANTS
    before = grouping(variants)
    for kw in variants.values():
        evolve(Evaluator(train, table), 5, seed=0, **kw)
    assert grouping(variants) == before
    assert list(before) == ["feedback", "knowledge", "evolution", "cascade"]


def test_a_students_variants_are_grouped_by_their_options_not_their_names():
    class Oracle:
        def propose(self, parent, feedback, inspirations, rng):
            return parent

    variants = {"full": {},
                "eight_islands": {"n_islands": 8},
                "picky": {"llm": MockLLM(feedback=None, focus="worst3")},
                "climber": {"n_islands": 1, "population": 1},
                "no_evo_one_island": {"n_islands": 1, "evolution": False},
                "small_no_cascade": {"llm": MockLLM(knowledge=False), "cascade": False},
                "meta": {"meta_prompt": True},
                "same_again": {"llm": MockLLM()},
                "my_llm": {"llm": Oracle()}}
    # issue 62：一幅小图的标题说的是哪个部件，画在里面的行就只差在它上面。改了两个部件的
    # （进化和数据库）画在"其他"，即使两个部件共用一幅；meta prompt 有它自己的一幅
    assert grouping(variants) == {"feedback": ["picky"],
                                  "evolution": ["eight_islands", "climber"],
                                  "meta_prompt": ["meta"],
                                  "other": ["no_evo_one_island", "small_no_cascade", "same_again",
                                            "my_llm"]}


def test_every_part_the_observations_weigh_has_a_panel():
    assert set(curves.PANEL_OF_PART) == set(ablation.PARTS)
    assert set(curves.PANEL_OF_PART.values()) <= set(curves.PANELS)


def test_groups_compare_with_the_students_full():
    variants = {"full": {"llm": MockLLM(knowledge=False)},
                "lecture_full": {},
                "small_llm": {"llm": MockLLM(knowledge=False)}}
    assert grouping(variants) == {"knowledge": ["lecture_full"], "other": ["small_llm"]}


# —— 排版 ——

def drawn_texts(fig):
    """画出来的每段字（不空、看得见；刻度的数只算落在轴的范围里的）和它在画布上占的框（像素）。
    排版照做（constrained layout、刻度、字的大小都和存图时一样），只是不画出像素：
    框一样，省下约一成半的时间。"""
    from matplotlib.text import Text
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    off_axis = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo <= tick.get_loc() <= hi:
                    off_axis.update((id(tick.label1), id(tick.label2)))
    texts = [t for t in fig.findobj(Text)
             if t.get_visible() and t.get_text().strip() and id(t) not in off_axis]
    return [(t.get_text(), t.get_window_extent(renderer)) for t in texts]


def overlapping(boxes):
    """互相压着的两段字（框有公共的面积）。"""
    return [(a, b) for i, (a, box) in enumerate(boxes) for b, other in boxes[i + 1:]
            if box.x0 < other.x1 and other.x0 < box.x1 and box.y0 < other.y1 and other.y0 < box.y1]


def lecture_panels(names=tuple(LECTURE)):
    histories = made_up(names)
    variants = {name: LECTURE[name] for name in names}
    panels = curves.panels_by_part(ablation.changed_parts(variants), histories)
    return panels, ("full", histories["full"])


# 2、4、5 幅小图（排成 1×2、2×2、2×3；5 幅时多一幅"其他"，最后一行空一格）
PANEL_COUNTS = {2: ("full", "small_llm", "no_cascade"), 4: tuple(LECTURE), 5: tuple(LECTURE)}
# 图总是 9 英寸高（curves.HEIGHT_INCHES）：排版只看宽高比，1600×1200 和 1024×768 排得一样，
# 只是每英寸的像素不同，所以 1600×1200 只看最挤的 5 幅
LAYOUTS = ([(count, size) for count in PANEL_COUNTS for size in [(1920, 1080), (1024, 768)]]
           + [(5, (1600, 1200))])


@pytest.fixture(params=["en", "zh"])
def language(request, monkeypatch):
    """en：假装没有中文字体；zh：要装了中文字体（没装就跳过）。"""
    if request.param == "en":
        monkeypatch.setattr(curves, "CJK_FONTS", ())
    elif curves.cjk_font() is None:
        pytest.skip("没有中文字体（Debian/Ubuntu：apt-get install fonts-noto-cjk）")
    return request.param


@pytest.mark.parametrize("count, size", LAYOUTS, ids=[f"{c}-{w}x{h}" for c, (w, h) in LAYOUTS])
@pytest.mark.slow
@draws
def test_no_text_is_clipped_or_overlaps_and_the_panels_fill_the_canvas(size, count, language):
    panels, full = lecture_panels(PANEL_COUNTS[count])
    if count == 5:
        panels["other"] = {"full_again": full[1]}
    assert len(panels) == count
    width, height = size
    with curves.figure(panels, full, upper=1.293, size=size) as fig:
        texts = drawn_texts(fig)
        axes = [ax.get_window_extent() for ax in fig.axes]
    inside = [text for text, box in texts
              if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height]
    assert inside == []
    assert overlapping(texts) == []
    # 小图铺满画布：它们合起来从左到右、从下到上占了画布的大半（只留给刻度、标签、标题）
    assert min(b.x0 for b in axes) < 0.1 * width and max(b.x1 for b in axes) > 0.97 * width
    assert min(b.y0 for b in axes) < 0.12 * height and max(b.y1 for b in axes) > 0.8 * height


@pytest.mark.slow
@draws
def test_labels_are_english_without_a_cjk_font_and_a_sentence_names_the_package(monkeypatch):
    monkeypatch.setattr(curves, "CJK_FONTS", ())
    panels, full = lecture_panels()
    with curves.figure(panels, full, upper=1.293) as fig:
        texts = [text for text, _ in drawn_texts(fig)]
    assert all(text.isascii() for text in texts)
    assert "Demo 1: ablations - training score vs. number of proposals" in texts
    note = curves.font_note()
    assert "fonts-noto-cjk" in note and note.count("。") == 1


@pytest.mark.slow
@draws
def test_labels_are_chinese_with_a_cjk_font():
    if curves.cjk_font() is None:
        pytest.skip("没有中文字体（Debian/Ubuntu：apt-get install fonts-noto-cjk）")
    panels, full = lecture_panels()
    with curves.figure(panels, full, upper=1.293) as fig:
        texts = [text for text, _ in drawn_texts(fig)]
    assert "演示 1：消融——分数随提出的程序数怎样上升" in texts
    assert {"挑形状时怎么用反馈", "内核常识", "进化、岛、借规则", "级联"} <= set(texts)
    assert curves.font_note() == ""


@pytest.mark.slow
@draws
def test_full_is_in_every_panel_and_a_copy_of_it_is_named_in_the_legend(monkeypatch):
    monkeypatch.setattr(curves, "CJK_FONTS", ())
    panels, full = lecture_panels()
    panels["other"] = {"full_again": full[1]}
    with curves.figure(panels, full, upper=1.293) as fig:
        legends = [[t.get_text() for t in ax.get_legend().get_texts()] for ax in fig.axes]
    assert all(names[0] == "full" for names in legends)
    assert legends[-1] == ["full", "full_again (same as full)"]
    # 别的变体只是接近 full，不说"相同"
    assert not any("same" in name for names in legends[:-1] for name in names)


@pytest.mark.parametrize("budget, numbers", [(1000, ["1", "10", "100", "1,000"]),
                                             (50, ["1", "10", "50"]), (120, ["1", "10", "100"]),
                                             (1, ["1", "2"])])
@pytest.mark.slow
@draws
def test_the_proposal_axis_shows_powers_of_ten_and_a_far_enough_end(budget, numbers):
    histories = made_up(["full", "no_cascade"], seeds=2, budget=budget)
    panels = {"cascade": {"no_cascade": histories["no_cascade"]}}
    with curves.figure(panels, ("full", histories["full"])) as fig:
        fig.canvas.draw()
        axis = fig.axes[0].xaxis
        lo, hi = axis.get_view_interval()
        labels = axis.get_majorticklabels()
        shown = [t.get_text() for t in labels if lo <= t.get_position()[0] <= hi]
    assert shown == numbers


@pytest.mark.slow
@draws
def test_one_seed_is_said_to_show_no_spread(monkeypatch):
    monkeypatch.setattr(curves, "CJK_FONTS", ())
    histories = made_up(["full", "no_cascade"], seeds=1, budget=100)
    panels = {"cascade": {"no_cascade": histories["no_cascade"]}}
    with curves.figure(panels, ("full", histories["full"]), upper=1.293) as fig:
        texts = " ".join(text for text, _ in drawn_texts(fig))
    assert "1 seed" in texts and "median" not in texts and "band" not in texts


@pytest.mark.slow
@draws
def test_a_full_only_figure_still_has_one_panel():
    histories = made_up(["full"])
    panels = curves.panels_by_part({}, histories)
    with curves.figure(panels, ("full", histories["full"])) as fig:
        assert len(fig.axes) == 1


# —— 存下的图 ——

def png_size(path):
    """PNG 文件头里的宽、高（像素）。"""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


@pytest.mark.parametrize("size", [curves.SLIDE, (1024, 768), (1111, 777)])
@pytest.mark.slow
@draws
def test_the_saved_png_has_the_requested_pixels(tmp_path, size):
    panels, full = lecture_panels(PANEL_COUNTS[2])
    path = tmp_path / "curves.png"
    curves.save(path, panels, full, upper=1.293, size=size)
    assert png_size(path) == size


# —— 命令行 ——

def test_the_command_line_gives_the_file_and_the_size(tmp_path):
    path = str(tmp_path / "c.png")
    assert curves.plot_request([]) is None
    assert curves.plot_request(["--plot", path]) == (path, (1920, 1080))
    assert curves.plot_request(["--size=1600x1200", f"--plot={path}"]) == (path, (1600, 1200))
    assert curves.plot_request(["--plot", path, "--size", "1024×768"]) == (path, (1024, 768))


@pytest.mark.parametrize("size", ["800x100", "abc", "1024x", "640x480x2", "7681x4320", "479x360",
                                  "1000x1000"])
def test_a_bad_size_is_one_sentence_with_the_value_and_the_choices(tmp_path, size):
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(["--plot", str(tmp_path / "c.png"), "--size", size])
    said = str(stop.value)
    assert said.startswith("--size ") and repr(size) in said and "1600x1200" in said
    assert said.count("。") == 1 and said.endswith("。")


@pytest.mark.parametrize("argv", [["--plot"], ["--size", "1600x1200"], ["--plot", "a.png", "-x"],
                                  ["--plot", "a.png", "b"], ["--plot", "a.png", "--plot=b.png"],
                                  ["--plot", ""], ["--plot="], ["--plot", "  "]])
def test_a_bad_command_line_is_one_sentence_naming_the_script(argv, capsys, monkeypatch):
    """命令行由 checks.OneSentenceParser 读：写错是一句话，说的是正在运行的脚本，退出码 2。"""
    monkeypatch.setattr(sys, "argv", ["llm_ablations.py"])
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(argv)
    out, err = capsys.readouterr()
    said = err.replace("\n", "")
    assert stop.value.code == 2 and out == ""
    assert said.startswith("llm_ablations.py：命令行参数不对：")
    assert said.count("。") == 1 and "llm_ablations.py --help 看用法" in said


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_prints_the_usage_of_the_script_that_asks_and_exits_0(flag, capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["llm_ablations.py"])
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(["--plot", "a.png", flag])
    assert stop.value.code == 0
    out, err = capsys.readouterr()
    assert out.startswith("用法：llm_ablations.py [-h] [--plot FILE] [--size WxH]") and err == ""


def test_help_says_what_each_script_saves(capsys, monkeypatch):
    """05 脚本（给了 SLIDES）：每个演示一张、进化出来的启发式一张，张数就是 SLIDES 的；
    只存一张图的 llm_ablations.py：真模型那几组的曲线，不是"演示 1"（它没有演示）。"""
    monkeypatch.setenv("COLUMNS", "1000")
    slides = load_script().SLIDES
    said = {}
    for name, given in (("05", slides), ("llm_ablations", None)):
        with pytest.raises(SystemExit):
            curves.plot_request(["--help"], given)
        said[name] = capsys.readouterr().out
    assert f"每个演示一张幻灯片、进化出来的启发式一张（{len(slides)} 张" in said["05"]
    assert slides[-1] == "heuristic" and sum(s.startswith("demo") for s in slides) == 3
    assert "演示" not in said["llm_ablations"] and "曲线存成一张图" in said["llm_ablations"]


@pytest.mark.parametrize("given, written", [("slide", "slide.png"), ("c.pdf", "c.pdf"),
                                            ("c.PNG", "c.PNG")])
@draws
def test_the_plot_file_is_the_one_matplotlib_writes(given, written, tmp_path):
    """没有扩展名时 matplotlib 存成 PNG、在名字后面加 .png：说出来的、存的都是它。"""
    path, _ = curves.plot_request(["--plot", str(tmp_path / given)])
    assert path == str(tmp_path / written)


@draws
def test_a_format_matplotlib_cannot_write_is_one_sentence_before_any_work(tmp_path, monkeypatch):
    # 一句话按终端宽度折行，折在空格处时空格就没了：宽到不折，才好照原文比
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(["--plot", str(tmp_path / "x.txt")])
    said = str(stop.value).replace("\n", "")
    assert said.startswith(f"--plot {tmp_path / 'x.txt'}：matplotlib 存不了 .txt 的图")
    assert "png" in said and "pdf" in said and said.count("。") == 1


def test_a_missing_folder_is_one_sentence():
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(["--plot", "/no/such/folder/c.png"])
    assert "/no/such/folder" in str(stop.value) and "不存在" in str(stop.value)


# —— 05 脚本带 --plot 跑的两遍：文字一字不差，另外存一张图；没装 matplotlib 时只多一句话 ——

def slide_files(given):
    """05 脚本 --plot given 存的几张幻灯片：{名字: 文件}（curves.slide_paths）。"""
    return curves.slide_paths(given, load_script().SLIDES)


@draws
def test_plot_prints_the_same_text_and_saves_the_slides_of_the_asked_size(script_runs):
    import slides
    from conftest import PLOT_FILE
    stdout, stderr = script_runs["plot"]
    assert stdout == script_runs["seeds_2_budget_100"][0]
    # 每张存到了哪里；没有中文字体时同一行里再一句话，说装哪个包
    files = slide_files(PLOT_FILE)
    saved = "幻灯片存到了：" + "、".join(f"{slides.WHAT[name]} {path}"
                                       for name, path in files.items()) + "。"
    assert stderr.startswith(saved) and stderr.count("\n") == 1
    rest = stderr[len(saved):-1]
    assert rest == "" or ("fonts-noto-cjk" in rest and rest.count("。") == 1)
    # 这一遍要的是 --size 1024x768
    for path in files.values():
        assert png_size(path) == (1024, 768)
        assert os.path.getsize(path) > 30_000


@draws
def test_the_figure_is_the_same_bytes_whatever_runs_the_evolves(script_runs):
    """JOBS=1（evolve 都在画图的进程里跑）、进程池的 2、3 个进程，fork 和 spawn：每张幻灯片都
    逐字节相同（见 conftest 的 POOL_SETTINGS）。"""
    from conftest import PLOT_FILE, POOL_SETTINGS, pool_plot_file
    for slide, path in slide_files(PLOT_FILE).items():
        with open(path, "rb") as f:
            one_process = f.read()
        for name in POOL_SETTINGS:
            with open(slide_files(pool_plot_file(name))[slide], "rb") as f:
                assert f.read() == one_process, (name, slide)


def test_plot_without_matplotlib_is_one_sentence_and_the_same_text(script_runs):
    stdout, stderr = script_runs["plot_without_matplotlib"]
    assert stdout == script_runs["seeds_2_budget_100"][0]
    # 装 matplotlib 的命令用 README 建的虚拟环境的 Python（Debian 的 python3 不让 pip 装：
    # PEP 668），单占一行
    # （这一遍在 pytest 的目录里跑：相对它写）
    command = shlex.join([venv_python(os.getcwd()), "-m", "pip", "install", "matplotlib"])
    assert stderr.startswith("--plot 要用 matplotlib") and stderr.endswith(f"\n  {command}\n")


@pytest.mark.slow
@draws
def test_without_a_cjk_font_pytests_summary_says_why_tests_skip_without_dash_rs():
    """没有中文字体时跳过的测试，pytest 的总结里一行说为什么、装哪个包（conftest 的
    pytest_terminal_summary），不用 -rs。"""
    import subprocess
    from conftest import ROOT
    ran = subprocess.run([sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider",
                          "tests/test_curves.py::test_labels_are_chinese_with_a_cjk_font"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120)
    line = "跳过了 1 个测试：没有中文字体（Debian/Ubuntu：apt-get install fonts-noto-cjk）"
    assert (line in ran.stdout.splitlines()) == (curves.cjk_font() is None), ran.stdout


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.slow
@draws
def test_each_panel_title_of_the_real_model_figure_fits_its_panel(monkeypatch, language):
    """llm_ablations.py --plot 的每幅小图：标题不比它的小图宽（中文的要装了中文字体才量得准）。"""
    import llm_ablations
    if language == "en":
        monkeypatch.setattr(curves, "CJK_FONTS", ())
    elif curves.cjk_font() is None:
        pytest.skip("没有中文字体（Debian/Ubuntu：apt-get install fonts-noto-cjk）")
    titles = [pair[language == "en"] for pair in
              [*llm_ablations.PLOT_PANELS, llm_ablations.OTHERS_PANEL]]
    histories = made_up(["full"])["full"]
    panels = {title: {"a": histories} for title in titles}
    with curves.figure(panels, ("full", histories), upper=1.293) as fig:
        boxes = dict(drawn_texts(fig))
        for ax in fig.axes:
            title = ax.get_title()
            if title:
                assert boxes[title].width <= ax.get_window_extent().width, title


@pytest.mark.parametrize("language", ["en", "zh"])
@pytest.mark.slow
@draws
def test_the_real_model_figure_keeps_every_text_and_legend_inside(monkeypatch, language):
    """llm_ablations.py --plot 画的那张（回放提交的录制）：总标题、每段字都在画布里、互不相压，
    每个图例不比它那幅小图宽——行的名字是录制定的，长短事先不知道。"""
    import llm_ablations
    if language == "en":
        monkeypatch.setattr(curves, "CJK_FONTS", ())
    elif curves.cjk_font() is None:
        pytest.skip("没有中文字体（Debian/Ubuntu：apt-get install fonts-noto-cjk）")
    panels, reference, upper, title = llm_ablations.figure_parts(llm_ablations.all_groups())
    width, height = curves.SLIDE
    with curves.figure(panels, reference, upper, curves.SLIDE, title) as fig:
        texts = drawn_texts(fig)
        legends = [(ax.get_legend().get_window_extent(), ax.get_window_extent())
                   for ax in fig.axes]
    assert title in [text for text, _ in texts]
    outside = [text for text, box in texts
               if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height]
    assert outside == []
    assert overlapping(texts) == []
    assert all(legend.width <= panel.width for legend, panel in legends)
