"""transport.py：一次 chat API 调用。这里是密钥只发给 https 的地址，和叫停一批同时发的调用
（Cancel，Ctrl-C 时）；截止时间、不跟重定向、字节上限、429/5xx 再试这些对付坏服务器的承诺，
在 test_llm_hostile.py 里对着使坏的服务器查。"""
import threading
import time

import pytest
from llm_cases import chat_for
from servers import RawServer, chat_reply, never_answers

import transport
from evolve import Evaluator, evolve
from transcripts import Live, Recording

# 叫停之后，一次调用最多还能花几秒才停下（关 socket、线程调度）；截止时间都比它长得多
PROMPT = 1.0


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


def in_a_thread(call):
    """在另一个线程里调用 call()（像线程池里的一个请求）。返回 (线程, 它抛的异常的列表)。"""
    raised = []

    def run():
        try:
            call()
        except BaseException as e:
            raised.append(e)
    thread = threading.Thread(target=run)
    thread.start()
    return thread, raised


def stopped_by_cancel(thread, raised, cancel):
    """叫停，等线程停下：PROMPT 秒之内停了、抛的正是 Cancelled（不是 timeout 之类的一次失败）吗。"""
    pressed = time.monotonic()
    cancel.cancel()
    thread.join(10)
    prompt = time.monotonic() - pressed < PROMPT
    return prompt and len(raised) == 1 and type(raised[0]) is transport.Cancelled


@pytest.mark.slow
def test_cancel_ends_a_post_blocked_on_a_silent_server_at_once(serve):
    """服务器接了连接、一个字节都不回：线程里的 http_post 一直等到截止时间（这里 60 s）。
    cancel() 像截止时间到了一样关掉它的 socket，一秒之内抛 Cancelled。"""
    server = serve(never_answers, RawServer)
    origin = transport.parse_base_url(server.url)
    cancel = transport.Cancel()
    thread, raised = in_a_thread(
        lambda: transport.http_post(origin, {"model": "m"}, None, 60, 65_536, cancel))
    server.wait_for(1)
    assert stopped_by_cancel(thread, raised, cancel)


def answers_once_then(behave):
    """RawServer 的一种：第一个连接得到一个 chat API 的回复，之后的都照 behave。"""
    raw = chat_reply("no code")
    reply = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(raw), raw)
    answered = threading.Event()

    def first_or_behave(conn, stop):
        if answered.is_set():
            return behave(conn, stop)
        answered.set()
        conn.sendall(reply)
    return first_or_behave


def busy(conn, stop):
    conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 30\r\n"
                 b"Content-Length: 0\r\n\r\n")


@pytest.mark.slow
@pytest.mark.parametrize("behave", [never_answers, busy], ids=["silent", "retry-after-30"])
def test_a_cancelled_call_is_neither_recorded_nor_retried(behave, serve, tmp_path):
    """叫停的调用不是一次调用：录制里没有它（不冒充一次 timeout），也不再试——在等回复时
    叫停的，和在等 Retry-After 的 30 s 时叫停的，都当场停下。第一次调用拿到了回复，录制文件
    已经建好：叫停的那次要是被当成一次调用，就会写进去。"""
    server = serve(answers_once_then(behave), RawServer)
    origin = transport.parse_base_url(server.url)
    path = tmp_path / "run.jsonl"
    recording = Recording(str(path), {"model": "m", "base_url": server.url,
                                      "temperature": 0.8, "max_tokens": 8})
    live = Live(transport.Transport(origin, None, 60, 3, 1.0, 30, 65_536), recording)
    assert live.call({"model": "m", "seed": 1}).result == "ok"
    cancel = transport.Cancel()
    thread, raised = in_a_thread(lambda: live.call({"model": "m", "seed": 2}, cancel))
    server.wait_for(2)
    assert stopped_by_cancel(thread, raised, cancel)
    # 设置行和第一次调用，没有别的
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2
    # 叫停之后没有再试：服务器只收到过两个请求
    time.sleep(0.2)
    assert len(server.requests) == 2
