"""给模型看什么、许它写什么、怎么读它写的（prompt.py）：提示里的程序和反馈表、硬件上限的式子
（由 evolve 的启动条件自己写出，和 static_valid 一致）、约束解码的语法、回复 → 程序。不联网。"""
import ast
import operator
import random
import re
import time
from fractions import Fraction

import pytest

import evolve as E
import prompt
from evolve import EXPERT, Evaluator, TimeTable, parse_program, render, static_check_program
from gbnf import parse_gbnf, sentence, to_regex
from llm_cases import DECODE, HEAD, SMALL, SPLIT_K, fenced
from prompt import Formula, build_messages, code_blocks, program_from_reply


# —— 提示 ——

def user_prompt(setup, inspirations=()):
    table, train, _ = setup
    ev = Evaluator(train, table)
    for p, _ in inspirations:
        ev.benchmark(p)
    fb = ev.feedback(EXPERT)
    system, user = (m["content"] for m in build_messages(EXPERT, fb, list(inspirations)))
    return fb, system, user


def test_the_prompt_holds_the_programs_and_their_scores(setup):
    _, system, user = user_prompt(setup, [(DECODE, 1.0123)])
    assert "```python" in system
    assert render(EXPERT) in user and render(DECODE) in user and "score 1.012" in user
    assert user.rstrip().endswith("one ```python code block.")
    for field, values in E.CONFIG_CHOICES.items():
        assert f"- {field}: {', '.join(map(str, values))}" in user


def test_the_feedback_table_lists_only_shapes_with_a_faster_config_worst_first(setup):
    fb, _, user = user_prompt(setup, [(DECODE, 1.0123)])
    train = fb.shapes
    row = re.compile(r" *\d+ +\d+ +\d+ +[\d.]+ +[\d.]+ +[\d.]+  Config\(")
    rows = [line for line in user.splitlines() if row.match(line)]
    worth = [i for i in range(len(train)) if fb.vs_best[i] < 0.99]
    worth.sort(key=lambda i: (fb.vs_best[i], i))
    assert 0 < len(rows) == len(worth) <= prompt.MAX_ROWS
    for line, i in zip(rows, worth):
        s = train[i]
        assert line.split()[:4] == [str(s.M), str(s.N), str(s.K), f"{fb.time[i] * 1e6:.1f}"]
        assert line.endswith(prompt.config_args(E.CONFIGS[fb.best_cfg[i]]))
    others = len(train) - len(worth)
    assert f"on the other {others} training shapes no faster config is known" in user
    # DECODE 评估过：它在 decode 形状上的配置就是"见过的最快"，照抄就能用
    assert prompt.config_args(SPLIT_K) in user


def limit_formulas(user):
    """提示里三条硬件上限的式子（去掉 bytes 和结尾的说明），可以当 Python 表达式算。"""
    section = user[user.index("Hardware limits"):user.index("The code may only use")]
    lines = [line.split(":", 1)[1] for line in section.splitlines() if line.startswith("- ")]
    return [re.sub(r"\s\([a-z].*$", "", line).replace("bytes", "") for line in lines]


# 上限小得多的一块（专家程序还能启动）
SMALL_GPU = E.replace(E.H100, name="small", smem_per_block=100_000, regs_per_thread=128)


@pytest.mark.parametrize("hw", [E.H100, E.H200, SMALL_GPU], ids=["H100", "H200", "small"])
def test_the_limits_in_the_prompt_are_exactly_the_static_check(hw, setup):
    """提示里写的三条硬件上限，照着算就是 static_valid：模型照提示写的配置，分支检查不会另有说法。
    另一块硬件（上限小得多）上也一样：式子和数都来自 evolve 的启动条件，不是手抄的。"""
    _, train, _ = setup
    fb = Evaluator(train, TimeTable(hw)).feedback(EXPERT)
    user = build_messages(EXPERT, fb, [])[1]["content"]
    formulas = limit_formulas(user)
    assert len(formulas) == 3
    verdicts = set()
    for cfg in E.CONFIGS:
        fields = {f: getattr(cfg, f) for f in E.CONFIG_CHOICES}
        # 测试专用：提示里的式子当 Python 算
        said = [eval(f, {}, fields) for f in formulas]  # noqa: S307
        assert all(said) == E.static_valid(cfg, hw), cfg
        verdicts.add(tuple(said))
    # 每一条都有配置不满足：三条都真的在起作用
    assert all(any(not v[k] for v in verdicts) for k in range(3))


OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}


