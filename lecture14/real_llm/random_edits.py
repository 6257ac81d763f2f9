"""
随机改一处：真模型要比的底线。

进化循环（挑父程序、级联、数据库）本身就会从随机改动里挑出好的；模型得比它好，才说明它提出的
改动有用——AlphaEvolve 消融里"更强的模型提出更好的修改"要回答的正是这个问题。
evolve_with_llm.py 的命令行和 llm_ablations.py 的表都用它。
"""
from evolve import (CONFIG_CHOICES, VARS, Proposer, TrainingView, movable_ends, moved_threshold,
                    static_valid, with_field)


class RandomEdits(Proposer):
    """对照：没有内核知识、也不看反馈的提出者。每个提案从父程序所有"改一处、改完仍能启动"的
    改动里均匀抽一个：某个分支的配置换一个字段的值，或把某条规则的一个阈值挪到相邻的训练值上。
    进化循环（挑父程序、级联、数据库）照样在，所以它衡量的是"只靠选择，随机改能走多远"。
    只用 evolve 给的 rng。没有选项：describe 是 Proposer 的默认，只有类名。"""

    def propose(self, parent, feedback, inspirations, rng):
        edits = field_edits(parent, feedback.hw) + threshold_moves(parent, feedback.shapes)
        return edits[rng.randrange(len(edits))]


def field_edits(p, hw):
    """每一处"某个分支的配置换一个字段的值、换完仍能启动"的改动，按分支、字段、值的顺序。
    一处改动就是 MockLLM 小改动的那一步（with_field），只是值不限于相邻的。"""
    edits = []
    for i, cfg in enumerate(p.configs()):
        for field, values in CONFIG_CHOICES.items():
            others = [value for value in values if value != getattr(cfg, field)]
            changed = [with_field(p, i, field, value) for value in others]
            edits += [child for child in changed if static_valid(child.configs()[i], hw)]
    return edits


def threshold_moves(p, shapes):
    """每一处"某条规则的一个阈值挪到相邻的训练值（0 是没有下界）"的改动，按规则、变量、端点、
    往下再往上的顺序：MockLLM 挪阈值的每一种可能（movable_ends、moved_threshold），
    除去已经在头上、挪不动的。"""
    view = TrainingView(shapes)
    moves = []
    for i, rule in enumerate(p.rules):
        for j in range(len(VARS)):
            for end in movable_ends(rule, j, view):
                tried = [moved_threshold(p, view, i, j, end, direction) for direction in (-1, 1)]
                moves += [child for child in tried if child.rules[i].bounds != rule.bounds]
    return moves
