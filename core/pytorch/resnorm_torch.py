#!/usr/bin/env python3
# A resnorm training run as a PyTorch script (written by `resnorm train ... --export-pytorch FILE`).
#
# Everything the run needs is in this one file: the code below, and at its end RUN, a JSON
# document holding the run's config, each unit's wiring as the engine set it, the engine's initial
# parameters of every architecture (float64, base64), and the data: every training batch of the run and the held-out set, as the
# engine's task generator drew them. The data is shipped rather than generated again, so the
# script needs no port of the engine's random streams; step 0 is the engine's own.
#
#   /usr/bin/python3 this.py                      trains every architecture, prints the engine's table
#   /usr/bin/python3 this.py --json               the lines of `resnorm train --json` instead
#   /usr/bin/python3 this.py --device cuda        on a GPU
#   /usr/bin/python3 this.py --dtype float32      in float32 (float64 by default)
#   /usr/bin/python3 this.py --steps 100          fewer steps than the run's (the data holds its own)
#
# The model (the engine's core/include/resnorm/network.h, model.h, recipes.h):
#   h_0 = E[tokens] + P (language) or x (teacher); h_l = block_l(h_{l-1}) (DenseFormer: averaged);
#   out = FinalNorm(h_L)
#   language: logits = out U, loss = mean over scored positions of -log softmax(logits)[target]
#   teacher:  yhat = out . w, loss = mean over the batch of (yhat - y)^2
# Every matrix is stored as the engine stores it, (in, out), so a layer is x @ W.
import argparse
import base64
import json
import math
import sys

import torch
from torch import nn

EPS = 1e-5  # inside every norm's square root (the engine's kEps)


# ---- norms -------------------------------------------------------------------------------


class LayerNorm(nn.Module):
    """y = (x - mean) / sqrt(var + eps) * gamma + beta over the last axis (Ba et al. 2016)."""

    def __init__(self, d):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d))
        self.beta = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        var = ((x - mean) ** 2).mean(-1, keepdim=True)
        return (x - mean) / torch.sqrt(var + EPS) * self.gamma + self.beta


class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x^2) + eps) * gamma: no mean, no beta (Zhang and Sennrich 2019)."""

    def __init__(self, d):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS) * self.gamma


def make_norm(kind, d):
    if kind == "layernorm":
        return LayerNorm(d)
    if kind == "rmsnorm":
        return RMSNorm(d)
    if kind == "none":
        return None
    raise SystemExit(f"resnorm_torch: norm '{kind}' is not implemented")


# ---- sublayers ---------------------------------------------------------------------------

ACTIVATIONS = {
    "relu": torch.relu,
    "gelu": nn.functional.gelu,  # x Phi(x) with erf, the engine's exact GELU
    "tanh": torch.tanh,
    "linear": lambda x: x,
}


class Mlp(nn.Module):
    """f(x) = act(x W1) W2, W1 (d, m), W2 (m, d), no biases."""

    def __init__(self, d, m, activation):
        super().__init__()
        self.W1 = nn.Parameter(torch.zeros(d, m))
        self.W2 = nn.Parameter(torch.zeros(m, d))
        self.act = ACTIVATIONS[activation]

    def forward(self, x, mask=None):
        return self.act(x @ self.W1) @ self.W2


class CausalSelfAttention(nn.Module):
    """Multi-head causal attention without biases (Vaswani et al. 2017):
    per head softmax(Q_h K_h^T / sqrt(d / H) + mask) V_h, heads concatenated, then W_O."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.W_Q = nn.Parameter(torch.zeros(d, d))
        self.W_K = nn.Parameter(torch.zeros(d, d))
        self.W_V = nn.Parameter(torch.zeros(d, d))
        self.W_O = nn.Parameter(torch.zeros(d, d))

    def forward(self, x, mask):
        B, T, d = x.shape
        H, dh = self.heads, d // self.heads

        def split(y):  # (B, T, d) -> (B, H, T, dh): head h holds columns h dh .. (h + 1) dh - 1
            return y.view(B, T, H, dh).transpose(1, 2)

        q, k, v = split(x @ self.W_Q), split(x @ self.W_K), split(x @ self.W_V)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)  # (B, H, T, T)
        scores = scores.masked_fill(~mask[:, None, :, :], float("-inf"))
        ctx = torch.softmax(scores, dim=-1) @ v  # (B, H, T, dh)
        return ctx.transpose(1, 2).reshape(B, T, d) @ self.W_O


