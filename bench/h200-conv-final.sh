#!/usr/bin/env bash
# The second H200 call of the conv tiling work (bench/results/h200-conv-tiles.txt): a sweep around
# the best tiles of the first, the fastest forward and input-gradient tiles picked by their GPU
# time at batch 2048, then three runs each of the register kernels and of the picked tiles, and
# PyTorch eager / torch.compile in the same call. From the repository root, after
# `source .gpu/remote.sh`; writes OUT_DIR/sweep.jsonl.
set -uo pipefail
out=${1:-/tmp}
export WEBDDP_DAWN_FLAGS=disable-dawn-features=timestamp_quantization
f() { printf '"conv2d_forward_tiled":{"TCO":%s,"TCI":%s,"ROWS":%s,"TW":16}' "$@"; }
i() { printf '"conv2d_backward_input_tiled":{"TCI":%s,"TCO":%s,"ROWS":%s,"TW":16}' "$@"; }
CFGS="{}
{\"kernels\":{$(f 64 4 16),$(i 32 4 16)}}
{\"kernels\":{$(f 64 2 16),$(i 32 2 16)}}
{\"kernels\":{$(f 32 4 16),$(i 32 2 8)}}
{\"kernels\":{$(f 64 4 8),$(i 16 4 16)}}
{\"kernels\":{$(f 32 8 16),$(i 32 1 8)}}" SWEEP_JSON=$out/sweep.jsonl bash bench/conv-tiles-sweep.sh 512,2048 20
pick=$(python3 - "$out/sweep.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
def best(kernel, layer):
    def t(r):
        return [x for x in r["rows"] if x["batch"] == 2048][0]["kernels"][layer]
    r = min(rows, key=t)
    return r["tuning"]["kernels"][kernel], t(r)
f, tf = best("conv2d_forward_tiled", "conv2.forward")
i, ti = best("conv2d_backward_input_tiled", "conv2.backward_input")
print(json.dumps({"kernels": {"conv2d_forward_tiled": f, "conv2d_backward_input_tiled": i}}, separators=(",", ":")))
PY
)
echo "== picked $pick"
for n in 1 2 3; do
  echo "== register kernels (lanes reduce), run $n"
  bash .gpu/run.sh bench --adapter gpu --batches 128,512,2048 --steps 30 --warmup 5 --profile \
    --tuning '{"convForward":"registers","convInput":"registers","convReduce":"lanes"}' </dev/null 2>&1 | grep -v '^{'
  echo "== tiled, picked tiles, auto reduce, run $n"
  bash .gpu/run.sh bench --adapter gpu --batches 128,512,2048 --steps 30 --warmup 5 --profile --tuning "$pick" </dev/null 2>&1 | grep -v '^{'
done
python3 bench/pytorch_simplecnn.py --modes eager,compile 2>&1 | grep -v -i warn
python3 bench/pytorch_simplecnn.py --modes eager --strict-fp32 2>&1 | grep -v '^{'
