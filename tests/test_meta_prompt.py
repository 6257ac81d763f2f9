"""meta prompt evolution（evolve.py）：MockLLM 的提示（HINTS、hints）和第 7½ 节的提示数据库
（evolve(..., meta_prompt=True)，issue 43 的迷你世界那一半）。"""
import os
import random
import runpy

import pytest
from conftest import ROOT, Recorder

import evolve as E
from checks import settings_problem
from ensemble import Ensemble
from evolve import Evaluator, MockLLM, PromptDatabase, Proposer, check_options, evolve
from runs import Job, Runs


# —— 1. MockLLM 的提示（HINTS、hints）——

def test_each_hint_changes_the_edits_it_names(table, split):
    """check_limits：定向修改不再忘了核对（大块的配置都能启动）；split_k_fill：访存受限时 split_k
    刚好占满 SM；tile_together：算力受限时只改块和 warp。"""
    hw = table.hw
    decode = E.Shape("x", 16, 4096, 4096)
    prefill = E.Shape("x", 8192, 8192, 8192)
    assert not E.compute_bound(decode, hw) and E.compute_bound(prefill, hw)
    start = E.EXPERT.configs()[0]
    # 算力受限的大块：忘了核对时共享内存放不下；核对了就都能启动
    plain = [MockLLM()._common_sense_edit(start, prefill, hw, random.Random(k)) for k in range(300)]
    limits = MockLLM(hints=["check_limits"])
    checked = [limits._common_sense_edit(start, prefill, hw, random.Random(k)) for k in range(300)]
    assert not all(E.static_valid(c, hw) for c in plain)
    assert all(E.static_valid(c, hw) for c in checked)
    fill = MockLLM(hints=["split_k_fill"])
    for k in range(100):
        cfg = fill._common_sense_edit(start, decode, hw, random.Random(k))
        tiles = E.output_tiles(cfg, decode)
        smaller = [s for s in E.CONFIG_CHOICES["split_k"] if s < cfg.split_k]
        assert tiles * cfg.split_k >= hw.sms or cfg.split_k == max(E.CONFIG_CHOICES["split_k"])
        assert all(tiles * s < hw.sms for s in smaller)
    together = MockLLM(hints=["tile_together"])
    assert together._fields_to_change(["BK", "split_k"], prefill, hw) == ["BM", "BN", "warps"]
    assert together._fields_to_change(["BK", "split_k"], decode, hw) == ["BK", "split_k"]


def test_prompted_keeps_the_proposer_and_its_options_and_only_changes_the_hints(table, split):
    """prompted(hints)：同一个类（学生的子类也是）、同样的选项，只换指示；换回 () 就和原来的
    一个字节都不差。原来的那个不变。"""
    train, _ = split
    for options in ({}, {"knowledge": False}, {"feedback": "roofline", "focus": "worst3"}):
        llm = MockLLM(**options)
        hinted = llm.prompted(("check_limits",))
        assert llm.hints == () and hinted.hints == ("check_limits",)
        assert hinted.describe().written() == MockLLM(**options, hints=["check_limits"]).describe(
        ).written()
        plain = evolve(Evaluator(train, table), 300, seed=2, llm=llm)
        back = evolve(Evaluator(train, table), 300, seed=2, llm=hinted.prompted(()))
        assert (plain.history, plain.outcomes, plain.best) == (
            back.history, back.outcomes, back.best)

    class Mine(MockLLM):
        pass

    assert type(Mine(knowledge=False).prompted(("decode_rule",))) is Mine
    described = MockLLM(knowledge=False, hints=["decode_rule"]).describe()
    assert described.written() == 'MockLLM(knowledge=False, hints=["decode_rule"])'


# —— 2. 提示数据库（evolve(..., meta_prompt=True)）——

def _prompts(out):
    return [(entry.hints, entry.children, entry.improved) for entry in out.prompts.entries]


def _summary(f):
    return (f.out.history, f.out.outcomes, f.out.best, _prompts(f.out))


