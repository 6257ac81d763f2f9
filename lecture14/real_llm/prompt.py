"""
CS349E · 第 14 讲 · prompt.py —— 给真模型看什么，许它写什么，怎么读它写的

自上而下读：
  1. 会自己写出式子的符号：evolve 的 registers、shared_memory、launch_conditions 算在它上面，
     写出的就是提示里的硬件上限——计时模型一改，提示跟着改，不会悄悄对不上
  2. 提示：build_messages —— 配置空间、硬件上限、inspiration、父程序、逐形状反馈、要求。
     想改"模型看到什么"就改这里
  3. 语法：gbnf —— 约束解码时服务器只采样 render 写得出的那种程序
  4. 回复 → 程序：code_blocks 找出代码块，第一个解析得了的交给 parse_program，从不执行
     （code_blocks 只有真模型要，所以在这里，不在方法的 code_manipulation.py 里）
"""
from dataclasses import dataclass

import numpy as np

from code_manipulation import MAX_LITERAL, ProgramError, ProgramSyntaxError
from evolve import (CONFIG_CHOICES, CONFIGS, MAX_RULES, VEC_BYTES, launch_conditions,
                    outside_search_space, parse_program, render)


# ==== 1. 会自己写出式子的符号 =====================================================================
# evolve 的启动条件只用 + − × ÷ 和比较，所以把字段换成 Formula，同一个函数就写出自己的式子。
# 优先级：加减 1，乘除 2，名字和数 3。括号只在需要时加；a * (b * c) 写成 a * b * c
# （乘法满足结合律）。

_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def _arithmetic(op, flipped=False):
    """Formula 的一个运算符方法：self op other（flipped 时是 other op self，例如 2 * BM）。"""
    def method(self, other):
        left, right = (_formula(other), self) if flipped else (self, _formula(other))
        return _combine(left, op, right)
    return method


def _comparison(op):
    """Formula 的一个比较方法：写出一条 Comparison，不是 True/False。"""
    def method(self, other):
        return Comparison(self, op, _formula(other))
    return method


@dataclass(frozen=True)
class Formula:
    """一个式子：text 是写出来的样子，op 是最外层的运算（名字和数没有，是 None）。"""
    text: str
    op: str = None

    __add__, __radd__ = _arithmetic("+"), _arithmetic("+", flipped=True)
    __sub__, __rsub__ = _arithmetic("-"), _arithmetic("-", flipped=True)
    __mul__, __rmul__ = _arithmetic("*"), _arithmetic("*", flipped=True)
    __truediv__, __rtruediv__ = _arithmetic("/"), _arithmetic("/", flipped=True)
    __le__, __ge__ = _comparison("<="), _comparison(">=")
    __lt__, __gt__ = _comparison("<"), _comparison(">")

    def precedence(self):
        return _PRECEDENCE.get(self.op, 3)


def _formula(x):
    """数也当成式子（没有运算）。"""
    return x if isinstance(x, Formula) else Formula(str(x))


def _combine(left, op, right):
    """left op right，只在需要时加括号：左边优先级低时；右边优先级低，或同级而不是
    a * (b * c)、a + (b + c) 这种可以拉平的时候（a − (b − c)、a / (b * c) 要括号）。"""
    mine = _PRECEDENCE[op]
    associative = op in ("*", "+") and right.op == op
    same_level = right.precedence() == mine
    right_needs = right.precedence() < mine or (same_level and not associative)
    left_text = f"({left.text})" if left.precedence() < mine else left.text
    right_text = f"({right.text})" if right_needs else right.text
    return Formula(f"{left_text} {op} {right_text}", op)


@dataclass(frozen=True)
class Comparison:
    """一条不等式：左边、比较符、右边。"""
    left: Formula
    op: str
    right: Formula


def hardware_limits(hw):
    """三条启动条件（launch_conditions），各是一条 Comparison：字段是 Formula("BM") 这样的名字。"""
    fields = {field: Formula(field) for field in CONFIG_CHOICES}
    return launch_conditions(fields, hw)


