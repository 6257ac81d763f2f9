"""
CS349E · 第 14 讲 · boxes.py —— 区间格子的代数："一条规则管哪些形状"

程序的每条规则管的是 M、N、K 上的一个格子：三个区间 (lo, hi]。规则表按顺序第一条命中的生效，
所以"每个形状走哪条规则"只靠这几件事：点在不在格子里（inside，唯一的定义）、一批点各落进第一个
哪个格子（first_match，它的向量化）、两个格子的交（meet）、把形状空间按所有格子的边切成小格
（cells：同一小格里的点走同一条规则，逐小格查就是查了全部形状）。
evolve.py 的评估器和化简、code_manipulation.py 的解析器都用它；它只依赖 numpy。
"""
import math

import numpy as np

# 一个格子是 M、N、K 上的三个区间 (lo, hi]：lo < x <= hi。
# lo = 0 是没有下界（变量都 ≥ 1），hi = inf 是没有上界。
VARS = ("M", "N", "K")
UNBOUNDED = (0, math.inf)
# 整个形状空间
FULL = (UNBOUNDED,) * 3


def is_empty(box):
    return any(hi <= lo for lo, hi in box)


def inside(box, M, N, K):
    """(M, N, K) 落在格子里吗——"一条规则管哪些形状"只在这里定义。M、N、K 是数或 numpy 数组都行。"""
    (mlo, mhi), (nlo, nhi), (klo, khi) = box
    return (mlo < M) & (M <= mhi) & (nlo < N) & (N <= nhi) & (klo < K) & (K <= khi)


def first_match(boxes, dims, hits=None):
    """每个点落进的第一个格子的编号（都不在是 len(boxes)）。倒着覆盖 = 第一个命中的生效。dims 是 M、
    N、K 的数组，形状能广播就行（cells 给的三根轴广播成整个网格）。hits(i) 可以换成查缓存的版本
    （评估器里同一条规则命中哪些训练形状只算一次）。"""
    hits = hits or (lambda i: inside(boxes[i], dims["M"], dims["N"], dims["K"]))
    out = np.full(np.broadcast(*dims.values()).shape, len(boxes))
    for i in range(len(boxes) - 1, -1, -1):
        out[hits(i)] = i
    return out


def cells(boxes):
    """把形状空间按格子的所有边切开，每一小格取一个代表点。同一小格里的点落进的格子都一样，所以逐小
    格查就是查了全部形状。返回 M、N、K 三根轴（形如 (a,1,1)、(1,b,1)、(1,1,c)），广播起来就是整个
    网格：比列举 a·b·c 个点省得多。"""
    axes = {}
    for j, v in enumerate(VARS):
        cuts = {0} | {x for box in boxes for x in box[j] if x < math.inf}
        # (c, 下一个切点] 里最小的整数
        axes[v] = (np.array(sorted(cuts)) + 1).reshape([-1 if k == j else 1 for k in range(3)])
    return axes


def uncovered(boxes):
    """有没有形状不在任何一个格子里：返回一个这样的形状 (M, N, K) 或 None。"""
    axes = cells(boxes)
    missed = np.argwhere(first_match(boxes, axes) == len(boxes))
    return tuple(int(axes[v].ravel()[i]) for v, i in zip(VARS, missed[0])) if len(missed) else None


def meet(a, b):
    """两个格子的交集。"""
    return tuple((max(alo, blo), min(ahi, bhi)) for (alo, ahi), (blo, bhi) in zip(a, b))
