"""对着 127.0.0.1 上故意使坏的服务器（servers.py）和改过的录制，检查 issue 16 的每条承诺：
密钥不出 base_url、一次调用的截止时间守得住、什么样的回复都只是一次计数的失败、
打到终端的字没有控制字符、坏的录制是一句话（哪个文件第几行）。

每个测试跑四遍：要整个程序（--edit full）、只要一处改动（--edit diff，issue 24），两个模型一起
（ChatEnsemble，一处改动，issue 37：两个成员在同一个使坏的服务器上，模型名也一样，好让每条断言
照旧），和说明由模型改写（--meta-prompt，issue 43）：一个提案的那些测试里，那一份预算正是写说明的
请求。"""
import json
import re
import time
import unicodedata
from unittest import mock

import pytest

import edits
import evolve as E
import evolve_with_llm as cli
import llm
import prompt
import transcripts
from evolve import EXPERT, Evaluator, TimeTable, all_shapes, evolve, render, split_shapes
from llm import ChatEnsemble, ChatLLM
from transcripts import EDIT_MODES
from servers import PlainServer, RawServer, ScriptedServer

# 每个测试都对着 127.0.0.1 上的服务器，或者跑整个命令行：都是慢的（tests/README.md）
pytestmark = pytest.mark.slow

# 测试里一次调用的截止秒数（短一些，整套测试就少等几十秒；挤字节的服务器比它挤得更勤）
DEADLINE = 0.4
# 挤字节的服务器多久挤一个：比截止时间短，所以每次 recv 都不超时，只有整次调用的截止时间拦得住
TRICKLE = DEADLINE / 3
# 截止之后允许多花的秒数（关连接、线程调度）
SLACK = 0.5
# 结果不该是 timeout 的调用用的截止秒数：回复几毫秒就到，这么长的截止时间只在客户端坏了时
# 才会到。若用 DEADLINE，忙的机器上进程一停就是零点几秒，截止时间会抢在字节上限、
# 坏回复之前到，结果就看机器忙不忙了
PATIENT = 10


# 两种要法，再加上两个模型一起（一处改动）、说明由模型改写（一处改动）、见过的程序再问（一处改动，
# 回复会被接进下一个请求：使坏的回复也只是一次失败，不再问）
ENSEMBLE = "ensemble"
META = "meta"
RESAMPLE = "resample"


@pytest.fixture(scope="module", params=EDIT_MODES + (ENSEMBLE, META, RESAMPLE))
def edit(request):
    """这个测试要的是整个程序、一处改动、两个模型一起提出一处改动、说明由模型改写，还是
    见过的程序再问。"""
    return request.param


def proposer(url, edit, **options):
    """一个 ChatLLM，或者两个成员都在 url 上的 ChatEnsemble（固定 1:1）。"""
    if edit == ENSEMBLE:
        return ChatEnsemble([(url, "m"), (url, "m")], weights=[1, 1], edit="diff", **options)
    if edit == RESAMPLE:
        return ChatLLM(url, "m", edit="diff", resample=2, **options)
    return ChatLLM(url, "m", edit="diff" if edit == META else edit, **options)


def one_budget(ev, chat, edit):
    """一份预算：一个提案；说明由模型改写时是写说明的那一步（写说明的间隔设成 0，
    第一份预算就写）。"""
    if edit != META:
        return evolve(ev, 1, seed=0, llm=chat)
    with mock.patch.object(E, "PROMPT_INTERVAL", 0):
        return evolve(ev, 1, seed=0, llm=chat, meta_prompt=True)


@pytest.fixture(scope="module")
def one_call(edit):
    """one_call(url, **kw)：一个提案，返回 (ChatLLM, 墙钟秒数)。什么回复都不该抛异常。"""
    table = TimeTable()
    train, _ = split_shapes(all_shapes())

    def call(url, **kw):
        options = {"timeout": PATIENT, "retries": 0, "backoff": 0.01, **kw}
        chat = proposer(url, edit, **options)
        start = time.monotonic()
        one_budget(Evaluator(train, table), chat, edit)
        return chat, time.monotonic() - start
    return call


