#!/usr/bin/env python3
"""PyTorch's side of the placements comparison: W DDP ranks on ONE GPU, as `webddp train --workers W`
runs them on a machine with one GPU.

W processes started with torch.multiprocessing (no torchrun), DistributedDataParallel over gloo
(NCCL refuses two ranks on one GPU), the same SimpleCNN (bench/pytorch_simplecnn.py), Adam (lr 1e-3),
strict fp32 (TF32 off in cuDNN and matmuls), a global batch split evenly over the ranks
(DistributedSampler's interleaved shards of one permutation per epoch, the last partial batch
dropped), and the whole data set already on the device as float32 (random CIFAR-sized images and
labels: the timing does not depend on the pixels). Reports the images/s of the last epoch (the
first one pays for cuDNN's and gloo's set-up), measured on rank 0 between two barriers with the
device synchronised, one line per world size and a JSON line at the end.

  python3 bench/pytorch_ddp_one_gpu.py --workers 1,2,4 [--global-batch 128] [--images 50000] [--epochs 2]
  python3 bench/pytorch_ddp_one_gpu.py --device cpu --workers 1,2 --images 256 --global-batch 32   (a smoke run)
"""
import argparse
import json
import os
import socket
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_simplecnn import SimpleCNN  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)


def rank_main(rank, world, a, port, out_path):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        if a.device == "cuda":
            torch.backends.cudnn.allow_tf32 = False
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.cuda.set_device(0)
            dev = torch.device("cuda", 0)
        else:
            torch.set_num_threads(1)
            dev = torch.device("cpu")
        torch.manual_seed(0)
        model = SimpleCNN().to(dev)
        ddp = DDP(model, device_ids=[0] if dev.type == "cuda" else None)
        opt = torch.optim.Adam(ddp.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(1)
        images = torch.randn(a.images, 3, 32, 32, generator=gen).to(dev)
        labels = torch.randint(0, 10, (a.images,), generator=gen).to(dev)
        per_rank = a.global_batch // world
        steps = a.images // a.global_batch
        seconds = []
        for epoch in range(a.epochs):
            perm = torch.randperm(a.images, generator=torch.Generator().manual_seed(100 + epoch))
            mine = perm[rank : steps * a.global_batch : world].to(dev)
            sync(dev)
            dist.barrier()
            t0 = time.perf_counter()
            for s in range(steps):
                idx = mine[s * per_rank : (s + 1) * per_rank]
                opt.zero_grad(set_to_none=True)
                loss = F.cross_entropy(ddp(images[idx]), labels[idx])
                loss.backward()
                opt.step()
            sync(dev)
            dist.barrier()
            seconds.append(time.perf_counter() - t0)
        if rank == 0:
            with open(out_path, "w") as f:
                json.dump({"seconds": seconds, "steps": steps, "loss": loss.item()}, f)
    finally:
        dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default="1,2,4", help="world sizes to run, one after another")
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--images", type=int, default=50000, help="images per epoch (CIFAR-10's train set: 50000)")
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    a = ap.parse_args()
    worlds = [int(w) for w in a.workers.split(",")]
    for w in worlds:
        if w < 1 or a.global_batch % w != 0:
            raise SystemExit(f"pytorch_ddp_one_gpu.py: --global-batch {a.global_batch} does not split over {w} ranks")
    if a.images < a.global_batch:
        raise SystemExit(f"pytorch_ddp_one_gpu.py: --images {a.images} is less than one global batch ({a.global_batch})")
    if a.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("pytorch_ddp_one_gpu.py: no CUDA device (use --device cpu for a smoke run)")
    name = torch.cuda.get_device_name(0) if a.device == "cuda" else "cpu"
    print(f"torch {torch.__version__} on {name}: {a.epochs} epochs of {a.images} images, global batch {a.global_batch},"
          " DDP over gloo, all ranks on this one device, strict fp32", flush=True)
    rows = []
    for w in worlds:
        with tempfile.TemporaryDirectory() as tmp:
            out_path = os.path.join(tmp, "rank0.json")
            mp.spawn(rank_main, args=(w, a, free_port(), out_path), nprocs=w, join=True)
            with open(out_path) as f:
                r = json.load(f)
        last = r["seconds"][-1]
        ips = r["steps"] * a.global_batch / last
        rows.append({"workers": w, "batch_per_rank": a.global_batch // w, "images_per_s": ips,
                     "epoch_seconds": r["seconds"], "steps_per_epoch": r["steps"], "final_loss": r["loss"]})
        ratio = ips / rows[0]["images_per_s"] if rows[0]["workers"] == 1 else float("nan")
        print(f"W={w} x {a.global_batch // w}: {ips:10.1f} images/s (epoch {a.epochs - 1}, {last:.2f} s)"
              f"  {ratio:.2f}x of W=1", flush=True)
    print(json.dumps({"torch": torch.__version__, "device": name, "global_batch": a.global_batch, "images": a.images,
                      "epochs": a.epochs, "backend": "gloo", "tf32": False, "rows": rows}))


if __name__ == "__main__":
    main()
