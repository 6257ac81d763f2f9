"""
CS349E · 第 14 讲 · observations.py —— 05 脚本的"观察"：每一句都由这次印出来的数决定

观察是对上面表里数字的断言。默认设置下它们是讲义的原话；学生改了 SEEDS、BUDGET、MARKS、
VARIANTS 以后，数撑不起的话就换成数真正说明的东西，或者说为什么不说。这里只读表
（ablation.Ablation：印出来的三位小数、每一行的设置、关于表的事实），不跑 evolve，所以可以拿一张
编出来的表直接检查每一条规则。比高低只有一条规则，compare.versus（两边看）：说"低于""高于""最低"
"掉得最多""明显变差""影响很大"的每一句都用它，1 个种子时就是比两个数、而且说出来。几个词的
意思写在每条规则上面，lecture14/README.md 的"观察说什么"一节也是这样写的。

自上而下读：
  1. 几行说成半句：和完整方法比、最低
  2. 演示 1 的观察
  3. 演示 3 的两条观察
"""
import unicodedata
from dataclasses import dataclass

from ablation import (DATABASE, DATABASE_SETTINGS, LECTURE_NAMES, LECTURE_ROWS, WHY_INERT,
                      inert, isolating, lecture_alone, printed, same_runs)
from compare import ABOVE, BELOW, ONE_SEED, WITHIN

# 观察 5 比较"100 个程序时的分数"（表里有这一列的话）：讲义原话引的就是这一列
EARLY = 100
# "后期差别大"：最高和最低之差至少变成早期的 1.5 倍。只大了一点（0.030 → 0.043）时，
# 换几个种子就可能反过来，算不上"早期差别小、后期差别大"
GROWS = 1.5


# ==== 1. 几行说成半句 ============================================================================

def spaced(*pieces):
    """几段接成半句：接口两边有一边是名字、数（窄的字）时空一格（"最低的是 no_evolution"），
    两边都是汉字时不空（"最低的是不进化"）。学生的变体名可以是中文。"""
    text = pieces[0]
    for piece in pieces[1:]:
        both_wide = all(unicodedata.east_asian_width(ch) in "WF" for ch in (text[-1], piece[0]))
        text += ("" if both_wide else " ") + piece
    return text


def part_name(a, part, rows):
    """句子里怎样叫 part（rows 是和 full 只差在它上面的行）：数据库叫这几行改了的那几项，
    别的部件就叫它的名字。"""
    if part != DATABASE:
        return part
    changed = {setting.name for name in rows for setting in a.changed(name).changed()}
    return "和".join(word for name, word in DATABASE_SETTINGS.items() if name in changed)


def difference(a, name):
    """"比 full 改了 MockLLM(knowledge=True)、"evolution": False"（照 VARIANTS 的写法）；
    没改就照说。"""
    changes = a.changed(name)
    if not changes:
        return "选项和 full 一样"
    return "比 full 改了 " + "、".join(changes.written())


def how_it_picks(options):
    """这一行的 MockLLM 怎样挑形状下手（观察 3 的说法）。options 是它的 variants.Variant。"""
    feedback = options.llm.value("feedback")
    if feedback is None:
        return "不看反馈随便挑"
    if options.llm.value("focus") == "worst3":
        if feedback == "best":
            return "只盯最差的 3 个"
        return "只盯离 roofline 最远的 3 个"
    if feedback == "best":
        return "按\"离见过的最快还差多少\"加权挑"
    return "按\"离 roofline 还差多少\"加权挑"


def within_said(a, name, other, inside, beside):
    """name 和 other 分不出高低（versus 是 WITHIN）时，说是哪一边的种子把差包住了：name 的中位数在
    other 的最小–最大里（"在{inside}种子之间的波动以内"），或者（中位数在外面）other 的中位数在
    name 自己的最小–最大里（"和{beside}的差在它自己种子之间的波动以内"）。"""
    mine, theirs = a.final(name), a.final(other)
    if theirs.lo <= mine.median <= theirs.hi:
        return f"在{inside}种子之间的波动以内（{theirs.lo:.3f}–{theirs.hi:.3f}）"
    return (f"和{beside}（{theirs.median:.3f}）的差在它自己种子之间的波动以内"
            f"（{mine.lo:.3f}–{mine.hi:.3f}）")


