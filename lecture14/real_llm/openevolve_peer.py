"""
=============================================================================
CS349E · 第 14 讲 · lecture14/real_llm/openevolve_peer.py —— 同一个任务交给 OpenEvolve，并排比一比
=============================================================================

OpenEvolve（PyPI openevolve，0.4.x）是 AlphaEvolve 用得最多的开源实现。这里像一个用户那样用它：
讲义的评估器当它的评估器，专家程序当初始程序，提示里的任务（搜索空间、硬件上限）当它的
system message；同样的模型、温度（0.8）和预算。它有两种要法，都跑：
  --mode diff（它的默认）：要 SEARCH/REPLACE 的 diff；
  --mode full：每次要整个程序。
评估器（本文件的 evaluate，OpenEvolve 在它的工作进程里调用）：parse_program 只读源码（从不执行）、
每个分支的静态检查、训练形状上的分数；我们的反馈表作为 OpenEvolve 的 artifact 交回去，它的提示
看得到我们的提示看到的东西。测试形状上的分数只在最后算，OpenEvolve 看不到。
打印和 evolve_with_llm.py 一样的列：训练、测试、多少回复变成了程序、多少进了它的数据库；
结果另存成 JSON（lecture14/real_llm/llm_ablations.py 读它，和录制一起排进一张表）。

OpenEvolve 不是本项目的依赖，装在它自己的 venv 里（约 30 秒）：
    python3 -m venv ~/venv-openevolve
    ~/venv-openevolve/bin/pip install openevolve numpy
先开着 SmolLM2 的服务器（本目录 README.md 的 SmolLM2 一节；一个服务器一次只给一个客户端用），再：
    ~/venv-openevolve/bin/python lecture14/real_llm/openevolve_peer.py \\
        --base-url http://127.0.0.1:8765/v1 \\
        --model SmolLM2-135M-Instruct --mode diff --iterations 100 --seed 0 \\
        --out /tmp/openevolve_diff_seed0.json
开跑之前先查：这个 Python 里有没有 OpenEvolve、服务器连不连得上、--out 的文件在不在（在就不跑，
除非 --force），错了都只说一句。
"""
import asyncio
import collections
import functools
import importlib.util
import json
import logging
import os
import re
import socket
import sys
import tempfile
import time
from dataclasses import dataclass

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
from console import (print_header, print_message, print_table, printable,  # noqa: E402
                     stops_cleanly)
from checks import COUNT, POSITIVE_INT, OneSentenceParser, problem  # noqa: E402
from evolve import (EXPERT, H100, Evaluator, TimeTable, all_shapes, geomean_speedup,  # noqa: E402
                    render, split_shapes, static_check_program)
from transport import parse_base_url  # noqa: E402
from prompt import (SYSTEM, TASK, feedback_table, limits_text, program_from_code,  # noqa: E402
                    search_space_text)

# 评估器读的源码最多这么长（OpenEvolve 自己的上限是 10,000 个字符）
MAX_SOURCE = 100_000
# 工作进程把每次评估的结论追加到这个环境变量指的文件里，一次一行 JSON：主进程最后数
LOG_VARIABLE = "CS349E_OPENEVOLVE_LOG"
# 每种要法的回复最多几个 token：和 evolve_with_llm 的整个程序一样（SEARCH/REPLACE 也得抄原文）
MAX_TOKENS = 1024
# 和录制一样的温度
TEMPERATURE = 0.8
# OpenEvolve 记下的失败的一轮，例如
# 'Iteration 7 error [diff]: No valid diffs found in response | tokens…'
ITERATION_ERROR = re.compile(r"Iteration \d+ error(?: \[\w+\])?: (.*?)(?: \| tokens.*)?$")


# ==== 1. 评估器：OpenEvolve 的工作进程 import 本文件，调用 evaluate(程序的路径) =================

@functools.lru_cache(maxsize=1)
def lecture():
    """讲义的计时表、训练和测试形状、评估器。每个进程建一次：评估器记着见过的最快配置，
    反馈表的 vs_best 靠它。"""
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    return table, train, test, Evaluator(train, table)


def judge_source(source):
    """一段源码 → (结论, 说明, 训练分数)。结论是 evolve_with_llm 的说法（ok、syntax_error、
    outside_subset、outside_space），或分支检查的 bad_branch、训练形状上启动不了的 crash。
    分数按 OpenEvolve 的习惯越大越好，不合格的是 0。"""
    table, _, _, ev = lecture()
    reading = program_from_code(source)
    if reading.result != "ok":
        return reading.result, reading.detail, 0.0
    launches, problems = static_check_program(source, table.hw)
    if not launches:
        return "bad_branch", "；".join(problems), 0.0
    verdict = ev.judge(reading.program)
    if verdict.rejection is not None:
        return verdict.rejection, "", 0.0
    return "ok", feedback_table(ev.feedback(reading.program, verdict.score)), verdict.score