def random_formula(rng, depth):
    """随机的式子树：叶子是名字 BM、N 或整数 2、7，每个运算至少有一边含名字（Formula）。
    返回 (Formula 或 int, 在一组变量值上求值的函数)。"""
    if depth == 0 or rng.random() < 0.3:
        leaf = rng.choice(["BM", "N", 2, 7])
        if isinstance(leaf, int):
            return leaf, lambda values: Fraction(leaf)
        return Formula(leaf), lambda values: values[leaf]
    a, value_a = random_formula(rng, depth - 1)
    b, value_b = random_formula(rng, depth - 1)
    if isinstance(a, int) and isinstance(b, int):
        b, value_b = Formula("N"), lambda values: values["N"]
    op = OPERATORS[rng.choice("+-*/")]
    return op(a, b), lambda values: op(value_a(values), value_b(values))


def exact(text, values):
    """把写出的式子当 Python 算，数都换成 Fraction（精确）；除以 0 是 None。"""
    exact_text = re.sub(r"\b(\d+)\b", r"Fraction(\1)", text)
    try:
        # 测试专用：写出的式子当 Python 算
        return eval(exact_text, {"Fraction": Fraction}, values)  # noqa: S307
    except ZeroDivisionError:
        return None


def without_pair(text, i):
    """去掉第 i 个字符处的左括号和与它配对的右括号。"""
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[:i] + text[i + 1:j] + text[j + 1:]
    raise AssertionError(text)


def parse_tree(text):
    """Python 读这个式子的语法树，同一种可结合的运算（+、*）连在一起的拉平成一串：
    a * (b * c) 和 a * b * c 是同一棵树，a * (b / c) 和 a * b / c 不是。"""
    def shape(node):
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Constant):
            return node.value
        op = type(node.op).__name__
        parts = [shape(node.left), shape(node.right)]
        if op not in ("Add", "Mult"):
            return (op, parts)
        flat = []
        for part in parts:
            flat += part[1] if isinstance(part, tuple) and part[0] == op else [part]
        return (op, flat)
    return shape(ast.parse(text, mode="eval").body)


def test_formulas_print_with_only_the_parentheses_they_need():
    """Formula 写出的式子照 Python 的规则算，值和式子树一样（Fraction，精确）；去掉任何一对括号，
    Python 读出的就是另一棵树：除了同一种可结合运算的拉平，括号一对都不多。"""
    rng = random.Random(0)
    for _ in range(400):
        tree, value = random_formula(rng, 4)
        if isinstance(tree, int):
            continue
        text = tree.text
        values = {"BM": Fraction(rng.randint(1, 99)), "N": Fraction(rng.randint(1, 99))}
        try:
            expected = value(values)
        except ZeroDivisionError:
            continue
        assert exact(text, values) == expected, text
        for i in (i for i, c in enumerate(text) if c == "("):
            bare = without_pair(text, i)
            assert parse_tree(bare) != parse_tree(text), (text, bare)


def test_the_hardware_limits_are_written_by_the_launch_conditions():
    limits = prompt.hardware_limits(E.H100)
    assert (limits.shared_memory.op, limits.shared_memory.right.text) == ("<=", "232448")
    assert limits.shared_memory.left.text == "stages * (BM + BN) * BK * 2"
    assert limits.mma_tile.left.text == "BM * BN" and limits.mma_tile.right.text == "128 * warps"


# —— 语法（gbnf）：约束解码时服务器只采样 render 写得出的那种程序 ——
# 语法不靠任何服务器来读：gbnf.py 把它展开成正则表达式，也能从它随机生成句子

@pytest.fixture(scope="module")
def grammar():
    rules = parse_gbnf(prompt.gbnf())
    return rules, re.compile(to_regex(rules))


def test_the_grammar_accepts_every_program_render_writes(grammar, evolved, random_program):
    _, regex = grammar
    rng = random.Random(0)
    longest = prompt.GRAMMAR_RULES + 1
    programs = [EXPERT] + evolved + [random_program(rng, n_rules=longest) for _ in range(1000)]
    # 最长的也试到了
    assert max(len(p.rules) for p in programs) == prompt.GRAMMAR_RULES
    for p in programs:
        assert regex.fullmatch(render(p)), render(p)


def test_everything_the_grammar_accepts_is_in_the_subset_and_the_space(grammar):
    rules, regex = grammar
    rng = random.Random(1)
    for _ in range(300):
        src = sentence(rules, rng)
        assert regex.fullmatch(src)
        # 不抛异常：在子集里
        p = parse_program(src)
        # 配置都在搜索空间里
        assert all(c in E.CONFIG_INDEX for c in p.configs())
        ok, problems = static_check_program(src)
        assert ok or all("不在搜索空间" not in x for x in problems)