# ==== 2. 提示 =====================================================================================
# 用英文写：小模型几乎只在英文上训练过，大模型中英文都行。学生可以随意改写、翻译、删减。

SYSTEM = ("You are an expert GPU kernel engineer. You improve a small Python heuristic that "
          "picks the tiling config of a matrix-multiplication kernel. You answer with exactly one "
          "```python code block.")

# 表里只列见过更快配置的形状（vs_best < 0.99）：其余的行全是 "1.00  -"，小模型读不过来
WORTH_A_ROW = 0.99
# 最多列几个：差得最多的在前
MAX_ROWS = 12


def config_args(cfg):
    """Config(BM, BN, BK, warps, stages, split_k) 的位置参数写法：表里短，模型也能照抄。"""
    return "Config(" + ", ".join(str(getattr(cfg, f)) for f in CONFIG_CHOICES) + ")"


def rows_worth_acting_on(fb):
    """见过更快配置的训练形状的下标：差得最多的在前（同样差时按形状的顺序）。"""
    order = np.argsort(fb.vs_best, kind="stable")
    return [int(i) for i in order if fb.vs_best[i] < WORTH_A_ROW]


def feedback_table(fb):
    """值得改的训练形状，一行一个：父程序的时间、离 roofline 多远、离见过的最快多远、
    那个更快的配置。最多 MAX_ROWS 行，其余的一句话带过。"""
    worth = rows_worth_acting_on(fb)
    header = f"{'M':>5} {'N':>5} {'K':>5} {'time_us':>7} {'vs_roofline':>11} {'vs_best':>7}"
    lines = [header + "  faster config seen"]
    for i in worth[:MAX_ROWS]:
        s = fb.shapes[i]
        numbers = f"{fb.time[i] * 1e6:>7.1f} {fb.vs_roofline[i]:>11.2f} {fb.vs_best[i]:>7.2f}"
        faster = config_args(CONFIGS[fb.best_cfg[i]])
        lines.append(f"{s.M:>5} {s.N:>5} {s.K:>5} {numbers}  {faster}")
    more = len(worth) - MAX_ROWS
    opening = f"({more} more shapes have a faster config seen; " if more > 0 else "("
    others = len(fb.shapes) - len(worth)
    lines.append(opening + f"on the other {others} training shapes no faster config is known)")
    return "\n".join(lines)


def limits_text(hw):
    """提示里的三条硬件上限，式子由 evolve 的启动条件自己写出。"""
    limits = hardware_limits(hw)
    smem, regs, mma = limits.shared_memory, limits.registers, limits.mma_tile
    parts = "(accumulators, one 64-bit address per " + f"{VEC_BYTES}-byte load, the rest)"
    return "\n".join([
        f"- shared memory: {smem.left.text} bytes {smem.op} {smem.right.text}",
        f"- registers per thread: {regs.left.text} {regs.op} {regs.right.text} {parts}",
        f"- every warp needs at least one 16x8 MMA tile: {mma.left.text} {mma.op} {mma.right.text}",
    ])


def search_space_text():
    """每个字段一行：可选的值。"""
    lines = [f"- {field}: {', '.join(map(str, vs))}" for field, vs in CONFIG_CHOICES.items()]
    return "\n".join(lines)


def program_block(p):
    """一个程序的源码，放在 ```python 代码块里。"""
    return f"```python\n{render(p)}```"


