// Four published training claims, each in one small setting (seconds natively)
// found by scripts/search-reproductions.js, checked on seeds 0, 1 and 2. Each
// case prints what it measured; docs/reproductions.md ("Reproductions of
// training claims") has the table and where the settings come from.
//
// Every comparison is made on the held-out set, item by item (a teacher
// example's squared error, a scored position's cross-entropy), and must hold
// by more than kZ standard errors of the held-out mean (of the paired
// difference when two models are compared on the same items), so a verdict
// is unlikely to be an accident of which items were held out. The training data are
// fresh every step, so the held-out loss estimates the training loss (the
// loss over the task's distribution) as well. The thresholds on the loss
// itself ("trained", "fails") are the trainer's outcome thresholds
// (trainer.h), named below.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <vector>

#include "resnorm/trainer.h"

using namespace resnorm;

namespace {

// Standard errors a verdict must clear: one-sided, a margin of 3 standard
// errors is met by chance about once in 700.
constexpr double kZ = 3.0;
constexpr uint32_t kSeeds[] = {0, 1, 2};

struct Mean {
  double mean = 0, se = 0;
};

Mean mean_se(const std::vector<double>& x) {
  Mean m;
  for (double v : x) m.mean += v;
  m.mean /= double(x.size());
  double ss = 0;
  for (double v : x) ss += (v - m.mean) * (v - m.mean);
  m.se = std::sqrt(ss / double(x.size() - 1) / double(x.size()));
  return m;
}

// a - b item by item (both measured on the same held-out items).
Mean paired(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  std::vector<double> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return mean_se(d);
}

// The held-out loss item by item: the squared error of each teacher example,
// the cross-entropy of each scored position; skip_block in 1..L removes that block.
std::vector<double> heldout_items(Trainer<float>& tr, int skip_block = 0) {
  std::vector<double> items;
  Outputs out;
  const int V = tr.task().vocab();
  for (const Batch& b : tr.task().heldout()) {
    tr.network().run(b, false, skip_block, &out);
    for (int i = 0; i < b.size; ++i) {
      if (!tr.task().language()) {
        const double e = out.f(i, 0) - b.y[i];
        items.push_back(e * e);
        continue;
      }
      for (int t = 0; t < b.length; ++t) {
        const int32_t target = b.targets[static_cast<size_t>(i) * b.length + t];
        if (target < 0) continue;
        double mx = out.f(i, t * V);
        for (int v = 1; v < V; ++v) mx = std::max(mx, out.f(i, t * V + v));
        double sum = 0;
        for (int v = 0; v < V; ++v) sum += std::exp(out.f(i, t * V + v) - mx);
        items.push_back(mx + std::log(sum) - out.f(i, t * V + target));
      }
    }
  }
  return items;
}

struct Run {
  std::string name;  // arch@depth[/warmup]
  TrainLog last;
  std::vector<double> items;  // held-out, per item
  Mean heldout;
  double chance = 0, optimal = 0;
  const char* outcome = "";
  Lesion lesion;
};

// The trainer's "trained": held-out loss below halfway from chance to the
// optimum, here by kZ standard errors.
bool trained(const Run& r) {
  return !r.items.empty() && r.heldout.mean + kZ * r.heldout.se < r.optimal + 0.5 * (r.chance - r.optimal);
}

// How long a run goes: all tc.steps updates, or until it is trained (checked
// every kCheckEvery updates; a claim that a stack trains within tc.steps needs
// no more, and the check costs two held-out passes).
enum class Until { end, trained };
constexpr int kCheckEvery = 25;

Run train(TrainConfig tc, Arch arch, Until until = Until::end, bool lesion = false) {
  const int64_t chunk = until == Until::trained ? kCheckEvery : tc.steps;
  tc.log_every = int(chunk);  // logging changes no update
  Trainer<float> tr;
  const Status st = tr.configure(tc, arch);
  INFO(st.message);
  REQUIRE(st.ok());
  Run r;
  r.name = std::string(name(arch)) + "@" + std::to_string(tc.depth) +
           (tc.warmup ? "/w" + std::to_string(tc.warmup) : std::string());
  r.chance = tr.task().chance_loss();
  r.optimal = tr.task().optimal_loss();
  while (tr.steps_done() < tc.steps && !tr.stopped()) {
    const std::vector<TrainLog> logs = tr.step(chunk);
    REQUIRE(!logs.empty());
    r.last = logs.back();
    r.items.clear();
    if (tr.stopped()) break;  // non-finite: no held-out items
    r.items = heldout_items(tr);
    r.heldout = mean_se(r.items);
    // The items are the trainer's own held-out loss, recomputed from the logits.
    CHECK(r.heldout.mean == Approx(r.last.heldout_loss).epsilon(1e-9));
    if (until == Until::trained && trained(r)) break;
  }
  r.outcome = outcome(r.last, r.chance, r.optimal);
  if (lesion && !tr.stopped()) r.lesion = tr.lesion();
  return r;
}

void print(uint32_t seed, const Run& r) {
  std::printf("  seed %u %-16s %-9s step %3lld held-out %.4f +- %.4f (chance %.3f)", seed, r.name.c_str(), r.outcome,
              (long long)r.last.step, r.heldout.mean, r.heldout.se, r.chance);
  if (std::isfinite(r.last.heldout_accuracy)) std::printf(" acc %.3f", r.last.heldout_accuracy);
  std::printf(" top cosine %.3f\n", r.last.top_cosine);
}

// Fails: non-finite, or the held-out loss within 10% of chance (the
// trainer's "collapsed" loss threshold) by kZ standard errors.
bool fails(const Run& r) { return r.items.empty() || r.heldout.mean - kZ * r.heldout.se > 0.9 * r.chance; }

// a ends lower than b by kZ standard errors of the paired difference.
bool lower(const Run& a, const Run& b) {
  if (a.items.empty() || b.items.empty()) return !a.items.empty();
  const Mean d = paired(b.items, a.items);
  std::printf("    %s - %s = %.4f +- %.4f\n", b.name.c_str(), a.name.c_str(), d.mean, d.se);
  return d.mean > kZ * d.se;
}

// A task's fixed flags, as `resnorm train` reads them, with the seed.
TrainConfig task_config(const char* flags, uint32_t seed) {
  TrainConfig tc;
  const Status st = parse_train_config_text(flags, &tc);
  INFO(st.message);
  REQUIRE(st.ok());
  tc.seed = seed;
  return tc;
}

// Regression on the teacher, MLP blocks d = 32, m = 32, relu, He's init (W1
// entries N(0, 2/d)), B = 32 fresh examples a step, plain SGD with momentum;
// 8 held-out batches (256 examples). The teacher's outputs are scaled to mean
// square 1 over the held-out set, so its size is part of the task (the
// search uses the same).
TrainConfig teacher(uint32_t seed) {
  return task_config(
      "--task teacher --block mlp --width 32 --expansion 1 --activation relu --batch 32 --eval-batches 8 "
      "--optimizer sgd --momentum 0.9",
      seed);
}

// Reverse n = 4 symbols of V = 8 (T = 8, 4 scored positions), transformer
// blocks d = 16, m = 32, 4 heads, B = 16 fresh sequences a step, Adam with a
// constant learning rate after the warmup; 2 held-out batches (128 positions).
TrainConfig reverse(uint32_t seed) {
  return task_config(
      "--task reverse --block transformer --width 16 --expansion 2 --heads 4 --seq 4 --vocab 8 --batch 16 "
      "--optimizer adam --schedule constant --eval-batches 2",
      seed);
}

// One run of a claim: the stack and its schedule.
struct Spec {
  Arch arch;
  int depth, steps;
  double lr;
  int warmup = 0;
  Until until = Until::end;
};

TrainConfig with(TrainConfig tc, const Spec& s) {
  tc.depth = s.depth;
  tc.steps = s.steps;
  tc.lr = s.lr;
  tc.warmup = s.warmup;
  return tc;
}

// Each spec's run on tc's task, printed.
std::vector<Run> train_each(uint32_t seed, const TrainConfig& tc, std::initializer_list<Spec> specs) {
  std::vector<Run> runs;
  for (const Spec& s : specs) {
    runs.push_back(train(with(tc, s), s.arch, s.until));
    print(seed, runs.back());
  }
  return runs;
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const size_t m = x.size() / 2;
  return x.size() % 2 ? x[m] : 0.5 * (x[m - 1] + x[m]);
}

}  // namespace