def compared(a, name):
    """name 那一行和完整方法比（Ablation.versus）的半句："低于完整方法最差的种子（1.238）"；
    在波动以内时见 within_said。1 个种子时就是和那一个数比。"""
    full = a.final("full")
    side = a.versus(name, "full")
    if a.seeds == 1:
        verb = "等于" if side == WITHIN else side
        return f"{verb}完整方法（{full.median:.3f}）"
    if side == BELOW:
        return f"低于完整方法最差的种子（{full.lo:.3f}）"
    if side == ABOVE:
        return f"高于完整方法最好的种子（{full.hi:.3f}）"
    return within_said(a, name, "full", "完整方法", "完整方法")


def outside_full(a, name):
    """name 那一行在完整方法的哪一边（Ablation.versus）："低于"或"高于"。在波动以内时是 None；
    只有 1 个种子时也是 None（看不出波动，就说不上"明显"）。"""
    if a.seeds == 1:
        return None
    side = a.versus(name, "full")
    return side if side in (BELOW, ABOVE) else None


def one_seed_said(a):
    """1 个种子时句末的提醒：比的只是一个数。"""
    return f"——{ONE_SEED}" if a.seeds == 1 else ""


def placed(a, names, shown=None):
    """几行各在完整方法的种子里什么位置，位置相同的合成一段：
    "no_borrow、one_island 在完整方法种子之间的波动以内（…）；
    no_cascade 低于完整方法最差的种子（…）"。shown(name)：名字那里写什么（默认就是名字）。"""
    places = {}
    for name in names:
        places.setdefault(compared(a, name), []).append(name)
    said = []
    for place, group in places.items():
        shown_group = [shown(name) if shown else name for name in group]
        said.append(spaced("、".join(shown_group), place))
    return "；".join(said)


def with_values(a, names):
    """"no_evolution 1.057、mine 1.060"：几行和它们最后一个时刻的中位数。"""
    return "、".join(f"{name} {a.last(name):.3f}" for name in names)


def lowest_said(a, names, word):
    """"掉得最多的是 mine（1.043）"；几行一起是最低的一组（Ablation.bottom）时一起说：印出来一样低
    是"no_evolution 和 mine 并列掉得最多（1.043）"，不一样是"no_evolution 1.057、mine 1.060
    并列掉得最多（彼此在种子之间的波动以内）"。"""
    value = a.last(names[0])
    if len(names) == 1:
        return f"{spaced(word + '的是', names[0])}（{value:.3f}）"
    if all(a.last(name) == value for name in names):
        return f"{spaced('、'.join(names[:-1]), '和', names[-1], '并列' + word)}（{value:.3f}）"
    return f"{spaced(with_values(a, names), '并列' + word)}（彼此在种子之间的波动以内）"


# ==== 2. 演示 1 的观察 ============================================================================

def part_sentence(a, part):
    """讲义那句原话说不得时（和 full 只差 part 的行不止讲义的那一行，或者不是讲义说的那样）：
    只说这几行各在完整方法的种子里什么位置，不下"掉得最多""看不出作用"这样的结论。"""
    rows = isolating(a, part)
    if not rows:
        return None
    said = placed(a, rows, lambda name: f"{name}（{difference(a, name)}）{a.last(name):.3f}")
    return (f"{part}（和 full 只差这一样的行，{a.marks[-1]} 个程序后）："
            f"{said}{one_seed_said(a)}。")


# 讲义谈"去掉进化"的原话里的两段
NO_EVOLUTION = "去掉\"进化\"（每次都从初始程序出发）"
WHY_EVOLUTION = "一次修改只能走一小步，好程序要靠在好程序上继续改才能积累出来"


