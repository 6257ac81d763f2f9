"""
CS349E · 第 14 讲 · llm.py —— 让真的语言模型当 evolve 的提出者（OpenAI 兼容的 chat API）

    from llm import ChatLLM
    out = evolve(ev, 50, seed=0, llm=ChatLLM("http://127.0.0.1:8000/v1", "SmolLM2-135M-Instruct"))

本地的 llama.cpp、vLLM、Ollama、LM Studio 和各家 API 都说这种 API。自上而下读：
  1. 提示：build_messages —— 配置空间、硬件上限、inspiration、父程序、逐形状反馈、要求。想改"模型看到什么"就改这里
  2. 回复 → 程序：code_manipulation.code_blocks 找出代码块，最后一个写完了、解析得了的交给 parse_program——
     从不执行模型写的代码
  3. 传输：标准库的 socket 上一个最小的 HTTP 客户端：不跟重定向（密钥只发给 base_url），一次调用一个截止时间，
     收的字节有上限；429/5xx 等 Retry-After 再试。什么样的回复都只是一次失败，不抛异常
  4. 录制与回放：第 1 行是设置，之后每次调用一行 JSON（请求、回复、请求的哈希、盖住整行的 check）；回放按哈希查，不联网
  5. ChatLLM：把上面接起来。每种失败都只是一次失败的提案（返回 None），.stats 分类计数；连续连不上才停
"""
import collections
import hashlib
import itertools
import json
import math
import os
import socket
import ssl
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from code_manipulation import MAX_LITERAL, ProgramError, ProgramSyntaxError, code_blocks
from evolve import (ADDR_REGS, CONFIG_CHOICES, CONFIGS, ELEM_BYTES, H100, MAX_RULES, MMA_TILE, REG_OVERHEAD,
                    VEC_BYTES, parse_program, render)


# ============================================================================
# 1. 提示
# ============================================================================
# 用英文写：小模型几乎只在英文上训练过，大模型中英文都行。学生可以随意改写、翻译、删减。

SYSTEM = ("You are an expert GPU kernel engineer. You improve a small Python heuristic that picks the tiling "
          "config of a matrix-multiplication kernel. You answer with exactly one ```python code block.")


def config_args(cfg):
    """Config(BM, BN, BK, warps, stages, split_k) 的位置参数写法：表里短，模型也能照抄。"""
    return "Config(" + ", ".join(str(getattr(cfg, f)) for f in CONFIG_CHOICES) + ")"


WORTH_A_ROW = 0.99          # 表里只列见过更快配置的形状（vs_best < 0.99）：其余的行全是 "1.00  -"，小模型读不过来
MAX_ROWS = 12               # 最多列几个：差得最多的在前


def feedback_table(fb):
    """值得改的训练形状，一行一个：父程序的时间、离 roofline 多远、离见过的最快多远、那个更快的配置。
    只列见过更快配置的形状（差得最多的在前，最多 MAX_ROWS 个），其余的一句话带过。"""
    worth = [i for i in np.argsort(fb.vs_best, kind="stable") if fb.vs_best[i] < WORTH_A_ROW]
    lines = [f"{'M':>5} {'N':>5} {'K':>5} {'time_us':>7} {'vs_roofline':>11} {'vs_best':>7}  faster config seen"]
    for i in worth[:MAX_ROWS]:
        s = fb.shapes[i]
        lines.append(f"{s.M:>5} {s.N:>5} {s.K:>5} {fb.time[i] * 1e6:>7.1f} {fb.vs_roofline[i]:>11.2f} "
                     f"{fb.vs_best[i]:>7.2f}  {config_args(CONFIGS[fb.best_cfg[i]])}")
    more = len(worth) - MAX_ROWS
    lines.append((f"({more} more shapes have a faster config seen; " if more > 0 else "(")
                 + f"on the other {len(fb.shapes) - len(worth)} training shapes no faster config is known)")
    return "\n".join(lines)


