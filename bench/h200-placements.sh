#!/usr/bin/env bash
# One H200 call: W ranks on the one GPU in both placements, beside PyTorch's W ranks on one GPU.
# `webddp train` on a real-format archive (bench/make_cifar_format.py), Adam, global batch 128, four
# epochs, the median of the last three epochs' images/s (the first warms up; single epochs of 0.4 to
# 4 s vary by 10-20%): one worker (b128); 2 x 64 and 4 x 32 with their own devices
# (MessagePort messages between the worker threads, and again with WEBDDP_TRANSPORT=shared: the
# shared-memory rings) and
# sharing one device (--colocate); ZeRO-2 and fp16 in both placements; then bench/pytorch_ddp_one_gpu.py at W = 1, 2, 4 (DDP over gloo,
# data on the GPU, strict fp32, Adam, global batch 128, second epoch); a traced W=2 own-devices run
# summarised by bench/trace-summary.mjs (where the step's time goes); `webddp bench --workers 1,2,4`
# with both placements side by side; and a table of the train runs at the end.
# Runs a packed CLI: BUNDLE holds bin/, dist-cli/, node_modules/webgpu without its binary (taken from
# .gpu/), and bench/'s make_cifar_format.py, pytorch_simplecnn.py, pytorch_ddp_one_gpu.py and
# trace-summary.mjs. From the repository root after `source .gpu/remote.sh`:
#   bash BUNDLE/h200-placements.sh OUT_DIR BUNDLE
set -uo pipefail
out=${1:-/tmp}
B=${2:-.h200-share}
mkdir -p "$B/node_modules/webgpu/dist/linux-x64" && cp .gpu/dawn.node "$B/node_modules/webgpu/dist/linux-x64/dawn.node"
[ -e "$B/fixtures" ] || ln -s ../fixtures "$B/fixtures"
W=${WEBDDP:-node $B/bin/webddp.mjs}
log=$out/h200-placements.txt
rows=$out/rows.tsv
: >"$rows"
step() { echo "== $*" | tee -a "$log"; }
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
step "webddp devices"
timeout 30 $W devices 2>&1 | grep -v XDG | head -6 | tee -a "$log"
timeout 30 python3 "$B/make_cifar_format.py" /tmp/cifar.tar.gz >/dev/null 2>&1
# train NAME [ENV=VALUE] FLAG...: four epochs; keeps the median of the last three epochs' images/s in rows.tsv
train() {
  local name=$1 envs=()
  shift
  [[ ${1:-} == *=* ]] && envs=("$1") && shift
  step "${envs[*]} webddp train --data cifar.tar.gz --adapter gpu --epochs 4 --optimizer adam $*"
  env "${envs[@]}" timeout 90 $W train --data /tmp/cifar.tar.gz --store /tmp/store --adapter gpu --epochs 4 \
    --optimizer adam --test-limit 2000 --json "$@" 2>&1 | NAME=$name python3 -c '
import json, os, statistics, sys
rates = []
for l in sys.stdin:
    try:
        e = json.loads(l)
    except Exception:
        print(l.rstrip()) if "rror" in l else None
        continue
    if e.get("type") == "start":
        print("transport:", ",".join(w.get("transport", "?") for w in e["workers"]))
    if e.get("type") == "epoch":
        rates.append(e["images_per_s"])
        print({k: e[k] for k in ("epoch", "images_per_s", "seconds", "train_loss") if k in e})
if len(rates) > 1:
    with open(os.environ["ROWS"], "a") as f:
        f.write(os.environ["NAME"] + "\t" + str(round(statistics.median(rates[1:]))) + "\n")
' 2>&1 | tee -a "$log"
}
export ROWS=$rows
train "W=1, b128" --workers 1 --batch-size 128
train "W=1, b128, --check-every 0" --workers 1 --batch-size 128 --check-every 0
train "W=2 x 64, own devices" --workers 2 --batch-size 64
train "W=2 x 64, own devices, shared-memory ring" WEBDDP_TRANSPORT=shared --workers 2 --batch-size 64
train "W=2 x 64, --colocate" --workers 2 --batch-size 64 --colocate
train "W=4 x 32, own devices" --workers 4 --batch-size 32
train "W=4 x 32, own devices, shared-memory ring" WEBDDP_TRANSPORT=shared --workers 4 --batch-size 32
train "W=4 x 32, --colocate" --workers 4 --batch-size 32 --colocate
train "W=2 x 64, --colocate, --check-every 0" --workers 2 --batch-size 64 --colocate --check-every 0
train "W=4 x 32, --colocate, --check-every 0" --workers 4 --batch-size 32 --colocate --check-every 0
# other modes and fp16 in both placements (no PyTorch column: its script runs float32 DDP)
train "W=2 x 64, ZeRO-2" --workers 2 --batch-size 64 --mode zero2
train "W=2 x 64, ZeRO-2, --colocate" --workers 2 --batch-size 64 --mode zero2 --colocate
train "W=1, b128, fp16" --workers 1 --batch-size 128 --fp16
train "W=2 x 64, fp16" --workers 2 --batch-size 64 --fp16
train "W=2 x 64, fp16, --colocate" --workers 2 --batch-size 64 --fp16 --colocate
step "python3 bench/pytorch_ddp_one_gpu.py --workers 1,2,4 --global-batch 128 --epochs 2"
timeout 240 python3 "$B/pytorch_ddp_one_gpu.py" --workers 1,2,4 --global-batch 128 --epochs 2 2>&1 | tee "$out/pytorch.txt" |
  grep -vE "^\[W|Warning" | tee -a "$log"
