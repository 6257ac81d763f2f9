"""random_edits.py：随机改一处（RandomEdits），真模型要比的底线。每次恰好改一处、改完每个分支
仍能启动；挪阈值的那些改动就是 MockLLM 挪得出的每一种；只用给它的 rng。"""
import random

import evolve as E
import evolve_with_llm as cli
from evolve import EXPERT, Evaluator, evolve, render
from variants import ProposerDescription


def differences(a, b):
    """两个程序差在哪：[(第几个分支, 哪一处)]。"""
    assert len(a.rules) == len(b.rules)
    out = []
    for i, (x, y) in enumerate(zip(a.configs(), b.configs())):
        out += [(i, f) for f in E.CONFIG_CHOICES if getattr(x, f) != getattr(y, f)]
    for i, (x, y) in enumerate(zip(a.rules, b.rules)):
        out += [(i, (j, k)) for j in range(3) for k in range(2) if x.bounds[j][k] != y.bounds[j][k]]
    return out


def test_random_edits_make_exactly_one_valid_change(table, split, evolved):
    ev, rng = Evaluator(split[0], table), random.Random(0)
    parents = [EXPERT] + [p for p in evolved if E.all_branches_valid(p, table.hw)][:10]
    kinds = set()
    for parent in parents:
        fb = ev.feedback(parent)
        for _ in range(40):
            child = cli.RandomEdits().propose(parent, fb, [], rng)
            diff = differences(parent, child)
            # 恰好一处
            assert len(diff) == 1, render(child)
            # 改完每个分支仍能启动
            assert E.all_branches_valid(child, table.hw)
            kinds.add(type(diff[0][1]).__name__)
    # 字段和阈值都改过
    assert kinds == {"str", "tuple"}


def test_random_threshold_moves_are_every_move_mockllm_can_make(split, evolved):
    """随机改一处挪阈值的那些改动，就是 MockLLM 挪阈值能挪出的每一种（挪不动、原样返回的除外）。"""
    import random_edits
    view = E.TrainingView(split[0])
    rng = random.Random(0)
    for parent in [EXPERT] + evolved[:10]:
        mockllm_moves = {E._move_threshold(parent, view, rng) for _ in range(3000)} - {parent}
        assert set(random_edits.threshold_moves(parent, split[0])) == mockllm_moves


def test_random_edits_describe_themselves():
    assert cli.RandomEdits().describe() == ProposerDescription("RandomEdits")


def test_random_edits_only_use_the_rng_it_is_given(table, split):
    ev = Evaluator(split[0], table)
    a = evolve(ev, 60, seed=2, llm=cli.RandomEdits())
    b = evolve(ev, 60, seed=2, llm=cli.RandomEdits())
    assert a["history"] == b["history"] and a["outcomes"] == b["outcomes"]