def build_messages(parent, feedback, inspirations, hw=H100):
    """给模型的消息：AlphaEvolve 的提示里有的这里都有——决定配置能不能启动的硬件上限、配置空间、
    一两个别的程序和分数、父程序和它的分数、逐形状的反馈，最后是要求：整个函数放在一个 ```python 代码块里。
    不变的部分在前：本地服务器能复用上一次算过的前缀，省下大半的提示处理时间。"""
    space = "\n".join(f"- {field}: {', '.join(map(str, values))}" for field, values in CONFIG_CHOICES.items())
    others = "".join(f"Another program from the database, score {score:.3f}:\n```python\n{render(p)}```\n\n"
                     for p, score in inspirations[:2])
    user = f"""choose_config(M, N, K) returns the tiling Config for a bf16 GEMM C[M,N] = A[M,K] @ B[K,N] on an \
{hw.name} GPU with {hw.sms} SMs. The score is the geometric-mean speedup over an expert heuristic on the training \
shapes; higher is better.

Config(BM, BN, BK, warps, stages, split_k). Every field must be one of these values:
{space}

Hardware limits. A config that breaks one cannot launch, and a program is rejected if ANY of its branches returns \
such a config, even a branch that no training shape reaches:
- shared memory: stages * (BM + BN) * BK * {ELEM_BYTES} bytes <= {hw.smem_per_block}
- registers per thread: BM * BN / (32 * warps) + {ADDR_REGS} * (BM + BN) * BK * {ELEM_BYTES} / ({VEC_BYTES} * 32 * warps) \
+ {REG_OVERHEAD} <= {hw.regs_per_thread} (accumulators, one 64-bit address per 16-byte load, the rest)
- every warp needs at least one 16x8 MMA tile: BM * BN >= {MMA_TILE} * warps

The code may only use: one function def choose_config(M, N, K); if/elif/else; comparisons of M, N or K with \
integer literals, joined by and/or; return Config(...) with integer literals. No imports, loops, arithmetic, \
variables or other calls.

{others}Current program, score {feedback.score:.3f}:
```python
{render(parent)}```

The training shapes where a faster config than the current program's is known. time_us is the current program's \
time in microseconds; vs_roofline = roofline lower bound / time; vs_best = fastest time seen / time; the last \
column is that faster config:
{feedback_table(feedback)}

Improve the current program: for these shapes, use the faster configs seen, or add branches, or move \
thresholds. Return the whole improved function in one ```python code block."""
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


# ============================================================================
# 2. 回复 → 程序
# ============================================================================

def program_from_code(code):
    """一段源码 → (结果, 说明, 程序或 None)。结果是 ok、syntax_error、outside_subset 或 outside_space。"""
    try:
        p = parse_program(code)
    except ProgramSyntaxError as e:
        return "syntax_error", str(e), None
    except ProgramError as e:
        return "outside_subset", str(e), None
    outside = [c for c in p.configs() if c not in CONFIGS]
    if outside:
        return "outside_space", config_args(outside[0]), None
    return "ok", f"{p.n_rules()} 个分支", p


def program_from_reply(text):
    """模型的回复 → (结果, 说明, 程序或 None)：按 code_blocks 的顺序取第一个解析成程序的；一个都没有时，
    报最优先的那块为什么不行（没有代码是 no_code）。被截断的回复里，前面写完的好代码块照样用得上。"""
    first = None
    for code in code_blocks(text):
        outcome = program_from_code(code)
        if outcome[0] == "ok":
            return outcome
        first = first or outcome
    return first or ("no_code", "", None)


# 约束解码：本地服务器（llama.cpp 的 llama-server、llama-cpp-python）能按 GBNF 语法只采样合乎语法的 token。
# 语法就是 render 写出来的那种程序：if 链、每条一个 Config，字段只能取搜索空间里的值——小模型也写不出子集以外的东西。

GRAMMAR_RULES = MAX_RULES + 1   # 语法许的 if 最多几条：MockLLM 的程序最长 13 条（12 条再插两条）。一条约 57 个 token，
                                # 13 条加默认约 850 个：--max-tokens 1024 写得完；不设上限时小模型会一直写 if 直到被截断


def _at_most(n):
    """GBNF：0 到 n 的十进制整数（没有前导零）。位数少的随便写；位数一样的，逐位不超过 n。"""
    s = str(n)
    alts = ['"0"'] + (["[1-9]" + (f" [0-9]{{0,{len(s) - 2}}}" if len(s) > 2 else "")] if len(s) > 1 else [])
    for i, digit in enumerate(s):
        low = "1" if i == 0 else "0"
        if digit > low:
            rest = f" [0-9]{{{len(s) - i - 1}}}" if i < len(s) - 1 else ""
            alts.append((f'"{s[:i]}" ' if i else "") + f"[{low}-{int(digit) - 1}]" + rest)
    return " | ".join(alts + [f'"{s}"'])


