"""
=============================================================================
CS349E · 第 14 讲 · evolve_with_llm.py —— 同一个进化循环，换成真的语言模型
=============================================================================

    python3 lecture14/real_llm/evolve_with_llm.py --base-url http://127.0.0.1:8000/v1 --model NAME
            [--budget 50] [--seed 0] [--edit diff] [--grammar] [--parallel K] [--record FILE]
            [--no-context] [--no-evolution] [--meta-prompt] [--resample N]
    python3 lecture14/real_llm/evolve_with_llm.py --replay FILE

真模型（llm.ChatLLM，OpenAI 兼容的 chat API）和三个对照各跑一次 evolve：随机改一处
（RandomEdits，没有知识也不看反馈）、MockLLM(knowledge=False) 和 MockLLM()。同样的预算、种子、
评估器、级联、分支检查、岛屿和并发。打印对比表、模型的回复各是什么结果、最好的程序，再用一句话
说模型比随机改好不好。进度打到 stderr，一个提案一行。
--edit diff 只要模型写一处改动（edits.py：短提示、短回复），默认 full 要整个程序；
--grammar 让服务器按语法约束解码；--parallel K 同时发 K 个请求，结果和回复到达的先后无关。
AlphaEvolve 的两个消融：--no-context 给模型的提示里没有反馈表（只用于 --edit diff）；
--no-evolution 每个提案都从专家程序改，模型和三个对照都是。第五个，--meta-prompt：提示里的
几行说明由模型自己每隔一段预算改写一次（instructions.py、evolve.py 的提示数据库），只给模型：
三个对照照常（随机改动不照说明做）。
--resample N（只用于 --edit diff）：回复写的是这次运行见过的程序（父程序、数据库里的程序）时不再
评估，带上回复和一句话再问，最多再问 N 次（llm.py 的 UNCHANGED_NOTE）。预算是模型的请求数：
--budget 个请求用完就停，和对照比的是同样多的请求（对照一个提案就是一个"请求"）。

--record FILE 第 1 行存这次的设置，之后每次调用一行 JSON；--replay FILE 只凭这个文件重放，
不联网，stdout 和录制时一字不差。所以表里的秒数是**等模型的秒数**：录制时测的、存进文件，
回放时照原样读出。引擎自己的用时每次都不同，只打到 stderr。
第一次调用之前先把参数、地址、录制文件都检查一遍；连续几次连不上就停下来说可能是哪里错了；
一次回复都没拿到时退出码是 1。
【依赖】numpy；../ 的 evolve，本目录的 llm 和它用的几个模块；../../lecture01 的 console。
"""
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, ".."), os.path.join(HERE, "..", "..", "lecture01")]
# 没装 numpy 时只说一句怎样装（lecture14/needs_numpy.py）
import needs_numpy  # noqa: F401,E402
from evolve import (EXPERT, OUTCOMES, Evaluator, MockLLM, Program, TimeTable,  # noqa: E402
                    all_shapes, evolve, geomean_speedup, render, simplify, split_shapes)
from checks import (COUNT, POSITIVE_INT, POSITIVE_NUMBER, OneSentenceParser,  # noqa: E402
                    choice_problem, number_between, problem)
from llm import RESULTS, ChatLLM, ChatEnsemble, from_transcript  # noqa: E402
from compare import ABOVE, BELOW, ONE_SEED, verdict  # noqa: E402
from random_edits import RandomEdits  # noqa: E402
from transcripts import EDIT_MODES, SWITCHES, UNRECORDED_EDIT, ChatError  # noqa: E402
from transport import CALL_FAILURES  # noqa: E402
from linebreak import wrap_plain  # noqa: E402
from console import (Progress, clip, print_header, print_message,  # noqa: E402
                     print_observations, print_paragraph, print_table, printable, stops_cleanly,
                     terminal_columns)

# 没在命令行给、回放文件里也没记的设置用这些
# （edit 和开关 grammar、context、evolution 的默认在 transcripts 里：较早的录制里没记它们）
DEFAULTS = {"budget": 50, "seed": 0, "max_tokens": 1024, "temperature": 0.8,
            "edit": UNRECORDED_EDIT, "parallel": 1, "weights": None, "bandit": False, "resample": 0,
            **SWITCHES}
