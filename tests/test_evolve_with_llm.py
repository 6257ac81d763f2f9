"""evolve_with_llm.py 的命令行：真模型和三个对照各跑一次，--record 录下、--replay 只凭录制
回放、一字不差；回放的设置和录制的不一样、参数写错，都在第一次调用之前一句话说清；一处改动、
两个消融、并发、几个模型一起也这样；表下那句"比随机改一处好不好"由两个分数决定。
除了最后那句话，每个测试都跑整个命令行、对着 127.0.0.1 上的测试服务器：都是 slow。"""
import json
import os
import re
import sys
from types import SimpleNamespace

import pytest
from conftest import ROOT, group_ends, press_ctrl_c, start_command
from llm_cases import DECODE, HEAD, SPLIT_K_TEXT, fenced, jitter, replies, two_servers
from servers import RawServer, ScriptedServer, SeededServer, never_answers

import edits
import evolve_with_llm as cli
from evolve import EXPERT, render


@pytest.mark.slow
def test_command_line_replay_prints_exactly_what_the_recording_printed(serve, tmp_path, capsys):
    server = serve([("reply", fenced(render(DECODE))), ("reply", "no code here"),
                    ("reply", fenced(render(EXPERT).replace("M <= 16", "M <= 4")))])
    path = str(tmp_path / "run.jsonl")
    common = ["--model", "scripted-model", "--budget", "6", "--seed", "1", "--timeout", "5"]
    assert cli.main(common + ["--base-url", server.url, "--record", path]) == 0
    recorded = capsys.readouterr()
    server.close()
    # 设置都从文件第 1 行来
    assert cli.main(["--replay", path]) == 0
    replayed = capsys.readouterr()
    assert replayed.out == recorded.out
    assert "scripted-model 和三个对照" in recorded.out and HEAD in recorded.out
    assert all(name in recorded.out for name in cli.BASELINES)
    progress = [x for x in recorded.err.splitlines() if x.startswith("[scripted-model ")]
    assert len(progress) == 6 and "没有代码" in progress[1] and "→" in progress[0]
    # 回放的用时不冒充等模型
    timing = [x for x in replayed.err.splitlines() if x.startswith("用时：")]
    assert len(timing) == 1 and "回放" in timing[0] and "录制时等模型" in timing[0]
    # 录制时的用时加得起来
    line = recorded.err.split("用时：")[1]
    wall, wait, engine = map(float, re.findall(r"([\d.]+) s", line)[:3])
    assert abs(wall - wait - engine) <= 0.11
    # 不覆盖已有的录制
    assert cli.main(common + ["--base-url", server.url, "--record", path]) == 2
    assert "已经存在" in capsys.readouterr().err


@pytest.fixture(scope="module")
def two_proposals(tmp_path_factory):
    """一份 2 个提案的录制（--model m --budget 2，别的用默认），录一次给下面几个测试用。"""
    server = ScriptedServer([("reply", fenced(render(DECODE)))])
    path = str(tmp_path_factory.mktemp("two") / "run.jsonl")
    common = ["--model", "m", "--budget", "2"]
    try:
        assert cli.main(common + ["--base-url", server.url, "--record", path]) == 0
    finally:
        server.close()
    # 回放时给了同样的设置，没关系
    assert cli.main(["--replay", path] + common) == 0
    return path


@pytest.mark.parametrize("flags, named", [
    (["--seed", "9"], "--seed 0"), (["--budget", "3"], "--budget 2"),
    (["--max-tokens", "512"], "--max-tokens 1024"), (["--model", "n"], "--model m"),
    (["--temperature", "0.5"], "--temperature 0.8"), (["--grammar"], "录制时没有用 --grammar"),
    (["--parallel", "2"], "--parallel 1"), (["--no-evolution"], "录制时没有用 --no-evolution")])
