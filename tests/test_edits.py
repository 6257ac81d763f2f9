"""edits.py（--edit diff，issue 24）：模型只写一处改动。改动的语言、它的语法、短提示、
改动 → 程序。不起服务器；ChatLLM(edit="diff") 的请求、录制、回放、并发见 test_llm.py，命令行见
test_evolve_with_llm.py，提交的录制见 test_recordings.py。"""
import random
import re

import pytest
from gbnf import parse_gbnf, sentence, to_regex
from llm_cases import DECODE, SPLIT_K, SPLIT_K_TEXT

import edits
import evolve as E
from evolve import EXPERT, Evaluator, Program, render


@pytest.fixture(scope="module")
def ev(table, train):
    return Evaluator(train, table)


def grammar_regex(parent):
    return re.compile(to_regex(parse_gbnf(edits.edit_gbnf(parent))))


def parents(evolved):
    """要改的父程序：专家程序、进化出来的几个、只有默认的、规则已经满了的。"""
    full = Program(EXPERT.rules[:1] * edits.GRAMMAR_RULES, EXPERT.default)
    return [EXPERT, Program((), EXPERT.default), full] + evolved[:20]


# —— 1. 父程序一行一条规则：模型看到的写法就是改动的写法 ——

def test_each_rule_line_is_an_edit_that_gives_the_parent_back(evolved, train):
    """把父程序的任何一行原样当改动交回来，得到的就是父程序本身：一行一条规则的写法和
    改动的语言是同一种，条件和配置都照 parse_program 读。"""
    for parent in parents(evolved):
        regex = grammar_regex(parent)
        for line in edits.rule_lines(parent):
            reading = edits.program_from_edit(line, parent)
            assert reading.result == "ok" and reading.program == parent, line
            if "if True" not in line:
                assert regex.fullmatch(line), line


def source_with(parent, k, lines, replacing):
    """对照：render(parent) 的源码里，第 k 条规则（从 0 数）的两行换成 lines（replacing），
    或者把 lines 插在它前面——文字替换，像 SEARCH/REPLACE——再交给 parse_program。"""
    head, *body = render(parent).splitlines()
    start = 2 * k
    old = 2 if replacing else 0
    new = body[:start] + lines + body[start + old:]
    return E.parse_program("\n".join([head] + new) + "\n")


@pytest.mark.parametrize("seed", range(3))
def test_every_edit_the_grammar_allows_applies_like_a_text_replacement(seed, evolved, train):
    """语法生成的每一处改动都用得上，结果和在源码上做同样的文字替换一样：换一条规则、只换配置、
    在第 k 条前加一条。"""
    rng = random.Random(seed)
    for parent in parents(evolved):
        rules = parse_gbnf(edits.edit_gbnf(parent))
        for _ in range(30):
            text = sentence(rules, rng)
            reading = edits.program_from_edit(text, parent)
            assert reading.result == "ok", (text, reading)
            edit = edits.find_edit(text)
            k = edit.rule - 1
            lines = [f"    if {edit.condition}:", f"        return {edit.config}"]
            if edit.condition is None:
                cfg = E.parse_program(f"def choose_config(M, N, K):\n    return {edit.config}\n")
                expected = E.with_config(parent, k, cfg.default)
            else:
                expected = source_with(parent, k, lines, replacing=not edit.before)
            assert reading.program == expected, text
            assert all(c in E.CONFIG_INDEX for c in reading.program.configs())


def test_the_grammar_only_names_rules_the_parent_has():
    regex = grammar_regex(EXPERT)
    n = len(EXPERT.rules)
    cfg = SPLIT_K_TEXT
    assert regex.fullmatch(f"rule {n + 1}: return {cfg}")
    assert regex.fullmatch(f"before rule {n + 1}: if M <= 16: return {cfg}")
    # 最后的默认没有条件；没有的规则号；搜索空间以外的配置；or；True
    for text in (f"rule {n + 1}: if M <= 16: return {cfg}", f"rule {n + 2}: return {cfg}",
                 f"rule 0: return {cfg}", "rule 1: return Config(BM=48, BN=64, BK=128, warps=4, "
                 "stages=4, split_k=4)", f"rule 1: if M <= 16 or N > 4096: return {cfg}",
                 f"before rule 1: if True: return {cfg}"):
        assert not regex.fullmatch(text), text
    full = Program(EXPERT.rules[:1] * edits.GRAMMAR_RULES, EXPERT.default)
    assert not grammar_regex(full).fullmatch(f"before rule 1: if M <= 16: return {cfg}")


# —— 2. 回复 → 程序：对不上父程序的改动是一次失败 ——

