#!/usr/bin/env bash
# One H200 call: workgroup shapes of the linear weight gradient (linear_backward_weight: WG_X x WG_Y
# tiles of 4 inputs x 4 outputs, NSPLIT sample slices per tile), batch 512 and 2048, unquantised
# timestamps; prints images/s and the fc1/fc2 backward_weight lines of --profile per shape.
# From the repository root after `source .gpu/remote.sh`:  bash bench/h200-linear-weight-sweep.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-linear-weight-sweep.txt
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
for shape in '"WG_X":8,"WG_Y":2,"NSPLIT":8' '"WG_X":16,"WG_Y":2,"NSPLIT":8' '"WG_X":8,"WG_Y":4,"NSPLIT":8' \
  '"WG_X":8,"WG_Y":2,"NSPLIT":16' '"WG_X":4,"WG_Y":2,"NSPLIT":16' '"WG_X":16,"WG_Y":1,"NSPLIT":16' '"WG_X":32,"WG_Y":1,"NSPLIT":8'; do
  echo "== linear_backward_weight {$shape}" | tee -a "$log"
  timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 10 --warmup 3 --profile \
    --tuning "{\"kernels\":{\"linear_backward_weight\":{$shape}}}" 2>&1 | grep -E "images/s \(|fc[12]\.backward_weight |rror" | tee -a "$log"
done
