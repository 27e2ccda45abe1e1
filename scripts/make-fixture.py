"""Makes parity fixtures in the format of test/fixtures/gen_fixtures.py (kind "grad" and "ddp", with the
JSON `spec` in __metadata__) with any PyTorch, without the safetensors package (Debian's
python3-torch 1.13 works: `apt-get install python3-torch`, then `/usr/bin/python3 scripts/make-fixture.py grad`).

  MSEED=3 DSEED=5 BS=5 OUT=/tmp python3 scripts/make-fixture.py grad      -> $OUT/simplecnn_grad.safetensors
  WORLD=3 RBS=3 NDATA=31 SSEED=7 DROP=1 python3 scripts/make-fixture.py ddp -> $OUT/ddp_world3.safetensors
"""
import json, os, struct, sys
import torch, torch.nn as nn, torch.nn.functional as F

E = os.environ.get
OUT = E("OUT", ".")
MSEED, DSEED, BS = int(E("MSEED", "0")), int(E("DSEED", "1")), int(E("BS", "8"))
WORLD, RBS, NDATA, SSEED, DROP = int(E("WORLD", "2")), int(E("RBS", "4")), int(E("NDATA", "40")), int(E("SSEED", "0")), E("DROP", "0") == "1"
OPT = E("OPT", "adam")

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
    else: grad()
