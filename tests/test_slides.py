"""--plot 的四张幻灯片（lecture14/slides.py，演示 1 那张由 curves.py 画）：

- 命令行：幻灯片存到哪里（目录、文件名的旁边），写不进去的地方开跑之前一句话；
- 排版：每张在 1920×1080 和 1280×720 上字都在画布里、不互相压着，图例不压在任何一幅上；
- 每张画的一个数就是表里印的那个数：表和幻灯片来自 05 脚本自己的函数跑的同一遍（小的设置）；
- 挑哪个种子、哪个程序的规则（编出来的结果）；
- 学生改了设置时整个脚本带 --plot 跑一遍：四张都存了、收尾的话说出每个文件和方框。
"""
import contextlib
import io
import math
import os
import re
from types import SimpleNamespace

import pytest

import curves
import slide_layout
import slides
from conftest import draws, load_script, run_script, smaller, variants_edit
from evolve import Config, Program, Rule, TimeTable, all_shapes, split_shapes
from observations import Unchecked
from runs import Runs
from test_curves import drawn_texts, overlapping, png_size

SLIDES = load_script().SLIDES


# —— 命令行：存到哪里 ——

def test_a_folder_gets_one_file_per_slide(tmp_path):
    for given in (str(tmp_path), str(tmp_path) + "/"):
        files, size = curves.plot_request(["--plot", given], SLIDES)
        assert files == {slide: str(tmp_path / f"{slide}.png") for slide in SLIDES}
        assert size == (1920, 1080)


@pytest.mark.parametrize("given, written", [("talk.png", "talk_{}.png"), ("talk", "talk_{}.png"),
                                            ("talk.pdf", "talk_{}.pdf")])
def test_a_file_name_gets_siblings_named_after_each_slide(tmp_path, given, written):
    files, _ = curves.plot_request(["--plot", str(tmp_path / given)], SLIDES)
    assert files == {slide: str(tmp_path / written.format(slide)) for slide in SLIDES}


