// resnorm/network.h: the model a training run trains, around one stack (model.h).
//
// Language tasks (causal, decoder-only), per sequence of T tokens:
//   h_0 = E[tokens] + P                  E (V, d) embedding, P (T, d) positions
//   out = stack(h_0)                     Model<S>: the architecture's units and final norm
//   logits = out U                       U (d, V) unembedding
//                                        (nGPT: logits = s_z (out U), s_z (V) learned, ngpt.h)
//   loss = mean over the scored positions of the batch of -log softmax(logits)[target]
// The teacher task (regression), per example x in R^d:
//   out = stack(x); yhat = out . w       w (d) readout
//   loss = mean over the batch of (yhat - y)^2
// Each sequence is its own forward pass (attention stays within it); for the
// teacher task with MLP blocks the B examples are the B rows of one pass (an
// MLP block and a norm act row by row), with transformer blocks each example
// is a sequence of one token. With BatchNorm (train config `norm`) the whole
// batch is one pass of B segments (attention within each, sublayer.h's
// PassRows), since every norm's statistics are over the batch's rows.
// Padded sequences (tasks.h): a sequence attends only to its own tokens, the
// pads are never scored, and BatchNorm counts them or not (`bn_pads`); rows
// past the batch's longest (the context is the longest possible) count nowhere.
//
// Every parameter trains: E, P (learned positions; sinusoidal ones are fixed),
// every W of every block, every gamma and beta, DyT's alpha, every gate (ReZero's alpha,
// LayerScale's lambda), DenseFormer's averaging weights, U or w. The stack's weights
// are the bank's base matrices with the recipe's scales multiplied in at
// construction (W = s B, then s = 1), so a gradient of the bank's matrix is
// the gradient of W. DeepNet's alpha and Admin's omegas stay the constants of
// their papers. Init: E and learned P entries N(0, 1/2) (so h_0 has unit
// variance, as a simulation's), U and w entries N(0, 1/d); sinusoidal P[t][2i] =
// sin(t / 10000^(2i/d)), P[t][2i+1] = cos(...).
//
// The backward reuses the stack's: dloss/dout is put where a simulation's readout
// r is, so Model::backward() is the chain rule from the head down. The stack
// is built for training (model.h): every sublayer's dW and each norm's
// dgamma, dbeta are added (+=) over the passes of a batch, and they are the
// parameters' gradients themselves (Param::g points at them). Every matrix
// product is one of kernels.h's.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "resnorm/model.h"
#include "resnorm/tasks.h"
#include "resnorm/train_config.h"
#include "resnorm/weights.h"

