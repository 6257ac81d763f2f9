"""课堂上用：输出每次逐字节相同，学生改 VARIANTS、手写程序、打错字时都得到清楚的结果。"""
import os
import re
import unicodedata
import signal
from itertools import product

import numpy as np
import pytest
from conftest import ROOT, SCRIPT, run_script, smaller, start_script, variants_edit
from lecture01.console import display_width

import evolve as E
from evolve import (EXPERT, Config, Evaluator, MockLLM, Program, Rule, Shape, UNBOUNDED, evolve,
                    choose, geomean_speedup, oracle_speedup, render, simplify, static_check_program,
                    static_valid)

GOLDEN = os.path.join(ROOT, "tests", "golden", "ablations_stdout.txt")
# 缩小版：同样的三个演示，快得多
REDUCED = smaller(1, 50, (25, 50))


# —— 每次都一样 ——

def test_stdout_is_byte_identical_to_the_saved_lecture_output(script_stdout):
    """改引擎（比如提速）不许改变讲义的任何一个数字；真要改，就重新生成 tests/golden 并说明为什么。
    这一遍是一个进程跑的（JOBS=1，不开进程池）。"""
    with open(GOLDEN, encoding="utf-8") as f:
        assert script_stdout == f.read()


def test_piped_output_fits_in_100_columns(script_stdout):
    """重定向到文件或管道时按 100 列排：表头折行，观察换行，没有一行超过 100 列。"""
    from lecture01.console import display_width
    assert max(display_width(line) for line in script_stdout.splitlines()) <= 100


# —— 学生改 VARIANTS ——

def test_every_combination_of_the_knobs_runs(table, train):
    options = product(E.FEEDBACK_CHOICES, E.FOCUS_CHOICES, (True, False), (True, False))
    llms = [MockLLM(*opts) for opts in options]
    # 一个评估器给所有组合用：evolve 每次先 reset() 它
    ev = Evaluator(train, table)
    for llm, evolution, cascade, n_islands in product(llms, (True, False), (True, False), (1, 3)):
        out = evolve(ev, 12, seed=1, llm=llm, evolution=evolution, cascade=cascade,
                     n_islands=n_islands)
        assert len(out["history"]) == 12 and len(out["db"].islands) == n_islands


# 学生把 full 改成 {"evolution": False} 时，演示 2、3 的表下多出的那一句
LECTURE_FULL_SAID = ('这张表跑的是讲义的完整方法 {}，不是演示 1 里你改过的 full'
                     '（它比讲义的改了 "evolution": False）。')


def printed_under_both_fulls(script, monkeypatch, capsys, demo):
    """讲义的 full 和改成 {"evolution": False} 的 full 下各跑一次 demo()：(讲义的那几行,
    改了以后的那几行, 改了以后多出来的行)。"""
    printed = {}
    for name, full in (("lecture", {}), ("edited", {"evolution": False})):
        monkeypatch.setattr(script, "VARIANTS", {"full": full})
        demo()
        printed[name] = capsys.readouterr().out.splitlines()
    lecture, edited = printed["lecture"], printed["edited"]
    return lecture, edited, [line for line in edited if line not in lecture]


def test_an_edited_full_leaves_demo_3_as_the_seed_runs_it(script, monkeypatch, capsys, table,
                                                          split):
    """演示 3 和种子脚本一样跑讲义的完整方法 {}：学生把 full 改成 {"evolution": False}，
    演示 3 的表一个数都不变，表下多一句话说它跑的是哪个 full（讲义的设置下没有这句）；
    all_jobs 就多出演示 3 分支检查开的那几次（默认设置下它们就是演示 1 的 full，不再跑）。"""
    train, test = split
    monkeypatch.setattr(script, "SEEDS", 2)
    monkeypatch.setattr(script, "BUDGET", 60)
    jobs = []

    def demo3():
        jobs.append(len(script.all_jobs()))
        script.demo3_branches(table, train, test)

    lecture, edited, added = printed_under_both_fulls(script, monkeypatch, capsys, demo3)
    assert [line for line in edited if line in lecture] == lecture
    assert "".join(added) == LECTURE_FULL_SAID
    assert not any("你改过的" in line for line in lecture)
    assert jobs == [2 * 2, 3 * 2]


