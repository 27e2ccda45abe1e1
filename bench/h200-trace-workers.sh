#!/usr/bin/env bash
# One H200 call: where a DDP step's time goes with 1, 2 and 4 workers sharing the one GPU (the
# multi-worker throughput target). Each run trains on a real-format archive at the same global
# batch (128) with --trace;
# bench/trace-summary.mjs then prints per rank the step's wall time, GPU busy time, the
# communication no GPU work hid, data and upload. From the repository root after
# `source .gpu/remote.sh`:  bash bench/h200-trace-workers.sh OUT_DIR [TRAIN_FLAG...]
# (e.g. --colocate: the ranks share one device and sum their buckets on it)
set -uo pipefail
# Dawn rounds timestamps to 65.5 us unless told not to: per-layer spans are shorter than that.
export WEBDDP_DAWN_FLAGS=${WEBDDP_DAWN_FLAGS:-disable-dawn-features=timestamp_quantization}
out=${1:-/tmp}
shift || true
log=$out/h200-trace.txt
step() { echo "== $*" | tee -a "$log"; }
step "webddp devices"
timeout 20 bash .gpu/run.sh devices 2>&1 | grep -v XDG | head -8 | tee -a "$log"
timeout 15 python3 bench/make_cifar_format.py /tmp/cifar.tar.gz >/dev/null 2>&1
for wb in 1:128 2:64 4:32; do
  w=${wb%%:*}
  step "webddp train --data cifar.tar.gz --adapter gpu --workers $w --batch-size ${wb##*:} --train-limit 25600 --epochs 1 --trace w$w.json $*"
  timeout 40 bash .gpu/run.sh train --data /tmp/cifar.tar.gz --store /tmp/store --adapter gpu --workers "$w" \
    --batch-size "${wb##*:}" --epochs 1 --train-limit 25600 --test-limit 1000 --trace "$out/w$w.json" --json "$@" 2>&1 |
    grep -E '"type":"epoch"|rror' | tee -a "$log"
  [ -f "$out/w$w.json" ] && node bench/trace-summary.mjs "$out/w$w.json" --from 20 2>&1 | tee -a "$log"
  [ -f "$out/w$w.json" ] && gzip -9 "$out/w$w.json"
done
