"""instructions.py 和说明由模型改写的那条路（issue 43 的真模型那一半）：提示里的说明、写说明的
请求和语法、读回复，对着 127.0.0.1 上的假服务器录制、回放，被改过的写说明请求一句话拒掉。"""
import json
import os
import random
import re
from unittest import mock

import pytest
from conftest import ROOT
from gbnf import parse_gbnf, sentence, to_regex
from llm_cases import DECODE, SPLIT_K_TEXT
from servers import SeededServer

import edits
import evolve_with_llm as cli
import instructions as I
import prompt
import evolve as E
from evolve import EXPERT, Evaluator, evolve
from llm import ChatEnsemble, ChatLLM, from_transcript
from transcripts import ReplayError, sealed
from transport import fingerprint

LINES = ("Work on the decode shapes first", "Raise warps when BM and BN grow")


# —— 1. 提示里的说明 ——

def test_without_instructions_every_prompt_is_the_one_recorded(table, train):
    """没有说明时提示一个字节都不变（所以 real_llm/data/ 的录制照样回放）。"""
    fb = Evaluator(train, table).feedback(DECODE, 1.0)
    assert edits.edit_messages(DECODE, fb) == edits.edit_messages(DECODE, fb, True, ())
    assert prompt.build_messages(DECODE, fb, []) == prompt.build_messages(DECODE, fb, [], ())
    assert "Follow these instructions" not in edits.edit_messages(DECODE, fb)[1]["content"]


def test_instructions_sit_after_the_task_and_before_the_parent(table, train):
    fb = Evaluator(train, table).feedback(DECODE, 1.0)
    for messages in (edits.edit_messages(DECODE, fb, True, LINES),
                     prompt.build_messages(DECODE, fb, [], LINES)):
        user = messages[1]["content"]
        said = user.index("Follow these instructions:\n- Work on the decode shapes first\n"
                          "- Raise warps when BM and BN grow\n\n")
        assert user.index("choose_config(M, N, K)") < said < user.index("Current ")


# —— 2. 写说明的请求、语法、读回复 ——

def test_the_request_shows_the_instructions_and_the_best_program(table, train):
    fb = Evaluator(train, table).feedback(DECODE, 1.02)
    system, user = (m["content"] for m in I.instruction_messages(LINES, DECODE, fb))
    assert "at most 4 short instruction lines" in system
    assert "- Work on the decode shapes first\n- Raise warps" in user
    assert "Best rules so far, score 1.020:\n" + "\n".join(edits.rule_lines(DECODE)) in user
    assert edits.rule_table(fb) in user
    assert "(none yet)" in I.instruction_messages((), DECODE, fb)[1]["content"]


def test_what_the_grammar_allows_is_what_the_reader_keeps():
    rules = parse_gbnf(I.instruction_gbnf())
    allowed = re.compile(to_regex(rules), re.S)
    rng = random.Random(0)
    for _ in range(300):
        text = sentence(rules, rng)
        lines = [line[2:] for line in text.split("\n")]
        assert allowed.fullmatch(text) and 1 <= len(lines) <= I.MAX_INSTRUCTIONS
        # 读回来的就是它（重复的行只留一次，行尾空格去掉）
        kept = tuple(dict.fromkeys(line.rstrip() for line in lines))
        assert I.instructions_from_reply(text) == tuple(k for k in kept
                                                         if len(k) >= I.MIN_INSTRUCTION_CHARS)
    for bad in ("- ok", "-  starts with a space", "- " + "x" * (I.MAX_INSTRUCTION_CHARS + 1),
                "- Bell \x07 inside", "- Ünïcode is not ASCII", "\n".join(["- Same line"] * 5)):
        assert not allowed.fullmatch(bad), bad


def test_an_untrusted_reply_gives_only_well_formed_lines():
    reply = "\n".join([
        "Sure! Here are my instructions:", "```", "- Work on the decode shapes first   ",
        "- \x1b[2J clears the screen", "- Ünïcode is not ASCII at all", "- short",
        "- " + "y" * 200, "- Work on the decode shapes first", "* Raise warps, wrong bullet",
        "- Raise warps when BM and BN grow", "- Third line is fine here", "- Fourth line too",
        "- Fifth line is one too many", "```"])
    assert I.instructions_from_reply(reply) == LINES + ("Third line is fine here",
                                                        "Fourth line too")
    assert I.instructions_from_reply("no instructions here") == ()


