"""讲义的故事：把 05 脚本整个跑一遍，检查每条"观察"说的话对它上面打印的数字成立。

只读脚本真正打印出来的东西（表格和几行结论），不重新计算——学生看到的就是这些数字。
"""
import math
import re

import pytest
from conftest import STUDENT_EDITS

from evolve import LAYERS, Evaluator, TimeTable, all_shapes, evolve, split_shapes


@pytest.fixture(scope="module")
def output(wide_stdout):
    return wide_stdout                                                # 不换行的那一遍：一行一个表格行、一条观察


def section(out, k):
    start = out.index(f"\n演示 {k}：")
    end = out.find(f"\n演示 {k + 1}：", start)
    return out[start:end if end >= 0 else len(out)]


def table(text, first_header):
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(first_header))
    assert set(lines[i + 1]) <= {"-", " "}
    width = len(re.split(r"\s{2,}", lines[i].strip()))
    rows = []
    for line in lines[i + 2:]:
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) != width:                                       # 表格结束（空行或下一行文字）
            break
        rows.append(cells)
    return rows


@pytest.fixture(scope="module")
def demo1(output):
    text = section(output, 1)
    rows = {r[0]: r for r in table(text, "变体")}
    lo_hi = {k: tuple(map(float, r[5].split("–"))) for k, r in rows.items()}
    oracle = re.search(r"上限（逐形状最优）：训练 ([\d.]+)，测试 ([\d.]+)", text)
    return {"at100": {k: float(r[2]) for k, r in rows.items()}, "at1000": {k: float(r[4]) for k, r in rows.items()},
            "marks": {k: [float(x) for x in r[1:5]] for k, r in rows.items()},
            "min": {k: v[0] for k, v in lo_hi.items()}, "max": {k: v[1] for k, v in lo_hi.items()},
            "test": {k: float(r[6]) for k, r in rows.items()},
            "runs": {k: int(r[7].replace(",", "")) for k, r in rows.items()},
            "oracle_train": float(oracle.group(1)), "oracle_test": float(oracle.group(2))}


def test_prints_the_three_demos_in_order(output):
    starts = [output.index(f"\n演示 {k}：") for k in (1, 2, 3)]
    assert starts == sorted(starts) and output.count("观察：") == 3


# —— 演示 1 ——

def test_1_no_evolution_drops_the_most(demo1):
    med = demo1["at1000"]
    assert med["no_evolution"] == min(med.values())
    assert demo1["max"]["no_evolution"] < demo1["min"]["full"]        # 5 个种子个个都比 full 最差的种子低


def test_2_small_llm_is_clearly_worse(demo1):
    assert demo1["at1000"]["small_llm"] < demo1["min"]["full"]


def test_3_how_feedback_is_used_matters_more_than_the_other_parts(demo1):
    med = demo1["at1000"]
    feedback_gap = min(med["full"] - med[k] for k in ("fb_roofline", "no_feedback", "fb_worst3"))
    other_gap = max(abs(med[k] - med["full"]) for k in ("no_borrow", "one_island", "no_cascade"))
    assert feedback_gap > other_gap


def test_3_feedback_matters_beyond_the_seed_noise(demo1):
    """观察 4 自己的标准：中位数差 0.02 说明不了什么。所以"影响很大"要求每种别的用法的中位数都低于 full 最差的种子。"""
    for k in ("fb_roofline", "no_feedback", "fb_worst3"):
        assert demo1["at1000"][k] < demo1["min"]["full"], k


def test_3_what_holds_on_training_shapes_holds_on_test_shapes(demo1):
    """测试形状是搜索从没见过的一半：消融说"更差"的变体，在测试形状上也不能比 full 好。"""
    test = demo1["test"]
    for k in ("fb_roofline", "fb_worst3", "no_feedback", "small_llm", "no_evolution"):
        assert test["full"] >= test[k], k


def test_4_borrowing_islands_and_cascade_stay_within_the_seed_spread(demo1):
    med = demo1["at1000"]
    others = ("no_borrow", "one_island", "no_cascade")
    assert all(demo1["min"]["full"] <= med[k] <= demo1["max"]["full"] for k in others)
    assert any(med[k] >= med["full"] for k in others)                # "有的变体的中位数还略高"


