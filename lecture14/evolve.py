"""
CS349E · 第 14 讲 · evolve.py —— 迷你 AlphaEvolve：在 H100 解析计时模型上进化 GEMM 分块启发式

自上而下读：
  1. 硬件（H100 / H200 的数据表事实）
  2. 形状与配置（Llama 的 8 个投影 × M；2,880 个分块配置）
  3. 计时模型（第 13 讲的解析模型：启动、补齐、波次、带宽、延迟、L2 复用、张量核效率）
"""
import math
from dataclasses import dataclass
from itertools import product

import numpy as np


# ============================================================================
# 1. 硬件
# ============================================================================

@dataclass(frozen=True)
class Hardware:
    """一块 Hopper GPU 的几个数。H100 和 H200 的 SM、时钟、张量核相同，只有显存和 L2 不同。"""
    name: str
    sms: int                  # SM 个数
    peak_flops: float         # 稠密 bf16 峰值，FLOP/s
    hbm_bw: float             # 显存带宽，B/s（数据表值）
    l2_bytes: int             # L2 容量
    smem_per_block: int       # 每个块可申请的共享内存上限（opt-in），B
    smem_per_sm: int          # 每个 SM 的共享内存，B（决定一个 SM 上能同时驻留几个块）
    regs_per_sm: int          # 每个 SM 的 32 位寄存器数
    regs_per_thread: int      # 每个线程最多的寄存器数
    max_warps_per_sm: int     # 每个 SM 最多驻留的 warp 数
    launch_s: float           # 一次内核启动到结束的最小开销，s


# 来源：NVIDIA H100 Tensor Core GPU 数据表（SXM5：132 SM，989.4 TFLOP/s 稠密 bf16，3.35 TB/s HBM3，50 MB L2）；
# CUDA C Programming Guide 表 "Technical Specifications per Compute Capability"（9.0：每块 227 KB = 232,448 B
# opt-in 共享内存，每 SM 228 KB，每 SM 65,536 个寄存器，每线程 255 个，每 SM 64 个 warp）；
# 启动开销：data/h200-gemm/device.txt 里最小内核从启动到结束 4.5 µs。
H100 = Hardware("H100 SXM", sms=132, peak_flops=989.4e12, hbm_bw=3.35e12, l2_bytes=50 * 2**20,
                smem_per_block=232_448, smem_per_sm=233_472, regs_per_sm=65_536, regs_per_thread=255,
                max_warps_per_sm=64, launch_s=4.5e-6)
# 来源：NVIDIA H200 数据表（4.8 TB/s HBM3e，141 GB）；L2 = 60 MiB 来自 torch 读出的设备属性（device.txt）。
H200 = Hardware("H200 SXM", sms=132, peak_flops=989.4e12, hbm_bw=4.8e12, l2_bytes=60 * 2**20,
                smem_per_block=232_448, smem_per_sm=233_472, regs_per_sm=65_536, regs_per_thread=255,
                max_warps_per_sm=64, launch_s=4.5e-6)


# ============================================================================
# 2. 形状与配置
# ============================================================================

@dataclass(frozen=True)
class Shape:
    """一次矩阵乘 C[M,N] = A[M,K]·B[K,N]；name 是它来自哪一层。"""
    name: str
    M: int
    N: int
    K: int

    def __post_init__(self):
        for field in ("M", "N", "K"):
            v = getattr(self, field)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"Shape {self.name!r}: {field} 必须是正整数，收到 {v!r}")

    def label(self):
        return f"{self.name} M={self.M}"


# Llama 的 8 个投影，名字 → (N, K)。70B/8 是 70B 在 8 张卡上张量并行切开后每张卡上的一片。
LAYERS = {
    "8B qkv": (6144, 4096), "8B o": (4096, 4096), "8B gate_up": (28672, 4096), "8B down": (4096, 14336),
    "70B/8 qkv": (1280, 8192), "70B/8 o": (8192, 1024), "70B/8 gate_up": (7168, 8192), "70B/8 down": (8192, 3584),
}
# M = 一批里的 token 数：1–128 是 decode，往上是 prefill。
M_VALUES = (1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)


def all_shapes():
    """讲义的 96 个形状：8 层 × 12 个 M。"""
    return [Shape(name, M, N, K) for name, (N, K) in LAYERS.items() for M in M_VALUES]


def split_shapes(shapes):
    """确定的对半切分（AlphaEvolve 的内核形状也是一半训练、一半测试）。

    规则：按层分组，每层的形状按 M 排序后交替分配；相邻两层的起点错开一位
    （第 0 层的偶数位进训练，第 1 层的奇数位进训练……）。于是每层、每段 M（小的和大的）都有测试形状，
    而同一个 M 在一半的层里是训练、另一半里是测试。
    """
    by_layer = {}
    for s in shapes:
        by_layer.setdefault(s.name, []).append(s)
    train, test = [], []
    for i, name in enumerate(by_layer):
        for j, s in enumerate(sorted(by_layer[name], key=lambda s: s.M)):
            (train if (i + j) % 2 == 0 else test).append(s)
    return train, test


