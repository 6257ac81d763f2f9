"""真的语言模型当提出者：对着 127.0.0.1 上一个真的 HTTP 服务器（测试自己起，说 chat API，按脚本回答）。"""
import glob
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import evolve as E
import evolve_with_llm as cli
from evolve import EXPERT, Evaluator, Program, Rule, TimeTable, UNBOUNDED, all_shapes, evolve, render, split_shapes
from llm import RESULTS, ChatLLM, ReplayError, build_messages, extract_code, program_from_reply

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14", "data")
HEAD = "def choose_config(M, N, K):\n"
SPLIT_K = E.Config(16, 64, 128, 4, 4, 4)                                # decode 用 split-K：比专家快
DECODE = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), SPLIT_K),) + EXPERT.rules, EXPERT.default)
TIMEOUT = 0.3                                   # 客户端超时；"慢"的回复睡得比它久


def fenced(code, before="Here is the improved function:\n", after="\nThis should be faster."):
    return f"{before}```python\n{code}```{after}"


class ScriptedServer:
    """127.0.0.1 上随机端口的 chat API 服务器。script 是按顺序的动作，每个 HTTP 请求用掉一个（用完了从头再来）：
    ("reply", 文本)、("status", 状态码)、("slow", 秒, 文本)、("raw", 字节)。"""

    def __init__(self, script):
        self.script, self.requests, self.lock = list(script), [], threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    action = server.script[len(server.requests) % len(server.script)]
                    server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
                kind = action[0]
                if kind == "status":
                    return self.send(action[1], b'{"error": "scripted"}')
                if kind == "slow":
                    time.sleep(action[1])
                raw = action[1] if kind == "raw" else json.dumps(
                    {"choices": [{"message": {"role": "assistant", "content": action[-1]}}]}).encode()
                self.send(200, raw)

            def send(self, status, raw):
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(raw)))
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):            # 客户端已经超时走了
                    pass

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


@pytest.fixture()
def serve():
    servers = []

    def start(script):
        servers.append(ScriptedServer(script))
        return servers[-1]
    yield start
    for s in servers:
        s.close()


@pytest.fixture(scope="module")
def setup():
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    return table, train, test


def every_case(marker):
    """issue 列的每一种回复，按顺序；返回 (HTTP 动作, 每个提案的预期结果)。"""
    attack = f"__import__('os').system('touch {marker}')"
    actions = [
        ("reply", fenced(render(DECODE))),                                                   # 好程序
        ("reply", "To make the kernel faster you should use larger tiles for large M."),     # 只有话，没有代码
        ("reply", fenced(HEAD + "    if M <= 16\n        return Config(16, 64, 64, 4, 3, 1)\n")),   # 语法错
        ("reply", fenced(HEAD + f"    {attack}\n    return Config(16, 64, 64, 4, 3, 1)\n")),         # 子集以外
        ("reply", fenced(HEAD + f"    return {attack} or Config(16, 64, 64, 4, 3, 1)\n")),
        ("reply", fenced(HEAD + "    if M > 100000:\n        return Config(128, 128, 128, 8, 5, 1)\n"   # 不能启动的分支
                         + "    return Config(128, 128, 64, 8, 3, 1)\n")),
        ("status", 500), ("reply", fenced(render(EXPERT).replace("M <= 16", "M <= 4"))),   # 500，再试就好
        ("slow", 3 * TIMEOUT, fenced(render(DECODE))),                                      # 比超时慢
        ("raw", b"x" * 5000),                                                               # 超过大小上限
        ("raw", b"<html>not json</html>"),                                                  # 不是 chat API 的格式
        ("status", 404),                                                                    # 不重试的 HTTP 错误
        ("reply", fenced(HEAD + "    return Config(48, 64, 64, 4, 3, 1)\n")),             # 搜索空间以外
        ("reply", render(DECODE).replace("M <= 16", "M <= 4")),                             # 没有代码块、以 def 开头
    ]
    expected = ["ok", "no_code", "syntax_error", "outside_subset", "outside_subset", "ok", "ok", "timeout", "too_large",
                "bad_reply", "http_error", "outside_space", "ok"]
    return actions, expected


