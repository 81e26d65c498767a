// The per-layer results and their JSON (results.cpp): overflow is reported as
// the first non-finite layer and written as null.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "resnorm/engine.h"

using namespace resnorm;

TEST_CASE("overflow is reported as a first non-finite layer, never a crash", "[nonfinite]") {
  Config cfg;
  cfg.archs = {Arch::plain, Arch::residual, Arch::post_ln};
  cfg.depth = 1024;
  cfg.gain = 1.5;
  Engine<float> engine;
  Results res;
  REQUIRE(engine.simulate(cfg, &res).ok());
  CHECK(res.archs[0].first_nonfinite >= 0);   // plain: 1.5^1024 overflows float
  CHECK(res.archs[1].first_nonfinite >= 0);   // residual: sqrt(1 + 2.25)^1024 too
  CHECK(res.archs[2].first_nonfinite == -1);  // post_ln stays finite
  // Once the stream is non-finite it stays so: ReLU keeps NaN (it does not
  // read as 0), so a later layer never looks like a recovered, finite stream.
  for (size_t a = 0; a < 2; ++a) {
    const std::vector<double>& s = res.archs[a].stream_rms;
    size_t first = 0;
    while (first < s.size() && std::isfinite(s[first])) ++first;
    REQUIRE(first < s.size());
    for (size_t l = first; l < s.size(); ++l) CHECK_FALSE(std::isfinite(s[l]));
  }
  const std::string json = results_json(res);
  CHECK(json.find("null") != std::string::npos);
  CHECK(json.find("nan") == std::string::npos);
  CHECK(json.find("inf") == std::string::npos);
}