@dataclass(frozen=True)
class Config:
    """一个分块内核的配置：块 BM×BN，K 方向每步 BK，warp 数，流水级数，K 切几份。"""
    BM: int
    BN: int
    BK: int
    warps: int
    stages: int
    split_k: int


# 搜索空间：5 × 4 × 3 × 3 × 4 × 4 = 2,880 个配置。
CONFIG_CHOICES = {"BM": (16, 32, 64, 128, 256), "BN": (32, 64, 128, 256), "BK": (32, 64, 128),
                  "warps": (2, 4, 8), "stages": (2, 3, 4, 5), "split_k": (1, 2, 4, 8)}
CONFIGS = [Config(*v) for v in product(*CONFIG_CHOICES.values())]
CONFIG_INDEX = {c: i for i, c in enumerate(CONFIGS)}


# ============================================================================
# 3. 计时模型
# ============================================================================
# 一个 Triton 风格的分块 GEMM：每个块算 C 的一块 BM×BN，沿 K 每步取 A 的 BM×BK 和 B 的 BK×BN 进共享内存，
# stages 级流水让取数和计算重叠；split_k > 1 时 K 切成几份，各自用 fp32 原子加累加到清零过的 C 上。
# 时间 = 启动 + 主循环（算力、L2、显存、单 SM 取数、延迟五者中最慢的那个）+ split-K 的清零和原子加。
# 效率系数都有物理来源，在 tests/test_fidelity.py 里和真实 H200 的测量对照（见 README）。

ACC_BYTES = 4                # fp32 累加器 / split-K 的部分和
ELEM_BYTES = 2               # bf16
MMA_TILE = 16 * 8            # 一条 mma.sync（m16n8k16）算的输出元素数：每个 warp 至少要分到一个
REG_OVERHEAD = 40            # 累加器之外每个线程的寄存器：地址、循环变量、A/B 片段。40 使 128×256 配 4 个 warp
                             # （累加器 256 个）溢出，和 Triton 在 H200 上的表现一致（慢 6 倍以上）
GROUP_M = 8                  # 分组启动顺序：8 行块一组，一波块共享 A 的行、B 的列，在 L2 里复用

# —— 效率系数：在 H200 的 Triton 测量上校准（tests/test_fidelity.py，README 有四个对照数字），取整到两位以内 ——
WGMMA_EFF = 0.95             # BM ≥ 64 且有整个 warpgroup（4 个 warp）时用 Hopper 的 wgmma：张量核在主循环里能到的峰值比例
MMA_SYNC_EFF = 0.50          # 否则退回 Ampere 式的 mma.sync：在 H100 上约为 wgmma 的一半（FlashAttention-2 对 3 的差距）
HIDE_WARPS = 1.0             # 驻留 warp 藏发射延迟：效率 × w / (w + 1)，4 个 warp 比 8 个慢约 10%（H200 上 128×128 实测 15%）
CLOCK_HZ = 1.755e9           # 张量核跑满时的时钟（H100 SXM 的 boost 1.98 GHz 在满载时下不来）
SMEM_BW_PER_SM = 128 * CLOCK_HZ  # 每个 SM 的共享内存带宽：128 B/时钟
L2_BW_PER_SM = 64 * CLOCK_HZ     # 每个 SM 从 L2 取数的上限：64 B/时钟
L2_BW = 12.0e12              # 整个 L2 的带宽：小块反复读 A、B 时的瓶颈（H200 上 BM=16 的大形状实测约 11–12 TB/s）
DRAM_EFF = 0.80              # 分块取数能用到的显存带宽比例（device-to-device 拷贝实测 0.885，分块取数更零碎）
LOAD_LATENCY = 1.0e-6        # 一级流水从发出取数到数据可用：显存延迟约 0.6 µs + 同步和地址计算；stages−1 级同时在路上
ATOMIC_BW = 2.0e12           # split-K 的 fp32 原子加在 L2 上的吞吐（读-改-写），B/s
OVERLAP_P = 5.0              # 几个瓶颈不会完美重叠：主循环 = 各项时间的 p-范数（p → ∞ 是取最大，p = 1 是全部相加）


def _config_columns(configs):
    """配置表 → 每个字段一列 float 数组，供向量化计算。"""
    return {f: np.array([getattr(c, f) for c in configs], dtype=np.float64) for f in CONFIG_CHOICES}


def _registers(c):
    return c["BM"] * c["BN"] / (32 * c["warps"]) + REG_OVERHEAD


