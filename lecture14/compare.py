"""
CS349E · 第 14 讲 · compare.py —— 比高低只有一条规则：两边看

两行比（讲义演示 1 的各行、真模型那一间的各行），每一行是几个种子的分数。一行低于另一行，
要两边看都成立：它的中位数低于另一行最差的种子，**而且**另一行的中位数高于它最好的种子；高于反过来。
别的情况都是差距在种子之间的波动以内。只看一边不够：爬山 1.236（1.208–1.249）的中位数低于
完整方法最差的种子 1.238，可完整方法的中位数 1.241 就在爬山的种子之间，两行分不出高低。

"5 个种子的中位数差 0.02 也不能说明谁更好"是讲义自己的话：这个模块让课程里说"更好 / 更差""低于 /
高于""最低"的每一句都用同一条规则（observations.py、real_llm/evolve_with_llm.py、
nvidia_heuristics.py 都 import 它）。
"""
import statistics
from dataclasses import dataclass

ONE_SEED = "只有 1 个种子，看不出种子之间的波动"


# versus 的三种结果：低于、在种子之间的波动以内、高于
BELOW, WITHIN, ABOVE = "低于", "在", "高于"


@dataclass(frozen=True)
class Spread:
    """一行各种子的分数：中位数、最小、最大（1 个种子时三个是同一个数）。"""
    median: float
    lo: float
    hi: float

    @classmethod
    def of(cls, values):
        """一组分数（各种子的）的 Spread。"""
        return cls(statistics.median(values), min(values), max(values))


def versus(a, b):
    """"比得过"的规则，整个课程只有这一条（演示 1 的观察、真模型的两个脚本都用它）：a、b 是两行的
    Spread。a 低于 b，要两边看都成立：a 的中位数低于 b 最差的种子，**而且** b 的中位数高于 a 最好的
    种子；高于反过来。别的情况都是差距在种子之间的波动以内（含两端）。
    只有 1 个种子时最小 = 最大 = 中位数，就是比两个数（一样高是 WITHIN），看不出波动——
    说话的一方要说出来（ONE_SEED）。"""
    if a.median < b.lo and b.median > a.hi:
        return BELOW
    if a.median > b.hi and b.median < a.lo:
        return ABOVE
    return WITHIN
