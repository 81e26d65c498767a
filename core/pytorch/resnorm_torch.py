#!/usr/bin/env python3
# A resnorm training run as a PyTorch script (written by `resnorm train ... --export-pytorch FILE`).
#
# Everything the run needs is in this one file: the code below, and at its end RUN, a JSON
# document holding the run's config, each unit's wiring as the engine set it, the engine's initial
# parameters of every architecture (float64, base64), and the data: every training batch of the run and the held-out set, as the
# engine's task generator drew them. The data is shipped rather than generated again, so the
# script needs no port of the engine's random streams; step 0 is the engine's own. A file of several
# settings' runs (a lab claim whose runs differ in more than the architecture, main_runs) holds one
# such document per setting and each distinct data once; it trains the settings in turn, every
# printed line with its run's key.
#
#   /usr/bin/python3 this.py                      trains every architecture, prints the engine's table
#   /usr/bin/python3 this.py --json               the lines of `resnorm train --json` instead
#   /usr/bin/python3 this.py --device cuda        on a GPU
#   /usr/bin/python3 this.py --dtype float32      in float32 (float64 by default)
#   /usr/bin/python3 this.py --steps 100          fewer steps than the run's (the data holds its own)
#   /usr/bin/python3 this.py --width 256 --depth 24   other sizes: the script draws its own init from the
#                                                 engine's scheme (the run's data); no longer the engine's
#                                                 run step for step
#   torchrun --nproc_per_node 2 this.py           data-parallel over 2 processes (DistributedDataParallel):
#                                                 each process takes its share of every batch, the losses
#                                                 are one process's up to rounding; rank 0 prints
#                                                 (not with BatchNorm, whose statistics are the whole batch's)
#
# The model (the engine's core/include/resnorm/network.h, model.h, recipes.h):
#   h_0 = E[tokens] + P (language) or x (teacher); h_l = block_l(h_{l-1}) (DenseFormer: averaged);
#   out = FinalNorm(h_L)
#   norms: each architecture's LayerNorm, RMSNorm or DyT, or with norm batchnorm every one of them BatchNorm
#   (statistics over the batch's rows, running averages for evaluation: class BatchNorm)
#   language: logits = out U, loss = mean over scored positions of -log softmax(logits)[target]
#   teacher:  yhat = out . w, loss = mean over the batch of (yhat - y)^2
# Every matrix is stored as the engine stores it, (in, out), so a layer is x @ W.
import argparse
import base64
import json
import math
import os
import sys

import torch
from torch import nn

EPS = 1e-5  # inside every norm's square root (the engine's kEps)
DYT_ALPHA = 0.5  # DyT's alpha at init when RUN's config does not say (the engine's kDytAlpha)
HC_STREAMS = 4  # Hyper-Connections' n when RUN's config does not say (the engine's kHcStreams)
MHC_INIT_LOGIT = 8.0  # hyper.h's kMhcInitLogit: mHC's logits at init
SINKHORN_ITERS = 20  # mHC's Sinkhorn-Knopp iterations likewise (kSinkhornIters)
NGPT_ALPHA = 0.05  # nGPT's alpha at init likewise (kNgptAlpha)
SPHERE_TINY = 1e-30  # nGPT's Norm divides a row of smaller norm by this instead (ngpt.h's kSphereTiny)


def unit_norm(x, dim=-1):
    """nGPT's Norm (Loshchilov et al. 2025; the engine's ngpt.h): x / ||x|| along `dim`."""
    return x / x.norm(dim=dim, keepdim=True).clamp_min(SPHERE_TINY)


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


class DyT(nn.Module):
    """y = gamma tanh(alpha x) + beta entry by entry, alpha a learned scalar, alpha_0 at init: Dynamic
    Tanh (Zhu et al. 2025, "Transformers without Normalization"), no statistics."""

    def __init__(self, d, alpha0=DYT_ALPHA):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d))
        self.beta = nn.Parameter(torch.zeros(d))
        self.alpha = nn.Parameter(torch.full((1,), float(alpha0)))

    def forward(self, x):
        return torch.tanh(self.alpha * x) * self.gamma + self.beta


class PassRows:
    """What every BatchNorm of a network reads in a pass (the engine's sublayer.h PassRows): the mode,
    which rows its batch statistics count, and the running statistics' momentum.

    mode: "train" (the batch's statistics), "train_update" (those, and the running statistics move
    toward them), "eval" (the running statistics) or "sequence" (each sequence its own statistics
    alone). counted: (B, T) bool, the rows in the statistics; None counts every row."""

    def __init__(self, momentum=0.1):
        self.mode, self.counted, self.momentum = "train", None, momentum


class BatchNorm(nn.Module):
    """BatchNorm (Ioffe and Szegedy 2015) as the engine's norms.cpp: per feature over the counted rows
    C of the pass, mean = sum_C x / n, var = sum_C (x - mean)^2 / n (biased), n = |C|, and every row
    y = (x - mean) / sqrt(var + eps) * gamma + beta (a row outside C is normalized with C's
    statistics and moves none of them). train_update also moves the running statistics,
    running = (1 - m) running + m batch, the variance's with n / (n - 1) (unbiased), and keeps the
    distances of the batch statistics from the running ones before the move, (1/d) ||mean - running
    mean|| and (1/d) ||var - running var||; eval normalizes with the running statistics; sequence
    gives each sequence (axis 0) the statistics of its own counted rows."""

    def __init__(self, d):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(d))
        self.beta = nn.Parameter(torch.zeros(d))
        self.register_buffer("running_mean", torch.zeros(d))
        self.register_buffer("running_var", torch.ones(d))
        self.rows = PassRows()  # the network's, shared by its BatchNorms (Network sets it)
        self.mean_distance = self.var_distance = float("nan")

    def forward(self, x):
        rows = self.rows
        if rows.mode == "eval":
            return (x - self.running_mean) / torch.sqrt(self.running_var + EPS) * self.gamma + self.beta
        c = rows.counted
        w = (torch.ones(x.shape[:-1], dtype=torch.bool, device=x.device) if c is None else c)[..., None].to(x.dtype)
        axes = (1,) if rows.mode == "sequence" else tuple(range(x.dim() - 1))
        n = w.sum(axes, keepdim=True)
        inv = torch.where(n > 0, 1.0 / n.clamp(min=1), torch.zeros_like(n))  # no counted row: mean 0, var 0
        mean = (x * w).sum(axes, keepdim=True) * inv
        var = (((x - mean) * w) ** 2).sum(axes, keepdim=True) * inv
        y = (x - mean) / torch.sqrt(var + EPS) * self.gamma + self.beta
        if rows.mode == "train_update":
            with torch.no_grad():
                d, count = x.shape[-1], float(n.flatten()[0])
                mu, var = mean.flatten(), var.flatten()
                self.mean_distance = float((mu - self.running_mean).norm()) / d
                self.var_distance = float((var - self.running_var).norm()) / d
                m, unbiased = rows.momentum, count / (count - 1) if count > 1 else 1.0
                self.running_mean.copy_((1 - m) * self.running_mean + m * mu)
                self.running_var.copy_((1 - m) * self.running_var + m * var * unbiased)
        return y


def make_norm(kind, d, dyt_alpha=DYT_ALPHA):
    if kind == "layernorm":
        return LayerNorm(d)
    if kind == "rmsnorm":
        return RMSNorm(d)
    if kind == "batchnorm":
        return BatchNorm(d)
    if kind == "dyt":
        return DyT(d, dyt_alpha)
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
    """f(x) = act(x W1) W2, W1 (d, m), W2 (m, d), no biases. ngpt (nGPT): act(s_v sqrt(d) (x W1)) W2,
    s_v (m) learned, 1 at init (the paper's nu scaling; no gate, so no s_u)."""

    def __init__(self, d, m, activation, ngpt=False):
        super().__init__()
        self.W1 = nn.Parameter(torch.zeros(d, m))
        self.W2 = nn.Parameter(torch.zeros(m, d))
        self.act = ACTIVATIONS[activation]
        self.root_d = math.sqrt(d)
        if ngpt:
            self.s_v = nn.Parameter(torch.ones(m))

    def forward(self, x, mask=None):
        pre = x @ self.W1
        if hasattr(self, "s_v"):
            pre = pre * (self.s_v * self.root_d)
        return self.act(pre) @ self.W2


