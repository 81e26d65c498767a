// The trainer (trainer.cpp): it learns, it logs what trainer.h promises, a
// saved state continues bit-identically and loads in place or beside it, and a
// blow-up stops the run.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

namespace {

TrainConfig tiny(Task task = Task::copy) { return tiny_train_config(task); }

}  // namespace

TEST_CASE("trainer: copy and teacher learn, and every metric is there", "[trainer]") {
  for (Task task : {Task::copy, Task::teacher}) {
    TrainConfig tc = tiny(task);
    tc.steps = 150;
    tc.block = task == Task::teacher ? Block::mlp : Block::transformer;
    Trainer<float> tr;
    REQUIRE(tr.configure(tc, Arch::pre_ln).ok());
    const std::vector<TrainLog> logs = tr.step(1000);
    REQUIRE(logs.size() == 30);
    const TrainLog &first = logs.front(), &last = logs.back();
    std::printf("trainer %s pre_ln: held-out loss %.4f at step %lld -> %.4f at step %lld (chance %.4f), acc %.3f\n",
                name(task), first.heldout_loss, (long long)first.step, last.heldout_loss, (long long)last.step,
                tr.task().chance_loss(), last.heldout_accuracy);
    CHECK(last.step == 150);
    CHECK(tr.steps_done() == 150);
    CHECK(last.heldout_loss < 0.7 * first.heldout_loss);
    CHECK(last.grad_norm.size() == 3);
    CHECK(last.stream_rms.size() == 3);
    for (const auto* v : {&last.w_grad_norm, &last.update_ratio, &last.contribution}) {
      REQUIRE(v->size() == 2);
      CHECK((*v)[0] > 0);
    }
    CHECK(last.output_change > 0);
    CHECK(last.lr == tc.lr);
    CHECK(last.first_nonfinite == -1);
    CHECK(std::isfinite(last.top_cosine));
    CHECK(std::isnan(last.heldout_accuracy) == (task == Task::teacher));
    CHECK(tr.step(5).empty());  // at tc.steps
    const Lesion les = tr.lesion();
    CHECK(les.base == Approx(last.heldout_loss).epsilon(1e-12));
    REQUIRE(les.loss.size() == 2);
    CHECK(les.contribution_init.size() == 2);
    CHECK(std::string(outcome(last, tr.task().chance_loss(), tr.task().optimal_loss())) != "diverged");
  }
}

TEST_CASE("trainer: the same config twice, and a restored state, give bit-identical curves", "[trainer][state]") {
  for (Optimizer opt : {Optimizer::adam, Optimizer::sgd}) {
    TrainConfig tc = tiny();
    tc.optimizer = opt;
    tc.lr = opt == Optimizer::sgd ? 0.05 : 3e-3;
    tc.log_every = 1;
    Trainer<float> a, b;
    REQUIRE(a.configure(tc, Arch::post_ln).ok());
    REQUIRE(b.configure(tc, Arch::post_ln).ok());
    const std::vector<TrainLog> a1 = a.step(7);
    const std::vector<TrainLog> b1 = b.step(7);
    test::check_same_logs(a1, b1);
    const std::string blob = a.state();
    const std::vector<TrainLog> a2 = a.step(8);
    Trainer<float> c;
    REQUIRE(c.configure(tiny(Task::teacher), Arch::plain).ok());  // anything: load replaces it
    const Status st = c.load(blob);
    INFO(st.message);
    REQUIRE(st.ok());
    CHECK(c.steps_done() == 7);
    CHECK(c.arch() == Arch::post_ln);
    test::check_same_logs(a2, c.step(8));
    test::check_same_logs(a2, b.step(8));
    CHECK(c.state() == a.state());
  }
}

