"""
CS349E · 第 14 讲 · observations.py —— 05 脚本的"观察"：每一句都由这次印出来的数决定

观察是对上面表里数字的断言。默认设置下它们是讲义的原话；
学生改了 SEEDS、BUDGET、MARKS、VARIANTS 以后，数撑不起的话就换成数真正说明的东西，
或者说为什么不说。这里的函数只读表里印出来的数（三位小数），不跑 evolve，
所以可以拿一张编出来的表直接检查每一条规则。

几个词的定义（README 里也是这样写的）：
  "掉得最多"：表里每一行（包括学生加的）最后一个时刻的中位数里最低的。
  "低于 / 在 / 高于完整方法"：和 full 最后一个时刻的最小–最大比：
      低于最差的种子、在种子之间的波动以内、高于最好的种子。
  "明显变差"、"影响很大"：低于完整方法最差的种子，而且不止 1 个种子。
  "大多潜伏着"（演示 3）：最终数据库里带隐患的程序，在新形状上出错的不超过一半。

自上而下读：
  1. 演示 1 的表（Row、Ablation）和"和完整方法比"
  2. 演示 1 的五条观察
  3. 演示 3 的两条观察
"""
from dataclasses import dataclass

# 观察 5 比较"100 个程序时的分数"（表里有这一列的话）：讲义原话引的就是这一列
EARLY = 100
ONE_SEED = "只有 1 个种子，看不出种子之间的波动"


# ==== 1. 演示 1 的表 ==============================================================================

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


@dataclass(frozen=True)
class Ablation:
    """演示 1 的整张表：marks 是看分数的时刻，seeds 是每个变体的种子数，
    rows 是 变体名 → Row（按表里的顺序）。edited_full：学生改过 full 时它的写法，没改过是空的。"""
    marks: tuple
    seeds: int
    rows: dict
    edited_full: str = ""

    def last(self, name):
        """name 那一行最后一个时刻的中位数。"""
        return self.rows[name].at[self.marks[-1]]

    def ablations(self):
        """除了 full 以外的行：和完整方法比的那些变体。"""
        return [name for name in self.rows if name != "full"]

    def compares(self):
        """"掉得最多""最低"这样的最高级要有至少两个变体可比。"""
        return len(self.ablations()) >= 2

    def lowest(self):
        """变体（不算 full）里最后一个时刻中位数最低的那一行；并列时取表里靠前的。"""
        return min(self.ablations(), key=self.last)

    def spread(self, mark):
        """mark 这个时刻，最高和最低的中位数差多少。"""
        values = [row.at[mark] for row in self.rows.values()]
        return max(values) - min(values)


def versus_full(a, x):
    """x 和完整方法比：(动词, 比的是什么)。低于它最差的种子、在它的最小–最大以内、高于它最好的种子；
    1 个种子时就是和那一个数比。"""
    lo, hi = a.rows["full"].lo, a.rows["full"].hi
    if a.seeds == 1:
        verb = "低于" if x < lo else "高于" if x > hi else "等于"
        return verb, f"完整方法（{lo:.3f}）"
    if x < lo:
        return "低于", f"完整方法最差的种子（{lo:.3f}）"
    if x > hi:
        return "高于", f"完整方法最好的种子（{hi:.3f}）"
    return "在", f"完整方法种子之间的波动以内（{lo:.3f}–{hi:.3f}）"


def compared(a, x):
    """"低于完整方法最差的种子（1.238）"这样的半句。"""
    verb, what = versus_full(a, x)
    return verb + what


def placed(a, names, with_values=False):
    """几行各在完整方法的种子里什么位置，位置相同的合成一段：
    "no_borrow、one_island 在完整方法种子之间的波动以内（…）；
    no_cascade 低于完整方法最差的种子（…）"。
    with_values：名字后面带上它最后一个时刻的中位数。"""
    places = {}
    for name in names:
        places.setdefault(compared(a, a.last(name)), []).append(name)
    said = []
    for place, group in places.items():
        shown = [f"{name} {a.last(name):.3f}" if with_values else name for name in group]
        said.append(f"{'、'.join(shown)} {place}")
    return "；".join(said)


