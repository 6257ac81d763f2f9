"""README.md 和各页（PAGES）说的话照着做得通：代码段能贴、能从两个目录运行，变体能跑，CI 跑的正是
README 的命令，演示 1 的摘录就是金标准的那几行，方法那一节点名的东西 evolve.py 里都有；
每一条命令要么真的跑得通，要么页上写明它要模型服务器、单独的 venv 或者是量速度的，这时查它的脚本、
路径和参数都在；命令用虚拟环境的 Python、只写学生电脑上有的路径，写出的文件 git 不管；
没回复的录制不挡下一次；没装 pytest-xdist 也跑得了测试。"""
import ast
import functools
import glob
import inspect
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from types import SimpleNamespace

import pytest
from conftest import DETACHED, ROOT, SCRIPT, load_script, pytest_cmdline_main, start_command
from llm_cases import DECODE, fenced
from servers import RawServer

import curves
import evolve as E
from ensemble import Ensemble
from evolve import Evaluator, MockLLM, evolve, render

# 仓库里的每一页（相对仓库根目录）：README.md 是前门，其余各在它讲的东西旁边
PAGES = ("README.md", "lecture14/README.md", "lecture14/fidelity.md", "lecture14/data/README.md",
         "lecture14/real_llm/README.md", "tests/README.md")
GOLDEN = os.path.join(ROOT, "tests", "golden", "ablations_stdout.txt")


def page(name):
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def readme():
    return page("README.md")


def section(text, heading):
    """text 里从 heading 那一行到下一个同级或更高级标题之前（代码段里 # 开头的注释不是标题）。"""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines(keepends=True)
    start = lines.index(heading + "\n")
    fenced = False
    for end in range(start + 1, len(lines)):
        fenced ^= lines[end].startswith("```")
        if not fenced and re.match(rf"#{{1,{level}}} ", lines[end]):
            return "".join(lines[start:end])
    return "".join(lines[start:])


def blocks(text, language):
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_every_page_is_collected():
    """仓库里的 .md 都在 PAGES 里：新加的页，命令也有人查。"""
    found = {os.path.relpath(path, ROOT).replace(os.sep, "/")
             for path in glob.glob(os.path.join(ROOT, "**", "*.md"), recursive=True)}
    assert found == set(PAGES)


@pytest.mark.parametrize("name", PAGES)
def test_page_links_point_at_files_that_exist(name):
    for target in re.findall(r"\]\(([^)#]+)\)", page(name)):
        assert os.path.exists(os.path.join(ROOT, os.path.dirname(name), target)), target


# README 里"改一改"和示例用到的组合（lecture14/README.md）
README_VARIANTS = {
    "eight_islands": {"n_islands": 8},
    "climber": {"n_islands": 1, "population": 1},
    "climbers_4": {"population": 1},
    "small_llm_no_feedback": {"llm": MockLLM(knowledge=False, feedback=None)},
    "no_evolution_no_cascade": {"evolution": False, "cascade": False},
    "roofline_worst3": {"llm": MockLLM(feedback="roofline", focus="worst3")},
    "mix": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], weights=[4, 1])},
    "bandit": {"llm": Ensemble([MockLLM(knowledge=False), MockLLM()], bandit=True)},
}


def test_readme_python_snippets_paste_as_valid_python():
    found = [block for name in PAGES for block in blocks(page(name), "python")]
    assert any(b.startswith("VARIANTS = {") for b in found)
    for block in found:
        # 贴进脚本或 REPL 不会 SyntaxError
        ast.parse(block)


def ci_commands():
    """.ci/run 的每条命令（续行接好）。"""
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        lines = f.read().replace("\\\n", " ").splitlines()
    return [line for line in lines if line and not line.startswith(("#", "set ", "cd "))]


