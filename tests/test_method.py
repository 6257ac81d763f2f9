"""方法本身的事实，一条性质一个测试：几何平均、按排名挑父程序、满员的岛收不收、迁移、级联的边界、
一批批的提案加起来正好是预算、一个 Job 就是直接跑 evolve、UCB1 一步步挑谁，和一次短运行的历史。

这些性质坏了，跑整个程序的测试（回放、05 脚本）多半也会失败，可它们标着 slow，核心不跑；
这里每一条在核心里直接说出来：只跑核心（-m "not slow"）的人改坏了方法，当场看得见。
只用 evolve、ensemble、runs 公开的名字（私有的 _batches 经过 evolve 数提案来测）。"""
import hashlib
import math
import random
from collections import Counter

import pytest
from conftest import SMALL_AND_FULL

import evolve as E
from ensemble import EXPLORATION, Ensemble
from evolve import EXPERT, Config, Evaluator, Program, Rule, UNBOUNDED, evolve
from runs import Job, run_job


# —— 分数：几何平均 ——

def test_the_score_is_the_geometric_mean_of_the_speedups():
    """1 和 4 的几何平均是 2（算术平均是 2.5）；快一倍、慢一倍抵消成 1；有一个 0 就是 0。"""
    assert E.geomean([1.0, 4.0]) == pytest.approx(2.0)
    assert E.geomean([2.0, 8.0, 4.0]) == pytest.approx(4.0)
    assert E.geomean([3.0]) == pytest.approx(3.0)
    assert E.geomean([1.5, 0.0, 2.0]) == 0.0
    # 专家的时间 / 程序的时间：一个形状上快一倍、另一个慢一倍
    assert E.speedup_score([2.0, 2.0], [1.0, 4.0]) == pytest.approx(1.0)


# —— 岛屿数据库：挑父程序、收程序、迁移 ——

def _island(scores):
    """一个岛：每个分数一个互不相同的程序（默认配置不同），分数按给的顺序，从高到低。"""
    programs = [Program((), cfg) for cfg in E.CONFIGS[:len(scores)]]
    db = E.IslandDatabase(1, programs[0], scores[0])
    for p, s in zip(programs[1:], scores[1:]):
        assert db.add(0, p, s)
    return db


def test_rank_weights_decrease_with_rank():
    """第 r 名的权重 (r+1)^-RANK_POWER：第一名最大，一名比一名小，每个岛满员时每一名都有一个
    （每岛 population 个，默认 POPULATION）。"""
    w = E.IslandDatabase(1, EXPERT, 1.0).rank_weights
    assert len(w) == E.POPULATION and w[0] == 1.0
    assert len(E.IslandDatabase(1, EXPERT, 1.0, population=3).rank_weights) == 3
    assert all(a > b > 0 for a, b in zip(w, w[1:]))
    assert w == pytest.approx([(r + 1) ** -E.RANK_POWER for r in range(E.POPULATION)])


def test_the_parent_is_drawn_by_rank_weight_not_always_the_best():
    """满员的岛上抽 20,000 次：每一名被挑中的频率是它的权重占的份额（误差 0.015，约 5 个标准差），
    第一名也只占约四分之一。"""
    scores = [2.0 - 0.1 * r for r in range(E.POPULATION)]
    db = _island(scores)
    rng = random.Random(0)
    draws = 20_000
    picked = Counter(db.sample(0, rng)[0].score for _ in range(draws))
    weights = db.rank_weights
    total = sum(weights)
    for r, s in enumerate(scores):
        assert picked[s] / draws == pytest.approx(weights[r] / total, abs=0.015), r
    assert picked[scores[0]] / draws < 0.5


