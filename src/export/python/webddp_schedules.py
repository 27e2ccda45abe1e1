"""DeepSpeed's warmup schedules (deepspeed/runtime/lr_schedules.py: WarmupLR, WarmupDecayLR,
WarmupCosineLR) for a plain PyTorch loop, as webddp computes them (src/schedule/deepspeed.ts):
last_batch_iteration starts at -1 and every step() adds one, then sets each group's lr. Under
DeepSpeed itself, ds_config.json's "scheduler" section builds DeepSpeed's own."""
import math


class DeepSpeedWarmup:
    def __init__(self, optimizer, kind, warmup_num_steps, warmup_type="log", warmup_min_lr=0.0,
                 warmup_max_lr=None, total_num_steps=None, warmup_min_ratio=0.0, cos_min_ratio=0.0001):
        self.optimizer = optimizer
        self.kind = kind  # "WarmupLR", "WarmupDecayLR" or "WarmupCosineLR"
        self.base_lr = optimizer.param_groups[0]["lr"]
        self.min_lr = warmup_min_lr
        self.delta = (self.base_lr if warmup_max_lr is None else warmup_max_lr) - warmup_min_lr
        self.n = max(2, warmup_num_steps)
        self.inverse_log = 1.0 / math.log(self.n)
        self.warmup_type = warmup_type
        self.total = total_num_steps
        self.warmup_min_ratio = warmup_min_ratio
        self.cos_min_ratio = cos_min_ratio
        self.last_batch_iteration = -1
        self._apply()

    def _warmup_gamma(self, lbi):
        return self.inverse_log * math.log(lbi + 1) if self.warmup_type == "log" else lbi / self.n

    def lr(self, lbi):
        if self.kind == "WarmupCosineLR":
            if lbi < 0:
                return 0.0
            if lbi < self.n:
                ratio = self.warmup_min_ratio + self._warmup_gamma(lbi) * (1 - self.warmup_min_ratio)
            else:
                progress = min(1.0, (lbi - self.n + 1) / max(1, self.total - self.n))
                cos = (1 + math.cos(math.pi * progress)) / 2
                ratio = max(0.0, self.cos_min_ratio + (1 - self.cos_min_ratio) * cos)
            return self.base_lr * ratio
        if lbi < 0:
            return self.min_lr
        if lbi < self.n:
            gamma = self._warmup_gamma(lbi)
        elif self.kind == "WarmupLR":
            gamma = 1.0
        else:
            gamma = max(0.0, (self.total - lbi) / max(1.0, self.total - self.n))
        return self.min_lr + self.delta * gamma

    def _apply(self):
        for group in self.optimizer.param_groups:
            group["lr"] = self.lr(self.last_batch_iteration)

    def step(self):
        self.last_batch_iteration += 1
        self._apply()

    def get_last_lr(self):
        return [g["lr"] for g in self.optimizer.param_groups]
