"""
CS349E · 第 14 讲 · transport.py —— 一次 chat API 调用：POST 一个 JSON，拿回模型说的话

标准库的 http.client 说 HTTP/1.1，它本来就不跟重定向、限制每行响应头的长度。这里加上三件它不管的事：
  - 一次调用一个截止时间：连接、发请求、响应头、响应体加在一起。到点时一个计时器把 socket 关掉
    （shutdown），对方一个字节一个字节地挤、发无穷的分块或 100 Continue 都一样停下；
  - 收到的字节（连响应头）有上限：每个字节都经过一个计数的读取器，超了就停；
  - 429/5xx 等 Retry-After（只认 ASCII 数字）再试。
不跟重定向：带密钥的请求只发到 base_url 那个地方，重定向是一次失败的调用。什么样的回复都只是
一次失败：Transport.call 从不抛异常，返回一个 Call（请求、结果、回复、重试几次、等了几秒），
录制文件里的一行就是它。里面的代码用 CallFailed 中途停下，Transport.call 把它变成一个失败的 Call。
只有一种例外：同时发的一批调用被叫停了（Cancel，Ctrl-C 时），每个都抛 Cancelled——它不是一次调用。
"""
import hashlib
import http.client
import io
import json
import os
import socket
import ssl
import threading
import time
import urllib.parse
from dataclasses import dataclass

# 调用本身失败了：结果（Call.result，ok 以外的）和它的说法；ok 是拿到了 chat API 格式的回复。
# 提案的结果（llm.RESULTS）是"解析成了程序"、读不成程序的几种，再加这几种
CALL_FAILURES = {"bad_reply": "回复不是 chat API 的格式", "too_large": "回复太长",
                 "timeout": "超时", "redirect": "重定向（没有跟过去）", "http_error": "HTTP 错误",
                 "network": "连不上"}
# 这几种状态码是暂时的：等一会儿再试。别的（4xx、501……）再试也一样
RETRY_STATUS = (429, 500, 502, 503, 504)


class CallFailed(Exception):
    """一次 HTTP 往返没有成功（抛出来中途停下）。result 是 CALL_FAILURES 之一，detail 是一句说明：
    Transport.call 把它变成 Call(result, reply=detail)。"""

    def __init__(self, result, detail):
        super().__init__(detail)
        self.result, self.detail = result, detail


class Cancelled(Exception):
    """这批调用被叫停了（Cancel.cancel，Ctrl-C 时）：不是一次失败的调用，不录、不重试。"""


def ascii_digits(text):
    """只有 0–9（str.isdigit 也认 ²、٣ 这类字符，int() 却不认）。"""
    return text.isascii() and text.isdigit()


# ==== 1. 地址和密钥 ===============================================================================

@dataclass(frozen=True)
class Origin:
    """base_url 拆开：请求只发到这里。"""
    scheme: str
    host: str
    port: int
    path: str


def parse_base_url(base_url):
    """--base-url → Origin；不是 http(s)://主机[:端口]/路径 的样子就 ValueError（一句话）。"""
    example = "例如 http://127.0.0.1:8080/v1"
    if not isinstance(base_url, str) or not all(33 <= ord(c) < 127 for c in base_url):
        raise ValueError(f"base_url 应是不带空格的 ASCII 网址，{example}；收到 {base_url!r}")
    parts = urllib.parse.urlsplit(base_url)
    try:
        port = parts.port
    except ValueError:
        raise ValueError(f"base_url {base_url} 的端口不对，{example}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url 应以 http:// 或 https:// 开头、带主机名，{example}；"
                         f"收到 {base_url!r}")
    if parts.username is not None or parts.query or parts.fragment:
        raise ValueError(f"base_url 里不要带用户名密码、? 或 #，{example}"
                         "（密钥用 --api-key-env 给）")
    default_port = 443 if parts.scheme == "https" else 80
    return Origin(parts.scheme, parts.hostname, port or default_port, parts.path.rstrip("/"))


