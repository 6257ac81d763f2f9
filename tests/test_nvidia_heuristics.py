"""nvidia_heuristics.py：NVIDIA 的配置和我们的配置之间的映射、观察的规则、没有 NVIDIA 的库时的
那一句话（这些不要它的库）；装了它时，在几个形状上把三个对照跑一遍（没装就跳过，说为什么）。"""
import math
import os
import sys
from collections import Counter

import numpy as np
import pytest
from conftest import start_command

import compare
import fidelity
import nvidia_heuristics as nvh
import nvidia_model as nvm
from evolve import CONFIGS, H100, H200, Config, Shape, TimeTable, static_valid
from nvidia_model import Kernel, Mapped

LAUNCHABLE = [cfg for cfg in CONFIGS if static_valid(cfg, H100)]


def kernel(cta, warp, split_k=1, stages=3):
    """NVIDIA 的 Triton 目标给出的那种配置：指令块 m16n8k16，swizzle 1，不用 cluster。"""
    return Kernel(cta=cta, warp=warp, instr=(16, 8, 16), split_k=split_k, stages=stages,
                  swizzle=1, cta_order=0, cluster=(1, 1))


# —— 映射（不要 NVIDIA 的库）——

@pytest.mark.parametrize("cta, warp, warps", [
    # NVIDIA 自己给出过的几种：一个 CTA 里几个 warp 块，就是几个 warp
    ((128, 128, 32), (64, 64, 32), 4),
    ((16, 64, 64), (16, 16, 64), 4),
    ((64, 32, 64), (16, 32, 64), 4),
    ((128, 64, 64), (32, 64, 64), 4),
    ((256, 128, 64), (128, 32, 64), 8),
    ((64, 64, 64), (32, 64, 64), 2),
    # K 方向也切开（slice-K）：每一片是另外的 warp
    ((128, 128, 64), (64, 64, 32), 8),
])
def test_warps_are_the_number_of_warp_tiles_in_the_cta_tile(cta, warp, warps):
    """warps = (CTA_M/warp_M)·(CTA_N/warp_N)·(CTA_K/warp_K)。把 warp 数读成 warp 块的行数
    （warp_M）这样的错，这里当场失败。"""
    mapped = nvm.to_ours(kernel(cta, warp))
    assert mapped.cfg.warps == warps
    assert (mapped.cfg.BM, mapped.cfg.BN, mapped.cfg.BK) == cta
    assert mapped.rounded == ()


def test_every_launchable_config_goes_to_nvidia_and_comes_back_unchanged():
    """我们 → NVIDIA → 我们：讲义的搜索空间里能启动的每个配置都原样回来，一个字段都不取近似。"""
    assert len(LAUNCHABLE) > 2000
    for cfg in LAUNCHABLE:
        assert nvm.to_ours(nvm.to_nvidia(cfg)) == Mapped(cfg, ()), cfg


def test_values_outside_our_choices_go_to_the_nearest_ratio_and_are_counted():
    """不在我们的取值里：按对数取最近的（split-K 3 → 4，级数 8 → 5，16 个 warp → 8，
    BK 16 → 32），每一个都记下来。"""
    mapped = nvm.to_ours(kernel((128, 128, 16), (32, 32, 16), split_k=3, stages=8))
    assert mapped.cfg == Config(128, 128, 32, 8, 5, 4)
    assert mapped.rounded == (("BK", 16, 32), ("warps", 16, 8), ("stages", 8, 5),
                              ("split_k", 3, 4))


def test_nearest_is_by_ratio_and_a_tie_goes_to_the_smaller():
    assert nvm.nearest(3, (1, 2, 4, 8)) == 4
    assert nvm.nearest(6, (1, 2, 4, 8)) == 8
    assert nvm.nearest(7, (2, 3, 4, 5)) == 5
    assert nvm.nearest(1, (2, 4, 8)) == 2
    # 2 和 4 一样近（对数上正中间）：取小的
    assert nvm.nearest(math.sqrt(8), (2, 4)) == 2


@pytest.mark.parametrize("BM, BN, warps, grid", [
    # Triton 的 warpsPerTileV2：每次翻倍给剩下 16×8 指令块多的那一边，一样多给 M
    (128, 128, 8, (2, 4)),
    (128, 128, 4, (2, 2)),
    (16, 64, 4, (1, 4)),
    (64, 32, 4, (2, 2)),
    (256, 32, 8, (8, 1)),
    (16, 32, 2, (1, 2)),
])
def test_warps_are_laid_out_the_way_triton_lays_them_out(BM, BN, warps, grid):
    assert nvm.warp_grid(Config(BM, BN, 64, warps, 3, 1)) == grid