@pytest.mark.parametrize("given", ["/proc/talk.png", "/proc/", "/no/such/folder/"])
def test_a_place_that_cannot_be_written_is_one_sentence(given, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(["--plot", given], SLIDES)
    said = str(stop.value)
    assert said.startswith(f"--plot {given}") and said.count("。") == 1


def test_a_slide_file_that_is_a_folder_is_one_sentence(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    (tmp_path / "talk_demo2.png").mkdir()
    with pytest.raises(SystemExit) as stop:
        curves.plot_request(["--plot", str(tmp_path / "talk.png")], SLIDES)
    assert "talk_demo2.png 是一个目录" in str(stop.value)


def test_one_figure_wants_a_file_name_not_a_folder(tmp_path, monkeypatch):
    """只存一张图的脚本（llm_ablations.py）：给目录是一句话，不会存成 DIR/.png.png。"""
    monkeypatch.setenv("COLUMNS", "1000")
    for given in (str(tmp_path), str(tmp_path) + "/"):
        with pytest.raises(SystemExit) as stop:
            curves.plot_request(["--plot", given])
        said = str(stop.value)
        assert "这是一个目录" in said and "curves.png" in said and said.count("。") == 1


@pytest.mark.slow
def test_the_script_says_one_sentence_before_any_work_when_it_cannot_write():
    code, out, err = run_script(args=("--plot", "/proc/slides/"), timeout=60)
    assert code != 0 and out == ""
    assert err.replace("\n", "").startswith("--plot /proc/slides/：") and err.count("。") == 1


# —— 挑哪个种子、哪个程序（编出来的结果）——

def finished(score, seed=0):
    return SimpleNamespace(out=SimpleNamespace(history=[1.0, score]), seed=seed)


@pytest.mark.parametrize("scores, seed", [([1.2, 1.3, 1.1], 0), ([1.2, 1.2, 1.1], 0),
                                          ([1.3, 1.1], 1), ([1.1, 1.3, 1.2, 1.4, 1.0], 2),
                                          ([1.0], 0)])
def test_the_heuristic_slide_takes_the_median_seed_and_the_lower_one_of_two(scores, seed):
    assert slides.median_seed([finished(x) for x in scores]) == seed


# —— 演示 3 画它说的那个坏分支（issue 62）——

# 共享内存放不下的配置（讲义的演示 3 那个程序的坏分支就返回它）和一个能启动的
TOO_BIG = Config(BM=256, BN=128, BK=64, warps=8, stages=5, split_k=1)
FINE = Config(BM=128, BN=128, BK=64, warps=8, stages=3, split_k=1)
# 坏分支画得出来：K > 14,336 的 405B/8 qkv 那一层、M 在 64 到 512 之间
SHOWN = Program((Rule(((64, 512), (0, math.inf), (14336, math.inf)), TOO_BIG),), FINE)
# 坏分支画不出来：图上的 10 层没有一层 K > 20,000
HIDDEN = Program((Rule(((0, math.inf), (0, math.inf), (20000, math.inf)), TOO_BIG),), FINE)
CLEAN = Program((), FINE)


def seeds_of(*programs, db=()):
    """分支检查关的几个种子（runs.Finished 的样子）：每个种子的最好程序，数据库里是它和 db 里的。"""
    return [SimpleNamespace(out=SimpleNamespace(
                best=(p, 1.1), db=SimpleNamespace(islands=[[(p, 1.1)] + [(q, 1.0) for q in db]])))
            for p in programs]


def demo3_of(runs, unchecked):
    """runs 上的演示 3 幻灯片：(它挑的程序, 英文的说明, 图例)。"""
    hw, train = TimeTable().hw, split_shapes(all_shapes())[0]
    extra = load_script().new_shapes()
    slide = slides.demo3(hw, train, extra, unchecked, runs, edited_full=None)
    with slide_layout.drawn(slide, curves.SLIDE) as fig:
        legend = [text.get_text() for legend in fig.legends for text in legend.get_texts()]
    latent = slides.pick_latent(runs, extra, hw)
    return latent, slide.note(slides.WORDS["en"]), legend


def row(entered=1, stayed=1, crashed=0, best_bad=True):
    return Unchecked(entered, stayed, crashed, best_bad)


@draws
def test_demo3_draws_a_bad_branch_the_map_can_show_before_one_it_cannot():
    """种子 0 的最好程序的坏分支只管图上没有的 K：挑种子 1 的，它的坏分支画成红色。最好程序的坏分支
    都画不出来时，挑数据库里画得出来的那个，而不是画不出来的最好程序。"""
    latent, note, legend = demo3_of(seeds_of(HIDDEN, SHOWN), [row(), row()])
    assert latent.program == SHOWN and latent.drawn == [0]
    assert "seed 1's best program" in note and "red: the branch returning 256×128×64" in note
    assert legend[0] == "branch that cannot launch"
    latent, note, legend = demo3_of(seeds_of(HIDDEN, db=[SHOWN]), [row()])
    assert latent.program == SHOWN and not latent.is_best
    assert "a program in seed 0's final database" in note and "red: the branch" in note
    assert legend[0] == "branch that cannot launch"


@draws
def test_demo3_says_where_a_bad_branch_lies_when_the_map_cannot_show_it():
    """只有画不出来的坏分支：不说"红色"，图例里没有红色，说明里写出它的条件。"""
    latent, note, legend = demo3_of(seeds_of(HIDDEN), [row()])
    assert latent.drawn == [] and latent.bad == [0]
    assert "red:" not in note and "branch that cannot launch" not in legend
    assert "lies outside the shapes drawn here: its condition is K > 20000" in note
    assert "training shapes" in legend


@draws
def test_demo3_never_says_no_program_had_a_bad_branch_when_the_table_shows_one_entered():
    """issue 62 的例子（1 个种子、预算 80）：表里有一个带坏分支的程序进过数据库，后来被挤掉了。"""
    _, note, legend = demo3_of(seeds_of(CLEAN), [row(entered=1, stayed=0, best_bad=False)])
    assert "no program" not in note
    assert ("1 of the programs that entered the database had a branch that cannot launch; "
            "none was left at the end") in note
    assert legend == ["training shapes", "the 100 new shapes"]
    _, note, _ = demo3_of(seeds_of(CLEAN), [row(entered=0, stayed=0, best_bad=False)])
    assert "no program that entered the database in this run has a branch" in note


# —— 表和幻灯片来自同一遍 ——

@pytest.fixture(scope="module")
def demos():
    """05 脚本自己的三个演示，3 个种子、300 个提案、两个变体（一个进程）：印出来的字（1000 列，
    表一行一行），和四张幻灯片（slides 的 Slide，演示 1 那张是 curves.figure 的参数）。"""
    script = load_script()
    script.SEEDS, script.BUDGET, script.MARKS = 3, 300, (50, 100, 300)
    script.VARIANTS = {"full": {}, "no_evolution": {"evolution": False}}
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    printed = io.StringIO()
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "1000"
    try:
        with contextlib.redirect_stdout(printed), Runs(train, test, table) as runs:
            runs.submit(script.all_jobs())
            res = script.demo1_ablations(table, train, test, runs)
            weighed = script.demo2_feedback(table, train)
            latent = script.demo3_branches(table, train, test, runs)
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
    return SimpleNamespace(
        printed=printed.getvalue(), latent=latent,
        curves=slides.curves_parts(res, script.VARIANTS, train, table),
        slides={"demo2": slides.demo2(edited_full=script.edited_full(), **weighed),
                "demo3": slides.demo3(table.hw, train, **latent),
                "heuristic": slides.heuristic(res["full"], train, test, table,
                                              script.edited_full())})


@contextlib.contextmanager
def figure_of(demos, name, size=curves.SLIDE):
    """name 那张幻灯片画好的 Figure（演示 1 那张由 curves.figure 画）。"""
    if name == "demo1":
        panels, reference, upper = demos.curves
        with curves.figure(panels, reference, upper, size) as fig:
            yield fig
    else:
        with slide_layout.drawn(demos.slides[name], size) as fig:
            yield fig


@pytest.fixture
def english(monkeypatch):
    """假装没有中文字体（这台机器上本来就没有；有的机器上也按英文的排）。"""
    monkeypatch.setattr(curves, "CJK_FONTS", ())


SIZES = [(1920, 1080), (1280, 720)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("name", SLIDES)
@pytest.mark.slow
@draws
def test_no_text_is_clipped_or_overlaps_and_no_legend_covers_a_panel(demos, name, size, english):
    width, height = size
    with figure_of(demos, name, size) as fig:
        texts = drawn_texts(fig)
        renderer = fig.canvas.get_renderer()
        panels = [ax.get_window_extent(renderer) for ax in fig.axes]
        legends = [legend.get_window_extent(renderer) for legend in fig.legends]
        # 演示 1 的图例在它那幅的左上角、上限的虚线下面（curves.py：那里曲线还低），别的都在外面
        if name != "demo1":
            legends += [ax.get_legend().get_window_extent(renderer) for ax in fig.axes
                        if ax.get_legend()]
    outside = [text for text, box in texts
               if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height]
    assert outside == []
    assert overlapping(texts) == []
    covered = [(legend, panel) for legend in legends for panel in panels
               if legend.x0 < panel.x1 and panel.x0 < legend.x1
               and legend.y0 < panel.y1 and panel.y0 < legend.y1]
    assert covered == []


def shown(demos, name):
    """name 那张幻灯片上的每段字（英文）。"""
    with figure_of(demos, name) as fig:
        return [text for text, _ in drawn_texts(fig)]


def printed_number(printed, pattern):
    match = re.search(pattern, printed)
    assert match, pattern
    return match[1]


@pytest.mark.slow
@draws
def test_demo1s_slide_draws_the_upper_bound_the_table_prints(demos, english):
    upper = printed_number(demos.printed, r"上限（逐形状最优）：训练 (\d\.\d{3})")
    assert f"upper bound {upper}" in shown(demos, "demo1")


@pytest.mark.slow
@draws
def test_demo2s_slide_draws_the_shares_and_the_count_the_table_prints(demos, english):
    texts = shown(demos, "demo2")
    roof = printed_number(demos.printed, r"按 roofline (\d+%)，")
    best = printed_number(demos.printed, r"按见过的最快 (\d+%)")
    stuck = printed_number(demos.printed, r"训练形状里有 (\d+/\d+) 个")
    assert roof in texts and best in texts
    assert any(f"{stuck} above the dashed line" in text for text in texts)


def unchecked_rows(printed):
    """演示 3 的表里分支检查关的那几行：种子 → 这一行的数（去掉"关"和最后的"是/否"）。"""
    rows = {}
    for line in printed.splitlines():
        cells = line.split()
        if cells[:1] == ["关"]:
            rows[int(cells[1])] = [int(cell) for cell in cells[2:-1]]
    return rows


@pytest.mark.slow
@draws
def test_demo3s_slide_draws_its_seeds_row_of_the_table(demos, english):
    note = " ".join(shown(demos, "demo3"))
    rows = unchecked_rows(demos.printed)
    assert len(rows) == 3
    seed = int(printed_number(note, r"seed (\d)'s"))
    entered, entered_bad, final, stayed, crashed = rows[seed]
    # 这次（3 个种子、300 个提案）有带坏分支的最好程序：说明里有那一行的数
    assert "best program" in note
    assert (f"the table's row for seed {seed}: {stayed} programs in its final database have a bad "
            f"branch, {crashed} fail on the 100 new shapes") in note.replace("\n", " ")


@pytest.mark.slow
@draws
def test_demo3s_legend_names_only_what_the_slide_draws(demos, english, monkeypatch):
    """图例只列图上画了的：有坏分支才有红色的格子，有新形状出错才有叉。没有一个程序带坏分支时
    （这里让 bad_branches、failing 都说没有），训练形状也不说"不走进红色分支"。"""
    def legend_of(slide):
        with slide_layout.drawn(slide, curves.SLIDE) as fig:
            return [text.get_text() for legend in fig.legends for text in legend.get_texts()]

    hw, train = TimeTable().hw, split_shapes(all_shapes())[0]
    # 这次（3 个种子、300 个提案）挑出的程序的坏分支画得出来，有新形状走进去出错：红色、叉都列
    latent = slides.pick_latent(demos.latent["runs"], demos.latent["extra"], hw)
    assert latent.drawn
    assert legend_of(demos.slides["demo3"]) == [
        "branch that cannot launch", "training shapes (none enters the red branch)",
        "the 100 new shapes", "new shapes that enter it and fail"]
    # 没有新形状走进去出错时，没有叉，图例也不列
    monkeypatch.setattr(slides, "failing", lambda p, shapes, hw: [])
    assert legend_of(slides.demo3(hw, train, **demos.latent)) == [
        "branch that cannot launch", "training shapes (none enters the red branch)",
        "the 100 new shapes"]
    monkeypatch.setattr(slides, "bad_branches", lambda p, hw: [])
    monkeypatch.setattr(slides, "failing", lambda p, shapes, hw: [])
    clean = slides.demo3(hw, train, **demos.latent)
    assert legend_of(clean) == ["training shapes", "the 100 new shapes"]


@pytest.mark.slow
@draws
def test_the_heuristic_slide_draws_the_median_score_and_the_upper_bounds_the_table_prints(
        demos, english):
    note = " ".join(shown(demos, "heuristic"))
    # 演示 1 的表：full 那一行 300 个程序后的中位数（3 个种子：就是居中的那个种子的分数）
    full = printed_number(demos.printed, r"\nfull +[\d.]+ +[\d.]+ +(\d\.\d{3})")
    upper = re.search(r"上限（逐形状最优）：训练 (\d\.\d{3})，测试 (\d\.\d{3})", demos.printed)
    assert f"training {full}" in note
    assert f"upper bound {upper[1]} / {upper[2]}" in note


@pytest.mark.slow
@draws
def test_the_heuristic_slide_names_where_the_gain_is(demos, english):
    texts = shown(demos, "heuristic")
    assert any(re.fullmatch(r"What evolution found: (\d+% |all )of full's gain over the expert "
                            r"is on (decode \(M ≤ 128\)|prefill \(M > 128\)) shapes", text)
               for text in texts), texts


# —— 学生改了设置：整个脚本带 --plot ——

@pytest.mark.slow
@draws
def test_a_students_edit_gets_four_slides_that_say_what_is_not_the_lecture(tmp_path):
    """2 个种子、300 个提案、改弱了的 full、删掉一行、加一行中文名字的：四张都存了，收尾的话说出每个
    文件；没有中文字体时说中文名字是方框（不一行行地警告缺字）；演示 3 的表下说它跑的是
    哪个 full。"""
    edits = {**smaller(2, 300, (50, 100, 300)),
             **variants_edit(drop=["no_cascade"], add='    "完整": {},\n'),
             '    "full": {},\n': '    "full": {"llm": MockLLM(knowledge=False)},\n'}
    code, out, err = run_script(edits, timeout=300, env={"COLUMNS": "1000"},
                                args=("--plot", f"{tmp_path}/", "--size", "1280x720"))
    assert code == 0, err
    files = {slide: str(tmp_path / f"{slide}.png") for slide in SLIDES}
    listed = "、".join(f"{what} {files[slide]}" for slide, what in slides.WHAT.items())
    assert err.startswith(f"幻灯片存到了：{listed}。")
    assert "Glyph" not in err and "Warning" not in err
    assert all(png_size(path) == (1280, 720) for path in files.values())
    assert ("这张表跑的是讲义的完整方法 {}，不是演示 1 里你改过的 full"
            "（它比讲义的改了 MockLLM(knowledge=False)）。") in out
    if curves.cjk_font() is None:
        assert "变体名 完整 在图上是方框" in err