GOOD = "Config(BM=64, BN=128, BK=64, warps=4, stages=3, split_k=1)"
LAST = f"    return {GOOD}\n"
OUTSIDE = {
    "搜索空间以外的 BM": HEAD + f"    return {GOOD.replace('BM=64', 'BM=48')}\n",
    "字段缺一个": HEAD + "    return Config(BM=64, BN=128, BK=64, warps=4, stages=3)\n",
    "!=": HEAD + f"    if M != 3:\n        return {GOOD}\n    return {GOOD}\n",
    "import": "import os\n" + HEAD + f"    return {GOOD}\n",
    "调用别的函数": HEAD + f"    if abs(M) > 3:\n        return {GOOD}\n    return {GOOD}\n",
    "算术": HEAD + f"    if M * 2 > 3:\n        return {GOOD}\n    return {GOOD}\n",
    "字面量超过 2**31 − 1": HEAD + f"    if M > 2147483648:\n        return {GOOD}\n" + LAST,
    "超过 64 个分支": HEAD + f"    if M > 1:\n        return {GOOD}\n" * 64 + LAST,
    "比 MockLLM 写得出的还长": HEAD + f"    if M > 1:\n        return {GOOD}\n" * 14 + LAST,
    "函数头不对": "def choose_config(M, N):\n" + f"    return {GOOD}\n",
    "最后没有 return": HEAD + f"    if M > 1:\n        return {GOOD}\n",
}


@pytest.mark.parametrize("name", list(OUTSIDE))
def test_the_grammar_refuses_sources_outside_the_subset_or_the_space(name, grammar):
    _, regex = grammar
    assert not regex.fullmatch(OUTSIDE[name])


def test_the_number_rule_is_exactly_zero_to_the_limit():
    regex = re.compile(to_regex({"root": parse_gbnf("root ::= " + prompt.at_most(305))["root"]}))
    assert [n for n in range(1000) if regex.fullmatch(str(n))] == list(range(306))
    assert not regex.fullmatch("007")
    largest = parse_gbnf("root ::= " + prompt.at_most(2**31 - 1))["root"]
    big = re.compile(to_regex({"root": largest}))
    assert big.fullmatch(str(2**31 - 1)) and not big.fullmatch(str(2**31))


# —— 回复 → 程序 ——

@pytest.mark.parametrize("text, blocks", [
    # 完整的从后往前
    (fenced("a = 1\n") + fenced("b = 2\n"), ["b = 2\n", "a = 1\n"]),
    ("```py\nc = 3\n```", ["c = 3\n"]),
    # 别的语言的块不算
    ("```json\n{}\n```\n```Python\nd = 4\n```", ["d = 4\n"]),
    ("def choose_config(M, N, K):\n    return x", ["def choose_config(M, N, K):\n    return x\n"]),
    ("Sure! I would use a bigger tile.", []),
    # 开头那行没写完
    ("```python" + " " * 1000, []),
    # 截断的排最后
    (fenced("a = 1\n") + "```python\ndef unfinished(", ["a = 1\n", "def unfinished("]),
])
def test_code_blocks(text, blocks):
    assert code_blocks(text) == blocks


def test_a_reply_cut_by_max_tokens_keeps_the_good_block_before_it():
    cut = fenced(render(DECODE)) + "\nOr even better:\n```python\n" + HEAD + "    if M <= 8:\n  ret"
    assert program_from_reply(cut).program == DECODE
    # 最后一块不行，前面的行
    bad_last = fenced(render(DECODE)) + fenced(HEAD + "    import os\n")
    assert program_from_reply(bad_last).program == DECODE
    reading = program_from_reply(fenced(HEAD + "    import os\n") + "```python\n" + HEAD + "  if")
    # 都不行：说最后一个完整块的原因
    assert reading.result == "outside_subset" and "import" in reading.detail


@pytest.mark.parametrize("text", ["```" + " " * 1_000_000, "```\n" * 250_000, "``` " * 250_000,
                                  "```python\n" + "`" * 1_000_000, "x" * 1_000_000])
def test_finding_code_is_linear_time(text):
    start = time.monotonic()
    code_blocks(text)
    # 二次方的做法要几小时
    assert time.monotonic() - start < 2.0


def test_reply_outcomes():
    good = program_from_reply(fenced(render(DECODE)))
    assert (good.result, good.program) == ("ok", DECODE)
    outside = program_from_reply(fenced(HEAD + "    import os\n" + SMALL))
    assert (outside.result, outside.program) == ("outside_subset", None)
    assert outside.detail.startswith("第 2 行：不允许 import")
    broken = program_from_reply(fenced(HEAD + "    if M <= 16\n    " + SMALL))
    assert (broken.result, broken.program) == ("syntax_error", None)
    assert broken.detail.startswith("第 2 行：语法错误")
