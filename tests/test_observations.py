"""观察的规则，用编出来的表直接检查（不跑 evolve）：每条规则的每个分支，
加上默认设置下的讲义原话。"""
import pytest
from conftest import load_script

import curves
import ablation
import compare
import observations as obs
from ensemble import Ensemble
from evolve import MockLLM, check_options

# 讲义的九个变体，照脚本里的 VARIANTS 写法（变体名 → evolve 的选项）
LECTURE = load_script().VARIANTS
# 编出来的表里学生加的行（讲义没有的名字）默认的选项：只差在"提示和程序一起进化"上，没有哪句
# 谈部件的观察专门掂量它，由最后一句（rest_sentence）说
ADDED = {"meta_prompt": True}

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


def options_of(names, variants=None):
    """names 各行的设置：variants 里有的照它（VARIANTS 的写法），讲义的行照讲义，别的是 ADDED。"""
    written = dict(LECTURE, **(variants or {}))
    return {name: check_options(**written.get(name, ADDED)).describe() for name in names}


def golden(drop=(), variants=None, **changes):
    """讲义的表，去掉 drop 里的行，changes[变体] = 新的一行 (各时刻, 最小, 最大, 跑内核次数)；
    variants：改过的几行的选项（VARIANTS 的写法）。"""
    rows = {name: row for name, row in GOLDEN.items() if name not in drop}
    rows.update(changes)
    return ablation.Ablation(MARKS, 5, {name: ablation.Row(dict(zip(MARKS, at)), lo, hi, runs)
                                   for name, (at, lo, hi, runs) in rows.items()},
                        options_of(rows, variants))


def made_up(final, seeds=5, full=(1.238, 1.250), early=None, runs=None, variants=None):
    """一张编出来的表：final[变体] 是最后时刻（1000）的中位数，full 的最小–最大是 full；
    别的行最小 = 最大 = 中位数；early 给了就多一个时刻 100；variants 见 options_of。"""
    marks = (100, 1000) if early else (1000,)
    rows = {}
    for name, x in final.items():
        at = {100: early[name], 1000: x} if early else {1000: x}
        lo, hi = full if name == "full" else (x, x)
        rows[name] = ablation.Row(at, lo, hi, (runs or {}).get(name, 45000))
    return ablation.Ablation(marks, seeds, rows, options_of(rows, variants))


def test_at_the_defaults_every_sentence_is_the_seeds_word_for_word():
    assert obs.demo1(golden()) == SEED_SENTENCES


# —— 和完整方法比 ——

@pytest.mark.parametrize("x, said", [(1.200, "低于完整方法最差的种子（1.238）"),
                                     (1.238, "在完整方法种子之间的波动以内（1.238–1.250）"),
                                     (1.250, "在完整方法种子之间的波动以内（1.238–1.250）"),
                                     (1.260, "高于完整方法最好的种子（1.250）")])
def test_a_number_is_placed_against_fulls_seed_spread(x, said):
    assert obs.compared(made_up({"full": 1.241, "mine": x}), "mine") == said


@pytest.mark.parametrize("x, said", [(1.2, "低于完整方法（1.241）"),
                                     (1.241, "等于完整方法（1.241）"),
                                     (1.3, "高于完整方法（1.241）")])
def test_with_one_seed_a_number_is_compared_with_fulls_one_number(x, said):
    table = made_up({"full": 1.241, "mine": x}, seeds=1, full=(1.241, 1.241))
    assert obs.compared(table, "mine") == said


# —— 观察 1："掉得最多" ——

def test_drops_the_most_only_when_no_evolution_is_the_lowest_row():
    said = obs.no_evolution_sentence(golden())
    assert said.startswith("去掉\"进化\"（每次都从初始程序出发）掉得最多：")
    mine = golden(mine=((1.0, 1.0, 1.0, 1.043), 1.04, 1.05, 45000))
    said = obs.no_evolution_sentence(mine)
    assert "掉得最多：" not in said and "掉得最多的是 mine（1.043）" in said
    # no_evolution 自己还是低于完整方法：原因照说
    assert "1000 个程序后 1.057，低于完整方法最差的种子（1.238）" in said and "积累出来" in said


# —— 并列：印出来一样的几行都说，表里的顺序不决定谁是"最" ——

@pytest.mark.parametrize("order", [("no_evolution", "mine"), ("mine", "no_evolution")])
def test_rows_tied_for_the_drop_are_all_named_whatever_the_order(order):
    final = {"full": 1.241, **{name: 1.057 for name in order}, "no_borrow": 1.240}
    said = obs.no_evolution_sentence(made_up(final))
    assert said.startswith("去掉\"进化\"（每次都从初始程序出发）和 mine 并列掉得最多："
                           "1000 个程序后都只有 1.057，完整方法 1.241。")


@pytest.mark.parametrize("order", [("a_b", "c_d"), ("c_d", "a_b")])
def test_other_rows_tied_below_no_evolution_are_all_named(order):
    final = {"full": 1.241, "no_evolution": 1.100, **{name: 1.043 for name in order}}
    said = obs.no_evolution_sentence(made_up(final))
    assert f"；{order[0]} 和 {order[1]} 并列掉得最多（1.043）" in said
    lowest = obs.lowest_sentence(made_up(final, variants={"no_evolution": {"n_islands": 2}}))
    assert lowest == f"{order[0]} 和 {order[1]} 并列最低（1.043）。"


def test_no_evolution_within_fulls_spread_gets_no_reason_for_a_drop():
    said = obs.no_evolution_sentence(made_up({"full": 1.241, "no_evolution": 1.240, "mine": 1.1}))
    assert "在完整方法种子之间的波动以内" in said and "积累出来" not in said


def test_a_deleted_variant_is_not_spoken_of():
    table = golden(drop=("no_evolution", "small_llm", "fb_roofline", "no_feedback", "fb_worst3",
                         "no_borrow", "one_island", "no_cascade"))
    assert [rule(table) for rule in (obs.no_evolution_sentence, obs.small_llm_sentence,
                                     obs.feedback_sentence, obs.parts_sentence,
                                     obs.budget_sentence)] == [None] * 5
    assert obs.demo1(table) == ["表里只有完整方法（full）一行，没有别的变体可以和它比较。"]


# —— 观察 2："明显变差" ——

def test_clearly_worse_needs_more_than_one_seed_and_a_median_below_fulls_worst_seed():
    assert "明显变差" in obs.small_llm_sentence(made_up({"full": 1.241, "small_llm": 1.176}))
    within = obs.small_llm_sentence(made_up({"full": 1.241, "small_llm": 1.240}))
    assert "明显变差" not in within
    assert within.endswith("在完整方法种子之间的波动以内（1.238–1.250）"
                           "——这个设置下还看不出内核常识的作用。")
    one_seed = made_up({"full": 1.241, "small_llm": 1.176}, seeds=1, full=(1.241, 1.241))
    one = obs.small_llm_sentence(one_seed)
    assert "明显变差" not in one
    assert one.endswith("低于完整方法（1.241）——只有 1 个种子，看不出种子之间的波动。")


# —— 观察 3："影响很大" ——

