#!/usr/bin/env bash
# Sweeps the tiles of conv2's tiled forward and input-gradient kernels and the subgroup reduce on a
# GPU machine (run from the repository root after `source .gpu/remote.sh`, see scripts/pack-gpu.sh):
#   bash bench/conv-tiles-sweep.sh [BATCHES] [STEPS]
# Each line: the tuning, images/s per batch, then the conv kernels' GPU ms per batch (--profile,
# with Dawn's 65.5 us timestamp quantisation off). CFGS (env, one JSON tuning per line) replaces
# the built-in list.
set -uo pipefail
batches=${1:-512,2048}
steps=${2:-20}
export WEBDDP_DAWN_FLAGS=${WEBDDP_DAWN_FLAGS:-disable-dawn-features=timestamp_quantization}
default_cfgs='{"convForward":"registers","convInput":"registers"}
{}
{"kernels":{"conv2d_forward_tiled":{"TCO":32,"TCI":8,"ROWS":4,"TW":16},"conv2d_backward_input_tiled":{"TCI":32,"TCO":8,"ROWS":8,"TW":16}}}
{"kernels":{"conv2d_forward_tiled":{"TCO":64,"TCI":8,"ROWS":8,"TW":16},"conv2d_backward_input_tiled":{"TCI":32,"TCO":16,"ROWS":4,"TW":16}}}
{"kernels":{"conv2d_forward_tiled":{"TCO":64,"TCI":4,"ROWS":4,"TW":16},"conv2d_backward_input_tiled":{"TCI":32,"TCO":16,"ROWS":8,"TW":16}}}
{"kernels":{"conv2d_forward_tiled":{"TCO":64,"TCI":16,"ROWS":4,"TW":16},"conv2d_backward_input_tiled":{"TCI":16,"TCO":8,"ROWS":8,"TW":16}}}
{"kernels":{"conv2d_forward_tiled":{"TCO":32,"TCI":8,"ROWS":8,"TW":16},"conv2d_backward_input_tiled":{"TCI":32,"TCO":8,"ROWS":16,"TW":16}}}
{"kernels":{"conv2d_forward_tiled":{"TCO":64,"TCI":8,"ROWS":2,"TW":16},"conv2d_backward_input_tiled":{"TCI":32,"TCO":4,"ROWS":8,"TW":16}}}
{"kernels":{"conv2d_forward_tiled":{"TCO":64,"TCI":8,"ROWS":16,"TW":16},"conv2d_backward_input_tiled":{"TCI":32,"TCO":16,"ROWS":16,"TW":16}}}
{"convReduce":"subgroup","kernels":{"conv2d_backward_weight_reduce_subgroup":{"OUTS":1}}}
{"convReduce":"subgroup","kernels":{"conv2d_backward_weight_reduce_subgroup":{"OUTS":2}}}
{"convReduce":"subgroup","kernels":{"conv2d_backward_weight_reduce_subgroup":{"OUTS":8}}}'
cfgs=${CFGS:-$default_cfgs}
summary=$(cat <<'PY'
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
ks = ("conv2.forward", "conv2.backward_input", "conv2.backward_weight", "conv1.backward_weight_reduce", "conv2.backward_weight_reduce")
print("  images/s " + " ".join("%d:%.0f" % (x["batch"], x["imagesPerSec"]) for x in r["rows"]))
for x in r["rows"]:
    k = x.get("kernels", {})
    print("  batch %d: " % x["batch"] + " ".join("%s %.3f" % (n, k.get(n, float("nan"))) for n in ks))
PY
)
while IFS= read -r cfg; do
  [ -n "$cfg" ] || continue
  echo "== tuning $cfg"
  out=$(bash .gpu/run.sh bench --adapter gpu --batches "$batches" --steps "$steps" --warmup 5 --profile --json --tuning "$cfg" 2>&1 </dev/null)
  if [ $? -ne 0 ]; then echo "$out" | tail -5; continue; fi
  echo "$out" | tail -1 >> "${SWEEP_JSON:-/dev/null}"
  echo "$out" | python3 -c "$summary"
done <<< "$cfgs"
