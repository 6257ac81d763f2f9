"""
CS349E · 第 14 讲 · instructions.py —— 模型自己改写提示里的说明（AlphaEvolve 的 meta prompt）

evolve(..., meta_prompt=True) 时，提示数据库（evolve.py 的 PromptDatabase）每隔一段预算请提出者
写一次新提示。
ChatLLM 的"提示"是提示里的几行说明（prompt.instructions_block，放在任务之后），一开始没有。
写新说明是一次单独的 chat 请求，和提程序的请求一样录下来、一样回放：

  1. 请求：同样的任务说明，现在的说明，这时最好的程序（一行一条规则）和它的反馈表
  2. 语法：至多 MAX_INSTRUCTIONS 行，每行 "- " 开头、可打印的 ASCII、长短有上下限
  3. 回复 → 说明：只收合乎这个样子的行（回复是不可信的：没有语法的服务器什么都可能发来）
"""
import re

from edits import EDIT_TASK, rule_lines, rule_table

# 说明最多几行：几条短指示（MockLLM 的提示词表也是 4 条），写一次约 100 个 token
MAX_INSTRUCTIONS = 4
# 一行说明的字符数：太短的不是一条指示（"- ok"）；最长的加上 "- " 在 100 列的终端上印得下
MIN_INSTRUCTION_CHARS = 8
MAX_INSTRUCTION_CHARS = 96


# ==== 1. 请求 =====================================================================================

INSTRUCT_SYSTEM = ("You write the instructions for a model that improves a small list of rules "
                   "that picks the tiling config of a GPU matrix-multiplication kernel, one edit "
                   f"line at a time. You answer with at most {MAX_INSTRUCTIONS} short instruction "
                   "lines, each starting with \"- \".")

INSTRUCT_REQUEST = """The editing model follows these instructions now:
{current}

Best rules so far, score {score:.3f}:
{rules}

{table}
Write at most {most} short instructions that would help the editing model find faster rules: \
which shapes to work on, which fields to change together, what to check. Instructions:"""


def instruction_messages(instructions, best, feedback):
    """写新说明的消息：任务（和提改动时一样，模型知道编辑者看到什么），现在的说明，
    最好的程序 best 一行一条规则，它的反馈表（feedback 是 best 的反馈）。"""
    task = EDIT_TASK.format(hw=feedback.hw)
    current = "\n".join(f"- {line}" for line in instructions) or "(none yet)"
    request = INSTRUCT_REQUEST.format(current=current, score=feedback.score,
                                      rules="\n".join(rule_lines(best)),
                                      table=rule_table(feedback), most=MAX_INSTRUCTIONS)
    return [{"role": "system", "content": INSTRUCT_SYSTEM},
            {"role": "user", "content": task + request}]


# ==== 2. 语法 =====================================================================================

def instruction_gbnf():
    """说明的 GBNF：1 到 MAX_INSTRUCTIONS 行，每行 "- "、一个字母，再是可打印的 ASCII
    （空格到 ~），整行长短在上下限之间。"""
    rest = f"[ -~]{{{MIN_INSTRUCTION_CHARS - 1},{MAX_INSTRUCTION_CHARS - 1}}}"
    return (f'root ::= line ("\\n" line){{0,{MAX_INSTRUCTIONS - 1}}}\n'
            f'line ::= "- " [A-Za-z] {rest}\n')


# ==== 3. 回复 → 说明 ==============================================================================

INSTRUCTION_LINE = re.compile(
    rf"- ([A-Za-z][ -~]{{{MIN_INSTRUCTION_CHARS - 1},{MAX_INSTRUCTION_CHARS - 1}}})")


def instructions_from_reply(text):
    """模型的回复 → 说明（元组）：合乎语法那种样子的行（去掉行尾空格），按顺序、不重复，
    至多 MAX_INSTRUCTIONS 行；一行都没有是 ()。别的行（解释、代码块的 ```）都不要。"""
    found = []
    for line in text.splitlines():
        m = INSTRUCTION_LINE.fullmatch(line.rstrip())
        if m and m.group(1) not in found:
            found.append(m.group(1))
    return tuple(found[:MAX_INSTRUCTIONS])
