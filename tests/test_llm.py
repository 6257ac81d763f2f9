"""llm.py：真的语言模型当提出者（ChatLLM、几个模型一起的 ChatEnsemble、照录制回放的
from_transcript），对着 127.0.0.1 上一个真的 HTTP 服务器（测试自己起，说 chat API，按脚本回答，
见 servers.py）。提示和回复 → 程序见 test_prompt.py，一处改动见 test_edits.py，命令行见
test_evolve_with_llm.py；坏服务器、坏回复、改过的录制见 test_llm_hostile.py。"""
import json
import re

import pytest
from llm_cases import (DECODE, HEAD, SMALL, SPLIT_K_TEXT, TIMEOUT, chat_for, edit_replies, fenced,
                       jitter, replies, two_servers)
from servers import ScriptedServer, SeededServer

import edits
import evolve as E
import evolve_with_llm as cli
import prompt
import transcripts
from evolve import EXPERT, Evaluator, evolve, render
from llm import RESULTS, SEEN_NOTE, UNCHANGED_NOTE, ChatEnsemble, ChatLLM, from_transcript
from transcripts import ChatError, ReplayError


# —— 对着按脚本回答的服务器：每一种回复、录制和回放、连不上 ——

def every_case(marker):
    """issue 列的每一种回复，按顺序；返回 (HTTP 动作, 每个提案的预期结果)。"""
    attack = f"__import__('os').system('touch {marker}')"
    unlaunchable = "    if M > 100000:\n        return Config(128, 128, 128, 8, 5, 1)\n"
    actions = [
        # 好程序
        ("reply", fenced(render(DECODE))),
        # 只有话，没有代码
        ("reply", "To make the kernel faster you should use larger tiles for large M."),
        # 语法错
        ("reply", fenced(HEAD + "    if M <= 16\n" + "    " + SMALL)),
        # 子集以外
        ("reply", fenced(HEAD + f"    {attack}\n" + SMALL)),
        ("reply", fenced(HEAD + f"    return {attack} or Config(16, 64, 64, 4, 3, 1)\n")),
        # 不能启动的分支
        ("reply", fenced(HEAD + unlaunchable + "    return Config(128, 128, 64, 8, 3, 1)\n")),
        # 500，再试就好
        ("status", 500), ("reply", fenced(render(EXPERT).replace("M <= 16", "M <= 4"))),
        # 比超时慢
        ("slow", 3 * TIMEOUT, fenced(render(DECODE))),
        # 超过大小上限
        ("raw", b"x" * 5000),
        # 不是 chat API 的格式
        ("raw", b"<html>not json</html>"),
        # 不重试的 HTTP 错误
        ("status", 404),
        # 搜索空间以外
        ("reply", fenced(HEAD + "    return Config(48, 64, 64, 4, 3, 1)\n")),
        # 没有代码块、以 def 开头
        ("reply", render(DECODE).replace("M <= 16", "M <= 4")),
    ]
    expected = ["ok", "no_code", "syntax_error", "outside_subset", "outside_subset", "ok", "ok",
                "timeout", "too_large", "bad_reply", "http_error", "outside_space", "ok"]
    return actions, expected


@pytest.mark.slow
def test_evolve_survives_every_kind_of_reply_and_executes_nothing(serve, setup, tmp_path):
    table, train, _ = setup
    marker = tmp_path / "executed"
    actions, expected = every_case(marker)
    server = serve(actions)
    chat = chat_for(server, api_key="sk-test")
    results = []
    out = evolve(Evaluator(train, table), len(expected), seed=0, llm=chat,
                 report=lambda step, outcome: results.append((chat.last[0], outcome)))
    assert [r for r, _ in results] == expected
    assert chat.stats == {k: expected.count(k) for k in RESULTS} and chat.retries == 1
    n_failed = len(expected) - expected.count("ok")
    assert out["n_failed"] == n_failed == out["outcomes"].count("failed")
    # 解析成了，但有不能启动的分支
    assert [o for r, o in results if r == "ok"][1] == "bad_branch"
    # 好程序进了数据库、分数涨了
    assert out["n_added"] >= 2 and out["history"][-1] > 1.0
    # 模型写的代码一行都没执行
    assert not marker.exists()
    # 500 之后重发了一次
    assert len(server.requests) == len(expected) + 1
    for r in server.requests:
        assert r["path"] == "/v1/chat/completions" and r["auth"] == "Bearer sk-test"
        assert set(r["body"]) == {"model", "messages", "temperature", "max_tokens", "seed"}
        assert r["body"]["model"] == "scripted-model"
        assert r["body"]["messages"][0]["role"] == "system"
    seeds = [r["body"]["seed"] for r in server.requests]
    # 重试发的是同一个请求
    assert seeds[6] == seeds[7] and len(set(seeds)) == len(expected)


