#!/usr/bin/env bash
# On the GPU machine: PyTorch continues the exported projects; compare.py against webddp's ends.
set -x
cd "$(dirname "$0")"
python3 -c 'import torch; print(torch.__version__, torch.cuda.is_available())'
# 1 process on the GPU (NCCL, TF32 off), from the 1-worker checkpoint
(cd p1 && timeout 200 python3 -m torch.distributed.run --standalone --nnodes 1 --nproc_per_node 1 train.py --save "$OUT/torch1-cuda.safetensors" 2>&1 | tail -5)
python3 compare.py "$OUT/torch1-cuda.safetensors" final1.safetensors
# 2 processes (gloo on the CPU: NCCL cannot put two ranks on the one GPU), from the 2-worker checkpoint
(cd p2 && CUDA_VISIBLE_DEVICES= OMP_NUM_THREADS=2 timeout 200 python3 -m torch.distributed.run --standalone --nnodes 1 --nproc_per_node 2 train.py --save "$OUT/torch2-gloo.safetensors" 2>&1 | tail -5)
python3 compare.py "$OUT/torch2-gloo.safetensors" final2.safetensors
