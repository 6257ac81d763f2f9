"""lecture14/real_llm/ 的两个表的脚本（issue 30）：OpenEvolve 的评估器（不装 OpenEvolve 也能查：它只在跑的时候才
import openevolve）和真模型消融表下的那几句话。"""
import pytest

import llm_ablations
import openevolve_peer
from evolve import EXPERT, render
from llm_cases import SPLIT_K_TEXT


def test_the_peer_scores_the_expert_as_one_and_hands_back_our_feedback_table():
    verdict, table, score = openevolve_peer.judge_source(render(EXPERT))
    assert (verdict, score) == ("ok", 1.0)
    assert table.splitlines()[0].split()[:6] == ["M", "N", "K", "time_us", "vs_roofline",
                                                "vs_best"]


def test_the_peer_gives_zero_to_what_our_loop_would_reject_and_executes_nothing(tmp_path):
    touched = tmp_path / "executed"
    opens = f"open({str(touched)!r}, 'w')"
    expert = render(EXPERT)
    cases = {
        "outside_subset": expert + f"\n{opens}\n",
        "syntax_error": expert.replace("):", ")", 1),
        "outside_space": expert.replace("BM=16,", "BM=17,"),
        # BM=256, BN=256, BK=128, stages=5 放不进共享内存：这个分支不能启动
        "bad_branch": expert.replace("Config(BM=16, BN=64, BK=64, warps=4, stages=3",
                                     "Config(BM=256, BN=256, BK=128, warps=4, stages=5"),
    }
    for expected, source in cases.items():
        verdict, _, score = openevolve_peer.judge_source(source)
        assert (verdict, score) == (expected, 0.0), source
    assert not touched.exists()
    better = expert.replace("Config(BM=16, BN=64, BK=64, warps=4, stages=3, split_k=1)",
                            SPLIT_K_TEXT)
    assert openevolve_peer.judge_source(better)[2] > 1.0


def runs(*scores):
    return [{"score": s, "test": s, "seed": k} for k, s in enumerate(scores)]


# 演示 1 的规则（observations.versus）：A 的中位数在 B 所有种子的外面才说更好、更差；两端算在以内
@pytest.mark.parametrize("a, b, said", [
    ((1.10, 1.11, 1.12), (1.05, 1.08, 1.09), "更好"),
    ((1.01, 1.02, 1.03), (1.05, 1.08, 1.09), "更差"),
    ((1.06, 1.10, 1.12), (1.05, 1.08, 1.09), "更好"),
    ((1.00, 1.04, 1.10), (1.05, 1.08, 1.09), "更差"),
    ((1.06, 1.07, 1.12), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.00, 1.09, 1.20), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
    ((1.00, 1.05, 1.20), (1.05, 1.08, 1.09), "差距在种子的波动之内"),
])
def test_a_difference_is_called_only_when_the_median_is_beyond_the_others_seeds(a, b, said):
    groups = {"A": runs(*a), "B": runs(*b)}
    sentence = llm_ablations.compare("A", "B", groups)
    assert sentence.count(said) == 2 and sentence.startswith("A 对 B：")
    others = {"更好", "更差", "差距在种子的波动之内", "一样"} - {said}
    assert not [word for word in others if word in sentence], sentence


@pytest.mark.parametrize("a, b, said", [((1.10,), (1.05,), "更好"), ((1.00,), (1.05,), "更差"),
                                        ((1.05,), (1.05,), "一样")])
def test_one_seed_a_side_compares_the_two_numbers_and_says_so(a, b, said):
    sentence = llm_ablations.compare("A", "B", {"A": runs(*a), "B": runs(*b)})
    assert sentence.startswith("A 对 B（A、B 只有一个种子）：") and sentence.count(said) == 2
    assert "波动之内" not in sentence


def test_against_one_seed_the_median_is_compared_with_that_number():
    groups = {"A": runs(1.00, 1.06, 1.20), "B": runs(1.05)}
    sentence = llm_ablations.compare("A", "B", groups)
    assert sentence.startswith("A 对 B（B 只有一个种子）：") and sentence.count("更好") == 2


def test_a_recording_without_the_new_settings_is_todays_variant():
    assert llm_ablations.variant({"model": "m"}) == ("full", True, True)
    assert llm_ablations.variant({"edit": "diff", "context": False}) == ("diff", False, True)


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


def test_no_improvement_at_all_is_a_dash_not_a_division_by_zero():
    rows = llm_ablations.member_rows({"mix": [team(0, [50, 50], [0, 0])]})
    assert [row[-1] for row in rows] == ["—", "—"]


@pytest.mark.parametrize("name, english", [
    ("SmolLM2 + Gemma 4:1，一处改动", "SmolLM2 + Gemma 4:1, one-line diff"),
    ("SmolLM2，没有反馈表", "SmolLM2, no feedback table"),
    ("随机改一处，不进化", "random edits, no evolution"),
    ("MockLLM()，不进化", "MockLLM(), no evolution"),
    ("MockLLM(knowledge=False)", "MockLLM(knowledge=False)"),
])
def test_every_legend_has_an_english_name_for_a_machine_without_cjk_fonts(name, english):
    assert llm_ablations.in_english(name) == english