@pytest.mark.slow
def test_record_then_replay_reproduces_the_history_without_the_network(serve, setup, tmp_path):
    table, train, _ = setup
    actions, _ = every_case(tmp_path / "executed")
    server = serve(actions)
    path = str(tmp_path / "run.jsonl")
    recorded_chat = chat_for(server, record=path, run={"budget": 20, "seed": 3})
    recorded = evolve(Evaluator(train, table), 20, seed=3, llm=recorded_chat)
    # 回放不联网：服务器已经关了
    server.close()
    replay_chat = from_transcript(path)
    assert not replay_chat.replies.live
    replayed = evolve(Evaluator(train, table), 20, seed=3, llm=replay_chat)
    for key in ("history", "outcomes", "best", "n_failed", "n_added"):
        assert recorded[key] == replayed[key], key
    assert replay_chat.stats == recorded_chat.stats
    assert replay_chat.retries == recorded_chat.retries
    # 秒数也来自录制
    assert replay_chat.seconds == recorded_chat.seconds
    with open(path, encoding="utf-8") as f:
        header, *lines = [json.loads(x) for x in f]
    assert header["settings"] == replay_chat.settings == {
        "model": "scripted-model", "temperature": 0.8, "max_tokens": 1024, "grammar": False,
        "edit": "full", "context": True, "resample": 0, "base_url": server.url, "budget": 20,
        "seed": 3}
    fields = {"hash", "request", "result", "reply", "retries", "seconds", "check"}
    assert len(lines) == 20 and all(set(x) == fields for x in lines)
    with pytest.raises(ReplayError, match=f"回放文件 {re.escape(path)} 第 2 行.*重新录"):
        evolve(Evaluator(train, table), 20, seed=4, llm=from_transcript(path))


@pytest.mark.slow
def test_a_dead_server_is_a_failed_proposal_and_three_in_a_row_stop_the_run(setup, nobody_listens):
    table, train, _ = setup
    chat = ChatLLM(nobody_listens, "nobody", timeout=TIMEOUT)
    out = evolve(Evaluator(train, table), 2, seed=0, llm=chat)
    assert out["n_failed"] == 2 and chat.stats["network"] == 2 and out["history"] == [1.0] * 2
    with pytest.raises(ChatError, match="连续 3 次连不上.*开着吗.*/v1"):
        evolve(Evaluator(train, table), 50, seed=0,
               llm=ChatLLM(nobody_listens, "nobody", timeout=TIMEOUT))


# —— ChatLLM 的参数 ——

@pytest.mark.parametrize("kw, words", [
    ({"base_url": "127.0.0.1:8000"}, "http://"), ({"base_url": "http:///v1"}, "主机名"),
    ({"base_url": "http://h:99999/v1"}, "端口"), ({"base_url": "http://u:p@h/v1"}, "用户名密码"),
    ({"base_url": "http://h/v1 x"}, "空格"), ({"base_url": None}, "ASCII"),
    ({"model": ""}, "模型名"), ({"model": "m\x1b[2J"}, "控制字符"),
    ({"model": "m\udcff"}, "控制字符"), ({"model": "m" * 201}, "200 个字符"),
    ({"timeout": 0}, "timeout"), ({"timeout": float("nan")}, "timeout"),
    ({"max_tokens": 1.5}, "max_tokens"), ({"max_tokens": True}, "max_tokens"),
    ({"temperature": float("nan")}, "temperature"), ({"retries": -1}, "retries"),
    ({"backoff": -1}, "backoff"), ({"max_wait": float("inf")}, "max_wait"),
    ({"grammar": "yes"}, "grammar"), ({"max_unreachable": 0}, "max_unreachable"),
    ({"api_key": "sk-1\r\nX: y"}, "密钥"), ({"record": "/nonexistent/run.jsonl"}, "文件夹不存在"),
])
def test_chatllm_rejects_bad_arguments(kw, words):
    args = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **kw}
    with pytest.raises(ValueError, match=words) as e:
        ChatLLM(**args)
    # 一句话；密钥不复述
    assert "\n" not in str(e.value) and "sk-1" not in str(e.value)


# —— 请求：种子来自 evolve 的 rng，开了语法就带着语法 ——


