"""各讲共用的终端打印工具：对齐表格、小节标题、编号的观察要点。

课程输出里中英文、数字混排很多。终端里一个汉字占两列，直接用 len() 对齐会错位，
所以这里所有宽度都走同一个 display_width()：宽字符（W/F）算 2 列，组合附加符号算 0 列，
ANSI 转义码算 0 列，其余算 1 列。

所有输出都用 print() 写到 sys.stdout，并且在调用时才去取 sys.stdout，
这样 pytest 的 capsys、重定向到文件都能正常工作。
"""

import numbers
import os
import re
import shutil
import sys
import unicodedata

BOLD, RESET = "\033[1m", "\033[0m"
_ANSI = re.compile(r"\x1b\[[0-9;]*m")

# “看起来像数字”的单元格：1.301、12,345、-0.5、1e-3、45%、1.2x、1.301–1.377（区间）
_NUM = r"[+-]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMERIC = re.compile(rf"{_NUM}(?:\s*[–—~-]\s*{_NUM})?\s*[%x×]?")
# 空单元格和占位符不影响一列的对齐方式
_PLACEHOLDERS = ("", "-", "–", "—")

# 避头尾：这些标点不放在行首 / 行尾，换行时把它们粘在相邻的块上
_NO_BREAK_BEFORE = set("，。、；：！？）》」』”’,.;:!?)%")
_NO_BREAK_AFTER = set("（《「『“‘(")


def _char_width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(s):
    """字符串在终端里占几列（ANSI 颜色码不占宽度）。"""
    return sum(_char_width(ch) for ch in _ANSI.sub("", s))


def _terminal_columns():
    # shutil 会优先读 COLUMNS 环境变量；拿不到终端时退回 100 列
    return shutil.get_terminal_size(fallback=(100, 24)).columns


# ---------------------------------------------------------------- 表格

def _is_numeric(cell):
    if isinstance(cell, numbers.Number) and not isinstance(cell, bool):
        return True
    return _NUMERIC.fullmatch(str(cell).strip()) is not None


def _pad(text, width, right):
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


def print_table(headers, rows):
    """打印按显示宽度对齐的表格：数字列右对齐，文字列左对齐，表头跟随所在列。"""
    headers = [str(h) for h in headers]
    rows = [list(r) for r in rows]
    for i, row in enumerate(rows):
        if len(row) != len(headers):
            raise ValueError(
                f"第 {i} 行 {row!r} 有 {len(row)} 列，但表头有 {len(headers)} 列"
            )

    # 一列里所有非空单元格都像数字，这一列才右对齐；混排的列整体左对齐，读起来更整齐
    right = [
        all(_is_numeric(r[j]) for r in rows if str(r[j]).strip() not in _PLACEHOLDERS)
        and any(str(r[j]).strip() not in _PLACEHOLDERS for r in rows)
        for j in range(len(headers))
    ]
    cells = [[str(c) for c in r] for r in rows]
    widths = [
        max(display_width(line[j]) for line in [headers] + cells)
        for j in range(len(headers))
    ]

    def emit(line):
        # 最后一列左对齐时会补空格，rstrip 去掉行尾空格
        print("  ".join(_pad(c, w, r) for c, w, r in zip(line, widths, right)).rstrip())

    emit(headers)
    print("  ".join("-" * w for w in widths))
    for line in cells:
        emit(line)


# ---------------------------------------------------------------- 小节标题

def print_header(title):
    """醒目的小节标题：前面空一行，上下各一条与标题等宽（不超过终端宽度）的 = 线。"""
    rule = "=" * min(display_width(title), _terminal_columns())
    print()
    print(rule)
    print(title)
    print(rule)


# ---------------------------------------------------------------- 观察要点

def _use_bold():
    # 只有真终端才加粗；管道、文件、NO_COLOR（按 no-color.org，非空即生效）都去掉标记
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _styled_chars(text):
    """'a **b** c' -> [(字符, 是否加粗), ...]；** 本身从不输出。"""
    parts = text.split("**")
    return [(ch, i % 2 == 1) for i, part in enumerate(parts) for ch in part]


def _tokens(chars):
    """切成换行时不可再分的块，None 表示原文里的空白。

    汉字之间、汉字与 ASCII 之间可以断行；连续的非空白 ASCII（单词、数字如 1.301）
    是一个整体，不能从中间断开。
    """
    tokens = []
    for ch, bold in chars:
        if ch.isspace():
            if tokens and tokens[-1] is not None:
                tokens.append(None)
            continue
        prev = tokens[-1] if tokens else None
        if prev is not None:
            last = prev[-1][0]
            both_narrow = _char_width(ch) < 2 and _char_width(last) < 2
            if (both_narrow or unicodedata.combining(ch)
                    or ch in _NO_BREAK_BEFORE or last in _NO_BREAK_AFTER):
                prev.append((ch, bold))
                continue
        tokens.append([(ch, bold)])
    return tokens


def _split_to_fit(token, width):
    """单个块比整行还宽时只能硬切：取前面能放下的部分（至少一个字符，防止死循环）。"""
    n = used = 0
    while n < len(token) and used + _char_width(token[n][0]) <= width:
        used += _char_width(token[n][0])
        n += 1
    n = max(n, 1)
    return token[:n], token[n:]


def _wrap(chars, width):
    """贪心换行，返回若干行，每行是 (字符, 是否加粗) 列表。"""
    lines, used, space = [[]], 0, False
    for token in _tokens(chars):
        if token is None:
            space = True
            continue
        gap = 1 if space and used else 0
        space = False
        w = sum(_char_width(ch) for ch, _ in token)
        if used and used + gap + w > width:
            lines.append([])
            used, gap = 0, 0
        if gap:
            lines[-1].append((" ", False))
            used += 1
        while w > width - used:  # 只会发生在行首：块本身比一整行还宽
            head, token = _split_to_fit(token, width - used)
            lines[-1].extend(head)
            lines.append([])
            used = 0
            w = sum(_char_width(ch) for ch, _ in token)
        lines[-1].extend(token)
        used += w
    return lines


def _render(line, bold_ok):
    out, on = [], False
    for ch, bold in line:
        bold = bold and bold_ok
        if bold != on:
            out.append(BOLD if bold else RESET)
            on = bold
        out.append(ch)
    if on:
        out.append(RESET)
    return "".join(out)


def print_observations(items):
    """打印“观察：”和编号要点；按终端宽度换行，续行缩进到正文下方，**文字** 表示强调。"""
    bold_ok = _use_bold()
    columns = _terminal_columns()
    print()
    print("观察：")
    for i, item in enumerate(items, 1):
        prefix = f"{i}. "
        indent = " " * display_width(prefix)
        # 至少留 2 列，保证一个汉字也放得下
        width = max(columns - display_width(prefix), 2)
        for k, line in enumerate(_wrap(_styled_chars(str(item)), width)):
            print(((prefix if k == 0 else indent) + _render(line, bold_ok)).rstrip())


# ---------------------------------------------------------------- 进度

def progress(text):
    """长时间运行时在 stderr 上显示一行会被覆盖的进度；text 为空就擦掉。
    只在 stderr 是终端时显示——重定向到文件或管道时什么都不打，输出保持干净。"""
    if sys.stderr.isatty():
        sys.stderr.write("\r\033[K" + text)
        sys.stderr.flush()
