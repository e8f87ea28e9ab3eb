#!/usr/bin/env bash
# `citeloop loop` on a GPU machine of the device tool, for each loop config given: the configs'
# own recipe with the GPU batch (`--train-set batch_size=$BATCH gradient_accumulation_steps=1`;
# bf16 is chosen by device: auto), the trained model served by the transformers server on the
# GPU. Each loop's report.json, report.md and training summaries go to $WORK/results, packed into
# $OUT/loop.tgz after every loop (one file: the device tool returns at most 8).
#
#   WORK=/tmp/cl OUT=DIR bash eval/device/loop.sh configs/loop/smollm2-read-split.yaml [CONFIG ...]
#
# The base model is $WORK/base (verdict_judge.sh prepares it from $GGUF; so does this script when
# GGUF is set and it is missing), linked as models/base, the configs' base_model. BATCH (default
# 16); DEADLINE_S (default 520) skips a loop that would start after it. Run from the repository
# root with citeloop importable (docs/training.md, "A GPU session").
set -uo pipefail
: "${OUT:?set OUT to a folder for the results}" "${WORK:?}"
[ "$#" -gt 0 ] || { echo "error: name at least one loop config" >&2; exit 2; }
BATCH=${BATCH:-16}
DEADLINE_S=${DEADLINE_S:-520}
CITELOOP="python3 -m citeloop.eval.cli"
RESULTS="$WORK/loop-results"
export PYTHONUNBUFFERED=1

log() { echo "[$(date +%H:%M:%S) +${SECONDS}s] $*" | tee -a "$RESULTS/steps.log"; }
pack() { tar -czf "$OUT/loop.tgz.part" -C "$RESULTS" . && mv "$OUT/loop.tgz.part" "$OUT/loop.tgz"; }

mkdir -p "$WORK" "$OUT" "$RESULTS"
if [ ! -f "$WORK/base/config.json" ] && [ -n "${GGUF:-}" ]; then
    log "preparing the base model from $GGUF"
    $CITELOOP model prepare --from "$GGUF" --out "$WORK/base" >> "$RESULTS/prepare.log" 2>&1 \
        || { log "prepare failed"; tail -n 20 "$RESULTS/prepare.log"; pack; exit 2; }
fi
if [ -f "$WORK/base/config.json" ]; then
    mkdir -p models && ln -sfn "$WORK/base" models/base
fi

for config in "$@"; do
    name=$(basename "$config" .yaml)
    if [ "$SECONDS" -gt "$DEADLINE_S" ]; then log "$name: skipped, past the ${DEADLINE_S}s deadline"; continue; fi
    out="$WORK/loop-$name"
    log "$name: loop (batch $BATCH)"
    if $CITELOOP loop --config "$config" --out "$out" --train-set batch_size="$BATCH" \
            --train-set gradient_accumulation_steps=1 > "$RESULTS/$name.log" 2>&1; then
        log "$name: done"
    else
        log "$name: the loop failed"; tail -n 20 "$RESULTS/$name.log"
    fi
    mkdir -p "$RESULTS/$name"
    for file in report.json report.md; do [ -f "$out/$file" ] && cp "$out/$file" "$RESULTS/$name/"; done
    for summary in "$out"/model/summary.json "$out"/stage-*/summary.json; do
        [ -f "$summary" ] && cp "$summary" "$RESULTS/$name/$(basename "$(dirname "$summary")")-summary.json"
    done
    tail -n 30 "$RESULTS/$name.log"
    pack
done
log "finished"
pack
