#!/usr/bin/env bash
# One H200 call: the PyTorch autocast fp16 fixture (scripts/make-fixture.py autocast: CUDA torch),
# `webddp check --only kernels,precision --kernels matmul` against it (and the ceiling kernels' own
# cases), and `webddp bench --profile` in fp32 and fp16 at batch 2048 with the matmul ceilings
# measured in the same run (unquantised timestamps). Runs a packed CLI: BUNDLE holds bin/,
# dist-cli/, package.json, make-fixture.py and node_modules/webgpu without its binary (taken from
# .gpu/). From the repository root after `source .gpu/remote.sh`:
#   bash BUNDLE/h200-ceiling-autocast.sh OUT_DIR BUNDLE
set -uo pipefail
out=${1:-/tmp}
B=${2:-.h200-f16proof}
mkdir -p "$B/node_modules/webgpu/dist/linux-x64" "$B/fixtures"
cp .gpu/dawn.node "$B/node_modules/webgpu/dist/linux-x64/dawn.node"
W="node $B/bin/webddp.mjs"
log=$out/h200-ceiling-autocast.txt
step() { echo "== $*" | tee -a "$log"; }
F() { grep -vE "XDG|^ *\^+ *$|warning|Compilation log|^$"; }
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
step "nvidia-smi; python3 scripts/make-fixture.py autocast"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a "$log"
OUT=$out PYTHONUNBUFFERED=1 timeout 120 python3 "$B/make-fixture.py" autocast 2>&1 | tee -a "$log"
cp "$out/simplecnn_autocast_fp16.safetensors" "$B/fixtures/"
step "webddp check --adapter gpu --only kernels,precision --kernels matmul"
timeout 120 $W check --adapter gpu --only kernels,precision --kernels matmul --junit "$out/check.xml" 2>&1 | F | tee -a "$log"
for p in fp32 fp16; do
  step "webddp bench --adapter gpu --precision $p --batches 2048 --steps 10 --warmup 3 --profile"
  timeout 120 $W bench --adapter gpu --precision $p --batches 2048 --steps 10 --warmup 3 --profile 2>&1 | F | tee -a "$log"
done
step "webddp bench --adapter gpu --precision fp16 --batches 512 --steps 5 --warmup 2 --profile --json"
timeout 120 $W bench --adapter gpu --precision fp16 --batches 512 --steps 5 --warmup 2 --profile --json > "$out/bench-fp16-512.json" 2>>"$log"
tail -c 600 "$out/bench-fp16-512.json" | tee -a "$log"