def chat_for(server, **kw):
    return ChatLLM(server.url if server else None, "scripted-model", timeout=TIMEOUT, backoff=0.01,
                   max_reply_bytes=4000, **kw)


def test_evolve_survives_every_kind_of_reply_and_executes_nothing(serve, setup, tmp_path, monkeypatch):
    table, train, _ = setup
    marker = tmp_path / "executed"
    actions, expected = every_case(marker)
    server = serve(actions)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    chat = chat_for(server)
    results = []
    out = evolve(Evaluator(train, table), len(expected), seed=0, llm=chat,
                 report=lambda step, outcome: results.append((chat.last[0], outcome)))
    assert [r for r, _ in results] == expected
    assert chat.stats == {k: expected.count(k) for k in RESULTS} and chat.retries == 1
    assert out["n_failed"] == len(expected) - expected.count("ok") == out["outcomes"].count("failed")
    assert [o for r, o in results if r == "ok"][1] == "bad_branch"           # 解析成了，但有不能启动的分支
    assert out["n_added"] >= 2 and out["history"][-1] > 1.0                   # 好程序进了数据库、分数涨了
    assert not marker.exists()                                                # 模型写的代码一行都没执行
    assert len(server.requests) == len(expected) + 1                          # 500 之后重发了一次
    for r in server.requests:
        assert r["path"] == "/v1/chat/completions" and r["auth"] == "Bearer sk-test"
        assert set(r["body"]) == {"model", "messages", "temperature", "max_tokens", "seed"}
        assert r["body"]["model"] == "scripted-model" and r["body"]["messages"][0]["role"] == "system"
    seeds = [r["body"]["seed"] for r in server.requests]
    assert seeds[6] == seeds[7] and len(set(seeds)) == len(expected)          # 重试发的是同一个请求


def test_record_then_replay_reproduces_the_history_without_the_network(serve, setup, tmp_path):
    table, train, _ = setup
    actions, expected = every_case(tmp_path / "executed")
    server = serve(actions)
    path = str(tmp_path / "run.jsonl")
    recorded_chat = chat_for(server, record=path)
    recorded = evolve(Evaluator(train, table), 20, seed=3, llm=recorded_chat)
    server.close()                                                            # 回放不联网：服务器已经关了
    replay_chat = chat_for(None, replay=path)
    replayed = evolve(Evaluator(train, table), 20, seed=3, llm=replay_chat)
    for key in ("history", "outcomes", "best", "n_failed", "n_added"):
        assert recorded[key] == replayed[key], key
    assert replay_chat.stats == recorded_chat.stats and replay_chat.retries == recorded_chat.retries
    assert replay_chat.seconds == recorded_chat.seconds                        # 秒数也来自录制
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(x) for x in f]
    assert len(lines) == 20 and all({"hash", "request", "result", "reply", "seconds"} <= set(x) for x in lines)
    with pytest.raises(ReplayError, match="重新录"):
        evolve(Evaluator(train, table), 20, seed=4, llm=chat_for(None, replay=path))


def test_a_dead_server_is_a_failed_proposal_not_a_crash(setup):
    table, train, _ = setup
    chat = ChatLLM("http://127.0.0.1:9/v1", "nobody", timeout=TIMEOUT)      # 9 号端口没人听
    out = evolve(Evaluator(train, table), 3, seed=0, llm=chat)
    assert out["n_failed"] == 3 and chat.stats["network"] == 3 and out["history"] == [1.0] * 3


