// The cost of a call from its shapes (limits.h): the bytes mirror the sizes
// Model::configure, Mlp, Attention, Norm and WeightBank allocate; the work
// counts each kernel's multiply-adds as two operations.
#include "resnorm/limits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "resnorm/model.h"
#include "resnorm/paths.h"
#include "resnorm/recipes.h"

namespace resnorm {
namespace {

// Random normals and Householder QR run at a fraction of a GEMM's rate; these
// weights make their work comparable (measured natively, bench/run.js).
constexpr double kNormalWork = 80;  // per N(0, 1) draw (splitmix64 + Box-Muller, in double)
constexpr double kQrWork = 1;       // per operation of QR and of forming Q
constexpr double kAllocBytes = 32;  // malloc's bookkeeping per buffer
constexpr double kMargin = 1.02;    // what the sizes above leave out (alignment, small vectors)
// A unit's own object (its three norms, caches and gate as handles, whichever it uses): the units are
// held by value, so every member a norm kind adds costs this much in every unit of every model.
constexpr double kUnitObject = sizeof(Unit<float>);
static_assert(sizeof(Unit<float>) == sizeof(Unit<double>), "a unit's object does not depend on the scalar");

// What the engine holds for the weight bank of `cfg.depth` layers.
double bank_bytes(const Config& c, int sb) {
  const double d = c.width, m = c.hidden();
  return c.depth * c.weights_per_block() * sb + 16.0 * std::max(d * m, d * d);  // + one matrix in double
}

// Generating the weight bank (charged in full: the first call of a seed pays it).
double bank_work(const Config& c) {
  const double d = c.width, m = c.hidden();
  double normals = 2 * d * m + (c.block == Block::transformer ? 4 * d * d : 0.0);
  double work = c.depth * normals * kNormalWork;
  if (c.init == Init::orthogonal) {
    const double big = std::max(d, m), small = std::min(d, m);
    const double qr = 4 * big * small * small;  // QR, then the thin Q
    work += c.depth * kQrWork * (2 * qr + (c.block == Block::transformer ? 4 * 4 * d * d * d : 0.0));
  }
  return work;
}

double arch_factor(Arch a) { return a == Arch::admin ? 1.5 : 1.0; }  // Admin's profiling forward

std::string human_bytes(double b) {
  char buf[32];
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GB", b / (1024.0 * 1024 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.0f MB", std::ceil(b / (1024.0 * 1024)));
  return buf;
}

// The largest depth in 1..cfg.depth for which `fits` holds, or 0.
template <class Fits>
int largest_depth(Config c, Fits fits) {
  int lo = 0, hi = c.depth;
  while (lo < hi) {
    c.depth = (lo + hi + 1) / 2;
    if (fits(c))
      lo = c.depth;
    else
      hi = c.depth - 1;
  }
  return lo;
}

// One model's buffers for these sizes: `unit_norms` norms in each of its
// depth * P units, `final_norms` (0 or 1) after the stack, a gate of
// `gate_entries` (0, 1 or d) in each unit, the buffers of dense averaging
// and of Attention Residuals;
// train: a training stack (model.h), with GELU's cdf instead of the Gram
// scratch (its weight gradients are the parameters' own).
double stack_bytes(double T, double d, double m, double H, int depth, Block block, int unit_norms, int final_norms,
                   double gate_entries, bool dense, bool attn_res, int sb, bool train, double S = 0) {
  if (S <= 0) S = T;  // rows of a segment (training; attention within each)
  const int P = block == Block::transformer ? 2 : 1;
  const double U = double(depth) * P;
  const double norm = (4 * d + 2 * T) * sb + 6 * kAllocBytes;
  const double gate = gate_entries > 0 ? (T * d + 2 * gate_entries) * sb + 3 * kAllocBytes : 0.0;
  const double unit = 4 * T * d * sb + unit_norms * norm + gate + 4 * kAllocBytes + kUnitObject;
  const double mlp = train ? 4 * T * m * sb + 4 * kAllocBytes
                           : (3 * T * m + 2 * T * T) * sb + (T * (d + m) + 2 * T * T) * 8 + 6 * kAllocBytes;
  const double attn = (4 * T * d + H * T * (train ? S : T)) * sb + 5 * kAllocBytes;
  double bytes = 2 * (U + 1) * T * d * sb + 9 * T * d * sb + final_norms * norm;
  // y_j and dy_j (L + 1, T, d), the weights and their gradients.
  if (dense) bytes += 2 * (depth + 1.0) * T * d * sb + depth * (depth + 3.0) * sb + 4 * kAllocBytes;
  // Attention Residuals (attn_res.h): v_i, dv_i, n_i (U + 1, T, d), r_i (U + 1, T),
  // the weights (U (U + 3) / 2, T), queries, gains and their gradients (U, d), the scratch.
  if (attn_res)
    bytes +=
        (3 * (U + 1) * T * d + (U + 1) * T + 0.5 * U * (U + 3) * T + 4 * U * d) * sb + (U + 1) * 8 + 10 * kAllocBytes;
  bytes += U * unit + depth * mlp;
  if (block == Block::transformer) {
    bytes += depth * attn;
    // the shared attention scratch
    bytes += train ? (9 * T * d + S * S) * sb : (9 * T * d + 3 * T * T) * sb + (2 * T * d + 2 * T * T) * 8;
  }
  return bytes + 12 * (depth + 1) * 8.0;  // the result's arrays
}

}  // namespace

