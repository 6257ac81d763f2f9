"""
CS349E · 第 14 讲 · compare.py —— 比高低只有一条规则：两边看

两行比（讲义演示 1 的各行、真模型那一间的各行），每一行是几个种子的分数。一行低于另一行，
要两边看都成立：它的中位数低于另一行最差的种子，**而且**另一行的中位数高于它最好的种子；高于反过来。
别的情况都是差距在种子之间的波动以内。只看一边不够：爬山 1.236（1.208–1.249）的中位数低于
完整方法最差的种子 1.238，可完整方法的中位数 1.241 就在爬山的种子之间，两行分不出高低。

"5 个种子的中位数差 0.02 也不能说明谁更好"是讲义自己的话：这个模块让课程里说"更好 / 更差""低于 /
高于""最低"的每一句都用同一条规则（observations.py、real_llm/evolve_with_llm.py、
nvidia_heuristics.py 都 import 它）。最后的 verdict 是同一条规则说成印出来的数：要比的两个数
印成 3 位一样时多印几位，直到看得出。
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


# 数字印几位：通常 3 位；一句"更好 / 更差"要比的两个数印成 3 位一样时多印几位，到 MAX_DIGITS 位
# 还一样就不说（印出的数字看不出的结论不下）
DIGITS, MAX_DIGITS = 3, 6


def verdict(a, b):
    """versus 说成印出来的数：a、b 是两行各种子的分数（没印过的，真模型那一间的就是这样）。
    两边看都成立才说高低，否则就是差距在种子的波动之内。返回 (ABOVE / BELOW / None, 印几位)：
    位数是让这句话要比的每两个数印出来都不一样的最少位数；多到 MAX_DIGITS 位还看不出，就不下结论
    （None）。"""
    a, b = Spread.of(a), Spread.of(b)
    side = versus(a, b)
    # 这句话要比的两对数：a 的中位数和 b 那一头的种子，b 的中位数和 a 这一头的种子
    compared = {ABOVE: ((a.median, b.hi), (b.median, a.lo)),
                BELOW: ((a.median, b.lo), (b.median, a.hi))}
    pairs = compared.get(side)
    if pairs is None:
        return None, DIGITS
    for digits in range(DIGITS, MAX_DIGITS + 1):
        if all(f"{x:.{digits}f}" != f"{y:.{digits}f}" for x, y in pairs):
            return side, digits
    return None, DIGITS
