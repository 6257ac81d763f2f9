"""
CS349E · 第 14 讲 · ablation.py —— 演示 1 的表：每一行印出来的数、它的设置，两行怎样比

05 脚本印出演示 1 的表以后，把印出来的数（三位小数）和每个变体的设置交给这里的 Ablation；
observations.py 的每一句观察、slides.py 的演示 1 那张（按部件分幅）都只读它。这里是关于表的事实，
不说话：
  两行比：compare.versus（两边看）；最低的一组：Ablation.bottom——中位数最低的那行和跟它分不出高低
      的行，组里每两行都分不出、组外的每一行都高于组里的每一行，说不出这样一组时是 None；
  讲义的九行：只写在 05 脚本的 VARIANTS 里；这里记讲义对每一行说了什么（LECTURE_ROWS），
      讲义说它的话只在它和这次的 full 恰好只差那一项时成立（Ablation.as_in_lecture）；
  方法的部件（PARTS）：一行比 full 改了哪几个部件（parts_changed）、只差在一个部件上的行
      （isolating）；
  写了也什么都不改的设置（inert：不看反馈时的 focus，不进化时的岛数、每岛程序数、借规则），
      和实际跑的是同一个方法的几行（same_runs）。

自上而下读：
  1. 一行（Row）、讲义的设置
  2. 整张表（Ablation）
  3. 方法的部件
  4. 写了也什么都不改的设置
"""
from dataclasses import dataclass, replace

from compare import BELOW, WITHIN, Spread, versus
from evolve import check_options


# ==== 1. 一行、讲义的设置 =========================================================================

def printed(x):
    """表里印出来的那个数（三位小数）：观察只用它，不用没印出来的位数。"""
    return float(f"{x:.3f}")


@dataclass(frozen=True)
class Row:
    """演示 1 的表里一个变体那一行印出来的数。"""
    # 时刻 → 各种子分数的中位数
    at: dict
    # 最后一个时刻，各种子分数的最小、最大
    lo: float
    hi: float
    # 跑内核次数的中位数
    runs: int


# 讲义（seed）的种子数和时刻：05 脚本的学生块默认就是这些（tests 检查两边一样）
LECTURE_SEEDS = 5
LECTURE_MARKS = (50, 100, 300, 1000)


# 讲义的九个变体，只写在 05 脚本的 VARIANTS 里（学生改的就是它）。这里记的是讲义的话对每一行
# 说了什么：full 是 {}（每个选项都取默认值），别的每一行比它只改一项设置，改成这个值（seed 的
# 【变体】一节）。讲义说这一行的话（"去掉"进化""……）只在它和这次的 full 恰好只差这一项时才成立；
# 学生改了 full 或这一行，就改说它们实际差在哪。tests 检查 VARIANTS 的默认值正是这样
LECTURE_ROWS = {
    "fb_roofline": ("feedback", "roofline"),
    "fb_worst3": ("focus", "worst3"),
    "no_feedback": ("feedback", None),
    "small_llm": ("knowledge", False),
    "no_evolution": ("evolution", False),
    "no_borrow": ("use_inspirations", False),
    "one_island": ("n_islands", 1),
    "no_cascade": ("cascade", False),
}


LECTURE_NAMES = ("full",) + tuple(LECTURE_ROWS)


def described(variants):
    """变体名 → 它是什么（variants.Variant）。"""
    return {name: check_options(**kw).describe() for name, kw in variants.items()}


# 讲义的 full：{}
LECTURE_FULL = check_options().describe()


def lecture_says(changes, name):
    """changes（variants.Changes）恰好是讲义说 name 那一行改的那一项：同一种提出者，只改了
    LECTURE_ROWS[name] 那一项设置、改成那个值。"""
    settings = [(setting.name, setting.value) for setting in changes.changed()]
    return not changes.replaced and settings == [LECTURE_ROWS[name]]


# ==== 2. 整张表 ===================================================================================

