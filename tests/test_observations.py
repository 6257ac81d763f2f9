"""观察的规则，用编出来的表直接检查（不跑 evolve）：每条规则的每个分支，
加上默认设置下的讲义原话。"""
import pytest

import observations as obs

# 讲义默认设置下演示 1 印出来的表（tests/golden 里的那张）：
# 变体 → (各时刻的中位数, 最小, 最大, 跑内核次数)
GOLDEN = {
    "full": ((1.070, 1.107, 1.200, 1.241), 1.238, 1.250, 45704),
    "fb_roofline": ((1.081, 1.106, 1.174, 1.214), 1.202, 1.229, 43944),
    "fb_worst3": ((1.068, 1.087, 1.149, 1.186), 1.113, 1.226, 44280),
    "no_feedback": ((1.095, 1.109, 1.182, 1.228), 1.223, 1.237, 43272),
    "small_llm": ((1.060, 1.084, 1.156, 1.176), 1.168, 1.190, 43960),
    "no_evolution": ((1.054, 1.054, 1.054, 1.057), 1.054, 1.072, 44832),
    "no_borrow": ((1.094, 1.125, 1.219, 1.241), 1.238, 1.249, 44320),
    "one_island": ((1.112, 1.164, 1.212, 1.247), 1.242, 1.259, 44104),
    "no_cascade": ((1.070, 1.107, 1.200, 1.241), 1.238, 1.250, 46320),
}
MARKS = (50, 100, 300, 1000)

# 讲义（seed）演示 1 的五条观察，一字不差
SEED_SENTENCES = [
    "去掉\"进化\"（每次都从初始程序出发）掉得最多：1000 个程序后只有 1.057，完整方法 1.241。"
    "一次修改只能走一小步，好程序要靠在好程序上继续改才能积累出来——"
    "AlphaEvolve 的消融里 \"No evolution\" 同样是最差的之一。",
    "去掉\"内核常识\"（small_llm，只会单字段小改动）：1.176。"
    "很多好配置要几个字段一起改才到得了（04 脚本演示 2），小改动走不过去。"
    "AlphaEvolve 的 \"Small base LLM only\" 消融也明显变差，"
    "论文的解释是更强的模型能提出更好的修改。",
    "反馈怎么用影响很大：按\"离见过的最快还差多少\"加权挑形状（full）1.241，"
    "按\"离 roofline 还差多少\"加权挑 1.214，不看反馈随便挑 1.228，只盯最差的 3 个 1.186"
    "——只盯最差的 3 个比随便挑还差。演示 2 看它们各自指向哪些形状。",
    "借规则（no_borrow 1.241）、岛屿数（one_island 1.247）、级联（no_cascade 1.241）"
    "和完整方法（1.241）的差别在种子之间的波动以内（看\"最小–最大\"那一列），"
    "有的变体的中位数还略高。"
    "级联只省下一小部分评估（这个问题上坏程序不多）。"
    "这些部件的价值在更大、更难、评估更贵的问题上（多样性、并行、省钱）才显出来——"
    "一个小实验得不出\"它们没用\"的结论；反过来，5 个种子的中位数差 0.02 也不能说明谁更好。",
    "100 个程序时的分数：full 1.107、no_feedback 1.109、small_llm 1.084、no_evolution 1.054"
    "——早期差别小、后期差别大；比较搜索方法一定要看\"随预算变化的曲线\"，不能只看一个点。",
]


def golden(drop=(), **changes):
    """讲义的表，去掉 drop 里的行，changes[变体] = 新的一行 (各时刻, 最小, 最大, 跑内核次数)。"""
    rows = {name: row for name, row in GOLDEN.items() if name not in drop}
    rows.update(changes)
    return obs.Ablation(MARKS, 5, {name: obs.Row(dict(zip(MARKS, at)), lo, hi, runs)
                                   for name, (at, lo, hi, runs) in rows.items()})


