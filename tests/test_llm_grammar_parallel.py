"""一个小的真模型也能干活：约束解码的语法、随机改一处的对照、并发的请求（issue 17）。

语法不靠任何服务器来读：gbnf.py 把它展开成正则表达式，也能从它随机生成句子。
"""
import random
import re

import pytest

import evolve as E
import evolve_with_llm as cli
import prompt
from evolve import EXPERT, Evaluator, evolve, parse_program, render, static_check_program
from gbnf import parse_gbnf, sentence, to_regex
from llm import ChatLLM, from_transcript
from variants import ProposerDescription
from servers import SeededServer
from llm_cases import jitter, replies

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
HEAD = "def choose_config(M, N, K):\n"
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


# —— 随机改一处：对照 ——

def differences(a, b):
    """两个程序差在哪：[(第几个分支, 哪一处)]。"""
    assert len(a.rules) == len(b.rules)
    out = []
    for i, (x, y) in enumerate(zip(a.configs(), b.configs())):
        out += [(i, f) for f in E.CONFIG_CHOICES if getattr(x, f) != getattr(y, f)]
    for i, (x, y) in enumerate(zip(a.rules, b.rules)):
        out += [(i, (j, k)) for j in range(3) for k in range(2) if x.bounds[j][k] != y.bounds[j][k]]
    return out


def test_random_edits_make_exactly_one_valid_change(table, split, evolved):
    ev, rng = Evaluator(split[0], table), random.Random(0)
    parents = [EXPERT] + [p for p in evolved if E.all_branches_valid(p, table.hw)][:10]
    kinds = set()
    for parent in parents:
        fb = ev.feedback(parent)
        for _ in range(40):
            child = cli.RandomEdits().propose(parent, fb, [], rng)
            diff = differences(parent, child)
            # 恰好一处
            assert len(diff) == 1, render(child)
            # 改完每个分支仍能启动
            assert E.all_branches_valid(child, table.hw)
            kinds.add(type(diff[0][1]).__name__)
    # 字段和阈值都改过
    assert kinds == {"str", "tuple"}


def test_random_threshold_moves_are_every_move_mockllm_can_make(split, evolved):
    """随机改一处挪阈值的那些改动，就是 MockLLM 挪阈值能挪出的每一种（挪不动、原样返回的除外）。"""
    import random_edits
    view = E.TrainingView(split[0])
    rng = random.Random(0)
    for parent in [EXPERT] + evolved[:10]:
        mockllm_moves = {E._move_threshold(parent, view, rng) for _ in range(3000)} - {parent}
        assert set(random_edits.threshold_moves(parent, split[0])) == mockllm_moves


def test_random_edits_describe_themselves():
    assert E.describe_proposer(cli.RandomEdits()) == ProposerDescription("RandomEdits")


def test_random_edits_only_use_the_rng_it_is_given(table, split):
    ev = Evaluator(split[0], table)
    a = evolve(ev, 60, seed=2, llm=cli.RandomEdits())
    b = evolve(ev, 60, seed=2, llm=cli.RandomEdits())
    assert a["history"] == b["history"] and a["outcomes"] == b["outcomes"]


# —— 语法在请求里：和别的一样录制、回放 ——

@pytest.mark.slow
def test_the_grammar_travels_in_the_request_and_is_recorded(serve, tmp_path, table, split):
    server = serve([("reply", render(EXPERT))])
    path = str(tmp_path / "run.jsonl")
    chat = ChatLLM(server.url, "m", grammar=True, record=path, run={"budget": 3, "seed": 0})
    out = evolve(Evaluator(split[0], table), 3, llm=chat)
    assert all(r["body"]["grammar"] == prompt.gbnf() for r in server.requests)
    replay = from_transcript(path)
    assert replay.grammar is True and replay.settings["grammar"] is True
    assert evolve(Evaluator(split[0], table), 3, llm=replay)["outcomes"] == out["outcomes"]
    plain = serve([("reply", render(EXPERT))])
    evolve(Evaluator(split[0], table), 2, llm=ChatLLM(plain.url, "m"))
    # 不开就不发：别的服务器不认这个字段
    assert all("grammar" not in r["body"] for r in plain.requests)


# —— 并发：K 个请求同时在路上，结果和到达的先后无关 ——


def run_parallel(url, table, train, k, record=None, budget=12):
    chat = ChatLLM(url, "m", record=record, run={"budget": budget, "seed": 5, "parallel": k})
    return evolve(Evaluator(train, table), budget, seed=5, llm=chat, parallel=k), chat


@pytest.mark.slow
def test_parallel_requests_are_in_flight_together_and_the_run_does_not_depend_on_arrival(
        table, train, tmp_path):
    server = SeededServer(replies(), jitter)
    try:
        path = str(tmp_path / "run.jsonl")
        a, chat_a = run_parallel(server.url, table, train, 4, record=path)
        # 真的同时在路上
        assert server.in_flight_max == 4
        b, _ = run_parallel(server.url, table, train, 4)
        for key in ("history", "outcomes", "n_added", "n_unchanged"):
            assert a[key] == b[key], key
        assert render(a["best"][0]) == render(b["best"][0])
        replay = from_transcript(path)
        c = evolve(Evaluator(train, table), 12, seed=5, llm=replay, parallel=4)
        assert c["history"] == a["history"] and c["outcomes"] == a["outcomes"]
        assert replay.stats == chat_a.stats
        # 照抄父程序的也数出来了
        assert 0 < a["n_unchanged"] < 12
    finally:
        server.close()


def test_parallel_one_is_exactly_the_serial_loop(table, train):
    for llm_ in (E.MockLLM(), cli.RandomEdits()):
        serial = evolve(Evaluator(train, table), 120, seed=1, llm=llm_)
        one = evolve(Evaluator(train, table), 120, seed=1, llm=llm_, parallel=1)
        assert serial["history"] == one["history"] and serial["outcomes"] == one["outcomes"]
    # 同一批看不到彼此：是另一次运行，但确定
    batched = evolve(Evaluator(train, table), 120, seed=1, parallel=8)
    assert batched["history"] == evolve(Evaluator(train, table), 120, seed=1, parallel=8)["history"]


@pytest.mark.slow
def test_the_command_line_with_parallel_requests_is_repeatable_and_replays(tmp_path, capsys):
    server = SeededServer(replies(), jitter)
    try:
        outs = []
        for name in ("a", "b"):
            path = str(tmp_path / f"{name}.jsonl")
            args = ["--base-url", server.url, "--model", "m", "--budget", "8", "--seed", "2",
                    "--parallel", "4", "--record", path]
            assert cli.main(args) == 0
            outs.append(capsys.readouterr().out)
        # 到达的先后不同，结果一样；只有"等模型 s"那一格是这次量的墙钟时间，不算在内
        assert server.in_flight_max == 4
        assert without_waiting(outs[0]) == without_waiting(outs[1])
        assert cli.main(["--replay", path]) == 0
        # 回放 b 的录制，和 b 一字不差（秒数也是录下来的），并发数记在第 1 行
        assert capsys.readouterr().out == outs[1]
        assert "并发 4" in outs[1]
    finally:
        server.close()


def without_waiting(out):
    """stdout 去掉模型那一行的"等模型 s"（行末的秒数）：联网时它是量出来的，两次不会一样。"""
    return re.sub(r"^(m +.*?) +[0-9.]+$", r"\1", out, flags=re.M)
