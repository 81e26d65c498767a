// The trainer (trainer.cpp): it learns, it logs what trainer.h promises, a
// saved state continues bit-identically, a damaged or hostile state is refused
// by name, a blow-up stops the run, and a config over the budget is refused.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

namespace {

TrainConfig tiny(Task task = Task::copy) { return tiny_train_config(task); }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

void check_same(const std::vector<TrainLog>& a, const std::vector<TrainLog>& b) {
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].step == b[i].step);
    CHECK(same_bits(a[i].train_loss, b[i].train_loss));
    CHECK(same_bits(a[i].heldout_loss, b[i].heldout_loss));
    CHECK(same_bits(a[i].grad_norm_global, b[i].grad_norm_global));
    CHECK(same_bits(a[i].output_change, b[i].output_change));
    CHECK(a[i].grad_norm == b[i].grad_norm);
    CHECK(a[i].update_ratio == b[i].update_ratio);
  }
}

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
    check_same(a1, b1);
    const std::string blob = a.state();
    const std::vector<TrainLog> a2 = a.step(8);
    Trainer<float> c;
    REQUIRE(c.configure(tiny(Task::teacher), Arch::plain).ok());  // anything: load replaces it
    const Status st = c.load(blob);
    INFO(st.message);
    REQUIRE(st.ok());
    CHECK(c.steps_done() == 7);
    CHECK(c.arch() == Arch::post_ln);
    check_same(a2, c.step(8));
    check_same(a2, b.step(8));
    CHECK(c.state() == a.state());
  }
}

TEST_CASE("trainer: mix_ln's fraction trains, is saved in the state, and an older state takes the default",
          "[trainer][state]") {
  // Two blocks: 0 leaves both Pre-LN, so mix_ln trains as pre_ln (the same
  // final norm under auto) bit for bit; 0.5 makes block 1 Post-LN.
  TrainConfig tc = tiny();
  tc.mix_fraction = 0;
  Trainer<float> pre, mix0;
  REQUIRE(pre.configure(tc, Arch::pre_ln).ok());
  REQUIRE(mix0.configure(tc, Arch::mix_ln).ok());
  const std::vector<TrainLog> m0 = mix0.step(10);
  check_same(pre.step(10), m0);
  tc.mix_fraction = 0.5;
  Trainer<float> half;
  REQUIRE(half.configure(tc, Arch::mix_ln).ok());
  const std::vector<TrainLog> h1 = half.step(10);
  REQUIRE(h1.size() == m0.size());
  CHECK(!same_bits(h1.back().train_loss, m0.back().train_loss));
  // The state holds 0.5 and continues bit for bit.
  const std::string blob = half.state();
  Trainer<float> back;
  REQUIRE(back.load(blob).ok());
  CHECK(back.config().mix_fraction == 0.5);
  const std::vector<TrainLog> h2 = half.step(10);
  check_same(h2, back.step(10));
  // A state whose config text has no --mix-fraction (saved before the field
  // existed) loads with the default.
  Trainer<float> dflt;
  tc.mix_fraction = kMixLnFraction;
  REQUIRE(dflt.configure(tc, Arch::mix_ln).ok());
  dflt.step(5);
  std::string old = dflt.state();
  const size_t text_at = 8 + 4 + 4 + 4;
  uint32_t text_size;
  std::memcpy(&text_size, &old[text_at - 4], 4);
  const std::string flag = " --mix-fraction 0.25";
  const size_t at = old.find(flag, text_at);
  REQUIRE(at != std::string::npos);
  REQUIRE(at < text_at + text_size);
  old.erase(at, flag.size());
  text_size -= static_cast<uint32_t>(flag.size());
  std::memcpy(&old[text_at - 4], &text_size, 4);
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 over everything before the checksum
  for (size_t i = 0; i + 8 < old.size(); ++i) h = (h ^ static_cast<unsigned char>(old[i])) * 0x100000001b3ull;
  std::memcpy(&old[old.size() - 8], &h, 8);
  Trainer<float> restored;
  const Status st = restored.load(old);
  INFO(st.message);
  REQUIRE(st.ok());
  CHECK(restored.config().mix_fraction == kMixLnFraction);
  check_same(dflt.step(10), restored.step(10));
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
    check_same(a.step(10), b.step(10));
    CHECK(b.state() == a.state());
  }
}

