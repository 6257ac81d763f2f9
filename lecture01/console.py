"""各讲共用的终端打印工具：对齐表格、小节标题、编号的观察要点、进度，以及脚本的干净退出。

课程输出里中英文、数字混排很多。终端里一个汉字占两列，直接用 len() 对齐会错位，
所以这里所有宽度都走同一个 display_width()：宽字符（W/F）算 2 列，组合附加符号算 0 列，
ANSI 转义码算 0 列，其余算 1 列。

所有输出都用 print() 写到 sys.stdout，并且在调用时才去取 sys.stdout，
这样 pytest 的 capsys、重定向到文件都能正常工作。

终端宽度：设置了 COLUMNS 环境变量就用它（测试、想要宽输出时）；否则用输出所连终端的实际宽度；
不是终端（管道、文件）时是 100 列——所以重定向出来的文本每行都不超过 100 列。
"""

import contextlib
import math
import numbers
import os
import re
import sys
import time
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
_NBSP = "\u00a0"                  # 不断行的空格：表头一段里的空格，打印时还原成普通空格


def _char_width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(s):
    """字符串在终端里占几列（ANSI 颜色码不占宽度）。"""
    return sum(_char_width(ch) for ch in _ANSI.sub("", s))


def terminal_columns(stream=None):
    """stream（默认 sys.stdout）有多宽：COLUMNS 优先，其次是它所连的终端，都没有就是 100 列。"""
    env = os.environ.get("COLUMNS", "")
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return os.get_terminal_size((stream or sys.stdout).fileno()).columns or 100
    except (AttributeError, ValueError, OSError):    # 管道、文件、没有 fileno 的替身（capsys）
        return 100


def printable(text):
    """别人写的字（模型的回复、服务器的错误信息、文件名）打到终端之前过一遍：控制字符（转义码、回车、退格、
    双向文字控制……）换成 �，换行和制表符换成空格。这样回复里的转义码清不了屏、改不了窗口标题。"""
    return "".join(ch if unicodedata.category(ch)[0] != "C" and ch not in "\u2028\u2029"
                   else " " if ch in "\t\n\r" else "\ufffd" for ch in str(text))


def clip(text, width, mark=""):
    """按显示宽度截到 width 列以内；真的截掉了东西，就在末尾放 mark（例如 "…"），连它一起不超过 width。"""
    if display_width(text) <= width:
        return text
    n = used = 0
    room = width - display_width(mark)
    while used + _char_width(text[n]) <= room:     # 停得下来：整段比 width 宽
        used += _char_width(text[n])
        n += 1
    return text[:n] + mark


# ---------------------------------------------------------------- 断行
# 断行的规则写成"每个字符前面能不能断"（ok[i]），正文和表头各有一套；切块、贪心换行两者共用。

def _kinsoku_ok(a, b):
    """避头尾：b 不是不放行首的标点，a 也不是不放行尾的标点。"""
    return b not in _NO_BREAK_BEFORE and a not in _NO_BREAK_AFTER


def _prose_breaks(text):
    """正文：汉字之间、汉字与 ASCII 之间可以断；连续的窄字符（单词、数字如 1.301）是一个整体。

    讲义在中文里用 ASCII 引号 "，它不分开闭，只能数：单数个是开引号，粘着后面的字；双数个是闭引号，
    粘着前面的字。这样引号不会孤零零地留在行尾（得不出"）或行首。
    """
    ok, quotes = [False], 0
    for a, b in zip(text, text[1:]):
        quotes += a == '"'                             # 到 a 为止数过的引号
        opening = a == '"' and quotes % 2 == 1         # a 是开引号
        closing = b == '"' and quotes % 2 == 1         # b 是闭引号
        narrow = _char_width(a) < 2 and _char_width(b) < 2
        ok.append(not (narrow or unicodedata.combining(b) or opening or closing) and _kinsoku_ok(a, b))
    return ok


def _keep_together(part):
    """段里面的空格换成不断行的空格；段两头的空格照旧可以断（("在 ", "100 个") 在"在"后面可以断）。"""
    core = part.strip(" ")
    start = part.index(core) if core else 0
    return part[:start] + core.replace(" ", _NBSP) + part[start + len(core):]


