"""各讲共用的断行规则：中英文、数字混排的文字在终端里占几列，哪里能断开，怎样折成几行。

console.py 用它给正文换行、给表头折行。终端里一个汉字占两列，直接用 len() 对齐会错位，
所以所有宽度都走同一个 display_width()：宽字符（W/F）算 2 列，组合附加符号算 0 列，
ANSI 转义码算 0 列，其余算 1 列。

自上而下读：
  1. 宽度和避头尾（哪些标点不放在行首、行尾）
  2. 断点：每个字符前面断开有多不得已（等级）
  3. 正文换行：贪心，汉字之间都能断；一句话（出错、提示）里的代码和要照抄的命令不从中间断开
  4. 表头折行：一列表头的几种折法，整张表挑最好的那一组
  5. 截短：一行放不下、又不能折行时（进度行、表里的名字）留下哪些字
"""
import functools
import itertools
import math
import re
import shlex
import unicodedata
from dataclasses import dataclass

_ANSI = re.compile(r"\x1b\[[0-9;]*m")

# 避头尾：开括号、开引号不放在行尾；闭括号、闭引号和点号不放在行首。换行时它们粘在相邻的字上
_OPENING = set("（《「『“‘(")
_CLOSING = set("）》」』”’)")
_NO_BREAK_BEFORE = _CLOSING | set("，。、；：！？,.;:!?%")
_NO_BREAK_AFTER = _OPENING


def char_width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def display_width(s):
    """字符串在终端里占几列（ANSI 颜色码不占宽度）。"""
    return sum(char_width(ch) for ch in _ANSI.sub("", s))



# ---------------------------------------------------------------- 断点
# 断行的规则写成"每个字符前面断开有多不得已"（等级），正文和表头共用。等级从好到差：
#   SPACE 词与词之间的空格；SCRIPT 文字换类（汉字 ↔ 字母、数字，中间有没有空格都算）和标点前后；
#   BRACKETED 括号里的这类地方；HAN 两个汉字之间；ANYWHERE 哪儿都行（拆开一个英文词或数字）。
# None 是从不断开：避头尾、落单的引号、组合附加符号。正文在 HAN 及更好的地方都能断；
# 表头先只用好的，好的放不下才用下一等。
SPACE, SCRIPT, BRACKETED, HAN, ANYWHERE = range(5)


def _glued(a, b, quoted):
    """a、b 从不分开：避头尾、组合附加符号，或者一个引号会落单。

    讲义在中文里用 ASCII 引号 "，它不分开闭，只能数：quoted 是 a 之后在一对引号里面，这时 a 是开引号
    （粘着后面的字）或者 b 是闭引号（粘着前面的字）。这样引号不会孤零零地留在行尾（得不出"）或行首。
    """
    quote_alone = quoted and '"' in (a, b)
    return quote_alone or unicodedata.combining(b) or b in _NO_BREAK_BEFORE or a in _NO_BREAK_AFTER


def break_level(a, b, quoted, bracketed):
    """a、b 之间断开的等级。quoted：a 之后在一对 ASCII 引号里面；bracketed：a 之后在括号里面。"""
    if a.isspace() or b.isspace():
        return SPACE
    if _glued(a, b, quoted):
        return None
    wide_a, wide_b = char_width(a) == 2, char_width(b) == 2
    if not (wide_a or wide_b):
        return ANYWHERE
    punctuation = unicodedata.category(a)[0] == "P" or unicodedata.category(b)[0] == "P"
    # 连接号、破折号（"最小–最大"）粘着前面的字：断在它前面和断在两个汉字之间一样不得已
    if (wide_a and wide_b and not punctuation) or b in "–—":
        return HAN
    return BRACKETED if bracketed else SCRIPT


def _break_levels(text):
    """每个字符前面断开的等级（第一个字符前面是 None）。"""
    levels, quotes, depth = [None], 0, 0
    for a, b in zip(text, text[1:]):
        quotes += a == '"'
        depth += (a in _OPENING) - (a in _CLOSING)
        levels.append(break_level(a, b, quotes % 2 == 1, depth > 0))
    # 汉字和字母、数字之间的空格（"在 100 个"）只是排版留的空，不是词与词之间：
    # 断在那里和文字换类一样
    for i in range(1, len(text) - 1):
        if text[i] == " " and {char_width(text[i - 1]), char_width(text[i + 1])} == {1, 2}:
            levels[i] = levels[i + 1] = SCRIPT
    return levels