namespace resnorm {

// nGPT (ngpt.h): which vectors of a (rows, cols) row-major parameter are kept at unit norm.
enum class UnitAxis : uint8_t { none, rows, cols };

template <class S>
struct Param {
  // "embedding", "W_Q[2]", "W1[3]", "gamma.outer[unit 4]", "alpha.in[unit 1]", "gate[unit 4]", "dwa[3]",
  // "attn_res.query[unit 2]", "attn_res.gain[unit 2]",
  // "beta.final", "unembedding"
  std::string name;
  S* w = nullptr;  // the values, n of them
  S* g = nullptr;  // d loss / d w, n of them
  long n = 0;
  int block = 0;        // 0 below the stack (E, P), 1..L block l, L + 1 above it (final norm, U, w)
  bool matrix = false;  // a weight matrix or embedding (weight decay applies); not gamma, beta or DyT's alpha
  // nGPT: its rows or columns (of `cols` entries per row) put back at unit
  // norm after every update (Network::normalize_sphere()); no weight decay then.
  UnitAxis unit = UnitAxis::none;
  long cols = 0;
};

// What one run() leaves besides the loss: for every item (a sequence, or a
// teacher example) its output F (logits (T V), or yhat) and its top stream
// out (T d, or d), and the counts.
struct Outputs {
  Mat<double> f, top;  // (B, T V) / (B, 1) and (B, T d) / (B, d)
  long correct = 0;    // language: scored positions whose argmax is the target
};

// Sums of squares over the passes of the last run(): the stream and its
// gradient at every block boundary, and per unit the update and its skip.
struct LayerSums {
  std::vector<double> stream_sq, grad_sq;  // L + 1: ||h_l||^2, ||d loss / d h_l||^2 over the batch
  std::vector<double> update_sq, skip_sq;  // L P: ||u_k||^2, ||alpha h_{k-1}||^2
  double rows = 0;                         // rows of the batch (B T): stream RMS = sqrt(stream_sq / (rows d))
  // The largest attention logit over every pass and block (Attention::max_logit); NaN for MLP blocks.
  double max_logit = std::numeric_limits<double>::quiet_NaN();
};

template <class S>
class Network {
 public:
  // tc must pass validate(); task from the same tc.
  Network(const TrainConfig& tc, Arch arch, const TaskData& task);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;
  // The batch's mean loss. With `grads`, every Param::g is overwritten with
  // d loss / d w. skip_block in 1..L replaces that block by the identity
  // (h_l = h_{l-1}; the lesion study). `out` receives the items' outputs.
  // sums(): of this run with `sums`, else all zero.
  double run(const Batch& b, bool grads, int skip_block = 0, Outputs* out = nullptr, bool sums = true);
  // loss[0] = run(b, false) and loss[l] = run(b, false, l) for l = 1..L, the
  // same bits, from one forward per item: the lesions run from the top block
  // down, each from the base pass's stream below it. sums() are left zero.
  void lesion_losses(const Batch& b, std::vector<double>& loss);
  // Attention Residuals' weights averaged over every token of the batches'
  // items (a teacher example is one token; a padded sequence's pads are left
  // out), from one forward each: row-major (K, K + 1) for K units, entry
  // (k - 1, i) the mean of a_{k,i}, how much the stream unit k + 1 reads
  // (the final norm's for k = K) takes of v_i (h_0 for i = 0, unit i's
  // output otherwise), 0 for i > k. Block AttnRes (N blocks): (K, N + 1),
  // entry (k - 1, j) the weight of b_j (h_0 for j = 0, block j's sum, or
  // unit k's partial sum of it for j = B(k)), 0 for j > B(k); Full is N = K.
  // Empty for other architectures; sums() are left zero.
  std::vector<double> attn_res_weights(const std::vector<Batch>& batches);
  std::vector<Param<S>>& params() { return params_; }
  // nGPT (ngpt.h): every parameter with a UnitAxis gets its rows or columns
  // back at unit norm, exactly (to rounding). The trainer calls it after every
  // update, the constructor once at init; nothing for other architectures.
  void normalize_sphere();
  const LayerSums& sums() const { return sums_; }
  Model<S>& stack() { return model_; }
  // Rows of one pass of the stack (a batch runs in passes of at most this many rows); the stack's caches
  // hold the last pass's.
  int pass_rows() const { return rows_; }
  // Which statistics BatchNorm uses in the next run()s (sublayer.h): the
  // batch's (train; train_update also moves the running ones), the running
  // ones (eval), or each sequence its own alone (sequence). No effect on other norms.
  void set_mode(BnMode m) { mode_ = m; }
  BnMode mode() const { return mode_; }
  bool has_batchnorm() const { return bn_; }
  // The BatchNorm layers in stack order (units, then the final norm); empty without.
  std::vector<Norm<S>*> batchnorms();
  Arch arch() const { return arch_; }
  bool language() const { return language_; }

 private:
  // The stack's forward on model_.input() (rows_, d), adding to the sums when asked.
  void pass(int skip_block, bool sums);
  // h_0 of item `first` (language: sequence first's tokens; teacher: rows first.. of x) into model_.input().
  void embed(const Batch& b, int first);
  // The pass's PassRows for the items from `first`: segments, keys, counted rows, mode.
  void layout(const Batch& b, int first);
  // The head on the stack's output for the item at `first`: logits (or yhat),
  // each of its losses added to `loss`; with `grads`, dlogits_ = d loss / d
  // logits (the mean's 1/N in it). Language: `correct` counts argmax hits.
  void head(const Batch& b, int first, double N, bool grads, long* correct, double& loss);
  // The head's backward: d loss / d out into the stack's readout, U's (or w's)
  // gradient added to.
  void head_backward();
  Param<S>& add(const std::string& name, S* w, S* g, long n, int block, bool matrix);

  Arch arch_;
  bool language_;
  int L_, d_, V_, T_, rows_;    // rows_: rows of one pass
  int seg_ = 1, per_pass_ = 1;  // rows per item (a sequence's T, or 1), items per pass
  Positions positions_;
  bool bn_ = false, pads_counted_ = false, padded_ = false;
  BnMode mode_ = BnMode::train;
  WeightBank<S> bank_;
  Model<S> model_;
  Mat<S> embedding_, positions_table_, unembedding_;  // (V, d), (T, d), (d, V)
  Mat<S> dembedding_, dpositions_, dunembedding_;     // their gradients
  Vecx<S> readout_w_, dreadout_w_;                    // (d) teacher readout, its gradient
  Vecx<S> sz_, dsz_;                                  // nGPT (language): the stored s_z (V), its gradient
  Mat<S> raw_logits_;                                 // nGPT: out U before s_z (rows, V)
  Mat<S> logits_, dlogits_;                           // (T, V) or (rows, 1)
  std::vector<double> exps_;                          // (V) a position's exp(z - max z)
  std::vector<Param<S>> params_;
  LayerSums sums_;
};

}  // namespace resnorm