def gbnf():
    """回复的 GBNF 语法，正是 render 写得出的那种程序：def choose_config(M, N, K)、至多 GRAMMAR_RULES 条 if（条件是
    True，或 M、N、K 和整数字面量的比较用 and 连起来）、最后一个 return Config(...)，字段只取搜索空间里的值。
    进化循环里的程序（MockLLM 的、模型自己的）render 出来它都接受；它接受的都在 parse_program 的子集里
    （分支数、字面量都不超过上限）、配置都在 CONFIGS 里。"""
    values = {f: " | ".join(f'"{v}"' for v in vs) for f, vs in CONFIG_CHOICES.items()}
    fields = ' ", '.join(f'{f}=" ({values[f]})' for f in CONFIG_CHOICES)
    return "\n".join([
        f'root ::= "def choose_config(M, N, K):\\n" rule{{0,{GRAMMAR_RULES}}} "    return " config "\\n"',
        'rule ::= "    if " cond ":\\n        return " config "\\n"',
        'cond ::= "True" | test (" and " test){0,2}',
        'test ::= var " == " num | var " <= " num | var " > " num | num " < " var " <= " num',
        'var ::= "M" | "N" | "K"',
        f"num ::= {_at_most(MAX_LITERAL)}",
        f'config ::= "Config({fields} ")"',
    ]) + "\n"


# ============================================================================
# 3. 传输
# ============================================================================
# 自己写的最小 HTTP/1.1 客户端（socket + ssl），因为要保证三件事，urllib 一件都不保证：
#   - 不跟重定向：带密钥的请求只发到 --base-url 那个地方，重定向是一次失败的调用；
#   - 一次调用一个截止时间：连接、响应头、响应体加起来，对方一个字节一个字节地挤、发无穷的分块或 100 Continue 都一样；
#   - 收到的字节（连响应头）有上限：一块一块地读，超了就停。

class CallFailed(Exception):
    """一次 HTTP 往返没有成功。result 是 RESULTS 的键，detail 是一句说明。"""

    def __init__(self, result, detail):
        super().__init__(detail)
        self.result, self.detail = result, detail


Origin = collections.namedtuple("Origin", "scheme host port path")


def parse_base_url(base_url):
    """--base-url → Origin；不是 http(s)://主机[:端口]/路径 的样子就 ValueError（一句话）。"""
    example = "例如 http://127.0.0.1:8080/v1"
    if not isinstance(base_url, str) or not all(33 <= ord(c) < 127 for c in base_url):
        return _bad(f"base_url 应是不带空格的 ASCII 网址，{example}；收到 {base_url!r}")
    parts = urllib.parse.urlsplit(base_url)
    try:
        port = parts.port
    except ValueError:
        return _bad(f"base_url {base_url} 的端口不对，{example}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return _bad(f"base_url 应以 http:// 或 https:// 开头、带主机名，{example}；收到 {base_url!r}")
    if parts.username is not None or parts.query or parts.fragment:
        return _bad(f"base_url 里不要带用户名密码、? 或 #，{example}（密钥用 --api-key-env 给）")
    return Origin(parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80),
                  parts.path.rstrip("/"))


def _bad(sentence):
    raise ValueError(sentence)


def default_api_key(base_url, environ=os.environ):
    """没给密钥时用哪个：只有 https 的地址才读环境变量 OPENAI_API_KEY。
    明文 http 的服务器（多半是本机或别人机器上的 llama.cpp）拿不到它：密钥不该发给随便哪个本地服务。"""
    if not base_url.startswith("https://"):
        return None
    return environ.get("OPENAI_API_KEY") or None


def http_post(origin, body, api_key, timeout, max_bytes):
    """往 origin 的 /chat/completions POST 一个 JSON，timeout 秒内收完。返回 (状态码, 响应头, 响应体)；
    超时、连不上、收得太多、不像 HTTP 都抛 CallFailed。"""
    deadline = time.monotonic() + timeout
    data = json.dumps(body).encode("ascii")               # 非 ASCII 都转义成 \uXXXX：模型名写什么都安全
    host = f"[{origin.host}]" if ":" in origin.host else origin.host
    head = [f"POST {origin.path}/chat/completions HTTP/1.1", f"Host: {host}:{origin.port}",
            "Content-Type: application/json", "Accept: application/json", f"Content-Length: {len(data)}",
            "Connection: close"] + ([f"Authorization: Bearer {api_key}"] if api_key else [])
    sock = _connect(origin, deadline, timeout)
    try:
        sock.settimeout(_left(deadline, timeout))
        sock.sendall("\r\n".join(head + ["", ""]).encode("ascii") + data)
        return _read_response(_Reader(sock, deadline, timeout, max_bytes))
    except socket.timeout:
        raise CallFailed("timeout", _too_slow(timeout)) from None
    except OSError as e:
        raise CallFailed("network", e.strerror or type(e).__name__) from None
    finally:
        sock.close()


def _too_slow(timeout):
    return f"{timeout:g} s 内没有收完回复"


def _left(deadline, timeout):
    """离截止还有几秒；已经过了就 CallFailed。"""
    left = deadline - time.monotonic()
    if left <= 0:
        raise CallFailed("timeout", _too_slow(timeout))
    return left