def dropped_most(a, lowest):
    """讲义的原话"去掉'进化'……掉得最多"：lowest 是最低的那一组（含 no_evolution），组里别的行一起
    说——印出来一样低的说"都只有"，不一样的带上各自的数，说它们彼此在种子之间的波动以内。"""
    x = a.last("no_evolution")
    tied = [name for name in lowest if name != "no_evolution"]
    same = all(a.last(name) == x for name in tied)
    shown = "、".join(tied if same else [f"{name}（{a.last(name):.3f}）" for name in tied])
    together = spaced("和", shown, "并列") if tied else ""
    apart = "" if same else "（彼此在种子之间的波动以内）"
    only = "都只有" if tied and same else "只有"
    return (f"{NO_EVOLUTION}{together}掉得最多{apart}：{a.marks[-1]} 个程序后{only} {x:.3f}，"
            f"完整方法 {a.last('full'):.3f}。"
            f"{WHY_EVOLUTION}——AlphaEvolve 的消融里 \"No evolution\" 同样是最差的之一。")


def no_evolution_sentence(a):
    """"掉得最多"：明显低于完整方法，而且在最低的那一组里（Ablation.bottom）。只有一个变体时没有
    "最"可说。不是最低时只说它在完整方法的哪一边，最低的一组（也低于完整方法的话）另外点名。"""
    if not lecture_alone(a, "进化", "no_evolution"):
        return part_sentence(a, "进化")
    lowest = (a.bottom() or []) if a.compares() else []
    dropped = outside_full(a, "no_evolution") == BELOW
    if dropped and "no_evolution" in lowest:
        return dropped_most(a, lowest)
    said = (f"{NO_EVOLUTION}：{a.marks[-1]} 个程序后 {a.last('no_evolution'):.3f}，"
            f"{compared(a, 'no_evolution')}")
    others_dropped = all(outside_full(a, name) == BELOW for name in lowest)
    if lowest and "no_evolution" not in lowest and others_dropped:
        said += "；" + lowest_said(a, lowest, "掉得最多")
    if dropped:
        return f"{said}。{WHY_EVOLUTION}。"
    return f"{said}{one_seed_said(a)}。"


def small_llm_sentence(a):
    """"明显变差"：低于完整方法最差的种子，而且不止 1 个种子；高于它最好的种子就说反而更好。"""
    if not lecture_alone(a, "内核常识", "small_llm"):
        return part_sentence(a, "内核常识")
    x = a.last("small_llm")
    head = f"去掉\"内核常识\"（small_llm，只会单字段小改动）：{x:.3f}"
    side = outside_full(a, "small_llm")
    if side == BELOW:
        return (f"{head}。很多好配置要几个字段一起改才到得了（04 脚本演示 2），小改动走不过去。"
                "AlphaEvolve 的 \"Small base LLM only\" 消融也明显变差，"
                "论文的解释是更强的模型能提出更好的修改。")
    if side == ABOVE:
        why = "这个设置下去掉内核常识反而更好"
    elif a.seeds == 1:
        why = ONE_SEED
    else:
        why = "这个设置下还看不出内核常识的作用"
    return f"{head}，{compared(a, 'small_llm')}——{why}。"


# 讲义谈的别的反馈用法，按讲义原话的顺序（观察 3 里各自的说法由 how_it_picks 照它的设置给出）
FEEDBACK_USES = ("fb_roofline", "no_feedback", "fb_worst3")


def feedback_uses(a):
    """观察 3 掂量的行：和 full 只差在挑形状上的每一行。讲义的那几行照讲义原话的顺序在前
    （默认设置下就是原话），别的（学生加的，或因为改了 full 才只差在这上面的）按表里的顺序在后。"""
    rows = isolating(a, "反馈怎么用")
    lecture = [name for name in FEEDBACK_USES if name in rows and a.as_in_lecture(name)]
    return lecture + [name for name in rows if name not in lecture]


def use_quoted(a, name):
    """观察 3 里的一行：怎样挑和它的中位数。讲义的行照原话（"不看反馈随便挑 1.228"），
    别的行再带上行名（"只盯最差的 3 个（fb_worst3）1.186"）。"""
    picks = how_it_picks(a.options[name])
    value = f"{a.last(name):.3f}"
    if name in FEEDBACK_USES and a.as_in_lecture(name):
        return f"{picks} {value}"
    return f"{picks}（{name}）{value}"


