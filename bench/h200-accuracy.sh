#!/usr/bin/env bash
# One H200 call: does half precision learn as float32 does? `webddp train` on the built-in dataset
# (synthetic shapes, learnable; the device machine has no real photos), the same seed, 3 epochs, Adam,
# in float32, fp16 and bf16, one worker and every mode at two ranks; the final test accuracy of
# each and its difference from float32 in the same mode. Runs a packed CLI (BUNDLE as for
# h200-placements.sh). From the repository root after `source .gpu/remote.sh`:
#   bash BUNDLE/h200-accuracy.sh OUT_DIR BUNDLE
set -uo pipefail
out=${1:-/tmp}
B=${2:-.h200-share}
mkdir -p "$B/node_modules/webgpu/dist/linux-x64" && cp .gpu/dawn.node "$B/node_modules/webgpu/dist/linux-x64/dawn.node"
[ -e "$B/fixtures" ] || ln -s ../fixtures "$B/fixtures"
W=${WEBDDP:-node $B/bin/webddp.mjs}
log=$out/h200-accuracy.txt
rows=$out/accuracy.tsv
: >"$rows"
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
# run NAME PRECISION FLAG...: keeps the last epoch's test accuracy and images/s in accuracy.tsv
run() {
  local name=$1 prec=$2
  shift 2
  local pf=()
  [ "$prec" != fp32 ] && pf=("--$prec")
  echo "== webddp train --data synthetic --epochs 3 --seed 0 --optimizer adam ${pf[*]} $*" | tee -a "$log"
  timeout 150 $W train --data synthetic --store /tmp/store --adapter gpu --epochs 3 --seed 0 --optimizer adam \
    --json "${pf[@]}" "$@" 2>&1 | NAME=$name PREC=$prec python3 -c '
import json, os, sys
last = None
for l in sys.stdin:
    try:
        e = json.loads(l)
    except Exception:
        print(l.rstrip()) if "rror" in l else None
        continue
    if e.get("type") == "epoch":
        last = e
        print({k: e[k] for k in ("epoch", "train_loss", "test_accuracy", "images_per_s") if k in e})
if last is not None:
    with open(os.environ["ROWS"], "a") as f:
        f.write("\t".join([os.environ["NAME"], os.environ["PREC"], str(last["test_accuracy"]), str(round(last["images_per_s"]))]) + "\n")
' 2>&1 | tee -a "$log"
}
export ROWS=$rows
for prec in fp32 fp16 bf16; do
  run "ddp, W=1 x 128" $prec --workers 1 --batch-size 128
  run "ddp, W=2 x 64" $prec --workers 2 --batch-size 64
  run "zero2, W=2 x 64" $prec --workers 2 --batch-size 64 --mode zero2
done
for prec in fp32 fp16; do
  run "zero1, W=2 x 64" $prec --workers 2 --batch-size 64 --mode zero1
  run "zero3, W=2 x 64" $prec --workers 2 --batch-size 64 --mode zero3
  run "dp, W=2 x 64" $prec --workers 2 --batch-size 64 --mode dp
done
echo "== table: test accuracy after 3 epochs, same seed" | tee -a "$log"
python3 - "$rows" <<'PY' | tee -a "$log"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
fp32 = {r[0]: float(r[2]) for r in rows if r[1] == "fp32"}
print("| run | precision | test accuracy | minus fp32 (points) | images/s (epoch 3) |")
print("| --- | --- | ---: | ---: | ---: |")
for name, prec, acc, ips in rows:
    d = f"{100 * (float(acc) - fp32[name]):+.2f}" if name in fp32 else ""
    print(f"| {name} | {prec} | {100 * float(acc):.2f}% | {d} | {int(ips):,} |")
PY
