"""
CS349E · 第 14 讲 · llm.py —— 让真的语言模型当 evolve 的提出者（OpenAI 兼容的 chat API）

    from llm import ChatLLM
    chat = ChatLLM("http://127.0.0.1:8000/v1", "SmolLM2-135M-Instruct")
    out = evolve(ev, 50, seed=0, llm=chat)

本地的 llama.cpp、vLLM、Ollama、LM Studio 和各家 API 都说这种 API。ChatLLM 把几个模块接起来：
  prompt.py       给模型看什么（提示）、许它写什么（语法）、怎么把回复读成程序（从不执行）
  edits.py        edit="diff" 时：只要一处改动——短提示、改动的语法、改动 → 程序
  transport.py    一次 HTTP 调用：不跟重定向、一个截止时间、字节有上限、429/5xx 再试
  transcripts.py  回复从哪里来：联网（可以顺手录下来），或者照录制文件回放
  checks.py       学生写错参数时的那一句话
每种失败都只是一次失败的提案（返回 None），.stats 分类计数；连续连不上才停。
"""
from concurrent.futures import ThreadPoolExecutor

from checks import (BOOLS, COUNT, NON_NEGATIVE_NUMBER, POSITIVE_INT, POSITIVE_NUMBER, check_choice,
                    keyword_defaults, require)
from edits import edit_gbnf, edit_messages, program_from_edit
from ensemble import Ensemble
from evolve import Proposer, WritesPrompts
from instructions import instruction_gbnf, instruction_messages, instructions_from_reply
from prompt import Reading, build_messages, gbnf, program_from_reply
from transcripts import (EDIT_MODES, MODEL_NAME, SWITCHES, UNRECORDED_EDIT, ChatError, Live,
                         Recording, Replay)
from transport import CALL_FAILURES, Cancel, Transport, default_api_key, parse_base_url
from variants import ProposerDescription, Setting

# 一次提案的结果（.stats 的键，Reading.result）：ok 是解析成了程序，其余都是失败的提案——
# 回复读不成程序的几种，再是调用本身失败了的几种（transport.CALL_FAILURES）
# 写说明的请求（meta prompt，instructions.py）的两种：读出了说明，或者没有
RESULTS = {"ok": "解析成了程序", "no_code": "回复里没有代码", "syntax_error": "不是合法的 Python",
           "outside_subset": "是 Python，但不在子集里", "outside_space": "配置不在搜索空间里",
           "no_edit": "回复里没有改动", "bad_edit": "改动对不上父程序",
           "instructions": "写出了说明", "no_instructions": "回复里没有说明",
           "spent": "请求用完了，没有再问", "seen": "问满了还是见过的程序，不交去评估",
           **CALL_FAILURES}

# 回复写的是这次运行见过的程序（父程序、提示里的别的程序、交回过的子程序）时，resample 次以内
# 带上它的回复和下面这句话再问一次（同样的提示和语法，服务器的缓存接得上整个提示），seed 另取。
# 试过（issue 51，Qwen2.5-Coder 1.5B，一处改动，把父程序原样写回去的 12 个请求）：同一个提示换一个
# seed 再问，12 个里 5 个改了东西；接上回复和这句话，12 个里 10 个，每个约 7.8 s。短跑里 seed 不换
# 时，这句话没能让它改的那次，再问几遍也写得一字不差（同样的提示、同样的 seed）：所以每次另取 seed。
UNCHANGED_NOTE = ("That edit leaves the rules exactly as they are, so it changes nothing. "
                  "Answer with a different edit line that changes a condition or a config.")
SEEN_NOTE = ("That edit gives rules that were already tried. "
             "Answer with a different edit line that changes a condition or a config.")


def check_api_key(api_key):
    """密钥只能是不带空格的可见 ASCII 字符（它进 HTTP 头）。不合格时那句话不复述密钥本身。"""
    if not isinstance(api_key, str) or not all(33 <= ord(c) < 127 for c in api_key):
        raise ValueError("API 密钥里有空格、控制字符或非 ASCII 字符：复制时多带了什么？")
    return api_key


