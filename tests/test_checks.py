"""checks.py：学生写错一个值时得到的那一句话。05 脚本开头的常数（settings_problem）错了，
开跑之前就一句话说清楚；VARIANTS 那一块载入时就抛出的错（settings_excepthook）只说一句话和
第几行。经 evolve、Evaluator、MockLLM 的门口查出来的那些说法，在 test_classroom.py 里
从学生那一边查。"""
import contextlib
import io
import sys

import pytest

import evolve as E
from checks import settings_excepthook, settings_problem
from evolve import MockLLM


# —— 学生改脚本开头的常数：开跑之前就用一句话说清楚 ——

class OneArgument(MockLLM):
    """propose 只写了一个参数的学生的提出者。"""
    def propose(self, parent):
        return None


DEFAULTS = {"seeds": 5, "budget": 1000, "marks": (50, 100, 300, 1000)}


def settings(script, **edit):
    """脚本开头的四个常数（默认值），改掉 edit 里的几个，交给 checks.settings_problem。"""
    given = {**DEFAULTS, "variants": script.VARIANTS, **edit}
    return settings_problem(given["seeds"], given["budget"], given["marks"], given["variants"],
                            E.check_options)


@pytest.mark.parametrize("edit, words", [
    ({"budget": 200}, ["MARKS", "≤ BUDGET", "BUDGET 现在是 200", "(50, 100, 300, 1000)"]),
    ({"marks": (50, 100, 300, 2000)}, ["MARKS", "≤ BUDGET", "2000"]),
    ({"budget": 0}, ["BUDGET", "≥ 1", "0"]),
    ({"budget": 2.5}, ["BUDGET", "整数", "2.5"]),
    ({"seeds": 0}, ["SEEDS", "≥ 1", "0"]),
    ({"seeds": "5"}, ["SEEDS", "整数", "'5'"]),
    ({"marks": (0, 100, 300, 1000)}, ["MARKS", "≥ 1", "(0, 100"]),
    ({"marks": (100, 50, 300, 1000)}, ["MARKS", "从小到大"]),
    ({"marks": ()}, ["MARKS", "从小到大"]),
    ({"marks": 1000}, ["MARKS", "从小到大", "1000"]),
    ({"variants": "drop full"}, ["VARIANTS 里少了 'full'", "别的变体都可以删"]),
    ({"variants": {"typo": {"casade": False}}}, ["VARIANTS['typo']", "'casade'", "'cascade'"]),
    ({"variants": {"quoted": {"evolution": "False"}}},
     ["VARIANTS['quoted']", "evolution='False'", "False？"]),
    # evolve 的 seed、budget 写进了变体：说它们由 SEEDS、BUDGET 定
    ({"variants": {"lucky": {"seed": 3}}}, ["VARIANTS['lucky']：seed 不是一个变体的选项", "SEEDS"]),
    ({"variants": {"long": {"budget": 5000}}}, ["VARIANTS['long']：budget 不是一个变体的选项",
                                                "BUDGET"]),
    ({"variants": {"flat": {"feedback": "roofline"}}},
     ["VARIANTS['flat']", '{"llm": MockLLM(feedback=...)}']),
    ({"variants": {"not_a_dict": 8}}, ["VARIANTS['not_a_dict']", "dict"]),
    ({"variants": [("full", {})]}, ["VARIANTS 必须是 dict", "list"]),
    # 空的名字：表里那一行没有名字；带换行的名字：把那一行拆成两行
    ({"variants": {"": {}}}, ["VARIANTS 里的变体名是表里那一行的名字", "不全是空格", "收到 ''"]),
    ({"variants": {"   ": {}}}, ["VARIANTS 里的变体名是", "收到 '   '"]),
    ({"variants": {"a\nb": {}}}, ["VARIANTS 里的变体名是", "没有换行", "收到 'a\\nb'"]),
    # propose 少写了参数：开跑之前就说要写成什么
    ({"variants": {"mine": {"llm": OneArgument()}}},
     ["VARIANTS['mine']", "OneArgument 的 propose 要写成",
      "def propose(self, parent, feedback, inspirations, rng)", "收到 def propose(self, parent)"]),
])
def test_a_bad_constant_is_one_sentence_naming_it(script, edit, words):
    if "variants" in edit:
        variants = dict(script.VARIANTS)
        if edit["variants"] == "drop full":
            del variants["full"]
        elif isinstance(edit["variants"], dict):
            variants.update(edit["variants"])
        else:
            variants = edit["variants"]
        edit = {"variants": variants}
    msg = settings(script, **edit)
    assert isinstance(msg, str) and "\n" not in msg
    for w in words:
        assert w in msg


