"""evolve.py 第 4–8 节，按它的顺序：程序（render、choose、化简、分支检查）、专家程序与评估器、
提出者（MockLLM）、evolve。meta prompt 在 test_meta_prompt.py；扩展各有自己的文件：
test_ensemble.py、test_memo.py。
第 1–3 节（硬件、形状与配置、计时模型）在 test_timing_model.py；源码 → 程序（code_manipulation.py
和 parse_program）在 test_code_manipulation.py。"""
import math
import os
import random
import sys
from collections.abc import Mapping

import numpy as np
import pytest
from conftest import ROOT, Recorder, start_command

import evolve as E
from evolve import (EXPERT, Config, Evaluator, MockLLM, Program, Rule, UNBOUNDED, choose, evolve,
                    render, simplify, static_check_program)

GOOD = Config(64, 128, 64, 4, 3, 1)
BAD_SMEM = Config(128, 128, 128, 8, 5, 1)            # 共享内存 327,680 B，其余都合法


def run_rendered(p):
    """只在测试里执行渲染出的源码，证明它和 choose 一致。"""
    namespace = {"Config": Config}
    exec(render(p), namespace)  # noqa: S102 - 测试专用
    return namespace["choose_config"]


# —— 4. 程序：render / exec / choose / simplify ——

def test_render_is_readable_python():
    src = render(EXPERT)
    assert src.startswith("def choose_config(M, N, K):\n")
    assert ("    if M <= 16:\n"
            "        return Config(BM=16, BN=64, BK=64, warps=4, stages=3, split_k=1)" in src)
    assert src.rstrip().splitlines()[-1].startswith("    return Config(")
    rule = Rule(((64, 128), (1279, 1280), (4096, math.inf)), GOOD)
    assert "if 64 < M <= 128 and N == 1280 and K > 4096:" in render(Program((rule,), GOOD))


def test_executing_render_chooses_what_choose_chooses(evolved, dense_shapes, random_program):
    rng = random.Random(0)
    programs = [EXPERT] + evolved[:10] + [random_program(rng) for _ in range(30)]
    shapes = dense_shapes
    for p in programs:
        f = run_rendered(p)
        assert all(f(s.M, s.N, s.K) == choose(p, s) for s in shapes), render(p)


def test_simplify_is_equivalent_everywhere_and_never_longer(evolved, dense_shapes, random_program):
    rng = random.Random(1)
    programs = evolved + [random_program(rng) for _ in range(60)]
    shapes = dense_shapes
    shrunk = 0
    for p in programs:
        q = simplify(p)
        assert q.n_rules() <= p.n_rules()
        assert all(choose(q, s) == choose(p, s) for s in shapes), render(p)
        assert simplify(q) == q                                       # 化简到底了
        shrunk += q.n_rules() < p.n_rules()
    assert shrunk > 10                                                # 真的删掉了东西


def test_simplify_removes_empty_shadowed_and_redundant_rules():
    wide = Rule(((0, 128), UNBOUNDED, UNBOUNDED), GOOD)
    p = Program((
        Rule(((64, 16), UNBOUNDED, UNBOUNDED), BAD_SMEM),              # 空：64 < M <= 16
        wide,
        Rule(((16, 64), (1279, 1280), UNBOUNDED), BAD_SMEM),           # 被上一条完全遮住
        Rule(((128, 512), UNBOUNDED, UNBOUNDED), EXPERT.default),      # 和默认一样
    ), EXPERT.default)
    assert simplify(p) == Program((wide,), EXPERT.default)


# —— 4. 分支检查（静态检查）——

def test_static_check_accepts_the_expert_and_rejects_every_bad_branch():
    assert static_check_program(render(EXPERT)) == (True, [])
    unreachable = Rule(((64, 16), UNBOUNDED, UNBOUNDED), BAD_SMEM)   # 永远走不到的分支也要查
    ok, problems = static_check_program(render(Program((unreachable,), GOOD)))
    assert not ok and len(problems) == 1 and "共享内存" in problems[0]
    regs = Config(128, 256, 64, 4, 3, 1)
    ok, problems = static_check_program(render(Program((Rule((UNBOUNDED,) * 3, regs),), BAD_SMEM)))
    assert (not ok and any("寄存器" in x for x in problems)
            and any("共享内存" in x for x in problems))