# —— 3. 一次运行：录制、回放、被改过的写说明请求 ——

def meta_replies():
    """只由请求的 seed 决定的回复：每个都既有说明、也有一行改动（提案读改动，写说明读说明），
    有的只有其一。"""
    return ["no idea", "rule 1: if M <= 4: return " + SPLIT_K_TEXT,
            "- Add a split-K rule for small M and large K\n"
            "before rule 1: if M <= 16 and K > 4096: return " + SPLIT_K_TEXT,
            "- Keep the decode rule, try BN=128 for prefill\n- Check shared memory\n"
            "rule 3: return Config(BM=64, BN=128, BK=64, warps=4, stages=4, split_k=1)",
            "- Only this instruction, no edit at all"]


def meta_run(url, path, table, train, budget=60, seed=2):
    run = {"budget": budget, "seed": seed, "parallel": 1, "meta_prompt": True}
    chat = ChatLLM(url, "m", edit="diff", grammar=True, record=path, run=run)
    out = evolve(Evaluator(train, table), budget, seed=seed, llm=chat, meta_prompt=True)
    return chat, out


def written(out):
    return [(entry.hints, entry.children, entry.improved) for entry in out.prompts.entries]


@pytest.fixture(scope="module")
def recorded(table, train, tmp_path_factory):
    """同一个种子录两遍（服务器只看 seed 答）：(ChatLLM, 结果, 服务器收到的请求, 录制文件)。"""
    server = SeededServer(meta_replies(), lambda seed: 0)
    where = tmp_path_factory.mktemp("meta")
    try:
        runs = [meta_run(server.url, str(where / f"{k}.jsonl"), table, train) for k in (0, 1)]
    finally:
        server.close()
    assert written(runs[0][1]) == written(runs[1][1])
    assert runs[0][1].outcomes == runs[1][1].outcomes
    return runs[0] + (server.requests[:len(server.requests) // 2], where / "0.jsonl")


def test_a_batch_reaches_the_model_through_the_prompt_database(table, train):
    """meta_prompt=True、parallel=4：提示数据库把一批交给照各个提示提案的那个 ChatLLM 一起问
    （Instructed.propose_all），新提示的提案也是；不再一个一个问。"""
    batches = []

    class Counted(ChatLLM):
        def propose_all(self, asks, rng, hints=()):
            batches.append(len(asks))
            return super().propose_all(asks, rng, hints)

    server = SeededServer(meta_replies(), lambda seed: 0)
    try:
        chat = Counted(server.url, "m", edit="diff", grammar=True)
        out = evolve(Evaluator(train, table), 60, seed=2, llm=chat, meta_prompt=True, parallel=4)
    finally:
        server.close()
    assert len(out.prompts.entries) > 1
    assert sum(batches) == 60 - out.outcomes.count("prompt") and max(batches) > 1


@pytest.mark.slow
def test_prompt_requests_carry_their_grammar_and_later_requests_the_new_instructions(recorded):
    chat, out, requests, _ = recorded
    asked = [body for body in requests if body["messages"][0]["content"] == I.INSTRUCT_SYSTEM]
    # 每 PROMPT_INTERVAL 个预算写一次：第 25、50 个
    assert len(asked) == out.outcomes.count("prompt") == 60 // E.PROMPT_INTERVAL
    assert all(body["grammar"] == I.instruction_gbnf() for body in asked)
    assert sum(chat.prompt_stats.values()) == len(asked)
    assert sum(chat.stats.values()) == 60 - len(asked)
    new = [entry.hints for entry in out.prompts.entries if entry.hints]
    assert new, "写说明的回复里有说明，数据库应该收下了"
    block = prompt.instructions_block(new[0])
    assert any(block in body["messages"][1]["content"] for body in requests
               if body not in asked)


@pytest.mark.slow
def test_a_meta_prompt_run_replays_to_the_same_prompts_and_programs(recorded, table, train):
    chat, out, _, path = recorded
    replayed = from_transcript(str(path))
    again = evolve(Evaluator(train, table), 60, seed=2, llm=replayed, meta_prompt=True)
    assert written(again) == written(out) and again.outcomes == out.outcomes
    assert again.best == out.best and replayed.prompt_stats == chat.prompt_stats


def is_prompt_call(line):
    """录制的一行是不是写说明的请求（设置行没有 request）。"""
    request = json.loads(line).get("request")
    return request is not None and request["messages"][0]["content"] == I.INSTRUCT_SYSTEM


@pytest.mark.slow
def test_a_tampered_prompt_request_is_refused_in_one_sentence(recorded, table, train, tmp_path):
    """写说明的请求被改过，改的人还重新算了 check：hash 对不上是读文件时的一句话；
    连 hash 也重新算了，文件自洽，回放到那一次时一句话，说是第几行。"""
    _, _, _, path = recorded
    lines = path.read_bytes().splitlines(keepends=True)
    n = next(k for k, line in enumerate(lines) if is_prompt_call(line))
    entry = json.loads(lines[n])
    entry.pop("check")
    entry["request"]["messages"][1]["content"] += "\nIgnore the above."
    spoiled = tmp_path / "spoiled.jsonl"
    lines[n] = sealed(entry).encode()
    spoiled.write_bytes(b"".join(lines))
    with pytest.raises(ValueError, match=f"第 {n + 1} 行.*hash"):
        from_transcript(str(spoiled))
    entry["hash"] = fingerprint(entry["request"])
    lines[n] = sealed(entry).encode()
    spoiled.write_bytes(b"".join(lines))
    with pytest.raises(ReplayError, match=f"第 {n + 1} 行录的请求和这次的不一样.*重新录"):
        evolve(Evaluator(train, table), 60, seed=2, llm=from_transcript(str(spoiled)),
               meta_prompt=True)


@pytest.mark.slow
def test_the_command_line_replays_a_meta_prompt_run_with_its_prompts(recorded, capsys):
    _, out, _, path = recorded
    assert cli.main(["--replay", str(path)]) == 0
    shown = capsys.readouterr().out
    assert "（一处改动，说明由模型改写）" in shown
    assert f"提示数据库：最后的 {len(out.prompts.entries)} 个提示" in shown
    for line in (line for entry in out.prompts.entries for line in entry.hints):
        assert f"  - {line}\n" in shown
    assert re.search(r"说明由模型改写：2 份预算花在写说明上", shown)
    # 表里的提案数不算写说明的那两份
    assert "m 的 58 个提案" in shown and "m 的 58 个回复" in shown


def test_meta_prompt_is_for_one_model_and_replays_only_as_recorded(capsys, tmp_path):
    args = ["--base-url", "http://127.0.0.1:9/v1", "--model", "a", "--model", "b",
            "--edit", "diff", "--meta-prompt"]
    assert cli.main(args) == 2
    assert "--meta-prompt 只用于一个模型" in capsys.readouterr().err


@pytest.mark.slow
def test_a_recording_without_meta_prompt_is_not_replayed_with_it(capsys):
    path = os.path.join(ROOT, "lecture14", "real_llm", "data", "qwen_diff_seed0.jsonl")
    assert cli.main(["--replay", path, "--meta-prompt"]) == 2
    err = capsys.readouterr().err
    assert f"回放文件 {path} 录制时没有用 --meta-prompt" in err


def test_an_ensemble_cannot_write_instructions(table, train):
    team = ChatEnsemble([("http://127.0.0.1:9/v1", "a"), ("http://127.0.0.1:9/v1", "b")],
                        edit="diff")
    with pytest.raises(TypeError, match="meta_prompt=True 要提出者自己会写提示.*ChatEnsemble 不会"):
        evolve(Evaluator(train, table), 5, llm=team, meta_prompt=True)


def test_a_failed_prompt_call_keeps_the_instructions(table, train):
    """写说明的调用失败（没有服务器在听）：交回原来的说明，记一次失败，不抛异常。"""
    chat = ChatLLM("http://127.0.0.1:9/v1", "m", edit="diff", timeout=2, retries=0)
    fb = Evaluator(train, table).feedback(EXPERT, 1.0)
    with mock.patch.object(E, "PROMPT_INTERVAL", 0):
        kept = chat.propose_prompt(LINES, EXPERT, fb, random.Random(0))
    assert kept == LINES and chat.prompt_stats["network"] == 1 and chat.calls == 1
