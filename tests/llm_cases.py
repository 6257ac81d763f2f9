"""LLM 测试共用的几个程序和回复：decode 用 split-K 的程序（比专家快），把源码包进代码块的回复。"""
from evolve import EXPERT, Config, Program, Rule, UNBOUNDED

HEAD = "def choose_config(M, N, K):\n"
# decode 用 split-K：比专家快
SPLIT_K = Config(16, 64, 128, 4, 4, 4)
SPLIT_K_TEXT = "Config(BM=16, BN=64, BK=128, warps=4, stages=4, split_k=4)"
DECODE = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), SPLIT_K),) + EXPERT.rules, EXPERT.default)
SMALL = "    return Config(16, 64, 64, 4, 3, 1)\n"


def fenced(code, before="Here is the improved function:\n", after="\nThis should be faster."):
    """模型的回复：前后有话，中间一个 ```python 代码块。"""
    return f"{before}```python\n{code}```{after}"
