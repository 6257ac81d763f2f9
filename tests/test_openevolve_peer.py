"""openevolve_peer.py（issue 30）：交给 OpenEvolve 的评估器。不装 OpenEvolve 也能查：它只在跑的
时候才 import openevolve。专家程序得 1 分、交回我们的反馈表；我们的循环会拒掉的程序得 0 分，
什么都不执行。存下的结果每一轮只记一次。"""
import argparse
import glob
import json
import os

from llm_cases import SPLIT_K_TEXT

import openevolve_peer
from llm_ablations import DATA
from evolve import EXPERT, render


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


def test_every_saved_result_counts_each_iteration_once():
    # 每轮要么变成候选程序，要么记下一条失败：提前停下的那次也按它真跑了的轮数记
    for path in glob.glob(os.path.join(DATA, "*_seed*.json")):
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
        ran = result["candidates"] + sum(result["failed_iterations"].values())
        assert result["iterations"] == ran, path
        assert sum(result["verdicts"].values()) == result["candidates"], path


def test_a_run_stopped_early_is_saved_with_the_iterations_that_ran():
    asked = argparse.Namespace(mode="full", seed=0, model="m", iterations=100)
    saved = openevolve_peer.saved_result(asked, ["ok", "syntax_error", "ok"],
                                         {"Rewrite is identical to the parent program": 2},
                                         in_database=3, best_source="", seconds=12.34)
    assert saved["iterations"] == 5 and saved["candidates"] == 3
    assert saved["verdicts"] == {"ok": 2, "syntax_error": 1} and saved["seconds"] == 12.3


def test_failure_reasons_that_differ_only_in_a_number_are_one_reason():
    key = openevolve_peer.reason_key
    two, one = "None of the 2 SEARCH block(s) matched", "None of the 1 SEARCH block(s) matched"
    assert key(two) == key(one)
