// The random tensors and the weight bank (weights.cpp): what each layer's
// weights depend on, and the orthogonal init.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <utility>

#include "helpers.h"
#include "resnorm/engine.h"
#include "resnorm/weights.h"

using namespace resnorm;

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

TEST_CASE("transformer results are deterministic and attention weights depend on (seed, l, d, init) only",
          "[determinism][attention]") {
  Config cfg;
  cfg.archs = all_archs();
  cfg.block = Block::transformer;
  cfg.depth = 20;
  cfg.tokens = 12;
  cfg.activation = Activation::gelu;
  cfg.final_norm = NormKind::layernorm;
  const std::array<Results, 3> r = test::simulate_thrice(cfg);
  CHECK(results_json(r[0]) == results_json(r[1]));
  CHECK(results_json(r[0]) == results_json(r[2]));
  test::check_same_bits(r, {&ArchResult::grad_norm, &ArchResult::stream_rms, &ArchResult::update_ratio,
                            &ArchResult::wq_grad_norm, &ArchResult::wo_grad_norm, &ArchResult::w2_grad_norm});

  WeightBank<float> shallow, deep;
  shallow.prepare(3, 16, 32, Init::gaussian, 4, true);
  deep.prepare(3, 16, 64, Init::gaussian, 9, true);  // another m: attention weights unchanged
  for (int l = 1; l <= 4; ++l) {
    CHECK(shallow.attention_layer(l).Bq == deep.attention_layer(l).Bq);
    CHECK(shallow.attention_layer(l).Bo == deep.attention_layer(l).Bo);
  }
  CHECK_FALSE(deep.attention_layer(5).Bq == deep.attention_layer(4).Bq);
  CHECK_FALSE(deep.attention_layer(1).Bq == deep.attention_layer(1).Bk);
  // Orthogonal attention weights: scaled orthogonal, the gaussian Frobenius norm.
  WeightBank<double> ortho;
  ortho.prepare(3, 16, 16, Init::orthogonal, 1, true);
  const Mat<double>& v = ortho.attention_layer(1).Bv;
  CHECK((v.transpose() * v - 16.0 * Mat<double>::Identity(16, 16)).norm() < 1e-10);

  // Deepening a transformer stack keeps the blocks it had.
  Config c2 = cfg;
  c2.archs = {Arch::pre_ln};
  c2.depth = 10;
  Results r10, r30;
  Engine<float> e;
  REQUIRE(e.simulate(c2, &r10).ok());
  c2.depth = 30;
  REQUIRE(e.simulate(c2, &r30).ok());
  for (int l = 0; l <= 10; ++l) CHECK(r10.archs[0].stream_rms[l] == r30.archs[0].stream_rms[l]);
}
