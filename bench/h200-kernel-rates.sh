#!/usr/bin/env bash
# One H200 call: every kernel's GPU time at batch 512 and 2048 (unquantised timestamps) with its
# TFLOP/s, GB/s and FLOP per byte (src/throughput/kernel-work.ts). From the repository root after
# `source .gpu/remote.sh`:  bash bench/h200-kernel-rates.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
timeout 60 bash .gpu/run.sh bench --adapter gpu --batches 512,2048 --steps 10 --warmup 3 --profile 2>&1 |
  grep -v XDG | tee "$out/h200-kernel-rates.txt"
