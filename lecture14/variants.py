"""
CS349E · 第 14 讲 · variants.py —— 一个变体是什么，只说一次

一个变体（05 脚本 VARIANTS 里的一组选项）是什么，由提出者自己说（MockLLM.describe、
Ensemble.describe、real_llm 里的几个），加上 evolve 的选项（evolve.Options.describe）。
每一项设置带着它的名字、值、讲义的默认值；两个变体按结构比（against），得到的 Changes 照学生在
VARIANTS 里的写法写出来。观察、图的分幅（curves.py 按设置的名字分）都只读这里的东西，不再自己
一个键一个键地比。MockLLM 和 evolve 的选项各由它们的签名、Options 的字段说出来：加一个选项，这里
不用改。

自上而下读：Setting（一项设置）→ ProposerDescription（一个提出者）→ Variant（一个变体）
→ Changes（差在哪）。
"""
from dataclasses import dataclass

def literal(value):
    """一个值照 Python 源码的写法：字符串用双引号（和 VARIANTS 里一样），列表逐项写。"""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(item) for item in value) + "]"
    if isinstance(value, ProposerDescription):
        return value.written()
    return repr(value)


@dataclass(frozen=True)
class Setting:
    """一项设置：名字、这个变体的值、讲义的默认值。"""
    name: str
    value: object
    default: object

    def argument(self):
        """作为提出者的参数写：feedback="roofline"。"""
        return f"{self.name}={literal(self.value)}"

    def entry(self):
        """作为 VARIANTS 里一组选项的一项写："n_islands": 1。"""
        return f"{literal(self.name)}: {literal(self.value)}"


def _differing(mine, theirs):
    """mine 里值和 theirs 里同名那一项不同的设置（theirs 没有这一项也算不同）。"""
    values = {s.name: s.value for s in theirs}
    return tuple(s for s in mine if s.name not in values or values[s.name] != s.value)


@dataclass(frozen=True)
class ProposerDescription:
    """一个提出者是什么：类名、它的设置（Setting），几个提出者一起时的成员
    （各自也是 ProposerDescription）。
    known=False：学生自己写的、没有 describe 的提出者，只知道它的类名。"""
    kind: str
    settings: tuple = ()
    members: tuple = ()
    known: bool = True

    def value(self, name):
        """名为 name 的那项设置的值。"""
        return next(s.value for s in self.settings if s.name == name)

    def replaces(self, other):
        """和 other 不是同一种提出者：类不同、成员不同，或者说不出自己的设置。"""
        return (self.kind != other.kind or self.members != other.members
                or not (self.known and other.known))

    def written(self, settings=None):
        """照 VARIANTS 的写法：MockLLM(feedback="roofline")。settings 是要写出来的那几项，
        默认是和讲义默认值不同的那几项；成员先写（Ensemble 的第一个参数）。说不出设置的写 (…)。"""
        if not self.known:
            return f"{self.kind}(…)"
        if settings is None:
            settings = tuple(s for s in self.settings if s.value != s.default)
        members = [literal(list(self.members))] if self.members else []
        return f"{self.kind}(" + ", ".join(members + [s.argument() for s in settings]) + ")"


@dataclass(frozen=True)
class Variant:
    """一个变体是什么：提出者（ProposerDescription）加上 evolve 的设置（Setting）。"""
    llm: ProposerDescription
    settings: tuple

    def against(self, full):
        """这个变体比 full 改了什么（Changes）：按结构比，换了一种提出者就是整个换掉，
        同一种就只看它哪几项设置不同。"""
        settings = _differing(self.settings, full.settings)
        if self.llm.replaces(full.llm):
            return Changes(self.llm, True, settings)
        llm_settings = _differing(self.llm.settings, full.llm.settings)
        llm = ProposerDescription(self.llm.kind, llm_settings) if llm_settings else None
        return Changes(llm, False, settings)


@dataclass(frozen=True)
class Changes:
    """一个变体比另一个改了什么。llm：换了一种提出者（replaced）时是整个新的提出者，
    同一种时是只带改了的那几项设置的它，没改是 None；settings：改了的 evolve 设置。"""
    llm: object
    replaced: bool
    settings: tuple

    def __bool__(self):
        return self.llm is not None or bool(self.settings)

    def changed(self):
        """改了的每一项设置：evolve 的，加上同一种提出者改了的（换了提出者时不算它的）。"""
        if self.replaced or self.llm is None:
            return self.settings
        return self.settings + self.llm.settings

    def written(self):
        """照学生在 VARIANTS 里的写法，每一处改动一段：
        MockLLM(feedback="roofline")、"n_islands": 1。
        换了提出者时写整个新的提出者（和讲义默认值不同的参数）。"""
        said = []
        if self.replaced:
            said.append(self.llm.written())
        elif self.llm is not None:
            said.append(self.llm.written(self.llm.settings))
        return said + [s.entry() for s in self.settings]
