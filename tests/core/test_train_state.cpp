// The saved state's format (train_state.cpp): a header that reads back as
// written, tensors read only into tensors of the same sizes, the bytes
// streamed piece by piece, and a damaged, truncated or hostile state refused
// by name with the trainer left as it was.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "helpers.h"
#include "resnorm/trainer.h"
#include "tiny_train.h"

using namespace resnorm;

namespace {

TrainConfig tiny(Task task = Task::copy) { return tiny_train_config(task); }

StateReader reader(const std::string& bytes) {
  return [&bytes](uint64_t at, char* out, size_t n) { std::memcpy(out, bytes.data() + at, n); };
}

}  // namespace

TEST_CASE("train state: a header reads back as written, and tensors go only into tensors of their sizes",
          "[train_state][state]") {
  StateHeader h;
  h.arch = Arch::mix_ln;
  h.config = tiny(Task::teacher);
  h.config.mix_fraction = 0.5;
  h.steps = 12;
  h.first_nonfinite = 12;
  std::vector<float> a = {1, 2, 3}, b = {-4.5f};
  const std::vector<StateTensor> tensors = {{reinterpret_cast<char*>(a.data()), 3},
                                            {reinterpret_cast<char*>(b.data()), 1}};
  std::string bytes;
  write_train_state(h, tensors, [&bytes](const char* p, size_t n) { bytes.append(p, n); });
  CHECK(bytes.size() == train_state_size(h, tensors));
  CHECK(bytes.compare(0, 8, "RNTRAIN1") == 0);

  StateHeader back;
  uint64_t at = 0;
  REQUIRE(read_train_state_header(bytes.size(), reader(bytes), 4, &back, &at).ok());
  CHECK(back.arch == Arch::mix_ln);
  CHECK(train_config_text(back.config) == train_config_text(h.config));
  CHECK(back.steps == 12);
  CHECK(back.first_nonfinite == 12);
  CHECK(read_train_state_header(bytes.size(), reader(bytes), 8, &back, &at).message ==
        "state: scalar size differs from this trainer's");

  std::vector<float> a2(3), b2(1), c2(2);
  const std::vector<StateTensor> wrong = {{reinterpret_cast<char*>(a2.data()), 3},
                                          {reinterpret_cast<char*>(c2.data()), 2}};
  CHECK(read_train_state_tensors(bytes.size(), reader(bytes), at, 4, wrong).message ==
        "state: a tensor's size does not match its config");
  CHECK(read_train_state_tensors(bytes.size(), reader(bytes), at, 4, {wrong[0]}).message ==
        "state: holds 2 tensors, its config has 1");
  CHECK(a2 == std::vector<float>(3, 0.0f));  // nothing written on a refusal
  const std::vector<StateTensor> into = {{reinterpret_cast<char*>(a2.data()), 3},
                                         {reinterpret_cast<char*>(b2.data()), 1}};
  REQUIRE(read_train_state_tensors(bytes.size(), reader(bytes), at, 4, into).ok());
  CHECK(a2 == a);
  CHECK(b2 == b);
}

TEST_CASE("train state: a damaged or hostile state is refused by name and leaves the trainer as it was",
          "[train_state][state]") {
  Trainer<float> a;
  REQUIRE(a.configure(tiny(), Arch::pre_ln).ok());
  a.step(3);
  const std::string blob = a.state();
  Trainer<float> t;
  REQUIRE(t.configure(tiny(Task::teacher), Arch::residual).ok());
  const std::string before = t.state();
  auto refused = [&](const std::string& b) {
    const Status st = t.load(b);
    return !st.ok() && st.field == "state" && st.message.rfind("state: ", 0) == 0;
  };
  // Every prefix up to 300 bytes, then 200 more spread over the rest.
  for (size_t n = 0; n < 300; ++n) REQUIRE(refused(blob.substr(0, n)));
  for (size_t n = 300; n < blob.size(); n += blob.size() / 200 + 1) REQUIRE(refused(blob.substr(0, n)));
  // One flipped bit anywhere.
  for (size_t i = 0; i < blob.size(); i += blob.size() / 300 + 1) {
    std::string b = blob;
    b[i] ^= 0x10;
    REQUIRE(refused(b));
  }
  CHECK(t.load(blob + "x").message.find("checksum") != std::string::npos);
  // Hostile: header fields rewritten and the checksum made to match.
  auto resealed = [](std::string b) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i + 8 < b.size(); ++i) h = (h ^ static_cast<unsigned char>(b[i])) * 0x100000001b3ull;
    std::memcpy(&b[b.size() - 8], &h, 8);
    return b;
  };
  const size_t text_size_at = 8 + 4 + 4;
  uint32_t text_size;
  std::memcpy(&text_size, &blob[text_size_at], 4);
  const size_t count_at = text_size_at + 4 + text_size + 4 + 8 + 8;
  const std::pair<size_t, uint32_t> pokes[] = {{8, 2},                             // version
                                               {12, 99},                           // arch
                                               {text_size_at, 0xFFFFFFFFu},        // config size
                                               {text_size_at + 4 + text_size, 2},  // scalar size
                                               {count_at, 0xFFFFFFFFu},            // tensor count
                                               {count_at + 4, 0xFFFFFFFFu}};       // first tensor's size
  for (const auto& [at, value] : pokes) {
    std::string b = blob;
    std::memcpy(&b[at], &value, 4);
    const Status st = t.load(resealed(b));
    INFO(at << ": " << st.message);
    CHECK(refused(resealed(b)));
  }
  {
    std::string b = blob;
    b.replace(text_size_at + 4, 8, "--depth ");  // the config now begins "--depth " + "reverse": not a number
    CHECK(t.load(resealed(b)).message.rfind("state: config:", 0) == 0);
  }
  CHECK(t.load(std::string(1000, 'R')).message == "state: not a resnorm training state");
  CHECK(t.state() == before);
  CHECK(t.load(blob).ok());
}

