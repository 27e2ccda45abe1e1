"""Golden values from torch 2.11 on CPU (float32) for the CPU reference tests: goldens.json holds
three steps of SGD / Adam / AdamW variants (test/unit/reference-optim-torch.test.ts), clip_grad_norm_
values (reference-optim.test.ts) and a cross-entropy gradient (reference-softmax-xent.test.ts).
Run from the repository root: OUT=dir python3 test/helpers/torch-goldens.py. With
fixtures/simplecnn_grad.safetensors present it also writes grad2.safetensors: torch's float32
gradients at the second step of each after2.* run (grad2.<opt>.<name>) and a float64 forward/backward
of the fixture batch (f64.*), and records in goldens.json how far its after2 runs are from the
fixture's (0 when this torch reproduces the fixture). Inputs are dyadic rationals, exact in float32,
so the TypeScript tests rebuild them bit for bit."""
import json, os, torch, torch.nn.functional as F
OUT = os.environ.get("OUT", ".")
hx = lambda t: [format(v & 0xffffffff, "08x") for v in t.reshape(-1).view(torch.int32).tolist()]
N = 37
def p0(): return torch.tensor([((i * 37) % 101 - 50) / 16 for i in range(N)], dtype=torch.float32)
def grad(k):
    g = [((i * 53 + k * 17) % 97 - 48) / 64 for i in range(N)]
    return torch.tensor([v * 2.0 ** -20 if i % 5 == 3 else v for i, v in enumerate(g)], dtype=torch.float32)
def run(make):
    p = torch.nn.Parameter(p0()); opt = make([p]); out = []
    for k in range(3):
        p.grad = grad(k); opt.step(); out.append(hx(p.detach()))
    return out
res = {"torch": torch.__version__, "opt": {}}
O = torch.optim
for name, mk in {
    "sgd_m": lambda ps: O.SGD(ps, lr=0.1, momentum=0.9),
    "sgd_damp_wd": lambda ps: O.SGD(ps, lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.01),
    "sgd_nest_wd": lambda ps: O.SGD(ps, lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1),
    "sgd_plain_max": lambda ps: O.SGD(ps, lr=0.1, weight_decay=0.01, maximize=True),
    "adam": lambda ps: O.Adam(ps, lr=1e-3),
    "adam_l2": lambda ps: O.Adam(ps, lr=1e-2, weight_decay=0.1),
    "adamw": lambda ps: O.AdamW(ps, lr=1e-2, weight_decay=0.1),
    "adam_b03": lambda ps: O.Adam(ps, lr=1e-2, betas=(0.3, 0.99), eps=1e-6),
}.items():
    res["opt"][name] = run(mk)
def clip(gs, mx, nt):
    ps = [torch.nn.Parameter(torch.zeros_like(g)) for g in gs]
    for p, g in zip(ps, gs): p.grad = g.clone()
    t = torch.nn.utils.clip_grad_norm_(ps, mx, norm_type=nt)
    return {"total": hx(t.reshape(1))[0], "grads": [hx(p.grad)[:8] for p in ps]}
big = [torch.tensor([((i * 29) % 89 - 44) / 32 for i in range(n)], dtype=torch.float32) for n in (37, 1000, 5)]
res["clip"] = {"notes": clip([torch.tensor([3, 4, .5]), torch.tensor([[1, -2], [.25, 12]])], 1.0, 2.0),
               "big": clip(big, 0.5, 2.0), "big_inf": clip(big, 0.5, float("inf"))}
z = torch.tensor([[2, 1, .1], [.5, 2.5, -1], [-.3, .2, .9], [1, 1, 1]], requires_grad=True)
l = F.cross_entropy(z, torch.tensor([0, 1, 2, 1])); l.backward()
res["xent"] = {"loss": hx(l.detach().reshape(1))[0], "grad": hx(z.grad)}
fx = "fixtures/simplecnn_grad.safetensors"
if os.path.exists(fx):
    from safetensors.torch import load_file, save_file
    import importlib.util as u
    s = u.spec_from_file_location("g", "test/fixtures/gen_fixtures.py"); g = u.module_from_spec(s); s.loader.exec_module(g)
    t = load_file(fx); sd = {k[6:]: v for k, v in t.items() if k.startswith("param.")}
    x, y = t["input.x"], t["input.y"].long(); out = {}
    for name, mk in [("sgd", lambda ps: O.SGD(ps, lr=0.01, momentum=0.9)), ("adam", lambda ps: O.Adam(ps, lr=1e-3)),
                     ("adamw", lambda ps: O.AdamW(ps, lr=1e-3, weight_decay=0.01))]:
        m = g.SimpleCNN(); m.load_state_dict(sd); opt = mk(m.parameters())
        for step in range(2):
            opt.zero_grad(); F.cross_entropy(m(x), y).backward()
            for k, p in m.named_parameters():
                if step: out[f"grad2.{name}.{k}"] = p.grad.detach().clone()
            opt.step()
        res[name] = max((v - t[f"after2.{name}.{k}"]).abs().max().item() for k, v in m.state_dict().items())
    m = g.SimpleCNN().double(); m.load_state_dict(sd); z = m(x.double()); l = F.cross_entropy(z, y); l.backward()
    out["f64.logits"] = z.detach(); out["f64.loss"] = l.detach().reshape(1)
    for k, p in m.named_parameters(): out[f"f64.grad.{k}"] = p.grad.detach().clone()
    save_file({k: v.contiguous() for k, v in out.items()}, os.path.join(OUT, "grad2.safetensors"))
json.dump(res, open(os.path.join(OUT, "goldens.json"), "w"), indent=0)
print("ok", res["torch"])