def test_5_the_cascade_saves_a_small_real_share(demo1):
    full, no_cascade = demo1["runs"]["full"], demo1["runs"]["no_cascade"]
    assert no_cascade > full
    assert (no_cascade - full) / no_cascade <= 0.34


def test_6_differences_grow_with_the_budget(demo1):
    at100, at1000 = demo1["at100"], demo1["at1000"]
    assert max(at100.values()) - min(at100.values()) < max(at1000.values()) - min(at1000.values())
    assert at1000["full"] - at1000["no_evolution"] > at100["full"] - at100["no_evolution"]
    for marks in demo1["marks"].values():
        assert marks == sorted(marks)                                 # 历史是"目前最好"，只升不降


def test_7_the_oracle_bounds_every_score_and_full_generalises(demo1):
    assert all(demo1["oracle_train"] > x for x in demo1["max"].values())
    assert 1 < demo1["test"]["full"] < demo1["oracle_test"]


# —— 演示 2 ——

@pytest.fixture(scope="module")
def demo2(output):
    text = section(output, 2)
    rows = table(text, "按 roofline 最该改的")
    mass = re.search(r"按 roofline (\d+)%，按见过的最快 (\d+)%", text)
    examples = re.search(r"（例如 (.*?)：离 roofline 远", text).group(1)
    return {"roof": [(r[0], float(r[1]), float(r[2])) for r in rows],
            "best": [(r[3], float(r[4]), float(r[5])) for r in rows],
            "m_roof": int(mass.group(1)) / 100, "m_best": int(mass.group(2)) / 100, "examples": examples}


def test_8_the_two_rankings_share_some_shapes_but_not_all(demo2):
    overlap = {r[0] for r in demo2["roof"]} & {r[0] for r in demo2["best"]}
    assert 1 <= len(overlap) <= 4


def test_9_roofline_points_at_shapes_already_at_the_best_seen_that_no_config_helps(demo2):
    stuck = [r for r in demo2["roof"] if r[2] >= 0.95]
    assert stuck and demo2["examples"] != "M 很小的 decode 形状"
    for label in demo2["examples"].split("、"):
        name, m = re.fullmatch(r"(.*) M=(\d+)", label).groups()
        assert label in [r[0] for r in stuck]
        n = LAYERS[name][0]
        few_tiles = math.ceil(int(m) / 128) * math.ceil(n / 128) < 132
        assert int(m) <= 128 or few_tiles, label                     # decode，或者输出块太少占不满 132 个 SM


def test_8_the_overlap_is_a_tendency_over_seeds():
    """"差得多的形状，往往两种看法都差"说的是倾向：种子 0–4 里多数种子的两个前 5 名有 2–4 个相同。"""
    train, _ = split_shapes(all_shapes())
    table = TimeTable()
    overlaps = []
    for seed in range(5):
        ev = Evaluator(train, table)
        best, _ = evolve(ev, 300, seed=seed)["best"]
        fb = ev.per_shape(best)
        top = [{x["shape"] for x in sorted(fb, key=lambda x: x[key])[:5]} for key in ("vs_roofline", "vs_best")]
        overlaps.append(len(top[0] & top[1]))
    assert sum(2 <= n <= 4 for n in overlaps) >= 3, overlaps


def test_10_best_seen_weighting_wastes_less_on_stuck_shapes(demo2):
    assert demo2["m_roof"] >= 0.30
    assert demo2["m_best"] <= 0.75 * demo2["m_roof"]


# —— 演示 3 ——

@pytest.fixture(scope="module")
def demo3(output):
    rows = table(section(output, 3), "分支检查")
    parsed = [{"check": r[0], "added": int(r[2]), "added_bad": int(r[3]), "final": int(r[4]), "latent": int(r[5]),
               "crash": int(r[6]), "best_bad": r[7]} for r in rows]
    return {"on": [r for r in parsed if r["check"] == "开"], "off": [r for r in parsed if r["check"] == "关"]}