def test_feedback_matters_a_lot_needs_every_other_use_below_fulls_worst_seed():
    below = {"full": 1.241, "fb_roofline": 1.214, "no_feedback": 1.228, "fb_worst3": 1.186}
    assert obs.feedback_sentence(made_up(below)).startswith("反馈怎么用影响很大：")
    said = obs.feedback_sentence(made_up(dict(below, no_feedback=1.240)))
    assert said.startswith("反馈怎么用：")
    # 有两行低于最差的种子：不说"看不出……影响很大"，说每一行在哪
    assert "看不出" not in said
    assert said.endswith("fb_roofline、fb_worst3 低于完整方法最差的种子（1.238）；"
                         "no_feedback 在完整方法种子之间的波动以内（1.238–1.250）："
                         "有的挑法明显比 full 的差，有的差别在种子的波动以内。"
                         "演示 2 看它们各自指向哪些形状。")
    one = obs.feedback_sentence(made_up(below, seeds=1, full=(1.241, 1.241)))
    assert one.startswith("反馈怎么用：")
    assert "只有 1 个种子，看不出种子之间的波动，说不上影响大不大" in one


def test_worse_than_random_is_said_only_when_both_rows_are_there_and_it_is_so():
    worse = "只盯最差的 3 个比随便挑还差"
    assert worse in obs.feedback_sentence(golden())
    assert worse not in obs.feedback_sentence(golden(drop=("no_feedback",)))
    higher = golden(fb_worst3=((1.0, 1.0, 1.0, 1.230), 1.2, 1.24, 45000))
    assert worse not in obs.feedback_sentence(higher)


def test_feedback_names_only_the_uses_in_the_table():
    said = obs.feedback_sentence(golden(drop=("fb_roofline", "fb_worst3")))
    assert "roofline" not in said and "最差的 3 个" not in said and "不看反馈随便挑 1.228" in said


# —— 观察 4："在波动以内"、级联省下多少 ——

def test_within_the_spread_and_slightly_higher_follow_fulls_min_max_and_median():
    table = made_up({"full": 1.241, "no_borrow": 1.241, "no_cascade": 1.247},
                    runs={"full": 45704, "no_cascade": 46320})
    said = obs.parts_sentence(table)
    assert "的差别在种子之间的波动以内" in said and "有的变体的中位数还略高" in said
    lower = obs.parts_sentence(made_up({"full": 1.241, "no_borrow": 1.240}))
    assert "的差别在种子之间的波动以内" in lower and "略高" not in lower


def test_parts_outside_the_spread_are_placed_one_by_one():
    table = made_up({"full": 1.241, "no_borrow": 1.240, "one_island": 1.245, "no_cascade": 1.230})
    said = obs.parts_sentence(table)
    assert "的差别在种子之间的波动以内" not in said
    assert ("no_borrow、one_island 在完整方法种子之间的波动以内（1.238–1.250）；"
            "no_cascade 低于完整方法最差的种子（1.238）") in said


def test_with_one_seed_the_parts_sentence_says_so():
    one_seed = made_up({"full": 1.241, "no_borrow": 1.3}, seeds=1, full=(1.241, 1.241))
    said = obs.parts_sentence(one_seed)
    # 只掂量了一行：说"这个差别"、"它没用"，不说"这几个"、"它们"
    assert "只有 1 个种子，看不出种子之间的波动，这个差别说明不了谁更好" in said
    assert said.endswith("一个小实验得不出\"它没用\"的结论。")
    two = made_up({"full": 1.241, "no_borrow": 1.3, "one_island": 1.2}, seeds=1,
                  full=(1.241, 1.241))
    said = obs.parts_sentence(two)
    assert "这几个差别说明不了谁更好" in said and said.endswith("得不出\"它们没用\"的结论。")


def test_one_part_weighed_is_this_part_not_these_parts():
    """只有一个部件有只差在它上面的行：说"这个部件的价值"，不说"这些部件"。"""
    one = made_up({"full": 1.241, "no_borrow": 1.245})
    said = obs.parts_sentence(one)
    assert "，它的中位数还略高。" in said and "这个部件的价值在更大" in said
    assert "这些部件" not in said and "它们没用" not in said and "有的变体" not in said
    # 一个部件、两行（学生加的一行也只差在借规则上）：部件是一个，行是两行
    two_rows = made_up({"full": 1.241, "no_borrow": 1.245, "mine": 1.240},
                       variants={"mine": {"llm": MockLLM(use_inspirations=False)}})
    said = obs.parts_sentence(two_rows)
    assert "有的变体的中位数还略高" in said and "这个部件的价值" in said


@pytest.mark.parametrize("no_cascade_runs, said", [(45704, "级联这次没有省下评估"),
                                                   (46320, "级联只省下一小部分评估"),
                                                   (68000, "级联只省下一小部分评估"),
                                                   (91408, "级联省下了 50% 的评估")])
def test_the_cascade_saving_follows_the_kernel_run_column(no_cascade_runs, said):
    runs = {"full": 45704, "no_cascade": no_cascade_runs}
    table = made_up({"full": 1.241, "no_cascade": 1.241}, runs=runs)
    assert said in obs.cascade_sentence(table)


def test_without_no_cascade_nothing_is_said_of_the_cascade():
    assert obs.cascade_sentence(made_up({"full": 1.241, "no_borrow": 1.241})) == ""


# —— 观察 5："早期差别小、后期差别大" ——

def test_differences_grow_only_when_the_spread_grows():
    early = {"full": 1.107, "no_evolution": 1.054}
    grows = obs.budget_sentence(made_up({"full": 1.241, "no_evolution": 1.057}, early=early))
    assert grows == ("100 个程序时的分数：full 1.107、no_evolution 1.054——早期差别小、后期差别大；"
                     "比较搜索方法一定要看\"随预算变化的曲线\"，不能只看一个点。")
    shrinks = obs.budget_sentence(made_up({"full": 1.241, "no_evolution": 1.240}, early=early))
    assert "最高和最低差 0.053，到 1000 个程序后差 0.001，差别反而随预算变小了" in shrinks
    one_mark = obs.budget_sentence(made_up({"full": 1.241, "no_evolution": 1.057}))
    assert one_mark.startswith("表里只有一个时刻（1000 个程序后）")


def test_the_early_mark_is_100_when_the_table_has_it_else_the_first():
    table = golden()
    assert obs.budget_sentence(table).startswith("100 个程序时")
    marks = (50, 300, 1000)
    rows = {name: ablation.Row({m: row.at[m] for m in marks}, row.lo, row.hi, row.runs)
            for name, row in table.rows.items()}
    no_100 = ablation.Ablation(marks, 5, rows, table.options)
    assert obs.budget_sentence(no_100).startswith("50 个程序时的分数：full 1.070、")


def test_one_row_has_no_spread_to_speak_of():
    assert obs.budget_sentence(made_up({"full": 1.241}, early={"full": 1.107})) is None


# —— 演示 3 ——

def unchecked(*rows):
    return [obs.Unchecked(*row) for row in rows]