def test_ci_runs_every_test_file_that_uses_matplotlib_without_it_too():
    """matplotlib 是可选的：.ci/run 在没装它的 venv 里跑的测试文件里，有用到它的每一个（import、
    importorskip 它，或者用 conftest.draws 标画图的测试）——新写的画图测试不会漏掉。"""
    pytest = '"$bare/venv/bin/python" -m pytest'
    bare = [shlex.split(c) for c in ci_commands() if c.startswith(pytest)]
    assert len(bare) == 1
    uses = re.compile(r'^\s*(import|from) matplotlib|importorskip\("matplotlib"\)|^@draws$', re.M)
    using = set()
    for path in glob.glob(os.path.join(ROOT, "tests", "test_*.py")):
        with open(path, encoding="utf-8") as f:
            if uses.search(f.read()):
                using.add(os.path.relpath(path, ROOT).replace(os.sep, "/"))
    assert "tests/test_slides.py" in using and using <= set(bare[0][3:])


def readme_run_commands():
    """README"运行"一节的命令：虚拟环境、装依赖、可选的 NVIDIA 的库、运行讲义、跑测试。"""
    found = blocks(section(readme(), "## 运行"), "bash")
    return [line for block in found[:3] for line in block.splitlines()]


def test_ci_runs_the_readmes_own_set_up_and_test_commands():
    """README"运行"一节的命令：.ci/run 一条不少、原样照跑，排在最前面。后面是读 README 的人
    不用跑的（没有 matplotlib 的 venv 里再跑画图的那几个测试文件，见 tests/README.md）。
    可选的那条单独一段，前面说它是可选的、许可证是 NVIDIA 的：照着 README 设置的学生不会
    不知不觉装上它。"""
    running = section(readme(), "## 运行")
    found = blocks(running, "bash")
    assert found[1].strip() == (
        ".venv/bin/python -m pip install -r lecture14/requirements-nvidia.txt")
    optional = running.split(found[1])[0].split(found[0])[1]
    assert "可选" in optional and "许可证" in optional
    commands = readme_run_commands()
    assert ci_commands()[:len(commands)] == commands
    assert commands[0] == "python3 -m venv .venv"


def test_the_front_door_is_short_and_runs_the_lecture_early():
    """README 是前门：150 行以内，设置、运行讲义、跑测试的命令都在前 25 行里。"""
    lines = readme().splitlines()
    assert len(lines) <= 150
    assert set(readme_run_commands()) <= set(lines[:25])


def test_the_readmes_excerpt_is_demo_1_as_the_script_prints_it():
    """README 里演示 1 的表：金标准输出（100 列）里连着的那几行，从标题到"上限"那一行。"""
    excerpt = blocks(section(readme(), "## 讲义印出什么"), "text")[0].splitlines()
    with open(GOLDEN, encoding="utf-8") as f:
        golden = f.read().splitlines()
    start = golden.index(excerpt[0])
    assert excerpt == golden[start:start + len(excerpt)]
    assert excerpt[1].startswith("演示 1：") and excerpt[-1].startswith("上限（逐形状最优）")
    assert "--plot" in section(readme(), "## 讲义印出什么")


def test_the_method_names_what_evolve_py_has():
    """README"方法"一节点名的每个名字（`X`、`X.y`）是 evolve.py 里的东西或 evolve() 的参数：
    改了名字，前门跟着改。"""
    steps = section(readme(), "## 方法：一个提案走过 `evolve()`").split("读代码的顺序")[0]
    names = re.findall(r"`([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)`", steps)
    assert len(names) >= 15
    parameters = inspect.signature(evolve).parameters
    for name in names:
        owner, _, attribute = name.partition(".")
        if not attribute and owner in parameters:
            continue
        assert hasattr(E, owner), name
        assert not attribute or hasattr(getattr(E, owner), attribute), name


@pytest.mark.slow
def test_readme_snippet_runs_from_the_root_and_from_lecture14():
    """"看一个程序"那段照抄进 python3（从标准输入）：在仓库根目录和 lecture14/ 里都跑得通。"""
    text = section(page("lecture14/README.md"), "## 看一个程序")
    snippet = blocks(text, "python")[0]
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


