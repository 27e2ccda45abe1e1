"""Makes parity fixtures in the format of test/fixtures/gen_fixtures.py (kind "grad" and "ddp", with the
JSON `spec` in __metadata__) with any PyTorch, without the safetensors package (Debian's
python3-torch 1.13 works: `apt-get install python3-torch`, then `/usr/bin/python3 scripts/make-fixture.py grad`).

  MSEED=3 DSEED=5 BS=5 OUT=/tmp python3 scripts/make-fixture.py grad      -> $OUT/simplecnn_grad.safetensors
  WORLD=3 RBS=3 NDATA=31 SSEED=7 DROP=1 python3 scripts/make-fixture.py ddp -> $OUT/ddp_world3.safetensors
  BS=8 SCALE=1024 python3 scripts/make-fixture.py autocast             -> $OUT/simplecnn_autocast_fp16.safetensors

`autocast` needs CUDA torch: one SGD step of SimpleCNN under torch.autocast('cuda', dtype=torch.float16) with a
static loss scale, as DeepSpeed's fp16 runs it (fp32 master weights, fp16 compute), for `webddp check --only precision`.
"""
import json, os, struct, sys
import torch, torch.nn as nn, torch.nn.functional as F

E = os.environ.get
OUT = E("OUT", ".")
MSEED, DSEED, BS = int(E("MSEED", "0")), int(E("DSEED", "1")), int(E("BS", "8"))
WORLD, RBS, NDATA, SSEED, DROP = int(E("WORLD", "2")), int(E("RBS", "4")), int(E("NDATA", "40")), int(E("SSEED", "0")), E("DROP", "0") == "1"
OPT = E("OPT", "adam")
SCALE = float(E("SCALE", "1024"))

class SimpleCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 32, 3, padding=1); self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2); self.fc1 = nn.Linear(64 * 8 * 8, 128); self.fc2 = nn.Linear(128, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x))); x = self.pool(F.relu(self.conv2(x)))
        return self.fc2(F.relu(self.fc1(x.view(x.size(0), -1))))

DT = {torch.float32: "F32", torch.int32: "I32"}

def save(path, tensors, metadata):
    header, blobs, at = {"__metadata__": metadata}, [], 0
    for k, v in tensors.items():
        b = v.contiguous().numpy().tobytes()
        header[k] = {"dtype": DT[v.dtype], "shape": list(v.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b); at += len(b)
    h = json.dumps(header).encode(); h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h))); f.write(h); [f.write(b) for b in blobs]