TEST_CASE("trainer: a damaged or hostile state is refused by name and leaves the trainer as it was",
          "[trainer][state]") {
  Trainer<float> a;
  REQUIRE(a.configure(tiny(), Arch::pre_ln).ok());
  a.step(3);
  const std::string blob = a.state();
  Trainer<float> t;
  REQUIRE(t.configure(tiny(Task::teacher), Arch::residual).ok());
  const std::string before = t.state();
  auto refused = [&](const std::string& b) {
    const Status st = t.load(b);
    return !st.ok() && st.field == "state" && st.message.rfind("state: ", 0) == 0;
  };
  // Every prefix up to 300 bytes, then 200 more spread over the rest.
  for (size_t n = 0; n < 300; ++n) REQUIRE(refused(blob.substr(0, n)));
  for (size_t n = 300; n < blob.size(); n += blob.size() / 200 + 1) REQUIRE(refused(blob.substr(0, n)));
  // One flipped bit anywhere.
  for (size_t i = 0; i < blob.size(); i += blob.size() / 300 + 1) {
    std::string b = blob;
    b[i] ^= 0x10;
    REQUIRE(refused(b));
  }
  CHECK(t.load(blob + "x").message.find("checksum") != std::string::npos);
  // Hostile: header fields rewritten and the checksum made to match.
  auto resealed = [](std::string b) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i + 8 < b.size(); ++i) h = (h ^ static_cast<unsigned char>(b[i])) * 0x100000001b3ull;
    std::memcpy(&b[b.size() - 8], &h, 8);
    return b;
  };
  const size_t text_size_at = 8 + 4 + 4;
  uint32_t text_size;
  std::memcpy(&text_size, &blob[text_size_at], 4);
  const size_t count_at = text_size_at + 4 + text_size + 4 + 8 + 8;
  const std::pair<size_t, uint32_t> pokes[] = {{8, 2},                             // version
                                               {12, 99},                           // arch
                                               {text_size_at, 0xFFFFFFFFu},        // config size
                                               {text_size_at + 4 + text_size, 2},  // scalar size
                                               {count_at, 0xFFFFFFFFu},            // tensor count
                                               {count_at + 4, 0xFFFFFFFFu}};       // first tensor's size
  for (const auto& [at, value] : pokes) {
    std::string b = blob;
    std::memcpy(&b[at], &value, 4);
    const Status st = t.load(resealed(b));
    INFO(at << ": " << st.message);
    CHECK(refused(resealed(b)));
  }
  {
    std::string b = blob;
    b.replace(text_size_at + 4, 8, "--depth ");  // the config now begins "--depth " + "reverse": not a number
    CHECK(t.load(resealed(b)).message.rfind("state: config:", 0) == 0);
  }
  CHECK(t.load(std::string(1000, 'R')).message == "state: not a resnorm training state");
  CHECK(t.state() == before);
  CHECK(t.load(blob).ok());
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
}

TEST_CASE("trainer: a config over the budget is refused naming depth", "[trainer]") {
  TrainConfig tc;
  tc.depth = 128;
  tc.width = 256;
  tc.seq = 64;
  tc.batch = 256;
  tc.archs = all_archs();
  const Status st = check_train(tc);
  INFO(st.message);
  CHECK(st.field == "depth");
  CHECK(st.max_fit >= 0);
  CHECK(st.max_fit < 128);
  Trainer<float> tr;
  CHECK(tr.configure(tc, Arch::pre_ln).field == "depth");
  CHECK(check_train(TrainConfig()).ok());
}

TEST_CASE("trainer: the state streams piece by piece as state() has it, the tensors straight from the trainer",
          "[trainer][state]") {
  Trainer<float> a;
  REQUIRE(a.configure(tiny(), Arch::pre_ln).ok());
  a.step(7);
  const std::string blob = a.state();
  CHECK(a.state_size() == blob.size());
  std::string streamed;
  size_t pieces = 0;
  bool from_params = false;
  const float* first = a.network().params().front().w;
  a.write_state([&](const char* p, size_t n) {
    streamed.append(p, n);
    ++pieces;
    from_params = from_params || reinterpret_cast<const float*>(p) == first;
  });
  CHECK(streamed == blob);
  CHECK(pieces > 2);
  CHECK(from_params);  // the first parameter's own memory, not a copy
  CHECK(state_checksum(std::string_view(blob).substr(0, blob.size() - 8)) == [&] {
    uint64_t h;
    std::memcpy(&h, blob.data() + blob.size() - 8, 8);
    return h;
  }());
}

TEST_CASE("trainer: a state of its own config loads in place, read straight into its tensors; another beside it",
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
  check_same(b.step(9), next);

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

TEST_CASE("trainer: trainers side by side share one budget; each one's bytes are its share of train_cost",
          "[trainer]") {
  TrainConfig tc;  // the lab's largest shape: d 256, e 4, T 128 tokens
  tc.task = Task::reverse;
  tc.archs = {Arch::pre_ln};
  tc.width = 256;
  tc.expansion = 4;
  tc.seq = 64;
  tc.batch = 1;
  tc.eval_batches = 1;
  tc.steps = 20;
  tc.log_every = 10;
  tc.depth = 19;
  const double one = trainer_bytes(tc, Arch::pre_ln);
  CHECK(one == train_cost(tc).bytes);
  REQUIRE(check_train(tc).ok());
  // Two fit one engine; a third is refused naming depth and the deepest that fits beside them.
  REQUIRE(check_train(tc, one).ok());
  const Status third = check_train(tc, 2 * one);
  INFO(third.message);
  CHECK(third.field == "depth");
  CHECK(third.max_fit >= 0);
  CHECK(third.max_fit < 19);
  CHECK(third.message.find("its engine holds") != std::string::npos);
  TrainConfig at = tc;
  at.depth = static_cast<int>(third.max_fit);
  if (at.depth >= 1) CHECK(check_train(at, 2 * one).ok());
  at.depth += 1;
  CHECK_FALSE(check_train(at, 2 * one).ok());
  Trainer<float> tr;
  CHECK(tr.configure(tc, Arch::pre_ln, 2 * one).field == "depth");
  // Side by side, two archs cost what their two trainers hold, the batches once.
  TrainConfig two = tc;
  two.archs = {Arch::pre_ln, Arch::post_ln};
  const double batches = 2.0 * (2.0 * tc.batch * 128 * 4);  // held-out set and step batch: tokens and targets
  CHECK(std::abs(trainer_bytes(two, Arch::pre_ln) + trainer_bytes(two, Arch::post_ln) - train_cost(two).bytes -
                 batches) < 1);
}
