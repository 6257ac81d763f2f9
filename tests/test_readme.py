"""README 说的话照着做得通：它的代码段能贴、能从两个目录运行，它的变体能跑，CI 跑的正是它的命令；
它的命令用虚拟环境的 Python、只写学生电脑上有的路径，写出的文件 git 不管；没回复的录制不挡下一次；
没装 pytest-xdist 也跑得了测试。"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from types import SimpleNamespace

import pytest
from conftest import ROOT, pytest_cmdline_main, start_command
from llm_cases import DECODE, fenced
from servers import RawServer

from evolve import Evaluator, MockLLM, evolve, render


def readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


# README 里"改一改"和示例用到的组合
README_VARIANTS = {
    "eight_islands": {"n_islands": 8},
    "small_llm_no_feedback": {"llm": MockLLM(knowledge=False, feedback=None)},
    "no_evolution_no_cascade": {"evolution": False, "cascade": False},
    "roofline_worst3": {"llm": MockLLM(feedback="roofline", focus="worst3")},
}


def test_readme_python_snippets_paste_as_valid_python():
    import ast
    blocks = re.findall(r"```python\n(.*?)```", readme(), re.S)
    assert any(b.startswith("VARIANTS = {") for b in blocks)
    for block in blocks:
        # 贴进脚本或 REPL 不会 SyntaxError
        ast.parse(block)


def test_ci_runs_the_readmes_own_set_up_and_test_commands():
    """README"运行"一节的命令（虚拟环境、装依赖、运行讲义、跑测试）：
    .ci/run 一条不少、原样照跑。"""
    section = readme()[readme().index("## 运行"):readme().index("## 第 14 讲")]
    blocks = re.findall(r"```bash\n(.*?)```", section, re.S)
    commands = [line for block in blocks[:2] for line in block.splitlines()]
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    ci = [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]
    assert commands == ci
    assert commands[0] == "python3 -m venv .venv"


def test_readme_snippet_runs_from_the_root_and_from_lecture14():
    """"看一个程序"那段照抄进 python3（从标准输入）：在仓库根目录和 lecture14/ 里都跑得通。"""
    section = readme()[readme().index("### 看一个程序"):]
    snippet = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    # 300 个提案改成 30：只看它跑不跑得通
    code = snippet.replace(", 300, seed=0)", ", 30, seed=0)")
    pipe = subprocess.PIPE
    pipes = {"stdin": pipe, "stdout": pipe, "stderr": pipe, "text": True}
    procs = [subprocess.Popen([sys.executable, "-"], cwd=cwd, **pipes)
             for cwd in (ROOT, os.path.join(ROOT, "lecture14"))]
    for proc in procs:
        out, err = proc.communicate(code, timeout=120)
        assert proc.returncode == 0, err
        assert out.splitlines()[-1] == "(True, [])"


@pytest.mark.parametrize("name", list(README_VARIANTS))
def test_readme_variants_run_and_beat_the_expert(name, table, train):
    """专家程序的分数按定义是 1.0：每个 README 里的变体 120 个提案内都找到更好的，历史只升不降。"""
    out = evolve(Evaluator(train, table), 120, seed=0, **README_VARIANTS[name])
    history = out["history"]
    assert len(history) == 120 and history == sorted(history)
    assert history[-1] > 1.0 and out["n_added"] > 0


# —— README 的命令 ——

def readme_commands():
    """README 每个 bash 代码段里的每条命令（续行接好，去掉注释）：参数的列表。"""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", readme(), re.S):
        # 引号里可以换行（GGUF=$(... -c '多行的 Python')）：引号没合上就接着读下一行
        pending = ""
        for line in block.replace("\\\n", " ").splitlines():
            pending += line + "\n"
            try:
                words = shlex.split(pending, comments=True)
            except ValueError:
                continue
            pending = ""
            if words:
                commands.append(words)
        assert pending == "", pending
    return commands


def readme_command(*words):
    """README 里连着有这几个参数的那条命令（只能有一条）。"""
    n = len(words)
    found = [command for command in readme_commands()
             if any(tuple(command[i:i + n]) == words for i in range(len(command)))]
    assert len(found) == 1, (words, found)
    return found[0]


def interpreters(command):
    """一条命令里的每个 Python：(它, 它后面的参数)。GGUF=$(python ...) 里的也算。"""
    found = []
    for i, word in enumerate(command):
        program = re.sub(r"^\w+=(\$\()?", "", word)
        if re.fullmatch(r"(\S*/)?python3?", program):
            found.append((program, command[i + 1:]))
    return found


def test_readme_commands_use_the_venv_python_and_paths_a_laptop_has():
    """系统的 python3 里没有 numpy（Debian 的 PEP 668 也不许往里装）：跑本仓库的 .py、pytest 的
    命令都用 .venv/bin/python；python3 只用来建虚拟环境，模型服务器的 venv 在家目录下。
    路径不写这台机器才有的顶层文件夹。"""
    commands = readme_commands()
    runs = [found for command in commands for found in interpreters(command)]
    venvs = [program for program, args in runs if args[:2] == ["-m", "venv"]]
    assert venvs == ["python3", "python3"]
    others = [(program, args) for program, args in runs if args[:2] != ["-m", "venv"]]
    assert {program for program, _ in others} == {".venv/bin/python", "~/venv-llama/bin/python"}
    ours = [program for program, args in others
            if args[0].endswith(".py") or args[:2] == ["-m", "pytest"]]
    assert len(ours) >= 9 and set(ours) == {".venv/bin/python"}
    for command in commands:
        for word in command:
            path = word.split("=")[-1]
            assert not path.startswith(("/work", "/root", "/home")), command


def test_files_the_readme_commands_write_are_ignored_by_git():
    """--plot、--record 写在仓库里的文件（和 .venv）git status 里看不到。"""
    written = [readme_command("--plot"), readme_command("--record")]
    names = [words[words.index(flag) + 1] for words, flag in zip(written, ("--plot", "--record"))]
    names += [".venv/bin/python"]
    if shutil.which("git") is None:
        pytest.skip("没有 git")
    done = subprocess.run(["git", "check-ignore", *names], cwd=ROOT, capture_output=True, text=True)
    # 128：这里不是 git 检出（比如下载的压缩包）
    if done.returncode == 128:
        pytest.skip("不是 git 检出")
    assert done.stdout.split() == names


def run_readme_record(url, cwd):
    """照 README 运行 --record 那条命令（地址换成 url）：(退出码, stdout, stderr)。
    录制文件按 README 写在 cwd 里。"""
    words = readme_command("--record")
    words[0], words[1] = sys.executable, os.path.join(ROOT, words[1])
    words[words.index("--base-url") + 1] = url
    proc = start_command(words, cwd=cwd)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def hang_up(conn, stop):
    """读完请求就挂断，一个字节也不答。"""


@pytest.mark.parametrize("server", ["nobody", "hangs_up", "404"])
def test_a_live_recording_that_gets_no_reply_leaves_nothing_behind(server, serve, nobody_listens,
                                                                   tmp_path):
    """README 的 --record 命令对着一个不答的服务器（没人听、读完请求就挂断、每次都 404）：
    退出码 1，不留录制文件；同样的命令第二遍照样去问服务器，而不是说文件已经存在。"""
    urls = {"nobody": lambda: nobody_listens, "hangs_up": lambda: serve(hang_up, RawServer).url,
            "404": lambda: serve([("status", 404)]).url}
    url = urls[server]()
    for _ in range(2):
        code, out, err = run_readme_record(url, tmp_path)
        assert code == 1 and "已经存在" not in err and "Traceback" not in err
        assert "没给出程序" in err
        assert os.listdir(tmp_path) == []


def test_calls_before_the_first_reply_are_recorded_in_order_and_replay(serve, tmp_path):
    """先 404 一次再答：录制文件在拿到回复时建好，第 2 行是那次 404；回放的 stdout 和录制时一样；
    有了录制，同样的命令第二遍不覆盖它。"""
    server = serve([("status", 404), ("reply", fenced(render(DECODE)))])
    code, recorded, _ = run_readme_record(server.url, tmp_path)
    assert code == 0
    name = readme_command("--record")[-1]
    with open(tmp_path / name, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f]
    budget = int(readme_command("--record")[readme_command("--record").index("--budget") + 1])
    assert len(lines) == 1 + budget
    assert [line["result"] for line in lines[1:3]] == ["http_error", "ok"]
    replay = readme_command("--replay", name)
    proc = start_command([sys.executable, os.path.join(ROOT, replay[1]), *replay[2:]], cwd=tmp_path)
    replayed, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert replayed == recorded
    code, _, err = run_readme_record(server.url, tmp_path)
    assert code == 2 and "已经存在" in err


# —— 没装 pytest-xdist 时 ——

@pytest.mark.parametrize("has_xdist, given, worker, expected", [
    (True, None, False, "auto"), (True, 0, False, 0), (True, 2, False, 2),
    (True, None, True, None), (False, None, False, None)])
def test_n_auto_only_when_xdist_is_there_and_n_was_not_given(has_xdist, given, worker, expected):
    """conftest 给 -n auto 的规则：装了 xdist、命令行没给 -n、不是 xdist 分出的进程。"""
    config = SimpleNamespace(pluginmanager=SimpleNamespace(hasplugin=lambda name: has_xdist),
                             option=SimpleNamespace(numprocesses=given))
    if worker:
        config.workerinput = {}
    pytest_cmdline_main(config)
    assert config.option.numprocesses == expected


def test_pytest_without_xdist_runs_in_one_process():
    """-p no:xdist 时 pytest 不认 -n：pytest.ini 的 addopts 里要是有 -n，这里就停在用法错误上。"""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_") and k != "ABLATIONS_TEST_RUNS"}
    one = "tests/test_readme.py::test_readme_python_snippets_paste_as_valid_python"
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", one]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "workers" not in done.stdout
