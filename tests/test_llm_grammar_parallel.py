"""一个小的真模型也能干活：语法在请求里、并发的请求（issue 17）。"""
import re

import pytest

import evolve as E
import evolve_with_llm as cli
import prompt
from evolve import EXPERT, Evaluator, evolve, render
from llm import ChatLLM, from_transcript
from servers import SeededServer
from llm_cases import jitter, replies


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
