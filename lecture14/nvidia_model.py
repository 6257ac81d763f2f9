"""
CS349E · 第 14 讲 · nvidia_model.py —— NVIDIA 的 nvMatmulHeuristics：载入它、两种配置之间的映射、
它的候选配置和估时

nvidia_heuristics.py 拿它和讲义比（三个对照），这里只有和 NVIDIA 的库打交道的那几件事：
没装或用不了时的那一句话；它的内核配置（CTA 块、warp 块、指令块、级数、split-K……）和我们的
(BM, BN, BK, warps, stages, split_k) 之间怎样对应——这个对应是一个会改变答案的选择，每一步都写明
理由，对不上的由调用的一方数出来；它给一个形状的候选配置、它给一个配置估的时间。

它是可选的依赖：lecture14/requirements-nvidia.txt（NVIDIA 的许可证，仓库里不带它的文件）。

自上而下读：
  1. 载入它（没有时的那一句话）
  2. 两种配置之间的映射：NVIDIA → 我们（它挑的配置），我们 → NVIDIA（请它估时）
  3. 它的候选和估时（Nvidia）
"""
import ctypes
import math
import os
import platform
import shlex
import sys
from dataclasses import dataclass

import needs_numpy
from evolve import CONFIG_CHOICES, GROUP_M, H100, H200, Config

HERE = os.path.dirname(os.path.abspath(__file__))


# ==== 1. 载入它 =================================================================================

# 装它的那个文件（lecture14/requirements-nvidia.txt 说了许可证和为什么钉死版本）
REQUIREMENTS = os.path.join(HERE, "requirements-nvidia.txt")


def install_line(cwd):
    """装 NVIDIA 的库的那条命令：README 建的虚拟环境的 Python，路径相对 cwd（照抄就能用）。"""
    requirements = os.path.relpath(REQUIREMENTS, cwd)
    return shlex.join([needs_numpy.venv_python(cwd), "-m", "pip", "install", "-r", requirements])


def supported_machine():
    """NVIDIA 只发布了 x86_64 Linux、Python 3.9 起的 wheel。"""
    return (platform.machine() == "x86_64" and sys.platform == "linux"
            and sys.version_info >= (3, 9))


def nvidia_library():
    """(nvMatmulHeuristics 模块, None)；用不了时是 (None, 那一句话)。三种用不了：这台机器没有
    NVIDIA 的 wheel、没装、装了但它的库载入不了（例如别的版本：它自己检查版本号）。"""
    install = install_line(os.getcwd())
    why = "这个对照要 NVIDIA 的 nvMatmulHeuristics（可选的依赖，NVIDIA 的许可证）"
    if not supported_machine():
        here = f"{platform.machine()}，{sys.platform}，Python {platform.python_version()}"
        return None, (f"{why}，NVIDIA 只发布了 x86_64 Linux、Python 3.9 起的版本，这里（{here}）"
                      f"装不了，所以不比；在那样的机器上这样装：\n  {install}")
    try:
        import nvMatmulHeuristics as nvmmh
        # 它在造第一个对象时才载入自己的 .so、检查版本：在这里试一次
        nvmmh.NvMatmulHeuristicsInterfaceEx(load_discovery_implicitly=False)
    except ModuleNotFoundError as missing:
        # 它自己装坏了（缺的是它里面的模块）不是这种情况：照常报出来
        if missing.name != "nvMatmulHeuristics":
            raise
        return None, (f"{why}，这里没装，所以不比；装进 README 的\"运行\"一节建的虚拟环境"
                      f"再运行：\n  {install}")
    except (OSError, AssertionError) as error:
        said = f"（{error}）" if str(error) else ""
        return None, (f"{why}，装了但它的库载入不了{said}，所以不比；"
                      f"这里用的是钉死的版本，重装一次：\n  {install}")
    return nvmmh, None


# ==== 2. 两种配置之间的映射 =======================================================================
# 我们的配置是 (BM, BN, BK, warps, stages, split_k)；NVIDIA 的是 CTA 块、warp 块、指令块、
# 加载级数、split-K、swizzle、CTA 顺序、cluster。两边都有的字段一一对应；
# 只有 NVIDIA 有的几项（swizzle、CTA 顺序、cluster、指令块）在我们的内核里是固定的：
# 它总是按 GROUP_M = 8 行一组启动、不用 cluster、指令由 Triton 定。

@dataclass(frozen=True)
class Kernel:
    """NVIDIA 的一个内核配置（nvmmhKernelConfiguration_t 的各项）。块都是 (M, N, K)。"""
    cta: tuple
    warp: tuple
    instr: tuple
    split_k: int
    stages: int
    swizzle: int
    cta_order: int
    cluster: tuple


