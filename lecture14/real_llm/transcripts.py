"""
CS349E · 第 14 讲 · transcripts.py —— 回复从哪里来：联网问（可以顺手录下来），或者照录制文件回放

ChatLLM 只管"给一个请求，拿回一次调用（transport.Call）"，不管它从哪里来：
  - Live：联网问（transport.Transport），给了 Recording 就每次调用追加一行；
  - Replay：照录制文件答，按请求的哈希查，不联网。

录制文件：第 1 行是这次运行的设置（模型、温度、max_tokens、语法、要法、有没有反馈表、地址、预算、
种子、并发、进不进化；几个模型一起时是 members 和配比或 bandit），之后每次调用一行，
请求里的 model 说是哪个模型答的。每行都带 check：整行其余内容的哈希。回放只看文件：
设置从第 1 行来，请求按哈希查；改过的行、坏行、不够用，都是一句话，说清哪个文件第几行。

自上而下读：1. 一行录制  2. 读录制文件（每个字段都用 checks 的说法检查）  3. 三种来源
"""
import collections
import itertools
import json
import math
import os
import threading
from dataclasses import asdict

from checks import (BOOLS, COUNT, NON_NEGATIVE_NUMBER, POSITIVE_INT, POSITIVE_NUMBER, is_choice,
                    printable_text)
from transport import CALL_FAILURES, Call, fingerprint, parse_base_url

TRANSCRIPT_KIND = "CS349E lecture14 ChatLLM transcript"
TRANSCRIPT_VERSION = 2
# 一行最多 1 MB：请求约 10 kB，回复最多 max_reply_bytes，转义后也放得下
MAX_LINE_BYTES = 1 << 20
# 模型名：可打印、不太长（它会打到终端上、写进录制）
MODEL_NAME = printable_text(200)


class ChatError(Exception):
    """这次运行没法接着跑了（一句话）：连续连不上，录制写不进去，或者回放文件答不了这次请求。"""


class ReplayError(ChatError):
    """回放文件答不了这次请求：用完了，或者请求和录制时的不一样。"""


# ==== 1. 一行录制 =================================================================================
# 一次调用（transport.Call）原样是一行；再加上 check，盖住这一行的全部内容

def sealed(entry):
    """一行录制：内容加上盖住整行的 check。"""
    return json.dumps({**entry, "check": fingerprint(entry)}, ensure_ascii=False) + "\n"


# ==== 2. 读录制文件 ===============================================================================

def transcript_lines(path):
    """录制文件一行一行地读：(行号, JSON 对象)。一行最多 MAX_LINE_BYTES，内存不随文件变大；
    坏行（太长、不是 UTF-8、不是 JSON、check 对不上）是 ValueError，一句话说清第几行。"""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise ValueError(f"回放文件 {path} 打不开（{e.strerror}）") from None
    with f:
        for n in itertools.count(1):
            raw = f.readline(MAX_LINE_BYTES + 1)
            if not raw:
                return
            yield n, _entry(raw, f"回放文件 {path} 第 {n} 行")


def _entry(raw, where):
    """一行 → 去掉 check 的 JSON 对象；check 对不上就 ValueError。"""
    if len(raw) > MAX_LINE_BYTES:
        raise ValueError(f"{where}超过 {MAX_LINE_BYTES:,} 字节，不是录制的一行")
    try:
        entry = json.loads(raw.decode("utf-8"))
        intact = isinstance(entry, dict) and entry.pop("check", None) == fingerprint(entry)
    except (ValueError, RecursionError):
        raise ValueError(f"{where}不是一行 JSON，不是录制文件") from None
    if not intact:
        raise ValueError(f"{where}被改过或不完整：check 和这一行的内容对不上，"
                         "用 --record 重新录一次")
    return entry


def _is_reply(entry):
    """ok 的 reply 是模型说的话；失败的调用是一句说明，或 None。"""
    if isinstance(entry["reply"], str):
        return True
    return entry["reply"] is None and entry["result"] != "ok"


def _call_problem(entry):
    """一行调用记录哪里不对（check 对上了，但字段不是录制写的样子）；没问题是 None。"""
    if set(entry) != {"hash", "request", "result", "reply", "retries", "seconds"}:
        return "字段不对"
    if not isinstance(entry["request"], dict) or entry["hash"] != fingerprint(entry["request"]):
        return "hash 不是 request 的哈希"
    if (entry["result"] != "ok" and entry["result"] not in CALL_FAILURES) or not _is_reply(entry):
        return "result 或 reply 不对"
    for name, kind in (("retries", COUNT), ("seconds", NON_NEGATIVE_NUMBER)):
        if not kind.test(entry[name]):
            return f"{name} 必须是{kind.says}"
    return None


