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
  7. 学生自己的提出者在运行里抛出的错：只说它在学生的哪个文件、第几行、说了什么
  8. 命令行：每个脚本都用 OneSentenceParser（标准库的 argparse，错了只说一句）

这个模块不依赖 evolve（没有循环 import），也不挡着 evolve.py 的主线。
"""
import argparse
import ast
import builtins
import difflib
import functools
import inspect
import linecache
import math
import os
import re
import sys
import sysconfig
import traceback
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


# 变体名是表里那一行的名字：空的那一行没有名字，带换行的把那一行拆成两行。长度不限（console 会
# 缩短比终端还宽的名字）
VARIANT_NAME = Kind("有字（不全是空格）、没有换行和别的控制字符的字符串",
                    lambda v: isinstance(v, str) and v.strip() != "" and v.isprintable())


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
    # 名字和汉字之间、汉字和符号、数字之间空一格（"SEEDS 必须是 ≥ 1 的整数"），两边都是汉字时不空
    after = "" if _wide(name[-1]) else " "
    what = f"{name}{after}是{meaning}，" if meaning else f"{name}{after}"
    gap = "" if _wide(kind.says[0]) else " "
    return f"{what}必须是{gap}{kind.says}，收到 {value!r}"


def _wide(ch):
    """ch 是汉字这样占两列的字吗。"""
    return unicodedata.east_asian_width(ch) in "WF"


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
    return TypeError(f"{where}没有参数 {name!r}{hint}可用的参数：{', '.join(known)}")


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


# evolve 每个提案这样问提出者：四个值按这个顺序
PROPOSE = "propose(self, parent, feedback, inspirations, rng)"


def check_proposer(llm):
    """提出者是任何有 propose(parent, feedback, inspirations, rng) 方法的对象
    （一个实例，不是类），propose 接得下这四个值。提出者写在 llm= 里，也写在 Ensemble 的成员
    列表里：那句话说的是收到的值，不说"llm"。"""
    if isinstance(llm, type):
        name = llm.__name__
        raise TypeError(f"提出者应是一个实例，不是类：写成 {name}()（带括号），收到类 {name}")
    # 写成了字符串的一个提出者（"MockLLM()"）：去掉引号就是它
    if isinstance(llm, str) and re.fullmatch(r"[A-Za-z_]\w*\(.*\)", llm.strip(), re.S):
        raise TypeError(f"提出者不是字符串：去掉引号，写成 {llm.strip()}，收到 {llm!r}")
    if not callable(getattr(llm, "propose", None)):
        raise TypeError(f"提出者应是一个有 {PROPOSE.replace('self, ', '')} 方法的对象，"
                        f"例如 MockLLM() 或 llm.py 里的 ChatLLM(...)；收到 {llm!r}")
    written = _propose_signature(llm)
    if written is not None:
        kind = type(llm).__name__
        raise TypeError(f"{kind} 的 propose 要写成 def {PROPOSE}：evolve 每个提案传这四个值，"
                        f"收到 def propose{written}")
    return llm


def _propose_signature(llm):
    """llm.propose 接不下 evolve 给的四个值时，它写成的样子（"(self, parent)"）；接得下，或者
    说不出签名（C 写的）时是 None。"""
    try:
        bound = inspect.signature(llm.propose)
    except (TypeError, ValueError):
        return None
    try:
        bound.bind(None, None, None, None)
        return None
    except TypeError:
        written = getattr(type(llm), "propose", None)
        return str(inspect.signature(written) if inspect.isfunction(written) else bound)


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


# evolve 的这两个参数由脚本开头的常数给，不是一个变体的选项
SET_BY_THE_SCRIPT = {"seed": "SEEDS（每个变体跑种子 0 到 SEEDS−1）", "budget": "BUDGET"}


def variants_problem(variants, check_options):
    """VARIANTS：变体名 → 传给 evolve 的参数；full 要留着。check_options 是 evolve.check_options
    （从外面传进来：这个模块不 import evolve）。"""
    if not isinstance(variants, dict):
        return f"VARIANTS 必须是 dict：变体名 → 传给 evolve 的参数，收到 {type(variants).__name__}"
    if "full" not in variants:
        # 名字差一点（'Full'、'full '）：说出是哪一个，不然学生看着自己写的 full 不知道错在哪
        names = [name for name in variants if isinstance(name, str)]
        close = difflib.get_close_matches("full", names, n=1, cutoff=0.75)
        hint = f"（你写的 {close[0]!r} 要一字不差地写成 'full'）" if close else ""
        return (f"VARIANTS 里少了 'full'{hint}：每条观察都拿别的变体和完整方法比，它要留着；"
                "别的变体都可以删")
    for name, options in variants.items():
        bad_name = problem("VARIANTS 里的变体名", name, VARIANT_NAME, "表里那一行的名字")
        if bad_name:
            return bad_name
        if not isinstance(options, dict):
            example = '{"n_islands": 8}'
            return (f"VARIANTS[{name!r}] 必须是传给 evolve 的参数 dict，例如 {example}，"
                    f"收到 {options!r}")
        given = next((option for option in SET_BY_THE_SCRIPT if option in options), None)
        if given:
            return (f"VARIANTS[{name!r}]：{given} 不是一个变体的选项，由脚本开头的 "
                    f"{SET_BY_THE_SCRIPT[given]} 定，对每个变体都一样")
        try:
            check_options(**options)
        except (TypeError, ValueError) as slip:
            return f"VARIANTS[{name!r}]：{slip}"
    return None


def repeated_key(path, name):
    """path（05 脚本）顶层 name = {...} 里写了两次的键的那一句话（没有句号）；没有就是 None。
    Python 只留后写的那个，前一行就不见了：这在运行时看不出来，只有源码里看得到。源码照
    linecache 读（和 traceback 读的是同一份）。"""
    try:
        tree = ast.parse("".join(linecache.getlines(path)))
    except SyntaxError:
        return None
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        named = any(isinstance(t, ast.Name) and t.id == name for t in targets)
        if not named or not isinstance(node.value, ast.Dict):
            continue
        first = {}
        for key in node.value.keys:
            if not isinstance(key, ast.Constant):
                continue
            if key.value in first:
                line = first[key.value]
                return (f"第 {key.lineno} 行：{name} 里的 {key.value!r} 第 {line} 行已经写过："
                        f"dict 只留后写的那个，第 {line} 行的变体不会跑；改个名字，或者删掉一个")
            first[key.value] = key.lineno
    return None


def settings_problem(seeds, budget, marks, variants, check_options, path=None):
    """05 脚本开头的四个常数里第一处错的那一句话（没有句号）；都对就是 None。path 是脚本自己：
    VARIANTS 里写了两次的键只在它的源码里看得到（repeated_key）。"""
    return (problem("SEEDS", seeds, POSITIVE_INT, "每个变体跑几个随机种子")
            or problem("BUDGET", budget, POSITIVE_INT, "每次 evolve 提出几个程序")
            or marks_problem(marks, budget)
            or (path and repeated_key(path, "VARIANTS"))
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
            said = _undefined(error, frame, line) if issubclass(kind, NameError) else error
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


def _undefined(error, frame, line):
    """拼错的名字那半句：说出那个名字。它在那一行里是一个选项的值（feedback=roofline）时，
    要的是一个字符串：说加上引号；拼写接近脚本里有的名字（或 True、False、None）时问
    "你是不是想写……"；否则说要先 import 或定义它。"""
    name = getattr(error, "name", None) or str(error)
    option = _option_given(name, frame.f_code.co_filename, line)
    if option:
        return f"{option}={name} 里的 {name} 没有加引号：选项的值是文字时写成 {option}=\"{name}\""
    known = [n for n in list(frame.f_globals) + dir(builtins) if not n.startswith("_")]
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"名字 {name!r} 没有定义，你是不是想写 {close[0]!r}？"
    return f"名字 {name!r} 没有定义：要用的东西先在脚本开头 import 或定义"


def _option_given(name, path, line):
    """path 第 line 行里 name 是不是一个关键字参数的值（feedback=roofline，后面不是括号）：
    是就返回那个参数名，不是（或者读不到那一行）是 None。"""
    text = linecache.getline(path, line)
    given = re.search(rf"\b(\w+)\s*=\s*{re.escape(name)}\b(?!\s*[(.\[])", text)
    return given[1] if given else None


# ==== 7. 学生的提出者在运行里出错 ================================================================

class StudentCodeFailed(SystemExit):
    """学生写的代码（自己的提出者）在 evolve 里抛出了异常：像 sys.exit("那几行") 一样结束脚本——
    每个脚本都包着 console.stops_cleanly，它把这几行打到 stderr、退出码 1，不打引擎和进程池的
    traceback。能 pickle：从进程池里的进程传回主进程。"""


# 不是程序的东西是 TypeError，读不成程序的源码是 ValueError：两种 except 都接得住它
class ProposerSlip(TypeError, ValueError):
    """学生的提出者交回了 evolve 收不下的子程序（不是 Program、源码或 None 的东西，读不成程序的
    源码）：消息是一句中文，说是哪个提出者、交回了什么、该交回什么。evolve 第一次收到就抛出。"""


def student_failure(error, who):
    """error 的 traceback 里最里面的一层学生的代码（student_file）：
    "who 出错：文件 第 N 行（在 函数 里：那一行代码）：类型: 消息"。学生的提出者交回了收不下的
    子程序（ProposerSlip）时是 "who：那一句"。traceback 里没有学生的代码（引擎自己的错、Ctrl-C
    这样的）时是 None：调用的一方照常抛出原来的异常。"""
    if isinstance(error, ProposerSlip):
        return f"{who}：{error}"
    frames = traceback.extract_tb(error.__traceback__)
    own = [frame for frame in frames if student_file(frame.filename)]
    if not own:
        return None
    frame = own[-1]
    where = _shown_path(frame.filename)
    code = f"：{frame.line}" if frame.line else ""
    said = _console().printable(f"{type(error).__name__}: {error}")
    return f"{who}出错：{where} 第 {frame.lineno} 行（在 {frame.name} 里{code}）：{said}"


# 讲义自己的两个目录：这里的模块是引擎（05 脚本这样直接运行的文件除外，见 student_file）
_OURS = tuple(os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), *parts))
              + os.sep for parts in ((), ("..", "lecture01")))


def student_file(filename):
    """filename 是学生写的代码吗：不是 Python 自己和装的包（标准库、site-packages、<frozen …>），
    也不是作为模块载入的讲义文件（evolve、checks、runs……）。直接运行的脚本（05 脚本：学生在它
    开头写自己的提出者）、REPL、讲义目录外的文件都算学生的。学生自己在 lecture14/ 里另写一个
    模块再 import 它时，它算讲义的：那时照常打 traceback。"""
    if filename.startswith("<frozen"):
        return False
    path = os.path.normpath(os.path.abspath(filename))
    library = {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    if any(path.startswith(os.path.normpath(root) + os.sep) for root in library if root):
        return False
    return path not in _lecture_modules()


def _lecture_modules():
    """作为模块载入的讲义文件（__main__、spawn 的进程里的 __mp_main__ 是直接运行的脚本，不算）。"""
    files = set()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and name not in ("__main__", "__mp_main__"):
            path = os.path.normpath(os.path.abspath(file))
            if path.startswith(_OURS):
                files.add(path)
    return files


def _shown_path(filename):
    """文件名照学生读的样子：在当前目录下面的写相对路径，别处的写原样。"""
    relative = os.path.relpath(filename) if os.path.isabs(filename) else filename
    return filename if relative.startswith("..") else relative


# ==== 8. 命令行 ===================================================================================

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


# argparse 自己发现的错是英文的（标准库没有中文的翻译）：(它的说法, 我们的说法)，按顺序试
_ARGPARSE_SAYS = (
    (r"unrecognized arguments: (.+)", "不认识的参数：{0}"),
    (r"the following arguments are required: (.+)", "少了参数：{0}"),
    (r"one of the arguments (.+) is required", "{0} 里要给一个"),
    (r"ambiguous option: (\S+) could match (.+)", "{0} 不知道是哪一个，可能是 {1}"),
)
# "argument --plot: …" 里冒号后面的那半句，说的是那个参数
_ARGUMENT_SAYS = (
    (r"expected one argument", "后面要跟一个值"),
    (r"expected at most one argument", "后面最多跟一个值"),
    (r"expected at least one argument", "后面至少要跟一个值"),
    (r"expected (\d+) arguments?", "后面要跟 {0} 个值"),
    (r"not allowed with argument (.+)", "不能和 {0} 一起用"),
    (r"ignored explicit argument (.+)", "后面不跟值，收到 {0}"),
    (r"invalid choice: (.+) \(choose from (.+)\)", "不能是 {0}，可选：{1}"),
    (r"invalid int value: (.+)", "的值要是整数，收到 {0}"),
    (r"invalid float value: (.+)", "的值要是数，收到 {0}"),
    (r"invalid \S+ value: (.+)", "的值不对，收到 {0}"),
)


def argparse_in_chinese(message):
    """argparse 的一句英文错误 → 中文；不认识的说法照原样（参数名、值都在里面）。"""
    about = re.fullmatch(r"argument (\S+): (.+)", message, re.S)
    if about:
        argument, rest = about.groups()
        for english, chinese in _ARGUMENT_SAYS:
            said = re.fullmatch(english, rest, re.S)
            if said:
                return f"{argument} {chinese.format(*said.groups())}"
        return f"{argument}：{rest}"
    for english, chinese in _ARGPARSE_SAYS:
        said = re.fullmatch(english, message, re.S)
        if said:
            return chinese.format(*said.groups())
    return message


class _GivenOnce(argparse.Action):
    """带一个值的参数（--plot FILE）：给了两次时 argparse 只留后一个、什么都不说，前一个就白写了。
    这里说一句，两个值都说出来。"""

    def __call__(self, parser, namespace, values, option_string=None):
        if self.dest in parser.given:
            parser.error(f"{option_string} 给了两次（{parser.given[self.dest]} 和 {values}），"
                         "只能给一次")
        parser.given[self.dest] = values
        setattr(namespace, self.dest, values)


class OneSentenceParser(argparse.ArgumentParser):
    """每个脚本的命令行都用它：标准库的 argparse，只是它自己发现的错（不认识的参数、不是整数……）
    也只说一句——说的是运行的这个脚本（prog），按终端宽度折好，不打印用法，退出码 2；
    --help 按显示宽度折行；带值的参数给了两次也是一句话（_GivenOnce）。"""

    def __init__(self, **options):
        super().__init__(formatter_class=_HelpInColumns, add_help=False, **options)
        # 不写 action 的参数（带一个值）都只能给一次
        self.register("action", None, _GivenOnce)
        self.register("action", "store", _GivenOnce)
        # argparse 自己的这几个字是英文：说成中文
        self._optionals.title = "选项"
        self._positionals.title = "参数"
        self.add_argument("-h", "--help", action="help", help="印出这段用法，然后退出")

    def format_help(self):
        # argparse 在每段的标题后面加半角的冒号（"选项:"）：中文的标题用全角的，和"用法："一样
        text = super().format_help()
        for title in (self._optionals.title, self._positionals.title):
            text = text.replace(f"\n{title}:\n", f"\n{title}：\n")
        return text

    def parse_known_args(self, args=None, namespace=None):
        # 这一次读命令行时给过的参数（_GivenOnce）
        self.given = {}
        return super().parse_known_args(args, namespace)

    def error(self, message):
        said = (f"{self.prog}：命令行参数不对：{argparse_in_chinese(message)}"
                f"（{self.prog} --help 看用法）")
        print(sentence(_console().printable(said)), file=sys.stderr)
        self.exit(2)