def made_up(final, seeds=5, full=(1.238, 1.250), early=None, runs=None):
    """一张编出来的表：final[变体] 是最后时刻（1000）的中位数，full 的最小–最大是 full；
    别的行最小 = 最大 = 中位数；early 给了就多一个时刻 100。"""
    marks = (100, 1000) if early else (1000,)
    rows = {}
    for name, x in final.items():
        at = {100: early[name], 1000: x} if early else {1000: x}
        lo, hi = full if name == "full" else (x, x)
        rows[name] = obs.Row(at, lo, hi, (runs or {}).get(name, 45000))
    return obs.Ablation(marks, seeds, rows)


def test_at_the_defaults_every_sentence_is_the_seeds_word_for_word():
    assert obs.demo1(golden()) == SEED_SENTENCES


def test_printed_is_what_the_table_shows():
    assert obs.printed(1.2415) == 1.242 and obs.printed(1.0) == 1.0
    assert f"{obs.printed(1.2344999):.3f}" == "1.234"


# —— 和完整方法比 ——

@pytest.mark.parametrize("x, said", [(1.200, "低于完整方法最差的种子（1.238）"),
                                     (1.238, "在完整方法种子之间的波动以内（1.238–1.250）"),
                                     (1.250, "在完整方法种子之间的波动以内（1.238–1.250）"),
                                     (1.260, "高于完整方法最好的种子（1.250）")])
def test_a_number_is_placed_against_fulls_seed_spread(x, said):
    assert obs.compared(made_up({"full": 1.241}), x) == said


@pytest.mark.parametrize("x, said", [(1.2, "低于完整方法（1.241）"),
                                     (1.241, "等于完整方法（1.241）"),
                                     (1.3, "高于完整方法（1.241）")])
def test_with_one_seed_a_number_is_compared_with_fulls_one_number(x, said):
    assert obs.compared(made_up({"full": 1.241}, seeds=1, full=(1.241, 1.241)), x) == said


# —— 观察 1："掉得最多" ——

def test_drops_the_most_only_when_no_evolution_is_the_lowest_row():
    assert obs.no_evolution(golden()).startswith("去掉\"进化\"（每次都从初始程序出发）掉得最多：")
    mine = golden(mine=((1.0, 1.0, 1.0, 1.043), 1.04, 1.05, 45000))
    said = obs.no_evolution(mine)
    assert "掉得最多：" not in said and "掉得最多的是 mine（1.043）" in said
    # no_evolution 自己还是低于完整方法：原因照说
    assert "1000 个程序后 1.057，低于完整方法最差的种子（1.238）" in said and "积累出来" in said


def test_a_tie_for_the_lowest_goes_to_the_row_printed_first():
    tie = made_up({"full": 1.241, "no_evolution": 1.057, "mine": 1.057})
    assert "掉得最多：" in obs.no_evolution(tie)


def test_no_evolution_within_fulls_spread_gets_no_reason_for_a_drop():
    said = obs.no_evolution(made_up({"full": 1.241, "no_evolution": 1.240, "mine": 1.1}))
    assert "在完整方法种子之间的波动以内" in said and "积累出来" not in said


def test_a_deleted_variant_is_not_spoken_of():
    table = golden(drop=("no_evolution", "small_llm", "fb_roofline", "no_feedback", "fb_worst3",
                         "no_borrow", "one_island", "no_cascade"))
    assert [rule(table) for rule in (obs.no_evolution, obs.small_llm, obs.feedback, obs.small_parts,
                                     obs.budget)] == [None] * 5
    assert obs.demo1(table) == ["表里只有完整方法（full）一行，没有别的变体可以和它比较。"]


# —— 观察 2："明显变差" ——

