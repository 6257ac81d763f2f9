"""ablation.py：演示 1 的表，关于表的事实（印出来的数、最低的一组），用编出来的表检查。
每一行比 full 改了什么、讲义说每一行的话何时成立、写了也什么都不改的设置，在 test_observations.py
里和用到它们的句子一起查。"""
import ablation
import observations
from test_observations import options_of


def test_printed_is_what_the_table_shows():
    assert ablation.printed(1.2415) == 1.242 and ablation.printed(1.0) == 1.0
    assert f"{ablation.printed(1.2344999):.3f}" == "1.234"


def test_a_lowest_group_must_sit_below_every_other_row_from_both_sides():
    """中位数最低的 a 和 b 分不出高低（b 的种子把 a 的中位数包住）；c 在两者外面：a、b 一起最低。
    c 的种子要是把 b 的中位数包住，b 和 c 分不出，可 a 和 c 分得出：组里有两行分得出，说不出"并列
    最低"（"彼此在波动以内"就不成立）。a 的种子要是把 full 的中位数包住，组就是整张表：也说不出。"""
    def table(c_lo, a_hi=1.11):
        rows = {"full": ablation.Row({1000: 1.30}, 1.29, 1.31, 1),
                "a": ablation.Row({1000: 1.10}, 1.09, a_hi, 1),
                "b": ablation.Row({1000: 1.12}, 1.10, 1.14, 1),
                "c": ablation.Row({1000: 1.20}, c_lo, 1.21, 1)}
        return ablation.Ablation((1000,), 5, rows, options_of(rows))
    assert table(1.19).bottom() == ["a", "b"]
    assert observations.lowest_said(table(1.19), ["a", "b"], "最低") == (
        "a 1.100、b 1.120 并列最低（彼此在种子之间的波动以内）")
    assert table(1.11).bottom() is None
    assert table(1.19, a_hi=1.30).bottom() is None
