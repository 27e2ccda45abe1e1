#!/usr/bin/env bash
# One H200 call: ZeRO-2 and ZeRO-3 against DDP on the real GPU with its own tuning (fc1's tiled
# linear kernels; ZeRO-2/3 replace fc1's weight gradient by row pieces): 2 workers, batch 32, 1024
# records of the synthetic set, one epoch each, final parameters compared with numpy (rtol 1e-4,
# atol 1e-5, as test/gpu/zero.test.ts). From the repository root after `source .gpu/remote.sh`:
#   bash bench/h200-zero-tiled.sh OUT_DIR
set -uo pipefail
out=${1:-/tmp}
log=$out/h200-zero-tiled.txt
for m in ddp zero2 zero3; do
  echo "== webddp train --adapter gpu --workers 2 --batch-size 32 --train-limit 1024 --mode $m" | tee -a "$log"
  timeout 60 bash .gpu/run.sh train --store /tmp/store --adapter gpu --workers 2 --batch-size 32 --train-limit 1024 \
    --test-limit 256 --epochs 1 --mode "$m" --json --log-every 0 --save "/tmp/$m.safetensors" 2>&1 |
    grep -E '"type":"epoch"|rror' | cut -c1-200 | tee -a "$log"
done
python3 - <<'PY' 2>&1 | tee -a "$log"
import numpy as np
from safetensors.numpy import load_file
d = load_file('/tmp/ddp.safetensors')
for m in ['zero2', 'zero3']:
    z = load_file(f'/tmp/{m}.safetensors')
    bad = sum(int((~np.isclose(z[k], d[k], rtol=1e-4, atol=1e-5)).sum()) for k in d)
    mx = max(float(np.abs(z[k] - d[k]).max()) for k in d)
    print(f'{m} vs ddp: {bad} of {sum(v.size for v in d.values())} out of tolerance, max abs {mx:.3g}')
PY