def test_an_edited_full_is_said_under_demo_2s_table_too(script, monkeypatch, capsys, table,
                                                        split):
    """演示 2 也和种子脚本一样跑讲义的完整方法：学生改了 full，表下多一句（issue 62），
    数一个不变。"""
    train, _ = split
    lecture, edited, added = printed_under_both_fulls(
        script, monkeypatch, capsys, lambda: script.demo2_feedback(table, train))
    assert [line for line in edited if line in lecture] == lecture
    assert "".join(added) == LECTURE_FULL_SAID
    # 这句紧跟在表的下面
    table_end = max(i for i, line in enumerate(edited) if line.startswith("70B/8 qkv M=1 "))
    assert edited[table_end + 1] == added[0]


# —— 学生的笔误：清楚的错误，指出错的值和可选的值 ——

def test_misspelt_keyword_in_a_variant(table, train):
    with pytest.raises(TypeError) as e:
        evolve(Evaluator(train, table), 10, **{"casade": False})
    assert ("'casade'" in str(e.value) and "'cascade'" in str(e.value)
            and "n_islands" in str(e.value))


@pytest.mark.parametrize("kw, bad, close", [({"feedback": "roofline_"}, "'roofline_'",
                                             "'roofline'"),
                                            ({"focus": "worst_3"}, "'worst_3'", "'worst3'"),
                                            ({"knowledge": "yes"}, "'yes'", "True, False"),
                                            ({"use_inspirations": 1}, "=1", "True, False")])
def test_unknown_mockllm_option_values(kw, bad, close):
    with pytest.raises(ValueError) as e:
        MockLLM(**kw)
    assert bad in str(e.value) and close in str(e.value) and "可选" in str(e.value)


@pytest.mark.parametrize("kw, name", [({"n_islands": 0}, "n_islands"),
                                      ({"n_islands": -2}, "n_islands")])
def test_fewer_than_one_island(kw, name, table, train):
    with pytest.raises(ValueError, match=f"{name}.*≥ 1.*{kw[name]}"):
        evolve(Evaluator(train, table), 10, **kw)


@pytest.mark.parametrize("budget", [0, -5, 2.5])
def test_budget_below_one(budget, table, train):
    with pytest.raises(ValueError, match="budget"):
        evolve(Evaluator(train, table), budget)


def test_evaluator_arguments_swapped_or_of_the_wrong_kind(table, train):
    with pytest.raises(TypeError, match="写反了"):
        Evaluator(table, train)
    with pytest.raises(TypeError, match="table 应是 TimeTable"):
        Evaluator(train, "table")
    with pytest.raises(TypeError, match="应全是 Shape.*str"):
        Evaluator(["8B qkv"], table)


def test_empty_shape_list(table):
    for call in (lambda: Evaluator([], table), lambda: geomean_speedup(EXPERT, [], table),
                 lambda: oracle_speedup([], table)):
        with pytest.raises(ValueError, match="空"):
            call()


@pytest.mark.parametrize("args, field", [((0, 4096, 4096), "M"), ((16, -1, 4096), "N"),
                                         ((16, 4096, 0), "K")])
def test_non_positive_shape_size(args, field):
    with pytest.raises(ValueError, match=f"{field}.*≥ 1"):
        Shape("student", *args)


def test_non_positive_config_field():
    with pytest.raises(ValueError, match="BM.*≥ 1.*0"):
        Config(0, 64, 64, 4, 3, 1)


def test_a_hand_written_config_that_cannot_launch_is_reported_not_crashed(table, train):
    cfg = Config(256, 256, 128, 4, 5, 1)
    reasons = E.invalid_reasons(cfg)
    assert (not static_valid(cfg) and any("共享内存" in r for r in reasons)
            and any("寄存器" in r for r in reasons))
    assert table.time(cfg, train[0]) == float("inf")
    p = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), cfg),), EXPERT.default)
    ok, problems = static_check_program(render(p))
    assert not ok and problems == [f"第 3 行：{E.config_source(cfg)}：{r}" for r in reasons]
    assert Evaluator(train, table).benchmark(p) is None               # 分支检查拒掉，一个内核都不跑
    # 训练形状上启动失败
    assert Evaluator(train, table, check_all_branches=False).benchmark(p) is None


