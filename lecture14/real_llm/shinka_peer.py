"""
=============================================================================
CS349E · 第 14 讲 · lecture14/real_llm/shinka_peer.py —— 同一个任务交给 ShinkaEvolve，并排比一比
=============================================================================

ShinkaEvolve（PyPI shinka-evolve，0.0.7，Sakana AI）是 AlphaEvolve 的另一个开源实现：岛屿、
按分数加权选父程序、diff / 重写 / 交叉三种改法。这里像一个用户那样用它，和 openevolve_peer.py
一样：讲义的评估器当它的评估脚本，专家程序当初始程序（整个放进它的 EVOLVE-BLOCK），同一段
system message、同样的模型、温度（0.8）、每次回复的 token 上限（1024）和预算（100 代，每代问一次
模型）。它不能每次请求带 GBNF 文法，就不带。改法三选一：
  --mode diff（默认）：只要 SEARCH/REPLACE 的 diff，和 OpenEvolve 的 diff 比；
  --mode full：每次要整个程序；
  --mode mix：ShinkaEvolve 自己的默认，diff 0.6、整个重写 0.3、交叉 0.1。
评估：ShinkaEvolve 每代起一个进程运行评估脚本（python 本文件 --program_path … --results_dir …），
本文件读程序的源码（从不执行，openevolve_peer.judge_file），把分数、对错、我们的反馈表写成它读的
metrics.json、correct.json。每次评估是新进程：反馈表的 vs_best 只和专家程序、这个程序自己比。
打印和 openevolve_peer.py 一样的列；结果另存成 JSON，键和 openevolve_peer 存的一样，多一个
"peer": "ShinkaEvolve"。

ShinkaEvolve 不是本项目的依赖，装在它自己的 venv 里（约 900 MB）：
    python3 -m venv ~/venv-shinka
    ~/venv-shinka/bin/pip install 'shinka-evolve==0.0.7' numpy
先开着 Qwen2.5-Coder 的服务器（本目录 README.md；一个服务器一次只给一个客户端用），再：
    ~/venv-shinka/bin/python lecture14/real_llm/shinka_peer.py \\
        --base-url http://127.0.0.1:8767/v1 \\
        --model qwen2.5-coder-1.5b-instruct --mode diff --generations 100 --seed 0 \\
        --out /tmp/shinka_qwen_diff_seed0.json
存下的结果不装 ShinkaEvolve 也能看：.venv/bin/python lecture14/real_llm/shinka_peer.py --show 文件
"""
import collections
import glob
import json
import os
import sqlite3
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
import openevolve_peer  # noqa: E402
from checks import OneSentenceParser  # noqa: E402
from console import stops_cleanly  # noqa: E402
from evolve import EXPERT, render  # noqa: E402

# 评估进程把每次评估的结论追加到这个环境变量指的文件里，一次一行 JSON：主进程最后数
LOG_VARIABLE = "CS349E_SHINKA_LOG"
# ShinkaEvolve 只改 EVOLVE-BLOCK 里面的：整个程序都可以改
MARKED = "# EVOLVE-BLOCK-START\n{}# EVOLVE-BLOCK-END\n"
# 一代（job）的时间上限。0.0.7 从提案开始、问模型之前就起算（core/async_runner.py 的
# proposal_started_at 当 job 的 start_time），到点由 launch/scheduler.py 杀掉，那一代就以不合格、
# 0 分进库，我们的评估脚本没有运行。所以它得长过一次模型调用：ShinkaEvolve 自己的客户端最多等
# 20 分钟（shinka/llm/constants.py 的 TIMEOUT = 1200），我们的评估不到 1 秒。以前是 1 分钟：Qwen
# 整个重写一个请求平均约 77 s，100 代里 37 代被它截掉；改成 30 分钟后重录，100 代都到了评估
# （README.md 的 ShinkaEvolve 一节）
JOB_LIMIT = "00:30:00"
# 每种要法的 patch_types 和 patch_type_probs；mix 是 shinka.defaults 的默认
PATCHES = {"diff": (["diff"], [1.0]), "full": (["full"], [1.0]),
           "mix": (["diff", "full", "cross"], [0.6, 0.3, 0.1])}


# ==== 1. 评估脚本：ShinkaEvolve 的子进程运行本文件 --program_path P --results_dir D ==============

