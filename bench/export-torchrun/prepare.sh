#!/usr/bin/env bash
# Prepares the H200 check of `webddp export-torchrun` (run here, on SwiftShader): two webddp runs
# (SGD momentum, weight decay, augmentation, clipping, CosineAnnealingLR; 1 and 2 workers) with
# checkpoints and their final parameters, and the projects exported from a mid-epoch checkpoint.
# Then, from the repository root: the device tool's `run` with `bash OUT_DIR/remote.sh` (PyTorch
# continues each project; compare.py holds its parameters against webddp's, rtol 1e-4 atol 1e-5).
#   bash bench/export-torchrun/prepare.sh h200-export    (an untracked folder that travels)
set -euo pipefail
out=${1:?usage: prepare.sh OUT_DIR}
w="node $(git rev-parse --show-toplevel)/bin/webddp.mjs"
tmp=$(mktemp -d)
common=(--store "$tmp/store" --train-limit 64 --test-limit 8 --batch-size 4 --epochs 2 --json --log-every 0
  --optimizer sgd --momentum 0.9 --weight-decay 0.01 --augment --clip-grad-norm 1.0 --schedule CosineAnnealingLR:T_max=8)
mkdir -p "$out"
$w train "${common[@]}" --workers 2 --checkpoint-dir "$tmp/ck2" --checkpoint-every 3 --keep 0 --save "$out/final2.safetensors" >/dev/null
$w train "${common[@]}" --workers 1 --checkpoint-dir "$tmp/ck1" --checkpoint-every 5 --keep 0 --save "$out/final1.safetensors" >/dev/null
rm -rf "$out/p1" "$out/p2"
$w export-torchrun "$tmp/ck1/step-5" --out "$out/p1"
$w export-torchrun "$tmp/ck2/step-3" --out "$out/p2"
cp "$(dirname "$0")/compare.py" "$(dirname "$0")/remote.sh" "$out/"