# lecture14/README.md 的"三行给手写的启发式打分"：照抄能跑，写的数字就是跑出来的数字
@pytest.mark.slow
def test_the_readme_hand_written_example_prints_what_the_readme_says():
    text = page("lecture14/README.md")
    part = text[text.index("## 三行给手写的启发式打分"):]
    code = "".join(blocks(part, "python")[:2])
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout
    train, test, oracle = (float(x) for x in out.splitlines()[0].split())
    assert (f"训练形状 {train:.3f}、测试形状 {test:.3f}，逐形状最优的上限 {oracle:.3f}；"
            "`(True, [])`") in part
    assert out.splitlines()[1] == "(True, [])"
    assert f"# {float(out.splitlines()[2]):.3f}" in part


@pytest.mark.parametrize("name", list(README_VARIANTS))
def test_readme_variants_run_and_beat_the_expert(name, table, train):
    """专家程序的分数按定义是 1.0：每个 README 里的变体 120 个提案内都找到更好的，历史只升不降。"""
    out = evolve(Evaluator(train, table), 120, seed=0, **README_VARIANTS[name])
    history = out["history"]
    assert len(history) == 120 and history == sorted(history)
    assert history[-1] > 1.0 and out["n_added"] > 0


# —— 各页的命令 ——

# 写在命令那一行、或者它那个代码段第一行的注释里：测试不真跑它，只查它的脚本、路径和参数
NOT_RUN = ("要模型服务器", "要单独的 venv", "量速度")


@dataclass(frozen=True)
class Command:
    """页上的一条命令。text 是原文（续行接好），words 是 shlex 拆开、去掉注释的参数；
    notes 是写明的不跑的原因（NOT_RUN 里的几个），没写就是空的。"""
    page: str
    text: str
    words: tuple
    notes: frozenset


def notes_in(text):
    return frozenset(why for why in NOT_RUN if why in text)


def page_commands(name):
    """一页的每个 bash 代码段里的每条命令。"""
    commands = []
    for block in blocks(page(name), "bash"):
        lines = block.replace("\\\n", " ").splitlines()
        header = notes_in(lines[0]) if lines[0].startswith("#") else frozenset()
        # 引号里可以换行（GGUF=$(... -c '多行的 Python')）：引号没合上就接着读下一行
        pending = ""
        for line in lines:
            pending += line + "\n"
            try:
                words = shlex.split(pending, comments=True)
            except ValueError:
                continue
            if words:
                commands.append(Command(name, pending, tuple(words), notes_in(pending) | header))
            pending = ""
        assert pending == "", pending
    return commands


def all_commands():
    return [command for name in PAGES for command in page_commands(name)]


def readme_command(*words):
    """各页里连着有这几个参数的那条命令（只能有一条）：参数的列表。"""
    n = len(words)
    found = [list(command.words) for command in all_commands()
             if any(command.words[i:i + n] == words for i in range(len(command.words)))]
    assert len(found) == 1, (words, found)
    return found[0]


def program_of(word):
    """去掉前面的 NAME= 或 NAME=$(：GGUF=$(~/venv-llama/bin/python 里跑的是那个 Python。"""
    return re.sub(r"^\w+=(\$\()?", "", word)


def interpreters(command):
    """一条命令里的每个 Python：(它, 它后面的参数)。GGUF=$(python ...) 里的也算。"""
    found = []
    for i, word in enumerate(command):
        program = program_of(word)
        if re.fullmatch(r"(\S*/)?python3?", program):
            found.append((program, list(command[i + 1:])))
    return found


def runs_our_code(args):
    """跑的是本仓库的 .py 或 pytest。"""
    return bool(args) and (args[0].endswith(".py") or args[:2] == ["-m", "pytest"])