def test_latent_bugs_entering_staying_and_in_the_best_program():
    golden3 = unchecked((14, 0, 0, False), (75, 0, 0, False), (338, 39, 0, True),
                        (284, 35, 35, True), (114, 1, 0, False))
    assert obs.latent_enter_sentence(golden3) == (
        "不做分支检查时，进数据库的程序里有 825 个（5 个种子合计）"
        "至少有一个分支返回不能启动的配置——"
        "训练形状从来没走到那个分支，所以分数看不出来。最终的数据库里仍有 75 个这样的程序，"
        "2 个种子的\"最好程序\"本身就带着一个。")
    assert obs.latent_crash_sentence(golden3, 100) == (
        "在 100 个新形状上（新的 M、405B 分片的 N、K）真正出错的有 35 个：隐患大多潜伏着，"
        "直到某个没见过的形状碰巧走进那个分支。这正是\"测试覆盖不到的分支\"在生产里出事的方式。")


def test_latent_bugs_said_as_they_are_when_none_enter_stay_or_reach_the_best():
    assert "没有一个带不能启动的分支" in obs.latent_enter_sentence(unchecked((0, 0, 0, False)) * 5)
    assert "都没有留到最终的数据库里" in obs.latent_enter_sentence(unchecked((14, 0, 0, False)))
    # 只进过 1 个时不说"它们都"
    assert obs.latent_enter_sentence(unchecked((1, 0, 0, False))).endswith(
        "这次它没有留到最终的数据库里。")
    none_best = obs.latent_enter_sentence(unchecked((14, 3, 0, False)) * 2)
    assert "不过没有一个种子的\"最好程序\"带着它们" in none_best


# 每个量词只在它恰好为真时说：全部、一个没有、不到一半、正好一半、超过一半但不是全部
CRASH_WORDS = ("全都发作", "全都潜伏着", "大多潜伏着", "正好是", "超过")


@pytest.mark.parametrize("stayed, crashed, word, said", [
    (75, 35, "大多潜伏着", "真正出错的有 35 个：隐患大多潜伏着"),
    (71, 35, "大多潜伏着", "真正出错的有 35 个：隐患大多潜伏着"),
    (70, 35, "正好是", "真正出错的有 35 个，正好是最终数据库里带隐患的 70 个的一半：另一半潜伏着"),
    (93, 71, "超过", "超过最终数据库里带隐患的 93 个的一半：这次多数隐患一碰到没见过的形状就发作"),
    (23, 22, "超过", "超过最终数据库里带隐患的 23 个的一半"),
    (22, 22, "全都发作", "真正出错的有 22 个，就是最终数据库里带隐患的全部 22 个："
                        "这次隐患一碰到没见过的形状就全都发作"),
    (1, 1, "全都发作", "真正出错的有 1 个，就是最终数据库里带隐患的全部 1 个"),
    (9, 0, "全都潜伏着", "一个都没有出错：最终数据库里带隐患的 9 个程序全都潜伏着"),
    (0, 0, None, "没有带隐患的程序")])
def test_each_quantifier_of_the_latent_bugs_is_said_only_when_it_is_so(stayed, crashed, word,
                                                                       said):
    sentence = obs.latent_crash_sentence(unchecked((stayed, stayed, crashed, False)), 100)
    assert said in sentence
    assert [w for w in CRASH_WORDS if w in sentence] == ([word] if word else []), sentence


def test_the_latent_bugs_add_up_over_the_seeds_before_the_quantifier():
    """两个种子各 11 个、都出错：合计 22 个里出错 22 个，是"全部"。"""
    two = unchecked((40, 11, 11, False), (30, 11, 11, True))
    assert "就是最终数据库里带隐患的全部 22 个" in obs.latent_crash_sentence(two, 100)


def test_every_seeds_best_program_carrying_a_latent_bug_is_said_to_be_all():
    both = obs.latent_enter_sentence(unchecked((14, 3, 0, True), (20, 5, 1, True)))
    assert both.endswith("全部 2 个种子的\"最好程序\"本身都带着一个。")
    one = obs.latent_enter_sentence(unchecked((14, 3, 0, True), (20, 5, 1, False)))
    assert one.endswith("1 个种子的\"最好程序\"本身就带着一个。")


# —— 每一行都有人说：讲义没谈到的行（学生加的变体）——

def test_at_the_defaults_nothing_is_added_for_the_rest():
    assert obs.rest_sentence(golden()) is None and obs.edited_full_sentence(golden()) is None


# lecture14/README.md"改一改"的三行
README_EDITS = {"eight_islands": {"n_islands": 8},
                "small_no_fb": {"llm": MockLLM(knowledge=False, feedback=None)},
                "no_evo_no_cascade": {"evolution": False, "cascade": False}}


def test_the_students_rows_get_their_median_and_place_against_fulls_seeds():
    table = golden(drop=[name for name in GOLDEN if name != "full"], variants=README_EDITS,
                   eight_islands=((1.068, 1.107, 1.193, 1.242), 1.232, 1.246, 44968),
                   small_no_fb=((1.060, 1.083, 1.134, 1.185), 1.162, 1.207, 43880),
                   no_evo_no_cascade=((1.054, 1.054, 1.054, 1.057), 1.054, 1.072, 45216))
    # 只差在岛数上的 eight_islands 由谈岛数的那句掂量，最后一句说另外两行
    assert obs.parts_sentence(table).startswith(
        "岛屿数（eight_islands 1.242）和完整方法（1.241）的差别在种子之间的波动以内")
    assert obs.rest_sentence(table) == (
        "你加的变体（1000 个程序后）："
        "small_no_fb 1.185、no_evo_no_cascade 1.057 低于完整方法最差的种子（1.238）。")
    # 讲义的"掉得最多"那句不在（no_evolution 删了）：另说变体里最低的是哪一行
    assert obs.lowest_sentence(table) == "变体里最低的是 no_evo_no_cascade（1.057）。"
    # 观察 5 也引用它们早期的分数
    said = obs.budget_sentence(table)
    assert said.startswith("100 个程序时的分数：full 1.107、eight_islands 1.107、"
                           "small_no_fb 1.083、no_evo_no_cascade 1.054——")


def test_with_one_seed_the_students_rows_are_compared_with_fulls_one_number():
    table = made_up({"full": 1.241, "mine": 1.3}, seeds=1, full=(1.241, 1.241))
    assert obs.rest_sentence(table) == ("你加的变体（1000 个程序后）："
                                        "mine 1.300 高于完整方法（1.241）"
                                        "——只有 1 个种子，看不出种子之间的波动。")


def test_when_no_evolution_speaks_of_the_lowest_the_rest_does_not_repeat_it():
    table = golden(mine=((1.0, 1.0, 1.0, 1.043), 1.04, 1.05, 45000))
    assert "最低" not in obs.rest_sentence(table)
    assert "掉得最多的是 mine（1.043）" in obs.no_evolution_sentence(table)


# —— 没有"最"可说的时候 ——