def test_11_with_the_check_nothing_bad_gets_anywhere(demo3):
    assert len(demo3["on"]) == 5
    for r in demo3["on"]:
        assert r["added_bad"] == r["latent"] == r["crash"] == 0 and r["best_bad"] == "否"


def test_12_without_the_check_latent_bugs_enter_stay_and_sometimes_go_off(demo3):
    off = demo3["off"]
    assert len(off) == 5
    assert sum(r["added_bad"] for r in off) >= 5
    assert sum(r["latent"] for r in off) > 0
    assert any(r["best_bad"] == "是" for r in off)
    assert sum(r["crash"] for r in off) >= 1
    assert all(r["crash"] <= r["latent"] for r in off)              # 出错的一定是带隐患的
    assert 2 * sum(r["crash"] for r in off) < sum(r["latent"] for r in off)   # "隐患大多潜伏着"：出错的不到一半


# —— 学生改了设置：每条观察都要对它上面印出来的数成立（conftest.STUDENT_EDITS 的每一种改法，加上默认设置）——

RUNS = ["wide"] + list(STUDENT_EDITS)
NUMBER = re.compile(r"\d\.\d{3}")


def observations(text):
    lines = text[text.index("\n观察：\n"):].splitlines()[2:]
    items = []
    for line in lines:
        m = re.match(r"(\d+)\. (.*)", line)
        if not m:
            break
        items.append(m.group(2))
    return items


def printed_table1(text):
    """演示 1 的表，只用印出来的东西：各时刻的中位数、最后时刻的最小–最大、跑内核次数、种子数。"""
    lines = text.splitlines()
    header = re.split(r"\s{2,}", next(line for line in lines if line.startswith("变体")))
    marks = [int(h.split()[0]) for h in header if h.endswith("个程序后")]
    rows = table(text, "变体")
    at = {r[0]: {m: float(r[1 + k]) for k, m in enumerate(marks)} for r in rows}
    lo_hi = {r[0]: tuple(map(float, r[1 + len(marks)].split("–"))) for r in rows}
    return {"marks": marks, "at": at, "last": {k: v[marks[-1]] for k, v in at.items()},
            "lo": lo_hi["full"][0], "hi": lo_hi["full"][1], "cells": {c for r in rows for c in r},
            "runs": {r[0]: int(r[-2].replace(",", "")) for r in rows},
            "seeds": int(re.search(r"× (\d+) 个种子", text).group(1))}


@pytest.fixture(scope="module", params=RUNS)
def run(request, script_runs):
    text = script_runs[request.param]
    demo1 = section(text, 1)
    return {"name": request.param, "t": printed_table1(demo1), "obs": observations(demo1), "demo3": section(text, 3)}


def one(obs, start):
    found = [o for o in obs if o.startswith(start)]
    assert len(found) <= 1
    return found[0] if found else None


def test_every_number_an_observation_quotes_is_printed_in_the_table(run):
    t = run["t"]
    for o in run["obs"]:
        for x in NUMBER.findall(o):
            assert any(x in c for c in t["cells"]), (x, o)
        for n in re.findall(r"(\d+) 个程序[后时]", o):
            assert int(n) in t["marks"], o                                # 只引用表里印出来的时刻
        for n in re.findall(r"(\d+) 个种子", o):
            assert int(n) == t["seeds"], o


def test_observations_speak_only_of_variants_in_the_table(run):
    names = set(run["t"]["at"])
    for o in run["obs"]:
        for name in re.findall(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+|full)\b", o):
            assert name in names, (name, o)


def test_drops_the_most_means_the_lowest_row(run):
    t, o = run["t"], one(run["obs"], "去掉\"进化\"")
    if "no_evolution" not in t["at"]:
        assert o is None
        return
    lowest = min(t["last"], key=t["last"].get)
    m = t["marks"][-1]
    if "掉得最多：" in o:
        assert lowest == "no_evolution"
        assert f"{m} 个程序后只有 {t['last']['no_evolution']:.3f}，完整方法 {t['last']['full']:.3f}" in o
    else:
        assert lowest != "no_evolution" and f"掉得最多的是 {lowest}（{t['last'][lowest]:.3f}）" in o


