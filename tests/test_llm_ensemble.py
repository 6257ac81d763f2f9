"""几个提出者一起（issue 37）：evolve.Ensemble 的固定配比和 UCB1 bandit，ChatEnsemble 对着
127.0.0.1 上的假服务器录制、回放，设置不一样的回放一句话拒掉。"""
import json

import pytest
from llm_cases import two_servers

import evolve_with_llm as cli
import transcripts
from evolve import Evaluator, evolve
from llm import ChatEnsemble, from_transcript


# —— 2. 两个假服务器：录制、同样的种子同样的挑法、回放不联网 ——


@pytest.mark.parametrize("how", [{"weights": [3, 1]}, {"bandit": True}])
@pytest.mark.slow
def test_an_ensemble_records_which_model_answered_and_replays_without_a_server(
        how, table, train, tmp_path):
    servers = two_servers()
    try:
        runs = []
        for name in ("a", "b"):
            path = str(tmp_path / f"{name}.jsonl")
            team = ChatEnsemble([(servers[0].url, "small"), (servers[1].url, "big")],
                                edit="diff", grammar=True, record=path,
                                run={"budget": 16, "seed": 3, "parallel": 1}, **how)
            out = evolve(Evaluator(train, table), 16, seed=3, llm=team)
            runs.append((out["outcomes"], team.proposals, team.improvements))
    finally:
        for server in servers:
            server.close()
    # 同样的种子，同样的挑法和结局
    assert runs[0] == runs[1]
    # 每个服务器只收到它那个模型的请求；每行录制的请求说是哪个模型
    assert {body["model"] for body in servers[0].requests} == {"small"}
    assert {body["model"] for body in servers[1].requests} == {"big"}
    settings, calls = transcripts.load_transcript(path)
    models = [call.request["model"] for _, call in calls]
    assert [models.count("small"), models.count("big")] == team.proposals
    assert [m["model"] for m in settings["members"]] == ["small", "big"]
    # 服务器都关了：回放只靠文件，挑法、结局、计数都一样
    replay = from_transcript(path)
    again = evolve(Evaluator(train, table), 16, seed=3, llm=replay)
    assert (again["outcomes"], replay.proposals, replay.improvements) == runs[0]
    assert replay.bandit == how.get("bandit", False)


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


# —— 3. 被改过的设置行：一句话 ——

@pytest.mark.parametrize("change, says", [
    (lambda s: s["members"].pop(), "members 必须是至少两个模型"),
    (lambda s: s.update(weights=[1]), "weights 必须是每个模型一个有限的正数"),
    (lambda s: s.update(bandit=True), "bandit 时 weights 必须是 null"),
    (lambda s: s["members"][1].update(base_url="ftp://x"), "members 里的一个base_url 不对"),
])
def test_a_spoiled_ensemble_settings_line_is_one_sentence(change, says, tmp_path):
    settings = {"members": [{"model": "small", "base_url": "http://127.0.0.1:1/v1"},
                            {"model": "big", "base_url": "http://127.0.0.1:2/v1"}],
                "weights": [4, 1], "bandit": False, "temperature": 0.8, "max_tokens": 256}
    change(settings)
    header = {"kind": transcripts.TRANSCRIPT_KIND, "version": transcripts.TRANSCRIPT_VERSION,
              "settings": settings}
    path = tmp_path / "spoiled.jsonl"
    path.write_text(transcripts.sealed(header), encoding="utf-8")
    with pytest.raises(ValueError) as e:
        transcripts.load_transcript(str(path))
    assert says in str(e.value) and "第 1 行的设置不对" in str(e.value)
    assert json.loads(path.read_text(encoding="utf-8"))["settings"] == settings