def test_one_variant_has_no_superlative():
    alone = made_up({"full": 1.241, "no_evolution": 1.057})
    said = obs.no_evolution_sentence(alone)
    assert "掉得最多" not in said and "最差的之一" not in said
    assert said == ("去掉\"进化\"（每次都从初始程序出发）：1000 个程序后 1.057，"
                    "低于完整方法最差的种子（1.238）。"
                    "一次修改只能走一小步，好程序要靠在好程序上继续改才能积累出来。")
    assert "最低" not in obs.rest_sentence(made_up({"full": 1.241, "mine": 1.1}))


def test_the_lowest_row_above_full_has_not_dropped():
    """学生改弱了 full：最低的变体也高于它，就不说"掉得最多"。"""
    weak = made_up({"full": 1.176, "no_evolution": 1.2, "mine": 1.3}, full=(1.168, 1.190))
    assert "掉得最多" not in obs.no_evolution_sentence(weak)


def test_an_edited_full_is_said_first():
    weak = {"full": {"llm": MockLLM(knowledge=False)}}
    said = obs.demo1(made_up({"full": 1.176, "small_llm": 1.176}, variants=weak))
    # 照 VARIANTS 的写法说改了什么，不贴一个 dict
    assert said[0] == ("这次的 full 是你改过的（比讲义的 full 改了 MockLLM(knowledge=False)）："
                       "下面说的\"完整方法\"都是它，不是讲义里的完整方法。")
    # 等价的写法不算改
    same = {"full": {"llm": MockLLM(feedback="best"), "n_islands": 4}}
    assert not made_up({"full": 1.2, "small_llm": 1.1}, variants=same).edited_full()


def test_rows_in_the_same_place_are_said_together():
    table = made_up({"full": 1.241, "a_b": 1.3, "c_d": 1.1, "e_f": 1.31})

    def with_values(name):
        return f"{name} {table.last(name):.3f}"
    assert obs.placed(table, ["a_b", "c_d", "e_f"], with_values) == (
        "a_b 1.300、e_f 1.310 高于完整方法最好的种子（1.250）；"
        "c_d 1.100 低于完整方法最差的种子（1.238）")


# —— 讲义说某一行的话，只在它和这次的 full 恰好只差讲义说的那一样时才说 ——

def test_each_lecture_variant_changes_exactly_what_the_lecture_says():
    """05 脚本的默认 VARIANTS（讲义的九行只写在那里）：每一行比 full 恰好只改讲义说的那一项。"""
    table = golden()
    assert all(table.as_in_lecture(name) for name in ablation.LECTURE_ROWS)
    assert ablation.LECTURE_NAMES == tuple(LECTURE)
    assert ablation.described({"full": LECTURE["full"]})["full"] == ablation.LECTURE_FULL


RANDOM_SMALL_FULL = {"full": {"llm": MockLLM(knowledge=False, feedback=None)}}


def test_a_full_without_the_component_is_not_said_to_lose_it():
    table = golden(variants=RANDOM_SMALL_FULL)
    said = " ".join(obs.demo1(table))
    for lecture_words in ("去掉\"进化\"", "去掉\"内核常识\"", "借规则（", "明显变差", "级联只省下"):
        assert lecture_words not in said, lecture_words
    # 和这个 full 只差在挑形状上的是 small_llm（它看反馈）：谈反馈的那句掂量它、说出它的名字
    assert obs.feedback_sentence(table).startswith(
        "反馈怎么用影响很大：不看反馈随便挑形状（full）1.241，"
        "按\"离见过的最快还差多少\"加权挑（small_llm）1.176。")
    # 只差在内核常识上的是 no_feedback（它有常识）：不是讲义那句"去掉"，只说它在哪
    assert obs.small_llm_sentence(table) == (
        "内核常识（和 full 只差这一样的行，1000 个程序后）：no_feedback（比 full 改了 "
        "MockLLM(knowledge=True)）1.228 低于完整方法最差的种子（1.238）。")
    # 别的行说它们实际差在哪：照 VARIANTS 的写法，MockLLM 的参数写成它的调用，evolve 的选项
    # 写成字典的一项
    unlike = obs.unlike_lecture_sentence(table)
    assert "small_llm" not in unlike and "no_feedback（" not in unlike
    assert ('no_evolution（比 full 改了 MockLLM(feedback="best", knowledge=True)、'
            '"evolution": False）' in unlike)


def test_a_full_that_already_lacks_a_component_is_said_to_have_the_same_options():
    unlike = obs.unlike_lecture_sentence(golden(variants={"full": {"evolution": False}}))
    assert "no_evolution（选项和 full 一样）1.057" in unlike
    assert 'small_llm（比 full 改了 MockLLM(knowledge=False)、"evolution": True）' in unlike


def test_fulls_way_of_picking_shapes_is_said_as_its_options_have_it():
    roofline = {"full": {"llm": MockLLM(feedback="roofline")}}
    said = obs.feedback_sentence(golden(variants=roofline))
    # 只差在挑形状上的都掂量：讲义的 no_feedback 照原话，fb_worst3（这个 full 之下它差的是
    # feedback 和 focus，都是挑形状）带上行名；fb_roofline 和 full 一样，由别的句子说
    assert said.startswith("反馈怎么用影响很大：按\"离 roofline 还差多少\"加权挑形状（full）1.241，"
                           "不看反馈随便挑 1.228，只盯最差的 3 个（fb_worst3）1.186。")
    unlike = obs.unlike_lecture_sentence(golden(variants=roofline))
    assert "fb_roofline（选项和 full 一样）" in unlike


def test_a_full_with_more_islands_keeps_only_the_island_sentence():
    eight = golden(variants={"full": {"n_islands": 8}})
    assert obs.parts_sentence(eight).startswith("岛屿数（one_island 1.247）和完整方法（1.241）")
    assert obs.no_evolution_sentence(eight) is None
    assert 'no_evolution（比 full 改了 "evolution": False、"n_islands": 4）' in (
        obs.unlike_lecture_sentence(eight))


def test_an_edited_lecture_row_is_said_as_it_is():
    table = golden(variants={"no_evolution": {"evolution": False, "n_islands": 1}})
    assert obs.no_evolution_sentence(table) is None
    assert obs.unlike_lecture_sentence(table) == (
        "这一行和这次的 full 不是只差讲义说的那一样，讲义说它的话这里不说（1000 个程序后）："
        'no_evolution（比 full 改了 "evolution": False、"n_islands": 1）1.057 '
        "低于完整方法最差的种子（1.238）。")
    assert obs.lowest_sentence(table) == "变体里最低的是 no_evolution（1.057）。"


# —— "早期差别小、后期差别大"：最高和最低之差至少变成 GROWS 倍 ——

@pytest.mark.parametrize("early_spread, late_spread, grows", [
    (0.055, 0.184, True), (0.030, 0.045, True), (0.030, 0.043, False), (0.030, 0.030, False),
    (0.030, 0.010, False), (0.0, 0.0, False), (0.0, 0.010, True)])
def test_the_spread_grows_only_by_at_least_grows_times(early_spread, late_spread, grows):
    assert obs.grows(early_spread, late_spread) == grows


