"""lecture01/console.py 的测试：表格按显示宽度对齐、放得进终端、表头像中文一样折行；
正文换行、加粗、进度。

宽度用测试自己的 width() 独立计算，不复用被测代码里的 display_width()。表格的性质（不超宽、
数据行不折、表头完整、避头尾、分块重复第一列）由 check_fits 从打印出来的文字读回来检查，
不看 console 的内部。
"""

import fcntl
import io
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import unicodedata

import pytest
from conftest import DETACHED, ROOT

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


# ---------------------------------------------------------------- 表格：对齐

# 元组列出词：写表头的人指出词在哪里
ABLATION_CELLS = [("分支", "检查"), "种子", ("进", "数据库", "的", "程序"),
                  ("其中", "带", "不合法", "分支的"), ("最终", "数据库", "里的", "程序"),
                  ("其中", "带", "不合法", "分支的"), ("在 ", "100 个", "新形状上", "出错的"),
                  ("最好的", "程序", "带", "不合法", "分支？")]
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


def check_aligned(output, headers, rows, right_cols):
    """一行表头的表：各列右端（数字）或左端（文字）对齐，列间至少两格，分隔线正好盖住每一列。"""
    lines = output.splitlines()
    assert len(lines) == len(rows) + 2
    assert all(line == line.rstrip() for line in lines), "行尾不应有空格"
    table = [spans(lines[0], headers)] + [spans(l, r) for l, r in zip(lines[2:], rows)]
    for j in range(len(headers)):
        edge = 1 if j in right_cols else 0
        assert len({row[j][edge] for row in table}) == 1, f"第 {j} 列没对齐"
    for row in table:
        assert all(start - end >= 2 for (_, end), (start, _) in zip(row, row[1:]))
    col_start = [min(row[j][0] for row in table) for j in range(len(headers))]
    col_end = [max(row[j][1] for row in table) for j in range(len(headers))]
    dashes = [(m.start(), m.end()) for m in re.finditer(r"[-─]+", lines[1])]
    assert dashes == list(zip(col_start, col_end))


def test_table_cjk_headers_align(capsys, monkeypatch):
    # 放得下：表头保持一行
    monkeypatch.setenv("COLUMNS", "200")
    console.print_table(ABLATION_HEADERS, ABLATION_ROWS)
    out = capsys.readouterr().out
    check_aligned(out, ABLATION_HEADERS, ABLATION_ROWS, right_cols={1, 2, 3, 4, 5, 6})