// He et al. 2016, Fig. 1 and 6: a plain 56-layer stack ends at a higher
// training loss than a plain 20-layer one; a residual 56-layer stack ends
// lower than both. Plain here has no norm at all (the engine has no "plain +
// norm" preset); the residual stack is pre_ln, since an unnormalized residual
// stack at He's init is not finite at its first step (its stream doubles in
// variance each block, 2^56 at the top).
TEST_CASE("He 2016: plain 56 ends above plain 20, Pre-LN 56 below both", "[repro]") {
  std::printf("He 2016: teacher, SGD lr 3e-3, 200 steps\n");
  for (uint32_t seed : kSeeds) {
    const std::vector<Run> r =
        train_each(seed, teacher(seed),
                   {{Arch::plain, 20, 200, 3e-3}, {Arch::plain, 56, 200, 3e-3}, {Arch::pre_ln, 56, 200, 3e-3}});
    const Run &plain20 = r[0], &plain56 = r[1], &pre56 = r[2];
    CHECK(lower(plain20, plain56));
    CHECK(lower(pre56, plain20));
    CHECK(lower(pre56, plain56));
  }
}

// Xiong et al. 2020: with Adam at one peak learning rate,
// Post-LN without warmup ends clearly worse, Post-LN with warmup trains, and
// Pre-LN without warmup trains. The effect needs a large learning rate: at
// 1e-3 (the search's last point, a larger model) Post-LN trains without
// warmup and warmup only slows it.
TEST_CASE("Xiong 2020: at a large lr Post-LN needs warmup, Pre-LN does not", "[repro]") {
  std::printf("Xiong 2020: reverse, depth 6, Adam lr 1.2e-2, 300 steps, warmup 0 or 200\n");
  for (uint32_t seed : kSeeds) {
    const std::vector<Run> r = train_each(
        seed, reverse(seed),
        {{Arch::post_ln, 6, 300, 1.2e-2}, {Arch::post_ln, 6, 300, 1.2e-2, 200}, {Arch::pre_ln, 6, 300, 1.2e-2}});
    const Run &post = r[0], &post_warm = r[1], &pre = r[2];
    // Clearly worse: not trained (above halfway to chance by kZ standard errors, or non-finite) ...
    CHECK((post.items.empty() || post.heldout.mean - kZ * post.heldout.se > 0.5 * post.chance));
    // ... and worse than the same stack with warmup, item by item.
    CHECK(lower(post_warm, post));
    CHECK(trained(post_warm));
    CHECK(trained(pre));
  }
}