@pytest.mark.parametrize("written", ["full ", "Full", "ful"])
def test_a_full_written_slightly_differently_is_named(script, written):
    """full 写成了 'full '、'Full'：那句话说出学生写的那个名字，不只说"少了 full"——学生看着
    自己写的 full，不知道错在哪。"""
    variants = {written if name == "full" else name: kw for name, kw in script.VARIANTS.items()}
    slip = settings(script, variants=variants)
    assert slip.startswith(f"VARIANTS 里少了 'full'（你写的 {written!r} 要一字不差地写成 'full'）")


def test_the_default_constants_pass_the_check(script):
    assert settings(script) is None


def test_every_variant_but_full_may_be_deleted(script):
    assert settings(script, variants={"full": {}}) is None


@pytest.mark.parametrize("rows, said", [
    # 写了两次的变体：前一个那一行悄悄不见了
    (['"full": {}', '"mine": {"n_islands": 2}', '"mine": {"n_islands": 8}'],
     "第 5 行：VARIANTS 里的 'mine' 第 4 行已经写过"),
    # 连 full 也一样
    (['"full": {}', '"other": {}', '"full": {"cascade": False}'],
     "第 5 行：VARIANTS 里的 'full' 第 3 行已经写过"),
    # 键都不一样：没话说
    (['"full": {}', '"mine": {}'], None),
])
def test_a_variant_written_twice_is_one_sentence_naming_it_and_both_lines(rows, said, tmp_path):
    """dict 里写了两次的键只留后一个，运行时看不出来：settings_problem 读脚本的源码
    （path，像 05 脚本传的 __file__），说出那个名字和两行的行号。"""
    path = tmp_path / "student.py"
    body = "".join(f"    {row},\n" for row in rows)
    path.write_text(f"SEEDS = 5\nVARIANTS = {{\n{body}}}\n", encoding="utf-8")
    variants = {"full": {}, "mine": {}, "other": {}}
    slip = settings_problem(5, 1000, (50, 100, 300, 1000), variants, E.check_options, str(path))
    assert slip == said if said is None else slip.startswith(said)
    assert said is None or "删掉一个" in slip


# —— 载入时就抛出的错：一句话、学生那一块里的行号 ——

def _hooked(source, path):
    """执行 source（当作 path 这个文件），它抛出的异常交给 settings_excepthook("student.py")：
    返回它写到 stderr 的。"""
    try:
        exec(compile(source, path, "exec"), {"MockLLM": MockLLM})
    except Exception:
        error = sys.exc_info()
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        settings_excepthook("student.py")(*error)
    return said.getvalue()


def test_the_excepthook_names_the_line_of_a_slip_in_the_students_block():
    """MockLLM 在 evolve.py 里抛出，那句话说的是学生那一块里的行号，不打 traceback。"""
    source = 'SEEDS = 5\nVARIANTS = {\n    "a": {"llm": MockLLM(focus="worst")},\n}\n'
    said = _hooked(source, "student.py")
    assert said.startswith("设置有误：第 3 行：") and "'worst'" in said and "'worst3'" in said
    assert said.count("\n") == 1 and "Traceback" not in said


@pytest.mark.parametrize("source, path", [
    # 不是选项写错（学生那一块之外的 bug 要它的 traceback）
    ("raise KeyError('full')\n", "student.py"),
    # 不是在学生的脚本里抛出的
    ("MockLLM(focus='worst')\n", "another.py"),
])
def test_the_excepthook_leaves_every_other_error_its_traceback(source, path):
    said = _hooked(source, path)
    assert "Traceback" in said and "设置有误" not in said


@pytest.mark.parametrize("line, name, meant", [
    ('    "a": {"cascade": false},\n', "false", "False"),
    ('    "a": {"llm": MockLLm(knowledge=False)},\n', "MockLLm", "MockLLM"),
])
def test_a_misspelt_name_in_the_block_is_one_sentence_with_its_line_and_the_name_meant(line, name,
                                                                                         meant):
    """学生那一块里拼错的名字（NameError）：第几行、哪个名字、你是不是想写哪个，不打 traceback。"""
    source = "SEEDS = 5\nVARIANTS = {\n" + line + "}\n"
    said = _hooked(source, "student.py")
    assert said == (f"设置有误：第 3 行：名字 {name!r} 没有定义，你是不是想写 {meant!r}？\n")


def test_marks_written_as_one_number_is_told_to_be_a_tuple():
    slip = settings_problem(5, 1000, 1000, {"full": {}}, E.check_options)
    assert slip.startswith("MARKS 是表里看分数的几个时刻") and "收到 1000" in slip
    assert slip.endswith("一个时刻也写成元组，例如 MARKS = (1000,)")


