"""
CS349E · 第 14 讲 · llm.py —— 让真的语言模型当 evolve 的提出者（OpenAI 兼容的 chat API）

    from llm import ChatLLM
    out = evolve(ev, 50, seed=0, llm=ChatLLM("http://127.0.0.1:8000/v1", "SmolLM2-135M-Instruct"))

本地的 llama.cpp、vLLM、Ollama、LM Studio 和各家 API 都说这种 API。自上而下读：
  1. 提示：build_messages —— 配置空间、硬件上限、inspiration、父程序、逐形状反馈、要求。想改"模型看到什么"就改这里
  2. 回复 → 程序：最后一个 ```python 代码块（或以 def 开头的整段），交给 parse_program——从不执行模型写的代码
  3. 传输：只用标准库（urllib、json）；每次调用有超时，429/5xx 退避重试，回复有大小上限
  4. 录制与回放：每次调用一行 JSON（请求、回复、请求的哈希）；回放按哈希查，不联网
  5. ChatLLM：把上面接起来。每种失败都只是一次失败的提案（返回 None），.stats 分类计数
"""
import hashlib
import http.client
import json
import os
import re
import socket
import time
import urllib.error
import urllib.request
from collections import deque

from evolve import (ADDR_REGS, CONFIG_CHOICES, CONFIGS, ELEM_BYTES, H100, MMA_TILE, REG_OVERHEAD, VEC_BYTES,
                    ProgramError, ProgramSyntaxError, choose, parse_program, render)


# ============================================================================
# 1. 提示
# ============================================================================
# 用英文写：小模型几乎只在英文上训练过，大模型中英文都行。学生可以随意改写、翻译、删减。

SYSTEM = ("You are an expert GPU kernel engineer. You improve a small Python heuristic that picks the tiling "
          "config of a matrix-multiplication kernel. You answer with exactly one ```python code block.")


def config_args(cfg):
    """Config(BM, BN, BK, warps, stages, split_k) 的位置参数写法：表里短，模型也能照抄。"""
    return "Config(" + ", ".join(str(getattr(cfg, f)) for f in CONFIG_CHOICES) + ")"


def feedback_table(parent, fb):
    """父程序在每个训练形状上的表现，一行一个形状：时间、离 roofline 多远、离见过的最快多远、那个最快的配置
    （父程序用的就是它时写 "-"：表短一半，模型读得快）。"""
    lines = [f"{'M':>5} {'N':>5} {'K':>5} {'time_us':>7} {'vs_roofline':>11} {'vs_best':>7}  fastest config seen"]
    for i, s in enumerate(fb.shapes):
        best = CONFIGS[fb.best_cfg[i]]
        lines.append(f"{s.M:>5} {s.N:>5} {s.K:>5} {fb.time[i] * 1e6:>7.1f} {fb.vs_roofline[i]:>11.2f} "
                     f"{fb.vs_best[i]:>7.2f}  {'-' if best == choose(parent, s) else config_args(best)}")
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

How the current program does on each training shape. time_us is its time in microseconds; vs_roofline = roofline \
lower bound / time; vs_best = fastest time seen for that shape / time (1.00 means no faster config is known); the \
last column is that fastest config, or - if the current program already uses it:
{feedback_table(parent, feedback)}

