// resnorm/rng.h: a counter-free, platform-independent normal generator.
//
// std::normal_distribution is implementation-defined, so the same seed would
// give different weights under libstdc++ and under Emscripten's libc++. This
// is splitmix64 for bits and the polar method in double for normals: the same
// numbers natively and in WebAssembly.
#pragma once

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace resnorm {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A stream key from a tuple of integers, e.g. {seed, tag, layer, d, m}.
inline uint64_t stream_key(std::initializer_list<uint64_t> parts) {
  uint64_t h = 0x6A09E667F3BCC909ull;
  for (uint64_t p : parts) {
    uint64_t s = h ^ p;
    h = splitmix64(s);
  }
  return h;
}

class NormalRng {
 public:
  explicit NormalRng(uint64_t key) : state_(key) {}
  // Uniform in (0, 1], 53 bits.
  double uniform() { return (static_cast<double>(splitmix64(state_) >> 11) + 1.0) * 0x1.0p-53; }
  // Marsaglia's polar method: one log and one sqrt per pair, no trigonometry.
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double u, v, s;
    do {
      u = 2.0 * uniform() - 1.0;
      v = 2.0 * uniform() - 1.0;
      s = u * u + v * v;
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * std::log(s) / s);
    spare_ = v * f;
    has_spare_ = true;
    return u * f;
  }

 private:
  uint64_t state_;
  double spare_ = 0;
  bool has_spare_ = false;
};

// Tags that keep the streams of different tensors apart. Values are part of
// the spec (they select the numbers): append, never renumber.
enum class Stream : uint64_t {
  input = 1,
  readout = 2,
  w1 = 3,
  w2 = 4,
  wq = 5,
  wk = 6,
  wv = 7,
  wo = 8,
  paths = 9, /* Engine::paths(): which paths are sampled */
  // Training: the task's data and the parameters outside the stack.
  train_batch = 10,
  heldout = 11,
  embedding = 12,
  positions = 13,
  unembedding = 14,
  teacher = 15,
  markov = 16
};

}  // namespace resnorm
