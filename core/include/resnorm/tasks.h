// resnorm/tasks.h: the training tasks, generated from (seed, step).
//
// No data files: a training batch is a function of (seed, step) only, the
// held-out set of (seed) only (its own stream, so no step's batch is drawn
// from it). Language tasks give token sequences and the next-token targets
// of the positions they score; the teacher task gives Gaussian inputs and a
// fixed random network's outputs.
//   copy, reverse, sort  n symbols x_1..x_n from V, then y_1..y_n (x copied,
//                        reversed, sorted ascending): T = 2n tokens; position
//                        t predicts token t + 1, scored for t = n-1 .. 2n-2
//                        (the output half)
//   modadd               a, b from p = V: T = 2, position 1 predicts (a + b) mod p
//   markov               a random bigram language, each symbol followed by
//                        one of kMarkovSuccessors symbols with random
//                        probabilities; x_1 uniform; T = n, every position
//                        but the last scored
//   With seq_min > 0 (copy, reverse, sort, markov) each sequence's n is drawn
//   from seq_min..seq by the batch's stream before its symbols, the sequence
//   has its own length (2n, or n for markov) and the batch is padded to its
//   longest with the pad token V (the embedding then has V + 1 rows); pads
//   are never scored, and Batch::length is the longest.
//   teacher              x in R^d, N(0, I); y = sum_j c_j tanh(a_j . x), j = 1..d,
//                        a_j entries N(0, 1/d), c scaled so y's mean square over
//                        the held-out set is 1
#pragma once

#include <cstdint>
#include <vector>

#include "resnorm/tensor.h"
#include "resnorm/train_config.h"

namespace resnorm {

inline constexpr int kMarkovSuccessors = 3;

struct Batch {
  int size = 0;              // B sequences, or examples for teacher
  int length = 0;            // tokens per sequence (the batch's longest when padded); 1 for teacher
  std::vector<int> lengths;  // (B) each sequence's own length when padded; empty otherwise
  // Language rows are the task's context() long (T), whatever `length` is: the
  // entry of sequence s, position t is at s T + t; positions from `length` on are pads.
  std::vector<int32_t> tokens;   // (B, T) language
  std::vector<int32_t> targets;  // (B, T) the token position t predicts, -1 where not scored
  Mat<double> x;                 // (B, d) teacher inputs
  std::vector<double> y;         // (B) teacher targets
  long scored() const;           // positions scored (examples for teacher)
  // Sequence s's own length: lengths[s], or `length` when not padded.
  int length_of(int s) const { return lengths.empty() ? length : lengths[s]; }
};

class TaskData {
 public:
  explicit TaskData(const TrainConfig& tc);
  bool language() const { return task_ != Task::teacher; }
  int vocab() const { return vocab_; }      // V of the embedding and unembedding (0 for teacher)
  int context() const { return context_; }  // T of a sequence (1 for teacher)
  // Sequences of their own lengths, padded: the pad token is vocab(), an embedding row of its own.
  bool padded() const { return padded_; }
  int embedding_rows() const { return vocab_ + (padded_ ? 1 : 0); }
  // The batch of training step `step` (0-based).
  Batch train_batch(int64_t step) const;
  const std::vector<Batch>& heldout() const { return heldout_; }
  // Mean loss of a uniform guess (ln V; ln p for modadd) or of predicting 0
  // (teacher: the held-out targets' mean square, 1 by construction).
  double chance_loss() const { return chance_; }
  // The best expected loss: 0 for the deterministic tasks and teacher (noise
  // free), the bigram's conditional entropy averaged over the scored
  // positions for markov (exact, from the chain's marginals).
  double optimal_loss() const { return optimal_; }
  const Mat<double>& markov_matrix() const { return markov_; }  // (V, V) transition probabilities

 private:
  Batch make(uint64_t key) const;
  double teacher(const double* x) const;
  Task task_;
  uint64_t seed_;
  int n_, n_min_, vocab_, context_, batch_, d_;
  bool padded_ = false;
  Mat<double> markov_;     // (V, V)
  Mat<double> teacher_a_;  // (d, d): column j is a_j
  std::vector<double> teacher_c_;
  std::vector<Batch> heldout_;
  double chance_ = 0, optimal_ = 0;
};

}  // namespace resnorm
