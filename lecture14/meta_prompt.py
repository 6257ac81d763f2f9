"""
CS349E · 第 14 讲 · meta_prompt.py —— 提示和程序一起进化（AlphaEvolve 的 meta prompt evolution）

AlphaEvolve §2.2：提示里的说明"由 LLM 自己在额外的一步里提出，和程序一起在一个单独的数据库里
进化"。evolve(..., meta_prompt=True) 时 evolve.check_options 才 import 这个模块，把提出者包进
提示数据库（PromptDatabase）；对 evolve 来说它只是又一个提出者（evolve.Proposer）：
propose 先挑提示、再由照着它的提出者提出，learn 给那个提示记功，wants_turn / take_turn 每
PROMPT_INTERVAL 份预算写一个新提示。讲义默认关着，输出不变。

自上而下读：
  1. MockLLM 的提示：HINTS 词表，和照提示改它那几步的 PromptedMockLLM（只覆盖 MockLLM 的几个
     具名步骤；其中两个——_fields_to_change、_always_new_rule——MockLLM 自己不需要，是为它留的）
  2. 提示数据库：PromptEntry、PromptDatabase
只用 evolve 公开的名字。
"""
from dataclasses import dataclass, replace

from checks import check_choice
from evolve import (CONFIG_CHOICES, MockLLM, Proposer, compute_bound, fit_limits, fit_registers,
                    output_tiles)


# ==== 1. MockLLM 的提示：几条指示，每条改它提出哪些修改 ==========================================
# AlphaEvolve 的提示里有一段说明（instructions），由模型自己在额外的一步里改写（meta prompt）。
# MockLLM 的"说明"是从下面这张词表里挑的几条，每条都是计时模型（evolve.py 第 3 节）里的一件事；
# 没有一条（hints=()）就是讲义的 MockLLM，一个字节都不差。每条起什么作用、为什么：
#   tile_together：算力受限的形状，快慢看块大小和 warp 数——累加器每线程 BM·BN/(32·warps) 个
#     寄存器，块大了 warp 不跟着加就溢出（registers）。所以定向修改只改 BM、BN、warps 这三个，
#     不把名额花在对算力受限没用的 BK、split_k 上；小模型改 BM、BN 时顺手把 warp 加够。
#   split_k_fill：split-K 的好处只是让块数占满 132 个 SM，代价是清零和 fp32 原子加
#     （_split_k_time）。所以访存受限时 split_k 取"刚好占满"的最小值，不随机挑；小模型挪
#     split_k 时朝那个值挪。
#   decode_rule：decode（M ≤ 128）访存受限、块要贴着 M，配置和 prefill 不同；直接改现有分支
#     会连带改掉同一分支里更大的 M。所以 decode 形状的常识性想法总是写成新规则。
#     小模型只会改一个字段、不会写规则，这条对它没有作用。
#   check_limits：写完配置核对共享内存和寄存器（fit_limits）：不核对就有 SLIP_RATE 的配置
#     不能启动，被分支检查拒掉，白花一个提案。小模型也照着核对。
HINTS = {
    "tile_together": "算力受限时 BM、BN、warps 一起改：块大了 warp 要跟着加",
    "split_k_fill": "块数不够占满 SM 时才 split-K，切到刚好占满",
    "decode_rule": "decode（M ≤ 128）单独写规则，不改 prefill 也在用的分支",
    "check_limits": "写完配置核对共享内存和寄存器",
}
# decode 的 M 上限（evolve.M_VALUES 那里的说法：1–128 是 decode）
DECODE_M = 128
# 不会诊断的小模型改写提示时，加一条和删一条一样可能
DROP_HINT_RATE = 0.5


def checked_hints(hints):
    """提示：HINTS 里的几条（列表或元组，学生在 VARIANTS 里敲的），按词表的顺序、不重复地返回。"""
    if not isinstance(hints, (list, tuple)):
        raise TypeError("hints 应是 HINTS 里几条指示的列表，例如 [\"check_limits\"]，"
                        f"收到 {hints!r}")
    for k, hint in enumerate(hints):
        check_choice(f"hints[{k}]", hint, tuple(HINTS))
    return tuple(h for h in HINTS if h in hints)


def _filling_split(cfg, shape, hw):
    """块数 × split_k 刚好占满 SM 的最小 split_k（块已经够多就是 1，切到最多也不够就取最多）。"""
    tiles = output_tiles(cfg, shape)
    fills = [k for k in CONFIG_CHOICES["split_k"] if tiles * k >= hw.sms]
    return replace(cfg, split_k=min(fills, default=max(CONFIG_CHOICES["split_k"])))


def _relevant_hints(shape, hw):
    """有内核常识的模型看一个形状，觉得哪几条指示说的是它。"""
    if compute_bound(shape, hw):
        return ("tile_together", "check_limits")
    relevant = ("split_k_fill", "check_limits")
    return relevant + ("decode_rule",) if shape.M <= DECODE_M else relevant


