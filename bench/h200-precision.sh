#!/usr/bin/env bash
# One H200 call for half-precision arithmetic: the adapter with and without the Dawn toggles, the
# matmul ceilings (`webddp bench --profile`'s: fp32 WGSL, f16 subgroup matrices), `webddp check` with
# the half-precision features (JUnit XML), and webddp bench at batch 128, 512 and 2048 in fp32,
# fp16 and bf16 beside PyTorch 2.11 eager (TF32 default, autocast fp16, autocast bf16) on the same
# step, twice, alternating. Runs a packed CLI: BUNDLE holds bin/, dist-cli/
# and node_modules/webgpu without its binary (taken from .gpu/). From the repository root after
# `source .gpu/remote.sh`:  bash BUNDLE/h200-precision.sh OUT_DIR BUNDLE [quick|full]
set -uo pipefail
out=${1:-/tmp}
B=${2:-.h200-f16}
what=${3:-full}
mkdir -p "$B/node_modules/webgpu/dist/linux-x64" && cp .gpu/dawn.node "$B/node_modules/webgpu/dist/linux-x64/dawn.node"
[ -e "$B/fixtures" ] || ln -s ../fixtures "$B/fixtures"
W="node $B/bin/webddp.mjs"
log=$out/h200-precision.txt
step() { echo "== $*" | tee -a "$log"; }
# Shader compilation warnings Dawn prints (the deprecated subgroupMatrixLoad form, before the kernels
# moved to the new one) are left out here.
F() { grep -vE "deprecated builtin|^ *\^+ *$|subgroupMatrix(Load|Store|MultiplyAccumulate)|warning|Compilation log|^$|^\{"; }
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
if [ "$what" = fp16 ]; then
  # fp16 kernels only: their check cases, then fp16 with and without the subgroup-matrix kernels and fp32, profiled
  step "webddp check --adapter gpu --only kernels --kernels sgmat"
  timeout 120 $W check --adapter gpu --only kernels --kernels sgmat --junit "$out/check-sgmat.xml" 2>&1 | F | tail -20 | tee -a "$log"
  for t in '{}' '{"halfMatrix":[]}'; do
    step "webddp bench --adapter gpu --precision fp16 --batches 128,512,2048 --steps 30 --warmup 5 --profile --tuning '$t'"
    timeout 120 $W bench --adapter gpu --precision fp16 --batches 128,512,2048 --steps 30 --warmup 5 --profile --tuning "$t" 2>&1 | F | tee -a "$log"
  done
  step "webddp bench --adapter gpu --precision fp32 --batches 128,512,2048 --steps 30 --warmup 5"
  timeout 120 $W bench --adapter gpu --precision fp32 --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | F | tee -a "$log"
  exit 0
fi
step "webddp devices"
timeout 60 $W devices 2>&1 | grep -v XDG | tee -a "$log"
step "webddp bench --adapter gpu --precision fp16 --batches 128 --steps 5 --warmup 2 --profile (the matmul ceilings)"
timeout 60 $W bench --adapter gpu --precision fp16 --batches 128 --steps 5 --warmup 2 --profile 2>&1 | grep -E "ceiling|rror" | tee -a "$log"
if [ "$what" = quick ]; then
  step "webddp check --adapter gpu --only kernels --kernels sgmat,linear_forward_reduce"
  timeout 120 $W check --adapter gpu --only kernels --kernels sgmat,linear_forward_reduce --junit "$out/check-sgmat.xml" 2>&1 | F | tail -40 | tee -a "$log"
  for p in fp16 fp32; do
    step "webddp bench --adapter gpu --precision $p --batches 128,512,2048 --steps 20 --warmup 5 --profile"
    timeout 120 $W bench --adapter gpu --precision $p --batches 128,512,2048 --steps 20 --warmup 5 --profile 2>&1 | F | tee -a "$log"
  done
  exit 0
fi
step "webddp check --adapter gpu --junit check.xml"
timeout 240 $W check --adapter gpu --junit "$out/check.xml" 2>&1 | F | tail -60 | tee -a "$log"
for run in 1 2; do
  for p in fp32 fp16 bf16; do
    step "run $run: webddp bench --adapter gpu --precision $p --batches 128,512,2048 --steps 30 --warmup 5"
    timeout 90 $W bench --adapter gpu --precision $p --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | F | tee -a "$log"
  done
  for ac in "" "--autocast fp16" "--autocast bf16"; do
    step "run $run: python3 bench/pytorch_simplecnn.py --modes eager $ac"
    timeout 60 python3 "$B/pytorch_simplecnn.py" --modes eager --batches 128,512,2048 --steps 30 --warmup 5 $ac 2>&1 | F | tee -a "$log"
  done
done
for t in '{"halfMatrix":[]}' '{"halfMatrix":["conv-forward","conv-input","conv-weight","linear-forward","linear-weight"]}'; do
  step "webddp bench --adapter gpu --precision fp16 --batches 128,512,2048 --steps 30 --warmup 5 --tuning '$t'"
  timeout 90 $W bench --adapter gpu --precision fp16 --batches 128,512,2048 --steps 30 --warmup 5 --tuning "$t" 2>&1 | F | tee -a "$log"
done
# Accuracy: the synthetic set (learnable), 3 epochs, same seed, fp32 against fp16.
for p in "" --fp16; do
  step "webddp train --data synthetic --adapter gpu --epochs 3 --seed 0 --batch-size 128 $p --json (epoch lines)"
  timeout 120 $W train --data synthetic --store /tmp/store --adapter gpu --epochs 3 --seed 0 --batch-size 128 $p --json 2>&1 |
    grep -E '"type":"epoch"|rror|half arithmetic' | cut -c1-400 | tee -a "$log"
done
step "webddp bench --adapter gpu --precision fp16 --batches 512,2048 --steps 20 --warmup 5 --profile"
timeout 90 $W bench --adapter gpu --precision fp16 --batches 512,2048 --steps 20 --warmup 5 --profile 2>&1 | F | tee -a "$log"