# ChatLLM 的两种要法：整个程序，或者一处改动
EDIT_MODES = ("full", "diff")
# 设置行里没有 edit 的（较早的录制，那时只有这一种要法）是整个程序
UNRECORDED_EDIT = "full"
# 设置行里每个数的样子；没列的 model、base_url（或几个模型的 members）、edit 和开关单独查
SETTING_KINDS = {"temperature": NON_NEGATIVE_NUMBER, "max_tokens": POSITIVE_INT,
                 "budget": POSITIVE_INT, "seed": COUNT, "parallel": POSITIVE_INT,
                 "resample": COUNT}
REQUIRED_SETTINGS = ("temperature", "max_tokens")
# 设置行里的开关：没记的（较早的录制）取这个值。context 是提示里有没有反馈表，evolution 是进不进化，
# meta_prompt 是提示里的说明由不由模型改写
SWITCHES = {"grammar": False, "context": True, "evolution": True, "meta_prompt": False}


def recorded_settings_problem(settings):
    """第 1 行的设置哪里不对（说的是哪个设置）；没问题是 None。"""
    if not isinstance(settings, dict) or not all(key in settings for key in REQUIRED_SETTINGS):
        return "没有 " + "、".join(REQUIRED_SETTINGS)
    for name, kind in SETTING_KINDS.items():
        if name in settings and not kind.test(settings[name]):
            return f"{name} 必须是{kind.says}"
    for name, default in SWITCHES.items():
        if not is_choice(settings.get(name, default), BOOLS):
            return f"{name} 必须是 true 或 false"
    if not is_choice(settings.get("edit", UNRECORDED_EDIT), EDIT_MODES):
        return "edit 必须是 " + " 或 ".join(EDIT_MODES)
    if "members" in settings:
        return _ensemble_problem(settings)
    return _model_problem(settings)


def _model_problem(model):
    """一个模型：model 和 base_url。"""
    if not isinstance(model, dict) or not all(key in model for key in ("model", "base_url")):
        return "没有 model、base_url"
    if not MODEL_NAME.test(model["model"]):
        return f"model 必须是{MODEL_NAME.says}"
    try:
        parse_base_url(model["base_url"])
    except ValueError:
        return "base_url 不对"
    return None


def _ensemble_problem(settings):
    """几个模型（ChatEnsemble）：members 每个一个模型，再是固定配比 weights 或 bandit。"""
    members, weights = settings["members"], settings.get("weights")
    if not isinstance(members, list) or len(members) < 2:
        return "members 必须是至少两个模型的列表"
    slip = next(filter(None, map(_model_problem, members)), None)
    if slip:
        return f"members 里的一个{slip}"
    if not is_choice(settings.get("bandit"), BOOLS):
        return "bandit 必须是 true 或 false"
    if settings["bandit"]:
        return None if weights is None else "bandit 时 weights 必须是 null"
    counted = isinstance(weights, list) and len(weights) == len(members)
    if not counted or not all(POSITIVE_NUMBER.test(w) for w in weights):
        return "weights 必须是每个模型一个有限的正数"
    return None


def _header_problem(header):
    """第 1 行哪里不对；没问题是 None。"""
    if header is None:
        return "是空的"
    expected = {"kind": TRANSCRIPT_KIND, "version": TRANSCRIPT_VERSION}
    fields_ok = set(header) == {"kind", "version", "settings"}
    if not fields_ok or any(header[k] != v for k, v in expected.items()):
        return f"第 1 行不是录制的设置行（应是 {TRANSCRIPT_KIND} 第 {TRANSCRIPT_VERSION} 版）"
    problem = recorded_settings_problem(header["settings"])
    return problem and f"第 1 行的设置不对：{problem}"


def load_transcript(path):
    """录制文件 → (设置, [(行号, Call), ...])。第 1 行是设置，之后一行一次调用，最多预算那么多行；
    任何不对都是 ValueError，一句话说清哪个文件第几行。"""
    lines = transcript_lines(path)
    _, header = next(lines, (1, None))
    problem = _header_problem(header)
    if problem:
        raise ValueError(f"回放文件 {path} {problem}")
    settings, calls = header["settings"], []
    budget = settings.get("budget", math.inf)
    for n, entry in lines:
        problem = _call_problem(entry)
        if problem is None and len(calls) >= budget:
            problem = f"预算只有 {budget}，这一行多出来了"
        if problem:
            raise ValueError(f"回放文件 {path} 第 {n} 行不是录制的一次调用：{problem}")
        calls.append((n, Call(**entry)))
    return settings, calls


# ==== 3. 三种来源：联网、录制、回放 ===============================================================