def _connect(origin, deadline, timeout):
    """连上 origin（https 时连 TLS 握手），都在截止之前。"""
    try:
        sock = socket.create_connection((origin.host, origin.port), timeout=_left(deadline, timeout))
    except socket.timeout:
        raise CallFailed("timeout", f"{timeout:g} s 内没连上") from None
    except OSError as e:
        raise CallFailed("network", e.strerror or str(e) or type(e).__name__) from None
    if origin.scheme != "https":
        return sock
    try:
        sock.settimeout(_left(deadline, timeout))
        return ssl.create_default_context().wrap_socket(sock, server_hostname=origin.host)
    except socket.timeout:
        sock.close()
        raise CallFailed("timeout", f"{timeout:g} s 内没握完手（TLS）") from None
    except OSError as e:
        sock.close()
        raise CallFailed("network", f"TLS：{e}") from None
    except CallFailed:
        sock.close()
        raise


class _Reader:
    """从 socket 一块一块地读：每次 recv 前看离截止还有多久，收到的总字节数超过上限就停。"""

    def __init__(self, sock, deadline, timeout, limit):
        self.sock, self.deadline, self.timeout, self.limit = sock, deadline, timeout, limit
        self.buf, self.pos = bytearray(), 0

    def _fill(self):
        """再收一块；对方关了连接返回 False。"""
        self.sock.settimeout(_left(self.deadline, self.timeout))
        chunk = self.sock.recv(65_536)
        if len(self.buf) + len(chunk) > self.limit:
            raise CallFailed("too_large", f"超过 {self.limit:,} B")
        self.buf += chunk
        return bool(chunk)

    def _take(self, end):
        out, self.pos = bytes(self.buf[self.pos:end]), end
        return out

    def until(self, sep):
        """读到 sep 为止（含 sep）。"""
        searched = self.pos
        while (i := self.buf.find(sep, searched)) < 0:
            searched = max(self.pos, len(self.buf) - len(sep) + 1)
            if not self._fill():
                raise CallFailed("network", "回复没收完，连接就断了")
        return self._take(i + len(sep))

    def exactly(self, n):
        while len(self.buf) - self.pos < n:
            if not self._fill():
                raise CallFailed("network", "回复没收完，连接就断了")
        return self._take(self.pos + n)

    def rest(self):
        while self._fill():
            pass
        return self._take(len(self.buf))


def _read_response(reader):
    """→ (状态码, {小写的头: 值}, 响应体)。1xx 跳过（有多少跳多少，反正受截止时间和字节上限管着）。"""
    while True:
        status, headers = _parse_head(reader.until(b"\r\n\r\n"))
        if status >= 200:
            break
    if "chunked" in headers.get("transfer-encoding", "").lower():
        return status, headers, _read_chunked(reader)
    length = headers.get("content-length")
    if length is None:
        return status, headers, reader.rest()
    if not _is_digits(length.strip()):
        raise CallFailed("bad_reply", "Content-Length 不是数")
    if int(length) > reader.limit:
        raise CallFailed("too_large", f"超过 {reader.limit:,} B")
    return status, headers, reader.exactly(int(length))


def _parse_head(raw):
    lines = raw.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/") or not (_is_digits(parts[1]) and len(parts[1]) == 3):
        raise CallFailed("bad_reply", "回复不是 HTTP")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


def _is_digits(text):
    """只有 0–9（str.isdigit 也认 ²、٣ 这类字符，int() 却不认）。"""
    return text.isascii() and text.isdigit()


def _read_chunked(reader):
    """分块的响应体：每块是"十六进制长度\r\n内容\r\n"，长度 0 的块结尾。"""
    body = bytearray()
    while True:
        digits = reader.until(b"\r\n").split(b";")[0].strip()
        if not digits or not all(c in b"0123456789abcdefABCDEF" for c in digits):
            raise CallFailed("bad_reply", "分块的长度不是十六进制数")
        size = int(digits, 16)
        if size == 0:
            while reader.until(b"\r\n") != b"\r\n":     # 跳过结尾的头
                pass
            return bytes(body)
        if len(body) + size > reader.limit:
            raise CallFailed("too_large", f"超过 {reader.limit:,} B")
        body += reader.exactly(size)
        reader.exactly(2)


def reply_content(raw):
    """chat API 的回复体 → 助手说的话；不是 UTF-8、不是 JSON、嵌套太深、形状不对都抛 CallFailed(bad_reply)。"""
    try:
        content = json.loads(raw.decode("utf-8"))["choices"][0]["message"]["content"]
        content.encode("utf-8")                        # 不是字符串，或有不成对的 \ud800：存不进录制，也打印不出来
    except (ValueError, RecursionError, KeyError, IndexError, TypeError, AttributeError):
        raise CallFailed("bad_reply", "回复不是 chat API 的格式（choices[0].message.content 是字符串）") from None
    return content