# ---- the residual and norm wiring of one unit (core/src/recipes.cpp) ----------------------
# Each returns the new stream and what the branch added to it (u); `alpha` scales the skip path
# (the contribution metric's ||u|| / ||alpha h||). The constants (alpha, scale) are the engine's,
# shipped per unit in RUN; the learned ones (gamma, beta, gates) are parameters.


class Plain(nn.Module):
    """h' = f(h): no skip path."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f

    def forward(self, h, mask):
        u = self.f(h, mask)
        return u, u


class Residual(nn.Module):
    """h' = h + f(h), no norm (He et al. 2016)."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f

    def forward(self, h, mask):
        u = self.f(h, mask)
        return h + u, u


class PreNorm(nn.Module):
    """h' = h + f(c N(h)): Pre-LN (Xiong et al. 2020) and GPT-2 (Radford et al. 2019, whose
    1/sqrt(N) is in the initial weights) with LayerNorm, Pre-RMSNorm with RMSNorm, and LayerNorm
    Scaling (Sun et al. 2025) with c = 1/sqrt(l) in block l (c = 1 otherwise)."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d)
        self.scale = w["in_scale"]

    def forward(self, h, mask):
        u = self.f(self.scale * self.norm_in(h), mask)
        return h + u, u


class PostNorm(nn.Module):
    """h' = N(alpha h + f(h)): Post-LN (Vaswani et al. 2017) and Post-RMSNorm with alpha = 1,
    DeepNet (Wang et al. 2022) with alpha = (2N)^(1/4) (its beta is in the initial weights),
    Admin (Liu et al. 2020) with each unit's omega as the engine profiled it at init."""

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_outer = make_norm(w["outer"], d)
        self.alpha = w["alpha"]

    def forward(self, h, mask):
        u = self.f(h, mask)
        return self.norm_outer(self.alpha * h + u), u


class Sandwich(nn.Module):
    """h' = h + N_out(f(N_in(h))), RMSNorm on both sides of the branch (Ding et al. 2021, CogView)."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d)
        self.norm_out = make_norm(w["out"], d)

    def forward(self, h, mask):
        u = self.norm_out(self.f(self.norm_in(h), mask))
        return h + u, u


class ReZero(nn.Module):
    """h' = h + g f(h), g a learned scalar, 0 at init, no norm (Bachlechner et al. 2020)."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.gate = nn.Parameter(torch.zeros(1))

    def forward(self, h, mask):
        u = self.gate * self.f(h, mask)
        return h + u, u


class LayerScale(nn.Module):
    """h' = h + diag(lambda) f(LN(h)), lambda (d) learned (Touvron et al. 2021, CaiT)."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d)
        self.gate = nn.Parameter(torch.zeros(d))

    def forward(self, h, mask):
        u = self.gate * self.f(self.norm_in(h), mask)
        return h + u, u


def wiring(arch, w):
    """The class of a unit of `arch`; w: the unit's wrapping as the engine shipped it. Mix-LN (Li et
    al. 2024) is Post-LN in its first blocks and Pre-LN in the rest: w says which."""
    if arch == "mix_ln":
        return PostNorm if w["outer"] != "none" else PreNorm
    return {
        "plain": Plain,
        "residual": Residual,
        "post_ln": PostNorm,
        "post_rms": PostNorm,
        "deepnorm": PostNorm,
        "admin": PostNorm,
        "pre_ln": PreNorm,
        "pre_rms": PreNorm,
        "gpt2": PreNorm,
        "lns": PreNorm,
        "sandwich": Sandwich,
        "rezero": ReZero,
        "layerscale": LayerScale,
        "dwa": PreNorm,  # DenseFormer's blocks are Pre-LN; its averaging is the network's (below)
    }[arch]


# ---- blocks: one class per block kind ------------------------------------------------------


class MlpBlock(nn.Module):
    """One unit: the MLP, wrapped by the architecture."""

    def __init__(self, arch, cfg, wraps):
        super().__init__()
        d = cfg["width"]
        mlp = Mlp(d, cfg["expansion"] * d, cfg["activation"])
        self.units = nn.ModuleList([wiring(arch, wraps[0])(mlp, d, wraps[0])])

    def forward(self, h, mask, sums):
        unit = self.units[0]
        before = h
        h, u = unit(h, mask)
        sums.append((u, before, unit.alpha))
        return h


class TransformerBlock(nn.Module):
    """Two units: causal self-attention, then the MLP, each wrapped by the architecture."""

    def __init__(self, arch, cfg, wraps):
        super().__init__()
        d = cfg["width"]
        attn = CausalSelfAttention(d, cfg["heads"])
        mlp = Mlp(d, cfg["expansion"] * d, cfg["activation"])
        self.units = nn.ModuleList(
            [wiring(arch, wraps[0])(attn, d, wraps[0]), wiring(arch, wraps[1])(mlp, d, wraps[1])]
        )

    def forward(self, h, mask, sums):
        for unit in self.units:
            before = h
            h, u = unit(h, mask)
            sums.append((u, before, unit.alpha))
        return h


def unit_sums(sums):
    """Per unit (||update||^2, ||alpha h||^2), h the unit's input."""
    return [(float((u * u).sum()), a * a * float((x * x).sum())) for u, x, a in sums]