def _header_breaks(cell):
    """表头单元格 → (文字, 每个字符前能不能断)。中文不用空格分词，机器看不出词在哪里，所以由写表头的人说：
    字符串在空格处断；元组 ("跑内核", "次数") 列出的就是词，只在各段之间断（段里的空格不断："1000 个后"；段两头的空格可以断）。"""
    if isinstance(cell, str):
        return cell, [False] * len(cell)
    parts = [_keep_together(str(p)) for p in cell]
    ok = []
    for part in parts:
        ok += [bool(ok)] + [False] * (len(part) - 1)
    return "".join(parts), ok


def _tokens(chars, ok):
    """按断点切成换行时不可再分的块，None 表示原文里的空白（空白处总能断开）。"""
    tokens = []
    for (ch, bold), can_break in zip(chars, ok):
        if ch.isspace() and ch != _NBSP:
            if tokens and tokens[-1] is not None:
                tokens.append(None)
        elif tokens and tokens[-1] is not None and not can_break:
            tokens[-1].append((ch, bold))
        else:
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


def _wrap(chars, width, ok=None):
    """贪心换行：chars 是 (字符, 是否加粗) 列表，ok 是断点（默认按正文的规则），返回若干行，每行也是这样的列表。"""
    lines, used, space = [[]], 0, False
    ok = _prose_breaks("".join(ch for ch, _ in chars)) if ok is None else ok
    for token in _tokens(chars, ok):
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


def _wrap_plain(text, width, ok=None):
    """不带加粗的文字换行，返回字符串列表。"""
    return ["".join(ch for ch, _ in line) for line in _wrap([(ch, False) for ch in text], width, ok)]


def _longest_token(text, ok):
    """最宽的不可再分的块有几列：比它还窄就只能硬切。"""
    chars = [(ch, False) for ch in text]
    return max((sum(_char_width(ch) for ch, _ in t) for t in _tokens(chars, ok) if t), default=0)


# ---------------------------------------------------------------- 表格

def _is_numeric(cell):
    if isinstance(cell, numbers.Number) and not isinstance(cell, bool):
        return True
    return _NUMERIC.fullmatch(str(cell).strip()) is not None


def _pad(text, width, right):
    fill = " " * (width - display_width(text))
    return fill + text if right else text + fill


def _wrap_header(text, ok, width):
    """表头从后往前贪心折行：后面的行尽量满，括号里的限定语（"（化简后）"）整块落在最后一行。"""
    n = len(text)
    backwards = [False] + [ok[n - k] for k in range(1, n)]           # 倒过来的文字里，每个字符前面能不能断
    lines = _wrap([(ch, False) for ch in reversed(text)], width, backwards)
    return ["".join(ch for ch, _ in reversed(line)).replace(_NBSP, " ") for line in reversed(lines)]


def _header_choices(cell, data_width):
    """这一列表头的几种折法 [(列宽, 各行)]：从一行开始，行数越多列越窄；不能让列变窄的折法不要。"""
    text, ok = _header_breaks(cell)
    by_lines = {}
    for w in range(display_width(text), _longest_token(text, ok) - 1, -1):
        lines = _wrap_header(text, ok, w)
        width = max([data_width] + [display_width(line) for line in lines])
        if len(lines) not in by_lines or width < by_lines[len(lines)][0]:
            by_lines[len(lines)] = (width, lines)
    choices = []
    for n in sorted(by_lines):
        if not choices or by_lines[n][0] < choices[-1][0]:
            choices.append(by_lines[n])
    return choices


def _fewest_lines(choices, budget):
    """每列挑一种折法，使总列宽不超过 budget、表头总行数最少；放不下返回 None。"""
    best = {0: (0, [])}                                   # 已用的列宽 → (表头总行数, 各列挑的行)
    for options in choices:
        reached = {}
        for used, (n, picked) in best.items():
            for width, lines in options:
                total = (n + len(lines), picked + [lines])
                if used + width <= budget and total[0] < reached.get(used + width, (math.inf,))[0]:
                    reached[used + width] = total
        best = reached
    return min(best.items(), key=lambda kv: (kv[1][0], kv[0]))[1][1] if best else None


