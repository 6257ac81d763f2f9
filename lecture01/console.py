"""各讲共用的终端打印工具：对齐表格、小节标题、编号的观察要点、进度，以及脚本的干净退出。
中英文、数字混排的宽度和断行的规则在 linebreak.py（一个汉字占两列）。

所有输出都用 print() 写到调用时的 sys.stdout：pytest 的 capsys、重定向到文件都能正常工作。

终端宽度：设置了 COLUMNS 环境变量就用它（测试、想要宽输出时）；否则用输出所连终端的实际宽度；
不是终端（管道、文件）时是 100 列——所以重定向出来的文本每行都不超过 100 列。
"""
import contextlib
import errno
import itertools
import math
import numbers
import os
import re
import stat
import sys
import time
import unicodedata
from dataclasses import dataclass

# 各讲把 lecture01 放进 sys.path 再 import console；测试里是 lecture01.console：
# 两种都找得到 linebreak。display_width、clip、message_lines、wrap_plain 也是 console 的公开名字
# （别的讲义用它们对齐、截短自己的文字，checks.py 用 message_lines 折一句话）
if __package__:
    from .linebreak import (clip, cut_at_break, display_width, fit_headers,  # noqa: F401
                            fold_title, header_cell, header_folds, message_lines, rule_fits,
                            shortened_name, wrap, wrap_balanced, wrap_plain)
else:
    from linebreak import (clip, cut_at_break, display_width, fit_headers,  # noqa: F401
                           fold_title, header_cell, header_folds, message_lines, rule_fits,
                           shortened_name, wrap, wrap_balanced, wrap_plain)

BOLD, RESET = "\033[1m", "\033[0m"

# “看起来像数字”的单元格：1.301、12,345、-0.5、1e-3、45%、1.2x、1.301–1.377（区间）
_NUM = r"[+-]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_NUMERIC = re.compile(rf"{_NUM}(?:\s*[–—~-]\s*{_NUM})?\s*[%x×]?")
# 空单元格和占位符不影响一列的对齐方式
_PLACEHOLDERS = ("", "-", "–", "—")


def terminal_columns(stream=None):
    """stream（默认 sys.stdout）有多宽：COLUMNS 优先，其次是它所连的终端。它是管道时（… | less）
    字最后还是印在终端上：按 stderr 所连的终端，再不然按控制终端（/dev/tty）的宽度，git 给它的
    分页器也这样定宽。重定向到文件、哪里都没有终端时是 100 列。"""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    stream = stream or sys.stdout
    columns = _columns_of(stream)
    if not columns and _is_pipe(stream):
        columns = _columns_of(sys.stderr) or _controlling_terminal_columns()
    return columns or 100


def _columns_of(stream):
    """stream 所连的终端有几列；不是终端（管道、文件、没有 fileno 的替身 capsys）是 0。"""
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return 0


def _is_pipe(stream):
    """stream 是管道吗（… | less、… | head）：文件、终端、替身都不是。"""
    try:
        return stat.S_ISFIFO(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, ValueError, OSError):
        return False


def _controlling_terminal_columns():
    """控制终端（/dev/tty）有几列；没有控制终端（CI、setsid 起的进程、Windows）是 0。"""
    try:
        with open("/dev/tty", "rb") as tty:
            return os.get_terminal_size(tty.fileno()).columns
    except OSError:
        return 0


def printable(text):
    """别人写的字（模型的回复、服务器的错误信息、文件名）打到终端之前过一遍：控制字符（转义码、
    回车、退格、双向文字控制……）换成 �，换行和制表符换成空格。这样回复里的转义码清不了屏、
    改不了窗口标题。"""
    return "".join(ch if unicodedata.category(ch)[0] != "C" and ch not in "\u2028\u2029"
                   else " " if ch in "\t\n\r" else "\ufffd" for ch in str(text))


# ---------------------------------------------------------------- 表格

def _is_numeric(cell):
    if isinstance(cell, numbers.Number) and not isinstance(cell, bool):
        return True
    return _NUMERIC.fullmatch(str(cell).strip()) is not None


def _right_aligned(rows, j):
    """一列里所有非空单元格都像数字，这一列才右对齐；混排的列整体左对齐，读起来更整齐。"""
    filled = [r[j] for r in rows if str(r[j]).strip() not in _PLACEHOLDERS]
    return bool(filled) and all(_is_numeric(c) for c in filled)