def only(chat, result):
    """恰好一次调用，结果是 result。要一处改动时，回复里没有代码就是没有改动；
    写说明的那次调用（说明由模型改写）记在 prompt_stats 里，没有代码就是没有说明。"""
    wrote = any(getattr(chat, "prompt_stats", {}).values())
    stats = chat.prompt_stats if wrote else chat.stats
    if result == "no_code":
        result = "no_instructions" if wrote else "no_edit" if chat.edit == "diff" else result
    return chat.calls == 1 and stats[result] == 1 and sum(stats.values()) == 1


def run_cli(args, edit):
    """联网跑一次命令行，要 edit 那种回复；两个模型一起时同一个模型名再给一次。"""
    if edit == ENSEMBLE:
        model = args[args.index("--model") + 1]
        return cli.main(args + ["--model", model, "--edit", "diff"])
    if edit == META:
        return cli.main(args + ["--edit", "diff", "--meta-prompt"])
    if edit == RESAMPLE:
        return cli.main(args + ["--edit", "diff", "--resample", "2"])
    return cli.main(args + ["--edit", edit])


def good_reply(edit):
    """一个解析得成程序的回复：整个专家程序，或者改专家程序的默认配置。"""
    if edit == "full":
        return f"```python\n{render(EXPERT)}```"
    return "rule 4: return Config(BM=128, BN=128, BK=64, warps=8, stages=4, split_k=1)"


# —— 1. 密钥只发给 base_url ——

@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_a_failed_call_and_the_key_never_leaves(status, serve, one_call):
    # 另一个端口：谁连过来都记下
    elsewhere = serve(lambda conn, stop: None, RawServer)
    target = elsewhere.url + "/chat/completions"
    origin = serve([("status", status, {"Location": target})])
    chat, _ = one_call(origin.url, api_key="sk-secret", retries=3)
    # 说清楚指向了哪里
    assert only(chat, "redirect") and target in chat.last[1]
    # 一个连接都没有，更别说密钥
    assert elsewhere.connections == 0
    # 不重试
    assert [r["auth"] for r in origin.requests] == ["Bearer sk-secret"]


# —— 2. 一次调用一个截止时间 ——

def ticks(stop, pause):
    """每 pause 秒一次，直到测试结束，最多 5 s：客户端要是守不住截止时间，测试失败而不是卡住。"""
    end = time.monotonic() + 5
    while not stop.wait(pause) and time.monotonic() < end:
        yield