// Liu et al. 2020 (Admin), Wang et al. 2022 (DeepNet): at one learning rate
// Post-LN trains at 6 blocks and fails at 18, while Pre-LN, DeepNorm and
// Admin train at 18. Post-LN at 18 fails without diverging: its loss stays at
// chance, every value finite. With no warmup every run is at the full learning rate from its first
// step, so a stack that trains is stopped once it is trained (the search's
// table has every run to step 200, each still trained there).
TEST_CASE("Liu 2020 / DeepNet: Post-LN fails at 18 blocks, Pre-LN, DeepNorm, Admin train", "[repro]") {
  std::printf("Liu 2020 / DeepNet: reverse, Adam lr 4e-3, no warmup, 200 steps\n");
  for (uint32_t seed : kSeeds) {
    const std::vector<Run> r = train_each(seed, reverse(seed),
                                          {{Arch::post_ln, 6, 200, 4e-3, 0, Until::trained},
                                           {Arch::post_ln, 18, 200, 4e-3},
                                           {Arch::pre_ln, 18, 200, 4e-3, 0, Until::trained},
                                           {Arch::deepnorm, 18, 200, 4e-3, 0, Until::trained},
                                           {Arch::admin, 18, 200, 4e-3, 0, Until::trained}});
    const Run &post6 = r[0], &post18 = r[1];
    CHECK(trained(post6));
    CHECK(fails(post18));
    // How it fails: every value finite, the loss stuck at chance. Whether the
    // top stream also becomes the same for every input (the trainer's
    // "collapsed", top cosine > 0.99) depends on the seed and on float
    // rounding: seeds 0 and 1 end at 1.000, seed 2 at 0.94. It is printed, not
    // asserted; docs/reproductions.md's table reports it per seed.
    CHECK(!post18.items.empty());
    CHECK(post18.last.first_nonfinite < 0);
    for (size_t i = 2; i < r.size(); ++i) CHECK(trained(r[i]));
  }
}