@pytest.mark.parametrize("text, result", [
    ("I would use split-K for small M.", "no_edit"),
    ("rule 9: return " + SPLIT_K_TEXT, "bad_edit"),
    ("rule 4: if M <= 16: return " + SPLIT_K_TEXT, "bad_edit"),
    ("rule 0: return " + SPLIT_K_TEXT, "bad_edit"),
    ("rule 1: if M <= 16 or N > 4096: return " + SPLIT_K_TEXT, "outside_subset"),
    ("rule 1: if __import__('os').system('x'): return " + SPLIT_K_TEXT, "outside_subset"),
    ("rule 1: if M <= : return " + SPLIT_K_TEXT, "syntax_error"),
    ("rule 1: return Config(BM=48, BN=64, BK=128, warps=4, stages=4, split_k=4)", "outside_space"),
    ("rule 1: return Config(16, 64, 128, 4, 4)", "outside_subset"),
    # 前后有别的话、包在代码块里都找得到
    ("Sure!\n```\nbefore rule 1: if M <= 16: return " + SPLIT_K_TEXT + "\n```\nDone.", "ok"),
    ("rule 1: return " + SPLIT_K_TEXT + "x" * 5000, "no_edit"),
])
def test_a_reply_that_does_not_apply_is_one_counted_failure(text, result):
    reading = edits.program_from_edit(text, EXPERT)
    assert reading.result == result, reading
    assert (reading.program is not None) == (result == "ok")


def test_a_full_parent_takes_no_new_rule():
    full = Program(EXPERT.rules[:1] * edits.GRAMMAR_RULES, EXPERT.default)
    reading = edits.program_from_edit("before rule 1: if M <= 16: return " + SPLIT_K_TEXT, full)
    assert reading.result == "bad_edit" and "不能再加" in reading.detail


# —— 3. 短提示 ——

def test_the_short_prompt_holds_the_numbered_rules_and_what_can_be_acted_on(ev):
    """父程序一行一条规则；见过更快配置的形状一行一个，写着它现在走第几条规则——照这一行的
    规则号和配置写改动，改动就落在这个形状上。"""
    ev.reset()
    ev.benchmark(DECODE)
    fb = ev.feedback(EXPERT)
    system, user = (m["content"] for m in edits.edit_messages(EXPERT, fb))
    assert "one edit line" in system
    assert "\n".join(edits.rule_lines(EXPERT)) in user
    worth = [i for i in range(len(fb.shapes)) if fb.vs_best[i] < 0.99]
    worth.sort(key=lambda i: (fb.vs_best[i], i))
    rows = [line.split() for line in user.splitlines() if line.endswith(SPLIT_K_TEXT)]
    assert 0 < len(rows) == len(worth) <= 12
    for row, i in zip(rows, worth):
        s = fb.shapes[i]
        assert row[:4] == [str(s.M), str(s.N), str(s.K), str(fb.branch[i] + 1)]
        # 照抄这一行写的改动确实落在这个形状上
        edit = f"rule {row[3]}: return {SPLIT_K_TEXT}"
        child = edits.program_from_edit(edit, EXPERT).program
        assert E.choose(child, s) == SPLIT_K != E.choose(EXPERT, s)
    ev.reset()
    nothing = edits.edit_messages(EXPERT, ev.feedback(EXPERT))[1]["content"]
    assert "No faster config is known yet" in nothing and SPLIT_K_TEXT not in nothing


def test_the_short_prompt_starts_with_what_never_changes(ev):
    """任务和改动的写法在前，每次一样：本地服务器复用算过的前缀；父程序和反馈在后。"""
    fb = ev.feedback(EXPERT)
    a = edits.edit_messages(EXPERT, fb)[1]["content"]
    b = edits.edit_messages(Program((), EXPERT.default), fb)[1]["content"]
    task = edits.EDIT_TASK.format(hw=fb.hw)
    assert a.startswith(task) and b.startswith(task) and a != b
    assert "before rule R" in task and "Current rules" not in task


def test_without_context_the_short_prompt_is_the_same_minus_the_table(ev):
    """"No context in the prompt"：同样的任务、规则、分数，只是没有反馈表。"""
    ev.reset()
    ev.benchmark(DECODE)
    fb = ev.feedback(EXPERT)
    told = edits.edit_messages(EXPERT, fb)
    blind = edits.edit_messages(EXPERT, fb, context=False)
    table = edits.rule_table(fb) + "\n"
    assert SPLIT_K_TEXT in table and told[0] == blind[0]
    assert blind[1]["content"] == told[1]["content"].replace(table, "")
    assert SPLIT_K_TEXT not in blind[1]["content"]