def test_clearly_worse_needs_more_than_one_seed_and_a_median_below_fulls_worst_seed():
    assert "明显变差" in obs.small_llm(made_up({"full": 1.241, "small_llm": 1.176}))
    within = obs.small_llm(made_up({"full": 1.241, "small_llm": 1.240}))
    assert "明显变差" not in within
    assert within.endswith("在完整方法种子之间的波动以内（1.238–1.250）"
                           "——这个设置下还看不出内核常识的作用。")
    one = obs.small_llm(made_up({"full": 1.241, "small_llm": 1.176}, seeds=1, full=(1.241, 1.241)))
    assert "明显变差" not in one
    assert one.endswith("低于完整方法（1.241）——只有 1 个种子，看不出种子之间的波动。")


# —— 观察 3："影响很大" ——

def test_feedback_matters_a_lot_needs_every_other_use_below_fulls_worst_seed():
    below = {"full": 1.241, "fb_roofline": 1.214, "no_feedback": 1.228, "fb_worst3": 1.186}
    assert obs.feedback(made_up(below)).startswith("反馈怎么用影响很大：")
    said = obs.feedback(made_up(dict(below, no_feedback=1.240)))
    assert said.startswith("反馈怎么用：")
    assert ("no_feedback 在完整方法种子之间的波动以内（1.238–1.250），"
            "这个设置下看不出反馈怎么用影响很大") in said
    one = obs.feedback(made_up(below, seeds=1, full=(1.241, 1.241)))
    assert one.startswith("反馈怎么用：")
    assert "只有 1 个种子，看不出种子之间的波动，说不上影响大不大" in one


def test_worse_than_random_is_said_only_when_both_rows_are_there_and_it_is_so():
    worse = "只盯最差的 3 个比随便挑还差"
    assert worse in obs.feedback(golden())
    assert worse not in obs.feedback(golden(drop=("no_feedback",)))
    higher = golden(fb_worst3=((1.0, 1.0, 1.0, 1.230), 1.2, 1.24, 45000))
    assert worse not in obs.feedback(higher)


def test_feedback_names_only_the_uses_in_the_table():
    said = obs.feedback(golden(drop=("fb_roofline", "fb_worst3")))
    assert "roofline" not in said and "最差的 3 个" not in said and "不看反馈随便挑 1.228" in said


# —— 观察 4："在波动以内"、级联省下多少 ——

def test_within_the_spread_and_slightly_higher_follow_fulls_min_max_and_median():
    table = made_up({"full": 1.241, "no_borrow": 1.241, "no_cascade": 1.247},
                    runs={"full": 45704, "no_cascade": 46320})
    said = obs.small_parts(table)
    assert "的差别在种子之间的波动以内" in said and "有的变体的中位数还略高" in said
    lower = obs.small_parts(made_up({"full": 1.241, "no_borrow": 1.240}))
    assert "的差别在种子之间的波动以内" in lower and "略高" not in lower


def test_parts_outside_the_spread_are_placed_one_by_one():
    table = made_up({"full": 1.241, "no_borrow": 1.240, "one_island": 1.245, "no_cascade": 1.230})
    said = obs.small_parts(table)
    assert "的差别在种子之间的波动以内" not in said
    assert ("no_borrow、one_island 在完整方法种子之间的波动以内（1.238–1.250）；"
            "no_cascade 低于完整方法最差的种子（1.238）") in said


def test_with_one_seed_the_parts_sentence_says_so():
    said = obs.small_parts(made_up({"full": 1.241, "no_borrow": 1.3}, seeds=1, full=(1.241, 1.241)))
    assert "只有 1 个种子，看不出种子之间的波动，这几个差别说明不了谁更好" in said


@pytest.mark.parametrize("no_cascade_runs, said", [(45704, "级联这次没有省下评估"),
                                                   (46320, "级联只省下一小部分评估"),
                                                   (68000, "级联只省下一小部分评估"),
                                                   (91408, "级联省下了 50% 的评估")])
