"""
CS349E · 第 14 讲 · checks.py —— 学生写错一个值时得到的那一句话

学生手写的值从好几个地方进来：05 脚本开头的常数、evolve 的参数、MockLLM 的选项、
ChatLLM 的参数、命令行。
它们都用这里的同一套说法：一种值（Kind）有一个判断和半句描述（"≥ 1 的整数"），
错了就是一句中文，说出错的是哪个名字、收到了什么、应是什么；拼写接近时问"你是不是想写……"。

自上而下读：
  1. 几种值（Kind）：整数、计数、有限的数、一段整数
  2. 一句话：problem 返回那句话（没错是 None），require 把它当 ValueError 抛出
  3. 选项和关键字参数：可选值、不认识的参数名、提出者
  4. 列表和冻结的 dataclass 的字段
  5. 05 脚本开头学生改的常数（SEEDS、BUDGET、MARKS、VARIANTS）
  6. 那一块载入时就抛出的错（MockLLM 的选项写错、名字拼错）：sys.excepthook 只说一句话和第几行
  7. 命令行：每个脚本都用 OneSentenceParser（标准库的 argparse，错了只说一句）

这个模块不依赖 evolve（没有循环 import），也不挡着 evolve.py 的主线。
"""
import argparse
import builtins
import difflib
import functools
import inspect
import math
import os
import sys
import unicodedata
from dataclasses import dataclass
from typing import Callable

import numpy as np


# ==== 1. 几种值 ===================================================================================

def is_int(value):
    """Python 或 numpy 的整数（for seed in np.arange(5) 给的是 numpy 整数）；True/False 不算。"""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_finite_number(value):
    """Python 或 numpy 的有限实数（nan、inf 不算）；True/False 不算。"""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return math.isfinite(value)


@dataclass(frozen=True)
class Kind:
    """一种值：test 判断一个值是不是这种，says 是"必须是……"后面的那半句。"""
    says: str
    test: Callable[[object], bool]


POSITIVE_INT = Kind("≥ 1 的整数", lambda v: is_int(v) and v >= 1)
COUNT = Kind("≥ 0 的整数", lambda v: is_int(v) and v >= 0)
POSITIVE_NUMBER = Kind("有限的正数", lambda v: is_finite_number(v) and v > 0)
NON_NEGATIVE_NUMBER = Kind("有限的非负数", lambda v: is_finite_number(v) and v >= 0)
# 开关只认这两个值（check_choice）：不认 "True"、1、None
BOOLS = (True, False)


def printable_text(most):
    """非空、可打印（没有控制字符）、至多 most 个字符的字符串：名字、标签。"""
    def test(value):
        return isinstance(value, str) and 0 < len(value) <= most and value.isprintable()
    return Kind(f"{most} 个字符以内、没有控制字符的非空字符串", test)


def number_between(lo, hi):
    """lo 到 hi 之间（含两端）的有限数。"""
    return Kind(f"{lo} 到 {hi} 之间的数", lambda v: is_finite_number(v) and lo <= v <= hi)


def increasing_ints(lo, hi, hi_name=None):
    """非空、从小到大、不重复的整数序列（tuple 或 list），每个都在 lo 到 hi 之间。
    上限是学生设的另一个常数时给出它的名字（hi_name）：那句话说"≤ BUDGET（BUDGET 现在是 …）"。"""
    def test(values):
        is_sequence = isinstance(values, (tuple, list)) and len(values) > 0
        if not is_sequence or not all(is_int(v) for v in values):
            return False
        increasing = all(a < b for a, b in zip(values, values[1:]))
        return increasing and lo <= values[0] and values[-1] <= hi
    top = f"{hi_name}（{hi_name} 现在是 {hi}）" if hi_name else f"{hi}"
    return Kind(f"从小到大、不重复的整数，每个都 ≥ {lo} 且 ≤ {top}", test)


# ==== 2. 一句话 ===================================================================================

