// The training tasks (see tasks.h).
#include "resnorm/tasks.h"

#include <algorithm>
#include <cmath>

#include "resnorm/rng.h"
#include "resnorm/weights.h"

namespace resnorm {
namespace {

// Integers and uniforms from one splitmix64 stream.
struct Draw {
  uint64_t state;
  int below(int n) { return static_cast<int>(splitmix64(state) % static_cast<uint64_t>(n)); }
  double uniform() { return (static_cast<double>(splitmix64(state) >> 11) + 1.0) * 0x1.0p-53; }
};

}  // namespace

long Batch::scored() const {
  if (!y.empty()) return size;
  return static_cast<long>(std::count_if(targets.begin(), targets.end(), [](int32_t t) { return t >= 0; }));
}

TaskData::TaskData(const TrainConfig& tc)
    : task_(tc.task),
      seed_(tc.seed),
      n_(tc.seq),
      n_min_(tc.seq_min > 0 ? tc.seq_min : tc.seq),
      vocab_(tc.vocab),
      batch_(tc.batch),
      d_(tc.width) {
  switch (task_) {
    case Task::copy:
    case Task::reverse:
    case Task::sort: context_ = 2 * n_; break;
    case Task::modadd: context_ = 2; break;
    case Task::markov: context_ = n_; break;
    case Task::teacher:
      context_ = 1;
      vocab_ = 0;
      break;
  }
  padded_ = n_min_ < n_ && task_ != Task::modadd && task_ != Task::teacher;
  const uint64_t seed = seed_;
  if (task_ == Task::markov) {
    // Each row: kMarkovSuccessors distinct successors, weights uniform in (0, 1], normalized.
    Draw r{stream_key({seed, uint64_t(Stream::markov), uint64_t(vocab_)})};
    markov_ = Mat<double>::Zero(vocab_, vocab_);
    const int k = std::min(kMarkovSuccessors, vocab_);
    for (int i = 0; i < vocab_; ++i) {
      double total = 0;
      for (int j = 0; j < k; ++j) {
        int next;
        do next = r.below(vocab_);
        while (markov_(i, next) != 0);
        markov_(i, next) = r.uniform();
        total += markov_(i, next);
      }
      markov_.row(i) /= total;
    }
  }
  if (task_ == Task::teacher) {
    teacher_a_ =
        gaussian_matrix(stream_key({seed, uint64_t(Stream::teacher), uint64_t(d_)}), d_, d_) / std::sqrt(double(d_));
    NormalRng r(stream_key({seed, uint64_t(Stream::teacher), uint64_t(d_), 1}));
    teacher_c_.resize(d_);
    for (double& c : teacher_c_) c = r.normal();
  }
  for (int b = 0; b < tc.eval_batches; ++b)
    heldout_.push_back(make(stream_key({seed, uint64_t(Stream::heldout), uint64_t(task_), uint64_t(b)})));
  if (task_ == Task::teacher) {
    // Scale c so the held-out targets have mean square 1.
    double sq = 0, count = 0;
    for (const Batch& h : heldout_)
      for (double y : h.y) sq += y * y, ++count;
    const double s = sq > 0 ? 1.0 / std::sqrt(sq / count) : 1.0;
    for (double& c : teacher_c_) c *= s;
    for (Batch& h : heldout_)
      for (double& y : h.y) y *= s;
    chance_ = 1.0;
    optimal_ = 0.0;
    return;
  }
  chance_ = std::log(double(vocab_));
  optimal_ = 0.0;
  if (task_ == Task::markov) {
    // Expected loss of the true conditionals: position t (0-based) sees x_{t+1}'s
    // marginal p_t = u P^t, u uniform; scored t = 0..T-2.
    std::vector<double> entropy(vocab_, 0.0);
    for (int i = 0; i < vocab_; ++i)
      for (int j = 0; j < vocab_; ++j)
        if (markov_(i, j) > 0) entropy[i] -= markov_(i, j) * std::log(markov_(i, j));
    Eigen::RowVectorXd p = Eigen::RowVectorXd::Constant(vocab_, 1.0 / vocab_);
    double total = 0;
    for (int t = 0; t + 1 < context_; ++t) {
      for (int i = 0; i < vocab_; ++i) total += p(i) * entropy[i];
      p = p * markov_;
    }
    optimal_ = total / (context_ - 1);
  }
}

double TaskData::teacher(const double* x) const {
  double y = 0;
  for (int j = 0; j < d_; ++j) {
    double a = 0;
    for (int i = 0; i < d_; ++i) a += x[i] * teacher_a_(i, j);
    y += teacher_c_[j] * std::tanh(a);
  }
  return y;
}

Batch TaskData::train_batch(int64_t step) const {
  return make(stream_key({seed_, uint64_t(Stream::train_batch), uint64_t(task_), uint64_t(batch_), uint64_t(n_),
                          uint64_t(vocab_), uint64_t(d_), uint64_t(step)}));
}

Batch TaskData::make(uint64_t key) const {
  Batch b;
  b.size = batch_;
  b.length = context_;
  if (task_ == Task::teacher) {
    b.x = gaussian_matrix(key, batch_, d_);
    b.y.resize(batch_);
    for (int i = 0; i < batch_; ++i) b.y[i] = teacher(b.x.row(i).data());
    return b;
  }
  const int T = context_;
  b.tokens.assign(static_cast<size_t>(batch_) * T, padded_ ? vocab_ : 0);
  b.targets.assign(static_cast<size_t>(batch_) * T, -1);
  Draw r{key};
  if (padded_) {
    b.lengths.assign(batch_, 0);
    b.length = 0;
  }
  for (int s = 0; s < batch_; ++s) {
    int32_t* tok = b.tokens.data() + static_cast<long>(s) * T;
    int32_t* tgt = b.targets.data() + static_cast<long>(s) * T;
    // n of this sequence: seq, or drawn from seq_min..seq before its symbols.
    const int n = padded_ ? n_min_ + r.below(n_ - n_min_ + 1) : n_;
    if (padded_) {
      b.lengths[s] = task_ == Task::markov ? n : 2 * n;
      b.length = std::max(b.length, b.lengths[s]);
    }
    switch (task_) {
      case Task::copy:
      case Task::reverse:
      case Task::sort:
        for (int i = 0; i < n; ++i) tok[i] = r.below(vocab_);
        for (int i = 0; i < n; ++i) tok[n + i] = task_ == Task::reverse ? tok[n - 1 - i] : tok[i];
        if (task_ == Task::sort) std::sort(tok + n, tok + 2 * n);
        for (int t = n - 1; t <= 2 * n - 2; ++t) tgt[t] = tok[t + 1];
        break;
      case Task::modadd:
        tok[0] = r.below(vocab_);
        tok[1] = r.below(vocab_);
        tgt[1] = (tok[0] + tok[1]) % vocab_;
        break;
      case Task::markov: {
        tok[0] = r.below(vocab_);
        for (int t = 1; t < n; ++t) {
          double u = r.uniform(), acc = 0;
          int next = vocab_ - 1;
          for (int j = 0; j < vocab_; ++j) {
            acc += markov_(tok[t - 1], j);
            if (markov_(tok[t - 1], j) > 0 && u <= acc) {
              next = j;
              break;
            }
          }
          // Rounding of the running sum: the last successor.
          if (markov_(tok[t - 1], next) == 0)
            for (int j = vocab_ - 1; j >= 0; --j)
              if (markov_(tok[t - 1], j) > 0) {
                next = j;
                break;
              }
          tok[t] = next;
        }
        for (int t = 0; t + 1 < n; ++t) tgt[t] = tok[t + 1];
        break;
      }
      case Task::teacher: break;
    }
  }
  return b;
}

}  // namespace resnorm