// One model (one architecture) configured for cfg.
double model_bytes(const Config& c, Arch arch, int sb, bool train, int segment) {
  const Recipe rec = recipe(arch, c.depth, c.sublayers_per_block());
  // Mix-LN's early blocks hold as many norms as the others (one each); HybridNorm's attention
  // units hold none, counted as the FFN's one (an upper bound).
  const int unit_norms =
      (rec.wrap.in != NormKind::none) + (rec.wrap.out != NormKind::none) + (rec.wrap.outer != NormKind::none);
  const double gate = rec.wrap.gate == Gate::scalar ? 1.0 : rec.wrap.gate == Gate::channel ? double(c.width) : 0.0;
  // DyT holds its alpha and its gradient besides a norm's buffers: one per unit, one in the final norm.
  const double dyt_norms = rec.wrap.in == NormKind::dyt ? double(c.depth) * c.sublayers_per_block() + 1 : 0.0;
  // QK-norm: per attention sublayer the raw Q and K (T, d), four per-row statistics (heads T),
  // and five (dh) vectors: the gains, their gradients and a zero bias.
  const double T = c.tokens, d = c.width;
  const bool transformer = c.block == Block::transformer;
  const double qk = transformer && (c.qk_norm != QkNorm::none || rec.qkv_norm)
                        ? c.depth * ((2 * T * d + 4 * c.heads * T + 5 * d / c.heads) * sb + 11 * kAllocBytes)
                        : 0.0;
  // Hyper-Connections (hyper.h): the n streams and their gradients at U + 1
  // boundaries, each unit's x and y (T, d), two (T, d) scratches; per unit the
  // weights, their gradients and the effective ones (3 (2 n + n^2)), mHC's
  // Sinkhorn iterates (2 iters + 1) n^2.
  double hyper = 0;
  if (rec.hyper != HyperKind::none) {
    const double n = c.hc_streams, U = double(c.depth) * c.sublayers_per_block();
    const double iterates = rec.hyper == HyperKind::mhc ? (2.0 * c.sinkhorn_iters + 1) * n * n : 0.0;
    hyper = (2 * (U + 1) * n * T * d + 2 * U * T * d + 2 * T * d + U * (3 * (2 * n + n * n) + iterates) + 4 * n +
             3 * n * n) *
                sb +
            18 * kAllocBytes;
  }
  // Block AttnRes (attn_res.h): the slots p_i (U + 1, T, d) beside the outputs; its weights are
  // fewer than Full's, which the estimate counts.
  const double U = double(c.depth) * c.sublayers_per_block();
  const double ar_blocks =
      rec.attn_res && c.attn_res_blocks > 0 && c.attn_res_blocks < U ? (U + 1) * T * d * sb + kAllocBytes : 0.0;
  // HybridNorm's V-norm likewise: the raw V (T, d), two per-row statistics, the gain and its gradient.
  const double vn = transformer && rec.qkv_norm
                        ? c.depth * ((T * d + 2 * c.heads * T + 2 * d / c.heads) * sb + 5 * kAllocBytes)
                        : 0.0;
  // nGPT (ngpt.h): per unit alpha (T, d), alpha_s and its gradient (d), three row norms (T); per
  // attention the raw Q and K (T, d), their row norms (heads T), s and its gradient (d); per MLP
  // x W1 before s_v (T, m), s_v and its gradient (m).
  double ngpt = 0;
  if (rec.ngpt) {
    const double U = double(c.depth) * c.sublayers_per_block(), m = c.hidden();
    ngpt = U * ((T * d + 2 * d + 3 * T) * sb + 6 * kAllocBytes) + c.depth * ((T * m + 2 * m) * sb + 3 * kAllocBytes);
    if (transformer) ngpt += c.depth * ((2 * T * d + 2 * c.heads * T + 2 * d) * sb + 6 * kAllocBytes);
  }
  return stack_bytes(c.tokens, c.width, c.hidden(), c.heads, c.depth, c.block, unit_norms,
                     c.final_norm != NormKind::none, gate, rec.dense_average, rec.attn_res, sb, train, segment) +
         dyt_norms * (2 * sb + 2 * kAllocBytes) + qk + vn + hyper + ngpt + ar_blocks;
}