# 交给 evolve 的那几个设置（除了 meta_prompt，模型和三个对照都一样）
LOOP_SETTINGS = ("budget", "seed", "parallel", "evolution", "meta_prompt")
KEY_RULE = ("密钥只发给 --base-url 那个地址，重定向一律不跟。https 的地址自动用环境变量 "
            "OPENAI_API_KEY；http 的地址（本机、局域网里的服务器）不用它，要密钥就用 "
            "--api-key-env 变量名 明说。")


def parse_args(argv):
    what = "用真的语言模型跑迷你 AlphaEvolve，和随机改一处、MockLLM 对比。"
    ap = OneSentenceParser(description=what, epilog=KEY_RULE)
    recorded = "回放时照录制的"
    ap.add_argument("--base-url", action="append",
                    help="OpenAI 兼容 API 的地址，一般以 /v1 结尾，例如 http://127.0.0.1:8000/v1"
                         "（几个模型各在一个服务器上时，按 --model 的顺序各给一个）")
    ap.add_argument("--model", action="append",
                    help="模型名（回放时不用给：录制文件第 1 行记着）；给几次就是几个模型一起提出"
                         "（AlphaEvolve 的模型组合）")
    ap.add_argument("--weights", metavar="W1,W2",
                    help="几个模型时，每个模型分到提案的比例，例如 4,1"
                         "（默认一样多；回放时照录制的）")
    ap.add_argument("--bandit", action="store_const", const=True,
                    help="几个模型时不用固定比例，按 UCB1 把提案多给子程序常进步的模型"
                         "（ShinkaEvolve 的做法）")
    ap.add_argument("--budget", type=int,
                    help=f"模型的请求数，也是提案数的上限：一个提案一个请求，--resample 时再问的"
                         f"也算（默认 {DEFAULTS['budget']}；{recorded}）")
    ap.add_argument("--seed", type=int, help=f"随机种子（默认 {DEFAULTS['seed']}；{recorded}）")
    ap.add_argument("--max-tokens", type=int,
                    help=f"每次回复最多几个 token（默认 {DEFAULTS['max_tokens']}；{recorded}）")
    ap.add_argument("--temperature", type=float,
                    help="采样温度，0 是每次都取最可能的 token"
                         f"（默认 {DEFAULTS['temperature']}；{recorded}）")
    ap.add_argument("--edit", metavar="MODE",
                    help="full：要整个程序（默认）；diff：只要一处改动，提示和回复都短得多"
                         f"（{recorded}）")
    ap.add_argument("--grammar", action="store_const", const=True,
                    help="请求里带上 GBNF 语法（约束解码：llama.cpp 的 llama-server、"
                         "llama-cpp-python 认这个字段）")
    ap.add_argument("--parallel", type=int, metavar="K",
                    help=f"同时发 K 个请求（默认 {DEFAULTS['parallel']}；vLLM、云上的 API "
                         f"才值得开大；{recorded}）")
    ap.add_argument("--no-context", dest="context", action="store_const", const=False,
                    help="提示里不要反馈表（AlphaEvolve 的 No context in the prompt；"
                         "只用于 --edit diff）")
    ap.add_argument("--no-evolution", dest="evolution", action="store_const", const=False,
                    help="不进化：每个提案都从专家程序改，三个对照也一样"
                         "（AlphaEvolve 的 No evolution）")
    ap.add_argument("--meta-prompt", dest="meta_prompt", action="store_const", const=True,
                    help="提示里的说明由模型自己每隔一段预算改写一次（AlphaEvolve 的 meta prompt "
                         "evolution；只用于一个模型，三个对照照常）")
    ap.add_argument("--resample", type=int, metavar="N",
                    help="回复写的是这次运行见过的程序时，带上回复和一句话再问，最多再问 N 次"
                         f"（只用于 --edit diff；默认 0 不再问；{recorded}）")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="一次调用（连接、等待、收完回复）的截止秒数（默认 300：CPU 上的模型很慢）")
    ap.add_argument("--api-key-env", metavar="NAME", help="密钥在这个环境变量里（http 的地址也发）")
    ap.add_argument("--record",
                    help="录到这个文件：第 1 行是设置，之后每次调用一行（文件不能已经存在）")
    ap.add_argument("--replay", help="照这个录制文件回放，不联网；设置都从它来")
    return ap.parse_args(argv)