def test_table_mixed_cells_align(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_table(MIXED_HEADERS, MIXED_ROWS)
    check_aligned(capsys.readouterr().out, MIXED_HEADERS, MIXED_ROWS, right_cols={1, 2, 3, 5})


def test_a_number_as_a_header_is_written_like_a_number_in_a_cell(capsys, monkeypatch):
    """别的讲义的表头可以是数（批大小 1、4、16 当列名）：和数据单元格一样写成字符串，
    不是 linebreak 里的 TypeError（'int' object is not iterable）。"""
    monkeypatch.setenv("COLUMNS", "80")
    console.print_table(["批大小", 1, 4, 16], [["时间", "1.5", "2.0", "7.25"]])
    assert capsys.readouterr().out.splitlines() == ["批大小    1    4    16",
                                                    "------  ---  ---  ----",
                                                    "时间    1.5  2.0  7.25"]


def test_table_that_fits_keeps_a_one_line_header(capsys, monkeypatch):
    # 正好放得下
    monkeypatch.setenv("COLUMNS", "141")
    console.print_table(ABLATION_HEADERS, ABLATION_ROWS)
    lines = capsys.readouterr().out.splitlines()
    assert set(lines[1]) <= {"-", " "} and max(width(l) for l in lines) == 141


def test_width_is_100_columns_when_stdout_is_not_a_terminal(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    # 自然宽度 141
    console.print_table(ABLATION_CELLS, ABLATION_ROWS)
    lines = capsys.readouterr().out.splitlines()
    assert max(width(l) for l in lines) <= 100 and not set(lines[1]) <= {"-", " "}


def _columns_seen(stdout, stderr_columns=None, tmp_path=None):
    """另起一个 Python（没有控制终端），问 console.terminal_columns() 是几：stdout 是 "pipe" 或
    "file"；stderr_columns 给了就接一个这么宽的伪终端，否则是管道。"""
    code = ("import sys; sys.path.insert(0, 'lecture01'); import console; "
            "sys.stderr.write(str(console.terminal_columns()))")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    popen = {"cwd": ROOT, "env": env, **DETACHED}
    if stderr_columns:
        terminal, stderr = pty.openpty()
        fcntl.ioctl(stderr, termios.TIOCSWINSZ, struct.pack("HHHH", 24, stderr_columns, 0, 0))
        popen["stderr"] = stderr
    else:
        popen["stderr"] = subprocess.PIPE
    if stdout == "file":
        popen["stdout"] = open(tmp_path / "out.txt", "w")
    else:
        popen["stdout"] = subprocess.PIPE
    proc = subprocess.Popen([sys.executable, "-c", code], **popen)
    proc.wait(timeout=30)
    if not stderr_columns:
        return int(proc.stderr.read())
    os.close(popen["stderr"])
    said = os.read(terminal, 100).decode()
    os.close(terminal)
    return int(said)


@pytest.mark.slow
def test_a_pipe_to_a_pager_is_as_wide_as_the_terminal_behind_it(tmp_path):
    """… | less：stdout 是管道，字最后印在终端上——按 stderr 所连终端的宽度（git 的分页器也这样）；
    重定向到文件还是 100 列；管道后面哪里都没有终端时也是 100 列。"""
    assert _columns_seen("pipe", stderr_columns=72) == 72
    assert _columns_seen("file", stderr_columns=72, tmp_path=tmp_path) == 100
    assert _columns_seen("pipe") == 100


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


# ---------------------------------------------------------------- 表格：读回打印出来的样子

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


def read_table(out):
    """打印出来的表格 → 每块一个 dict：heads（每列表头折出来的各行）、rows（每个数据行各列的文字）、
    lines（这一块的全部行）。块与块之间隔一个空行。"""
    blocks = []
    for chunk in out.rstrip("\n").split("\n\n"):
        lines = chunk.split("\n")
        rule = next(i for i, l in enumerate(lines) if l and set(l) <= {"-", " "})
        segs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
        heads = [[p for p in col if p] for col in zip(*[columns_of(l, segs) for l in lines[:rule]])]
        rows = [columns_of(l, segs) for l in lines[rule + 1:]]
        blocks.append({"heads": heads, "rows": rows, "lines": lines})
    return blocks


def block_columns(blocks, rows, names=(0,)):
    """每块是原表的哪几列：第二块起，块的第一列和给这一块的行起名字的那一列（names 里不超过接下来
    那一列的最后一个）的文字一样，就是重复的那一列；其余的接着往下数。"""
    out, nxt = [], 0
    for b in blocks:
        key = max(c for c in names if c <= nxt)
        repeated = nxt > key and [r[0] for r in b["rows"]] == [str(r[key]) for r in rows]
        count = len(b["rows"][0]) - repeated
        out.append(([key] if repeated else []) + list(range(nxt, nxt + count)))
        nxt += count
    return out


def rejoin(text, parts):
    """表头折出来的几行按顺序连起来就是原文：行与行之间只少了断开处的空格。"""
    pos = 0
    for part in parts:
        while text[pos:pos + 1] == " ":
            pos += 1
        assert text.startswith(part, pos), (text, parts)
        pos += len(part)
    return pos == len(text)


CLOSING, OPENING = "）」，。：；！？", "（「“"
# 英文的名字和数：表头里不拆开
WORD = re.compile(r"[A-Za-z0-9_]+")


def check_fits(out, headers, rows, columns, names=(0,)):
    """不超宽；数据行一行都不折、一格不少；每列的表头完整、避头尾、英文的名字和数（比终端窄的）
    不拆开；分块时每块重复给它的行起名字的那一列（names：第一列，几张表并排时每份的第一列），
    各块的其余列按顺序接上。返回 read_table 读回的各块。"""
    assert all(width(l) <= columns for l in out.splitlines()), out
    blocks = read_table(out)
    texts = [h if isinstance(h, str) else "".join(h) for h in headers]
    cols = block_columns(blocks, rows, names)
    assert sorted({c for block in cols for c in block}) == list(range(len(headers)))
    for b, block in zip(blocks, cols):
        assert block[0] in names
        assert b["rows"] == [[str(r[c]) for c in block] for r in rows]
        for c, parts in zip(block, b["heads"]):
            assert parts and rejoin(texts[c], parts), (texts[c], parts)
            assert not any(p[0] in CLOSING or p[-1] in OPENING for p in parts), parts
            words = [w for w in WORD.findall(texts[c]) if width(w) <= columns]
            assert all(any(w in p for p in parts) for w in words), (words, parts)
    return blocks


def narrowest_piece(text):
    """表头最窄能折到多宽：一个字或一个英文的名字、数，连着按避头尾粘在它身上的开括号、闭括号
    和点号（"支？"、"（最"、"vs_best"）。"""
    piece = rf"[{OPENING}]*(?:{WORD.pattern}|[^ ])[{CLOSING}]*"
    return max(width(m.group()) for m in re.finditer(piece, text))


def data_width(headers, rows):
    """数据行本身有多宽：每列取最宽的格，至少是表头最窄能折到的宽度，列间两个空格。"""
    texts = [h if isinstance(h, str) else "".join(h) for h in headers]
    widest = [max([width(str(r[j])) for r in rows] + [narrowest_piece(texts[j])])
              for j in range(len(headers))]
    return sum(widest) + 2 * (len(headers) - 1)


def heads_at(capsys, monkeypatch, columns, headers, rows):
    """在 columns 列里打印，检查 check_fits 的性质，返回第一块每列的表头各行。"""
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_table(headers, rows)
    out = capsys.readouterr().out
    check_fits(out, headers, rows, columns)
    return read_table(out)[0]["heads"]


# ---------------------------------------------------------------- 表格：放进终端

# 种子脚本（tests/seed/）原样的表头：不带任何提示的中文字符串
SEED_DEMO1 = ["变体", "50 个程序后", "100 个程序后", "300 个程序后", "1000 个程序后",
              "1000 个后（最小–最大）", "测试形状", "跑内核次数", "规则数（化简后）"]
SEED_DEMO1_ROWS = [
    ["full", "1.070", "1.107", "1.200", "1.241", "1.238–1.250", "1.222", "45,704", "10"],
    ["no_evolution", "1.054", "1.054", "1.054", "1.057", "1.054–1.072", "1.061", "44,832", "3"],
]
SEED_DEMO2 = ["按 roofline 最该改的", "vs_roofline", "vs_best", "按\"见过的最快\"最该改的",
              "vs_roofline", "vs_best"]
SEED_DEMO2_ROWS = [["70B/8 qkv M=512", "0.17", "0.97", "70B/8 gate_up M=512", "0.48", "0.85"],
                   ["70B/8 qkv M=16", "0.19", "0.52", "70B/8 qkv M=512", "0.17", "0.97"]]
# 演示 2 是两种排序并排：各自的形状列给各自的行起名字
NAMES = {"seed_demo2": (0, 3)}
SEED_DEMO3 = ["分支检查", "种子", "进数据库的程序", "其中带不合法分支的", "最终数据库里的程序",
              "其中带不合法分支的", "在 100 个新形状上出错的", "最好的程序带不合法分支？"]
TABLES = {"seed_demo1": (SEED_DEMO1, SEED_DEMO1_ROWS), "seed_demo2": (SEED_DEMO2, SEED_DEMO2_ROWS),
          "seed_demo3": (SEED_DEMO3, ABLATION_ROWS), "tuples": (ABLATION_CELLS, ABLATION_ROWS),
          "mixed": (MIXED_HEADERS, MIXED_ROWS)}


@pytest.mark.parametrize("name", TABLES)
@pytest.mark.parametrize("columns", [40, 60, 80, 100])
def test_every_table_fits_with_whole_rows_and_complete_headers(capsys, monkeypatch, name, columns):
    headers, rows = TABLES[name]
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_table(headers, rows)
    blocks = check_fits(capsys.readouterr().out, headers, rows, columns, NAMES.get(name, (0,)))
    # 数据行放得下就只有一块：表头再长也不让表变宽，也不让它分块
    assert (len(blocks) == 1) == (data_width(headers, rows) <= columns)


def test_a_header_never_makes_a_table_wider_than_a_terminal_its_rows_fit(capsys, monkeypatch):
    for columns in range(data_width(SEED_DEMO3, ABLATION_ROWS), 142):
        monkeypatch.setenv("COLUMNS", str(columns))
        console.print_table(SEED_DEMO3, ABLATION_ROWS)
        blocks = check_fits(capsys.readouterr().out, SEED_DEMO3, ABLATION_ROWS, columns)
        assert len(blocks) == 1


def fewest_blocks(headers, rows, columns):
    """数据行放不下时最少要分几块：每块重复第一列，其余的列按顺序往块里装，装满了才开新块。"""
    texts = [h if isinstance(h, str) else "".join(h) for h in headers]
    widths = [max([width(str(r[j])) for r in rows] + [narrowest_piece(texts[j])])
              for j in range(len(headers))]
    blocks, used = 1, widths[0]
    for w in widths[1:]:
        if used + 2 + w > columns:
            blocks, used = blocks + 1, widths[0]
        used += 2 + w
    return blocks


def han_split(parts):
    """表头折出来的相邻两行，是不是断在了两个汉字之间（标点不算）。"""
    def han(ch):
        return width(ch) == 2 and unicodedata.category(ch) == "Lo"
    return any(han(p[-1]) and han(q[0]) for p, q in zip(parts, parts[1:]))


def test_rows_too_wide_continue_below_in_blocks_repeating_the_first_column(capsys, monkeypatch):
    for columns in (30, 40, 60):
        monkeypatch.setenv("COLUMNS", str(columns))
        console.print_table(SEED_DEMO1, SEED_DEMO1_ROWS)
        out = capsys.readouterr().out
        blocks = check_fits(out, SEED_DEMO1, SEED_DEMO1_ROWS, columns)
        assert out.count("\n\n") == len(blocks) - 1
        assert all(b["heads"][0] == ["变体"] for b in blocks)
        # 块数最少；同样的块数里挑表头折得好的分法
        assert len(blocks) == fewest_blocks(SEED_DEMO1, SEED_DEMO1_ROWS, columns) >= 2


@pytest.mark.parametrize("columns", [40, 60])
def test_two_rankings_side_by_side_each_keep_their_own_shape_column(capsys, monkeypatch, columns):
    """演示 2 在 60 列分成两块：第二块是第二种排序，前面是它自己的形状列，不是第一种排序的
    （那样同一行里并排的是两个不相干的形状的数）。"""
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_table(SEED_DEMO2, SEED_DEMO2_ROWS)
    out = capsys.readouterr().out
    blocks = check_fits(out, SEED_DEMO2, SEED_DEMO2_ROWS, columns, names=(0, 3))
    cols = block_columns(blocks, SEED_DEMO2_ROWS, names=(0, 3))
    assert len(cols) >= 2
    # 每块的列都属于同一种排序：[0, 1, 2] 或 [3, 4, 5] 里的，第一列是那种排序的形状
    assert all(set(block) <= set(range(block[0], block[0] + 3)) for block in cols), cols


def test_a_table_of_one_kind_of_rows_repeats_its_first_column_even_if_another_column_differs(
        capsys, monkeypatch):
    """只有一张表时（不是并排的几张），别的文字列（"配置"）各行不同也不算起名字的列。"""
    monkeypatch.setenv("COLUMNS", "40")
    console.print_table(MIXED_HEADERS, MIXED_ROWS)
    blocks = read_table(capsys.readouterr().out)
    assert len(blocks) >= 2
    assert all([r[0] for r in b["rows"]] == [str(r[0]) for r in MIXED_ROWS] for b in blocks)


LONG_NAMES = {"ascii": "a_really_long_variant_name_that_students_might_type_xx",
              "han": "长" * 30 + "名" * 30}


@pytest.mark.parametrize("name, columns", [("ascii", 60), ("han", 100), ("ascii", 20)])
def test_a_name_wider_than_the_terminal_is_shortened_with_a_mark_in_every_block(
        capsys, monkeypatch, name, columns):
    """变体名比终端还宽（54 个字母在 60 列、60 个汉字在 100 列）：每块照样有名字那一列，
    长名字中间换成"…"，留下开头和结尾；短的名字照原样。"""
    long = LONG_NAMES[name]
    headers = SEED_DEMO1[:5]
    rows = [[long] + SEED_DEMO1_ROWS[0][1:5], SEED_DEMO1_ROWS[1][:5]]
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_table(headers, rows)
    out = capsys.readouterr().out
    assert all(width(line) <= columns for line in out.splitlines()), out
    blocks = read_table(out)
    for b in blocks:
        shown, short = [r[0] for r in b["rows"]]
        head, tail = shown.split("…")
        assert head and tail and long.startswith(head) and long.endswith(tail)
        assert columns < 30 or short == "no_evolution"
    # 每个数都在某一块里，和它的名字同一行
    numbers = [cell for b in blocks for r in b["rows"][:1] for cell in r[1:]]
    assert numbers == rows[0][1:]


def test_a_name_that_cannot_sit_beside_a_terminal_wide_column_gets_a_block_of_its_own(
        capsys, monkeypatch):
    """有一列自己就差不多有终端宽，名字缩到最短也放不到它旁边：名字那一列单独成一块（照原样，
    不缩），不是丢掉。"""
    headers = ["变体", "配置", "x"]
    rows = [["no_evolution", "a" * 16, "1"], ["full", "b" * 16, "2"]]
    monkeypatch.setenv("COLUMNS", "20")
    console.print_table(headers, rows)
    blocks = read_table(capsys.readouterr().out)
    assert blocks[0]["heads"] == [["变体"]]
    assert [r[0] for r in blocks[0]["rows"]] == ["no_evolution", "full"]


def test_blocks_are_split_where_no_header_has_to_part_two_han_characters(capsys, monkeypatch):
    # 60 列要分两块；每块装满的话，"1000 个程序后"只能折成"1000 / 个程 / 序后"
    monkeypatch.setenv("COLUMNS", "60")
    console.print_table(SEED_DEMO1, SEED_DEMO1_ROWS)
    blocks = check_fits(capsys.readouterr().out, SEED_DEMO1, SEED_DEMO1_ROWS, 60)
    assert len(blocks) == 2
    assert not any(han_split(parts) for b in blocks for parts in b["heads"]), blocks


# ---------------------------------------------------------------- 表头：像中文一样折行

def test_a_plain_header_breaks_at_spaces_then_punctuation_then_inside_brackets(capsys, monkeypatch):
    header, row = ["1000 个后（最小–最大）"], [["1.054–1.072"]]
    assert heads_at(capsys, monkeypatch, 22, header, row) == [["1000 个后（最小–最大）"]]
    # 空格、括号外侧都能断时，括号里的"（最小–最大）"不拆开
    assert heads_at(capsys, monkeypatch, 13, header, row) == [["1000 个后", "（最小–最大）"]]
    # 再窄才拆括号里面，而且断在连接号后面，不让它打头
    assert heads_at(capsys, monkeypatch, 11, header, row) == [["1000 个后", "（最小–", "最大）"]]


def test_two_han_characters_part_only_when_nothing_else_fits_and_then_evenly(capsys, monkeypatch):
    headers, rows = ["测试形状", "50 个程序后"], [["1.222", "1.070"]]
    # 另一列在数字和汉字之间断就放得下：汉字之间不断
    assert heads_at(capsys, monkeypatch, 18, headers, rows) == [["测试形状"], ["50", "个程序后"]]
    # 放不下了才断在汉字之间，两行一样长
    assert heads_at(capsys, monkeypatch, 13, headers, rows)[0] == ["测试", "形状"]
    heads = heads_at(capsys, monkeypatch, 10, ["其中带不合法分支的"], [["338"]])[0]
    assert len(heads) == 2 and abs(width(heads[0]) - width(heads[1])) <= 2
    # "的"后面是短语的边界：能断在那里就断在那里
    heads = heads_at(capsys, monkeypatch, 10, ["进数据库的程序"], [["425"]])
    assert heads == [["进数据库的", "程序"]]


def test_no_han_character_is_left_alone_on_a_line_while_anything_else_fits(capsys, monkeypatch):
    heads = heads_at(capsys, monkeypatch, 60, SEED_DEMO3, ABLATION_ROWS)
    assert heads[1] == ["种子"]
    assert all(not (len(p) == 1 and width(p) == 2) for col in heads for p in col), heads


def test_no_header_line_starts_with_closing_or_ends_with_opening_punctuation(capsys, monkeypatch):
    headers = ["规则数（化简后）", "最好的程序带不合法分支？", "按\"见过的最快\"最该改的",
               "「引号」里的词：冒号，逗号。"]
    for columns in range(4, 40):
        for header in headers:
            # heads_at 里的 check_fits 检查避头尾和完整
            heads_at(capsys, monkeypatch, columns, [header], [["1"]])


def rejoin_words(cell, parts):
    """元组表头折出来的几行连回原文，同时检查每个断点都在段与段之间。"""
    words = [cell] if isinstance(cell, str) else list(cell)
    bounds = {sum(len(w) for w in words[:k]) for k in range(len(words) + 1)}
    text = parts[0]
    for p in parts[1:]:
        # 段尾的空格在换行处不打印
        text += " " if "".join(words).startswith(text + " ") else ""
        assert len(text) in bounds, f"{text!r} / {p!r} 拆开了一个词"
        text += p
    return text


@pytest.mark.parametrize("columns", [60, 80, 100])
def test_a_tuple_header_breaks_only_between_its_words_while_they_fit(capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_table(ABLATION_CELLS, ABLATION_ROWS)
    lines = capsys.readouterr().out.splitlines()
    rule = next(i for i, l in enumerate(lines) if set(l) <= {"-", " "})
    assert rule >= 2, "放不下一行表头，应该折成几行"
    segs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
    pieces = list(zip(*[columns_of(l, segs) for l in lines[:rule]]))
    for cell, header, parts in zip(ABLATION_CELLS, ABLATION_HEADERS, pieces):
        assert rejoin_words(cell, [p for p in parts if p]) == header
    check_fits("\n".join(lines), ABLATION_CELLS, ABLATION_ROWS, columns)
    # 数据照样对齐：每列的数字右端、文字左端对齐，而且都落在分隔线那一段里
    rows = [spans(l, r) for l, r in zip(lines[rule + 1:], ABLATION_ROWS)]
    for j, (start, end) in enumerate(segs):
        assert all(start <= row[j][0] and row[j][1] <= end for row in rows)
        assert len({row[j][1] if j in {1, 2, 3, 4, 5, 6} else row[j][0] for row in rows}) == 1


def test_a_tuple_header_is_cut_inside_a_word_only_when_the_word_is_too_wide(capsys, monkeypatch):
    # 段与段之间就放得下：只在段之间断（"100 个"里的空格不断）
    cell = ("在 ", "100 个", "新形状上", "出错的")
    heads = heads_at(capsys, monkeypatch, 8, [cell], [["1"]])
    assert heads == [["在", "100 个", "新形状上", "出错的"]]
    # 一段比终端还宽：段里面也断，表照样不超宽
    heads = heads_at(capsys, monkeypatch, 6, [("最终数据库", "里的")], [["40"]])[0]
    assert all(width(p) <= 6 for p in heads)


def test_inside_a_tuple_word_a_space_breaks_before_two_han_characters_are_parted(
        capsys, monkeypatch):
    """llm_ablations 的最后一列：数据 4 列宽，表头只能折到 4 列。一段（"模型 s"）里面的空格比拆开
    它的两个汉字好，哪怕多折一行——不然是"每个 / 提案 / 等模 / 型 s"。"""
    cell = ("每个", "提案", "等", "模型 s")
    heads = heads_at(capsys, monkeypatch, 4, [cell], [["12.9"]])
    assert heads == [["每个", "提案", "等", "模型", "s"]]
    # 放得下的时候照样只在段与段之间断
    assert heads_at(capsys, monkeypatch, 8, [cell], [["12.9"]]) == [["每个提案", "等模型 s"]]


def test_a_name_in_a_header_is_never_broken_its_column_widens_and_continues_in_blocks(
        capsys, monkeypatch):
    headers, rows = ["变体", "vs_roofline", "vs_best"], [["full", "0.17", "0.97"]]
    # 拆成 vs_ / roof / line 的话 20 列里一块就放得下；不拆，vs_best 就到下一块
    monkeypatch.setenv("COLUMNS", "20")
    console.print_table(headers, rows)
    blocks = check_fits(capsys.readouterr().out, headers, rows, 20)
    assert [b["heads"] for b in blocks] == [[["变体"], ["vs_roofline"]], [["变体"], ["vs_best"]]]
    # 它一个就比终端宽：只好拆开，照样不超宽
    heads = heads_at(capsys, monkeypatch, 8, ["vs_roofline"], [["0.17"]])[0]
    assert len(heads) == 2 and "".join(heads) == "vs_roofline"


# ---------------------------------------------------------------- 跨列表头：按名字

GROUP_CELLS = ["变体", "50 个程序后", "100 个程序后", "1000 个程序后", ("测试", "形状")]
GROUP_ROWS = [["no_evolution", "1.054", "1.054", "1.057", "1.061"]]
MARK_GROUP = {"N 个程序后": {"50 个程序后": "50", "100 个程序后": "100", "1000 个程序后": "1000"}}


def spanning_title(lines, first, last):
    """跨列表头（画了横线的那一行）在第 first 到 last 列上面的文字，和分隔线上面一行各列的文字。"""
    rule = next(i for i, l in enumerate(lines) if set(l) <= {"-", " "})
    segs = [(m.start(), m.end()) for m in re.finditer(r"-+", lines[rule])]
    row = next(l for l in lines[:rule] if "-" in l)
    return columns_of(row, [(segs[first][0], segs[last][1])])[0], columns_of(lines[rule - 1], segs)


def test_shared_words_move_into_a_spanning_header_when_the_table_is_too_wide(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    console.print_table(GROUP_CELLS, GROUP_ROWS, MARK_GROUP)
    # 放得下：原来的表头，一个字不改
    words = ["变体", "50", "个程序后", "100", "个程序后", "1000", "个程序后", "测试形状"]
    assert capsys.readouterr().out.splitlines()[0].split() == words
    monkeypatch.setenv("COLUMNS", "40")
    console.print_table(GROUP_CELLS, GROUP_ROWS, MARK_GROUP)
    lines = capsys.readouterr().out.splitlines()
    assert all(width(l) <= 40 for l in lines)
    title, shorts = spanning_title(lines, 1, 3)
    assert title.strip("-").strip() == "N 个程序后"
    # 横线正好从第一列盖到最后一列
    assert title.startswith("-") and title.endswith("-")
    assert shorts[1:4] == ["50", "100", "1000"]


def test_a_group_named_by_its_headers_follows_them_past_a_new_column(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "50")
    cells = ["变体", "种子数"] + GROUP_CELLS[1:]
    console.print_table(cells, [["no_evolution", "5"] + GROUP_ROWS[0][1:]], MARK_GROUP)
    title, shorts = spanning_title(capsys.readouterr().out.splitlines(), 2, 4)
    assert title.strip("-").strip() == "N 个程序后" and shorts[2:5] == ["50", "100", "1000"]


def test_a_group_cut_by_blocks_spans_its_columns_in_each_or_gives_the_header(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "28")
    console.print_table(GROUP_CELLS, GROUP_ROWS, MARK_GROUP)
    blocks = read_table(capsys.readouterr().out)
    assert len(blocks) == 2 and all(width(l) <= 28 for b in blocks for l in b["lines"])
    # 第一块有 50、100 两列：跨列表头盖在它们上面，从 50 那一列开始
    title, shorts = blocks[0]["lines"][:2]
    assert shorts.split() == ["变体", "50", "100"] and title.strip() == "N 个程序后"
    assert width(title) - width(title.strip()) >= len("no_evolution  ")
    # 第二块只剩 1000 一列：用原来的整个表头
    assert rejoin("1000 个程序后", blocks[1]["heads"][1])


@pytest.mark.parametrize("groups, named", [
    ({"N 个程序后": {"50 个程序后": "50", "300 个程序后": "300"}}, "300 个程序后"),
    ({"坏": {"其中带不合法分支的": "其中"}}, "其中带不合法分支的"),
], ids=["missing", "twice"])
def test_a_group_whose_headers_are_missing_or_ambiguous_is_one_clear_error(groups, named):
    with pytest.raises(ValueError) as excinfo:
        console.print_table(SEED_DEMO3 + GROUP_CELLS, [ABLATION_ROWS[0] + GROUP_ROWS[0]], groups)
    assert named in str(excinfo.value)


def test_a_spanning_header_has_a_rule_that_reads_as_one_or_none(capsys, monkeypatch):
    into, bad, final = ABLATION_CELLS[2:5]
    # 演示 3 的两组：窄的时候从前画成"- 最终数据库里的 -"，读起来像减号
    groups = {("进", "数据库的"): {into: "程序", bad: bad},
              ("最终", "数据库里的"): {final: "程序", bad: bad}}
    rows = [row[:4] + [338] + row[5:] for row in ABLATION_ROWS]
    for columns in range(40, 101):
        monkeypatch.setenv("COLUMNS", str(columns))
        console.print_table(ABLATION_CELLS, rows, groups)
        lines = capsys.readouterr().out.splitlines()
        rule = next(i for i, l in enumerate(lines) if set(l) <= {"-", " "})
        dashes = [len(run) for line in lines[:rule] for run in re.findall("-+", line)]
        assert all(n >= 3 for n in dashes), (columns, lines[:rule])
        if columns == 80:
            # 80 列时一行放不下就把"最终"折到上面一行，两边照样画线
            assert len(dashes) == 4, lines[:rule]


# ---------------------------------------------------------------- 标题

def test_header_banner(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_header("第 14 讲：消融")
    lines = capsys.readouterr().out.split("\n")
    rule = "=" * width("第 14 讲：消融")
    assert lines[:4] == ["", rule, "第 14 讲：消融", rule]


def test_header_rule_capped_by_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10")
    console.print_header("一个非常非常长的小节标题")
    lines = capsys.readouterr().out.splitlines()
    assert all(width(l) <= 10 for l in lines)
    assert lines[1] == lines[-1] == "=" * max(width(l) for l in lines[2:-1])
    assert "".join(lines[2:-1]) == "一个非常非常长的小节标题"


DEMO1_TITLE = ("演示 1：消融——9 个变体 × 5 个种子（中位数），"
               "分数 = 训练形状上相对专家的几何平均加速比")


def test_long_title_wraps_into_even_lines(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    console.print_header(DEMO1_TITLE)
    lines = capsys.readouterr().out.splitlines()
    title = lines[2:-1]
    assert len(title) == 2 and all(width(l) <= 80 for l in lines)
    # 不留孤零零的"加速比"
    assert min(width(l) for l in title) >= 0.8 * max(width(l) for l in title)
    assert lines[1] == lines[-1] == "=" * max(width(l) for l in title)
    assert " ".join(title) == DEMO1_TITLE or "".join(title) == DEMO1_TITLE


def test_paragraph_wraps_to_the_terminal(capsys, monkeypatch):
    text = ("训练形状里有 31/48 个\"没有已知改进\"（vs_best > 0.95）。"
            "按权重抽形状时，提案落在它们身上的比例：按 roofline 53%，按见过的最快 34%")
    monkeypatch.setenv("COLUMNS", "50")
    console.print_paragraph(text)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and all(width(l) <= 50 for l in lines)
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")


def test_a_paragraph_on_stderr_wraps_to_the_width_of_stderr(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    line = ("模型：SmolLM2-135M-Instruct，回放 real_llm/data/smollm2_run.jsonl，"
            "100 个提案，种子 0，并发 1")
    console.print_paragraph(line, file=sys.stderr)
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) >= 3 and all(width(l) <= 40 for l in lines)
    # 英文词、文件名一个都不拆开
    words = [word for word in re.findall(r"[\w./-]+", line) if word.isascii()]
    assert all(any(word in l for l in lines) for word in words)


# ---------------------------------------------------------------- 观察要点

LONG_ITEM = ("关掉分支检查以后，**no_evolution** 基线在 100 个新形状上的几何平均加速比"
             "从 1.301 掉到 0.987，而 roofline 上界是1.377；也就是说进化出来的 tile_m=128 启发式"
             "只在训练形状上好看，"
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
    # 续行要缩进到正文下方
    assert all(cont.startswith("   ") and cont[3] != " " for cont in item[1:])

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


QUOTED = ("级联只省下一小部分评估（这个问题上坏程序不多）。这些部件的价值在更大、更难、"
          "评估更贵的问题上（多样性、并行、省钱）才显出来——一个小实验得不出\"它们没用\"的结论；"
          "反过来，AlphaEvolve 的 \"No evolution\" 同样是最差的之一。")


def test_quote_marks_never_sit_alone_at_a_line_end_or_start(capsys, monkeypatch):
    # 每种宽度都试：断点随宽度变
    for columns in range(20, 101):
        monkeypatch.setenv("COLUMNS", str(columns))
        console.print_observations([QUOTED])
        # 数过的引号：单数个之后是开引号
        seen = 0
        for line in observation_lines(capsys.readouterr().out):
            body = line[3:]
            if body.startswith('"'):
                assert seen % 2 == 0, f"{columns} 列：闭引号落在了行首：{line!r}"
            seen += body.count('"')
            if body.endswith('"'):
                assert seen % 2 == 0, f"{columns} 列：开引号落在了行尾：{line!r}"
        assert seen == 4


# ---------------------------------------------------------------- 进度

class FakeClock:
    """假钟：测试自己拨时间。"""

    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def on_a_terminal(monkeypatch):
    """stderr 换成一个"终端"，返回它（读它写了什么）。"""
    err = FakeTTY()
    monkeypatch.setattr(sys, "stderr", err)
    return err


def test_progress_shows_on_a_terminal_and_erases_itself(monkeypatch):
    err = on_a_terminal(monkeypatch)
    bar = console.Progress(10, clock=FakeClock())
    bar.advance(1, lambda: "full，种子 1：第 1/10 个提案")
    bar.clear()
    # 原地重画：回到行首、新的字、清掉行尾，两帧之间没有空着的一刻
    assert err.getvalue() == "\rfull，种子 1：第 1/10 个提案，正在估计还要多久\033[K\r\033[K"


def test_progress_prints_nothing_when_stderr_is_not_a_terminal(capsys):
    bar = console.Progress(10, clock=FakeClock())
    bar.advance(1, lambda: "full，种子 1：第 1/10 个提案")
    bar.clear()
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("columns", [30, 36, 60, 72])
def test_a_narrow_terminal_shortens_what_is_done_and_keeps_the_estimate(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    err = on_a_terminal(monkeypatch)
    clock = FakeClock()
    bar = console.Progress(1000, clock=clock)
    clock.now += 2.0
    doing = "no_evolution，不查分支，种子 1：第 561/1,000 个提案（2 个进程）"
    bar.advance(100, lambda: doing)
    shown = err.getvalue().removeprefix("\r").removesuffix("\033[K")
    # 不折行，\r 才擦得掉；还要多久总看得见
    assert width(shown) <= columns - 1 and shown.endswith("，还要约 18 秒")
    head = shown[:-len("，还要约 18 秒")]
    assert head.endswith("…") and doing.startswith(head[:-1])
    # 截在能断开的地方：不拆开 no_evolution 这样的名字和数，也不留半个括号
    cut = doing[len(head) - 1:]
    assert not (head[-2].isascii() and head[-2].isalnum() and cut[0].isascii() and cut[0].isalnum())
    assert head.count("（") == head.count("）")


def test_a_note_stays_above_the_progress_line_and_shows_off_a_terminal_too(monkeypatch, capsys):
    bar = console.Progress(10, clock=FakeClock())
    bar.note("[m 1/10] 回复里没有代码")
    assert capsys.readouterr() == ("", "[m 1/10] 回复里没有代码\n")
    err = on_a_terminal(monkeypatch)
    bar.advance(1, lambda: "第 1 步")
    bar.note("[m 2/10] 解析成了程序")
    # 钟没走，下一步照样重画：进度行画在那一行下面，说的是那一行之后的事
    bar.advance(1, lambda: "第 2 步")
    frames = ["\r第 1 步，正在估计还要多久\033[K", "\r\033[K[m 2/10] 解析成了程序\n",
              "\r第 2 步，正在估计还要多久\033[K"]
    assert err.getvalue() == "".join(frames)


@pytest.mark.parametrize("seconds, done, says", [
    (0.0, 0, "正在估计还要多久"),
    # 第一步就报数的话是"还要约 10 秒"，其实全是载入、预热
    (0.01, 1, "正在估计还要多久"),
    # 一半的活做完了，但还不到一秒
    (0.5, 500, "正在估计还要多久"),
    # 五秒了，但还不到 2%
    (5.0, 10, "正在估计还要多久"),
    # 一秒、2% 都过了：按目前的速度，剩下 900 步要 18 秒
    (2.0, 100, "还要约 18 秒"),
    # 还剩一步（0.002 秒）：不说"0 秒"
    (2.0, 999, "还要不到 1 秒"),
    (2.0, 1000, "还要约 0 秒"),
])
def test_progress_gives_a_number_only_after_a_second_and_2_percent_of_the_work(seconds, done, says):
    clock = FakeClock()
    bar = console.Progress(1000, clock=clock)
    bar.done = done
    assert bar.time_left(clock.now + seconds) == says


def test_progress_redraws_five_times_a_second_and_asks_what_it_does_only_then(monkeypatch):
    err = FakeTTY()
    monkeypatch.setattr(sys, "stderr", err)
    clock, asked = FakeClock(), []
    bar = console.Progress(100, clock=clock)

    def describe():
        asked.append(bar.done)
        return f"第 {bar.done} 步"
    # 每步 1/8 秒（二进制里是精确的数）：隔一步才过了 0.2 秒，才重画
    for _ in range(100):
        clock.now += 0.125
        bar.advance(1, describe)
    frames = [frame.removesuffix("\033[K") for frame in err.getvalue().split("\r")[1:]]
    assert asked == list(range(1, 100, 2)) and len(frames) == 50
    # 头一秒不报数
    assert frames[:4] == [f"第 {k} 步，正在估计还要多久" for k in (1, 3, 5, 7)]
    # 最后一帧还剩一步（约 0.13 秒）：不是"还要约 0 秒"
    assert frames[4] == "第 9 步，还要约 11 秒" and frames[-1] == "第 99 步，还要不到 1 秒"
    # 每一帧都是 \r、新的字、清行尾：从不先清再写
    assert all(frame.endswith("\033[K") for frame in err.getvalue().split("\r")[1:])
    bar.clear()
    assert err.getvalue().endswith("\r\033[K")


@pytest.mark.parametrize("seconds, text", [(0.4, "0 秒"), (59.6, "1 分 0 秒"), (200, "3 分 20 秒"),
                                           (3600, "1 小时 0 分"), (5 * 3600 + 59, "5 小时 0 分")])
def test_duration_reads_like_speech(seconds, text):
    assert console.duration(seconds) == text


# ---------------------------------------------------------------- 退出、截断

def test_ctrl_c_inside_stops_cleanly_is_one_line_and_status_130(capsys):
    with pytest.raises(SystemExit) as e:
        with console.stops_cleanly():
            raise KeyboardInterrupt
    assert e.value.code == 130
    assert capsys.readouterr() == ("", "已中断。\n")


@pytest.mark.parametrize("text, width, mark, expected", [
    # 放得下：原样，不加记号
    ("abc", 5, "…", "abc"),
    # 一个汉字两列：连记号一起不超过 5 列
    ("汉字abc", 5, "…", "汉字…"),
    ("汉字汉字", 6, "", "汉字汉"),
    # 半个汉字放不下就不放
    ("汉字汉字", 5, "", "汉字"),
])
def test_clip_cuts_by_display_width(text, width, mark, expected):
    assert console.clip(text, width, mark) == expected
    assert console.display_width(expected) <= width


# ---------------------------------------------------------------- 一句话（出错、提示）

SLIP = ("设置有误：第 62 行：feedbak 是 MockLLM 的选项，不是 evolve 的参数：要写成 "
        "{\"llm\": MockLLM(feedback=...)}（在 VARIANTS 里），"
        "或 evolve(..., llm=MockLLM(feedback=...))。")


@pytest.mark.parametrize("columns", [80, 60, 40])
def test_a_message_keeps_each_piece_of_code_whole_and_never_starts_a_line_with_punctuation(
        capsys, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_message(SLIP, file=sys.stderr)
    lines = capsys.readouterr().err.splitlines()
    assert all(width(line) <= columns for line in lines)
    assert "".join(lines).replace(" ", "") == SLIP.replace(" ", "")
    for code in ('{"llm": MockLLM(feedback=...)}', "evolve(..., llm=MockLLM(feedback=...))"):
        assert any(code in line for line in lines)
    assert not any(line[0] in "，。、；：）" for line in lines)


def test_a_piece_of_code_wider_than_the_terminal_breaks_at_its_spaces(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "30")
    console.print_message("要写成 evolve(..., llm=MockLLM(feedback=...))。")
    lines = capsys.readouterr().out.splitlines()
    assert lines == ["要写成 evolve(...,", "llm=MockLLM(feedback=...))。"]


@pytest.mark.parametrize("columns, printed", [
    (60, ["先装上：", "  .venv/bin/python -m pip install -r requirements.txt"]),
    (40, ["先装上：", "  .venv/bin/python -m pip install -r \\", "    requirements.txt"]),
])
def test_a_command_has_its_own_line_and_continues_like_shell_when_too_wide(
        capsys, monkeypatch, columns, printed):
    monkeypatch.setenv("COLUMNS", str(columns))
    console.print_message("先装上：\n  .venv/bin/python -m pip install -r requirements.txt")
    assert capsys.readouterr().out.splitlines() == printed


def test_a_plain_chinese_paragraph_is_still_wrapped_as_before(capsys, monkeypatch):
    """别的讲义的 print_paragraph（纯中文的字符串）不受一句话的规则影响：英文里的空格照样能断。"""
    monkeypatch.setenv("COLUMNS", "20")
    console.print_paragraph("要写成 a b c d e f g h i j k l。")
    assert capsys.readouterr().out.splitlines() == ["要写成 a b c d e f g", "h i j k l。"]


def test_sys_exit_with_a_sentence_inside_stops_cleanly_wraps_it_to_stderr_with_status_1(
        capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    with pytest.raises(SystemExit) as e:
        with console.stops_cleanly():
            sys.exit(SLIP)
    assert e.value.code == 1
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == console.message_lines(SLIP, 60)
    assert len(err.splitlines()) > 1


def test_an_output_that_cannot_write_chinese_is_one_ascii_sentence_before_the_body(
        capsys, monkeypatch):
    """stdout 的编码写不下中文（PYTHONIOENCODING=ascii）：主体一行都不跑，stderr 上一句 ASCII 的
    话（写不下中文的地方读得到的只有它）说是哪个编码、怎样再运行，退出码 1；不是 UnicodeEncodeError
    的 traceback。"""
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(io.BytesIO(), encoding="ascii"))
    ran = []
    with pytest.raises(SystemExit) as e:
        with console.stops_cleanly():
            ran.append(True)
    err = capsys.readouterr().err
    assert e.value.code == 1 and not ran and err.isascii()
    assert "'ascii' (from PYTHONIOENCODING=ascii)" in err and "PYTHONIOENCODING=utf-8" in err


# 子进程里的一个"脚本"：包在 stops_cleanly 里往 stdout 印很多字
_PRINTS = ("import sys; sys.path.insert(0, 'lecture01'); import console\n"
           "with console.stops_cleanly():\n    print('演示' * 100_000)\n")


@pytest.mark.parametrize("stdout, says", [
    # 磁盘满了：不是 OSError 的 traceback
    ("/dev/full", "写不下去了（No space left on device）：腾出磁盘空间"),
    # 启动时 stdout 就关着（… >&-）：不是 'NoneType' object has no attribute 'flush'
    (None, "标准输出是关着的（>&-），结果没有地方印"),
])
@pytest.mark.slow
def test_an_output_that_cannot_be_written_is_one_sentence(stdout, says):
    import subprocess
    from conftest import ROOT
    target = open(stdout, "w") if stdout else None
    try:
        ran = subprocess.run([sys.executable, "-c", _PRINTS], cwd=ROOT, stdout=target,
                             stderr=subprocess.PIPE, text=True, timeout=60,
                             env=dict(os.environ, COLUMNS="1000"),
                             preexec_fn=None if stdout else lambda: os.close(1))
    finally:
        if target:
            target.close()
    assert ran.returncode == 1 and ran.stderr.startswith(says) and ran.stderr.count("\n") == 1


def test_sys_exit_with_a_number_inside_stops_cleanly_is_left_alone(capsys):
    with pytest.raises(SystemExit) as e:
        with console.stops_cleanly():
            sys.exit(3)
    assert e.value.code == 3 and capsys.readouterr() == ("", "")


def test_a_column_is_right_aligned_only_if_every_filled_cell_is_a_number(capsys, monkeypatch):
    """一列里有一个不像数字的（n/a），整列左对齐，哪怕别的都是数字；空着的占位（-）不算，
    其余都是数字的列照样右对齐。讲义的表里没有混排的列，规则在这里直接查。"""
    monkeypatch.setenv("COLUMNS", "80")
    headers = ["变体", "分数", "秒"]
    rows = [["full", "1.5", "12.25"], ["no_evolution", "n/a", "-"], ["small", "12.25", "3"]]
    console.print_table(headers, rows)
    check_aligned(capsys.readouterr().out, headers, rows, right_cols={2})