def test_a_spread_that_does_not_grow_enough_is_said_as_it_is():
    early = {"full": 1.037, "no_feedback": 1.045, "small_llm": 1.030, "no_evolution": 1.015}
    late = {"full": 1.068, "no_feedback": 1.083, "small_llm": 1.059, "no_evolution": 1.040}
    said = obs.budget_sentence(made_up(late, early=early))
    assert "——早期差别小、后期差别大" not in said
    assert ("——表里各行最高和最低差 0.030，到 1000 个程序后差 0.043，只变成原来的 1.43 倍"
            "（不到 1.5 倍），说不上早期差别小、后期差别大；") in said


def test_the_spread_is_taken_over_every_printed_row_not_only_the_quoted_ones():
    """引的是讲义那几行（和学生加的行）的早期分数，差总是整张表的：没被引的一行也算。"""
    # 没被引的 fb_roofline 拉大了整张表后期的差，引的两行的差没变：整张表的差变大了
    early = {"full": 1.10, "no_evolution": 1.05, "fb_roofline": 1.10}
    late = {"full": 1.10, "no_evolution": 1.05, "fb_roofline": 1.30}
    said = obs.budget_sentence(made_up(late, early=early))
    assert said.startswith("100 个程序时的分数：full 1.100、no_evolution 1.050"
                           "——早期差别小、后期差别大")
    # 反过来：没被引的 one_island 早期最高（像讲义的表），引的两行的差变成 3.6 倍，整张表的只有
    # 1.27 倍——不说"早期差别小、后期差别大"，说整张表的差
    early = {"full": 1.10, "no_evolution": 1.05, "one_island": 1.20}
    late = {"full": 1.20, "no_evolution": 1.02, "one_island": 1.21}
    said = obs.budget_sentence(made_up(late, early=early))
    assert "one_island" not in said
    assert ("——表里各行最高和最低差 0.150，到 1000 个程序后差 0.190，只变成原来的 1.27 倍"
            "（不到 1.5 倍）") in said


def test_a_chinese_variant_name_sits_next_to_chinese_words_without_a_space():
    """学生的变体名可以是中文：和汉字之间不空格（"最低的是不进化"），和英文、数字之间照样空一格。"""
    table = made_up({"full": 1.241, "不进化": 1.054, "fb_roofline": 1.214},
                    variants={"不进化": {"evolution": False}})
    assert obs.lowest_sentence(table) == "变体里最低的是不进化（1.054）。"
    tied = made_up({"full": 1.241, "不进化": 1.054, "no_evolution": 1.054},
                   variants={"不进化": {"evolution": False}})
    assert obs.lowest_said(tied, ["不进化", "no_evolution"], "最低") == (
        "不进化和 no_evolution 并列最低（1.054）")
    assert obs.placed(table, ["不进化"]) == "不进化低于完整方法最差的种子（1.238）"
    assert obs.lowest_said(golden(), ["no_evolution"], "最低") == "最低的是 no_evolution（1.057）"


# —— 反过来的时候说是反过来 ——

FEEDBACK_BELOW = {"full": 1.241, "fb_roofline": 1.214, "no_feedback": 1.228, "fb_worst3": 1.186}


def test_when_every_other_use_beats_fulls_best_seed_full_is_said_to_be_worst():
    above = {"full": 1.241, "fb_roofline": 1.26, "no_feedback": 1.27, "fb_worst3": 1.28}
    said = obs.feedback_sentence(made_up(above))
    assert ("fb_roofline、no_feedback、fb_worst3 高于完整方法最好的种子（1.250）："
            "这个设置下 full 的挑法反而最差。") in said
    assert "看不出反馈怎么用影响很大" not in said


def test_when_one_use_beats_fulls_best_seed_full_is_not_the_best():
    said = obs.feedback_sentence(made_up(dict(FEEDBACK_BELOW, no_feedback=1.26)))
    assert "no_feedback 高于完整方法最好的种子（1.250）：这个设置下 full 的挑法不是最好的" in said


def test_when_full_has_the_lowest_median_within_the_noise_it_is_not_called_the_lowest():
    """issue 62：都在波动以内时不说 full 的中位数"最低"，只说看不出它的挑法更好。"""
    within = {"full": 1.239, "fb_roofline": 1.240, "no_feedback": 1.245, "fb_worst3": 1.249}
    said = obs.feedback_sentence(made_up(within))
    assert "在完整方法种子之间的波动以内（1.238–1.250）：这个设置下看不出 full 的挑法更好" in said
    assert "最低" not in said


def with_random_spread(table, lo, hi):
    """table 里 no_feedback 那一行的种子最小–最大换成 lo–hi（中位数不变）。"""
    random = table.rows["no_feedback"]
    rows = dict(table.rows, no_feedback=ablation.Row(random.at, lo, hi, random.runs))
    return ablation.Ablation(table.marks, table.seeds, rows, table.options)


# 只盯最差的 3 个和随便挑：fb_worst3 的中位数和 no_feedback 各种子的最小–最大（1.223–1.237）比，
# 和"比完整方法"是同一条规则；两端算在波动以内
@pytest.mark.parametrize("worst3, said", [
    (1.186, "只盯最差的 3 个比随便挑还差"),
    (1.222, "只盯最差的 3 个比随便挑还差"),
    (1.223, "只盯最差的 3 个在随便挑的种子之间的波动以内（1.223–1.237）"),
    (1.227, "只盯最差的 3 个在随便挑的种子之间的波动以内（1.223–1.237）"),
    (1.237, "只盯最差的 3 个在随便挑的种子之间的波动以内（1.223–1.237）"),
    (1.238, "只盯最差的 3 个反而比随便挑好")])
def test_worst3_against_random_is_outside_randoms_seed_spread_or_within_it(worst3, said):
    table = with_random_spread(made_up(dict(FEEDBACK_BELOW, fb_worst3=worst3)), 1.223, 1.237)
    assert f"——{said}。" in obs.feedback_sentence(table)


def test_worst3_two_medians_apart_but_within_randoms_seeds_is_no_difference():
    """中位数 1.112 对 1.115（旧的只比中位数时说"还差"），随便挑的种子 1.110–1.121。"""
    table = with_random_spread(made_up(dict(FEEDBACK_BELOW, no_feedback=1.115, fb_worst3=1.112)),
                               1.110, 1.121)
    said = obs.feedback_sentence(table)
    assert "比随便挑还差" not in said and "反而比随便挑好" not in said
    assert "——只盯最差的 3 个在随便挑的种子之间的波动以内（1.110–1.121）。" in said


@pytest.mark.parametrize("worst3, said", [(1.186, "只盯最差的 3 个比随便挑还差"),
                                          (1.230, "只盯最差的 3 个反而比随便挑好"),
                                          (1.228, "只盯最差的 3 个和随便挑一样")])
def test_with_one_seed_worst3_and_random_compare_their_one_numbers(worst3, said):
    one = made_up(dict(FEEDBACK_BELOW, fb_worst3=worst3), seeds=1, full=(1.241, 1.241))
    sentence = obs.feedback_sentence(one)
    # 结论只靠各一个数：就在这半句里说（issue 62）
    assert f"——{said}（各只有 1 个种子）。" in sentence and compare.ONE_SEED in sentence