@pytest.mark.slow
def test_a_replay_setting_that_differs_is_named(flags, named, two_proposals, capsys):
    path = two_proposals
    assert cli.main(["--replay", path] + flags) == 2
    err = capsys.readouterr().err
    assert named in err and path in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, words", [
    # 少了 http://
    (["--base-url", "localhost:8000"], "http://"),
    (["--base-url", "http://"], "主机名"),
    (["--base-url", "SERVER", "--timeout", "nan"], "--timeout"),
    (["--base-url", "SERVER", "--timeout", "inf"], "--timeout"),
    (["--base-url", "SERVER", "--timeout", "-1"], "--timeout"),
    (["--base-url", "SERVER", "--budget", "0"], "--budget"),
    # argparse 自己发现的也只一行
    (["--base-url", "SERVER", "--budget", "abc"], "--budget"),
    (["--base-url", "SERVER", "--seed", "-1"], "--seed"),
    (["--base-url", "SERVER", "--max-tokens", "0"], "--max-tokens"),
    (["--base-url", "SERVER", "--model", "m\x1b]0;pwned\x07"], "控制字符"),
    (["--base-url", "SERVER", "--record", "MISSING/run.jsonl"], "文件夹不存在"),
    (["--base-url", "SERVER", "--record", "EXISTING"], "已经存在"),
    (["--base-url", "SERVER", "--api-key-env", "CS349E_NO_SUCH_VAR"], "CS349E_NO_SUCH_VAR"),
    (["--replay", "EXISTING"], "第 1 行"),
    (["--replay", "MISSING/run.jsonl"], "打不开"),
    (["--replay", "EXISTING", "--base-url", "SERVER"], "回放不联网"),
    (["--replay", "EXISTING", "--record", "OTHER"], "只能选一个"),
    # 既没有服务器也没有录制
    (["--budget", "3"], "--replay"),
    (["--base-url", "SERVER", "--temperature", "nan"], "--temperature"),
    (["--base-url", "SERVER", "--temperature", "3"], "--temperature"),
    (["--base-url", "SERVER", "--parallel", "0"], "--parallel"),
    (["--base-url", "SERVER", "--parallel", "x"], "--parallel"),
])
@pytest.mark.slow
def test_command_line_slips_get_one_sentence_before_any_call(args, words, serve, tmp_path, capsys):
    server = serve([("reply", "no code")])
    existing = tmp_path / "existing.jsonl"
    existing.write_text('{"x": 1}\n', encoding="utf-8")
    names = {"SERVER": server.url, "EXISTING": str(existing), "OTHER": str(tmp_path / "other"),
             "MISSING/run.jsonl": str(tmp_path / "no" / "run.jsonl")}
    try:
        code = cli.main(["--model", "m"] + [names.get(a, a) for a in args])
    except SystemExit as e:
        code = e.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "\x1b" not in err
    # 一次调用都没发，已有的文件没被动过，也没有新建录制
    assert server.requests == []
    assert existing.read_text(encoding="utf-8") == '{"x": 1}\n'
    assert not os.path.exists(names["OTHER"])


@pytest.mark.parametrize("real, rand, says, never", [
    ((1.10, 1.09), (1.05, 1.04), "比随机改一处好", "没有"),
    ((1.00, 1.00), (1.07, 1.06), "还不如随机改", "只在"),
    # 一样高：不是"不如"，也没有"分数的提高"可说
    ((1.00, 1.00), (1.00, 1.00), "说不上比随机的有用", "不如"),
    ((1.05, 1.00), (1.05, 1.02), "说不上比随机的有用", "不如"),
    ((1.08, 1.00), (1.05, 1.00), "只在训练形状上比随机改一处好", "不如"),
    ((1.08, 1.00), (1.05, 1.02), "只在训练形状上比随机改一处好", "不如"),
])
def test_the_sentence_on_random_edits_says_what_the_two_scores_show(real, rand, says, never):
    sentence = cli.verdict_on_random("m", dict(zip(("score", "test"), real)),
                                     dict(zip(("score", "test"), rand)))
    assert says in sentence and never not in sentence
    # 模型和随机改各只跑了一次：比的是两个数，看不出种子之间的波动，这一句也说出来
    assert "；只有 1 个种子，看不出种子之间的波动）" in sentence


def test_a_verdict_on_random_edits_the_three_printed_digits_cannot_show_prints_more():
    # 1.0786 和 1.0793 印成 3 位都是 1.079：说"没有比随机改好"时印 4 位，读者看得出差在哪
    sentence = cli.verdict_on_random("m", {"score": 1.0786, "test": 1.0786},
                                     {"score": 1.0793, "test": 1.0793})
    assert "还不如随机改" in sentence
    assert "训练 1.0786 对 1.0793，测试 1.0786 对 1.0793" in sentence
    # 6 位还一样：不说谁好谁差
    same = cli.verdict_on_random("m", {"score": 1.0786001, "test": 1.05},
                                 {"score": 1.0786004, "test": 1.05})
    assert "说不上比随机的有用" in same and "训练 1.079 对 1.079" in same


def _member(model, calls, parsed):
    return SimpleNamespace(model=model, calls=calls, stats={"ok": parsed}, seconds=1.0)