@pytest.mark.parametrize("src", [
    "def choose_config(M, N, K):\n    return Config(BM=64, BN=64,\n",          # 语法错误
    "def something_else(M, N, K):\n    return None\n",                          # 没有 choose_config
    "def choose_config(M, N, K):\n    return None\n",                           # 没有 Config
    ("def choose_config(M, N, K):\n"
     "    return Config(BM=M, BN=64, BK=64, warps=4, stages=3, split_k=1)\n"),
    "def choose_config(M, N, K):\n    return Config(BM=64, BN=64, BK=64, warps=4, stages=3)\n",
    ("def choose_config(M, N, K):\n"
     "    return Config(BM=0, BN=64, BK=64, warps=4, stages=3, split_k=1)\n"),
    "\0",
])
def test_static_check_never_raises_on_broken_source(src):
    ok, problems = static_check_program(src)
    assert ok is False and problems and all(isinstance(x, str) for x in problems)


def test_the_evaluators_branch_check_matches_the_static_check(evolved, table, split,
                                                              random_program):
    """评估器查事先算好的表做分支检查：和 all_branches_valid、照源码做的 static_check_program
    同一个结论。"""
    checked = Evaluator(split[0], table)
    unchecked = Evaluator(split[0], table, check_all_branches=False)
    rng = random.Random(2)
    programs = evolved + [random_program(rng) for _ in range(100)]
    valid = [E.all_branches_valid(p) for p in programs]
    assert any(valid) and not all(valid)
    for p, ok in zip(programs, valid):
        assert static_check_program(render(p))[0] == ok
        assert (checked.judge(p).rejection == "bad_branch") == (not ok)
        assert unchecked.judge(p).all_branches_valid == ok


# —— 5. 评估器 ——

def test_initial_evaluation_and_scores(table, split):
    train, test = split
    ev = Evaluator(train, table)
    assert ev.bench_runs == len(train)                              # 专家程序在每个训练形状上跑一次
    assert ev.benchmark(EXPERT) == pytest.approx(1.0)
    assert E.geomean_speedup(EXPERT, test, table) == pytest.approx(1.0)
    assert 1.2 <= E.oracle_speedup(train, table) <= 1.6             # 专家不错，但有改进空间


def test_branch_check_rejects_at_zero_runs_and_unchecked_bad_branches_go_unnoticed(table, split):
    train, _ = split
    hidden = Program((Rule(((64, 16), UNBOUNDED, UNBOUNDED), BAD_SMEM),) + EXPERT.rules,
                     EXPERT.default)
    checked = Evaluator(train, table)
    before = checked.bench_runs
    assert checked.benchmark(hidden) is None and checked.bench_runs == before
    unchecked = Evaluator(train, table, check_all_branches=False)
    before = unchecked.bench_runs
    assert unchecked.benchmark(hidden) == pytest.approx(1.0)  # 训练形状走不到坏分支：分数看不出来
    assert unchecked.bench_runs == before + len(train)
    reached = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), BAD_SMEM),), EXPERT.default)
    assert unchecked.benchmark(reached) is None               # 走得到的坏分支在训练形状上就启动失败


def test_cascade_runs_only_the_first_stage_for_a_clear_regression(table, split):
    train, _ = split
    ev = Evaluator(train, table)
    slow = Program((), Config(16, 32, 128, 2, 2, 8))                  # 处处都很慢
    before = ev.bench_runs
    assert ev.judge(slow, EXPERT) == E.Verdict("cascade", all_branches_valid=True)
    assert ev.bench_runs == before + len(ev.cascade_idx)
    before = ev.bench_runs
    verdict = ev.judge(EXPERT, EXPERT)                                # 过了第一关就补跑其余形状
    assert verdict.rejection is None and verdict.score == pytest.approx(1.0)
    assert ev.bench_runs == before + len(train)
    assert 0 < len(ev.cascade_idx) < len(train)


