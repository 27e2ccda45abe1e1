#!/usr/bin/env bash
# One H200 call for the throughput targets (one worker, the data path, several workers) and
# `webddp check` on a real GPU, each step bounded in time so the call ends inside a short device
# budget. From the repository root after `source .gpu/remote.sh`; writes everything it prints to OUT_DIR/h200.txt as well.
#   bash bench/h200-run-life.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200.txt
step() { echo "== $*" | tee -a "$log"; }
# 1. One worker against PyTorch eager in the same call (target 1; torch.compile's numbers are in
#    bench/results/h200-final.txt: compiling it takes longer than this call can spend).
step "webddp bench --adapter gpu --batches 128,512,2048 --steps 30 --warmup 5"
timeout 35 bash .gpu/run.sh bench --adapter gpu --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | tee -a "$log"
step "python3 bench/pytorch_simplecnn.py --modes eager --batches 128,512,2048 --steps 30 --warmup 5"
timeout 30 python3 bench/pytorch_simplecnn.py --modes eager --batches 128,512,2048 --steps 30 --warmup 5 2>&1 | tee -a "$log"
# 2. `webddp train`, one worker, on a real-format archive, batch 128 (target 2), then 2 and 4
#    workers on the same GPU at the same global batch (target 3).
timeout 15 python3 bench/make_cifar_format.py /tmp/cifar.tar.gz >/dev/null 2>&1
for wb in 1:128 2:64 4:32; do
  step "webddp train --data cifar.tar.gz --adapter gpu --workers ${wb%%:*} --batch-size ${wb##*:} --epochs 2 --optimizer adam --json (epoch lines)"
  timeout 25 bash .gpu/run.sh train --data /tmp/cifar.tar.gz --store /tmp/store --adapter gpu --workers "${wb%%:*}" \
    --batch-size "${wb##*:}" --epochs 2 --optimizer adam --test-limit 2000 --json 2>&1 | grep -E '"type":"epoch"|rror' |
    python3 -c 'import sys,json
for l in sys.stdin:
    try: e=json.loads(l); print({k: e[k] for k in ("epoch","images_per_s","seconds","train_loss") if k in e})
    except Exception: print(l.rstrip())' | tee -a "$log"
done
# 3. webddp check on the H200 through Dawn (when this build has it).
if bash .gpu/run.sh check --help >/dev/null 2>&1; then
  step "webddp check --adapter gpu --quick --junit check.xml"
  timeout 45 bash .gpu/run.sh check --adapter gpu --quick --junit "$out/check.xml" 2>&1 | tail -25 | tee -a "$log"
fi