def worst3_versus_random(a):
    """只盯最差的 3 个和随便挑比（Ablation.versus，两边看）。1 个种子时就是比两个数，
    就在这半句里说出来：结论只靠各一个数。"""
    side = a.versus("fb_worst3", "no_feedback")
    picks = how_it_picks(a.options["fb_worst3"])
    one = "（各只有 1 个种子）" if a.seeds == 1 else ""
    if side == BELOW:
        return f"{picks}比随便挑还差{one}"
    if side == ABOVE:
        return f"{picks}反而比随便挑好{one}"
    if a.seeds == 1:
        return f"{picks}和随便挑一样{one}"
    return picks + within_said(a, "fb_worst3", "no_feedback", "随便挑的", "随便挑")


def feedback_verdict(a, uses):
    """不是每种别的用法都明显更差时，数说明了什么（至少 2 个种子）。"这个设置下看不出……"这样的
    结论只在没有一行落在完整方法的种子外面时说；有一行在外面，就说每一行在哪。"""
    sides = [outside_full(a, name) for name in uses]
    where = placed(a, uses)
    if sides.count(ABOVE) == len(uses):
        return f"{where}：这个设置下 full 的挑法反而最差"
    if ABOVE in sides:
        return f"{where}：这个设置下 full 的挑法不是最好的"
    if BELOW in sides:
        return f"{where}：有的挑法明显比 full 的差，有的差别在种子的波动以内"
    # 都在波动以内：中位数谁高谁低不下结论（full 的中位数最低也不说"最低"）
    if all(a.last(name) > a.last("full") for name in uses):
        return f"{where}：这个设置下看不出 full 的挑法更好"
    return f"{where}，这个设置下看不出反馈怎么用影响很大"


# 演示 2 的两种排序：按 feedback="roofline" 和 feedback="best" 挑形状时各看的那个比值
DEMO2_RANKINGS = ("roofline", "best")


def demo2_shows(a, uses):
    """"演示 2 看它们各自指向哪些形状"：这句谈到的挑法（full 和 uses）里，演示 2 的两种排序
    都有时才说；少了一种，演示 2 就没有画出这句要比的东西。"""
    picks = [a.options[name].llm.value("feedback") for name in ["full"] + uses]
    return all(ranking in picks for ranking in DEMO2_RANKINGS)


def feedback_sentence(a):
    """"影响很大"：每一种别的用法都低于完整方法最差的种子（超出种子之间的波动）；
    反过来的时候说是反过来。"""
    uses = feedback_uses(a)
    if not uses:
        return None
    quoted = "，".join(use_quoted(a, name) for name in uses)
    full_picks = how_it_picks(a.options["full"])
    values = f"{full_picks}形状（full）{a.last('full'):.3f}，{quoted}"
    if all(name in uses and a.as_in_lecture(name) for name in ("fb_worst3", "no_feedback")):
        values += "——" + worst3_versus_random(a)
    see_demo2 = "演示 2 看它们各自指向哪些形状。" if demo2_shows(a, uses) else ""
    if all(outside_full(a, name) == BELOW for name in uses):
        return f"反馈怎么用影响很大：{values}。{see_demo2}"
    if a.seeds == 1:
        why = ONE_SEED + "，说不上影响大不大"
    else:
        why = feedback_verdict(a, uses)
    return f"反馈怎么用：{values}。{why}。{see_demo2}"


# 看起来差别不大的三个部件（观察 4 一起说）
SMALL_PARTS = ("借规则", DATABASE, "级联")


def cascade_sentence(a):
    """级联省下多少评估：跑内核次数那一列，full 比 no_cascade 少多少。"""
    if not a.as_in_lecture("no_cascade"):
        return ""
    saved = 1 - a.rows["full"].runs / a.rows["no_cascade"].runs
    if saved <= 0:
        return "级联这次没有省下评估（看\"跑内核次数\"那一列）。"
    if saved <= 1 / 3:
        return "级联只省下一小部分评估（这个问题上坏程序不多）。"
    return f"级联省下了 {saved:.0%} 的评估（看\"跑内核次数\"那一列）。"


