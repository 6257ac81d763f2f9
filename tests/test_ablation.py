"""ablation.py：演示 1 的表，关于表的事实（印出来的数、最低的一组），用编出来的表检查。
每一行比 full 改了什么、讲义说每一行的话何时成立、写了也什么都不改的设置，在 test_observations.py
里和用到它们的句子一起查。"""
import ablation
import observations
from ensemble import Ensemble
from evolve import MockLLM
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


def test_a_members_focus_is_idle_only_when_that_member_looks_at_no_feedback():
    """Ensemble 的每个成员按它自己的设置判断：不看反馈的那个成员的 focus 什么都不改，看反馈的那个
    同样写着 focus="worst3"，它的就起作用——两行不是同一个方法。"""
    mixed = Ensemble([MockLLM(feedback=None, focus="worst3"), MockLLM(focus="worst3")])
    plain = Ensemble([MockLLM(feedback=None), MockLLM()])
    rows = {name: ablation.Row({1000: 1.2}, 1.2, 1.2, 1) for name in ("full", "mixed", "plain")}
    variants = {"full": {}, "mixed": {"llm": mixed}, "plain": {"llm": plain}}
    table = ablation.Ablation((1000,), 5, rows, ablation.described(variants))
    assert [i.setting.value for i in ablation.inert(table.options["mixed"])] == ["worst3"]
    assert ablation.same_runs(table) == []
    # 两个成员都不看反馈时，两个 focus 都不起作用：就是 plain
    both = Ensemble([MockLLM(feedback=None, focus="worst3"), MockLLM(feedback=None)])
    variants["mixed"] = {"llm": both}
    plain_too = Ensemble([MockLLM(feedback=None), MockLLM(feedback=None)])
    variants["plain"] = {"llm": plain_too}
    table = ablation.Ablation((1000,), 5, rows, ablation.described(variants))
    assert ablation.same_runs(table) == [["mixed", "plain"]]
