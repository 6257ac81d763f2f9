"""
CS349E · 第 14 讲 · code_manipulation.py —— 源码 → 规则：程序的"文本那一面"

evolve.py 里的程序是有序的规则表；render 把它写成 Python 源码。这个模块做反方向：读一段源码（学生
手写的、真模型回复的），只认一个小子集，逐句翻译成"区间格子 → Config 的字段"，并且只在 Python 真
会照这些规则执行时才接受。它不依赖 evolve（没有循环 import）：evolve.parse_program 用它，再把结果
变成 Program。从不执行源码。

自上而下读：
  1. 子集：认什么、不认什么，拒绝时一句中文（第几行、哪里不允许）
  2. 条件 → 格子的并（and 相交、or 相并、否定；格子本身的代数在 boxes.py）
  3. 语句 → 分支：if/elif/else、return Config(...)；
     return 之后的代码也要在子集里（Python 也会编译它）
  4. parse_source：整段源码 → 分支（按顺序第一条命中的生效，覆盖所有形状）
  5. program_source：反方向，规则表 → 源码（evolve.render 用它）
从模型的回复里找出代码（code_blocks）只有真模型要，它在 real_llm/prompt.py。
"""
import ast
import math
import re
from dataclasses import dataclass, fields as dataclass_fields

from boxes import FULL, UNBOUNDED, VARS, is_empty, meet, uncovered

# 更长的源码不解析（100 KB）：解析和检查的时间都有上限
MAX_SOURCE_CHARS = 100_000
# 展开 or、嵌套 if 之后最多的分支数：再多就不像一个启发式，化简、检查也变慢
MAX_BRANCHES = 64
# 整数字面量的上限：形状和内核参数都是 32 位整数
MAX_LITERAL = 2**31 - 1
_FLIPPED = {ast.Lt: ast.Gt, ast.LtE: ast.GtE, ast.Gt: ast.Lt, ast.GtE: ast.LtE, ast.Eq: ast.Eq}


# ==== 1. 子集 =====================================================================================

class ProgramError(ValueError):
    """源码不在程序的子集里。消息是一句中文：第几行、哪里不允许。"""


class ProgramSyntaxError(ProgramError):
    """源码根本不是合法的 Python（小模型常这样）。"""


class _Refused(Exception):
    def __init__(self, node, why):
        super().__init__(why)
        self.line, self.why = getattr(node, "lineno", None), why


def python_lines(src):
    """按 Python 的规矩分行：只有 \\n、\\r\\n、\\r 是换行（str.splitlines 还认 \\f、\\u2028……，行号
    就对不上）。"""
    return re.split(r"\r\n|\r|\n", src)


def _refusal(src, line, why):
    """一句拒绝的话：第几行、为什么，再附上那一行（太长就截断）。"""
    if line is None:
        return ProgramError(why)
    lines = python_lines(src)
    code = lines[line - 1].strip() if line <= len(lines) else ""
    code = code if len(code) <= 60 else code[:57] + "..."
    return ProgramError(f"第 {line} 行：{why}（{code}）")


ONLY_ONE_DEF = "只能有一个 def choose_config(M, N, K)"
ARITHMETIC = "不允许算术：只能拿 M、N、K 和整数字面量比较"


def _another_def(node):
    if node.name == "choose_config":
        return "不允许第二个 def choose_config"
    return f"不允许另一个 def（{node.name}）：" + ONLY_ONE_DEF


def _assignment(node):
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    stored = [n.id for n in names if isinstance(n.ctx, ast.Store)]
    rebound = [name for name in stored if name in ("Config", "choose_config")]
    return f"不允许重新绑定 {rebound[0]}" if rebound else "不允许赋值"


def _unary(node):
    if isinstance(node.op, ast.Not):
        return "不允许 not：把比较反过来写（例如 not M > 16 写成 M <= 16）"
    return ARITHMETIC


