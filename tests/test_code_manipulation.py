"""code_manipulation.py（源码 → 规则）和 evolve.py 里用它的 parse_program、static_check_program：
parse_program 是 render 的逆，选的配置和 Python 执行源码时一样；static_check_program 从不抛异常。"""
import math
import random
import re
import sys
from collections import namedtuple
from functools import lru_cache
from itertools import product

import pytest

import evolve as E
from evolve import (CONFIGS, EXPERT, Config, ProgramError, choose, parse_program, render,
                    static_check_program)
import code_manipulation as C
from boxes import UNBOUNDED, is_empty

HEAD = "def choose_config(M, N, K):\n"
GOOD = "Config(BM=64, BN=128, BK=64, warps=4, stages=3, split_k=1)"
BAD_SMEM = "Config(BM=128, BN=128, BK=128, warps=8, stages=5, split_k=1)"   # 共享内存 327,680 B


def run_source(src):
    """只在测试里执行源码，得到 Python 真正的 choose_config（同样的参数给同一个 Config，
    省得几十万次构造）。"""
    namespace = {"Config": lru_cache(maxsize=None)(Config)}
    exec(src, namespace)  # noqa: S102 - 测试专用
    return namespace["choose_config"]


# —— render 的逆 ——

def test_parsing_a_rendered_program_gives_it_back(evolved, dense_shapes, random_program):
    rng = random.Random(5)
    programs = [EXPERT] + evolved + [random_program(rng) for _ in range(100)]
    shapes = dense_shapes
    for p in programs:
        q = parse_program(render(p))
        assert q == p, render(p)
        assert all(choose(q, s) == choose(p, s) for s in shapes[::7]), render(p)


# —— 随机写出的子集源码：和 Python 执行的结果逐点相同 ——

LITERALS = (1, 16, 128, 1024, 1280, 4096, 8192)
Point = namedtuple("Point", "M N K")          # choose 只读 M、N、K：比 Shape 便宜，几十万个点也快


def grid_of(src):
    """条件里每个字面量的 −1、本身、+1，再加 1 和一个很大的数：格子之内选择不变，
    所以这些点上一致就是处处一致。"""
    conditions = [line for line in src.splitlines() if line.strip().startswith(("if ", "elif "))]
    literals = {int(x.replace("_", "")) for line in conditions
                for x in re.findall(r"\b\d[\d_]*\b", line)}
    values = sorted({max(c + d, 1) for c in literals for d in (-1, 0, 1)} | {1, 20000})
    return list(product(values, values, values))


def random_condition(rng, depth=0):
    r = rng.random()
    if depth < 2 and r < 0.3:
        op = " or " if r < 0.15 else " and "
        return "(" + op.join(random_condition(rng, depth + 1)
                             for _ in range(rng.randint(2, 3))) + ")"
    if r < 0.35:
        return rng.choice(("True", "False"))
    v, c = rng.choice("MNK"), rng.choice(LITERALS)
    op = rng.choice(("<", "<=", ">", ">=", "=="))
    if r < 0.5:
        lo, hi = sorted(rng.sample(LITERALS, 2))
        return f"{lo:_} < {v} <= {hi}"
    return f"{c} {op} {v}" if r < 0.65 else f"{v} {op} {c}"


def random_config(rng):
    cfg = rng.choice(CONFIGS)
    if rng.random() < 0.5:
        return "Config(" + ", ".join(str(getattr(cfg, f)) for f in E.CONFIG_CHOICES) + ")"
    fields = list(E.CONFIG_CHOICES)
    rng.shuffle(fields)
    return "Config(" + ", ".join(f"{f}={getattr(cfg, f)}" for f in fields) + ")"


