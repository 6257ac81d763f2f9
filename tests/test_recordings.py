"""lecture14/real_llm/data/ 里提交的真模型录制：每一份照它第 1 行的设置回放（evolve_with_llm.py
--replay，不联网），印出的正是录制时的 .txt；issue 17、30 要的那几次是它们说的样子（模型、语法、
一处改动、提案数、种子），回复大多解析成程序。回放都是 slow：每份要整个命令行跑一遍。"""
import glob
import os

import pytest

import edits
import evolve_with_llm as cli
import prompt
import transcripts
from console import display_width
from evolve import EXPERT, Evaluator, evolve
from llm import SEEN_NOTE, UNCHANGED_NOTE, from_transcript

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14", "real_llm",
                    "data")


# —— 每一份录制 ——

TRANSCRIPTS = sorted(glob.glob(os.path.join(DATA, "*.jsonl")))


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=os.path.basename)
@pytest.mark.slow
def test_the_committed_real_model_run_replays(path, capsys, monkeypatch):
    """lecture14/real_llm/data/NAME.jsonl 是录制，NAME.txt 是录制时的 stdout（COLUMNS=100）。
    重新录制时两个文件一起更新（lecture14/real_llm/record.sh）；设置都在录制文件的第 1 行，
    这里不用跟着改。"""
    monkeypatch.setenv("COLUMNS", "100")
    settings, calls = transcripts.load_transcript(path)
    with open(path[:-len(".jsonl")] + ".txt", encoding="utf-8") as f:
        printed = f.read()
    # 见过的程序再问（--resample）时预算是模型的请求数，标题照说
    unit = "个请求（对照是提案）" if settings.get("resample") else "个提案"
    assert f"各 {settings['budget']} {unit}，种子 {settings['seed']}" in printed
    assert len(calls) == settings["budget"]
    # 文件自己说清了怎么跑
    assert cli.main(["--replay", path]) == 0
    assert capsys.readouterr().out == printed
    # 80 列的终端里 stdout 和 stderr（模型、用时那几句）都放得下
    monkeypatch.setenv("COLUMNS", "80")
    assert cli.main(["--replay", path]) == 0
    shown = capsys.readouterr()
    lines = (shown.out + shown.err).splitlines()
    assert max(display_width(line) for line in lines) <= 80
    assert any(line.startswith("对照的用时：随机改一处") for line in shown.err.splitlines())


def test_there_is_a_committed_real_model_run():
    assert TRANSCRIPTS, "lecture14/real_llm/data/ 里应有一份真模型的录制（见 real_llm/README.md）"


@pytest.mark.slow
def test_the_committed_smollm2_run_is_constrained_and_its_replies_parse(setup):
    """issue 17 要的那一次：SmolLM2-135M、带语法、至少 100 个提案、种子 0，至少 90% 的回复
    解析成程序。"""
    table, train, _ = setup
    path = os.path.join(DATA, "smollm2_run.jsonl")
    settings, calls = transcripts.load_transcript(path)
    # 每次请求都带着今天的语法
    assert all(call.request["grammar"] == prompt.gbnf() for _, call in calls)
    assert settings["model"].startswith("SmolLM2-135M") and settings["grammar"] is True
    assert settings["budget"] >= 100 and settings["seed"] == 0
    chat = from_transcript(path)
    evolve(Evaluator(train, table), settings["budget"], seed=0, llm=chat,
           parallel=settings["parallel"])
    assert chat.stats["ok"] >= 0.9 * settings["budget"] and chat.calls == settings["budget"]


# —— --edit diff --grammar 的录制（issue 30）：SmolLM2-135M，完整的和两个消融，各几个种子 ——

DIFF_RUNS = sorted(glob.glob(os.path.join(DATA, "smollm2_diff_*seed*.jsonl")))


# issue 30：每个变体至少这几个种子（文件名里的变体：完整的没有）
VARIANT_SEEDS = {"": (0, 1, 2), "nocontext_": (0, 1, 2), "noevolution_": (0, 1, 2)}


def test_each_variant_has_its_seeds():
    for variant, seeds in VARIANT_SEEDS.items():
        for seed in seeds:
            path = os.path.join(DATA, f"smollm2_diff_{variant}seed{seed}.jsonl")
            assert path in DIFF_RUNS, path