def smem_bytes(cfg):
    """共享内存：stages 级流水 × (A 块 + B 块) × bf16。和 Triton 在 Hopper 上拒绝配置时报的字节数相同。"""
    return cfg.stages * (cfg.BM + cfg.BN) * cfg.BK * ELEM_BYTES


def invalid_reasons(cfg, hw=H100):
    """这个配置为什么不能启动（空列表 = 能启动）。"""
    reasons = []
    if smem_bytes(cfg) > hw.smem_per_block:
        reasons.append(f"共享内存 {smem_bytes(cfg):,} B 超过每块上限 {hw.smem_per_block:,} B")
    regs = _registers({f: getattr(cfg, f) for f in CONFIG_CHOICES})
    if regs > hw.regs_per_thread:
        reasons.append(f"寄存器：每线程约 {regs:.0f} 个（fp32 累加器 {regs - REG_OVERHEAD:.0f} + {REG_OVERHEAD}），"
                       f"超过上限 {hw.regs_per_thread}")
    if cfg.BM * cfg.BN < MMA_TILE * cfg.warps:
        reasons.append(f"warp 的块：{cfg.BM}×{cfg.BN} 分给 {cfg.warps} 个 warp，每个 warp 不到一个 16×8 的 MMA 块")
    return reasons


def static_valid(cfg, hw=H100):
    """不用跑就知道能不能启动：共享内存、寄存器、每个 warp 至少一个 MMA 块。"""
    return not invalid_reasons(cfg, hw)


def _valid_mask(c, hw):
    smem = c["stages"] * (c["BM"] + c["BN"]) * c["BK"] * ELEM_BYTES
    return ((smem <= hw.smem_per_block) & (_registers(c) <= hw.regs_per_thread)
            & (c["BM"] * c["BN"] >= MMA_TILE * c["warps"]))


def roofline(shape, hw=H100):
    """下界：算力和显存带宽都用满时的时间，s。"""
    M, N, K = shape.M, shape.N, shape.K
    return max(2 * M * N * K / hw.peak_flops, ELEM_BYTES * (M * K + K * N + M * N) / hw.hbm_bw)


def _cdiv(a, b):
    return np.ceil(a / b)


