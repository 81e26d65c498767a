// resnorm/train_results.h: what training reports (Trainer in trainer.h): a
// log per logged step, the lesion study, the learnable gates; how a run
// ended; and the JSON lines of the CLI's `train`. The bindings read the same
// values by name (named_scalars(), named_arrays()), the one list of their keys.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "resnorm/config.h"
#include "resnorm/json.h"

namespace resnorm {

// One logged step. Per-block arrays are indexed as a simulation's (results.h):
// l = 0..L for the stream and its gradient (block boundaries), block l at l - 1 otherwise.
struct TrainLog {
  int64_t step = 0;         // updates done, this one included
  double lr = 0;            // of this update
  double train_loss = 0;    // on this step's batch, before the update
  double heldout_loss = 0;  // the held-out set after the update (BatchNorm: eval mode)
  // The held-out loss three ways (BatchNorm, network.h): with each held-out
  // batch's own statistics (train mode, a training-size batch), with the
  // running statistics (eval mode, = heldout_loss), and each sequence
  // normalized with its own statistics alone (one-sequence mode). The same
  // value three times for LayerNorm and RMSNorm, which use no batch statistics.
  double heldout_loss_train_mode = 0, heldout_loss_eval_mode = 0, heldout_loss_one_seq = 0;
  double heldout_accuracy = 0;  // argmax = target over its scored positions; NaN for teacher
  double grad_norm_global = 0;  // ||all gradients||, before clipping
  // RMS of F(x; W_after) - F(x; W_before) over held-out batch 0 (F: the logits, or yhat).
  double output_change = 0;
  // Mean cosine similarity of the top stream (out) of every pair of items of
  // held-out batch 0 after the update: near 1 when the output no longer depends on the input.
  double top_cosine = 0;
  // The largest attention logit of this step's training batch, before the
  // update: max over every block's attention, head, sequence and query i and
  // key j it attends to of |q_i . k_j| / sqrt(dh), the score the softmax
  // reads (Attention::max_logit, attention.h). NaN for MLP blocks (no attention).
  double max_logit = std::numeric_limits<double>::quiet_NaN();
  // Hyper-Connections and mHC: mHC's Amax Gain Magnitude of the stream mixing
  // composed over depth, P = M_U ... M_1 of the matrices this step's batch
  // ran with, before the update (Hyper::composite_gain, hyper.h): the largest
  // absolute row sum of P (forward) and the largest absolute column sum
  // (backward). NaN for every other architecture (no streams).
  double hc_gain_fwd = std::numeric_limits<double>::quiet_NaN();
  double hc_gain_bwd = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> grad_norm;     // L + 1: ||d loss / d h_l|| over the batch
  std::vector<double> stream_rms;    // L + 1: ||h_l|| / sqrt(B T d)
  std::vector<double> w_grad_norm;   // L: ||d loss / d W|| over every matrix of block l
  std::vector<double> update_ratio;  // L: ||W_after - W_before|| / ||W_before|| over block l's matrices
  std::vector<double> contribution;  // L: ||u_l|| / ||alpha h_{l-1}|| (transformer: rss of the two units)
  // Per BatchNorm layer (units in order, then the final norm; empty without),
  // PowerNorm's distances of this step's batch statistics from the running
  // ones before the update: (1/d) ||mu_B - mu_run||, (1/d) ||sigma_B^2 - sigma_run^2||.
  std::vector<double> bn_mean_distance, bn_var_distance;
  int64_t first_nonfinite = -1;  // this step, when its loss or gradient was not finite
};

// Held-out loss with each block skipped (h_l = h_{l-1}), and each block's
// contribution now and at init.
struct Lesion {
  double base = 0;                                      // held-out loss of the whole model
  std::vector<double> loss;                             // L: with block l skipped
  std::vector<double> increase, relative;               // L: loss - base, (loss - base) / base
  std::vector<double> contribution, contribution_init;  // L: on held-out batch 0
};

// The learnable gates (ReZero's alpha, LayerScale's lambda) unit by unit, now
// and at init: unit k = 1..L P is block (k - 1) / P + 1's (P = 2 for a
// transformer block: attention, then the MLP). Width 0 and every vector empty
// for architectures without a gate.
struct Gates {
  int width = 0;                  // entries per unit: 1 (one scalar) or d (one per channel)
  std::vector<double> values;     // (units, width) row-major: the entries now
  std::vector<double> init;       // units: every entry's value at init (the recipe's gate_init)
  std::vector<double> magnitude;  // units: mean |entry| now
};

// Each norm of the stack on its inputs and outputs, as one forward pass of
// held-out batch 0 meets them (Trainer::norm_samples): the norms on a unit's
// branch input (Pre-LN's LayerNorm before each sublayer, DyT's tanh layers)
// unit by unit, then the final norm. units[i] is norm i's unit k = 1..L P (L
// P + 1 for the final norm); input and output are (norms, rows, width)
// row-major: the elements of the stream the norm reads (the rows of the
// batch's last pass, all of it when it fits in one, padded positions included,
// each of d features) and of what it writes,
// its gain and bias applied (before Admin's input scale). Empty for a stack
// without such norms.
struct NormSamples {
  std::vector<int> units;
  int rows = 0, width = 0;
  std::vector<double> input, output;
};

// A log's numbers with their keys: step (a whole number, at most the steps
// field's maximum, so %.9g writes it exactly), lr, train_loss, heldout_loss,
// heldout_accuracy, grad_norm_global, output_change, top_cosine,
// heldout_loss_train_mode, heldout_loss_eval_mode, heldout_loss_one_seq,
// max_logit, hc_gain_fwd, hc_gain_bwd; and
// its per-block arrays grad_norm, stream_rms, w_grad_norm, update_ratio,
// contribution, and per BatchNorm layer bn_mean_distance, bn_var_distance.
std::vector<NamedScalar> named_scalars(const TrainLog& log);
std::vector<NamedArray> named_arrays(const TrainLog& log);
// loss, increase, relative, contribution, contribution_init.
std::vector<NamedArray> named_arrays(const Lesion& lesion);
// init, magnitude, values.
std::vector<NamedArray> named_arrays(const Gates& gates);

// How a run ended: "trained" (held-out loss below halfway from chance to the
// optimal loss), "diverged" (non-finite, or held-out loss above 1.5 x chance),
// "collapsed" (top cosine above 0.99 with held-out loss within 10% of
// chance), else "slow".
const char* outcome(const TrainLog& last, double chance, double optimal);

// The CLI's lines: {"arch": ..., "step": ..., ..., "first_nonfinite": ...} per
// log, and one arch's summary {"steps": ..., "outcome": ..., ..., "lesion":
// {"base": ..., ...}, "gates": {width, init, magnitude, values} or null, "dwa":
// [[w_{1,0}, w_{1,1}], ...] (row l - 1 holds w_{l,0..l}) or null} (chance and
// optimal name the outcome), and for Attention Residuals "attn_res":
// [[a_{1,0}, a_{1,1}], ...] (row k - 1 holds unit k's read weights a_{k,0..k}
// over the held-out set, trainer.h), a key only the attn_res summary has;
// with attn_res_blocks N (Block AttnRes, 0 < N < K) row k - 1 holds the
// weights over h_0 and blocks 1..B(k), B(k) = floor((k - 1) N / K) + 1.
std::string train_log_json(Arch arch, const TrainLog& log);
std::string train_summary_json(const TrainLog& last, const Lesion& lesion, const Gates& gates,
                               const std::vector<double>& dwa, double chance, double optimal,
                               const std::vector<double>& attn_res = {}, int attn_res_blocks = 0);

}  // namespace resnorm