def test_per_shape_fields(table, split):
    train, _ = split
    ev = Evaluator(train, table)
    better = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), Config(16, 64, 128, 4, 4, 4)),)
                     + EXPERT.rules, EXPERT.default)
    ev.benchmark(better)
    rows = ev.per_shape(EXPERT)
    assert [r["shape"] for r in rows] == train
    for r in rows:
        s = r["shape"]
        assert r["config"] == choose(EXPERT, s)
        assert r["time"] == table.time(r["config"], s)
        assert (r["vs_roofline"] == pytest.approx(E.roofline(s) / r["time"])
                and 0 < r["vs_roofline"] < 1)
        best = table.time(r["best_config"], s)
        assert r["vs_best"] == pytest.approx(best / r["time"]) and 0 < r["vs_best"] <= 1
        seen = {choose(EXPERT, s), choose(better, s)}
        assert best == min(table.time(c, s) for c in seen)         # 见过的最快 = 跑过的配置里最快的
    assert any(r["vs_best"] < 1 for r in rows if r["shape"].M <= 16)


# —— 6. MockLLM ——

def test_mockllm_holds_no_state_that_changes_what_it_proposes(table, split):
    """VARIANTS 里的一个实例被所有种子、所有训练集共用：用过它的顺序不影响结果。"""
    train, test = split
    shared = MockLLM()
    first = evolve(Evaluator(train, table), 30, seed=0, llm=shared)["history"]
    evolve(Evaluator(test, table), 30, seed=1, llm=shared)                   # 换一组训练形状用一次
    again = evolve(Evaluator(train, table), 30, seed=0, llm=shared)["history"]
    fresh = evolve(Evaluator(train, table), 30, seed=0, llm=MockLLM())["history"]
    assert first == again == fresh
    assert repr(shared) == repr(MockLLM())


def test_shape_weights_are_the_lecture_formula(table, split):
    """挑形状的权重必须是 1/比值 − 1 + 0.05（pick_weights：演示 2 的 mass_on_stuck 也用它）。"""
    train, _ = split
    ev = Evaluator(train, table)
    ev.benchmark(Program((Rule(((0, 128), UNBOUNDED, UNBOUNDED), Config(16, 64, 128, 4, 4, 4)),),
                         EXPERT.default))
    fb = ev.feedback(EXPERT)
    n = 20000
    for llm, ratio in ((MockLLM(), fb.vs_best), (MockLLM(feedback="roofline"), fb.vs_roofline)):
        rng = random.Random(0)
        counts = np.bincount([llm.pick_shape(fb, rng) for _ in range(n)], minlength=len(train))
        w = 1 / ratio - 1 + E.PICK_FLOOR
        assert np.array_equal(E.pick_weights(ratio), w)
        assert np.abs(counts / n - w / w.sum()).max() < 0.01
    rng = random.Random(0)
    worst = set(np.argsort(fb.vs_best, kind="stable")[:3])
    assert {MockLLM(focus="worst3").pick_shape(fb, rng) for _ in range(500)} <= worst


def test_small_llm_changes_one_field_or_one_threshold(table, split):
    train, _ = split
    ev = Evaluator(train, table)
    fb = ev.feedback(EXPERT)
    rng = random.Random(0)
    llm = MockLLM(knowledge=False, use_inspirations=False)
    for _ in range(300):
        child = llm.propose(EXPERT, fb, [], rng)
        configs = [(a, b) for a, b in zip(child.configs(), EXPERT.configs()) if a != b]
        bounds = [(a, b) for r, q in zip(child.rules, EXPERT.rules)
                  for a, b in zip(r.bounds, q.bounds) for x, y in zip(a, b) if x != y]
        assert len(child.rules) == len(EXPERT.rules) and len(configs) + len(bounds) <= 1
        for a, b in configs:
            (field,) = [f for f in E.CONFIG_CHOICES if getattr(a, f) != getattr(b, f)]
            choices = E.CONFIG_CHOICES[field]
            assert abs(choices.index(getattr(a, field)) - choices.index(getattr(b, field))) == 1


