#!/usr/bin/env python3
"""PyTorch's side of `webddp bench`: training steps of the same SimpleCNN per second, on a CUDA GPU.

SGD (lr 0.01, momentum 0.9), fp32, random images and labels already on the device (what webddp's
bench does after its upload), timed with torch.cuda.synchronize() around STEPS steps after WARMUP,
in PyTorch eager and torch.compile of the model (--modes). PyTorch's defaults are kept
(cuDNN may use TF32 for convolutions: torch.backends.cudnn.allow_tf32 is printed); --strict-fp32
turns TF32 off everywhere. --autocast fp16|bf16 runs the forward and the loss under
torch.autocast (convolutions and linear layers in that type with float32 accumulation, softmax and
the loss in float32; fp16 with a torch.amp.GradScaler, as mixed-precision training does). Prints
one line per (mode, batch) and a JSON line at the end.

  python3 bench/pytorch_simplecnn.py --batches 128,512,2048 --steps 30 --warmup 5 [--modes eager,compile]
"""
import argparse
import json
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleCNN(nn.Module):
    """The model of PyTorch's DDP tutorials that webddp trains (scripts/make-fixture.py)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1)
        self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.fc1 = nn.Linear(64 * 8 * 8, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc2(F.relu(self.fc1(x.view(x.size(0), -1))))


def images_per_s(model, batch, steps, warmup, dev, autocast=None):
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(autocast)
    scaler = torch.amp.GradScaler("cuda") if autocast == "fp16" else None
    g = torch.Generator(device=dev).manual_seed(0)
    data = [
        (torch.randn(batch, 3, 32, 32, device=dev, generator=g), torch.randint(0, 10, (batch,), device=dev, generator=g))
        for _ in range(2)
    ]

    def step(i):
        x, y = data[i % 2]
        opt.zero_grad(set_to_none=True)
        if dtype is None:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            return
        with torch.autocast("cuda", dtype=dtype):
            loss = F.cross_entropy(model(x), y)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()

    for i in range(warmup):
        step(i)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for i in range(steps):
        step(i)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) * 1000 / steps
    return batch * 1000 / ms, ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batches", default="128,512,2048")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--modes", default="eager,compile", help="eager, compile (torch.compile), or both")
    ap.add_argument("--strict-fp32", action="store_true", help="no TF32 in cuDNN or matmuls")
    ap.add_argument("--autocast", choices=["fp16", "bf16"], help="mixed precision through torch.autocast")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("pytorch_simplecnn.py: no CUDA device (torch.cuda.is_available() is False)")
    if a.strict_fp32:
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cuda.matmul.allow_tf32 = False
    dev = torch.device("cuda")
    print(
        f"torch {torch.__version__} on {torch.cuda.get_device_name()}: cudnn.allow_tf32={torch.backends.cudnn.allow_tf32}"
        f" matmul.allow_tf32={torch.backends.cuda.matmul.allow_tf32} cudnn.benchmark={torch.backends.cudnn.benchmark}",
        flush=True,
    )
    rows = []
    modes = a.modes.split(",")
    if any(m not in ("eager", "compile") for m in modes):
        raise SystemExit(f"pytorch_simplecnn.py: --modes takes eager and/or compile (got {a.modes!r})")
    for mode in modes:
        for batch in [int(b) for b in a.batches.split(",")]:
            torch.manual_seed(0)
            model = SimpleCNN().to(dev)
            run = torch.compile(model) if mode == "compile" else model
            # A compiled model compiles in its first (warm-up) steps; give it a few more.
            warm = a.warmup + (5 if mode == "compile" else 0)
            ips, ms = images_per_s(run, batch, a.steps, warm, dev, a.autocast)
            rows.append({"mode": mode, "autocast": a.autocast, "batch": batch, "imagesPerSec": ips, "stepMs": ms})
            label = f"{mode}+{a.autocast}" if a.autocast else mode
            print(f"{label:13s} batch {batch:5d}: {ips:10.1f} images/s  {ms:7.3f} ms/step", flush=True)
    out = {"torch": torch.__version__, "tf32": torch.backends.cudnn.allow_tf32, "autocast": a.autocast, "rows": rows}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