def test_the_first_candidate_that_launches_is_used_and_the_rest_are_counted():
    """放进来不能启动（这里是共享内存超了）的首选：用它的下一个候选，计数里是"对不上"；
    一个都不能启动时这个形状上没有配置，分数是 0（讲义的规则：一个形状上不能启动）。"""
    too_big = kernel((256, 256, 128), (128, 64, 128), stages=5)
    fine = kernel((128, 128, 64), (64, 64, 64))
    assert not static_valid(nvm.to_ours(too_big).cfg, H100)
    used = nvh.pick([too_big, fine], H100)
    assert used.rank == 2 and used.cfg == Config(128, 128, 64, 4, 3, 1)
    assert used.first == nvm.to_ours(too_big)
    none = nvh.pick([too_big], H100)
    assert none.rank is None and none.cfg is None
    shape = Shape("8B o", 16, 4096, 4096)
    table = TimeTable(H100)
    assert nvh.score(nvh.chooser({shape: none}), [shape], table.time) == 0
    picks = {"a": nvh.pick([fine], H100), "b": used, "c": none,
             "d": nvh.pick([kernel((128, 128, 32), (64, 64, 32), stages=8)], H100)}
    exact, rounded, unmapped, changes = nvh.how_mapped(picks)
    assert (exact, rounded, unmapped) == (1, 1, 2)
    assert changes == Counter({("stages", 8, 5): 1})


# —— 观察的规则（编出来的数）——

@pytest.mark.parametrize("a, b, side", [
    # 确定的一行对 5 个种子：在所有种子外面才分高低
    ([1.112], [1.238, 1.239, 1.241, 1.243, 1.250], compare.BELOW),
    ([1.215], [1.176, 1.200, 1.222, 1.230, 1.236], compare.WITHIN),
    # 5 个种子对专家（确定的 1.000）：每个种子都高于 1 才算快
    ([1.069, 1.076, 1.083, 1.096, 1.108], [1.0], compare.ABOVE),
    ([0.990, 1.020, 1.030, 1.040, 1.050], [1.0], compare.WITHIN),
    # 只看印出来的三位小数：1.0004 印出来就是 1.000
    ([1.0004, 1.0004, 1.0004], [1.0], compare.WITHIN),
])
def test_two_rows_differ_only_when_each_median_is_outside_the_others_seeds(a, b, side):
    assert nvh.two_sided(a, b) == side
    flipped = {compare.ABOVE: compare.BELOW, compare.BELOW: compare.ABOVE,
               compare.WITHIN: compare.WITHIN}[side]
    assert nvh.two_sided(b, a) == flipped


# —— 没有 NVIDIA 的库时 ——

def test_without_the_package_one_sentence_names_the_pip_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "nvMatmulHeuristics", None)
    monkeypatch.setattr(nvm, "supported_machine", lambda: True)
    module, said = nvm.nvidia_library()
    assert module is None
    assert "没装" in said and "requirements-nvidia.txt" in said and "-m pip install -r" in said
    assert "。" not in said and said.count("\n  ") == 1


def test_on_a_machine_nvidia_does_not_build_for_the_sentence_says_so(monkeypatch):
    monkeypatch.setattr(nvm.platform, "machine", lambda: "aarch64")
    module, said = nvm.nvidia_library()
    assert module is None and "aarch64" in said and "x86_64 Linux" in said
    assert "requirements-nvidia.txt" in said


class _Broken:
    """装了但它的 .so 载入不了（ctypes.CDLL 报 OSError）的 nvMatmulHeuristics。"""

    class NvMatmulHeuristicsInterfaceEx:
        def __init__(self, **options):
            raise OSError("libnvMatmulHeuristics.so.0: cannot open shared object file")


def test_a_library_that_does_not_load_is_one_sentence_too(monkeypatch):
    monkeypatch.setitem(sys.modules, "nvMatmulHeuristics", _Broken)
    monkeypatch.setattr(nvm, "supported_machine", lambda: True)
    module, said = nvm.nvidia_library()
    assert module is None and "载入不了" in said and "cannot open shared object" in said
    assert "requirements-nvidia.txt" in said