def _kernel_times(c, M, N, K, hw):
    """所有配置 × 所有形状的时间（s）。c 的每列形如 (1, C)，M、N、K 形如 (S, 1)；不能启动的是 inf。"""
    BM, BN, BK, warps, stages, sk = c["BM"], c["BN"], c["BK"], c["warps"], c["stages"], c["split_k"]
    threads = 32 * warps
    smem = stages * (BM + BN) * BK * ELEM_BYTES
    regs = np.ceil(_registers(c) / 8) * 8                               # 寄存器按 8 个一组分配
    per_sm = np.minimum.reduce([np.floor(hw.smem_per_sm / smem),        # 一个 SM 上同时驻留几个块
                                np.floor(hw.regs_per_sm / (regs * threads)),
                                np.floor(hw.max_warps_per_sm / warps)])
    per_sm = np.maximum(per_sm, 1)
    slots = hw.sms * per_sm

    tiles_m, tiles_n = _cdiv(M, BM), _cdiv(N, BN)
    tiles = tiles_m * tiles_n
    blocks = tiles * sk
    k_iters = _cdiv(_cdiv(K, sk), BK)                                    # K 除不尽时最后一步补齐
    waves = _cdiv(blocks, slots)
    blocks_on_busiest_sm = _cdiv(blocks, hw.sms)                         # 波次量化：最忙的 SM 决定时间

    # 算力：补齐的块照样要算（M < BM 时浪费）；小块用不上 wgmma；驻留 warp 少时藏不住延迟。
    wgmma = (BM >= 64) & (warps >= 4)
    resident_warps = np.minimum(per_sm, _cdiv(blocks, hw.sms)) * warps
    mma_eff = np.where(wgmma, WGMMA_EFF, MMA_SYNC_EFF) * resident_warps / (resident_warps + HIDE_WARPS)
    flops_block = 2 * BM * BN * BK * k_iters
    t_compute = blocks_on_busiest_sm * flops_block / (hw.peak_flops / hw.sms * mma_eff)
    # 共享内存：每步先写进来 (BM + BN)×BK，再被 MMA 读。一条 wgmma 算 64 行 × 整个 BN，所以 B 每 64 行读一遍、
    # A 每个 warpgroup 列读一遍；mma.sync 的 warp 把片段读进寄存器复用，A 每个 warp 列、B 每个 warp 行读一遍。
    # 所以同样的面积，128×256 比 256×128、128×128 省共享内存带宽。
    units = np.where(wgmma, warps / 4, warps)
    units_m = np.minimum(units, np.maximum(BM // np.where(wgmma, 64, 16), 1))
    units_n = units / units_m
    b_reads = np.where(wgmma, BM / 64, units_m)
    smem_block = (BM * units_n + BN * b_reads + BM + BN) * BK * ELEM_BYTES * k_iters
    t_smem = blocks_on_busiest_sm * smem_block / SMEM_BW_PER_SM

    # 取数：A 被遮掉的行（M < BM）不读；每个块都要从 L2 读自己的 A 行、B 列。
    bytes_block = (np.minimum(BM, M) + BN) * BK * ELEM_BYTES * k_iters
    t_l2 = blocks * bytes_block / L2_BW
    t_sm = blocks_on_busiest_sm * bytes_block / L2_BW_PER_SM            # 块太少时，几个 SM 拉不动整个显存
    t_latency = waves * k_iters * LOAD_LATENCY / np.maximum(stages - 1, 1)  # 每个块串行走 k_iters 步，stages−1 步在路上

    # 显存：A、B 至少读一遍；放不进 L2 时，每一波按分组顺序读自己那片 A 行和 B 列。
    unique_in = ELEM_BYTES * (M * K + K * N)
    wave_blocks = np.minimum(tiles, slots)
    wave_rows = np.minimum(tiles_m, np.maximum(GROUP_M, _cdiv(wave_blocks, tiles_n)))
    wave_cols = np.minimum(tiles_n, _cdiv(wave_blocks, wave_rows))
    wave_bytes = ELEM_BYTES * K * (np.minimum(wave_rows * BM, M) + wave_cols * BN)
    rereads = np.where(unique_in > hw.l2_bytes, tiles / wave_blocks * wave_bytes, 0)     # 最后一波不满，按比例算
    out_bytes = np.where(sk > 1, ACC_BYTES, ELEM_BYTES) * M * N
    dram = np.maximum(unique_in, rereads) + out_bytes
    t_dram = dram / (hw.hbm_bw * DRAM_EFF)

    terms = [t_compute, t_smem, t_l2, t_sm, t_latency, t_dram]
    main_loop = sum(t ** OVERLAP_P for t in terms) ** (1 / OVERLAP_P)
    # split-K：先启动一个清零 C 的内核，各份的 fp32 部分和再原子加上去。
    t_split = np.where(sk > 1, hw.launch_s + ACC_BYTES * M * N / (hw.hbm_bw * DRAM_EFF)
                       + 2 * ACC_BYTES * blocks * np.minimum(BM, M) * BN / ATOMIC_BW, 0)
    t = hw.launch_s + main_loop + t_split
    return np.where(_valid_mask(c, hw), t, np.inf)


class TimeTable:
    """(配置, 形状) → 时间。每个形状第一次被问到时，一次算出全部 2,880 个配置（numpy 向量化），之后查表。"""

    def __init__(self, hw=H100):
        if not isinstance(hw, Hardware):
            raise TypeError(f"hw 应是 Hardware（例如 H100、H200），收到 {hw!r}")
        self.hw = hw
        self._columns = {f: v[None, :] for f, v in _config_columns(CONFIGS).items()}
        self._rows = {}                                              # Shape → 长 2,880 的时间数组

    def times(self, shape):
        """这个形状上所有 CONFIGS 的时间（s），顺序同 CONFIGS。"""
        row = self._rows.get(shape)
        if row is None:
            self.matrix([shape])
            row = self._rows[shape]
        return row

    def matrix(self, shapes):
        """形状 × 配置的时间矩阵；没算过的形状一次性向量化补上。"""
        todo = list(dict.fromkeys(s for s in shapes if s not in self._rows))
        if todo:
            M, N, K = (np.array([[getattr(s, f)] for s in todo], dtype=np.float64) for f in "MNK")
            for s, row in zip(todo, _kernel_times(self._columns, M, N, K, self.hw)):
                row.setflags(write=False)
                self._rows[s] = row
        return np.stack([self._rows[s] for s in shapes])

    def time(self, cfg, shape):
        """一个配置在一个形状上的时间（s）；不能启动的配置是 math.inf。"""
        i = CONFIG_INDEX.get(cfg)
        if i is not None:
            return float(self.times(shape)[i])
        columns = _config_columns([cfg])                             # 搜索空间以外的手写配置：单独算
        M, N, K = (np.array([[getattr(shape, f)]], dtype=np.float64) for f in "MNK")
        return float(_kernel_times({f: v[None, :] for f, v in columns.items()}, M, N, K, self.hw)[0, 0])

    def oracle(self, shape):
        """逐形状最优：(最快的配置, 它的时间)。"""
        row = self.times(shape)
        i = int(np.argmin(row))
        return CONFIGS[i], float(row[i])