def seed_wobble(a, names):
    """讲义原话的说法：这几行里种子之间波动最大的那一行，最小–最大差多少（两位小数）。
    讲义的设置下它是 0.02（one_island 的 1.242–1.259）。它比 versus 宽松（同一次运行里
    no_feedback 比完整方法低 0.013 就算"影响很大"），所以只在讲义的设置下用，README 里说了。"""
    wobble = max(a.rows[name].hi - a.rows[name].lo for name in names)
    return f"{wobble:.2f}"


def noise_gap(a, names):
    """names 这几行（parts_sentence 刚说了它们和完整方法的差都在种子之间的波动以内）和完整方法的
    中位数最多差多少：提醒"差多少也说明不了谁更好"时引的就是它，刚才算作波动的每一个差都不比它大，
    两半句不会互相矛盾。"""
    full = a.last("full")
    return printed(max(abs(a.last(name) - full) for name in names))


def caution(a, parts, differences):
    """parts_sentence 的最后半句：差多少也说明不了谁更好。讲义的设置下照讲义原话
    （seed_wobble），别的设置下引刚才算作波动的那几个差里最大的（noise_gap）。
    差都是 0 时就不说。differences 是"这个差别"或"这几个差别"。"""
    if a.at_lecture_settings():
        wobble = seed_wobble(a, ["full"] + parts)
        return f"；反过来，{a.seeds} 个种子的中位数差 {wobble} 也不能说明谁更好。"
    gap = noise_gap(a, parts)
    if gap == 0:
        return "。"
    most = "" if len(parts) == 1 else "最多"
    return (f"；反过来，{a.seeds} 个种子时{differences}（中位数{most}差 {gap:.3f}）"
            "也不能说明谁更好。")


def parts_quoted(a, weighed):
    """"借规则（no_borrow 1.241）、岛屿数（one_island 1.247）……和完整方法（1.241）"：weighed 是
    部件 → 和 full 只差在它上面的行。"""
    quoted = "、".join(f"{part_name(a, part, rows)}"
                      f"（{'、'.join(f'{name} {a.last(name):.3f}' for name in rows)}）"
                      for part, rows in weighed.items() if rows)
    return f"{quoted}和完整方法（{a.last('full'):.3f}）"


def parts_words(weighed, parts):
    """只掂量了一个部件（一行）时说"这个部件""它""这个差别"，不说"这些""它们""这几个"。"""
    one_part = sum(1 for rows in weighed.values() if rows) == 1
    one_row = len(parts) == 1
    return {"these": "这个部件" if one_part else "这些部件", "them": "它" if one_part else "它们",
            "differences": "这个差别" if one_row else "这几个差别",
            "some_rows": "它" if one_row else "有的变体"}


def parts_sentence(a):
    """"在波动以内"：两边看分不出高低（versus）；"略高"：中位数高于完整方法的中位数。
    每个部件掂量和 full 只差在它上面的每一行；"这些部件的价值……才显出来"只在它们都在波动以内时
    说。"""
    weighed = {part: isolating(a, part) for part in SMALL_PARTS}
    parts = [name for rows in weighed.values() for name in rows]
    if not parts:
        return None
    words = parts_words(weighed, parts)
    head = parts_quoted(a, weighed)
    saving = cascade_sentence(a)
    if a.seeds == 1:
        return (f"{head}：{ONE_SEED}，{words['differences']}说明不了谁更好。"
                f"{saving}一个小实验得不出\"{words['them']}没用\"的结论。")
    if any(a.versus(name, "full") != WITHIN for name in parts):
        return f"{head}：{placed(a, parts)}；看\"最小–最大\"那一列。{saving}"
    higher = any(a.last(name) > a.last("full") for name in parts)
    some_higher = f"，{words['some_rows']}的中位数还略高" if higher else ""
    return (f"{head}的差别在种子之间的波动以内（看\"最小–最大\"那一列）{some_higher}。{saving}"
            f"{words['these']}的价值在更大、更难、评估更贵的问题上（多样性、并行、省钱）才显出来——"
            f"一个小实验得不出\"{words['them']}没用\"的结论"
            f"{caution(a, parts, words['differences'])}")