# —— 8. evolve ——

def test_evolve_output_and_accounting(table, split):
    train, _ = split
    ev = Evaluator(train, table)
    out = evolve(ev, 200, seed=1)
    assert len(out["history"]) == 200
    assert all(a <= b for a, b in zip(out["history"], out["history"][1:]))
    best, score = out["best"]
    assert score == out["history"][-1] == max(s for pop in out["db"].islands for _, s in pop)
    assert ev.benchmark(best) == pytest.approx(score)
    assert (len(out["db"].islands) == 4
            and all(len(pop) <= E.POPULATION for pop in out["db"].islands))
    assert out["n_added_bad_branch"] == 0 < out["n_added"] <= 200
    assert ev.bench_runs <= len(train) * 201


def test_no_evolution_only_ever_edits_the_initial_program(table, split):
    train, _ = split
    out = evolve(Evaluator(train, table), 150, seed=0, evolution=False)
    for pop in out["db"].islands:
        for p, _ in pop:
            assert p == EXPERT or len(p.rules) <= len(EXPERT.rules) + 2   # 一次修改（外推时多一条）


def test_one_island_with_population_one_is_a_hill_climber(table, split):
    """population=1、一个岛：数据库只留最好的一个程序，它就是结果的 best；每个进了数据库的子程序都
    比当时最好的高（(1+1) 爬山），没有 inspiration 可借。"""
    seen = []

    class Watching(MockLLM):
        def propose(self, parent, fb, inspirations, rng):
            seen.append(len(inspirations))
            return super().propose(parent, fb, inspirations, rng)

    ev = Evaluator(split[0], table)
    out = evolve(ev, 200, n_islands=1, population=1, llm=Watching())
    assert [len(pop) for pop in out.db.islands] == [1] and out.db.islands[0][0] == out.best
    before = [ev.benchmark(EXPERT)] + out.history[:-1]
    added = [k for k, outcome in enumerate(out.outcomes) if outcome == "added"]
    assert added and all(out.history[k] > before[k] for k in added)
    assert set(seen) == {0}


def test_the_island_database_keeps_at_most_population_programs_best_first():
    """add：满了以后比最差的好才收、顶掉最差的，同一个程序不收两次；migrate：各岛最好的复制到
    下一个岛（环形）。"""
    a, b, c = (Program((), Config(16 * k, 64, 64, 4, 3, 1)) for k in (1, 2, 4))
    db = E.IslandDatabase(2, EXPERT, 1.0, population=2)
    assert db.add(0, a, 1.1) and not db.add(0, b, 0.9) and not db.add(0, a, 1.1)
    assert [entry.score for entry in db.islands[0]] == [1.1, 1.0]
    assert not db.add(0, c, 0.95) and db.add(0, c, 1.05)
    assert db.islands[0] == [E.Scored(a, 1.1), E.Scored(c, 1.05)]
    db.migrate()
    assert db.islands[1] == [E.Scored(a, 1.1), E.Scored(EXPERT, 1.0)]
    assert db.islands[0] == [E.Scored(a, 1.1), E.Scored(c, 1.05)]


def test_evolve_is_deterministic(table, split):
    train, _ = split
    runs = [evolve(Evaluator(train, table), 150, seed=7, llm=MockLLM(feedback="roofline"))
            for _ in range(2)]
    assert runs[0]["history"] == runs[1]["history"] and runs[0]["best"] == runs[1]["best"]
    other = evolve(Evaluator(train, table), 150, seed=8, llm=MockLLM(feedback="roofline"))
    assert other["history"] != runs[0]["history"]


@pytest.mark.slow
def test_evolve_is_the_same_whatever_the_hash_seed():
    code = ("import evolve as E; tr, _ = E.split_shapes(E.all_shapes());"
            "out = E.evolve(E.Evaluator(tr, E.TimeTable(), check_all_branches=False), 200, seed=2);"
            "print(out['history'][-1], out['n_added'], out['n_added_bad_branch'],"
            " E.render(out['best'][0]))")
    lecture14 = os.path.join(ROOT, "lecture14")
    # 两个字符串哈希不同的进程，同时跑
    procs = [start_command([sys.executable, "-c", code], {"PYTHONHASHSEED": hash_seed},
                           cwd=lecture14)
             for hash_seed in ("0", "12345")]
    outputs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert all(proc.returncode == 0 for proc in procs)
    assert outputs[0] == outputs[1] != ""