class Network(nn.Module):
    """The engine's network.h around a stack of `depth` blocks of `arch`."""

    def __init__(self, arch, run):
        super().__init__()
        cfg, model = run["config"], run["model"]
        self.language = model["language"]
        d, L = cfg["width"], cfg["depth"]
        block = MlpBlock if cfg["block"] == "mlp" else TransformerBlock
        P = 1 if cfg["block"] == "mlp" else 2
        wraps = next(r for r in run["runs"] if r["arch"] == arch)["units"]
        self.blocks = nn.ModuleList([block(arch, cfg, wraps[l * P : (l + 1) * P]) for l in range(L)])
        self.final_norm = make_norm(model["final_norm"][arch], d)
        # DenseFormer (Pagliardini et al. 2024): the stream after block l is x_l = sum_{j<=l} w_{l,j} y_j,
        # y_0 = h_0 and y_j block j's output, the weights w_{l,.} learned (1 for j = l, 0 otherwise at init).
        self.dwa = None
        if arch == "dwa":
            self.dwa = nn.ParameterList([nn.Parameter(torch.zeros(l + 1)) for l in range(1, L + 1)])
        T = model["context"]
        if self.language:
            self.embedding = nn.Parameter(torch.zeros(model["embedding_rows"], d))
            if cfg["positions"] == "learned":
                self.positions = nn.Parameter(torch.zeros(T, d))
            else:  # P[t][2i] = sin(t / 10000^(2i/d)), P[t][2i+1] = cos(...), fixed
                table = [
                    [
                        (math.sin if i % 2 == 0 else math.cos)(t * math.pow(10000.0, -float(i - i % 2) / d))
                        for i in range(d)
                    ]
                    for t in range(T)
                ]
                self.register_buffer("positions", torch.tensor(table))
            self.unembedding = nn.Parameter(torch.zeros(d, model["vocab"]))
        else:
            self.readout = nn.Parameter(torch.zeros(d))

    def engine_params(self):
        """name -> Parameter, in the engine's names ("W_Q[2]", "gamma.in[unit 3]", ...)."""
        named = {}
        if self.language:
            named["embedding"] = self.embedding
            if isinstance(self.positions, nn.Parameter):
                named["positions"] = self.positions
        units_per_block = len(self.blocks[0].units)
        for l, blk in enumerate(self.blocks, start=1):
            for j, unit in enumerate(blk.units):
                for pname, p in unit.f.named_parameters():
                    named[f"{pname}[{l}]"] = p
                k = (l - 1) * units_per_block + j + 1
                for where in ("in", "out", "outer"):
                    norm = getattr(unit, "norm_" + where, None)
                    if norm is not None:
                        for pname, p in norm.named_parameters():
                            named[f"{pname}.{where}[unit {k}]"] = p
                if hasattr(unit, "gate"):
                    named[f"gate[unit {k}]"] = unit.gate
        if self.dwa is not None:
            for l, w in enumerate(self.dwa, start=1):
                named[f"dwa[{l}]"] = w
        if self.final_norm is not None:
            for pname, p in self.final_norm.named_parameters():
                named[f"{pname}.final"] = p
        if self.language:
            named["unembedding"] = self.unembedding
        else:
            named["readout"] = self.readout
        return named

    def forward(self, batch, skip_block=0):
        """(loss sum, outputs f, top stream, streams h_0..h_L, per-unit sums)."""
        if self.language:
            h = self.embedding[batch["tokens"]] + self.positions  # (B, T, d)
        else:
            h = batch["x"][:, None, :]  # (B, 1, d): an example is a sequence of one token
            if torch.is_grad_enabled():
                h = h.clone().requires_grad_(True)  # d loss / d h_0 is logged as the engine's grad_norm[0]
        streams, sums, ys = [h], [], [h]
        for l, blk in enumerate(self.blocks, start=1):
            if l != skip_block:
                h = blk(h, batch["mask"], sums)
            if self.dwa is not None:  # every term, a weight of 0 included: its gradient is <y_j, dx_l>
                ys.append(h)
                h = sum(self.dwa[l - 1][j] * ys[j] for j in range(l + 1))
            streams.append(h)
        out = self.final_norm(h) if self.final_norm is not None else h
        if self.language:
            logits = out @ self.unembedding  # (B, T, V)
            tgt = batch["targets"]
            scored = tgt >= 0
            z = logits[scored]
            loss = (torch.logsumexp(z, -1) - z.gather(1, tgt[scored][:, None])[:, 0]).sum()
            correct = int((z.argmax(-1) == tgt[scored]).sum())
        else:
            logits = out[:, 0, :] @ self.readout  # (B,)
            loss = ((logits - batch["y"]) ** 2).sum()
            correct = 0
        return loss, logits, out, streams, sums, correct


