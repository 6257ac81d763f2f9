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

ABLATION_HEADERS = ["分支检查", "种子", "进数据库的程序", "其中带不合法分支的", "最终数据库里的程序",
                    "其中带不合法分支的", "在 100 个新形状上出错的", "最好的程序带不合法分支？"]
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


def test_table_cjk_headers_align(capsys):
    console.print_table(ABLATION_HEADERS, ABLATION_ROWS)
    check_table(capsys.readouterr().out, ABLATION_HEADERS, ABLATION_ROWS,
                right_cols={1, 2, 3, 4, 5, 6})


def test_table_mixed_cells_align(capsys):
    console.print_table(MIXED_HEADERS, MIXED_ROWS)
    check_table(capsys.readouterr().out, MIXED_HEADERS, MIXED_ROWS,
                right_cols={1, 2, 3, 5})


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
    assert lines[1] == "=" * 10 and lines[3] == "=" * 10


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
