"""
随机改一处：真模型要比的底线。

进化循环（挑父程序、级联、数据库）本身就会从随机改动里挑出好的；模型得比它好，才说明它提出的
改动有用——AlphaEvolve 消融里"更强的模型提出更好的修改"要回答的正是这个问题。
evolve_with_llm.py 的命令行和 llm_ablations.py 的表都用它。
"""
from dataclasses import replace

from evolve import CONFIG_CHOICES, VARS, TrainingView, static_valid, with_bound, with_config


class RandomEdits:
    """对照：没有内核知识、也不看反馈的提出者。每个提案从父程序所有"改一处、改完仍能启动"的
    改动里均匀抽一个：某个分支的配置换一个字段的值，或把某条规则的一个阈值挪到相邻的训练值上。
    进化循环（挑父程序、级联、数据库）照样在，所以它衡量的是"只靠选择，随机改能走多远"。
    只用 evolve 给的 rng。"""

    def describe(self):
        """它是什么（evolve.describe_proposer）：没有选项，只有类名。"""
        return {"proposer": type(self).__name__}

    def propose(self, parent, feedback, inspirations, rng):
        edits = field_edits(parent, feedback.hw) + threshold_moves(parent, feedback.shapes)
        return edits[rng.randrange(len(edits))]


def field_edits(p, hw):
    """每一处"某个分支的配置换一个字段的值、换完仍能启动"的改动，按分支、字段、值的顺序。"""
    edits = []
    for i, cfg in enumerate(p.configs()):
        for field, values in CONFIG_CHOICES.items():
            for value in values:
                new = replace(cfg, **{field: value})
                if value != getattr(cfg, field) and static_valid(new, hw):
                    edits.append(with_config(p, i, new))
    return edits


def threshold_moves(p, shapes):
    """每一处"某条规则的一个阈值挪到相邻的训练值（0 是没有下界）"的改动，按规则、变量、端点、
    往下再往上的顺序。"""
    # 和 MockLLM 挪阈值时一样：只在训练里出现过的值（和 0）之间挪
    grid = TrainingView(shapes).grid
    moves = []
    for i, rule in enumerate(p.rules):
        for j, v in enumerate(VARS):
            for end, bound in enumerate(rule.bounds[j]):
                if bound not in grid[v]:
                    continue
                k = grid[v].index(bound)
                neighbours = [grid[v][k + d] for d in (-1, 1) if 0 <= k + d < len(grid[v])]
                moves += [with_bound(p, i, j, end, x) for x in neighbours]
    return moves
