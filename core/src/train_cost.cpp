// What training costs, from the shapes alone (see train_cost.h).
#include "resnorm/train_cost.h"

#include "resnorm/recipes.h"
#include "resnorm/tasks.h"

namespace resnorm {
namespace {

// Entries the parameters of one arch hold, from the shapes (as Network allocates them).
double param_count(const TrainConfig& tc, Arch arch, const Config& cfg, int T) {
  const double d = tc.width;
  double n = tc.depth * cfg.weights_per_block();
  // BatchNorm holds gamma and beta and, counted here too, its running mean and variance; DyT gamma, beta and alpha.
  auto norm = [&](NormKind k) {
    if (k != NormKind::none && batchnorm(tc)) return 4 * d;
    return k == NormKind::layernorm ? 2 * d : k == NormKind::rmsnorm ? d : k == NormKind::dyt ? 2 * d + 1 : 0.0;
  };
  const Recipe rec = recipe(arch, tc.depth, cfg.sublayers_per_block(), tc.mix_fraction);
  const Wrapping& w = rec.wrap;  // Mix-LN's early blocks hold as many norms
  const double gate = w.gate == Gate::scalar ? 1.0 : w.gate == Gate::channel ? d : 0.0;
  const double unit_params = norm(w.in) + norm(w.out) + norm(w.outer) + gate;
  if (rec.split_attention && tc.block == Block::transformer) {  // HybridNorm: attention's wrapping apart
    const Wrapping& a = rec.attn;
    n += double(tc.depth) * (unit_params + norm(a.in) + norm(a.out) + norm(a.outer));
  } else {
    n += double(tc.depth) * cfg.sublayers_per_block() * unit_params;
  }
  if (rec.dense_average) n += 0.5 * tc.depth * (tc.depth + 3.0);
  // Hyper-Connections: read (n), mix (n n) and write (n) weights per unit.
  if (rec.hyper != HyperKind::none)
    n += double(tc.depth) * cfg.sublayers_per_block() * (2.0 * tc.hc_streams + double(tc.hc_streams) * tc.hc_streams);
  // Attention Residuals: a query and a key gain (d each) per unit.
  if (rec.attn_res) n += 2.0 * tc.depth * cfg.sublayers_per_block() * d;
  // QK-norm: the gains g_Q, g_K (dh each) of every attention sublayer.
  if (tc.block == Block::transformer && (tc.qk_norm != QkNorm::none || rec.qkv_norm))
    n += 2.0 * tc.depth * (tc.width / tc.heads);
  // HybridNorm's V-norm: g_V (dh) of every attention sublayer.
  if (tc.block == Block::transformer && rec.qkv_norm) n += double(tc.depth) * (tc.width / tc.heads);
  // nGPT: alpha_s (d) per unit, s_v (m) per MLP, s_qk's s (d) per attention, s_z (V).
  if (rec.ngpt) {
    n += double(tc.depth) * (cfg.sublayers_per_block() * d + cfg.hidden());
    if (tc.block == Block::transformer) n += double(tc.depth) * d;
    if (tc.task != Task::teacher) n += tc.vocab;
  }
  n += norm(cfg.final_norm);
  if (tc.task == Task::teacher) return n + d;
  return n + 2 * d * tc.vocab + (tc.positions == Positions::learned ? T * d : 0.0);
}

}  // namespace

Cost train_cost(const TrainConfig& tc, int sb) {
  const TaskData shape_only = [&] {
    TrainConfig t = tc;
    t.eval_batches = 1;
    t.batch = 1;
    return TaskData(t);
  }();
  const int T = shape_only.context();
  const bool language = tc.task != Task::teacher;
  // Rows of one pass (network.h): with BatchNorm the whole batch, segments of
  // one sequence (or example) each, attention within a segment.
  const int rows = batchnorm(tc) ? tc.batch * T : language ? T : (tc.block == Block::transformer ? 1 : tc.batch);
  const int segment = batchnorm(tc) ? T : 0;
  const double passes = language ? double(tc.batch) * T / rows : double(tc.batch) / rows;
  const double V = tc.vocab, d = tc.width;
  // A logged step's held-out passes: BatchNorm's in three modes (train, eval, one sequence).
  const double heldout_modes = batchnorm(tc) ? 3.0 : 1.0;
  Cost k;
  // The held-out set and the step's batch (tokens, targets or x, y).
  const double batch_bytes = language ? 2.0 * tc.batch * T * 4 : tc.batch * (d + 1) * 8.0;
  k.bytes += (tc.eval_batches + 1) * batch_bytes;
  for (Arch a : tc.archs) {
    const Config cfg = stack_config(tc, a, rows);
    const double params = param_count(tc, a, cfg, T);
    // Model caches; values, gradient, two moments and the logged step's copy of each parameter;
    // logits, their gradient, and two Outputs of held-out batch 0 in double.
    k.bytes += model_bytes(cfg, a, sb, true, segment) + 5 * params * sb + 2 * rows * (language ? V : 1) * sb;
    if (a == Arch::ngpt && language) k.bytes += rows * V * sb;  // the logits before s_z
    k.bytes += 2.0 * tc.batch * T * ((language ? V : 1) + d) * 8;
    // One update: the passes forward and backward (materialized dW: another
    // forward's worth), the head, the optimizer; the logged held-out passes amortized.
    const double head = language ? 6.0 * rows * d * V : 6.0 * rows * d;
    k.work += passes * (1.5 * stack_work(cfg, segment) + mix_work(cfg, a) + attn_res_work(cfg, a) + head) *
              (1.0 + 2.0 * heldout_modes * (tc.eval_batches + 1) / tc.log_every / 3.0);
    k.work += 20 * params;
  }
  return k;
}

double trainer_bytes(const TrainConfig& tc, Arch arch, int sb) {
  TrainConfig one = tc;
  one.archs = {arch};
  return train_cost(one, sb).bytes;
}

Status check_train(const TrainConfig& tc, double held) {
  Status st = validate(tc);
  if (!st.ok()) return st;
  const Cost k = train_cost(tc);
  if (fits(k, held)) return Status::Ok();
  int lo = 0, hi = tc.depth;
  TrainConfig t = tc;
  while (lo < hi) {
    t.depth = (lo + hi + 1) / 2;
    if (fits(train_cost(t), held))
      lo = t.depth;
    else
      hi = t.depth - 1;
  }
  return check_cost(k, "depth", tc.depth, lo, held);
}

}  // namespace resnorm