OPTS = {"sgd": {"lr": 0.01, "momentum": 0.9}, "adam": {"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0},
        "adamw": {"lr": 1e-3, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01}}

def make_opt(name, ps):
    o = OPTS[name]
    if name == "sgd": return torch.optim.SGD(ps, lr=o["lr"], momentum=o["momentum"])
    return (torch.optim.Adam if name == "adam" else torch.optim.AdamW)(ps, lr=o["lr"], betas=tuple(o["betas"]), eps=o["eps"], weight_decay=o["weight_decay"])

def grad():
    torch.manual_seed(MSEED); model = SimpleCNN()
    g = torch.Generator().manual_seed(DSEED)
    x = torch.randn(BS, 3, 32, 32, generator=g); y = torch.randint(0, 10, (BS,), generator=g)
    t = {f"param.{k}": v.detach().clone() for k, v in model.state_dict().items()}
    t["input.x"] = x; t["input.y"] = y.to(torch.int32)
    logits = model(x); loss = F.cross_entropy(logits, y); loss.backward()
    t["out.logits"] = logits.detach(); t["out.loss"] = loss.detach().reshape(1)
    for k, p in model.named_parameters(): t[f"grad.{k}"] = p.grad.detach().clone()
    for name in OPTS:
        m = SimpleCNN(); m.load_state_dict({k[6:]: v for k, v in t.items() if k.startswith("param.")})
        opt = make_opt(name, m.parameters())
        for _ in range(2):
            opt.zero_grad(); F.cross_entropy(m(x), y).backward(); opt.step()
        for k, v in m.state_dict().items(): t[f"after2.{name}.{k}"] = v.detach().clone()
    m = SimpleCNN(); m.load_state_dict({k[6:]: v for k, v in t.items() if k.startswith("param.")})
    F.cross_entropy(m(x), y).backward()
    t["clip.total_norm"] = torch.nn.utils.clip_grad_norm_(m.parameters(), max_norm=0.5).detach().reshape(1)
    for k, p in m.named_parameters(): t[f"clip.grad.{k}"] = p.grad.detach().clone()
    spec = {"kind": "grad", "model": "SimpleCNN", "clip_max_norm": 0.5, "optimizers": OPTS,
            "inputs": {"params": "param.<name>", "x": "input.x", "y": "input.y"}}
    save(os.path.join(OUT, "simplecnn_grad.safetensors"), t, {"torch": torch.__version__, "spec": json.dumps(spec),
         "note": f"SimpleCNN from torch.manual_seed({MSEED}); x,y from Generator seed {DSEED}; batch {BS}"})
    print("grad fixture loss", float(loss))

def autocast():
    """One SGD step under CUDA autocast fp16 with a static loss scale (DeepSpeed's fp16: fp32 master weights,
    f16 compute). The initial weights are the seed's init rounded to fp16 (DeepSpeed halves the module and
    copies its master from the halves; autocast casts the master to fp16 for every conv and linear, so the
    forward reads the same halves either way). Saved: the inputs, those weights, the fp16 logits, the loss, the
    float32 gradients unscaled (each the loss-scaled gradient rounded to fp16, as autocast's casts hand it
    back, times 1/scale) and the float32 master after SGD's step."""
    if not torch.cuda.is_available():
        sys.exit("make-fixture.py autocast: needs CUDA torch (torch.autocast('cuda', dtype=torch.float16))")
    dev = torch.device("cuda")
    # float32 accumulation in the fp16 GEMMs (cuBLAS may otherwise reduce split-K partial sums in fp16),
    # and cuDNN's deterministic algorithms
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cudnn.deterministic = True; torch.backends.cudnn.benchmark = False
    torch.manual_seed(MSEED); model = SimpleCNN()
    with torch.no_grad():
        for p in model.parameters(): p.copy_(p.half().float())
    g = torch.Generator().manual_seed(DSEED)
    x = torch.randn(BS, 3, 32, 32, generator=g); y = torch.randint(0, 10, (BS,), generator=g)
    t = {f"param.{k}": v.detach().clone() for k, v in model.state_dict().items()}
    t["input.x"] = x; t["input.y"] = y.to(torch.int32)
    model.to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=OPTS["sgd"]["lr"], momentum=OPTS["sgd"]["momentum"])
    opt.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(x.to(dev)); loss = F.cross_entropy(logits, y.to(dev))
    assert logits.dtype == torch.float16 and loss.dtype == torch.float32, (logits.dtype, loss.dtype)
    (loss * SCALE).backward()
    for p in model.parameters():
        assert p.grad.dtype == torch.float32 and bool(torch.isfinite(p.grad).all()), "the scaled gradients overflowed"
        p.grad.mul_(1.0 / SCALE)
    t["out.logits"] = logits.detach().float().cpu(); t["out.loss"] = loss.detach().float().cpu().reshape(1)
    for k, p in model.named_parameters(): t[f"grad.{k}"] = p.grad.detach().cpu().clone()
    opt.step()
    for k, v in model.state_dict().items(): t[f"after1.sgd.{k}"] = v.detach().cpu().clone()
    spec = {"kind": "autocast_fp16", "model": "SimpleCNN", "loss_scale": SCALE, "steps": 1,
            "optimizer": dict(OPTS["sgd"], name="sgd"),
            "inputs": {"params": "param.<name>", "x": "input.x", "y": "input.y"},
            "autocast": "torch.autocast('cuda', dtype=torch.float16); cross_entropy in float32 (autocast's rule), logits float16"}
    meta = {"torch": torch.__version__, "cuda": str(torch.version.cuda), "cudnn": str(torch.backends.cudnn.version()),
            "device": torch.cuda.get_device_name(0), "spec": json.dumps(spec),
            "note": f"SimpleCNN from torch.manual_seed({MSEED}), weights rounded to fp16; x,y from Generator seed {DSEED}; batch {BS}; "
                    f"one SGD step under CUDA autocast fp16, static loss scale {SCALE:g}"}
    save(os.path.join(OUT, "simplecnn_autocast_fp16.safetensors"), t, meta)
    print("autocast fp16 fixture loss", float(loss.detach()), "on", meta["device"], "torch", torch.__version__)