def random_block(rng, indent, depth):
    lines, pad = [], "    " * indent
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        if depth < 3 and r < 0.55:
            lines.append(f"{pad}if {random_condition(rng)}:")
            lines += random_block(rng, indent + 1, depth + 1)
            for _ in range(rng.choice((0, 0, 1, 2))):
                lines.append(f"{pad}elif {random_condition(rng)}:")
                lines += random_block(rng, indent + 1, depth + 1)
            if rng.random() < 0.5:
                lines.append(f"{pad}else:")
                lines += random_block(rng, indent + 1, depth + 1)
        elif r < 0.65:
            lines.append(f"{pad}pass  # 注释")
        elif r < 0.7:
            lines.append(f'{pad}"""一段说明"""')
        else:
            lines.append(f"{pad}return {random_config(rng)}")
            if rng.random() < 0.3:                        # 走不到，但 Python 照样编译它：也在子集里
                lines.append(f"{pad}return {random_config(rng)}  # 走不到")
            break
    return lines


def test_random_sources_choose_what_python_chooses():
    rng = random.Random(0)
    outcomes = {"parsed": 0, "no_return": 0, "too_complex": 0}
    for _ in range(120):
        body = random_block(rng, 1, 0)
        if rng.random() < 0.7:
            body.append(f"    return {random_config(rng)}")
        src = HEAD + "\n".join(body) + "\n"
        f = run_source(src)
        try:
            p = parse_program(src)
        except ProgramError as e:
            if f"超过 {C.MAX_BRANCHES} 个分支" in str(e):           # 随机生成的大程序偶尔展开太多
                outcomes["too_complex"] += 1
                continue
            m = re.search(r"M=(\d+), N=(\d+), K=(\d+) 时走到函数末尾也没有 return", str(e))
            assert m, (str(e), src)
            assert f(*map(int, m.groups())) is None, src            # 说得对：Python 在这里返回 None
            outcomes["no_return"] += 1
            continue
        assert all(f(*x) == choose(p, Point(*x)) for x in grid_of(src)), src
        outcomes["parsed"] += 1
    assert outcomes["parsed"] > 90 and outcomes["no_return"] > 5 and outcomes["too_complex"] < 10


# —— 学生和 LLM 自然会写的 ——

ACCEPTED = {
    "elif 链、else、连写的比较、变量在右边、下划线": HEAD + f"""    '''按 M 分三档。'''
    if M <= 16:            # decode
        return Config(16, 64, 128, 4, 4, 4)
    elif 16 < M <= 1_024 and 4096 < K:
        return {GOOD}
    else:
        return Config(128, 256, 64, 8, 3, 1)
""",
    "or 拆成几条、== 、嵌套 if 没有 else 时落到后面": HEAD + f"""    if M == 1 or N >= 28672:
        if K > 8192:
            return Config(BM=16, BN=32, BK=128, warps=2, stages=4, split_k=8)
        pass
    if (M < 64 or K == 14336) and N > 1280:
        return {GOOD}
    return Config(128, 256, 64, 8, 3, 1)
""",
    "主体可能不 return 的 if/else：else 只在条件不成立时走": HEAD + f"""    if M > 128:
        if N > 4096:
            return Config(128, 256, 64, 8, 3, 1)
    else:
        return Config(16, 64, 128, 4, 4, 4)
    return {GOOD}
""",
    "两个 if 合起来覆盖所有形状，没有最后的 return": HEAD + f"""    if M <= 16:
        return Config(16, 64, 128, 4, 4, 4)
    if M >= 17:
        return {GOOD}
""",
    "return 之后的代码走不到，不检查": HEAD + f"""    if False:
        return {BAD_SMEM}
    return {GOOD}
    if M > 16:
        return {BAD_SMEM}
    return {BAD_SMEM}
""",
}


@pytest.mark.parametrize("name", list(ACCEPTED))
def test_natural_sources_parse_to_what_python_runs(name, dense_shapes):
    src = ACCEPTED[name]
    f, p = run_source(src), parse_program(src)
    assert all(f(s.M, s.N, s.K) == choose(p, s) for s in dense_shapes), src
    assert static_check_program(src) == (True, [])


def test_dead_code_and_constant_false_branches_are_not_checked():
    ok, problems = static_check_program(ACCEPTED["return 之后的代码走不到，不检查"])
    assert ok and problems == []                         # Python 一样不会走 if False 和 return 之后


# —— 子集以外：ProgramError，第几行、哪里不允许 ——