# 提示的开头：任务、配置空间、硬件上限。每次都一样（同一块硬件），服务器能复用算过的前缀
TASK = """choose_config(M, N, K) returns the tiling Config for a bf16 GEMM C[M,N] = A[M,K] @ \
B[K,N] on an {hw.name} GPU with {hw.sms} SMs. The score is the geometric-mean speedup over an \
expert heuristic on the training shapes; higher is better.

Config(BM, BN, BK, warps, stages, split_k). Every field must be one of these values:
{space}

Hardware limits. A config that breaks one cannot launch, and a program is rejected if ANY of its \
branches returns such a config, even a branch that no training shape reaches:
{limits}

The code may only use: one function def choose_config(M, N, K); if/elif/else; comparisons of M, \
N or K with integer literals, joined by and/or; return Config(...) with integer literals. No \
imports, loops, arithmetic, variables or other calls.

"""

# 要整个程序时的后半：别的程序、父程序、反馈表、要求
FULL_PROGRAM = """{others}Current program, score {score:.3f}:
{parent}

The training shapes where a faster config than the current program's is known. time_us is the \
current program's time in microseconds; vs_roofline = roofline lower bound / time; vs_best = \
fastest time seen / time; the last column is that faster config:
{table}

Improve the current program: for these shapes, use the faster configs seen, or add branches, or \
move thresholds. Return the whole improved function in one ```python code block."""


def instructions_block(instructions):
    """提示里的说明（evolve(..., meta_prompt=True) 时由模型自己改写，见 instructions.py）：
    几行，放在不变的任务之后、父程序之前。没有说明时是空串，提示一个字节都不变。"""
    if not instructions:
        return ""
    lines = "\n".join(f"- {line}" for line in instructions)
    return f"Follow these instructions:\n{lines}\n\n"


def build_messages(parent, feedback, inspirations, instructions=()):
    """给模型的消息：AlphaEvolve 的提示里有的这里都有——决定配置能不能启动的硬件上限
    （feedback.hw 的）、配置空间、一两个别的程序和分数、父程序和它的分数、逐形状的反馈，
    最后是要求：整个函数放在一个 ```python 代码块里。不变的部分在前：本地服务器能复用
    上一次算过的前缀，省下大半的提示处理时间。instructions：提示里的说明（instructions_block）。"""
    hw = feedback.hw
    task = TASK.format(hw=hw, space=search_space_text(), limits=limits_text(hw))
    others = "".join(f"Another program from the database, score {score:.3f}:\n"
                     f"{program_block(p)}\n\n" for p, score in inspirations[:2])
    request = FULL_PROGRAM.format(others=others, score=feedback.score, parent=program_block(parent),
                                  table=feedback_table(feedback))
    said = instructions_block(instructions)
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": task + said + request}]


# ==== 3. 语法 =====================================================================================
# 约束解码：本地服务器（llama.cpp 的 llama-server、llama-cpp-python）能按 GBNF 语法只采样合乎语法的
# token。语法就是 render 写出来的那种程序：if 链、每条一个 Config，字段只能取搜索空间里的值。

# 语法许的 if 最多几条：MockLLM 的程序最长 13 条（12 条再插两条）。一条约 57 个 token，13 条加默认约
# 850 个：--max-tokens 1024 写得完；不设上限时小模型会一直写 if 直到被截断
GRAMMAR_RULES = MAX_RULES + 1


def at_most(n):
    """GBNF：0 到 n 的十进制整数（没有前导零）。位数少的随便写；位数一样的，逐位不超过 n。"""
    s = str(n)
    alts = ['"0"']
    if len(s) > 1:
        alts.append("[1-9]" + (f" [0-9]{{0,{len(s) - 2}}}" if len(s) > 2 else ""))
    for i, digit in enumerate(s):
        low = "1" if i == 0 else "0"
        if digit > low:
            rest = f" [0-9]{{{len(s) - i - 1}}}" if i < len(s) - 1 else ""
            alts.append((f'"{s[:i]}" ' if i else "") + f"[{low}-{int(digit) - 1}]" + rest)
    return " | ".join(alts + [f'"{s}"'])


def config_rule():
    """GBNF：Config(BM=…, …)，每个字段只取搜索空间里的值。"""
    values = {f: " | ".join(f'"{v}"' for v in vs) for f, vs in CONFIG_CHOICES.items()}
    fields = ' ", '.join(f'{f}=" ({values[f]})' for f in CONFIG_CHOICES)
    return f'config ::= "Config({fields} ")"'


