#!/usr/bin/env bash
# One H200 call for the one-worker throughput target: `webddp bench` one worker, serial and pipelined (two
# steps in flight, as `webddp train` runs and as PyTorch's loop queues its kernels), three runs,
# alternating with PyTorch 2.11 eager in the same call: with PyTorch's defaults (cuDNN convolutions
# in TF32) and with --strict-fp32 (float32 everywhere, as webddp computes). From the repository root after
# `source .gpu/remote.sh`:  bash bench/h200-pipelined.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-pipelined.txt
step() { echo "== $*" | tee -a "$log"; }
for run in 1 2 3; do
  step "run $run: webddp bench --adapter gpu --batches 128,512,2048 --steps 30 --warmup 5"
  timeout 40 bash .gpu/run.sh bench --adapter gpu --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | grep -v XDG | tee -a "$log"
  step "run $run: python3 bench/pytorch_simplecnn.py --modes eager --batches 128,512,2048 --steps 30 --warmup 5"
  timeout 30 python3 bench/pytorch_simplecnn.py --modes eager --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | tee -a "$log"
  step "run $run: python3 bench/pytorch_simplecnn.py --modes eager --strict-fp32 --batches 128,512,2048 --steps 30 --warmup 5"
  timeout 30 python3 bench/pytorch_simplecnn.py --modes eager --strict-fp32 --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | tee -a "$log"
done