def test_inspirations_are_other_programs_of_the_island_drawn_at_random():
    """inspiration：同岛的 N_INSPIRATIONS 个别的程序（不是父程序本身，不重复），随机抽，不总是
    最好的那几个；岛上只有父程序时没有。"""
    scores = [2.0 - 0.1 * r for r in range(E.POPULATION)]
    db = _island(scores)
    rng = random.Random(1)
    seen = set()
    for _ in range(300):
        parent, inspirations = db.sample(0, rng)
        programs = [entry.program for entry in inspirations]
        assert len(programs) == E.N_INSPIRATIONS == len(set(programs))
        assert parent.program not in programs
        assert all(entry in db.islands[0] for entry in inspirations)
        seen.update(entry.score for entry in inspirations)
    assert seen == set(scores)
    alone = E.IslandDatabase(1, EXPERT, 1.0)
    assert alone.sample(0, rng) == (E.Scored(EXPERT, 1.0), [])


def test_a_full_island_takes_only_a_score_above_its_worst_and_drops_the_worst():
    """满员（POPULATION 个）的岛：和最差的一样或更差的不收；更好的收下，最差的出去。"""
    scores = [2.0 - 0.1 * r for r in range(E.POPULATION)]
    db = _island(scores)
    before = list(db.islands[0])
    worst = before[-1].score
    newcomer = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), EXPERT.default),), EXPERT.default)
    # 和最差的一样、比它差：不收，岛不变
    assert not db.add(0, newcomer, worst)
    assert not db.add(0, newcomer, worst - 0.01)
    assert db.islands[0] == before
    # 比最差的好：收下，最差的出去，还是 POPULATION 个、从高到低
    assert db.add(0, newcomer, worst + 0.01)
    pop = db.islands[0]
    assert len(pop) == E.POPULATION and before[-1] not in pop
    assert pop[-1] == E.Scored(newcomer, worst + 0.01)
    assert [entry.score for entry in pop] == sorted((entry.score for entry in pop), reverse=True)
    # 同一个程序、同一个分数不收第二次
    assert not db.add(0, newcomer, worst + 0.01)


def test_an_island_that_is_not_full_takes_a_worse_program_and_a_tie_ranks_behind():
    """没满员的岛也收比最差的还差的程序（同一个程序只收一次）；分数相同的新程序排在已有的后面
    （先来的名次不变）。"""
    db = _island([2.0, 1.0])
    worse = Program((), Config(16, 32, 128, 2, 2, 8))
    tie = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), EXPERT.default),), EXPERT.default)
    assert db.add(0, worse, 0.5)
    assert not db.add(0, worse, 0.5)
    assert db.add(0, tie, 2.0)
    assert [entry.score for entry in db.islands[0]] == [2.0, 2.0, 1.0, 0.5]
    assert db.islands[0][1].program == tie


def test_migration_copies_each_islands_leader_to_the_next_island_round_the_ring():
    """migrate：迁移之前各岛的第一名复制到下一个岛（k → k+1，最后一个回到 0）。岛 0 的第一名
    （4 分）到岛 1 成了那里的第一名，但不接着传到岛 2：岛 2 收的是岛 1 原来的第一名。"""
    a, b, c = (Program((), cfg) for cfg in E.CONFIGS[:3])
    db = E.IslandDatabase(3, EXPERT, 1.0)
    for k, (p, score) in enumerate([(a, 4.0), (b, 3.0), (c, 2.0)]):
        assert db.add(k, p, score)
    db.migrate()
    programs = [[entry.program for entry in pop] for pop in db.islands]
    assert programs == [[a, c, EXPERT], [a, b, EXPERT], [b, c, EXPERT]]


def test_evolve_migrates_every_migration_interval_proposals(table, train, monkeypatch):
    """evolve 每 MIGRATION_INTERVAL 个提案迁移一次（第 50、100 个之后），不进化时不迁移；
    一批批地提（parallel）也一样。"""
    calls = []
    reported = []
    migrate = E.IslandDatabase.migrate

    def counted(db):
        calls.append(len(reported))
        migrate(db)
    monkeypatch.setattr(E.IslandDatabase, "migrate", counted)
    ev = Evaluator(train, table)
    budget = 2 * E.MIGRATION_INTERVAL + 7
    every = [E.MIGRATION_INTERVAL, 2 * E.MIGRATION_INTERVAL]
    for parallel in (1, 3):
        calls.clear()
        reported.clear()
        evolve(ev, budget, seed=0, parallel=parallel, report=lambda *a: reported.append(a))
        assert calls == every, parallel
    calls.clear()
    evolve(ev, budget, seed=0, evolution=False)
    assert calls == []