Improve the current program: for the slow shapes, use the fastest configs seen, or add branches, or move \
thresholds. Return the whole improved function in one ```python code block."""
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


# ============================================================================
# 2. 回复 → 程序
# ============================================================================

_CODE_BLOCK = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


def extract_code(text):
    """回复里的代码：最后一个 ```python 代码块（没写完就被 max_tokens 截断的也算，多半是语法错误）；
    没有代码块、整段以 def 开头时是整段；都没有是 None。"""
    blocks = _CODE_BLOCK.findall(text)
    if blocks:
        return blocks[-1]
    return text.strip() + "\n" if text.lstrip().startswith("def ") else None


def program_from_reply(text):
    """模型的回复 → (结果, 说明, 程序或 None)。结果是 ok、no_code、syntax_error、outside_subset 或 outside_space。"""
    code = extract_code(text)
    if code is None:
        return "no_code", "", None
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


# ============================================================================
# 3. 传输
# ============================================================================

def post_json(url, body, api_key, timeout, retries, backoff, max_bytes):
    """POST 一个 JSON。返回 (结果, 回复文本或原因, 重试了几次)；结果是 ok、timeout、network、http_error、too_large。
    429 和 5xx 等 backoff·2^i 秒再试，最多 retries 次；别的错误不重试。"""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    data = json.dumps(body).encode("utf-8")
    for attempt in range(retries + 1):
        try:
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            with urllib.request.urlopen(request, timeout=timeout) as response:
                raw = response.read(max_bytes + 1)
            if len(raw) > max_bytes:
                return "too_large", f"超过 {max_bytes:,} B", attempt
            return "ok", raw.decode("utf-8", errors="replace"), attempt
        except urllib.error.HTTPError as e:
            if (e.code == 429 or e.code >= 500) and attempt < retries:
                time.sleep(backoff * 2 ** attempt)
                continue
            return "http_error", f"HTTP {e.code}", attempt
        except socket.timeout:
            return "timeout", f"{timeout:g} s 内没有回复", attempt
        except urllib.error.URLError as e:
            if isinstance(e.reason, socket.timeout):
                return "timeout", f"{timeout:g} s 内没有回复", attempt
            return "network", str(e.reason), attempt
        except (OSError, http.client.HTTPException) as e:
            return "network", str(e) or type(e).__name__, attempt


def reply_content(raw):
    """chat API 的回复 JSON → 助手说的话；格式不对时是 None。"""
    try:
        content = json.loads(raw)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    return content if isinstance(content, str) else None


# ============================================================================
# 4. 录制与回放
# ============================================================================

class ReplayError(LookupError):
    """回放文件里没有这次请求。"""


def request_hash(body):
    """请求的指纹：同样的模型、消息、温度、长度上限和 seed 得到同一个哈希。"""
    text = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def load_transcript(path):
    """录制文件 → {哈希: 按顺序的条目}：同一个请求录到几次，就按顺序答几次。"""
    if not os.path.isfile(path):
        raise ValueError(f"回放文件 {path} 不存在")
    calls = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            try:
                entry = json.loads(line)
                calls.setdefault(entry["hash"], deque()).append(entry)
            except (ValueError, KeyError, TypeError):
                raise ValueError(f"回放文件 {path} 第 {n} 行不是录制的一次调用（应是一行 JSON，带 hash）") from None
    return calls


# ============================================================================
# 5. ChatLLM
# ============================================================================

# 一次提案的结果（.stats 的键）：ok 是解析成了程序，其余都是失败的提案
RESULTS = {"ok": "解析成了程序", "no_code": "回复里没有代码", "syntax_error": "不是合法的 Python",
           "outside_subset": "是 Python，但不在子集里", "outside_space": "配置不在搜索空间里",
           "bad_reply": "回复不是 chat API 的格式", "too_large": "回复太长", "timeout": "超时", "http_error": "HTTP 错误",
           "network": "连不上"}


class ChatLLM:
    """一个真的语言模型，当 evolve 的提出者：propose 发一次 chat 请求，把回复解析成程序。

    base_url：例如 http://127.0.0.1:8000/v1（请求发到 {base_url}/chat/completions）；只回放时可以是 None。
    api_key：默认读环境变量 OPENAI_API_KEY；本地服务器一般不要。
    record=路径：每次调用往文件末尾追加一行 JSON；replay=路径：从那个文件按请求的哈希回答，不联网。
    .stats：每种结果（RESULTS）各有几次；.retries：重试了几次；.seconds：等模型的秒数（回放时是录制时的秒数）。
    一个实例跑一次 evolve：计数是累加的。随机的只有每次请求的 seed，取自 evolve 给的 rng。
    """

    def __init__(self, base_url, model, api_key=None, temperature=0.8, max_tokens=1024, timeout=120.0, retries=3,
                 backoff=1.0, max_reply_bytes=65_536, record=None, replay=None):
        if not isinstance(model, str) or not model:
            raise ValueError(f"model 应是模型名（非空字符串），收到 {model!r}")
        if record and replay:
            raise ValueError("record 和 replay 只能选一个：录制时联网，回放时不联网")
        if replay is None and not (isinstance(base_url, str) and base_url.startswith(("http://", "https://"))):
            raise ValueError(f"base_url 应以 http:// 或 https:// 开头，例如 http://127.0.0.1:8000/v1；收到 {base_url!r}")
        for name, value in (("timeout", timeout), ("max_tokens", max_tokens), ("max_reply_bytes", max_reply_bytes)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError(f"{name} 应是正数，收到 {value!r}")
        self.base_url, self.model = base_url, model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.temperature, self.max_tokens = temperature, max_tokens
        self.timeout, self.max_retries, self.backoff, self.max_reply_bytes = timeout, retries, backoff, max_reply_bytes
        self.record, self.replay = record, replay
        self._transcript = load_transcript(replay) if replay else None
        self.stats = dict.fromkeys(RESULTS, 0)
        self.retries, self.seconds = 0, 0.0
        self.last = ("", "")                       # 最近一次的 (结果, 说明)，命令行打进度用

    def __repr__(self):
        return f"ChatLLM({self.base_url!r}, {self.model!r})"

    def propose(self, parent, feedback, inspirations, rng):
        body = {"model": self.model, "messages": build_messages(parent, feedback, inspirations),
                "temperature": self.temperature, "max_tokens": self.max_tokens, "seed": rng.randrange(2**31)}
        call = self._call(body)
        self.retries += call["retries"]
        self.seconds += call["seconds"]
        if call["result"] == "ok":
            result, detail, program = program_from_reply(call["reply"])
        else:
            result, detail, program = call["result"], call["reply"] or "", None
        self.stats[result] += 1
        self.last = (result, detail)
        return program

    def _call(self, body):
        """一次调用：回放时查文件，否则联网（录制时再追加一行）。返回 {result, reply, retries, seconds}。"""
        key = request_hash(body)
        if self._transcript is not None:
            queue = self._transcript.get(key)
            if not queue:
                raise ReplayError(f"回放文件 {self.replay} 里没有这次请求（哈希 {key}）：模型名、预算、种子或提示和录制时"
                                  "不一样（计时模型或 MockLLM 改过，提示里的数字也跟着变）。用 --record 重新录一次。")
            return queue.popleft()
        start = time.monotonic()
        result, reply, retries = post_json(self.base_url.rstrip("/") + "/chat/completions", body, self.api_key,
                                           self.timeout, self.max_retries, self.backoff, self.max_reply_bytes)
        if result == "ok":
            reply = reply_content(reply)
            result = "ok" if reply is not None else "bad_reply"
        call = {"hash": key, "request": body, "result": result, "reply": reply, "retries": retries,
                "seconds": round(time.monotonic() - start, 3)}
        if self.record:
            with open(self.record, "a", encoding="utf-8") as f:
                f.write(json.dumps(call, ensure_ascii=False) + "\n")
        return call