def problem(name, value, kind, meaning=""):
    """name 的值不是 kind 时的那一句话（没有句号，调用的一方决定怎么收尾）；是的话返回 None。
    meaning 是这个名字的意思（"每个变体跑几个随机种子"），学生在脚本里改常数时最需要它。"""
    if kind.test(value):
        return None
    what = f"{name} 是{meaning}，" if meaning else f"{name} "
    # 汉字后面紧跟符号、数字时空一格："必须是 ≥ 1 的整数"
    gap = "" if unicodedata.east_asian_width(kind.says[0]) in "WF" else " "
    return f"{what}必须是{gap}{kind.says}，收到 {value!r}"


def require(name, value, kind, meaning=""):
    """value 是 kind 就原样返回；否则抛出 ValueError（problem 的那句话）。"""
    sentence = problem(name, value, kind, meaning)
    if sentence is not None:
        raise ValueError(sentence)
    return value


def positive_int(name, value):
    """≥ 1 的整数，以 Python int 返回：numpy 的 int32 在 M·N·K 这样的乘积里会悄悄溢出。"""
    return int(require(name, value, POSITIVE_INT))


def sentence(text):
    """退出时的一句话：以句号收尾（原话已经以句号、问号、叹号结尾就不再加），按 stderr 所连终端的
    宽度折好（console.message_lines：命令、代码不从中间断开）。sys.exit(sentence(...)) 打出来就是
    折好的：学生那一块的 except 在 console.stops_cleanly 外面，Python 自己打那句话时也一样。"""
    ended = text if text.endswith(("。", "？", "！")) else text + "。"
    console = _console()
    return "\n".join(console.message_lines(ended, console.terminal_columns(sys.stderr)))


def _console():
    """lecture01/console.py（各讲共用的打印）。它在 ../lecture01：脚本都已把它放进 sys.path；
    单独 import checks 时（测试）放在最后。"""
    sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture01"))
    import console
    return console


# ==== 3. 选项和关键字参数 =========================================================================

def is_choice(value, choices):
    """value 是 choices 之一吗（True 就是 True，不是 "True" 或 1）。"""
    return any(value is c or (type(value) is type(c) and value == c) for c in choices)


def choice_problem(name, value, choices):
    """value 不是 choices 之一时的那一句话（拼写接近时提示真正的可选值）；是的话返回 None。"""
    if is_choice(value, choices):
        return None
    by_text = {str(c): c for c in choices}
    close = difflib.get_close_matches(str(value), list(by_text), n=1)
    hint = f"。你是不是想写 {by_text[close[0]]!r}？" if close else ""
    listed = ", ".join(repr(c) for c in choices)
    return f"{name}={value!r} 不是可选值；可选：{listed}{hint}"


def check_choice(name, value, choices):
    """value 必须是 choices 之一（True 就是 True，不是 "True" 或 1）；
    拼写接近时提示真正的可选值。"""
    text = choice_problem(name, value, choices)
    if text is not None:
        raise ValueError(text)
    return value


def keyword_defaults(func):
    """func 有默认值的参数：名字 → 默认值，按签名的顺序（也就是可以用关键字传的选项）。"""
    parameters = inspect.signature(func).parameters.values()
    return {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}


def keywords(func):
    """func 有默认值的参数名，也就是可以用关键字传的选项。"""
    return list(keyword_defaults(func))


def unknown_keyword(where, name, known):
    """where 不认识参数 name：拼写接近时问"你是不是想写……"，并列出可用的参数。"""
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"，你是不是想写 {close[0]!r}？" if close else "。"
    return TypeError(f"{where}没有参数 {name!r}{hint} 可用的参数：{', '.join(known)}")


def check_keywords(where, known, unknown, elsewhere=None, **given):
    """where 的关键字参数：known 是它认的名字，unknown 是多出来的（拼写接近时提示；是 elsewhere 的
    选项时说该写在哪——MockLLM 的选项写到了 evolve 或变体上是常见的错），given 是 名字=(值, 可选值)。
    """
    if unknown:
        name = next(iter(unknown))
        if elsewhere is not None and name in keywords(elsewhere):
            owner = elsewhere.__name__
            raise TypeError(f"{name} 是 {owner} 的选项，不是 evolve 的参数：要写成 "
                            f"{{\"llm\": {owner}({name}=...)}}（在 VARIANTS 里），"
                            f"或 evolve(..., llm={owner}({name}=...))")
        raise unknown_keyword(where, name, known)
    for name, (value, choices) in given.items():
        check_choice(name, value, choices)


