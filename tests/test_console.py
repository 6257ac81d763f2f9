"""lecture01/console.py 的测试：表格按显示宽度对齐、CJK 感知换行、加粗标记。

宽度用测试自己的 width() 独立计算，不复用被测代码里的 display_width()。
"""

import io
import re
import sys
import unicodedata

import pytest

from lecture01 import console

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def width(s):
    s = ANSI.sub("", s)
    total = 0
    for ch in s:
        if unicodedata.combining(ch):
            continue
        total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return total


class FakeTTY(io.StringIO):
    def isatty(self):
        return True


# ---------------------------------------------------------------- 表格

ABLATION_CELLS = [("分支", "检查"), "种子", ("进", "数据库", "的", "程序"), ("其中", "带", "不合法", "分支的"),
                  ("最终", "数据库", "里的", "程序"), ("其中", "带", "不合法", "分支的"), ("在 ", "100 个", "新形状上", "出错的"),
                  ("最好的", "程序", "带", "不合法", "分支？")]                # 元组列出词：只在词与词之间断
ABLATION_HEADERS = [c if isinstance(c, str) else "".join(c) for c in ABLATION_CELLS]
ABLATION_ROWS = [
    ["开", 0, 12, 0, 40, 0, 0, "否"],
    ["开", 1, 15, 0, 40, 0, 0, "否"],
    ["关", 2, 33, 5, 40, 2, 0, "否"],
    ["关", 3, 48, 7, 40, 1, 0, "否"],
    ["关", 4, 57, 9, 40, 3, 1, "是"],
]

MIXED_HEADERS = ["形状", "加速比区间", "样本数", "命中率", "配置", "倍数"]
MIXED_ROWS = [
    ["70B/8 qkv M=16", "1.301–1.377", "12,345", "0.95", "full", "1.2x"],
    ["8B o_proj M=4096", "0.98–1.05", "512", "-0.5", "no_evolution", "45%"],
    ["长名字的形状 M=1", 1.5, 7, 1, "是", 3],
]


def spans(line, cells):
    """每个单元格在这一行里的 [起始, 结束) 显示列号；同时检查单元格按顺序、完整地出现。"""
    out, pos = [], 0
    for cell in cells:
        text = str(cell)
        start = len(line) - len(line[pos:].lstrip(" "))
        assert line[start:].startswith(text), (line, text)
        out.append((width(line[:start]), width(line[:start]) + width(text)))
        pos = start + len(text)
    assert line[pos:] == ""
    return out


def check_table(output, headers, rows, right_cols):
    lines = output.splitlines()
    assert len(lines) == len(rows) + 2
    assert all(line == line.rstrip() for line in lines), "行尾不应有空格"

    table = [spans(lines[0], headers)] + [spans(l, r) for l, r in zip(lines[2:], rows)]
    for j in range(len(headers)):
        if j in right_cols:
            assert len({row[j][1] for row in table}) == 1, f"第 {j} 列右端没对齐"
        else:
            assert len({row[j][0] for row in table}) == 1, f"第 {j} 列左端没对齐"
    # 列与列之间至少隔两个空格
    for row in table:
        for (_, end), (start, _) in zip(row, row[1:]):
            assert start - end >= 2

    # 分隔线：每段 - 正好覆盖对应列的范围
    col_start = [min(row[j][0] for row in table) for j in range(len(headers))]
    col_end = [max(row[j][1] for row in table) for j in range(len(headers))]
    dashes = [(m.start(), m.end()) for m in re.finditer(r"[-─]+", lines[1])]
    assert dashes == list(zip(col_start, col_end))


