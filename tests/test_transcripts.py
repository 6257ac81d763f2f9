"""transcripts.py：回复从哪里来，录制文件怎样读。这里是几个模型一起时第 1 行的设置被改坏了：
一句话说哪一项不对。整份录制被改坏（改过的行、坏行、不够用）要整个命令行回放，在
test_llm_hostile.py 里查。"""
import json

import pytest

import transcripts


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


@pytest.mark.parametrize("where, says", [
    # /proc 里建文件，系统也说"没有这个文件"：文件夹明明在
    ("/proc/run.jsonl", "录制文件 /proc/run.jsonl 写不进去（No such file or directory）"),
    ("{tmp}/no/such/run.jsonl", "录制文件 {tmp}/no/such/run.jsonl 所在的文件夹不存在"),
])
def test_a_recording_that_cannot_be_made_says_why_before_any_call(where, says, tmp_path):
    settings = {"model": "small", "base_url": "http://127.0.0.1:1/v1", "temperature": 0.8,
                "max_tokens": 256}
    path = where.format(tmp=tmp_path)
    with pytest.raises(ValueError) as e:
        transcripts.Recording(path, settings)
    assert str(e.value) == says.format(tmp=tmp_path)
