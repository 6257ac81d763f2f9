"""proposal_seconds.py（issue 42）：把录制里的请求交替发给几个服务器，量提案的秒数对只生成的秒数；
对着 127.0.0.1 上的假服务器。"""
import json
import os

import pytest
from conftest import ROOT
from servers import ScriptedServer

import proposal_seconds

pytestmark = pytest.mark.slow

RECORDING = os.path.join(ROOT, "lecture14", "real_llm", "data", "qwen_diff_seed0.jsonl")


def with_usage(prompt, completion):
    """一个带 usage 的 chat API 回复体。"""
    return ("raw", json.dumps({"choices": [{"message": {"content": "x"}}],
                               "usage": {"prompt_tokens": prompt,
                                         "completion_tokens": completion}}).encode())


def test_each_server_gets_the_recorded_requests_in_alternating_order(capsys):
    # 量速度的三次（热身、1 个、65 个 token），再是两个提案
    script = [with_usage(9, 1), with_usage(9, 1), with_usage(9, 65), with_usage(1000, 40),
              with_usage(300, 40)]
    servers = [ScriptedServer(script), ScriptedServer(script)]
    try:
        code = proposal_seconds.main(["--recording", RECORDING, "--first", "2",
                                      "--server", f"a={servers[0].url}",
                                      "--server", f"b={servers[1].url}"])
        recorded = proposal_seconds.recorded_requests(RECORDING, 2)
        for server in servers:
            assert [r["body"] for r in server.requests[3:]] == recorded
        # 第 1 个请求先给 a，第 2 个先给 b
        a, b = (server.requests for server in servers)
        assert a[3]["at"] < b[3]["at"] and b[4]["at"] < a[4]["at"]
    finally:
        for server in servers:
            server.close()
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and [line.split("：")[0] for line in out] == ["a", "b"]
    assert all("第 1–2 个请求的中位数" in line and "比值" in line for line in out)


@pytest.mark.parametrize("script, words", [
    ([("reply", "no usage")], "没有 usage"),
    ([with_usage(-1, 3)], "没有 usage"),
    ([("status", 500)], "HTTP 500"),
])
def test_a_server_without_usage_is_one_sentence(script, words, capsys):
    server = ScriptedServer(script)
    try:
        code = proposal_seconds.main(["--recording", RECORDING, "--first", "1",
                                      "--server", f"a={server.url}"])
    finally:
        server.close()
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and words in err[-1] and len(err) == 1


def test_a_bad_address_is_one_sentence(capsys):
    assert proposal_seconds.main(["--recording", RECORDING, "--server", "a=ftp://x"]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, says", [
    # 忘了名字：以前说的是收到 ''（地址是空的），不说写的是什么
    (["--server", "bogus"],
     "--server 要写成 名字=地址（例如 --server cache=http://127.0.0.1:8767/v1），收到 'bogus'"),
    (["--server", "=http://127.0.0.1:9/v1"], "收到 '=http://127.0.0.1:9/v1'"),
    # 同一个名字两次：后一个悄悄顶掉前一个
    (["--server", "a=http://127.0.0.1:9/v1", "--server", "a=http://127.0.0.1:8/v1"],
     "--server 的名字 'a' 给了两次"),
    # 以前说的是"录制文件里没有请求"：错的是 --first
    (["--server", "a=http://127.0.0.1:9/v1", "--first", "0"], "--first 是取录制里的前几个请求，"
                                                              "必须是 ≥ 1 的整数，收到 0"),
])
def test_a_bad_server_or_first_is_one_sentence_naming_it(args, says, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    with pytest.raises(SystemExit) as stop:
        proposal_seconds.main(["--recording", RECORDING, *args])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and says in err and err.count("\n") == 1