def test_table_cjk_headers_align(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")                              # 放得下：表头保持一行
    console.print_table(ABLATION_HEADERS, ABLATION_ROWS)
    check_table(capsys.readouterr().out, ABLATION_HEADERS, ABLATION_ROWS,
                right_cols={1, 2, 3, 4, 5, 6})


def test_table_mixed_cells_align(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_table(MIXED_HEADERS, MIXED_ROWS)
    check_table(capsys.readouterr().out, MIXED_HEADERS, MIXED_ROWS,
                right_cols={1, 2, 3, 5})


def columns_of(line, spans_):
    """按显示列号 [起, 止) 把一行切成各列的文字（去掉两边空格）。"""
    out = []
    for start, end in spans_:
        text, col = "", 0
        for ch in line:
            if start <= col < end:
                text += ch
            col += width(ch)
        out.append(text.strip())
    return out


def rejoin(cell, parts):
    """把表头折出来的几行连回原文，同时检查每个断点都在词与词之间：元组的段与段之间，或字符串的空格处。"""
    words = [cell] if isinstance(cell, str) else list(cell)
    bounds = {sum(len(w) for w in words[:k]) for k in range(len(words) + 1)}
    text = parts[0]
    for p in parts[1:]:
        if isinstance(cell, str):
            assert cell.startswith(text + " " + p), (text, p)
            text += " " + p
        else:
            text += " " if "".join(words).startswith(text + " ") else ""   # 段尾的空格在换行处不打印
            assert len(text) in bounds, f"{text!r} / {p!r} 拆开了一个词"
            text += p
    return text


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_table_wraps_headers_to_fit_the_terminal(capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_table(ABLATION_CELLS, ABLATION_ROWS)
    lines = capsys.readouterr().out.splitlines()
    rule = next(i for i, l in enumerate(lines) if set(l) <= {"-", " "})
    assert rule >= 2, "放不下一行表头，应该折成几行"
    assert all(width(l) <= columns for l in lines)
    assert len(lines) == rule + 1 + len(ABLATION_ROWS), "每个数据行都只占一行"
    # 数据照样对齐：每列的数字右端、文字左端对齐，而且都落在分隔线那一段里
    segs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
    rows = [spans(l, r) for l, r in zip(lines[rule + 1:], ABLATION_ROWS)]
    for j, (start, end) in enumerate(segs):
        assert all(start <= row[j][0] and row[j][1] <= end for row in rows)
        assert len({row[j][1] if j in {1, 2, 3, 4, 5, 6} else row[j][0] for row in rows}) == 1
    # 表头：每列的各行连起来就是原文，只在允许的地方断开
    pieces = list(zip(*[columns_of(l, segs) for l in lines[:rule]]))
    for cell, header, parts in zip(ABLATION_CELLS, ABLATION_HEADERS, pieces):
        assert rejoin(cell, [p for p in parts if p]) == header


def test_table_that_fits_keeps_a_one_line_header(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "141")                              # 正好放得下
    console.print_table(ABLATION_HEADERS, ABLATION_ROWS)
    lines = capsys.readouterr().out.splitlines()
    assert set(lines[1]) <= {"-", " "} and max(width(l) for l in lines) == 141


def test_table_that_cannot_fit_folds_every_header_to_its_narrowest_and_cuts_nothing(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")                               # 数据本身就比 30 列宽
    console.print_table(ABLATION_CELLS, ABLATION_ROWS)
    lines = capsys.readouterr().out.splitlines()
    rule = next(i for i, l in enumerate(lines) if set(l) <= {"-", " "})
    segs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
    widest_word = [max(width(w) for w in (c.split() if isinstance(c, str) else c)) for c in ABLATION_CELLS]
    data = [max(width(str(r[j])) for r in ABLATION_ROWS) for j in range(len(ABLATION_CELLS))]
    assert [e - s for s, e in segs] == [max(w, d) for w, d in zip(widest_word, data)]   # 每列都折到最窄
    pieces = list(zip(*[columns_of(l, segs) for l in lines[:rule]]))
    for cell, header, parts in zip(ABLATION_CELLS, ABLATION_HEADERS, pieces):
        assert rejoin(cell, [p for p in parts if p]) == header
    assert [columns_of(l, segs) for l in lines[rule + 1:]] == [[str(c) for c in r] for r in ABLATION_ROWS]


def test_a_header_string_breaks_only_at_spaces(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "20")
    console.print_table(["进数据库的程序", "vs_best", "a b"], [["x" * 12, 1, 2]])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["a"] and lines[1].split() == ["进数据库的程序", "vs_best", "b"]


GROUP_CELLS = ["变体", "50 个程序后", "100 个程序后", "1000 个程序后", ("测试", "形状")]
GROUP_ROWS = [["no_evolution", "1.054", "1.054", "1.057", "1.061"]]


def test_shared_words_move_into_one_spanning_header_when_the_table_is_too_wide(capsys, monkeypatch):
    groups = [(1, "N 个程序后", ["50", "100", "1000"])]
    monkeypatch.setenv("COLUMNS", "1000")
    console.print_table(GROUP_CELLS, GROUP_ROWS, groups)
    assert capsys.readouterr().out.splitlines()[0].split() == ["变体", "50", "个程序后", "100", "个程序后", "1000", "个程序后",
                                                               "测试形状"]    # 放得下：原来的表头，一个字不改
    monkeypatch.setenv("COLUMNS", "40")
    console.print_table(GROUP_CELLS, GROUP_ROWS, groups)
    lines = capsys.readouterr().out.splitlines()
    assert all(width(l) <= 40 for l in lines)
    rule = next(i for i, l in enumerate(lines) if set(l) <= {"-", " "})
    segs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
    title = columns_of(lines[rule - 2], [(segs[1][0], segs[3][1])])[0]
    assert title.strip("-").strip() == "N 个程序后"
    assert title.startswith("-") and title.endswith("-")              # 横线正好从第一列盖到最后一列
    assert columns_of(lines[rule - 1], segs)[1:4] == ["50", "100", "1000"]


def test_width_is_100_columns_when_stdout_is_not_a_terminal(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    console.print_table(ABLATION_CELLS, ABLATION_ROWS)                # 自然宽度 141
    lines = capsys.readouterr().out.splitlines()
    assert max(width(l) for l in lines) <= 100 and not set(lines[1]) <= {"-", " "}


def test_table_row_length_mismatch_names_row():
    bad = ["关", 4, 57, 9, 40, 3, 1]
    with pytest.raises(ValueError) as excinfo:
        console.print_table(ABLATION_HEADERS, ABLATION_ROWS[:2] + [bad])
    msg = str(excinfo.value)
    assert "2" in msg and repr(bad) in msg
    assert "7" in msg and "8" in msg


def test_display_width_matches_independent_count():
    for s in ["abc", "分支检查", "1.301–1.377", "e\u0301", "70B/8 qkv M=16", "\033[1m粗\033[0m"]:
        assert console.display_width(s) == width(s)


# ---------------------------------------------------------------- 标题

def test_header_banner(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_header("第 14 讲：消融")
    lines = capsys.readouterr().out.split("\n")
    assert lines[:4] == ["", "=" * width("第 14 讲：消融"), "第 14 讲：消融", "=" * width("第 14 讲：消融")]


def test_header_rule_capped_by_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10")
    console.print_header("一个非常非常长的小节标题")
    lines = capsys.readouterr().out.splitlines()
    assert all(width(l) <= 10 for l in lines)
    assert lines[1] == lines[-1] == "=" * max(width(l) for l in lines[2:-1])
    assert "".join(lines[2:-1]) == "一个非常非常长的小节标题"


DEMO1_TITLE = "演示 1：消融——9 个变体 × 5 个种子（中位数），分数 = 训练形状上相对专家的几何平均加速比"


def test_long_title_wraps_into_even_lines(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_header(DEMO1_TITLE)
    lines = capsys.readouterr().out.splitlines()
    title = lines[2:-1]
    assert len(title) == 2 and all(width(l) <= 80 for l in lines)
    assert min(width(l) for l in title) >= 0.8 * max(width(l) for l in title)   # 不留孤零零的"加速比"
    assert lines[1] == lines[-1] == "=" * max(width(l) for l in title)
    assert " ".join(title) == DEMO1_TITLE or "".join(title) == DEMO1_TITLE


def test_paragraph_wraps_to_the_terminal(capsys, monkeypatch):
    text = "训练形状里有 31/48 个\"没有已知改进\"（vs_best > 0.95）。按权重抽形状时，提案落在它们身上的比例：按 roofline 53%，按见过的最快 34%"
    monkeypatch.setenv("COLUMNS", "50")
    console.print_paragraph(text)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(width(l) <= 50 for l in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


# ---------------------------------------------------------------- 观察要点

LONG_ITEM = ("关掉分支检查以后，**no_evolution** 基线在 100 个新形状上的几何平均加速比从 1.301 掉到 0.987，"
             "而 roofline 上界是1.377；也就是说进化出来的 tile_m=128 启发式只在训练形状上好看，"
             "换成 70B/8 qkv M=16 这种小 M 形状就露馅了。")
ASCII_TOKEN = re.compile(r"[A-Za-z0-9_./=%]+")


def observation_lines(out):
    lines = out.splitlines()
    assert lines[:2] == ["", "观察："]
    return lines[2:]


@pytest.mark.parametrize("columns", [40, 80])
def test_observations_wrap_cjk_aware(capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_observations([LONG_ITEM, "短的一条。"])
    lines = observation_lines(capsys.readouterr().out)

    assert all(width(l) <= columns for l in lines), "不应超过终端宽度"
    assert all(l == l.rstrip() for l in lines), "行尾不应有空格"
    assert "**" not in "".join(lines)

    first = lines.index("2. 短的一条。")
    item = lines[:first]
    assert len(item) >= 2, "长条目应该换行"
    assert item[0].startswith("1. ")
    for cont in item[1:]:
        assert cont.startswith("   ") and cont[3] != " ", "续行要缩进到正文下方"

    # ASCII 单词和数字不能被拆到两行
    for token in ASCII_TOKEN.findall(LONG_ITEM):
        assert any(token in l for l in item), token
    # 除了换行处的空格，内容一字不差
    body = "".join(l[3:] for l in item).replace(" ", "")
    assert body == LONG_ITEM.replace("**", "").replace(" ", "")


def test_observations_hard_split_overlong_token(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "20")
    token = "x" * 50
    console.print_observations([token])
    lines = observation_lines(capsys.readouterr().out)
    assert all(width(l) <= 20 for l in lines)
    assert "".join(l[3:] for l in lines) == token


def test_observations_bold_on_tty(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "40")
    fake = FakeTTY()
    monkeypatch.setattr(sys, "stdout", fake)
    console.print_observations([LONG_ITEM])
    lines = observation_lines(fake.getvalue())
    text = "\n".join(lines)
    assert "\033[1mno_evolution\033[0m" in text
    assert "**" not in text
    # ANSI 码不占宽度：去掉之后仍然不超宽；每行的加粗都在本行内闭合
    assert all(width(l) <= 40 for l in lines)
    for l in lines:
        assert l.count("\033[1m") == l.count("\033[0m")


def test_observations_markers_stripped_on_pipe(capsys, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    console.print_observations(["**重点**在这里"])
    out = capsys.readouterr().out
    assert "1. 重点在这里" in out.splitlines()
    assert "\033" not in out and "**" not in out


def test_observations_no_color_on_tty(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    fake = FakeTTY()
    monkeypatch.setattr(sys, "stdout", fake)
    console.print_observations(["**重点**在这里"])
    out = fake.getvalue()
    assert "1. 重点在这里" in out.splitlines()
    assert "\033" not in out and "**" not in out


def test_observations_numbering(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_observations(["一", "二", "三"])
    assert observation_lines(capsys.readouterr().out) == ["1. 一", "2. 二", "3. 三"]


def test_progress_shows_on_a_terminal_and_erases_itself(monkeypatch):
    err = FakeTTY()
    monkeypatch.setattr(sys, "stderr", err)
    console.progress("full，分支检查开：种子 1/5")
    console.progress("")
    assert err.getvalue() == "\r\033[Kfull，分支检查开：种子 1/5\r\033[K"


def test_progress_prints_nothing_when_stderr_is_not_a_terminal(capsys):
    console.progress("full，分支检查开：种子 1/5")
    assert capsys.readouterr() == ("", "")


QUOTED = ("级联只省下一小部分评估（这个问题上坏程序不多）。这些部件的价值在更大、更难、评估更贵的问题上（多样性、并行、省钱）"
          "才显出来——一个小实验得不出\"它们没用\"的结论；反过来，AlphaEvolve 的 \"No evolution\" 同样是最差的之一。")


def test_quote_marks_never_sit_alone_at_a_line_end_or_start(capsys, monkeypatch):
    for columns in range(20, 101):                                    # 每种宽度都试：断点随宽度变
        monkeypatch.setenv("COLUMNS", str(columns))
        console.print_observations([QUOTED])
        seen = 0                                                      # 数过的引号：单数个之后是开引号
        for line in observation_lines(capsys.readouterr().out):
            body = line[3:]
            if body.startswith('"'):
                assert seen % 2 == 0, f"{columns} 列：闭引号落在了行首：{line!r}"
            seen += body.count('"')
            if body.endswith('"'):
                assert seen % 2 == 0, f"{columns} 列：开引号落在了行尾：{line!r}"
        assert seen == 4


def test_progress_is_cut_to_the_terminal_width(monkeypatch):
    monkeypatch.setenv("COLUMNS", "36")
    err = FakeTTY()
    monkeypatch.setattr(sys, "stderr", err)
    console.progress("no_evolution，分支检查开：种子 1/5（这一行比 36 列宽）")
    shown = err.getvalue()[len("\r\033[K"):]
    assert width(shown) <= 35 and shown.startswith("no_evolution，分支检查开")   # 不折行，\r 才擦得掉


def test_ctrl_c_inside_stops_cleanly_is_one_line_and_status_130(capsys):
    with pytest.raises(SystemExit) as e:
        with console.stops_cleanly():
            raise KeyboardInterrupt
    assert e.value.code == 130
    assert capsys.readouterr() == ("", "已中断。\n")


@pytest.mark.parametrize("text, width, mark, expected", [
    ("abc", 5, "…", "abc"),                       # 放得下：原样，不加记号
    ("汉字abc", 5, "…", "汉字…"),                  # 一个汉字两列：连记号一起不超过 5 列
    ("汉字汉字", 6, "", "汉字汉"),
    ("汉字汉字", 5, "", "汉字"),                    # 半个汉字放不下就不放
])
def test_clip_cuts_by_display_width(text, width, mark, expected):
    assert console.clip(text, width, mark) == expected
    assert console.display_width(expected) <= width