def _diagnosed_hints(hints, shape, hw, rng):
    """有内核常识的改写：看最好程序差得多的一个形状，补一条说它的指示；都有了就删一条不说它的。"""
    relevant = _relevant_hints(shape, hw)
    missing = [h for h in relevant if h not in hints]
    if missing:
        return checked_hints(hints + (rng.choice(missing),))
    idle = [h for h in hints if h not in relevant]
    if not idle:
        return hints
    dropped = rng.choice(idle)
    return tuple(h for h in hints if h != dropped)


def _random_hints(hints, rng):
    """小模型的改写：不会诊断，随便加一条或删一条（Promptbreeder 的随机变异）。"""
    missing = [h for h in HINTS if h not in hints]
    if hints and (not missing or rng.random() < DROP_HINT_RATE):
        dropped = rng.choice(hints)
        return tuple(h for h in hints if h != dropped)
    return checked_hints(hints + (rng.choice(missing),))


class PromptedMockLLM(MockLLM):
    """照提示里的几条指示（hints，HINTS 的键）提案的 MockLLM；hints=() 时和 MockLLM 一个字节都不差。
    它只覆盖 MockLLM 改配置的那几步（见上面每条指示的理由），另外会写提示（prompted、
    propose_prompt），提示数据库要的就是这两样。"""

    def __init__(self, feedback="best", focus=None, knowledge=True, use_inspirations=True,
                 hints=(), **unknown):
        super().__init__(feedback, focus, knowledge, use_inspirations, **unknown)
        self.hints = checked_hints(hints)

    def prompted(self, hints):
        """同样的选项、照 hints 这几条指示提案的 PromptedMockLLM（提示数据库里的一个提示）。"""
        return PromptedMockLLM(self.feedback, self.focus, self.knowledge, self.use_inspirations,
                               hints)

    def propose_prompt(self, hints, best, fb, rng):
        """额外的写提示那一步：读最好程序（best）的反馈 fb，从 hints 改出新的一组指示
        （MockLLM 只读反馈；真模型还要看程序本身）。"""
        if not self.knowledge:
            return _random_hints(hints, rng)
        return _diagnosed_hints(hints, fb.shapes[self.pick_shape(fb, rng)], fb.hw, rng)

    def _fields_to_change(self, fields, shape, hw):
        """tile_together 时算力受限只改块和 warp；split_k_fill 时访存受限的 split_k 不随机挑
        （_finished_config 定它）。"""
        compute = compute_bound(shape, hw)
        if "tile_together" in self.hints and compute:
            return ["BM", "BN", "warps"]
        if "split_k_fill" in self.hints and not compute:
            return [name for name in fields if name != "split_k"]
        return fields

    def _finished_config(self, cfg, shape, hw, rng):
        """split_k_fill：访存受限时切到刚好占满 SM；check_limits：忘了核对也补上（核对过的再核对
        不变，所以和"不会忘"一样）。"""
        if "split_k_fill" in self.hints and not compute_bound(shape, hw):
            cfg = _filling_split(cfg, shape, hw)
        cfg = super()._finished_config(cfg, shape, hw, rng)
        if "check_limits" in self.hints:
            cfg = fit_limits(cfg, hw)
        return cfg

    def _small_step(self, cfg, shape, hw, field, direction):
        """小模型照提示挪一格：split_k 朝占满 SM 的值挪，改块时把 warp 加够，核对上限。"""
        if field == "split_k" and "split_k_fill" in self.hints:
            target = _filling_split(cfg, shape, hw).split_k
            if target != cfg.split_k:
                direction = 1 if target > cfg.split_k else -1
        cfg = super()._small_step(cfg, shape, hw, field, direction)
        if field in ("BM", "BN") and "tile_together" in self.hints:
            cfg = fit_registers(cfg, hw)
        if "check_limits" in self.hints:
            cfg = fit_limits(cfg, hw)
        return cfg

    def _always_new_rule(self, shape):
        """decode_rule：decode 形状的常识性想法总是写成新规则。"""
        return "decode_rule" in self.hints and shape.M <= DECODE_M


def prompt_writer(llm):
    """提示数据库里写提示、照提示提案的提出者：讲义的 MockLLM 换成同样选项的 PromptedMockLLM；
    别的提出者要自己会（hints、prompted、propose_prompt：PromptedMockLLM、ChatLLM 会），
    不会就一句话。"""
    if type(llm) is MockLLM:
        return PromptedMockLLM(llm.feedback, llm.focus, llm.knowledge, llm.use_inspirations)
    writes = all(callable(getattr(llm, name, None)) for name in ("propose_prompt", "prompted"))
    if not writes:
        # 学生自己的提出者在门口包过一层（evolve.as_proposer）：说它自己的类名
        described = llm.describe()
        name = type(llm).__name__ if described.known else described.kind
        raise TypeError("meta_prompt=True 要提出者自己会写提示（propose_prompt、prompted，"
                        f"MockLLM、ChatLLM 会），{name} 不会：换成 MockLLM(...)，"
                        "或者去掉 meta_prompt")
    return llm