def _pad(text, width, right):
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


def _total(widths):
    """几列并排（列间两个空格）一共多宽。"""
    return sum(widths) + 2 * (len(widths) - 1)


def _centre(text, width, fill):
    """把 text 放在 width 列的正中；fill 是 "-" 时两边画线，标出一个跨列表头管到哪里。"""
    # 横线和字之间留一个空格；画不下够长的横线就不画（linebreak.rule_fits）
    if not rule_fits(display_width(text), width):
        fill = " "
    if fill != " ":
        text = f" {text} "
    gap = width - display_width(text)
    return fill * (gap // 2) + text + fill * (gap - gap // 2)


def _place_groups(headers, groups):
    """groups → [(第一列, 最后一列, 跨列表头, 这几列的短表头)]。写法见 print_table。"""
    placed = []
    for title, spanned in (groups or {}).items():
        names = list(spanned)
        starts = [i for i in range(len(headers) - len(names) + 1)
                  if list(headers[i:i + len(names)]) == names]
        if len(starts) != 1:
            where = f"在表头里有 {len(starts)} 处，不知道是哪一处" if starts else \
                "不是表头里相邻的几列"
            raise ValueError(f"跨列表头 {title!r} 要跨的表头 {names!r} {where}")
        placed.append((starts[0], starts[0] + len(names) - 1, title, list(spanned.values())))
    return placed


def _side_by_side(headers, rows):
    """几张一样的表并排成一张（演示 2 的两种排序：[形状, vs_roofline, vs_best] 两份）时每份几列；
    不是就是 None。每份的第一列是文字列，其余的表头一份一份都一样。"""
    n = len(headers)
    for period in range(2, n // 2 + 1):
        if n % period:
            continue
        starts = range(0, n, period)
        same = all(headers[k] == headers[k % period] for k in range(n) if k % period)
        if same and not any(_right_aligned(rows, k) for k in starts):
            return period
    return None


def _row_names(headers, rows):
    """从第 j 列起的一块要在前面重复哪一列（给各行起名字的那一列）：一般是第一列；几张表并排时是
    j 所在那一份的第一列——第二种排序那一块重复的是它自己的形状列，不是第一种排序的。
    那就是 j 自己时不用重复（None）。"""
    period = _side_by_side(headers, rows) or len(headers)
    keys = [j - j % period for j in range(len(headers))]
    return [None if key == j else key for j, key in enumerate(keys)]


def _packed(widths, columns, keys):
    """一行放不下全部列时分成几块，每块重复给它的行起名字的那一列（keys，见 _row_names；像 pandas
    打印很宽的表），每块尽量满：返回每块的列号。起名字的那一列太宽时先缩短（_names_fitted）；
    缩到 SHORTEST_NAME 列还和某一列放不下时（那一列自己差不多就有终端宽），起名字的那一列单独成块，
    在那一列前面。"""
    blocks = []
    for j in range(1, len(widths)):
        key = keys[j]
        if blocks and _total([widths[c] for c in blocks[-1] + [j]]) <= columns:
            blocks[-1].append(j)
        elif key is not None and widths[key] + 2 + widths[j] <= columns:
            blocks.append([key, j])
        else:
            if key is not None and not any(key in block for block in blocks):
                blocks.append([key])
            blocks.append([j])
    return blocks or [[0]]


# 缩短的名字至少留这么多列（连同"…"）：再窄，剩下的几个字就认不出是哪一行了
SHORTEST_NAME = 8


def _names_fitted(table, columns):
    """起名字的那一列（每块都重复它）和某一列并排就比终端宽时（名字很长）：那一列的数据缩短到
    终端的一半（shortened_name），另一半留给数——只缩到刚好放得下一列的话，每块只有一列，表头
    还要折成好几行。和它要陪的最宽的一列还放不下时再缩，至少 SHORTEST_NAME 列；缩到这么窄也放
    不下时（那一列自己差不多就有终端宽）名字单独成块（_packed），只缩比终端还宽的名字。返回各行的
    单元格，没有要缩的就是原来的。"""
    narrowest = [min(fold.width for fold in folds) for folds in table.short]
    cells = [list(row) for row in table.cells]
    for key in sorted({k for k in table.keys if k is not None}):
        partner = max(narrowest[j] for j, k in enumerate(table.keys) if k == key)
        if narrowest[key] + 2 + partner <= columns:
            continue
        beside = columns - 2 - partner
        room = min(columns // 2, beside) if beside >= SHORTEST_NAME else columns
        for row in cells:
            row[key] = shortened_name(row[key], room)
    return cells


def _header_rows(widths, header_lines, spans, right):
    """表头的各行（每行是各列的文字）：每列的行底部对齐、紧贴分隔线；
    spans = {第一列: (最后一列, 跨列表头的各行)} 画在那几列上面。"""
    below = {first: max(len(hs) for hs in header_lines[first:last + 1])
             for first, (last, _) in spans.items()}
    stacked = [len(title) + below[first] for first, (_, title) in spans.items()]
    depth = max([1] + [len(hs) for hs in header_lines] + stacked)
    rows = []
    for k in range(depth):
        out, j = [], 0
        while j < len(widths):
            last, title = spans.get(j, (j, ()))
            # 第 k 行是跨列表头的第 t 行
            t = k - (depth - below.get(j, 0) - len(title))
            if 0 <= t < len(title):
                fill = "-" if t == len(title) - 1 else " "
                out.append(_centre(title[t], _total(widths[j:last + 1]), fill))
                j = last + 1
                continue
            hs = header_lines[j]
            text = hs[k - depth + len(hs)] if k >= depth - len(hs) else ""
            out.append(_pad(text, widths[j], right[j]))
            j += 1
        rows.append(out)
    return rows


@dataclass(frozen=True)
class _Columns:
    """一张表的各列：表头的各种折法、跨列表头、对齐方式和数据。"""
    # 每列原来的表头的折法
    plain: list
    # 每列在跨列表头下面时的短表头的折法（不在跨列表头下面的列和 plain 一样）
    short: list
    # [(第一列, 最后一列, 跨列表头)]
    groups: list
    # 每列是否右对齐
    right: list
    # 数据行，每格已是字符串
    cells: list
    # 从每列起的一块前面重复哪一列（_row_names）
    keys: list


def _spans(pieces, widths, columns):
    """这一块里的跨列表头 [(第一列, 最后一列, 跨列表头)] → {第一列: (最后一列, 折好的各行)}。
    跨列表头里不可再分的一段比那几列还宽（很少见）时，把最后一列加宽（widths 就地改）。"""
    spans = {}
    for lo, hi, title in pieces:
        lines = fold_title(title, _total(widths[lo:hi + 1]), columns)
        while lines is None:
            widths[hi] += 1
            lines = fold_title(title, _total(widths[lo:hi + 1]), columns)
        spans[lo] = (hi, lines)
    return spans


def _pieces(groups, block):
    """跨列表头落在这一块里的部分 [(块里的第一列, 最后一列, 跨列表头)]。只剩一列的不要：
    一列上面的跨列表头没有意义，那一列用原来的表头。"""
    pieces = []
    for first, last, title in groups:
        inside = [p for p, c in enumerate(block) if first <= c <= last]
        if len(inside) > 1:
            pieces.append((inside[0], inside[-1], title))
    return pieces


def _block_headers(table, block, columns):
    """一块里的跨列表头和每列挑的折法：(跨列表头落在块里的部分, 各列的 Fold)。"""
    pieces = _pieces(table.groups, block)
    shortened = {p for lo, hi, _ in pieces for p in range(lo, hi + 1)}
    options = [(table.short if p in shortened else table.plain)[c] for p, c in enumerate(block)]
    return pieces, fit_headers(options, columns - 2 * (len(block) - 1))


# 分块时最多比较这么多种分法（列很多时只看前面这些）
_MOST_SPLITS = 500


def _blocks(table, columns):
    """分几块由数据行定（_packed：每块尽量满，块数最少）；同样的块数里再挑表头折得最好的分法：
    最差的断点最好，再比表头行数，再比代价。每块尽量满的话，最后那几列的表头常常只能硬挤。"""
    narrowest = [min(fold.width for fold in folds) for folds in table.short]
    packed = _packed(narrowest, columns, table.keys)
    # 有一块连重复的那一列都放不下：只能这样分
    if len(packed) == 1 or any(table.keys[block[0]] is not None for block in packed):
        return packed
    n = len(narrowest)
    cuts = itertools.islice(itertools.combinations(range(2, n), len(packed) - 1), _MOST_SPLITS)

    def block(start, end):
        key = table.keys[start]
        return ([] if key is None else [key]) + list(range(start, end))
    splits = [[block(a, b) for a, b in zip((1, *cut), (*cut, n))] for cut in cuts]
    fitting = [s for s in splits if all(_total([narrowest[c] for c in b]) <= columns for b in s)]

    def badness(split):
        folds = [fold for block in split for fold in _block_headers(table, block, columns)[1]]
        depth = max(len(fold.lines) for fold in folds)
        return max(fold.level for fold in folds), depth, sum(fold.cost for fold in folds)
    return min(fitting, key=badness, default=packed)


def _print_block(table, block, columns):
    """打印表格的一块（block 是它的列号）：折好表头，放上跨列表头，然后是分隔线和数据行。"""
    pieces, picked = _block_headers(table, block, columns)
    widths = [fold.width for fold in picked]
    spans = _spans(pieces, widths, columns)
    flags = [table.right[c] for c in block]
    lines = _header_rows(widths, [fold.lines for fold in picked], spans, flags)
    lines.append(["-" * w for w in widths])
    lines += [[_pad(row[c], w, r) for c, w, r in zip(block, widths, flags)] for row in table.cells]
    for line in lines:
        # 最后一列左对齐时会补空格，rstrip 去掉行尾空格
        print("  ".join(line).rstrip())


def _columns(headers, rows, groups, columns):
    """print_table 要的各列；一行表头就放得下时不用跨列表头，表头一个字不改。"""
    cells = [[str(c) for c in r] for r in rows]
    data_widths = [max((display_width(line[j]) for line in cells), default=0)
                   for j in range(len(headers))]
    placed = _place_groups(headers, groups)
    plain = [header_folds(header_cell(h), d, columns) for h, d in zip(headers, data_widths)]
    short = list(plain)
    if _total([max(fold.width for fold in folds) for folds in plain]) <= columns:
        placed = []
    for first, last, _, shorts in placed:
        short[first:last + 1] = [header_folds(header_cell(h), data_widths[c], columns)
                                 for c, h in enumerate(shorts, first)]
    right = [_right_aligned(rows, j) for j in range(len(headers))]
    spanning = [(first, last, title) for first, last, title, _ in placed]
    return _Columns(plain, short, spanning, right, cells, _row_names(headers, rows))


def print_table(headers, rows, groups=None):
    """打印按显示宽度对齐的表格：数字列右对齐，文字列左对齐，表头跟随所在列。

    表头单元格是字符串（像中文正文一样折行，见 linebreak.break_level），或各段的元组（写表头的人
    指出词在哪里，见 linebreak.header_levels）。比终端宽时把表头折成几行（底部对齐，紧贴分隔线），
    数据行始终一行、各列对齐；数据行本身都放不下时，表格分成几块上下排，每块重复给它的各行起名字
    的那一列：第一列，几张一样的表并排时是每份自己的第一列（_row_names）。名字长得和别的哪一列
    都放不下时，把它中间换成"…"缩短（shortened_name），每块照样有名字。

    groups = {跨列表头: {它跨的表头: 短表头, ...}}，例如
    {"N 个程序后": {"50 个程序后": "50", "100 个程序后": "100"}}：一行表头放不下时，几列共用的
    词提到它们上面只写一次，每列只留自己的那部分。它跨的表头写得和 headers 里一模一样，
    按顺序是相邻的几列；找不到、或者有不止一处对得上时报 ValueError。
    """
    rows = [list(r) for r in rows]
    for i, row in enumerate(rows):
        if len(row) != len(headers):
            raise ValueError(f"第 {i} 行 {row!r} 有 {len(row)} 列，但表头有 {len(headers)} 列")
    columns = terminal_columns()
    table = _columns(headers, rows, groups, columns)
    fitted = _names_fitted(table, columns)
    if fitted != table.cells:
        table = _columns(headers, fitted, groups, columns)
    for k, block in enumerate(_blocks(table, columns)):
        if k:
            print()
        _print_block(table, block, columns)


# ---------------------------------------------------------------- 小节标题

def print_header(title):
    """醒目的小节标题：前面空一行，上下各一条 = 线。比终端宽的标题折成几行，
    = 线和最宽的一行等宽。"""
    lines = wrap_balanced(title, terminal_columns())
    rule = "=" * max(display_width(line) for line in lines)
    print()
    print(rule)
    for line in lines:
        print(line)
    print(rule)


# ---------------------------------------------------------------- 段落

def print_paragraph(text, file=None):
    """一段说明文字：按 file（默认 sys.stdout；stderr 上的说明传 file=sys.stderr）所连终端的
    宽度换行，断行规则和观察要点相同。"""
    for line in wrap_plain(text, terminal_columns(file)):
        print(line.rstrip(), file=file)


# ---------------------------------------------------------------- 一句话（出错、提示）

def print_message(text, file=None):
    """一句话（出错、提示）：按 file（默认 sys.stdout；出错时传 file=sys.stderr）所连终端的宽度
    换行。
    和正文不同的两处：夹在汉字之间的一段英文、代码（{"llm": MockLLM(feedback=...)}）整段挪到
    下一行，不从中间断开；以两个空格开头的行是要照抄的命令，单占一行、从不断在中间
    （比终端还宽时用 shell 的续行符 \\ 分几行）。"""
    for line in message_lines(text, terminal_columns(file)):
        print(line, file=file)


# ---------------------------------------------------------------- 观察要点

def _use_bold():
    # 只有真终端才加粗；管道、文件、NO_COLOR（按 no-color.org，非空即生效）都去掉标记
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _styled_chars(text):
    """'a **b** c' -> [(字符, 是否加粗), ...]；** 本身从不输出。"""
    parts = text.split("**")
    return [(ch, i % 2 == 1) for i, part in enumerate(parts) for ch in part]


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
    columns = terminal_columns()
    print()
    print("观察：")
    for i, item in enumerate(items, 1):
        prefix = f"{i}. "
        indent = " " * display_width(prefix)
        # 至少留 2 列，保证一个汉字也放得下
        width = max(columns - display_width(prefix), 2)
        for k, line in enumerate(wrap(_styled_chars(str(item)), width)):
            print(((prefix if k == 0 else indent) + _render(line, bold_ok)).rstrip())


# ---------------------------------------------------------------- 进度

def duration(seconds):
    """几秒 → "5 秒"、"3 分 20 秒"、"1 小时 5 分" 这样读得出来的时长（四舍五入到秒）。"""
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} 小时 {minutes} 分"
    if minutes:
        return f"{minutes} 分 {secs} 秒"
    return f"{secs} 秒"


def _show(line):
    """在 stderr 上把进度行换成 line（"" 就是擦掉）；stderr 不是终端时什么都不写。
    回到行首、写新的字、再清掉行尾旧字剩下的部分：先清再写的话，两帧之间有一刻整行是空的，
    看起来一闪一闪。"""
    if sys.stderr.isatty():
        sys.stderr.write("\r" + line + "\033[K")
        sys.stderr.flush()


# 估计剩下的时间之前，先看多久：头一秒、头 2% 的活里有载入、预热，按它们推算会差得很远
ESTIMATE_AFTER_SECONDS = 1.0
ESTIMATE_AFTER_FRACTION = 0.02
# 进度行最多每 0.2 秒重画一次：每一步都画的话，步子很小时画比干活还慢
REDRAW_SECONDS = 0.2


class Progress:
    """一件分成 total 步的长活在 stderr 上的进度行：在做什么、按目前的速度还要多久。
    只在 stderr 是终端时显示——重定向到文件或管道时什么都不打，输出保持干净。

    advance(steps, describe)：又做完了 steps 步；describe() 给出"在做什么"那半句，只在真要重画时
    才调用，所以每一步都调用 advance 也不拖慢。知道得还不够多（头一秒、头 2% 的活）时说
    "正在估计还要多久"，不报一个乱猜的数。终端窄时先截短"在做什么"，还要多久总是看得见。
    note(line)：打一行留下来的字（在进度行上面）。clear()：擦掉进度行，往 stdout 打字之前用。
    """

    def __init__(self, total, clock=time.monotonic):
        # clock 是测试用的假钟
        self.total = total
        self.done = 0
        self._clock = clock
        self._start = clock()
        self._drawn = -math.inf

    def advance(self, steps, describe):
        self.done += steps
        now = self._clock()
        if now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        if not sys.stderr.isatty():
            return
        estimate = f"，{self.time_left(now)}"
        # 比终端窄一列：折到第二行的话 \r 只回到第二行行首，第一行的旧进度就留在屏幕上
        columns = terminal_columns(sys.stderr) - 1
        doing = cut_at_break(describe(), columns - display_width(estimate))
        _show(clip(doing + estimate, columns))

    def time_left(self, now):
        """"还要约 X"，或者还在估计时的"正在估计还要多久"。"""
        elapsed = now - self._start
        enough = self.done >= ESTIMATE_AFTER_FRACTION * self.total
        known = elapsed >= ESTIMATE_AFTER_SECONDS and enough
        if not known or self.done == 0:
            return "正在估计还要多久"
        left = elapsed / self.done * max(self.total - self.done, 0)
        # 还有活时不说"0 秒"（duration 四舍五入到秒）
        if 0 < left < 1:
            return "还要不到 1 秒"
        return f"还要约 {duration(left)}"

    def note(self, line):
        """line 打成留下来的一行（不是终端时也打）；下一次 advance 把进度行画在它下面。"""
        _show("")
        print(line, file=sys.stderr, flush=True)
        # 旧的进度行说的是这一行之前的事：下一步一定重画
        self._drawn = -math.inf

    def clear(self):
        _show("")


# ---------------------------------------------------------------- 退出

# 写不下去的错误号：磁盘（或配额）满了、文件太大。它们从来不是程序的错，是输出或要存的文件的地方
_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def output_problem():
    """stdout 用不了时说的那一句；用得了是 None。启动时就关着（… >&-）：印的字没有地方去。
    编码写不下中文（PYTHONIOENCODING=ascii、不是 UTF-8 的 locale）：这句话是英文，写不下中文的
    地方，读得到的只有 ASCII。"""
    if sys.stdout is None:
        return ("标准输出是关着的（>&-），结果没有地方印：去掉 >&-，或者重定向到文件（> 文件）"
                "再运行。")
    encoding = sys.stdout.encoding or "utf-8"
    try:
        "中文".encode(encoding)
        return None
    except UnicodeEncodeError:
        given = os.environ.get("PYTHONIOENCODING")
        source = f"PYTHONIOENCODING={given}" if given else "the locale"
        return (f"This script prints Chinese, but its output encoding {encoding!r} "
                f"(from {source}) cannot write it: run it again with PYTHONIOENCODING=utf-8.")


@contextlib.contextmanager
def stops_cleanly():
    """包住脚本的主体：Ctrl-C 只留一行"已中断。"，退出码 130；stdout 的读端先关了（… | head）就
    安静地退出，退出码 141（和被 SIGPIPE 结束的命令一样）。两种情况都不打印引擎内部的 traceback。
    sys.exit("一句话")：和 Python 自己一样打到 stderr、退出码 1，只是按终端宽度换行
    （print_message）。stdout 用不了（关着、写不下中文）时什么都不做，只说一句（output_problem），
    磁盘满了写不下去时也是一句，退出码都是 1。"""
    unusable = output_problem()
    if unusable:
        print_message(unusable, file=sys.stderr)
        sys.exit(1)
    try:
        yield
        # 管道断了的话在这里报出来，而不是在解释器退出时
        sys.stdout.flush()
    except SystemExit as leaving:
        if not isinstance(leaving.code, str):
            raise
        _show("")
        print_message(leaving.code, file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        _show("")
        print("已中断。", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        _show("")
        # 退出时还要 flush 一次：写进 /dev/null
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)
    except OSError as error:
        if error.errno not in _FULL:
            raise
        _show("")
        print(f"写不下去了（{error.strerror}）：腾出磁盘空间，或者把输出、要存的文件放到别处"
              "再运行。", file=sys.stderr)
        # 写不下的多半是 stdout，退出时它还要 flush 一次：写进 /dev/null
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