# —— 8. 提出者：evolve 收下任何有 propose 的对象 ——


def test_any_object_with_propose_is_a_proposer(table, split):
    train, _ = split
    ev, llm, steps = Evaluator(train, table), Recorder(), []
    out = evolve(ev, 60, seed=4, llm=llm,
                 report=lambda step, outcome: steps.append((step, outcome)))
    assert len(llm.calls) == 60 and len(out["history"]) == 60
    # None 算失败，照样占预算；父程序的源码读成父程序本身（原样照抄）
    assert out["n_failed"] == 20 == out["outcomes"].count("failed")
    assert out["n_unchanged"] == 20
    assert steps == list(enumerate(out["outcomes"])) and set(out["outcomes"]) <= set(E.OUTCOMES)
    assert out["n_added"] == out["outcomes"].count("added") > 0
    for parent, fb, inspirations, rng in llm.calls:
        assert isinstance(parent, Program) and isinstance(rng, random.Random)
        assert list(fb.shapes) == train and fb.hw is table.hw
        for field in ("vs_roofline", "vs_best", "best_cfg", "time"):
            assert len(getattr(fb, field)) == len(train)
        assert fb.time.tolist() == [table.time(choose(parent, s), s) for s in train]
        assert fb.score == pytest.approx(ev.benchmark(parent))
        assert all(isinstance(p, Program) and s == pytest.approx(ev.benchmark(p))
                   for p, s in inspirations)
    assert any(inspirations for _, _, inspirations, _ in llm.calls)


class TextEdit(E.Proposer):
    """学生改源码的提出者：父程序的源码里改一处，交回字符串。"""

    def propose(self, parent, feedback, inspirations, rng):
        old, new = rng.choice([("stages=3", "stages=4"), ("warps=4", "warps=8"),
                               ("BK=64", "BK=128"), ("BK=128", "BK=64")])
        return render(parent).replace(old, new, 1)


class TextEditParsed(TextEdit):
    """同一个提出者，自己 parse_program 再交回。"""

    def propose(self, parent, feedback, inspirations, rng):
        return E.parse_program(super().propose(parent, feedback, inspirations, rng))


def test_source_from_a_proposer_is_read_like_initial(table, split):
    """交回源码和交回 parse_program(源码) 是同一次运行（issue 63：以前每个都算 failed，分数停在
    1.000，什么也不说）。"""
    runs = [evolve(Evaluator(split[0], table), 80, seed=1, llm=llm)
            for llm in (TextEdit(), TextEditParsed())]
    assert runs[0].history == runs[1].history and runs[0].outcomes == runs[1].outcomes
    assert runs[0].best == runs[1].best and runs[0].n_failed == 0 and runs[0].best.score > 1


class Says:
    """学生的提出者：先交回 good 个程序，之后交回 bad。"""

    def __init__(self, bad, good=3):
        self.bad, self.good = bad, good

    def propose(self, parent, feedback, inspirations, rng):
        self.good -= 1
        return parent if self.good >= 0 else self.bad


@pytest.mark.parametrize("bad, words", [
    ("def choose_config(M, N, K): ...", ["Says 交回的源码读不成程序：第 1 行", "给不出时 None"]),
    ("return Config(16, 64)", ["Says 交回的源码读不成程序：", "给不出时 None"]),
    (42, ["Says 交回了 int（42），不是程序：要交回 Program、它的源码（字符串），给不出时 None"]),
    ([1.5], ["Says 交回了 list（[1.5]）"]),
])
def test_what_a_proposer_cannot_hand_back_is_one_sentence_the_first_time(bad, words, table,
                                                                          split):
    """读不成程序的源码、不是程序的东西：第一次交回时就一句话（ProposerSlip，TypeError 和
    ValueError 都接得住），在它之前的三个提案照常判完，之后的一个都不判。"""
    from checks import ProposerSlip
    steps = []
    with pytest.raises(ProposerSlip) as e:
        evolve(Evaluator(split[0], table), 20, llm=Says(bad),
               report=lambda step, outcome: steps.append(outcome))
    said = str(e.value)
    assert all(word in said for word in words), said
    assert "\n" not in said and isinstance(e.value, TypeError) and isinstance(e.value, ValueError)
    assert len(steps) == 3


