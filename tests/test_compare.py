"""compare.py：比高低只有一条规则（两边看），对称，1 个种子时就是比两个数。"""
import pytest

import compare


def spread(median, lo, hi):
    return compare.Spread(median, lo, hi)


@pytest.mark.parametrize("a, b, side", [
    # a 的中位数在 b 的种子外面，b 的中位数也在 a 的种子外面：才分得出高低
    (spread(1.0, 0.95, 1.05), spread(1.15, 1.1, 1.2), compare.BELOW),
    (spread(1.25, 1.21, 1.3), spread(1.15, 1.1, 1.2), compare.ABOVE),
    # a 的中位数在 b 的种子外面，可 b 的中位数在 a 的种子里面（issue 62 的 climber 和 full）
    (spread(1.236, 1.208, 1.249), spread(1.241, 1.238, 1.250), compare.WITHIN),
    (spread(1.241, 1.238, 1.250), spread(1.236, 1.208, 1.249), compare.WITHIN),
    # 两端算在波动以内
    (spread(1.1, 1.1, 1.1), spread(1.15, 1.1, 1.2), compare.WITHIN),
    (spread(1.15, 1.1, 1.2), spread(1.2, 1.2, 1.2), compare.WITHIN),
    # 1 个种子：就是比两个数，一样高是 WITHIN
    (spread(1.0, 1.0, 1.0), spread(1.1, 1.1, 1.1), compare.BELOW),
    (spread(1.1, 1.1, 1.1), spread(1.1, 1.1, 1.1), compare.WITHIN),
    (spread(1.2, 1.2, 1.2), spread(1.1, 1.1, 1.1), compare.ABOVE)])
def test_versus_needs_each_median_outside_the_others_seed_range(a, b, side):
    assert compare.versus(a, b) == side
    # 反过来比，结论也反过来：规则两边对称
    mirror = {compare.BELOW: compare.ABOVE, compare.ABOVE: compare.BELOW,
              compare.WITHIN: compare.WITHIN}
    assert compare.versus(b, a) == mirror[side]


def test_verdict_prints_enough_digits_to_show_the_difference_it_names():
    """1.0786 对从 1.0793 起的范围：印成 3 位是 1.079 对 1.079，多印一位才看得出；
    到 MAX_DIGITS 位还看不出的不下结论。"""
    assert compare.verdict([1.0700, 1.0786, 1.0790], [1.0793, 1.0850, 1.0900]) == (
        compare.BELOW, 4)
    assert compare.verdict([1.0], [1.0 + 1e-9]) == (None, compare.DIGITS)
    # 两边看不成立（b 的种子把 a 的中位数包住）：印多少位都不说
    assert compare.verdict([1.0, 1.1, 1.2], [1.05, 1.15, 1.3]) == (None, compare.DIGITS)
