// A config set the way the session reads one from JS (session.cpp): field
// names and values from the bytes, as text (set_field) or as a double
// (set_number), here in any order and number. Every error names a field and starts with it; the
// config that passes validate() passes or fails the budgets by name.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "resnorm/config.h"
#include "resnorm/limits.h"

namespace {

void check(const resnorm::Status& st) {
  if (st.ok()) return;
  if (st.field.empty() || st.message.empty()) std::abort();
  for (char c : st.message)
    if (c < 32 || c > 126) std::abort();
}

}  // namespace

// Input: records of [kind byte][name length][name][value length][value], kind
// even = text value, odd = 8 bytes of a double.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto& specs = resnorm::field_specs();
  resnorm::Config cfg;
  size_t i = 0;
  while (i + 2 <= size) {
    const uint8_t kind = data[i++];
    const size_t name_len = data[i++] % 24;
    std::string name;
    if (name_len == 0 && i < size) {
      name = specs[data[i++] % specs.size()].name;  // a real field, picked by index
    } else {
      if (i + name_len > size) break;
      name.assign(reinterpret_cast<const char*>(data + i), name_len);
      i += name_len;
    }
    if (kind & 1) {
      if (i + 8 > size) break;
      double v;
      std::memcpy(&v, data + i, 8);
      i += 8;
      check(resnorm::set_number(cfg, name, v));
    } else {
      if (i >= size) break;
      const size_t len = data[i++];
      if (i + len > size) break;
      check(resnorm::set_field(cfg, name, std::string(reinterpret_cast<const char*>(data + i), len)));
      i += len;
    }
  }
  const resnorm::Status valid = resnorm::validate(cfg);
  check(valid);
  if (valid.ok()) check(resnorm::check_simulate(cfg));
  return 0;
}