def test_a_config_outside_the_search_space_is_one_policy_everywhere(table, train):
    odd = Config(48, 64, 64, 4, 3, 1)                                # 搜索空间以外：没有这样的内核
    assert not static_valid(odd) and table.time(odd, train[0]) == float("inf")
    p = Program((Rule(((0, 16), UNBOUNDED, UNBOUNDED), odd),), EXPERT.default)
    ok, problems = static_check_program(render(p))
    assert not ok and problems == [f"第 3 行：{E.config_source(odd)}："
                                   "不在搜索空间 CONFIGS 里：BM=48（可选 16, 32, 64, 128, 256）"]
    assert Evaluator(train, table).benchmark(p) is None
    with pytest.raises(ValueError, match="BM=48"):
        evolve(Evaluator(train, table), 5, initial=p)


class OutOfSpace:
    """一个只会提出搜索空间以外配置的提出者：每个提案照样占一个预算，不抛异常。"""
    def propose(self, parent, feedback, inspirations, rng):
        return Program((), Config(48, 64, 64, 4, 3, 1))


@pytest.mark.parametrize("check, cascade, outcome", [(True, True, "bad_branch"),
                                                     (False, True, "cascade"),
                                                     (False, False, "crash")])
def test_a_proposer_returning_configs_outside_the_space_never_crashes_evolve(check, cascade,
                                                                             outcome, table, train):
    out = evolve(Evaluator(train, table, check_all_branches=check), 20,
                 llm=OutOfSpace(), cascade=cascade)
    assert out["outcomes"] == [outcome] * 20 and out["history"] == [1.0] * 20


def test_a_program_shows_itself_helpfully_in_a_repl():
    assert "render" in repr(EXPERT) and "4 个分支" in repr(EXPERT)
    assert repr(MockLLM(feedback=None)) == ("MockLLM(feedback=None, focus=None, knowledge=True, "
                                            "use_inspirations=True, hints=())")


# —— 学生在 REPL 里试 API ——

@pytest.mark.parametrize("call, name", [
    (lambda ev: evolve(ev, 10, evolution="False"), "evolution='False'"),
    (lambda ev: evolve(ev, 10, cascade=None), "cascade=None"),
    (lambda ev: evolve(ev, 10, cascade=0), "cascade=0"),
    (lambda ev: Evaluator(ev.train, ev.table, check_all_branches="no"), "check_all_branches='no'"),
])
def test_booleans_must_be_booleans(call, name, table, train):
    with pytest.raises(ValueError) as e:
        call(Evaluator(train, table))
    assert name in str(e.value) and "可选：True, False" in str(e.value)


@pytest.mark.parametrize("call, hint", [
    (lambda ev: evolve(ev, 10, evolution="False"), "你是不是想写 False？"),
    (lambda ev: MockLLM(feedback="None"), "你是不是想写 None？"),
])
def test_a_quoted_value_gets_the_real_value_suggested(call, hint, table, train):
    with pytest.raises(ValueError) as e:
        call(Evaluator(train, table))
    assert hint in str(e.value)                          # 不是学生刚写的字符串 'False'、'None'


def test_misspelt_mockllm_option_gets_a_hint():
    with pytest.raises(TypeError) as e:
        MockLLM(feedbak="roofline")
    msg = str(e.value)
    assert "'feedbak'" in msg and "你是不是想写 'feedback'" in msg and "use_inspirations" in msg


def test_a_mockllm_option_given_to_evolve_says_where_it_belongs(table, train):
    with pytest.raises(TypeError) as e:
        evolve(Evaluator(train, table), 10, feedback="roofline")
    msg = str(e.value)
    assert "feedback 是 MockLLM 的选项" in msg and '{"llm": MockLLM(feedback=...)}' in msg


def test_a_seed_that_is_not_an_integer(table, train):
    with pytest.raises(TypeError, match="seed.*整数.*'3'"):
        evolve(Evaluator(train, table), 10, seed="3")


def test_numpy_integers_work_as_seeds_budgets_and_island_counts(table, train):
    a = evolve(Evaluator(train, table), np.int64(60), seed=np.arange(5)[3], n_islands=np.int32(2))
    b = evolve(Evaluator(train, table), 60, seed=3, n_islands=2)
    assert a["history"] == b["history"] and len(a["db"].islands) == 2