def test_the_requirements_file_pins_the_version_and_names_the_license():
    with open(nvm.REQUIREMENTS, encoding="utf-8") as f:
        text = f.read()
    # pip 把以 \ 结尾的行和下一行接起来
    joined = text.replace("\\\n", "")
    lines = [" ".join(line.split()) for line in joined.splitlines()
             if line and not line.startswith("#")]
    assert lines == ['nvidia-matmul-heuristics==0.1.0.27; platform_machine == "x86_64" '
                     'and sys_platform == "linux" and python_version >= "3.9"']
    assert "许可证" in text and "LicenseRef-NVIDIA" in text


# —— 装了 NVIDIA 的库时：在几个形状上真跑 ——

@pytest.fixture(scope="module")
def nvmmh():
    module, missing = nvm.nvidia_library()
    if module is None:
        pytest.skip(f"没有 NVIDIA 的库：{missing.splitlines()[0]}")
    return module


# 讲义的几个形状：decode、中等、大的，不同的层
FEW = [Shape("8B qkv", 1, 6144, 4096), Shape("70B/8 qkv", 64, 1280, 8192),
       Shape("8B down", 1024, 4096, 14336), Shape("70B/8 gate_up", 16384, 7168, 8192)]


@pytest.fixture(scope="module")
def h100(nvmmh):
    return nvm.Nvidia(nvmmh, H100)


@pytest.mark.parametrize("mode", list(nvm.MODES))
def test_nvidias_first_choices_map_into_our_space_and_are_scored_in_both_models(nvmmh, mode):
    nvidia = nvm.Nvidia(nvmmh, H100, mode)
    picks = nvh.nvidia_picks(nvidia, FEW)
    assert set(picks) == set(FEW)
    for shape, chosen in picks.items():
        assert chosen.rank == 1 and static_valid(chosen.cfg, H100), shape
        first = nvidia.candidates(shape)[0]
        assert nvm.to_ours(first) == chosen.first
    for time in (TimeTable(H100).time, nvidia.time):
        assert 0 < nvh.score(nvh.chooser(picks), FEW, time) < math.inf


def test_nvidia_accepts_every_config_we_can_launch(h100):
    """映射过去的配置（warp 块照 Triton 的排法）NVIDIA 都给一个时间：我们 → NVIDIA 没有对不上的。"""
    shape = FEW[1]
    assert all(math.isfinite(h100.time(cfg, shape)) for cfg in LAUNCHABLE[::7])


def test_fp16_and_bf16_estimates_are_the_same(h100, monkeypatch):
    """PRECISION 的注释说的：它给 bf16（实测用的）的估时和 fp16 一模一样。"""
    cfgs = LAUNCHABLE[::97]
    fp16 = [h100.time(cfg, s) for cfg in cfgs for s in FEW]
    monkeypatch.setattr(nvm, "PRECISION", "TST")
    assert [h100.time(cfg, s) for cfg in cfgs for s in FEW] == fp16


def test_nvidias_estimate_depends_on_the_tile_and_split_k(h100):
    """unseen_fields 量得出两种情况：只换 warps、stages 它的时间不变（这一版是这样），换块和
    split-K 它会变——不然"一对也没变"只说明它什么都不看。"""
    cfg = Config(128, 128, 64, 4, 3, 1)
    compared, changed = nvh.unseen_fields(h100, [(cfg, s) for s in FEW])
    assert compared > 0 and changed == 0
    shape = FEW[1]
    others = [Config(64, 128, 64, 4, 3, 1), Config(128, 128, 64, 4, 3, 4)]
    assert all(h100.time(other, shape) != h100.time(cfg, shape) for other in others)


@pytest.fixture(scope="module")
def measured_few():
    """data/ 里 4 个实测形状（两份文件各两个）的行。"""
    rows = fidelity.load_measured()
    shapes = list(fidelity.by_shape(rows))
    keep = set(shapes[:2] + shapes[-2:])
    return [r for r in rows if r["shape"] in keep]


def test_both_models_against_the_h200_on_a_few_shapes(nvmmh, measured_few):
    """第 3 个对照：我们的模型那一边和 fidelity.py 第 2、3 节算的一样（同样的配置：NVIDIA 一个
    都没拒），NVIDIA 那一边是真的名次相关和挑选。"""
    ours = TimeTable(H200)
    found = nvh.agreement(ours, nvm.Nvidia(nvmmh, H200), measured_few)
    rho = fidelity.ranking(ours, measured_few)
    regret = fidelity.picking(ours, measured_few)
    assert len(found) == 4
    for a in found:
        assert a.rejected == 0 and a.compared >= 50
        assert a.rho[0] == pytest.approx(rho[a.shape]) and a.regret[0] == regret[a.shape]
        assert -1 <= a.rho[1] <= 1 and a.regret[1] >= 1 and a.tied >= 1