TEST_CASE("trainer: the gates and DenseFormer's weights train, are saved and restored, and are readable",
          "[trainer][state]") {
  TrainConfig tc = tiny();
  tc.steps = 30;
  for (Arch arch : {Arch::rezero, Arch::layerscale, Arch::dwa}) {
    INFO(name(arch));
    Trainer<float> a, b;
    REQUIRE(a.configure(tc, arch).ok());
    auto values = [](Trainer<float>& t, const std::string& prefix) {
      std::vector<float> v;
      for (const Param<float>& p : t.network().params())
        if (p.name.rfind(prefix, 0) == 0) v.insert(v.end(), p.w, p.w + p.n);
      return v;
    };
    const std::string prefix = arch == Arch::dwa ? "dwa[" : "gate[";
    const std::vector<float> init = values(a, prefix);
    REQUIRE(!init.empty());
    if (arch == Arch::rezero)
      for (float g : init) CHECK(g == 0.0f);
    if (arch == Arch::layerscale)
      for (float g : init) CHECK(g == 0.1f);  // 2 blocks: CaiT's 0.1
    // The averaging weights: the identity at init, as a (L, L + 1) matrix.
    const std::vector<double> w0 = a.dwa_weights();
    if (arch == Arch::dwa) {
      REQUIRE(w0.size() == 2 * 3);
      CHECK(w0 == std::vector<double>{0, 1, 0, 0, 0, 1});
    } else {
      CHECK(w0.empty());
    }
    // gates(): every entry gate_init at init, the parameters "gate[unit k]" unit by unit.
    const Gates g0 = a.gates();
    if (arch == Arch::dwa) {
      CHECK(g0.width == 0);
      CHECK(g0.values.empty());
      CHECK(g0.init.empty());
    } else {
      const double gate_init = arch == Arch::rezero ? 0.0 : double(0.1f);
      CHECK(g0.width == (arch == Arch::rezero ? 1 : tc.width));
      REQUIRE(g0.init.size() == 4);  // 2 transformer blocks, 2 units each
      REQUIRE(g0.values.size() == 4 * size_t(g0.width));
      for (size_t k = 0; k < 4; ++k) {
        CHECK(g0.init[k] == Approx(gate_init).epsilon(1e-7));
        CHECK(g0.magnitude[k] == Approx(gate_init).epsilon(1e-7));
      }
      for (size_t i = 0; i < init.size(); ++i) CHECK(g0.values[i] == double(init[i]));
    }
    a.step(10);
    const std::vector<float> trained = values(a, prefix);
    CHECK(trained != init);  // they learn
    if (arch != Arch::dwa) {
      const Gates g = a.gates();
      REQUIRE(g.values.size() == trained.size());
      for (size_t i = 0; i < trained.size(); ++i) CHECK(g.values[i] == double(trained[i]));
      CHECK(g.values != g0.values);
      CHECK(g.init == g0.init);  // still the value at init
      for (size_t k = 0; k < g.magnitude.size(); ++k) {
        double sum = 0;
        for (int i = 0; i < g.width; ++i) sum += std::abs(g.values[k * g.width + i]);
        CHECK(g.magnitude[k] == Approx(sum / g.width));
      }
    }
    if (arch == Arch::dwa) {
      const std::vector<double> w = a.dwa_weights();
      CHECK(w != w0);
      CHECK(w[2] == 0.0);  // w_{1,2} does not exist: always 0
    }
    const std::string blob = a.state();
    REQUIRE(b.load(blob).ok());
    CHECK(values(b, prefix) == trained);
    CHECK(b.dwa_weights() == a.dwa_weights());
    CHECK(b.gates().values == a.gates().values);
    test::check_same_logs(a.step(10), b.step(10));
    CHECK(b.state() == a.state());
  }
}