def test_the_same_seed_gives_the_same_prompts_and_programs_across_runs_and_workers(table, split):
    """同一个种子：再跑一遍、一个进程或两个进程，历史、结局、最好程序、提示数据库都一样；
    VARIANTS 里共用的 MockLLM 跑过以后还是原来的样子（不带一次运行的状态）。"""
    train, test = split
    small = MockLLM(knowledge=False)
    described = small.describe()
    jobs = [Job("meta", {"meta_prompt": True}, seed, 150) for seed in (0, 1)]
    jobs += [Job("small_meta", {"llm": small, "meta_prompt": True}, 0, 150)]
    with Runs(train, test, table, workers=2) as pool:
        pooled = pool.results(jobs)
    with Runs(train, test, table) as here:
        serial = here.results(jobs)
    with Runs(train, test, table) as again:
        repeated = again.results(jobs)
    assert [_summary(f) for f in pooled] == [_summary(f) for f in serial]
    assert [_summary(f) for f in serial] == [_summary(f) for f in repeated]
    assert small.describe() == described and small.hints == ()
    # 不同的种子写出不同的提示史：提示确实在变
    assert _prompts(serial[0].out) != _prompts(serial[1].out)
    assert all(len(f.out.prompts.entries) > 1 for f in serial)


def test_meta_prompt_off_is_the_lecture_and_on_spends_a_share_of_the_budget(table, split):
    ev = Evaluator(split[0], table)
    off = evolve(ev, 120, seed=0)
    assert off.prompts is None and "prompt" not in off.outcomes
    on = evolve(ev, 120, seed=0, meta_prompt=True)
    # 第 25、50、75、100 个预算写提示：每一份都照样占一格历史
    steps = [k for k, outcome in enumerate(on.outcomes) if outcome == "prompt"]
    assert steps == list(range(E.PROMPT_INTERVAL, 120, E.PROMPT_INTERVAL))
    assert len(on.history) == len(on.outcomes) == 120
    children = sum(entry.children for entry in on.prompts.entries)
    assert children == 120 - len(steps)
    # parallel：写提示那一步在一批的开头，其余的照常提
    batched = evolve(ev, 120, seed=0, meta_prompt=True, parallel=4)
    assert len(batched.history) == 120 and batched.outcomes.count("prompt") == len(steps)


class Counting(MockLLM):
    """学生的子类：数 propose_all 被调用了几次、每次几个提案（prompted 的孩子和它共用这张单）。"""

    def __init__(self, **options):
        super().__init__(**options)
        self.batches = []

    def propose_all(self, asks, rng):
        self.batches.append(len(asks))
        return super().propose_all(asks, rng)


def test_a_batch_reaches_the_proposer_through_the_prompt_database(table, split):
    """meta_prompt=True、parallel=4：一批提案经过提示数据库交给照各个提示提案的那个提出者（学生的
    MockLLM 子类，prompted 出来的还是它的类），一批一次、只有写提示的那一批少一个；没开 meta
    prompt 时每批 4 个。"""
    train, _ = split
    llm = Counting()
    out = evolve(Evaluator(train, table), 40, llm=llm, meta_prompt=True, parallel=4)
    proposals = 40 - out.outcomes.count("prompt")
    assert sum(llm.batches) == proposals and out.outcomes.count("prompt") == 1
    # 10 批，每批按挑中的提示分给至多几个提出者：一次调用至少答 1 个，有的一次答好几个
    assert len(llm.batches) >= 10 and max(llm.batches) > 1
    assert all(type(entry.proposer) is Counting for entry in out.prompts.entries)
    plain = Counting()
    evolve(Evaluator(train, table), 40, llm=plain, parallel=4)
    assert plain.batches == [4] * 10


def test_evolve_py_run_as_a_file_evolves_prompts_too():
    """编辑器的 Run、%run：evolve.py 当 __main__ 运行，再调用它的 evolve(..., meta_prompt=True)——
    evolve.py 不 import 扩展，第二份 evolve 模块也就不会出现。"""
    path = os.path.join(ROOT, "lecture14", "evolve.py")
    names = runpy.run_path(path, run_name="__main__")
    train, _ = names["split_shapes"](names["all_shapes"]())
    ev = names["Evaluator"](train, names["TimeTable"]())
    out = names["evolve"](ev, 30, meta_prompt=True)
    assert out.outcomes.count("prompt") == 1 and len(out.history) == 30
    assert type(out.prompts).__module__ == "__main__"


