"""
CS349E · 第 14 讲 · checks.py —— 学生写错一个值时得到的那一句话

evolve.py 的公开入口（Shape、Config、Evaluator、MockLLM、evolve、VARIANTS 里的选项）收到学生手写的值时用这些
函数检查：错了就抛出一句中文，指出错的值和可选的值，拼写接近时问"你是不是想写……"。
放在这里，不挡着 evolve.py 的主线；它不依赖 evolve（没有循环 import）。
"""
import difflib
import inspect

import numpy as np


BOOLS = (True, False)


def is_int(value):
    """Python 或 numpy 的整数（for seed in np.arange(5) 给的是 numpy 整数）；True/False 不算。"""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def positive_int(name, value):
    """≥ 1 的整数，以 Python int 返回：numpy 的 int32 在 M·N·K 这样的乘积里会悄悄溢出。"""
    if not is_int(value) or value < 1:
        raise ValueError(f"{name} 必须是 ≥ 1 的整数，收到 {value!r}")
    return int(value)


def store_positive_ints(obj, fields, where):
    """冻结的 dataclass（Shape、Config）的字段：都是 ≥ 1 的整数，存成 Python int。"""
    for field in fields:
        object.__setattr__(obj, field, positive_int(f"{where}{field}", getattr(obj, field)))


def check_choice(name, value, choices):
    """value 必须是 choices 之一（True 就是 True，不是 "True" 或 1）；拼写接近时提示真正的可选值。"""
    if not any(value is c or (type(value) is type(c) and value == c) for c in choices):
        by_text = {str(c): c for c in choices}
        close = difflib.get_close_matches(str(value), list(by_text), n=1)
        hint = f"。你是不是想写 {by_text[close[0]]!r}？" if close else ""
        raise ValueError(f"{name}={value!r} 不是可选值；可选：{', '.join(repr(c) for c in choices)}{hint}")


def keywords(func):
    """func 有默认值的参数名，也就是可以用关键字传的选项。"""
    return [p.name for p in inspect.signature(func).parameters.values() if p.default is not inspect.Parameter.empty]


def unknown_keyword(where, name, known):
    """where 不认识参数 name：拼写接近时问"你是不是想写……"，并列出可用的参数。"""
    close = difflib.get_close_matches(name, known, n=1)
    return TypeError(f"{where}没有参数 {name!r}" + (f"，你是不是想写 {close[0]!r}？" if close else "。")
                     + f" 可用的参数：{', '.join(known)}")


def non_empty_list_of(items, kind, what, example):
    """items 是装着 kind 的非空列表（例如形状列表）：以 list 返回。"""
    if isinstance(items, (str, kind)) or not hasattr(items, "__iter__"):
        raise TypeError(f"应是{what}的列表（例如 {example}），收到 {type(items).__name__}")
    items = list(items)
    if not items:
        raise ValueError(f"{what}列表是空的：至少要一个（例如 {example}）")
    odd = next((x for x in items if not isinstance(x, kind)), None)
    if odd is not None:
        raise TypeError(f"{what}列表里应全是 {kind.__name__}，收到一个 {type(odd).__name__}：{odd!r}")
    return items


def check_keywords(where, func, unknown, elsewhere=None, **given):
    """func 的关键字参数：unknown 是多出来的（拼写接近时提示；是 elsewhere 的选项时说该写在哪——
    MockLLM 的选项写到了 evolve 或变体上是常见的错），given 是 名字=(值, 可选值)。"""
    if unknown:
        name = next(iter(unknown))
        if elsewhere is not None and name in keywords(elsewhere):
            raise TypeError(f"{name} 是 {elsewhere.__name__} 的选项，不是 evolve 的参数：要写成 "
                            f"{{\"llm\": {elsewhere.__name__}({name}=...)}}（在 VARIANTS 里），"
                            f"或 evolve(..., llm={elsewhere.__name__}({name}=...))")
        raise unknown_keyword(where, name, keywords(func))
    for name, (value, choices) in given.items():
        check_choice(name, value, choices)


def check_proposer(llm):
    """提出者是任何有 propose(parent, feedback, inspirations, rng) 方法的对象（一个实例，不是类）。"""
    if isinstance(llm, type) or not callable(getattr(llm, "propose", None)):
        raise TypeError(f"llm 应是提出者：一个有 propose(parent, feedback, inspirations, rng) 方法的对象，"
                        f"例如 MockLLM() 或 llm.py 里的 ChatLLM(...)；收到 {llm!r}")
    return llm