def _fit_headers(headers, data_widths, columns):
    """把表头折成几行，使整张表不超过 columns 列；返回每列表头的各行。

    先求最少要几行表头，行数相同时让折行的列尽量少。数据单元格从不拆开，表头只在词与词之间断；
    折到最窄还放不下，就用最窄的折法——宁可超宽，也不截断数据、不拆词。
    """
    choices = [_header_choices(h, d) for h, d in zip(headers, data_widths)]
    budget = columns - 2 * (len(headers) - 1)
    for depth in range(1, max((len(c[-1][1]) for c in choices), default=1) + 1):
        picked = _fewest_lines([[o for o in c if len(o[1]) <= depth] for c in choices], budget)
        if picked is not None:
            return picked
    return [c[-1][1] for c in choices]


def _one_line_width(headers, data_widths):
    """表头都不折时整张表有多宽。"""
    return sum(max(d, display_width(_header_breaks(h)[0])) for h, d in zip(headers, data_widths)) + 2 * (len(headers) - 1)


def _centre(text, width, fill):
    """把 text 放在 width 列的正中；fill 是 "-" 时两边画线，标出一个跨列表头管到哪里。"""
    if fill != " " and display_width(text) + 2 <= width:
        text = f" {text} "
    gap = width - display_width(text)
    return fill * (gap // 2) + text + fill * (gap - gap // 2)


def print_table(headers, rows, groups=()):
    """打印按显示宽度对齐的表格：数字列右对齐，文字列左对齐，表头跟随所在列。

    表头单元格是字符串或各段的元组（见 _header_breaks）。比终端宽时把表头折成几行（底部对齐，紧贴分隔线），
    数据行始终一行、各列对齐。groups 是 [(第一列, 跨列表头, 这几列的短表头)]：一行表头放不下时，
    几列共用的词（"N 个程序后"）提到它们上面只写一次，每列只留自己的那部分（"50"、"100"）。
    """
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
    data_widths = [max((display_width(line[j]) for line in cells), default=0) for j in range(len(headers))]
    columns = terminal_columns()
    if _one_line_width(headers, data_widths) <= columns:
        groups = ()
    headers = list(headers)
    for first, _, shorts in groups:
        headers[first:first + len(shorts)] = shorts
    header_lines = _fit_headers(headers, data_widths, columns)
    widths = [max([d] + [display_width(h) for h in hs]) for d, hs in zip(data_widths, header_lines)]
    depth = max((len(hs) for hs in header_lines), default=1)
    spans = {}                                            # 第一列 → (最后一列, 跨列表头的各行, 它下面的行数)
    for first, title, shorts in groups:
        last = first + len(shorts) - 1
        text, ok = _header_breaks(title)
        widths[last] += max(0, _longest_token(text, ok) - sum(widths[first:last + 1]) - 2 * (last - first))
        lines = _wrap_header(text, ok, sum(widths[first:last + 1]) + 2 * (last - first))
        below = max(len(hs) for hs in header_lines[first:last + 1])
        spans[first] = (last, lines, below)
        depth = max(depth, len(lines) + below)

    def header_line(k):
        out, j = [], 0
        while j < len(widths):
            last, lines, below = spans.get(j, (j, [], 0))
            t = k - (depth - below - len(lines))                         # 第 k 行是跨列表头的第 t 行
            if 0 <= t < len(lines):
                out.append(_centre(lines[t], sum(widths[j:last + 1]) + 2 * (last - j), "-" if t == len(lines) - 1 else " "))
                j = last + 1
                continue
            hs = header_lines[j]
            out.append(_pad(hs[k - depth + len(hs)] if k >= depth - len(hs) else "", widths[j], right[j]))
            j += 1
        return out

    def emit(line):
        # 最后一列左对齐时会补空格，rstrip 去掉行尾空格
        print("  ".join(line).rstrip())

    for k in range(depth):
        emit(header_line(k))
    emit("-" * w for w in widths)
    for line in cells:
        emit(_pad(c, w, r) for c, w, r in zip(line, widths, right))


# ---------------------------------------------------------------- 小节标题

def _balanced(text, width):
    """和贪心换行一样少的行，但各行尽量一样长：找出行数不变的最窄宽度（不留孤零零的两三个字）。"""
    lines = _wrap_plain(text, width)
    for narrower in range(_longest_token(text, _prose_breaks(text)), width):
        candidate = _wrap_plain(text, narrower)
        if len(candidate) == len(lines):
            return candidate
    return lines


def print_header(title):
    """醒目的小节标题：前面空一行，上下各一条 = 线。比终端宽的标题折成几行，= 线和最宽的一行等宽。"""
    lines = _balanced(title, terminal_columns())
    rule = "=" * max(display_width(line) for line in lines)
    print()
    print(rule)
    for line in lines:
        print(line)
    print(rule)


# ---------------------------------------------------------------- 段落

def print_paragraph(text):
    """一段说明文字：按终端宽度换行，断行规则和观察要点相同。"""
    for line in _wrap_plain(text, terminal_columns()):
        print(line.rstrip())


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
        for k, line in enumerate(_wrap(_styled_chars(str(item)), width)):
            print(((prefix if k == 0 else indent) + _render(line, bold_ok)).rstrip())


# ---------------------------------------------------------------- 进度

def progress(text):
    """长时间运行时在 stderr 上显示一行会被覆盖的进度；text 为空就擦掉。
    只在 stderr 是终端时显示——重定向到文件或管道时什么都不打，输出保持干净。"""
    if sys.stderr.isatty():
        # 截到比终端窄一列：折到第二行的话 \r 只回到第二行行首，第一行的旧进度就留在屏幕上
        sys.stderr.write("\r\033[K" + clip(text, terminal_columns(sys.stderr) - 1))
        sys.stderr.flush()


def duration(seconds):
    """几秒 → "5 秒"、"3 分 20 秒"、"1 小时 5 分" 这样读得出来的时长（四舍五入到秒）。"""
    minutes, secs = divmod(int(seconds + 0.5), 60)
    hours, minutes = divmod(minutes, 60)
    if hours:
        return f"{hours} 小时 {minutes} 分"
    if minutes:
        return f"{minutes} 分 {secs} 秒"
    return f"{secs} 秒"


# 估计剩下的时间之前，先看多久：头一秒、头 2% 的活里有载入、预热，按它们推算会差得很远
ESTIMATE_AFTER_SECONDS = 1.0
ESTIMATE_AFTER_FRACTION = 0.02
REDRAW_SECONDS = 0.2          # 进度行最多每 0.2 秒重画一次：每一步都画的话，步子很小时画比干活还慢


class Progress:
    """一件分成 total 步的长活在 stderr 上的进度行：在做什么、按目前的速度还要多久。

    advance(steps, describe)：又做完了 steps 步；describe() 给出"在做什么"那半句，只在真要重画时才调用，
    所以每一步都调用 advance 也不拖慢。知道得还不够多（头一秒、头 2% 的活）时说"正在估计还要多久"，不报一个乱猜的数。
    """

    def __init__(self, total, clock=None):
        # clock 是测试用的假钟（默认 time.monotonic）
        self.total = total
        self.done = 0
        self._clock = clock or time.monotonic
        self._start = self._clock()
        self._drawn = -math.inf

    def advance(self, steps, describe):
        self.done += steps
        now = self._clock()
        if now - self._drawn < REDRAW_SECONDS:
            return
        self._drawn = now
        progress(f"{describe()}，{self.time_left(now)}")

    def time_left(self, now):
        """"还要约 X"，或者还在估计时的"正在估计还要多久"。"""
        elapsed = now - self._start
        known = elapsed >= ESTIMATE_AFTER_SECONDS and self.done >= ESTIMATE_AFTER_FRACTION * self.total
        if not known or self.done == 0:
            return "正在估计还要多久"
        left = elapsed / self.done * max(self.total - self.done, 0)
        return f"还要约 {duration(left)}"

    def clear(self):
        progress("")


# ---------------------------------------------------------------- 退出

@contextlib.contextmanager
def stops_cleanly():
    """包住脚本的主体：Ctrl-C 只留一行"已中断。"，退出码 130；stdout 的读端先关了（… | head）就安静地退出，
    退出码 141（和被 SIGPIPE 结束的命令一样）。两种情况都不打印引擎内部的 traceback。"""
    try:
        yield
        sys.stdout.flush()                    # 管道断了的话在这里报出来，而不是在解释器退出时
    except KeyboardInterrupt:
        progress("")
        print("已中断。", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        progress("")
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # 退出时还要 flush 一次：写进 /dev/null
        sys.exit(141)