# 不在子集里的语法 → 一句中文（按顺序找第一个对得上的）；
# def、赋值、名字、一元运算的那句话要看节点里的内容
_REFUSALS = (
    (ast.FunctionDef, _another_def),
    ((ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr), _assignment),
    (ast.Name, lambda node: f"不认识的名字 {node.id}：只能用 M、N、K 和整数字面量"),
    (ast.UnaryOp, _unary),
    ((ast.Import, ast.ImportFrom), "不允许 import"),
    (ast.AsyncFunctionDef, "不允许 async def：" + ONLY_ONE_DEF),
    ((ast.Lambda, ast.ClassDef), "不允许定义函数或类：" + ONLY_ONE_DEF),
    ((ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
      ast.GeneratorExp), "不允许循环"),
    ((ast.Yield, ast.YieldFrom, ast.Await), "不允许 yield / await：函数就不再是普通函数了"),
    (ast.Global, "不允许 global"), (ast.Nonlocal, "不允许 nonlocal"), (ast.Break, "不允许 break"),
    (ast.Continue, "不允许 continue"), (ast.Delete, "不允许 delete"),
    (ast.Call, "只能调用 Config(...)"),
    (ast.BinOp, ARITHMETIC),
)


def _why_not(node):
    """不在子集里的语法 → 一句中文。"""
    if isinstance(node, ast.Expr):
        return _why_not(node.value)
    for kinds, why in _REFUSALS:
        if isinstance(node, kinds):
            return why(node) if callable(why) else why
    return (f"不允许这样写（{type(node).__name__}）："
            "只能用 if/elif/else、and/or、比较、return Config(...)")


def _refused_expr(node, otherwise):
    """表达式里不在子集的东西：调用、算术、not、不认识的名字有专门的话，别的说 otherwise。"""
    unknown_name = isinstance(node, ast.Name) and node.id not in VARS
    if isinstance(node, (ast.Call, ast.BinOp, ast.UnaryOp)) or unknown_name:
        return _Refused(node, _why_not(node))
    return _Refused(node, otherwise)


def _int_literal(node, what):
    if not (isinstance(node, ast.Constant) and type(node.value) is int):
        raise _Refused(node, f"{what}只能是整数字面量")
    if node.value > MAX_LITERAL:
        raise _Refused(node, f"{what}太大：整数字面量最大 {MAX_LITERAL:,}（32 位整数）")
    return node.value


# ==== 2. 条件 → 格子 ==============================================================================

def _capped(node, boxes):
    if len(boxes) > MAX_BRANCHES:
        raise _Refused(node, f"展开后超过 {MAX_BRANCHES} 个分支，太复杂了")
    return boxes


def _union(node, boxes):
    """格子的并：去掉重复的和空的。全是空的就留一个——写出来却走不到的分支也要检查。"""
    kept = list(dict.fromkeys(b for b in boxes if not is_empty(b)))
    return _capped(node, kept or boxes[:1])


def _and(node, xs, ys):
    """两个"格子的并"的交集（DNF 相乘）。"""
    return _union(node, [meet(a, b) for a in xs for b in ys])


def _negate(node, boxes):
    """"不在这些格子里" → 格子的并：每个格子之外是至多 6 个半空间，逐个相交。"""
    out = [FULL]
    for box in boxes:
        outside = []
        for j, (lo, hi) in enumerate(box):
            below = [(0, lo)] if lo > 0 else []
            above = [(hi, math.inf)] if hi < math.inf else []
            outside += [FULL[:j] + (half,) + FULL[j + 1:] for half in below + above]
        out = _and(node, out, outside)
    return out


def _comparison(var, op, c):
    """var op c → 格子；M < c 就是 M <= c − 1，M >= c 就是 M > c − 1，M == c 就是 (c − 1, c]。"""
    intervals = {ast.Lt: (0, c - 1), ast.LtE: (0, c), ast.Gt: (c, math.inf),
                 ast.GtE: (c - 1, math.inf), ast.Eq: (c - 1, c)}
    lo, hi = intervals[op]
    j = VARS.index(var)
    return FULL[:j] + ((max(lo, 0), max(hi, 0)),) + FULL[j + 1:]


def _is_var(node):
    return isinstance(node, ast.Name) and node.id in VARS


def _compare_box(node):
    """一个（可以连写的）比较 → 一个格子。"""
    box = FULL
    operands = [node.left] + node.comparators
    for a, op, b in zip(operands, node.ops, operands[1:]):
        if type(op) not in _FLIPPED:
            raise _Refused(node, "只能用 <、<=、>、>=、== 比较")
        if _is_var(b) and not _is_var(a):
            # 5 < M 就是 M > 5
            a, b, op = b, a, _FLIPPED[type(op)]()
        if not _is_var(a):
            raise _refused_expr(a, "每个比较的一边必须是 M、N 或 K")
        if _is_var(b):
            raise _Refused(b, "M、N、K 只能和整数字面量比较，不能互相比较")
        if not isinstance(b, ast.Constant):
            raise _refused_expr(b, "M、N、K 只能和整数字面量比较")
        box = meet(box, _comparison(a.id, type(op), _int_literal(b, "比较的另一边")))
    return box