double capacity_bytes(const Capacity& k, int sb) {
  return stack_bytes(k.tokens, k.width, k.hidden, k.heads, k.depth, k.block, 3, 1, k.width, true, true, sb, false);
}

// Dense averaging's forward and backward (model.h): L (L + 3) / 2 weights,
// each an axpy of T d entries forward, a dot product and an axpy backward.
// Hyper-Connections' streams (hyper.h), per unit: the read, mix, write and
// mean forward, their backward (dy, db, dM, dH, da, dH += a dx, the sum),
// about 2 (3 n^2 + 8 n) T d; mHC's Sinkhorn iterations are n^2 each.
double mix_work(const Config& c, Arch a) {
  const Recipe rec = recipe(a, c.depth, c.sublayers_per_block());
  if (rec.hyper != HyperKind::none) {
    const double n = c.hc_streams, U = double(c.depth) * c.sublayers_per_block();
    const double sinkhorn = rec.hyper == HyperKind::mhc ? 8.0 * c.sinkhorn_iters * n * n : 0.0;
    return U * (2.0 * (3 * n * n + 8 * n) * c.tokens * c.width + sinkhorn);
  }
  if (!rec.dense_average) return 0;
  return 0.5 * c.depth * (c.depth + 3.0) * 6.0 * c.tokens * c.width;
}

// Attention Residuals' forward and backward (attn_res.h): op k over k + 1
// sources of T d entries, each a logit (2 d), an axpy (2 d) forward, and a
// dot product, the logit again, and the value, key and query updates backward
// (about 14 d); and every source's normalization (3 d).
double attn_res_work(const Config& c, Arch a) {
  if (!recipe(a, c.depth, c.sublayers_per_block()).attn_res) return 0;
  const double U = double(c.depth) * c.sublayers_per_block();
  return (0.5 * U * (U + 3.0) * 18.0 + 3.0 * (U + 1)) * c.tokens * c.width;
}

// Forward and backward of one architecture's stack, with the weight-gradient norms.
double stack_work(const Config& c, int segment) {
  const double T = c.tokens, d = c.width, m = c.hidden(), S = segment > 0 ? segment : T;
  const double mlp = 8 * T * d * m + 4 * T * S * (d + m) + 40 * T * d;
  const double attn = c.block == Block::transformer ? 32 * T * d * d + 24 * T * S * d + 40 * T * d : 0.0;
  return c.depth * (mlp + attn);
}

Cost simulate_cost(const Config& c, int sb) {
  Cost k;
  k.bytes = bank_bytes(c, sb);
  k.work = bank_work(c);
  for (Arch a : c.archs) {
    k.bytes += model_bytes(c, a, sb);
    k.work += arch_factor(a) * stack_work(c) + mix_work(c, a) + attn_res_work(c, a);
  }
  k.bytes *= kMargin;
  return k;
}