REFUSED = [
    (HEAD + "    for i in range(3):\n        pass\n    return " + GOOD, 2, "循环"),
    (HEAD + "    while M > 1:\n        return " + GOOD, 2, "循环"),
    (HEAD + "    print(M)\n    return " + GOOD, 2, "只能调用 Config"),
    (HEAD + "    if abs(M) > 3:\n        return " + GOOD + "\n    return " + GOOD, 2,
     "只能调用 Config"),
    (HEAD + "    if x > 3:\n        return " + GOOD + "\n    return " + GOOD, 2, "不认识的名字 x"),
    (HEAD + "    if M * 2 > 3:\n        return " + GOOD + "\n    return " + GOOD, 2, "算术"),
    (HEAD + "    if M > -1:\n        return " + GOOD + "\n    return " + GOOD, 2, "算术"),
    (HEAD + "    if not M > 3:\n        return " + GOOD + "\n    return " + GOOD, 2, "不允许 not"),
    (HEAD + "    if M != 3:\n        return " + GOOD + "\n    return " + GOOD, 2,
     "只能用 <、<=、>、>=、=="),
    (HEAD + "    if M < N:\n        return " + GOOD + "\n    return " + GOOD, 2, "不能互相比较"),
    (HEAD + "    if M > 3.5:\n        return " + GOOD + "\n    return " + GOOD, 2, "整数字面量"),
    (HEAD + "    if M:\n        return " + GOOD + "\n    return " + GOOD, 2, "条件只能是"),
    (HEAD + "    return Config(BM=32 * 2, BN=128, BK=64, warps=4, stages=3, split_k=1)", 2,
     "BM 只能是整数字面量"),
    ("import os\n" + HEAD + "    return " + GOOD, 1, "import"),
    (HEAD + "    from math import inf\n    return " + GOOD, 2, "import"),
    (HEAD + "    return " + GOOD + "\ndef helper():\n    pass\n", 3, "另一个 def"),
    (HEAD + "    return " + GOOD + "\n" + HEAD + "    return " + BAD_SMEM, 3,
     "第二个 def choose_config"),
    ("Config = dict\n" + HEAD + "    return " + GOOD, 1, "重新绑定 Config"),
    (HEAD + "    return " + GOOD + "\nchoose_config = None\n", 3, "重新绑定 choose_config"),
    (HEAD + "    C = Config\n    return C(64, 128, 64, 4, 3, 1)", 2, "不允许赋值"),
    (HEAD + "    return None", 2, "只能返回 Config"),
    (HEAD + "    return", 2, "只能返回 Config"),
    (HEAD + "    return CONFIGS[2879]", 2, "只能返回 Config"),
    # 3.8 的语法分析就拒了
    (HEAD + "    return Config(BM=64, BM=64, BN=128, BK=64, warps=4, stages=3, split_k=1)", 2,
     "BM 给了两次" if sys.version_info >= (3, 9) else "keyword argument repeated"),
    (HEAD + "    return Config(64, BM=64, BN=128, BK=64, warps=4, stages=3, split_k=1)", 2,
     "BM 给了两次"),
    (HEAD + "    return Config(BM=64, BN=128, BK=64, warps=4, stages=3)", 2, "缺少字段 split_k"),
    (HEAD + "    return Config(BM=64, BN=128, BK=64, warps=4, stages=3, split_k=1, tile=2)", 2,
     "没有字段 tile"),
    (HEAD + "    return Config(0, 128, 64, 4, 3, 1)", 2, "≥ 1"),
    (HEAD + "    if M <= 16:\n        return " + GOOD, 1,
     "M=17, N=1, K=1 时走到函数末尾也没有 return"),
    (HEAD + "    pass", 1, "没有 return"),
    ("def choose_config(N, M, K):\n    return " + GOOD, 1, "函数头"),
    ("def choose_config(M: int, N: int, K: int) -> Config:\n    return " + GOOD, 1, "函数头"),
    (HEAD + "    return Config(BM=64, BN=64,\n", 2, "语法错误"),
]