class _Writer(Proposer):
    """编出来的提出者：照单写提示（propose_prompt），每个提示的提出者只记自己的名字。"""

    def __init__(self, hints, new):
        self.hints = hints
        self.new = list(new)

    def propose(self, parent, feedback, inspirations, rng):
        return self.hints

    def propose_prompt(self, hints, best, feedback, rng):
        return self.new.pop(0)

    def prompted(self, hints):
        return _Writer(hints, ())


def _credited():
    """一个编出来的提示数据库：起点 () 有 8 个提案、都没变好；a 有 4 个提案，两个变好。
    返回 (数据库, 起点, a, rng)。"""
    prompts = PromptDatabase(_Writer((), [(h,) for h in "aabcdef"]))
    rng = random.Random(0)
    assert prompts.entries[0].credit() == 1 / 2
    assert not prompts.due(E.PROMPT_INTERVAL - 1) and prompts.due(E.PROMPT_INTERVAL)
    assert prompts.write(25, None, None, rng) and not prompts.write(50, None, None, rng)
    assert prompts.due(75) and not prompts.due(74)
    empty, a = prompts.entries
    # 只有 a 会被挑中时，它一次次提案：两个变好、两个没有（learn 按提案的顺序）
    empty.improved, empty.proposals = 0, 8
    proposed = [prompts.propose(None, None, [], rng) for _ in range(4)]
    assert proposed == [("a",)] * 4
    for improved in (True, False, True, False):
        prompts.learn(improved)
    return prompts, empty, a, rng


def test_a_prompts_credit_on_a_made_up_history():
    """功劳 = (变好的 + 1) / (提案数 + 2)，按提案的顺序记到提出它的提示上；锦标赛挑功劳大的；
    和已有的一样的新提示不收。"""
    _, empty, a, _ = _credited()
    assert (a.proposals, a.children, a.improved) == (4, 4, 2)
    assert a.credit() == 3 / 6 and empty.credit() == 1 / 10


def test_a_full_prompt_database_drops_the_least_credited():
    """满了顶掉功劳最小的（一样小时最早进来的）；赢了的是有孩子的里功劳最大的。"""
    prompts, _, a, rng = _credited()
    # 再收四个新提示，数据库满了（6 个）；第 7 个顶掉功劳最小的 ()
    for step in (75, 100, 125, 150):
        assert prompts.write(step, None, None, rng)
    assert len(prompts.entries) == E.PROMPT_POPULATION
    assert prompts.write(175, None, None, rng)
    assert [entry.hints for entry in prompts.entries] == [(h,) for h in "abcdef"]
    # 赢了的：有孩子的里功劳最大的（a 是唯一有孩子的）
    assert prompts.leader() is a
    # 功劳一样小（都是 1/2）时顶掉最早进来的 a
    a.proposals, a.children, a.improved = 0, 0, 0
    prompts.llm.new.append(("g",))
    assert prompts.write(200, None, None, rng)
    assert [entry.hints for entry in prompts.entries] == [(h,) for h in "bcdefg"]


class Stingy(_Writer):
    """照提示 ("none",) 的提出者什么也给不出（None），别的照常交回父程序。"""

    def propose(self, parent, feedback, inspirations, rng):
        return None if self.hints == ("none",) else parent

    def prompted(self, hints):
        return Stingy(hints, ())


def test_children_are_the_proposals_that_gave_a_program_and_credit_counts_every_proposal():
    """孩子只数交回了程序的提案（issue 63：以前给不出的 None 也算孩子）；功劳按提案数算，
    所以一个照着它什么也给不出的提示功劳一直往下掉，不会停在 1/2 一直被挑。"""
    prompts = PromptDatabase(Stingy((), [("none",)]))
    rng = random.Random(0)
    prompts.write(25, None, None, rng)
    plain, none = prompts.entries
    # plain 的孩子五个里一个比父程序好（常见的进步率）
    for k in range(100):
        child = prompts.propose("parent", None, [], rng)
        prompts.learn(child is not None and k % 5 == 0)
    assert plain.proposals + none.proposals == 100
    assert none.children == 0 and plain.children == plain.proposals
    assert none.credit() == 1 / (none.proposals + 2) < plain.credit()
    # 只数孩子的话 none 的功劳一直是 1/2，比 plain 的约 1/5 大，锦标赛多半挑它；按提案数它输
    assert none.proposals < plain.proposals / 2