def how_checked(command):
    """这条命令怎样查：
    ci：.ci/run 里的一条（CI 原样跑它；讲义那一遍在 conftest 的后台对照金标准）；
    pytest：别的 pytest 命令，不在 pytest 里再跑 pytest，只查它点名的文件；
    plot：讲义带 --plot，05 脚本的命令行认得它的参数，画图那条路 test_curves.py 在后台跑；
    noted：页上写明了不跑的原因，查它的脚本、路径和参数；
    run：其余的都照原文真跑一遍。"""
    words = list(command.words)
    if command.text.strip() in ci_commands():
        return "ci"
    if words[1:3] == ["-m", "pytest"]:
        return "pytest"
    if command.notes:
        return "noted"
    if words[1:2] == [os.path.relpath(SCRIPT, ROOT).replace(os.sep, "/")]:
        return "plot"
    return "run"


def in_repo(word):
    return re.match(r"(lecture01|lecture14|tests)/", word) is not None


def command_id(command):
    """pytest 里这条命令的名字：页和它点名的第一个本仓库的文件，没有就是它跑的程序。"""
    programs = [os.path.basename(program_of(word)) for word in command.words]
    named = [word for word in command.words if in_repo(word)]
    named += [word for word in programs if word and not word.startswith("-")]
    return f"{command.page}:{named[0]}"


CHEAP = [command for command in all_commands() if how_checked(command) == "run"]


def test_page_commands_are_checked_one_way_or_another():
    """每一类都有命令：查法没有一种是空转的。"""
    kinds = {how_checked(command) for command in all_commands()}
    assert kinds == {"ci", "pytest", "plot", "noted", "run"}