def test_numpy_integer_fields_are_stored_as_python_ints():
    s = Shape("8B gate_up", np.int32(16384), np.int32(28672), np.int32(4096))
    assert all(type(getattr(s, f)) is int for f in "MNK")
    # int32 的 M·N·K 不溢出
    assert E.roofline(s) == E.roofline(Shape("8B gate_up", 16384, 28672, 4096)) > 3e-3
    cfg = Config(*map(np.int64, (128, 256, 64, 8, 3, 1)))
    assert all(type(getattr(cfg, f)) is int for f in E.CONFIG_CHOICES)
    assert cfg == Config(128, 256, 64, 8, 3, 1) and cfg in E.CONFIG_INDEX


def test_same_seed_on_the_same_evaluator_gives_the_same_history(table, train):
    ev = Evaluator(train, table)
    first = evolve(ev, 150, seed=4)
    runs = ev.bench_runs
    again = evolve(ev, 150, seed=4)
    fresh_ev = Evaluator(train, table)
    fresh = evolve(fresh_ev, 150, seed=4)
    assert first["history"] == again["history"] == fresh["history"]
    assert runs == ev.bench_runs == fresh_ev.bench_runs


def test_the_cascade_never_picks_a_shape_twice(table, train):
    for n in range(1, 13):
        idx = list(Evaluator(train[:n], table).cascade_idx)
        assert idx == sorted(set(idx)) and len(idx) == min(E.CASCADE_SHAPES, n), n
    assert list(Evaluator(train[:3], table).cascade_idx) == [0, 1, 2]


# —— 学生改脚本开头的常数：开跑之前就用一句话说清楚（那句话本身见 test_checks.py）——

def one_sentence(done):
    code, out, err = done
    assert code == 1 and out == "" and "Traceback" not in err
    # 一句话，重定向时按 100 列折行（console.print_message）
    assert err.startswith("设置有误：") and err.endswith(("。\n", "？\n"))
    assert all(display_width(line) <= 100 for line in err.splitlines())
    return err


@pytest.mark.slow
def test_an_edited_script_stops_before_any_work_without_a_traceback():
    assert "SEEDS" in one_sentence(run_script({"SEEDS = 5\n": "SEEDS = 0\n"}))


@pytest.mark.parametrize("typo, words", [
    ('MockLLM(feedbak="roofline")', ["'feedbak'", "'feedback'"]),
    ('MockLLM(feedback="rooflin")', ["'rooflin'", "'roofline'"]),
])
@pytest.mark.slow
def test_a_bad_mockllm_option_inside_variants_is_one_sentence_naming_the_line(typo, words):
    """MockLLM(...) 在载入脚本时就建好了，比 check_settings 早：这里的笔误也只是一句话，
    指出第几行。"""
    err = one_sentence(run_script({'MockLLM(feedback="roofline")': typo}))
    with open(SCRIPT, encoding="utf-8") as f:
        line = next(i for i, text in enumerate(f, 1) if 'MockLLM(feedback="roofline")' in text)
    assert f"第 {line} 行" in err and all(w in err for w in words)


@pytest.mark.slow
def test_a_variant_written_twice_is_one_sentence_naming_it_and_its_line():
    """学生复制一行来改，忘了改名字：dict 只留后写的那个，前一行的变体悄悄不见了。开跑之前一句话
    说出名字和两行的行号。"""
    err = one_sentence(run_script(variants_edit(add='    "one_island": {"n_islands": 2},\n')))
    with open(SCRIPT, encoding="utf-8") as f:
        first = next(i for i, text in enumerate(f, 1) if '"one_island": {"n_islands": 1}' in text)
    assert f"VARIANTS 里的 'one_island' 第 {first} 行已经写过" in err


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.slow
def test_a_students_proposer_that_raises_ends_the_script_with_its_line_not_a_traceback(
        tmp_path, jobs):
    """学生在脚本开头写的提出者在运行里抛出异常（一个一个跑、在进程池里都一样）：stderr 上只有
    变体名、学生的文件和第几行、那一行、异常和消息，退出码 1；没有进程池、引擎的 traceback。
    学生改的是一个文件：在一份拷贝里改、从那里运行（那一行代码从文件里读）。"""
    import shutil
    for folder in ("lecture14", "lecture01"):
        shutil.copytree(os.path.join(ROOT, folder), tmp_path / folder,
                        ignore=shutil.ignore_patterns("data", "real_llm", "__pycache__"))
    with open(SCRIPT, encoding="utf-8") as f:
        source = f.read()
    mine = ("class Mine(MockLLM):\n    def propose(self, parent, feedback, inspirations, rng):\n"
            "        return parent.rules[5]\n\n\n")
    edits = {**smaller(1, 60, (50, 60)), "VARIANTS = {\n": mine + "VARIANTS = {\n",
             **variants_edit(add='    "mine": {"llm": Mine()},\n')}
    for old, new in edits.items():
        source = source.replace(old, new)
    script = tmp_path / "lecture14" / "05_alphaevolve_ablations.py"
    script.write_text(source, encoding="utf-8")
    line = source.splitlines().index("        return parent.rules[5]") + 1
    code, out, err = run_script(path=str(script), env={"JOBS": jobs, "COLUMNS": "1000"})
    assert code == 1 and "Traceback" not in err
    assert err == (f"变体 'mine' 的提出者出错：{script} 第 {line} 行"
                   "（在 propose 里：return parent.rules[5]）："
                   "IndexError: tuple index out of range\n")