# 命令行里的数：旗标、args 的属性、应是哪种值（checks 的说法）。没给的（None）不查
NUMBER_FLAGS = (("--budget", "budget", POSITIVE_INT), ("--max-tokens", "max_tokens", POSITIVE_INT),
                ("--timeout", "timeout", POSITIVE_NUMBER), ("--parallel", "parallel", POSITIVE_INT),
                ("--seed", "seed", COUNT), ("--temperature", "temperature", number_between(0, 2)),
                ("--resample", "resample", COUNT))


def _mode_problem(args):
    """联网还是回放：两个只能选一个，回放不用地址和密钥，联网要地址和模型名。"""
    if args.record and args.replay:
        return "--record 和 --replay 只能选一个：录制时联网，回放时不联网"
    if args.replay and (args.base_url or args.api_key_env):
        return "回放不联网：不用给 --base-url 和 --api-key-env"
    if not args.replay and not (args.base_url and args.model):
        return "要么给 --base-url 和 --model（连一个模型服务器），要么给 --replay（回放录好的文件）"
    urls, models = args.base_url or [], args.model or []
    if len(urls) > 1 and len(urls) != len(models):
        return (f"给了 {len(urls)} 个 --base-url、{len(models)} 个 --model：一个地址给所有模型，"
                "或者每个模型一个地址")
    return None


def _ensemble_problem(args):
    """--weights、--bandit 只用于几个模型（回放时模型的个数由文件定），两个只能选一个。"""
    if args.weights is not None and args.bandit:
        return "--weights 和 --bandit 只能选一个：固定比例，或者按 UCB1 挑"
    several = args.replay or len(args.model or []) > 1
    for flag, given in (("--weights", args.weights), ("--bandit", args.bandit)):
        if given is not None and not several:
            return f"{flag} 只用于几个模型一起提出：--model 给两次以上"
    if args.meta_prompt and len(args.model or []) > 1:
        return "--meta-prompt 只用于一个模型：几个模型一起时，谁来改写说明没有定义"
    if args.weights is not None:
        try:
            parsed_weights(args.weights)
        except ValueError as e:
            return str(e)
    return None


def parsed_weights(text):
    """--weights 4,1 → [4.0, 1.0]；写错时 ValueError，一句话。"""
    try:
        weights = [float(w) for w in text.split(",")]
    except ValueError:
        weights = []
    if not weights or not all(POSITIVE_NUMBER.test(w) for w in weights):
        raise ValueError(f"--weights 必须是逗号隔开的有限正数（例如 4,1），收到 {text!r}")
    return weights


def _key_problem(args):
    if args.api_key_env and not os.environ.get(args.api_key_env):
        return f"环境变量 {args.api_key_env} 是空的：--api-key-env 说密钥在它里面"
    return None


def _edit_problem(args):
    """--edit 是不是认得的要法；--no-context、--resample 只有一处改动的提示才有（回放时由文件定）。
    """
    slip = None if args.edit is None else choice_problem("--edit", args.edit, EDIT_MODES)
    if slip:
        return slip
    if args.context is False and not args.replay and args.edit != "diff":
        return "--no-context 只用于 --edit diff：整个程序的提示没有去掉反馈表的变体"
    if args.resample and not args.replay and args.edit != "diff":
        return "--resample 只用于 --edit diff：再问的那句话说的是一行改动"
    return None


def problem_with(args):
    """命令行参数的问题，一句话；没问题是 None。先查每个数和 --edit，再查联网还是回放、密钥。"""
    given = ((flag, getattr(args, name), kind) for flag, name, kind in NUMBER_FLAGS)
    numbers = (problem(flag, value, kind) for flag, value, kind in given if value is not None)
    first = next((p for p in numbers if p), None)
    slips = (_edit_problem, _mode_problem, _ensemble_problem, _key_problem)
    return first or next(filter(None, (slip(args) for slip in slips)), None)


# 回放时命令行可以再给一遍、但必须和录制时一样的设置：旗标、设置的名字
REPLAYED = (("--model", "model"), ("--weights", "weights"), ("--bandit", "bandit"),
            ("--budget", "budget"), ("--seed", "seed"),
            ("--max-tokens", "max_tokens"), ("--temperature", "temperature"),
            ("--grammar", "grammar"), ("--edit", "edit"), ("--parallel", "parallel"),
            ("--no-context", "context"), ("--no-evolution", "evolution"),
            ("--meta-prompt", "meta_prompt"), ("--resample", "resample"))