step "webddp train --workers 2 --batch-size 64 --train-limit 12800 --epochs 1 --trace w2.json (own devices)"
timeout 60 $W train --data /tmp/cifar.tar.gz --store /tmp/store --adapter gpu --workers 2 --batch-size 64 --epochs 1 \
  --train-limit 12800 --test-limit 500 --optimizer adam --trace "$out/w2.json" --json 2>&1 | grep -E '"type":"epoch"|rror' | tee -a "$log"
[ -f "$out/w2.json" ] && node "$B/trace-summary.mjs" "$out/w2.json" --from 20 2>&1 | tee -a "$log" && gzip -9 "$out/w2.json"
step "webddp bench --adapter gpu --workers 1,2,4 --modes ddp,zero2 --batch 32 --steps 10 --warmup 2"
timeout 100 $W bench --adapter gpu --workers 1,2,4 --modes ddp,zero2 --batch 32 --steps 10 --warmup 2 2>&1 |
  grep -vE "^\{|XDG" | tee -a "$log"
step "table: second epoch images/s, global batch 128"
python3 - "$rows" "$out/pytorch.txt" <<'EOF' | tee -a "$log"
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
torch = {}
for l in open(sys.argv[2]):
    if l.startswith("{"):
        torch = {r["workers"]: r["images_per_s"] for r in json.loads(l)["rows"]}
base = float(rows[0][1]) if rows else float("nan")
# rows without the replica check compare with one worker without it
unchecked = {n: float(v) for n, v in rows if n == "W=1, b128, --check-every 0"}.get("W=1, b128, --check-every 0", base)
print(f"| run | webddp | ratio to its W=1 | PyTorch, W ranks on one GPU | ratio to its W=1 |")
print(f"| --- | ---: | ---: | ---: | ---: |")
for name, ips in rows:
    w = int(name.split(",")[0].split(" ")[0][2:])
    own = ("own devices" in name and "shared" not in name or name == "W=1, b128")
    t = torch.get(w) if own else None
    tr = f"{t:,.0f} | {t / torch[1]:.2f}x" if t is not None and 1 in torch else " | "
    b = unchecked if "--check-every 0" in name else base
    print(f"| {name} | {float(ips):,.0f} | {float(ips) / b:.2f}x | {tr} |")
EOF
