"""真的语言模型当提出者：对着 127.0.0.1 上一个真的 HTTP 服务器（测试自己起，说 chat API，
按脚本回答，见 servers.py）。提示和回复 → 程序见 test_llm_prompt.py，坏服务器、坏回复、
改过的录制见 test_llm_hostile.py。"""
import glob
import json
import os
import re

import pytest

import evolve_with_llm as cli
import prompt
import transcripts
import transport
from evolve import EXPERT, Evaluator, evolve, render
from llm import RESULTS, ChatLLM, from_transcript
from llm_cases import DECODE, HEAD, SMALL, TIMEOUT, chat_for, fenced
from servers import ScriptedServer
from transcripts import ChatError, ReplayError
from console import display_width

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14", "real_llm",
                    "data")


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
        "edit": "full", "context": True, "base_url": server.url, "budget": 20, "seed": 3}
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


@pytest.mark.slow
def test_the_environment_key_goes_only_to_https(serve, setup, monkeypatch):
    """OPENAI_API_KEY 只给 https 的地址：明文 http 的（本机的、别人的）服务器拿不到它；
    要给就明说（api_key=）。"""
    table, train, _ = setup
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert transport.default_api_key("https://api.example.com/v1") == "sk-env"
    assert transport.default_api_key("http://127.0.0.1:8080/v1") is None
    assert transport.default_api_key("http://10.0.0.2/v1") is None
    server = serve([("reply", "no code")])
    evolve(Evaluator(train, table), 1, seed=0, llm=chat_for(server))
    evolve(Evaluator(train, table), 1, seed=0, llm=chat_for(server, api_key="sk-given"))
    assert [r["auth"] for r in server.requests] == [None, "Bearer sk-given"]


# —— 命令行 ——

@pytest.mark.slow
def test_command_line_replay_prints_exactly_what_the_recording_printed(serve, tmp_path, capsys):
    server = serve([("reply", fenced(render(DECODE))), ("reply", "no code here"),
                    ("reply", fenced(render(EXPERT).replace("M <= 16", "M <= 4")))])
    path = str(tmp_path / "run.jsonl")
    common = ["--model", "scripted-model", "--budget", "6", "--seed", "1", "--timeout", "5"]
    assert cli.main(common + ["--base-url", server.url, "--record", path]) == 0
    recorded = capsys.readouterr()
    server.close()
    # 设置都从文件第 1 行来
    assert cli.main(["--replay", path]) == 0
    replayed = capsys.readouterr()
    assert replayed.out == recorded.out
    assert "scripted-model 和三个对照" in recorded.out and HEAD in recorded.out
    assert all(name in recorded.out for name in cli.BASELINES)
    progress = [x for x in recorded.err.splitlines() if x.startswith("[scripted-model ")]
    assert len(progress) == 6 and "没有代码" in progress[1] and "→" in progress[0]
    # 回放的用时不冒充等模型
    timing = [x for x in replayed.err.splitlines() if x.startswith("用时：")]
    assert len(timing) == 1 and "回放" in timing[0] and "录制时等模型" in timing[0]
    # 录制时的用时加得起来
    line = recorded.err.split("用时：")[1]
    wall, wait, engine = map(float, re.findall(r"([\d.]+) s", line)[:3])
    assert abs(wall - wait - engine) <= 0.11
    # 不覆盖已有的录制
    assert cli.main(common + ["--base-url", server.url, "--record", path]) == 2
    assert "已经存在" in capsys.readouterr().err


@pytest.fixture(scope="module")
def two_proposals(tmp_path_factory):
    """一份 2 个提案的录制（--model m --budget 2，别的用默认），录一次给下面几个测试用。"""
    server = ScriptedServer([("reply", fenced(render(DECODE)))])
    path = str(tmp_path_factory.mktemp("two") / "run.jsonl")
    common = ["--model", "m", "--budget", "2"]
    try:
        assert cli.main(common + ["--base-url", server.url, "--record", path]) == 0
    finally:
        server.close()
    # 回放时给了同样的设置，没关系
    assert cli.main(["--replay", path] + common) == 0
    return path


