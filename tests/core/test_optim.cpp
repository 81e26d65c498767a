// The optimizers, the schedule and clipping (optim.cpp) against their formulas
// worked by hand.
#include <catch2/catch.hpp>
#include <cmath>

#include "resnorm/optim.h"

using namespace resnorm;

namespace {

// Two parameters: a matrix (weight decay applies) and a gamma (it does not).
struct Two {
  Vecx<double> w1 = Vecx<double>::Constant(2, 1.0), g1 = Vecx<double>(2);
  Vecx<double> w2 = Vecx<double>::Constant(1, 2.0), g2 = Vecx<double>(1);
  std::vector<Param<double>> params;
  Two() {
    g1 << 0.5, -2.0;
    g2 << 0.25;
    Param<double> a, b;
    a.name = "W";
    a.w = w1.data(), a.g = g1.data(), a.n = 2, a.matrix = true;
    b.name = "gamma";
    b.w = w2.data(), b.g = g2.data(), b.n = 1, b.matrix = false;
    params = {a, b};
  }
};

}  // namespace

TEST_CASE("adam: the first step moves each weight by lr against its gradient's sign", "[optim]") {
  TrainConfig tc;
  tc.optimizer = Optimizer::adam;
  Two p;
  Optim<double> opt(tc, p.params);
  opt.update(p.params, 0.01);
  // m = (1 - b1) g, v = (1 - b2) g^2: the bias-corrected step is g / (|g| + eps).
  CHECK(p.w1(0) == Approx(1.0 - 0.01 * 0.5 / (0.5 + 1e-8)).epsilon(1e-14));
  CHECK(p.w1(1) == Approx(1.0 + 0.01 * 2.0 / (2.0 + 1e-8)).epsilon(1e-14));
  CHECK(p.w2(0) == Approx(2.0 - 0.01 * 0.25 / (0.25 + 1e-8)).epsilon(1e-14));
  // A second step with the same gradient: m = (1 - b1^2) g, v = (1 - b2^2) g^2, same corrected step.
  opt.update(p.params, 0.01);
  CHECK(p.w1(0) == Approx(1.0 - 2 * 0.01 * 0.5 / (0.5 + 1e-8)).epsilon(1e-12));
  CHECK(opt.step() == 2);
}

TEST_CASE("adam: a second step with another gradient, by hand", "[optim]") {
  TrainConfig tc;
  tc.beta1 = 0.8;
  tc.beta2 = 0.9;
  tc.eps = 1e-3;
  Two p;
  Optim<double> opt(tc, p.params);
  opt.update(p.params, 0.1);
  const double w_after1 = p.w2(0);
  p.g2(0) = -1.0;
  opt.update(p.params, 0.1);
  const double m = 0.8 * (0.2 * 0.25) + 0.2 * -1.0, v = 0.9 * (0.1 * 0.0625) + 0.1 * 1.0;
  const double expect = w_after1 - 0.1 * (m / (1 - 0.64)) / (std::sqrt(v / (1 - 0.81)) + 1e-3);
  CHECK(p.w2(0) == Approx(expect).epsilon(1e-14));
}

TEST_CASE("adamw decays matrices only, decoupled, and adam's decay is L2 in the gradient", "[optim]") {
  TrainConfig tc;
  tc.optimizer = Optimizer::adamw;
  tc.weight_decay = 0.1;
  Two p;
  Optim<double> opt(tc, p.params);
  opt.update(p.params, 0.01);
  CHECK(p.w1(0) == Approx(1.0 - 0.01 * (0.5 / (0.5 + 1e-8) + 0.1 * 1.0)).epsilon(1e-14));
  CHECK(p.w2(0) == Approx(2.0 - 0.01 * 0.25 / (0.25 + 1e-8)).epsilon(1e-14));  // gamma: no decay
  tc.optimizer = Optimizer::adam;
  Two q;
  q.g1(0) = 0.0;  // only the L2 term: g' = wd w = 0.1, so the first step is lr sign(0.1)
  Optim<double> adam(tc, q.params);
  adam.update(q.params, 0.01);
  CHECK(q.w1(0) == Approx(1.0 - 0.01 * 0.1 / (0.1 + 1e-8)).epsilon(1e-14));
}

TEST_CASE("sgd with momentum, two steps by hand", "[optim]") {
  TrainConfig tc;
  tc.optimizer = Optimizer::sgd;
  tc.momentum = 0.5;
  Two p;
  Optim<double> opt(tc, p.params);
  opt.update(p.params, 0.1);
  CHECK(p.w1(1) == Approx(1.0 + 0.1 * 2.0));
  opt.update(p.params, 0.1);  // v = 0.5 (-2) + (-2) = -3
  CHECK(p.w1(1) == Approx(1.2 + 0.1 * 3.0));
  CHECK(opt.second().empty());
}

TEST_CASE("global-norm clipping: off by default, scales every gradient to the clip", "[optim]") {
  Two p;
  const double norm = std::sqrt(0.25 + 4.0 + 0.0625);
  CHECK(clip_gradients(p.params, 0) == Approx(norm));
  CHECK(p.g1(1) == -2.0);
  CHECK(clip_gradients(p.params, 1.0) == Approx(norm));
  CHECK(std::sqrt(p.g1.squaredNorm() + p.g2.squaredNorm()) == Approx(1.0));
  CHECK(p.g2(0) == Approx(0.25 / norm));
  CHECK(clip_gradients(p.params, 10.0) == Approx(1.0));  // under the clip: unchanged
}

TEST_CASE("schedule: warmup then constant, linear, cosine, inverse square root", "[optim]") {
  TrainConfig tc;
  tc.lr = 1.0;
  tc.steps = 110;
  tc.warmup = 10;
  CHECK(learning_rate(tc, 1) == Approx(0.1));
  CHECK(learning_rate(tc, 5) == Approx(0.5));
  CHECK(learning_rate(tc, 10) == Approx(1.0));
  CHECK(learning_rate(tc, 11) == 1.0);
  CHECK(learning_rate(tc, 110) == 1.0);
  tc.schedule = Schedule::linear;
  CHECK(learning_rate(tc, 11) == 1.0);
  CHECK(learning_rate(tc, 61) == Approx(0.5));
  CHECK(learning_rate(tc, 110) == Approx(0.01));
  tc.schedule = Schedule::cosine;
  CHECK(learning_rate(tc, 11) == 1.0);
  CHECK(learning_rate(tc, 61) == Approx(0.5));
  CHECK(learning_rate(tc, 36) == Approx(0.5 * (1 + std::cos(3.14159265358979 * 0.25))));
  tc.schedule = Schedule::inverse_sqrt;
  CHECK(learning_rate(tc, 40) == Approx(0.5));
  tc.warmup = 0;
  CHECK(learning_rate(tc, 1) == 1.0);
  CHECK(learning_rate(tc, 4) == Approx(0.5));
  tc.schedule = Schedule::constant;
  CHECK(learning_rate(tc, 1) == 1.0);
}
