// A trainer's saved state: its bytes, written and read piece by piece (see train_state.h).
#include "resnorm/train_state.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace resnorm {
namespace {

constexpr uint32_t kMaxConfigText = 4096;
constexpr uint64_t kFnvBasis = 0xcbf29ce484222325ull;

uint64_t fnv(uint64_t h, const char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 0x100000001b3ull;
  return h;
}

template <class T>
void put(std::string& s, T v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// Reads fixed-size values off a saved state, never past `end` (where its
// checksum starts).
struct Reader {
  const StateReader& read;
  uint64_t end;
  uint64_t at = 0;
  bool ok = true;
  template <class T>
  T get() {
    T v{};
    if (end - at < sizeof v) {
      ok = false;
      return v;
    }
    read(at, reinterpret_cast<char*>(&v), sizeof v);
    at += sizeof v;
    return v;
  }
};

Status bad_state(const std::string& what) { return {"state", "state: " + what}; }

// The state's bytes before its tensors.
std::string header_bytes(const StateHeader& h, const std::vector<StateTensor>& tensors) {
  std::string s(kStateMagic, sizeof kStateMagic);
  put<uint32_t>(s, kStateVersion);
  put<uint32_t>(s, static_cast<uint32_t>(h.arch));
  const std::string text = train_config_text(h.config);
  put<uint32_t>(s, static_cast<uint32_t>(text.size()));
  s += text;
  put<uint32_t>(s, h.scalar_bytes);
  put<int64_t>(s, h.steps);
  put<int64_t>(s, h.first_nonfinite);
  put<uint32_t>(s, static_cast<uint32_t>(tensors.size()));
  for (const StateTensor& t : tensors) put<uint64_t>(s, t.entries);
  return s;
}

}  // namespace

uint64_t state_checksum(std::string_view bytes) { return fnv(kFnvBasis, bytes.data(), bytes.size()); }

uint64_t train_state_size(const StateHeader& h, const std::vector<StateTensor>& tensors) {
  uint64_t n = header_bytes(h, tensors).size() + 8;
  for (const StateTensor& t : tensors) n += h.scalar_bytes * t.entries;
  return n;
}

void write_train_state(const StateHeader& h, const std::vector<StateTensor>& tensors, const StateWriter& write) {
  const std::string head = header_bytes(h, tensors);
  uint64_t sum = fnv(kFnvBasis, head.data(), head.size());
  write(head.data(), head.size());
  for (const StateTensor& t : tensors) {
    if (t.entries == 0) continue;
    const size_t bytes = static_cast<size_t>(h.scalar_bytes * t.entries);
    sum = fnv(sum, t.data, bytes);
    write(t.data, bytes);
  }
  char tail[8];
  std::memcpy(tail, &sum, 8);
  write(tail, 8);
}

Status read_train_state_header(uint64_t size, const StateReader& read, uint32_t scalar_bytes, StateHeader* out,
                               uint64_t* tensors_at) {
  const uint64_t min_size = sizeof kStateMagic + 4 * 4 + 2 * 8 + 4 + 8;
  if (size < min_size)
    return bad_state("truncated (" + std::to_string(size) + " bytes, a state has at least " + std::to_string(min_size) +
                     ")");
  char magic[sizeof kStateMagic];
  read(0, magic, sizeof magic);
  if (std::memcmp(magic, kStateMagic, sizeof kStateMagic) != 0) return bad_state("not a resnorm training state");
  Reader r{read, size - 8, sizeof kStateMagic};
  const uint32_t version = r.get<uint32_t>();
  if (version != kStateVersion)
    return bad_state("version " + std::to_string(version) + " is not supported (allowed " +
                     std::to_string(kStateVersion) + ")");
  {
    // The checksum over every byte before it, a buffer at a time.
    uint64_t sum;
    read(size - 8, reinterpret_cast<char*>(&sum), 8);
    std::string buf(static_cast<size_t>(std::min<uint64_t>(size - 8, kStateReadBytes)), '\0');
    uint64_t h = kFnvBasis;
    for (uint64_t at = 0; at < size - 8;) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - 8 - at));
      read(at, buf.data(), n);
      h = fnv(h, buf.data(), n);
      at += n;
    }
    if (sum != h) return bad_state("checksum mismatch: the state is damaged");
  }
  const uint32_t arch = r.get<uint32_t>();
  if (arch >= static_cast<uint32_t>(kNumArchs)) return bad_state("unknown architecture " + std::to_string(arch));
  const uint32_t text_size = r.get<uint32_t>();
  if (!r.ok || text_size > kMaxConfigText || text_size > r.end - r.at)
    return bad_state("config of " + std::to_string(text_size) + " bytes does not fit");
  std::string text(text_size, '\0');
  read(r.at, text.data(), text_size);
  r.at += text_size;
  StateHeader h;
  h.arch = static_cast<Arch>(arch);
  const Status st = parse_train_config_text(text, &h.config);
  if (!st.ok()) return bad_state("config: " + st.message);
  h.scalar_bytes = r.get<uint32_t>();
  if (h.scalar_bytes != scalar_bytes) return bad_state("scalar size differs from this trainer's");
  h.steps = r.get<int64_t>();
  h.first_nonfinite = r.get<int64_t>();
  if (h.steps < 0 || h.steps > h.config.steps) return bad_state("step " + std::to_string(h.steps) + " is out of range");
  // A run stops at its first non-finite step: after that step's update (a
  // non-finite held-out loss) or before it (a non-finite loss or gradient, the
  // update not applied), so the stop step is at most one past the steps done.
  if (h.first_nonfinite < -1 || h.first_nonfinite > h.steps + 1 || h.first_nonfinite > h.config.steps)
    return bad_state("stop step is out of range");
  *out = h;
  *tensors_at = r.ok ? r.at : r.end;  // a header cut short leaves no tensors to read
  return Status::Ok();
}

Status read_train_state_tensors(uint64_t size, const StateReader& read, uint64_t tensors_at, uint32_t scalar_bytes,
                                const std::vector<StateTensor>& into) {
  Reader r{read, size - 8, tensors_at};
  const uint32_t count = r.get<uint32_t>();
  if (!r.ok || count != into.size())
    return bad_state("holds " + std::to_string(count) + " tensors, its config has " + std::to_string(into.size()));
  uint64_t payload = 0;
  for (const StateTensor& t : into) {
    const uint64_t entries = r.get<uint64_t>();
    if (!r.ok || entries != t.entries) return bad_state("a tensor's size does not match its config");
    payload += scalar_bytes * t.entries;
  }
  if (r.end - r.at != payload) return bad_state("payload size does not match its config");
  // Every check has passed: from here nothing can refuse.
  for (const StateTensor& t : into) {
    const uint64_t bytes = scalar_bytes * t.entries;
    if (bytes > 0) read(r.at, t.data, static_cast<size_t>(bytes));
    r.at += bytes;
  }
  return Status::Ok();
}

}  // namespace resnorm