# ---- the run's data, from RUN -------------------------------------------------------------


def decode(b64, dtype):
    return torch.frombuffer(bytearray(base64.b64decode(b64)), dtype=dtype).clone()


def load_batch(b, model, dtype, device):
    B, T = b["size"], model["context"]
    out = {"size": B, "length": b["length"]}
    if model["language"]:
        out["tokens"] = decode(b["tokens"], torch.int32).long().view(B, T).to(device)
        out["targets"] = decode(b["targets"], torch.int32).long().view(B, T).to(device)
        out["scored"] = int((out["targets"] >= 0).sum())
        keys = torch.tensor(b["lengths"] if b.get("lengths") else [T] * B, device=device)
    else:
        d = len(base64.b64decode(b["x"])) // 8 // B
        out["x"] = decode(b["x"], torch.float64).view(B, d).to(device, dtype)
        out["y"] = decode(b["y"], torch.float64).to(device, dtype)
        out["scored"] = B
        T = 1
        keys = torch.ones(B, dtype=torch.long, device=device)
    # Query i sees key j when j <= i (causal) and j is one of its sequence's own tokens (not a pad).
    i = torch.arange(T, device=device)
    out["mask"] = (i[None, :] <= i[:, None])[None, :, :] & (i[None, None, :] < keys[:, None, None])
    return out


# ---- the optimizer, schedule and clipping (core/src/optim.cpp) ----------------------------


def learning_rate(cfg, t, steps):
    lr, W = cfg["lr"], cfg["warmup"]
    if t <= W:
        return lr * t / W
    p = (t - W - 1) / max(1.0, float(steps) - W)
    s = cfg["schedule"]
    if s == "linear":
        return lr * max(0.0, 1.0 - p)
    if s == "cosine":
        return lr * 0.5 * (1.0 + math.cos(math.pi * min(1.0, p)))
    if s == "inverse_sqrt":
        return lr * math.sqrt(max(W, 1.0) / t)
    return lr


class Optimizer:
    """Adam, AdamW (decoupled decay) or SGD with momentum, exactly as the engine's Optim."""

    def __init__(self, cfg, params):
        self.cfg, self.params, self.t = cfg, params, 0  # params: [(Parameter, is_matrix)]
        self.m = [torch.zeros_like(p) for p, _ in params]
        self.v = [torch.zeros_like(p) for p, _ in params]

    @torch.no_grad()
    def update(self, lr):
        c = self.cfg
        self.t += 1
        b1, b2, wd = c["beta1"], c["beta2"], c["weight_decay"]
        c1, c2 = 1.0 - b1**self.t, 1.0 - b2**self.t
        for (p, matrix), m, v in zip(self.params, self.m, self.v):
            l2 = wd if matrix and c["optimizer"] != "adamw" else 0.0
            decoupled = wd if matrix and c["optimizer"] == "adamw" else 0.0
            g = p.grad + l2 * p
            if c["optimizer"] == "sgd":
                m.copy_(c["momentum"] * m + g)
                p.sub_(lr * m)
                continue
            m.copy_(b1 * m + (1.0 - b1) * g)
            v.copy_(b2 * v + (1.0 - b2) * g * g)
            p.copy_(p - lr * ((m / c1) / (torch.sqrt(v / c2) + c["eps"]) + decoupled * p))