# 敌意的源码：Python 会执行的和规则表不一样的，一律拒绝——return 之后的语句也算
# （Python 照样编译它们）
AFTER_RETURN = HEAD + "    return " + GOOD + "\n"
HOSTILE = [
    # 函数变成生成器：返回的不是 Config
    (AFTER_RETURN + "    yield 1\n", 3, "yield"),
    # Config 变成局部变量：UnboundLocalError
    (AFTER_RETURN + "    Config = dict\n", 3, "重新绑定 Config"),
    (AFTER_RETURN + "    if M > 1:\n        Config = 3\n", 4, "重新绑定 Config"),
    (AFTER_RETURN + "    global Config\n", 3, "global"),
    (AFTER_RETURN + "    nonlocal M\n", 3, "nonlocal"),
    (AFTER_RETURN + "    break\n", 3, "break"),                             # 编译就失败
    (AFTER_RETURN + "    await M\n", 3, "await"),
    (AFTER_RETURN + "    del Config\n", 3, "delete"),
    (AFTER_RETURN + "    import os\n", 3, "import"),
    (AFTER_RETURN + "    return (yield)\n", 3, "只能返回 Config"),
    ("def choose_config(M, N, K, /):\n    return " + GOOD, 1, "函数头"),
    ("def choose_config(M: print('x'), N, K, /):\n    return " + GOOD, 1, "函数头"),
    ("def choose_config(M, N, K=1):\n    return " + GOOD, 1, "函数头"),
    ("def choose_config(M, N, *, K):\n    return " + GOOD, 1, "函数头"),
    ("def choose_config(M, N, K, *rest):\n    return " + GOOD, 1, "函数头"),
    ("async def choose_config(M, N, K):\n    return " + GOOD, 1, "async def"),
    ("@staticmethod\ndef choose_config(M, N, K):\n    return " + GOOD, 2, "函数头"),
    # Python 只把 \n、\r\n、\r 当换行：换页符和 U+2028 不会让行号往后错
    (HEAD + "    # 换页\x0c和\u2028分隔符\n    import os\n    return " + GOOD, 3, "import"),
    (HEAD + "    pass\r    import os\r\n    return " + GOOD, 3, "import"),
]


@pytest.mark.parametrize("src, line, words", HOSTILE)
def test_hostile_sources_are_refused_on_pythons_line(src, line, words):
    with pytest.raises(ProgramError) as e:
        parse_program(src)
    assert str(e.value).startswith(f"第 {line} 行：") and words in str(e.value), str(e.value)
    assert static_check_program(src) == (False, [str(e.value)])


def test_whatever_parses_is_what_python_runs(dense_shapes):
    """反过来也要成立：接受的源码（return 之后还有子集里的代码也行），Python 编译得了、
    逐点选的一样。"""
    src = (AFTER_RETURN + "    if M > 16:\n        return " + BAD_SMEM
           + "\n    pass\n    '''说明'''\n")
    compile(src, "<program>", "exec")
    f, p = run_source(src), parse_program(src)
    assert all(f(s.M, s.N, s.K) == choose(p, s) for s in dense_shapes)
    assert static_check_program(src) == (True, [])                      # 走不到的坏配置不算


def test_not_even_python_is_its_own_kind_of_refusal():
    with pytest.raises(E.ProgramSyntaxError):
        parse_program(HEAD + "    if M <= 16\n        return " + GOOD)
    with pytest.raises(ProgramError) as e:
        parse_program(HEAD + "    import os\n    return " + GOOD)
    assert not isinstance(e.value, E.ProgramSyntaxError)


@pytest.mark.parametrize("src, line, words", REFUSED)
def test_outside_the_subset_is_refused_with_the_line(src, line, words):
    with pytest.raises(ProgramError) as e:
        parse_program(src)
    assert str(e.value).startswith(f"第 {line} 行：") and words in str(e.value)
    assert isinstance(e.value, ValueError)
    assert static_check_program(src) == (False, [str(e.value)])


def test_no_function_at_all():
    with pytest.raises(ProgramError, match="没有找到 def choose_config"):
        parse_program("'''只有说明'''\n")


# —— 静态检查：judges what Python would run ——

@pytest.mark.parametrize("src", [
    # 第二个 def 才是 Python 用的那个
    HEAD + "    return " + GOOD + "\n" + HEAD + "    return " + BAD_SMEM,
    HEAD + "    C = Config\n    return C(128, 128, 128, 8, 5, 1)",
    HEAD + "    return CONFIGS[2879]",
    HEAD + "    return None",
    HEAD + "    return Config(BM=64, BM=256, BN=128, BK=64, warps=4, stages=3, split_k=1)",
])
def test_the_sources_the_old_check_passed_are_refused(src):
    ok, problems = static_check_program(src)
    assert not ok and len(problems) == 1


