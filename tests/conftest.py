"""pytest 公共设置：把 lecture14/ 放进 sys.path，测试里可以直接 import evolve、fidelity；05 脚本整个跑两遍（同时跑）。"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14"))

import subprocess  # noqa: E402

import pytest  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lecture14", "05_alphaevolve_ablations.py")


@pytest.fixture(scope="session")
def script_runs():
    """05 脚本的 stdout，两种宽度各一遍，两个进程同时跑（2 核上不比跑一遍慢多少）。

    "piped"：重定向到管道时学生看到的样子（不是终端 → 100 列，表头折行），逐字节对照 tests/golden；
    "wide"：COLUMNS=1000，表格和观察都不换行，讲义故事逐行读数字用它。两遍都不加粗。
    """
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env["NO_COLOR"] = "1"
    procs = {name: subprocess.Popen([sys.executable, SCRIPT], env=dict(env, **extra), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, text=True)
             for name, extra in (("piped", {}), ("wide", {"COLUMNS": "1000"}))}
    out = {}
    for name, proc in procs.items():
        stdout, stderr = proc.communicate()
        assert proc.returncode == 0, stderr
        out[name] = stdout
    return out


@pytest.fixture(scope="session")
def script_stdout(script_runs):
    """学生把输出重定向到文件或管道时看到的 stdout（100 列）。"""
    return script_runs["piped"]


@pytest.fixture(scope="session")
def wide_stdout(script_runs):
    """不换行的 stdout：每个表格一行表头，每条观察一行。"""
    return script_runs["wide"]


@pytest.fixture()
def serve():
    """serve(script) 起一个 ScriptedServer；serve(behave, RawServer)、serve(目录, PlainServer) 起别的（见 servers.py）。
    测试结束时都关掉。"""
    from servers import ScriptedServer
    servers = []

    def start(arg, kind=ScriptedServer):
        servers.append(kind(arg))
        return servers[-1]
    yield start
    for s in servers:
        s.close()


@pytest.fixture()
def nobody_listens():
    """一个没人听的地址：绑一个随机端口再关掉（连它是 Connection refused）。"""
    import socket
    with socket.create_server(("127.0.0.1", 0)) as s:
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