def trickle_body(conn, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
    # 每 TRICKLE 秒一个字节：每次 recv 都不超时
    for _ in ticks(stop, TRICKLE):
        conn.sendall(b"x")


def trickle_headers(conn, stop):
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for _ in ticks(stop, TRICKLE):
        conn.sendall(b"X")


def silent(conn, stop):
    stop.wait(5)


def chunks_forever(pause, size):
    """没完没了的分块回复，每块 size 个 "["。不停顿的那种用大块：64 KB 的上限在十几块里就到
    （测试给它 PATIENT 的截止时间，只由上限拦住）；一个字节一块的，截止时间先到（timeout）。"""
    chunk = f"{size:x}\r\n".encode() + b"[" * size + b"\r\n"

    def behave(conn, stop):
        conn.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in ticks(stop, pause):
            conn.sendall(chunk)
    return behave


def continue_forever(pause):
    def behave(conn, stop):
        for _ in ticks(stop, pause):
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    return behave


def body_forever(conn, stop):
    # 没有长度：读到关连接为止
    conn.sendall(b"HTTP/1.1 200 OK\r\n\r\n")
    for _ in ticks(stop, 0):
        conn.sendall(b"x" * 65_536)


@pytest.mark.parametrize("behave, result", [
    (trickle_body, "timeout"), (trickle_headers, "timeout"), (silent, "timeout"),
    (chunks_forever(0, 4096), "too_large"), (chunks_forever(0.05, 1), "timeout"),
    (continue_forever(0), "too_large"), (continue_forever(0.05), "timeout"),
    (body_forever, "too_large"),
], ids=["trickle-body", "trickle-headers", "silent", "endless-chunked", "slow-endless-chunked",
        "endless-100", "slow-endless-100", "endless-body"])
def test_the_deadline_holds_however_the_server_behaves(behave, result, serve, one_call):
    """截止时间和字节上限，哪个该停下这次调用就由哪个停下。没完没了又不停顿的服务器要由
    字节上限拦住（几毫秒就到 64 KB）：它们不和 DEADLINE 比谁先到，忙的机器上截止时间会先到。"""
    timeout = DEADLINE if result == "timeout" else PATIENT
    server = serve(behave, RawServer)
    chat, wall = one_call(server.url, timeout=timeout)
    assert only(chat, result)
    assert chat.seconds <= timeout + SLACK and wall <= timeout + 2 * SLACK


def test_the_deadline_covers_the_tls_handshake(serve, one_call):
    """https 的地址，对方接了 TCP 连接却一个字节都不说：TLS 握手也在同一个截止时间里。"""
    server = serve(silent, RawServer)
    chat, wall = one_call(server.url.replace("http://", "https://"), timeout=DEADLINE)
    assert only(chat, "timeout") and server.connections == 1
    assert chat.seconds <= DEADLINE + SLACK and wall <= DEADLINE + 2 * SLACK


# —— 3. 什么样的回复都只是一次计数的失败 ——

def reply_json(obj):
    return json.dumps(obj).encode()


@pytest.mark.parametrize("raw, result", [
    # json.loads 会 RecursionError
    (b"[" * 60_000, "bad_reply"),
    # 不是 UTF-8
    (b"\xff\xfe{\"choices\": 1}", "bad_reply"),
    (b"<html>not json</html>", "bad_reply"),
    (b"[]", "bad_reply"), (b"null", "bad_reply"), (b"42", "bad_reply"), (b'"text"', "bad_reply"),
    (reply_json({"choices": []}), "bad_reply"),
    (reply_json({"choices": {"0": 1}}), "bad_reply"),
    (reply_json({"choices": [{"message": "hi"}]}), "bad_reply"),
    (reply_json({"choices": [{"message": {"content": 7}}]}), "bad_reply"),
    (reply_json({"choices": [{"message": {"content": None}}]}), "bad_reply"),
    (reply_json({"choices": [{"message": {"content": ["a"]}}]}), "bad_reply"),
    # 不成对的代理字符
    (b'{"choices": [{"message": {"content": "\\ud800"}}]}', "bad_reply"),
    (b"x" * 200_000, "too_large"),
    (reply_json({"choices": [{"message": {"content": "no code"}}]}), "no_code"),
], ids=lambda x: x[:20].decode("latin-1") if isinstance(x, bytes) else x)
def test_any_reply_body_is_one_counted_failure(raw, result, serve, one_call):
    chat, _ = one_call(serve([("raw", raw)]).url)
    assert only(chat, result)


def answer(raw):
    def behave(conn, stop):
        conn.sendall(raw)
    return behave


OK_BODY = reply_json({"choices": [{"message": {"content": "no code"}}]})
SEVEN_BYTE_PIECES = [OK_BODY[i:i + 7] for i in range(0, len(OK_BODY), 7)]


@pytest.mark.parametrize("raw, result", [
    # 不是 HTTP
    (b"hello\r\n\r\n", "bad_reply"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "too_large"),
    (b"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n", "bad_reply"),
    # "²".isdigit() 是 True
    (b"HTTP/1.1 200 OK\r\nContent-Length: \xb2\r\n\r\n", "bad_reply"),
    (b"HTTP/1.1 \xb2\xb2\xb2 OK\r\n\r\n", "bad_reply"),
    # 没发完就关了
    (b"HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n" + OK_BODY, "network"),
    (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "bad_reply"),
    # 合法的分块：照收
    (b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
     + b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in SEVEN_BYTE_PIECES)
     + b"0\r\n\r\n", "no_code"),
], ids=["not-http", "huge-length", "bad-length", "superscript-length", "superscript-status", "cut",
        "bad-chunk", "chunked-ok"])
