// What training reports (train_results.cpp): a log's and a lesion's values by
// name, the CLI's JSON lines written from those names, and how a run ended.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "resnorm/train_results.h"

using namespace resnorm;

namespace {

TrainLog sample_log() {
  TrainLog g;
  g.step = 30;
  g.lr = 1e-3;
  g.train_loss = 1.5;
  g.heldout_loss = 1.25;
  g.heldout_accuracy = NAN;
  g.grad_norm_global = 2;
  g.output_change = 0.125;
  g.top_cosine = 0.5;
  g.max_logit = 7.5;
  g.grad_norm = {1, 2, 3};
  g.stream_rms = {1, 1, 1};
  g.w_grad_norm = {0.5, 0.25};
  g.update_ratio = {0.01, 0.02};
  g.contribution = {0.1, INFINITY};
  g.heldout_loss_train_mode = 1.5;
  g.heldout_loss_eval_mode = 1.25;
  g.heldout_loss_one_seq = 2;
  g.bn_mean_distance = {0.5};
  g.bn_var_distance = {0.25};
  return g;
}

std::vector<std::string> names_of(const std::vector<NamedArray>& a) {
  std::vector<std::string> n;
  for (const NamedArray& x : a) n.push_back(x.name);
  return n;
}

}  // namespace

TEST_CASE("train results: a log's JSON line is its values under their names, first_nonfinite last", "[train_results]") {
  const TrainLog g = sample_log();
  std::vector<std::string> scalars;
  for (const NamedScalar& s : named_scalars(g)) scalars.push_back(s.name);
  CHECK(scalars == std::vector<std::string>{"step", "lr", "train_loss", "heldout_loss", "heldout_accuracy",
                                            "grad_norm_global", "output_change", "top_cosine",
                                            "heldout_loss_train_mode", "heldout_loss_eval_mode", "heldout_loss_one_seq",
                                            "max_logit", "hc_gain_fwd", "hc_gain_bwd"});
  CHECK(names_of(named_arrays(g)) == std::vector<std::string>{"grad_norm", "stream_rms", "w_grad_norm", "update_ratio",
                                                              "contribution", "bn_mean_distance", "bn_var_distance"});
  CHECK(train_log_json(Arch::pre_ln, g) ==
        "{\"arch\": \"pre_ln\", \"step\": 30, \"lr\": 0.001, \"train_loss\": 1.5, \"heldout_loss\": 1.25, "
        "\"heldout_accuracy\": null, \"grad_norm_global\": 2, \"output_change\": 0.125, \"top_cosine\": 0.5, "
        "\"heldout_loss_train_mode\": 1.5, \"heldout_loss_eval_mode\": 1.25, \"heldout_loss_one_seq\": 2, "
        "\"max_logit\": 7.5, \"hc_gain_fwd\": null, \"hc_gain_bwd\": null, \"grad_norm\": [1, 2, 3], "
        "\"stream_rms\": [1, 1, 1], \"w_grad_norm\": [0.5, 0.25], "
        "\"update_ratio\": "
        "[0.01, 0.02], \"contribution\": [0.1, null], \"bn_mean_distance\": [0.5], \"bn_var_distance\": [0.25], "
        "\"first_nonfinite\": null}");
  TrainLog stopped = g;
  stopped.first_nonfinite = 30;
  CHECK(train_log_json(Arch::plain, stopped).find("\"first_nonfinite\": 30}") != std::string::npos);
  // The largest step the steps field allows is written whole.
  stopped.step = 1000000;
  CHECK(train_log_json(Arch::plain, stopped).find("\"step\": 1000000, ") != std::string::npos);
}

TEST_CASE("train results: the summary names the outcome, the lesion's arrays, the gates and the averaging weights",
          "[train_results]") {
  const TrainLog last = sample_log();
  Lesion les;
  les.base = 1.25;
  les.loss = {1.5, 2};
  les.increase = {0.25, 0.75};
  les.relative = {0.2, 0.6};
  les.contribution = {0.1, 0.2};
  les.contribution_init = {0.3, 0.4};
  CHECK(names_of(named_arrays(les)) ==
        std::vector<std::string>{"loss", "increase", "relative", "contribution", "contribution_init"});
  const std::string plain = train_summary_json(last, les, Gates(), {}, 2.0, 0.0);
  CHECK(plain ==
        "{\"steps\": 30, \"outcome\": \"slow\", \"train_loss\": 1.5, \"heldout_loss\": 1.25, \"heldout_accuracy\": "
        "null, \"first_nonfinite\": null, \"lesion\": {\"base\": 1.25, \"loss\": [1.5, 2], \"increase\": [0.25, 0.75], "
        "\"relative\": [0.2, 0.6], \"contribution\": [0.1, 0.2], \"contribution_init\": [0.3, 0.4]}, \"gates\": null, "
        "\"dwa\": null}");
  Gates gates;
  gates.width = 1;
  gates.values = {0.5, 0.25};
  gates.init = {0, 0};
  gates.magnitude = {0.5, 0.25};
  // DenseFormer's (L, L + 1) = (2, 3) weights: row l - 1 is written up to w_{l,l}.
  const std::string dense = train_summary_json(last, les, gates, {0.5, 0.5, 0, 0.25, 0.25, 0.5}, 2.0, 0.0);
  CHECK(dense.find("\"gates\": {\"width\": 1, \"init\": [0, 0], \"magnitude\": [0.5, 0.25], \"values\": [0.5, "
                   "0.25]}, \"dwa\": [[0.5, 0.5], [0.25, 0.25, 0.5]]}") != std::string::npos);
}

TEST_CASE("train results: a run is trained, diverged, collapsed or slow by its last log", "[train_results]") {
  TrainLog g;
  const double chance = 2.0, optimal = 0.0;
  g.heldout_loss = 0.9;
  CHECK(std::string(outcome(g, chance, optimal)) == "trained");  // below halfway from chance to optimal
  g.heldout_loss = 1.5;
  CHECK(std::string(outcome(g, chance, optimal)) == "slow");
  g.top_cosine = 0.995;
  CHECK(std::string(outcome(g, chance, optimal)) == "slow");  // the outputs agree, but the loss has moved
  g.heldout_loss = 1.9;
  CHECK(std::string(outcome(g, chance, optimal)) == "collapsed");
  g.heldout_loss = 3.1;
  CHECK(std::string(outcome(g, chance, optimal)) == "diverged");
  g.heldout_loss = 0.5;
  g.first_nonfinite = 7;
  CHECK(std::string(outcome(g, chance, optimal)) == "diverged");
  g.first_nonfinite = -1;
  g.heldout_loss = NAN;
  CHECK(std::string(outcome(g, chance, optimal)) == "diverged");
}