def evaluate(program_path, results_dir):
    """读程序（不执行）、打分，写 ShinkaEvolve 读的两个文件。不合格的程序 correct 是 false、
    0 分：它进库，但不当父程序（和 OpenEvolve 的 0 分一样不会被选中改进）。"""
    verdict, shown, score = openevolve_peer.judge_file(program_path, LOG_VARIABLE)
    os.makedirs(results_dir, exist_ok=True)
    # public 不能是空的：ShinkaEvolve 的 perf_str 会把分数的最后一位截掉
    metrics = {"combined_score": score, "public": {"verdict": verdict}, "private": {},
               "text_feedback": shown}
    correct = {"correct": verdict == "ok", "error": None if verdict == "ok" else shown}
    for name, payload in (("metrics.json", metrics), ("correct.json", correct)):
        with open(os.path.join(results_dir, name), "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=1)


# ==== 2. 一次运行：ShinkaEvolve 的设置、跑、数结果 ===============================================

def shinka_configs(args, workdir):
    """像用户写的设置：一个本地模型、温度 0.8、一个评估进程、一个提案（一个服务器一次只答一个）。"""
    from shinka.core import EvolutionConfig
    from shinka.database import DatabaseConfig
    from shinka.launch import LocalJobConfig
    patch_types, patch_probs = PATCHES[args.mode]
    evo = EvolutionConfig(
        task_sys_msg=openevolve_peer.system_message(),
        patch_types=patch_types, patch_type_probs=patch_probs,
        # 第 0 代是初始程序：再加 generations 代，每代一个提案
        num_generations=args.generations + 1,
        # 每代只问一次模型：默认改坏了会再抽父程序重问（3 次 × 新颖性 3 轮，最多 9 次），
        # 那样 100 代问模型的次数就不是 100 次，和 OpenEvolve、我们的循环比不了
        max_patch_resamples=1, max_patch_attempts=1, max_novelty_attempts=1,
        llm_models=[f"local/{args.model}@{args.base_url}"],
        # 只有一个模型，不用它的 UCB 选模型
        llm_dynamic_selection=None,
        llm_kwargs={"temperatures": openevolve_peer.TEMPERATURE,
                    "max_tokens": openevolve_peer.MAX_TOKENS},
        # 不要嵌入（没有嵌入模型）：也就没有新颖性检查；不要元总结（它要另外问模型）
        embedding_model=None, novelty_llm_models=None, meta_rec_interval=None,
        meta_llm_models=None, evolve_prompts=False,
        # 我们的反馈表（或不合格的原因）放进提示，和 OpenEvolve 的 artifact 一样
        use_text_feedback=True,
        init_program_path=os.path.join(workdir, "initial.py"),
        results_dir=os.path.join(workdir, "results"), language="python")
    # 评估脚本就是本文件，用跑本文件的这个 Python；上限见 JOB_LIMIT
    job = LocalJobConfig(eval_program_path=os.path.abspath(__file__),
                         python_executable=sys.executable, time=JOB_LIMIT)
    # 数据库用它的默认（两个岛、存档 40、按分数加权选父程序）
    return evo, job, DatabaseConfig()


def failure_reasons(results_dir):
    """没变成候选的那些代为什么（每代一个 failure.json），按原因数：原因取第一行，数字换成 N。"""
    reasons = collections.Counter()
    for path in glob.glob(os.path.join(results_dir, "gen_*", "failure.json")):
        with open(path, encoding="utf-8") as f:
            reason = json.load(f).get("failure_reason") or "unknown"
        reasons[openevolve_peer.reason_key(reason.strip().split("\n")[0])] += 1
    return dict(reasons)


def run(args, workdir):
    """跑一次 ShinkaEvolve，返回要存的结果。"""
    import random

    import numpy as np
    from shinka.core import ShinkaEvolveRunner
    evo, job, db = shinka_configs(args, workdir)
    with open(evo.init_program_path, "w", encoding="utf-8") as f:
        f.write(MARKED.format(render(EXPERT)))
    log = os.path.join(workdir, "evaluations.jsonl")
    os.environ[LOG_VARIABLE] = log
    # ShinkaEvolve 没有种子的设置：它抽改法、父程序、岛用全局的 np.random 和 random
    np.random.seed(args.seed)
    random.seed(args.seed)
    start = time.monotonic()
    ShinkaEvolveRunner(evo, job, db, banner_style="minimal", verbose=False,
                       max_evaluation_jobs=1, max_proposal_jobs=1).run()
    seconds = time.monotonic() - start
    with sqlite3.connect(os.path.join(evo.results_dir, "programs.sqlite")) as con:
        # 第 0 代的几行是初始程序（每个岛一份）
        added = con.execute("SELECT COUNT(*) FROM programs WHERE generation > 0").fetchone()[0]
        best = con.execute("SELECT code FROM programs WHERE correct ORDER BY combined_score DESC,"
                           " generation LIMIT 1").fetchone()
    # 每代要么评估了一个候选程序，要么留下一个 failure.json：和 openevolve_peer 一样数
    best_source = best[0] if best else MARKED.format(render(EXPERT))
    result = openevolve_peer.saved_result(args, openevolve_peer.evaluated_verdicts(log),
                                          failure_reasons(evo.results_dir), added, best_source,
                                          seconds)
    return {"peer": "ShinkaEvolve", **result}


# ==== 3. 命令行 =================================================================================

SHINKA = openevolve_peer.Peer("ShinkaEvolve", "shinka", "~/venv-shinka",
                              "'shinka-evolve==0.0.7' numpy")


def parse_args(argv):
    ap = OneSentenceParser(description="在讲义的评估器上跑 ShinkaEvolve（见文件开头）")
    # 这两个只有真跑时才要（--show 不联网）：见 main
    ap.add_argument("--base-url", help="OpenAI 兼容的地址，例如 http://127.0.0.1:8767/v1")
    ap.add_argument("--model", help="模型名，例如 qwen2.5-coder-1.5b-instruct")
    ap.add_argument("--mode", choices=tuple(PATCHES), default="diff",
                    help="diff：SEARCH/REPLACE；full：整个重写；mix：ShinkaEvolve 的默认，"
                         "diff、重写、交叉按 0.6、0.3、0.1")
    ap.add_argument("--generations", type=int, default=100,
                    help="代数，每代问一次模型（默认 100，和录制的预算一样）")
    ap.add_argument("--seed", type=int, default=0, help="随机种子（默认 0）")
    openevolve_peer.add_output_arguments(ap)
    # ShinkaEvolve 运行评估脚本时给的两个参数：见 evaluate
    ap.add_argument("--program_path", help="（ShinkaEvolve 用）要评估的程序")
    ap.add_argument("--results_dir", help="（ShinkaEvolve 用）评估结果写到这里")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.program_path:
        evaluate(args.program_path, args.results_dir or ".")
        return 0
    return openevolve_peer.show_or_run(args, SHINKA, run)


if __name__ == "__main__":
    # Ctrl-C、… | head、写不下中文的终端：一行说明或安静退出
    with stops_cleanly():
        sys.exit(main())