# 一个比较：M、N 或 K 和整数字面量，render 写的四种（edits.py 的语法也用）
TEST_RULES = [
    'test ::= var " == " num | var " <= " num | var " > " num | num " < " var " <= " num',
    'var ::= "M" | "N" | "K"',
    f"num ::= {at_most(MAX_LITERAL)}",
]


def gbnf():
    """回复的 GBNF 语法，正是 render 写得出的那种程序：def choose_config(M, N, K)、
    至多 GRAMMAR_RULES 条 if、最后一个 return Config(...)。进化循环里的程序（MockLLM 的、
    模型自己的）render 出来它都接受；它接受的都在 parse_program 的子集里（分支数、字面量
    都不超过上限）、配置都在 CONFIGS 里。"""
    rules = f"rule{{0,{GRAMMAR_RULES}}}"
    return "\n".join([
        f'root ::= "def choose_config(M, N, K):\\n" {rules} "    return " config "\\n"',
        'rule ::= "    if " cond ":\\n        return " config "\\n"',
        # 条件：True，或几个比较用 and 连起来
        'cond ::= "True" | test (" and " test){0,2}',
        *TEST_RULES,
        config_rule(),
    ]) + "\n"


# ==== 4. 回复 → 程序 ==============================================================================

_FENCE = "```"
_PYTHON_TAGS = ("", "python", "python3", "py")


def code_blocks(text):
    """回复里可能是程序的代码，按优先顺序：完整的 python 代码块（有结尾的 ```）从后往前，再是被
    max_tokens截断、没有结尾的最后一块；一个代码块都没有、整段以 def 开头时是整段；都没有是 []。
    只用 str.find 往前扫，每个字符看常数次：回复再长、再怪也是线性时间。"""
    complete, cut = [], []
    start = text.find(_FENCE)
    while start >= 0:
        eol = text.find("\n", start)
        # 开头的 ``` 那一行就没写完：没有代码
        if eol < 0:
            break
        end = text.find(_FENCE, eol + 1)
        # ```json 之类的块跳过
        if text[start + len(_FENCE):eol].strip().lower() in _PYTHON_TAGS:
            (complete if end >= 0 else cut).append(text[eol + 1:] if end < 0 else text[eol + 1:end])
        start = -1 if end < 0 else text.find(_FENCE, end + len(_FENCE))
    blocks = complete[::-1] + cut
    if not blocks and text.lstrip().startswith("def "):
        return [text.strip() + "\n"]
    return blocks


@dataclass(frozen=True)
class Reading:
    """读一个回复的结果：result 是 RESULTS 的键（ok 才有 program），detail 是一句说明；
    写说明的回复（instructions.py）读出来的几行说明在 instructions 里。"""
    result: str
    detail: str
    program: object = None
    instructions: tuple = ()


def program_from_code(code):
    """一段源码 → Reading：ok、syntax_error、outside_subset 或 outside_space。"""
    try:
        p = parse_program(code)
    except ProgramSyntaxError as e:
        return Reading("syntax_error", str(e))
    except ProgramError as e:
        return Reading("outside_subset", str(e))
    outside = [c for c in p.configs() if outside_search_space(c)]
    if outside:
        return Reading("outside_space", config_args(outside[0]))
    return Reading("ok", f"{p.n_rules()} 个分支", p)


def program_from_reply(text):
    """模型的回复 → Reading：按 code_blocks 的顺序取第一个解析成程序的；一个都没有时，报最优先的那块
    为什么不行（没有代码是 no_code）。被截断的回复里，前面写完的好代码块照样用得上。"""
    first = None
    for code in code_blocks(text):
        reading = program_from_code(code)
        if reading.result == "ok":
            return reading
        first = first or reading
    return first or Reading("no_code", "")