# —— 一条规则（versus）：两边看，观察和真模型的脚本都用它（issue 62）——


def test_a_row_whose_own_seeds_cover_fulls_median_is_not_below_full():
    """issue 62 的例子：climber 1.236（1.208–1.249）的中位数低于 full 最差的种子 1.238，可 full 的
    中位数 1.241 在 climber 的种子里面：只从一边看的规则会说"低于"，两边看是在波动以内。"""
    table = golden(variants={"climber": {"n_islands": 1, "population": 1}},
                   climber=((1.0, 1.1, 1.15, 1.236), 1.208, 1.249, 44000))
    assert obs.outside_full(table, "climber") is None
    assert obs.compared(table, "climber") == (
        "和完整方法（1.241）的差在它自己种子之间的波动以内（1.208–1.249）")
    said = obs.parts_sentence(table)
    assert "climber 1.236）" in said and "的差别在种子之间的波动以内" in said
    assert "低于" not in said


def test_worst3_is_not_worse_than_random_when_randoms_median_is_inside_its_seeds():
    """fb_worst3 1.186（1.113–1.226）的中位数低于随便挑最差的种子 1.223，可随便挑的中位数 1.225
    在 fb_worst3 的种子里：两边看不成立，不说"比随便挑还差"。"""
    table = with_random_spread(made_up(dict(FEEDBACK_BELOW, no_feedback=1.225)), 1.223, 1.237)
    worst3 = table.rows["fb_worst3"]
    rows = dict(table.rows, fb_worst3=ablation.Row(worst3.at, 1.113, 1.226, worst3.runs))
    wide = ablation.Ablation(table.marks, table.seeds, rows, table.options)
    said = obs.feedback_sentence(wide)
    assert "比随便挑还差" not in said
    assert ("——只盯最差的 3 个和随便挑（1.225）的差在它自己种子之间的波动以内"
            "（1.113–1.226）。") in said


def test_small_llm_above_fulls_best_seed_is_said_to_do_better():
    said = obs.small_llm_sentence(made_up({"full": 1.241, "small_llm": 1.26}))
    assert said.endswith("高于完整方法最好的种子（1.250）——这个设置下去掉内核常识反而更好。")


def test_the_caution_quotes_the_largest_gap_it_just_excused():
    """issue 62：提醒"差多少也说明不了谁更好"引的数不比这句刚算作波动的任何一个差小，两半句不
    互相矛盾。这里 one_island 比 full 高 0.013（它自己的种子 1.20–1.27 把 full 包住），提醒就引
    0.013，不是 full 中位数到它最差种子的 0.003。"""
    table = made_up({"full": 1.241, "no_borrow": 1.241, "one_island": 1.254,
                     "no_feedback": 1.237, "fb_roofline": 1.230}, seeds=9)
    rows = dict(table.rows, one_island=ablation.Row({1000: 1.254}, 1.20, 1.27, 45000))
    wide = ablation.Ablation(table.marks, 9, rows, table.options)
    said = obs.parts_sentence(wide)
    assert "的差别在种子之间的波动以内" in said
    assert said.endswith("反过来，9 个种子时这几个差别（中位数最多差 0.013）也不能说明谁更好。")
    excused = [name for name in ablation.isolating(wide, ablation.DATABASE) + ["no_borrow"]]
    gap = obs.noise_gap(wide, excused)
    assert all(abs(wide.last(name) - wide.last("full")) <= gap for name in excused)
    # 说"影响很大"的行，两边看都低于 full
    called_big = [name for name in wide.rows if obs.outside_full(wide, name)]
    assert called_big == ["no_feedback", "fb_roofline"]


def test_at_the_lectures_settings_the_caution_keeps_the_seeds_looser_words():
    """讲义的设置下照讲义原话（最宽的波动，两位小数）：lecture14/README.md 说了它比规则宽松。"""
    assert golden().at_lecture_settings()
    lecture_words = "反过来，5 个种子的中位数差 0.02 也不能说明谁更好。"
    assert obs.parts_sentence(golden()).endswith(lecture_words)
    # 同一张表只改种子数，就不再是讲义的设置：照规则说
    same = golden()
    nine = ablation.Ablation(same.marks, 9, same.rows, same.options)
    assert not nine.at_lecture_settings()
    assert obs.parts_sentence(nine).endswith("这几个差别（中位数最多差 0.006）也不能说明谁更好。")


def test_a_noise_gap_of_zero_is_not_said():
    # full 的中位数就在它最差的种子上：没有一个差可说，这半句就不说
    tight = made_up({"full": 1.241, "no_borrow": 1.241}, full=(1.241, 1.242))
    assert obs.parts_sentence(tight).endswith("一个小实验得不出\"它没用\"的结论。")


# —— 1 个种子：每一句都只和完整方法那一个数比，都说看不出波动 ——

def test_with_one_seed_every_sentence_compares_with_one_number_and_says_so():
    final = {name: at[-1] for name, (at, _, _, _) in GOLDEN.items()}
    table = made_up(dict(final, mine=1.3), seeds=1, full=(1.241, 1.241))
    said = obs.demo1(table)
    for sentence in said:
        for claim in ("掉得最多", "明显变差", "影响很大", "波动以内", "反而",
                      "最好的种子", "最差的种子"):
            assert claim not in sentence, (claim, sentence)
        if "完整方法（1.241）" in sentence:
            assert compare.ONE_SEED in sentence, sentence


def test_demo3_with_one_seed_has_nothing_to_add_up():
    one = obs.latent_enter_sentence(unchecked((14, 3, 0, True)))
    assert "（只跑了 1 个种子）" in one and "合计" not in one
    assert one.endswith("这个种子的\"最好程序\"本身就带着一个。")
    assert obs.latent_enter_sentence(unchecked((14, 3, 0, False))).endswith(
        "这个种子的\"最好程序\"没有带着它们。")


class Proposer:
    """不是 MockLLM 的提出者（像 llm.py 的 ChatLLM）：没有 MockLLM 的四个选项。"""

    def propose(self, parent, feedback, inspirations, rng):
        return parent


def test_a_proposer_that_is_not_a_mockllm_counts_as_one_setting_written_by_its_class():
    table = made_up({"full": 1.241, "no_evolution": 1.057, "mine": 1.1},
                    variants={"no_evolution": {"llm": Proposer(), "evolution": False}})
    assert table.options["no_evolution"].llm.kind == "Proposer"
    said = obs.unlike_lecture_sentence(table)
    # 没有内存地址：每次运行印的一样；说不出它的参数，就写 (…)
    assert 'no_evolution（比 full 改了 Proposer(…)、"evolution": False）1.057' in said


# —— issue 41：每一种话一条规则，对表里印出来的每一行都成立 ——

def test_the_lecture_rows_are_the_scripts_variants():
    """讲义的行只写在 05 脚本的 VARIANTS 一处；observations 记的是讲义对每一行说了什么。"""
    assert all(ablation.lecture_says(golden().changed(name), name)
               for name in ablation.LECTURE_ROWS)
    script = load_script()
    assert (script.SEEDS, tuple(script.MARKS)) == (ablation.LECTURE_SEEDS, ablation.LECTURE_MARKS)


