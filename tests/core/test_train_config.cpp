// The train field table (train_config.cpp): parsing, ranges, the messages,
// and the config text that reads back into the same config.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <utility>

#include "resnorm/train_config.h"

using namespace resnorm;

TEST_CASE("train fields: defaults, parsing and messages from the table", "[train_config]") {
  TrainConfig tc;
  CHECK(validate(tc).ok());
  CHECK(set_train_field(tc, "task", "markov").ok());
  CHECK(tc.task == Task::markov);
  CHECK(set_train_field(tc, "lr", "3e-4").ok());
  CHECK(tc.lr == 3e-4);
  CHECK(set_train_field(tc, "arch", "plain,pre_ln").ok());
  CHECK(tc.archs == std::vector<Arch>{Arch::plain, Arch::pre_ln});
  Status st = set_train_field(tc, "depth", "0");
  CHECK(st.field == "depth");
  CHECK(st.message == "depth: '0' is out of range (allowed 1..128)");
  st = set_train_field(tc, "optimizer", "lion");
  CHECK(st.message == "optimizer: 'lion' is not a known value (allowed sgd|adam|adamw)");
  st = set_train_field(tc, "beta2", "1");
  CHECK(st.field == "beta2");
  st = set_train_field(tc, "lr", "0x10");
  CHECK(st.message == "lr: '0x10' is not a number (allowed 0..10)");
  CHECK(set_train_field(tc, "nope", "1").field == "nope");
  tc.width = 6;
  tc.heads = 4;
  CHECK(validate(tc).field == "heads");
}

TEST_CASE("train fields from numbers: NaN, a fraction or a value out of range refused by name", "[train_config]") {
  TrainConfig tc;
  CHECK(set_train_number(tc, "lr", 1e-30).ok());
  CHECK(tc.lr == 1e-30);
  CHECK(set_train_number(tc, "eps", 1e-30).ok());
  CHECK(tc.eps == 1e-30);  // written as text and read back: the same double
  CHECK(set_train_number(tc, "depth", 3).ok());
  CHECK(tc.depth == 3);
  CHECK(set_train_number(tc, "seed", 4294967295.0).ok());
  CHECK(tc.seed == 4294967295u);
  CHECK(set_train_number(tc, "lr", NAN).message == "lr: nan is not a finite number (allowed 0..10)");
  CHECK(set_train_number(tc, "depth", 2.5).message == "depth: 2.5 is not a whole number (allowed 1..128)");
  CHECK(set_train_number(tc, "depth", 0).message == "depth: 0 is out of range (allowed 1..128)");
  CHECK(set_train_number(tc, "task", 1).message ==
        "task: a number is not a valid value (allowed copy|reverse|sort|modadd|markov|teacher)");
  CHECK(set_train_number(tc, "nope", 1).field == "nope");
  CHECK(tc.depth == 3);  // a refusal changes nothing
}

TEST_CASE("train config text reads back into the same config", "[train_config]") {
  TrainConfig tc;
  tc.task = Task::teacher;
  tc.archs = {Arch::deepnorm, Arch::admin};
  tc.lr = 0.1 / 3;
  tc.seed = 4000000000u;
  tc.schedule = Schedule::cosine;
  const std::string text = train_config_text(tc);
  TrainConfig back;
  REQUIRE(parse_train_config_text(text, &back).ok());
  CHECK(train_config_text(back) == text);
  CHECK(back.lr == tc.lr);
  CHECK(back.seed == tc.seed);
  CHECK(parse_train_config_text("--depth 0", &back).field == "depth");
  CHECK(parse_train_config_text("depth 3", &back).field == "config");
  CHECK(train_config_json(back).find("\"task\": \"teacher\"") != std::string::npos);
}