TEST_CASE("train state: the state streams piece by piece as state() has it, the tensors straight from the trainer",
          "[train_state][state]") {
  Trainer<float> a;
  REQUIRE(a.configure(tiny(), Arch::pre_ln).ok());
  a.step(7);
  const std::string blob = a.state();
  CHECK(a.state_size() == blob.size());
  std::string streamed;
  size_t pieces = 0;
  bool from_params = false;
  const float* first = a.network().params().front().w;
  a.write_state([&](const char* p, size_t n) {
    streamed.append(p, n);
    ++pieces;
    from_params = from_params || reinterpret_cast<const float*>(p) == first;
  });
  CHECK(streamed == blob);
  CHECK(pieces > 2);
  CHECK(from_params);  // the first parameter's own memory, not a copy
  CHECK(state_checksum(std::string_view(blob).substr(0, blob.size() - 8)) == [&] {
    uint64_t h;
    std::memcpy(&h, blob.data() + blob.size() - 8, 8);
    return h;
  }());
}

TEST_CASE("train state: mix_ln's fraction trains, is saved in the state, and an older state takes the default",
          "[train_state][state]") {
  // Two blocks: 0 leaves both Pre-LN, so mix_ln trains as pre_ln (the same
  // final norm under auto) bit for bit; 0.5 makes block 1 Post-LN.
  TrainConfig tc = tiny();
  tc.mix_fraction = 0;
  Trainer<float> pre, mix0;
  REQUIRE(pre.configure(tc, Arch::pre_ln).ok());
  REQUIRE(mix0.configure(tc, Arch::mix_ln).ok());
  const std::vector<TrainLog> m0 = mix0.step(10);
  test::check_same_logs(pre.step(10), m0);
  tc.mix_fraction = 0.5;
  Trainer<float> half;
  REQUIRE(half.configure(tc, Arch::mix_ln).ok());
  const std::vector<TrainLog> h1 = half.step(10);
  REQUIRE(h1.size() == m0.size());
  CHECK(!test::same_bits(h1.back().train_loss, m0.back().train_loss));
  // The state holds 0.5 and continues bit for bit.
  const std::string blob = half.state();
  Trainer<float> back;
  REQUIRE(back.load(blob).ok());
  CHECK(back.config().mix_fraction == 0.5);
  const std::vector<TrainLog> h2 = half.step(10);
  test::check_same_logs(h2, back.step(10));
  // A state whose config text has no --mix-fraction (saved before the field
  // existed) loads with the default.
  Trainer<float> dflt;
  tc.mix_fraction = kMixLnFraction;
  REQUIRE(dflt.configure(tc, Arch::mix_ln).ok());
  dflt.step(5);
  std::string old = dflt.state();
  const size_t text_at = 8 + 4 + 4 + 4;
  uint32_t text_size;
  std::memcpy(&text_size, &old[text_at - 4], 4);
  const std::string flag = " --mix-fraction 0.25";
  const size_t at = old.find(flag, text_at);
  REQUIRE(at != std::string::npos);
  REQUIRE(at < text_at + text_size);
  old.erase(at, flag.size());
  text_size -= static_cast<uint32_t>(flag.size());
  std::memcpy(&old[text_at - 4], &text_size, 4);
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a 64 over everything before the checksum
  for (size_t i = 0; i + 8 < old.size(); ++i) h = (h ^ static_cast<unsigned char>(old[i])) * 0x100000001b3ull;
  std::memcpy(&old[old.size() - 8], &h, 8);
  Trainer<float> restored;
  const Status st = restored.load(old);
  INFO(st.message);
  REQUIRE(st.ok());
  CHECK(restored.config().mix_fraction == kMixLnFraction);
  test::check_same_logs(dflt.step(10), restored.step(10));
}