TEST_CASE("trainer: a blow-up stops the run at its first non-finite step", "[trainer]") {
  TrainConfig tc = tiny(Task::teacher);
  tc.block = Block::mlp;
  tc.depth = 8;
  tc.optimizer = Optimizer::sgd;
  tc.momentum = 0.9;
  tc.lr = 10;
  tc.steps = 200;
  Trainer<float> tr;
  REQUIRE(tr.configure(tc, Arch::plain).ok());
  const std::vector<TrainLog> logs = tr.step(200);
  REQUIRE(!logs.empty());
  const TrainLog& last = logs.back();
  std::printf("trainer plain sgd lr 10: stopped at step %lld\n", (long long)last.step);
  CHECK(tr.stopped());
  CHECK(last.first_nonfinite == last.step);
  CHECK(tr.first_nonfinite() == last.step);
  CHECK(std::string(outcome(last, 1.0, 0.0)) == "diverged");
  CHECK(tr.step(10).empty());
  // The stopped run saves and loads back, beside it and in place, still stopped at the same step;
  // here the loss was non-finite before the update, so the stop step is one past the steps done.
  CHECK(tr.steps_done() == last.step - 1);
  const std::string blob = tr.state();
  Trainer<float> back;
  REQUIRE(back.configure(tiny(Task::copy), Arch::residual).ok());
  REQUIRE(back.load(blob).ok());
  CHECK(back.stopped());
  CHECK(back.first_nonfinite() == last.step);
  CHECK(back.state() == blob);
  CHECK(back.step(10).empty());
  REQUIRE(tr.load(blob).ok());
  CHECK(tr.state() == blob);
}

TEST_CASE("trainer: a state of its own config loads in place, read straight into its tensors, and another beside it",
          "[trainer][state]") {
  Trainer<float> a;
  REQUIRE(a.configure(tiny(), Arch::pre_ln).ok());
  a.step(6);
  const std::string blob = a.state();
  const std::vector<TrainLog> next = a.step(9);

  // A trainer of the same config: every read lands in a buffer of at most
  // kStateReadBytes or in the trainer's own parameters and moments, never past the size.
  Trainer<float> b;
  REQUIRE(b.configure(tiny(), Arch::pre_ln).ok());
  const float* params = b.network().params().front().w;
  bool past_end = false, into_params = false;
  size_t largest_buffer_read = 0;
  const Status st = b.load(blob.size(), [&](uint64_t at, char* out, size_t n) {
    if (at + n > blob.size()) past_end = true;
    std::memcpy(out, blob.data() + at, n);
    if (reinterpret_cast<const float*>(out) == params)
      into_params = true;
    else if (n > 16)
      largest_buffer_read = std::max(largest_buffer_read, n);
  });
  REQUIRE(st.ok());
  CHECK_FALSE(past_end);
  CHECK(into_params);
  CHECK(b.network().params().front().w == params);  // the same trainer, loaded in place
  CHECK(largest_buffer_read <= kStateReadBytes);
  CHECK(b.state() == blob);
  test::check_same_logs(b.step(9), next);

  // A state of another config is made beside the trainer: refused naming state
  // and the budget when the two would not fit what its engine holds, the trainer as it was.
  Trainer<float> t;
  REQUIRE(t.configure(tiny(Task::teacher), Arch::residual).ok());
  const std::string before = t.state();
  const Status full = t.load(blob, kMemoryBudget);
  INFO(full.message);
  CHECK(full.field == "state");
  CHECK(full.message.rfind("state: config: depth: 2 needs ", 0) == 0);
  CHECK(full.message.find("its engine holds 768 MB already") != std::string::npos);
  CHECK(t.state() == before);
  CHECK(t.load(blob, trainer_bytes(t.config(), t.arch())).ok());
  CHECK(t.state() == blob);
}

namespace {

TrainConfig padded(NormChoice norm, BnPads pads = BnPads::mask) {
  TrainConfig tc = tiny(Task::reverse);
  tc.seq = 4;
  tc.seq_min = 2;
  tc.norm = norm;
  tc.bn_pads = pads;
  tc.steps = 20;
  return tc;
}

}  // namespace