def ddp_rank(rank, world, port):
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data.distributed import DistributedSampler
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    torch.manual_seed(MSEED); model = SimpleCNN()
    init = {k: v.detach().clone() for k, v in model.state_dict().items()}
    ddp = DDP(model)
    g = torch.Generator().manual_seed(2)
    X = torch.randn(NDATA, 3, 32, 32, generator=g); Y = torch.randint(0, 10, (NDATA,), generator=g)
    ds = torch.utils.data.TensorDataset(X, Y)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=SSEED, drop_last=DROP)
    dl = torch.utils.data.DataLoader(ds, batch_size=RBS, sampler=sampler)
    opt = make_opt(OPT, ddp.parameters())
    rec = {"shards": [], "losses": []}
    for epoch in range(2):
        sampler.set_epoch(epoch); rec["shards"].append(list(iter(sampler)))
        for xb, yb in dl:
            opt.zero_grad(); loss = F.cross_entropy(ddp(xb), yb); loss.backward(); opt.step(); rec["losses"].append(float(loss))
    rec.update(params={k: v.detach().clone() for k, v in model.state_dict().items()}, init=init, X=X, Y=Y.to(torch.int32))
    torch.save(rec, os.path.join(OUT, f"_ddp_rank{rank}.pt"))
    dist.barrier(); dist.destroy_process_group()

def ddp():
    import subprocess
    ps = [subprocess.Popen([sys.executable, __file__, "ddp_rank", str(r)]) for r in range(WORLD)]
    assert [p.wait(timeout=600) for p in ps] == [0] * WORLD
    recs = {r: torch.load(os.path.join(OUT, f"_ddp_rank{r}.pt")) for r in range(WORLD)}
    for r in range(WORLD): os.remove(os.path.join(OUT, f"_ddp_rank{r}.pt"))
    t = {f"param_final.{k}": v for k, v in recs[0]["params"].items()}
    t.update({f"param_init.{k}": v for k, v in recs[0]["init"].items()})
    t["data.X"] = recs[0]["X"]; t["data.Y"] = recs[0]["Y"]
    spec = {"kind": "ddp", "model": "SimpleCNN", "world_size": WORLD, "batch_per_rank": RBS, "epochs": 2,
            "optimizer": dict(OPTS[OPT], name=OPT), "sampler": {"shuffle": True, "seed": SSEED, "drop_last": DROP},
            "inputs": {"X": "data.X", "Y": "data.Y", "params": "param_init.<name>"}}
    meta = {"torch": torch.__version__, "spec": json.dumps(spec), "world_size": str(WORLD), "batch_per_rank": str(RBS), "epochs": "2",
            "shards": json.dumps({r: recs[r]["shards"] for r in recs}), "losses": json.dumps({r: recs[r]["losses"] for r in recs}),
            "steps": str(len(recs[0]["losses"]))}
    save(os.path.join(OUT, f"ddp_world{WORLD}.safetensors"), t, meta)
    print("ddp fixture steps", len(recs[0]["losses"]))

if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else "grad"
    if cmd == "ddp_rank": ddp_rank(int(sys.argv[2]), WORLD, 29000 + MSEED % 500 + 7 * WORLD)
    elif cmd == "ddp": ddp()
    elif cmd == "autocast": autocast()
    else: grad()