def keywords_checked(where, elsewhere=None):
    """装饰器：函数照写它真的签名（默认值都在里面），学生写错一个关键字参数时得到 check_keywords 的
    那一句话，而不是 Python 的 "unexpected keyword argument"。elsewhere 同 check_keywords。"""
    def decorate(func):
        names = inspect.signature(func).parameters
        known = keywords(func)

        @functools.wraps(func)
        def door(*args, **kwargs):
            unknown = {name: value for name, value in kwargs.items() if name not in names}
            check_keywords(where, known, unknown, elsewhere)
            return func(*args, **kwargs)
        return door
    return decorate


def check_proposer(llm):
    """提出者是任何有 propose(parent, feedback, inspirations, rng) 方法的对象
    （一个实例，不是类）。"""
    if isinstance(llm, type):
        name = llm.__name__
        raise TypeError(f"llm 应是一个提出者的实例，不是类：写成 {name}()（带括号），"
                        f"收到类 {name}")
    if not callable(getattr(llm, "propose", None)):
        raise TypeError("llm 应是提出者：一个有 propose(parent, feedback, inspirations, rng) "
                        "方法的对象，例如 MockLLM() 或 llm.py 里的 ChatLLM(...)；"
                        f"收到 {llm!r}")
    return llm


# ==== 4. 列表和冻结的 dataclass 的字段 ============================================================

def non_empty_list_of(items, kind, what, example):
    """items 是装着 kind 的非空列表（例如形状列表）：以 list 返回。"""
    if isinstance(items, (str, kind)) or not hasattr(items, "__iter__"):
        raise TypeError(f"应是{what}的列表（例如 {example}），收到 {type(items).__name__}")
    items = list(items)
    if not items:
        raise ValueError(f"{what}列表是空的：至少要一个（例如 {example}）")
    odd = next((x for x in items if not isinstance(x, kind)), None)
    if odd is not None:
        got = f"{type(odd).__name__}：{odd!r}"
        raise TypeError(f"{what}列表里应全是 {kind.__name__}，收到一个 {got}")
    return items


def store_positive_ints(obj, fields, where):
    """冻结的 dataclass（Shape、Config）的字段：都是 ≥ 1 的整数，存成 Python int。"""
    for field in fields:
        value = positive_int(f"{where}{field}", getattr(obj, field))
        object.__setattr__(obj, field, value)


# ==== 5. 05 脚本开头的常数 ========================================================================

def marks_problem(marks, budget):
    """MARKS：表里看分数的几个时刻，从小到大、不重复，每个都在 1 到 BUDGET 之间。
    只写了一个数时，那句话说它要写成元组。"""
    within_budget = increasing_ints(1, budget, "BUDGET")
    said = problem("MARKS", marks, within_budget, "表里看分数的几个时刻")
    if said and is_int(marks):
        return f"{said}：一个时刻也写成元组，例如 MARKS = ({marks},)"
    return said


def variants_problem(variants, check_options):
    """VARIANTS：变体名 → 传给 evolve 的参数；full 要留着。check_options 是 evolve.check_options
    （从外面传进来：这个模块不 import evolve）。"""
    if not isinstance(variants, dict):
        return f"VARIANTS 必须是 dict：变体名 → 传给 evolve 的参数，收到 {type(variants).__name__}"
    if "full" not in variants:
        return ("VARIANTS 里少了 'full'：每条观察都拿别的变体和完整方法比，它要留着；"
                "别的变体都可以删")
    for name, options in variants.items():
        if not isinstance(options, dict):
            example = '{"n_islands": 8}'
            return (f"VARIANTS[{name!r}] 必须是传给 evolve 的参数 dict，例如 {example}，"
                    f"收到 {options!r}")
        try:
            check_options(**options)
        except (TypeError, ValueError) as slip:
            return f"VARIANTS[{name!r}]：{slip}"
    return None