def prose_breaks(text):
    """正文：汉字之间、汉字与字母数字之间、标点前后都能断；连续的窄字符（单词、1.301）不拆开。"""
    return [level is not None and level <= HAN for level in _break_levels(text)]


# ---------------------------------------------------------------- 正文换行

def _tokens(chars, ok):
    """按断点切成换行时不可再分的块，None 表示原文里能断开的空白（正文里空白处总能断开；
    一句话里一段代码中间的空格不能，见 message_breaks）。"""
    tokens = []
    for (ch, bold), can_break in zip(chars, ok):
        if ch.isspace() and can_break:
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
    while n < len(token) and used + char_width(token[n][0]) <= width:
        used += char_width(token[n][0])
        n += 1
    n = max(n, 1)
    return token[:n], token[n:]


def wrap(chars, width, breaks=None):
    """按正文的断点贪心换行：chars 是 (字符, 是否加粗) 列表，返回若干行，每行也是这样的列表。
    breaks 是每个字符前面能不能断开（默认 prose_breaks）。"""
    text = "".join(ch for ch, _ in chars)
    lines, used, space = [[]], 0, False
    for token in _tokens(chars, prose_breaks(text) if breaks is None else breaks):
        if token is None:
            space = True
            continue
        gap = 1 if space and used else 0
        space = False
        w = sum(char_width(ch) for ch, _ in token)
        if used and used + gap + w > width:
            lines.append([])
            used, gap = 0, 0
        if gap:
            lines[-1].append((" ", False))
            used += 1
        # 只会发生在行首：块本身比一整行还宽
        while w > width - used:
            head, token = _split_to_fit(token, width - used)
            lines[-1].extend(head)
            lines.append([])
            used = 0
            w = sum(char_width(ch) for ch, _ in token)
        lines[-1].extend(token)
        used += w
    return lines


def wrap_plain(text, width):
    """不带加粗的文字换行，返回字符串列表。"""
    return ["".join(ch for ch, _ in line) for line in wrap([(ch, False) for ch in text], width)]


def wrap_balanced(text, width):
    """和贪心换行一样少的行，但各行尽量一样长：找出行数不变的最窄宽度（不留孤零零的两三个字）。"""
    lines = wrap_plain(text, width)
    for narrower in range(longest_token(text), width):
        candidate = wrap_plain(text, narrower)
        if len(candidate) == len(lines):
            return candidate
    return lines


# 一句话里夹在汉字之间的一段 ASCII：一条命令、一个名字、一段代码（python3 -m venv .venv、
# {"llm": MockLLM(feedback=...)}）。两头的空格不算在里面
_CODE = re.compile(r"[!-~](?:[ -~]*[!-~])?")


def message_breaks(text, width):
    """一句话（出错、提示）的断点：和正文一样，只是一段代码（_CODE）里的空格不断开，整段挪到下一行；
    它一段就比 width 还宽时才在它的空格处断开。"""
    breaks = prose_breaks(text)
    for code in _CODE.finditer(text):
        if " " in code[0] and display_width(code[0]) <= width:
            breaks[code.start() + 1:code.end()] = [False] * (code.end() - code.start() - 1)
    return breaks


def wrap_message(text, width):
    """一句话按 message_breaks 换行，返回字符串列表。"""
    chars = [(ch, False) for ch in text]
    lines = wrap(chars, width, message_breaks(text, width))
    return ["".join(ch for ch, _ in line) for line in lines]


# 一句话里要照抄的命令单占一行，这样缩进
COMMAND_INDENT = "  "


def command_lines(command, width):
    """一条要照抄的命令印成几行：缩进 COMMAND_INDENT，整条放得下就一行；放不下才在空格处断开，
    行尾加 " \\" 续行（shell 的写法：照抄几行仍是同一条命令），续行再多缩进两格。"""
    # 按 shell 的规矩分词，引号照原样留着：带空格的路径（已经加了引号）是一个词
    lexer = shlex.shlex(command, posix=False)
    lexer.whitespace_split = True
    words = list(lexer)
    lines = [COMMAND_INDENT + words[0]]
    for k, word in enumerate(words[1:], 2):
        joined = f"{lines[-1]} {word}"
        # 后面还有词时，这一行可能还要放下续行符 " \\"
        room = width - (2 if k < len(words) else 0)
        if display_width(joined) <= room:
            lines[-1] = joined
        else:
            lines[-1] += " \\"
            lines.append(COMMAND_INDENT * 2 + word)
    return lines