# —— 级联的边界 ——

def test_a_child_exactly_at_the_cascade_tolerance_passes(table, train, monkeypatch):
    """第一关：子程序在那几个形状上不低于父程序的 CASCADE_TOLERANCE 就过（正好等于也过）。
    容差设成 1.0：和父程序一样的子程序正好在边界上，过；第一关的形状上慢一点点，不过；
    只在第一关以外的形状上慢的，第一关看不出来，过（分数由第二关的全部形状定）。"""
    monkeypatch.setattr(E, "CASCADE_TOLERANCE", 1.0)
    ev = Evaluator(train, table)
    same = ev.judge(EXPERT, EXPERT)
    assert same.rejection is None and same.score == pytest.approx(1.0)
    first = set(ev.cascade_idx.tolist())

    def slower_at(i):
        """专家程序，只在第 i 个训练形状上换成那里最慢的、能启动的配置。"""
        s = train[i]
        launchable = [c for c in E.CONFIGS if E.static_valid(c)]
        slowest = max(launchable, key=lambda c: table.time(c, s))
        box = ((s.M - 1, s.M), (s.N - 1, s.N), (s.K - 1, s.K))
        return Program((Rule(box, slowest),) + EXPERT.rules, EXPERT.default)
    inside = slower_at(min(first))
    outside = slower_at(min(set(range(len(train))) - first))
    assert ev.judge(inside, EXPERT).rejection == "cascade"
    verdict = ev.judge(outside, EXPERT)
    assert verdict.rejection is None and verdict.score < 1.0


def test_the_cascades_first_stage_spans_the_training_ms(table, train):
    """第一关的 CASCADE_SHAPES 个形状按 M 等距取：最小的和最大的 M 都在里面。"""
    ev = Evaluator(train, table)
    ms = [train[i].M for i in ev.cascade_idx]
    assert len(set(ev.cascade_idx.tolist())) == E.CASCADE_SHAPES
    assert min(ms) == min(s.M for s in train) and max(ms) == max(s.M for s in train)


def _equally_fast(times, expert):
    """(形状编号, 配置, 配置)：在那个形状上一样快、又都比专家快的两个配置。"""
    for i, row in enumerate(times):
        seen = {}
        for cfg, t in zip(E.CONFIGS, row):
            if t < expert[i] and t in seen:
                yield i, seen[t], cfg
            seen.setdefault(t, cfg)


def test_the_seen_best_keeps_the_first_config_that_reached_it(table, train):
    """"见过的最快"（反馈的 vs_best、best_cfg）只在更快时换：后来的配置和它一样快，记下的
    还是先到的那个。找一个训练形状上一样快、又比专家快的两个配置，先后各跑一遍。"""
    ev = Evaluator(train, table)
    times = table.matrix(train)
    expert = [row["time"] for row in ev.per_shape(EXPERT)]
    i, first, second = next(_equally_fast(times, expert))

    def only_at(cfg):
        s = train[i]
        box = ((s.M - 1, s.M), (s.N - 1, s.N), (s.K - 1, s.K))
        return Program((Rule(box, cfg),) + EXPERT.rules, EXPERT.default)
    assert ev.per_shape(only_at(first))[i]["best_config"] == first
    assert ev.per_shape(only_at(second))[i]["best_config"] == first


# —— 预算：一批批的提案加起来正好是预算 ——

class _Counting:
    """学生写的那种提出者（只有 propose，讲义说的接口）：数它被问了几次，修改交给 MockLLM。"""

    def __init__(self):
        self.asked = 0
        self.llm = E.MockLLM()

    def propose(self, parent, feedback, inspirations, rng):
        self.asked += 1
        return self.llm.propose(parent, feedback, inspirations, rng)