# 这几种状态码是暂时的：等一会儿再试。别的（4xx、501……）再试也一样。
RETRY_STATUS = (429, 500, 502, 503, 504)


def chat_call(origin, body, api_key, timeout, retries, backoff, max_wait, max_bytes):
    """一次调用：POST，429/5xx 时等 Retry-After（最多 max_wait 秒；没给就 backoff·2^i 秒）再试，最多 retries 次。
    返回 (结果, 回复或说明, 重试了几次)；结果是 RESULTS 里的传输结果之一。从不抛异常，从不跟重定向。"""
    for attempt in range(retries + 1):
        try:
            status, headers, raw = http_post(origin, body, api_key, timeout, max_bytes)
            if 200 <= status < 300:
                return "ok", reply_content(raw), attempt
        except CallFailed as e:
            return e.result, e.detail, attempt
        if status in RETRY_STATUS and attempt < retries:
            after = headers.get("retry-after", "")
            time.sleep(min(float(after), max_wait) if _is_digits(after) else backoff * 2 ** attempt)
            continue
        return _status_failure(status, headers, raw, origin) + (attempt,)


def _status_failure(status, headers, raw, origin):
    """非 2xx 的回复 → (结果, 一句说明)。说明里服务器的原话截短，控制字符由打印的一方去掉。"""
    if 300 <= status < 400:
        where = headers.get("location", "（没说去哪）")[:200]
        return "redirect", f"HTTP {status}，指向 {where}：没有跟过去，密钥只发给 base_url"
    detail = f"HTTP {status}"
    if status in (404, 405, 501) and not origin.path.endswith("/v1"):     # 提示放前面：进度行截断时也看得到
        detail += "（base_url 少了结尾的 /v1？）"
    message = _server_message(raw)
    return "http_error", f"{detail}：{message}" if message else detail


def _server_message(raw):
    """错误回复里服务器说了什么：{"error": {"message": ...}} 里的那句，否则是回复的开头；截到 200 个字。"""
    text = raw[:4096].decode("utf-8", errors="replace")
    try:
        message = json.loads(raw)["error"]["message"]
    except (ValueError, RecursionError, KeyError, IndexError, TypeError):
        message = text
    return (message if isinstance(message, str) else text).strip()[:200]


# ============================================================================
# 4. 录制与回放
# ============================================================================
# 第 1 行是这次运行的设置（模型、温度、max_tokens、地址、预算、种子），之后每次调用一行。每行都带 check：
# 整行其余内容的哈希。回放只看文件：设置从第 1 行来，请求按哈希查，改过的行、坏行、不够用都是一句话，说清哪个文件第几行。

TRANSCRIPT_KIND = "CS349E lecture14 ChatLLM transcript"
TRANSCRIPT_VERSION = 2
MAX_LINE_BYTES = 1 << 20            # 一行最多 1 MB：请求约 10 kB，回复最多 max_reply_bytes，转义后也放得下
TRANSPORT_RESULTS = ("ok", "bad_reply", "too_large", "timeout", "redirect", "http_error", "network")


class ChatError(Exception):
    """这次运行没法接着跑了（一句话）：连续连不上，或者回放文件答不了这次请求。"""


class ReplayError(ChatError):
    """回放文件答不了这次请求：用完了，或者请求和录制时的不一样。"""


def fingerprint(obj):
    """JSON 值的指纹：键排好序、紧凑写法的 UTF-8 的 sha256，取前 16 位十六进制。"""
    text = json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def request_hash(body):
    """请求的指纹：同样的模型、消息、温度、长度上限和 seed 得到同一个哈希。"""
    return fingerprint(body)


def sealed(entry):
    """一行录制：内容加上盖住整行的 check。"""
    return json.dumps({**entry, "check": fingerprint(entry)}, ensure_ascii=False) + "\n"


def transcript_lines(path):
    """录制文件一行一行地读：(行号, JSON 对象)。一行最多 MAX_LINE_BYTES，内存不随文件变大；
    坏行（太长、不是 UTF-8、不是 JSON、check 对不上）是 ValueError，一句话说清第几行。"""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise ValueError(f"回放文件 {path} 打不开（{e.strerror}）") from None
    with f:
        for n in itertools.count(1):
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            where = f"回放文件 {path} 第 {n} 行"
            if len(raw) > MAX_LINE_BYTES:
                raise ValueError(f"{where}超过 {MAX_LINE_BYTES:,} 字节，不是录制的一行")
            try:
                entry = json.loads(raw.decode("utf-8"))
                intact = isinstance(entry, dict) and entry.pop("check", None) == fingerprint(entry)
            except (ValueError, RecursionError):
                raise ValueError(f"{where}不是一行 JSON，不是录制文件") from None
            if not intact:
                raise ValueError(f"{where}被改过或不完整：check 和这一行的内容对不上，用 --record 重新录一次")
            yield n, entry