def test_clearly_worse_means_below_fulls_worst_seed(run):
    t, o = run["t"], one(run["obs"], "去掉\"内核常识\"")
    if "small_llm" not in t["at"]:
        assert o is None
        return
    assert f"：{t['last']['small_llm']:.3f}" in o
    if "明显变差" in o:
        assert t["seeds"] > 1 and t["last"]["small_llm"] < t["lo"]
    else:
        assert t["seeds"] == 1 or t["last"]["small_llm"] >= t["lo"]


def test_feedback_matters_a_lot_only_beyond_the_seed_spread(run):
    t, o = run["t"], one(run["obs"], "反馈怎么用")
    others = [k for k in ("fb_roofline", "no_feedback", "fb_worst3") if k in t["at"]]
    if not others:
        assert o is None
        return
    strong = o.startswith("反馈怎么用影响很大")
    assert strong == (t["seeds"] > 1 and all(t["last"][k] < t["lo"] for k in others))
    worse = "只盯最差的 3 个比随便挑还差" in o
    assert worse == ({"fb_worst3", "no_feedback"} <= set(others) and t["last"]["fb_worst3"] < t["last"]["no_feedback"])


def test_within_the_spread_means_inside_fulls_min_max(run):
    t = run["t"]
    o = next((o for o in run["obs"] if "和完整方法（" in o), None)
    parts = [k for k in ("no_borrow", "one_island", "no_cascade") if k in t["at"]]
    if not parts:
        assert o is None
        return
    inside = [k for k in parts if t["lo"] <= t["last"][k] <= t["hi"]]
    assert ("只有 1 个种子" in o) == (t["seeds"] == 1)
    if "的差别在种子之间的波动以内" in o:
        assert t["seeds"] > 1 and inside == parts
        assert ("有的变体的中位数还略高" in o) == any(t["last"][k] > t["last"]["full"] for k in parts)
    elif t["seeds"] > 1:
        assert inside != parts
        for k in parts:
            verdict = "在" if k in inside else "高于" if t["last"][k] > t["hi"] else "低于"
            assert re.search(rf"{k}[ 、a-z_]* {verdict}完整方法", o), (k, o)
    if "级联只省下一小部分评估" in o:
        saved = 1 - t["runs"]["full"] / t["runs"]["no_cascade"]
        assert 0 < saved <= 1 / 3


def test_differences_grow_only_when_an_earlier_and_a_later_mark_say_so(run):
    t = run["t"]
    o = next((o for o in run["obs"] if "随预算变化的曲线" in o), None)
    if len(t["at"]) < 2:
        assert o is None
        return
    spread = {m: max(r[m] for r in t["at"].values()) - min(r[m] for r in t["at"].values()) for m in t["marks"]}
    if "早期差别小、后期差别大" in o:
        early = int(re.match(r"(\d+) 个程序时", o).group(1))
        late = t["marks"][-1]
        assert early < late and spread[late] > spread[early]
        for name, x in re.findall(r"([a-z_0-9]+) (\d\.\d{3})", o):
            assert float(x) == t["at"][name][early]
    elif len(t["marks"]) == 1:
        assert "只有一个时刻" in o


def test_demo3_latent_bugs_are_counted_as_printed(run):
    rows = table(run["demo3"], "分支检查")
    off = [r for r in rows if r[0] == "关"]
    seeds = run["t"]["seeds"]
    assert len(off) == seeds
    latent, crash = sum(int(r[5]) for r in off), sum(int(r[6]) for r in off)
    first, second = observations(run["demo3"])[:2]
    assert f"（{seeds} 个种子合计）" in first
    assert ("最终的数据库里仍有" in first) == (latent > 0)
    if latent:
        assert f"仍有 {latent} 个" in first
    assert ("隐患大多潜伏着" in second) == (latent > 0 and 2 * crash <= latent)
    assert ("没有带隐患的程序" in second) == (latent == 0)
    assert all(int(r[6]) <= int(r[5]) for r in off)                  # 出错的一定是带隐患的


# —— 观察的每个分支，用编出来的数直接检查（不用跑 evolve）——

@pytest.fixture(scope="module")
def script():
    from conftest import load_script
    return load_script()