@pytest.mark.parametrize("calls, shows", [((3, 1), False), ((5, 2), True)])
def test_the_member_table_shows_requests_when_they_are_not_the_proposals(capsys, calls, shows):
    # "解析"数的是回复：再问时一个提案不止一个请求，解析的比提案多，这时多印一列请求
    team = SimpleNamespace(bandit=False, mix="3:1", asked=[3, 1], improvements=[1, 0],
                           members=[_member("small", calls[0], calls[0]),
                                    _member("big", calls[1], calls[1])])
    cli.print_members(team)
    header, _, small, big = capsys.readouterr().out.splitlines()[-4:]
    assert ("请求" in header) == shows
    assert small.split()[:5] == (["small", "3", "75%", "1", "5"] if shows
                                 else ["small", "3", "75%", "1", "3"])


@pytest.mark.parametrize("children, counted", [(4, "孩子"), (1, "提案")])
def test_the_prompt_table_says_what_credit_counts(children, counted, capsys):
    """功劳按提案数算：每个提案都交回了程序时提案数就是孩子数，只印孩子（录制的 .txt 原样）；
    有给不出程序的提案时另印一列提案，式子说的也是提案。"""
    from evolve import PromptEntry
    entries = [PromptEntry((), None, proposals=4, children=children, improved=1),
               PromptEntry(("be bold",), None, proposals=2, children=2)]
    cli.print_prompts(SimpleNamespace(entries=entries, leader=lambda: entries[0]))
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("提示  "))
    assert f"/ ({counted} + 2)" in out and ("提案" in header) == (counted == "提案")
    assert "0.33" in out


def test_a_step_with_no_request_left_names_no_model():
    # 请求用完以后的一步没有问谁（不是哪个成员的提案）：stderr 上那一行不写模型的名字
    notes = []
    progress = SimpleNamespace(note=notes.append, advance=lambda n, text: None)
    chat = SimpleNamespace(model="small + big", last_model="big", last=("spent", ""))
    show = cli.line_per_proposal(chat, 100, progress)
    show(87, "failed")
    chat.last = ("ok", "")
    show(3, "added")
    assert notes[0].startswith("[88/100] 请求用完了") and notes[1].startswith("[big 4/100] ")


# —— 一处改动（--edit diff）和 AlphaEvolve 的两个消融（--no-context、--no-evolution）——

@pytest.mark.slow
def test_the_command_line_names_the_edit_mode(serve, tmp_path, capsys):
    server = serve([("reply", "rule 1: return " + SPLIT_K_TEXT)])
    path = str(tmp_path / "run.jsonl")
    args = ["--base-url", server.url, "--model", "m", "--budget", "3", "--edit", "diff",
            "--record", path]
    assert cli.main(args) == 0
    recorded = capsys.readouterr().out
    assert "m（一处改动）和三个对照" in recorded and "模型写的改动从来没有被执行" in recorded
    assert cli.main(["--replay", path]) == 0
    assert capsys.readouterr().out == recorded
    assert cli.main(["--replay", path, "--edit", "full"]) == 2
    assert "录的是 --edit diff" in capsys.readouterr().err
    assert cli.main(["--base-url", server.url, "--model", "m", "--edit", "dif"]) == 2
    err = capsys.readouterr().err
    assert "--edit='dif' 不是可选值" in err and "'diff'" in err


@pytest.mark.slow
def test_the_two_ablations_are_recorded_and_replayed_from_the_first_line(serve, tmp_path, capsys):
    """--no-context --no-evolution：请求里没有反馈表、父程序总是专家程序；两个设置记在第 1 行，
    回放不用再给。"""
    server = serve([("reply", "rule 1: return " + SPLIT_K_TEXT)])
    path = str(tmp_path / "run.jsonl")
    args = ["--base-url", server.url, "--model", "m", "--budget", "6", "--edit", "diff",
            "--no-context", "--no-evolution", "--record", path]
    assert cli.main(args) == 0
    recorded = capsys.readouterr().out
    assert "m（一处改动，没有反馈表，不进化）和三个对照" in recorded
    users = [r["body"]["messages"][1]["content"] for r in server.requests]
    expert = "\n".join(edits.rule_lines(EXPERT))
    assert len(users) == 6 and all(expert in user and "Training shapes" not in user
                                   for user in users)
    settings = json.loads(open(path, encoding="utf-8").readline())["settings"]
    assert (settings["context"], settings["evolution"]) == (False, False)
    assert cli.main(["--replay", path]) == 0
    assert capsys.readouterr().out == recorded


@pytest.mark.slow
def test_no_context_is_only_for_the_short_prompt(serve, capsys):
    server = serve([("reply", "no code")])
    assert cli.main(["--base-url", server.url, "--model", "m", "--no-context"]) == 2
    err = capsys.readouterr().err
    assert "--no-context 只用于 --edit diff" in err and len(err.strip().splitlines()) == 1
    assert server.requests == []


# —— 并发（--parallel K）——

