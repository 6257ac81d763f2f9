"""llm_ablations.py（issue 30）：真模型消融表下的那几句话（两组种子比出"更好""更差"）、
录制按设置归到哪个变体、叫什么名字，几个模型一起时每个模型分到的提案，图例的英文名，
随机改一处的爬山（issue 56）。"""
import json

import pytest

import evolve_with_llm as cli
import llm_ablations
from evolve import EXPERT, TimeTable, all_shapes, render, split_shapes
from random_edits import RandomEdits


def runs(*scores):
    return [{"score": s, "test": s, "seed": k} for k, s in enumerate(scores)]


# 两行都不是讲义的基准：两边看都成立才说更好、更差——A 的中位数在 B 所有种子的外面，B 的中位数
# 也在 A 所有种子的外面（两端算在以内）；只从一边看成立的是差距在种子的波动之内
@pytest.mark.parametrize("a, b, said", [
    ((1.10, 1.11, 1.12), (1.05, 1.08, 1.09), "更好"),
    ((1.01, 1.02, 1.03), (1.05, 1.08, 1.09), "更差"),
    # A 的中位数高过 B 最好的种子，可 B 的中位数在 A 的范围里（issue 56 的"再问更差"就是这样）
    ((1.06, 1.10, 1.12), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.00, 1.04, 1.10), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.075, 1.089, 1.130), (1.101, 1.113, 1.113), "差距在种子的波动之内"),
    ((1.06, 1.07, 1.12), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.00, 1.09, 1.20), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.00, 1.05, 1.20), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.10, 1.11, 1.12), (1.05, 1.10, 1.105), "差距在种子的波动之内"),
])
def test_a_difference_is_called_only_when_it_holds_from_both_sides(a, b, said):
    groups = {"A": runs(*a), "B": runs(*b)}
    sentence = llm_ablations.compare("A", "B", groups)
    assert sentence.count(said) == 2 and sentence.startswith("A 对 B：")
    others = {"更好", "更差", "差距在种子的波动之内", "一样"} - {said}
    assert not [word for word in others if word in sentence], sentence
    # 同一对反过来问，说的是反过来的话
    mirrored = {"更好": "更差", "更差": "更好"}.get(said, said)
    assert llm_ablations.compare("B", "A", groups).count(mirrored) == 2


def test_a_verdict_the_three_printed_digits_cannot_show_is_printed_with_more():
    """1.0786 对从 1.0793 起的范围：印成 3 位是 1.079 对 1.079，看着一样高——多印一位。"""
    groups = {"A": runs(1.0700, 1.0786, 1.0790), "B": runs(1.0793, 1.0850, 1.0900)}
    sentence = llm_ablations.compare("A", "B", groups)
    assert sentence.count("更差") == 2
    assert "中位数 1.0786 对 1.0850，范围 1.0700–1.0790 对 1.0793–1.0900" in sentence


def test_a_verdict_no_printed_digits_can_show_is_not_made():
    groups = {"A": runs(1.0, 1.0, 1.0), "B": runs(1.0 + 1e-9, 1.1, 1.2)}
    sentence = llm_ablations.compare("A", "B", groups)
    assert sentence.count("差距在种子的波动之内") == 2 and "更差" not in sentence


@pytest.mark.parametrize("a, b, said", [((1.10,), (1.05,), "更好"), ((1.00,), (1.05,), "更差"),
                                        ((1.05,), (1.05,), "一样")])
def test_one_seed_a_side_compares_the_two_numbers_and_says_so(a, b, said):
    sentence = llm_ablations.compare("A", "B", {"A": runs(*a), "B": runs(*b)})
    assert sentence.startswith("A 对 B（A、B 只有一个种子）：") and sentence.count(said) == 2
    assert "波动之内" not in sentence


def test_against_one_seed_both_sides_still_count():
    """B 只有一个种子：A 的中位数高过它还不够，它也得在 A 的范围外面。"""
    inside = {"A": runs(1.00, 1.06, 1.20), "B": runs(1.05)}
    sentence = llm_ablations.compare("A", "B", inside)
    assert sentence.startswith("A 对 B（B 只有一个种子）：")
    assert sentence.count("差距在种子的波动之内") == 2
    outside = {"A": runs(1.06, 1.07, 1.20), "B": runs(1.05)}
    assert llm_ablations.compare("A", "B", outside).count("更好") == 2


