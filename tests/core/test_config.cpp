// Configs (config.cpp): the field table, bad values as errors (never an abort),
// the transformer fields and the memory budget.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "resnorm/engine.h"

using namespace resnorm;

namespace {

struct Case {
  const char* field;
  const char* value;
  const char* expect;  // substring of the message
};

// set_field(cfg, c.field, c.value) fails with a Status naming the field and saying c.expect.
Status check_refused(Config& cfg, const Case& c) {
  const Status st = set_field(cfg, c.field, c.value);
  INFO(c.field << "=" << c.value << " -> " << st.message);
  CHECK(st.field == c.field);
  CHECK(st.message.find(c.expect) != std::string::npos);
  return st;
}

}  // namespace

TEST_CASE("bad values come back as a Status naming the field, the value and the range", "[config]") {
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
      {"mix_fraction", "-0.1", "mix_fraction: '-0.1' is out of range (allowed 0..1)"},
      {"mix_fraction", "1.01", "out of range (allowed 0..1)"},
      {"mix_fraction", "nan", "mix_fraction: 'nan' is not a finite number (allowed 0..1)"},
      {"mix_fraction", "half", "is not a number (allowed 0..1)"},
      {"nonsense", "1", "nonsense: unknown field"},
  };
  for (const Case& c : cases) {
    Config cfg;
    const Status st = check_refused(cfg, c);
    INFO(c.field << "=" << c.value);
    CHECK_FALSE(st.ok());
    CHECK(cfg.depth == 96);  // a failed set leaves the config as it was
  }
  // A 10 kB value is quoted shortened, never echoed whole.
  Config cfg;
  Status st = set_field(cfg, "activation", std::string(10000, 'x'));
  CHECK(st.message.size() < 200);
}

TEST_CASE("check_whole: a number from outside refused by name unless whole and in range", "[config]") {
  CHECK(check_whole("samples", 32, 1, 4096).ok());
  CHECK(check_whole("samples", 0, 1, 4096).message == "samples: 0 is out of range (allowed 1..4096)");
  CHECK(check_whole("n", 1.5, 0, 1000000).message == "n: 1.5 is not a whole number (allowed 0..1000000)");
  CHECK(check_whole("n", NAN, 0, 1000000).message == "n: nan is not a finite number (allowed 0..1000000)");
  CHECK(check_whole("path_seed", 4294967296.0, 0, 4294967295.0).field == "path_seed");
}

TEST_CASE("fields_json: the table for JS, every field with its range, default, help and choices", "[config]") {
  const std::string json = fields_json(field_specs());
  CHECK(json.rfind("[{\"name\": \"arch\", \"kind\": \"choice_list\", ", 0) == 0);
  CHECK(json.find("{\"name\": \"depth\", \"kind\": \"integer\", \"min\": 1, \"max\": 1024, \"allowed\": "
                  "\"1..1024\", \"default\": \"96\", \"help\": \"L, number of blocks\", \"choices\": []}") !=
        std::string::npos);
  CHECK(json.find("\"choices\": [\"relu\", \"gelu\", \"tanh\", \"linear\"]") != std::string::npos);
  size_t fields = 0;
  for (size_t p = json.find("\"name\": "); p != std::string::npos; p = json.find("\"name\": ", p + 1)) ++fields;
  CHECK(fields == field_specs().size());
}

TEST_CASE("block, heads and causal: parsing, errors and the memory budget", "[config][attention]") {
  Config cfg;
  CHECK(set_field(cfg, "block", "transformer").ok());
  CHECK(cfg.block == Block::transformer);
  CHECK(set_field(cfg, "heads", "8").ok());
  CHECK(cfg.heads == 8);
  CHECK(set_field(cfg, "causal", "false").ok());
  CHECK_FALSE(cfg.causal);
  CHECK(set_field(cfg, "causal", "true").ok());
  CHECK(cfg.causal);
  CHECK(set_number(cfg, "heads", 2).ok());
  CHECK(cfg.heads == 2);
  const Case cases[] = {
      {"block", "attention", "block: 'attention' is not a known value (allowed mlp|transformer)"},
      {"heads", "3", "heads: '3' is not one of 1, 2, 4, 8 (allowed 1, 2, 4 or 8)"},
      {"heads", "16", "out of range (allowed 1, 2, 4 or 8)"},
      {"heads", "0", "out of range"},
      {"causal", "yes", "causal: 'yes' is not a known value (allowed true|false)"},
      {"arch", "pre_ln,admin,nope", "'nope' is not a known architecture"},
  };
  for (const Case& c : cases) {
    Config x;
    check_refused(x, c);
  }
  Config x;
  REQUIRE(set_field(x, "arch", "admin,pre_ln").ok());
  CHECK(x.archs == std::vector<Arch>{Arch::admin, Arch::pre_ln});
  CHECK(all_archs().size() == 21);
  CHECK(all_archs().back() == Arch::ngpt);
  CHECK(std::string(name(Arch::admin)) == "admin");
  // The architectures after admin keep the numbering of the ten before them (saved training states hold the number).
  CHECK(static_cast<int>(Arch::admin) == 9);
  const char* added[] = {"rezero", "layerscale", "lns", "mix_ln", "dwa"};
  for (int i = 0; i < 5; ++i) {
    Arch a;
    REQUIRE(parse_arch(added[i], &a));
    CHECK(static_cast<int>(a) == 10 + i);
    CHECK(std::string(name(a)) == added[i]);
  }
  REQUIRE(set_field(x, "arch", "rezero,layerscale,lns,mix_ln,dwa").ok());
  CHECK(x.archs.size() == 5);

  // heads must divide width, for transformer blocks.
  Engine<float> engine;
  Results res;
  Config bad;
  bad.block = Block::transformer;
  bad.width = 6;
  bad.heads = 4;
  Status st = engine.simulate(bad, &res);
  CHECK(st.field == "heads");
  CHECK(st.message == "heads: 4 does not divide width 6 (allowed 1, 2, 4 or 8, dividing width)");
  bad.heads = 2;
  CHECK(engine.simulate(bad, &res).ok());
  // Memory: a transformer block holds 2 d m + 4 d^2 weights.
  bad = Config();
  bad.block = Block::transformer;
  bad.width = 512;
  bad.expansion = 4;
  bad.depth = 32;  // fine for MLP blocks, too deep with attention
  st = engine.simulate(bad, &res);
  CHECK(st.field == "depth");
  CHECK(st.message.find("with transformer blocks (allowed 1..21") != std::string::npos);
  bad.depth = 21;
  CHECK(validate(bad).ok());
  // JSON of a transformer config names the new fields.
  Config t;
  t.block = Block::transformer;
  t.causal = false;
  CHECK(config_json(t).find("\"seed\": 0, \"block\": \"transformer\", \"heads\": 4, \"causal\": false}") !=
        std::string::npos);
}