def judge_file(program_path, log_variable=LOG_VARIABLE):
    """一个程序文件 → (结论, 交回提出者的反馈, 分数)；结论追加进 log_variable 指的文件。
    源码只读、从不执行。shinka_peer.py 的评估也用它。"""
    with open(program_path, encoding="utf-8", errors="replace") as f:
        source = f.read(MAX_SOURCE)
    verdict, detail, score = judge_source(source)
    log = os.environ.get(log_variable)
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps({"verdict": verdict, "score": score}) + "\n")
    if verdict == "ok":
        shown = "Per-shape feedback on the training shapes:\n" + detail
    else:
        shown = f"The program was rejected ({verdict}): {detail}"
    return verdict, shown, score


def evaluate(program_path):
    """OpenEvolve 的评估函数：分数进 metrics（combined_score），反馈表或不合格的原因进
    artifacts。"""
    from openevolve.evaluation_result import EvaluationResult
    _, shown, score = judge_file(program_path)
    return EvaluationResult(metrics={"combined_score": score}, artifacts={"feedback": shown})


# ==== 2. 一次运行：OpenEvolve 的设置、跑、数结果 ================================================

def system_message():
    """我们提示里不变的那部分：角色、任务、搜索空间、硬件上限、源码的子集。"""
    task = TASK.format(hw=H100, space=search_space_text(), limits=limits_text(H100))
    # 去掉我们要的回复格式（一个 python 代码块）：OpenEvolve 在用户消息里自己说要什么格式
    return SYSTEM.replace("You answer with exactly one ```python code block.", "").strip() + \
        "\n\n" + task.strip()


def openevolve_config(args):
    """像用户写的 YAML 一样的设置：一个模型、温度 0.8、一个评估进程（一个服务器一次只答一个）。"""
    from openevolve import Config
    return Config.from_dict({
        "max_iterations": args.iterations, "random_seed": args.seed, "log_level": "WARNING",
        "diff_based_evolution": args.mode == "diff",
        "llm": {"api_base": args.base_url, "api_key": "not-needed",
                "models": [{"name": args.model, "weight": 1.0}], "temperature": TEMPERATURE,
                "max_tokens": MAX_TOKENS, "timeout": args.timeout, "retries": 1},
        "prompt": {"system_message": system_message()},
        "database": {"random_seed": args.seed},
        "evaluator": {"parallel_evaluations": 1, "cascade_evaluation": False, "timeout": 60},
    })


def reason_key(reason):
    """一条失败原因按什么归类：数字换成 N（"2 个 SEARCH 块"和"1 个"算一类），最多 80 个字符。"""
    return re.sub(r"\d+", "N", reason)[:80]


class FailedIterations(logging.Handler):
    """数 OpenEvolve 记下的失败的一轮（没有可用的 diff、重写和父程序一样……），按原因。"""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.reasons = {}

    def emit(self, record):
        m = ITERATION_ERROR.match(record.getMessage())
        if m:
            reason = reason_key(m.group(1))
            self.reasons[reason] = self.reasons.get(reason, 0) + 1


def evaluated_verdicts(log):
    """评估进程记下的每个候选程序的结论；第一次评估是初始程序，不算。"""
    with open(log, encoding="utf-8") as f:
        return [json.loads(line)["verdict"] for line in f][1:]


def saved_result(args, verdicts, failed, in_database, best_source, seconds):
    """一次运行存成 JSON 的那些键（两个同行脚本一样）。跑了几轮：每轮要么变成候选程序，要么
    记下一条失败；Ctrl-C 或 kill 时框架停在这一轮、照样交回最好的程序，这时少于要的轮数。"""
    return {"mode": args.mode, "seed": args.seed,
            "iterations": len(verdicts) + sum(failed.values()),
            "model": args.model, "temperature": TEMPERATURE, "max_tokens": MAX_TOKENS,
            "candidates": len(verdicts), "verdicts": dict(collections.Counter(verdicts)),
            "in_database": in_database, "failed_iterations": failed,
            "best_source": best_source, "seconds": round(seconds, 1)}


def run(args, workdir):
    """跑一次 OpenEvolve，返回要存的结果。"""
    from openevolve import EvolutionFailedError, OpenEvolve
    initial = os.path.join(workdir, "initial_program.py")
    with open(initial, "w", encoding="utf-8") as f:
        f.write(render(EXPERT))
    log = os.path.join(workdir, "evaluations.jsonl")
    os.environ[LOG_VARIABLE] = log
    failed = FailedIterations()
    logging.getLogger("openevolve").addHandler(failed)
    start = time.monotonic()
    controller = OpenEvolve(initial_program_path=initial, evaluation_file=os.path.abspath(__file__),
                            config=openevolve_config(args), output_dir=workdir)
    try:
        best_source = asyncio.run(controller.run(iterations=args.iterations)).code
    except EvolutionFailedError:
        # 一轮也没有变成候选程序时 OpenEvolve 抛这个：最好的还是初始程序
        best_source = render(EXPERT)
    seconds = time.monotonic() - start
    # 它的数据库里第一个是初始程序
    return saved_result(args, evaluated_verdicts(log), failed.reasons,
                        len(controller.database.programs) - 1, best_source, seconds)