def _condition_boxes(node):
    """if 的条件 → 格子的并（每个格子是 M、N、K 上的区间）。"""
    if isinstance(node, ast.Constant) and type(node.value) is bool:
        return [FULL] if node.value else []
    if isinstance(node, ast.Compare):
        return [_compare_box(node)]
    if not isinstance(node, ast.BoolOp):
        raise _refused_expr(node, "条件只能是 M、N、K 和整数字面量的比较（<、<=、>、>=、==），"
                                  "用 and、or 连起来")
    parts = [_condition_boxes(v) for v in node.values]
    if isinstance(node.op, ast.Or):
        return _union(node, [b for p in parts for b in p])
    boxes = [FULL]
    for p in parts:
        boxes = _and(node, boxes, p)
    return boxes


# ==== 3. 语句 → 分支 ==============================================================================
# 翻译靠"第一条命中的生效"：if 的主体一定 return 时，后面的分支不用再写"不满足这个条件"；
# 主体可能不 return（落到 if 后面的代码）时，else/elif 才要加上条件的否定。变量都是 ≥ 1 的整数。

@dataclass(frozen=True)
class Branch:
    # ((lo, hi) for M, N, K)
    box: tuple
    # Config 的字段 → 整数
    fields: dict
    # return 所在的行
    line: int


def _config_call(node, ret, fields):
    """return 后面的 Config(...) → 字段字典：字段是整数字面量，按位置或按名字给，每个恰好一次。"""
    calls_config = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    if not (calls_config and node.func.id == "Config"):
        raise _Refused(ret, "return 只能返回 Config(...)，字段都是整数字面量")
    if len(node.args) > len(fields):
        raise _Refused(node, f"Config 最多 {len(fields)} 个位置参数（{', '.join(fields)}）")
    kw = {}
    for name, value in list(zip(fields, node.args)) + [(k.arg, k.value) for k in node.keywords]:
        if name is None:
            raise _Refused(node, "Config 不能用 **")
        if name not in fields:
            raise _Refused(node, f"Config 没有字段 {name}；字段是 {', '.join(fields)}")
        if name in kw:
            raise _Refused(node, f"Config 的字段 {name} 给了两次")
        kw[name] = _int_literal(value, f"Config 的 {name} ")
        if kw[name] < 1:
            raise _Refused(node, f"Config 的 {name} 必须 ≥ 1，收到 {kw[name]}")
    missing = [f for f in fields if f not in kw]
    if missing:
        raise _Refused(node, "Config 缺少字段 " + "、".join(missing))
    return kw


def _is_docstring(s):
    is_constant = isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
    return is_constant and isinstance(s.value.value, str)


def _block(stmts, fields):
    """一串语句 → (分支 [Branch]，是否每条路都 return)。
    return 之后的语句走不到，不产生分支；但 Python 照样编译它们（yield 让函数变成生成器，给
    Config 赋值让它变成局部变量），所以它们也必须在子集里。"""
    branches, done = [], False
    for s in stmts:
        if isinstance(s, ast.Return):
            branch = Branch(FULL, _config_call(s.value, s, fields), s.lineno)
            branches, done = (branches if done else _capped(s, branches + [branch])), True
        elif isinstance(s, ast.If):
            more, if_done = _if_chain(s, fields)
            if not done:
                branches, done = _capped(s, branches + more), if_done
        elif not (isinstance(s, ast.Pass) or _is_docstring(s)):
            raise _Refused(s, _why_not(s))
    return branches, done


def _guarded(node, guard, branches):
    """每个分支再加上"要走到这里"的条件 guard（格子的并）。"""
    guarded = [Branch(meet(g, b.box), b.fields, b.line) for g in guard for b in branches]
    return _capped(node, guarded)


def _if_chain(node, fields):
    """if/elif/else 链（循环着走 elif，长链也不递归）。"""
    # passed：走到这一支要满足的"前面那些条件都不成立"
    branches, passed, done = [], [FULL], True
    while True:
        cond = _condition_boxes(node.test)
        body, body_done = _block(node.body, fields)
        branches = _capped(node, branches + _guarded(node, _and(node, passed, cond), body))
        # 主体可能落到链后面：后面的分支得排除这个条件
        if not body_done:
            passed, done = _and(node, passed, _negate(node, cond)), False
        if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            continue
        rest, rest_done = _block(node.orelse, fields)
        every_path_returns = done and rest_done and bool(node.orelse)
        return _capped(node, branches + _guarded(node, passed, rest)), every_path_returns