def recorded_models(settings):
    """录制的是哪几个模型（名字的列表）：一个模型记 model，几个模型记 members。"""
    members = settings.get("members") or [settings]
    return [member["model"] for member in members]


def _shown(value):
    """一个设置照命令行的写法：列表用逗号连起来（--weights 4,1），数去掉多余的 .0。"""
    if isinstance(value, list):
        return ",".join(map(_shown, value))
    return f"{value:g}" if isinstance(value, float) else str(value)


def replay_mismatch(args, settings):
    """命令行给了、又和录制文件第 1 行记的不一样的设置：一句话，说的是哪个设置；都一样是 None。
    没记的设置是默认值（较早的录制没有 context、evolution）。模型比的是名字的列表，
    --weights 比的是数的列表。"""
    recorded_settings = {**settings, "model": recorded_models(settings)}
    for flag, name in REPLAYED:
        given = getattr(args, name)
        if given is not None and name == "weights":
            given = parsed_weights(given)
        recorded = recorded_settings.get(name, DEFAULTS.get(name))
        if given is None or given == recorded:
            continue
        # 不带值的旗标（--grammar、--no-context……）给了就是开，不一样只能是录制时没开
        if isinstance(given, bool):
            recorded_as = f"录制时没有用 {flag}"
        elif recorded is None:
            recorded_as = f"录制时没有用 {flag}"
        else:
            recorded_as = f"录的是 {flag} {_shown(recorded)}，命令行给的是 {_shown(given)}"
        return f"回放文件 {args.replay} {recorded_as}：回放时去掉 {flag}，照录制时的设置跑"
    return None


def start(args):
    """检查命令行、建好 ChatLLM，都在第一次调用之前：→ (chat, loop)。loop 是交给 evolve 的
    预算、种子、并发数和进不进化，模型和三个对照都一样。任何问题都是 ValueError，一句话。"""
    slip = problem_with(args)
    if slip:
        raise ValueError(slip)
    settings = {}
    if args.replay:
        chat = from_transcript(args.replay)
        settings = chat.settings
        slip = replay_mismatch(args, settings)
        if slip:
            raise ValueError(slip)

    def setting(name):
        given = getattr(args, name)
        return given if given is not None else settings.get(name, DEFAULTS[name])
    loop = {name: setting(name) for name in LOOP_SETTINGS}
    if not args.replay:
        api_key = os.environ[args.api_key_env] if args.api_key_env else None
        asked = {"max_tokens": setting("max_tokens"), "temperature": setting("temperature"),
                 "grammar": setting("grammar"), "edit": setting("edit"),
                 "context": setting("context"), "resample": setting("resample"),
                 "timeout": args.timeout, "record": args.record,
                 "api_key": api_key, "run": loop}
        urls = args.base_url * len(args.model) if len(args.base_url) == 1 else args.base_url
        if len(args.model) == 1:
            chat = ChatLLM(urls[0], args.model[0], **asked)
        else:
            weights = None if args.weights is None else parsed_weights(args.weights)
            chat = ChatEnsemble(list(zip(urls, args.model)), weights=weights,
                                bandit=bool(args.bandit), **asked)
    return chat, loop


def say(text):
    """stderr 上说一句；里面可能有服务器、模型或文件名带来的控制字符，先去掉。
    在终端上（或者设了 COLUMNS）按它的宽度换行；重定向到文件、管道时一句一行，
    好让别的程序整句读。"""
    text = printable(text)
    if sys.stderr.isatty() or os.environ.get("COLUMNS"):
        print_message(text, file=sys.stderr)
    else:
        print(text, file=sys.stderr)
    sys.stderr.flush()


class CountingEvaluator(Evaluator):
    """记下这次运行交来评估的每个不同的程序（.judged）：回复写的是见过的程序、不再评估时，
    评估器就没见到它。"""

    def __init__(self, train, table):
        super().__init__(train, table)
        self.judged = set()

    def judge(self, child, parent=None):
        if isinstance(child, Program):
            self.judged.add(child)
        return super().judge(child, parent)