@pytest.mark.slow
def test_a_copy_outside_lecture14_says_where_the_script_runs_not_a_traceback(tmp_path):
    """学生把脚本拷到别处去改（cp lecture14/05_… /tmp/x.py）：它 import 旁边的 evolve 和
    ../lecture01 的 console，拷出去就都找不到。一句话说它要在 lecture14/ 里运行、该怎么办。"""
    import shutil
    copy = tmp_path / "x.py"
    shutil.copy(SCRIPT, copy)
    code, out, err = run_script(path=str(copy))
    assert code == 1 and out == "" and "Traceback" not in err
    assert "lecture14/ 里运行" in err and str(tmp_path) in err and err.endswith("再运行。\n")


@pytest.mark.slow
def test_ctrl_c_prints_one_short_line_and_exits_130():
    proc = start_script(env={"PYTHONUNBUFFERED": "1"})
    proc.stdout.readline()                                      # 演示 1 的标题出来了：已经在跑引擎
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err == "已中断。\n"


@pytest.mark.slow
def test_ctrl_c_while_numpy_loads_is_the_same_one_line(ctrl_c_at_start_up):
    code, out, err = run_script(env={"PYTHONPATH": ctrl_c_at_start_up})
    assert code == 130 and out == "" and err == "已中断。\n"


@pytest.mark.slow
def test_piping_into_head_ends_quietly():
    proc = start_script(env={"PYTHONUNBUFFERED": "1"})
    proc.stdout.close()                                         # 读的一方先走了，像 … | head
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 141 and err == ""


@pytest.mark.slow
def test_deleting_variants_keeps_the_rest_of_the_story():
    """删掉除 full 以外的变体：谈它们的观察不说，其余照常；只剩 full 时说明为什么没有比较。"""
    others = ("fb_roofline", "fb_worst3", "no_feedback", "small_llm", "no_evolution", "no_borrow",
              "one_island", "no_cascade")
    code, out, err = run_script({**REDUCED, **variants_edit(drop=others)}, env={"COLUMNS": "1000"})
    assert code == 0, err
    assert "1 个变体 × 1 个种子" in out and "表里只有完整方法（full）一行" in out


def _word_bounds(text):
    """字符串表头里词的边界：空格两边、文字换类（汉字 ↔ 字母、数字）处、括号和引号外面；
    括号、引号里的词组不断开。"""
    bounds, depth, quoted = {0, len(text)}, 0, False
    for i, (a, b) in enumerate(zip(text, text[1:]), 1):
        depth += (a in "（(") - (a in "）)")
        closing = quoted and a == '"'
        quoted ^= a == '"'
        opening = b == '"' and not quoted
        if depth == 0 and not (quoted and not closing) and (
                a == " " or b == " " or b in "（(" or a in "）)" or opening or closing
                           or unicodedata.east_asian_width(a) in "WF"
                           != (unicodedata.east_asian_width(b) in "WF")):
            bounds.add(i)
    return sorted(bounds)


def word_runs(cell):
    """一个表头单元格可以折出来的每一行：连续的几个词（元组的段，或字符串里的词）。"""
    if isinstance(cell, str):
        bounds = _word_bounds(cell)
        return {cell[i:j].strip() for i in bounds for j in bounds if i < j}
    words = [w.strip() for w in cell]
    runs = set()
    for i in range(len(words)):
        for j in range(i + 1, len(words) + 1):
            runs.add("".join(words[i:j]))
            # 段两头的空格（"在 "）折在一行里时还在
            runs.add(" ".join(words[i:j]))
    return runs


