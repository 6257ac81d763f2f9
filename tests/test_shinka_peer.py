"""shinka_peer.py：交给 ShinkaEvolve 的评估脚本。不装 ShinkaEvolve 也能查：它只在跑的时候才
import shinka。ShinkaEvolve 运行 shinka_peer.py --program_path P --results_dir D，读 D 里的
metrics.json、correct.json：专家程序 1 分、对，交回我们的反馈表；我们的循环会拒掉的程序 0 分、
不对，交回原因，什么都不执行。存下的结果 --show 出来是一行 ShinkaEvolve 的。"""
import glob
import json
import os
import sys

import shinka_peer
from evolve import EXPERT, render
from llm_ablations import BUDGET, DATA


def evaluated(tmp_path, source):
    """像 ShinkaEvolve 那样评估一个程序文件：(metrics.json, correct.json)。"""
    program, results = tmp_path / "main.py", tmp_path / "results"
    program.write_text(source, encoding="utf-8")
    assert shinka_peer.main(["--program_path", str(program), "--results_dir", str(results)]) == 0
    return [json.loads((results / name).read_text(encoding="utf-8"))
            for name in ("metrics.json", "correct.json")]


def test_the_module_and_its_evaluation_do_not_need_shinka(tmp_path):
    evaluated(tmp_path, shinka_peer.MARKED.format(render(EXPERT)))
    assert "shinka" not in sys.modules


def test_the_expert_scores_one_is_correct_and_hands_back_our_feedback_table(tmp_path,
                                                                           monkeypatch):
    log = tmp_path / "evaluations.jsonl"
    monkeypatch.setenv(shinka_peer.LOG_VARIABLE, str(log))
    metrics, correct = evaluated(tmp_path, shinka_peer.MARKED.format(render(EXPERT)))
    assert (metrics["combined_score"], metrics["public"]) == (1.0, {"verdict": "ok"})
    assert correct == {"correct": True, "error": None}
    feedback = metrics["text_feedback"].splitlines()
    assert feedback[0] == "Per-shape feedback on the training shapes:"
    assert feedback[1].split()[:6] == ["M", "N", "K", "time_us", "vs_roofline", "vs_best"]
    # 主进程最后数的那一行
    assert [json.loads(line) for line in log.read_text().splitlines()] == [
        {"verdict": "ok", "score": 1.0}]


def test_what_our_loop_would_reject_scores_zero_is_incorrect_and_nothing_runs(tmp_path):
    touched = tmp_path / "executed"
    source = shinka_peer.MARKED.format(render(EXPERT) + f"open({str(touched)!r}, 'w')\n")
    metrics, correct = evaluated(tmp_path, source)
    assert (metrics["combined_score"], metrics["public"]) == (0.0, {"verdict": "outside_subset"})
    assert correct["correct"] is False
    assert correct["error"] == metrics["text_feedback"]
    assert metrics["text_feedback"].startswith("The program was rejected (outside_subset): ")
    assert not touched.exists()


def test_show_prints_a_saved_result_as_a_shinka_evolve_row(tmp_path, capsys):
    saved = {"peer": "ShinkaEvolve", "mode": "diff", "seed": 0, "iterations": 100,
             "model": "qwen2.5-coder-1.5b-instruct", "temperature": 0.8, "max_tokens": 1024,
             "candidates": 40, "verdicts": {"ok": 30, "outside_space": 6, "bad_branch": 4},
             "in_database": 40, "failed_iterations": {"No changes applied": 60},
             "best_source": shinka_peer.MARKED.format(render(EXPERT)), "seconds": 500.0}
    path = tmp_path / "shinka_qwen_diff_seed0.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    assert shinka_peer.main(["--show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ShinkaEvolve（diff）+ qwen2.5-coder-1.5b-instruct：100 轮，种子 0" in out
    # 训练、测试、解析（40 - 6）、过检查（34 - 4）、进库、每轮秒数
    assert ["ShinkaEvolve", "diff", "1.000", "1.000", "34", "30", "40", "5.0"] in [
        line.split() for line in out.splitlines()]
    assert "没变成候选：No changes applied（60 次）" in out


def test_no_generation_is_cut_before_a_model_call_could_end():
    """0.0.7 从提案开始（问模型之前）给一代计时，到点杀掉：上限至少 30 分钟，长过它自己的客户端
    等一次模型调用的 20 分钟（shinka/llm/constants.py 的 TIMEOUT = 1200）。"""
    hours, minutes, seconds = (int(part) for part in shinka_peer.JOB_LIMIT.split(":"))
    limit = 3600 * hours + 60 * minutes + seconds
    assert limit >= 30 * 60 and limit > 1200


def test_every_committed_shinka_run_reached_its_whole_budget():
    """提交的 ShinkaEvolve 结果都跑满了预算：每一代的结局（候选或一条失败原因）加起来是存下的
    代数（test_openevolve_peer 查每份存下的结果），这里查代数就是整份预算——没有一代在评估之前
    被上限杀掉。"""
    saved = sorted(glob.glob(os.path.join(DATA, "shinka_*.json")))
    assert saved
    for path in saved:
        with open(path, encoding="utf-8") as f:
            assert json.load(f)["iterations"] == BUDGET, path