def run(llm, loop, train, test, table, on_proposal):
    """跑一次 evolve（loop：预算、种子、并发数、进不进化、说明由不由模型改写；on_proposal 是
    每个提案之后调用的 report），返回表里要的数。写说明那几份预算（meta prompt）不是提案。
    请求：提案和写说明一共问了模型几次（对照没有模型：一个提案算一个）。新程序：评估了几个
    不同的程序（起点不算）。"""
    start = time.monotonic()
    ev = CountingEvaluator(train, table)
    out = evolve(ev, llm=llm, report=on_proposal, **loop)
    best, score = out["best"]
    # 模型的请求用完以后（--resample）的提案没有问模型：不算提案
    spent_counted = isinstance(llm, (ChatLLM, ChatEnsemble))
    # 回放：录下的请求要都问过（没问的那行说明这次运行不是录制的那一次）
    if spent_counted and not llm.replies.live:
        llm.replies.check_all_used()
    spent = llm.stats["spent"] if spent_counted else 0
    proposals = loop["budget"] - out["outcomes"].count("prompt") - spent
    # 解析：交去评估的程序（--resample 时问满了还是见过的程序也解析成了，可没有交去评估）
    parsed = proposals - (out["n_failed"] - spent)
    return {"out": out, "best": best, "score": score, "test": geomean_speedup(best, test, table),
            "budget": loop["budget"], "proposals": proposals, "parsed": parsed,
            "changed": parsed - out["n_unchanged"],
            "checked": parsed - out["outcomes"].count("bad_branch"), "added": out["n_added"],
            "requests": llm.memory.sent if spent_counted else proposals,
            "new": len(ev.judged - {EXPERT}), "improved": out["n_improved"],
            "wall": time.monotonic() - start}


def line_per_proposal(chat, budget, progress):
    """stderr 上一个提案一行：模型的回复是什么结果，进化循环又怎么处理了它，再是细节
    （去掉控制字符，截到终端宽度）；进度行（console.Progress）画在这些行下面。"""
    def show_line(step, outcome):
        result, detail = chat.last
        # 请求用完以后的一步没有问谁：不是哪个模型的提案，就不写模型的名字
        who = "" if result == "spent" else f"{chat.last_model} "
        line = f"[{who}{step + 1}/{budget}] {RESULTS[result]} → {OUTCOMES[outcome]}"
        line += f"：{detail}" if detail else ""
        progress.note(clip(printable(line), terminal_columns(sys.stderr), "…"))
        progress.advance(1, lambda: f"{chat.model}：第 {step + 1}/{budget} 个提案")
    return show_line


def timing(chat, real, others):
    """用时两句，加得起来：联网时 = 等模型 + 引擎；回放时不等模型，录制时等了多久单说。
    三个对照另起一句：一句太长的话，80 列的终端会把"随机改一处"这样的名字折断。"""
    if not chat.replies.live:
        head = (f"{chat.model} 回放 {real['wall']:.1f} s"
                f"（不等模型；录制时等模型 {chat.seconds:.1f} s）")
    else:
        engine = real["wall"] - chat.seconds
        head = (f"{chat.model} {real['wall']:.1f} s（等模型 {chat.seconds:.1f} s + 引擎 "
                f"{engine:.1f} s）")
    baselines = "，".join(f"{name} {r['wall']:.1f} s" for name, r in others.items())
    return [f"用时：{head}", f"对照的用时：{baselines}"]


# 对照的提出者：没有知识也不看反馈的随机改动、只会单字段小改的 MockLLM、有内核常识的 MockLLM
BASELINES = {"随机改一处": RandomEdits,
             "MockLLM(knowledge=False)": lambda: MockLLM(knowledge=False),
             "MockLLM()": MockLLM}