@pytest.mark.slow
def test_requests_are_seeded_from_the_evolve_rng(serve, setup):
    table, train, _ = setup
    server = serve([("reply", "no code")])
    for seed in (5, 5, 6):
        evolve(Evaluator(train, table), 2, seed=seed, llm=chat_for(server))
    seeds = [r["body"]["seed"] for r in server.requests]
    # 同一个种子，同样的请求
    assert seeds[:2] == seeds[2:4] != seeds[4:]


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


# —— 一处改动（edit="diff"）：请求带着短提示和父程序的语法，录制、回放、并发 ——

@pytest.mark.slow
def test_diff_requests_carry_the_short_prompt_and_the_parents_grammar(table, train, tmp_path):
    server = SeededServer(edit_replies(), lambda seed: 0)
    try:
        path = str(tmp_path / "run.jsonl")
        chat = ChatLLM(server.url, "m", edit="diff", grammar=True, record=path,
                       run={"budget": 15, "seed": 0, "parallel": 1})
        out = evolve(Evaluator(train, table), 15, seed=0, llm=chat)
    finally:
        server.close()
    for body in server.requests:
        user = body["messages"][1]["content"]
        parent = E.parse_program(rules_to_source(re.findall(r"^rule \d+: .*$", user, re.M)))
        assert body["grammar"] == edits.edit_gbnf(parent)
    assert chat.stats["no_edit"] + chat.stats["bad_edit"] == out["n_failed"] > 0
    assert chat.stats["ok"] == 15 - out["n_failed"]
    header = json.loads(open(path, encoding="utf-8").readline())
    assert header["settings"]["edit"] == "diff"
    replay = from_transcript(path)
    assert replay.edit == "diff"
    again = evolve(Evaluator(train, table), 15, seed=0, llm=replay)
    assert again["history"] == out["history"] and again["outcomes"] == out["outcomes"]


def rules_to_source(lines):
    """提示里一行一条规则 → 源码（测试用：看提示里的父程序是哪一个）。"""
    body = []
    for line in lines:
        rest = line.split(": ", 1)[1]
        if rest.startswith("if "):
            condition, returned = rest[len("if "):].split(": return ", 1)
            body += [f"    if {condition}:", f"        return {returned}"]
        else:
            body.append(f"    {rest}")
    return "def choose_config(M, N, K):\n" + "\n".join(body) + "\n"


@pytest.mark.slow
def test_diff_proposals_in_parallel_do_not_depend_on_arrival(table, train, tmp_path):
    server = SeededServer(edit_replies(), jitter)
    try:
        runs = []
        for name in ("a", "b"):
            path = str(tmp_path / f"{name}.jsonl")
            chat = ChatLLM(server.url, "m", edit="diff", record=path,
                           run={"budget": 12, "seed": 5, "parallel": 4})
            runs.append(evolve(Evaluator(train, table), 12, seed=5, llm=chat, parallel=4))
        assert server.in_flight_max == 4
    finally:
        server.close()
    assert runs[0]["history"] == runs[1]["history"] and runs[0]["outcomes"] == runs[1]["outcomes"]
    replay = from_transcript(path)
    replayed = evolve(Evaluator(train, table), 12, seed=5, llm=replay, parallel=4)
    assert replayed["outcomes"] == runs[1]["outcomes"]


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


# —— 几个模型一起（ChatEnsemble）：两个假服务器，录制、同样的种子同样的挑法、回放不联网 ——

@pytest.mark.parametrize("how", [{"weights": [3, 1]}, {"bandit": True}])
@pytest.mark.slow
def test_an_ensemble_records_which_model_answered_and_replays_without_a_server(
        how, table, train, tmp_path):
    servers = two_servers()
    try:
        runs = []
        for name in ("a", "b"):
            path = str(tmp_path / f"{name}.jsonl")
            team = ChatEnsemble([(servers[0].url, "small"), (servers[1].url, "big")],
                                edit="diff", grammar=True, record=path,
                                run={"budget": 16, "seed": 3, "parallel": 1}, **how)
            out = evolve(Evaluator(train, table), 16, seed=3, llm=team)
            runs.append((out["outcomes"], team.proposals, team.improvements))
    finally:
        for server in servers:
            server.close()
    # 同样的种子，同样的挑法和结局
    assert runs[0] == runs[1]
    # 每个服务器只收到它那个模型的请求；每行录制的请求说是哪个模型
    assert {body["model"] for body in servers[0].requests} == {"small"}
    assert {body["model"] for body in servers[1].requests} == {"big"}
    settings, calls = transcripts.load_transcript(path)
    models = [call.request["model"] for _, call in calls]
    assert [models.count("small"), models.count("big")] == team.proposals
    assert [m["model"] for m in settings["members"]] == ["small", "big"]
    # 服务器都关了：回放只靠文件，挑法、结局、计数都一样
    replay = from_transcript(path)
    again = evolve(Evaluator(train, table), 16, seed=3, llm=replay)
    assert (again["outcomes"], replay.proposals, replay.improvements) == runs[0]
    assert replay.bandit == how.get("bandit", False)