def clip_gradients(params, clip):
    norm = math.sqrt(sum(float((p.grad * p.grad).sum()) for p, _ in params))
    if clip > 0 and norm > clip:
        for p, _ in params:
            p.grad.mul_(clip / norm)
    return norm


# ---- one architecture's trainer (core/src/trainer.cpp) -------------------------------------


def mean_pairwise_cosine(x):
    n = x.shape[0]
    if n < 2:
        return float("nan")
    norms = x.norm(dim=1)
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            den = float(norms[i] * norms[j])
            total += float(x[i] @ x[j]) / den if den > 0 else (1.0 if float(norms[i]) == float(norms[j]) else 0.0)
    return total / (0.5 * n * (n - 1))


class Trainer:
    def __init__(self, arch, run, data, dtype, device, steps):
        self.arch, self.cfg, self.run, self.steps = arch, run["config"], run, steps
        self.train_batches, self.heldout = data
        self.net = Network(arch, run).to(device, dtype)
        named = self.net.engine_params()
        shipped = next(r for r in run["runs"] if r["arch"] == arch)["params"]
        names = [p["name"] for p in shipped]
        if sorted(names) != sorted(named):
            raise SystemExit(
                f"resnorm_torch: {arch}: the shipped parameters {names} do not match the model's {sorted(named)}"
            )
        self.params, self.blocks_of = [], []
        with torch.no_grad():
            for p in shipped:
                named[p["name"]].copy_(decode(p["data"], torch.float64).view(p["shape"]).to(device, dtype))
                self.params.append((named[p["name"]], p["matrix"]))
                self.blocks_of.append(p["block"])
        self.opt = Optimizer(self.cfg, self.params)
        self.t = 0
        self.stopped = False
        self.contribution_init = self.contributions(self.heldout[0])

    def contributions(self, batch):
        with torch.no_grad():
            _, _, _, streams, sums, _ = self.net(batch)
        return self.contributions_of(unit_sums(sums))

    def contributions_of(self, per_unit):
        P = 2 if self.cfg["block"] == "transformer" else 1
        out = []
        for l in range(self.cfg["depth"]):
            sq = 0.0
            for j in range(P):
                u, s = per_unit[l * P + j]
                r = math.sqrt(u / s) if s > 0 else 0.0
                sq += r * r
            out.append(math.sqrt(sq))
        return out

    def heldout_loss(self, skip_block=0):
        total, correct, scored, first = 0.0, 0, 0, None
        with torch.no_grad():
            for b in self.heldout:
                loss, f, top, _, _, c = self.net(b, skip_block)
                total += float(loss) / b["scored"] * b["scored"]
                correct += c
                scored += b["scored"]
                if first is None:
                    first = (f.reshape(b["size"], -1), top.reshape(b["size"], -1))
        return total / scored, correct, scored, first

    def step(self, n):
        logs = []
        L = self.cfg["depth"]
        while n > 0 and not self.stopped and self.t < self.steps:
            n -= 1
            self.t += 1
            t = self.t
            logged = t % self.cfg["log_every"] == 0 or t == self.steps
            if logged:
                with torch.no_grad():
                    _, f0, _, _, _, _ = self.net(self.heldout[0])
                before = f0.reshape(self.heldout[0]["size"], -1)
            batch = self.train_batches[t - 1]
            for p, _ in self.params:
                p.grad = None
            loss_sum, _, _, streams, sums, _ = self.net(batch)
            for h in streams:
                h.retain_grad()
            loss = loss_sum / batch["scored"]
            loss.backward()
            for p, _ in self.params:
                if p.grad is None:  # a parameter the loss does not reach: its gradient is 0, as the engine's
                    p.grad = torch.zeros_like(p)
            log = {"step": t}
            train_loss = float(loss)
            grad_norm, stream_rms, w_grad, contribution = [], [], [], []
            if logged:
                rows = batch["size"] * batch["length"]
                for h in streams:
                    g = h.grad if h.grad is not None else torch.zeros_like(h)
                    grad_norm.append(math.sqrt(float((g * g).sum())))
                    stream_rms.append(math.sqrt(float((h * h).sum()) / (rows * self.cfg["width"])))
                contribution = self.contributions_of(unit_sums(sums))
                w_sq = [0.0] * L
                for (p, matrix), blk in zip(self.params, self.blocks_of):
                    if matrix and 1 <= blk <= L:
                        w_sq[blk - 1] += float((p.grad * p.grad).sum())
                w_grad = [math.sqrt(q) for q in w_sq]
            gnorm = clip_gradients(self.params, self.cfg["clip"])
            lr = learning_rate(self.cfg, t, self.steps)
            log.update(lr=lr, train_loss=train_loss, grad_norm_global=gnorm)
            if not (math.isfinite(train_loss) and math.isfinite(gnorm)):
                self.stopped = True
                logs.append(self.finish(log, grad_norm, stream_rms, w_grad, [], contribution, t))
                break
            saved = [
                (p.detach().clone(), blk)
                for (p, matrix), blk in zip(self.params, self.blocks_of)
                if logged and matrix and 1 <= blk <= L
            ]
            self.opt.update(lr)
            if not logged:
                continue
            du, w0 = [0.0] * L, [0.0] * L
            k = 0
            for (p, matrix), blk in zip(self.params, self.blocks_of):
                if matrix and 1 <= blk <= L:
                    w_before = saved[k][0]
                    k += 1
                    du[blk - 1] += float(((p.detach() - w_before) ** 2).sum())
                    w0[blk - 1] += float((w_before * w_before).sum())
            update_ratio = [math.sqrt(du[l] / w0[l]) if w0[l] > 0 else 0.0 for l in range(L)]
            held, correct, scored, (after_f, after_top) = self.heldout_loss()
            log["heldout_loss"] = held
            log["heldout_accuracy"] = correct / scored if self.net.language else float("nan")
            log["output_change"] = math.sqrt(float(((after_f - before) ** 2).sum()) / after_f.numel())
            log["top_cosine"] = mean_pairwise_cosine(after_top)
            nonfinite = None
            if not math.isfinite(held):
                self.stopped = True
                nonfinite = t
            logs.append(self.finish(log, grad_norm, stream_rms, w_grad, update_ratio, contribution, nonfinite))
        return logs

    def finish(self, log, grad_norm, stream_rms, w_grad, update_ratio, contribution, nonfinite):
        nan = float("nan")
        for k in ("heldout_loss", "heldout_accuracy", "output_change", "top_cosine"):
            log.setdefault(k, nan)
        for k in ("heldout_loss_train_mode", "heldout_loss_eval_mode", "heldout_loss_one_seq"):
            log[k] = log["heldout_loss"]  # no BatchNorm in this script: the three modes are one
        log.update(
            grad_norm=grad_norm,
            stream_rms=stream_rms,
            w_grad_norm=w_grad,
            update_ratio=update_ratio,
            contribution=contribution,
            bn_mean_distance=[],
            bn_var_distance=[],
            first_nonfinite=nonfinite,
        )
        return log

    def gates(self):
        """ReZero's and LayerScale's gates now, as the engine's summary writes them; None without."""
        units = [u for blk in self.net.blocks for u in blk.units if hasattr(u, "gate")]
        if not units:
            return None
        shipped = next(r for r in self.run["runs"] if r["arch"] == self.arch)["units"]
        return {
            "width": units[0].gate.numel(),
            "init": [w["gate_init"] for w in shipped if w["gate"] != "none"],
            "magnitude": [float(u.gate.detach().abs().mean()) for u in units],
            "values": [float(x) for u in units for x in u.gate.detach().flatten()],
        }

    def lesion(self):
        base = self.heldout_loss()[0]
        loss = [self.heldout_loss(l)[0] for l in range(1, self.cfg["depth"] + 1)]
        return {
            "base": base,
            "loss": loss,
            "increase": [x - base for x in loss],
            "relative": [(x - base) / base for x in loss],
            "contribution": self.contributions(self.heldout[0]),
            "contribution_init": self.contribution_init,
        }