class CausalSelfAttention(nn.Module):
    """Multi-head causal attention without biases (Vaswani et al. 2017):
    per head softmax(Q_h K_h^T / sqrt(d / H) + mask) V_h, heads concatenated, then W_O.
    qk_norm "layernorm" (Dehghani et al. 2023; Wortsman et al. 2023): each head's rows of Q and K
    through LayerNorm over its dh features with learned gains gamma_q, gamma_k (dh, shared by the
    heads) and no bias before the scores, whose 1 / sqrt(dh) stays. v_norm (HybridNorm, Zhuo et al.
    2025): each head's rows of V likewise, with the gain gamma_v (dh, shared by the heads).
    max_logit: after each forward, the largest |score| (q . k / sqrt(dh)) over the batch, heads and
    the (query, key) pairs the mask keeps, as the engine's Attention::max_logit."""

    def __init__(self, d, heads, qk_norm="none", v_norm=False, ngpt=False):
        super().__init__()
        self.heads = heads
        # nGPT: each head's rows of Q and K on the unit sphere times s_qk = sqrt(d) s (s (d) learned,
        # 1 / sqrt(d) at init, head h's dh entries at h dh, one s for both), the scores times sqrt(dh)
        self.ngpt = ngpt
        if ngpt:
            self.s_qk = nn.Parameter(torch.full((d,), 1.0 / math.sqrt(d)))
        self.W_Q = nn.Parameter(torch.zeros(d, d))
        self.W_K = nn.Parameter(torch.zeros(d, d))
        self.W_V = nn.Parameter(torch.zeros(d, d))
        self.W_O = nn.Parameter(torch.zeros(d, d))
        self.qk_norm = qk_norm
        self.max_logit = float("nan")
        if qk_norm == "layernorm":
            self.gamma_q = nn.Parameter(torch.ones(d // heads))
            self.gamma_k = nn.Parameter(torch.ones(d // heads))
        self.v_norm = v_norm
        if v_norm:
            self.gamma_v = nn.Parameter(torch.ones(d // heads))

    @staticmethod
    def head_norm(y, gamma):
        """LayerNorm over the last axis (a head's dh features) with gain gamma and no bias."""
        mean = y.mean(-1, keepdim=True)
        var = ((y - mean) ** 2).mean(-1, keepdim=True)
        return (y - mean) / torch.sqrt(var + EPS) * gamma

    def forward(self, x, mask):
        B, T, d = x.shape
        H, dh = self.heads, d // self.heads

        def split(y):  # (B, T, d) -> (B, H, T, dh): head h holds columns h dh .. (h + 1) dh - 1
            return y.view(B, T, H, dh).transpose(1, 2)

        q, k, v = split(x @ self.W_Q), split(x @ self.W_K), split(x @ self.W_V)
        if self.qk_norm == "layernorm":
            q, k = self.head_norm(q, self.gamma_q), self.head_norm(k, self.gamma_k)
        if self.v_norm:
            v = self.head_norm(v, self.gamma_v)
        if self.ngpt:
            s = (self.s_qk * math.sqrt(d)).view(H, dh)[None, :, None, :]
            q, k = s * unit_norm(q), s * unit_norm(k)
        scale = math.sqrt(dh) if self.ngpt else 1.0 / math.sqrt(dh)
        scores = q @ k.transpose(-1, -2) * scale  # (B, H, T, T)
        with torch.no_grad():
            kept = scores.abs().masked_fill(~mask[:, None, :, :], 0.0)
            self.max_logit = float("nan") if bool(torch.isnan(kept).any()) else float(kept.max())
        scores = scores.masked_fill(~mask[:, None, :, :], float("-inf"))
        ctx = torch.softmax(scores, dim=-1) @ v  # (B, H, T, dh)
        return ctx.transpose(1, 2).reshape(B, T, d) @ self.W_O


# ---- the residual and norm wiring of one unit (core/src/recipes.cpp) ----------------------
# Each returns the new stream and what the branch added to it (u); `alpha` scales the skip path
# (the contribution metric's ||u|| / ||alpha h||). The constants (alpha, scale) are the engine's,
# shipped per unit in RUN; the learned ones (gamma, beta, DyT's alpha, gates) are parameters.


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
    1/sqrt(N) is in the initial weights) with LayerNorm, Pre-RMSNorm with RMSNorm, LayerNorm
    Scaling (Sun et al. 2025) with c = 1/sqrt(l) in block l (c = 1 otherwise), and DyT (Zhu et al.
    2025) with DyT in place of the norm."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d, w.get("dyt_alpha", DYT_ALPHA))
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


def sinkhorn(R, iters):
    """mHC's projection (Xie et al. 2025): X_0 = exp(R - max R), then `iters` times every row divided
    by its sum, then every column; autograd differentiates the iterations run, as the engine does."""
    X = torch.exp(R - R.max().detach())
    for _ in range(iters):
        X = X / X.sum(1, keepdim=True)
        X = X / X.sum(0, keepdim=True)
    return X


class HyperUnit(nn.Module):
    """Hyper-Connections (Zhu et al. 2025, static): on n streams H (n, B, T, d) the unit reads
    x = sum_j a_j H_j, its branch is y = f(LN(x)) with no skip, and H_i <- sum_j M_ij H_j + b_i y.
    hc: a, M, b are the parameters (A_m, A_r^T, B of the paper); mhc (Xie et al. 2025, mHC):
    a = sigmoid(p), b = 2 sigmoid(q), M = sinkhorn(R) with p, R, q the parameters."""

    alpha = 1.0
    streams = True

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d)
        self.n, self.mhc, self.iters = w["hc_streams"], w["hyper"] == "mhc", w["sinkhorn_iters"]
        self.hc_read = nn.Parameter(torch.zeros(self.n))
        self.hc_mix = nn.Parameter(torch.zeros(self.n * self.n))  # row-major (n, n), the engine's shape
        self.hc_write = nn.Parameter(torch.zeros(self.n))

    def weights(self):
        n = self.n
        if not self.mhc:
            return self.hc_read, self.hc_mix.view(n, n), self.hc_write
        return torch.sigmoid(self.hc_read), sinkhorn(self.hc_mix.view(n, n), self.iters), 2 * torch.sigmoid(self.hc_write)

    def forward(self, H, mask):
        a, M, b = self.weights()
        self.read = torch.tensordot(a, H, 1)  # x, what the unit reads: the simulation's update ratio is ||y|| / ||x||
        y = self.f(self.norm_in(self.read), mask)
        return torch.tensordot(M, H, 1) + b.view(-1, *([1] * y.dim())) * y, y


def composite_gain(net):
    """mHC's Amax Gain Magnitude (Xie et al. 2025, Sec. 3.1) of the stream mixing composed over depth,
    P = M_U ... M_1 of every unit's effective M in double: (the largest |row sum| of P, the largest
    |column sum|), the engine's Hyper::composite_gain; (NaN, NaN) without streams."""
    units = [u for blk in net.blocks for u in blk.units if isinstance(u, HyperUnit)]
    if not units:
        return float("nan"), float("nan")
    with torch.no_grad():
        P = torch.eye(units[0].n, dtype=torch.float64)
        for u in units:
            P = u.weights()[1].double() @ P
        return float(P.sum(1).abs().max()), float(P.sum(0).abs().max())


def hyper_streams(h, n):
    """The n streams at the bottom: n copies of h_0."""
    return h.unsqueeze(0).expand(n, *h.shape)


def hyper_boundary(H):
    """At a unit boundary: a leaf v with the streams' mean as its value, added to every stream as
    v - v.detach() (zero), so v's gradient is the sum of the streams' (the engine's dstream) and
    its value the mean (the engine's stream)."""
    v = H.mean(0).detach().requires_grad_(torch.is_grad_enabled())
    return (H + (v - v.detach()).unsqueeze(0) if v.requires_grad else H), v


class NormNoSkip(nn.Module):
    """v = f(N(h)) and no skip: a unit of Attention Residuals (Kimi Team 2026), whose output is
    kept as a source of the softmax over depth (AttnRes below), never added to a stream."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d)

    def forward(self, h, mask):
        u = self.f(self.norm_in(h), mask)
        return u, u


class AttnRes(nn.Module):
    """Attention Residuals' op (Kimi Team 2026, arXiv 2603.15031; attn_res.h): token by token
    h = sum_i a_i v_i, a = softmax_i(w . (g * v_i / sqrt(mean(v_i^2) + eps))): a learned
    pseudo-query w (0 at init: uniform weights) against the RMS-normalized sources with gain g."""

    def __init__(self, d):
        super().__init__()
        self.query = nn.Parameter(torch.zeros(d))
        self.gain = nn.Parameter(torch.ones(d))
        self.last = None  # the weights of the last forward, (n, B, T), detached

    def forward(self, vs):
        V = torch.stack(vs)  # (n, B, T, d)
        n = V / torch.sqrt((V * V).mean(-1, keepdim=True) + EPS)
        a = torch.softmax((n * (self.query * self.gain)).sum(-1), 0)  # (n, B, T)
        self.last = a.detach()
        return (a[..., None] * V).sum(0)


def attn_res_stack(blocks, ops, h, mask, sums, skip_block=0, groups=0):
    """Attention Residuals over the units of `blocks`: unit k reads h_{k-1}, writes v_k; op k makes
    h_k from v_0 = h_0, v_1..v_k (Full), or under Block AttnRes (`groups` N blocks of units, unit k
    in block floor((k - 1) N / K) + 1; 0 or N >= K is Full) from h_0, the sums of the completed
    blocks and the partial sum of unit k's own block up to v_k. Block skip_block's units write their
    input (the lesion study). Returns the last h and the streams at the block boundaries."""
    K = len(ops)
    N = groups if 0 < groups < K else K
    done, partial, streams, k = [h], None, [h], 0
    for l, blk in enumerate(blocks, start=1):
        for unit in blk.units:
            if l == skip_block:
                v = h
            else:
                v, u = unit(h, mask)
                sums.append((u, h, unit.alpha))
            k += 1
            partial = v if partial is None else partial + v
            h = ops[k - 1](done + [partial])
            if k == K or k * N // K != (k - 1) * N // K:  # unit k ends its block
                done.append(partial)
                partial = None
        streams.append(h)
    return h, streams


class NormedSkip(nn.Module):
    """h' = N(h) + f(N(h)): HybridNorm's FFN (Zhuo et al. 2025), the skip taken after the norm, as
    its reference code's ffn_residual_after_norm wires it. The contribution metric's skip is N(h)."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.norm_in = make_norm(w["in"], d)

    def forward(self, h, mask):
        n = self.norm_in(h)
        self.skipped = n
        u = self.f(n, mask)
        return n + u, u


class Sphere(nn.Module):
    """nGPT (Loshchilov et al. 2025): a = Norm(h), b = Norm(f(a)), h' = Norm(a + alpha (b - a)), alpha
    = |alpha_s| alpha_init sqrt(d) per channel, alpha_s (d) learned, 1 / sqrt(d) at init (the paper's
    scaled parametrisation). The contribution metric's update is alpha (b - a), its skip a."""

    alpha = 1.0

    def __init__(self, f, d, w):
        super().__init__()
        self.f = f
        self.ngpt_alpha = nn.Parameter(torch.full((d,), 1.0 / math.sqrt(d)))
        self.factor = w.get("ngpt_alpha", NGPT_ALPHA) * math.sqrt(d)

    def forward(self, h, mask):
        a = unit_norm(h)
        self.skipped = a
        u = (self.ngpt_alpha.abs() * self.factor) * (unit_norm(self.f(a, mask)) - a)
        return unit_norm(a + u), u


def skip_of(unit, before):
    """What the unit's skip carried: N(h) for NormedSkip, Norm(h) for nGPT's, its input h otherwise."""
    return unit.skipped if isinstance(unit, (NormedSkip, Sphere)) else before


def wiring(arch, w):
    """The class of a unit of `arch`; w: the unit's wrapping as the engine shipped it. Mix-LN (Li et
    al. 2024) is Post-LN in its first blocks and Pre-LN in the rest: w says which."""
    if arch == "mix_ln":
        return PostNorm if w["outer"] != "none" else PreNorm
    if arch == "hybrid":  # attention: h + attn(h), QKV-norm inside; the FFN's skip after its norm
        return NormedSkip if w.get("skip_normed") else Residual
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
        "dyt": PreNorm,
        "hyper": HyperUnit,
        "mhc": HyperUnit,
        "attn_res": NormNoSkip,
        "ngpt": Sphere,
    }[arch]


# ---- blocks: one class per block kind ------------------------------------------------------


def with_dyt_alpha(wraps, cfg):
    """The units' wrappings with the config's DyT alpha_0 (dyt_alpha), which a DyT norm starts from,
    and Hyper-Connections' n and mHC's Sinkhorn iterations."""
    return [
        dict(
            w,
            dyt_alpha=cfg.get("dyt_alpha", DYT_ALPHA),
            hyper=cfg.get("arch_kind", ""),
            hc_streams=cfg.get("hc_streams", HC_STREAMS),
            sinkhorn_iters=cfg.get("sinkhorn_iters", SINKHORN_ITERS),
            ngpt_alpha=cfg.get("ngpt_alpha", NGPT_ALPHA),
        )
        for w in wraps
    ]


class MlpBlock(nn.Module):
    """One unit: the MLP, wrapped by the architecture."""

    def __init__(self, arch, cfg, wraps):
        super().__init__()
        d = cfg["width"]
        wraps = with_dyt_alpha(wraps, cfg)
        mlp = Mlp(d, cfg["expansion"] * d, cfg["activation"], arch == "ngpt")
        self.units = nn.ModuleList([wiring(arch, wraps[0])(mlp, d, wraps[0])])

    def forward(self, h, mask, sums):
        unit = self.units[0]
        before = h.mean(0) if hasattr(unit, "streams") else h
        h, u = unit(h, mask)
        sums.append((u, skip_of(unit, before), unit.alpha))
        return h


class TransformerBlock(nn.Module):
    """Two units: causal self-attention, then the MLP, each wrapped by the architecture."""

    def __init__(self, arch, cfg, wraps):
        super().__init__()
        d = cfg["width"]
        wraps = with_dyt_alpha(wraps, cfg)
        # HybridNorm normalizes Q, K and V whatever qk_norm says
        # (nGPT puts Q and K on the sphere instead)
        hybrid, ngpt = arch == "hybrid", arch == "ngpt"
        qk = "layernorm" if hybrid else "none" if ngpt else cfg.get("qk_norm", "none")
        attn = CausalSelfAttention(d, cfg["heads"], qk, hybrid, ngpt)
        mlp = Mlp(d, cfg["expansion"] * d, cfg["activation"], ngpt)
        self.units = nn.ModuleList(
            [wiring(arch, wraps[0])(attn, d, wraps[0]), wiring(arch, wraps[1])(mlp, d, wraps[1])]
        )

    def forward(self, h, mask, sums):
        for unit in self.units:
            before = h.mean(0) if hasattr(unit, "streams") else h
            h, u = unit(h, mask)
            sums.append((u, skip_of(unit, before), unit.alpha))
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
        # norm batchnorm: every norm the architecture places is BatchNorm (RUN names the final norm so already)
        if cfg.get("norm") == "batchnorm":
            wraps = [dict(w, **{k: "batchnorm" for k in ("in", "out", "outer") if w[k] != "none"}) for w in wraps]
        self.hc_streams = cfg.get("hc_streams", HC_STREAMS) if arch in ("hyper", "mhc") else 0
        bcfg = dict(cfg, arch_kind=arch if self.hc_streams else "")
        self.blocks = nn.ModuleList([block(arch, bcfg, wraps[l * P : (l + 1) * P]) for l in range(L)])
        self.final_norm = make_norm(model["final_norm"][arch], d, cfg.get("dyt_alpha", DYT_ALPHA))
        # BatchNorm's pass layout, shared by all its layers; the trainer sets the mode before each pass
        self.rows = PassRows(cfg.get("bn_momentum", 0.1))
        self.bn_mode = "eval"
        self.pads_counted = cfg.get("bn_pads") == "count"
        for norm in self.batchnorms():
            norm.rows = self.rows
        # DenseFormer (Pagliardini et al. 2024): the stream after block l is x_l = sum_{j<=l} w_{l,j} y_j,
        # y_0 = h_0 and y_j block j's output, the weights w_{l,.} learned (1 for j = l, 0 otherwise at init).
        self.dwa = None
        if arch == "dwa":
            self.dwa = nn.ParameterList([nn.Parameter(torch.zeros(l + 1)) for l in range(1, L + 1)])
        # Attention Residuals: one op per unit (attn_res_stack), Full or over attn_res_blocks blocks
        self.attn_res = nn.ModuleList([AttnRes(d) for _ in range(L * P)]) if arch == "attn_res" else None
        self.attn_res_blocks = cfg.get("attn_res_blocks", 0)
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
                table = torch.tensor(table)
                if arch == "ngpt":  # nGPT: fixed rows of unit norm, like the embedding's
                    table = unit_norm(table)
                self.register_buffer("positions", table)
            self.unembedding = nn.Parameter(torch.zeros(d, model["vocab"]))
            # nGPT's logits z = s_z (out U), s_z = sqrt(d) s, s (V) learned, 1 / sqrt(d) at init
            self.root_d = math.sqrt(d)
            if arch == "ngpt":
                self.s_z = nn.Parameter(torch.full((model["vocab"],), 1.0 / math.sqrt(d)))
        else:
            self.readout = nn.Parameter(torch.zeros(d))

    def batchnorms(self):
        """The BatchNorm layers in the engine's order (network.cpp batchnorms()): unit by unit its norm
        before, after and around the sublayer, then the final norm; [] without BatchNorm."""
        units = [u for blk in self.blocks for u in blk.units]
        norms = [getattr(u, "norm_" + w, None) for u in units for w in ("in", "out", "outer")]
        return [n for n in norms + [self.final_norm] if isinstance(n, BatchNorm)]

    def engine_params(self):
        """name -> Parameter, in the engine's names ("W_Q[2]", "gamma.in[unit 3]", ...)."""
        named = {}
        if self.language:
            named["embedding"] = self.embedding
            if isinstance(self.positions, nn.Parameter):
                named["positions"] = self.positions
        named.update(stack_params(self))
        if self.language:
            named["unembedding"] = self.unembedding
        else:
            named["readout"] = self.readout
        if hasattr(self, "s_z"):
            named["s_z"] = self.s_z
        return named

    def forward(self, batch, skip_block=0):
        """(loss sum, outputs f, top stream, streams h_0..h_L, per-unit sums); BatchNorm in self.bn_mode."""
        # BatchNorm's rows (network.cpp layout()): each sequence's own tokens, and its pads up to the
        # batch's longest when pads count (never for a sequence alone); the rows past it count nowhere
        pads = self.pads_counted and self.bn_mode != "sequence"
        self.rows.mode, self.rows.counted = self.bn_mode, batch["counted_pads" if pads else "counted"]
        if self.language:
            h = self.embedding[batch["tokens"]] + self.positions  # (B, T, d)
        else:
            h = batch["x"][:, None, :]  # (B, 1, d): an example is a sequence of one token
            if torch.is_grad_enabled():
                h = h.clone().requires_grad_(True)  # d loss / d h_0 is logged as the engine's grad_norm[0]
        streams, sums, ys = [h], [], [h]
        if self.hc_streams:  # Hyper-Connections: n streams, their mean and summed gradient logged
            h = hyper_streams(h, self.hc_streams)
        if self.attn_res is not None:
            h, streams = attn_res_stack(
                self.blocks, self.attn_res, h, batch["mask"], sums, skip_block, self.attn_res_blocks
            )
        for l, blk in enumerate(self.blocks if self.attn_res is None else [], start=1):
            if l != skip_block:
                h = blk(h, batch["mask"], sums)
            if self.dwa is not None:  # every term, a weight of 0 included: its gradient is <y_j, dx_l>
                ys.append(h)
                h = sum(self.dwa[l - 1][j] * ys[j] for j in range(l + 1))
            if self.hc_streams:
                h, v = hyper_boundary(h)
                streams.append(v)
            else:
                streams.append(h)
        if self.hc_streams:
            h = h.mean(0)
        out = self.final_norm(h) if self.final_norm is not None else h
        if self.language:
            logits = out @ self.unembedding  # (B, T, V)
            if hasattr(self, "s_z"):
                logits = logits * (self.s_z * self.root_d)
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


def stack_params(net):
    """The stack's parameters (blocks, DenseFormer's weights, final norm) in the engine's names."""
    named = {}
    units_per_block = len(net.blocks[0].units)
    for l, blk in enumerate(net.blocks, start=1):
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
            if hasattr(unit, "ngpt_alpha"):
                named[f"ngpt_alpha[unit {k}]"] = unit.ngpt_alpha
            if hasattr(unit, "streams"):  # Hyper-Connections' weights, mHC's logits
                names = ("mhc_pre", "mhc_res", "mhc_post") if unit.mhc else ("hc_read", "hc_mix", "hc_write")
                for nm, p in zip(names, (unit.hc_read, unit.hc_mix, unit.hc_write)):
                    named[f"{nm}[unit {k}]"] = p
    if net.dwa is not None:
        for l, w in enumerate(net.dwa, start=1):
            named[f"dwa[{l}]"] = w
    if net.attn_res is not None:
        for k, op in enumerate(net.attn_res, start=1):
            named[f"attn_res.query[unit {k}]"] = op.query
            named[f"attn_res.gain[unit {k}]"] = op.gain
    if net.final_norm is not None:
        for pname, p in net.final_norm.named_parameters():
            named[f"{pname}.final"] = p
    return named


# ---- the simulation (`resnorm simulate --export-pytorch`): the stack at init --------------


class Simulation(nn.Module):
    """The engine's simulation (core/src/engine.cpp, model.h, docs/model.md "The simulation"): one
    sequence h_0 (T, d) of the engine's, the stack of `arch`, the final norm, loss = <r, out>."""

    def __init__(self, arch, cfg, wraps):
        super().__init__()
        d, L = cfg["width"], cfg["depth"]
        transformer = cfg.get("block", "mlp") == "transformer"
        bcfg = {"width": d, "expansion": cfg["expansion"], "activation": cfg["activation"], "heads": cfg.get("heads", 1)}
        bcfg["dyt_alpha"] = cfg.get("dyt_alpha", DYT_ALPHA)
        bcfg["qk_norm"] = cfg.get("qk_norm", "none")
        bcfg["ngpt_alpha"] = cfg.get("ngpt_alpha", NGPT_ALPHA)
        self.hc_streams = cfg.get("hc_streams", HC_STREAMS) if arch in ("hyper", "mhc") else 0
        bcfg["arch_kind"] = arch if self.hc_streams else ""
        bcfg["hc_streams"] = self.hc_streams
        bcfg["sinkhorn_iters"] = cfg.get("sinkhorn_iters", SINKHORN_ITERS)
        block = TransformerBlock if transformer else MlpBlock
        P = 2 if transformer else 1
        self.blocks = nn.ModuleList([block(arch, bcfg, wraps[l * P : (l + 1) * P]) for l in range(L)])
        self.final_norm = make_norm(cfg["final_norm"], d)
        self.dwa = None
        if arch == "dwa":
            self.dwa = nn.ParameterList([nn.Parameter(torch.zeros(l + 1)) for l in range(1, L + 1)])
        self.attn_res = nn.ModuleList([AttnRes(d) for _ in range(L * P)]) if arch == "attn_res" else None
        self.attn_res_blocks = cfg.get("attn_res_blocks", 0)

    def forward(self, h0, r, mask):
        h = h0
        streams, sums, ys = [h], [], [h]
        if self.hc_streams:
            h = hyper_streams(h, self.hc_streams)
        if self.attn_res is not None:
            h, streams = attn_res_stack(self.blocks, self.attn_res, h, mask, sums, groups=self.attn_res_blocks)
        for l, blk in enumerate(self.blocks if self.attn_res is None else [], start=1):
            h = blk(h, mask, sums)
            if self.dwa is not None:
                ys.append(h)
                h = sum(self.dwa[l - 1][j] * ys[j] for j in range(l + 1))
            if self.hc_streams:
                h, v = hyper_boundary(h)
                streams.append(v)
            else:
                streams.append(h)
        if self.hc_streams:
            h = h.mean(0)
        out = self.final_norm(h) if self.final_norm is not None else h
        return (r * out).sum(), streams, sums


def simulate(run, arch, dtype, device):
    """The numbers of `resnorm simulate --json` for `arch`, from PyTorch's autograd."""
    cfg = run["config"]
    entry = next(x for x in run["runs"] if x["arch"] == arch)
    net = Simulation(arch, cfg, entry["units"]).to(device, dtype)
    named = stack_params(net)
    shipped = {p["name"]: p for p in entry["params"]}
    if sorted(shipped) != sorted(named):
        raise SystemExit(f"resnorm_torch: {arch}: the shipped parameters {sorted(shipped)} are not the model's {sorted(named)}")
    with torch.no_grad():
        for name, p in named.items():
            q = shipped[name]
            p.copy_(decode(q["data"], torch.float64).view(q["shape"]).to(device, dtype))
    T, d = cfg["tokens"], cfg["width"]
    h0 = decode(run["input"], torch.float64).view(1, T, d).to(device, dtype).requires_grad_(True)
    r = decode(run["readout"], torch.float64).view(1, T, d).to(device, dtype)
    i = torch.arange(T, device=device)
    mask = (i[None, :] <= i[:, None]) if cfg.get("causal", True) else torch.ones(T, T, dtype=torch.bool, device=device)
    loss, streams, sums = net(h0, r, mask[None, :, :])
    for h in streams:
        h.retain_grad()
    loss.backward()
    res = {
        "grad_norm": [float(h.grad.norm()) if h.grad is not None else 0.0 for h in streams],
        "stream_rms": [math.sqrt(float((h * h).sum()) / (T * d)) for h in streams],
    }
    P = len(net.blocks[0].units)
    ratios = []
    units = [unit for blk in net.blocks for unit in blk.units]
    for unit, (u, x, a) in zip(units, sums):
        x = unit.read if isinstance(unit, HyperUnit) else x  # the engine's: what a Hyper-Connections unit read
        uu, ss = float((u * u).sum()), a * a * float((x * x).sum())
        ratios.append(math.sqrt(uu / ss) if ss > 0 else 0.0)
    res["update_ratio"] = [math.sqrt(sum(q * q for q in ratios[l * P : (l + 1) * P])) for l in range(cfg["depth"])]
    L = cfg["depth"]
    grad = lambda key: [float(named[f"{key}[{l}]"].grad.norm()) for l in range(1, L + 1)]  # noqa: E731
    res["w1_grad_norm"], res["w2_grad_norm"] = grad("W1"), grad("W2")
    if P == 2:
        res["attn_update_ratio"] = ratios[0::2]
        res["mlp_update_ratio"] = ratios[1::2]
        for key, name in (("wq", "W_Q"), ("wk", "W_K"), ("wv", "W_V"), ("wo", "W_O")):
            res[f"{key}_grad_norm"] = grad(name)
    # the first layer l with a value that is not finite: the stream or gradient at h_l, or block l's entries
    res["first_nonfinite"] = None
    for l in range(L + 1):
        at = [res["grad_norm"][l], res["stream_rms"][l]]
        at += [v[l - 1] for k, v in res.items() if l >= 1 and isinstance(v, list) and len(v) == L]
        if not all(math.isfinite(x) for x in at):
            res["first_nonfinite"] = l
            break
    return res


def main_simulation(run, argv=None):
    ap = argparse.ArgumentParser(description="The exported resnorm simulation in PyTorch.")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    args = ap.parse_args(argv)
    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    torch.set_default_dtype(dtype)
    results = {r["arch"]: simulate(run, r["arch"], dtype, torch.device(args.device)) for r in run["runs"]}
    print(json.dumps(clean({"config": run["config"], "results": results})))


# ---- the script's own init, for other sizes (--width, --depth) ------------------------------
# The shipped weights are the engine's at the run's sizes. At other sizes the script draws its own
# from the engine's init scheme (core/src/recipes.cpp, weights.cpp, network.cpp): the same
# distributions and constants, from PyTorch's random stream, so the run is no longer the engine's
# step for step.


def layerscale_epsilon(blocks):
    return 0.1 if blocks <= 18 else 1e-5 if blocks <= 24 else 1e-6


def recipe_units(arch, blocks, per_block, mix_fraction):
    """Each unit's wiring as the engine's recipe() and block_wrapping() set it (Admin's alpha is
    profiled later, by profile_admin)."""
    N = blocks
    w = dict(skip=True, alpha=1.0, out="none", outer="none", in_scale=1.0, gate="none", gate_init=0.0, skip_normed=False)
    w["in"] = "none"
    early, early_blocks = None, 0
    if arch == "plain":
        w["skip"] = False
    elif arch in ("post_ln", "deepnorm", "admin"):
        w["outer"] = "layernorm"
        if arch == "deepnorm":
            w["alpha"] = (2.0 * N) ** 0.25
    elif arch == "post_rms":
        w["outer"] = "rmsnorm"
    elif arch in ("pre_ln", "gpt2", "lns", "dwa", "layerscale", "mix_ln"):
        w["in"] = "layernorm"
    elif arch == "pre_rms":
        w["in"] = "rmsnorm"
    elif arch == "attn_res":
        w["in"], w["skip"] = "rmsnorm", False
    elif arch in ("hyper", "mhc"):  # Pre-LN branches without a skip; the streams are the unit's (HyperUnit)
        w["in"], w["skip"] = "layernorm", False
    elif arch == "hybrid":  # the FFN's skip after its norm; attention's units are set below
        w["in"], w["skip_normed"] = "layernorm", True
    elif arch == "sandwich":
        w["in"] = w["out"] = "rmsnorm"
    elif arch == "dyt":
        w["in"] = "dyt"
    elif arch == "rezero":
        w["gate"] = "scalar"
    if arch == "layerscale":
        w["gate"], w["gate_init"] = "channel", layerscale_epsilon(N)
    if arch == "mix_ln":
        early = dict(w, **{"in": "none", "outer": "layernorm"})
        early_blocks = min(N, int(math.floor(mix_fraction * N + 1e-9)))
    units = []
    for l in range(1, N + 1):
        u = dict(early if l <= early_blocks else w)
        if arch == "lns":
            u["in_scale"] = 1.0 / math.sqrt(l)
        units += [dict(u) for _ in range(per_block)]
        if arch == "hybrid" and per_block == 2:  # HybridNorm's attention: h + attn(h), no norm around it
            units[-2] = dict(w, **{"in": "none", "skip_normed": False})
    return units


def branch_scales(arch, blocks, per_block):
    """The recipe's extra factor on each matrix: DeepNet's beta, GPT-2's 1/sqrt(N)."""
    s = dict(W1=1.0, W2=1.0, W_Q=1.0, W_K=1.0, W_V=1.0, W_O=1.0)
    if arch == "deepnorm":
        beta = (8.0 * blocks) ** -0.25
        s.update(W1=beta, W2=beta, W_V=beta, W_O=beta)
    elif arch == "gpt2":
        s.update(W2=1.0 / math.sqrt(blocks * per_block), W_O=1.0 / math.sqrt(blocks * per_block))
    return s


def param_place(name, depth, per_block):
    """(block, matrix) of an engine-named parameter, as network.cpp files them."""
    if name in ("embedding", "positions"):
        return 0, True
    if name in ("unembedding", "readout", "s_z") or name.endswith(".final"):
        return depth + 1, name in ("unembedding", "readout")
    index = int(name[name.index("[") + 1 : -1].split()[-1])
    if "[unit " in name:
        return (index - 1) // per_block + 1, False
    return index, name.startswith("W")


def hyper_init(key, k, n):
    """Unit k's Hyper-Connections weights at init (hyper.cpp): HC reads stream (k-1) mod n, mixes by
    the identity and writes 1 to every stream (the paper's Eq. 14); mHC's logits make the same
    within sigmoid(-8): +8 on that stream and -8 elsewhere, 0 on the mix's diagonal and -8 off it,
    0 for the write (2 sigmoid(0) = 1)."""
    home = (k - 1) % n
    eye = torch.eye(n, dtype=torch.float64)
    if key == "hc_read":
        return eye[home]
    if key == "hc_mix":
        return eye.flatten()
    if key == "hc_write":
        return torch.ones(n, dtype=torch.float64)
    if key == "mhc_pre":
        return MHC_INIT_LOGIT * (2 * eye[home] - 1)
    if key == "mhc_res":
        return (MHC_INIT_LOGIT * (eye - 1)).flatten()
    return torch.zeros(n, dtype=torch.float64)


@torch.no_grad()
def draw_init(net, arch, cfg, units, gen):
    """The engine's initial distributions, drawn with `gen` (float64, CPU), into net's parameters."""
    d, m, L = cfg["width"], cfg["expansion"] * cfg["width"], cfg["depth"]
    per_block = 2 if cfg["block"] == "transformer" else 1
    c = 2.0 if cfg["activation"] in ("relu", "gelu") else 1.0
    extra = branch_scales(arch, L, per_block)
    std = {
        "W1": math.sqrt(c / d),
        "W2": cfg["gain"] / math.sqrt(m),
        "W_Q": 1 / math.sqrt(d),
        "W_K": 1 / math.sqrt(d),
        "W_V": 1 / math.sqrt(d),
        "W_O": cfg["gain"] / math.sqrt(d),
        "embedding": math.sqrt(0.5),
        "positions": math.sqrt(0.5),
        "unembedding": 1 / math.sqrt(d),
        "readout": 1 / math.sqrt(d),
    }

    def base(shape):  # unit-variance entries: Gaussian, or an orthogonal matrix scaled by sqrt(max(rows, cols))
        if cfg["init"] != "orthogonal" or len(shape) != 2:
            return torch.randn(shape, generator=gen, dtype=torch.float64)
        g = torch.randn(max(shape), min(shape), generator=gen, dtype=torch.float64)
        q, r = torch.linalg.qr(g)
        q = q * torch.sign(torch.diagonal(r))
        q = q * math.sqrt(max(shape))
        return q if shape[0] >= shape[1] else q.T

    if arch == "ngpt":  # every weight 1 / sqrt(d) times its base (recipes.h's unit_vectors); normalized after
        std.update({k: 1 / math.sqrt(d) for k in ("W1", "W2", "W_Q", "W_K", "W_V", "W_O")})
    for name, p in net.engine_params().items():
        key = name.split("[")[0]
        if key in ("ngpt_alpha", "s_qk", "s_z"):  # nGPT's scaled parameters: stored 1 / sqrt(d)
            w = torch.full(p.shape, 1 / math.sqrt(d), dtype=torch.float64)
        elif key == "s_v":
            w = torch.ones(p.shape, dtype=torch.float64)
        elif key in std:
            w = base(tuple(p.shape)) * std[key] * extra.get(key, 1.0)
        elif key.startswith("gamma"):
            w = torch.ones(p.shape, dtype=torch.float64)
        elif key.startswith("beta"):
            w = torch.zeros(p.shape, dtype=torch.float64)
        elif key.startswith("alpha"):  # DyT's alpha
            w = torch.full(p.shape, cfg.get("dyt_alpha", DYT_ALPHA), dtype=torch.float64)
        elif key == "gate":
            k = int(name[name.index("unit ") + 5 : -1])
            w = torch.full(p.shape, units[k - 1]["gate_init"], dtype=torch.float64)
        elif key == "dwa":  # DenseFormer's weights: the block's own output, 1, the earlier ones 0
            w = torch.zeros(p.shape, dtype=torch.float64)
            w[-1] = 1.0
        elif key == "attn_res.query":  # Attention Residuals' pseudo-query: 0, uniform weights
            w = torch.zeros(p.shape, dtype=torch.float64)
        elif key == "attn_res.gain":
            w = torch.ones(p.shape, dtype=torch.float64)
        elif key in ("hc_read", "hc_mix", "hc_write", "mhc_pre", "mhc_res", "mhc_post"):
            w = hyper_init(key, int(name[name.index("unit ") + 5 : -1]), cfg.get("hc_streams", HC_STREAMS))
        else:
            raise SystemExit(f"resnorm_torch: no init for parameter {name}")
        p.copy_(w.to(p.device, p.dtype))


@torch.no_grad()
def profile_admin(net, shape, gen):
    """Admin's omegas (recipes.cpp, profile_admin_omegas): omega_1 = 1, then unit by unit
    omega_{k+1} = sqrt(omega_k^2 Var[h_{k-1}] + Var[f_k(h_{k-1})]), Var over all entries; the input
    h_0 of `shape` (B, T, d) has unit-Gaussian entries, as the engine's profile input has. BatchNorm
    (model.cpp use_batchnorm) takes the input's own statistics over every row, the running ones unmoved."""
    p = next(net.parameters())
    if hasattr(net, "rows"):
        net.rows.mode, net.rows.counted = "train", None
    h = torch.randn(shape, generator=gen, dtype=torch.float64).to(p.device, p.dtype)
    i = torch.arange(shape[1], device=p.device)
    mask = (i[None, :] <= i[:, None])[None, :, :].expand(shape[0], -1, -1)
    ratio = 1.0
    for blk in net.blocks:
        for unit in blk.units:
            unit.alpha = ratio
            h_next, u = unit(h, mask)
            ratio = math.sqrt(ratio * ratio * float(h.var(unbiased=False)) + float(u.var(unbiased=False)))
            h = h_next


def resized(run, width, depth):
    """RUN at other sizes: the config's width and depth, each unit's wiring from the recipe, no
    weights (the script draws them). The teacher task's inputs have the run's width: refused."""
    cfg = run["config"]
    if width != cfg["width"] and not run["model"]["language"]:
        raise SystemExit(
            f"resnorm_torch: --width {width}: the teacher task's inputs are {cfg['width']}-wide and the file "
            "ships them; the script has no port of the teacher generator (--depth works on every task)"
        )
    if cfg["block"] == "transformer" and width % cfg["heads"] != 0:
        raise SystemExit(f"resnorm_torch: --width {width} is not a multiple of the {cfg['heads']} heads")
    per_block = 2 if cfg["block"] == "transformer" else 1
    runs = [
        dict(r, units=recipe_units(r["arch"], depth, per_block, cfg["mix_fraction"]), params=None)
        for r in run["runs"]
    ]
    return dict(run, config=dict(cfg, width=width, depth=depth), runs=runs)


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
    # BatchNorm's rows (B, T): a sequence's own tokens; with its pads, every row up to the batch's longest
    own = torch.tensor(b["lengths"] if b.get("lengths") else [b["length"]] * B, device=device)
    out["counted"] = i[None, :] < own[:, None]
    out["counted_pads"] = (i < b["length"])[None, :].expand(B, T)
    return out


# ---- data-parallel training (torchrun) ------------------------------------------------------


class LossOnly(nn.Module):
    """The network's loss sum as the module's only output; the rest of its outputs kept in `rest`."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, batch):
        self.rest = self.net(batch)
        return self.rest[0]


def unreached(net, batch):
    """Whether the loss of one forward pass leaves a parameter without a gradient. DDP must then
    search the graph for such parameters at every step (find_unused_parameters), an extra traversal
    it otherwise skips; which parameters the loss reaches depends on the wiring, not on the data.
    The probe's gradients are dropped; BatchNorm (refused under torchrun) would move no statistics
    in eval mode."""
    mode, net.bn_mode = net.bn_mode, "eval"
    net(batch)[0].backward()
    net.bn_mode = mode
    params = list(net.parameters())
    missing = any(p.grad is None for p in params)
    for p in params:
        p.grad = None
    return missing


class Dist:
    """The processes of a `torchrun --nproc_per_node N` launch (one process without it).

    Each process holds the whole model and the whole data; at every step it takes its share of the
    batch (rows split as evenly as possible, in order), and DistributedDataParallel sums the
    gradients over the processes. Every process scales its loss so that the summed gradient is the
    gradient of the whole batch's mean loss: the step is the one-process step up to the order of
    the sums. The logged sums (loss, stream norms, gradients of the streams) are summed the same
    way; the held-out set is evaluated whole by every process. Rank 0 prints."""

    def __init__(self, device):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank = int(os.environ.get("RANK", "0"))
        self.device = device
        if self.world > 1:
            import torch.distributed as dist

            self.dist = dist
            dist.init_process_group("nccl" if device.type == "cuda" else "gloo")

    def sum(self, values):
        """Each value summed over the processes (floats, in float64)."""
        if self.world == 1:
            return list(values)
        t = torch.tensor(values, dtype=torch.float64, device=self.device)
        self.dist.all_reduce(t)
        return t.tolist()

    def max(self, value):
        """The largest of a float over the processes (a NaN on any process gives NaN)."""
        if self.world == 1:
            return value
        t = torch.tensor([value], dtype=torch.float64, device=self.device)
        bad = torch.tensor([0.0 if math.isfinite(value) or math.isinf(value) else 1.0], device=self.device)
        self.dist.all_reduce(t, op=self.dist.ReduceOp.MAX)
        self.dist.all_reduce(bad)
        return float("nan") if float(bad) > 0 else float(t)

    def shard(self, b):
        """This process's rows of batch b; `scored` stays the whole batch's (the mean's divisor)."""
        if self.world == 1:
            return b
        lo = b["size"] * self.rank // self.world
        hi = b["size"] * (self.rank + 1) // self.world
        out = dict(b, size=hi - lo)
        for k in ("tokens", "targets", "x", "y", "mask", "counted", "counted_pads"):
            if k in b:
                out[k] = b[k][lo:hi]
        return out

    def wrap(self, net, batch):
        """What a training step calls: batch -> the network's outputs; through DistributedDataParallel
        with several processes (which sees only the loss: the logged tensors stay out of its graph).
        `batch`, one training batch, finds whether the loss leaves some parameter unreached."""
        if self.world == 1:
            return net
        from torch.nn.parallel import DistributedDataParallel

        ids = [self.device.index] if self.device.type == "cuda" else None
        ddp = DistributedDataParallel(LossOnly(net), device_ids=ids, find_unused_parameters=unreached(net, batch))

        def forward(batch):
            loss_sum = ddp(batch)
            return (loss_sum,) + ddp.module.rest[1:]

        return forward

    def close(self):
        if self.world > 1:
            self.dist.destroy_process_group()


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

    def __init__(self, cfg, params, spheres=None):
        self.cfg, self.params, self.t = cfg, params, 0  # params: [(Parameter, is_matrix)]
        self.m = [torch.zeros_like(p) for p, _ in params]
        self.v = [torch.zeros_like(p) for p, _ in params]
        # weight decay on matrices, but not on nGPT's, kept at unit norm (spheres: each one's axis or None)
        spheres = spheres or [None] * len(params)
        self.decays = [matrix and axis is None for (_, matrix), axis in zip(params, spheres)]

    @torch.no_grad()
    def update(self, lr):
        c = self.cfg
        self.t += 1
        b1, b2, wd = c["beta1"], c["beta2"], c["weight_decay"]
        c1, c2 = 1.0 - b1**self.t, 1.0 - b2**self.t
        for (p, _), decays, m, v in zip(self.params, self.decays, self.m, self.v):
            l2 = wd if decays and c["optimizer"] != "adamw" else 0.0
            decoupled = wd if decays and c["optimizer"] == "adamw" else 0.0
            g = p.grad + l2 * p
            if c["optimizer"] == "sgd":
                m.copy_(c["momentum"] * m + g)
                p.sub_(lr * m)
                continue
            m.copy_(b1 * m + (1.0 - b1) * g)
            v.copy_(b2 * v + (1.0 - b2) * g * g)
            p.copy_(p - lr * ((m / c1) / (torch.sqrt(v / c2) + c["eps"]) + decoupled * p))


def sphere_axis(arch, name):
    """nGPT's vectors along the embedding dimension (network.cpp's sphere_axis): "cols" of W_Q, W_K,
    W_V, W1 and the unembedding, "rows" of W_O, W2, the embedding and the positions; None otherwise."""
    if arch != "ngpt":
        return None
    if name.split("[")[0] in ("W_Q", "W_K", "W_V", "W1") or name == "unembedding":
        return "cols"
    if name.split("[")[0] in ("W_O", "W2") or name in ("embedding", "positions"):
        return "rows"
    return None


@torch.no_grad()
def normalize_sphere(params, spheres):
    """nGPT: every such vector back at unit norm (after each update, and at init)."""
    for (p, _), axis in zip(params, spheres):
        if axis is not None:
            p.copy_(unit_norm(p, dim=1 if axis == "rows" else 0))


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
    def __init__(self, arch, run, data, dtype, device, steps, dist=None):
        self.arch, self.cfg, self.run, self.steps = arch, run["config"], run, steps
        self.train_batches, self.heldout = data
        self.dist = dist if dist is not None else Dist(device)
        self.net = Network(arch, run).to(device, dtype)
        named = self.net.engine_params()
        shipped = next(r for r in run["runs"] if r["arch"] == arch)["params"]
        if shipped is None:  # other sizes than the engine's: the script's own init
            self.own_init(named, next(r for r in run["runs"] if r["arch"] == arch)["units"])
            return
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
        self.spheres = [sphere_axis(arch, p["name"]) for p in shipped]
        self.start()

    def own_init(self, named, units):
        gen = torch.Generator().manual_seed(self.run["init_seed"])
        draw_init(self.net, self.arch, self.cfg, units, gen)
        if self.arch == "admin":  # the engine's profile pass over one pass's rows: one sequence, or the batch's
            # rows (MLP teacher blocks, and every block with BatchNorm, whose pass is the whole batch)
            b, d = self.train_batches[0], self.cfg["width"]
            T = b["mask"].shape[-1]
            whole = (not self.net.language and self.cfg["block"] == "mlp") or bool(self.net.batchnorms())
            profile_admin(self.net, (b["size"], T, d) if whole else (1, T, d), gen)
        per_block = 2 if self.cfg["block"] == "transformer" else 1
        self.params, self.blocks_of = [], []
        for name, p in named.items():
            block, matrix = param_place(name, self.cfg["depth"], per_block)
            self.params.append((p, matrix))
            self.blocks_of.append(block)
        self.spheres = [sphere_axis(self.arch, name) for name in named]
        normalize_sphere(self.params, self.spheres)  # nGPT's weights on the sphere at init
        self.start()

    def start(self):
        self.opt = Optimizer(self.cfg, self.params, self.spheres)
        self.model = self.dist.wrap(self.net, self.dist.shard(self.train_batches[0]))  # DDP with several processes
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

    def attn_res_weights(self):
        """Attention Residuals' weights averaged over every held-out token (a sequence's pads left
        out): row k - 1 holds unit k's a_{k,0..k} (Block AttnRes: over h_0 and blocks 1..B(k)), as the
        engine's summary writes them."""
        sums, tokens = None, 0
        with torch.no_grad():
            for b in self.heldout:
                self.net(b)
                own = b["counted"] if self.net.language else torch.ones(b["size"], 1, dtype=torch.bool)
                tokens += int(own.sum())
                if sums is None:  # a row per op over its sources: k + 1 (Full), or h_0 and blocks 1..B(k)
                    sums = [[0.0] * op.last.shape[0] for op in self.net.attn_res]
                for k, op in enumerate(self.net.attn_res, start=1):
                    for i in range(op.last.shape[0]):
                        sums[k - 1][i] += float(op.last[i][own.to(op.last.device)].sum())
        return [[x / tokens for x in row] for row in sums]

    def heldout_loss(self, skip_block=0, mode="eval"):
        """The held-out set's mean loss, BatchNorm in `mode` (the engine's rests in eval mode between passes)."""
        total, correct, scored, first = 0.0, 0, 0, None
        self.net.bn_mode = mode
        with torch.no_grad():
            for b in self.heldout:
                loss, f, top, _, _, c = self.net(b, skip_block)
                total += float(loss) / b["scored"] * b["scored"]
                correct += c
                scored += b["scored"]
                if first is None:
                    first = (f.reshape(b["size"], -1), top.reshape(b["size"], -1))
        self.net.bn_mode = "eval"
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
            full = self.train_batches[t - 1]
            batch = self.dist.shard(full)
            world = self.dist.world
            for p, _ in self.params:
                p.grad = None
            self.net.bn_mode = "train_update"  # the batch's statistics, the running ones moved toward them
            loss_sum, _, _, streams, sums, _ = self.model(batch)
            self.net.bn_mode = "eval"
            bn = self.net.batchnorms() if logged else []
            bn_dist = ([n.mean_distance for n in bn], [n.var_distance for n in bn])
            for h in streams:
                h.retain_grad()
            loss = loss_sum / full["scored"]
            # DDP averages the processes' gradients: world x each share's part of the mean sums them
            (loss * world if world > 1 else loss).backward()
            for p, _ in self.params:
                if p.grad is None:  # a parameter the loss does not reach: its gradient is 0, as the engine's
                    p.grad = torch.zeros_like(p)
            log = {"step": t}
            if logged:  # the largest attention logit of this step's batch, over every block (none for MLP blocks)
                att = [m.max_logit for m in self.net.modules() if isinstance(m, CausalSelfAttention)]
                top = float("nan") if not att or any(math.isnan(a) for a in att) else max(att)
                log["max_logit"] = self.dist.max(top) if att else top
                # the stream mixing this batch ran with, before the update (the engine's hc_gain_fwd, _bwd)
                log["hc_gain_fwd"], log["hc_gain_bwd"] = composite_gain(self.net)
            train_loss = float(loss) if world == 1 else self.dist.sum([float(loss_sum)])[0] / full["scored"]
            grad_norm, stream_rms, w_grad, contribution = [], [], [], []
            if logged:
                rows = full["size"] * full["length"]
                g_sq, h_sq = [], []
                for h in streams:
                    g = h.grad if h.grad is not None else torch.zeros_like(h)
                    g_sq.append(float((g * g).sum()) / (world * world))  # the share's gradient was scaled by world
                    h_sq.append(float((h * h).sum()))
                g_sq, h_sq = self.dist.sum(g_sq), self.dist.sum(h_sq)
                grad_norm = [math.sqrt(q) for q in g_sq]
                stream_rms = [math.sqrt(q / (rows * self.cfg["width"])) for q in h_sq]
                per_unit = unit_sums(sums)
                flat = self.dist.sum([x for pair in per_unit for x in pair])
                contribution = self.contributions_of(list(zip(flat[0::2], flat[1::2])))
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
                logs.append(self.finish(log, grad_norm, stream_rms, w_grad, [], contribution, t, bn_dist))
                break
            saved = [
                (p.detach().clone(), blk)
                for (p, matrix), blk in zip(self.params, self.blocks_of)
                if logged and matrix and 1 <= blk <= L
            ]
            self.opt.update(lr)
            normalize_sphere(self.params, self.spheres)  # nGPT: its weights back on the sphere
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
            if self.net.batchnorms():  # the held-out set with its batches' own statistics, and each sequence alone
                log["heldout_loss_train_mode"] = self.heldout_loss(mode="train")[0]
                log["heldout_loss_one_seq"] = self.heldout_loss(mode="sequence")[0]
            nonfinite = None
            if not math.isfinite(held):
                self.stopped = True
                nonfinite = t
            logs.append(
                self.finish(log, grad_norm, stream_rms, w_grad, update_ratio, contribution, nonfinite, bn_dist)
            )
        return logs

    def finish(self, log, grad_norm, stream_rms, w_grad, update_ratio, contribution, nonfinite, bn_dist):
        nan = float("nan")
        for k in ("heldout_loss", "heldout_accuracy", "output_change", "top_cosine", "max_logit", "hc_gain_fwd", "hc_gain_bwd"):
            log.setdefault(k, nan)
        # eval mode is heldout_loss; without BatchNorm (or after a non-finite step) the three modes are one
        log["heldout_loss_eval_mode"] = log["heldout_loss"]
        for k in ("heldout_loss_train_mode", "heldout_loss_one_seq"):
            log.setdefault(k, log["heldout_loss"])
        log.update(
            grad_norm=grad_norm,
            stream_rms=stream_rms,
            w_grad_norm=w_grad,
            update_ratio=update_ratio,
            contribution=contribution,
            bn_mean_distance=bn_dist[0],
            bn_var_distance=bn_dist[1],
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


def main(run, argv=None, keyed=False, dist=None, close=True):
    """Trains RUN's architectures and prints the engine's lines. keyed: each run's key (RUN's "runs"
    entries) on every line, for a file of several runs (main_runs); dist and close: the processes'
    group, shared by main_runs's calls. Returns the group."""
    ap = argparse.ArgumentParser(description="Trains the exported resnorm run in PyTorch.")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    ap.add_argument("--dtype", default="float64", choices=["float64", "float32"])
    ap.add_argument("--steps", type=int, default=None, help="train fewer steps than the run's")
    ap.add_argument("--json", action="store_true", help="print the lines of `resnorm train --json`")
    ap.add_argument("--width", type=int, default=None, help="another width: the script's own init (see Scale out)")
    ap.add_argument("--depth", type=int, default=None, help="another depth: the script's own init")
    ap.add_argument("--own-init", action="store_true", help="the script's own init even at the run's sizes")
    ap.add_argument("--init-seed", type=int, default=None, help="the seed of the script's own init (the run's seed)")
    args = ap.parse_args(argv)
    cfg = run["config"]
    engine_sizes = {"engine_width": cfg["width"], "engine_depth": cfg["depth"]}
    width = cfg["width"] if args.width is None else args.width
    depth = cfg["depth"] if args.depth is None else args.depth
    own = args.own_init or width != cfg["width"] or depth != cfg["depth"]
    if width < 1 or depth < 1:
        raise SystemExit("resnorm_torch: --width and --depth must be at least 1")
    if own:
        run = resized(run, width, depth)
        run["init_seed"] = cfg["seed"] if args.init_seed is None else args.init_seed
        notice = (
            f"resnorm_torch: width {width}, depth {depth} (the engine's run: {cfg['width']}, {cfg['depth']}): the "
            f"script's own init (seed {run['init_seed']}), the run's data; not step-for-step comparable to the engine"
        )
        cfg = run["config"]
    steps = cfg["steps"] if args.steps is None else args.steps
    shipped = len(run["train_batches"])
    if not 1 <= steps <= shipped:
        raise SystemExit(f"resnorm_torch: --steps {steps}: the file holds the data of steps 1..{shipped}")
    dtype = torch.float64 if args.dtype == "float64" else torch.float32
    torch.set_default_dtype(dtype)
    device = torch.device(args.device)
    if device.type == "cuda" and "LOCAL_RANK" in os.environ:  # torchrun: one GPU per process
        device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
        torch.cuda.set_device(device)
    if int(os.environ.get("WORLD_SIZE", "1")) > 1 and cfg.get("norm") == "batchnorm":
        raise SystemExit(
            "resnorm_torch: BatchNorm's statistics are over the whole batch, one process's share would have its own: "
            "run BatchNorm in one process"
        )
    dist = dist if dist is not None else Dist(device)
    key = {r["arch"]: r["key"] for r in run["runs"]} if keyed else {}
    smallest = min(b["size"] for b in run["train_batches"][:steps])
    if dist.world > smallest:
        raise SystemExit(f"resnorm_torch: {dist.world} processes for batches of {smallest} rows: at most one per row")
    out = sys.stdout if dist.rank == 0 else open(os.devnull, "w")
    if own and dist.rank == 0:
        print(notice, file=sys.stderr if args.json else out)
    model = run["model"]
    data = (
        [load_batch(b, model, dtype, device) for b in run["train_batches"][:steps]],
        [load_batch(b, model, dtype, device) for b in run["heldout"]],
    )
    archs = [r["arch"] for r in run["runs"]]
    trainers = [Trainer(a, run, data, dtype, device, steps, dist) for a in archs]
    chance, optimal = run["chance_loss"], run["optimal_loss"]
    if not args.json:
        print(f"train {run['config_text']}\nchance loss {chance:.4f}, optimal loss {optimal:.4f}", file=out)
        print(
            "%8s %-10s %10s %10s %10s %8s %10s %10s %8s"
            % ("step", "arch", "lr", "train", "held-out", "acc", "grad norm", "out chg", "cosine"),
            file=out,
        )
    last = [None] * len(trainers)
    done = 0
    while done < steps:
        for i, tr in enumerate(trainers):
            for g in tr.step(cfg["log_every"]):
                last[i] = g
                if args.json:
                    tag = {"key": key[tr.arch]} if keyed else {}
                    print(json.dumps(clean({**tag, "arch": tr.arch, **g})), file=out)
                    continue
                print(
                    "%8d %-10s %10.3e %10.4f %10.4f %8.3f %10.3e %10.3e %8.3f%s"
                    % (
                        g["step"],
                        key.get(tr.arch, tr.arch),
                        g["lr"],
                        g["train_loss"],
                        g["heldout_loss"],
                        g["heldout_accuracy"],
                        g["grad_norm_global"],
                        g["output_change"],
                        g["top_cosine"],
                        "  non-finite: stopped" if g["first_nonfinite"] is not None else "",
                    ),
                    file=out,
                )
        done += cfg["log_every"]
    summary = {}
    for i, tr in enumerate(trainers):
        g, les = last[i], tr.lesion()
        if not args.json:
            inc = sorted(les["increase"])
            mid = len(inc) // 2
            median = inc[mid] if len(inc) % 2 else 0.5 * (inc[mid - 1] + inc[mid])
            name = key.get(tr.arch, tr.arch)
            print(
                "%-10s %s after %d steps: held-out loss %.4f; lesion: one block skipped raises it by %.4f (median), "
                "%.4f (max)" % (name, outcome(g, chance, optimal), g["step"], g["heldout_loss"], median, max(inc)),
                file=out,
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
        if tr.net.attn_res is not None:
            summary[tr.arch]["attn_res"] = tr.attn_res_weights()
    if args.json:
        doc = {"config": cfg, "chance_loss": chance, "optimal_loss": optimal, "summary": summary}
        if keyed:
            doc["keys"] = key
            doc["labels"] = {r["arch"]: r["label"] for r in run["runs"]}
            doc["group"], doc["groups"] = run["place"]
        if own:
            doc["own_init"] = {"seed": run["init_seed"], **engine_sizes}
        print(json.dumps(clean(doc)), file=out)
    out.flush()
    if close:
        dist.close()
    return dist


def main_runs(doc, argv=None):
    """A file of several settings' runs (a lab claim whose runs differ in more than the architecture):
    each group of RUN["groups"] trained in turn with its data (RUN["data"]), every line with its run's
    key, each group's summary line with the runs' keys and labels and its place (group, groups)."""
    dist = None
    for i, group in enumerate(doc["groups"]):
        data = doc["data"][group["data"]]
        place = [i, len(doc["groups"])]
        run = dict(group, train_batches=data["train_batches"], heldout=data["heldout"], place=place)
        dist = main(run, argv, keyed=True, dist=dist, close=False)
    dist.close()