def group_cells(groups):
    """print_table 的 groups（{跨列表头: {表头: 短表头}}）里出现的表头。"""
    return [cell for title, spanned in groups.items() for cell in [title, *spanned.values()]]


@pytest.mark.parametrize("columns", [80, 60])
def test_at_80_columns_no_line_is_too_wide_and_no_header_breaks_a_word(
        script, monkeypatch, capsys, table, split, columns):
    """三个演示（缩小的设置）在 80 列、60 列里每行都放得下；80 列时每一行表头都是整词。
    60 列时演示 2 的表接着分成两块（vs_roofline 这样的名字不拆开），中文表头折到数据那么窄、
    两个汉字之间也得断（那时的规则由 tests/test_console.py 检查）。"""
    from lecture01 import console
    allowed = set()

    def spy(headers, rows, groups=None):
        for cell in list(headers) + group_cells(groups or {}):
            allowed.update(word_runs(cell))
        console.print_table(headers, rows, groups)

    monkeypatch.setattr(script, "print_table", spy)
    monkeypatch.setenv("COLUMNS", str(columns))
    for name, value in (("SEEDS", 2), ("BUDGET", 50), ("MARKS", (25, 50))):
        monkeypatch.setattr(script, name, value)
    train, test = split
    script.demo1_ablations(table, train, test)
    script.demo2_feedback(table, train)
    script.demo3_branches(table, train, test)
    lines = capsys.readouterr().out.splitlines()
    assert max(console.display_width(line) for line in lines) <= columns
    rules = [i for i, line in enumerate(lines) if line.startswith("--") and set(line) <= {"-", " "}]
    assert len(rules) == (3 if columns == 80 else 4)
    for rule in rules if columns == 80 else ():
        k = rule - 1
        while (k >= 0 and lines[k] and not lines[k].startswith(("（", "="))
               and not {"，", "；"} & set(lines[k])):
            for fragment in re.split(r"\s{2,}", lines[k].strip()):
                assert fragment.strip("- ") in allowed, (fragment, lines[k])
            k -= 1


# —— lecture14/README.md 里的 Python API：接 Program 的地方也接它的源码 ——

def test_every_function_that_takes_a_program_also_takes_its_source(table, train):
    src = ("def choose_config(M, N, K):\n    if M <= 64:\n"
           "        return Config(16, 64, 128, 4, 4, 4)\n"
           "    return Config(128, 256, 64, 8, 3, 1)\n")
    p = E.parse_program(src)
    assert render(src) == render(p) and simplify(src) == simplify(p)
    assert all(choose(src, s) == choose(p, s) for s in train)
    assert geomean_speedup(src, train, table) == geomean_speedup(p, train, table)
    assert Evaluator(train, table).benchmark(src) == Evaluator(train, table).benchmark(p)
    assert Evaluator(train, table).per_shape(src) == Evaluator(train, table).per_shape(p)


@pytest.mark.parametrize("call", [lambda t, tr: render(42), lambda t, tr: simplify(None),
                                  lambda t, tr: choose([1, 2], tr[0]),
                                  lambda t, tr: geomean_speedup(3.5, tr, t),
                                  lambda t, tr: Evaluator(tr, t).benchmark({}),
                                  lambda t, tr: Evaluator(tr, t).per_shape(1)])
def test_something_that_is_neither_a_program_nor_its_source_gets_one_sentence(call, table, train):
    with pytest.raises(TypeError, match="应是 Program 或它的源码"):
        call(table, train)


class OldStyleBounds:
    """一个照老写法写开区间的提出者：上界写成 None（现在是 math.inf）。"""
    def propose(self, parent, feedback, inspirations, rng):
        return Program((Rule(((16, None), UNBOUNDED, UNBOUNDED), Config(128, 256, 64, 8, 4, 1)),),
                       parent.default)


def test_a_malformed_program_only_costs_a_budget_slot(table, train):
    out = evolve(Evaluator(train, table), 10, llm=OldStyleBounds())
    assert (out["outcomes"] == ["failed"] * 10 and out["n_failed"] == 10
            and out["history"] == [1.0] * 10)