def test_the_cascade_saving_follows_the_kernel_run_column(no_cascade_runs, said):
    runs = {"full": 45704, "no_cascade": no_cascade_runs}
    table = made_up({"full": 1.241, "no_cascade": 1.241}, runs=runs)
    assert said in obs.cascade_saving(table)


def test_without_no_cascade_nothing_is_said_of_the_cascade():
    assert obs.cascade_saving(made_up({"full": 1.241, "no_borrow": 1.241})) == ""


# —— 观察 5："早期差别小、后期差别大" ——

def test_differences_grow_only_when_the_spread_grows():
    early = {"full": 1.107, "no_evolution": 1.054}
    grows = obs.budget(made_up({"full": 1.241, "no_evolution": 1.057}, early=early))
    assert grows == ("100 个程序时的分数：full 1.107、no_evolution 1.054——早期差别小、后期差别大；"
                     "比较搜索方法一定要看\"随预算变化的曲线\"，不能只看一个点。")
    shrinks = obs.budget(made_up({"full": 1.241, "no_evolution": 1.240}, early=early))
    assert "最高和最低差 0.053，到 1000 个程序后差 0.001，差别没有随预算变大" in shrinks
    one_mark = obs.budget(made_up({"full": 1.241, "no_evolution": 1.057}))
    assert one_mark.startswith("表里只有一个时刻（1000 个程序后）")


def test_the_early_mark_is_100_when_the_table_has_it_else_the_first():
    table = golden()
    assert obs.budget(table).startswith("100 个程序时")
    marks = (50, 300, 1000)
    rows = {name: obs.Row({m: row.at[m] for m in marks}, row.lo, row.hi, row.runs)
            for name, row in table.rows.items()}
    no_100 = obs.Ablation(marks, 5, rows)
    assert obs.budget(no_100).startswith("50 个程序时的分数：full 1.070、")


def test_one_row_has_no_spread_to_speak_of():
    assert obs.budget(made_up({"full": 1.241}, early={"full": 1.107})) is None


# —— 演示 3 ——

def unchecked(*rows):
    return [obs.Unchecked(*row) for row in rows]


def test_latent_bugs_entering_staying_and_in_the_best_program():
    golden3 = unchecked((14, 0, 0, False), (75, 0, 0, False), (338, 39, 0, True),
                        (284, 35, 35, True), (114, 1, 0, False))
    assert obs.latent_enter(golden3) == (
        "不做分支检查时，进数据库的程序里有 825 个（5 个种子合计）"
        "至少有一个分支返回不能启动的配置——"
        "训练形状从来没走到那个分支，所以分数看不出来。最终的数据库里仍有 75 个这样的程序，"
        "2 个种子的\"最好程序\"本身就带着一个。")
    assert obs.latent_crash(golden3, 100) == (
        "在 100 个新形状上（新的 M、405B 分片的 N、K）真正出错的有 35 个：隐患大多潜伏着，"
        "直到某个没见过的形状碰巧走进那个分支。这正是\"测试覆盖不到的分支\"在生产里出事的方式。")


def test_latent_bugs_said_as_they_are_when_none_enter_stay_or_reach_the_best():
    assert "没有一个带不能启动的分支" in obs.latent_enter(unchecked((0, 0, 0, False)) * 5)
    assert "都没有留到最终的数据库里" in obs.latent_enter(unchecked((14, 0, 0, False)))
    none_best = obs.latent_enter(unchecked((14, 3, 0, False)))
    assert "不过没有一个种子的\"最好程序\"带着它们" in none_best


@pytest.mark.parametrize("stayed, crashed, said", [(75, 35, "隐患大多潜伏着"),
                                                   (70, 35, "隐患大多潜伏着"),
                                                   (93, 71, "超过最终数据库里带隐患的 93 个的一半"),
                                                   (0, 0, "没有带隐患的程序")])
def test_latent_bugs_mostly_lie_low_only_if_at_most_half_crash(stayed, crashed, said):
    assert said in obs.latent_crash(unchecked((stayed, stayed, crashed, False)), 100)


