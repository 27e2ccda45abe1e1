#!/usr/bin/env bash
# One H200 call: fc1's forward with its K slices in the fastest-varying local index (a warp's
# invocations read consecutive inputs: coalesced loads) against the previous layout (K slices in
# local z), both built into .gpu/ (cli: this tree; cli-old: the tree before, packed by hand), every
# kernel's unquantised GPU time at batch 512 and 2048, then a few tile shapes of the new layout.
# From the repository root after `source .gpu/remote.sh`:  bash bench/h200-linear-coalesced.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-linear-coalesced.txt
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
step() { echo "== $*" | tee -a "$log"; }
prof() { grep -E "images/s|total|fc1\.|fc2\.|conv2\.|conv1\." ; }
for run in 1 2; do
  step "run $run: previous layout (cli-old) bench --profile --batches 512,2048"
  timeout 60 node .gpu/cli-old/run.mjs bench --adapter gpu --batches 512,2048 --steps 20 --warmup 5 --profile 2>&1 | prof | tee -a "$log"
  step "run $run: coalesced layout (cli) bench --profile --batches 512,2048"
  timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 20 --warmup 5 --profile 2>&1 | prof | tee -a "$log"
done
for shape in '"WG_X":4,"WG_Y":2,"KSPLIT":64' '"WG_X":2,"WG_Y":2,"KSPLIT":64' '"WG_X":8,"WG_Y":1,"KSPLIT":32' '"WG_X":2,"WG_Y":4,"KSPLIT":32' '"WG_X":1,"WG_Y":2,"KSPLIT":128'; do
  step "tuning linear_forward {$shape}"
  timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 20 --warmup 5 --profile \
    --tuning "{\"kernels\":{\"linear_forward\":{$shape}}}" 2>&1 | grep -E "images/s|fc1\.forward" | tee -a "$log"
done