def test_an_unquoted_option_value_is_told_to_take_quotes(tmp_path, monkeypatch):
    """MockLLM(feedback=roofline)：少的是引号，不是 import——那句话说加上引号、写成什么。
    （那一行从文件里读：学生的脚本是个文件）"""
    source = 'SEEDS = 5\nVARIANTS = {\n    "a": {"llm": MockLLM(feedback=roofline)},\n}\n'
    monkeypatch.setenv("COLUMNS", "1000")
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    try:
        exec(compile(source, str(path), "exec"), {"MockLLM": MockLLM})
    except NameError:
        error = sys.exc_info()
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        settings_excepthook(str(path))(*error)
    assert said.getvalue() == ('设置有误：第 3 行：feedback=roofline 里的 roofline 没有加引号：'
                               '选项的值是文字时写成 feedback="roofline"。\n')


def test_a_proposer_written_as_a_string_is_told_to_drop_the_quotes():
    """Ensemble 的成员写成了 "MockLLM()"：那句话说的是那个成员（收到的值），不说 llm。"""
    from ensemble import Ensemble
    with pytest.raises(TypeError) as e:
        Ensemble([MockLLM(), "MockLLM()"])
    assert str(e.value) == "提出者不是字符串：去掉引号，写成 MockLLM()，收到 'MockLLM()'"


@pytest.mark.parametrize("argv", [["--plot", "a.png", "--plot", "b.png"],
                                  ["--plot=a.png", "--size", "800x600", "--plot", "b.png"]])
def test_an_option_given_twice_is_one_sentence_with_both_values(argv, capsys, monkeypatch):
    """argparse 只留后给的那个值、什么都不说：--plot a.png --plot b.png 就悄悄只存 b.png。
    OneSentenceParser 说一句，两个值都说出来，退出码 2。"""
    from checks import OneSentenceParser
    monkeypatch.setattr(sys, "argv", ["script.py"])
    monkeypatch.setenv("COLUMNS", "1000")
    parser = OneSentenceParser()
    parser.add_argument("--plot")
    parser.add_argument("--size")
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(argv)
    assert stop.value.code == 2
    said = capsys.readouterr().err
    assert said == ("script.py：命令行参数不对：--plot 给了两次（a.png 和 b.png），"
                    "只能给一次（script.py --help 看用法）。\n")
    # 各给一次照常；同一个解析器再读一次，上一次给过的不算
    assert vars(parser.parse_args(["--plot", "a.png"])) == {"plot": "a.png", "size": None}
    assert parser.parse_args(["--plot", "b.png"]).plot == "b.png"


def test_an_unknown_keyword_lists_the_known_ones_without_a_stray_space():
    from checks import unknown_keyword
    said = str(unknown_keyword("MockLLM() ", "feedbak", ["feedback", "focus"]))
    assert said == ("MockLLM() 没有参数 'feedbak'，你是不是想写 'feedback'？"
                    "可用的参数：feedback, focus")
    said = str(unknown_keyword("MockLLM() ", "zzz", ["feedback", "focus"]))
    assert said.endswith("没有参数 'zzz'。可用的参数：feedback, focus")


@pytest.mark.parametrize("english, chinese", [
    ("unrecognized arguments: --bogus x", "不认识的参数：--bogus x"),
    ("argument --plot: expected one argument", "--plot 后面要跟一个值"),
    ("argument --budget: invalid int value: 'x'", "--budget 的值要是整数，收到 'x'"),
    ("argument --edit: invalid choice: 'y' (choose from 'full', 'diff')",
     "--edit 不能是 'y'，可选：'full', 'diff'"),
    ("the following arguments are required: NAME", "少了参数：NAME"),
    ("argument --seed: 种子要是 ≥ 0 的整数", "--seed：种子要是 ≥ 0 的整数"),
])
def test_argparse_errors_are_said_in_chinese(english, chinese):
    from checks import argparse_in_chinese
    assert argparse_in_chinese(english) == chinese


def test_only_the_students_own_frames_are_reported():
    """引擎（作为模块载入的讲义文件）、标准库里抛出的异常没有学生的一层：照常抛出原来的异常；
    讲义目录外的文件（这个测试文件）是学生的。"""
    from checks import positive_int, student_failure
    with pytest.raises(ValueError) as engine:
        positive_int("budget", 0)
    # 从引擎那一层看（run_job 接住它的地方在 runs.py 里）：去掉这个测试自己那一层
    inner = engine.value.with_traceback(engine.value.__traceback__.tb_next)
    assert student_failure(inner, "变体 'a' 的提出者") is None
    with pytest.raises(ZeroDivisionError) as own:
        1 / 0
    said = student_failure(own.value, "变体 'a' 的提出者")
    assert said.startswith("变体 'a' 的提出者出错：") and "test_checks.py 第 " in said
    assert said.endswith("（在 test_only_the_students_own_frames_are_reported 里：1 / 0）："
                         "ZeroDivisionError: division by zero")