# NVIDIA 的 Triton 目标给 fp16 的每个配置用的都是 m16n8k16 的 mma.sync 指令块：
# 我们的配置请它估时时也用它
INSTR = (16, 8, 16)
# 我们的配置请它估时时：NVIDIA 的 gridSwizzle 按它的头文件和 Triton 的 GROUP_SIZE_M 是同一个
# 定义，我们的内核是 GROUP_M；CTA 顺序取 0（它的默认），不用 cluster
CTA_ORDER = 0
NO_CLUSTER = (1, 1)


def nearest(value, choices):
    """choices 里和 value 最近的：按对数量（块大小、warp 数、split-K 的份数都是成倍地起作用：
    split-K 3 份离 4 份比离 2 份近，每份的 K 差 1.33 倍对 1.5 倍），一样近时取小的
    （小的更放得下共享内存和寄存器）。"""
    return min(choices, key=lambda c: (abs(math.log2(c) - math.log2(value)), c))


def nvidia_fields(kernel):
    """NVIDIA 的配置里和我们的六个字段对应的值。"""
    cta_m, cta_n, cta_k = kernel.cta
    warp_m, warp_n, warp_k = kernel.warp
    return {"BM": cta_m, "BN": cta_n, "BK": cta_k,
            # 一个 CTA 里的 warp 数 = CTA 块里排了几个 warp 块：M、N 两个方向相乘；
            # K 方向也切开（slice-K）时每一片是另外的 warp，再乘上（Triton 目标不切，是 1）
            "warps": (cta_m // warp_m) * (cta_n // warp_n) * (cta_k // warp_k),
            # 都是"几级缓冲轮流用"：它的 loadStages 就是 Triton 的 num_stages
            "stages": kernel.stages,
            "split_k": kernel.split_k}


@dataclass(frozen=True)
class Mapped:
    """NVIDIA 的一个配置放进我们的搜索空间：cfg 是放进来的配置，rounded 是取了最近值的字段
    ((字段, NVIDIA 的值, 我们取的值), ...)，空的就是六个字段都正好在我们的取值里。"""
    cfg: Config
    rounded: tuple


def to_ours(kernel):
    """NVIDIA → 我们：六个字段各自对应（nvidia_fields），不在 CONFIG_CHOICES 里的取最近的
    （nearest）。只有 NVIDIA 有的几项丢掉（第 2 节开头）。映射过来的配置在我们的模型里能不能启动
    另看（static_valid）：不能启动就是"对不上"。"""
    values = nvidia_fields(kernel)
    ours = {f: nearest(v, CONFIG_CHOICES[f]) for f, v in values.items()}
    rounded = tuple((f, values[f], ours[f]) for f in CONFIG_CHOICES if values[f] != ours[f])
    return Mapped(Config(**ours), rounded)


def warp_grid(cfg):
    """Triton 把 cfg.warps 个 warp 怎样排在 BM×BN 的块上：(M 方向几个, N 方向几个)。
    照 Triton 给 mma.sync 排 warp 的规则（warpsPerTileV2）：每个 warp 至少一个 16×8 的指令块，
    每次把 warp 数翻倍给剩下指令块多的那一边（一样多给 M）；M 方向只剩一块时还要翻倍，也给 M。
    NVIDIA 的估时不看 warp 块的形状，只查它放不放得下（第 3 节量给你看）：排法照 Triton，
    是因为实测的就是 Triton 的内核。"""
    grid = [1, 1]
    blocks = [math.ceil(cfg.BM / INSTR[0]), math.ceil(cfg.BN / INSTR[1])]
    while grid[0] * grid[1] < cfg.warps:
        if blocks[0] >= blocks[1]:
            grid[0] *= 2
            blocks[0] = max(blocks[0] // 2, 1)
        else:
            grid[1] *= 2
            blocks[1] //= 2
    return grid[0], grid[1]


def to_nvidia(cfg):
    """我们 → NVIDIA（请它估时）：CTA 块就是 (BM, BN, BK)；warp 块是 CTA 块按 warp_grid 切开、
    K 方向不切；加载级数、split-K 照抄；只有它有的几项取我们的内核的（INSTR、GROUP_M、CTA_ORDER、
    NO_CLUSTER）。to_ours(to_nvidia(cfg)) 就是 cfg，一个字段都不取近似。"""
    rows, columns = warp_grid(cfg)
    return Kernel(cta=(cfg.BM, cfg.BN, cfg.BK), warp=(cfg.BM // rows, cfg.BN // columns, cfg.BK),
                  instr=INSTR, split_k=cfg.split_k, stages=cfg.stages, swizzle=GROUP_M,
                  cta_order=CTA_ORDER, cluster=NO_CLUSTER)


# ==== 3. NVIDIA 的库 ==============================================================================

# fp16 输入、fp32 累加、fp16 输出（它的精度写法 "HSH"）：我们的模型写回 C 用 2 字节，
# 像 Triton 的内核写回输入的类型。实测是 bf16（"TST"）：它给 bf16 的估时和 fp16 一模一样
# （tests/test_nvidia_heuristics.py 查），所以三个对照都用这一个
PRECISION = "HSH"
# 每个形状要它排在前面的几个配置：首选放进来不能启动时往下找（打印的计数说用到了第几个）
CANDIDATES = 8
# NVIDIA 的两种"首选"，答案差得多，所以两行都印：
#   默认（flags 0）：它给的是一份拿去实测挑选（autotune）的候选，首选多是 128×128×32；
#   PERF_MODEL_BASED_AUTO_TUNING：它先生成大量候选，按自己的性能模型排好再给前几个
MODES = {"默认": "NONE", "按它的模型排": "PERF_MODEL_BASED_AUTO_TUNING"}
# 讲义的模型是 H100，实测是 H200：两边各用 NVIDIA 预先定义的同一块 GPU
GPUS = {H100.name: "H100_SXM", H200.name: "H200_SXM"}


def kernel_of(struct):
    """它的 C 结构 nvmmhKernelConfiguration_t → Kernel。"""
    return Kernel(cta=tuple(struct.cta), warp=tuple(struct.warp), instr=tuple(struct.instr),
                  split_k=struct.splitK, stages=struct.loadStages, swizzle=struct.gridSwizzle,
                  cta_order=struct.ctaOrder, cluster=tuple(struct.cluster))


class Nvidia:
    """NVIDIA 的启发式和估时，对一块 GPU（hw 是我们的 Hardware，按 GPUS 找它的那块）：
    candidates(shape) 是它排在前面的配置，seconds(kernel, shape) 是它估的时间。
    A、B 都是行主序（它的 NN_ROW_MAJOR），和实测的内核一样（data/README.md）。
    不载入它内部的 discovery 数据（它在自己的 GPU 上对各目标测过的时间）：要比的是它的解析模型。
    用 NvMatmulHeuristicsInterfaceEx：它退出时不销毁句柄，0.1.0.27 里用过硬件描述的句柄一销毁
    就段错误；估时直接调 C 函数 nvMatmulHeuristicsEstimateRuntime，和它的 get() 一样——它的
    estimateSiliconMetric 把目标当成 backend 指针传进去，段错误。"""

    def __init__(self, nvmmh, hw, mode="默认"):
        self.hw = hw
        self._nvmmh = nvmmh
        flags = getattr(nvmmh.NvMatmulHeuristicsFlags, MODES[mode])
        gpu = getattr(nvmmh.NvMatmulHeuristicsNvidiaGpu, GPUS[hw.name])
        self._target = nvmmh.NvMatmulHeuristicsTarget.TRITON
        self._lib = nvmmh.NvMatmulHeuristicsInterfaceEx(
            backend=self._target, flags=flags, load_discovery_implicitly=False, gpu=gpu)

    def _problem(self, shape):
        row_major = self._nvmmh.NvMatmulHeuristicsMatmulLayout.NN_ROW_MAJOR
        return self._lib.makeNvMatmulHeuristicsProblem(shape.M, shape.N, shape.K, row_major)

    def candidates(self, shape, count=CANDIDATES):
        """它给这个形状的前 count 个配置，按它的顺序。"""
        found = self._lib.get(self._problem(shape), count, precision=PRECISION)
        return [kernel_of(one["nvmmhKernelConfiguration"]) for one in found]

    def seconds(self, kernel, shape):
        """它估的时间（秒）；它不认这个配置（返回 0）时是 inf，和我们的模型里不能启动一样。"""
        struct = self._lib.nvmmhKernelConfiguration()
        struct.cta[:], struct.warp[:], struct.instr[:] = kernel.cta, kernel.warp, kernel.instr
        struct.splitK, struct.loadStages = kernel.split_k, kernel.stages
        struct.gridSwizzle, struct.ctaOrder = kernel.swizzle, kernel.cta_order
        struct.cluster[:] = kernel.cluster
        problem = self._problem(shape)
        t = self._lib.nvMatmulHeuristicsEstimateRuntime(
            self._lib.handle, PRECISION.encode("ascii"), ctypes.c_int(self._target),
            ctypes.byref(problem), ctypes.byref(struct), self._lib.hardware_descriptor)
        return t if t > 0 else math.inf

    def time(self, cfg, shape):
        """我们的一个配置，它估的时间（to_nvidia 映射过去）：和 TimeTable.time 一样用。"""
        return self.seconds(to_nvidia(cfg), shape)
