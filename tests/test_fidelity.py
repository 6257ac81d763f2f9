"""计时模型对照真实 H200 的四个数（lecture14/fidelity.py 里的函数，逻辑只有一份）。

门槛比 fidelity.py 现在打印的值宽松：ρ 中位数 0.974、挑选中位数 1.025 / 最大 1.316、cuBLAS 1.5× 以内 96.9%。
"""
import numpy as np
import pytest

import fidelity
from evolve import H200, TimeTable


@pytest.fixture(scope="module")
def triton():
    return fidelity.load_triton()


@pytest.fixture(scope="module")
def cublas():
    return fidelity.load_cublas()


@pytest.fixture(scope="module")
def table():
    return TimeTable(H200)


def test_data_is_what_the_readme_says(triton, cublas):
    assert len(fidelity.by_shape(triton)) == 28
    assert len(cublas) == 196
    assert sorted({g for g, _, _ in cublas}) == ["main", "new"]
    assert sum(g == "main" for g, _, _ in cublas) == 96
    refused = [r for r in triton if not r["ok"]]
    assert refused and all("shared memory" in r["status"] and r["required"] for r in refused)


def test_every_smem_refusal_is_matched_with_the_exact_byte_count(triton):
    matched, total, bad = fidelity.smem_refusals(triton)
    assert total == 1144
    assert bad == [] and matched == total


def test_model_ranks_configs_like_the_gpu(table, triton):
    rho = fidelity.ranking(table, triton)
    assert len(rho) == 28
    assert np.median(list(rho.values())) >= 0.8


def test_models_pick_is_close_to_the_measured_best(table, triton):
    pick = np.array(list(fidelity.picking(table, triton).values()))
    assert len(pick) == 28 and pick.min() >= 1.0
    assert np.median(pick) <= 1.10
    assert pick.max() <= 1.6


def test_model_best_is_within_1_5x_of_cublas_on_most_shapes(table, cublas):
    ratios = [x for _, _, x in fidelity.cublas_ratios(table, cublas)]
    assert len(ratios) == 196
    assert fidelity.within(ratios, 1.5) >= 0.80


def test_spearman_matches_the_textbook_formula():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50), rng.normal(size=50)
    d = fidelity.ranks(a) - fidelity.ranks(b)
    assert fidelity.spearman(a, b) == pytest.approx(1 - 6 * (d ** 2).sum() / (50 * (50 ** 2 - 1)))
    assert fidelity.spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert fidelity.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert list(fidelity.ranks([5.0, 1.0, 5.0, 3.0])) == [3.5, 1.0, 3.5, 2.0]  # 并列取平均名次