# 讲义的观察谈到的行；别的行（学生自己加的变体）由观察 5 和 rest_sentence 来说
DISCUSSED = LECTURE_NAMES
# 观察 5 引用早期分数的几行：讲义原话里的四个
EARLY_QUOTED = ("full", "no_feedback", "small_llm", "no_evolution")


def grows(early_spread, late_spread):
    """最高和最低之差从早期到最后，变大了，而且至少变成 GROWS 倍（都是 0 不算变大）。"""
    return late_spread > early_spread and late_spread >= GROWS * early_spread


def how_spread_changed(early_spread, late_spread):
    """最高和最低之差没有变大到 GROWS 倍时，它实际怎样变了。"""
    if late_spread > early_spread:
        ratio = late_spread / early_spread
        return (f"只变成原来的 {ratio:.2f} 倍（不到 {GROWS} 倍），"
                "说不上早期差别小、后期差别大")
    if late_spread == early_spread:
        return "差别没有随预算变化"
    return "差别反而随预算变小了"


def budget_sentence(a):
    """"早期差别小、后期差别大"：表里有更早和更晚的时刻，而且表里所有行最高和最低之差到最后
    至少变成 GROWS 倍。引的早期分数是讲义的那几行和学生加的行（讲义原话引的是这几行），
    差总是整张表的：只看引的几行的话，没引的一行（早期最高的 one_island）就被漏掉了。"""
    if len(a.rows) < 2:
        return None
    late = a.marks[-1]
    advice = "比较搜索方法一定要看\"随预算变化的曲线\"，不能只看一个点。"
    if len(a.marks) == 1:
        return f"表里只有一个时刻（{late} 个程序后），看不出差别怎样随预算变化；{advice}"
    early = EARLY if EARLY in a.marks[:-1] else a.marks[0]
    # 引讲义的四行，加上学生自己加的行（上面的观察没谈到的）；不够两行就引整张表
    names = [name for name in EARLY_QUOTED if name in a.rows]
    names += [name for name in a.rows if name not in DISCUSSED]
    if len(names) < 2:
        names = list(a.rows)
    quoted = "、".join(f"{name} {a.rows[name].at[early]:.3f}" for name in names)
    early_spread, late_spread = a.spread(a.rows, early), a.spread(a.rows, late)
    # "后期差别大"要最后一个时刻真有差别：中位数最低和最高的两行，两边看也分得出高低
    lowest, highest = min(a.rows, key=a.last), max(a.rows, key=a.last)
    apart = a.versus(lowest, highest) == BELOW
    one = f"（{ONE_SEED}）" if a.seeds == 1 else ""
    if grows(early_spread, late_spread) and apart:
        return f"{early} 个程序时的分数：{quoted}——早期差别小、后期差别大{one}；{advice}"
    spreads = (f"{early} 个程序时的分数：{quoted}——表里各行最高和最低差 {early_spread:.3f}，"
               f"到 {late} 个程序后差 {late_spread:.3f}，")
    if grows(early_spread, late_spread):
        return (f"{spreads}但最后中位数最高的 {highest} 和最低的 {lowest} 的差还在种子之间的"
                f"波动以内，说不上后期差别大；{advice}")
    return f"{spreads}{how_spread_changed(early_spread, late_spread)}{one}；{advice}"


# 有一句观察专门掂量的部件（提示和程序一起进化没有：只差它的行由最后一句和别的行一起说）
WEIGHED_PARTS = ("进化", "内核常识", "反馈怎么用") + SMALL_PARTS


def weighed(a, name):
    """name 这一行已经在谈某个部件的那句观察里了吗（它和 full 只差在那个部件上）。"""
    return any(name in isolating(a, part) for part in WEIGHED_PARTS)