def below_full(a, name):
    """name 那一行低于完整方法最差的种子（1 个种子时：低于那一个数）。"""
    return versus_full(a, a.last(name))[0] == "低于"


# ==== 2. 演示 1 的五条观察 ========================================================================

def no_evolution(a):
    """"掉得最多"：低于完整方法，而且是变体里（学生自己加的也算）最后一个时刻中位数最低的；
    只有一个变体时没有"最"可说。"""
    if "no_evolution" not in a.rows:
        return None
    x = a.last("no_evolution")
    mark = a.marks[-1]
    lowest = a.lowest()
    below = below_full(a, "no_evolution")
    head = "去掉\"进化\"（每次都从初始程序出发）"
    why = "一次修改只能走一小步，好程序要靠在好程序上继续改才能积累出来"
    if a.compares() and lowest == "no_evolution" and below:
        return (f"{head}掉得最多：{mark} 个程序后只有 {x:.3f}，完整方法 {a.last('full'):.3f}。"
                f"{why}——AlphaEvolve 的消融里 \"No evolution\" 同样是最差的之一。")
    said = f"{head}：{mark} 个程序后 {x:.3f}，{compared(a, x)}"
    if a.compares() and lowest != "no_evolution" and below_full(a, lowest):
        said += f"；掉得最多的是 {lowest}（{a.last(lowest):.3f}）"
    if below:
        return f"{said}。{why}。"
    return f"{said}。"


def small_llm(a):
    """"明显变差"：低于完整方法最差的种子，而且不止 1 个种子。"""
    if "small_llm" not in a.rows:
        return None
    x = a.last("small_llm")
    head = f"去掉\"内核常识\"（small_llm，只会单字段小改动）：{x:.3f}"
    if a.seeds > 1 and below_full(a, "small_llm"):
        return (f"{head}。很多好配置要几个字段一起改才到得了（04 脚本演示 2），小改动走不过去。"
                "AlphaEvolve 的 \"Small base LLM only\" 消融也明显变差，"
                "论文的解释是更强的模型能提出更好的修改。")
    why = ONE_SEED if a.seeds == 1 else "这个设置下还看不出内核常识的作用"
    return f"{head}，{compared(a, x)}——{why}。"


# 别的反馈用法：变体名和它在观察 3 里的说法，按讲义的顺序
FEEDBACK_USES = (("fb_roofline", "按\"离 roofline 还差多少\"加权挑"),
                 ("no_feedback", "不看反馈随便挑"),
                 ("fb_worst3", "只盯最差的 3 个"))


def feedback(a):
    """"影响很大"：每一种别的用法都低于完整方法最差的种子（超出种子之间的波动）。"""
    others = [(name, what) for name, what in FEEDBACK_USES if name in a.rows]
    if not others:
        return None
    quoted = "，".join(f"{what} {a.last(name):.3f}" for name, what in others)
    values = f"按\"离见过的最快还差多少\"加权挑形状（full）{a.last('full'):.3f}，{quoted}"
    both = "fb_worst3" in a.rows and "no_feedback" in a.rows
    if both and a.last("fb_worst3") < a.last("no_feedback"):
        values += "——只盯最差的 3 个比随便挑还差"
    see_demo2 = "演示 2 看它们各自指向哪些形状。"
    not_below = [name for name, _ in others if not below_full(a, name)]
    if a.seeds > 1 and not not_below:
        return f"反馈怎么用影响很大：{values}。{see_demo2}"
    if a.seeds == 1:
        why = ONE_SEED + "，说不上影响大不大"
    else:
        why = f"{placed(a, not_below)}，这个设置下看不出反馈怎么用影响很大"
    return f"反馈怎么用：{values}。{why}。{see_demo2}"