# —— 8. evolve 的签名：每个选项和它的默认值，只写在 Options 里 ——

def test_the_signature_names_every_option_with_its_default():
    """help(evolve)、inspect 看到的签名里有 Options 的每个字段和它的默认值（只能按名字传），
    没有 **options；check_options 的签名就是这几个。"""
    import inspect
    from dataclasses import fields
    options = [(f.name, f.default) for f in fields(E.Options)]
    assert [name for name, _ in options] == list(E.OPTION_NAMES)
    for func, own in ((evolve, ["ev", "budget", "seed", "initial", "report", "parallel"]),
                      (E.check_options, [])):
        parameters = inspect.signature(func).parameters.values()
        assert all(p.kind is not p.VAR_KEYWORD for p in parameters)
        written = [(p.name, p.default) for p in parameters if p.name in E.OPTION_NAMES]
        assert written == options
        assert all(p.kind is p.KEYWORD_ONLY for p in parameters if p.name in E.OPTION_NAMES)
        assert [p.name for p in parameters if p.name not in E.OPTION_NAMES] == own


def test_help_evolve_says_what_each_option_is_and_fits_the_terminal():
    """help(evolve) 是学生读的：签名之下每个参数一行说明（列出的正好是签名里的那些），
    说明的每一行放得进 80 列的终端。"""
    import pydoc
    import re
    from lecture01.console import display_width
    text = pydoc.render_doc(evolve, renderer=pydoc.plaintext)
    signature, *doc = text.split("\n")[2:]
    assert signature.startswith("evolve(ev, budget, seed=0, *, llm=None, evolution=True, ")
    described = re.findall(r"^ {6}([a-z_]+) {2,}", "\n".join(doc), re.M)
    assert described == list(E.OPTION_NAMES) + ["initial", "report", "parallel"]
    assert max(display_width(line) for line in doc) <= 80


def test_options_are_what_the_student_wrote_checked():
    """Options 只有一个意思：学生写的那一组，查过的（没写的是讲义的默认值）。llm 还是学生写的那个
    对象，不是这次运行包好的提出者；Options() 自己也说得出它是什么。"""
    mine = MockLLM(knowledge=False)
    assert E.check_options() == E.Options() and E.check_options(llm=mine).llm is mine
    assert E.Options().describe() == E.check_options(llm=MockLLM()).describe()
    assert E.Options(meta_prompt=True).describe().llm.kind == "MockLLM"
    assert type(E.check_options(n_islands=np.int64(2)).n_islands) is int
    # 这次运行的提出者每次都是新的一个（提示数据库只属于一次运行）
    runs = E.Options(meta_prompt=True)
    assert isinstance(runs.proposer(), E.PromptDatabase) and runs.proposer() is not runs.proposer()
    assert E.Options(llm=mine).proposer() is mine
    with pytest.raises(ValueError, match="^n_islands 必须是 ≥ 1 的整数，收到 0$"):
        E.Options(n_islands=0)
    with pytest.raises(TypeError, match="提出者应是一个有 propose"):
        E.Options(llm="gpt")