def message_lines(text, width):
    """一句话（console.print_message）印的各行：以 COMMAND_INDENT 开头的行是命令
    （command_lines），别的行按 wrap_message 换行。"""
    lines = []
    for part in text.split("\n"):
        if part.startswith(COMMAND_INDENT):
            lines += command_lines(part.strip(), width)
        else:
            lines += [line.rstrip() for line in wrap_message(part, width)]
    return lines


def longest_token(text):
    """正文里最宽的不可再分的块有几列：比它还窄就只能硬切。"""
    tokens = _tokens([(ch, False) for ch in text], prose_breaks(text))
    return max((sum(char_width(ch) for ch, _ in t) for t in tokens if t), default=0)


# ---------------------------------------------------------------- 表头折行
# 表头单元格是字符串（按上面的等级断开），或各段的元组（写表头的人指出词在哪里）。一列表头有很多种
# 折法；整张表挑折法时先求用到的断点都尽量好，再求表头的行数尽量少，再求断点的代价之和最小。

# 各等级的一个断点的代价：差一等贵三倍，宁可多用几个好断点，也不用一个差的
_COST = (1, 3, 9, 27, 81)


def header_cell(cell):
    """表头单元格：字符串，或者各段的元组（给成列表也当元组）；别的（数，像 [1, 4, 16] 这样的
    批大小）和数据单元格一样写成字符串。"""
    if isinstance(cell, (tuple, list)):
        return tuple(str(part) for part in cell)
    return str(cell)


# 英文的名字和数（vs_roofline、no_evolution、1000）：表头里从不拆开
_WORD = re.compile(r"[A-Za-z0-9_]+")


def _whole_words(text, levels, columns):
    """levels 里去掉英文名字、数里面的断点（就地改）；只有比 columns 还宽的才照样能拆。"""
    for word in _WORD.finditer(text):
        if word.end() - word.start() <= columns:
            levels[word.start() + 1:word.end()] = [None] * (word.end() - word.start() - 1)
    return levels


def _inside_a_word(level):
    """元组一段（写表头的人标出的一个词）里面的断点：空格、文字换类处降到 HAN 一等；两个汉字之间
    是把这个词拆开，和拆开一个英文词一样不得已（ANYWHERE）。不然"模型 s"里拆开"模型"和断在
    空格上一样好。"""
    if level is None:
        return None
    return ANYWHERE if level == HAN else max(level, HAN)


def header_levels(cell, columns):
    """表头单元格 → (文字, 每个字符前面断开的等级)。

    元组 ("跑内核", "次数") 里，段与段之间（连同段两头的空格：("在 ", "100 个")）是 SPACE 一等；
    段里面的断点降级（_inside_a_word），别的都放不下才用。英文的名字和数（vs_roofline）里面
    从不断开，除非它一个就比终端（columns 列）还宽。
    """
    if isinstance(cell, str):
        return cell, _whole_words(cell, _break_levels(cell), columns)
    # 段两头的空格单独算一段：它两边都是段与段之间
    pieces = []
    for part in cell:
        core = part.strip(" ")
        lead = part.index(core) if core else len(part)
        pieces += [p for p in (part[:lead], core, part[lead + len(core):]) if p]
    text = "".join(pieces)
    levels = [_inside_a_word(level) for level in _break_levels(text)]
    _whole_words(text, levels, columns)
    for start in itertools.accumulate(len(p) for p in pieces[:-1]):
        levels[start] = SPACE
    return text, levels


def _break_cost(text, i, level):
    """断在 text[i] 前面的代价。同一等里再分好坏：括号外侧是短语的边界，和空格一样好；"的"和量词"个"
    后面也是（"进数据库的 / 程序"、"100 个 / 程序后"），比一般的两个汉字之间好；括号里的限定语
    是一个整体，断在它里面的两个汉字之间加倍地贵。"""
    a, b = text[i - 1], text[i]
    if level == SCRIPT and (b in _OPENING or a in _CLOSING):
        return _COST[SPACE]
    if level == HAN and a in "的个":
        return _COST[BRACKETED]
    depth = sum((ch in _OPENING) - (ch in _CLOSING) for ch in text[:i])
    return _COST[level] * (2 if level == HAN and depth > 0 else 1)