def test_in_a_run_children_add_up_to_the_proposals_that_gave_a_program(table, split):
    """一次真的运行：提案数加起来是不写提示的预算，孩子数加起来是其中没有 failed 的。"""
    out = evolve(Evaluator(split[0], table), 100, seed=0, llm=Stingy((), [("none",)] * 4),
                 meta_prompt=True)
    entries = out.prompts.entries
    assert sum(e.proposals for e in entries) == 100 - out.outcomes.count("prompt")
    assert sum(e.children for e in entries) == sum(e.proposals for e in entries) - out.n_failed
    assert out.n_failed > 0


class Hinted:
    """学生自己写的、不从 Proposer 派生的提出者：只写了 propose 和写提示的三样。"""

    def __init__(self, hints=()):
        self.hints = hints

    def propose(self, parent, feedback, inspirations, rng):
        return parent

    def prompted(self, hints):
        return Hinted(hints)

    def propose_prompt(self, hints, best, feedback, rng):
        return hints + (f"hint {len(hints)}",)


def test_a_proposer_that_writes_prompts_is_known_by_what_it_can_do(table, split):
    """会写提示按能做什么认（WritesPrompts）：不从哪个类派生、Proposer 的方法也没写全的对象，
    只要有 hints、prompted、propose_prompt，meta_prompt 就有它的提示轮次。"""
    assert isinstance(Hinted(), E.WritesPrompts) and isinstance(MockLLM(), E.WritesPrompts)
    assert not isinstance(Recorder(), E.WritesPrompts)
    out = evolve(Evaluator(split[0], table), 60, llm=Hinted(), meta_prompt=True)
    assert out.outcomes.count("prompt") == 2
    assert [e.hints for e in out.prompts.entries] == [(), ("hint 0",), ("hint 0", "hint 1")]


def test_a_prompt_database_given_as_the_llm_is_one_sentence(table, split):
    """issue 63：evolve(ev, 60, llm=PromptDatabase(MockLLM())) 以前安静地跑，一次提示也不写。
    提示数据库只属于一次运行，由 evolve 建：一句话说怎么写。"""
    for call in (lambda: evolve(Evaluator(split[0], table), 60,
                                llm=PromptDatabase(MockLLM(knowledge=False))),
                 lambda: check_options(llm=PromptDatabase(MockLLM(knowledge=False)),
                                       meta_prompt=True)):
        with pytest.raises(TypeError) as e:
            call()
        assert str(e.value) == ("llm 不用自己建 PromptDatabase：提示数据库只属于一次运行，开着 "
                                "meta_prompt 时 evolve 自己建——写成 llm=MockLLM(knowledge=False), "
                                "meta_prompt=True")


def test_a_bad_meta_prompt_setting_is_one_sentence():
    with pytest.raises(ValueError, match=r"^meta_prompt='yes' 不是可选值；可选：True, False$"):
        check_options(meta_prompt="yes")
    with pytest.raises(TypeError, match="^meta_prompt=True 要提出者自己会写提示.*Ensemble 不会"):
        check_options(llm=Ensemble([MockLLM(), MockLLM()]), meta_prompt=True)
    # 学生自己的、只有 propose 的提出者：那句话说的是它自己的类名，不是门口包它的那一层
    with pytest.raises(TypeError, match="^meta_prompt=True 要提出者自己会写提示.*Recorder 不会"):
        check_options(llm=Recorder(), meta_prompt=True)
    with pytest.raises(ValueError, match="^hints\\[0\\]='check_limit' 不是可选值.*你是不是想写 "
                                         "'check_limits'？$"):
        MockLLM(hints=["check_limit"])
    with pytest.raises(TypeError, match="^hints 应是 HINTS 里几条指示的列表"):
        MockLLM(hints="check_limits")
    slip = settings_problem(5, 1000, (50, 1000), {"full": {}, "m": {"meta_prompt": 1}},
                            check_options)
    assert slip == "VARIANTS['m']：meta_prompt=1 不是可选值；可选：True, False"