def test_any_raw_response_is_one_counted_failure(raw, result, serve, one_call):
    chat, _ = one_call(serve(answer(raw), RawServer).url)
    assert only(chat, result)


def test_retry_after_is_honoured_up_to_a_cap(serve, one_call):
    honoured = serve([("status", 429, {"Retry-After": "1"}), ("reply", "no code")])
    chat, _ = one_call(honoured.url, retries=1, max_wait=5)
    assert only(chat, "no_code") and chat.retries == 1
    # 等了服务器说的 1 s，不是 backoff
    assert honoured.requests[1]["at"] - honoured.requests[0]["at"] >= 0.95
    # 不是秒数：照常退避
    odd = serve([("status", 429, {"Retry-After": "\xb2"}), ("reply", "no code")])
    chat, _ = one_call(odd.url, retries=1, max_wait=5)
    assert only(chat, "no_code") and odd.requests[1]["at"] - odd.requests[0]["at"] < 0.9
    capped = serve([("status", 503, {"Retry-After": "3600"}), ("reply", "no code")])
    chat, wall = one_call(capped.url, retries=1, max_wait=0.2)
    waited = capped.requests[1]["at"] - capped.requests[0]["at"]
    assert only(chat, "no_code") and 0.2 <= waited < 1.0


def test_a_plain_http_server_gets_a_hint_about_v1(serve, tmp_path, capsys, edit):
    """python3 -m http.server 那样的服务器对 POST 答 501：不重试，说地址是不是少了 /v1；
    一次都没成功，退出码 1。"""
    plain = serve(tmp_path, PlainServer)
    args = ["--base-url", plain.url, "--model", "m", "--budget", "2", "--timeout", "2"]
    assert run_cli(args, edit) == 1
    err = capsys.readouterr().err
    assert err.count("HTTP 501") == 2 and "/v1" in err and "没有一次拿到" in err.splitlines()[-1]


def test_nothing_listening_stops_after_three_calls_with_a_hint(nobody_listens, capsys, edit):
    start = time.monotonic()
    args = ["--base-url", nobody_listens, "--model", "m", "--budget", "50", "--timeout", "1"]
    assert run_cli(args, edit) == 1
    err = capsys.readouterr().err
    assert time.monotonic() - start < 5 and "Traceback" not in err
    # 三个提案各有一行，下面那句话说的"连续 3 次"就是它们
    assert len([x for x in err.splitlines() if x.startswith("[m ")]) == 3
    assert re.search("连续 3 次连不上.*开着吗.*/v1", err.splitlines()[-1])


# —— 4. 打到终端的字没有控制字符；模型写的代码不执行 ——

def attacks(edit, attack, escape):
    """两个带攻击的回复：一个写坏了（语法错），一个语法对、但在子集以外。"""
    if edit == "full":
        head = "def choose_config(M, N, K):\n"
        return [f"{escape}```python\n{head}    {attack} {escape}\n```",
                f"```python\n{head}    {attack}\n    return Config(16, 64, 64, 4, 3, 1)\n```"]
    config = "Config(BM=16, BN=64, BK=64, warps=4, stages=3, split_k=1)"
    return [f"{escape}\nrule 1: if {attack} {escape}: return {config}",
            f"rule 1: if M <= 16 and {attack}: return {config}"]