@pytest.mark.parametrize("flags, named", [
    (["--seed", "9"], "--seed 0"), (["--budget", "3"], "--budget 2"),
    (["--max-tokens", "512"], "--max-tokens 1024"), (["--model", "n"], "--model m"),
    (["--temperature", "0.5"], "--temperature 0.8"), (["--grammar"], "录制时没有用 --grammar"),
    (["--parallel", "2"], "--parallel 1"), (["--no-evolution"], "录制时没有用 --no-evolution")])
@pytest.mark.slow
def test_a_replay_setting_that_differs_is_named(flags, named, two_proposals, capsys):
    path = two_proposals
    assert cli.main(["--replay", path] + flags) == 2
    err = capsys.readouterr().err
    assert named in err and path in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, words", [
    # 少了 http://
    (["--base-url", "localhost:8000"], "http://"),
    (["--base-url", "http://"], "主机名"),
    (["--base-url", "SERVER", "--timeout", "nan"], "--timeout"),
    (["--base-url", "SERVER", "--timeout", "inf"], "--timeout"),
    (["--base-url", "SERVER", "--timeout", "-1"], "--timeout"),
    (["--base-url", "SERVER", "--budget", "0"], "--budget"),
    # argparse 自己发现的也只一行
    (["--base-url", "SERVER", "--budget", "abc"], "--budget"),
    (["--base-url", "SERVER", "--seed", "-1"], "--seed"),
    (["--base-url", "SERVER", "--max-tokens", "0"], "--max-tokens"),
    (["--base-url", "SERVER", "--model", "m\x1b]0;pwned\x07"], "控制字符"),
    (["--base-url", "SERVER", "--record", "MISSING/run.jsonl"], "文件夹不存在"),
    (["--base-url", "SERVER", "--record", "EXISTING"], "已经存在"),
    (["--base-url", "SERVER", "--api-key-env", "CS349E_NO_SUCH_VAR"], "CS349E_NO_SUCH_VAR"),
    (["--replay", "EXISTING"], "第 1 行"),
    (["--replay", "MISSING/run.jsonl"], "打不开"),
    (["--replay", "EXISTING", "--base-url", "SERVER"], "回放不联网"),
    (["--replay", "EXISTING", "--record", "OTHER"], "只能选一个"),
    # 既没有服务器也没有录制
    (["--budget", "3"], "--replay"),
    (["--base-url", "SERVER", "--temperature", "nan"], "--temperature"),
    (["--base-url", "SERVER", "--temperature", "3"], "--temperature"),
    (["--base-url", "SERVER", "--parallel", "0"], "--parallel"),
    (["--base-url", "SERVER", "--parallel", "x"], "--parallel"),
])
@pytest.mark.slow
def test_command_line_slips_get_one_sentence_before_any_call(args, words, serve, tmp_path, capsys):
    server = serve([("reply", "no code")])
    existing = tmp_path / "existing.jsonl"
    existing.write_text('{"x": 1}\n', encoding="utf-8")
    names = {"SERVER": server.url, "EXISTING": str(existing), "OTHER": str(tmp_path / "other"),
             "MISSING/run.jsonl": str(tmp_path / "no" / "run.jsonl")}
    try:
        code = cli.main(["--model", "m"] + [names.get(a, a) for a in args])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "\x1b" not in err
    # 一次调用都没发，已有的文件没被动过，也没有新建录制
    assert server.requests == []
    assert existing.read_text(encoding="utf-8") == '{"x": 1}\n'
    assert not os.path.exists(names["OTHER"])


@pytest.mark.slow
def test_requests_are_seeded_from_the_evolve_rng(serve, setup):
    table, train, _ = setup
    server = serve([("reply", "no code")])
    for seed in (5, 5, 6):
        evolve(Evaluator(train, table), 2, seed=seed, llm=chat_for(server))
    seeds = [r["body"]["seed"] for r in server.requests]
    # 同一个种子，同样的请求
    assert seeds[:2] == seeds[2:4] != seeds[4:]