@dataclass(frozen=True)
class Ablation:
    """演示 1 的整张表：marks 是看分数的时刻，seeds 是每个变体的种子数，
    rows 是 变体名 → Row（按表里的顺序），options 是 变体名 → 它是什么（variants.Variant：
    evolve.Options.describe 的结果，提出者说的它自己加上 evolve 的每个选项）。"""
    marks: tuple
    seeds: int
    rows: dict
    options: dict

    def last(self, name):
        """name 那一行最后一个时刻的中位数。"""
        return self.rows[name].at[self.marks[-1]]

    def ablations(self):
        """除了 full 以外的行：和完整方法比的那些变体。"""
        return [name for name in self.rows if name != "full"]

    def compares(self):
        """"掉得最多""最低"这样的最高级要有至少两个变体可比。"""
        return len(self.ablations()) >= 2

    def final(self, name):
        """name 那一行最后一个时刻的 Spread：中位数和各种子的最小、最大。"""
        row = self.rows[name]
        return Spread(self.last(name), row.lo, row.hi)

    def versus(self, name, other):
        """name 那一行和 other 那一行比（versus，两边看）：BELOW、WITHIN 或 ABOVE。"""
        return versus(self.final(name), self.final(other))

    def tied_with_lowest(self):
        """中位数最低的那行，和跟它分不出高低（versus 是 WITHIN）的几行：最低的在前，别的按表里的
        顺序。印出来一样低的几行总是互相分不出。"""
        low = min(self.rows, key=self.last)
        return [low] + [name for name in self.rows
                        if name != low and self.versus(name, low) == WITHIN]

    def bottom(self):
        """"最低"说得出的那几行（按表里的顺序）：中位数最低的那行和跟它分不出高低的几行
        （tied_with_lowest）——组里每两行都分不出，组外的每一行都高于组里的每一行。这样的一组只能是
        它（和最低的那行分不出的都得在组里）。说不出时（组就是整张表，组里有两行其实分得出，或者
        组外有一行不高于组里的）是 None。"""
        group = self.tied_with_lowest()
        rest = [name for name in self.rows if name not in group]
        apart = any(self.versus(a, b) != WITHIN for a in group for b in group)
        below = all(self.versus(member, name) == BELOW for member in group for name in rest)
        if not rest or apart or not below:
            return None
        return [name for name in self.rows if name in group]

    def spread(self, names, mark):
        """names 这几行在 mark 这个时刻，最高和最低的中位数差多少。"""
        values = [self.rows[name].at[mark] for name in names]
        # 两个三位小数相减，也按三位小数算：0.045 不会因为浮点变成 0.04499…
        return printed(max(values) - min(values))

    def changed(self, name):
        """name 这一行比 full 改了什么（variants.Changes）。"""
        return self.options[name].against(self.options["full"])

    def edited_full(self):
        """这次的 full 比讲义的 full 改了什么（variants.Changes）。
        MockLLM() 这样的等价写法不算改。"""
        return self.options["full"].against(LECTURE_FULL)

    def as_in_lecture(self, name):
        """name 是讲义的一行，而且和 full 恰好差讲义说的那些：讲义说它的话才成立。"""
        return (name in self.rows and name in LECTURE_ROWS
                and lecture_says(self.changed(name), name))

    def at_lecture_settings(self):
        """这次就是讲义自己的设置（种子数、时刻、九个变体都照讲义）：讲义原话里比规则宽松的
        那半句（parts_sentence 的"中位数差 0.02"）只在这时照讲义说。"""
        return (self.seeds == LECTURE_SEEDS and self.marks == LECTURE_MARKS
                and list(self.rows) == list(LECTURE_NAMES) and not self.edited_full()
                and all(self.as_in_lecture(name) for name in LECTURE_ROWS))


# ==== 3. 方法的部件 ===============================================================================

# 方法的部件：每个部件是哪几项设置（variants.Setting 的名字）。一句谈某个部件的观察，掂量的是
# 和 full 只差在这个部件上的每一行（isolating）：讲义的行和学生加的都算
DATABASE = "数据库"
PARTS = {
    "进化": ("evolution",),
    "内核常识": ("knowledge",),
    "反馈怎么用": ("feedback", "focus"),
    "借规则": ("use_inspirations",),
    DATABASE: ("n_islands", "population"),
    "级联": ("cascade",),
    "提示和程序一起进化": ("meta_prompt",),
}
# 数据库这个部件有两项设置：句子里它叫这几行实际改了的那几项（讲义的 one_island 只改岛数）
DATABASE_SETTINGS = {"n_islands": "岛屿数", "population": "每岛程序数"}


def parts_changed(changes):
    """changes（variants.Changes）改了哪几个部件（PARTS 的名字，按 PARTS 的顺序；没改是空的）。
    换了一种提出者，或者改了不属于哪个部件的设置（Ensemble 的配比、MockLLM 的 hints）时是 None：
    说不出它改的是哪个部件。观察（isolating）和演示 1 的幻灯片（按部件分幅）都按它。"""
    names = [setting.name for setting in changes.changed()]
    known = [name for settings in PARTS.values() for name in settings]
    if changes.replaced or any(name not in known for name in names):
        return None
    return [part for part, settings in PARTS.items() if any(name in settings for name in names)]