def ablation(script, seeds, final, lo_hi=(1.238, 1.250), early=None, runs=None):
    """编一张演示 1 的表：final[变体] 是最后时刻的中位数；full 的最小–最大是 lo_hi；early 给了就有两个时刻。"""
    marks = (100, 1000) if early else (1000,)
    a = script.Ablation(marks, seeds)
    for name, x in final.items():
        a.at[name] = {100: early[name], 1000: x} if early else {1000: x}
        a.lo[name], a.hi[name] = lo_hi if name == "full" else (x, x)
        a.runs[name] = (runs or {}).get(name, 45000)
    return a


def test_a_students_variant_below_no_evolution_is_the_one_that_drops_most(script):
    a = ablation(script, 5, {"full": 1.241, "no_evolution": 1.057, "mine": 1.043})
    assert "掉得最多的是 mine（1.043）" in script.obs_no_evolution(a)
    assert "掉得最多：" in script.obs_no_evolution(ablation(script, 5, {"full": 1.241, "no_evolution": 1.057}))


@pytest.mark.parametrize("x, verdict", [(1.200, "低于完整方法最差的种子（1.238）"), (1.245, "在完整方法种子之间的波动以内"),
                                        (1.260, "高于完整方法最好的种子（1.250）")])
def test_a_variant_is_placed_against_fulls_seed_spread(script, x, verdict):
    assert script.compared(ablation(script, 5, {"full": 1.241}), x).startswith(verdict)


def test_feedback_matters_a_lot_needs_every_other_use_below_fulls_worst_seed(script):
    below = {"full": 1.241, "fb_roofline": 1.214, "no_feedback": 1.228, "fb_worst3": 1.186}
    assert script.obs_feedback(ablation(script, 5, below)).startswith("反馈怎么用影响很大")
    inside = dict(below, no_feedback=1.240)
    text = script.obs_feedback(ablation(script, 5, inside))
    assert not text.startswith("反馈怎么用影响很大") and "no_feedback 没有低于完整方法最差的种子（1.238）" in text
    assert "看不出种子之间的波动" in script.obs_feedback(ablation(script, 1, below, lo_hi=(1.241, 1.241)))


def test_the_small_parts_sentence_follows_the_spread_and_the_cascade_column(script):
    a = ablation(script, 5, {"full": 1.241, "no_borrow": 1.241, "no_cascade": 1.247},
                 runs={"full": 45704, "no_cascade": 46320})
    text = script.obs_small_parts(a)
    assert "的差别在种子之间的波动以内" in text and "有的变体的中位数还略高" in text and "级联只省下一小部分评估" in text
    a = ablation(script, 5, {"full": 1.241, "no_cascade": 1.230}, runs={"full": 20000, "no_cascade": 46320})
    text = script.obs_small_parts(a)
    assert "no_cascade 低于完整方法最差的种子" in text and "级联省下了 57% 的评估" in text


def test_early_and_late_differences(script):
    grows = ablation(script, 5, {"full": 1.241, "no_evolution": 1.057}, early={"full": 1.107, "no_evolution": 1.054})
    assert "早期差别小、后期差别大" in script.obs_budget(grows)
    shrinks = ablation(script, 5, {"full": 1.241, "no_evolution": 1.240}, early={"full": 1.107, "no_evolution": 1.054})
    assert "差别没有随预算变大" in script.obs_budget(shrinks)
    assert "只有一个时刻" in script.obs_budget(ablation(script, 5, {"full": 1.241, "no_evolution": 1.057}))


@pytest.mark.parametrize("stayed, crashed, words", [(75, 35, "隐患大多潜伏着"), (93, 71, "超过最终数据库里带隐患的 93 个的一半"),
                                                    (0, 0, "没有带隐患的程序")])
def test_latent_bugs_mostly_lie_low_only_if_at_most_half_crash(script, stayed, crashed, words):
    assert words in script.obs_latent_crash(stayed, crashed, 100)


def test_none_latent_this_time_is_said_as_such(script):
    assert "没有一个带不能启动的分支" in script.obs_latent_enter([(0, 0, False)] * 5)
    assert "都没有留到最终的数据库里" in script.obs_latent_enter([(14, 0, False)])
