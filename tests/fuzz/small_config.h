// A small valid config from fuzzer bytes, shared by the engine targets: every
// field in its range, capped so one run takes milliseconds (depth <= 6,
// width <= 16, tokens <= 4), any architectures, block kind, activation,
// init, final norm, gain (including 0 and the extremes), seed and Mix-LN's
// fraction (0, 1 and the twentieths between).
#pragma once

#include <cstdint>
#include <cstring>

#include "resnorm/config.h"

namespace fuzz {

struct Bytes {
  const uint8_t* p;
  size_t n;
  uint8_t next() { return n ? (--n, *p++) : 0; }
};

inline resnorm::Config small_config(Bytes& b) {
  resnorm::Config c;
  c.archs.clear();
  // Three bytes: a bit for each architecture, up to 24 of them.
  static_assert(resnorm::kNumArchs <= 24);
  const uint32_t mask =
      static_cast<uint32_t>(b.next() | (b.next() << 8) | (b.next() << 16)) % (1u << resnorm::kNumArchs);
  for (int a = 0; a < resnorm::kNumArchs; ++a)
    if (mask & (1u << a)) c.archs.push_back(static_cast<resnorm::Arch>(a));
  if (c.archs.empty()) c.archs.push_back(resnorm::Arch::pre_ln);
  c.block = (b.next() & 1) ? resnorm::Block::transformer : resnorm::Block::mlp;
  const int heads[] = {1, 2, 4, 8};
  c.heads = heads[b.next() % 4];
  c.width = 2 + b.next() % 15;
  if (c.block == resnorm::Block::transformer) c.width = c.heads * (1 + c.width / c.heads);
  if (c.width > 16) c.width = c.heads * (16 / c.heads);
  c.depth = 1 + b.next() % 6;
  c.tokens = 1 + b.next() % 4;
  const int expansions[] = {1, 2, 4};
  c.expansion = expansions[b.next() % 3];
  uint8_t g[8];
  for (uint8_t& x : g) x = b.next();
  double gain;
  std::memcpy(&gain, g, 8);
  c.gain = gain >= 0 && gain <= 4 ? gain : (b.next() % 41) / 10.0;  // 0..4, sometimes a raw double
  c.activation = static_cast<resnorm::Activation>(b.next() % 4);
  c.init = static_cast<resnorm::Init>(b.next() % 2);
  c.final_norm = static_cast<resnorm::NormKind>(b.next() % 3);
  c.causal = b.next() & 1;
  c.seed = static_cast<uint32_t>(b.next() | (b.next() << 8) | (b.next() << 16) | (uint32_t(b.next()) << 24));
  c.mix_fraction = (b.next() % 21) / 20.0;
  return c;
}

}  // namespace fuzz
