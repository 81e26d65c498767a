// The weight-gradient norms from Gram matrices (weight_grad_norm.cpp): no
// spurious overflow of the float Gram matrices. That they equal the norms of
// the materialized gradients is checked with every gradient (test_model.cpp,
// test_attention.cpp).
#include <catch2/catch.hpp>

#include "resnorm/engine.h"

using namespace resnorm;

TEST_CASE("weight-gradient norms stay finite while the gradients are: no spurious float overflow", "[nonfinite]") {
  // Squares of 1e22 overflow a float Gram matrix, not the gradient itself.
  Config cfg;
  cfg.archs = {Arch::plain, Arch::residual};
  cfg.depth = 130;
  cfg.gain = 1.5;
  Engine<float> engine;
  Results res;
  REQUIRE(engine.simulate(cfg, &res).ok());
  for (const ArchResult& r : res.archs) {
    CHECK(r.first_nonfinite == -1);
    CHECK(r.w1_grad_norm[0] > 1e19);  // large and finite
  }
  // And they agree with the double engine's (whose Gram matrices do not overflow) to float precision.
  Engine<double> exact;
  Results rd;
  REQUIRE(exact.simulate(cfg, &rd).ok());
  CHECK(res.archs[0].w1_grad_norm[0] == Approx(rd.archs[0].w1_grad_norm[0]).epsilon(1e-3));
}