# ==== 3. 和我们的表一样的列 =====================================================================

def scores(source):
    """最好的程序在训练、测试形状上的分数（相对专家程序）；不合格的是 None。"""
    table, train, test, _ = lecture()
    reading = program_from_code(source)
    if reading.result != "ok" or not static_check_program(source, table.hw)[0]:
        return None, None
    return geomean_speedup(reading.program, train, table), geomean_speedup(reading.program, test,
                                                                           table)


def parsed(result):
    """候选程序里解析成了程序的几个（分支检查没过的也算：它们解析成了程序）。"""
    unparsed = ("syntax_error", "outside_subset", "outside_space")
    return result["candidates"] - sum(result["verdicts"].get(k, 0) for k in unparsed)


def peer(result):
    """哪个框架跑的：shinka_peer.py 存的结果记着 "peer"，这里存的没有，就是 OpenEvolve。"""
    return result.get("peer", "OpenEvolve")


def row(result):
    """一次运行的一行：训练、测试、解析成程序的、过检查的、进库的、每轮秒数。"""
    train, test = scores(result["best_source"])
    n_parsed = parsed(result)
    checked = n_parsed - result["verdicts"].get("bad_branch", 0)
    per = result["seconds"] / result["iterations"]
    return [f"{peer(result)} {result['mode']}", f"{train:.3f}", f"{test:.3f}", n_parsed, checked,
            result["in_database"], f"{per:.1f}"]


COLUMNS = ["提出者", ("训练", "分数"), ("测试", "分数"), "解析", "过检查", "进库", "每轮 s"]


def show(result):
    n = result["iterations"]
    title = f"{peer(result)}（{result['mode']}）+ {result['model']}：{n} 轮，种子 {result['seed']}"
    print_header(title)
    print_table(COLUMNS, [row(result)])
    print(f"变成候选程序的回复：{result['candidates']} / {n}")
    # 候选程序在我们的评估器里的结论（ok 以外都是 0 分），和没变成候选的那些轮为什么
    for verdict, count in sorted(result["verdicts"].items(), key=lambda kv: -kv[1]):
        print(printable(f"  候选程序：{verdict}（{count} 个）"))
    for reason, count in sorted(result["failed_iterations"].items(), key=lambda kv: -kv[1]):
        print(printable(f"  没变成候选：{reason}（{count} 次）"))


def parse_args(argv):
    ap = OneSentenceParser(description="在讲义的评估器上跑 OpenEvolve（见文件开头）")
    # 这两个只有真跑时才要（--show 不联网）：见 main
    ap.add_argument("--base-url", help="OpenAI 兼容的地址，例如 http://127.0.0.1:8765/v1")
    ap.add_argument("--model", help="模型名，例如 SmolLM2-135M-Instruct")
    ap.add_argument("--mode", choices=("diff", "full"), default="diff",
                    help="diff：SEARCH/REPLACE（OpenEvolve 的默认）；full：整个重写")
    ap.add_argument("--iterations", type=int, default=100,
                    help="轮数（默认 100，和录制的预算一样）")
    ap.add_argument("--seed", type=int, default=0, help="随机种子（默认 0）")
    ap.add_argument("--timeout", type=int, default=300, help="一次调用的截止秒数（默认 300）")
    add_output_arguments(ap)
    return ap.parse_args(argv)


def add_output_arguments(ap):
    """两个同行脚本都有的：存到哪、覆不覆盖、只看存过的。"""
    ap.add_argument("--out", help="结果存成这个 JSON 文件（已经有了就不跑、不覆盖，除非 --force）")
    ap.add_argument("--force", action="store_true", help="--out 的文件已经有了也覆盖它")
    ap.add_argument("--show", metavar="JSON", help="不跑，只把存过的结果打印出来")


@dataclass(frozen=True)
class Peer:
    """一个同行框架：名字、它的 Python 包、装它的 venv 和要装的包（它不是本项目的依赖）。"""
    name: str
    package: str
    venv: str
    install: str


OPENEVOLVE = Peer("OpenEvolve", "openevolve", "~/venv-openevolve", "openevolve numpy")
# 连服务器的截止秒数：本机的服务器连得上就是一瞬间
CONNECT_SECONDS = 5