def main(argv=None):
    args = parse_args(argv)
    try:
        chat, loop = start(args)
    except ValueError as e:
        # 参数、地址、录制文件……：一句话
        say(e)
        return 2
    where = f"回放 {args.replay}" if args.replay else f"服务器 {'、'.join(args.base_url)}"
    recording = f"，录制到 {args.record}" if args.record else ""
    budget = loop["budget"]
    unit = "个模型请求" if chat.resample else "个提案"
    say(f"模型：{chat.model}，{where}{recording}，{budget} {unit}，种子 {loop['seed']}，"
        f"并发 {loop['parallel']}")
    table = TimeTable()
    train, test = split_shapes(all_shapes())
    progress = Progress(budget)
    try:
        shown = line_per_proposal(chat, budget, progress)
        real = run(chat, loop, train, test, table, shown)
    except ChatError as e:
        # 连续连不上、回放文件答不了：一句话
        progress.clear()
        say(e)
        return 1
    progress.clear()
    if not chat.answered:
        failed = "，".join(f"{RESULTS[k]} {chat.stats[k]} 次" for k in CALL_FAILURES
                          if chat.stats[k])
        say(f"{budget} 次调用没有一次拿到模型的回复（{failed}）：每次的原因见上面各行。")
        return 1
    others = {}
    others_progress = Progress(budget * len(BASELINES))
    for name, make in BASELINES.items():
        def shown(step, _, name=name):
            others_progress.advance(1, lambda: f"{name}：第 {step + 1}/{budget} 个提案")
        # 说明由模型改写只给模型：对照照常
        others[name] = run(make(), {**loop, "meta_prompt": False}, train, test, table, shown)
    others_progress.clear()
    for sentence in timing(chat, real, others):
        say(sentence)
    print_report(chat, loop, real, others)
    return 0


def verdict_on_random(model, real, rand):
    """模型比随机改好不好：训练、测试两个分数都看，用 verdict 的规则。两边都只跑了一次
    （1 个种子）：就是比两个数（一样高的不算好也不算差），看不出波动，也说出来；
    3 位小数一样的两个数多印几位，直到看得出（到 compare.MAX_DIGITS 位还一样就算一样高）。"""
    pairs = (("训练形状", "score"), ("测试形状", "test"))
    # 一边一个数：verdict 的两边就是这两个数互相比；印几位也由它定
    sides = {what: verdict([real[key]], [rand[key]]) for what, key in pairs}
    better = [what for what, (side, _) in sides.items() if side == ABOVE]
    worse = [what for what, (side, _) in sides.items() if side == BELOW]
    (_, train_digits), (_, test_digits) = sides.values()
    train = f"训练 {real['score']:.{train_digits}f} 对 {rand['score']:.{train_digits}f}"
    test = f"测试 {real['test']:.{test_digits}f} 对 {rand['test']:.{test_digits}f}"
    scores = f"（{train}，{test}；{ONE_SEED}）"
    if len(better) == 2:
        return f"{model} 比随机改一处好{scores}：同样的进化循环里，它提出的修改比随机的有用。"
    if len(worse) == 2:
        return (f"{model} 没有比随机改一处好{scores}：同样的进化循环里，它的修改还不如随机改——"
                "分数的提高来自选择，不是来自模型。")
    if better:
        return f"{model} 只在{better[0]}上比随机改一处好{scores}：说不上比随机的有用。"
    return f"{model} 没有比随机改一处好{scores}：说不上比随机的有用。"


# 对比表的表头和表下的说明
TABLE_HEADERS = ["提出者", ("训练", "分数"), ("测试", "分数"), "解析", ("和父程序", "不同"),
                 "过检查", "进库", "等模型 s"]
TABLE_NOTE = ("（分数：相对专家程序的几何平均加速比。解析：回复解析成了程序；和父程序不同："
              "其中不是父程序原样照抄的；过检查：每个分支都能启动；进库：进了数据库。"
              "等模型 s：等模型回答的秒数，录制时测的，回放时照原样读出。）")


def variant(chat, loop):
    """标题里的变体：要法、去掉了什么（整个程序、有反馈表、进化时是一个空格）。"""
    parts = ["一处改动"] if chat.edit == "diff" else []
    parts += [] if chat.context else ["没有反馈表"]
    parts += [] if loop["evolution"] else ["不进化"]
    parts += ["说明由模型改写"] if loop["meta_prompt"] else []
    parts += ["见过的程序再问"] if chat.resample else []
    return f"（{'，'.join(parts)}）" if parts else " "