def test_a_recording_without_the_new_settings_is_todays_variant():
    assert llm_ablations.variant({"model": "m"}) == ("full", True, True, False, False)
    assert llm_ablations.variant({"edit": "diff", "context": False}) == (
        "diff", False, True, False, False)
    assert llm_ablations.variant({"edit": "diff", "meta_prompt": True}) == llm_ablations.META
    assert llm_ablations.variant({"edit": "diff", "resample": 3}) == llm_ablations.RESAMPLED
    assert llm_ablations.variant({"edit": "diff", "resample": 0}) == llm_ablations.COMPLETE


# —— 说明由模型改写（issue 43）：和同一个模型不改写说明的比，画在第六幅 ——

def test_a_meta_prompt_row_is_compared_with_the_same_model_without_it():
    meta, plain = "Qwen，说明由模型改写", "Qwen，一处改动"
    groups = {llm_ablations.FULL: runs(1.10, 1.11, 1.12), plain: runs(1.00, 1.02, 1.03),
              meta: runs(1.04, 1.05, 1.06), "随机改一处": runs(1.07, 1.08, 1.09)}
    said = llm_ablations.observations(groups)
    compared = [llm_ablations.compare(meta, other, groups) for other in (plain, "随机改一处")]
    assert [s for s in said if s.startswith(f"{meta} 对 ")] == compared
    assert "训练形状上更好" in said[-2] and "训练形状上更差" in said[-1]
    # 那一幅：不改写说明的那行在前；SmolLM2 的完整方法每幅都画，不再列一次
    assert llm_ablations.meta_panel(groups) == [plain, meta]
    assert llm_ablations.in_english(meta) == "Qwen, meta prompt"


# —— 两个模型（issue 37）：行名、每个模型分到的提案、那句话 ——

def test_a_recording_is_named_by_its_models_and_its_mix():
    one = {"model": "gemma-3-270m"}
    members = [{"model": "SmolLM2-135M-Instruct"}, {"model": "gemma-3-270m"}]
    assert llm_ablations.proposer(one) == "Gemma"
    assert llm_ablations.proposer({"model": "qwen"}) == "qwen"
    mixed = {"members": members, "weights": [4.0, 1.0], "bandit": False}
    assert llm_ablations.proposer(mixed) == "SmolLM2 + Gemma 4:1"
    bandit = {"members": members, "weights": None, "bandit": True}
    assert llm_ablations.proposer(bandit) == "SmolLM2 + Gemma bandit"


def test_a_peer_row_names_its_framework_its_mode_and_its_model(tmp_path):
    expert = render(EXPERT)
    common = {"seed": 0, "iterations": 100, "seconds": 100.0, "candidates": 1,
              "in_database": 1, "verdicts": {"ok": 1}, "best_source": expert}
    saved = {"openevolve_qwen_diff_seed0.json": {"mode": "diff",
                                                  "model": "qwen2.5-coder-1.5b-instruct"},
             "openevolve_diff_seed0.json": {"mode": "diff", "model": "SmolLM2-135M-Instruct"},
             "shinka_qwen_diff_seed0.json": {"mode": "diff", "peer": "ShinkaEvolve",
                                             "model": "qwen2.5-coder-1.5b-instruct"},
             # 没跑满的：行名说跑了几轮
             "openevolve_qwen_full_seed0.json": {"mode": "full", "iterations": 66,
                                                 "model": "qwen2.5-coder-1.5b-instruct"}}
    for file, result in saved.items():
        (tmp_path / file).write_text(json.dumps({**common, **result}), encoding="utf-8")
    runs = llm_ablations.peer_runs(str(tmp_path))
    # OpenEvolve 的在前（文件名的顺序），ShinkaEvolve 的在后；模型用表里的短名字
    assert list(runs) == ["OpenEvolve diff，SmolLM2", "OpenEvolve diff，Qwen",
                          "OpenEvolve full，Qwen（66/100 轮）", "ShinkaEvolve diff，Qwen"]
    assert runs["ShinkaEvolve diff，Qwen"][0]["score"] == 1.0


def team(seed, proposals, improvements):
    return {"seed": seed, "models": ["S", "G"], "proposals": proposals,
            "improvements": improvements}