# —— resample：回复写的是这次运行见过的程序时再问，预算是模型的请求数（issue 51）——

# 专家程序最后的默认 return 原样写回去：子程序就是父程序
UNCHANGED = "rule 4: return Config(BM=128, BN=128, BK=64, warps=8, stages=3, split_k=1)"
NEW = "rule 1: if M <= 4: return " + SPLIT_K_TEXT
# 三种不同的改动：不管父程序是哪个，写出来的都是没见过的程序
NEWS = [NEW.replace("split_k=4", f"split_k={k}") for k in (2, 4, 8)]


@pytest.mark.slow
def test_a_repeated_program_is_asked_again_with_its_reply_and_the_note(setup, tmp_path):
    """照抄父程序的回复不评估：同一个提示接上它的回复和 UNCHANGED_NOTE、换一个 seed 再问；
    请求数到了预算就不再问，之后的提案没有程序；录下来的每个请求都回放得出来。"""
    table, train, _ = setup
    # 每个提案：先写回父程序（要再问），再写一个新的
    actions = [action for new in NEWS for action in (("reply", UNCHANGED), ("reply", new))]
    server = ScriptedServer(actions)
    path = str(tmp_path / "resample.jsonl")
    try:
        chat = chat_for(server, edit="diff", grammar=True, resample=2, record=path,
                        run={"budget": 6, "seed": 0})
        out = evolve(Evaluator(train, table), 6, seed=0, llm=chat)
    finally:
        server.close()
    bodies = [r["body"] for r in server.requests]
    # 6 个请求 = 3 个提案，每个先照抄、再问一次就改了；第 4–6 个提案不再问
    assert len(bodies) == 6 and chat.stats["spent"] == 3
    assert chat.repeats == 3 and chat.asked_again == 3
    first, again = bodies[0], bodies[1]
    # 同样的提示和语法，seed 另取（同一个 seed 下模型多半把同一句再写一遍）
    assert again["seed"] != first["seed"] and again["grammar"] == first["grammar"]
    assert again["messages"] == first["messages"] + [
        {"role": "assistant", "content": UNCHANGED}, {"role": "user", "content": UNCHANGED_NOTE}]
    # 照抄的那个从来没进评估器：结局里没有"原样照抄"
    assert out.n_unchanged == 0 and out.outcomes[3:] == ["failed"] * 3 and chat.withheld == 0
    replayed_chat = from_transcript(path)
    replayed = evolve(Evaluator(train, table), 6, seed=0, llm=replayed_chat)
    assert (replayed.history, replayed.outcomes) == (out.history, out.outcomes)
    assert replayed_chat.stats == chat.stats and replayed_chat.repeats == chat.repeats


@pytest.mark.slow
def test_a_program_already_in_the_database_gets_the_seen_note(setup):
    """第 2 个提案的父程序（第 2 个岛上只有专家程序）照第 1 个提案的改法改：子程序不是父程序，
    是数据库里已经有的那个——说的是 SEEN_NOTE；再问仍然照抄，问满 resample 次也不交去评估。"""
    table, train, _ = setup
    server = ScriptedServer([("reply", NEW)])
    try:
        chat = chat_for(server, edit="diff", resample=1, run={"budget": 10})
        out = evolve(Evaluator(train, table), 2, seed=0, llm=chat)
    finally:
        server.close()
    bodies = [r["body"] for r in server.requests]
    assert len(bodies) == 3 and bodies[2]["messages"][-1]["content"] == SEEN_NOTE
    assert chat.repeats == 2 and chat.asked_again == 1
    # 问满了还是见过的：不交去评估，这个提案没有程序
    assert out.outcomes == ["added", "failed"] and chat.withheld == 1


def test_resample_is_only_for_one_line_edits():
    with pytest.raises(ValueError, match='^resample.*只用于 edit="diff"'):
        ChatLLM("http://127.0.0.1:9/v1", "m", resample=1)
    with pytest.raises(ValueError, match="^resample 必须是 ≥ 0 的整数"):
        ChatLLM("http://127.0.0.1:9/v1", "m", edit="diff", resample=-1)