# ==== 2. 提示数据库 ===============================================================================
# 论文没给挑法和记功的规则，这里的每一条都有理由：
#   提示：提出者照着做的几条指示（PromptedMockLLM 的 hints，ChatLLM 的几行说明）。起点是提出者
#     自己的提示（讲义的 MockLLM 是 ()）。
#   挑提示：每个提案做一次二元锦标赛（Promptbreeder）：用 evolve 的 rng 抽两个，功劳大的那个。
#     功劳最大的不总是赢，别的提示也一直有孩子，功劳才一直在更新。
#   记功：孩子比父程序分数高是 1，否则 0（和 Ensemble 的 bandit 一样的理由：不用"进了数据库"，
#     岛没满时差程序也收）。功劳 = (变好的 + 1) / (孩子数 + 2)：没有孩子的新提示从 1/2 起，
#     比任何常见的进步率都高，所以一进来就会被试；孩子多了，功劳就是它的进步率。
#   写新提示：额外的一步，每 PROMPT_INTERVAL 个预算一次，由提出者自己（propose_prompt）
#     从锦标赛挑出的父提示改出，读的是这时最好程序的反馈。和数据库里已有的一样就不收。
#   淘汰：满了以后，新提示顶掉功劳最小的那个（一样小时顶掉最早进来的）。

# 提示数据库最多几个提示：词表 4 条指示能组成 16 个提示，留 6 个——锦标赛里常有新旧两种可比，
# 又不至于每个提示都只有几个孩子、功劳全是噪声
PROMPT_POPULATION = 6
# 每 25 个预算写一次提示，这一份预算不提程序：写提示和写程序一样是一次模型调用，所以占一份预算
# （ShinkaEvolve 也把它算进成本）。一共占 4%；两次之间的 24 个提案让新提示先有一批孩子、记上功劳
PROMPT_INTERVAL = 25


@dataclass
class PromptEntry:
    """提示数据库里的一项：提示（几条指示）、照它提案的提出者、它的孩子数、其中比父程序好的。
    （孩子数一直在变，所以不是 frozen。）"""
    hints: tuple
    proposer: object
    children: int = 0
    improved: int = 0

    def credit(self):
        """功劳：(变好的 + 1) / (孩子数 + 2)。"""
        return (self.improved + 1) / (self.children + 2)


class PromptDatabase(Proposer):
    """和程序数据库并排的提示数据库，只属于一次运行（evolve.check_options 里建，随结果交回）。
    对 evolve 来说它也是一个提出者：propose 先挑提示、再由照着它的提出者提出；learn 给那个提示
    记功；每 PROMPT_INTERVAL 份预算要一份（wants_turn），在那一份里写一个新提示（take_turn）。
    llm 不会写提示时（prompt_writer）一句话。"""

    def __init__(self, llm):
        self.llm = prompt_writer(llm)
        # 它是什么：还是交来的那个提出者（变体的描述、图的分幅都看它）
        self._described = llm.describe()
        self.reset()

    def describe(self):
        return self._described

    def reset(self):
        """一次运行开始：只有提出者自己的提示，没有孩子。"""
        self.llm.reset()
        self.entries = [PromptEntry(self.llm.hints, self.llm)]
        # 提出了、还没听到结局的提案各是哪个提示的（按提案的顺序）
        self._waiting = []
        # 上一次写提示是在第几个预算
        self._written_at = 0

    def _tournament(self, rng):
        if len(self.entries) == 1:
            return self.entries[0]
        a, b = rng.sample(self.entries, 2)
        return b if b.credit() > a.credit() else a

    def propose(self, parent, feedback, inspirations, rng):
        entry = self._tournament(rng)
        entry.children += 1
        self._waiting.append(entry)
        return entry.proposer.propose(parent, feedback, inspirations, rng)

    def learn(self, improved):
        """最早那个还没听到结局的提案：它的子程序比父程序好吗。"""
        self._waiting.pop(0).improved += improved

    def wants_turn(self, step):
        """第 step 份预算该写提示了吗：上一次之后过了 PROMPT_INTERVAL 份。"""
        return step - self._written_at >= PROMPT_INTERVAL

    def take_turn(self, step, best, feedback, rng):
        """额外的写提示那一步：提出者从锦标赛挑出的父提示改出一个新的，读的是最好的程序 best
        和它的反馈；新的就收下，满了顶掉功劳最小的。返回收下没有。"""
        self._written_at = step
        parent = self._tournament(rng)
        hints = self.llm.propose_prompt(parent.hints, best, feedback, rng)
        if any(entry.hints == hints for entry in self.entries):
            return False
        if len(self.entries) >= PROMPT_POPULATION:
            worst = min(self.entries, key=PromptEntry.credit)
            self.entries.remove(worst)
        self.entries.append(PromptEntry(hints, self.llm.prompted(hints)))
        return True

    def leader(self):
        """赢了的提示：有孩子的里功劳最大的（一样大时最早进来的）。"""
        tried = [entry for entry in self.entries if entry.children] or self.entries
        return max(tried, key=PromptEntry.credit)
