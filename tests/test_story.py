"""讲义的故事：把 05 脚本整个跑一遍，检查每条"观察"说的话对它上面打印的数字成立。

只读脚本真正打印出来的东西（表格和几行结论），不重新计算——学生看到的就是这些数字。
"""
import math
import re

import pytest
from conftest import SCRIPT, STUDENT_EDITS, load_script, script_command

import ablation
import observations as obs
from evolve import LAYERS, Evaluator, evolve


@pytest.fixture(scope="module")
def output(wide_stdout):
    return wide_stdout                                  # 不换行的那一遍：一行一个表格行、一条观察


def section(out, k):
    start = out.index(f"\n演示 {k}：")
    end = out.find(f"\n演示 {k + 1}：", start)
    return out[start:end if end >= 0 else len(out)]


def rows_of(text, first_header):
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
    rows = {r[0]: r for r in rows_of(text, "变体")}
    lo_hi = {k: tuple(map(float, r[5].split("–"))) for k, r in rows.items()}
    oracle = re.search(r"上限（逐形状最优）：训练 ([\d.]+)，测试 ([\d.]+)", text)
    return {"at100": {k: float(r[2]) for k, r in rows.items()},
            "at1000": {k: float(r[4]) for k, r in rows.items()},
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
    assert demo1["max"]["no_evolution"] < demo1["min"]["full"]  # 5 个种子个个都比 full 最差的种子低


def test_2_small_llm_is_clearly_worse(demo1):
    assert demo1["at1000"]["small_llm"] < demo1["min"]["full"]


def test_3_how_feedback_is_used_matters_more_than_the_other_parts(demo1):
    med = demo1["at1000"]
    feedback_gap = min(med["full"] - med[k] for k in ("fb_roofline", "no_feedback", "fb_worst3"))
    other_gap = max(abs(med[k] - med["full"]) for k in ("no_borrow", "one_island", "no_cascade"))
    assert feedback_gap > other_gap


def test_3_feedback_matters_beyond_the_seed_noise(demo1):
    """观察 4 自己的标准：中位数差 0.02 说明不了什么。所以"影响很大"要求每种别的用法的中位数
    都低于 full 最差的种子。"""
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
    rows = rows_of(text, "按 roofline 最该改的")
    mass = re.search(r"按 roofline (\d+)%，按见过的最快 (\d+)%", text)
    examples = re.search(r"（例如 (.*?)：离 roofline 远", text).group(1)
    return {"roof": [(r[0], float(r[1]), float(r[2])) for r in rows],
            "best": [(r[3], float(r[4]), float(r[5])) for r in rows],
            "m_roof": int(mass.group(1)) / 100, "m_best": int(mass.group(2)) / 100,
            "examples": examples}


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
        assert int(m) <= 128 or few_tiles, label            # decode，或者输出块太少占不满 132 个 SM


def test_8_the_overlap_is_a_tendency_over_seeds(table, train):
    """"差得多的形状，往往两种看法都差"说的是倾向：种子 0–4 里多数种子的两个前 5 名
    有 2–4 个相同。"""
    overlaps = []
    for seed in range(5):
        ev = Evaluator(train, table)
        best, _ = evolve(ev, 300, seed=seed)["best"]
        fb = ev.per_shape(best)
        top = [{x["shape"] for x in sorted(fb, key=lambda x: x[key])[:5]}
               for key in ("vs_roofline", "vs_best")]
        overlaps.append(len(top[0] & top[1]))
    assert sum(2 <= n <= 4 for n in overlaps) >= 3, overlaps


def test_10_best_seen_weighting_wastes_less_on_stuck_shapes(demo2):
    assert demo2["m_roof"] >= 0.30
    assert demo2["m_best"] <= 0.75 * demo2["m_roof"]


# —— 演示 3 ——

@pytest.fixture(scope="module")
def demo3(output):
    rows = rows_of(section(output, 3), "分支检查")
    parsed = [{"check": r[0], "added": int(r[2]), "added_bad": int(r[3]), "final": int(r[4]),
               "latent": int(r[5]), "crash": int(r[6]), "best_bad": r[7]} for r in rows]
    return {"on": [r for r in parsed if r["check"] == "开"],
            "off": [r for r in parsed if r["check"] == "关"]}


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
    # "隐患大多潜伏着"：出错的不到一半
    assert 2 * sum(r["crash"] for r in off) < sum(r["latent"] for r in off)


# —— 学生改了设置：观察由这次印出来的数决定（conftest.STUDENT_EDITS 的每一种改法，加上默认设置）——
# 规则本身在 test_observations.py 里用编出来的表检查；这里检查脚本把印出来的数交给了规则，
# 以及每种改法真的显出了它那条性质

RUNS = ["wide"] + list(STUDENT_EDITS)
NUMBER = re.compile(r"\d\.\d{3}")


def observations(text):
    """text 里第一个"观察："下面的各条（不换行的输出：一条一行）。"""
    lines = text[text.index("\n观察：\n"):].splitlines()[2:]
    items = []
    for line in lines:
        m = re.match(r"(\d+)\. (.*)", line)
        if not m:
            break
        items.append(m.group(2))
    return items


def variant_options(name):
    """name 那一遍的 VARIANTS（照 STUDENT_EDITS 改过的脚本）每一行的设置，和脚本交给规则的一样。"""
    edits = STUDENT_EDITS.get(name)
    if edits:
        # script_command 的最后一项就是改过的源码：照原路径执行，不跑 __main__
        script = {"__name__": "edited", "__file__": SCRIPT}
        exec(compile(script_command(edits)[-1], SCRIPT, "exec"), script)
    else:
        script = vars(load_script())
    check = script["check_options"]
    return {variant: check(**kw).describe() for variant, kw in script["VARIANTS"].items()}


def printed_ablation(text, options):
    """演示 1 的表，只用印出来的东西拼成 observations.Ablation：
    各时刻的中位数、最后时刻的最小–最大、跑内核次数；种子数来自标题。options：各行的设置。"""
    lines = text.splitlines()
    header = re.split(r"\s{2,}", next(line for line in lines if line.startswith("变体")))
    marks = tuple(int(h.split()[0]) for h in header if h.endswith("个程序后"))
    rows = {}
    for r in rows_of(text, "变体"):
        lo, hi = map(float, r[1 + len(marks)].split("–"))
        at = {m: float(x) for m, x in zip(marks, r[1:])}
        rows[r[0]] = ablation.Row(at, lo, hi, int(r[-2].replace(",", "")))
    seeds = int(re.search(r"× (\d+) 个种子", text).group(1))
    return ablation.Ablation(marks, seeds, rows, options)


def printed_unchecked(text):
    """演示 3 的表里分支检查关的那几行，拼成 observations.Unchecked。"""
    rows = [r for r in rows_of(text, "分支检查") if r[0] == "关"]
    return [obs.Unchecked(int(r[3]), int(r[5]), int(r[6]), r[7] == "是") for r in rows]


@pytest.fixture(scope="module", params=RUNS)
def run(request, script_runs):
    text = script_runs[request.param][0]
    demo1 = section(text, 1)
    a = printed_ablation(demo1, variant_options(request.param))
    return {"name": request.param, "a": a, "obs": observations(demo1),
            "demo1": demo1, "demo3": section(text, 3), "text": text}


def test_demo1_says_what_the_rules_say_of_the_printed_table(run):
    assert run["obs"] == obs.demo1(run["a"])


def test_demo3_says_what_the_rules_say_of_the_printed_table(run):
    off = printed_unchecked(run["demo3"])
    assert len(off) == run["a"].seeds
    said = [obs.latent_enter_sentence(off), obs.latent_crash_sentence(off, 100)]
    assert observations(run["demo3"])[:2] == said


def test_every_number_an_observation_quotes_is_printed_in_the_table(run):
    """印出来的数照抄；"最高和最低差 0.043"这样的差，是表里某两个数之差。"""
    cells = set(re.findall(r"\S+", run["demo1"][:run["demo1"].index("\n观察：")]))
    values = {float(x) for c in cells for x in NUMBER.findall(c)}
    for o in run["obs"]:
        for d in re.findall(r"差 (\d\.\d{3})", o):
            assert any(f"{a - b:.3f}" == d for a in values for b in values), (d, o)
        for x in NUMBER.findall(re.sub(r"差 \d\.\d{3}", "", o)):
            assert any(x in c for c in cells), (x, o)
        for n in re.findall(r"(\d+) 个程序[后时]", o):
            assert int(n) in run["a"].marks, o
        for n in re.findall(r"(\d+) 个种子", o):
            assert int(n) == run["a"].seeds, o


def test_observations_speak_only_of_variants_in_the_table(run):
    for o in run["obs"]:
        # "比讲义的 full 改了 MockLLM(knowledge=False)"、"比 full 改了 "n_islands": 1"
        # 里的参数名不是变体
        o = re.sub(r"（比(讲义的)? full 改了 .*?）", " ", o)
        for name in re.findall(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+|full)\b", o):
            assert name in run["a"].rows, (name, o)


# 每种改法要显出的性质：观察里（或标题、表头里）一定有的话，和一定没有的话
SHOWS = {
    "wide": (["掉得最多：1000 个程序后只有", "反馈怎么用影响很大", "早期差别小、后期差别大"], []),
    "seeds_1": (["9 个变体 × 1 个种子", "只有 1 个种子，看不出种子之间的波动",
                 "（只跑了 1 个种子）", "120 个后（最小–最大）"],
                ["5 个种子", "1000 个", "明显变差", "影响很大", "掉得最多", "合计"]),
    # 演示 3 里 9 个带隐患的全都出错：说"全部"，不说"超过一半"；fb_worst3 的中位数 1.112 低于
    # no_feedback 的 1.115，却在它的种子 1.110–1.121 以内：不说"比随便挑还差"
    "seeds_2_budget_100": (["× 2 个种子", "50 个程序时的分数", "（2 个种子合计）",
                            "就是最终数据库里带隐患的全部",
                            "只盯最差的 3 个在随便挑的种子之间的波动以内"],
                           ["100 个程序时", "超过最终数据库里带隐患的", "比随便挑还差",
                            "反而比随便挑好"]),
    "marks_before_budget": (["150 个后（最小–最大）", "150 个程序后", "测试形状（200 个后）",
                             "跑内核次数（200 个后）", "规则数（化简后）（200 个后）"],
                            ["200 个程序后"]),
    # no_evo_worst3 的中位数更低，可 no_evolution 的中位数在它的种子之间：两边看分不出，并列
    "new_lowest": (["和 no_evo_worst3（1.037）并列掉得最多（彼此在种子之间的波动以内）"],
                   ["掉得最多的是 no_evo_worst3"]),
    "one_mark": (["表里只有一个时刻（100 个程序后）"], ["早期差别小"]),
    "readme_example": (["你加的变体（100 个程序后）：", "变体里最低的是"], ["掉得最多"]),
    "ensembles": (["你加的变体（100 个程序后）：mix ", "bandit "], ["掉得最多"]),
    "only_no_evolution": (["去掉\"进化\"（每次都从初始程序出发）：100 个程序后"],
                          ["掉得最多", "最差的之一", "你加的变体"]),
    "weakened_full": (["这次的 full 是你改过的（比讲义的 full 改了 MockLLM(knowledge=False)）",
                       "small_llm（选项和 full 一样）"],
                      ["去掉\"内核常识\"", "去掉\"进化\""]),
}


def test_each_edit_shows_its_property(run):
    says, never = SHOWS[run["name"]]
    for words in says:
        assert words in run["text"], (run["name"], words)
    for words in never:
        assert words not in run["text"], (run["name"], words)


def test_every_run_is_one_the_story_looks_at():
    assert set(SHOWS) == set(RUNS)


def test_every_row_of_the_table_is_spoken_of(run):
    """表里的每一行都出现在某条观察里：按名字，或者按讲义对它的说法（"不看反馈随便挑"）。"""
    said = " ".join(run["obs"])
    a = run["a"]
    described = {name: obs.how_it_picks(a.options[name]) for name in obs.FEEDBACK_USES
                 if name in a.rows}
    described["no_evolution"] = "去掉\"进化\""
    for name in a.rows:
        if len(run["a"].rows) > 1:
            assert name in said or described.get(name, "@") in said, (run["name"], name)


def test_no_superlative_over_fewer_than_two_variants(run):
    if not run["a"].compares():
        for word in ("掉得最多", "最低的是", "最差的之一"):
            assert all(word not in o for o in run["obs"]), (run["name"], word)