def test_a_tie_with_full_names_full_too():
    """issue 41 的例子：no_evolution 删了，no_borrow、no_cascade 和 full 都是最低的 1.241，
    one_island 两边看都高于它们。"""
    final = {"full": 1.241, "no_borrow": 1.241, "one_island": 1.260, "no_cascade": 1.241}
    table = made_up(final)
    assert table.bottom() == ["full", "no_borrow", "no_cascade"]
    assert obs.lowest_sentence(table) == "full、no_borrow 和 no_cascade 并列最低（1.241）。"
    # full 自己最低时也照说
    alone = made_up({"full": 1.100, "no_borrow": 1.241, "one_island": 1.247},
                    full=(1.090, 1.110))
    assert obs.lowest_sentence(alone) == "变体里最低的是 full（1.100）。"


def test_lowest_is_not_said_when_the_lowest_row_is_within_another_rows_spread():
    """issue 62 的例子："变体里最低的是 full（1.218）"，可每一行的种子都和别的行的重叠：
    说不出哪一行最低，就说它和哪几行分不出。"""
    final = {"full": 1.241, "no_borrow": 1.241, "one_island": 1.247, "no_cascade": 1.245}
    table = made_up(final, full=(1.238, 1.250))
    assert table.bottom() is None
    said = obs.lowest_sentence(table)
    assert said == ("说不出哪一行最低：full（1.241）和 no_borrow 1.241、one_island 1.247、"
                    "no_cascade 1.245 的差都在种子之间的波动以内（1000 个程序后）。")
    assert "最低的是" not in said and "并列最低" not in said


ENSEMBLE_FULL = {"full": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], weights=[4, 1])}}


def test_against_an_ensemble_full_a_row_changes_the_proposer_not_its_members_settings():
    table = golden(variants=ENSEMBLE_FULL)
    said = obs.unlike_lecture_sentence(table)
    # 换了一种提出者：写这一行的提出者（照 VARIANTS 的写法），不列成员已经有的设置，不贴 dict
    assert 'fb_roofline（比 full 改了 MockLLM(feedback="roofline")）' in said
    assert 'no_evolution（比 full 改了 MockLLM()、"evolution": False）' in said
    for pasted in ("{", "members", "knowledge=True", "'"):
        assert pasted not in said, pasted
    assert obs.demo1(table)[0] == (
        "这次的 full 是你改过的（比讲义的 full 改了 "
        "Ensemble([MockLLM(knowledge=False), MockLLM()], weights=[4, 1])）："
        "下面说的\"完整方法\"都是它，不是讲义里的完整方法。")


def test_two_ensembles_differ_by_what_they_are():
    other = {"mix": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], bandit=True)},
             "same": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], weights=[4, 1])}}
    table = made_up({"full": 1.241, "mix": 1.2, "same": 1.2}, variants={**ENSEMBLE_FULL, **other})
    assert table.changed("mix").written() == ["Ensemble(weights=None, bandit=True)"]
    assert not table.changed("same")
    # 图也把它画在"其他"那幅：Ensemble 的配比不属于哪个部件
    assert ablation.parts_changed(table.changed("mix")) is None
    assert curves.panel_of(ablation.parts_changed(table.changed("mix"))) == "other"


def test_the_demo2_pointer_only_where_demo2_shows_both_rankings():
    """演示 2 只画出按 roofline 和按见过的最快两种排序：这句没谈到其中一种就不指向它。"""
    assert obs.feedback_sentence(golden()).endswith("演示 2 看它们各自指向哪些形状。")
    without_roofline = obs.feedback_sentence(golden(drop=("fb_roofline",)))
    assert "演示 2" not in without_roofline
    roofline_only = obs.feedback_sentence(golden(drop=("fb_worst3", "no_feedback")))
    assert roofline_only.endswith("演示 2 看它们各自指向哪些形状。")


# —— 一句谈部件的观察掂量和 full 只差在这个部件上的每一行（issue 50）——

def test_a_students_row_that_isolates_a_part_is_weighed_by_that_parts_sentence():
    """学生加的两个岛那一行低于 full 最差的种子：谈岛数的那句说出它，不再下"这些部件的价值……
    才显出来"的结论；最后一句不再重复它。"""
    table = golden(variants={"two_islands": {"n_islands": 2}},
                   two_islands=((1.0, 1.0, 1.1, 1.200), 1.190, 1.210, 44000))
    assert ablation.isolating(table, ablation.DATABASE) == ["one_island", "two_islands"]
    said = obs.parts_sentence(table)
    assert said.startswith("借规则（no_borrow 1.241）、"
                           "岛屿数（one_island 1.247、two_islands 1.200）、"
                           "级联（no_cascade 1.241）和完整方法（1.241）：")
    assert "two_islands 低于完整方法最差的种子（1.238）" in said
    assert "才显出来" not in said and "没用" not in said
    assert obs.rest_sentence(table) is None


def test_a_row_that_differs_from_full_only_in_the_database_is_weighed_with_the_islands():
    """(1+1) 爬山（1 个岛、每岛 1 个程序）和 full 只差在数据库上：和 one_island 一起在谈数据库的
    那句里，这个部件叫这几行实际改了的那几项；它低于 full 最差的种子，就只说位置，不下"这些部件的
    价值……才显出来"的结论；最后一句不再重复它。只改每岛程序数的一行，部件就只叫"每岛程序数"。"""
    climber = {"climber": {"n_islands": 1, "population": 1}}
    # 它的种子窄（1.225–1.236）：两边看都低于 full
    table = golden(variants=climber, climber=((1.0, 1.1, 1.15, 1.232), 1.225, 1.236, 44000))
    assert ablation.isolating(table, ablation.DATABASE) == ["one_island", "climber"]
    said = obs.parts_sentence(table)
    assert said.startswith("借规则（no_borrow 1.241）、"
                           "岛屿数和每岛程序数（one_island 1.247、climber 1.232）、"
                           "级联（no_cascade 1.241）和完整方法（1.241）：")
    assert "climber 低于完整方法最差的种子（1.238）" in said and "才显出来" not in said
    assert obs.rest_sentence(table) is None
    smaller = golden(drop=("one_island",), variants={"five": {"population": 5}},
                     five=((1.0, 1.1, 1.2, 1.240), 1.239, 1.245, 44000))
    assert "、每岛程序数（five 1.240）、" in obs.parts_sentence(smaller)
    # 一行还改了别的（这里是级联），就不只差在数据库上：不在这句里，由最后一句说
    mixed = golden(variants={"both": {"population": 1, "cascade": False}},
                   both=((1.0, 1.1, 1.2, 1.240), 1.239, 1.245, 44000))
    assert "both" not in obs.parts_sentence(mixed)
    assert "both" in obs.rest_sentence(mixed)