class Recording:
    """录制文件。建的时候就试着建一下这个文件再删掉：文件夹不在、已经有这个文件、写不进去，
    在第一次（可能要钱的）调用之前就知道。文件在第一次拿到回复（ok）时才真正建好：设置行和
    这之前失败的调用按顺序一起写进去，之后每次调用追加一行，并发的调用各写一整行。
    一次回复都没拿到的运行（服务器没开、地址不对）不留下文件，同样的命令下次照样能录。"""

    def __init__(self, path, settings):
        problem = recorded_settings_problem(settings)
        if problem:
            raise ValueError(f"录制的设置不对：{problem}")
        self.path, self.lock = path, threading.Lock()
        try:
            self._write("", "x")
        except ChatError as e:
            raise ValueError(str(e)) from None
        os.remove(path)
        header = {"kind": TRANSCRIPT_KIND, "version": TRANSCRIPT_VERSION, "settings": settings}
        # 还没写进文件的行：第一次拿到回复之前，设置行和失败的调用都先留在这里
        self.unwritten = [sealed(header)]
        self.created = False

    def add(self, call):
        with self.lock:
            self.unwritten.append(sealed(asdict(call)))
            if call.result != "ok" and not self.created:
                return
            mode = "a" if self.created else "x"
            self._write("".join(self.unwritten), mode)
            self.unwritten, self.created = [], True

    def _write(self, text, mode):
        try:
            with open(self.path, mode, encoding="utf-8") as f:
                f.write(text)
        except FileExistsError:
            raise ChatError(f"录制文件 {self.path} 已经存在：换个名字，或者先删掉它"
                            "（录制不覆盖）") from None
        except OSError as e:
            # /proc 这样的地方建文件也报"没有这个文件"：文件夹真的不在，才这样说
            if not os.path.isdir(os.path.dirname(os.path.abspath(self.path))):
                raise ChatError(f"录制文件 {self.path} 所在的文件夹不存在") from None
            raise ChatError(f"录制文件 {self.path} 写不进去（{e.strerror or e}）") from None


class Live:
    """联网问：transport 发请求；给了 recording 就把每次调用录下来。
    可以同时问好几个（线程安全）；cancel（transport.Cancel）叫停一批同时问的，叫停的调用抛
    transport.Cancelled，不录下来——它不是一次调用。"""
    live = True

    def __init__(self, transport, recording=None):
        self.transport, self.recording = transport, recording

    def call(self, body, cancel=None):
        call = self.transport.call(body, cancel)
        if self.recording is not None:
            self.recording.add(call)
        return call


class Replay:
    """照录制文件答：同样的请求（哈希）按文件里的顺序一次一行；答不了是 ReplayError，说清第几行。
    .settings 是文件第 1 行的设置。一次只答一个（回放不联网，不用并发）。"""
    live = False

    def __init__(self, path):
        self.path = path
        self.settings, calls = load_transcript(path)
        # 没答过的行（行号 → Call，按文件里的顺序）、每个哈希的行号、最后一行、答过几次
        self.unused = dict(calls)
        self.lines_of = collections.defaultdict(collections.deque)
        for n, call in calls:
            self.lines_of[call.hash].append(n)
        self.last_line = calls[-1][0] if calls else 1
        self.answered = 0

    def call(self, body, cancel=None):
        """照录制答 body；cancel 不用（回放不联网，没有要叫停的）。"""
        key = fingerprint(body)
        lines = self.lines_of.get(key)
        if lines:
            self.answered += 1
            return self.unused.pop(lines.popleft())
        if not self.unused:
            raise ReplayError(f"回放文件 {self.path} 到第 {self.last_line} 行就完了，这次运行要第 "
                              f"{self.answered + 1} 次调用：录制时中途停了，"
                              "或者预算比第 1 行记的大。")
        n = next(iter(self.unused))
        raise ReplayError(f"回放文件 {self.path} 第 {n} 行录的请求和这次的不一样（哈希 "
                          f"{self.unused[n].hash}，这次是 {key}）：提示里的数字变了"
                          "（计时模型、MockLLM 或提示改过），用 --record 重新录一次。")

    def check_all_used(self):
        """运行完了：录下的每个请求都问过了吗。没问的那行说明这次运行和录制时走得不一样
        （问模型的规则改过），印出的就不是录制时的那次运行：一句话拒掉，和请求多了一样。"""
        if self.unused:
            n = next(iter(self.unused))
            recorded = self.answered + len(self.unused)
            raise ReplayError(f"回放文件 {self.path} 第 {n} 行录的请求这次运行没有问（录了 "
                              f"{recorded} 个，只问了 {self.answered} 个）："
                              "问模型的规则改过，用 --record 重新录一次。")