def test_unknown_keywords_are_checked_once(monkeypatch, table, split):
    """写错的关键字参数在门口查一次（evolve 的和变体的各一处），说出可选的每一个。"""
    import checks
    said = []
    real = checks.check_keywords

    def counting(where, *rest, **given):
        said.append(where)
        return real(where, *rest, **given)

    monkeypatch.setattr(checks, "check_keywords", counting)
    evolve(Evaluator(split[0], table), 5, n_islands=2, cascade=False)
    E.check_options(n_islands=2)
    doors = [where for where in said if not where.startswith("MockLLM")]
    assert doors == ["evolve() ", "变体的选项里"]
    with pytest.raises(TypeError) as e:
        evolve(Evaluator(split[0], table), 5, n_island=2)
    assert str(e.value) == ("evolve() 没有参数 'n_island'，你是不是想写 'n_islands'？可用的参数："
                            "seed, llm, evolution, n_islands, population, cascade, meta_prompt, "
                            "initial, report, parallel")


def test_the_result_reads_like_the_lectures_dict(table, split):
    out = evolve(Evaluator(split[0], table), 5, seed=0)
    assert isinstance(out, Mapping) and "best" in out and "nope" not in out
    assert dict(out.items())["history"] is out.history and out.get("nope", 7) == 7
    with pytest.raises(KeyError, match="'nope'.*history.*best"):
        out["nope"]


def test_mockllm_outcomes_add_up(table, split):
    out = evolve(Evaluator(split[0], table), 150, seed=2)
    assert out["n_failed"] == 0 and len(out["outcomes"]) == 150
    assert out["n_added"] == out["outcomes"].count("added") and "bad_branch" in out["outcomes"]


@pytest.mark.parametrize("llm, words", [("gpt", ["propose", "'gpt'"]),
                                        (MockLLM, ["实例", "MockLLM()"]),
                                        (object(), ["propose", "object object at"])])
def test_something_that_cannot_propose_is_refused(llm, words, table, split):
    """一句话说出收到的是什么、要的是什么：类要写成带括号的实例，别的东西要有 propose 方法。"""
    with pytest.raises(TypeError, match="提出者") as e:
        evolve(Evaluator(split[0], table), 10, llm=llm)
    assert all(word in str(e.value) for word in words), str(e.value)


def test_evolve_starts_from_a_hand_written_program(table, split):
    train, test = split
    src = ("def choose_config(M, N, K):\n    if M <= 64:\n"
           "        return Config(16, 64, 128, 4, 4, 4)\n"
           "    return Config(128, 256, 64, 8, 3, 1)\n")
    mine = E.parse_program(src)
    start = E.geomean_speedup(mine, train, table)
    assert start != pytest.approx(1.0)
    out = evolve(Evaluator(train, table), 100, seed=0, initial=mine)
    assert out["history"][0] == pytest.approx(start)                        # 分数仍然相对专家程序
    assert out["history"][-1] > out["history"][0]                          # 从它出发真的改进了
    # 源码也行
    assert evolve(Evaluator(train, table), 100, seed=0, initial=src)["history"] == out["history"]
    llm = Recorder()
    evolve(Evaluator(train, table), 4, seed=0, initial=mine, llm=llm)
    # 每个岛的第一个
    assert all(parent == mine and fb.score == pytest.approx(start)
               for parent, fb, _, _ in llm.calls)
    llm = Recorder()
    evolve(Evaluator(train, table), 6, seed=0, initial=mine, evolution=False, llm=llm)
    assert all(parent == mine and inspirations == [] for parent, _, inspirations, _ in llm.calls)


def test_a_start_that_cannot_launch_is_refused(table, split):
    bad = Program((Rule(((64, 16), UNBOUNDED, UNBOUNDED), BAD_SMEM),), GOOD)
    with pytest.raises(ValueError, match="initial.*共享内存"):
        evolve(Evaluator(split[0], table), 10, initial=bad)
    with pytest.raises(TypeError, match="Program 或它的源码"):
        evolve(Evaluator(split[0], table), 10, initial=42)


def test_every_variant_of_the_script_runs(script, table, split):
    train, _ = split
    for name, kw in script.VARIANTS.items():
        out = evolve(Evaluator(train, table), 40, seed=0, **kw)
        assert len(out["history"]) == 40 and out["n_added"] > 0, name      # 真的有程序进了数据库
        assert (out["history"] == sorted(out["history"])
                and out["history"][-1] == max(out["history"]))
