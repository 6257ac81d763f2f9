"""
CS349E · 第 14 讲 · evolve.py —— 迷你 AlphaEvolve：在 H100 解析计时模型上进化 GEMM 分块启发式

自上而下读，每一节只用它上面的名字（最后的 evolve 只往上调用）：
  1. 硬件（H100 / H200 的数据表事实）
  2. 形状与配置（Llama 的 8 个投影 × M；2,880 个分块配置）
  3. 计时模型（第 13 讲的解析模型：启动、补齐、波次、带宽、流水和延迟、L2 复用、张量核效率、寄存器）
  4. 程序（有序的区间规则 → Config；改一处、等价化简、分支检查；源码那一面在 code_manipulation.py）
  5. 专家程序与评估器（分数 = 训练形状上专家的时间比程序的时间的几何平均，先过分支检查和级联）
  6. 提出者：接口 Proposer；MockLLM（按反馈挑形状，照反馈或内核常识改程序，规则只写到证据推广得到的
     地方；也会犯错）
  7. 岛屿数据库；7½. 提示数据库（meta prompt evolution：提示和程序一起进化）
  8. evolve：问（父程序、inspiration、反馈）→ 提出 → 判（分支检查、级联、打分）→ 放进它的岛 → 迁移

方法的扩展各在旁边一个模块里，只用这里公开的名字；evolve.py 不 import 它们，单独运行
（编辑器的 Run、%run）时 evolve 的每个选项也都能用：
  ensemble.py     几个提出者一起（AlphaEvolve 的固定配比、ShinkaEvolve 的 UCB1 bandit；
                  Chooser 的子类）
  memo.py         评估器记住查过的程序和区间（MemoEvaluator：讲义用它，快多少写在那里）
meta prompt（evolve 的选项 meta_prompt）是循环的一部分，在这里：MockLLM 照提示改（hints），
提示数据库在第 7½ 节。
学生的输入在每个入口的门口查一次（evolve、Options、Evaluator、MockLLM、Shape、Config），
通用的说法在 checks.py；查过之后里面只信它。
real_llm/ 只用这里公开的名字：提出者的词汇 Proposer、TrainingView（提出者眼里的训练形状）、
movable_ends 和 moved_threshold（挪一个阈值）在第 6 节，real_llm/random_edits.py 的 RandomEdits
也用它们列出"挪一个阈值"的每一种可能，两边挪法只有一个出处。
"""
import copy
import inspect
import math
import random
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from itertools import product
from numbers import Real
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from checks import (BOOLS, ProposerSlip, check_choice, check_keywords, check_proposer, is_int,
                    keyword_defaults, keywords, keywords_checked, non_empty_list_of, positive_int,
                    store_positive_ints)
from boxes import UNBOUNDED, VARS, cells, first_match, inside, is_empty, meet
# ProgramSyntaxError 是再导出：学生 from evolve import * 就能接住程序的两种异常
from code_manipulation import (ProgramError, ProgramSyntaxError,  # noqa: F401
                               config_source, parse_source, program_source)
from variants import ProposerDescription, Setting, Variant

# ==== 1. 硬件 =====================================================================================

@dataclass(frozen=True)
class Hardware:
    """一块 Hopper GPU 的几个数。H100 和 H200 的 SM、时钟、张量核相同，只有显存和 L2 不同。"""
    name: str
    # SM 个数
    sms: int
    # 稠密 bf16 峰值，FLOP/s
    peak_flops: float
    # 显存带宽，B/s（数据表值）
    hbm_bw: float
    # L2 容量，B
    l2_bytes: int
    # 每个块可申请的共享内存上限（opt-in），B
    smem_per_block: int
    # 每个 SM 的共享内存，B（决定一个 SM 上能同时驻留几个块）
    smem_per_sm: int
    # 每个 SM 的 32 位寄存器数
    regs_per_sm: int
    # 每个线程最多的寄存器数
    regs_per_thread: int
    # 每个 SM 最多驻留的 warp 数
    max_warps_per_sm: int
    # 一次内核启动到结束的最小开销，s
    launch_s: float


# 来源：NVIDIA H100 Tensor Core GPU 数据表（SXM5：132 SM，989.4 TFLOP/s 稠密 bf16，3.35 TB/s HBM3，
# 50 MB L2）；CUDA C Programming Guide 表 "Technical Specifications per Compute Capability"
# （9.0：每块 227 KB = 232,448 B opt-in 共享内存，每 SM 228 KB，每 SM 65,536 个寄存器，
# 每线程 255 个，每 SM 64 个 warp）；
# 启动开销：lecture14/data/device.txt 里最小内核从启动到结束 4.5 µs。
H100 = Hardware("H100 SXM", sms=132, peak_flops=989.4e12, hbm_bw=3.35e12, l2_bytes=50 * 2**20,
                smem_per_block=232_448, smem_per_sm=233_472, regs_per_sm=65_536,
                regs_per_thread=255, max_warps_per_sm=64, launch_s=4.5e-6)
# 来源：NVIDIA H200 数据表（4.8 TB/s HBM3e，141 GB）；
# L2 = 60 MiB 来自 torch 读出的设备属性（device.txt）。
H200 = replace(H100, name="H200 SXM", hbm_bw=4.8e12, l2_bytes=60 * 2**20)


# ==== 2. 形状与配置 ===============================================================================

@dataclass(frozen=True)
class Shape:
    """一次矩阵乘 C[M,N] = A[M,K]·B[K,N]；name 是它来自哪一层。"""
    name: str
    M: int
    N: int
    K: int

    def __post_init__(self):
        # 手写的形状：≥ 1 的整数，numpy 整数存成 int（检查在 checks.py）
        if not all(type(v) is int and v >= 1 for v in (self.M, self.N, self.K)):
            store_positive_ints(self, ("M", "N", "K"), f"Shape {self.name!r} 的 ")

    def label(self):
        return f"{self.name} M={self.M}"