// Veit et al. 2016, Fig. 3: after training (on fresh examples every step),
// removing any single block of a residual stack raises the held-out loss a
// little, removing one layer of a plain stack raises it to near chance. Each
// removal is measured as the fraction of the way from the trained loss to
// chance it goes: (lesioned - base) / (chance - base). "A little": the median
// block under 0.1 of the way; "near chance": the median layer at least 0.7 of
// the way. The largest block of the residual stack (usually block 1, the one
// reading the raw input) matters far more than the median: it is printed,
// not asserted.
TEST_CASE("Veit 2016: removing a block of a trained residual stack costs little, of a plain stack nearly all",
          "[repro]") {
  std::printf("Veit 2016: teacher, depth 20, SGD lr 3e-3, 200 steps\n");
  for (uint32_t seed : kSeeds) {
    for (Arch a : {Arch::pre_ln, Arch::plain}) {
      const Run r = train(with(teacher(seed), {a, 20, 200, 3e-3}), a, Until::end, true);
      print(seed, r);
      // A lesion means something only of a network that learned: the trainer's outcome.
      REQUIRE(std::string(r.outcome) == "trained");
      std::vector<double> frac;
      for (double loss : r.lesion.loss) frac.push_back((loss - r.lesion.base) / (r.chance - r.lesion.base));
      const size_t mx = size_t(std::max_element(frac.begin(), frac.end()) - frac.begin());
      const double med = median(frac);
      std::printf(
          "    lesion of %s: base %.4f, one block removed: median %.4f (%.3f of the way to chance), max %.4f"
          " (%.3f, block %d), min %.4f\n",
          r.name.c_str(), r.lesion.base, median(r.lesion.loss), med, r.lesion.loss[mx], frac[mx], int(mx) + 1,
          *std::min_element(r.lesion.loss.begin(), r.lesion.loss.end()));
      if (a == Arch::pre_ln)
        CHECK(med < 0.1);
      else
        CHECK(med > 0.7);
    }
  }
}

// Bachlechner et al. 2020 (ReZero): h <- h + a f(h) with a = 0 at init trains
// at a depth where the plain stack does not and the residual stack without a
// norm is not finite (each of its blocks doubles the stream's variance at
// He's init, the same reason He's claim above uses pre_ln for residual-56).
TEST_CASE("ReZero 2020: ReZero trains at 56 blocks, plain and unnormalized residual do not", "[repro]") {
  std::printf("ReZero 2020: teacher, SGD lr 3e-3, 200 steps, 56 blocks\n");
  for (uint32_t seed : kSeeds) {
    const std::vector<Run> r =
        train_each(seed, teacher(seed),
                   {{Arch::plain, 56, 200, 3e-3}, {Arch::residual, 56, 200, 3e-3}, {Arch::rezero, 56, 200, 3e-3}});
    const Run &plain = r[0], &residual = r[1], &rezero = r[2];
    // Plain does not train: above halfway from chance by kZ standard errors
    // (its loss sits at chance, but the teacher's items scatter too widely for
    // "within 10% of chance" by kZ of them), and ReZero ends lower, item by item.
    const double halfway = plain.optimal + 0.5 * (plain.chance - plain.optimal);
    CHECK(plain.heldout.mean - kZ * plain.heldout.se > halfway);
    CHECK(lower(rezero, plain));
    CHECK(!trained(residual));
    CHECK(trained(rezero));
  }
}

// The article's open question: how much do the last blocks of a trained
// stack matter? Each stack trains (asserted: a lesion says something only of
// a network that learned), then each block is skipped in turn; printed per
// preset: the mean held-out loss increase for a block of the last quarter,
// of the first quarter, and their ratio. The comparison is a measurement,
// not a claim any one paper makes at this scale, so the ratios are printed
// and docs/reproductions.md reports them; the lab's Late layers preset judges them
// against Pre-LN's.
TEST_CASE("Late layers: which presets make the last quarter of a trained stack count", "[repro]") {
  std::printf("Late layers: reverse, 8 blocks, Adam lr 2e-3, 300 steps (Post-LN with warmup 100)\n");
  for (uint32_t seed : kSeeds) {
    for (Arch a : {Arch::pre_ln, Arch::post_ln, Arch::rezero, Arch::layerscale, Arch::lns, Arch::mix_ln, Arch::dwa}) {
      Spec s{a, 8, 300, 2e-3, a == Arch::post_ln ? 100 : 0};
      const Run r = train(with(reverse(seed), s), a, Until::end, true);
      print(seed, r);
      CHECK(trained(r));
      const std::vector<double>& inc = r.lesion.increase;
      REQUIRE(inc.size() == 8u);
      const double early = 0.5 * (inc[0] + inc[1]), late = 0.5 * (inc[6] + inc[7]);
      std::printf("    %s: one block skipped, last quarter +%.4f, first quarter +%.4f, ratio %.4f\n", r.name.c_str(),
                  late, early, late / early);
    }
  }
}