def changed_parts(variants):
    """变体名 → 它比 full 改了哪几个部件（parts_changed），full 以外的每一行；variants 是 05 脚本
    的 VARIANTS 那样的 变体名 → 选项。演示 1 那张幻灯片按它分幅（curves.panels_by_part）。"""
    options = described(variants)
    return {name: parts_changed(options[name].against(options["full"]))
            for name in variants if name != "full"}


def isolating(a, part):
    """表里和 full 只差在 part 这个部件上的行（换了一种提出者的不算），按表里的顺序。"""
    return [name for name in a.ablations() if parts_changed(a.changed(name)) == [part]]


def lecture_alone(a, part, name):
    """讲义谈 part 的那句原话说得出来：和 full 只差这个部件的恰好就是讲义的 name 那一行，
    而且它差的正是讲义说的那一样。"""
    return isolating(a, part) == [name] and a.as_in_lecture(name)


# ==== 4. 写了也什么都不改的设置 ===================================================================

# 写了也什么都不改的两种情况，和为什么（observations 的 same_sentence 先说这一句）
WHY_INERT = {
    "focus": "focus 只在看反馈时起作用：feedback=None 时随便挑形状，看不到谁最差",
    "evolution": "不进化时每个提案都从初始程序改、不看别的程序，岛数、每岛程序数、借不借规则"
                 "都用不上",
}
# 不进化时用不上的设置：evolve 的、提出者的（不看反馈时的 focus 见 inert_in_llm）
NEEDS_EVOLUTION = ("n_islands", "population")
LLM_NEEDS_EVOLUTION = ("use_inspirations",)


@dataclass(frozen=True)
class Idle:
    """写了、却什么都不改的一项设置：why 是 WHY_INERT 的键，setting 是它（variants.Setting），
    of_llm：是提出者的设置（照 MockLLM(...) 的写法说），不是 evolve 的（照 "n_islands": 1 说）。"""
    why: str
    setting: object
    of_llm: bool


def idle_in(llm, evolution):
    """这一个提出者自己（不算成员）写了、却什么都不改的设置（[Idle]）：不看反馈时的 focus，
    不进化时的借规则。"""
    feedback = {s.name: s.value for s in llm.settings}.get("feedback", "best")
    idle = []
    for setting in llm.settings:
        if setting.value == setting.default:
            continue
        if setting.name == "focus" and feedback is None:
            idle.append(Idle("focus", setting, True))
        if setting.name in LLM_NEEDS_EVOLUTION and not evolution:
            idle.append(Idle("evolution", setting, True))
    return idle


def evolves(variant):
    """这个变体进化吗（evolve 的 evolution 那一项）。"""
    return next(s.value for s in variant.settings if s.name == "evolution")


def inert(variant):
    """一个变体（variants.Variant）写了、却什么都不改的设置（[Idle]）：提出者的（成员也算），
    再是 evolve 的（不进化时的岛数、每岛程序数）。"""
    evolution = evolves(variant)

    def of(llm):
        return idle_in(llm, evolution) + [idle for member in llm.members for idle in of(member)]
    mine = [Idle("evolution", setting, False) for setting in variant.settings
            if setting.name in NEEDS_EVOLUTION and setting.value != setting.default
            and not evolution]
    return of(variant.llm) + mine


def without_inert(llm, evolution):
    """提出者里什么都不改的设置换回默认值，成员也一样（每个成员按它自己的设置判断）。"""
    idle = [i.setting for i in idle_in(llm, evolution)]
    settings = tuple(replace(s, value=s.default) if s in idle else s for s in llm.settings)
    members = tuple(without_inert(member, evolution) for member in llm.members)
    return replace(llm, settings=settings, members=members)


def effective(variant):
    """这个变体实际怎样跑：什么都不改的设置当作没写。"""
    idle = [i.setting for i in inert(variant) if not i.of_llm]
    settings = tuple(replace(s, value=s.default) if s in idle else s for s in variant.settings)
    return replace(variant, llm=without_inert(variant.llm, evolves(variant)), settings=settings)


def same_runs(a):
    """实际跑的是同一个方法的几组行（每组至少两行，按表里的顺序）：effective 之后一样。
    同样的种子跑出的数也一模一样。"""
    # 按相等分组（不按散列：Ensemble 的配比是列表）
    groups = []
    for name in a.rows:
        key = effective(a.options[name])
        group = next((names for same, names in groups if same == key), None)
        if group is None:
            groups.append((key, [name]))
        else:
            group.append(name)
    return [names for _, names in groups if len(names) > 1]