# Llama 的 8 个投影，名字 → (N, K)。70B/8 是 70B 在 8 张卡上张量并行切开后每张卡上的一片。
LAYERS = {
    "8B qkv": (6144, 4096),
    "8B o": (4096, 4096),
    "8B gate_up": (28672, 4096),
    "8B down": (4096, 14336),
    "70B/8 qkv": (1280, 8192),
    "70B/8 o": (8192, 1024),
    "70B/8 gate_up": (7168, 8192),
    "70B/8 down": (8192, 3584),
}
# M = 一批里的 token 数：1–128 是 decode，往上是 prefill。
M_VALUES = (1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
# decode 的 M 上限（M ≤ DECODE_M 是 decode）：MockLLM 的 decode_rule、fidelity.py 的 decode 那一行、
# 幻灯片上 decode / prefill 的分界都用这一个
DECODE_M = 128


def all_shapes():
    """讲义的 96 个形状：8 层 × 12 个 M。"""
    return [Shape(name, M, N, K) for name, (N, K) in LAYERS.items() for M in M_VALUES]


def split_shapes(shapes):
    """确定的对半切分（AlphaEvolve 的内核形状也是一半训练、一半测试）：每层按 M 排序后交替分配，
    相邻两层错开一位。于是每层、每段 M 都有测试形状，同一个 M 在一半的层里是训练、另一半里是测试。
    """
    by_layer = {}
    for s in shapes:
        by_layer.setdefault(s.name, []).append(s)
    train, test = [], []
    for i, name in enumerate(by_layer):
        for j, s in enumerate(sorted(by_layer[name], key=lambda s: s.M)):
            half = train if (i + j) % 2 == 0 else test
            half.append(s)
    return train, test


def _shape_list(shapes):
    return non_empty_list_of(shapes, Shape, "形状", "all_shapes() 或 split_shapes(...) 的结果")


@dataclass(frozen=True)
class Config:
    """一个分块内核的配置：块 BM×BN，K 方向每步 BK，warp 数，流水级数，K 切几份。"""
    BM: int
    BN: int
    BK: int
    warps: int
    stages: int
    split_k: int

    def __post_init__(self):
        # 同 Shape。引擎每秒造几万个 Config：合法的只做这一次判断
        if not all(type(v) is int and v >= 1 for v in vars(self).values()):
            fields = ("BM", "BN", "BK", "warps", "stages", "split_k")
            store_positive_ints(self, fields, "Config 的 ")


# 搜索空间：5 × 4 × 3 × 3 × 4 × 4 = 2,880 个配置。
CONFIG_CHOICES = {
    "BM": (16, 32, 64, 128, 256),
    "BN": (32, 64, 128, 256),
    "BK": (32, 64, 128),
    "warps": (2, 4, 8),
    "stages": (2, 3, 4, 5),
    "split_k": (1, 2, 4, 8),
}
CONFIGS = [Config(*values) for values in product(*CONFIG_CHOICES.values())]
# 配置 → 它在 CONFIGS 里的编号（查表用；不在搜索空间里的配置没有编号）
CONFIG_INDEX = {c: i for i, c in enumerate(CONFIGS)}
# 每个字段一列，形如 (1, 配置数)：计时模型、启动检查拿它一次算全部配置（numpy 向量化）
CONFIG_COLUMNS = {f: np.array([[getattr(c, f) for c in CONFIGS]], dtype=np.float64)
                  for f in CONFIG_CHOICES}


def outside_search_space(cfg):
    """cfg 哪些字段不在搜索空间里（CONFIG_CHOICES），每个一句；空列表 = cfg 是 CONFIGS 里的一个。
    "不在搜索空间里"只在这里定义：static_valid、invalid_reasons 和模型写的配置
    （prompt.py、edits.py）都按它判断。CONFIG_INDEX 里正好是它说"在"的那些配置，
    所以查表的地方（TimeTable、评估器）查不到编号就是不在搜索空间里。"""
    return [f"{f}={getattr(cfg, f)!r}（可选 {', '.join(map(str, values))}）"
            for f, values in CONFIG_CHOICES.items() if getattr(cfg, f) not in values]


# ==== 3. 计时模型 =================================================================================
# 一个 Triton 风格的分块 GEMM：每个块算 C 的一块 BM×BN，
# 沿 K 每步取 A 的 BM×BK 和 B 的 BK×BN 进共享内存，stages 级流水让取数和计算重叠；
# split_k > 1 时 K 切成几份，各自用 fp32 原子加累加到清零过的 C 上。
# 时间 = 启动 + 主循环（算力、共享内存、L2、单 SM 取数、延迟、显存中最慢的那几个）
#      + split-K 的清零和原子加。
# 效率系数都有物理来源，在 tests/test_fidelity.py 里和真实 H200 的测量对照（见 fidelity.md）。

# fp32 累加器 / split-K 的部分和
ACC_BYTES = 4
# bf16
ELEM_BYTES = 2
# 一条取数指令搬 16 B（8 个 bf16）
VEC_BYTES = 16
# 一条 mma.sync（m16n8k16）算的输出元素数：每个 warp 至少要分到一个
MMA_TILE = 16 * 8
# 每个 SM 4 个子分区，各有一个张量核；一个 warp 只在一个子分区上跑
SUBCORES = 4
# 朴素 Triton 内核的指针张量：每条 16 B 取数指令在循环里留一个 64 位地址（2 个寄存器）
ADDR_REGS = 2
# 累加器和地址之外每个线程的寄存器：循环变量、掩码、A/B 片段。超过 255 个就大量溢出到显存：
# H200 上 (256, 32, 128) 配 2 个 warp（约 312 个）比最快的慢 10 倍，模型当它不能启动
REG_OVERHEAD = 40
# 分组启动顺序：8 行块一组，一波块共享 A 的行、B 的列，在 L2 里复用
GROUP_M = 8

# —— 效率系数：按物理定下结构，数值在 H200 的 Triton 测量上校准，取整 ——
# （triton.csv 和 triton_wide.csv，见 fidelity.md）
# BM ≥ 64 且有整个 warpgroup（4 个 warp）时用 Hopper 的 wgmma：满载时钟 1.755 / 峰值时钟 1.83 GHz
WGMMA_EFF = 0.95
# 否则退回 Ampere 式的 mma.sync：H100 上不到 wgmma 的一半（FlashAttention-2 对 3 的差距）
MMA_SYNC_EFF = 0.45
# 每个子分区上的 warp 轮流发射、互相藏延迟：效率 × w/(w+0.25)，w = 每个子分区的 warp 数。
# 0.25 来自 BM ≥ 128 的 4 对 8 个 warp：同样的块，8 个 warp 实测快 4–14%
HIDE_WARPS = 0.25
# 张量核跑满时的时钟（H100 SXM 的 boost 1.98 GHz 在满载时下不来）
CLOCK_HZ = 1.755e9
# 每个 SM 的共享内存带宽：128 B/时钟
SMEM_BW_PER_SM = 128 * CLOCK_HZ
# 每个 SM 从 L2 取数的上限：80 B/时钟（拟合值，取整到 8 的倍数）
L2_BW_PER_SM = 80 * CLOCK_HZ
# 整个 L2 的带宽：小块反复读 A、B 时的瓶颈（H200 上 BM=16 的大形状实测约 11–12 TB/s）
L2_BW = 12.0e12
# 分块取数能用到的显存带宽比例（device-to-device 拷贝实测 0.885；Triton 最快的 decode 实测约 0.80）
DRAM_EFF = 0.80
# 一级流水从发出取数到可以开始搬数据：显存延迟约 0.6 µs + 同步和地址计算
LOAD_LATENCY = 1.0e-6
# 一级缓冲算完多少步才腾出来：mma.sync 是同步的，算完就空；
# wgmma 是异步的，Triton 让一条 wgmma 在路上，缓冲要再等一步——所以 2 级流水在 Hopper 上几乎不重叠
HOLD = {"mma.sync": 1, "wgmma": 2}
# split-K 的 fp32 原子加在 L2 上的吞吐（读-改-写），B/s
ATOMIC_BW = 2.0e12
# 几个瓶颈不会完美重叠：主循环 = 各项时间的 p-范数（p → ∞ 是取最大，p = 1 是全部相加）
OVERLAP_P = 5.0


def config_fields(cfg):
    """一个配置的字段字典：下面的公式对标量和数组列（CONFIG_COLUMNS）都适用。"""
    return {f: getattr(cfg, f) for f in CONFIG_CHOICES}


@dataclass(frozen=True)
class Registers:
    """每线程的 32 位寄存器：fp32 累加器、取数地址、合计（再加上 REG_OVERHEAD）。"""
    accumulators: object
    addresses: object
    total: object


def registers(c):
    """每线程的寄存器（Registers）。取数地址：(BM + BN) × BK 个元素按 16 B 一条指令分给所有线程，
    每条一个 64 位指针。c 是字段字典（config_fields）；只用 + − × ÷，所以对标量、numpy 的列、
    会自己写出式子的符号（prompt.py）都适用。"""
    threads = 32 * c["warps"]
    accumulators = c["BM"] * c["BN"] / threads
    addresses = ADDR_REGS * (c["BM"] + c["BN"]) * c["BK"] * ELEM_BYTES / (VEC_BYTES * threads)
    return Registers(accumulators, addresses, accumulators + addresses + REG_OVERHEAD)


def shared_memory(c):
    """共享内存的字节数：stages 级流水 × (A 块 + B 块) × bf16。c 同 registers。"""
    return c["stages"] * (c["BM"] + c["BN"]) * c["BK"] * ELEM_BYTES


@dataclass(frozen=True)
class LaunchConditions:
    """三条启动条件，各是一个比较的结果（标量的 bool、numpy 的布尔列，或符号写出的式子）。"""
    shared_memory: object
    registers: object
    mma_tile: object

    def hold(self):
        """三条都成立吗（标量的 bool，或 numpy 的布尔列）。"""
        return self.shared_memory & self.registers & self.mma_tile


def launch_conditions(c, hw):
    """共享内存、寄存器、每个 warp 至少一个 16×8 的 MMA 块。c 同 registers；三条都成立才能启动。
    这是 AlphaEvolve 里评估器的硬约束、提示也要向模型讲明的那一部分：两边只有这一个出处
    （评估器拿数算，real_llm/prompt.py 拿符号把它写成式子）。"""
    return LaunchConditions(shared_memory=shared_memory(c) <= hw.smem_per_block,
                            registers=registers(c).total <= hw.regs_per_thread,
                            mma_tile=c["BM"] * c["BN"] >= MMA_TILE * c["warps"])


def static_valid(cfg, hw=H100):
    """不用跑就知道能不能启动：在搜索空间里，而且三条启动条件（launch_conditions）都成立。
    为什么不能，见 invalid_reasons。"""
    if outside_search_space(cfg):
        return False
    return bool(launch_conditions(config_fields(cfg), hw).hold())


def invalid_reasons(cfg, hw=H100):
    """static_valid 的解释：cfg 为什么不能启动，每条一句（空列表 = 能启动）。"""
    outside = outside_search_space(cfg)
    if outside:
        return ["不在搜索空间 CONFIGS 里：" + "；".join(outside)]
    c = config_fields(cfg)
    ok = launch_conditions(c, hw)
    regs = registers(c)
    reasons = []
    if not ok.shared_memory:
        reasons.append(f"共享内存 {shared_memory(c):,} B 超过每块上限 {hw.smem_per_block:,} B")
    if not ok.registers:
        reasons.append(f"寄存器：每线程约 {regs.total:.0f} 个（fp32 累加器 {regs.accumulators:.0f}"
                       f" + 取数地址 {regs.addresses:.0f} + 其他 {REG_OVERHEAD}），"
                       f"超过上限 {hw.regs_per_thread}")
    if not ok.mma_tile:
        reasons.append(f"warp 的块：{cfg.BM}×{cfg.BN} 分给 {cfg.warps} 个 warp，"
                       "每个 warp 不到一个 16×8 的 MMA 块")
    return reasons


def roofline(shape, hw=H100):
    """下界：算力和显存带宽都用满时的时间，s。"""
    M, N, K = shape.M, shape.N, shape.K
    compute = 2 * M * N * K / hw.peak_flops
    memory = ELEM_BYTES * (M * K + K * N + M * N) / hw.hbm_bw
    return max(compute, memory)


def _cdiv(a, b):
    """a / b 向上取整（对标量和 numpy 的数组都适用）。"""
    return np.ceil(a / b)


@dataclass(frozen=True)
class _Launch:
    """一次启动怎么铺开（下面的数都是 形状 × 配置 的数组）。"""
    # C 在 M、N 方向各有几块，一共几块
    tiles_m: np.ndarray
    tiles_n: np.ndarray
    tiles: np.ndarray
    # 启动的块数（split-K 时每块再切几份）
    blocks: np.ndarray
    # 每个块沿 K 走几步（K 除不尽时最后一步补齐）
    k_iters: np.ndarray
    # 一个 SM 上同时驻留几个块，整块 GPU 一次能放几个
    per_sm: np.ndarray
    slots: np.ndarray
    # 几波，最忙的 SM 上几个块（波次量化：最忙的 SM 决定时间）
    waves: np.ndarray
    busiest: np.ndarray


def _launch(c, M, N, K, hw):
    """块数、步数、驻留和波次。寄存器按 8 个一组分配。"""
    BM, BN, BK, warps, sk = c["BM"], c["BN"], c["BK"], c["warps"], c["split_k"]
    regs = np.ceil(registers(c).total / 8) * 8
    by_smem = np.floor(hw.smem_per_sm / shared_memory(c))
    by_regs = np.floor(hw.regs_per_sm / (regs * 32 * warps))
    by_warps = np.floor(hw.max_warps_per_sm / warps)
    per_sm = np.maximum(np.minimum.reduce([by_smem, by_regs, by_warps]), 1)
    slots = hw.sms * per_sm
    tiles_m = _cdiv(M, BM)
    tiles_n = _cdiv(N, BN)
    tiles = tiles_m * tiles_n
    blocks = tiles * sk
    k_iters = _cdiv(_cdiv(K, sk), BK)
    return _Launch(tiles_m=tiles_m, tiles_n=tiles_n, tiles=tiles, blocks=blocks, k_iters=k_iters,
                   per_sm=per_sm, slots=slots, waves=_cdiv(blocks, slots),
                   busiest=_cdiv(blocks, hw.sms))


def _compute_time(c, launch, peak_mma):
    """算力：补齐的块照样要算（M < BM 时浪费）；驻留的 warp 不到 4 个时有的张量核闲着；
    每个子分区上的 warp 越多，越能互相藏住发射延迟。"""
    resident_warps = np.minimum(launch.per_sm, launch.busiest) * c["warps"]
    warps_per_subcore = np.maximum(resident_warps / SUBCORES, 1)
    busy_subcores = np.minimum(resident_warps, SUBCORES) / SUBCORES
    mma_eff = busy_subcores * warps_per_subcore / (warps_per_subcore + HIDE_WARPS)
    flops_step = 2 * c["BM"] * c["BN"] * c["BK"]
    return launch.busiest * flops_step * launch.k_iters / (peak_mma * mma_eff)


def _smem_time(c, launch, wgmma):
    """共享内存：每步先写进来 (BM + BN)×BK，再被 MMA 读。
    一条 wgmma 算 64 行 × 整个 BN，所以 B 每 64 行读一遍、A 每个 warpgroup 列读一遍；
    mma.sync 的 warp 把片段读进寄存器复用，A 每个 warp 列、B 每个 warp 行读一遍。
    所以同样的面积，128×256 比 256×128、128×128 省共享内存带宽。"""
    BM, BN, warps = c["BM"], c["BN"], c["warps"]
    units = np.where(wgmma, warps / 4, warps)
    units_m = np.minimum(units, np.maximum(BM // np.where(wgmma, 64, 16), 1))
    units_n = units / units_m
    b_reads = np.where(wgmma, BM / 64, units_m)
    smem_block = (BM * units_n + BN * b_reads + BM + BN) * c["BK"] * ELEM_BYTES * launch.k_iters
    return launch.busiest * smem_block / SMEM_BW_PER_SM


def _latency_time(c, launch, wgmma, peak_mma, bytes_step):
    """流水：一个块的 stages 级缓冲轮流用。一级从发出取数到能算要 延迟 + 搬运，
    算完（wgmma 还要多等一步）才腾出来取下一批，所以每 stages 步最多走完一轮"取数 + 占用"。
    级数少、每步短（BK = 32 的循环多一倍）都会露出延迟；
    第一批数据到之前什么都算不了（每一波块一次）。"""
    fetch = LOAD_LATENCY + bytes_step / L2_BW_PER_SM
    hold = np.where(wgmma, HOLD["wgmma"], HOLD["mma.sync"])
    flops_step = 2 * c["BM"] * c["BN"] * c["BK"]
    # 这个块独占 SM 时一步的 MMA
    t_alone = flops_step / (peak_mma * np.minimum(c["warps"], SUBCORES) / SUBCORES)
    return launch.waves * (launch.k_iters * (fetch + hold * t_alone) / c["stages"] + fetch)


def _dram_time(c, launch, M, N, K, hw):
    """显存：A、B 至少读一遍；放不进 L2 时，每一波按分组顺序读自己那片 A 行和 B 列
    （最后一波不满，按比例算）。"""
    BM, BN = c["BM"], c["BN"]
    unique_in = ELEM_BYTES * (M * K + K * N)
    wave_blocks = np.minimum(launch.tiles, launch.slots)
    wave_rows = np.minimum(launch.tiles_m, np.maximum(GROUP_M, _cdiv(wave_blocks, launch.tiles_n)))
    wave_cols = np.minimum(launch.tiles_n, _cdiv(wave_blocks, wave_rows))
    wave_bytes = ELEM_BYTES * K * (np.minimum(wave_rows * BM, M) + wave_cols * BN)
    rereads = np.where(unique_in > hw.l2_bytes, launch.tiles / wave_blocks * wave_bytes, 0)
    out_bytes = np.where(c["split_k"] > 1, ACC_BYTES, ELEM_BYTES) * M * N
    dram = np.maximum(unique_in, rereads) + out_bytes
    return dram / (hw.hbm_bw * DRAM_EFF)


def _split_k_time(c, launch, M, N, hw):
    """split-K：先启动一个清零 C 的内核，各份的 fp32 部分和再原子加上去。"""
    zeroing = hw.launch_s + ACC_BYTES * M * N / (hw.hbm_bw * DRAM_EFF)
    atomics = 2 * ACC_BYTES * launch.blocks * np.minimum(c["BM"], M) * c["BN"] / ATOMIC_BW
    return np.where(c["split_k"] > 1, zeroing + atomics, 0)


def _kernel_times(c, M, N, K, hw):
    """所有配置 × 所有形状的时间（s）。c 的每列形如 (1, C)，M、N、K 形如 (S, 1)；
    不能启动的是 inf。"""
    launch = _launch(c, M, N, K, hw)
    wgmma = (c["BM"] >= 64) & (c["warps"] >= 4)
    # 一个 SM 的 MMA 峰值：小块用不上 wgmma
    peak_mma = np.where(wgmma, WGMMA_EFF, MMA_SYNC_EFF) * hw.peak_flops / hw.sms
    # 取数：A 被遮掉的行（M < BM）不读；每个块都要从 L2 读自己的 A 行、B 列。
    bytes_step = (np.minimum(c["BM"], M) + c["BN"]) * c["BK"] * ELEM_BYTES
    t_l2 = launch.blocks * bytes_step * launch.k_iters / L2_BW
    # 块太少时，几个 SM 拉不动整个显存
    t_sm = launch.busiest * bytes_step * launch.k_iters / L2_BW_PER_SM
    terms = [_compute_time(c, launch, peak_mma), _smem_time(c, launch, wgmma), t_l2, t_sm,
             _latency_time(c, launch, wgmma, peak_mma, bytes_step),
             _dram_time(c, launch, M, N, K, hw)]
    main_loop = sum(t ** OVERLAP_P for t in terms) ** (1 / OVERLAP_P)
    t = hw.launch_s + main_loop + _split_k_time(c, launch, M, N, hw)
    return np.where(launch_conditions(c, hw).hold(), t, np.inf)


# 计时模型一次算几个形状：中间结果是 形状数 × 2,880 的数组，同时活着的有几十个。
# 一次 16 个形状，它们加起来不到 20 MB；一次算 120 个新形状就要 80 MB
SHAPES_AT_ONCE = 16


class TimeTable:
    """(配置, 形状) → 时间。每个形状第一次被问到时，
    一次算出全部 2,880 个配置（numpy 向量化），之后查表。"""

    def __init__(self, hw=H100):
        if not isinstance(hw, Hardware):
            raise TypeError(f"hw 应是 Hardware（例如 H100、H200），收到 {hw!r}")
        self.hw = hw
        # Shape → 长 2,880 的时间数组（只读）
        self._rows = {}

    def times(self, shape):
        """这个形状上所有 CONFIGS 的时间（s），顺序同 CONFIGS。"""
        row = self._rows.get(shape)
        return self.matrix([shape])[0] if row is None else row

    def matrix(self, shapes):
        """形状 × 配置的时间矩阵；没算过的形状向量化补上，一次 SHAPES_AT_ONCE 个。"""
        todo = list(dict.fromkeys(s for s in shapes if s not in self._rows))
        for start in range(0, len(todo), SHAPES_AT_ONCE):
            chunk = todo[start:start + SHAPES_AT_ONCE]
            M, N, K = (np.array([[getattr(s, v)] for s in chunk], dtype=np.float64) for v in VARS)
            for s, row in zip(chunk, _kernel_times(CONFIG_COLUMNS, M, N, K, self.hw)):
                row.setflags(write=False)
                self._rows[s] = row
        return np.stack([self._rows[s] for s in shapes])

    def time(self, cfg, shape):
        """一个配置在一个形状上的时间（s）；不能启动的配置（包括搜索空间以外的）是 math.inf。"""
        i = CONFIG_INDEX.get(cfg)
        return math.inf if i is None else float(self.times(shape)[i])

    def oracle(self, shape):
        """逐形状最优：(最快的配置, 它的时间)。"""
        row = self.times(shape)
        i = int(np.argmin(row))
        return CONFIGS[i], float(row[i])


# ==== 4. 程序：形状 → 配置的启发式 ================================================================
# 一个程序是有序的规则表：每条规则是 M、N、K 上的区间 (lo, hi]（lo = 0 没有下界，hi = inf 没有上界）
# → 一个 Config，最后是默认配置。全是阈值比较，所以形状空间被阈值切成有限个格子，每格里选择不变——
# 化简和分支检查都靠这一点做到"对所有形状成立"。区间的代数（inside 是"规则管哪些形状"的唯一定义，
# first_match 是它的向量化）和源码的那一面在 code_manipulation.py。

@dataclass(frozen=True)
class Rule:
    """一条规则：形状落在区间里就用这个配置。"""
    # ((lo, hi) for M, N, K)
    bounds: tuple
    cfg: Config


@dataclass(frozen=True)
class Program:
    """一个程序：规则按顺序匹配，第一条命中的生效；都不命中就是默认配置。"""
    rules: tuple
    default: Config

    def n_rules(self):
        """分支数：规则数 + 默认（返回语句的个数）。"""
        return len(self.rules) + 1

    def configs(self):
        """每个分支返回的配置，按顺序（最后一个是默认）。"""
        return [r.cfg for r in self.rules] + [self.default]

    def __repr__(self):
        return f"<Program：{self.n_rules()} 个分支；print(render(p)) 看源码>"


def parse_program(src):
    """源码 → Program，render 的逆：选出的配置和 Python 执行这段源码时完全一样，对每个形状都成立。
    认的子集见 code_manipulation.py；不在子集里的是 ProgramError（第几行、哪里不允许）。"""
    branches = parse_source(src, tuple(CONFIG_CHOICES))
    rules = [Rule(b.box, Config(**b.fields)) for b in branches]
    return Program(tuple(rules[:-1]), rules[-1].cfg)


def _as_program(p):
    """Program 原样返回；源码（字符串）先 parse_program；另一份 evolve.py 的 Program 换成这一份的。
    别的东西说清楚要的是什么。"""
    if isinstance(p, Program):
        return p
    if isinstance(p, str):
        return parse_program(p)
    if _from_another_copy(p):
        return _rebuilt(p)
    raise TypeError("应是 Program 或它的源码（字符串，例如手写的 def choose_config），"
                    f"收到 {type(p).__name__}")


# evolve.py 当文件运行（%run、runpy）之前已经 import 过 evolve 时，有两份 evolve：扩展
# （ensemble.py）和 real_llm/ 用 import 的那一份。两份的 Program 是两个类，== 和查表都认不出
# 对方的，所以从门外来的程序按它有什么字段认，换成这一份的（同样的规则、同样的配置）。
# （没 import 过时只有一份，见文件末尾）

def _from_another_copy(p):
    """p 是另一份 evolve.py 的 Program 吗：字段和 Program 的一样（rules、default）。"""
    own = [f.name for f in fields(Program)]
    return is_dataclass(p) and not isinstance(p, type) and [f.name for f in fields(p)] == own


def _rebuilt(p):
    """另一份 evolve.py 的 Program → 这一份的：每条规则的区间照抄，配置按字段重建。"""
    def config(cfg):
        return Config(**{name: getattr(cfg, name) for name in CONFIG_CHOICES})
    rules = tuple(Rule(r.bounds, config(r.cfg)) for r in p.rules)
    return Program(rules, config(p.default))


def choose(p, shape):
    """程序 p（或它的源码）给形状 shape 选的配置：第一条命中的规则，都不命中就是默认。"""
    p = _as_program(p)
    for rule in p.rules:
        if inside(rule.bounds, shape.M, shape.N, shape.K):
            return rule.cfg
    return p.default


# —— 改一处：提出者（MockLLM、random_edits 的 RandomEdits、edits.py 的改动）都用这几个 ——

def with_rule(p, i, rule):
    """第 i 条规则换成 rule。"""
    return Program(p.rules[:i] + (rule,) + p.rules[i + 1:], p.default)


def with_new_rules(p, i, rules):
    """在第 i 条规则前插入几条规则（i = len(p.rules) 是插在默认之前）。"""
    return Program(p.rules[:i] + tuple(rules) + p.rules[i:], p.default)


def without_rule(p, i):
    """删掉第 i 条规则。"""
    return Program(p.rules[:i] + p.rules[i + 1:], p.default)


def with_config(p, i, cfg):
    """第 i 个分支（i = len(p.rules) 是最后的默认）返回 cfg。"""
    if i == len(p.rules):
        return Program(p.rules, cfg)
    return with_rule(p, i, Rule(p.rules[i].bounds, cfg))


def with_field(p, i, field, value):
    """第 i 个分支的配置只换一个字段：field 换成 value。"""
    return with_config(p, i, replace(p.configs()[i], **{field: value}))


def with_bound(p, i, j, end, x):
    """第 i 条规则在第 j 个变量上的下界（end = 0）或上界（end = 1）换成 x。"""
    rule = p.rules[i]
    lo, hi = rule.bounds[j]
    moved = (x, hi) if end == 0 else (lo, x)
    bounds = rule.bounds[:j] + (moved,) + rule.bounds[j + 1:]
    return with_rule(p, i, Rule(bounds, rule.cfg))


def render(p):
    """程序（或源码）的 Python 源码：一个 if/return 链。给人读、给静态检查用，引擎从不执行它。"""
    return program_source(_as_program(p))


def _cells_after_deleting(i, boxes, kept, at, ticks):
    """删掉第 i 条规则的话，哪些小格受影响、改走哪条规则：返回它的区间在网格里的那一整块、其中原来
    走它的小格、这些小格改走的规则（后面第一条还留着、又命中的；都不命中就是默认）。"""
    block = tuple(slice(np.searchsorted(t, lo, "right"), np.searchsorted(t, hi, "right"))
                  for t, (lo, hi) in zip(ticks, boxes[i]))
    mine = np.nonzero(at[block] == i)
    M, N, K = (t[b.start + m] for t, b, m in zip(ticks, block, mine))
    moved = np.full(len(M), len(boxes))
    for j in range(len(boxes) - 1, i, -1):
        if kept[j] and not is_empty(meet(boxes[i], boxes[j])):
            moved[inside(boxes[j], M, N, K)] = j
    return block, mine, moved


def simplify(p):
    """等价化简：对**所有**形状选择都不变，去掉空的、被遮住的、多余的规则（包括和默认相同的）。
    从后往前试着删：删掉第 i 条只影响它区间里原来走它的小格（改走后面第一条命中的规则），
    它们的配置都不变就删。"""
    p = _as_program(p)
    rules = [r for r in p.rules if not is_empty(r.bounds)]
    cfgs = [r.cfg for r in rules] + [p.default]
    boxes = [r.bounds for r in rules]
    axes = cells(boxes)
    ticks = [axes[v].ravel() for v in VARS]
    # 每一小格现在走哪条规则
    at = first_match(boxes, axes)
    kept = [True] * len(rules)
    for i in range(len(rules) - 1, -1, -1):
        block, mine, moved = _cells_after_deleting(i, boxes, kept, at, ticks)
        if all(cfgs[j] == cfgs[i] for j in np.unique(moved)):
            at[block][mine] = moved
            kept[i] = False
    return Program(tuple(r for r, keep in zip(rules, kept) if keep), p.default)


# —— 分支检查：程序的每个分支（训练形状走不到的也算）返回的配置都能启动（static_valid）——
# 训练形状只走到一部分分支。走不到的分支返回不能启动的配置，分数看不出来，直到某个没见过的形状
# 走进它（演示 3）；而规则全是阈值比较，每个分支的配置不用跑就查得完。所以评估器在跑任何内核之前
# 查每个分支，有一个不行就拒绝（Evaluator 的 check_all_branches）。

def all_branches_valid(p, hw=H100):
    """分支检查：程序（或它的源码）的每个分支，走不到的也算，返回的配置都 static_valid 吗。
    为什么不行、在哪一行，见 static_check_program。"""
    return all(static_valid(cfg, hw) for cfg in _as_program(p).configs())


def static_check_program(src, hw=H100):
    """分支检查，照源码做、说出原因：按 Python 真正会执行的程序检查**每个**分支返回的 Config
    能否启动。返回 (ok, problems)，ok 和 all_branches_valid 相同，每个问题一句：第几行、哪个配置、
    为什么（invalid_reasons）。从不抛异常：子集以外的源码是 (False, [原因])。"""
    if not isinstance(hw, Hardware):
        return False, [f"hw 应是 Hardware（例如 H100），收到 {type(hw).__name__}"]
    try:
        branches = parse_source(src, tuple(CONFIG_CHOICES))
    except (ProgramError, TypeError) as e:
        return False, [str(e)]
    # 同一行的 return 可能展开成几个分支（or、嵌套的 if）：每行只报一次
    returns = dict.fromkeys((b.line, Config(**b.fields)) for b in branches)
    problems = [f"第 {line} 行：{config_source(cfg)}：{why}"
                for line, cfg in sorted(returns, key=lambda x: x[0])
                for why in invalid_reasons(cfg, hw)]
    return not problems, problems



# ==== 5. 专家程序与评估器 =========================================================================

def _m_bucket(lo, hi, cfg):
    return Rule(((lo, hi), UNBOUNDED, UNBOUNDED), cfg)


# 初始程序：像手调库里的一张表，按 M 分 4 档，配置都说得过去
# （decode 用 BM=16，prefill 用 128×256 + 8 个 warp）。
# 好，但没看 N、K，也不用 split-K：不同层、不同 M 的最优配置差得不少，逐形状最优比它快约 1.3 倍。
EXPERT = Program((
    _m_bucket(0, 16, Config(16, 64, 64, 4, 3, 1)),
    _m_bucket(16, 128, Config(64, 128, 64, 4, 3, 1)),
    _m_bucket(128, 1024, Config(128, 128, 64, 8, 3, 1)),
), Config(128, 128, 64, 8, 3, 1))


def geomean(x):
    """几何平均：exp(对数的平均)。有一个是 0（那个形状上不能启动）就是 0。"""
    x = np.asarray(x, dtype=np.float64)
    if not x.all():
        return 0.0
    return math.exp(float(np.log(x).sum()) / len(x))


def speedups(expert_times, times):
    """每个形状上相对专家程序的加速比：专家的时间 / 程序的时间。程序在那里不能启动（时间 inf）
    时是 0。times 可以是每个配置一行的矩阵（评估器的时间表）。"""
    return np.asarray(expert_times, dtype=np.float64) / np.asarray(times, dtype=np.float64)


def speedup_score(expert_times, times):
    """分数（只在这里定义）：相对专家程序的几何平均加速比，geomean(speedups(...))。
    有一个形状上不能启动，分数就是 0。"""
    return geomean(speedups(expert_times, times))


def geomean_speedup(p, shapes, table):
    """程序 p（或它的源码）在 shapes 上的分数（speedup_score）。"""
    p = _as_program(p)
    shapes = _shape_list(shapes)
    expert_times = [table.time(choose(EXPERT, s), s) for s in shapes]
    times = [table.time(choose(p, s), s) for s in shapes]
    return speedup_score(expert_times, times)


def oracle_speedup(shapes, table):
    """上限：每个形状都用它自己最快的配置时的分数。"""
    shapes = _shape_list(shapes)
    expert_times = [table.time(choose(EXPERT, s), s) for s in shapes]
    best_times = [table.oracle(s)[1] for s in shapes]
    return speedup_score(expert_times, best_times)


# 级联第一关用几个训练形状（固定的一小组，按 M 排序后等距取）
CASCADE_SHAPES = 8
# 第一关：子程序在这几个形状上的几何平均不低于父程序的 90%，才进第二关（全部训练形状）。
# 8 个形状上掉 10%，要其余 40 个形状平均涨 2% 才补得回来，一次修改很少做到
CASCADE_TOLERANCE = 0.90

# 一个提案的结局：评估器拒掉的四种（Verdict.rejection），或打了分之后进没进数据库
OUTCOMES = {
    "failed": "没给出程序",
    "bad_branch": "分支检查拒绝",
    "cascade": "级联第一关被拒",
    "crash": "训练形状上启动失败",
    "added": "进了数据库",
    "not_added": "没进数据库",
    # 开着 meta_prompt 时这一份预算用来写提示（PromptDatabase.write），不提程序
    "prompt": "写了一个提示",
}


@dataclass(frozen=True)
class Verdict:
    """评估器对一个子程序的结论：拒掉了（rejection 是 OUTCOMES 里被拒的那几种之一），
    或者打了分（rejection 是 None，score 是分数；进没进数据库由 evolve 定）。"""
    rejection: str = None
    score: float = None
    # 过不过得了分支检查（all_branches_valid；分支检查关掉时也照实记下：演示 3 数的就是这个）
    all_branches_valid: bool = False

    def improves_on(self, parent_score):
        """打了分，而且比父程序高吗（Ensemble 的 bandit、提示数据库的功劳都按它算）。"""
        return self.score is not None and self.score > parent_score


@dataclass(frozen=True)
class Feedback:
    """评估器对一个程序的反馈，每个训练形状一个数（不再跑内核）；提出者靠它决定改哪里。"""
    # 训练形状
    shapes: tuple
    # 程序在这个形状上走第几个分支（len(rules) 是最后的默认 return）
    branch: np.ndarray
    # 程序在这个形状上的时间，s
    time: np.ndarray
    # roofline 下界 / 时间
    vs_roofline: np.ndarray
    # 见过的最快 / 时间
    vs_best: np.ndarray
    # 见过最快的配置在 CONFIGS 里的编号
    best_cfg: np.ndarray
    # 程序的分数（训练形状上相对专家的几何平均加速比）
    score: float
    # 评估用的硬件
    hw: Hardware


class LookedUp(NamedTuple):
    """评估器查表就知道的、关于一个程序的一切：和"见过的最快"无关，同一个程序总是一样。
    branch 到 speedup 每个训练形状一个，按形状的顺序。"""
    program: Program
    # 过不过得了分支检查（all_branches_valid）
    all_branches_valid: bool
    # 走第几个分支、它的配置在评估器的时间表里是第几行、时间、相对专家的加速比
    branch: np.ndarray
    row: np.ndarray
    time: np.ndarray
    speedup: np.ndarray
    # 级联第一关那几个形状上的分数
    first: float


def _cascade_first(train):
    """级联第一关的形状：按 M 排序后等距取 CASCADE_SHAPES 个（不到这么多就全用上），按原来的顺序。
    """
    n = len(train)
    k = min(CASCADE_SHAPES, n)
    by_m = sorted(range(n), key=lambda i: (train[i].M, i))
    picked = [by_m[round(j * (n - 1) / max(k - 1, 1))] for j in range(k)]
    return np.array(sorted(picked))


def _checked_evaluator_args(train, table, check_all_branches):
    """Evaluator 的门口：训练形状的列表、TimeTable、开关；两个参数写反了也说出来。"""
    if isinstance(train, TimeTable) and not isinstance(table, TimeTable):
        raise TypeError("Evaluator(train, table)：第一个参数是训练形状，第二个是 TimeTable"
                        "——两个写反了")
    if not isinstance(table, TimeTable):
        raise TypeError(f"table 应是 TimeTable，收到 {type(table).__name__}")
    check_choice("check_all_branches", check_all_branches, BOOLS)
    return _shape_list(train), table, check_all_branches


class Evaluator:
    """在训练形状上给程序打分（speedup_score），记下跑过的内核（bench_runs）和见过的最快。

    跑程序的（bench_runs 和见过的最快跟着变）是 judge、benchmark、per_shape；feedback 只读。
    judge(child, parent) 是 evolve 的一步验证：分支检查 → 级联 → 打分。
    分支检查（check_all_branches=True，all_branches_valid）查程序的每个分支，有一个不能启动就拒绝，
    一个内核都不跑；关掉时只跑训练形状，训练形状走不到的分支就没人发现。
    "跑"一个程序就是查表（look_up）：每个配置在每个训练形状上的时间一开始就从 TimeTable 取好。
    记住查过的程序、区间能快多少，见 memo.py 的 MemoEvaluator（讲义用它）。
    """

    def __init__(self, train, table, check_all_branches=True):
        checked = _checked_evaluator_args(train, table, check_all_branches)
        self.train, self.table, self.check_all_branches = checked
        n = len(self.train)
        self._shapes = tuple(self.train)
        self._all = np.arange(n)
        self._roof = np.array([roofline(s, table.hw) for s in self.train])
        self.cascade_idx = _cascade_first(self.train)
        # 级联第二关要补跑的形状
        self._rest = np.setdiff1d(self._all, self.cascade_idx)
        # 训练形状的 M、N、K 三列：一条规则命中哪些形状（boxes.inside）
        self.dims = {v: np.array([getattr(s, v) for s in self.train]) for v in VARS}
        # 每个配置一行：它在每个训练形状上的时间；最后多一行 inf，给搜索空间以外的配置
        self._times = np.vstack([table.matrix(self.train).T, np.full((1, n), np.inf)])
        self._outside_row = len(CONFIGS)
        # 每一行能不能启动：static_valid 的同一组条件（launch_conditions），一次算全部配置
        valid = launch_conditions(CONFIG_COLUMNS, table.hw).hold()[0]
        self._launchable = np.append(valid, False)
        self._expert_times = self._times[self._rows(EXPERT)[self.branches(EXPERT)], self._all]
        # 每个配置一行的加速比（speedups）：分数就是一个程序那几行的 geomean（speedup_score 的
        # 定义），一开始算好，打分就只剩查表
        self._speedups = speedups(self._expert_times, self._times)
        self.reset()

    def reset(self):
        """回到刚建好的状态（见过的最快、bench_runs 只有专家程序的一次测量）：
        同一个种子跑两次，历史完全相同。"""
        self.bench_runs = 0
        # 见过的最快（每个训练形状）和它的配置
        self.best_time = np.full(len(self.train), np.inf)
        self.best_cfg = np.zeros(len(self.train), dtype=int)
        self._record_runs(self.look_up(EXPERT), self._all)

    def _rows(self, p):
        """p 的每个分支的配置在时间表里是第几行（搜索空间以外的是最后那行 inf）。"""
        rows = [CONFIG_INDEX.get(cfg, self._outside_row) for cfg in p.configs()]
        return np.array(rows)

    def branches(self, p):
        """每个训练形状走 p 的第几个分支（len(p.rules) 是默认）。只看区间。"""
        boxes = tuple(rule.bounds for rule in p.rules)
        return first_match(boxes, self.dims)

    def look_up(self, p):
        """p 查表就知道的一切（LookedUp）：不跑内核，不改评估器的状态。"""
        rows = self._rows(p)
        branch = self.branches(p)
        row = rows[branch]
        time = self._times[row, self._all]
        speedup = self._speedups[row, self._all]
        first = geomean(speedup[self.cascade_idx])
        all_valid = bool(self._launchable[rows].all())
        return LookedUp(p, all_valid, branch, row, time, speedup, first)

    def _record_runs(self, looked_up, shape_idx):
        """记账：程序在 shape_idx 这些形状上跑了一遍（时间查表就有，不真跑）——bench_runs 加上
        这几次，见过的最快跟着更新。评估器的状态只在这里变（reset 除外）。"""
        self.bench_runs += len(shape_idx)
        t = looked_up.time[shape_idx]
        better = (t < self.best_time[shape_idx]).nonzero()[0]
        if len(better):
            where = shape_idx[better]
            self.best_time[where] = t[better]
            self.best_cfg[where] = looked_up.row[where]

    def judge(self, child, parent=None):
        """子程序怎么样了（Verdict）。不是 Program 的提案是 "failed"（提出者给不出时的 None；
        学生的提出者交回的不成形的程序，在门口就成了 None，见 as_proposer）。
        给了 parent 就做级联：先在第一关的几个形状上跑，不到父程序在那里的 CASCADE_TOLERANCE
        就不跑其余形状。"""
        if not isinstance(child, Program):
            return Verdict("failed")
        looked_up = self.look_up(child)
        valid = looked_up.all_branches_valid
        if self.check_all_branches and not valid:
            # 一个内核都不跑
            return Verdict("bad_branch")
        if parent is None:
            self._record_runs(looked_up, self._all)
        elif not self._passes_cascade(looked_up, self.look_up(parent)):
            return Verdict("cascade", all_branches_valid=valid)
        # 分数：加速比的 geomean（speedup_score）
        score = geomean(looked_up.speedup)
        if score == 0:
            # 训练形状上就启动失败了（那里的加速比是 0）
            return Verdict("crash", all_branches_valid=valid)
        return Verdict(score=score, all_branches_valid=valid)

    def _passes_cascade(self, child, parent):
        """级联：先跑第一关的形状；不比父程序在那里差太多，才跑其余的形状。"""
        self._record_runs(child, self.cascade_idx)
        if child.first < CASCADE_TOLERANCE * parent.first:
            return False
        self._record_runs(child, self._rest)
        return True

    def benchmark(self, p):
        """在每个训练形状上跑一遍程序（或它的源码），不做级联：bench_runs 和见过的最快跟着变。
        返回分数；被分支检查拒绝（一个都不跑）或在训练形状上不能启动时返回 None。"""
        return self.judge(_as_program(p)).score

    def feedback(self, p, score=None):
        """对评估过的 p 的反馈（Feedback），查已有的测量，不再跑内核；
        p 的分数已知（数据库里有）就不再算。"""
        looked_up = self.look_up(p)
        t = looked_up.time
        if score is None:
            score = geomean(looked_up.speedup)
        return Feedback(shapes=self._shapes, branch=looked_up.branch, time=t,
                        vs_roofline=self._roof / t, vs_best=self.best_time / t,
                        best_cfg=self.best_cfg, score=score, hw=self.table.hw)

    def per_shape(self, p):
        """先在每个训练形状上跑一遍程序（或它的源码；不做分支检查，bench_runs 和见过的最快跟着变），
        再给每个训练形状一行：形状、时间、vs_roofline、vs_best、程序用的配置、见过最快的配置。"""
        p = _as_program(p)
        self._record_runs(self.look_up(p), self._all)
        fb = self.feedback(p)
        return [{"shape": s, "time": float(fb.time[i]), "vs_roofline": float(fb.vs_roofline[i]),
                 "vs_best": float(fb.vs_best[i]), "config": choose(p, s),
                 "best_config": CONFIGS[fb.best_cfg[i]]}
                for i, s in enumerate(self.train)]


# ==== 6. 提出者与 MockLLM：模拟"读了程序和反馈、提出一处修改"的语言模型 ========================
# 提出者的接口（Proposer）只写这一次：MockLLM 和 real_llm 里的 RandomEdits、ChatLLM 都从它派生，
# 先挑一个成员再由它提出的（Chooser：几个提出者一起的 ensemble.Ensemble、第 7½ 节的提示数据库）
# 也是；学生自己写的、只有 propose 的对象在门口包成一个（as_proposer）。门口按它能做什么认
# （Proposer 是一个 Protocol），不按它从哪一份 evolve.py 来（见 _from_another_copy 上面）。
# 它是什么全在它的选项里（describe 说出来的那几个）；MockLLM 另外只记着上一次的训练形状，为了快，
# 不算它是什么。随机性都来自 evolve 给的 rng（VARIANTS 里的实例被所有种子共用）。
# 先是接口，再是提出者共用的挪阈值，再是 MockLLM 用到的几件事（照反馈写规则、按常识改配置），
# 最后是 MockLLM 本身。
# 每次随机抽取单独一句：按读的顺序就是抽的顺序，结果可复现靠的就是这个顺序。

@runtime_checkable
class Proposer(Protocol):
    """提出者：evolve 每个提案要它的子程序；其余几个有默认，要时覆盖。
    下面五个方法都有的对象就是提出者（isinstance 按方法认，不按类）；从 Proposer 派生就有
    其余四个的默认。只写了 propose 的对象在门口包一层（as_proposer），其余用默认。

    propose(parent, feedback, inspirations, rng)：子程序（Program，或它的源码：evolve 像读 initial
      一样读它），给不出时 None。
    propose_all(asks, rng)：一批提案（asks 是 [Ask]）的子程序，按提案的顺序；evolve 总是这样问
      （parallel=K 时一批 K 个）。默认一个一个 propose，能并发的（ChatLLM）覆盖它。
    reset()：一次运行开始时；默认什么都不记。learn(improved)：一个提案的子程序比父程序好吗；默认
      不学。两个都只有记着一次运行里的事的提出者（Ensemble 的 bandit）要覆盖。
      learn 的顺序就是提出的顺序：evolve 先把一批提案都提出（propose_all），再按提案的顺序一个一个
      判、一个一个 learn，下一批要等这一批都 learn 完。所以 learn 答的总是最早提出、还没听到
      结局的那个提案（Chooser 靠这一条把结局记给提出它的成员）。
    describe()：它是什么（variants.ProposerDescription：类名、各项设置、成员）；默认只有类名。
    会写提示的提出者（MockLLM、ChatLLM）另外是 WritesPrompts（下面）：只有开着 meta_prompt 时
    第 7½ 节的提示数据库要它，所以不是每个提出者都有的方法。
    """

    def propose(self, parent, feedback, inspirations, rng):
        raise NotImplementedError(f"{type(self).__name__} 要写 propose(parent, feedback, "
                                  "inspirations, rng)")

    def propose_all(self, asks, rng):
        return [self.propose(*ask, rng) for ask in asks]

    def reset(self):
        """一次运行开始：默认没有要清零的。"""

    def learn(self, improved):
        """一个提案的结局：默认不从中学。"""

    def describe(self):
        return ProposerDescription(type(self).__name__)


@runtime_checkable
class WritesPrompts(Protocol):
    """会写提示的提出者（MockLLM、ChatLLM）：开着 meta_prompt 时第 7½ 节的提示数据库要这三样。
    一个提示里是几条指示（hints）：MockLLM 的是 HINTS 里的几条，ChatLLM 的是提示里的几行说明。
      hints：它自己的提示（提示数据库从它起步；讲义的 MockLLM 是 ()）。
      prompted(hints)：照 hints 提案的同一个提出者（别的都不变；它也是一个提出者）。
      propose_prompt(hints, best, feedback, rng)：额外的写提示那一步——读最好的程序 best 和它的
        反馈，从 hints 改出新的一组指示，交回这组指示。
    和 Proposer 一样按能做什么认：三样都有的对象就是（isinstance）。"""
    hints: tuple

    def prompted(self, hints):
        ...

    def propose_prompt(self, hints, best, feedback, rng):
        ...


class _Foreign(Proposer):
    """学生自己写的、只有 propose 方法的对象（不从 Proposer 派生）：当一个 Proposer 用，其余用默认。
    它交回的程序从门外来：不成形的（比如照老写法把上界写成 None）在这里就当作没给出程序。"""

    def __init__(self, inner):
        self.inner = inner

    def __repr__(self):
        return repr(self.inner)

    def propose(self, parent, feedback, inspirations, rng):
        child = self.inner.propose(parent, feedback, inspirations, rng)
        if isinstance(child, Program) and not _well_formed(child):
            return None
        return child

    def describe(self):
        # 它的选项我们不知道：只知道类名，和别的提出者比时只能说"换了一种"
        return ProposerDescription(type(self.inner).__name__, known=False)


def _well_formed(p):
    """成形的程序：每条规则是 Rule，区间是 3 对数，配置是 Config（查学生的提出者交回的程序）。"""
    rules_ok = all(isinstance(r, Rule) and isinstance(r.cfg, Config) and len(r.bounds) == 3
                   and all(isinstance(x, Real) for lo_hi in r.bounds for x in lo_hi)
                   for r in p.rules)
    return rules_ok and isinstance(p.default, Config)


def as_proposer(llm):
    """门口：提出者（checks.check_proposer 查过有 propose）当 Proposer 用——Proposer 的方法都有的
    （从哪一份 evolve.py 的 Proposer 派生都行）原样用，只写了 propose 的对象包一层（_Foreign）。
    之后都只调用 Proposer 的方法。"""
    check_proposer(llm)
    return llm if isinstance(llm, Proposer) else _Foreign(llm)


class Chooser(Proposer):
    """先给每个提案挑一个成员、再由那个成员提出的提出者（Ensemble、PromptDatabase）。子类写：
      pick(rng)：这个提案交给哪个成员（成员的键：编号或一项记录）；
      candidates()：所有成员的键，一批提案按这个顺序分给各成员；
      proposer_of(member)：那个成员的提出者；credit(member, improved)：它提出的子程序变好了吗；
      gave(member, child)（要时）：它交回了什么（给不出时 None）。
    learn 把结局交给最早提出、还没听到结局的那个提案的成员（Proposer 写的顺序）：这件事只在这里做。
    一批提案先按顺序各挑好成员，每个成员再一起答分到它的那几个（它的 propose_all，能并发的就
    并发），子程序按提案的顺序交回。"""

    def reset(self):
        """一次运行开始：没有等着听结局的提案。"""
        self._waiting = []

    def pick(self, rng):
        raise NotImplementedError(f"{type(self).__name__} 要写 pick(rng)")

    def candidates(self):
        raise NotImplementedError(f"{type(self).__name__} 要写 candidates()")

    def proposer_of(self, member):
        raise NotImplementedError(f"{type(self).__name__} 要写 proposer_of(member)")

    def credit(self, member, improved):
        """member 提出的一个子程序的结局：默认不记。"""

    def assign(self, rng):
        """这个提案交给哪个成员（pick），记下它在等结局。"""
        member = self.pick(rng)
        self._waiting.append(member)
        return member

    def gave(self, member, child):
        """member 交回的子程序（给不出时 None）：默认不记。"""

    def propose(self, parent, feedback, inspirations, rng):
        return self.propose_all([(parent, feedback, inspirations)], rng)[0]

    def propose_all(self, asks, rng):
        assigned = [self.assign(rng) for _ in asks]
        children = [None] * len(asks)
        for member in self.candidates():
            mine = [k for k, c in enumerate(assigned) if c == member]
            if not mine:
                continue
            answers = self.proposer_of(member).propose_all([asks[k] for k in mine], rng)
            for k, child in zip(mine, answers):
                children[k] = child
                self.gave(member, child)
        return children

    def learn(self, improved):
        self.credit(self._waiting.pop(0), improved)


FEEDBACK_CHOICES = ("best", "roofline", None)
FOCUS_CHOICES = (None, "worst3")

# 有 inspiration 程序时，借一条规则的比例（AlphaEvolve 的提示里会放几个别的好程序）
BORROW_RATE = 0.15
# 小模型的改动里挪阈值的比例（其余是改一个配置字段）
SMALL_THRESHOLD_RATE = 0.2
# 有内核常识时，整理代码的比例：挪一个阈值、删一条规则、合并两条相邻的同配置规则
TIDY_RATE = 0.15
# 凑配置时忘了核对共享内存/寄存器的比例——真实 LLM 写内核代码常犯的错
SLIP_RATE = 0.10
# 写新规则时顺手给"没见过的情况"加一个分支（两个训练 M 之间，或超出训练的 K、N）的比例
EXTRAPOLATE_RATE = 0.20
# 常识性的想法（"decode 要 split-K"）是一般规律：30% 直接改现有规则，否则写一段 M 的所有层
IDEA_EDITS_RULE = 0.3
# 反馈给的配置快 1% 以上就照着写
WORTH_A_RULE = 0.99
# 挑形状的权重 1/比值 − 1 + 0.05：已经做到最好的形状（比值 1）也留一点机会
PICK_FLOOR = 0.05
# 规则最多 12 条（加默认）：和手写的库表一样长；够长了 LLM 就改现有规则而不是再加
MAX_RULES = 12


# —— 挪阈值：MockLLM 和 real_llm/random_edits.py 的 RandomEdits 都这样挪，挪法只有这一个出处 ——

class TrainingView:
    """提出者从反馈里读出的训练形状的样子：哪些 M、每层有哪些 M、挪阈值可用的值、按位置查形状。"""

    def __init__(self, shapes):
        self.shapes = shapes
        # (N, K) → 这一层的 M；M → 这个 M 的形状编号
        layer_ms = {}
        self.at_m = {}
        for i, s in enumerate(shapes):
            layer_ms.setdefault((s.N, s.K), set()).add(s.M)
            self.at_m.setdefault(s.M, []).append(i)
        self.layer_ms = {k: tuple(sorted(v)) for k, v in layer_ms.items()}
        # 挪阈值时可用的值：0（没有下界）和训练里出现过的值
        self.grid = {v: (0,) + tuple(sorted({getattr(s, v) for s in shapes})) for v in VARS}
        # 出现过的 M，升序
        self.ms = self.grid["M"][1:]
        # (M, N, K) → 训练形状编号
        self.at = {(s.M, s.N, s.K): i for i, s in enumerate(shapes)}


def neighbour(choices, value, delta):
    """choices 里 value 的邻居（越界就停在端点）。"""
    i = choices.index(value) + delta
    return choices[min(max(i, 0), len(choices) - 1)]


def movable_ends(rule, j, view):
    """rule 在第 j 个变量上能挪的端点（0 是下界，1 是上界）：值在训练里出现过（或是 0）的那些。"""
    return [end for end, x in enumerate(rule.bounds[j]) if x in view.grid[VARS[j]]]


def moved_threshold(p, view, i, j, end, direction):
    """第 i 条规则第 j 个变量的 end 端挪到训练值里相邻的值（direction：−1 往下，1 往上）；
    已经在头上就不动。"""
    grid = view.grid[VARS[j]]
    return with_bound(p, i, j, end, neighbour(grid, p.rules[i].bounds[j][end], direction))


def _move_threshold(p, view, rng):
    """把某条规则的一个阈值挪到相邻的值（只在训练里出现过的值之间挪）。"""
    i = rng.randrange(len(p.rules))
    j = rng.randrange(3)
    ends = movable_ends(p.rules[i], j, view)
    if not ends:
        return p
    end = rng.choice(ends)
    direction = rng.choice((-1, 1))
    return moved_threshold(p, view, i, j, end, direction)


# —— 整理代码：合并两条相邻的同配置规则 ——

def _mergeable(a, b):
    """两条相邻规则配置相同、N/K 条件相同、M 区间首尾相接，就能合成一条。"""
    (alo, ahi), (blo, bhi) = a.bounds[0], b.bounds[0]
    touching = ahi == blo or bhi == alo
    return a.cfg == b.cfg and a.bounds[1:] == b.bounds[1:] and touching


def _merged(p, i):
    """第 i、i+1 条规则合成一条：M 区间取并，N、K 条件和配置不变。"""
    a, b = p.rules[i], p.rules[i + 1]
    m = (min(a.bounds[0][0], b.bounds[0][0]), max(a.bounds[0][1], b.bounds[0][1]))
    merged = Rule((m,) + a.bounds[1:], a.cfg)
    return with_rule(without_rule(p, i + 1), i, merged)


# —— 照反馈写规则：只写到证据推广得到的地方 ——

def _agreeing_run(ms, m, agrees):
    """ms（升序）里包含 m、agrees 都成立的一段连续值：返回它的首尾位置。"""
    lo = hi = ms.index(m)
    while lo > 0 and agrees(ms[lo - 1]):
        lo -= 1
    while hi + 1 < len(ms) and agrees(ms[hi + 1]):
        hi += 1
    return lo, hi


def _feedback_scope(s, fb, view):
    """照着反馈写规则时管多宽：只写证据推广得到的地方，阈值放在物理变化的地方。
    返回规则的区间，推广不开时返回 None。
    1. 这个 M 上所有层见过的最快都是它：写所有层，M 向两边扩到仍然一致的训练 M
       （测试里的新层在同样的 M 上有证据）；
    2. 一行块就盖住 M（M ≤ BM）：块数、每块的活都不随 M 变，快慢只看这一层的 N、K——
       写这一层，一直写到 M = BM；
    3. 否则是这一层在这个 M 上的块数碰巧合适（波次）：M 一变块数就变，换个 M 未必还赢。
       只写这一格的规则就是过拟合，所以不照抄，返回 None（改用常识）。"""
    best = fb.best_cfg[view.at[(s.M, s.N, s.K)]]

    def all_layers(m):
        return all(fb.best_cfg[k] == best for k in view.at_m[m])

    def this_layer(m):
        return fb.best_cfg[view.at[(m, s.N, s.K)]] == best

    if all_layers(s.M):
        lo, hi = _agreeing_run(view.ms, s.M, all_layers)
        m_from = view.ms[lo - 1] if lo > 0 else 0
        return ((m_from, view.ms[hi]), UNBOUNDED, UNBOUNDED)
    bm = CONFIGS[best].BM
    if s.M > bm:
        return None
    ms = [m for m in view.layer_ms[(s.N, s.K)] if m <= bm]
    lo, hi = _agreeing_run(ms, s.M, this_layer)
    m_from = ms[lo - 1] if lo > 0 else 0
    m_to = ms[hi + 1] - 1 if hi + 1 < len(ms) else bm
    return ((m_from, m_to), (s.N - 1, s.N), (s.K - 1, s.K))


def _most_prefer(fb, at, best):
    """程序已经够长、只能改现有分支时：这个分支管的训练形状里，至少一半见过的最快就是它，
    才把整个分支换成它。一个形状上赢了的配置，不该顺手改掉一大类形状的选择。"""
    members = fb.branch == at
    prefer = int((fb.best_cfg[members] == best).sum())
    return 2 * prefer >= int(members.sum())


# —— 按内核常识改配置：看形状受什么限制，再把配置凑到硬件放得下 ——

def _previous(values, x, back=1):
    """values（升序）里 x 往前数第 back 个值；前面不够就是 0（没有下界）。"""
    i = values.index(x) - back
    return values[i] if i >= 0 else 0


def compute_bound(shape, hw):
    """算术强度（每取 1 个 bf16 元素做几次乘加）高于硬件的平衡点：算力受限，否则访存受限。"""
    M, N, K = shape.M, shape.N, shape.K
    intensity = M * N * K / (M * K + K * N + M * N)
    return intensity >= hw.peak_flops / hw.hbm_bw


def output_tiles(cfg, shape):
    """C 分成几块（一块 BM×BN）：不到 SM 的个数时，split-K 才有用。"""
    return _cdiv(shape.M, cfg.BM) * _cdiv(shape.N, cfg.BN)


def _plausible(cfg, shape, hw):
    """有内核常识的人会在哪些值里挑：访存受限（decode）要块贴着 M、每步多取、块不够就 split-K；
    算力受限要大块、多 warp、不切 K。"""
    if compute_bound(shape, hw):
        return {"BM": (128, 256), "BN": (128, 256), "BK": (32, 64), "warps": (4, 8),
                "split_k": (1,)}
    fit_m = min(b for b in CONFIG_CHOICES["BM"] if b >= min(shape.M, 256))
    split_k = (2, 4, 8) if output_tiles(cfg, shape) < hw.sms else (1, 2)
    return {"BM": (fit_m, neighbour(CONFIG_CHOICES["BM"], fit_m, 1)), "BN": (32, 64, 128, 256),
            "BK": (64, 128), "warps": (2, 4, 8), "split_k": split_k}


def fit_registers(cfg, hw):
    """累加器放不进寄存器就先加 warp，再缩 BN。"""
    while registers(config_fields(cfg)).total > hw.regs_per_thread:
        if cfg.warps < 8:
            cfg = replace(cfg, warps=8)
        else:
            cfg = replace(cfg, BN=neighbour(CONFIG_CHOICES["BN"], cfg.BN, -1))
    return cfg


def _fit_stages(cfg, hw):
    """在共享内存放得下的前提下用最多的流水级。"""
    c = config_fields(cfg)
    fits = [st for st in CONFIG_CHOICES["stages"]
            if shared_memory(dict(c, stages=st)) <= hw.smem_per_block]
    return replace(cfg, stages=max(fits, default=min(CONFIG_CHOICES["stages"])))


def fit_limits(cfg, hw):
    """核对硬件上限：先让寄存器放得下，再用共享内存放得下的最多流水级。核对过的再核对不变。"""
    return _fit_stages(fit_registers(cfg, hw), hw)


def _scaled_up(cfg):
    """给"更大的情况"外推的配置：块更大、流水更深——没核对共享内存。"""
    return replace(cfg, BM=neighbour(CONFIG_CHOICES["BM"], cfg.BM, 1),
                   stages=neighbour(CONFIG_CHOICES["stages"], cfg.stages, 1))


def _extrapolated(bounds, cfg, s, view, rng):
    """顺手写给训练里没有的情况：M 落在这个 M 和下一个训练 M 之间，或者 K、N 比训练里的都大。"""
    later = [m for m in view.ms if m > s.M + 1]
    kind = rng.choice(("M", "K", "N") if later else ("K", "N"))
    if kind == "M":
        return Rule(((s.M, later[0] - 1),) + bounds[1:], _scaled_up(cfg))
    beyond = (view.grid[kind][-1], math.inf)
    if kind == "K":
        return Rule((bounds[0], UNBOUNDED, beyond), _scaled_up(cfg))
    return Rule((bounds[0], beyond, UNBOUNDED), _scaled_up(cfg))


# —— MockLLM 的提示：几条指示，每条改它提出哪些修改 ——
# AlphaEvolve 的提示里有一段说明（instructions），由模型自己在额外的一步里改写（meta prompt
# evolution，第 7½ 节的提示数据库）。MockLLM 的"说明"是从下面这张词表里挑的几条（hints），每条都是
# 计时模型（第 3 节）里的一件事；没有一条（hints=()，讲义的 MockLLM）时下面的几步一个字节都不改。
# 每条起什么作用、为什么：
#   tile_together：算力受限的形状，快慢看块大小和 warp 数——累加器每线程 BM·BN/(32·warps) 个
#     寄存器，块大了 warp 不跟着加就溢出（registers）。所以定向修改只改 BM、BN、warps 这三个，
#     不把名额花在对算力受限没用的 BK、split_k 上；小模型改 BM、BN 时顺手把 warp 加够。
#   split_k_fill：split-K 的好处只是让块数占满 132 个 SM，代价是清零和 fp32 原子加
#     （_split_k_time）。所以访存受限时 split_k 取"刚好占满"的最小值，不随机挑；小模型挪
#     split_k 时朝那个值挪。
#   decode_rule：decode（M ≤ DECODE_M）访存受限、块要贴着 M，配置和 prefill 不同；直接改现有分支
#     会连带改掉同一分支里更大的 M。所以 decode 形状的常识性想法总是写成新规则。
#     小模型只会改一个字段、不会写规则，这条对它没有作用。
#   check_limits：写完配置核对共享内存和寄存器（fit_limits）：不核对就有 SLIP_RATE 的配置
#     不能启动，被分支检查拒掉，白花一个提案。小模型也照着核对。
HINTS = {
    "tile_together": "算力受限时 BM、BN、warps 一起改：块大了 warp 要跟着加",
    "split_k_fill": "块数不够占满 SM 时才 split-K，切到刚好占满",
    "decode_rule": f"decode（M ≤ {DECODE_M}）单独写规则，不改 prefill 也在用的分支",
    "check_limits": "写完配置核对共享内存和寄存器",
}
# 不会诊断的小模型改写提示时，加一条和删一条一样可能
DROP_HINT_RATE = 0.5


def checked_hints(hints):
    """提示：HINTS 里的几条（列表或元组，学生在 VARIANTS 里敲的），按词表的顺序、不重复地返回。"""
    if not isinstance(hints, (list, tuple)):
        raise TypeError("hints 应是 HINTS 里几条指示的列表，例如 [\"check_limits\"]，"
                        f"收到 {hints!r}")
    for k, hint in enumerate(hints):
        check_choice(f"hints[{k}]", hint, tuple(HINTS))
    return tuple(h for h in HINTS if h in hints)


def _filling_split(cfg, shape, hw):
    """块数 × split_k 刚好占满 SM 的最小 split_k（块已经够多就是 1，切到最多也不够就取最多）。"""
    tiles = output_tiles(cfg, shape)
    fills = [k for k in CONFIG_CHOICES["split_k"] if tiles * k >= hw.sms]
    return replace(cfg, split_k=min(fills, default=max(CONFIG_CHOICES["split_k"])))


def _relevant_hints(shape, hw):
    """有内核常识的模型看一个形状，觉得哪几条指示说的是它。"""
    if compute_bound(shape, hw):
        return ("tile_together", "check_limits")
    relevant = ("split_k_fill", "check_limits")
    return relevant + ("decode_rule",) if shape.M <= DECODE_M else relevant


def _diagnosed_hints(hints, shape, hw, rng):
    """有内核常识的改写：看最好程序差得多的一个形状，补一条说它的指示；都有了就删一条不说它的。"""
    relevant = _relevant_hints(shape, hw)
    missing = [h for h in relevant if h not in hints]
    if missing:
        return checked_hints(hints + (rng.choice(missing),))
    idle = [h for h in hints if h not in relevant]
    if not idle:
        return hints
    dropped = rng.choice(idle)
    return tuple(h for h in hints if h != dropped)


def _random_hints(hints, rng):
    """小模型的改写：不会诊断，随便加一条或删一条（Promptbreeder 的随机变异）。"""
    missing = [h for h in HINTS if h not in hints]
    if hints and (not missing or rng.random() < DROP_HINT_RATE):
        dropped = rng.choice(hints)
        return tuple(h for h in hints if h != dropped)
    return checked_hints(hints + (rng.choice(missing),))


def pick_weights(ratio):
    """MockLLM 按反馈挑形状的权重：1/比值 − 1 + PICK_FLOOR（比值是 vs_best 或 vs_roofline，
    数组或一个数）。差得越多权重越大。"""
    return 1.0 / ratio - 1.0 + PICK_FLOOR


class MockLLM(Proposer, WritesPrompts):
    """模拟的 LLM。

    feedback：挑形状时看什么——"best"（离见过的最快还差多少，并且拿到那个更快的配置）、
              "roofline"（离 roofline 还差多少）、None（不看反馈，随便挑）。
    focus：None（按权重 1/比值 − 1 + 0.05 在所有训练形状里抽），"worst3"（只在最差的 3 个里抽）。
    knowledge：True = 有内核常识的定向修改（多字段一起改、写新规则、整理代码）；
               False = 只会单字段的小改动。
    use_inspirations：是否从提示里别的程序借规则。
    hints：照提示里的哪几条指示改（HINTS 的键，上面写着每条的理由）；默认 ()，讲义的 MockLLM。
    开着 meta_prompt 时提示数据库换着给它别的 hints（prompted），也请它写新的（propose_prompt）。
    """

    def __init__(self, feedback="best", focus=None, knowledge=True, use_inspirations=True,
                 hints=(), **unknown):
        # 学生在 VARIANTS 里敲的：写错了就一句话（子类的名字和选项也照它自己的说）
        kind = type(self)
        check_keywords(f"{kind.__name__}() ", keywords(kind), unknown,
                       feedback=(feedback, FEEDBACK_CHOICES), focus=(focus, FOCUS_CHOICES),
                       knowledge=(knowledge, BOOLS), use_inspirations=(use_inspirations, BOOLS))
        self.feedback = feedback
        self.focus = focus
        self.knowledge = knowledge
        self.use_inspirations = use_inspirations
        self.hints = checked_hints(hints)
        # 上一次的训练形状和 MockLLM 眼里它的样子（TrainingView）：同一次 evolve 的每个提案
        # 都是同一组形状，一样（==）就不再算
        self._view = None

    def describe(self):
        """它是什么（variants.ProposerDescription）：__init__ 的每个选项（它的签名，子类用子类的）的
        值和讲义的默认值。加一个选项只加在签名里（和同名的属性）。训练形状的缓存不在里面：
        它只为了快。"""
        lecture = keyword_defaults(type(self))
        settings = tuple(Setting(name, getattr(self, name), default)
                         for name, default in lecture.items())
        return ProposerDescription(type(self).__name__, settings)

    def __repr__(self):
        described = self.describe()
        options = ", ".join(f"{s.name}={s.value!r}" for s in described.settings)
        return f"{described.kind}({options})"

    def training_view(self, shapes):
        """MockLLM 眼里的训练形状（TrainingView）。"""
        if self._view is None or self._view.shapes != shapes:
            self._view = TrainingView(shapes)
        return self._view

    def prompted(self, hints):
        """同一个它（子类、别的选项都不变）照 hints 这几条指示提案：提示数据库里的一个提示。"""
        twin = copy.copy(self)
        twin.hints = checked_hints(hints)
        return twin

    def propose_prompt(self, hints, best, fb, rng):
        """额外的写提示那一步：读最好程序（best）的反馈 fb，从 hints 改出新的一组指示
        （MockLLM 只读反馈；真模型还要看程序本身）。"""
        if not self.knowledge:
            return _random_hints(hints, rng)
        return _diagnosed_hints(hints, fb.shapes[self.pick_shape(fb, rng)], fb.hw, rng)

    def propose(self, parent, fb, inspirations, rng):
        """提出一个子程序：借一条规则，或者挑一个形状下手，按有没有内核常识改。"""
        if self.use_inspirations and inspirations:
            if rng.random() < BORROW_RATE:
                child = self._borrow(parent, inspirations, rng)
                if child is not None:
                    return child
        i = self.pick_shape(fb, rng)
        if not self.knowledge:
            return self._small_edit(parent, fb, i, rng)
        if parent.rules and rng.random() < TIDY_RATE:
            return self._tidy(parent, rng, self.training_view(fb.shapes))
        return self._directed_edit(parent, fb, i, rng)

    def _borrow(self, parent, inspirations, rng):
        """借规则：把别的程序里的一条规则放到最前面（程序够长了就顶替掉一条）。"""
        donor, _ = rng.choice(inspirations)
        new = [r for r in donor.rules if r not in parent.rules]
        if not new:
            return None
        if len(parent.rules) >= MAX_RULES:
            dropped = rng.randrange(len(parent.rules))
            parent = without_rule(parent, dropped)
        borrowed = rng.choice(new)
        return with_new_rules(parent, 0, [borrowed])

    def pick_shape(self, fb, rng):
        """挑一个形状下手：按反馈加权随机抽，或只在最差的 3 个里抽，或（不看反馈）随便挑。"""
        n = len(fb.shapes)
        if self.feedback is None:
            # 看不到反馈：随便挑（也就无所谓"最差的 3 个"）
            return rng.randrange(n)
        ratio = fb.vs_best if self.feedback == "best" else fb.vs_roofline
        weights = pick_weights(ratio)
        if self.focus != "worst3":
            return rng.choices(range(n), weights=weights)[0]
        worst = np.argsort(ratio, kind="stable")[:3].tolist()
        return rng.choices(worst, weights=[weights[k] for k in worst])[0]

    def _small_edit(self, parent, fb, i, rng):
        """小模型：一个配置的一个字段，或一个阈值，挪到相邻的值。"""
        if parent.rules and rng.random() < SMALL_THRESHOLD_RATE:
            return _move_threshold(parent, self.training_view(fb.shapes), rng)
        at = int(fb.branch[i])
        cfg = parent.configs()[at]
        field = rng.choice(list(CONFIG_CHOICES))
        direction = rng.choice((-1, 1))
        return with_config(parent, at, self._small_step(cfg, fb.shapes[i], fb.hw, field, direction))

    def _small_step(self, cfg, shape, hw, field, direction):
        """小模型的一步：field 挪到相邻的值（direction：−1 往下，1 往上）。照提示时：split_k 朝
        占满 SM 的值挪（split_k_fill），改块时把 warp 加够（tile_together），核对上限
        （check_limits）。"""
        if field == "split_k" and "split_k_fill" in self.hints:
            target = _filling_split(cfg, shape, hw).split_k
            if target != cfg.split_k:
                direction = 1 if target > cfg.split_k else -1
        value = neighbour(CONFIG_CHOICES[field], getattr(cfg, field), direction)
        cfg = replace(cfg, **{field: value})
        if field in ("BM", "BN") and "tile_together" in self.hints:
            cfg = fit_registers(cfg, hw)
        if "check_limits" in self.hints:
            cfg = fit_limits(cfg, hw)
        return cfg

    def _tidy(self, parent, rng, view):
        """整理代码：合并两条相邻的同配置规则、挪一个阈值，或删一条规则。"""
        kind = rng.choice(("threshold", "delete", "merge"))
        if kind == "merge":
            rules = parent.rules
            merges = [i for i in range(len(rules) - 1) if _mergeable(rules[i], rules[i + 1])]
            if merges:
                i = rng.choice(merges)
                return _merged(parent, i)
        if kind == "threshold":
            return _move_threshold(parent, view, rng)
        i = rng.randrange(len(parent.rules))
        return without_rule(parent, i)

    def _directed_edit(self, parent, fb, i, rng):
        """有内核常识的修改：反馈给了更快的配置、而且推广得开，就照着写规则；否则按常识改几个字段。
        """
        s = fb.shapes[i]
        view = self.training_view(fb.shapes)
        at = int(fb.branch[i])
        # 程序够长了就改现有规则，不再加
        full = len(parent.rules) >= MAX_RULES
        scope = None
        if self.feedback == "best" and fb.vs_best[i] < WORTH_A_RULE:
            scope = _feedback_scope(s, fb, view)
        if scope is not None and (not full or _most_prefer(fb, at, fb.best_cfg[i])):
            # 反馈直接给了更快的配置，而且推广得开
            cfg = CONFIGS[fb.best_cfg[i]]
            bounds = scope
        else:
            # 没有能推广的证据：按内核常识改
            cfg = self._common_sense_edit(parent.configs()[at], s, fb.hw, rng)
            bounds = self._idea_scope(s, view, rng)
        if bounds is None or full:
            return with_config(parent, at, cfg)
        new = [Rule(bounds, cfg)]
        if rng.random() < EXTRAPOLATE_RATE:
            new.insert(0, _extrapolated(bounds, cfg, s, view, rng))
        return with_new_rules(parent, at, new)

    def _common_sense_edit(self, cfg, shape, hw, rng):
        """看这个形状受什么限制，一次改两三个相关的字段，再把配置凑到硬件放得下。"""
        options = _plausible(cfg, shape, hw)
        n_fields = rng.choice((2, 3))
        drawn = rng.sample(list(options), n_fields)
        fields = self._fields_to_change(drawn, shape, hw)
        changes = {}
        for name in fields:
            changes[name] = rng.choice(options[name])
        return self._finished_config(replace(cfg, **changes), shape, hw, rng)

    def _fields_to_change(self, fields, shape, hw):
        """定向修改改哪几个字段：抽到的那几个。照提示时：算力受限只改块和 warp（tile_together）；
        访存受限的 split_k 不随机挑（split_k_fill，_finished_config 定它）。"""
        if "tile_together" in self.hints and compute_bound(shape, hw):
            return ["BM", "BN", "warps"]
        if "split_k_fill" in self.hints and not compute_bound(shape, hw):
            return [name for name in fields if name != "split_k"]
        return fields

    def _finished_config(self, cfg, shape, hw, rng):
        """凑好的配置核对硬件上限（fit_limits）——SLIP_RATE 的时候忘了核对。照提示时：访存受限
        切到刚好占满 SM（split_k_fill）；忘了核对也补上（check_limits：核对过的再核对不变）。"""
        if "split_k_fill" in self.hints and not compute_bound(shape, hw):
            cfg = _filling_split(cfg, shape, hw)
        if rng.random() >= SLIP_RATE:
            cfg = fit_limits(cfg, hw)
        if "check_limits" in self.hints:
            cfg = fit_limits(cfg, hw)
        return cfg

    def _idea_scope(self, s, view, rng):
        """常识性的想法写到哪：IDEA_EDITS_RULE 的时候直接改现有分支（None），否则写一段 M 的所有层：
        从往前数 1–3 个训练 M 到这个 M。照提示（decode_rule）时 decode 形状总是写成新规则。"""
        always_new = "decode_rule" in self.hints and s.M <= DECODE_M
        if not always_new and rng.random() < IDEA_EDITS_RULE:
            return None
        back = rng.choice((1, 2, 3))
        return ((_previous(view.ms, s.M, back), s.M), UNBOUNDED, UNBOUNDED)


# ==== 7. 岛屿数据库 ===============================================================================

# 每个岛最多保留的程序数（讲义的默认；变体可以改，Options.population）
POPULATION = 10
# 挑父程序：第 r 名（从 0 数）的权重 (r+1)^-0.75——满员时第一名约 1/4 的机会，后面的也常被挑中
RANK_POWER = 0.75
# 提示里除父程序外再放几个同岛的程序
N_INSPIRATIONS = 2
# 每 50 个提案迁移一次：每个岛最好的程序复制到下一个岛（环形），好想法慢慢传开
MIGRATION_INTERVAL = 50


class Scored(NamedTuple):
    """数据库里的一项：程序和它的分数（也能写成 p, score = entry）。"""
    program: Program
    score: float


class IslandDatabase:
    """几个互相隔离的种群，每个是按分数从高到低排的 [Scored]，最多 population 个。隔离保住多样性，
    迁移让好想法传开。一个岛、population=1 就是 (1+1) 爬山：只留最好的一个，子程序更好才换掉它。"""

    def __init__(self, n_islands, program, score, population=POPULATION):
        self.islands = [[Scored(program, score)] for _ in range(n_islands)]
        self.population = population
        # 第 r 名的权重
        self.rank_weights = [(r + 1) ** -RANK_POWER for r in range(population)]

    def sample(self, island, rng):
        """按排名加权挑父程序（第 r 名的权重 (r+1)^-RANK_POWER），再挑几个同岛的程序当 inspiration。
        """
        pop = self.islands[island]
        parent = rng.choices(pop, weights=self.rank_weights[:len(pop)])[0]
        others = [entry for entry in pop if entry.program is not parent.program]
        inspirations = rng.sample(others, min(N_INSPIRATIONS, len(others)))
        return parent, inspirations

    def add(self, island, program, score):
        """种群没满、或比最差的好，就放进去（同一个程序不放两次）。返回是否放进去了。"""
        pop = self.islands[island]
        full = len(pop) >= self.population
        # 同一个程序的分数也一样：先比分数，整个程序逐条规则地比只在分数相同时才做
        known = any(entry.score == score and entry.program == program for entry in pop)
        if known or (full and score <= pop[-1].score):
            return False
        if full:
            pop.pop()
        i = next((k for k, entry in enumerate(pop) if entry.score < score), len(pop))
        pop.insert(i, Scored(program, score))
        return True

    def migrate(self):
        """每个岛最好的程序复制到下一个岛（环形）。"""
        leaders = [pop[0] for pop in self.islands]
        for k, leader in enumerate(leaders):
            self.add((k + 1) % len(self.islands), leader.program, leader.score)




# ==== 7½. 提示数据库：meta prompt evolution ======================================================
# AlphaEvolve §2.2：提示里的说明"由 LLM 自己在额外的一步里提出，和程序一起在一个单独的数据库里
# 进化"。evolve(..., meta_prompt=True) 时这次运行的提出者是包着它的 PromptDatabase：对 evolve 的
# 提问它是一个 Chooser（每个提案先挑提示、再由照着它的提出者提出，learn 给那个提示记功）；写提示
# 那一步在 evolve 的循环里明写着（due、write）。讲义默认关着，输出不变。
# 论文没给挑法和记功的规则，这里的每一条都有理由：
#   提示：提出者照着做的几条指示（hints：MockLLM 的是 HINTS 里的几条，ChatLLM 的是几行说明）。
#     起点是提出者自己的提示（讲义的 MockLLM 是 ()）。提出者要会写提示（第 6 节的 WritesPrompts）。
#   挑提示：每个提案做一次二元锦标赛（Promptbreeder）：用 evolve 的 rng 抽两个，功劳大的那个。
#     功劳最大的不总是赢，别的提示也一直有提案，功劳才一直在更新。
#   记功：孩子比父程序分数高是 1，否则 0（和 Ensemble 的 bandit 一样的理由：不用"进了数据库"，
#     岛没满时差程序也收）。功劳 = (变好的 + 1) / (提案数 + 2)：给不出程序的提案也算进去——
#     照这个提示模型写不出程序，也该少挑它；只数孩子的话，一个从来给不出程序的提示功劳永远是
#     1/2，锦标赛一直挑它。没有提案的新提示从 1/2 起，比任何常见的进步率都高，所以一进来就会被
#     试；提案多了，功劳就是它的进步率。孩子数（交回了程序的提案）另记，给人看。
#   写新提示：额外的一步，每 PROMPT_INTERVAL 个预算一次，由提出者自己（propose_prompt）
#     从锦标赛挑出的父提示改出，读的是这时最好程序的反馈。和数据库里已有的一样就不收。
#   淘汰：满了以后，新提示顶掉功劳最小的那个（一样小时顶掉最早进来的）。

# 提示数据库最多几个提示：词表 4 条指示能组成 16 个提示，留 6 个——锦标赛里常有新旧两种可比，
# 又不至于每个提示都只有几个孩子、功劳全是噪声
PROMPT_POPULATION = 6
# 每 25 个预算写一次提示，这一份预算不提程序：写提示和写程序一样是一次模型调用，所以占一份预算
# （ShinkaEvolve 也把它算进成本）。一共占 4%；两次之间的 24 个提案让新提示先有一批孩子、记上功劳
PROMPT_INTERVAL = 25


@dataclass(eq=False)
class PromptEntry:
    """提示数据库里的一项：提示（几条指示）、照它提案的提出者、交给它的提案数、其中交回了程序的
    （孩子）、比父程序好的。（这几个数一直在变，所以不是 frozen；两项是不是同一项按对象比。）"""
    hints: tuple
    proposer: object
    proposals: int = 0
    children: int = 0
    improved: int = 0

    def credit(self):
        """功劳：(变好的 + 1) / (提案数 + 2)。"""
        return (self.improved + 1) / (self.proposals + 2)


def _writes_prompts(llm):
    """llm 会写提示吗（WritesPrompts）；不会就一句话。"""
    if isinstance(llm, WritesPrompts):
        return llm
    raise TypeError("meta_prompt=True 要提出者自己会写提示（hints、prompted、propose_prompt，"
                    f"MockLLM、ChatLLM 会），{type(llm).__name__} 不会：换成 MockLLM(...)，"
                    "或者去掉 meta_prompt")


class PromptDatabase(Chooser):
    """和程序数据库并排的提示数据库，只属于一次运行（evolve 开着 meta_prompt 时建，随结果交回）。
    成员是提示（PromptEntry）：每个提案锦标赛挑一个，由照着它的提出者提出，learn 给它记功；
    evolve 在第 step 份预算看 due(step)，是就 write 一个新提示。llm 不会写提示时一句话。"""

    def __init__(self, llm):
        self.llm = _writes_prompts(llm)
        # 它是什么：还是交来的那个提出者（变体的描述、图的分幅都看它）
        self._described = as_proposer(llm).describe()
        self.reset()

    def describe(self):
        return self._described

    def reset(self):
        """一次运行开始：只有提出者自己的提示，没有提案。"""
        super().reset()
        first = as_proposer(self.llm)
        first.reset()
        self.entries = [PromptEntry(self.llm.hints, first)]
        # 上一次写提示是在第几个预算
        self._written_at = 0

    def _tournament(self, rng):
        if len(self.entries) == 1:
            return self.entries[0]
        a, b = rng.sample(self.entries, 2)
        return b if b.credit() > a.credit() else a

    def pick(self, rng):
        entry = self._tournament(rng)
        entry.proposals += 1
        return entry

    def gave(self, entry, child):
        entry.children += child is not None

    def candidates(self):
        return self.entries

    def proposer_of(self, entry):
        return entry.proposer

    def credit(self, entry, improved):
        entry.improved += improved

    def due(self, step):
        """第 step 份预算该写提示了吗：上一次之后过了 PROMPT_INTERVAL 份。"""
        return step - self._written_at >= PROMPT_INTERVAL

    def write(self, step, best, feedback, rng):
        """额外的写提示那一步：提出者从锦标赛挑出的父提示改出一个新的，读的是最好的程序 best
        和它的反馈；新的就收下，满了顶掉功劳最小的。返回收下没有。"""
        self._written_at = step
        parent = self._tournament(rng)
        hints = self.llm.propose_prompt(parent.hints, best, feedback, rng)
        if any(entry.hints == hints for entry in self.entries):
            return False
        if len(self.entries) >= PROMPT_POPULATION:
            worst = min(self.entries, key=PromptEntry.credit)
            self.entries.remove(worst)
        self.entries.append(PromptEntry(hints, as_proposer(self.llm.prompted(hints))))
        return True

    def leader(self):
        """赢了的提示：有孩子的里功劳最大的（一样大时最早进来的）。"""
        tried = [entry for entry in self.entries if entry.children] or self.entries
        return max(tried, key=PromptEntry.credit)


# ==== 8. evolve：问 → 提出 → 判 → 放进它的岛 → 迁移 ============================================

@dataclass(frozen=True)
class EvolveResult(Mapping):
    """evolve 的结果。和讲义里的字典一样读（out["best"]、out.keys()、"best" in out、out.get(...)），
    也能写成 out.best。"""
    # 每个提案之后见过的最好分数
    history: list
    # 最好的程序和分数（best, score = out["best"]）
    best: Scored
    db: IslandDatabase
    # 每个提案的结局（OUTCOMES 的键）
    outcomes: list
    # 进了数据库的、其中带不能启动的分支的（分支检查关掉时才会有）
    n_added: int
    n_added_bad_branch: int
    # 没给出程序的（照样占一个预算）、原样照抄父程序的、打了分又比父程序高的
    n_failed: int
    n_unchanged: int
    n_improved: int
    # 提示数据库（PromptDatabase；没开 meta_prompt 时是 None）
    prompts: object = None

    def __getitem__(self, key):
        names = [f.name for f in fields(self)]
        if key not in names:
            raise KeyError(f"evolve 的结果里没有 {key!r}，有的是：{', '.join(names)}")
        return getattr(self, key)

    def __iter__(self):
        return (f.name for f in fields(self))

    def __len__(self):
        return len(fields(self))


@dataclass
class _RunLog:
    """evolve 一路记下的数（跑的时候一直在变，所以不是 frozen）：每份预算之后的最好分数和结局。"""
    best: Scored
    history: list = field(default_factory=list)
    outcomes: list = field(default_factory=list)
    n_unchanged: int = 0
    n_improved: int = 0
    n_added_bad_branch: int = 0

    def record_proposal(self, ask, child, verdict, improved, outcome):
        """一个提案的结局（improved：子程序比父程序好吗）；进了数据库的比最好的还好，它就是新的
        最好。"""
        self.n_unchanged += child == ask.parent
        self.n_improved += improved
        if outcome == "added":
            self.n_added_bad_branch += not verdict.all_branches_valid
            if verdict.score > self.best.score:
                self.best = Scored(child, verdict.score)
        self.outcomes.append(outcome)
        self.history.append(self.best.score)

    def record_prompt(self):
        """写提示用掉的一份预算（PromptDatabase.write）。"""
        self.outcomes.append("prompt")
        self.history.append(self.best.score)

    def result(self, db, prompts):
        return EvolveResult(history=self.history, best=self.best, db=db, outcomes=self.outcomes,
                            n_added=self.outcomes.count("added"),
                            n_added_bad_branch=self.n_added_bad_branch,
                            n_failed=self.outcomes.count("failed"), n_unchanged=self.n_unchanged,
                            n_improved=self.n_improved, prompts=prompts)


def _not_a_prompt_database(llm):
    """llm 不能是自己建的 PromptDatabase：它只属于一次运行，由 evolve 开着 meta_prompt 时建。
    当提出者用时它只是挑提示的 Chooser，循环不给它写提示的那几份预算：说一句该怎么写。"""
    if isinstance(llm, PromptDatabase):
        inner = llm.describe().written()
        raise TypeError("llm 不用自己建 PromptDatabase：提示数据库只属于一次运行，开着 "
                        f"meta_prompt 时 evolve 自己建——写成 llm={inner}, meta_prompt=True")


@dataclass(frozen=True)
class Options:
    """一个变体的选项：学生在 VARIANTS 里写的那一组（evolve 的这几个关键字参数），没写的是讲义的
    默认值。名字和默认值只写在这里：evolve 的签名（help(evolve)）、check_options、变体的描述都读
    它；每个选项是什么写在 evolve 的说明里。建的时候就查：布尔的只收 True / False，整数的只收
    ≥ 1 的整数，llm 要是提出者（meta_prompt=True 时还要会写提示）——错了是一句话。"""
    llm: object = None
    evolution: bool = True
    n_islands: int = 4
    population: int = POPULATION
    cascade: bool = True
    meta_prompt: bool = False

    def __post_init__(self):
        for f in fields(self):
            if f.type is bool:
                check_choice(f.name, getattr(self, f.name), BOOLS)
        llm = self._llm()
        _not_a_prompt_database(llm)
        as_proposer(llm)
        if self.meta_prompt:
            _writes_prompts(llm)
        # 存成 Python int（numpy 的整数也收）
        store_positive_ints(self, [f.name for f in fields(self) if f.type is int], "")

    def _llm(self):
        """学生写的提出者；没写（None）是讲义的 MockLLM()。"""
        return MockLLM() if self.llm is None else self.llm

    def proposer(self):
        """这次运行的提出者：llm 当 Proposer 用（as_proposer）；开着 meta_prompt 时是包着它的提示
        数据库，它只属于一次运行：每次调用都是新的。"""
        if self.meta_prompt:
            return PromptDatabase(self._llm())
        return as_proposer(self._llm())

    def describe(self):
        """这个变体是什么（variants.Variant）：提出者说的它自己，加上 evolve 的每个选项（值和讲义的
        默认值）。观察按它和 full 比，图按它分幅（curves.py）。"""
        settings = tuple(Setting(f.name, getattr(self, f.name), f.default)
                         for f in fields(self) if f.name != "llm")
        return Variant(as_proposer(self._llm()).describe(), settings)


# 一个变体能写的 evolve 参数的名字（Options 的字段，按它们的顺序）
OPTION_NAMES = tuple(f.name for f in fields(Options))


def options_in_signature(func):
    """装饰器：func 的 **options 是 Options 的字段。help(func)、inspect.signature 看到的签名里，
    **options 换成每个字段（只能按名字传）和它的默认值——学生在 REPL 里看得到能写什么。
    名字和默认值还是只写在 Options 里。"""
    signature = inspect.signature(func)
    written = [p for p in signature.parameters.values() if p.kind is not p.VAR_KEYWORD]
    options = [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=f.default)
               for f in fields(Options)]
    before = [p for p in written if p.kind is not p.KEYWORD_ONLY]
    after = [p for p in written if p.kind is p.KEYWORD_ONLY]
    func.__signature__ = signature.replace(parameters=before + options + after)
    return func


@keywords_checked("变体的选项里", MockLLM)
@options_in_signature
def check_options(**options):
    """一个变体的门口：查 VARIANTS 里的一组选项，返回 Options（学生写的，没写的取讲义的默认值）。
    写错时抛出说清楚错在哪、可选什么的 TypeError / ValueError（名字写错、写的是 MockLLM 的选项
    时在这里说，值写错时 Options 说）。05 脚本开跑前用它检查所有变体。"""
    return Options(**options)


def _checked_run(ev, budget, seed, report, parallel):
    """evolve 的门口，变体的选项以外的那几个：返回 (预算, 种子, 并发数)。"""
    if not isinstance(ev, Evaluator):
        raise TypeError(f"ev 应是 Evaluator，收到 {type(ev).__name__}")
    if not is_int(seed):
        raise TypeError(f"seed 必须是整数（例如 0、1、2），收到 {seed!r}")
    if report is not None and not callable(report):
        raise TypeError(f"report 应是函数 report(step, outcome) 或 None，收到 {report!r}")
    return positive_int("budget", budget), int(seed), positive_int("parallel", parallel)


class Ask(NamedTuple):
    """交给提出者的一个提案请求：父程序、它的反馈、几个同岛的程序和分数（[Scored]）。"""
    parent: Program
    feedback: Feedback
    inspirations: list


def _starting_point(ev, initial):
    """起点和它的分数：在每个训练形状上跑一遍。起点自己就有不能启动的分支时，说清楚是哪几个。"""
    score = ev.benchmark(initial)
    if score is None:
        problems = static_check_program(render(initial), ev.table.hw)[1]
        raise ValueError("initial 程序不能当起点：" + "；".join(problems))
    return Scored(initial, score)


def _batches(budget, parallel):
    """预算按顺序切成一批批的提案编号，一批 parallel 个（parallel=1 就是一个接一个）。"""
    for first in range(0, budget, parallel):
        yield range(first, min(first + parallel, budget))


def _ask(ev, db, island, start, options, rng):
    """一个提案的请求：从它的岛（island）上挑父程序和 inspiration（不进化时总是起点、
    不看别的程序）。"""
    if options.evolution:
        parent, inspirations = db.sample(island, rng)
    else:
        parent, inspirations = start, []
    return Ask(parent.program, ev.feedback(parent.program, parent.score), inspirations)


# 提出者该交回的：程序、它的源码，或者给不出时 None
CHILD_KINDS = "Program、它的源码（字符串），给不出时 None"


def _as_child(child, proposer):
    """提出者交回的子程序：Program 原样，None 是没给出（照样占一个预算，记作 "failed"）。
    源码读成 Program，和 initial 一样（交回源码和交回 parse_program(源码) 是同一次运行）；另一份
    evolve.py 的 Program 换成这一份的。别的东西、读不成程序的源码，第一次就一句话（ProposerSlip）：
    不然整次运行都是 "failed"，分数停在 1.000，什么也不说。"""
    if child is None or isinstance(child, Program):
        return child
    who = proposer.describe().kind
    try:
        return _as_program(child)
    except ProgramError as slip:
        raise ProposerSlip(f"{who} 交回的源码读不成程序：{slip}；要交回 {CHILD_KINDS}") from None
    except TypeError:
        raise ProposerSlip(f"{who} 交回了 {type(child).__name__}（{child!r:.40}），不是程序："
                           f"要交回 {CHILD_KINDS}") from None


def _placed(db, island, child, score):
    """打了分的子程序试着放进它的岛：结局是进没进数据库。"""
    return "added" if db.add(island, child, score) else "not_added"


def _write_prompt(ev, prompts, log, step, rng):
    """第 step 份预算用来写一个提示（meta prompt），读这时最好的程序和它的反馈。"""
    best = log.best
    prompts.write(step, best.program, ev.feedback(best.program, best.score), rng)
    log.record_prompt()


def _after_step(step, outcome, report, db, options):
    """每份预算之后：告诉 report；每 MIGRATION_INTERVAL 个，各岛最好的程序迁到下一个岛。"""
    if report is not None:
        report(step, outcome)
    if options.evolution and (step + 1) % MIGRATION_INTERVAL == 0:
        db.migrate()


# 签名（help(evolve)）里有 Options 的每个字段和它的默认值；写错一个关键字参数是一句话
@keywords_checked("evolve() ", MockLLM)
@options_in_signature
def evolve(ev, budget, seed=0, *, initial=None, report=None, parallel=1, **options):
    """跑 budget 个提案，返回 EvolveResult：out.best 是最好的程序和它的分数，
    out.history 是每个提案之后的最好分数。没给出程序的、被拒掉的提案也占预算。

    ev：Evaluator（训练形状和计时表）。seed：随机种子。同一个 ev、同一个 seed，
      结果总是一样（evolve 先 ev.reset()，随机性全都来自 seed）。
    一个变体的选项（VARIANTS 里的一组就是这几个；默认值是讲义的，见签名）：
      llm          提出者。None 是 MockLLM()；也可以是任何有 propose(parent,
                   feedback, inspirations, rng) 方法的对象（见 Proposer 和
                   lecture14/README.md 的"自己写一个提出者"）
      evolution    False：AlphaEvolve 的 "No evolution"，每次都从起点改
      n_islands    几个岛
      population   每个岛最多留几个程序（n_islands=1、population=1 是爬山）
      cascade      False：不做级联，每个子程序都在所有训练形状上跑
      meta_prompt  True：提示和程序一起进化（提出者要会写提示：WritesPrompts）；
                   False 是 AlphaEvolve 的 "No meta prompt evolution"
    只属于这一次调用的：
      initial      起点：Program 或它的源码；None 是专家程序（分数总是相对专家）
      report       report(step, outcome)：每个提案之后调用
      parallel     K：一批 K 个提案一起交给提出者（propose_all），回复按提案的
                   顺序处理，和谁先答完无关（AlphaEvolve 异步流水线的确定版）
    写错一个参数是一句话的 TypeError / ValueError：错在哪、可选什么。
    """
    options = Options(**options)
    budget, seed, parallel = _checked_run(ev, budget, seed, report, parallel)
    initial = EXPERT if initial is None else _as_program(initial)
    # 这次运行的提出者：开着 meta_prompt 时是提示数据库
    proposer = options.proposer()
    prompts = proposer if options.meta_prompt else None
    # 评估器、记着一次运行里的事的提出者（Ensemble 的 bandit 计数）都先回到刚建好的样子
    ev.reset()
    proposer.reset()
    rng = random.Random(seed)
    start = _starting_point(ev, initial)
    db = IslandDatabase(options.n_islands, start.program, start.score, options.population)
    log = _RunLog(best=start)
    for steps in _batches(budget, parallel):
        if prompts is not None and prompts.due(steps[0]):
            # 这一份预算用来写提示（meta prompt），不提程序
            _write_prompt(ev, prompts, log, steps[0], rng)
            _after_step(steps[0], "prompt", report, db, options)
            steps = steps[1:]
        # 第 step 个提案属于第 step % n_islands 个岛（轮流）
        islands = [step % options.n_islands for step in steps]
        # 1. 问：每个提案从它的岛上挑父程序和 inspiration，带上父程序的反馈
        asks = [_ask(ev, db, island, start, options, rng) for island in islands]
        # 2. 提出：这一批一起交给提出者（交回的源码读成程序）
        children = [_as_child(child, proposer) for child in proposer.propose_all(asks, rng)]
        for step, island, ask, child in zip(steps, islands, asks, children):
            # 3. 判：分支检查 → 级联 → 打分；要从结局里学的提出者听一听子程序比父程序好不好
            verdict = ev.judge(child, ask.parent if options.cascade else None)
            improved = verdict.improves_on(ask.feedback.score)
            proposer.learn(improved)
            # 4. 打了分的放进它的岛
            outcome = verdict.rejection or _placed(db, island, child, verdict.score)
            log.record_proposal(ask, child, verdict, improved, outcome)
            # 5. 告诉 report；到了就迁移
            _after_step(step, outcome, report, db, options)
    return log.result(db, prompts)


# 当文件运行时（编辑器的 Run、%run、python -i lecture14/evolve.py）这个模块叫 __main__：之后
# import evolve 的扩展（ensemble.py、memo.py、real_llm/ 里的）拿到的就是这一份，不再载入第二份
# （第二份的 Program、Evaluator 是另外的类）。已经 import 过 evolve 时两份都在：门口按能做什么
# 认提出者，另一份的 Program 换成这一份的（_as_program）
if __name__ == "__main__":
    sys.modules.setdefault("evolve", sys.modules[__name__])