def unlike_lecture_sentence(a):
    """讲义的行，但和这次的 full 不是只差讲义说的那一样（学生改了 full 或这一行），也没有哪句
    谈部件的观察掂量它：讲义说它的话就不说，改说它比 full 改了什么、在完整方法的种子里什么位置。"""
    unlike = [name for name in a.rows if name in LECTURE_ROWS and not a.as_in_lecture(name)
              and not weighed(a, name)]
    if not unlike:
        return None
    said = placed(a, unlike, lambda name: f"{name}（{difference(a, name)}）{a.last(name):.3f}")
    rows, them = ("这一行", "它") if len(unlike) == 1 else ("这几行", "它们")
    return (f"{rows}和这次的 full 不是只差讲义说的那一样，讲义说{them}的话这里不说"
            f"（{a.marks[-1]} 个程序后）：{said}{one_seed_said(a)}。")


def rest_sentence(a):
    """学生自己加的行（谈部件的观察已经掂量过的除外），各给最后一个时刻的中位数，和它在完整方法的
    种子里的位置（用和上面一样的说法）。讲义的九个变体都在时，这句就不说。"""
    rest = [name for name in a.rows if name not in DISCUSSED and not weighed(a, name)]
    if not rest:
        return None
    said = placed(a, rest, lambda name: f"{name} {a.last(name):.3f}")
    return f"你加的变体（{a.marks[-1]} 个程序后）：{said}{one_seed_said(a)}。"


def lowest_sentence(a):
    """讲义的"掉得最多"那句不说时（no_evolution 删了、改了，或者不止它只差在进化上），
    说变体里最低的是哪几行（Ablation.bottom）；说不出时（和中位数最低的那行分不出高低的还有别的行，
    它们又不都低于其余各行）就说没有哪一行最低，和哪几行分不出。"""
    if lecture_alone(a, "进化", "no_evolution") or not a.compares():
        return None
    lowest = a.bottom()
    one = one_seed_said(a)
    if lowest is None:
        low, *tied = a.tied_with_lowest()
        return (f"说不出哪一行最低：{low}（{a.last(low):.3f}）和 "
                f"{with_values(a, tied)} 的差都在种子之间的波动以内（{a.marks[-1]} 个程序后）。")
    said = lowest_said(a, lowest, "最低")
    # "变体里最低的是 mine（…）"；并列时"a 和 b 并列最低（…）"，前面不加"变体里"
    return f"变体里{said}{one}。" if len(lowest) == 1 else f"{said}{one}。"


def edited_full_sentence(a):
    """学生改了 full：先说清楚这里的"完整方法"是他的版本。"""
    edited = a.edited_full()
    if not edited:
        return None
    return (f"这次的 full 是你改过的（比讲义的 full 改了 {'、'.join(edited.written())}）："
            "下面说的\"完整方法\"都是它，不是讲义里的完整方法。")


def inert_said(name, idle):
    """"fb_x 写的 focus="worst3" 什么都不改（……）"：idle 是这一行的 [ablation.Idle]。"""
    written = "、".join(i.setting.argument() if i.of_llm else i.setting.entry() for i in idle)
    why = "；".join(dict.fromkeys(WHY_INERT[i.why] for i in idle))
    return f"{name} 写的 {written} 什么都不改（{why}）"


def same_sentence(a):
    """选项改了等于没改的行：说出来，别当成发现（issue 62）。写了不起作用的设置的行说为什么；
    实际跑同一个方法的几行说它们的数一样不是发现。"""
    idle = {name: inert(a.options[name]) for name in a.rows}
    said = [inert_said(name, idle[name]) for name in a.rows if idle[name]]
    for names in same_runs(a):
        said.append(spaced("、".join(names[:-1]), "和", names[-1],
                           "实际跑的是同一个方法，印出来的数一样不是发现"))
    if not said:
        return None
    return "先说一句：" + "；".join(said) + "。"


def demo1(a):
    """演示 1 的观察：删掉的变体，谈它的观察就不说；一条都说不了时说为什么。学生改了 full、
    写了改了等于没改的行时，先说这些。"""
    rules = (no_evolution_sentence, small_llm_sentence, feedback_sentence, parts_sentence,
             budget_sentence, unlike_lecture_sentence, rest_sentence, lowest_sentence)
    said = [text for text in (rule(a) for rule in rules) if text]
    if not said:
        said = ["表里只有完整方法（full）一行，没有别的变体可以和它比较。"]
    notes = [note for note in (edited_full_sentence(a), same_sentence(a)) if note]
    return notes + said