@pytest.mark.slow
def test_the_command_line_with_parallel_requests_is_repeatable_and_replays(tmp_path, capsys):
    server = SeededServer(replies(), jitter)
    try:
        outs = []
        for name in ("a", "b"):
            path = str(tmp_path / f"{name}.jsonl")
            args = ["--base-url", server.url, "--model", "m", "--budget", "8", "--seed", "2",
                    "--parallel", "4", "--record", path]
            assert cli.main(args) == 0
            outs.append(capsys.readouterr().out)
        # 到达的先后不同，结果一样；只有"等模型 s"那一格是这次量的墙钟时间，不算在内
        assert server.in_flight_max == 4
        assert without_waiting(outs[0]) == without_waiting(outs[1])
        assert cli.main(["--replay", path]) == 0
        # 回放 b 的录制，和 b 一字不差（秒数也是录下来的），并发数记在第 1 行
        assert capsys.readouterr().out == outs[1]
        assert "并发 4" in outs[1]
    finally:
        server.close()


def without_waiting(out):
    """stdout 去掉模型那一行的"等模型 s"（行末的秒数）：联网时它是量出来的，两次不会一样。"""
    return re.sub(r"^(m +.*?) +[0-9.]+$", r"\1", out, flags=re.M)


CLI = os.path.join(ROOT, "lecture14", "real_llm", "evolve_with_llm.py")


# 一个模型，并发 3；两个模型一起（同一个服务器），并发 4 时第一批先问的成员分到 2 个
@pytest.mark.slow
@pytest.mark.parametrize("models, parallel, in_flight", [(["m"], 3, 3), (["m", "m"], 4, 2)],
                         ids=["one-model", "ensemble"])
def test_one_ctrl_c_stops_parallel_requests_to_a_server_that_never_answers(
        models, parallel, in_flight, serve):
    """--parallel 的几个请求在线程里等一个接了连接、从不回答的服务器（截止时间 60 s）：按一次
    Ctrl-C，几秒之内退出，退出码 130，stderr 在开头那一行之后只多了一行"已中断。"（没有
    traceback），进程组里一个不留。issue 63：以前线程等到截止时间，20 s 后进程还在。"""
    server = serve(never_answers, RawServer)
    args = ["--base-url", server.url, "--parallel", str(parallel), "--budget", "8",
            "--timeout", "60"]
    for model in models:
        args += ["--model", model]
    proc = start_command([sys.executable, CLI, *args])
    server.wait_for(in_flight)
    code, err, seconds = press_ctrl_c(proc)
    started = err.splitlines()[0]
    assert started.startswith("模型：") and f"并发 {parallel}" in started
    assert code == 130 and err == f"{started}\n已中断。\n" and seconds < 5
    assert group_ends(proc.pid, within=10)


# —— 几个模型一起（--model 给几次、--weights、--bandit）——

@pytest.mark.slow
def test_the_command_line_records_an_ensemble_and_refuses_a_different_one(tmp_path, capsys):
    servers = two_servers()
    path = str(tmp_path / "team.jsonl")
    try:
        args = ["--base-url", servers[0].url, "--model", "small", "--base-url", servers[1].url,
                "--model", "big", "--weights", "3,1", "--budget", "6", "--edit", "diff",
                "--record", path]
        assert cli.main(args) == 0
    finally:
        for server in servers:
            server.close()
    recorded = capsys.readouterr().out
    assert "small + big（3:1）" in recorded and "每个模型分到的提案" in recorded
    assert cli.main(["--replay", path]) == 0
    assert capsys.readouterr().out == recorded
    for flags, says in [(["--weights", "1,1"], "录的是 --weights 3,1，命令行给的是 1,1"),
                        (["--bandit"], "录制时没有用 --bandit"),
                        (["--model", "small"], "录的是 --model small,big")]:
        assert cli.main(["--replay", path, *flags]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, says", [
    (["--model", "a", "--weights", "4,1"], "--weights 只用于几个模型"),
    (["--model", "a", "--bandit"], "--bandit 只用于几个模型"),
    (["--model", "a", "--model", "b", "--weights", "4,x"], "--weights 必须是逗号隔开的有限正数"),
    (["--model", "a", "--model", "b", "--weights", "4,1", "--bandit"], "只能选一个"),
])
@pytest.mark.slow
def test_ensemble_flags_are_checked_before_any_call(args, says, capsys):
    assert cli.main(["--base-url", "http://127.0.0.1:9/v1", *args]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_three_urls_for_two_models_is_one_sentence(capsys):
    url = "http://127.0.0.1:9/v1"
    args = ["--base-url", url, "--base-url", url, "--base-url", url, "--model", "a", "--model", "b"]
    assert cli.main(args) == 2
    assert "给了 3 个 --base-url、2 个 --model" in capsys.readouterr().err