# ---- the command line ------------------------------------------------------------------------


def clean(x):
    """NaN and infinities as null, as the engine's JSON writes them."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, list):
        return [clean(v) for v in x]
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items()}
    return x


def outcome(last, chance, optimal):
    h = last["heldout_loss"]
    if last["first_nonfinite"] is not None or not math.isfinite(h) or h > 1.5 * chance:
        return "diverged"
    if h <= optimal + 0.5 * (chance - optimal):
        return "trained"
    if last["top_cosine"] > 0.99 and h >= 0.9 * chance:
        return "collapsed"
    return "slow"


def main(run, argv=None):
    ap = argparse.ArgumentParser(description="Trains the exported resnorm run in PyTorch.")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--steps", type=int, default=None, help="train fewer steps than the run's")
    ap.add_argument("--json", action="store_true", help="print the lines of `resnorm train --json`")
    args = ap.parse_args(argv)
    cfg = run["config"]
    steps = cfg["steps"] if args.steps is None else args.steps
    shipped = len(run["train_batches"])
    if not 1 <= steps <= shipped:
        raise SystemExit(f"resnorm_torch: --steps {steps}: the file holds the data of steps 1..{shipped}")
    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    torch.set_default_dtype(dtype)
    device = torch.device(args.device)
    model = run["model"]
    data = (
        [load_batch(b, model, dtype, device) for b in run["train_batches"][:steps]],
        [load_batch(b, model, dtype, device) for b in run["heldout"]],
    )
    archs = [r["arch"] for r in run["runs"]]
    trainers = [Trainer(a, run, data, dtype, device, steps) for a in archs]
    chance, optimal = run["chance_loss"], run["optimal_loss"]
    if not args.json:
        print(f"train {run['config_text']}\nchance loss {chance:.4f}, optimal loss {optimal:.4f}")
        print(
            "%8s %-10s %10s %10s %10s %8s %10s %10s %8s"
            % ("step", "arch", "lr", "train", "held-out", "acc", "grad norm", "out chg", "cosine")
        )
    last = [None] * len(trainers)
    done = 0
    while done < steps:
        for i, tr in enumerate(trainers):
            for g in tr.step(cfg["log_every"]):
                last[i] = g
                if args.json:
                    print(json.dumps(clean({"arch": tr.arch, **g})))
                    continue
                print(
                    "%8d %-10s %10.3e %10.4f %10.4f %8.3f %10.3e %10.3e %8.3f%s"
                    % (
                        g["step"],
                        tr.arch,
                        g["lr"],
                        g["train_loss"],
                        g["heldout_loss"],
                        g["heldout_accuracy"],
                        g["grad_norm_global"],
                        g["output_change"],
                        g["top_cosine"],
                        "  non-finite: stopped" if g["first_nonfinite"] is not None else "",
                    )
                )
        done += cfg["log_every"]
    summary = {}
    for i, tr in enumerate(trainers):
        g, les = last[i], tr.lesion()
        if not args.json:
            inc = sorted(les["increase"])
            mid = len(inc) // 2
            median = inc[mid] if len(inc) % 2 else 0.5 * (inc[mid - 1] + inc[mid])
            print(
                "%-10s %s after %d steps: held-out loss %.4f; lesion: one block skipped raises it by %.4f (median), "
                "%.4f (max)" % (tr.arch, outcome(g, chance, optimal), g["step"], g["heldout_loss"], median, max(inc))
            )
            continue
        summary[tr.arch] = {
            "steps": g["step"],
            "outcome": outcome(g, chance, optimal),
            "train_loss": g["train_loss"],
            "heldout_loss": g["heldout_loss"],
            "heldout_accuracy": g["heldout_accuracy"],
            "first_nonfinite": g["first_nonfinite"],
            "lesion": les,
            "gates": tr.gates(),
            "dwa": [w.tolist() for w in tr.net.dwa] if tr.net.dwa is not None else None,
        }
    if args.json:
        doc = {"config": cfg, "chance_loss": chance, "optimal_loss": optimal, "summary": summary}
        print(json.dumps(clean(doc)))
    sys.stdout.flush()
