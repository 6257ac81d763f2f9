"""LLM 测试共用的几个程序、回复和客户端：decode 用 split-K 的程序（比专家快），把源码包进代码块的
回复，只由请求的 seed 决定的几种回复（一处改动的、整个程序的），对着测试服务器的 ChatLLM，
两个模型各一个的服务器。"""
from evolve import EXPERT, Config, Program, Rule, UNBOUNDED, render
from llm import ChatLLM
from servers import SeededServer

HEAD = "def choose_config(M, N, K):\n"
# decode 用 split-K：比专家快
SPLIT_K = Config(16, 64, 128, 4, 4, 4)
SPLIT_K_TEXT = "Config(BM=16, BN=64, BK=128, warps=4, stages=4, split_k=4)"
DECODE = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), SPLIT_K),) + EXPERT.rules, EXPERT.default)
SMALL = "    return Config(16, 64, 64, 4, 3, 1)\n"
# 客户端超时；"慢"的回复睡得比它久
TIMEOUT = 0.3


def fenced(code, before="Here is the improved function:\n", after="\nThis should be faster."):
    """模型的回复：前后有话，中间一个 ```python 代码块。"""
    return f"{before}```python\n{code}```{after}"


def chat_for(server, **kw):
    return ChatLLM(server.url, "scripted-model", timeout=TIMEOUT, backoff=0.01,
                   max_reply_bytes=4000, **kw)


def edit_replies():
    """只由请求的 seed 决定的回复：三种改动、一句话、一个对不上的规则号。"""
    return ["before rule 1: if M <= 16 and N > 4096: return " + SPLIT_K_TEXT,
            "rule 2: return Config(BM=64, BN=128, BK=64, warps=4, stages=4, split_k=1)",
            "rule 1: if M <= 4: return " + SPLIT_K_TEXT, "no idea",
            "rule 9: return " + SPLIT_K_TEXT]


def replies():
    """几种回复：好程序、写错的、照抄父程序的。"""
    def first(bounds, cfg):
        return Program((Rule((bounds, UNBOUNDED, UNBOUNDED), cfg),) + EXPERT.rules,
                       EXPERT.default)
    decode = first((0, 16), Config(16, 64, 128, 4, 4, 4))
    wide = first((128, 16384), Config(128, 256, 64, 8, 4, 1))
    return [render(decode), render(wide), "no code here", render(EXPERT)]


def jitter(seed):
    """每个请求睡 0.02–0.2 秒，由 seed 决定：后发的常常先到。"""
    return 0.02 + (seed * 7919 % 10) / 50


def two_servers():
    """两个模型各在一个服务器上：回复只由请求的 seed 决定。"""
    replies = edit_replies()
    return [SeededServer(replies, lambda seed: 0), SeededServer(replies[::-1], lambda seed: 0)]