TEST_CASE("trainer: LayerNorm's and RMSNorm's held-out losses are the same in BatchNorm's three modes",
          "[trainer][batchnorm]") {
  for (Arch arch : {Arch::pre_ln, Arch::post_ln, Arch::pre_rms, Arch::sandwich}) {
    Trainer<double> tr;
    REQUIRE(tr.configure(padded(NormChoice::automatic), arch).ok());
    const std::vector<TrainLog> logs = tr.step(20);
    REQUIRE(!logs.empty());
    const auto h = tr.heldout_modes();
    INFO(name(arch));
    CHECK(h.train_mode == h.eval_mode);
    CHECK(h.one_seq == h.eval_mode);
    CHECK(h.eval_mode == logs.back().heldout_loss);
    CHECK(logs.back().heldout_loss_one_seq == logs.back().heldout_loss);
    CHECK(logs.back().bn_mean_distance.empty());
  }
}

TEST_CASE("trainer: a BatchNorm run reports its three held-out losses and PowerNorm's distances",
          "[trainer][batchnorm]") {
  for (BnPads pads : {BnPads::count, BnPads::mask}) {
    Trainer<float> tr;
    REQUIRE(tr.configure(padded(NormChoice::batchnorm, pads), Arch::pre_ln).ok());
    const std::vector<TrainLog> logs = tr.step(20);
    REQUIRE(logs.size() == 4);
    const TrainLog& last = logs.back();
    INFO(name(pads));
    CHECK(last.heldout_loss_eval_mode == last.heldout_loss);
    CHECK(std::isfinite(last.heldout_loss_train_mode));
    CHECK(std::isfinite(last.heldout_loss_one_seq));
    CHECK(last.heldout_loss_train_mode != last.heldout_loss_eval_mode);
    REQUIRE(last.bn_mean_distance.size() == 2 * 2 + 1);  // each unit's in norm, and the final norm
    REQUIRE(last.bn_var_distance.size() == 5);
    for (size_t i = 0; i < 5; ++i) CHECK((last.bn_mean_distance[i] > 0 && last.bn_var_distance[i] > 0));
    const auto h = tr.heldout_modes();
    CHECK(h.eval_mode == last.heldout_loss);
    CHECK(h.train_mode == last.heldout_loss_train_mode);
    CHECK(h.one_seq == last.heldout_loss_one_seq);
  }
}

TEST_CASE("trainer: a saved BatchNorm model loads with its running statistics, the same eval-mode loss",
          "[trainer][batchnorm][state]") {
  Trainer<float> tr;
  REQUIRE(tr.configure(padded(NormChoice::batchnorm, BnPads::count), Arch::post_ln).ok());
  tr.step(20);
  const std::string blob = tr.state();
  const auto h = tr.heldout_modes();
  Trainer<float> other;
  REQUIRE(other.load(blob).ok());
  const auto g = other.heldout_modes();
  CHECK(g.eval_mode == h.eval_mode);
  CHECK(g.train_mode == h.train_mode);
  CHECK(g.one_seq == h.one_seq);
  // In place, into a trainer of the same config whose running statistics are still at init.
  Trainer<float> fresh;
  REQUIRE(fresh.configure(padded(NormChoice::batchnorm, BnPads::count), Arch::post_ln).ok());
  CHECK(fresh.heldout_modes().eval_mode != h.eval_mode);
  REQUIRE(fresh.load(blob).ok());
  CHECK(fresh.heldout_modes().eval_mode == h.eval_mode);
  // A damaged or cut file is refused by name, the trainer left as it was.
  std::string bad = blob;
  bad[bad.size() - 20] ^= 0x40;
  Status st = other.load(bad);
  CHECK(st.field == "state");
  CHECK(other.load(blob.substr(0, blob.size() - 9)).field == "state");
  CHECK(other.heldout_modes().eval_mode == h.eval_mode);
}
