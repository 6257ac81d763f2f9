"""variants.py：一个变体是什么。提出者说出它自己（ProposerDescription：类名、每项设置的值和讲义的
默认值、几个一起时的成员），evolve 的选项也一样（Variant）；两个变体按结构比出差在哪（Changes），
照学生在 VARIANTS 里的写法写出来；图按它改了的部件画在哪一幅里（ablation.changed_parts、
curves.panel_of）。观察和图怎样用它们见 test_observations.py、test_curves.py。"""
from conftest import SMALL_AND_FULL, Recorder

import ablation
from ensemble import Ensemble
from evolve import Evaluator, MockLLM, as_proposer, check_options, evolve
from variants import ProposerDescription


# —— 提出者说出它自己 ——

def test_a_proposer_describes_itself_in_plain_values_and_its_cache_is_no_part_of_it(table, split):
    """describe：MockLLM 说类名和四个选项（值、讲义的默认值），跑过以后也一样
    （训练形状的缓存不算）；没有 describe 的提出者（学生自己写的）只知道类名。"""
    llm = MockLLM(feedback="roofline", knowledge=False)
    fresh = llm.describe()
    evolve(Evaluator(split[0], table), 20, seed=0, llm=llm)
    assert llm.describe() == fresh
    assert fresh.kind == "MockLLM" and fresh.known
    assert [(s.name, s.value, s.default) for s in fresh.settings] == [
        ("feedback", "roofline", "best"), ("focus", None, None), ("knowledge", False, True),
        ("use_inspirations", True, True), ("hints", (), ())]
    assert fresh.written() == 'MockLLM(feedback="roofline", knowledge=False)'
    # 学生自己的提出者在门口包一层（as_proposer）：说得出的只有它的类名
    assert as_proposer(Recorder()).describe() == ProposerDescription("Recorder", known=False)
    assert as_proposer(Recorder()).describe().written() == "Recorder(…)"
    assert repr(llm) == ("MockLLM(feedback='roofline', focus=None, knowledge=False, "
                         "use_inspirations=True, hints=())")


def test_an_ensemble_describes_its_members_and_its_mix():
    mixed = Ensemble(SMALL_AND_FULL, weights=[4, 1]).describe()
    assert mixed.kind == "Ensemble"
    assert mixed.members == tuple(m.describe() for m in SMALL_AND_FULL)
    assert mixed.value("weights") == [4, 1] and mixed.value("bandit") is False
    assert Ensemble(SMALL_AND_FULL, bandit=True).describe().value("weights") is None
    # 照学生的写法：一样多的配比是默认值，不写
    assert mixed.written() == "Ensemble([MockLLM(knowledge=False), MockLLM()], weights=[4, 1])"
    assert Ensemble(SMALL_AND_FULL).describe().written() == (
        "Ensemble([MockLLM(knowledge=False), MockLLM()])")


# —— 两个变体差在哪：照 VARIANTS 的写法写出来 ——

def test_meta_prompt_is_described_once_like_every_other_setting():
    """VARIANTS 里的一行 {"meta_prompt": True} 比 full 只改了这一项，照 VARIANTS 的写法写出来。"""
    full = check_options().describe()
    changed = check_options(meta_prompt=True).describe().against(full)
    assert changed.written() == ['"meta_prompt": True']
    assert ablation.changed_parts({"full": {}, "meta": {"meta_prompt": True}}) == {
        "meta": ["提示和程序一起进化"]}
    small = check_options(llm=MockLLM(knowledge=False), meta_prompt=True).describe()
    assert small.against(full).written() == ["MockLLM(knowledge=False)", '"meta_prompt": True']
    hinted = MockLLM(hints=["check_limits", "tile_together"])
    assert hinted.hints == ("tile_together", "check_limits")
    assert hinted.describe().written() == 'MockLLM(hints=["tile_together", "check_limits"])'
    # 带提示的 MockLLM 比 full 只改了 hints：照 VARIANTS 的写法写出来；hints 不属于哪个部件，
    # 画在"其他"那幅
    changed = check_options(llm=hinted).describe().against(full)
    assert changed.written() == ['MockLLM(hints=["tile_together", "check_limits"])']
    assert not changed.replaced
    assert ablation.changed_parts({"full": {}, "hinted": {"llm": hinted}}) == {"hinted": None}