class RunMemory:
    """一次运行里（几个模型一起时成员共用）记着的：见过的程序、发了几个请求、预算是几个请求
    （None 是不限）。ChatLLM.reset 每次运行开始时清零。"""

    def __init__(self, budget=None):
        self.budget = budget
        self.reset()

    def reset(self):
        self.seen = set()
        self.sent = 0

    def spent(self):
        """这次运行的请求用完了吗。"""
        return self.budget is not None and self.sent >= self.budget


class ChatLLM(Proposer, WritesPrompts):
    """一个真的语言模型，当 evolve 的提出者：propose 发一次 chat 请求，把回复解析成程序。

    base_url：例如 http://127.0.0.1:8000/v1（请求只发到 {base_url}/chat/completions，重定向不跟）。
    api_key：不给时只有 https 的地址才读环境变量 OPENAI_API_KEY（transport.default_api_key）。
    timeout：一次 HTTP 往返的截止秒数；429/5xx 等 Retry-After（最多 max_wait 秒）再试 retries 次。
    连续 max_unreachable 次连不上就不再发请求，抛 ChatError（一句话带提示），不再空转。
    edit="full"：要整个程序（prompt.py）；edit="diff"：只要一处改动（edits.py），短得多。
    context=False（只在 edit="diff" 时）：提示里没有反馈表，
    即 AlphaEvolve 消融的 "No context in the prompt"。
    grammar=True：请求里带上语法（约束解码：llama.cpp 认 "grammar" 字段），整个程序是
    prompt.gbnf()，一处改动是 edits.edit_gbnf(父程序)。
    record=路径：第 1 行写设置（加上 run 里的预算、种子、并发），之后每次调用追加一行。
    replies：回复的来源，默认联网（transcripts.Live）；from_transcript(路径) 给的是 Replay。
    evolve(..., meta_prompt=True)：它会写提示（evolve.WritesPrompts）。一个提示里的几条指示
    （hints）是提示里的几行说明，一开始没有；模型自己改写（propose_prompt，instructions.py），
    照一组说明提案的是 prompted(hints)。
    resample=N（只用于 edit="diff"）：回复写的是这次运行见过的程序时，带上它的回复和一句话
    （UNCHANGED_NOTE、SEEN_NOTE）再问，最多再问 N 次；问满了还是见过的，这个提案就没有程序
    （.withheld 数这样的提案）：见过的程序不再评估。预算是模型的请求数：run 里的 budget 个请求
    用完了就不再问（.stats["spent"] 是那之后没有问的提案）。
    .stats：每种结果（RESULTS）各有几次（每个请求一次）；.retries：重试了几次；.seconds：等模型
    的秒数；.repeats：回复写的是见过的程序的次数（resample 开不开都数）；.asked_again：因此再问的
    请求数；.first_repeats：.repeats 里提案第一次问（不是再问）的。一个实例跑一次 evolve：
    计数是累加的，见过的程序和发了几个请求每次运行从零开始。
    随机的只有每次请求的 seed，取自 evolve 给的 rng。
    """

    # 提示数据库（meta prompt）里它自己的提示：没有说明，就是 prompt.py、edits.py 的提示本身
    hints = ()

    def __init__(self, base_url, model, api_key=None, temperature=0.8, max_tokens=1024,
                 grammar=False, edit="full", context=True, timeout=120.0, retries=3, backoff=1.0,
                 max_wait=30.0, max_reply_bytes=65_536, max_unreachable=3, resample=0, record=None,
                 run=None, replies=None):
        origin = parse_base_url(base_url)
        self.model = require("model", model, MODEL_NAME, "模型名")
        numbers = (("timeout", timeout, POSITIVE_NUMBER), ("max_tokens", max_tokens, POSITIVE_INT),
                   ("max_reply_bytes", max_reply_bytes, POSITIVE_INT),
                   ("max_unreachable", max_unreachable, POSITIVE_INT),
                   ("temperature", temperature, NON_NEGATIVE_NUMBER),
                   ("backoff", backoff, NON_NEGATIVE_NUMBER),
                   ("max_wait", max_wait, NON_NEGATIVE_NUMBER), ("retries", retries, COUNT),
                   ("resample", resample, COUNT))
        for name, value, kind in numbers:
            require(name, value, kind)
        self.grammar = check_choice("grammar", grammar, BOOLS)
        self.edit = check_choice("edit", edit, EDIT_MODES)
        self.context = check_choice("context", context, BOOLS)
        if not context and edit != "diff":
            raise ValueError('context=False（提示里不要反馈表）只用于 edit="diff"：整个程序的提示'
                             "没有这个变体")
        if resample and edit != "diff":
            raise ValueError('resample（回复是见过的程序时再问）只用于 edit="diff"：'
                             "再问的那句话说的是一行改动")
        self.temperature, self.max_tokens = temperature, max_tokens
        self.resample = resample
        self.max_unreachable = max_unreachable
        self.settings = {"model": model, "temperature": temperature, "max_tokens": max_tokens,
                         "grammar": grammar, "edit": edit, "context": context,
                         "resample": resample, "base_url": base_url, **(run or {})}
        if replies is None:
            api_key = default_api_key(base_url) if api_key is None else check_api_key(api_key)
            transport = Transport(origin, api_key, timeout, retries, backoff, max_wait,
                                  max_reply_bytes)
            recording = Recording(record, self.settings) if record else None
            replies = Live(transport, recording)
        self.replies = replies
        self.stats = dict.fromkeys(RESULTS, 0)
        # 写说明的调用（meta prompt）各是什么结果，和提案的分开数：.stats 加起来总是提案数
        self.prompt_stats = dict.fromkeys(RESULTS, 0)
        self.calls, self.retries, self.seconds = 0, 0, 0.0
        # 地址 → 接连连不上它的次数（ChatEnsemble 让成员共用这一份：同一个地址上的几个模型）
        self.unreachable = {}
        # 最近一次的 (结果, 说明)：命令行打进度用
        self.last = ("", "")
        # 这次运行见过的程序、发了几个请求（ChatEnsemble 让成员共用这一份）
        self.memory = RunMemory((run or {}).get("budget"))
        self.repeats, self.first_repeats, self.asked_again, self.withheld = 0, 0, 0, 0

    def __repr__(self):
        return f"ChatLLM({self.settings['base_url']!r}, {self.model!r})"

    def describe(self):
        """它是什么（variants.ProposerDescription）：模型、地址和问法（不含预算、种子这些）。
        模型和地址没有默认值，写出来时总是写。"""
        lecture = keyword_defaults(ChatLLM)
        own = ("model", "base_url", "temperature", "max_tokens", "grammar", "edit", "context",
               "resample")
        settings = tuple(Setting(name, self.settings[name], lecture.get(name)) for name in own)
        return ProposerDescription("ChatLLM", settings)

    @property
    def last_model(self):
        """最近一次是哪个模型答的（一个模型时总是它）。"""
        return self.model

    @property
    def answered(self):
        """拿到了回复（HTTP 2xx、chat API 的格式）的调用数：不管回复里写的是什么。"""
        failed = sum(self.stats[k] + self.prompt_stats[k] for k in CALL_FAILURES)
        return self.calls - failed

    def _stop_if_unreachable(self):
        """已经连续 max_unreachable 次连不上：不再发下一个请求，抛 ChatError（一句话带提示）。
        在下一次调用之前查、而不是在第 max_unreachable 次失败的当场：那一次也像别的提案一样交回
        evolve、在 stderr 上有它的一行，句子里的"连续 N 次"和上面的 N 行对得上。"""
        where = self.settings["base_url"]
        times = self.unreachable.get(where, 0)
        if times < self.max_unreachable:
            return
        _, detail = self.last
        raise ChatError(f"连续 {times} 次连不上 {where}（{detail}）："
                        "模型服务器开着吗？地址对吗，是不是以 /v1 结尾"
                        "（例如 http://127.0.0.1:8080/v1）？")

    def reset(self):
        """一次运行开始：见过的程序、发了几个请求从零开始。"""
        self.memory.reset()

    def propose(self, parent, feedback, inspirations, rng, hints=()):
        """一个提案：hints 是提示里的几行说明（提示数据库里的提示，prompted 给的）。
        这次运行的请求用完了就不再问（没有程序）。"""
        self._stop_if_unreachable()
        if self.memory.spent():
            self.stats["spent"] += 1
            self.last = ("spent", "")
            return None
        body = self._body(parent, feedback, inspirations, rng, hints)
        self._remember(parent, inspirations)
        for attempt in range(self.resample + 1):
            call = self._send(body)
            child = self._program(call, parent)
            repeat = self._is_repeat(child, first=attempt == 0)
            if not repeat or attempt == self.resample or self.memory.spent():
                break
            # 见过的程序不再评估：带上它的回复和一句话，同一个提示再问
            self.asked_again += 1
            note = UNCHANGED_NOTE if child == parent else SEEN_NOTE
            said = [{"role": "assistant", "content": call.reply}, {"role": "user", "content": note}]
            body = {**body, "messages": body["messages"] + said, "seed": rng.randrange(2**31)}
        if repeat and self.resample:
            # 问满了（或请求用完了）还是见过的程序：不交去评估
            self.withheld += 1
            self.last = ("seen", self.last[1])
            return None
        if child is not None:
            self.memory.seen.add(child)
        return child

    def _send(self, body):
        """发一个请求（或照录制回放），记下等了几秒、这次运行发了几个。"""
        call = self.replies.call(body)
        self.seconds += call.seconds
        self.memory.sent += 1
        return call

    def _remember(self, parent, inspirations):
        """提示里给模型看的程序：这次运行见过了。"""
        self.memory.seen.add(parent)
        self.memory.seen.update(p for p, _ in inspirations)

    def _is_repeat(self, child, first):
        """子程序是这次运行见过的程序吗（数进 .repeats；first：这是提案第一次问，不是再问，
        也数进 .first_repeats）。"""
        repeat = child is not None and child in self.memory.seen
        self.repeats += repeat
        self.first_repeats += repeat and first
        return repeat

    def prompted(self, hints):
        """照 hints 这几行说明提案的提出者（提示数据库里的一个提示）；
        调用、计数都还是这个 ChatLLM 的。"""
        return Instructed(self, hints)

    def propose_prompt(self, hints, best, feedback, rng):
        """额外的写提示那一步：给模型看现在的说明、最好的程序 best 和它的反馈，要几行新说明
        （instructions.py，带语法时受 instruction_gbnf 约束）。没读出说明、调用失败时交回原来的
        说明（提示数据库不收和已有的一样的）。"""
        self._stop_if_unreachable()
        if self.memory.spent():
            return hints
        messages = instruction_messages(hints, best, feedback)
        call = self._send(self._request(messages, instruction_gbnf(), rng))
        reading = self._account(call, _instructions_reading, self.prompt_stats)
        return reading.instructions if reading.result == "instructions" else hints

    def propose_all(self, asks, rng, hints=()):
        """几个提案一起问（evolve(..., parallel=K)）：请求按顺序建好（seed 按顺序取自 rng），
        同时发出，回复按提案的顺序处理——哪个先到都一样。等模型的时间按这一批里最慢的那次算。
        一个（或没有）提案就在这个线程里问：一个请求不用另开线程；resample 时也一个一个问
        （再问要等前一个回复）。hints 同 propose。"""
        if len(asks) <= 1 or self.resample:
            return [self.propose(*ask, rng, hints) for ask in asks]
        self._stop_if_unreachable()
        bodies = [self._body(*ask, rng, hints) for ask in asks]
        if self.replies.live:
            calls = self._send_together(bodies)
        else:
            calls = [self.replies.call(body) for body in bodies]
        self.seconds += max(call.seconds for call in calls)
        self.memory.sent += len(calls)
        children = []
        for call, (parent, _, inspirations) in zip(calls, asks):
            self._remember(parent, inspirations)
            child = self._program(call, parent)
            self._is_repeat(child, first=True)
            if child is not None:
                self.memory.seen.add(child)
            children.append(child)
        return children

    def _send_together(self, bodies):
        """几个请求同时发，一个线程一个。等着时按了 Ctrl-C（或出了别的异常）：先叫停这一批
        （transport.Cancel 关掉它们的 socket），线程当场返回，with 不用等到截止时间；
        叫停的调用不录、不重试。"""
        cancel = Cancel()
        with ThreadPoolExecutor(len(bodies)) as pool:
            try:
                return list(pool.map(lambda body: self.replies.call(body, cancel), bodies))
            # Ctrl-C 是 KeyboardInterrupt，不是 Exception：不叫停，with 要等每个线程到截止时间
            except BaseException:
                cancel.cancel()
                raise

    def _body(self, parent, feedback, inspirations, rng, hints=()):
        """一个提案的请求：一处改动或整个程序的提示和语法。"""
        if self.edit == "diff":
            messages = edit_messages(parent, feedback, self.context, hints)
            grammar = edit_gbnf(parent)
        else:
            messages = build_messages(parent, feedback, inspirations, hints)
            grammar = gbnf()
        return self._request(messages, grammar, rng)

    def _request(self, messages, grammar, rng):
        """一次请求。随机的只有请求的 seed，取自 evolve 给的 rng。"""
        body = {"model": self.model, "messages": messages, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": rng.randrange(2**31)}
        if self.grammar:
            body["grammar"] = grammar
        return body

    def _read(self, reply, parent):
        if self.edit == "diff":
            return program_from_edit(reply, parent)
        return program_from_reply(reply)

    def _program(self, call, parent):
        """一个提案的调用 → 程序或 None。"""
        return self._account(call, lambda reply: self._read(reply, parent), self.stats).program

    def _account(self, call, read, stats):
        """一次调用 → Reading（read 读拿到了的回复）；记账：结果记进 stats，还有连不上的次数
        （_stop_if_unreachable 看它）。"""
        self.calls += 1
        self.retries += call.retries
        if call.result == "ok":
            reading = read(call.reply)
        else:
            reading = Reading(call.result, call.reply or "")
        stats[reading.result] += 1
        self.last = (reading.result, reading.detail)
        where = self.settings["base_url"]
        failed_again = self.unreachable.get(where, 0) + 1
        self.unreachable[where] = failed_again if reading.result == "network" else 0
        return reading


def _instructions_reading(reply):
    """写说明的回复 → Reading：读出了几行说明（instructions），或者没有。"""
    lines = instructions_from_reply(reply)
    if not lines:
        return Reading("no_instructions", "")
    return Reading("instructions", f"{len(lines)} 行说明", instructions=lines)


class Instructed(Proposer):
    """提示数据库里的一个提示：照 hints 这几行说明提案的 ChatLLM（ChatLLM.prompted 给的）。"""

    def __init__(self, chat, hints):
        self.chat, self.hints = chat, hints

    def propose(self, parent, feedback, inspirations, rng):
        return self.chat.propose(parent, feedback, inspirations, rng, self.hints)

    def propose_all(self, asks, rng):
        # 一批照样一起问（evolve(..., meta_prompt=True, parallel=K)）
        return self.chat.propose_all(asks, rng, self.hints)


# ==== 几个模型一起：AlphaEvolve 的固定配比、ShinkaEvolve 的 bandit（ensemble.Ensemble 挑谁答）====

# 几个模型共用的问法：每个成员都一样，录制的设置行里只记一次
SHARED = ("temperature", "max_tokens", "grammar", "edit", "context", "resample")


class ChatEnsemble(Ensemble):
    """几个聊天模型一起当提出者：ensemble.Ensemble 挑这个提案由谁答，这里只多两件事——
    成员共用一份录制（每行的请求里有 model：是哪个模型答的），和把命令行要的数按成员加起来。

    members：[(base_url, 模型名), ...]，至少两个；同一个地址可以出现几次（一个服务器答几个模型）。
    weights、bandit：见 ensemble.Ensemble。其余关键字（temperature、grammar、edit……）每个成员
    都一样，照 ChatLLM。record=路径时设置行记下所有成员、配比或 bandit。
    """

    def __init__(self, members, weights=None, bandit=False, record=None, run=None, replies=None,
                 **chat):
        if not isinstance(members, (list, tuple)) or len(members) < 2:
            raise ValueError(f"ChatEnsemble 要至少两个 (地址, 模型名)，收到 {members!r}")
        chats = [ChatLLM(url, model, run=run, replies=replies, **chat) for url, model in members]
        # 见过的程序、发了几个请求：成员共用一份（数据库里是大家的子程序，预算是大家的请求）
        self.memory = chats[0].memory
        for c in chats:
            c.memory = self.memory
        super().__init__(chats, weights=weights, bandit=bandit)
        # 连不上的次数按地址记、成员共用：停下时那句话的"连续 N 次连不上 地址"数的是对这个地址的
        # 每一次调用，不管是哪个成员发的，和 stderr 上的那几行对得上
        streaks = {}
        for c in chats:
            c.unreachable = streaks
        first = chats[0].settings
        self.settings = {"members": [{"model": c.model, "base_url": c.settings["base_url"]}
                                     for c in chats],
                         "weights": None if bandit else self.weights, "bandit": bandit,
                         **{name: first[name] for name in SHARED}, **(run or {})}
        if replies is None and record:
            # 成员各自联网（Live），写进同一份录制：设置行要等配比查过才写得出，所以建好再交给它们
            shared = Recording(record, self.settings)
            for c in chats:
                c.replies.recording = shared
        self.replies = chats[0].replies if replies is None else replies
        self.edit, self.context, self.resample = first["edit"], first["context"], first["resample"]

    def reset(self):
        """一次运行开始：Ensemble 的计数，和成员共用的见过的程序、请求数，都清零。"""
        super().reset()
        self.memory.reset()

    @property
    def asked(self):
        """每个成员问了模型的提案数。Ensemble 的 .proposals 连请求用完以后（--resample）挑到它、
        没有问的那几步也数：那几步不是谁的提案，这里减掉（成员的 .stats["spent"]）。"""
        return [n - c.stats["spent"] for n, c in zip(self.proposals, self.members)]

    @property
    def repeats(self):
        return sum(c.repeats for c in self.members)

    @property
    def first_repeats(self):
        return sum(c.first_repeats for c in self.members)

    @property
    def asked_again(self):
        return sum(c.asked_again for c in self.members)

    @property
    def withheld(self):
        return sum(c.withheld for c in self.members)

    @property
    def mix(self):
        """怎样分提案：固定配比（"4:1"）或 "bandit"。"""
        return mix_name(self.weights, self.bandit)

    @property
    def model(self):
        """表头里的名字：成员的模型名，加上配比或 bandit。"""
        return " + ".join(c.model for c in self.members) + f"（{self.mix}）"

    @property
    def last_model(self):
        return self.members[self.chosen].model

    @property
    def last(self):
        return self.members[self.chosen].last

    @property
    def stats(self):
        return {key: sum(c.stats[key] for c in self.members) for key in RESULTS}

    @property
    def calls(self):
        return sum(c.calls for c in self.members)

    @property
    def retries(self):
        return sum(c.retries for c in self.members)

    @property
    def seconds(self):
        return sum(c.seconds for c in self.members)

    @property
    def answered(self):
        return sum(c.answered for c in self.members)


def mix_name(weights, bandit):
    """几个模型怎样分提案，照命令行和表里的写法：固定配比 "4:1"，或 "bandit"。"""
    return "bandit" if bandit else ":".join(f"{w:g}" for w in weights)


def from_transcript(path):
    """照录制文件回放的提出者，不联网：一个模型的录制是 ChatLLM，几个模型的是 ChatEnsemble
    （成员共用这一份回放）。设置都取自文件第 1 行，.settings 就是那一行；较早的录制没记的
    edit、context、grammar 取默认值。"""
    replay = Replay(path)
    s = replay.settings
    members = s.get("members")
    own = {"model", "base_url", "members", "weights", "bandit", *SHARED}
    run = {k: v for k, v in s.items() if k not in own}
    chat = {"temperature": s["temperature"], "max_tokens": s["max_tokens"],
            "grammar": s.get("grammar", SWITCHES["grammar"]),
            "edit": s.get("edit", UNRECORDED_EDIT),
            "context": s.get("context", SWITCHES["context"]),
            "resample": s.get("resample", 0), "run": run, "replies": replay}
    if members is None:
        return ChatLLM(s["base_url"], s["model"], **chat)
    pairs = [(m["base_url"], m["model"]) for m in members]
    return ChatEnsemble(pairs, weights=s["weights"], bandit=s["bandit"], **chat)