# —— 每一行都有人说：讲义没谈到的行（学生加的变体）——

def test_at_the_defaults_nothing_is_added_for_the_rest():
    assert obs.the_rest(golden()) is None and obs.edited_full(golden()) is None


def test_the_students_rows_get_their_median_and_place_against_fulls_seeds():
    table = golden(drop=[name for name in GOLDEN if name != "full"],
                   eight_islands=((1.068, 1.107, 1.193, 1.242), 1.232, 1.246, 44968),
                   small_no_fb=((1.060, 1.083, 1.134, 1.185), 1.162, 1.207, 43880),
                   no_evo_no_cascade=((1.054, 1.054, 1.054, 1.057), 1.054, 1.072, 45216))
    assert obs.the_rest(table) == (
        "你加的变体（1000 个程序后）："
        "eight_islands 1.242 在完整方法种子之间的波动以内（1.238–1.250）；"
        "small_no_fb 1.185、no_evo_no_cascade 1.057 低于完整方法最差的种子（1.238）；"
        "变体里最低的是 no_evo_no_cascade（1.057）。")
    # 观察 5 也引用它们早期的分数
    assert obs.budget(table).startswith("100 个程序时的分数：full 1.107、eight_islands 1.107、"
                                        "small_no_fb 1.083、no_evo_no_cascade 1.054——")


def test_with_one_seed_the_students_rows_get_only_their_medians():
    table = made_up({"full": 1.241, "mine": 1.3}, seeds=1, full=(1.241, 1.241))
    assert obs.the_rest(table) == ("你加的变体（1000 个程序后）：mine 1.300"
                                   "——只有 1 个种子，看不出种子之间的波动。")


def test_when_no_evolution_speaks_of_the_lowest_the_rest_does_not_repeat_it():
    table = golden(mine=((1.0, 1.0, 1.0, 1.043), 1.04, 1.05, 45000))
    assert "最低" not in obs.the_rest(table)
    assert "掉得最多的是 mine（1.043）" in obs.no_evolution(table)


# —— 没有"最"可说的时候 ——

def test_one_variant_has_no_superlative():
    alone = made_up({"full": 1.241, "no_evolution": 1.057})
    said = obs.no_evolution(alone)
    assert "掉得最多" not in said and "最差的之一" not in said
    assert said == ("去掉\"进化\"（每次都从初始程序出发）：1000 个程序后 1.057，"
                    "低于完整方法最差的种子（1.238）。"
                    "一次修改只能走一小步，好程序要靠在好程序上继续改才能积累出来。")
    assert "最低" not in obs.the_rest(made_up({"full": 1.241, "mine": 1.1}))


def test_the_lowest_row_above_full_has_not_dropped():
    """学生改弱了 full：最低的变体也高于它，就不说"掉得最多"。"""
    weak = made_up({"full": 1.176, "no_evolution": 1.2, "mine": 1.3}, full=(1.168, 1.190))
    assert "掉得最多" not in obs.no_evolution(weak)


def test_an_edited_full_is_said_first():
    table = obs.Ablation((1000,), 5, made_up({"full": 1.176, "small_llm": 1.176}).rows,
                         "{'llm': MockLLM(knowledge=False)}")
    said = obs.demo1(table)
    assert said[0] == ("这次的 full 是你改过的（{'llm': MockLLM(knowledge=False)}）："
                       "下面说的\"完整方法\"都是它，不是讲义里的完整方法。")


def test_rows_in_the_same_place_are_said_together():
    table = made_up({"full": 1.241, "a_b": 1.3, "c_d": 1.1, "e_f": 1.31})
    assert obs.placed(table, ["a_b", "c_d", "e_f"], with_values=True) == (
        "a_b 1.300、e_f 1.310 高于完整方法最好的种子（1.250）；"
        "c_d 1.100 低于完整方法最差的种子（1.238）")
