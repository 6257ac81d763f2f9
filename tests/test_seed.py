"""种子脚本：课程写的原版 05 脚本，原样跑在我们的 evolve、console 上。

它是 05 脚本和 console 的约定：别的讲的脚本也这样调用 console（表头是纯中文字符串，
没有元组、没有跨列表头），所以 console 要让这样的表格也放得进 80 列、60 列的终端。

tests/seed/000_38a61b7996488148.txt 是拿到的原文（换行丢了）；
tests/seed/05_alphaevolve_ablations.txt 是还原的脚本，只补回了换行和缩进（存成 .txt：它是
对照用的原文，不是我们的代码，duplicates 不该把它和我们的脚本配成一对）。种子脚本默认设置跑一遍
要五六秒 CPU，所以只跑一遍（COLUMNS=1000，和 conftest 里我们的脚本的那几遍一起在后台跑），
同时记下它让 console 打印的每一样东西；80 列、60 列时把它们原样再打印一遍。
"""
import os
import pickle
import re
import sys

import pytest
from conftest import ROOT, SCRIPT, SHARED, background_results, in_background
from test_console import check_fits

from lecture01 import console

SEED_DIR = os.path.join(ROOT, "tests", "seed")
SEED = os.path.join(SEED_DIR, "05_alphaevolve_ablations.txt")
ORIGINAL = os.path.join(SEED_DIR, "000_38a61b7996488148.txt")
RECORDED = ("print_header", "print_table", "print_observations")

# 种子脚本当作放在 lecture14/ 里运行（HERE、import 都和原来一样），console 的三个函数先换成
# "记下参数再照常打印"的版本；跑完把记下的调用存进 argv[4]
_RECORD = """
import pickle, sys
sys.path.insert(0, sys.argv[3])
import console
calls = []

def recording(name, real):
    def record(*args, **kw):
        calls.append((name, args, kw))
        return real(*args, **kw)
    return record

for name in sys.argv[5:]:
    setattr(console, name, recording(name, getattr(console, name)))
with open(sys.argv[2], encoding="utf-8") as f:
    source = f.read()
exec(compile(source, sys.argv[1], "exec"), {"__name__": "__main__", "__file__": sys.argv[1]})
with open(sys.argv[4], "wb") as f:
    pickle.dump(calls, f)
"""


def test_the_seed_copy_is_the_original_with_its_line_breaks_back():
    """还原的脚本把空白压成一个空格，就和拿到的原文一字不差：只补了换行和缩进。"""
    with open(SEED, encoding="utf-8") as f:
        restored = f.read()
    with open(ORIGINAL, encoding="utf-8") as f:
        original = f.read()
    assert re.sub(r"\s+", " ", restored).strip() == original.strip()


# 种子脚本默认设置、COLUMNS=1000 的一遍，和 conftest 里我们的脚本那几遍一起在后台跑
CALLS = os.path.join(SHARED, "seed_calls.pickle")
_command = [sys.executable, "-c", _RECORD, SCRIPT, SEED, os.path.join(ROOT, "lecture01"), CALLS,
            *RECORDED]
in_background("seed_run", "seed", _command, env={"COLUMNS": "1000"})


@pytest.fixture(scope="session")
def seed_run():
    """种子脚本的 stdout 和它调用 console 的 [(函数名, args, kwargs)]。"""
    out, _ = background_results("seed_run")["seed"]
    with open(CALLS, "rb") as f:
        return out, pickle.load(f)


def test_the_seeds_words_are_byte_for_byte_ours(seed_run, wide_stdout):
    """种子脚本一个进程挨个跑 evolve；我们的这一遍在核不止一个时用进程池（见 conftest）。"""
    out, _ = seed_run
    assert out == wide_stdout


@pytest.mark.parametrize("columns", [80, 60])
def test_what_the_seed_prints_through_console_fits(seed_run, capsys, monkeypatch, columns):
    """种子脚本让 console 打印的每一样东西，在 80 列、60 列里：一行都不超宽，数据行不折，
    每个表头完整地在它那一列里（check_fits）。演示 2 的两段说明是种子脚本自己 print() 的，
    console 管不到，不在这里。"""
    _, calls = seed_run
    assert [name for name, _, _ in calls].count("print_table") == 3
    monkeypatch.setenv("COLUMNS", str(columns))
    for name, args, kw in calls:
        getattr(console, name)(*args, **kw)
        out = capsys.readouterr().out
        assert max(console.display_width(line) for line in out.splitlines()) <= columns
        if name == "print_table":
            headers = args[0]
            # 演示 2 是两种排序并排（后三列的表头和前三列一样）：每块重复的是它那种排序的形状列
            side_by_side = len(headers) == 6 and headers[1:3] == headers[4:6]
            check_fits(out, headers, args[1], columns, (0, 3) if side_by_side else (0,))