def test_escape_codes_never_reach_the_terminal_and_model_code_never_runs(serve, tmp_path, capsys,
                                                                          edit):
    marker = tmp_path / "executed"
    attack = f"__import__('os').system('touch {marker}')"
    escape = "\x1b]0;pwned\x07\x1b[2J\x9b31m\u202e"
    server = serve([("reply", text) for text in attacks(edit, attack, escape)] + [
        ("status", 400, {}, reply_json({"error": {"message": f"bad {escape} request"}})),
        # 响应头只能是 latin-1
        ("status", 302, {"Location": f"http://127.0.0.1:1/{escape[:-1]}"}),
        ("reply", good_reply(edit)),
    ])
    args = ["--base-url", server.url, "--model", "m", "--budget", "5", "--timeout", "2"]
    assert run_cli(args, edit) == 0
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    # 说了，只是去掉了控制字符
    assert "400" in shown and "302" in shown and "pwned" in shown
    # 五个回复各是一种结果：只有最后那个是程序
    for result in ("解析成了程序", "不是合法的 Python", "是 Python，但不在子集里", "HTTP 错误",
                   "重定向（没有跟过去）"):
        assert re.search(rf"^{re.escape(result)} +1$", captured.out, re.M), result
    assert [c for c in shown if unicodedata.category(c)[0] == "C" and c != "\n"] == []
    assert not marker.exists()


def test_any_printable_model_name_is_sent_as_json(serve, capsys, edit):
    server = serve([("reply", "no code")])
    name = 'Qwen "模型" é\\ {}'
    assert run_cli(["--base-url", server.url, "--model", name, "--budget", "1"], edit) == 0
    assert server.requests[0]["body"]["model"] == name


# —— 5. 坏的录制：一句话，哪个文件第几行 ——

@pytest.fixture(scope="module")
def one_recording(edit, tmp_path_factory):
    """一份 4 个提案的录制（第 1 行设置 + 4 行调用），服务器已经关了。每种要法录一次：
    录一次要一个服务器和整个命令行，下面每个测试只改它的一份拷贝。"""
    server = ScriptedServer([("reply", good_reply(edit)), ("reply", "no code")])
    path = tmp_path_factory.mktemp(edit) / "run.jsonl"
    args = ["--base-url", server.url, "--model", "m", "--budget", "4", "--record", str(path)]
    try:
        assert run_cli(args, edit) == 0
    finally:
        server.close()
    return path.read_bytes()


@pytest.fixture()
def recorded(one_recording, tmp_path):
    """那份录制的一份拷贝，测试可以随便改它。"""
    path = tmp_path / "run.jsonl"
    path.write_bytes(one_recording)
    return path


def edit_line(path, n, change, reseal=False):
    """把第 n 行按 change 改掉；reseal=True 时重新算 check（改的人知道怎么算）。"""
    lines = path.read_bytes().splitlines(keepends=True)
    entry = json.loads(lines[n - 1])
    entry.pop("check")
    change(entry)
    if reseal:
        lines[n - 1] = transcripts.sealed(entry).encode()
    else:
        lines[n - 1] = (json.dumps({**entry, "check": "0" * 16}) + "\n").encode()
    path.write_bytes(b"".join(lines))


def set_key(key, value):
    return lambda entry: entry.__setitem__(key, value)


def settings_of(change):
    return lambda entry: change(entry["settings"])


def model_is(name):
    """把录制的模型名（几个模型时是第一个成员的）换成 name。"""
    def change(settings):
        where = settings["members"][0] if "members" in settings else settings
        where["model"] = name
    return change


def append_line(k):
    """把第 k 行（从 0 数）再追加一遍。"""
    return lambda p: p.write_bytes(p.read_bytes() + p.read_bytes().splitlines(keepends=True)[k])


def keep_lines(n):
    return lambda p: p.write_bytes(b"".join(p.read_bytes().splitlines(keepends=True)[:n]))


