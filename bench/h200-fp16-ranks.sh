#!/usr/bin/env bash
# One H200 call: fp16 with several ranks. W=1 and W=2, fp32 and fp16, `webddp train` on the synthetic
# set, batch 128 (and 512 at W=2), with two packed CLIs side by side: .h200-fp16perf/before and
# .h200-fp16perf/after, each holding bin/, dist-cli/, package.json and node_modules/webgpu without its
# binary (taken from .gpu/). From the repository root after `source .gpu/remote.sh`:
#   bash bench/h200-fp16-ranks.sh OUT_DIR
set -uo pipefail
out=$1; D=.h200-fp16perf
for v in before after; do mkdir -p $D/$v/node_modules/webgpu/dist/linux-x64 && cp .gpu/dawn.node $D/$v/node_modules/webgpu/dist/linux-x64/dawn.node; done
log=$out/train.txt
one() { # bundle workers batch flag
  echo "== $1 workers $2 batch $3 ${4:-fp32}" | tee -a $log
  timeout 60 node $D/$1/bin/webddp.mjs train --data synthetic --store /tmp/store --adapter gpu --epochs 2 --seed 0 --workers $2 --batch-size $3 ${4:-} --log-every 0 2>&1 | grep -E "^epoch|OVERFLOW|rror" | cut -c1-200 | tee -a $log
}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee -a $log
lscpu | grep "Model name" | tee -a $log
for v in before after; do for w in 1 2; do one $v $w 128; one $v $w 128 --fp16; done; done
one after 2 512; one after 2 512 --fp16
