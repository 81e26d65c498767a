// The saved-model loader (Trainer::load, streamed) on hostile bytes: never
// crashes or reads out of bounds (the sanitizers check, and the reader asks for
// nothing past the size it was given); a refusal names "state" and
// leaves the trainer as it was. Half the inputs get the magic, the version and
// a valid checksum written over them, so the fuzzer reaches the parser behind
// those checks (sizes, config, tensors) instead of stopping at the checksum.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../core/tiny_train.h"
#include "resnorm/trainer.h"

namespace {

resnorm::Trainer<float>& trainer() {
  static resnorm::Trainer<float> t;
  static bool ready = false;
  if (!ready) {
    const resnorm::TrainConfig tc = resnorm::tiny_train_config();
    if (!t.configure(tc, resnorm::Arch::pre_ln).ok()) std::abort();
    t.step(1);
    ready = true;
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  resnorm::Trainer<float>& t = trainer();
  static const std::string before = t.state();
  std::string blob(reinterpret_cast<const char*>(data), size);
  if (size > 0 && (data[0] & 1) && blob.size() >= 28) {
    std::memcpy(blob.data(), resnorm::kStateMagic, sizeof resnorm::kStateMagic);
    std::memcpy(blob.data() + sizeof resnorm::kStateMagic, &resnorm::kStateVersion, 4);
    const uint64_t sum = resnorm::state_checksum(std::string_view(blob).substr(0, blob.size() - 8));
    std::memcpy(blob.data() + blob.size() - 8, &sum, 8);
  }
  // Streamed, as the page loads a state: every read must lie within the size given.
  const resnorm::Status st = t.load(blob.size(), [&blob](uint64_t at, char* out, size_t n) {
    if (at > blob.size() || n > blob.size() - at) std::abort();
    std::memcpy(out, blob.data() + at, n);
  });
  if (!st.ok()) {
    if (st.field != "state" || st.message.rfind("state: ", 0) != 0) std::abort();
    if (t.state() != before) std::abort();  // a refusal changes nothing
  } else if (t.load(before).ok() == false) {
    std::abort();  // whatever it accepted, the original state loads back
  }
  return 0;
}
