"""ensemble.py：几个提出者一起（Ensemble）——固定配比、UCB1、一次运行的计数、写错时的一句话。"""
import math
import random

import pytest
from conftest import SMALL_AND_FULL

from ensemble import EXPLORATION, Ensemble
from evolve import Evaluator, MockLLM, evolve


# —— 6. 几个提出者一起（Ensemble）：配比、UCB1、一次运行的计数 ——

def test_fixed_weights_give_each_member_its_share():
    team = Ensemble(SMALL_AND_FULL, weights=[4, 1])
    rng = random.Random(0)
    picks = [team.assign(rng) for _ in range(2000)]
    assert abs(picks.count(0) / 2000 - 0.8) < 0.03
    assert team.proposals == [picks.count(0), picks.count(1)]


def test_ucb1_tries_each_member_once_then_follows_the_index():
    team = Ensemble(SMALL_AND_FULL, bandit=True)
    rng = random.Random(0)
    # 没试过的按顺序先试：0 有进步，1 没有
    assert team.assign(rng) == 0
    team.learn(True)
    assert team.assign(rng) == 1
    team.learn(False)
    # 次数一样：平均奖励 1 对 0，挑 0
    assert team.assign(rng) == 0
    team.learn(False)
    # 0：1/2 + c·√(ln 3 / 2) ≈ 1.02；1：0 + c·√(ln 3 / 1) ≈ 0.74
    assert team.assign(rng) == 0
    team.learn(False)
    # 0 试了 3 次、进步 1 次：1/3 + c·√(ln 4 / 3) ≈ 0.81，比 1 的 0 + c·√(ln 4) ≈ 0.83 小
    assert team.proposals == [3, 1] and team.assign(rng) == 1
    assert 1 / 3 + EXPLORATION * math.sqrt(math.log(4) / 3) < EXPLORATION * math.sqrt(math.log(4))


def test_a_tie_goes_to_the_earlier_member():
    team = Ensemble(SMALL_AND_FULL, bandit=True)
    rng = random.Random(0)
    for _ in range(2):
        team.assign(rng)
        team.learn(False)
    assert team.assign(rng) == 0


@pytest.mark.parametrize("how", [{"weights": [4, 1]}, {"bandit": True}])
def test_an_ensemble_run_depends_only_on_its_seed(how, table, train):
    """VARIANTS 里的一个实例给所有种子用：计数每次运行从零开始，同一个种子两次一样。"""
    team = Ensemble(SMALL_AND_FULL, **how)
    runs = []
    for seed in (0, 1, 0):
        out = evolve(Evaluator(train, table), 200, seed=seed, llm=team)
        runs.append((out["history"], out["outcomes"], team.proposals, team.improvements))
    assert runs[0] == runs[2] != runs[1]
    assert sum(runs[0][2]) == 200 and all(runs[0][2])


def test_the_bandit_moves_proposals_to_the_member_that_improves(table, train):
    """有内核常识的 MockLLM 的子程序更常比父程序好：bandit 把大多数提案给它。"""
    team = Ensemble(SMALL_AND_FULL, bandit=True)
    evolve(Evaluator(train, table), 400, seed=0, llm=team)
    rates = [better / n for better, n in zip(team.improvements, team.proposals)]
    assert rates[1] > rates[0] and team.proposals[1] > 2 * team.proposals[0]


@pytest.mark.parametrize("members, how, says", [
    ([MockLLM()], {}, "至少两个提出者"),
    (SMALL_AND_FULL, {"weights": [1]}, "weights 有 1 个，提出者有 2 个"),
    (SMALL_AND_FULL, {"weights": [1, float("nan")]}, "有限的正数"),
    (SMALL_AND_FULL, {"weights": [1, 1], "bandit": True}, "两个只给一个"),
    (SMALL_AND_FULL, {"bandit": "yes"}, "bandit"),
    ([MockLLM(), MockLLM], {}, "不是类"),
])
def test_a_wrong_ensemble_is_one_sentence(members, how, says):
    with pytest.raises((TypeError, ValueError)) as e:
        Ensemble(members, **how)
    assert says in str(e.value) and "\n" not in str(e.value)
