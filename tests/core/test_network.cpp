// The model a training run trains (network.cpp): the gradient of the full
// training loss against central finite differences in double (fd.h), every
// parameter tensor (up to 16 entries of each, spread over it), for every
// architecture x block kind x task family. GELU throughout, so the loss has no kinks.
// Norms get random gamma and beta (and DyT's alpha, QK-norm's gains) first, gates and dense averaging weights
// values away from their init (Hyper-Connections' weights and mHC's logits too), so their part of every formula is
// exercised. BatchNorm (train mode, padded batches with the pads counted or masked) is held to the same differences,
// and padding to LayerNorm's and RMSNorm's invariance: the same sequences padded further, the same loss and gradients.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fd.h"
#include "resnorm/network.h"
#include "resnorm/rng.h"

using namespace resnorm;

namespace {

TrainConfig small(Task task, Block block) {
  TrainConfig tc;
  tc.task = task;
  tc.block = block;
  tc.depth = 2;
  tc.width = 8;
  tc.expansion = 2;
  tc.heads = 2;
  tc.seq = 3;  // T = 6 for copy
  tc.vocab = 5;
  tc.batch = 3;
  tc.eval_batches = 1;
  tc.seed = 5;
  return tc;
}

// The pad token of a padded task: the symbol after the vocabulary.
int32_t tc_pad(const TrainConfig& tc) { return tc.vocab; }

void randomize_params(Network<double>& net) {
  NormalRng rng(stream_key({91, uint64_t(net.arch())}));
  for (Param<double>& p : net.params()) {
    if (p.name.rfind("gamma", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 1.0 + 0.3 * rng.normal();
    if (p.name.rfind("beta", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 0.2 * rng.normal();
    // Gates away from their init (ReZero's 0 would hide every branch), dense
    // averaging weights away from the identity.
    if (p.name.rfind("gate", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 0.7 + 0.3 * rng.normal();
    // DyT's alpha away from its init, so a wrong alpha in dx or dgamma shows.
    if (p.name.rfind("alpha", 0) == 0) p.w[0] = 0.7 + 0.2 * rng.normal();
    if (p.name.rfind("attn_res.query", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 0.8 * rng.normal();
    if (p.name.rfind("attn_res.gain", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 1.0 + 0.3 * rng.normal();
    if (p.name.rfind("dwa", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = (i == p.n - 1 ? 1.0 : 0.0) + 0.3 * rng.normal();
    // Hyper-Connections' weights away from their init; mHC's logits of order 1.
    if (p.name.rfind("hc_", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] += 0.3 * rng.normal();
    if (p.name.rfind("mhc_", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 0.5 * rng.normal();
    // nGPT's alpha of about 0.2 (its stored value times 0.05 sqrt(d)), s_qk, s_v and s_z away from 1.
    const double root_d = std::sqrt(double(net.stack().d()));
    if (p.name.rfind("ngpt_alpha", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = (4.0 + rng.normal()) / root_d;
    if (p.name.rfind("s_qk", 0) == 0 || p.name == "s_z")
      for (long i = 0; i < p.n; ++i) p.w[i] = (1.0 + 0.3 * rng.normal()) / root_d;
    if (p.name.rfind("s_v", 0) == 0)
      for (long i = 0; i < p.n; ++i) p.w[i] = 1.0 + 0.3 * rng.normal();
  }
}

// vanishing_shifts: a beta whose shift a later BatchNorm takes out again (its
// mean subtraction, through a linear map: a sandwich's out norm after its in
// norm, the next unit's BatchNorm after a one-token attention) has gradient 0
// exactly; there the difference is round-off of size 1e-11, and it is held to
// an absolute 1e-9 instead of a ratio of two round-offs.
// Hyper-Connections' gradients that vanish or nearly so by the stack's symmetry
// (test_model.cpp says why), where round-off dominates the differences: the
// read of unit 1 (n copies of h_0 into a scale-invariant norm), and mHC's mix,
// whose columns sum to 1 to rounding, so that it reaches the top (the streams'
// mean) only through the later units' reads (and at unit 1 it acts on equal
// streams). They pass at a relative 1e-6 or an absolute 1e-9.
bool hyper_vanishes(const std::string& name) {
  const std::string first = "[unit 1]";
  auto at = [&name](const std::string& unit) {
    return name.size() > unit.size() && name.compare(name.size() - unit.size(), unit.size(), unit) == 0;
  };
  if ((name.rfind("hc_read", 0) == 0 || name.rfind("mhc_pre", 0) == 0) && at(first)) return true;
  return name.rfind("mhc_res", 0) == 0;
}

void check_network(const TrainConfig& tc, Arch arch, bool vanishing_shifts = false) {
  TaskData task(tc);
  Network<double> net(tc, arch, task);
  randomize_params(net);
  const Batch batch = task.train_batch(0);
  net.run(batch, true);
  auto loss = [&] { return net.run(batch, false); };
  fd::Report report(std::string("train ") + name(arch) + " " + name(tc.block) + " " + name(tc.task));
  for (Param<double>& p : net.params()) {
    const long k = std::min(p.n, 16L);
    fd::Check c;
    for (long j = 0; j < k; ++j) {
      const long i = j * p.n / k;
      fd::element(p.w + i, p.g[i], loss, c);
    }
    report.add(p.name, c);
    INFO(c.line(p.name));
    if (vanishing_shifts && p.name.rfind("beta.", 0) == 0 && c.max_ref < 1e-9)
      CHECK(c.max_diff < 1e-9);
    else if (hyper_vanishes(p.name))
      CHECK((c.rel() < fd::kTol || c.max_diff < 1e-9));
    else
      CHECK(c.rel() < fd::kTol);
  }
}

}  // namespace

TEST_CASE("network: every parameter's gradient equals a central finite difference", "[network][gradients]") {
  for (Task task : {Task::copy, Task::teacher})
    for (Block block : {Block::mlp, Block::transformer})
      for (Arch arch : all_archs()) {
        DYNAMIC_SECTION(name(arch) << " " << name(block) << " " << name(task)) {
          check_network(small(task, block), arch);
        }
      }
}

TEST_CASE("network: gradients with sinusoidal positions, explicit final norms and other tasks",
          "[network][gradients]") {
  for (Task task : {Task::reverse, Task::sort, Task::modadd, Task::markov})
    for (Arch arch : {Arch::post_ln, Arch::pre_rms}) {
      TrainConfig tc = small(task, Block::transformer);
      tc.positions = Positions::sinusoidal;
      tc.final_norm = arch == Arch::post_ln ? FinalNorm::rmsnorm : FinalNorm::layernorm;
      DYNAMIC_SECTION(name(arch) << " " << name(task)) { check_network(tc, arch); }
    }
}

TEST_CASE("network: Mix-LN's gradients with a Post-LN block below the Pre-LN one", "[network][gradients]") {
  for (Block block : {Block::mlp, Block::transformer})
    for (Task task : {Task::copy, Task::teacher}) {
      TrainConfig tc = small(task, block);
      tc.mix_fraction = 0.5;  // block 1 of 2
      DYNAMIC_SECTION(name(block) << " " << name(task)) { check_network(tc, Arch::mix_ln); }
    }
}

TEST_CASE("network: QK-norm on, every parameter's gradient (the gains g_Q, g_K too) equals a central finite difference",
          "[network][gradients][qk_norm]") {
  for (Task task : {Task::copy, Task::teacher})
    for (Arch arch : all_archs()) {
      TrainConfig tc = small(task, Block::transformer);
      tc.qk_norm = QkNorm::layernorm;
      tc.width = 16;  // dh = 8 features per head for the norm
      DYNAMIC_SECTION(name(arch) << " " << name(task)) { check_network(tc, arch); }
    }
}

TEST_CASE("network: the gates and DenseFormer's weights are parameters with their own names", "[network]") {
  TrainConfig tc = small(Task::copy, Block::transformer);
  TaskData task(tc);
  auto count = [&](Arch arch, const std::string& prefix, long* entries) {
    Network<float> net(tc, arch, task);
    int n = 0;
    *entries = 0;
    for (const Param<float>& p : net.params())
      if (p.name.rfind(prefix, 0) == 0) {
        ++n;
        *entries += p.n;
        CHECK(!p.matrix);  // no weight decay
      }
    return n;
  };
  long entries = 0;
  CHECK(count(Arch::rezero, "gate[unit ", &entries) == 4);  // 2 blocks x 2 units, a scalar each
  CHECK(entries == 4);
  CHECK(count(Arch::layerscale, "gate[unit ", &entries) == 4);
  CHECK(entries == 4 * tc.width);
  CHECK(count(Arch::dwa, "dwa[", &entries) == 2);  // w_{1,0..1}, w_{2,0..2}
  CHECK(entries == 2 + 3);
  CHECK(count(Arch::pre_ln, "gate", &entries) == 0);
  CHECK(count(Arch::pre_ln, "dwa", &entries) == 0);
}

TEST_CASE("network: DenseFormer at init is Pre-LN exactly: the same loss, the same gradients", "[network]") {
  for (Block block : {Block::mlp, Block::transformer})
    for (Task task : {Task::copy, Task::teacher}) {
      TrainConfig tc = small(task, block);
      tc.depth = 4;
      TaskData data(tc);
      Network<double> dwa(tc, Arch::dwa, data), pre(tc, Arch::pre_ln, data);
      const Batch batch = data.train_batch(0);
      INFO(name(block) << " " << name(task));
      CHECK(dwa.run(batch, true) == pre.run(batch, true));
      // Pre-LN's parameters are DenseFormer's, in order, with the dwa[l] rows among them.
      size_t j = 0;
      for (const Param<double>& p : dwa.params()) {
        if (p.name.rfind("dwa[", 0) == 0) continue;
        REQUIRE(j < pre.params().size());
        const Param<double>& q = pre.params()[j++];
        REQUIRE(p.name == q.name);
        CHECK(std::vector<double>(p.g, p.g + p.n) == std::vector<double>(q.g, q.g + q.n));
      }
      CHECK(j == pre.params().size());
      std::vector<double> la, lb;
      dwa.lesion_losses(batch, la);
      pre.lesion_losses(batch, lb);
      CHECK(la == lb);  // a skipped block too: y_l = x_{l-1}, then the identity average
    }
}

TEST_CASE("network: every parameter is listed once and has a gradient", "[network]") {
  TrainConfig tc = small(Task::copy, Block::transformer);
  TaskData task(tc);
  Network<float> net(tc, Arch::sandwich, task);
  // E, P, 2 blocks of (4 attention + 2 MLP matrices + 2 units x 2 RMSNorm gammas), the final RMSNorm's gamma, U.
  CHECK(net.params().size() == 2 + 2 * (6 + 4) + 1 + 1);
  CHECK(net.params().front().name == "embedding");
  CHECK(net.params().back().name == "unembedding");
  const double loss = net.run(task.train_batch(0), true);
  CHECK(std::isfinite(loss));
  for (const Param<float>& p : net.params()) {
    double sq = 0;
    for (long i = 0; i < p.n; ++i) sq += double(p.g[i]) * p.g[i];
    INFO(p.name);
    CHECK(sq > 0);
  }
}

TEST_CASE("network: at init the language loss is near chance", "[network]") {
  TrainConfig tc = small(Task::reverse, Block::transformer);
  tc.width = 32;
  tc.vocab = 16;
  tc.batch = 16;
  TaskData task(tc);
  Network<float> net(tc, Arch::pre_ln, task);
  const double loss = net.run(task.heldout()[0], false);
  std::printf("init loss pre_ln reverse %.4f, chance %.4f\n", loss, task.chance_loss());
  CHECK(loss == Approx(task.chance_loss()).epsilon(0.25));
}

TEST_CASE("network: BatchNorm's exact backward through the batch statistics, pads counted and masked",
          "[network][gradients][batchnorm]") {
  for (Task task : {Task::copy, Task::teacher})
    for (Block block : {Block::mlp, Block::transformer})
      for (BnPads pads : {BnPads::count, BnPads::mask})
        for (Arch arch : {Arch::pre_ln, Arch::post_ln, Arch::sandwich}) {
          TrainConfig tc = small(task, block);
          tc.norm = NormChoice::batchnorm;
          tc.bn_pads = pads;
          tc.seq_min = 1;  // copy: lengths 2..6, padded to the batch's longest
          tc.batch = 4;
          DYNAMIC_SECTION(name(arch) << " " << name(block) << " " << name(task) << " pads " << name(pads)) {
            check_network(tc, arch, true);
          }
        }
}

TEST_CASE("network: BatchNorm in place of every norm, with gamma, beta and the pad token as parameters",
          "[network][batchnorm]") {
  TrainConfig tc = small(Task::copy, Block::transformer);
  tc.norm = NormChoice::batchnorm;
  tc.seq_min = 1;
  TaskData task(tc);
  Network<double> net(tc, Arch::sandwich, task);
  CHECK(net.has_batchnorm());
  CHECK(net.batchnorms().size() == 2 * 2 * 2 + 1);  // 2 blocks x 2 units x (in, out), and the final norm
  int betas = 0;
  for (const Param<double>& p : net.params()) {
    betas += p.name.rfind("beta.", 0) == 0;
    if (p.name == "embedding") CHECK(p.n == long(tc.vocab + 1) * tc.width);  // the pad token's row
  }
  CHECK(betas == 9);
  TrainConfig ln = tc;
  ln.norm = NormChoice::automatic;
  Network<double> plain_norms(ln, Arch::sandwich, task);
  CHECK(plain_norms.batchnorms().empty());
}

// The same sequences padded to two lengths (two contexts: seq 3 and seq 5, with
// sinusoidal positions every parameter is the same): LayerNorm and RMSNorm
// give the same loss and the same gradients.
TEST_CASE("network: padding does not change LayerNorm's or RMSNorm's loss or gradients", "[network][padding]") {
  for (Block block : {Block::mlp, Block::transformer})
    for (Arch arch : {Arch::pre_ln, Arch::post_ln, Arch::pre_rms, Arch::sandwich}) {
      TrainConfig short_tc = small(Task::reverse, block);
      short_tc.positions = Positions::sinusoidal;
      short_tc.seq_min = 1;
      short_tc.batch = 4;
      TrainConfig long_tc = short_tc;
      long_tc.seq = 5;
      TaskData short_task(short_tc), long_task(long_tc);
      Network<double> a(short_tc, arch, short_task), b(long_tc, arch, long_task);
      const Batch sb = short_task.train_batch(0);
      Batch lb = sb;  // the same sequences in rows of 10, pads after them
      const int Ts = short_task.context(), Tl = long_task.context();
      lb.tokens.assign(size_t(sb.size) * Tl, tc_pad(long_tc));
      lb.targets.assign(size_t(sb.size) * Tl, -1);
      for (int s = 0; s < sb.size; ++s)
        for (int t = 0; t < Ts; ++t) {
          lb.tokens[size_t(s) * Tl + t] = sb.tokens[size_t(s) * Ts + t];
          lb.targets[size_t(s) * Tl + t] = sb.targets[size_t(s) * Ts + t];
        }
      INFO(name(arch) << " " << name(block));
      const double la = a.run(sb, true), lbl = b.run(lb, true);
      CHECK(la == Approx(lbl).epsilon(1e-13));
      REQUIRE(a.params().size() == b.params().size());
      for (size_t i = 0; i < a.params().size(); ++i) {
        const Param<double>&p = a.params()[i], &q = b.params()[i];
        REQUIRE(p.name == q.name);
        REQUIRE(p.n == q.n);
        double diff = 0, ref = 0;
        for (long j = 0; j < p.n; ++j) {
          diff = std::max(diff, std::abs(p.g[j] - q.g[j]));
          ref = std::max(ref, std::abs(p.g[j]));
        }
        INFO(p.name << " max diff " << diff << " of " << ref);
        CHECK(diff <= 1e-12 * std::max(ref, 1e-300));
      }
    }
}