def test_the_prompt_holds_what_alphaevolve_puts_in_it(setup):
    table, train, _ = setup
    ev = Evaluator(train, table)
    ev.evaluate(DECODE)
    fb = ev.feedback(EXPERT)
    system, user = (m["content"] for m in build_messages(EXPERT, fb, [(DECODE, 1.0123)]))
    assert "```python" in system
    assert render(EXPERT) in user and render(DECODE) in user and "score 1.012" in user
    row = re.compile(r" *\d+ +\d+ +\d+ +[\d.]+ +[\d.]+ +[\d.]+  (-|Config\()")
    rows = [line for line in user.splitlines() if row.match(line)]
    assert len(rows) == len(train)
    for line, s, t, vs_best in zip(rows, train, fb.time, fb.vs_best):
        assert line.split()[:4] == [str(s.M), str(s.N), str(s.K), f"{t * 1e6:.1f}"]
        assert line.endswith("  -") == (vs_best == 1)                      # 已经用着见过最快的配置
    assert "Config(16, 64, 128, 4, 4, 4)" in user                             # 见过最快的配置，照抄就能用
    for limit in (E.H100.smem_per_block, E.H100.regs_per_thread, E.MMA_TILE):
        assert str(limit) in user


def test_the_limits_in_the_prompt_are_exactly_the_static_check(setup):
    """提示里写的三条硬件上限，照着算就是 static_valid：模型照提示写的配置，分支检查不会另有说法。"""
    table, train, _ = setup
    fb = Evaluator(train, table).feedback(EXPERT)
    user = build_messages(EXPERT, fb, [])[1]["content"]
    section = user[user.index("Hardware limits"):user.index("The code may only use")]
    formulas = [re.sub(r"\s\([a-z].*$", "", line.split(":", 1)[1]).replace("bytes", "")      # 去掉结尾的说明
                for line in section.splitlines() if line.startswith("- ")]
    assert len(formulas) == 3
    for cfg in E.CONFIGS:
        fields = {f: getattr(cfg, f) for f in E.CONFIG_CHOICES}
        assert all(eval(f, {}, fields) for f in formulas) == E.static_valid(cfg), cfg  # noqa: S307 - 测试专用
    for field, values in E.CONFIG_CHOICES.items():
        assert f"- {field}: {', '.join(map(str, values))}" in user
    assert user.rstrip().endswith("one ```python code block.")


@pytest.mark.parametrize("text, code", [
    (fenced("a = 1\n") + fenced("b = 2\n"), "b = 2\n"),                       # 最后一个代码块
    ("```py\nc = 3\n```", "c = 3\n"),
    ("def choose_config(M, N, K):\n    return x", "def choose_config(M, N, K):\n    return x\n"),
    ("Sure! I would use a bigger tile.", None),
    ("```python\ndef unfinished(", "def unfinished("),                         # 被 max_tokens 截断的代码块也算
])
def test_extract_code(text, code):
    assert extract_code(text) == code


def test_reply_outcomes():
    assert program_from_reply(fenced(render(DECODE)))[0] == "ok"
    assert program_from_reply(fenced(render(DECODE)))[2] == DECODE
    kind, why, p = program_from_reply(fenced(HEAD + "    import os\n    return Config(16, 64, 64, 4, 3, 1)\n"))
    assert (kind, p) == ("outside_subset", None) and why.startswith("第 2 行：不允许 import")
    kind, why, p = program_from_reply(fenced(HEAD + "    if M <= 16\n        return Config(16, 64, 64, 4, 3, 1)\n"))
    assert (kind, p) == ("syntax_error", None) and why.startswith("第 2 行：语法错误")


@pytest.mark.parametrize("kw, words", [({"base_url": "127.0.0.1:8000"}, "http://"), ({"model": ""}, "model"),
                                       ({"timeout": 0}, "timeout"), ({"record": "a", "replay": "b"}, "只能选一个"),
                                       ({"replay": "/nonexistent.jsonl"}, "不存在")])
def test_chatllm_rejects_bad_arguments(kw, words):
    args = {"base_url": "http://127.0.0.1:1/v1", "model": "m", **kw}
    with pytest.raises(ValueError, match=words):
        ChatLLM(**args)


# —— 命令行 ——

