"""openevolve_peer.py（issue 30）：交给 OpenEvolve 的评估器。不装 OpenEvolve 也能查：它只在跑的
时候才 import openevolve。专家程序得 1 分、交回我们的反馈表；我们的循环会拒掉的程序得 0 分，
什么都不执行。存下的结果每一轮只记一次。"""
import argparse
import glob
import json
import os

import pytest
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


# —— 开跑之前就看得出的问题：一句话，不跑十分钟的连接错误，不覆盖存过的结果（issue 50）——

def _args(tmp_path, **given):
    defaults = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "out": None, "force": False}
    return argparse.Namespace(**{**defaults, **given})


HERE_PEER = openevolve_peer.Peer("Here", "json", "~/venv-here", "json")
ABSENT = openevolve_peer.Peer("Absent", "no_such_package_anywhere", "~/venv-absent", "absent numpy")


def test_an_existing_result_file_is_not_overwritten_unless_forced(tmp_path):
    saved = tmp_path / "openevolve_diff_seed0.json"
    saved.write_text("{}")
    said = openevolve_peer.problem_before_running(_args(tmp_path, out=str(saved)), HERE_PEER)
    assert said.startswith(f"--out {saved} 已经有了：不覆盖存过的结果") and "--force" in said
    forced = openevolve_peer.problem_before_running(_args(tmp_path, out=str(saved), force=True),
                                                    HERE_PEER)
    assert forced is None or not forced.startswith("--out")


def test_without_its_package_the_peer_says_which_venv_to_make(tmp_path):
    said = openevolve_peer.problem_before_running(_args(tmp_path), ABSENT)
    assert "要 Absent" in said and "python3 -m venv ~/venv-absent && " in said
    assert "~/venv-absent/bin/pip install absent numpy" in said


def test_a_refused_connection_stops_before_the_run_and_a_listening_server_does_not(tmp_path):
    from servers import ScriptedServer
    said = openevolve_peer.problem_before_running(_args(tmp_path), HERE_PEER)
    assert said.startswith("连不上 http://127.0.0.1:9/v1（") and "模型服务器开着吗" in said
    server = ScriptedServer([("reply", "hi")])
    try:
        assert openevolve_peer.problem_before_running(_args(tmp_path, base_url=server.url),
                                                      HERE_PEER) is None
    finally:
        server.close()


@pytest.mark.parametrize("given, says", [
    ({"iterations": 0}, "--iterations 必须是 ≥ 1 的整数，收到 0。"),
    ({"timeout": -5}, "--timeout 必须是 ≥ 1 的整数，收到 -5。"),
    ({"seed": -1}, "--seed 必须是 ≥ 0 的整数，收到 -1。"),
    ({"generations": 0}, "--generations 必须是 ≥ 1 的整数，收到 0。"),
    ({"out": "/no/such/folder/r.json"},
     "--out /no/such/folder/r.json：目录 /no/such/folder 不存在"),
])
def test_a_bad_number_or_an_out_without_its_folder_is_said_before_the_run(tmp_path, given, says):
    """轮数 0（跑完才在算每轮秒数时除以 0）、--out 的目录不在（跑完一两个小时才存不进去）：
    开跑之前一句话。"""
    said = openevolve_peer.problem_before_running(_args(tmp_path, **given), HERE_PEER)
    assert said is not None and said.startswith(says)


@pytest.mark.parametrize("content, says", [
    (None, "：打不开（No such file or directory）。"),
    ("# 不是 JSON\n", "：不是一个 JSON 文件（"),
    ('{"mode": "diff"}', "：不是 openevolve_peer.py、shinka_peer.py 存下的结果（没有 best_source"),
    ("[1, 2]", "：不是 openevolve_peer.py、shinka_peer.py 存下的结果（没有 best_source"),
])
def test_show_of_a_file_that_is_not_a_saved_result_is_one_sentence(tmp_path, capsys, monkeypatch,
                                                                    content, says):
    monkeypatch.setenv("COLUMNS", "1000")
    path = tmp_path / "result.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert openevolve_peer.main(["--show", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.replace("\n", "").startswith(f"--show {path}{says}")
    assert "Traceback" not in err
