#!/usr/bin/env bash
# One H200 call: tile shapes of conv2's weight gradient (conv2d_backward_weight_tiled: TCO output x
# TCI input channels per workgroup, ROWS x TW pixel tiles), batch 512 and 2048, unquantised
# timestamps; prints images/s and the conv2.backward_weight line of --profile per shape.
# From the repository root after `source .gpu/remote.sh`:  bash bench/h200-conv-weight-sweep.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-conv-weight-sweep.txt
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
for shape in '"TCO":64,"TCI":16,"ROWS":2,"TW":16' '"TCO":64,"TCI":16,"ROWS":4,"TW":16' '"TCO":32,"TCI":32,"ROWS":2,"TW":16' \
  '"TCO":64,"TCI":32,"ROWS":2,"TW":16' '"TCO":64,"TCI":8,"ROWS":4,"TW":16' '"TCO":64,"TCI":16,"ROWS":1,"TW":16' \
  '"TCO":32,"TCI":16,"ROWS":4,"TW":16' '"TCO":64,"TCI":32,"ROWS":4,"TW":16' '"TCO":64,"TCI":16,"ROWS":8,"TW":16'; do
  echo "== conv2d_backward_weight_tiled {$shape}" | tee -a "$log"
  timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 10 --warmup 3 --profile \
    --tuning "{\"kernels\":{\"conv2d_backward_weight_tiled\":{$shape}}}" 2>&1 | grep -E "images/s \(|conv2\.backward_weight |rror" | tee -a "$log"
done
for t in 16384 131072; do
  echo "== default shape, targetThreads $t" | tee -a "$log"
  timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 10 --warmup 3 --profile \
    --tuning "{\"targetThreads\":$t}" 2>&1 | grep -E "images/s \(|conv2\.backward_weight |rror" | tee -a "$log"
done
