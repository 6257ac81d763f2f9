"""测试用的 HTTP 服务器，都在 127.0.0.1 的随机端口上，由测试自己起、自己关。

ScriptedServer：真的 http.server，说 chat API，按脚本回答——正常的、出错的、慢的、重定向的。
RawServer：裸 socket，读完请求后想怎么答就怎么答——一个字节一个字节地挤、无穷的分块、
无穷的 100 Continue、不是 HTTP、一个字节都不回（never_answers）。
PlainServer：python3 -m http.server 那样的文件服务器，POST 一律 501（学生把 --base-url 指到
它上面时就是这样）。
"""
import functools
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer


def chat_reply(content):
    """chat API 的回复体。"""
    message = {"role": "assistant", "content": content}
    return json.dumps({"choices": [{"message": message}]}).encode()


class _Threaded:
    """在线程里跑一个 http.server；.url 是它的 /v1。"""

    def __init__(self, handler):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


class PlainServer(_Threaded):
    """directory 下的文件服务器；.url 不带 /v1。"""

    def __init__(self, directory):
        class Quiet(SimpleHTTPRequestHandler):
            def log_message(self, *args):
                pass
        super().__init__(functools.partial(Quiet, directory=str(directory)))
        self.url = self.url[:-len("/v1")]


class _ChatHandler(BaseHTTPRequestHandler):
    """说 HTTP/1.1 的处理器：读 JSON 请求体、带长度地回答、不往 stderr 打日志。"""
    protocol_version = "HTTP/1.1"

    def body(self):
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

    def send(self, status, raw, headers=()):
        try:
            self.send_response(status)
            for name, value in dict(headers).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        # 客户端已经超时走了
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, *args):
        pass


class ScriptedServer(_Threaded):
    """script 是按顺序的动作，每个 HTTP 请求用掉一个（用完了从头再来）：("reply", 文本)、
    ("slow", 秒, 文本)、("raw", 字节)、("status", 状态码[, 头[, 字节]])。.requests 记下每个请求的
    路径、Authorization 头、请求体和到达时刻。"""

    def __init__(self, script):
        self.script, self.requests, self.lock = list(script), [], threading.Lock()
        server = self

        class Handler(_ChatHandler):
            def do_POST(self):
                body = self.body()
                with server.lock:
                    action = server.script[len(server.requests) % len(server.script)]
                    auth = self.headers.get("Authorization")
                    server.requests.append({"path": self.path, "auth": auth, "body": body,
                                            "at": time.monotonic()})
                kind = action[0]
                if kind == "status":
                    defaults = ({}, b'{"error": {"message": "scripted"}}')
                    code, headers, raw = action[1:] + defaults[len(action) - 2:]
                    return self.send(code, raw, headers)
                if kind == "slow":
                    time.sleep(action[1])
                self.send(200, action[1] if kind == "raw" else chat_reply(action[-1]))

        super().__init__(Handler)


class RawServer:
    """每个连接：读完请求（头，加 Content-Length 那么多的体），再调用 behave(conn, stop)
    随它怎么写。.connections 是连进来过几次（重定向测试要它是 0），.requests 是收到的请求原文。"""

    def __init__(self, behave):
        self.behave, self.connections, self.requests = behave, 0, []
        self.stop, self.handlers = threading.Event(), []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            handler = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            self.handlers.append(handler)
            handler.start()

    def _handle(self, conn):
        with conn:
            conn.settimeout(2)
            try:
                raw = b""
                while b"\r\n\r\n" not in raw:
                    raw += _receive(conn)
                head, _, body = raw.partition(b"\r\n\r\n")
                lines = head.split(b"\r\n")
                length = next(int(line.split(b":")[1]) for line in lines
                              if line.lower().startswith(b"content-length"))
                while len(body) < length:
                    body += _receive(conn)
                self.requests.append(raw)
                self.behave(conn, self.stop)
            # 客户端走了（关了连接、超时）、请求没有长度：这正是要测的
            except (OSError, StopIteration):
                pass

    def wait_for(self, n, within=30):
        """等到收齐 n 个请求（都在等回复了）；within 秒还没收齐，测试失败。"""
        deadline = time.monotonic() + within
        while len(self.requests) < n:
            assert time.monotonic() < deadline, f"{within} s 只收到 {len(self.requests)} 个请求"
            time.sleep(0.02)

    def close(self):
        self.stop.set()
        self.thread.join()
        for handler in self.handlers:
            handler.join(5)
        self.sock.close()


def never_answers(conn, stop):
    """RawServer 的一种：接了连接、读完请求，一个字节都不回，直到测试结束（最多 60 s）。"""
    stop.wait(60)


def _receive(conn):
    """收一块；对方关了连接是 ConnectionError（不然读请求的循环会一直空转）。"""
    chunk = conn.recv(65_536)
    if not chunk:
        raise ConnectionError("客户端关了连接")
    return chunk


class SeededServer(_Threaded):
    """回复只由请求决定：replies[请求的 seed % len(replies)]，睡 delay(seed) 秒再答——
    并发时先发的未必先到。.in_flight_max 是同时在处理的请求最多有几个，.requests 是收到的请求体。"""

    def __init__(self, replies, delay):
        self.requests, self.in_flight, self.in_flight_max, self.lock = [], 0, 0, threading.Lock()
        server = self

        class Handler(_ChatHandler):
            def do_POST(self):
                body = self.body()
                with server.lock:
                    server.requests.append(body)
                    server.in_flight += 1
                    server.in_flight_max = max(server.in_flight_max, server.in_flight)
                time.sleep(delay(body["seed"]))
                with server.lock:
                    server.in_flight -= 1
                self.send(200, chat_reply(replies[body["seed"] % len(replies)]))

        super().__init__(Handler)
