"""测试用的 GBNF 读取器：语法是正则的（没有递归），展开成 Python 的正则表达式来查一段文字合不合
语法，也能从语法随机生成句子。不靠任何服务器。

rule ::= 选项 | 选项；选项是若干个原子，原子后面可以跟 {m,n}、{m}、?、*、+。
"""
import re

TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[A-Za-z_][\w-]*|\{\d+(?:,\d+)?\}|[()|?*+])')


def tokens(expr):
    out, pos = [], 0
    while expr[pos:].strip():
        m = TOKEN.match(expr, pos)
        assert m, expr[pos:]
        out.append(m.group(1))
        pos = m.end()
    return out


def parse_gbnf(text):
    """GBNF → {规则名: 语法树}。树：("alt", [...])、("seq", [...])、("lit", 文本)、
    ("class", "[...]")、("ref", 名)、("rep", 树, 最少, 最多)。"""
    rules = {}
    for line in text.strip().splitlines():
        name, expr = line.split("::=", 1)
        toks = tokens(expr)
        tree, rest = _alt(toks)
        assert not rest, rest
        rules[name.strip()] = tree
    return rules


def _alt(toks):
    options = []
    while True:
        seq, toks = _seq(toks)
        options.append(seq)
        if not toks or toks[0] != "|":
            return ("alt", options), toks
        toks = toks[1:]


def _seq(toks):
    items = []
    while toks and toks[0] not in ("|", ")"):
        tok, toks = toks[0], toks[1:]
        if tok == "(":
            atom, toks = _alt(toks)
            assert toks[0] == ")"
            toks = toks[1:]
        elif tok.startswith('"'):
            atom = ("lit", tok[1:-1].encode().decode("unicode_escape"))
        elif tok.startswith("["):
            atom = ("class", tok)
        else:
            atom = ("ref", tok)
        while toks and (toks[0] in "?*+" or toks[0].startswith("{")):
            op, toks = toks[0], toks[1:]
            lo, hi = {"?": (0, 1), "*": (0, None), "+": (1, None)}.get(op) or \
                tuple(int(x) for x in op[1:-1].split(",")) * (1 if "," in op else 2)
            atom = ("rep", atom, lo, hi)
        items.append(atom)
    return ("seq", items), toks


def to_regex(rules, tree=None):
    tree = rules["root"] if tree is None else tree
    kind = tree[0]
    if kind == "alt":
        return "(?:" + "|".join(to_regex(rules, t) for t in tree[1]) + ")"
    if kind == "seq":
        return "".join(to_regex(rules, t) for t in tree[1])
    if kind == "lit":
        return re.escape(tree[1])
    if kind == "class":
        return tree[1]
    if kind == "ref":
        return to_regex(rules, rules[tree[1]])
    _, atom, lo, hi = tree
    return f"(?:{to_regex(rules, atom)}){{{lo},{'' if hi is None else hi}}}"


def sentence(rules, rng, tree=None):
    """按语法随机生成一句（重复的次数偏向少的，免得太长）。"""
    tree = rules["root"] if tree is None else tree
    kind = tree[0]
    if kind == "alt":
        return sentence(rules, rng, rng.choice(tree[1]))
    if kind == "seq":
        return "".join(sentence(rules, rng, t) for t in tree[1])
    if kind == "lit":
        return tree[1]
    if kind == "class":
        lo, hi = tree[1][1], tree[1][3]
        return chr(rng.randint(ord(lo), ord(hi)))
    if kind == "ref":
        return sentence(rules, rng, rules[tree[1]])
    _, atom, lo, hi = tree
    n = min(lo + int(rng.expovariate(0.3)), hi)
    return "".join(sentence(rules, rng, atom) for _ in range(n))