Cost paths_cost(const Config& c, int samples, int sb) {
  Cost k = simulate_cost(c, sb);
  const int P = c.sublayers_per_block();
  const int U = c.depth * P;
  const double T = c.tokens, d = c.width, m = c.hidden();
  // A path through k branches runs k branch backwards (a unit's share of
  // stack_work, without the weight-gradient norms) and U - k skips.
  const double branch = (4 * T * d * m + (P == 2 ? 16 * T * d * d + 16 * T * T * d : 0.0)) / P + 20 * T * d;
  double paths = 0, count = 1;  // C(U, j), built up j by j
  for (int j = 0; j <= U; ++j) {
    if (j > 0) count = count * (U - j + 1) / j;
    paths += std::min(count, double(samples)) * (j * branch + (U - j) * 2 * T * d);
  }
  k.work += c.archs.size() * paths;
  k.bytes += c.archs.size() * 5.0 * (U + 1) * 8 + 2.0 * U * 4;
  return k;
}

bool fits(const Cost& k, double held) { return k.bytes + held <= kMemoryBudget && k.work <= kWorkBudget; }

Status check_cost(const Cost& k, const char* field, double value, double max_fit, double held) {
  if (fits(k, held)) return Status::Ok();
  auto num = [](double v, const char* f) {
    char buf[32];
    std::snprintf(buf, sizeof buf, f, v);
    return std::string(buf);
  };
  std::string need;
  if (k.bytes + held > kMemoryBudget)
    need = held > 0 ? human_bytes(k.bytes) + " of memory, and its engine holds " + human_bytes(held) +
                          " already (one engine may hold " + human_bytes(kMemoryBudget) + " in all)"
                    : human_bytes(k.bytes) + " of memory (one call may use " + human_bytes(kMemoryBudget) + ")";
  if (k.work > kWorkBudget)
    need += (need.empty() ? "" : " and ") + num(k.work / kWorkBudget, "%.1f") + " times the work one call may do";
  const std::string others = held > 0 ? " and what its engine holds" : "";
  const std::string allowed = max_fit >= 1 ? "allowed 1.." + num(max_fit, "%.10g") + " with the other settings" + others
                                           : "no value fits with the other settings" + others;
  return {field, std::string(field) + ": " + num(value, "%.10g") + " needs " + need + " (" + allowed + ")",
          max_fit >= 1 ? max_fit : 0};
}

Status check_simulate(const Config& cfg, double held) {
  const auto fit = [held](const Config& c) { return fits(simulate_cost(c), held); };
  Status st = validate(cfg);
  if (!st.ok() && st.field == "depth" && st.max_fit >= 1) {
    // The weight cap: its deepest stack may still be over a budget; then the
    // refusal names the deepest depth that fits both.
    Config at = cfg;
    at.depth = static_cast<int>(st.max_fit);
    if (fit(at)) return st;
    return check_cost(simulate_cost(cfg), "depth", cfg.depth, largest_depth(at, fit), held);
  }
  if (!st.ok()) return st;
  const Cost k = simulate_cost(cfg);
  if (fits(k, held)) return Status::Ok();
  return check_cost(k, "depth", cfg.depth, largest_depth(cfg, fit), held);
}

Status check_paths(const Config& cfg, int samples, double held) {
  Status st = check_simulate(cfg, held);
  if (!st.ok()) return st;
  if (samples < 1 || samples > kMaxPathSamples)
    return {"samples", "samples: " + std::to_string(samples) + " is out of range (allowed 1.." +
                           std::to_string(kMaxPathSamples) + ")"};
  const int P = cfg.sublayers_per_block();
  if (cfg.depth * P > kMaxPathUnits)
    return {"depth", "depth: " + std::to_string(cfg.depth) + " is out of range for path sampling (allowed 1.." +
                         std::to_string(kMaxPathUnits / P) + " with " + name(cfg.block) + " blocks)"};
  const Cost k = paths_cost(cfg, samples);
  if (fits(k, held)) return Status::Ok();
  int lo = 0, hi = samples;  // the most samples that fit
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (fits(paths_cost(cfg, mid), held))
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo >= 1) return check_cost(k, "samples", samples, lo, held);
  // Not even one sample per length fits: name the depth that would.
  const int fit = largest_depth(cfg, [samples, held](const Config& c) { return fits(paths_cost(c, samples), held); });
  return check_cost(k, "depth", cfg.depth, fit, held);
}

}  // namespace resnorm
