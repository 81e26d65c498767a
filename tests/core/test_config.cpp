// Configs: the field table, bad values as errors (never an abort), and determinism.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "resnorm/engine.h"

using namespace resnorm;

TEST_CASE("bad values come back as a Status naming the field, the value and the range", "[config]") {
  struct Case {
    const char* field;
    const char* value;
    const char* expect;  // substring of the message
  };
  const Case cases[] = {
      {"depth", "0", "depth: '0' is out of range (allowed 1..1024)"},
      {"depth", "1025", "allowed 1..1024"},
      {"depth", "1.5", "is not a whole number"},
      {"depth", "ten", "is not a number"},
      {"depth", "", "missing value"},
      {"width", "100000", "width: '100000' is out of range (allowed 2..512)"},
      {"width", "1", "allowed 2..512"},
      {"tokens", "65", "allowed 1..64"},
      {"expansion", "3", "is not one of 1, 2, 4"},
      {"gain", "nan", "gain: 'nan' is not a finite number (allowed 0..4)"},
      {"gain", "inf", "is not a finite number"},
      {"gain", "-0.1", "out of range (allowed 0..4)"},
      {"gain", "4.01", "out of range"},
      {"activation", "softmax", "allowed relu|gelu|tanh|linear"},
      {"init", "xavier", "allowed gaussian|orthogonal"},
      {"final_norm", "batchnorm", "allowed none|layernorm|rmsnorm"},
      {"seed", "-1", "allowed 0..4294967295"},
      {"seed", "4294967296", "out of range"},
      {"arch", "pre_ln,nope", "'nope' is not a known architecture"},
      {"arch", "", "missing value"},
      {"nonsense", "1", "nonsense: unknown field"},
  };
  for (const Case& c : cases) {
    Config cfg;
    Status st = set_field(cfg, c.field, c.value);
    INFO(c.field << "=" << c.value << " -> " << st.message);
    CHECK_FALSE(st.ok());
    CHECK(st.field == c.field);
    CHECK(st.message.find(c.expect) != std::string::npos);
    CHECK(cfg.depth == 96);  // a failed set leaves the config as it was
  }
  // A 10 kB value is quoted shortened, never echoed whole.
  Config cfg;
  Status st = set_field(cfg, "activation", std::string(10000, 'x'));
  CHECK(st.message.size() < 200);
}

TEST_CASE("the engine refuses a bad Config with a Status and stays usable", "[config]") {
  Engine<float> engine;
  Results res;
  Config bad;
  bad.depth = 0;
  Status st = engine.simulate(bad, &res);
  CHECK(st.field == "depth");
  bad = Config();
  bad.gain = std::numeric_limits<double>::quiet_NaN();
  CHECK(engine.simulate(bad, &res).field == "gain");
  bad = Config();
  bad.archs.clear();
  CHECK(engine.simulate(bad, &res).field == "arch");
  bad = Config();
  bad.depth = 1024;
  bad.width = 512;
  bad.expansion = 4;
  st = engine.simulate(bad, &res);
  CHECK(st.field == "depth");
  CHECK(st.message.find("allowed 1..32") != std::string::npos);
  // Still works afterwards.
  CHECK(engine.simulate(Config(), &res).ok());
  CHECK(res.archs.size() == 4);
  CHECK(set_number(bad, "gain", std::nan("")).field == "gain");
  CHECK(set_number(bad, "depth", 2.5).message.find("whole number") != std::string::npos);
}

TEST_CASE("the same config gives bit-identical results twice", "[determinism]") {
  Config cfg;
  cfg.archs = all_archs();
  cfg.depth = 40;
  cfg.activation = Activation::gelu;
  cfg.final_norm = NormKind::layernorm;
  Engine<float> a, b;
  Results ra, rb, rc;
  REQUIRE(a.simulate(cfg, &ra).ok());
  REQUIRE(b.simulate(cfg, &rb).ok());
  REQUIRE(a.simulate(cfg, &rc).ok());  // the same engine again, with its caches warm
  for (size_t i = 0; i < ra.archs.size(); ++i) {
    const ArchResult &x = ra.archs[i], &y = rb.archs[i], &z = rc.archs[i];
    for (auto field : {&ArchResult::grad_norm, &ArchResult::stream_rms, &ArchResult::update_ratio,
                       &ArchResult::w1_grad_norm, &ArchResult::w2_grad_norm}) {
      REQUIRE((x.*field).size() == (y.*field).size());
      CHECK(std::memcmp((x.*field).data(), (y.*field).data(), (x.*field).size() * sizeof(double)) == 0);
      CHECK(std::memcmp((x.*field).data(), (z.*field).data(), (x.*field).size() * sizeof(double)) == 0);
    }
  }
}

TEST_CASE("a layer's weights do not depend on depth, so deepening keeps the layers", "[determinism]") {
  WeightBank<float> shallow, deep;
  shallow.prepare(7, 32, 64, Init::orthogonal, 10);
  deep.prepare(7, 32, 64, Init::orthogonal, 30);
  for (int l = 1; l <= 10; ++l) {
    CHECK(shallow.layer(l).B1 == deep.layer(l).B1);
    CHECK(shallow.layer(l).B2 == deep.layer(l).B2);
  }
  CHECK_FALSE(deep.layer(11).B1 == deep.layer(10).B1);
  // So the forward pass of the first 10 blocks is the same at depth 10 and 30.
  Config cfg;
  cfg.archs = {Arch::plain, Arch::pre_ln, Arch::post_ln};
  cfg.depth = 10;
  Engine<float> e;
  Results r10, r30;
  REQUIRE(e.simulate(cfg, &r10).ok());
  cfg.depth = 30;
  REQUIRE(e.simulate(cfg, &r30).ok());
  for (size_t i = 0; i < 3; ++i)
    for (int l = 0; l <= 10; ++l) CHECK(r10.archs[i].stream_rms[l] == r30.archs[i].stream_rms[l]);
  // And h_0, r depend only on (seed, T, d).
  CHECK(input_stream(3, 8, 64) == input_stream(3, 8, 64));
  CHECK_FALSE(input_stream(3, 8, 64) == input_stream(4, 8, 64));
  CHECK(readout(3, 8, 64).norm() == Approx(1.0).epsilon(1e-15));
}

TEST_CASE("orthogonal init: semi-orthogonal matrices with the gaussian Frobenius norm", "[init]") {
  for (auto [rows, cols] : {std::pair{8, 8}, std::pair{8, 32}, std::pair{32, 8}}) {
    Mat<double> w = orthogonal_matrix(5, rows, cols);
    const int small = std::min(rows, cols);
    const double scale2 = double(rows) * cols / small;
    Eigen::MatrixXd gram = rows <= cols ? Eigen::MatrixXd(w * w.transpose()) : Eigen::MatrixXd(w.transpose() * w);
    CHECK((gram - scale2 * Eigen::MatrixXd::Identity(small, small)).norm() < 1e-10 * scale2);
    CHECK(w.squaredNorm() == Approx(double(rows) * cols).epsilon(1e-12));
  }
}

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