TEST_CASE("train mix_fraction: the simulate field's range, checked, saved as text, defaulted when absent",
          "[train_config]") {
  const FieldSpec* f = find_train_field("mix_fraction");
  REQUIRE(f);
  CHECK(f->kind == FieldKind::real);
  CHECK(allowed_text(*f) == "0..1");
  CHECK(std::string(f->default_text) == find_field("mix_fraction")->default_text);
  TrainConfig tc;
  CHECK(tc.mix_fraction == kMixLnFraction);
  REQUIRE(set_train_field(tc, "mix_fraction", "0.5").ok());
  CHECK(tc.mix_fraction == 0.5);
  const std::pair<const char*, const char*> bad[] = {
      {"-1", "mix_fraction: '-1' is out of range (allowed 0..1)"},
      {"2", "mix_fraction: '2' is out of range (allowed 0..1)"},
      {"nan", "mix_fraction: 'nan' is not a finite number (allowed 0..1)"},
      {"x", "mix_fraction: 'x' is not a number (allowed 0..1)"}};
  for (const auto& [text, message] : bad) {
    INFO(text);
    const Status st = set_train_field(tc, "mix_fraction", text);
    CHECK(st.field == "mix_fraction");
    CHECK(st.message == message);
    CHECK(tc.mix_fraction == 0.5);
  }
  // A TrainConfig filled in directly is checked by validate().
  for (double v : {std::nan(""), -0.25, 1.25}) {
    TrainConfig t;
    t.mix_fraction = v;
    INFO(v);
    CHECK(validate(t).field == "mix_fraction");
  }
  // The saved text and the JSON carry it; the stack reads it.
  tc.mix_fraction = 0.1 / 3;
  const std::string text = train_config_text(tc);
  CHECK(text.find(" --mix-fraction 0.03333333333333333") != std::string::npos);
  TrainConfig back;
  REQUIRE(parse_train_config_text(text, &back).ok());
  CHECK(back.mix_fraction == tc.mix_fraction);
  CHECK(train_config_json(tc).find("\"mix_fraction\": 0.03333333333333333") != std::string::npos);
  CHECK(stack_config(tc, Arch::mix_ln, 8).mix_fraction == tc.mix_fraction);
  // A text without it (a state saved before the field was in the table) reads the default.
  TrainConfig old;
  old.mix_fraction = 0.9;
  REQUIRE(parse_train_config_text("--task copy --depth 4", &old).ok());
  CHECK(old.mix_fraction == kMixLnFraction);
  CHECK(old.depth == 4);
}

TEST_CASE("the architecture's final norm under auto", "[train_config]") {
  TrainConfig tc;
  CHECK(final_norm_of(tc, Arch::pre_ln) == NormKind::layernorm);
  CHECK(final_norm_of(tc, Arch::sandwich) == NormKind::rmsnorm);
  CHECK(final_norm_of(tc, Arch::post_ln) == NormKind::none);
  tc.final_norm = FinalNorm::rmsnorm;
  CHECK(final_norm_of(tc, Arch::post_ln) == NormKind::rmsnorm);
}

TEST_CASE("train seq_min, norm, bn_pads and bn_momentum: ranges named, defaults that change nothing",
          "[train_config][batchnorm]") {
  TrainConfig tc;
  CHECK(tc.seq_min == 0);
  CHECK(tc.norm == NormChoice::automatic);
  CHECK(tc.bn_momentum == 0.1);
  Status st = set_train_field(tc, "bn_momentum", "2");
  CHECK(st.field == "bn_momentum");
  CHECK(st.message == "bn_momentum: '2' is out of range (allowed 0..1)");
  st = set_train_number(tc, "bn_momentum", -0.5);
  CHECK(st.message == "bn_momentum: -0.5 is out of range (allowed 0..1)");
  st = set_train_field(tc, "seq_min", "65");
  CHECK(st.message == "seq_min: '65' is out of range (allowed 0..64)");
  CHECK(set_train_field(tc, "seq_min", "9").ok());  // in the table's range, above seq 8
  st = validate(tc);
  CHECK(st.field == "seq_min");
  CHECK(st.message == "seq_min: 9 is out of range, at most seq (allowed 0..8)");
  CHECK(set_train_field(tc, "seq_min", "3").ok());
  CHECK(set_train_field(tc, "norm", "batchnorm").ok());
  CHECK(set_train_field(tc, "bn_pads", "count").ok());
  CHECK(set_train_field(tc, "norm", "groupnorm").message ==
        "norm: 'groupnorm' is not a known value (allowed auto|batchnorm)");
  CHECK(validate(tc).ok());
  TrainConfig back;
  REQUIRE(parse_train_config_text(train_config_text(tc), &back).ok());
  CHECK(train_config_text(back) == train_config_text(tc));
  CHECK(back.norm == NormChoice::batchnorm);
  CHECK(back.bn_pads == BnPads::count);
  CHECK(back.seq_min == 3);
  // A config text from before these fields reads them at their defaults.
  TrainConfig old;
  REQUIRE(parse_train_config_text("--task copy --seq 5", &old).ok());
  CHECK(old.seq_min == 0);
  CHECK(old.norm == NormChoice::automatic);
  CHECK(old.bn_momentum == 0.1);
  // BatchNorm takes the place of the architecture's final norm under auto, and none stays none.
  CHECK(final_norm_of(tc, Arch::pre_ln) == NormKind::batchnorm);
  CHECK(final_norm_of(tc, Arch::post_ln) == NormKind::none);
  tc.final_norm = FinalNorm::layernorm;
  CHECK(final_norm_of(tc, Arch::pre_ln) == NormKind::layernorm);
}
