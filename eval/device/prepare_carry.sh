#!/usr/bin/env bash
# Builds what the verdict-judge GPU run (eval/device/verdict_judge.sh) needs on a machine of the
# `device` tool, as three folders each small enough for one call (at most 64 MiB with the working
# tree): .dev/c1 (the wheels of wheels.txt, the SciFact and WiCE claim files, the verdict
# dataset, the GGUF's first part), .dev/c2 and .dev/c3 (the rest of the GGUF and its sha256).
# Run from the repository root, with citeloop installed here and ../shared/data beside it:
#
#   bash eval/device/prepare_carry.sh
#
# Then three calls while the machine stays warm (docs/training.md, "A GPU session"): probe.sh
# with carry .dev/c1, `cp .dev/c2/gguf.b /tmp/cl/` with carry .dev/c2, and the run with carry .dev/c3.
set -euo pipefail
DATA=${DATA:-../shared/data}
LIMIT=$((64 * 1024 * 1024 - 512 * 1024))   # the call's limit, less a margin for files made meanwhile
grep -qx '/.dev/' .git/info/exclude 2>/dev/null || { mkdir -p .git/info; echo '/.dev/' >> .git/info/exclude; }
rm -rf .dev/c1 .dev/c2 .dev/c3 && mkdir -p .dev/c1/whl .dev/c2 .dev/c3

pins=$(python3 - <<'PY'
import importlib.metadata as md
from pathlib import Path
names = [line.strip() for line in Path("eval/device/wheels.txt").read_text().splitlines()
         if line.strip() and not line.startswith("#")]
try:
    print(" ".join(f"{name}=={md.version(name)}" for name in names))
except md.PackageNotFoundError as exc:
    raise SystemExit(f"error: {exc.name} (eval/device/wheels.txt) is not installed here") from None
PY
)
# shellcheck disable=SC2086  # one word per pin
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .dev/c1/whl $pins 2>&1 | grep -v '^WARNING' || true
tar -C "$DATA" -cJf .dev/c1/claims.tar.xz scifact wice
python3 -m citeloop.eval.verdict_dataset --data "$DATA" --out .dev/verdicts --overwrite > /dev/null
tar -C .dev -cJf .dev/c1/verdicts.tar.xz verdicts

gguf=$(python3 -c "from citeloop.training.base_model import find_smollm2_gguf; print(find_smollm2_gguf())")
size=$(stat -c %s "$gguf")
tree=$(git ls-files -z | xargs -0 stat -c %s | awk '{s += $1} END {print s}')
room=$((LIMIT - tree))
first=$((room - $(du -sb .dev/c1 | cut -f1)))
[ "$first" -gt 0 ] && [ $((size - first)) -le $((2 * room)) ] || { echo "error: the GGUF does not fit in three calls" >&2; exit 2; }
second=$(( size - first > room ? room : size - first ))
dd if="$gguf" of=.dev/c1/gguf.a bs=1M iflag=count_bytes count="$first" status=none
dd if="$gguf" of=.dev/c2/gguf.b bs=1M iflag=skip_bytes,count_bytes skip="$first" count="$second" status=none
dd if="$gguf" of=.dev/c3/gguf.c bs=1M iflag=skip_bytes skip=$((first + second)) status=none
sha256sum "$gguf" | cut -d' ' -f1 > .dev/c3/gguf.sha256
[ "$(cat .dev/c1/gguf.a .dev/c2/gguf.b .dev/c3/gguf.c | sha256sum | cut -d' ' -f1)" = "$(cat .dev/c3/gguf.sha256)" ]
for part in c1 c2 c3; do
    echo ".dev/$part: $(( ($(du -sb .dev/$part | cut -f1) + tree) / 1024 / 1024 )) MiB with the working tree"
done