def default_api_key(base_url, environ=os.environ):
    """没给密钥时用哪个：只有 https 的地址才读环境变量 OPENAI_API_KEY。明文 http 的服务器
    （多半是本机或别人机器上的 llama.cpp）拿不到它：密钥不该发给随便哪个本地服务。"""
    if not base_url.startswith("https://"):
        return None
    return environ.get("OPENAI_API_KEY") or None


# ==== 2. 截止时间和字节上限 =======================================================================

class Deadline:
    """一次调用的截止时间：到点时计时器 shutdown 所有登记过的 socket，阻塞着的读写立刻返回。
    expired 之后收到的东西都不算数（可能不完整）：这次调用是 timeout。
    cancel：这次调用所在的那一批（Cancel）；叫停时它也像到点一样关掉 socket。"""

    def __init__(self, seconds, cancel=None):
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self.sockets = []
        self.lock = threading.Lock()
        self.timer = threading.Timer(seconds, self.expire)
        self.timer.daemon = True
        self.timer.start()
        self.cancel = cancel or Cancel()
        self.cancel.watch(self)

    def left(self):
        """还剩几秒；已经到点了是 CallFailed(timeout)。"""
        left = self.end - time.monotonic()
        if left <= 0:
            raise CallFailed("timeout", self.missed())
        return left

    def missed(self):
        return f"{self.seconds:g} s 内没有收完回复"

    def watch(self, sock):
        """登记一个 socket；已经过了截止时间就立刻关掉它。"""
        with self.lock:
            self.sockets.append(sock)
            if self.expired:
                _shut(sock)
        return sock

    def expire(self):
        with self.lock:
            self.expired = True
            for sock in self.sockets:
                _shut(sock)

    def stop_timer(self):
        self.timer.cancel()


class Cancel:
    """同时发的一批调用共用一个：cancel() 让其中每个调用的截止时间当场到点（关掉 socket，
    阻塞在线程里的读写立刻返回），之后它们都抛 Cancelled，不再重试。Ctrl-C 时主线程叫停，
    线程池就不必等到截止时间。"""

    def __init__(self):
        self.cancelled = threading.Event()
        self.deadlines = []
        self.lock = threading.Lock()

    def watch(self, deadline):
        """登记一次调用的截止时间；已经叫停了就让它立刻到点。"""
        with self.lock:
            self.deadlines.append(deadline)
            if self.cancelled.is_set():
                deadline.expire()

    def cancel(self):
        with self.lock:
            self.cancelled.set()
            for deadline in self.deadlines:
                deadline.expire()

    def check(self):
        """叫停了就抛 Cancelled。"""
        if self.cancelled.is_set():
            raise Cancelled()

    def sleep(self, seconds):
        """等 seconds 秒（重试之前），中途叫停就立刻抛 Cancelled。"""
        self.cancelled.wait(seconds)
        self.check()


def _shut(sock):
    """关掉 socket 的两个方向。TLS 的也直接关底下的 TCP 连接（用 socket.socket 的方法）。"""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:
        pass


class _Counted(io.RawIOBase):
    """从 socket 读的每个字节都经过这里：总数超过 limit 就停（CallFailed too_large）。"""

    def __init__(self, raw, limit):
        super().__init__()
        self.raw, self.limit, self.received = raw, limit, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = self.raw.readinto(buffer)
        self.received += n or 0
        if self.received > self.limit:
            raise CallFailed("too_large", f"超过 {self.limit:,} B")
        return n

    def close(self):
        self.raw.close()
        super().close()


class _CountedSocket:
    """交给 http.client.HTTPResponse 的 socket：它只用 makefile，拿到的读取器每个字节都计数。"""

    def __init__(self, sock, limit):
        self.sock, self.limit = sock, limit

    def makefile(self, mode):
        raw = self.sock.makefile(mode, buffering=0)
        return io.BufferedReader(_Counted(raw, self.limit))