# ==== 3. 演示 3 的两条观察 ========================================================================

@dataclass(frozen=True)
class Unchecked:
    """演示 3 的表里，分支检查关时一个种子那一行：进数据库的带隐患程序、最终数据库里带隐患的、
    其中在新形状上出错的、最好程序带不带隐患。"""
    entered: int
    stayed: int
    crashed: int
    best_bad: bool


def latent_enter_sentence(off):
    """off：分支检查关时每个种子的 Unchecked。
    有多少带隐患的程序进了数据库、留到最后、成了最好程序。"""
    entered = sum(r.entered for r in off)
    stayed = sum(r.stayed for r in off)
    best = sum(r.best_bad for r in off)
    # 1 个种子时没有什么可合计的
    seeds = f"（{len(off)} 个种子合计）" if len(off) > 1 else "（只跑了 1 个种子）"
    if not entered:
        return (f"不做分支检查时，这次进数据库的程序里{seeds}"
                "没有一个带不能启动的分支；真有的话，训练形状从来走不到那个分支，分数也看不出来。")
    first = (f"不做分支检查时，进数据库的程序里有 {entered} 个{seeds}"
             "至少有一个分支返回不能启动的配置——训练形状从来没走到那个分支，所以分数看不出来。")
    if not stayed:
        them = "它没有" if entered == 1 else "它们都没有"
        return first + f"这次{them}留到最终的数据库里。"
    stayed_too = f"最终的数据库里仍有 {stayed} 个这样的程序，"
    if len(off) == 1:
        carries = "本身就带着一个" if best else "没有带着它们"
        return first + stayed_too + f"这个种子的\"最好程序\"{carries}。"
    if best == len(off):
        return first + stayed_too + f"全部 {best} 个种子的\"最好程序\"本身都带着一个。"
    if best:
        return first + stayed_too + f"{best} 个种子的\"最好程序\"本身就带着一个。"
    return first + stayed_too + "不过没有一个种子的\"最好程序\"带着它们。"


def latent_crash_sentence(off, n_extra):
    """最终数据库里带隐患的程序，在 n_extra 个新形状上出错了多少：全部出错说"全都"，
    一个没错也说"全都"（潜伏着），不到一半说"大多潜伏着"，正好一半说"一半"，别的说"超过一半"。"""
    stayed = sum(r.stayed for r in off)
    crashed = sum(r.crashed for r in off)
    where = f"在 {n_extra} 个新形状上（新的 M、405B 分片的 N、K）"
    moral = "这正是\"测试覆盖不到的分支\"在生产里出事的方式。"
    waits = "直到某个没见过的形状碰巧走进那个分支。"
    if not stayed:
        return (f"这次最终的数据库里没有带隐患的程序，{where}也就没有一个出错。"
                f"隐患要等某个没见过的形状碰巧走进那个分支才出事——{moral}")
    if crashed == stayed:
        return (f"{where}真正出错的有 {crashed} 个，就是最终数据库里带隐患的全部 {stayed} 个："
                f"这次隐患一碰到没见过的形状就全都发作。{moral}")
    if not crashed:
        return (f"{where}一个都没有出错：最终数据库里带隐患的 {stayed} 个程序全都潜伏着，"
                f"{waits}{moral}")
    if 2 * crashed < stayed:
        return f"{where}真正出错的有 {crashed} 个：隐患大多潜伏着，{waits}{moral}"
    if 2 * crashed == stayed:
        return (f"{where}真正出错的有 {crashed} 个，正好是最终数据库里带隐患的 {stayed} 个的一半："
                f"另一半潜伏着，{waits}{moral}")
    return (f"{where}真正出错的有 {crashed} 个，超过最终数据库里带隐患的 {stayed} 个的一半："
            f"这次多数隐患一碰到没见过的形状就发作。{moral}")
