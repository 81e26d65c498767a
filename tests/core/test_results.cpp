// The per-layer results and their JSON (results.cpp): overflow is reported as
// the first non-finite layer and written as null.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
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

namespace {

const double kFloatMax = std::numeric_limits<float>::max();
bool overflow(double v) { return !(std::fabs(v) <= kFloatMax); }

// The overflow rule of results.cpp, checked on one arch's arrays.
void check_overflow_rule(const ArchResult& r) {
  const int L = static_cast<int>(r.update_ratio.size());
  std::vector<const std::vector<double>*> all = {&r.grad_norm, &r.stream_rms, &r.update_ratio, &r.w1_grad_norm,
                                                 &r.w2_grad_norm};
  for (const auto* v :
       {&r.attn_update_ratio, &r.mlp_update_ratio, &r.wq_grad_norm, &r.wk_grad_norm, &r.wv_grad_norm, &r.wo_grad_norm})
    if (!v->empty()) all.push_back(v);
  // every value is a finite number of float32 range, or +Infinity
  for (const auto* v : all)
    for (double x : *v) CHECK((x == std::numeric_limits<double>::infinity() || !overflow(x)));
  int k = L + 1;
  for (int l = L; l >= 0; --l)
    if (overflow(r.stream_rms[l])) k = l;
  for (int l = k; l <= L; ++l) CHECK(overflow(r.stream_rms[l]));
  for (int b = std::max(k, 1); b <= L; ++b) CHECK(overflow(r.update_ratio[b - 1]));
  for (int l = 1; l <= L; ++l)
    if (overflow(r.grad_norm[l])) CHECK(overflow(r.grad_norm[l - 1]));
  if (k <= L)
    for (int l = 0; l < L; ++l) CHECK(overflow(r.grad_norm[l]));
  for (int b = 1; b <= L; ++b)
    if (overflow(r.grad_norm[b]) || overflow(r.stream_rms[b - 1])) {
      CHECK(overflow(r.w1_grad_norm[b - 1]));
      CHECK(overflow(r.w2_grad_norm[b - 1]));
    }
  int first = -1;
  for (int l = 0; l <= L && first < 0; ++l) {
    bool bad = overflow(r.grad_norm[l]) || overflow(r.stream_rms[l]);
    for (const auto* v : all)
      if (v->size() == static_cast<size_t>(L)) bad = bad || (l >= 1 && overflow((*v)[l - 1]));
    if (bad) first = l;
  }
  CHECK(r.first_nonfinite == first);
}

}  // namespace

TEST_CASE("overflow: one rule for every array, applied to what depends on it", "[nonfinite]") {
  Config cfg;  // the default archs at depth 300: residual's stream overflows at layer 256
  cfg.depth = 300;
  Engine<float> engine;
  Results res;
  REQUIRE(engine.simulate(cfg, &res).ok());
  for (const ArchResult& r : res.archs) check_overflow_rule(r);
  const ArchResult& residual = res.archs[1];
  REQUIRE(residual.arch == Arch::residual);
  CHECK(residual.first_nonfinite == 0);
  // the loss is read off an overflowed stream: no gradient below the top is a number,
  // even where the float that came out of backprop is finite (7.65e10 at layer 251)
  for (int l = 0; l < 300; ++l) CHECK(std::isinf(residual.grad_norm[l]));
  CHECK(residual.grad_norm[300] == Approx(1.0));
  // weight-gradient norms summed in double beyond float32 (up to 3.5e48) are overflow too
  for (double w : residual.w1_grad_norm) CHECK(std::isinf(w));
  for (double w : residual.w2_grad_norm) CHECK(std::isinf(w));
  // the other three archs stay finite, and the rule leaves their numbers alone
  for (size_t a : {0, 2, 3}) CHECK(res.archs[a].first_nonfinite == -1);

  SECTION("other overflowing stacks") {
    for (const char* setting : {"plain,residual,post_ln/1024/1.5/none/mlp", "residual,pre_ln/200/1.5/layernorm/mlp",
                                "plain,residual/150/1.5/none/transformer"}) {
      std::string s = setting;
      std::vector<std::string> parts;
      for (size_t at = 0, next; at <= s.size(); at = next + 1) {
        next = s.find('/', at);
        if (next == std::string::npos) next = s.size();
        parts.push_back(s.substr(at, next - at));
      }
      Config c;
      REQUIRE(set_field(c, "arch", parts[0]).ok());
      REQUIRE(set_field(c, "depth", parts[1]).ok());
      REQUIRE(set_field(c, "gain", parts[2]).ok());
      REQUIRE(set_field(c, "final_norm", parts[3]).ok());
      REQUIRE(set_field(c, "block", parts[4]).ok());
      Results out;
      REQUIRE(engine.simulate(c, &out).ok());
      INFO(setting);
      CHECK((out.archs[0].first_nonfinite >= 0 || out.archs[1].first_nonfinite >= 0));
      for (const ArchResult& r : out.archs) check_overflow_rule(r);
    }
  }
}

TEST_CASE("named_arrays: every array under its JSON key, in the JSON's order, attention's for transformer blocks only",
          "[results]") {
  Config cfg;
  cfg.archs = {Arch::pre_ln};
  cfg.depth = 3;
  cfg.width = 8;
  cfg.tokens = 2;
  for (Block block : {Block::mlp, Block::transformer}) {
    cfg.block = block;
    Engine<float> engine;
    Results res;
    REQUIRE(engine.simulate(cfg, &res).ok());
    const std::vector<NamedArray> arrays = named_arrays(res.archs[0]);
    std::vector<std::string> names;
    for (const NamedArray& a : arrays) names.push_back(a.name);
    std::vector<std::string> want = {"grad_norm", "stream_rms", "update_ratio", "w1_grad_norm", "w2_grad_norm"};
    if (block == Block::transformer)
      for (const char* n :
           {"attn_update_ratio", "mlp_update_ratio", "wq_grad_norm", "wk_grad_norm", "wv_grad_norm", "wo_grad_norm"})
        want.push_back(n);
    CHECK(names == want);
    CHECK(find_array(arrays, "stream_rms") == &res.archs[0].stream_rms);
    // The JSON has exactly these keys, in this order, then first_nonfinite.
    const std::string json = results_json(res);
    const size_t start = json.find("\"pre_ln\": {");
    REQUIRE(start != std::string::npos);
    size_t at = start;
    for (const std::string& n : want) {
      const size_t next = json.find("\"" + n + "\": [", at);
      REQUIRE(next != std::string::npos);
      at = next;
    }
    CHECK(json.find("\"first_nonfinite\": null}", at) != std::string::npos);
    size_t keys = 0;
    for (size_t p = json.find("\": [", start); p != std::string::npos; p = json.find("\": [", p + 1)) ++keys;
    CHECK(keys == want.size());
  }
}