# —— 提交的真模型录制：回放它，得到录制时打印的同一份输出 ——

TRANSCRIPTS = sorted(glob.glob(os.path.join(DATA, "*.jsonl")))


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=os.path.basename)
@pytest.mark.slow
def test_the_committed_real_model_run_replays(path, capsys, monkeypatch):
    """lecture14/real_llm/data/NAME.jsonl 是录制，NAME.txt 是录制时的 stdout（COLUMNS=100）。重新录制时
    两个文件一起更新（lecture14/real_llm/record.sh）；设置都在录制文件的第 1 行，这里不用跟着改。"""
    monkeypatch.setenv("COLUMNS", "100")
    settings, calls = transcripts.load_transcript(path)
    with open(path[:-len(".jsonl")] + ".txt", encoding="utf-8") as f:
        printed = f.read()
    assert f"各 {settings['budget']} 个提案，种子 {settings['seed']}" in printed
    assert len(calls) == settings["budget"]
    # 文件自己说清了怎么跑
    assert cli.main(["--replay", path]) == 0
    assert capsys.readouterr().out == printed
    # 80 列的终端里 stdout 和 stderr（模型、用时那几句）都放得下
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["--replay", path]) == 0
    shown = capsys.readouterr()
    lines = (shown.out + shown.err).splitlines()
    assert max(display_width(line) for line in lines) <= 80
    assert any(line.startswith("对照的用时：随机改一处") for line in shown.err.splitlines())


def test_there_is_a_committed_real_model_run():
    assert TRANSCRIPTS, "lecture14/real_llm/data/ 里应有一份真模型的录制（见 real_llm/README.md）"


@pytest.mark.slow
def test_the_committed_smollm2_run_is_constrained_and_its_replies_parse(setup):
    """issue 17 要的那一次：SmolLM2-135M、带语法、至少 100 个提案、种子 0，至少 90% 的回复
    解析成程序。"""
    table, train, _ = setup
    path = os.path.join(DATA, "smollm2_run.jsonl")
    settings, calls = transcripts.load_transcript(path)
    # 每次请求都带着今天的语法
    assert all(call.request["grammar"] == prompt.gbnf() for _, call in calls)
    assert settings["model"].startswith("SmolLM2-135M") and settings["grammar"] is True
    assert settings["budget"] >= 100 and settings["seed"] == 0
    chat = from_transcript(path)
    evolve(Evaluator(train, table), settings["budget"], seed=0, llm=chat,
           parallel=settings["parallel"])
    assert chat.stats["ok"] >= 0.9 * settings["budget"] and chat.calls == settings["budget"]


@pytest.mark.parametrize("real, rand, says, never", [
    ((1.10, 1.09), (1.05, 1.04), "比随机改一处好", "没有"),
    ((1.00, 1.00), (1.07, 1.06), "还不如随机改", "只在"),
    # 一样高：不是"不如"，也没有"分数的提高"可说
    ((1.00, 1.00), (1.00, 1.00), "说不上比随机的有用", "不如"),
    ((1.05, 1.00), (1.05, 1.02), "说不上比随机的有用", "不如"),
    ((1.08, 1.00), (1.05, 1.00), "只在训练形状上比随机改一处好", "不如"),
    ((1.08, 1.00), (1.05, 1.02), "只在训练形状上比随机改一处好", "不如"),
])
def test_the_sentence_on_random_edits_says_what_the_two_scores_show(real, rand, says, never):
    sentence = cli.verdict_on_random("m", dict(zip(("score", "test"), real)),
                                     dict(zip(("score", "test"), rand)))
    assert says in sentence and never not in sentence
    # 模型和随机改各只跑了一次：比的是两个数，看不出种子之间的波动，这一句也说出来
    assert "；只有 1 个种子，看不出种子之间的波动）" in sentence