# 看起来差别不大的三个部件：观察 4 里的说法和变体名
PARTS = (("借规则", "no_borrow"), ("岛屿数", "one_island"), ("级联", "no_cascade"))


def cascade_saving(a):
    """级联省下多少评估：跑内核次数那一列，full 比 no_cascade 少多少。"""
    if "no_cascade" not in a.rows:
        return ""
    saved = 1 - a.rows["full"].runs / a.rows["no_cascade"].runs
    if saved <= 0:
        return "级联这次没有省下评估（看\"跑内核次数\"那一列）。"
    if saved <= 1 / 3:
        return "级联只省下一小部分评估（这个问题上坏程序不多）。"
    return f"级联省下了 {saved:.0%} 的评估（看\"跑内核次数\"那一列）。"


def small_parts(a):
    """"在波动以内"：中位数在完整方法的最小–最大以内；"略高"：中位数高于完整方法的中位数。"""
    parts = [name for _, name in PARTS if name in a.rows]
    if not parts:
        return None
    full = a.last("full")
    quoted = "、".join(f"{what}（{name} {a.last(name):.3f}）"
                      for what, name in PARTS if name in parts)
    head = f"{quoted}和完整方法（{full:.3f}）"
    saving = cascade_saving(a)
    if a.seeds == 1:
        return (f"{head}：{ONE_SEED}，这几个差别说明不了谁更好。"
                f"{saving}一个小实验得不出\"它们没用\"的结论。")
    outside = [name for name in parts if versus_full(a, a.last(name))[0] != "在"]
    if outside:
        return f"{head}：{placed(a, parts)}；看\"最小–最大\"那一列。{saving}"
    higher = any(a.last(name) > full for name in parts)
    some_higher = "，有的变体的中位数还略高" if higher else ""
    return (f"{head}的差别在种子之间的波动以内（看\"最小–最大\"那一列）{some_higher}。{saving}"
            "这些部件的价值在更大、更难、评估更贵的问题上（多样性、并行、省钱）才显出来——"
            "一个小实验得不出\"它们没用\"的结论；"
            f"反过来，{a.seeds} 个种子的中位数差 0.02 也不能说明谁更好。")


# 讲义的五条观察谈到的行；别的行（学生自己加的变体）由观察 5 和 the_rest 来说
DISCUSSED = (("full", "no_evolution", "small_llm") + tuple(name for name, _ in FEEDBACK_USES)
             + tuple(name for _, name in PARTS))
# 观察 5 引用早期分数的几行：讲义原话里的四个
EARLY_QUOTED = ("full", "no_feedback", "small_llm", "no_evolution")


def budget(a):
    """"早期差别小、后期差别大"：表里有更早和更晚的时刻，而且最高和最低之差变大了。"""
    if len(a.rows) < 2:
        return None
    late = a.marks[-1]
    advice = "比较搜索方法一定要看\"随预算变化的曲线\"，不能只看一个点。"
    if len(a.marks) == 1:
        return f"表里只有一个时刻（{late} 个程序后），看不出差别怎样随预算变化；{advice}"
    early = EARLY if EARLY in a.marks[:-1] else a.marks[0]
    # 讲义引的四行，加上学生自己加的行（上面的观察没谈到的）
    names = [name for name in EARLY_QUOTED if name in a.rows]
    names += [name for name in a.rows if name not in DISCUSSED]
    quoted = "、".join(f"{name} {a.rows[name].at[early]:.3f}" for name in names)
    if a.spread(late) > a.spread(early):
        return f"{early} 个程序时的分数：{quoted}——早期差别小、后期差别大；{advice}"
    return (f"{early} 个程序时的分数：{quoted}——最高和最低差 {a.spread(early):.3f}，"
            f"到 {late} 个程序后差 {a.spread(late):.3f}，差别没有随预算变大；{advice}")