def _plain_header(func):
    """函数头正好是 def choose_config(M, N, K):——没有注解、默认值、/、*、装饰器、类型参数。"""
    a = func.args
    names_only = [x.arg for x in a.args] == list(VARS) and not a.defaults
    no_annotations = func.returns is None and all(x.annotation is None for x in a.args)
    nothing_else = not (a.posonlyargs or a.vararg or a.kwonlyargs or a.kwarg or func.decorator_list
                        or getattr(func, "type_params", None))
    return names_only and no_annotations and nothing_else


def _the_function(tree):
    """模块里只能有文档字符串和一个 def choose_config(M, N, K)。"""
    func = None
    for node in tree.body:
        if _is_docstring(node):
            continue
        if not (isinstance(node, ast.FunctionDef) and node.name == "choose_config") or func:
            raise _Refused(node, _why_not(node))
        if not _plain_header(node):
            raise _Refused(node, "函数头必须正好是 def choose_config(M, N, K):")
        func = node
    if func is None:
        raise _Refused(None, "没有找到 def choose_config(M, N, K)")
    return func


# ==== 4. parse_source =============================================================================

def parse_source(src, fields):
    """源码 → [Branch]：按顺序第一条命中的生效，覆盖所有形状。fields 是 Config 的字段名（按位置参数
    的顺序）。不在子集里、或者有形状会走到函数末尾（Python 返回 None），就抛 ProgramError。"""
    if not isinstance(src, str):
        raise TypeError(f"源码应是字符串（str），收到 {type(src).__name__}")
    if len(src) > MAX_SOURCE_CHARS:
        raise ProgramError(f"源码有 {len(src):,} 个字符，超过上限 {MAX_SOURCE_CHARS:,}（100 KB）")
    try:
        func = _the_function(ast.parse(src))
        branches, done = _block(func.body, tuple(fields))
        missed = None if done else uncovered([b.box for b in branches])
        if missed:
            where = "M={}, N={}, K={}".format(*missed)
            raise _Refused(func, f"{where} 时走到函数末尾也没有 return（Python 会返回 None）")
        return branches
    except SyntaxError as e:
        where = f"第 {e.lineno} 行：" if e.lineno else ""
        raise ProgramSyntaxError(f"{where}语法错误：{e.msg}") from None
    # 源码里有空字符
    except ValueError as e:
        raise ProgramSyntaxError(f"源码解析失败：{e}") from None
    except (RecursionError, MemoryError):
        raise ProgramError("源码嵌套太深，解析不了") from None
    except _Refused as e:
        raise _refusal(src, e.line, e.why) from None


# ==== 5. program_source：规则表 → 源码 ============================================================

def config_source(cfg):
    """Config(BM=…, …)：字段按定义的顺序，都写名字。"""
    fields = ", ".join(f"{f.name}={getattr(cfg, f.name)}" for f in dataclass_fields(cfg))
    return f"Config({fields})"


def _condition(var, lo, hi):
    if hi == lo + 1:
        return f"{var} == {hi}"
    if lo == 0:
        return f"{var} <= {hi}"
    if hi == math.inf:
        return f"{var} > {lo}"
    return f"{lo} < {var} <= {hi}"


def rule_condition(bounds):
    """一条规则的条件，照源码的写法："M <= 128 and K > 14336"（没有界的变量不写，都没有是
    True）。"""
    bounded = [(v, lo, hi) for v, (lo, hi) in zip(VARS, bounds) if (lo, hi) != UNBOUNDED]
    return " and ".join(_condition(v, lo, hi) for v, lo, hi in bounded) or "True"


def program_source(p):
    """有 rules（每条有 bounds、cfg）和 default 的程序 → 一个 if/return 链，parse_source 读回来是同
    样的规则。"""
    lines = ["def choose_config(M, N, K):"]
    for r in p.rules:
        lines.append(f"    if {rule_condition(r.bounds)}:")
        lines.append(f"        return {config_source(r.cfg)}")
    lines.append(f"    return {config_source(p.default)}")
    return "\n".join(lines) + "\n"