TEST_CASE("mix_fraction: a real in 0..1, checked wherever a config is, printed where mix_ln runs", "[config]") {
  const FieldSpec* f = find_field("mix_fraction");
  REQUIRE(f);
  CHECK(f->kind == FieldKind::real);
  CHECK(allowed_text(*f) == "0..1");
  // The table's default is the engine's constant (what Config holds unset).
  double dflt = 0;
  REQUIRE(parse_decimal(f->default_text, &dflt));
  CHECK(dflt == kMixLnFraction);
  CHECK(Config().mix_fraction == kMixLnFraction);

  Config cfg;
  for (auto [text, want] :
       std::vector<std::pair<const char*, double>>{{"0", 0}, {"1", 1}, {"0.5", 0.5}, {".34", 0.34}}) {
    INFO(text);
    REQUIRE(set_field(cfg, "mix_fraction", text).ok());
    CHECK(cfg.mix_fraction == want);
  }
  REQUIRE(set_number(cfg, "mix_fraction", 0.75).ok());
  CHECK(cfg.mix_fraction == 0.75);
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double bad : {nan, inf, -inf, -1.0, 2.0, -1e-9, 1 + 1e-9}) {
    INFO(bad);
    const Status st = set_number(cfg, "mix_fraction", bad);
    CHECK(st.field == "mix_fraction");
    CHECK(st.message.rfind("mix_fraction: ", 0) == 0);
    CHECK(st.message.find("(allowed 0..1)") != std::string::npos);
    CHECK(cfg.mix_fraction == 0.75);  // a refused value is not written
  }
  CHECK(set_number(cfg, "mix_fraction", nan).message == "mix_fraction: nan is not a finite number (allowed 0..1)");
  CHECK(set_number(cfg, "mix_fraction", 2).message == "mix_fraction: 2 is out of range (allowed 0..1)");

  // A Config filled in directly is refused by validate(), and so by the engine.
  Engine<float> engine;
  Results res;
  for (double bad : {nan, -0.5, 1.5}) {
    Config c;
    c.archs = {Arch::mix_ln};
    c.mix_fraction = bad;
    INFO(bad);
    CHECK(validate(c).field == "mix_fraction");
    CHECK(engine.simulate(c, &res).field == "mix_fraction");
  }
  // Checked for every config, as every other field is, whether or not mix_ln runs.
  Config other;
  other.mix_fraction = -1;
  CHECK(validate(other).field == "mix_fraction");
  other.mix_fraction = 0;
  CHECK(validate(other).ok());
  other.mix_fraction = 1;
  CHECK(validate(other).ok());

  // The JSON names it only where mix_ln runs, so other documents are as they were.
  Config plain;
  CHECK(config_json(plain).find("mix_fraction") == std::string::npos);
  CHECK(has_arch(plain, Arch::pre_ln));
  CHECK_FALSE(has_arch(plain, Arch::mix_ln));
  Config mix;
  mix.archs = {Arch::pre_ln, Arch::mix_ln};
  mix.mix_fraction = 0.5;
  CHECK(config_json(mix).find("\"seed\": 0, \"mix_fraction\": 0.5}") != std::string::npos);
  mix.block = Block::transformer;
  CHECK(config_json(mix).find("\"causal\": true, \"mix_fraction\": 0.5}") != std::string::npos);
}

TEST_CASE("parse_decimal takes plain decimal and e-notation, nothing else") {
  double v = 0;
  for (auto [text, want] : std::vector<std::pair<const char*, double>>{
           {"4", 4}, {"-0.5", -0.5}, {".5", 0.5}, {"5.", 5}, {"1e-3", 1e-3}, {"2.5E+2", 250}, {"0", 0}}) {
    INFO(text);
    REQUIRE(resnorm::parse_decimal(text, &v));
    CHECK(v == want);
  }
  for (const char* text :
       {"", "-", ".", "+2", " 4", "4 ", "0x10", "0x1.0p3", "1e", "1e+", "inf", "nan", "1,5", "--1"}) {
    INFO(text);
    CHECK_FALSE(resnorm::parse_decimal(text, &v));
  }
}
