#!/usr/bin/env bash
# One H200 call for the multi-worker throughput target: `webddp train` on a real-format archive at the same
# global batch (128), one worker against 2 and 4 ranks, each with its own device (the host ring)
# and sharing one device (--colocate: buckets summed on the GPU), two epochs each, Adam.
# From the repository root after `source .gpu/remote.sh`:  bash bench/h200-colocate.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-colocate.txt
timeout 15 python3 bench/make_cifar_format.py /tmp/cifar.tar.gz >/dev/null 2>&1
for run in 1:128: 2:64: 2:64:--colocate 4:32: 4:32:--colocate; do
  IFS=: read -r w b c <<<"$run"
  echo "== webddp train --data cifar.tar.gz --adapter gpu --workers $w --batch-size $b --epochs 2 --optimizer adam $c" | tee -a "$log"
  timeout 40 bash .gpu/run.sh train --data /tmp/cifar.tar.gz --store /tmp/store --adapter gpu --workers "$w" \
    --batch-size "$b" --epochs 2 --optimizer adam --test-limit 2000 --json $c 2>&1 | grep -E '"type":"epoch"|rror' |
    python3 -c 'import sys,json
for l in sys.stdin:
    try: e=json.loads(l); print({k: e[k] for k in ("epoch","images_per_s","seconds","train_loss") if k in e})
    except Exception: print(l.rstrip())' | tee -a "$log"
done