@pytest.mark.parametrize("path", DIFF_RUNS, ids=os.path.basename)
@pytest.mark.slow
def test_the_committed_diff_runs_are_what_the_issue_asks_for(path, table, train):
    """SmolLM2-135M、带语法、一处改动、100 个提案；至少 95% 的回复变成程序。没有反馈表的那种，
    请求里确实没有表；不进化的那种，每个请求的父程序都是专家程序。文件名说的变体就是第 1 行记的。
    逐字节的回放在上面的 test_the_committed_real_model_run_replays（每份录制都查）。"""
    settings, calls = transcripts.load_transcript(path)
    assert settings["model"].startswith("SmolLM2-135M") and settings["grammar"] is True
    assert settings["edit"] == "diff" and settings["budget"] == 100 == len(calls)
    context, evolution = settings.get("context", True), settings.get("evolution", True)
    name = os.path.basename(path)
    assert ("nocontext" in name, "noevolution" in name) == (not context, not evolution)
    users = [call.request["messages"][1]["content"] for _, call in calls]
    tables = sum("faster config" in user for user in users)
    assert tables == 0 if not context else tables > 50
    expert = "\n".join(edits.rule_lines(EXPERT)) + "\n\n"
    from_expert = sum(expert in user for user in users)
    assert from_expert == 100 if not evolution else from_expert < 100
    chat = from_transcript(path)
    evolve(Evaluator(train, table), 100, seed=settings["seed"], llm=chat, evolution=evolution)
    assert chat.stats["ok"] >= 95 and chat.calls == 100


# —— 见过的程序再问的录制（issue 51）：每个请求、每个提案都有账（issue 56）——

RESAMPLED = sorted(glob.glob(os.path.join(DATA, "*_resample_seed*.jsonl")))
NOTES = (UNCHANGED_NOTE, SEEN_NOTE)


def replayed(path, setup):
    """回放一份录制：(提出者, 录下的每次调用, cli.run 的结果)。"""
    table, train, test = setup
    chat = from_transcript(path)
    _, calls = transcripts.load_transcript(path)
    loop = {name: chat.settings.get(name, cli.DEFAULTS[name]) for name in cli.LOOP_SETTINGS}
    return chat, [call for _, call in calls], cli.run(chat, loop, train, test, table, None)


def is_retry(call):
    """这次调用是再问：请求的最后一句是再问的那句话。"""
    return call.request["messages"][-1]["content"] in NOTES


@pytest.mark.parametrize("path", RESAMPLED, ids=os.path.basename)
@pytest.mark.slow
def test_requests_are_first_asks_plus_retries(path, setup):
    """100 个模型请求，一处改动、带语法：录下的请求里，再问的（最后一句是那句话）正是提出者数的
    再问次数，其余的是第一次问，一个问了模型的提案一个。"""
    chat, calls, real = replayed(path, setup)
    settings = chat.settings
    assert (settings["budget"], settings["edit"], settings["grammar"]) == (100, "diff", True)
    assert settings["resample"] >= 1 and chat.asked_again > 0
    retries = sum(is_retry(call) for call in calls)
    assert len(calls) == real["requests"] == 100
    assert retries == chat.asked_again
    assert len(calls) - retries == real["proposals"]


@pytest.mark.parametrize("path", RESAMPLED, ids=os.path.basename)
@pytest.mark.slow
def test_every_proposal_is_withheld_evaluated_or_failed(path, setup):
    """问了模型的每个提案只有一个去处：问满了还是见过的（不交），交去评估，或者回复没变成程序——
    三个加起来是提案数；交去评估的没有一个是父程序原样。"""
    chat, _, real = replayed(path, setup)
    out = real["out"]
    evaluated = len(out.outcomes) - out.n_failed - out.outcomes.count("prompt")
    failed = sum(n for key, n in chat.stats.items() if key not in ("ok", "spent"))
    assert chat.withheld + evaluated + failed == real["proposals"]
    assert out.n_unchanged == 0


@pytest.mark.parametrize("path", RESAMPLED, ids=os.path.basename)
@pytest.mark.slow
def test_every_retry_follows_a_repeated_reply(path, setup):
    """录下的每个再问都接着它前面那次调用：同一个模型、同样的消息，加上前一次的回复和那句话；
    每个见过的回复要么再问了，要么问满了、那个提案不交。"""
    chat, calls, _ = replayed(path, setup)
    for before, call in zip(calls, calls[1:]):
        if not is_retry(call):
            continue
        said = call.request["messages"][-2:]
        assert call.request["model"] == before.request["model"]
        assert call.request["messages"][:-2] == before.request["messages"]
        assert said[0] == {"role": "assistant", "content": before.reply}
    assert not is_retry(calls[0])
    assert chat.repeats == chat.asked_again + chat.withheld


# —— 几个模型一起的录制：每个模型分到的提案加起来是标题里的提案数（issue 56）——

MIXES = [path for path in TRANSCRIPTS if "mix_" in path or "bandit_" in path]


@pytest.mark.parametrize("path", MIXES, ids=os.path.basename)
@pytest.mark.slow
def test_a_mix_shares_only_the_proposals_that_asked_a_model(path, setup):
    """请求用完以后（--resample）挑到的成员没有问模型：那一步不是它的提案。成员的提案加起来
    是标题里的提案数（预算减去没问的那几步），Ensemble 自己挑成员的计数不变。"""
    table, train, test = setup
    chat = from_transcript(path)
    loop = {name: chat.settings.get(name, cli.DEFAULTS[name]) for name in cli.LOOP_SETTINGS}
    real = cli.run(chat, loop, train, test, table, None)
    assert sum(chat.asked) == real["proposals"]
    assert sum(chat.proposals) == loop["budget"]
