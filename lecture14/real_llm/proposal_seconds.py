"""
=============================================================================
CS349E · 第 14 讲 · real_llm/proposal_seconds.py —— 一个提案的秒数花在哪里：离生成本身还差多少
=============================================================================

    python3 lecture14/real_llm/proposal_seconds.py --recording FILE.jsonl --first 30 \\
            --server 不缓存=http://127.0.0.1:8770/v1 --server 缓存=http://127.0.0.1:8767/v1

把一份录制里的前 N 个请求原样（同样的提示、语法、seed）依次发给几个服务器，交替着发
（第 k 个请求按 k 的奇偶换先后，机器忙闲对谁都一样）。每次记：墙钟秒数、服务器说的
prompt_tokens 和 completion_tokens。一个提案的极限是生成它的回复：每个服务器先量一次生成
一个 token 要几秒（同一个短提示，生成 1 个和 65 个 token 的差，除以多生成的 token 数），
"只生成"的秒数 = completion_tokens × 它。比值 = 提案的秒数 / 只生成的秒数：1 是到了极限，
多出来的是提示的计算（没有从缓存里接上的那部分）和缓存的存取。每个请求一行打到 stderr，
最后每个服务器一句：前 10 个之后（稳态）的中位数。

服务器是学生自己开的（record.sh 的设置，或去掉 --cache 的同一条命令），这里不起服务器。
【依赖】numpy（../checks 用它）；本目录的 transport（http_post：截止时间、字节上限、
  不跟重定向）、transcripts（读录制）。
"""
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
from checks import COUNT, POSITIVE_INT, OneSentenceParser, problem  # noqa: E402
from console import stops_cleanly  # noqa: E402
from transport import CallFailed, http_post, parse_base_url  # noqa: E402
from transcripts import transcript_lines  # noqa: E402

# 量生成速度的短提示：和提案的提示无关，每次一样（温度 0），只看多生成的 token 要多久
SPEED_PROMPT = [{"role": "user", "content": "Count from 1 to 200, separated by spaces."}]
SPEED_TOKENS = 65
# 稳态：前几个请求时服务器的缓存还是空的
WARMUP = 10
# 一次请求的截止秒数、回复字节上限：CPU 上一个慢的提案也在这以内
TIMEOUT = 600
MAX_BYTES = 1 << 20


def recorded_requests(path, first):
    """录制文件里前 first 个请求（按文件顺序，跳过第 1 行的设置）。"""
    requests = []
    for n, entry in transcript_lines(path):
        if n > 1 and len(requests) < first:
            requests.append(entry["request"])
    return requests


def timed(origin, body):
    """发一次，返回 (秒数, prompt_tokens, completion_tokens)。没成功、回复里没有 usage 的两个
    token 数时 CallFailed（回复是不可信的：只认非负整数）。"""
    start = time.monotonic()
    status, _, raw = http_post(origin, body, None, TIMEOUT, MAX_BYTES)
    seconds = time.monotonic() - start
    if status != 200:
        raise CallFailed("http_error", f"HTTP {status}")
    try:
        usage = json.loads(raw.decode("utf-8"))["usage"]
        counts = (usage["prompt_tokens"], usage["completion_tokens"])
    except (ValueError, RecursionError, KeyError, TypeError):
        counts = None
    if counts is None or not all(COUNT.test(n) for n in counts):
        raise CallFailed("bad_reply", "回复里没有 usage.prompt_tokens、usage.completion_tokens")
    return (seconds,) + counts


def seconds_per_token(origin, model):
    """生成一个 token 要几秒：同一个提示生成 1 个和 SPEED_TOKENS 个，差除以多出来的 token。
    先发一遍把提示算进缓存，之后两次都只差在生成上。"""
    body = {"model": model, "messages": SPEED_PROMPT, "temperature": 0, "seed": 0}
    timed(origin, {**body, "max_tokens": 1})
    short, _, one = timed(origin, {**body, "max_tokens": 1})
    long, _, many = timed(origin, {**body, "max_tokens": SPEED_TOKENS})
    return (long - short) / max(1, many - one)


def parse_args(argv):
    ap = OneSentenceParser(description="一个提案的秒数对只生成回复的秒数")
    ap.add_argument("--recording", help="录制文件（.jsonl），取它的请求（必须给）")
    ap.add_argument("--first", type=int, default=30, help="前几个请求（默认 30）")
    ap.add_argument("--server", action="append", metavar="NAME=URL",
                    help="一个服务器，例如 缓存=http://127.0.0.1:8767/v1；给两次以上")
    args = ap.parse_args(argv)
    # 不写成 argparse 的 required：那样打错一个旗标时，它先说缺了什么，不说打错的是哪个
    if not (args.recording and args.server):
        ap.error("要给 --recording 和 --server")
    slip = problem("--first", args.first, POSITIVE_INT, "取录制里的前几个请求")
    if slip:
        ap.error(slip)
    names = [given.partition("=")[0] for given in args.server]
    for given, name in zip(args.server, names):
        if not (name and given.partition("=")[2]):
            ap.error(f"--server 要写成 名字=地址（例如 --server cache=http://127.0.0.1:8767/v1），"
                     f"收到 {given!r}")
        if names.count(name) > 1:
            ap.error(f"--server 的名字 {name!r} 给了两次：每个服务器一个名字，结果按它分开说")
    return args


def main(argv=None):
    args = parse_args(argv)
    try:
        return measure(args)
    except ValueError as e:
        # 地址不对、录制文件坏了：一句话
        print(e, file=sys.stderr)
        return 2
    except CallFailed as e:
        print(f"一次请求没有成功（{e.detail}）：服务器开着吗，地址以 /v1 结尾吗？", file=sys.stderr)
        return 1


def measure(args):
    """量，打印；返回退出码。"""
    servers = {}
    for given in args.server:
        name, _, url = given.partition("=")
        servers[name] = parse_base_url(url)
    requests = recorded_requests(args.recording, args.first)
    if not requests:
        raise ValueError(f"录制文件 {args.recording} 里没有请求")
    model = requests[0]["model"]
    per_token = {name: seconds_per_token(origin, model) for name, origin in servers.items()}
    rows = {name: [] for name in servers}
    for k, body in enumerate(requests):
        order = list(servers) if k % 2 == 0 else list(servers)[::-1]
        for name in order:
            seconds, prompt, made = timed(servers[name], body)
            generation = made * per_token[name]
            rows[name].append((seconds, prompt, made, generation))
            print(f"{k + 1:>3} {name}：{seconds:6.1f} s，提示 {prompt} 个 token，生成 {made} 个"
                  f"（只生成 {generation:.1f} s）", file=sys.stderr)
    # 请求比热身的还少时，就是全部
    skipped = WARMUP if len(requests) > WARMUP else 0
    for name, measured in rows.items():
        steady = measured[skipped:]
        seconds = statistics.median(m[0] for m in steady)
        generation = statistics.median(m[3] for m in steady)
        ratios = [m[0] / m[3] for m in steady if m[3] > 0]
        ratio = f"{statistics.median(ratios):.2f}" if ratios else "—"
        print(f"{name}：生成一个 token {per_token[name]:.3f} s；第 {skipped + 1}–{len(requests)} 个"
              f"请求的中位数：提案 {seconds:.1f} s，只生成 {generation:.1f} s，比值 {ratio}")
    return 0


if __name__ == "__main__":
    # Ctrl-C、… | head、写不下中文的终端：一行说明或安静退出
    with stops_cleanly():
        sys.exit(main())