def unreachable(base_url):
    """连不上 base_url 的主机和端口时是那一句说明（连接被拒、超时……），连得上是 None。
    框架自己的客户端连不上时要一轮轮重试下去（OpenEvolve 约 10 分钟），所以开跑之前先连一次。"""
    origin = parse_base_url(base_url)
    try:
        socket.create_connection((origin.host, origin.port), timeout=CONNECT_SECONDS).close()
    except OSError as e:
        return e.strerror or type(e).__name__
    return None


# 两个同行脚本的数：旗标、args 的属性（这个脚本没有的不查）、应是哪种值（checks 的说法）
NUMBER_FLAGS = (("--iterations", "iterations", POSITIVE_INT),
                ("--generations", "generations", POSITIVE_INT),
                ("--seed", "seed", COUNT), ("--timeout", "timeout", POSITIVE_INT))


def problem_before_running(args, peer):
    """开跑之前就看得出的问题，一句话：缺 --base-url、--model，轮数这样的数不对，--out 已经有了
    或者它的目录不在（跑完一两个小时才发现存不进去就晚了），这个 Python 里没有这个框架（说该建
    哪个 venv），服务器连不上。没问题是 None。"""
    if not (args.base_url and args.model):
        return (f"要跑 {peer.name} 得给 --base-url 和 --model；"
                "只看存过的结果用 --show 文件。")
    for flag, name, kind in NUMBER_FLAGS:
        slip = problem(flag, getattr(args, name, 1), kind)
        if slip:
            return slip + "。"
    if args.out and os.path.exists(args.out) and not args.force:
        return (f"--out {args.out} 已经有了：不覆盖存过的结果。换一个文件名，"
                "或者加 --force 覆盖它。")
    folder = os.path.dirname(os.path.abspath(args.out or "."))
    if not os.path.isdir(folder):
        return f"--out {args.out}：目录 {folder} 不存在，结果存不进去。"
    if importlib.util.find_spec(peer.package) is None:
        script = os.path.basename(sys.argv[0])
        return (f"{script} 要 {peer.name}，这个 Python（{sys.executable}）里没有。"
                f"它装在自己的 venv 里：\n  python3 -m venv {peer.venv} && "
                f"{peer.venv}/bin/pip install {peer.install}\n再用 {peer.venv}/bin/python 运行。")
    try:
        refused = unreachable(args.base_url)
    except ValueError as e:
        return str(e)
    if refused:
        return (f"连不上 {args.base_url}（{refused}）：模型服务器开着吗？地址对吗，"
                "是不是以 /v1 结尾（例如 http://127.0.0.1:8767/v1）？")
    return None


# 存下的结果里 show 要读的键（shinka_peer.py 存的还多一个 "peer"）
SAVED_KEYS = ("best_source", "candidates", "failed_iterations", "in_database", "iterations",
              "mode", "model", "seconds", "seed", "verdicts")


def load_saved(path):
    """--show 的文件 → 存下的结果；打不开、不是 JSON、不是同行脚本存的结果时 ValueError，一句话。"""
    try:
        with open(path, encoding="utf-8") as f:
            result = json.load(f)
    except OSError as e:
        raise ValueError(f"--show {path}：打不开（{e.strerror or e}）。") from None
    except (ValueError, RecursionError) as e:
        raise ValueError(f"--show {path}：不是一个 JSON 文件（{e}）。") from None
    missing = [key for key in SAVED_KEYS if not isinstance(result, dict) or key not in result]
    if missing:
        raise ValueError(f"--show {path}：不是 openevolve_peer.py、shinka_peer.py 存下的结果"
                         f"（没有 {'、'.join(missing)}）。")
    return result


def show_or_run(args, peer, run_in):
    """两个同行脚本共用的 main：--show 只打印存过的结果；否则先查开跑前就看得出的问题
    （problem_before_running），再在临时目录里 run_in(args, 目录) 跑一次，存成 --out，打印。"""
    if args.show:
        try:
            result = load_saved(args.show)
        except ValueError as e:
            print_message(str(e), file=sys.stderr)
            return 2
        show(result)
        return 0
    problem = problem_before_running(args, peer)
    if problem:
        print_message(problem, file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix=f"{peer.package}_peer_") as workdir:
        result = run_in(args, workdir)
    if args.out:
        with open(args.out, "w" if args.force else "x", encoding="utf-8") as f:
            json.dump(result, f, ensure_ascii=False, indent=1, sort_keys=True)
            f.write("\n")
    show(result)
    return 0


def main(argv=None):
    return show_or_run(parse_args(argv), OPENEVOLVE, run)


if __name__ == "__main__":
    # Ctrl-C、… | head、写不下中文的终端：一行说明或安静退出
    with stops_cleanly():
        sys.exit(main())