def _call_problem(entry):
    """一行调用记录哪里不对（check 对上了，但字段不是录制写的样子）；没问题是 None。"""
    if set(entry) != {"hash", "request", "result", "reply", "retries", "seconds"}:
        return "字段不对"
    if not isinstance(entry["request"], dict) or entry["hash"] != request_hash(entry["request"]):
        return "hash 不是 request 的哈希"
    reply_ok = isinstance(entry["reply"], str) or entry["reply"] is None and entry["result"] != "ok"
    if entry["result"] not in TRANSPORT_RESULTS or not reply_ok:           # ok 的 reply 是模型说的话
        return "result 或 reply 不对"
    if not _is_count(entry["retries"]) or not _nonnegative(entry["seconds"]):
        return "retries 或 seconds 不对"
    return None


def _is_count(x):
    return isinstance(x, int) and not isinstance(x, bool) and x >= 0


def _nonnegative(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def _settings_problem(settings):
    """第 1 行的设置哪里不对；没问题是 None。"""
    if not isinstance(settings, dict) or not {"model", "temperature", "max_tokens"} <= set(settings):
        return "没有 model、temperature、max_tokens"
    if not isinstance(settings["model"], str) or not settings["model"].isprintable() or not settings["model"]:
        return "model 不是可打印的名字"
    if not _nonnegative(settings["temperature"]) or not _is_count(settings["max_tokens"]) \
            or not isinstance(settings.get("grammar", False), bool):
        return "temperature、max_tokens 或 grammar 不对"
    if not all(_is_count(settings[k]) for k in ("budget", "seed", "parallel") if k in settings):
        return "budget、seed 或 parallel 不对"
    try:
        parse_base_url(settings.get("base_url"))
    except ValueError:
        return "base_url 不对"
    return None


def _header_problem(header):
    """第 1 行哪里不对；没问题是 None。"""
    if header is None:
        return "是空的"
    if set(header) != {"kind", "version", "settings"} or header["kind"] != TRANSCRIPT_KIND \
            or header["version"] != TRANSCRIPT_VERSION:
        return f"第 1 行不是录制的设置行（应是 {TRANSCRIPT_KIND} 第 {TRANSCRIPT_VERSION} 版）"
    problem = _settings_problem(header["settings"])
    return problem and f"第 1 行的设置不对：{problem}"


def load_transcript(path):
    """录制文件 → (设置, [(行号, 调用), ...])。第 1 行是设置，之后一行一次调用，最多预算那么多行；
    任何不对都是 ValueError，一句话说清哪个文件第几行。"""
    lines = transcript_lines(path)
    _, header = next(lines, (1, None))
    problem = _header_problem(header)
    if problem:
        raise ValueError(f"回放文件 {path} {problem}")
    settings, calls = header["settings"], []
    budget = settings.get("budget", math.inf)
    for n, entry in lines:
        problem = _call_problem(entry) or (f"预算只有 {budget}，这一行多出来了" if len(calls) >= budget else None)
        if problem:
            raise ValueError(f"回放文件 {path} 第 {n} 行不是录制的一次调用：{problem}")
        calls.append((n, entry))
    return settings, calls


# ============================================================================
# 5. ChatLLM
# ============================================================================

# 一次提案的结果（.stats 的键）：ok 是解析成了程序，其余都是失败的提案。后 6 个是调用本身失败了（TRANSPORT_RESULTS）
RESULTS = {"ok": "解析成了程序", "no_code": "回复里没有代码", "syntax_error": "不是合法的 Python",
           "outside_subset": "是 Python，但不在子集里", "outside_space": "配置不在搜索空间里",
           "bad_reply": "回复不是 chat API 的格式", "too_large": "回复太长", "timeout": "超时",
           "redirect": "重定向（没有跟过去）", "http_error": "HTTP 错误", "network": "连不上"}


def positive(name, value, kind=float):
    """有限的正数（kind=int 时是正整数）原样返回；否则 ValueError，一句话，说的是 name。"""
    if isinstance(value, bool) or not isinstance(value, (int, kind)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} 应是有限的正{'整' if kind is int else ''}数，收到 {value!r}")
    return value


def check_model(model):
    """模型名：非空、可打印（没有控制字符），200 个字符以内。原样返回；不行就 ValueError。"""
    if not isinstance(model, str) or not model or not model.isprintable() or len(model) > 200:
        raise ValueError(f"模型名应是 200 个字符以内、没有控制字符的非空字符串，收到 {str(model)[:200]!r}")
    return model


class ChatLLM:
    """一个真的语言模型，当 evolve 的提出者：propose 发一次 chat 请求，把回复解析成程序。

    base_url：例如 http://127.0.0.1:8000/v1（请求发到 {base_url}/chat/completions，只发到那里，重定向不跟）。
    api_key：不给时只有 https 的地址才读环境变量 OPENAI_API_KEY（default_api_key）。
    timeout：一次 HTTP 往返（连接、响应头、响应体）的截止秒数；429/5xx 等 Retry-After（最多 max_wait 秒）再试 retries 次。
    连续 max_unreachable 次连不上就抛 ChatError（一句话带提示），不再空转。
    record=路径：第 1 行写设置（模型、温度、max_tokens、地址，加上 run 里的预算、种子），之后每次调用追加一行；
    ChatLLM.from_transcript(路径)：照那个文件回放，设置也从它来，不联网。
    grammar=True：请求里带上 gbnf() 的语法（约束解码：llama.cpp 的 llama-server 和 llama-cpp-python 认 "grammar" 字段），
    模型只能写出子集里、搜索空间里的程序。语法是请求的一部分，和别的一样录制、回放。
    .stats：每种结果（RESULTS）各有几次；.retries：重试了几次；.seconds：等模型的秒数（回放时是录制时的秒数）。
    一个实例跑一次 evolve：计数是累加的。随机的只有每次请求的 seed，取自 evolve 给的 rng。
    """

    def __init__(self, base_url, model, api_key=None, temperature=0.8, max_tokens=1024, grammar=False,
                 timeout=120.0, retries=3, backoff=1.0, max_wait=30.0, max_reply_bytes=65_536, max_unreachable=3,
                 record=None, run=None):
        self.origin, self.model = parse_base_url(base_url), check_model(model)
        for name, value, kind in (("timeout", timeout, float), ("max_tokens", max_tokens, int),
                                  ("max_reply_bytes", max_reply_bytes, int), ("max_unreachable", max_unreachable, int)):
            positive(name, value, kind)
        for name, value, ok in (("temperature", temperature, _nonnegative), ("backoff", backoff, _nonnegative),
                                ("max_wait", max_wait, _nonnegative), ("retries", retries, _is_count)):
            if not ok(value):
                raise ValueError(f"{name} 应是有限的非负数，收到 {value!r}")
        self.api_key = default_api_key(base_url) if api_key is None else api_key
        if self.api_key and not all(33 <= ord(c) < 127 for c in self.api_key):
            raise ValueError("API 密钥里有空格、控制字符或非 ASCII 字符：复制时多带了什么？")
        if grammar is not True and grammar is not False:
            raise ValueError(f"grammar 应是 True 或 False，收到 {grammar!r}")
        self.temperature, self.max_tokens, self.grammar = temperature, max_tokens, grammar
        self.timeout, self.max_retries, self.backoff, self.max_wait = timeout, retries, backoff, max_wait
        self.max_reply_bytes, self.max_unreachable = max_reply_bytes, max_unreachable
        self.settings = {"model": model, "temperature": temperature, "max_tokens": max_tokens, "grammar": grammar,
                         "base_url": base_url, **(run or {})}
        self.record, self.replay, self._record_lock = record, None, threading.Lock()
        self._unused, self._by_hash, self._last_line = {}, {}, 1   # 回放用：没答过的行、每个哈希的行号、最后一行
        self.stats = dict.fromkeys(RESULTS, 0)
        self.calls, self.retries, self.seconds, self._unreachable = 0, 0, 0.0, 0
        self.last = ("", "")                       # 最近一次的 (结果, 说明)，命令行打进度用
        if record:
            self._start_record()

    @classmethod
    def from_transcript(cls, path):
        """照录制文件回放的 ChatLLM：模型、温度、max_tokens 取自文件第 1 行，.settings 是那一行的全部设置。"""
        settings, calls = load_transcript(path)
        chat = cls(settings["base_url"], settings["model"], api_key="", temperature=settings["temperature"],
                   max_tokens=settings["max_tokens"], grammar=settings.get("grammar", False))
        chat.settings, chat.replay = settings, path
        chat._unused = dict(calls)                 # 行号 → 调用，按文件里的顺序
        for n, call in calls:
            chat._by_hash.setdefault(call["hash"], collections.deque()).append(n)
        chat._last_line = calls[-1][0] if calls else 1
        return chat

    def __repr__(self):
        return f"ChatLLM({self.settings['base_url']!r}, {self.model!r})"

    @property
    def answered(self):
        """拿到了回复（HTTP 2xx、chat API 的格式）的调用数：不管回复里写的是什么。"""
        return self.calls - sum(self.stats[k] for k in TRANSPORT_RESULTS if k != "ok")

    def propose(self, parent, feedback, inspirations, rng):
        call = self._call(self._body(parent, feedback, inspirations, rng))
        self.seconds += call["seconds"]
        return self._program(call)

    def propose_all(self, asks, rng):
        """几个提案一起问（evolve(..., parallel=K)）：请求按顺序建好（seed 按顺序取自 rng），同时发出，回复按提案的
        顺序处理——哪个先到都一样，所以同样的回复给出同样的一次运行。等模型的时间按这一批里最慢的那次算。"""
        bodies = [self._body(parent, feedback, inspirations, rng) for parent, feedback, inspirations in asks]
        if self.replay:                                            # 回放不联网：一个一个查文件
            calls = [self._call(body) for body in bodies]
        else:
            with ThreadPoolExecutor(len(bodies)) as pool:
                calls = list(pool.map(self._call, bodies))
        self.seconds += max(call["seconds"] for call in calls)
        return [self._program(call) for call in calls]

    def _body(self, parent, feedback, inspirations, rng):
        body = {"model": self.model, "messages": build_messages(parent, feedback, inspirations),
                "temperature": self.temperature, "max_tokens": self.max_tokens, "seed": rng.randrange(2**31)}
        return dict(body, grammar=gbnf()) if self.grammar else body

    def _program(self, call):
        """一次调用的结果 → 程序或 None；记账。连续 max_unreachable 次连不上就抛 ChatError。"""
        self.calls += 1
        self.retries += call["retries"]
        if call["result"] == "ok":
            result, detail, program = program_from_reply(call["reply"])
        else:
            result, detail, program = call["result"], call["reply"] or "", None
        self.stats[result] += 1
        self.last = (result, detail)
        self._unreachable = self._unreachable + 1 if result == "network" else 0
        if self._unreachable >= self.max_unreachable:
            raise ChatError(f"连续 {self._unreachable} 次连不上 {self.settings['base_url']}（{detail}）：模型服务器开着吗？"
                            "地址对吗，是不是以 /v1 结尾（例如 http://127.0.0.1:8080/v1）？")
        return program

    def _call(self, body):
        """一次调用：回放时查文件，否则联网（录制时再追加一行）。返回 {hash, request, result, reply, retries, seconds}：
        只由请求决定（加上测得的秒数），所以按请求的哈希就能回放。"""
        key = request_hash(body)
        if self.replay:
            return self._replayed(key)
        start = time.monotonic()
        result, reply, retries = chat_call(self.origin, body, self.api_key, self.timeout, self.max_retries,
                                           self.backoff, self.max_wait, self.max_reply_bytes)
        call = {"hash": key, "request": body, "result": result, "reply": reply, "retries": retries,
                "seconds": round(time.monotonic() - start, 3)}
        if self.record:
            with self._record_lock:                                # 并发的调用各写一整行
                self._write(sealed(call), "a")
        return call

    def _replayed(self, key):
        lines = self._by_hash.get(key)
        if lines:
            return self._unused.pop(lines.popleft())
        if not self._unused:
            raise ReplayError(f"回放文件 {self.replay} 到第 {self._last_line} 行就完了，这次运行要第 {self.calls + 1} 次调用："
                              "录制时中途停了，或者预算比第 1 行记的大。")
        n = next(iter(self._unused))
        raise ReplayError(f"回放文件 {self.replay} 第 {n} 行录的请求和这次的不一样（哈希 {self._unused[n]['hash']}，这次是 "
                          f"{key}）：提示里的数字变了（计时模型、MockLLM 或 build_messages 改过），用 --record 重新录一次。")

    def _start_record(self):
        """录制文件现在就建好、写上设置行：文件夹不在、已经有这个文件、写不进去，在第一次（可能要钱的）调用之前就知道。"""
        header = {"kind": TRANSCRIPT_KIND, "version": TRANSCRIPT_VERSION, "settings": self.settings}
        problem = _settings_problem(self.settings)
        if problem:
            raise ValueError(f"录制的设置不对：{problem}")
        try:
            self._write(sealed(header), "x")
        except ChatError as e:
            raise ValueError(str(e)) from None

    def _write(self, line, mode):
        try:
            with open(self.record, mode, encoding="utf-8") as f:
                f.write(line)
        except FileExistsError:
            raise ChatError(f"录制文件 {self.record} 已经存在：换个名字，或者先删掉它（录制不覆盖）") from None
        except FileNotFoundError:
            raise ChatError(f"录制文件 {self.record} 所在的文件夹不存在") from None
        except OSError as e:
            raise ChatError(f"录制文件 {self.record} 写不进去（{e.strerror or e}）") from None
