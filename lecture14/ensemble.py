"""
CS349E · 第 14 讲 · ensemble.py —— 几个提出者一起：固定配比（AlphaEvolve）或 UCB1（ShinkaEvolve）

AlphaEvolve 让一个快模型（Gemini Flash）提出大多数修改、一个强模型（Pro）提出少数——快的多试，
强的偶尔给出大的进步；它的消融 "Small base LLM only" 只留小的那个。ShinkaEvolve 把固定配比
换成 bandit：这次运行里子程序更常进步的模型分到更多提案。

Ensemble 是"提出者的提出者"：一个 evolve.Chooser（每个提案先挑一个成员，再由它提出；一批提案
分给各成员一起答；learn 听结局、记给提出它的成员，bandit 靠它计数）。这里只写怎么挑、怎么记。
只用 evolve 公开的名字；real_llm/llm.py 的 ChatEnsemble 从它派生。
"""
import math
from numbers import Real

from checks import BOOLS, POSITIVE_NUMBER, check_choice, non_empty_list_of, require
from evolve import Chooser, as_proposer
from variants import ProposerDescription, Setting

# bandit 的奖励：子程序比父程序分数高是 1，否则是 0（没给出程序、被检查或级联拒掉、没变好）。
# 不用"进了数据库"：岛还没满时比专家差的程序也收，那奖励的是填空位，不是好的修改。
# UCB1 的探索系数：教科书的 √2 是给取值跨满 [0, 1] 的奖励的；0/1 奖励的标准差最多 1/2，
# 按它缩一半。系数越大越像轮流，越小越早押在一开始运气好的成员上。
EXPLORATION = math.sqrt(2) / 2


class Ensemble(Chooser):
    """几个提出者一起提出：每个提案先挑一个成员，再由它提出（它也是一个提出者）。

    members：提出者的列表（MockLLM、ChatLLM、学生自己的，也可以是 Ensemble），至少两个。
    weights：固定配比（AlphaEvolve）：每个提案按权重用 evolve 的 rng 抽一个成员；默认一样多。
    bandit=True：ShinkaEvolve 的挑法，UCB1（不用 weights）：没试过的成员按顺序先各试一次，
      之后挑"平均奖励 + EXPLORATION·√(ln 总次数 / 它的次数)"最大的，一样大时挑靠前的。
      奖励：子程序比父程序分数高是 1，否则 0；挑谁只由这次运行的历史决定，同样的种子挑得一样。
    .proposals、.improvements：这次运行里每个成员提出了几个、其中几个比父程序好；.chosen：最近
    挑的是哪个。这些计数只属于一次运行：evolve 开始时调用 reset()，
    每个提案之后调用 learn(improved)（Chooser 把它交给 credit）。
    """

    def __init__(self, members, weights=None, bandit=False):
        # 学生在 VARIANTS 里敲的：写错了就一句话
        if not isinstance(members, (list, tuple)) or len(members) < 2:
            raise TypeError("Ensemble 的第一个参数是至少两个提出者的列表，例如 "
                            f"[MockLLM(knowledge=False), MockLLM()]；收到 {members!r}")
        self.members = [as_proposer(m) for m in members]
        self.bandit = check_choice("bandit", bandit, BOOLS)
        if bandit and weights is not None:
            raise ValueError("bandit=True 时按 UCB1 挑成员，不用 weights：两个只给一个")
        if weights is None:
            weights = [1] * len(self.members)
        weights = non_empty_list_of(weights, Real, "权重", "[4, 1]")
        if len(weights) != len(self.members):
            raise ValueError(f"weights 有 {len(weights)} 个，提出者有 {len(self.members)} 个："
                             "每个提出者一个权重")
        self.weights = [require("weights 里的每个数", w, POSITIVE_NUMBER) for w in weights]
        self.reset()

    def __repr__(self):
        how = "bandit=True" if self.bandit else f"weights={self.weights!r}"
        return f"Ensemble({self.members!r}, {how})"

    def describe(self):
        """它是什么：成员各自的描述、配比或 bandit。bandit 时不用配比，weights 就是 None；
        不给 weights 就是每个成员一样多。"""
        equal = None if self.bandit else [1] * len(self.members)
        weights = None if self.bandit else self.weights
        members = tuple(m.describe() for m in self.members)
        return ProposerDescription("Ensemble", (Setting("weights", weights, equal),
                                                Setting("bandit", self.bandit, False)), members)

    def reset(self):
        """一次运行开始：计数清零。"""
        super().reset()
        self.proposals = [0] * len(self.members)
        self.improvements = [0] * len(self.members)
        # 最近挑的是哪个
        self.chosen = None

    def credit(self, member, improved):
        """member 提出的一个子程序比父程序好吗。"""
        self.improvements[member] += improved

    def pick(self, rng):
        """这个提案交给哪个成员（编号）。"""
        if self.bandit:
            member = self._ucb1()
        else:
            member = rng.choices(range(len(self.members)), weights=self.weights)[0]
        self.proposals[member] += 1
        self.chosen = member
        return member

    def candidates(self):
        return range(len(self.members))

    def proposer_of(self, member):
        return self.members[member]

    def _ucb1(self):
        untried = [i for i, n in enumerate(self.proposals) if n == 0]
        if untried:
            return untried[0]
        total = sum(self.proposals)
        index = [self.improvements[i] / n + EXPLORATION * math.sqrt(math.log(total) / n)
                 for i, n in enumerate(self.proposals)]
        return index.index(max(index))