def settings_problem(seeds, budget, marks, variants, check_options):
    """05 脚本开头的四个常数里第一处错的那一句话（没有句号）；都对就是 None。"""
    return (problem("SEEDS", seeds, POSITIVE_INT, "每个变体跑几个随机种子")
            or problem("BUDGET", budget, POSITIVE_INT, "每次 evolve 提出几个程序")
            or marks_problem(marks, budget)
            or variants_problem(variants, check_options))


# ==== 6. 05 脚本里学生改的那一块 ==================================================================

def settings_excepthook(path):
    """给 sys.excepthook 用的函数。05 脚本（path）学生改的那一块在载入时就建好 MockLLM(...)，
    写错的选项当场抛出 TypeError / ValueError，拼错的名字（MockLLm、false）抛出 NameError，
    都比开跑前的 settings_problem 早：这样的错只说一句话和它在脚本里的第几行，不打 traceback。
    别的异常照常打 traceback。语法错（少了逗号）Python 在运行任何一行之前就报了，到不了这里。"""
    def hook(kind, error, traceback):
        top = _top_level(path, traceback)
        if top is not None and issubclass(kind, (TypeError, ValueError, NameError)):
            frame, line = top
            said = _undefined(error, frame) if issubclass(kind, NameError) else error
            print(sentence(f"设置有误：第 {line} 行：{said}"), file=sys.stderr)
        else:
            sys.__excepthook__(kind, error, traceback)
    return hook


def _top_level(path, traceback):
    """traceback 经过 path 的顶层（不在哪个函数里）时：(那一层的 frame, 第几行)；没经过是 None。"""
    while traceback is not None:
        code = traceback.tb_frame.f_code
        if code.co_filename == path and code.co_name == "<module>":
            return traceback.tb_frame, traceback.tb_lineno
        traceback = traceback.tb_next
    return None


def _undefined(error, frame):
    """拼错的名字那半句：说出那个名字，拼写接近脚本里有的名字（或 True、False、None）时问
    "你是不是想写……"，否则说要先 import 或定义它。"""
    name = getattr(error, "name", None) or str(error)
    known = [n for n in list(frame.f_globals) + dir(builtins) if not n.startswith("_")]
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"名字 {name!r} 没有定义，你是不是想写 {close[0]!r}？"
    return f"名字 {name!r} 没有定义：要用的东西先在脚本开头 import 或定义"


# ==== 7. 命令行 ===================================================================================

class _HelpInColumns(argparse.HelpFormatter):
    """--help 按显示宽度折行（一个汉字占两列）、放得进终端：argparse 自己按字符数折，
    中文的说明会比终端宽一倍。"""

    def __init__(self, prog):
        console = _console()
        super().__init__(prog, width=console.terminal_columns(sys.stdout))
        self._wrap = console.wrap_plain

    def add_usage(self, usage, actions, groups, prefix=None):
        super().add_usage(usage, actions, groups, "用法：" if prefix is None else prefix)

    def _split_lines(self, text, width):
        return [line.rstrip() for line in self._wrap(" ".join(text.split()), width)]

    def _fill_text(self, text, width, indent):
        lines = self._wrap(" ".join(text.split()), width - len(indent))
        return "\n".join(indent + line.rstrip() for line in lines)


class OneSentenceParser(argparse.ArgumentParser):
    """每个脚本的命令行都用它：标准库的 argparse，只是它自己发现的错（不认识的参数、不是整数……）
    也只说一句——说的是运行的这个脚本（prog），按终端宽度折好，不打印用法，退出码 2；
    --help 按显示宽度折行。"""

    def __init__(self, **options):
        super().__init__(formatter_class=_HelpInColumns, add_help=False, **options)
        # argparse 自己的这几个字是英文：说成中文
        self._optionals.title = "选项"
        self.add_argument("-h", "--help", action="help", help="印出这段用法，然后退出")

    def error(self, message):
        said = f"{self.prog}：命令行参数不对：{message}（{self.prog} --help 看用法）"
        print(sentence(_console().printable(said)), file=sys.stderr)
        self.exit(2)