@pytest.mark.parametrize("parallel", [1, 2, 3, 4, 7])
def test_any_parallel_makes_exactly_budget_proposals(table, train, parallel):
    """parallel 不整除预算时最后一批只剩余下的：evolve(ev, 10, parallel=3) 是 10 个提案，
    不是 12 个。"""
    ev = Evaluator(train, table)
    for budget in (1, 2, 5, 10, 11):
        llm = _Counting()
        out = evolve(ev, budget, seed=0, llm=llm, parallel=parallel)
        assert llm.asked == len(out.history) == len(out.outcomes) == budget, (budget, parallel)


# —— 一个 Job 就是直接跑 evolve ——

def test_a_jobs_result_is_evolve_run_directly_with_its_seed_options_and_budget(table, split):
    """run_job 给的结果和直接 evolve（那个 Job 的种子、选项、预算、分支检查）一模一样；
    换一个种子、打开分支检查，结果就不同（所以这个测试分得出它们）。"""
    train, test = split
    job = Job("two islands", {"n_islands": 2}, 3, 120, check=False)
    finished = run_job(job, train, test, table)

    def direct(seed=3, check=False):
        ev = Evaluator(train, table, check_all_branches=check)
        return evolve(ev, 120, seed=seed, n_islands=2), ev
    out, ev = direct()
    assert (finished.out.history, finished.out.outcomes) == (out.history, out.outcomes)
    assert finished.out.best == out.best and finished.bench_runs == ev.bench_runs
    assert finished.test == E.geomean_speedup(out.best.program, test, table)
    assert finished.n_rules == E.simplify(out.best.program).n_rules()
    assert direct(seed=0)[0].outcomes != out.outcomes
    assert direct(check=True)[0].outcomes != out.outcomes


# —— UCB1：一步步挑谁 ——

def test_ucb1_choices_on_a_hand_worked_sequence():
    """成员 0 每次都进步，成员 1 从不。先各试一次（0、1），之后挑
    平均奖励 + c·√(ln t / n) 最大的（c = EXPLORATION = √2/2，t 是已提的总数）。
    0 一直领先，直到第 26 个提案：t = 25、0 试了 24 次，0 的指标 1 + c·√(ln 25 / 24) ≈ 1.2590，
    1 的 0 + c·√(ln 25) ≈ 1.2686，挑 1；前一个（t = 24）是 1.2629 对 1.2606，还挑 0。
    c 大一倍时第 7 个就回到 1，小一半时 40 个以内都不回去。"""
    assert EXPLORATION == pytest.approx(math.sqrt(2) / 2)
    team = Ensemble(SMALL_AND_FULL, bandit=True)
    rng = random.Random(0)
    chosen = []
    for _ in range(30):
        member = team.assign(rng)
        chosen.append(member)
        team.learn(member == 0)
    assert "".join(map(str, chosen)) == "01" + "0" * 23 + "1" + "0" * 4
    assert team.proposals == [28, 2] and team.improvements == [28, 0]


def test_ucb1_learns_each_outcome_for_the_proposal_it_belongs_to():
    """一批提案（parallel）：先挑好几个成员，结局按提案的顺序回来，记在提那个提案的成员头上。"""
    team = Ensemble(SMALL_AND_FULL, bandit=True)
    rng = random.Random(0)
    assert [team.assign(rng) for _ in range(2)] == [0, 1]
    team.learn(False)
    team.learn(True)
    assert team.improvements == [0, 1]


# —— 一次短运行的历史，钉住 ——

_LETTERS = {"failed": "f", "bad_branch": "b", "cascade": "c", "crash": "x", "added": "a",
            "not_added": "n", "prompt": "p"}