def test_a_students_row_that_isolates_feedback_keeps_the_sentence_from_calling_it_unimportant():
    """讲义的三种挑法都在 full 的种子之间，学生加的"按 roofline 只盯最差的 3 个"低于最差的种子：
    谈反馈的那句带上它的名字，不说"看不出反馈怎么用影响很大"。"""
    within = {"full": 1.241, "fb_roofline": 1.240, "no_feedback": 1.245, "fb_worst3": 1.239,
              "roofline_worst3": 1.189}
    worst3 = {"roofline_worst3": {"llm": MockLLM(feedback="roofline", focus="worst3")}}
    said = obs.feedback_sentence(made_up(within, variants=worst3))
    assert "只盯离 roofline 最远的 3 个（roofline_worst3）1.189" in said
    assert "看不出" not in said
    assert "roofline_worst3 低于完整方法最差的种子（1.238）" in said
    # 没有它时，三种挑法都在波动以内，才说看不出
    lecture_only = {name: x for name, x in within.items() if name != "roofline_worst3"}
    without = obs.feedback_sentence(made_up(lecture_only))
    assert "这个设置下看不出反馈怎么用影响很大" in without


def test_a_lecture_row_identical_to_full_is_not_weighed_and_the_row_that_isolates_the_part_is():
    """学生把 full 改成 1 个岛：one_island 和 full 一模一样，不再代表"岛屿数"；只差在岛数上的是
    学生加的四个岛那一行，它低于 full 最差的种子，谈岛数的那句说的是它。"""
    variants = {"full": {"n_islands": 1}, "four_islands": {"n_islands": 4}}
    table = golden(variants=variants, four_islands=((1.0, 1.0, 1.1, 1.200), 1.190, 1.210, 44000))
    assert ablation.isolating(table, ablation.DATABASE) == ["four_islands"]
    said = obs.parts_sentence(table)
    assert said.startswith("岛屿数（four_islands 1.200）和完整方法（1.241）：four_islands 低于")
    assert "才显出来" not in said
    assert "one_island（选项和 full 一样）" in obs.unlike_lecture_sentence(table)


def test_two_rows_for_one_part_pointing_opposite_ways_are_both_placed():
    """一行高于 full 最好的种子、一行低于最差的种子：各说各的位置，不下结论。"""
    table = golden(variants={"two_islands": {"n_islands": 2}},
                   one_island=((1.0, 1.0, 1.1, 1.230), 1.220, 1.236, 44000),
                   two_islands=((1.0, 1.0, 1.1, 1.260), 1.255, 1.270, 44000))
    said = obs.parts_sentence(table)
    assert "one_island 低于完整方法最差的种子（1.238）" in said
    assert "two_islands 高于完整方法最好的种子（1.250）" in said
    assert "才显出来" not in said and "在种子之间的波动以内（看" not in said


def test_a_student_row_that_isolates_evolution_gets_the_plain_sentence_not_the_lectures():
    """和 full 只差在进化上的不止讲义的 no_evolution：讲义那句（"掉得最多"）不说，只说每一行在哪；
    最低的是哪一行由另一句说。"""
    table = golden(variants={"no_evo_too": {"evolution": False}},
                   no_evo_too=((1.0, 1.0, 1.0, 1.040), 1.030, 1.050, 44000))
    said = obs.no_evolution_sentence(table)
    assert said == ("进化（和 full 只差这一样的行，1000 个程序后）："
                    'no_evolution（比 full 改了 "evolution": False）1.057、'
                    'no_evo_too（比 full 改了 "evolution": False）1.040 '
                    "低于完整方法最差的种子（1.238）。")
    assert obs.lowest_sentence(table) == "变体里最低的是 no_evo_too（1.040）。"


# —— 改了等于没改的行：说出来，别当成发现（issue 62）——

RANDOM_ROW = GOLDEN["no_feedback"]


def test_focus_without_feedback_is_said_to_change_nothing():
    """MockLLM(feedback=None, focus="worst3") 跑出来就是 no_feedback 的数：先说 focus 不起作用、
    两行是同一个方法，不让学生把一样的数当成发现。"""
    table = golden(variants={"fb_x": {"llm": MockLLM(feedback=None, focus="worst3")}},
                   fb_x=RANDOM_ROW)
    said = obs.demo1(table)
    assert said[0] == ("先说一句：fb_x 写的 focus=\"worst3\" 什么都不改（focus 只在看反馈时起作用："
                       "feedback=None 时随便挑形状，看不到谁最差）；no_feedback 和 fb_x 实际跑的是"
                       "同一个方法，印出来的数一样不是发现。")
    # 没有 no_feedback 那一行时，也说 focus 不起作用
    alone = golden(drop=("no_feedback",),
                   variants={"fb_x": {"llm": MockLLM(feedback=None, focus="worst3")}},
                   fb_x=RANDOM_ROW)
    assert obs.same_sentence(alone).startswith("先说一句：fb_x 写的 focus=\"worst3\" 什么都不改")
    assert "同一个方法" not in obs.same_sentence(alone)


def test_a_row_with_fulls_options_is_said_to_be_the_same_run():
    table = golden(variants={"mine": {"llm": MockLLM()}}, mine=GOLDEN["full"])
    assert obs.same_sentence(table) == (
        "先说一句：full 和 mine 实际跑的是同一个方法，印出来的数一样不是发现。")


def test_islands_and_borrowing_without_evolution_are_said_to_change_nothing():
    """不进化时每个提案都从初始程序改、不看别的程序：岛数、借不借规则都用不上，这一行就是
    no_evolution。"""
    table = golden(variants={"evo_island": {"evolution": False, "n_islands": 1,
                                            "llm": MockLLM(use_inspirations=False)}},
                   evo_island=GOLDEN["no_evolution"])
    assert obs.same_sentence(table) == (
        "先说一句：evo_island 写的 use_inspirations=False、\"n_islands\": 1 什么都不改"
        "（不进化时每个提案都从初始程序改、不看别的程序，岛数、每岛程序数、借不借规则都用不上）；"
        "no_evolution 和 evo_island 实际跑的是同一个方法，印出来的数一样不是发现。")


def test_at_the_defaults_no_row_is_said_to_be_the_same_as_another():
    assert obs.same_sentence(golden()) is None


# —— 1 个种子：结论靠各一个数，就在那句话里说（issue 62）——

def test_with_one_seed_the_lowest_row_says_it_rests_on_one_number():
    one = made_up({"full": 1.241, "no_borrow": 1.2, "mine": 1.1}, seeds=1, full=(1.241, 1.241))
    assert obs.lowest_sentence(one) == f"变体里最低的是 mine（1.100）——{compare.ONE_SEED}。"


def test_differences_do_not_grow_into_big_ones_while_the_last_rows_overlap():
    """最高和最低之差到最后变成 3 倍，可最高、最低的两行种子互相包住：不说"后期差别大"。"""
    rows = {"full": ablation.Row({100: 1.10, 1000: 1.24}, 1.20, 1.28, 1),
            "mine": ablation.Row({100: 1.11, 1000: 1.21}, 1.17, 1.25, 1)}
    table = ablation.Ablation((100, 1000), 5, rows, options_of(rows))
    said = obs.budget_sentence(table)
    assert "早期差别小、后期差别大" not in said
    assert ("但最后中位数最高的 full 和最低的 mine 的差还在种子之间的波动以内，"
            "说不上后期差别大") in said