def test_each_bad_return_is_reported_once_on_its_line():
    src = HEAD + (f"    if M == 1 or M == 4 or N > 8192:\n        return {BAD_SMEM}\n"
                  f"    return {GOOD}\n")
    ok, problems = static_check_program(src)
    reasons = E.invalid_reasons(parse_program(src).rules[0].cfg)
    assert not ok and problems == [f"第 3 行：{BAD_SMEM}：{why}" for why in reasons]


FIVE_EACH = " and ".join("(" + " or ".join(f"{v} == {i}" for i in range(1, 6)) + ")"
                         for v in "MNK")   # 5³ 个格子
NEVER_RAISES = {
    "None": None,
    "整数": 12345,
    "嵌套太深（MemoryError）": "-" * 50_000 + "1",
    "嵌套太深（RecursionError）": "+".join(["1"] * 30_000),
    "缩进太深": HEAD + "".join("    " * (i + 1) + f"if M > {i}:\n" for i in range(120))
                + "    " * 121 + "return " + GOOD,
    "4,000 位的字面量（字段）": HEAD + "    return Config(" + "9" * 4000 + ", 64, 64, 4, 3, 1)\n",
    "4,000 位的字面量（条件）": HEAD + "    if M == " + "1" * 4000 + ":\n        return " + GOOD
                                + "\n    return " + GOOD,
    "字段 10**200": HEAD + f"    return Config({10**200}, {10**200}, 64, 4, 3, 1)\n",
    "超过 100 KB": HEAD + "    # " + "x" * 100_000 + "\n    return " + GOOD,
    "or 展开爆炸": HEAD + f"    if {FIVE_EACH}:\n        return {GOOD}\n    return {GOOD}\n",
    "很长的 elif 链": HEAD + "    if M > 1:\n        pass\n"
                      + f"    elif M > 1:\n        return {GOOD}\n" * 1500,
    "空字符": "\0",
    "hw 不对": "",
}


@pytest.mark.parametrize("name", list(NEVER_RAISES))
def test_static_check_never_raises(name):
    args = (NEVER_RAISES[name],) + (("H100",) if name == "hw 不对" else ())
    ok, problems = static_check_program(*args)
    assert ok is False and len(problems) == 1 and isinstance(problems[0], str)
    assert len(problems[0]) < 300                                 # 一句话，不是把几千位的数字印出来


def test_the_size_limit_is_stated():
    ok, problems = static_check_program(NEVER_RAISES["超过 100 KB"])
    assert "100 KB" in problems[0] and f"{C.MAX_SOURCE_CHARS:,}" in problems[0]


def test_parse_program_wants_a_string():
    with pytest.raises(TypeError, match="字符串"):
        parse_program(None)


def test_an_empty_interval_c_c_is_no_rule():
    """(c, c] 是空的（boxes.is_empty）：`M > 5 and M < 6` 在整数上没有 M，解析出的程序只剩
    `M > 100` 那一条，不写出 `5 < M <= 5`；化简也删掉这样的规则。"""
    assert is_empty(((5, 5), UNBOUNDED, UNBOUNDED)) and is_empty((UNBOUNDED, UNBOUNDED, (6, 5)))
    assert not is_empty(((5, 6), UNBOUNDED, UNBOUNDED))
    src = (HEAD + "    if (M > 5 and M < 6) or M > 100:\n"
           f"        return {GOOD}\n    return {BAD_SMEM}\n")
    p = parse_program(src)
    assert [rule.bounds for rule in p.rules] == [((100, math.inf), UNBOUNDED, UNBOUNDED)]
    assert "5 < M <= 5" not in render(p)
    empty = E.Rule(((5, 5), UNBOUNDED, UNBOUNDED), EXPERT.default)
    assert E.simplify(E.Program((empty,) + EXPERT.rules, EXPERT.default)) == E.simplify(EXPERT)