def _line_widths(text):
    """width(start, end)：text[start:end] 印成一行有多宽（两头的空格不印）。"""
    prefix = list(itertools.accumulate([0] + [char_width(ch) for ch in text]))

    def width(start, end):
        line = text[start:end]
        first = start + len(line) - len(line.lstrip(" "))
        last = end - len(line) + len(line.rstrip(" "))
        return max(prefix[last] - prefix[first], 0)
    return width


def _fold(text, levels, limit, width):
    """把 text 折进 width 列、只在等级 ≤ limit 处断开，每种行数各取代价最小的折法：
    {行数: (代价, 各行, 断开的位置, 最宽一行的宽度)}。代价相同时后面的行更满：
    括号里的限定语（"（化简后）"）整块落在最后一行。"""
    allowed = [i for i, level in enumerate(levels) if level is not None and level <= limit]
    cuts = [0] + allowed + [len(text)]
    line_width = _line_widths(text)
    # best[位置][行数] = (代价, 各行开头的位置)：text[:位置] 折成这么多行最便宜的折法
    best = {0: {0: (0, ())}}
    for n, end in enumerate(cuts[1:], 1):
        best[end] = {}
        # 开头从近往远试：行越来越宽，放不下了就不用再往远试
        for start in reversed(cuts[:n]):
            if line_width(start, end) > width:
                break
            # 全是空格的一段不算一行
            if not text[start:end].strip(" "):
                continue
            step = _break_cost(text, start, levels[start]) if start else 0
            for k, (cost, starts) in best[start].items():
                if cost + step <= best[end].get(k + 1, (math.inf,))[0]:
                    best[end][k + 1] = (cost + step, starts + (start,))
    folds = {}
    for k, (cost, starts) in best[len(text)].items():
        spans = list(zip(starts, starts[1:] + (len(text),)))
        widest = max(line_width(s, e) for s, e in spans)
        folds[k] = (cost, [text[s:e].strip(" ") for s, e in spans], starts[1:], widest)
    return folds


@dataclass(frozen=True)
class Fold:
    """一列表头的一种折法。"""
    # 这一列占几列：折出来最宽的一行和数据比，取宽的
    width: int
    lines: tuple
    # 用到的最差的断点（一行没折就是 SPACE）
    level: int
    # 各断点的代价之和
    cost: int


def _alone(text, levels, cuts):
    """有没有一个汉字被词里面的断点隔开、单独占一行（"种" / "子"）。
    元组里本来就是一个字的词不算。"""
    bounds = [0, *cuts, len(text)]
    for start, end in zip(bounds, bounds[1:]):
        line = text[start:end].strip(" ")
        inside = [levels[i] > SPACE for i in (start, end) if 0 < i < len(text)]
        if len(line) == 1 and char_width(line) == 2 and any(inside):
            return True
    return False


def header_folds(cell, data_width, columns):
    """一列表头的各种折法：每一等断点、每种宽度、每种行数各取最便宜的；比数据还窄的不要（列宽反正是
    数据的宽度，行还更多）。一个汉字被隔开、单独占一行，和拆开一个英文词一样不得已。
    比终端（columns 列）窄的英文名字和数不拆开：列宽至少是它。"""
    text, levels = header_levels(cell, columns)
    return _folds(text, tuple(levels), data_width)


# 折法只看文字、断点和数据的宽度，不看终端多宽（终端只在一个词比它还宽时改变断点）：记下来，
# 同一张表换个宽度再打印时不用重算
@functools.lru_cache(maxsize=4096)
def _folds(text, levels, data_width):
    found = {}
    for limit in sorted({SPACE} | {level for level in levels if level is not None}):
        width = max(display_width(text), data_width)
        while width >= max(data_width, 1):
            folded = _fold(text, levels, limit, width).values()
            for cost, lines, cuts, widest in folded:
                level = max([SPACE] + [levels[i] for i in cuts])
                if _alone(text, levels, cuts):
                    level = ANYWHERE
                key = (max(data_width, widest), len(lines), level)
                if key not in found or cost < found[key].cost:
                    found[key] = Fold(key[0], tuple(lines), level, cost)
            # 比这些折法里最宽的一行还宽的宽度，折出来都一样：直接跳到比它窄一列
            width = max((widest for *_, widest in folded), default=0) - 1
    return tuple(found.values())


