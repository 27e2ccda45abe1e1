#!/usr/bin/env bash
# One H200 call: fc1 through the tiled kernels (linear_forward_tiled + linear_forward_reduce;
# linear_backward_weight_tiled + conv2d_backward_weight_reduce: workgroup-memory tiles, split-K over
# workgroups) against the register kernels (split-K inside a workgroup), batch 512 and 2048,
# unquantised timestamps, alternating; then tile shapes of the weight gradient.
# From the repository root after `source .gpu/remote.sh`:  bash bench/h200-linear-tiled.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-linear-tiled.txt
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
run() {
  echo "== $1" | tee -a "$log"
  timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 20 --warmup 5 --profile --tuning "$1" 2>&1 |
    grep -E "images/s \(|fc1\.|GPU time per kernel|rror" | tee -a "$log"
}
for r in 1 2; do
  run '{"linearForward":"registers","linearWeight":"registers"}'
  run '{"linearForward":"tiled","linearWeight":"tiled"}'
done
for k in '"TO":64,"TI":64,"TK":32' '"TO":128,"TI":64,"TK":16' '"TO":64,"TI":128,"TK":16' '"TO":32,"TI":128,"TK":16'; do
  run "{\"linearForward\":\"tiled\",\"linearWeight\":\"tiled\",\"kernels\":{\"linear_backward_weight_tiled\":{$k}}}"
done