class _Connection(http.client.HTTPConnection):
    """到 origin 的一个连接：在截止之前连上，socket 登记给截止时间，https 时做 TLS 握手；
    响应的每个字节都计数。"""

    def __init__(self, origin, deadline, max_bytes):
        super().__init__(origin.host, origin.port, timeout=deadline.seconds)
        self.origin, self.deadline, self.max_bytes = origin, deadline, max_bytes

    def response_class(self, sock, **kwargs):
        return http.client.HTTPResponse(_CountedSocket(sock, self.max_bytes), **kwargs)

    def connect(self):
        try:
            sock = socket.create_connection((self.host, self.port), self.deadline.left())
        except socket.timeout:
            raise CallFailed("timeout", f"{self.deadline.seconds:g} s 内没连上") from None
        except OSError as e:
            raise CallFailed("network", e.strerror or str(e) or type(e).__name__) from None
        self.sock = self.deadline.watch(sock)
        if self.origin.scheme == "https":
            context = ssl.create_default_context()
            self.sock = context.wrap_socket(self.sock, server_hostname=self.host)


# ==== 3. 一次 POST ================================================================================

def http_post(origin, body, api_key, timeout, max_bytes, cancel=None):
    """往 origin 的 /chat/completions POST 一个 JSON，timeout 秒内收完。
    返回 (状态码, {小写的头: 值}, 响应体)；超时、连不上、收得太多、不像 HTTP 都抛 CallFailed，
    所在的一批（cancel）被叫停了抛 Cancelled。"""
    # 非 ASCII 都转义成 \uXXXX：模型名写什么都安全
    data = json.dumps(body).encode("ascii")
    headers = {"Content-Type": "application/json", "Accept": "application/json",
               "Connection": "close"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    deadline = Deadline(timeout, cancel)
    conn = _Connection(origin, deadline, max_bytes)
    try:
        conn.request("POST", f"{origin.path}/chat/completions", body=data, headers=headers)
        response = conn.getresponse()
        received = {name.lower(): value for name, value in response.getheaders()}
        raw = _read_body(response, received, max_bytes)
    except (OSError, http.client.HTTPException, ValueError) as e:
        raise _failure(e, deadline) from None
    finally:
        deadline.stop_timer()
        conn.close()
    deadline.cancel.check()
    if deadline.expired:
        raise CallFailed("timeout", deadline.missed())
    return response.status, received, raw


def _read_body(response, headers, limit):
    """响应体。有 Content-Length 时先看它是不是数、有没有超过上限（http.client 会照它一次
    要那么大的内存）；分块、读到关连接由 http.client 处理，每个字节都经过计数。"""
    length = headers.get("content-length")
    chunked = headers.get("transfer-encoding", "").lower() == "chunked"
    if length is not None and not chunked:
        if not ascii_digits(length.strip()):
            raise CallFailed("bad_reply", "Content-Length 不是数")
        if int(length) > limit:
            raise CallFailed("too_large", f"超过 {limit:,} B")
    return response.read()


def _failure(error, deadline):
    """http.client 或 socket 的异常 → CallFailed。叫停了（socket 是 Cancel 关掉的）是 Cancelled；
    截止时间一过，什么异常都是 timeout（socket 是计时器关掉的）。"""
    if deadline.cancel.cancelled.is_set():
        return Cancelled()
    if deadline.expired or isinstance(error, socket.timeout):
        return CallFailed("timeout", deadline.missed())
    if isinstance(error, http.client.LineTooLong):
        return CallFailed("too_large", "响应头的一行太长")
    # 分块的长度读不成十六进制数时，http.client 抛的是 IncompleteRead，
    # 追到底的原因是 int() 的 ValueError
    if isinstance(error, http.client.IncompleteRead) and _caused_by(error, ValueError):
        return CallFailed("bad_reply", "分块的长度不是十六进制数（或者连接断在两块之间）")
    if isinstance(error, (http.client.IncompleteRead, ConnectionError)):
        return CallFailed("network", "回复没收完，连接就断了")
    if isinstance(error, ssl.SSLError):
        return CallFailed("network", f"TLS：{error}")
    if isinstance(error, OSError):
        return CallFailed("network", error.strerror or type(error).__name__)
    what = f"{type(error).__name__}：{str(error)[:100]}"
    return CallFailed("bad_reply", f"回复不是合法的 HTTP（{what}）")


def _caused_by(error, kind):
    """error 或它的原因（__cause__、__context__ 一路追下去）里有没有 kind 的异常。"""
    while error is not None:
        if isinstance(error, kind):
            return True
        error = error.__cause__ or error.__context__
    return False


# ==== 4. chat API：回复的内容、重试、失败的说明 ===================================================

def reply_content(raw):
    """chat API 的回复体 → 助手说的话；不是 UTF-8、不是 JSON、嵌套太深、形状不对
    都抛 CallFailed(bad_reply)。"""
    try:
        content = json.loads(raw.decode("utf-8"))["choices"][0]["message"]["content"]
        # 不是字符串，或有不成对的 \ud800：存不进录制，也打印不出来
        content.encode("utf-8")
    except (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError):
        shape = "choices[0].message.content 是字符串"
        raise CallFailed("bad_reply", f"回复不是 chat API 的格式（{shape}）") from None
    return content


def fingerprint(obj):
    """JSON 值的指纹：键排好序、紧凑写法的 UTF-8 的 sha256，取前 16 位十六进制。
    同样的模型、消息、温度、长度上限、seed（和语法）的请求得到同一个指纹。"""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Call:
    """一次调用，也是录制文件里的一行：请求和它的指纹、结果（ok 或 CALL_FAILURES 之一）、
    回复（ok 时是模型说的话，否则是一句说明，或 None）、重试了几次、等了几秒。"""
    hash: str
    request: dict
    result: str
    reply: str
    retries: int
    seconds: float


@dataclass(frozen=True)
class Transport:
    """怎么调用：地址、密钥、截止秒数、重试几次、退避和 Retry-After 的上限、收多少字节。"""
    origin: Origin
    api_key: str
    timeout: float
    retries: int
    backoff: float
    max_wait: float
    max_bytes: int

    def call(self, body, cancel=None):
        """一次调用：POST，429/5xx 时等 Retry-After（最多 max_wait 秒；没给就 backoff·2^i 秒）再试，
        最多 retries 次。返回 Call，秒数连重试和等待都算上。从不跟重定向；只在所在的一批
        （cancel）被叫停时抛 Cancelled，别的什么都不抛。"""
        start = time.monotonic()
        # 一个请求自己问时：没有谁会叫停它
        cancel = cancel or Cancel()

        def finished(result, reply, attempt):
            seconds = round(time.monotonic() - start, 3)
            return Call(fingerprint(body), body, result, reply, attempt, seconds)
        for attempt in range(self.retries + 1):
            try:
                status, headers, raw = http_post(self.origin, body, self.api_key, self.timeout,
                                                 self.max_bytes, cancel)
                if 200 <= status < 300:
                    return finished("ok", reply_content(raw), attempt)
            except CallFailed as e:
                return finished(e.result, e.detail, attempt)
            if status not in RETRY_STATUS or attempt == self.retries:
                result, detail = _status_failure(status, headers, raw, self.origin)
                return finished(result, detail, attempt)
            after = headers.get("retry-after", "")
            backoff = self.backoff * 2 ** attempt
            cancel.sleep(min(float(after), self.max_wait) if ascii_digits(after) else backoff)


def _status_failure(status, headers, raw, origin):
    """非 2xx 的回复 → (结果, 一句说明)。说明里服务器的原话截短，控制字符由打印的一方去掉。"""
    if 300 <= status < 400:
        where = headers.get("location", "（没说去哪）")[:200]
        return "redirect", f"HTTP {status}，指向 {where}：没有跟过去，密钥只发给 base_url"
    detail = f"HTTP {status}"
    # 提示放前面：进度行截断时也看得到
    if status in (404, 405, 501) and not origin.path.endswith("/v1"):
        detail += "（base_url 少了结尾的 /v1？）"
    message = _server_message(raw)
    return "http_error", f"{detail}：{message}" if message else detail


def _server_message(raw):
    """错误回复里服务器说了什么：{"error": {"message": ...}} 里的那句，否则是回复的开头；
    截到 200 个字。"""
    text = raw[:4096].decode("utf-8", errors="replace")
    try:
        message = json.loads(raw)["error"]["message"]
    except (ValueError, RecursionError, KeyError, IndexError, TypeError):
        message = text
    return (message if isinstance(message, str) else text).strip()[:200]
