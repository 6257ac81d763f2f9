"""
CS349E · 第 14 讲 · winning_prompts.py —— meta prompt evolution 之后赢了的提示

    python3 winning_prompts.py        （讲义的设置：5 个种子 × 1,000 个提案；JOBS 同 05 脚本）

05 脚本的 VARIANTS 里加上 "meta_prompt": {"meta_prompt": True} 这样的一行，表里就有它的分数；
这里印的是那几次运行的提示数据库：每个种子赢了的提示（有孩子的里功劳最大的）、它的孩子数和
变好的个数，以及最好程序那一刻数据库里的全部提示。和 05 脚本同样的种子、同样的运行。
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lecture01"))
from console import print_header, print_table, stops_cleanly  # noqa: E402

with stops_cleanly():
    import needs_numpy  # noqa: F401
    from checks import OneSentenceParser  # noqa: E402
    from evolve import HINTS, MockLLM, TimeTable, all_shapes, split_shapes  # noqa: E402
    from runs import Job, Runs, workers_or_exit  # noqa: E402

SEEDS = 5
BUDGET = 1000
# 两对：完整方法、没有内核常识的小模型，各自开着 meta prompt
WITH_PROMPTS = {
    "meta_prompt": {"meta_prompt": True},
    "small_llm_meta": {"llm": MockLLM(knowledge=False), "meta_prompt": True},
}


def said(hints):
    """一个提示照它的指示写出来；没有指示的是讲义的 MockLLM。"""
    return "、".join(hints) if hints else "（空：讲义的 MockLLM）"


def main():
    # 没有参数（--help 印用法，别的参数一句话）：不然 --help 也一声不响地跑完整个脚本
    OneSentenceParser(description="meta prompt evolution 之后每个种子赢了的提示"
                                  "（见文件开头；JOBS 同 05 脚本）。").parse_args()
    workers = workers_or_exit()
    shapes = all_shapes()
    table = TimeTable()
    train, test = split_shapes(shapes)
    jobs = [Job(name, kw, seed, BUDGET) for name, kw in WITH_PROMPTS.items()
            for seed in range(SEEDS)]
    with Runs(train, test, table, workers) as runs:
        runs.submit(jobs)
        finished = runs.results(jobs)
    for name in WITH_PROMPTS:
        print_header(f"{name}：每个种子赢了的提示（{BUDGET} 个预算之后）")
        rows = []
        for f in finished:
            if f.job.name != name:
                continue
            leader = f.out.prompts.leader()
            rows.append([f.job.seed, said(leader.hints), leader.children, leader.improved,
                         f"{leader.credit():.3f}", f"{f.out.best.score:.3f}"])
        print_table(["种子", "赢了的提示", "孩子", "变好的", "功劳", "最好分数"], rows)
    print_header("词表")
    print_table(["指示", "意思"], [[name, text] for name, text in HINTS.items()])


if __name__ == "__main__":
    with stops_cleanly():
        main()