@pytest.mark.parametrize("command", CHEAP, ids=command_id)
@pytest.mark.slow
def test_page_commands_run_as_written(command):
    """在仓库根目录照原文跑（bash -c，.venv/bin/python 换成跑测试的这个 Python）：退出码 0。"""
    text = command.text.replace(".venv/bin/python", shlex.quote(sys.executable))
    proc = start_command(["bash", "-c", text], cwd=ROOT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out + err
    assert "Traceback" not in err


# 页上几条命令用同一个脚本：每个脚本只问一次 --help（一次约 0.4 s，起一个 Python、import numpy）
@functools.cache
def argparse_options(path):
    """一个脚本的命令行认的选项：问它自己（--help 列出的每个 --选项），不看源码——
    选项可能是别的模块替它加的（两个同行脚本共用 --out、--force、--show）。"""
    env = dict(os.environ, COLUMNS="1000")
    helped = subprocess.run([sys.executable, path, "--help"], capture_output=True, text=True,
                            env=env, timeout=60, **DETACHED)
    assert helped.returncode == 0, helped.stderr
    return set(re.findall(r"(?<![\w-])--[a-z][\w-]*", helped.stdout))


def shell_variables(path):
    """一个 shell 脚本从环境里读的变量（${NAME:-默认}）。"""
    with open(path, encoding="utf-8") as f:
        return set(re.findall(r"\$\{(\w+):-", f.read()))


@pytest.mark.parametrize("command", [c for c in all_commands() if how_checked(c) == "noted"],
                         ids=command_id)
def test_commands_that_are_not_run_name_scripts_and_options_that_exist(command):
    """要模型服务器、单独的 venv 或者量速度的命令测试不跑：它点名的本仓库的文件都在（--out 要写的
    文件不在仓库里，或者还没有、它的目录在：照页上的命令做不会盖掉提交的结果），.py 的选项是它的
    argparse 认的，.sh 前面设的环境变量是它读的。"""
    words = list(command.words)
    for previous, word in zip([None] + words, words):
        path = word.split("=", 1)[-1]
        # --out 后面是命令要写的文件：还没有才对，只要它的目录在
        written = os.path.dirname(path) if previous == "--out" else path
        assert not in_repo(path) or os.path.exists(os.path.join(ROOT, written)), word
        fresh = previous != "--out" or not os.path.exists(os.path.join(ROOT, path))
        assert fresh, f"{word} 已经在仓库里：照页上的命令做会盖掉它"
    scripts = [word for word in words if in_repo(word) and word.endswith((".py", ".sh"))]
    for script in scripts[:1]:
        after = words[words.index(script) + 1:]
        before = words[:words.index(script)]
        if script.endswith(".py"):
            options = {word.split("=", 1)[0] for word in after if word.startswith("-")}
            assert options <= argparse_options(os.path.join(ROOT, script)), options
        else:
            names = {word.split("=", 1)[0] for word in before if "=" in word}
            assert before[-1:] == ["bash"]
            assert names <= shell_variables(os.path.join(ROOT, script)), names


def test_git_worktrees_in_the_pages_sit_beside_the_repo_and_are_what_gets_measured():
    """量速度时检出的另一份在仓库旁边（不在仓库里），compare_checkouts.py 和它交替着量的正是它，
    量完删掉。"""
    commands = [list(c.words) for c in all_commands() if c.words[:2] == ("git", "worktree")]
    added = [words[3] for words in commands if words[2] == "add"]
    removed = [words[3] for words in commands if words[2] == "remove"]
    assert added and added == removed
    for path in added:
        assert path.startswith("../")
        compared = readme_command("tests/compare_checkouts.py", path)
        assert compared[compared.index(path) + 1] == "."


def test_plot_commands_are_ones_the_script_accepts():
    """讲义带 --plot 的命令：05 脚本的命令行（curves.plot_request）认得它们，
    幻灯片存在仓库根目录。"""
    plots = [list(c.words) for c in all_commands() if how_checked(c) == "plot"]
    assert plots
    for words in plots:
        files, _ = curves.plot_request(words[2:], load_script().SLIDES)
        assert {os.path.dirname(path) for path in files.values()} == {""}


def test_pytest_commands_name_test_files_that_exist():
    found = [list(c.words) for c in all_commands() if how_checked(c) == "pytest"]
    assert found
    for words in found:
        for before, word in zip(words[2:], words[3:]):
            named = os.path.join(ROOT, word)
            # -m "not slow"、-k 名字：选项的值不是文件
            value = before in ("-m", "-k")
            assert word.startswith("-") or word.isdigit() or value or os.path.exists(named), word


def test_page_commands_use_the_venv_python_and_paths_a_laptop_has():
    """系统的 python3 里没有 numpy（Debian 的 PEP 668 也不许往里装）：跑本仓库的 .py、pytest 的
    命令都用 .venv/bin/python，除非页上写明它要单独的 venv；python3 只用来建虚拟环境，讲义的
    .venv 只在 README 里建一次，别的 venv 在家目录下、用之前有建它的命令。
    路径不写这台机器才有的顶层文件夹。"""
    commands = all_commands()
    runs = [(command, program, args) for command in commands
            for program, args in interpreters(command.words)]
    venvs = [args[2] for _, program, args in runs if args[:2] == ["-m", "venv"]]
    assert {program for _, program, args in runs if args[:2] == ["-m", "venv"]} == {"python3"}
    assert venvs.count(".venv") == 1
    assert all(venv == ".venv" or venv.startswith("~/venv-") for venv in venvs)
    others = [(command, program, args) for command, program, args in runs
              if args[:2] != ["-m", "venv"]]
    assert {program for _, program, _ in others} <= {venv + "/bin/python" for venv in venvs}
    ours = [(command, program) for command, program, args in others if runs_our_code(args)]
    assert len(ours) >= 10
    for command, program in ours:
        assert program == ".venv/bin/python" or "要单独的 venv" in command.notes, command.text
    for command in commands:
        for word in command.words:
            path = word.split("=")[-1]
            assert not path.startswith(("/work", "/root", "/home")), command.text


@pytest.mark.slow
def test_files_the_page_commands_write_are_ignored_by_git():
    """--plot、--record 写在仓库里的文件（和 .venv）git status 里看不到。"""
    names = []
    for command in all_commands():
        words = list(command.words)
        names += [words[i + 1] for i, word in enumerate(words) if word in ("--plot", "--record")]
        # 05 脚本的 --plot 写的是那几张幻灯片（talk.png → talk_demo1.png……）
        if how_checked(command) == "plot":
            given = words[words.index("--plot") + 1]
            names += curves.slide_names(given, load_script().SLIDES).values()
    names = sorted(set(names)) + [".venv/bin/python"]
    assert len(names) >= 3
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
@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_pytest_without_xdist_runs_in_one_process():
    """-p no:xdist 时 pytest 不认 -n：pytest.ini 的 addopts 里要是有 -n，这里就停在用法错误上。"""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTEST_") and k != "ABLATIONS_TEST_RUNS"}
    one = "tests/test_readme.py::test_readme_python_snippets_paste_as_valid_python"
    command = [sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", one]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout and "workers" not in done.stdout


# —— 真模型那一页的消融表：就是 llm_ablations.py 印出来的那张 ——

def printed_tables(out):
    """llm_ablations.py（COLUMNS=1000，不折行）印出的每张表：每行按两个以上的空格切开。"""
    lines = out.splitlines()
    tables = []
    for first in [k for k, line in enumerate(lines) if line.startswith("-----")]:
        rows = []
        for line in lines[first + 1:]:
            if not line.strip() or line.startswith("（"):
                break
            rows.append(re.split(r"\s{2,}", line.strip()))
        tables.append(rows)
    return tables


def printed_observations(out):
    """llm_ablations.py 印出的观察（COLUMNS=1000 时一句一行），去掉编号。"""
    lines = out.splitlines()
    start = lines.index("观察：")
    return [re.sub(r"^\d+\. ", "", line) for line in lines[start + 1:] if line.strip()]


def page_table(text, heading, header):
    """页上 heading 那一节里以 header 开头的那张 markdown 表：每行的格子，去掉反引号（代码的记号）
    和秒数后面的 " s"。"""
    lines = section(text, heading).splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[head + 2:]:
        if not line.startswith("| "):
            return rows
        cells = [cell.strip().replace("`", "") for cell in line.strip("|").split("|")]
        rows.append([re.sub(r" s$", "", cell) for cell in cells])
    return rows


def page_bullets(text, heading, after):
    """页上 heading 那一节里 after 那句话之后的那串"- "：每条接成一行（去掉折行处的空白）。"""
    part = section(text, heading)
    lines = part[part.index(after):].splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("- "))
    items = []
    for line in lines[start:]:
        if line.startswith("- "):
            items.append(line[2:])
        elif line.startswith("  "):
            items[-1] += line.strip()
        else:
            return items
    return items


def without_spaces(text):
    return re.sub(r"\s+", "", text)


ABLATIONS = "## 真模型的消融：反馈表、进化、一处改动，各值多少"
RESAMPLING = "## 见过的程序再问：不让写代码的模型偷懒（`--resample`）"


@pytest.fixture(scope="module")
def ablations_printed():
    """llm_ablations.py 回放提交的录制印出的（COLUMNS=1000，不折行）。"""
    script = os.path.join(ROOT, "lecture14", "real_llm", "llm_ablations.py")
    proc = start_command([sys.executable, script], env={"COLUMNS": "1000"}, cwd=ROOT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    return out


@pytest.mark.slow
def test_the_real_model_tables_on_the_page_are_what_llm_ablations_prints(ablations_printed):
    """页上那两张表（消融表、每份请求换来了什么）的每个数都由上面那条命令印出（回放提交的录制），
    多一行少一行都不行。"""
    text = page("lecture14/real_llm/README.md")
    tables = printed_tables(ablations_printed)
    assert page_table(text, ABLATIONS, "| 提出者") == tables[0]
    assert page_table(text, RESAMPLING, "| 提出者 | 种子 | 请求") == tables[-1]


@pytest.mark.slow
def test_the_climbers_seeds_are_above_every_other_rows_best_as_the_page_says(ablations_printed):
    """"种群要不要"那段说随机改一处的爬山三个种子都高过表里任何一行最好的种子：训练、测试两列的
    最小–最大（印出的那张表）都得是这样，这句话才在页上。"""
    table = printed_tables(ablations_printed)[0]

    def ends(row, column):
        return [float(x) for x in row[column].split("–")]
    climber = next(row for row in table if row[0] == "随机改一处，爬山")
    others = [row for row in table if row is not climber]
    # 第 4、6 列是训练、测试的最小–最大
    for column in (3, 5):
        assert min(ends(climber, column)) > max(max(ends(row, column)) for row in others)
    said = "三个种子都高过同样随机改的进化循环"
    assert said in without_spaces(page("lecture14/real_llm/README.md"))


@pytest.mark.slow
def test_the_sentences_under_the_table_are_what_llm_ablations_prints(ablations_printed):
    """表下的那串句子就是脚本照数字写的那几句，一句不多、一句不少（折行的地方不算）。"""
    page_said = page_bullets(page("lecture14/real_llm/README.md"), ABLATIONS, "表下的几句话")
    printed = printed_observations(ablations_printed)
    assert [without_spaces(item) for item in page_said] == [without_spaces(s) for s in printed]


@pytest.mark.slow
def test_the_counts_the_page_quotes_are_recounted_from_the_recordings():
    """页上句子里引的录制里的计数（见过的程序、再问、交去评估的和父程序一样的、几个模型各分到
    多少，SmolLM2 的改动改了什么，Qwen 等了多久，同行框架的候选、失败的原因、我们的判定）：
    recount.py 从 .jsonl 回放着数、从同行存下的 JSON 里读，每一句原文都在页上（折行的地方不算）。"""
    import llm_ablations
    import recount
    runs, _ = llm_ablations.replayed_runs()
    counted = recount.recounts(runs) + recount.paragraph_phrases(runs) + recount.peer_phrases()
    assert len(counted) >= 20
    # 加粗的记号不算："**7 个回复变成了候选程序**"
    text = without_spaces(page("lecture14/real_llm/README.md")).replace("**", "")
    missing = [f"{name}：{phrase}" for name, phrase in counted
               if without_spaces(phrase) not in text]
    assert missing == []
    # "写代码的模型"一节那张回复的表：每个格子都是 recount 数的
    head, body = recount.reply_table(runs)
    coder = "## 写代码的模型：Qwen2.5-Coder 1.5B"
    assert page_table(page("lecture14/real_llm/README.md"), coder, "| | ") == body
    assert "| | " + " | ".join(head) + " |" in page("lecture14/real_llm/README.md")


@pytest.mark.slow
def test_demo_3s_paragraph_says_where_the_slides_bad_branch_really_applies(capsys):
    """lecture14/README.md 说演示 3 的幻灯片上那个坏分支管哪些形状：讲义的设置下跑演示 3，挑幻灯片
    画的那个程序（slides.pick_latent），从程序自己算。坏分支的规则写的 M 区间比它真管的宽时（前面的
    规则先接住了一段），页上说的是真管的那段，也说规则写的是什么。"""
    import slides
    from evolve import Shape, TimeTable, all_shapes, choose, split_shapes, static_valid
    script = load_script()
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    latent = script.demo3_branches(table, train, test)
    capsys.readouterr()
    extra = latent["extra"]
    picked = slides.pick_latent(latent["runs"], extra, table.hw)
    program = picked.program
    (m_lo, m_hi), _, (k_lo, _) = program.rules[picked.bad[0]].bounds
    # 坏分支的 K 里的一个新形状的层：M 从 1 到 16,384，哪些真走进了不能启动的配置
    n, k = next((s.N, s.K) for s in extra if s.K > k_lo)
    failing = [m for m in range(1, 16385)
               if not static_valid(choose(program, Shape("x", m, n, k)), table.hw)]
    lo, hi = failing[0] - 1, failing[-1]
    assert failing == list(range(lo + 1, hi + 1)) and (lo, hi) != (m_lo, m_hi)
    paragraph = " ".join(section(page("lecture14/README.md"), "## 三个演示在看什么").split())
    assert f"它管 K > {k_lo:,}、{lo} < M ≤ {hi} 的形状" in paragraph
    assert f"规则写的是 {m_lo} < M ≤ {m_hi}" in paragraph
