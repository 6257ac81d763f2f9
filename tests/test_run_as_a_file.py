"""evolve.py 当文件运行（编辑器的 Run、%run、python -i）和 import 它，同一个种子跑出同一次运行：
每种提出者、每个选项都一样（issue 63）。

在这个进程里 evolve 已经 import 过了，runpy 再把 evolve.py 当 __main__ 跑一遍，就有两份：
ensemble.py、random_edits.py 用的是 import 的那一份，学生在 python -i 里写的 MockLLM(...) 是
__main__ 那一份的。
门口按能做什么认提出者、把另一份的 Program 换成自己的，两份一起用也是同一次运行。
单独一个进程里当文件运行时只有一份（evolve.py 把自己登记成 evolve），最后一个测试查它。
"""
import os
import runpy
import subprocess
import sys

import pytest
from conftest import ROOT

import evolve as E
from ensemble import Ensemble
from random_edits import RandomEdits

EVOLVE_PY = os.path.join(ROOT, "lecture14", "evolve.py")


@pytest.fixture(scope="module")
def as_a_file():
    """evolve.py 当文件运行后的名字（和 python -i lecture14/evolve.py 之后的一样）。"""
    return runpy.run_path(EVOLVE_PY, run_name="__main__")


class OneField:
    """学生在 REPL 里写的、只有 propose 的提出者：用它那一份的 with_field 换一个分支的 BM。"""

    def __init__(self, names):
        self.names = names

    def propose(self, parent, feedback, inspirations, rng):
        i = rng.randrange(parent.n_rules())
        value = rng.choice(self.names["CONFIG_CHOICES"]["BM"])
        return self.names["with_field"](parent, i, "BM", value)


# 每一种：名字 → (用这一份的名字写出选项, 预算, parallel)。提出者是学生在那一份里写的
# （MockLLM、OneField），扩展（Ensemble、RandomEdits）总是 import 的那一份
CASES = {
    "lecture": (lambda n: {}, 200, 1),
    "small": (lambda n: {"llm": n["MockLLM"](knowledge=False)}, 200, 1),
    "options": (lambda n: {"evolution": False, "cascade": False, "n_islands": 2}, 150, 1),
    "climber": (lambda n: {"n_islands": 1, "population": 1}, 150, 1),
    "mix": (lambda n: {"llm": Ensemble([n["MockLLM"](knowledge=False), n["MockLLM"]()],
                                       weights=[4, 1])}, 200, 1),
    "bandit": (lambda n: {"llm": Ensemble([n["MockLLM"](knowledge=False), n["MockLLM"]()],
                                          bandit=True)}, 200, 1),
    "meta_prompt": (lambda n: {"llm": n["MockLLM"](knowledge=False), "meta_prompt": True}, 120, 4),
    "random_edits": (lambda n: {"llm": RandomEdits()}, 80, 1),
    "students_own": (lambda n: {"llm": OneField(n)}, 100, 1),
    "team_of_others": (lambda n: {"llm": Ensemble([RandomEdits(), OneField(n)], bandit=True)},
                       80, 2),
}


# 每一份的训练形状和计时表（算一张表要几秒：每份只算一次）
_TABLES = {}


def _evaluator(names):
    """那一份的 Evaluator（训练形状、计时表都是那一份的）。"""
    key = id(names["Evaluator"])
    if key not in _TABLES:
        _TABLES[key] = (names["split_shapes"](names["all_shapes"]())[0], names["TimeTable"]())
    return names["Evaluator"](*_TABLES[key])


def _run(names, case, seed):
    """那一份的 evolve 跑一次：返回能比的一切（最好程序写成源码），和 Ensemble 的计数。"""
    written, budget, parallel = CASES[case]
    options = written(names)
    ev = _evaluator(names)
    out = names["evolve"](ev, budget, seed, parallel=parallel, **options)
    prompts = out.prompts and [(e.hints, e.children, e.improved) for e in out.prompts.entries]
    team = options.get("llm")
    counts = (team.proposals, team.improvements) if isinstance(team, Ensemble) else None
    run = (out.history, out.outcomes, E.render(out.best.program), out.best.score, out.n_failed,
           out.n_unchanged, out.n_improved, out.n_added, prompts)
    return run, counts


@pytest.mark.parametrize("case", CASES)
def test_run_as_a_file_or_imported_the_same_seed_gives_the_same_run(case, as_a_file):
    imported = vars(E)
    for seed in (0, 1):
        assert _run(as_a_file, case, seed) == _run(imported, case, seed), (case, seed)


def test_the_bandit_learns_and_its_counts_start_again_at_every_run(as_a_file):
    """issue 63 量到的：当文件运行时 bandit 的计数是 [500, 500]、[0, 0]，第二次运行接着数。"""
    run, (proposals, improvements) = _run(as_a_file, "bandit", 0)
    again, counts = _run(as_a_file, "bandit", 0)
    assert sum(proposals) == 200 and (again, counts) == (run, (proposals, improvements))
    # 有内核常识的成员（第二个）更常进步：bandit 把多数提案给它
    assert proposals[1] > 2 * proposals[0] and improvements[1] > improvements[0]


def test_a_program_from_the_other_copy_is_taken_as_this_copys(as_a_file):
    """另一份的 Program（import 的 EXPERT、RandomEdits 改出来的）当起点、当子程序都认得：
    它就是这一份里同样规则的程序。"""
    theirs = E.EXPERT
    mine = as_a_file["_as_program"](theirs)
    assert type(mine) is as_a_file["Program"] and mine == as_a_file["EXPERT"]
    assert as_a_file["render"](theirs) == E.render(theirs)
    ev = _evaluator(as_a_file)
    started = as_a_file["evolve"](ev, 30, initial=theirs)
    assert started.history == as_a_file["evolve"](ev, 30).history


@pytest.mark.slow
def test_run_as_a_file_in_a_fresh_python_there_is_only_one_copy():
    """单独一个进程里（python -i lecture14/evolve.py 那样）：之后 import 的 ensemble.py、memo.py
    用的就是这一份 evolve，MemoEvaluator 也收；Ensemble 的 bandit 跑出和 import 时一样的数。"""
    code = (f"import runpy, sys; sys.path.insert(0, {os.path.dirname(EVOLVE_PY)!r})\n"
            f"n = runpy.run_path({EVOLVE_PY!r}, run_name='__main__')\n"
            "import evolve; from ensemble import Ensemble; from memo import MemoEvaluator\n"
            "assert evolve.Proposer is n['Proposer']\n"
            "train, _ = n['split_shapes'](n['all_shapes']())\n"
            "team = Ensemble([n['MockLLM'](knowledge=False), n['MockLLM']()], bandit=True)\n"
            "out = n['evolve'](MemoEvaluator(train, n['TimeTable']()), 200, seed=0, llm=team)\n"
            "print(team.proposals, team.improvements, repr(out.best.score))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    run, (proposals, improvements) = _run(vars(E), "bandit", 0)
    assert done.stdout == f"{proposals} {improvements} {run[3]!r}\n"
