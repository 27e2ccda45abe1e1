#!/usr/bin/env bash
# One H200 call: fp16 training speed on the H200: fp32, fp16 (default), fp16 without subgroup-matrix kernels,
# fp16 without the Dawn toggles; the synthetic set, 2 epochs, batch 128 and 512. From the repository root after
# `source .gpu/remote.sh`:  bash bench/h200-train-fp16.sh OUT_DIR BUNDLE (a packed CLI, as for h200-precision.sh)
set -uo pipefail
out=$1; B=$2
mkdir -p "$B/node_modules/webgpu/dist/linux-x64" && cp .gpu/dawn.node "$B/node_modules/webgpu/dist/linux-x64/dawn.node"
W="node $B/bin/webddp.mjs"
for bs in 128 512; do
for run in "fp32::" "fp16:--fp16:" 'fp16-no-matrix:--fp16:{"halfMatrix":[]}' "fp16-no-toggles:--fp16:0"; do
  IFS=: read -r name flag extra <<<"$run"
  echo "== $name batch $bs" | tee -a $out/train.txt
  if [ "$extra" = 0 ]; then export WEBDDP_HALF_FEATURES=0; unset WEBDDP_TUNING; elif [ -n "$extra" ]; then unset WEBDDP_HALF_FEATURES; export WEBDDP_TUNING="$extra"; else unset WEBDDP_HALF_FEATURES WEBDDP_TUNING; fi
  timeout 100 $W train --data synthetic --store /tmp/store --adapter gpu --epochs 2 --seed 0 --batch-size $bs $flag --log-every 0 2>&1 | grep -vE "deprecated|^ *\^|subgroupMatrix|warning|Compilation|^$" | tail -6 | cut -c1-300 | tee -a $out/train.txt
done
done