def print_report(chat, loop, real, others):
    """最后的报告：对比表、模型的回复各是什么结果、它找到的最好程序、观察。"""
    budget, parallel = loop["budget"], loop["parallel"]
    concurrency = f"，并发 {parallel}" if parallel > 1 else ""
    # 预算是模型的请求数：一个提案一个请求时就是提案数，--resample 时再问的也算
    unit = "个请求（对照是提案）" if chat.resample else "个提案"
    title = f"{chat.model}{variant(chat, loop)}和三个对照：各 {budget} {unit}，种子 {loop['seed']}"
    print_header(title + concurrency)
    runs = [(chat.model, real, f"{chat.seconds:.1f}")]
    runs += [(name, r, "—") for name, r in others.items()]
    rows = [[name, f"{r['score']:.3f}", f"{r['test']:.3f}", r["parsed"], r["changed"], r["checked"],
             r["added"], secs] for name, r, secs in runs]
    print_table(TABLE_HEADERS, rows)
    print_paragraph(TABLE_NOTE)

    if isinstance(chat, ChatEnsemble):
        print_members(chat)

    # 提案的请求各有一个回复（写说明的请求另数；请求用完以后的提案没有回复）
    replies = sum(chat.stats.values()) - chat.stats["spent"]
    asked = f"（{real['proposals']} 个提案）" if chat.resample else ""
    print_header(f"{chat.model} 的 {replies} 个回复{asked}")
    counts = [[text, chat.stats[key]] for key, text in RESULTS.items()
              if chat.stats[key] and key != "spent"]
    print_table(["结果", "个数"], counts)
    print(f"（429/5xx 之后重试了 {chat.retries} 次）")
    if chat.resample:
        print_paragraph(resampled(chat))

    print_header(f"{chat.model} 找到的最好程序（化简后），训练分数 {real['score']:.3f}")
    print(render(simplify(real["best"])), end="")
    prompts = real["out"].prompts
    if prompts is not None:
        print_prompts(prompts)
    print_observations(observations(chat, budget, real, others))


# 提示数据库里每行说明前面的记号
HINT_BULLET = "  - "


def print_prompts(prompts):
    """说明由模型改写时：提示数据库最后的几个提示，各有几个孩子、其中几个比父程序好、功劳，
    哪个赢了（evolve.PromptDatabase.leader）；再是每个提示的说明。"""
    winner = prompts.entries.index(prompts.leader()) + 1
    print_header(f"提示数据库：最后的 {len(prompts.entries)} 个提示")
    # 功劳按提案数算（给不出程序的也算）。每个提案都交回了程序时提案数就是孩子数（录下的几次
    # 都是），只印孩子；不然提案另印一列
    every = all(entry.proposals == entry.children for entry in prompts.entries)
    rows = [[k + 1] + ([] if every else [entry.proposals])
            + [entry.children, entry.improved, f"{entry.credit():.2f}"]
            for k, entry in enumerate(prompts.entries)]
    proposals = [] if every else ["提案"]
    print_table(["提示"] + proposals + ["孩子", ("比父程序", "好"), "功劳"], rows)
    counted = "孩子" if every else "提案"
    print_paragraph(f"（功劳 = (比父程序好的孩子 + 1) / ({counted} + 2)；有孩子的提示里功劳最大的："
                    f"提示 {winner}。）")
    # 说明是模型写的一行行英文，可能比终端宽：每行折在空格处，续行缩进到 "- " 之后
    width = terminal_columns() - len(HINT_BULLET)
    for k, entry in enumerate(prompts.entries):
        print(f"提示 {k + 1}：" + ("" if entry.hints else "没有说明（起点）"))
        for line in entry.hints:
            pieces = wrap_plain(line, width)
            print(HINT_BULLET + pieces[0].rstrip())
            for piece in pieces[1:]:
                print(" " * len(HINT_BULLET) + piece.rstrip())


def resampled(chat):
    """--resample 时回复表下的一句：几个回复写的是见过的程序、为此再问了几次、请求用完以后
    还有几个提案没有问。"""
    spent = chat.stats["spent"]
    tail = f"；请求用完以后还有 {spent} 个提案没有问模型" if spent else ""
    return (f"（{chat.repeats} 个回复写的是这次运行见过的程序，为此带上一句话再问了 "
            f"{chat.asked_again} 次，每个提案最多再问 {chat.resample} 次；问满了还是见过的 "
            f"{chat.withheld} 个提案不交去评估，上面的表里不算解析{tail}）")