def _fingerprint(out, ev):
    """一次运行的指纹：每个提案的结局（一个字母一个）、跑内核的次数、结果里的几个计数
    （原样照抄的、比父程序好的、带坏分支进了数据库的）、最好的分数，和整个历史、数据库里每个程序
    及分数的 sha256 前 12 位（分数取 9 位有效数字，不受最后一位的舍入影响）。"""
    outcomes = "".join(_LETTERS[o] for o in out.outcomes)
    islands = [[(E.render(p), f"{s:.9g}") for p, s in pop] for pop in out.db.islands]
    history = [f"{h:.9g}" for h in out.history]
    digest = hashlib.sha256(repr((history, islands)).encode()).hexdigest()[:12]
    counts = (out.n_unchanged, out.n_improved, out.n_added_bad_branch)
    return outcomes, ev.bench_runs, counts, f"{out.best.score:.6f}", digest


# 钉住的值从哪来：改了方法、有意改变了结果时，先确认金标准（tests/golden）也该变，再用
#   .venv/bin/python -m pytest -n 0 -vv tests/test_method.py -k pinned
# 看失败信息里的新值，照抄过来，并在提交里说明为什么变。
# 讲义的 full 跑 150 个提案：岛在第 40 个左右满员，之后才有满员时的取舍；有两次迁移（第 50、100
# 个之后），也有级联拒掉的（第 130 个左右才第一次出现）。另一种用上循环的其他分支：bandit、
# 一批 4 个（61 不是 4 的倍数）、两个岛、不做级联、不查分支。
# 名字 → (evolve 的选项, 预算, 分支检查, 指纹)；种子都是 0
PINNED = {
    "full": ({}, 150, True, (
        "aaaaaaaaaaanaaaaaaaaaanaaanaabanaaaabbaaabaaaannaa"
        "abaaaaaaanaaananaaaaaaaaaabaaaaaabaaaaaaaaaaaaaann"
        "baaaaaaaanaaaaanabnaaananbnncanaaannaaaaaaanaaaaan",
        6776, (4, 83, 0), "1.134959", "659865d0b3e5")),
    "bandit, parallel, 2 islands, no cascade, unchecked": (
        {"llm": Ensemble(SMALL_AND_FULL, bandit=True), "parallel": 4, "n_islands": 2,
         "cascade": False}, 61, False, (
            "axaanaaaaaaaaaanaaaaaaaaaaaanaanaaaaaaaaaaaaaaaaaanaaaaaaanaa",
            3024, (3, 35, 14), "1.083483", "e4cf1f15b3ba")),
}


@pytest.mark.parametrize("name", list(PINNED))
def test_a_short_runs_history_is_pinned(name, table, train):
    """任何改变循环所做的事的改动（挑父程序、级联、数据库、迁移、MockLLM 的抽法……）都在核心里
    显出来，不只在 slow 的回放里。evolve 的重构不许改变结果：这一条守着它。"""
    options, budget, check, expected = PINNED[name]
    ev = Evaluator(train, table, check_all_branches=check)
    out = evolve(ev, budget, seed=0, **options)
    assert _fingerprint(out, ev) == expected


# —— 写了也什么都不改的设置：观察说"实际跑的是同一个方法"靠的就是这几条（issue 62）——

@pytest.mark.parametrize("written, plain", [
    ({"evolution": False, "n_islands": 1}, {"evolution": False}),
    ({"evolution": False, "population": 1}, {"evolution": False}),
    ({"evolution": False, "llm": E.MockLLM(use_inspirations=False)}, {"evolution": False}),
    ({"llm": E.MockLLM(feedback=None, focus="worst3")}, {"llm": E.MockLLM(feedback=None)})])
def test_a_setting_the_observations_call_inert_changes_no_number(written, plain, table, train):
    """不进化时岛数、每岛程序数、借规则用不上；不看反馈时 focus 用不上：历史、最好程序、
    跑内核次数都和不写它一模一样（observations.inert 说的就是这些）。"""
    mine, theirs = Evaluator(train, table), Evaluator(train, table)
    with_it = evolve(mine, 120, seed=3, **written)
    without = evolve(theirs, 120, seed=3, **plain)
    assert with_it.history == without.history and with_it.best == without.best
    assert mine.bench_runs == theirs.bench_runs