def test_command_line_replay_prints_exactly_what_the_recording_printed(serve, tmp_path, capsys):
    server = serve([("reply", fenced(render(DECODE))), ("reply", "no code here"),
                    ("reply", fenced(render(EXPERT).replace("M <= 16", "M <= 4")))])
    path = str(tmp_path / "run.jsonl")
    common = ["--model", "scripted-model", "--budget", "6", "--seed", "1", "--timeout", "5"]
    assert cli.main(common + ["--base-url", server.url, "--record", path]) == 0
    recorded = capsys.readouterr()
    server.close()
    assert cli.main(common + ["--replay", path]) == 0
    replayed = capsys.readouterr()
    assert replayed.out == recorded.out
    assert "scripted-model 和 MockLLM" in recorded.out and "def choose_config(M, N, K):" in recorded.out
    progress_lines = [x for x in recorded.err.splitlines() if x.startswith("[scripted-model ")]
    assert len(progress_lines) == 6 and "没有代码" in progress_lines[1] and "→" in progress_lines[0]
    assert cli.main(common + ["--base-url", server.url, "--record", path]) == 2   # 不覆盖已有的录制
    assert "已经存在" in capsys.readouterr().err


def test_command_line_explains_a_replay_that_does_not_match(serve, tmp_path, capsys):
    server = serve([("reply", fenced(render(DECODE)))])
    path = str(tmp_path / "run.jsonl")
    assert cli.main(["--model", "m", "--budget", "2", "--base-url", server.url, "--record", path]) == 0
    capsys.readouterr()
    assert cli.main(["--model", "m", "--budget", "2", "--seed", "9", "--replay", path]) == 2
    err = capsys.readouterr().err
    assert "没有这次请求" in err and "Traceback" not in err


@pytest.mark.parametrize("args, words", [
    (["--base-url", "localhost:8000"], "http://"),                         # 少了 http://
    (["--replay", "NOT_A_TRANSCRIPT"], "不是录制的一次调用"),
    (["--budget", "0", "--base-url", "http://127.0.0.1:1"], "--budget"),
])
def test_command_line_slips_get_one_sentence(args, words, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"x": 1}\n', encoding="utf-8")
    args = [str(bad) if a == "NOT_A_TRANSCRIPT" else a for a in args]
    assert cli.main(["--model", "m", "--budget", "3"] + args) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_requests_are_seeded_from_the_evolve_rng(serve, setup):
    table, train, _ = setup
    server = serve([("reply", "no code")])
    for seed in (5, 5, 6):
        evolve(Evaluator(train, table), 2, seed=seed, llm=chat_for(server))
    seeds = [r["body"]["seed"] for r in server.requests]
    assert seeds[:2] == seeds[2:4] != seeds[4:]                               # 同一个种子，同样的请求


# —— 提交的真模型录制：回放它，得到录制时打印的同一份输出 ——

TRANSCRIPTS = sorted(glob.glob(os.path.join(DATA, "*.jsonl")))


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=os.path.basename)
def test_the_committed_real_model_run_replays(path, capsys, monkeypatch):
    """lecture14/data/NAME.jsonl 是录制，NAME.txt 是录制时的 stdout（COLUMNS=100）。重新录制时两个文件一起更新
    （lecture14/record_smollm2.sh）；这里的参数都从这两个文件里读，不用跟着改。"""
    monkeypatch.setenv("COLUMNS", "100")
    with open(path, encoding="utf-8") as f:
        calls = [json.loads(line) for line in f]
    with open(path[:-len(".jsonl")] + ".txt", encoding="utf-8") as f:
        printed = f.read()
    request = calls[0]["request"]
    seed = re.search(r"各 (\d+) 个提案，种子 (\d+)", printed)
    assert seed and int(seed.group(1)) == len(calls)
    assert cli.main(["--model", request["model"], "--max-tokens", str(request["max_tokens"]), "--budget",
                     str(len(calls)), "--seed", seed.group(2), "--replay", path]) == 0
    assert capsys.readouterr().out == printed
    assert {c["result"] for c in calls} <= set(RESULTS)


def test_there_is_a_committed_real_model_run():
    assert TRANSCRIPTS, "lecture14/data/ 里应有一份真模型的录制（README 的'用真的 LLM'一节）"