def _cheapest(options, budget):
    """每列挑一种折法，使总列宽不超过 budget、代价之和最小（再比总宽）；放不下返回 None。"""
    # 已用的列宽 → (代价之和, 各列挑的折法)
    best = {0: (0, ())}
    for folds in options:
        reached = {}
        for (used, (cost, picked)), fold in itertools.product(best.items(), folds):
            now = used + fold.width
            if now <= budget and cost + fold.cost < reached.get(now, (math.inf,))[0]:
                reached[now] = (cost + fold.cost, picked + (fold,))
        best = reached
    return min(best.items(), key=lambda kv: (kv[1][0], kv[0]))[1][1] if best else None


def fit_headers(options, budget):
    """每列挑一种折法，使各列宽之和不超过 budget：按（最差的断点, 表头行数）从好到差，
    找第一种放得下的，再挑其中代价最小的。最窄也放不下（一列数据就比终端宽）时每列用最窄的。"""
    depths = range(1, max(len(fold.lines) for folds in options for fold in folds) + 1)
    for limit, depth in itertools.product(range(len(_COST)), depths):
        allowed = [[f for f in folds if f.level <= limit and len(f.lines) <= depth]
                   for folds in options]
        if all(allowed) and sum(min(f.width for f in folds) for folds in allowed) <= budget:
            return _cheapest(allowed, budget)
    return [min(folds, key=lambda f: f.width) for folds in options]


# 跨列表头两边的横线每边至少这么多个"-"（还要和字隔一个空格），不然不画：一两个"-"读起来像减号
RULE_DASHES = 3


def rule_fits(text_width, width):
    """text_width 列宽的跨列表头放在 width 列里，两边画得下横线吗。"""
    return text_width + 2 * (1 + RULE_DASHES) <= width


def fold_title(title, width, columns):
    """跨列表头在 width 列里的折法：断点最好；再是两边留得下横线（标出它管到哪里，读起来是个标题）；
    再是行最少。比终端（columns 列）窄的英文名字和数不拆开。放不下返回 None。"""
    folds = [fold for fold in header_folds(header_cell(title), 0, columns) if fold.width <= width]
    if not folds:
        return None

    def badness(fold):
        return fold.level, not rule_fits(fold.width, width), len(fold.lines), fold.cost, fold.width
    return min(folds, key=badness).lines


# ---------------------------------------------------------------- 截短
# 一行放不下、又不能折行时（进度行、表里的名字），留下哪些字。

def clip(text, width, mark=""):
    """按显示宽度截到 width 列以内；真的截掉了东西，就在末尾放 mark（例如 "…"），
    连它一起不超过 width。"""
    if display_width(text) <= width:
        return text
    n = used = 0
    room = width - display_width(mark)
    # 停得下来：整段比 width 宽
    while used + char_width(text[n]) <= room:
        used += char_width(text[n])
        n += 1
    return text[:n] + mark


def shortened_name(text, width):
    """比 width 宽的名字留下开头和结尾、中间换成"…"（连它一起不超过 width 列）：学生的变体名常常
    只在开头或只在结尾不同（mine_fast、mine_slow；fast_mine、slow_mine），两头都留着才分得开。"""
    if display_width(text) <= width:
        return text
    room = width - display_width("…")
    head = clip(text, (room + 1) // 2)
    tail = clip(text[::-1], room - display_width(head))[::-1]
    return head + "…" + tail


def cut_at_break(text, width):
    """text 放不进 width 列时，截在最后一个能断开的地方（和正文换行一样），末尾加"…"；
    截到了括号里面的话，整个括号都不要（"（2…"读不出什么）。"""
    if display_width(text) <= width:
        return text
    if width < 2:
        return ""
    head = wrap_plain(text, width - 1)[0].rstrip()
    opened = max(head.rfind("（"), head.rfind("("))
    if opened > max(head.rfind("）"), head.rfind(")")):
        head = head[:opened]
    return head + "…"
