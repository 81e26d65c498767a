// The train field table (train_config.cpp): parsing, ranges, the messages,
// and the config text that reads back into the same config.
#include <catch2/catch.hpp>

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

TEST_CASE("the preset's final norm under auto", "[train_config]") {
  TrainConfig tc;
  CHECK(final_norm_of(tc, Arch::pre_ln) == NormKind::layernorm);
  CHECK(final_norm_of(tc, Arch::sandwich) == NormKind::rmsnorm);
  CHECK(final_norm_of(tc, Arch::post_ln) == NormKind::none);
  tc.final_norm = FinalNorm::rmsnorm;
  CHECK(final_norm_of(tc, Arch::post_ln) == NormKind::rmsnorm);
}
