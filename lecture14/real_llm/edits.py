"""
CS349E · 第 14 讲 · edits.py —— 让模型只写一处改动（--edit diff），像 AlphaEvolve 那样

整个程序要约 640 个 token；一处改动约 50 个。模型看到的父程序是一行一条规则，改动用同一种写法：

    rule 2: if 16 < M <= 128: return Config(BM=64, ...)        第 2 条规则换成这个条件和配置
    rule 3: return Config(BM=128, ...)                          第 3 条规则（或最后的默认）只换配置
    before rule 1: if M <= 16 and N <= 4096: return Config(...) 在第 1 条之前加一条新规则

自上而下读：
  1. 父程序一行一条规则（由 render 写出的源码拆成行）
  2. 短提示：任务、改动的写法、父程序、见过更快配置的形状（各走哪条规则、那个更快的配置）
  3. 语法：按父程序有几条规则生成，条件和配置的写法与 prompt.gbnf 相同
  4. 回复 → 改动 → 程序：条件和配置交给 parse_program（只读，从不执行），改动由 evolve 的
     with_rule、with_new_rules、with_config 应用（MockLLM 改程序也用它们）；
     对不上父程序的改动是一次失败的提案
"""
import re
from dataclasses import dataclass

from code_manipulation import ProgramError, ProgramSyntaxError, config_source
from evolve import (CONFIGS, Rule, outside_search_space, parse_program, render, with_config,
                    with_new_rules, with_rule)
from prompt import (GRAMMAR_RULES, MAX_ROWS, TEST_RULES, Reading, config_rule,
                    instructions_block, rows_worth_acting_on)


# ==== 1. 父程序一行一条规则 =======================================================================

def rule_lines(p):
    """p 的每个分支一行：rule 1: if 条件: return Config(...)，最后是 rule n+1: return Config(...)。
    条件和配置的写法就是 render 的（源码的 if 行和 return 行两两配对）。"""
    source = render(p).splitlines()[1:]
    lines = []
    for k in range(len(p.rules)):
        condition = source[2 * k].strip()[len("if "):-1]
        returned = source[2 * k + 1].strip()
        lines.append(f"rule {k + 1}: if {condition}: {returned}")
    lines.append(f"rule {len(p.rules) + 1}: {source[-1].strip()}")
    return lines


# ==== 2. 短提示 ===================================================================================
# 试过两种（见本目录的 README.md）：指给模型看一个按反馈抽出的形状，或者列出所有见过更快配置的
# 形状、各走哪条规则。后一种在种子 0、1 上都好得多，留下的是它。

EDIT_SYSTEM = ("You improve a small list of rules that picks the tiling config of a GPU "
               "matrix-multiplication kernel. You answer with exactly one edit line.")

# 不变的部分在前：本地服务器能复用上一次算过的前缀
EDIT_TASK = """choose_config(M, N, K) picks Config(BM, BN, BK, warps, stages, split_k) for a \
bf16 GEMM of shape M x N x K on an {hw.name} GPU. The first rule whose condition holds is used; \
the last rule is used for every other shape. The score is the speedup over an expert; higher is \
better.

Answer with one edit line in one of these forms:
rule R: if CONDITION: return Config(...)   (rule R gets this condition and config)
rule R: return Config(...)   (rule R keeps its condition and gets this config)
before rule R: if CONDITION: return Config(...)   (a new rule, tried just before rule R)
CONDITION compares M, N or K with integers, joined by and, like: 16 < M <= 128 and N > 4096

"""

EDIT_REQUEST = """Current rules, score {score:.3f}:
{rules}

{table}Your edit:"""


# 反馈表的第一行的开头（recount.py 从录下的提示里找表也用它）
TABLE_TITLE = "Training shapes where a faster config is known"


def rule_table(fb):
    """能照着改的反馈：见过更快配置的训练形状（差得最多的在前，最多 MAX_ROWS 个），每行是它
    现在走第几条规则、用时、快多少倍、那个更快的配置——照抄规则号和配置，改动就落在这个形状上。"""
    worth = rows_worth_acting_on(fb)
    if not worth:
        return "No faster config is known yet for any training shape."
    head = f"{'M':>5} {'N':>5} {'K':>5} {'rule':>4} {'time_us':>7} {'speedup':>7}  faster config"
    lines = [TABLE_TITLE + " (rule = the rule the shape uses now):", head]
    for i in worth[:MAX_ROWS]:
        s = fb.shapes[i]
        rule = int(fb.branch[i]) + 1
        numbers = f"{rule:>4} {fb.time[i] * 1e6:>7.1f} {1 / fb.vs_best[i]:>7.2f}"
        faster = config_source(CONFIGS[fb.best_cfg[i]])
        lines.append(f"{s.M:>5} {s.N:>5} {s.K:>5} {numbers}  {faster}")
    return "\n".join(lines)


def edit_messages(parent, feedback, context=True, instructions=()):
    """--edit diff 的消息：任务和改动的写法（不变），父程序一行一条规则，能照着改的反馈。
    约 1,250 个 token，整个程序的提示约 2,500 个。context=False 是 AlphaEvolve 消融的
    "No context in the prompt"：同样的请求，只是没有反馈表（父程序的分数还在）。
    instructions：提示里的说明（prompt.instructions_block），在任务之后。"""
    task = EDIT_TASK.format(hw=feedback.hw) + instructions_block(instructions)
    rules = "\n".join(rule_lines(parent))
    table = rule_table(feedback) + "\n" if context else ""
    request = EDIT_REQUEST.format(score=feedback.score, rules=rules, table=table)
    return [{"role": "system", "content": EDIT_SYSTEM},
            {"role": "user", "content": task + request}]