def the_rest(a):
    """上面的观察没谈到的行，各给最后一个时刻的中位数，和它在完整方法的种子里的位置
    （用和上面一样的说法）；1 个种子时只说看不出波动。讲义的九个变体都谈到了，这句就不说。"""
    rest = [name for name in a.rows if name not in DISCUSSED]
    if not rest:
        return None
    head = f"你加的变体（{a.marks[-1]} 个程序后）"
    if a.seeds == 1:
        values = "、".join(f"{name} {a.last(name):.3f}" for name in rest)
        return f"{head}：{values}——{ONE_SEED}。"
    said = placed(a, rest, with_values=True)
    lowest = a.lowest()
    if "no_evolution" not in a.rows and a.compares():
        said += f"；变体里最低的是 {lowest}（{a.last(lowest):.3f}）"
    return f"{head}：{said}。"


def edited_full(a):
    """学生改了 full：先说清楚这里的"完整方法"是他的版本。"""
    if not a.edited_full:
        return None
    return (f"这次的 full 是你改过的（{a.edited_full}）："
            "下面说的\"完整方法\"都是它，不是讲义里的完整方法。")


def demo1(a):
    """演示 1 的观察：删掉的变体，谈它的观察就不说；一条都说不了时说为什么。"""
    rules = (no_evolution, small_llm, feedback, small_parts, budget, the_rest)
    said = [text for text in (rule(a) for rule in rules) if text]
    if not said:
        said = ["表里只有完整方法（full）一行，没有别的变体可以和它比较。"]
    note = edited_full(a)
    return [note] + said if note else said


# ==== 3. 演示 3 的两条观察 ========================================================================

@dataclass(frozen=True)
class Unchecked:
    """演示 3 的表里，分支检查关时一个种子那一行：进数据库的带隐患程序、最终数据库里带隐患的、
    其中在新形状上出错的、最好程序带不带隐患。"""
    entered: int
    stayed: int
    crashed: int
    best_bad: bool


def latent_enter(off):
    """off：分支检查关时每个种子的 Unchecked。
    有多少带隐患的程序进了数据库、留到最后、成了最好程序。"""
    entered = sum(r.entered for r in off)
    stayed = sum(r.stayed for r in off)
    best = sum(r.best_bad for r in off)
    if not entered:
        return (f"不做分支检查时，这次进数据库的程序里（{len(off)} 个种子合计）"
                "没有一个带不能启动的分支；真有的话，训练形状从来走不到那个分支，分数也看不出来。")
    first = (f"不做分支检查时，进数据库的程序里有 {entered} 个（{len(off)} 个种子合计）"
             "至少有一个分支返回不能启动的配置——训练形状从来没走到那个分支，所以分数看不出来。")
    if not stayed:
        return first + "这次它们都没有留到最终的数据库里。"
    stayed_too = f"最终的数据库里仍有 {stayed} 个这样的程序，"
    if best:
        return first + stayed_too + f"{best} 个种子的\"最好程序\"本身就带着一个。"
    return first + stayed_too + "不过没有一个种子的\"最好程序\"带着它们。"


def latent_crash(off, n_extra):
    """"大多潜伏着"：最终数据库里带隐患的程序，在 n_extra 个新形状上出错的不超过一半。"""
    stayed = sum(r.stayed for r in off)
    crashed = sum(r.crashed for r in off)
    where = f"在 {n_extra} 个新形状上（新的 M、405B 分片的 N、K）"
    moral = "这正是\"测试覆盖不到的分支\"在生产里出事的方式。"
    if not stayed:
        return (f"这次最终的数据库里没有带隐患的程序，{where}也就没有一个出错。"
                f"隐患要等某个没见过的形状碰巧走进那个分支才出事——{moral}")
    if 2 * crashed <= stayed:
        return (f"{where}真正出错的有 {crashed} 个：隐患大多潜伏着，"
                f"直到某个没见过的形状碰巧走进那个分支。{moral}")
    return (f"{where}真正出错的有 {crashed} 个，超过最终数据库里带隐患的 {stayed} 个的一半："
            f"这次多数隐患一碰到没见过的形状就发作。{moral}")