def print_members(team):
    """几个模型一起时，每个模型分到几个提案、其中几个子程序比父程序好（bandit 的奖励）。"""
    how = "按 UCB1 挑（bandit）" if team.bandit else "按固定比例 " + team.mix
    print_header(f"每个模型分到的提案：{how}")
    # 只数问了模型的提案：加起来是标题里的提案数
    members = list(zip(team.members, team.asked, team.improvements))
    # "解析"数的是回复：再问（--resample）时一个提案不止一个请求，解析的就能比提案多。
    # 请求数和提案数不一样时多印一列请求，读者看得出解析的是几个里的几个
    retried = any(c.calls != n for c, n, _ in members)
    rows = [[c.model, n, f"{n / sum(team.asked):.0%}", better]
            + ([c.calls] if retried else []) + [c.stats["ok"], f"{c.seconds:.1f}"]
            for c, n, better in members]
    headers = ["模型", "提案", "占", ("比父程序", "好")] + (["请求"] if retried else [])
    print_table(headers + ["解析", "等模型 s"], rows)


def observations(chat, budget, real, others):
    """表下的四条观察，每条都由这次的数决定。"""
    # 请求用完以后没有问的提案（--resample）不是失败的回复：上面的回复表下已经说了
    failed = {key: n for key, n in chat.stats.items() if key not in ("ok", "spent") and n}
    mock = others["MockLLM()"]
    # --resample 时问满了还是见过的程序也解析成了，可不交去评估：表里的"解析"只数交去的
    handed = (f"{real['parsed']} 个交去评估（另 {chat.withheld} 个问满了还是见过的程序）"
              if chat.resample else f"{real['parsed']} 个解析成程序")
    counts = (f"{chat.model} 的 {real['proposals']} 个提案：{handed}，其中 "
              f"{real['changed']} 个和父程序不同，{real['checked']} 个过了分支检查，"
              f"{real['added']} 个进了数据库。MockLLM() 在同样的位置是 {mock['parsed']}、"
              f"{mock['changed']}、{mock['checked']}、{mock['added']}。")
    if failed:
        kinds = "，".join(f"{RESULTS[k]} {n} 个" for k, n in failed.items())
        unparsed = f"没变成程序的 {real['proposals'] - real['parsed']} 个：{kinds}。"
    else:
        unparsed = "每个回复都解析成了程序。"
    safety = ("模型写的代码从来没有被执行：parse_program 只读源码，不在子集里的直接拒掉；"
              "不能启动的分支由分支检查拒掉，一个内核都不跑。")
    if chat.edit == "diff":
        safety = ("模型写的改动从来没有被执行：条件和配置由 parse_program 只读地解析，改动由 "
                  "evolve 的 Rule、Program、with_config 用到父程序上；不能启动的分支由分支检查"
                  "拒掉，一个内核都不跑。")
    stuck = ""
    if real["best"] == EXPERT:
        stuck = "它最好的程序还是初始的专家程序：没有一个提案比专家好。"
    small = others["MockLLM(knowledge=False)"]["score"]
    mocks = (f"同样的预算和种子，MockLLM(knowledge=False) 到了 {small:.3f}，MockLLM() 到了 "
             f"{mock['score']:.3f}（测试形状 {mock['test']:.3f}）：MockLLM 是模拟的"
             "\"更强的模型\"，真模型要和它比，先得比随机改好。")
    verdict = verdict_on_random(chat.model, real, others["随机改一处"])
    prompts = real["out"].prompts
    if prompts is None:
        return [counts, unparsed + safety, verdict + stuck, mocks]
    return [counts, unparsed + safety, verdict + stuck, mocks, said_prompts(real, prompts)]


def said_prompts(real, prompts):
    """说明由模型改写时的一句：几份预算写了说明，赢的是哪个提示、它的孩子怎样。"""
    leader = prompts.leader()
    which = prompts.entries.index(leader) + 1
    what = "没有说明的起点" if not leader.hints else f"提示 {which}"
    written = real["budget"] - real["proposals"]
    return (f"说明由模型改写：{written} 份预算花在写说明上，提示数据库最后有 "
            f"{len(prompts.entries)} 个提示，功劳最大的是{what}（{leader.children} 个孩子，"
            f"{leader.improved} 个比父程序好）。说明有没有用，要和同一个种子、不改写说明的录制比"
            "（llm_ablations.py 的表），一次运行看不出来。")


if __name__ == "__main__":
    # Ctrl-C、… | head：一行说明或安静退出
    with stops_cleanly():
        sys.exit(main())