def test_the_members_table_and_sentence_say_where_the_proposals_went():
    results = [team(1, [70, 30], [7, 3]), team(0, [90, 10], [0, 5])]
    rows = llm_ablations.member_rows({"mix": results, "alone": [{"seed": 0}]})
    # 按种子排，每个模型一行：提案、占、比父程序好、占进步的
    assert rows == [["mix", 0, "S", 90, "90%", 0, "0%"], ["mix", 0, "G", 10, "10%", 5, "100%"],
                    ["mix", 1, "S", 70, "70%", 7, "70%"], ["mix", 1, "G", 30, "30%", 3, "30%"]]
    sentence = llm_ablations.shares("mix", results)
    assert "G 分到的提案依次是 10%、30%" in sentence
    assert "S 7/160（4%）" in sentence and "G 8/40（20%）" in sentence
    # 只有一个种子：一个数，不说"依次"
    alone = llm_ablations.shares("mix", results[:1])
    assert "1 个种子上 G 分到的提案是 30%" in alone and "依次" not in alone


def test_no_improvement_at_all_is_a_dash_not_a_division_by_zero():
    rows = llm_ablations.member_rows({"mix": [team(0, [50, 50], [0, 0])]})
    assert [row[-1] for row in rows] == ["—", "—"]


@pytest.mark.parametrize("name, english", [
    ("SmolLM2 + Gemma 4:1，一处改动", "SmolLM2 + Gemma 4:1, one-line diff"),
    ("SmolLM2，没有反馈表", "SmolLM2, no feedback table"),
    ("随机改一处，不进化", "random edits, no evolution"),
    ("随机改一处，爬山", "random edits, hill climber"),
    ("MockLLM()，不进化", "MockLLM(), no evolution"),
    ("MockLLM(knowledge=False)", "MockLLM(knowledge=False)"),
])
def test_every_legend_has_an_english_name_for_a_machine_without_cjk_fonts(name, english):
    assert llm_ablations.in_english(name) == english


# —— 种群要不要（issue 56）：随机改一处的 (1+1) 爬山，和随机改一处同样的设置，只换数据库 ——

def test_the_climber_is_random_edits_on_one_island_that_keeps_one_program():
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    evolving = {"budget": 30, "seed": 1, "parallel": 1, "evolution": True, "meta_prompt": False}
    still = {**evolving, "evolution": False}
    loops = [tuple(sorted(loop.items())) for loop in (evolving, still)]
    runs = llm_ablations.baseline_runs(loops, train, test, table)
    # 不进化时每个提案都从专家程序改，没有爬山可言：只有进化的那种上有一次
    assert [r["seed"] for r in runs[llm_ablations.CLIMBER]] == [1]
    assert not [name for name in runs if name.startswith(llm_ablations.CLIMBER + "，")]
    climbed = runs[llm_ablations.CLIMBER][0]["out"]
    assert len(climbed.db.islands) == 1 and climbed.db.population == 1
    # 同样的预算、种子、评估器：就是命令行的跑法加上一个岛、一个程序
    alone = cli.run(RandomEdits(), {**evolving, **llm_ablations.CLIMBING}, train, test, table, None)
    assert climbed.history == alone["out"].history
    # 随机改一处那一行本身不变：还是命令行的进化循环
    plain = cli.run(RandomEdits(), evolving, train, test, table, None)
    assert runs[llm_ablations.RANDOM][0]["out"].history == plain["out"].history
    assert len(runs[llm_ablations.RANDOM][0]["out"].db.islands) > 1


def test_the_climber_is_weighed_against_random_edits_independent_samples_and_smollm2():
    climber, randomly = llm_ablations.CLIMBER, llm_ablations.RANDOM
    groups = {llm_ablations.FULL: runs(1.10, 1.11, 1.12), randomly: runs(1.07, 1.08, 1.09),
              randomly + llm_ablations.NO_EVOLUTION: runs(1.05, 1.06, 1.06),
              climber: runs(1.16, 1.17, 1.17)}
    said = [s for s in llm_ablations.observations(groups) if s.startswith(f"{climber} 对 ")]
    others = (randomly, randomly + llm_ablations.NO_EVOLUTION, llm_ablations.FULL)
    assert said == [llm_ablations.compare(climber, other, groups) for other in others]
    assert all(s.count("更好") == 2 for s in said)