# —— 整个脚本（子进程）——

SCRIPT = os.path.join(os.path.dirname(nvh.__file__), "nvidia_heuristics.py")


@pytest.mark.slow
def test_the_script_prints_three_comparisons_that_fit_80_and_60_columns(nvmmh):
    from lecture01.console import display_width
    procs = {columns: start_command([sys.executable, SCRIPT], {"COLUMNS": str(columns)})
             for columns in (80, 60)}
    for columns, proc in procs.items():
        out, err = proc.communicate(timeout=180)
        assert proc.returncode == 0 and err == "", err
        for title in ("1. NVIDIA 挑的配置", "2. 两个评估器", "3. 哪个模型更贴近硬件", "观察："):
            assert title in out
        assert max(display_width(line) for line in out.splitlines()) <= columns


@pytest.mark.slow
def test_without_the_package_the_script_says_one_sentence_and_exits_cleanly(tmp_path):
    """装不上 NVIDIA 的库的机器上（这里用一个 import 时说"没有这个模块"的替身挡住它）：
    不打 traceback，stdout 空，stderr 是那一句话，退出码 0（它是可选的，没有它不算出错）。"""
    (tmp_path / "nvMatmulHeuristics.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'nvMatmulHeuristics'\", "
        "name='nvMatmulHeuristics')\n")
    proc = start_command([sys.executable, SCRIPT], {"PYTHONPATH": str(tmp_path)})
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out == "" and "Traceback" not in err
    assert "requirements-nvidia.txt" in err and "pip install" in err


def made_up():
    """编出来的一次对照（Comparison、Agreement）：画幻灯片不用跑 evolve、不要 NVIDIA 的库。"""
    names = [nvh.EXPERT_ROW, nvh.evolved_row(4)] + [nvh.nvidia_row(m) for m in nvm.MODES]
    values = [1.0, 1.24, 1.11, 1.22]
    rows = {name: {(part, model): v * (0.9 if model == nvh.MODELS[1] else 1)
                   for part in nvh.PARTS for model in nvh.MODELS}
            for name, v in zip(names, values)}
    rows[nvh.UPPER_ROW] = {(part, model): None if model == nvh.MODELS[1] else 1.29
                           for part in nvh.PARTS for model in nvh.MODELS}
    seeds = {(part, model): [1.05, 1.06, 1.07, 1.08, 1.09] for part in nvh.PARTS
             for model in nvh.MODELS}
    c = nvh.Comparison(rows, seeds, 4, {}, (10, 0), 0, 96)
    agreements = [nvh.Agreement(Shape("8B o", m, 4096, 4096), 100, 0, (0.9, 0.5), (1.1, 1.6), 3)
                  for m in (1, 16, 128)]
    return c, agreements


@pytest.mark.slow
def test_the_slide_is_a_1920_by_1080_png(tmp_path):
    pytest.importorskip("matplotlib")
    import slide_layout
    path = str(tmp_path / "nvidia.png")
    slide_layout.save(path, (1920, 1080), nvh.slide(*made_up()))
    with open(path, "rb") as f:
        header = f.read(24)
    assert header[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")) == \
        (1920, 1080)


def dots(ax):
    """一幅图上画的点（scatter 的）：[(x, y)]。"""
    from matplotlib.collections import PathCollection
    return [tuple(xy) for coll in ax.collections if isinstance(coll, PathCollection)
            for xy in np.asarray(coll.get_offsets()).tolist()]


@pytest.mark.slow
def test_the_slide_draws_the_tables_numbers():
    """幻灯片画的是表 2、表 3 的那些对象：点的位置就是表里的数。"""
    pytest.importorskip("matplotlib")
    import slide_layout
    c, agreements = made_up()
    with slide_layout.drawn(nvh.slide(c, agreements), (1920, 1080)) as fig:
        axes = {ax.get_label(): ax for ax in fig.axes}
        for key, part in (("train", nvh.PARTS[0]), ("test", nvh.PARTS[1])):
            table = sorted(values[(part, model)] for name, values in c.rows.items()
                           for model in nvh.MODELS if name != nvh.UPPER_ROW)
            assert sorted(x for x, _ in dots(axes[key])) == pytest.approx(table)
        assert dots(axes["rho"]) == [a.rho for a in agreements]
        assert dots(axes["regret"]) == [a.regret for a in agreements]
