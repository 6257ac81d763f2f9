"""memo.py：记性好的评估器（MemoEvaluator）和 Evaluator 给的一模一样，只是快。"""
import numpy as np
import pytest
from conftest import SMALL_AND_FULL

import memo
from ensemble import Ensemble
from evolve import EXPERT, Evaluator, MockLLM, evolve
from memo import MemoEvaluator


def _everything(out, ev):
    db = [[(entry.program, entry.score) for entry in pop] for pop in out.db.islands]
    return (out.history, out.outcomes, out.best, db, ev.bench_runs, ev.best_time.tolist(),
            ev.best_cfg.tolist())


@pytest.mark.parametrize("options", [{}, {"llm": MockLLM(knowledge=False)}, {"cascade": False},
                                     {"llm": Ensemble(SMALL_AND_FULL, bandit=True)},
                                     {"meta_prompt": True, "parallel": 3}])
@pytest.mark.parametrize("check", [True, False])
def test_the_memo_changes_nothing_but_speed(options, check, table, split):
    train, _ = split
    plain, remembering = Evaluator(train, table, check), MemoEvaluator(train, table, check)
    a = evolve(plain, 300, seed=3, **options)
    b = evolve(remembering, 300, seed=3, **options)
    assert _everything(a, plain) == _everything(b, remembering)


def test_a_full_cache_is_emptied_not_grown(table, split, monkeypatch):
    """满了先清空：记下的项不超过 CACHE_LIMIT，查到的还是对的。"""
    monkeypatch.setattr(memo, "CACHE_LIMIT", 3)
    train, _ = split
    ev = MemoEvaluator(train, table)
    out = evolve(ev, 100, seed=0)
    assert max(len(ev._masks), len(ev._branches), len(ev._looked_up)) <= 3
    fresh = Evaluator(train, table)
    for entry in out.db.islands[0]:
        assert np.array_equal(ev.look_up(entry.program).time, fresh.look_up(entry.program).time)
    assert ev.look_up(EXPERT).first == fresh.look_up(EXPERT).first