@pytest.mark.parametrize("spoil, words, code", [
    (lambda p: edit_line(p, 3, set_key("reply", "edited")), "第 3 行被改过", 2),
    (lambda p: edit_line(p, 4, set_key("seconds", 0.1)), "第 4 行被改过", 2),
    (lambda p: edit_line(p, 1, lambda e: e["settings"].update(seed=5)), "第 1 行被改过", 2),
    (lambda p: edit_line(p, 2, lambda e: e["request"].update(seed=5), True), "第 2 行.*hash", 2),
    (lambda p: edit_line(p, 2, lambda e: e.pop("retries"), reseal=True), "第 2 行.*字段", 2),
    (lambda p: edit_line(p, 2, set_key("retries", "0"), reseal=True), "第 2 行.*retries", 2),
    (lambda p: edit_line(p, 2, set_key("result", "ok!"), reseal=True), "第 2 行.*result", 2),
    (lambda p: edit_line(p, 1, settings_of(model_is("\x1b[2J")), True), "第 1 行.*model", 2),
    (lambda p: edit_line(p, 1, settings_of(lambda s: s.update(budget=0)), True),
     "第 1 行.*budget", 2),
    (lambda p: edit_line(p, 1, settings_of(lambda s: s.update(grammar=1)), True),
     "第 1 行.*grammar", 2),
    (lambda p: edit_line(p, 1, lambda e: e.update(version=1), reseal=True), "第 1 行不是", 2),
    (lambda p: p.write_bytes(p.read_bytes() + b"[" * 60_000 + b"\n"), "第 6 行不是一行 JSON", 2),
    (lambda p: p.write_bytes(p.read_bytes() + b"\xff\xfe\n"), "第 6 行不是一行 JSON", 2),
    (append_line(2), "第 6 行.*预算只有 4", 2),
    (keep_lines(3), "到第 3 行就完了", 1),
    (lambda p: p.write_bytes(b""), "是空的", 2),
], ids=["reply", "seconds", "settings", "request", "missing-field", "mistyped-field",
        "unknown-result", "model-escape", "zero-budget", "grammar-1", "old-version", "deep-json",
        "not-utf8", "extra-line", "runs-out", "empty"])
def test_a_spoiled_transcript_is_one_sentence_naming_file_and_line(spoil, words, code, recorded,
                                                                  capsys):
    spoil(recorded)
    assert cli.main(["--replay", str(recorded)]) == code
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert re.search(words, last) and str(recorded) in last and "Traceback" not in err
    assert [c for c in err if unicodedata.category(c)[0] == "C" and c != "\n"] == []


def test_a_replay_that_leaves_a_recorded_request_unasked_is_refused(recorded, monkeypatch,
                                                                     capsys):
    """问模型的规则改了、这次运行少问一个（这里：预算少算一个请求）：印出的不是录制的那次运行，
    一句话拒掉，说没问的是哪一行——和请求多了一样（上面的 runs-out）。"""
    def spent_one_early(memory):
        return memory.budget is not None and memory.sent >= memory.budget - 1
    monkeypatch.setattr(llm.RunMemory, "spent", spent_one_early)
    assert cli.main(["--replay", str(recorded)]) == 1
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert "第 5 行录的请求这次运行没有问（录了 4 个，只问了 3 个）" in last
    assert str(recorded) in last and "Traceback" not in err


def test_loading_refuses_an_over_long_line_without_reading_it_all(recorded, monkeypatch, capsys):
    # 调用行约 10 kB（整个程序）或 2 kB（一处改动）
    monkeypatch.setattr(transcripts, "MAX_LINE_BYTES", 1000)
    assert cli.main(["--replay", str(recorded)]) == 2
    assert re.search(r"第 2 行超过 1,000 字节", capsys.readouterr().err)


def test_a_changed_prompt_names_the_line_it_no_longer_matches(recorded, monkeypatch, capsys,
                                                              edit):
    module, name = (prompt, "SYSTEM") if edit == "full" else (edits, "EDIT_SYSTEM")
    monkeypatch.setattr(module, name, getattr(module, name) + " Be brief.")
    assert cli.main(["--replay", str(recorded)]) == 1
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "第 2 行录的请求和这次的不一样" in err and "重新录" in err