# ==== 3. 语法 =====================================================================================

def _numbers(first, last):
    """GBNF：first 到 last 的整数，一个一个列出来（规则号不多）。"""
    return " | ".join(f'"{k}"' for k in range(first, last + 1))


def edit_gbnf(parent):
    """父程序的改动的 GBNF 语法：规则号只能是父程序有的（换条件只对有条件的规则，加规则只在
    不到 GRAMMAR_RULES 条时），条件、配置的写法和 prompt.gbnf 一样，所以配置都在搜索空间里。"""
    n = len(parent.rules)
    forms = ['"rule " any ": return " config']
    if n:
        forms.insert(0, '"rule " ruled ": if " cond ": return " config')
    if n < GRAMMAR_RULES:
        forms.append('"before rule " any ": if " cond ": return " config')
    lines = [f"root ::= {' | '.join(forms)}", f"any ::= {_numbers(1, n + 1)}"]
    if n:
        lines.append(f"ruled ::= {_numbers(1, n)}")
    # 条件至少一个比较（没有 True：一条永远成立的新规则会挡住它后面所有的规则）
    conditions = ['cond ::= test (" and " test){0,2}'] + TEST_RULES
    return "\n".join(lines + conditions + [config_rule()]) + "\n"


# ==== 4. 回复 → 改动 → 程序 =======================================================================

# 一行改动：before、规则号、条件（可以没有）、配置。一行最多这么长，再长不是改动（正则也不会慢）
EDIT_LINE = re.compile(r"(before )?rule (\d{1,3}): (?:if (.+?): )?return (Config\(.*\))")
MAX_EDIT_CHARS = 1000


@dataclass(frozen=True)
class Edit:
    """一处改动：before（加一条新规则）、规则号（从 1 数）、条件的源码（没有是 None）、
    配置的源码。"""
    before: bool
    rule: int
    condition: str
    config: str


def find_edit(text):
    """回复里的第一行改动（前后可以有别的话、代码块的 ```）；没有是 None。"""
    for line in text.splitlines():
        line = line.strip().strip("`").strip()
        if len(line) > MAX_EDIT_CHARS:
            continue
        m = EDIT_LINE.fullmatch(line)
        if m:
            return Edit(m.group(1) is not None, int(m.group(2)), m.group(3), m.group(4))
    return None


def _parsed(edit):
    """改动里的条件和配置 → (区间, Config)：拼成一个两条分支的小程序交给 parse_program。
    没有条件时区间是 None。"""
    guard = f"    if {edit.condition}:\n        return {edit.config}\n" if edit.condition else ""
    p = parse_program(f"def choose_config(M, N, K):\n{guard}    return {edit.config}\n")
    if edit.condition and len(p.rules) != 1:
        raise ProgramError("条件只能用 and 连起来（or 会变成好几条规则）")
    bounds = p.rules[0].bounds if edit.condition else None
    return bounds, p.default


def _mismatch(edit, parent):
    """改动对不上父程序的地方（一句话）；对得上是 None。"""
    n = len(parent.rules)
    if edit.before and n >= GRAMMAR_RULES:
        return f"已经有 {n} 条规则，不能再加"
    last = n + 1 if (edit.before or edit.condition is None) else n
    if not 1 <= edit.rule <= last:
        return f"没有第 {edit.rule} 条规则可以这样改（父程序有 {n} 条规则加最后的默认）"
    return None


def apply_edit(edit, parent, bounds, cfg):
    """把改动用到父程序上，返回子程序：加一条、换一条、或只换一条的配置。"""
    k = edit.rule - 1
    if edit.before:
        return with_new_rules(parent, k, [Rule(bounds, cfg)])
    if bounds is None:
        return with_config(parent, k, cfg)
    return with_rule(parent, k, Rule(bounds, cfg))


def describe(edit):
    if edit.before:
        return f"在第 {edit.rule} 条规则前加了一条"
    if edit.condition is None:
        return f"换了第 {edit.rule} 条规则的配置"
    return f"换了第 {edit.rule} 条规则"


def program_from_edit(text, parent):
    """模型的回复 → Reading：找出改动，条件和配置交给 parse_program，对得上父程序就应用。
    没有改动是 no_edit，对不上是 bad_edit，条件或配置不在子集、搜索空间里和整个程序时一样。"""
    edit = find_edit(text)
    if edit is None:
        return Reading("no_edit", "")
    try:
        bounds, cfg = _parsed(edit)
    except ProgramSyntaxError as e:
        return Reading("syntax_error", str(e))
    except ProgramError as e:
        return Reading("outside_subset", str(e))
    if outside_search_space(cfg):
        return Reading("outside_space", config_source(cfg))
    mismatch = _mismatch(edit, parent)
    if mismatch:
        return Reading("bad_edit", mismatch)
    return Reading("ok", describe(edit), apply_edit(edit, parent, bounds, cfg))
