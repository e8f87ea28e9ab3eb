# Call 1 of the GPU run (docs/training.md, "A GPU session"; carry .dev/c1 from prepare_carry.sh):
# stash the claims, the verdict dataset and the first GGUF part in /tmp/cl, install the carried wheels and citeloop,
# print the image's versions, and take 3 SFT steps of the tiny model on the GPU.
set -x
export PYTHONUNBUFFERED=1
mkdir -p /tmp/cl && cp .dev/c1/gguf.a /tmp/cl/ && tar -xJf .dev/c1/claims.tar.xz -C /tmp/cl && tar -xJf .dev/c1/verdicts.tar.xz -C /tmp/cl
ls /tmp/cl
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .dev/c1/whl/*.whl || exit 3
export PYTHONPATH=/tmp/site
python3 -m pip install -q --no-deps --no-build-isolation --no-index -e . 2>&1 | tail -3
set +x
python3 - <<'PY'
import importlib.metadata as md
names = ("pyarrow pandas numpy scipy torch tokenizers safetensors regex tqdm jinja2 rich packaging filelock requests "
         "setuptools psutil pyyaml xxhash hf-xet certifi urllib3 huggingface-hub transformers datasets trl peft "
         "accelerate openai pydantic typer click idna anyio fsspec kernels").split()
def version(name):
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "MISSING"
print(" ".join(f"{n}={version(n)}" for n in names))
PY
python3 -c "import datasets, trl, transformers, peft, openai, pydantic, citeloop.eval.cli, citeloop.eval.bench_verifier; print('imports ok')" 2>&1 | tail -3
python3 -c "import torch; print('cuda', torch.cuda.is_available(), torch.cuda.get_device_name(0))"
python3 -m citeloop.eval.cli model tiny --out /tmp/cl/tiny > /dev/null && echo tiny ok
time python3 -m citeloop.eval.cli train sft --config configs/train/sft-verdict-smollm2.yaml --set model=/tmp/cl/tiny \
  --set dataset=/tmp/cl/verdicts --set output=/tmp/cl/tiny-out --set max_steps=3 --set batch_size=16 \
  --set gradient_accumulation_steps=1 --set eval_split=null 2>&1 | tail -4
python3 -c "import json; d=json.load(open('/tmp/cl/tiny-out/summary.json')); print({k: d[k] for k in ('device','steps','seconds_per_step','rows','rows_too_long')})"
python3 -c "
from citeloop.training.hf_server import ChatModel
m = ChatModel('/tmp/cl/tiny-out', device='auto'); print('server device', m.device)
print(m.choose([{'role':'user','content':'Verdict?'}], ['entail','conflict'])[0])"
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_hf_server.py 2>&1 | tail -3
df -h /tmp | tail -1; free -g | head -2; nproc
