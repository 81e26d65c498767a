// resnorm/train_state.h: a trainer's saved state as bytes, written and read
// in pieces (Trainer::write_state() and Trainer::load() in trainer.h).
//
//   "RNTRAIN1"                         magic, 8 bytes
//   u32 version, u32 arch
//   u32 n, n bytes                     the config as train_config_text()
//   u32 scalar bytes                   4 (float) or 8 (double)
//   i64 step, i64 first_nonfinite      updates done; the stop step, -1 if none
//   u32 count, count x u64 entries     the tensors' sizes
//   the tensors' entries               parameters, first moments, second moments
//   u64 checksum                       FNV-1a 64 of every byte before it
//
// Integers and scalars are in the machine's byte order (little-endian on
// x86-64, arm64 and wasm32, so a state moves between the CLI and the page). Reading checks everything it can before it
// writes anything, never reads past the size it was given, and refuses a damaged, truncated or foreign state with a
// Status naming state and what is wrong.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "resnorm/train_config.h"

namespace resnorm {

inline constexpr char kStateMagic[8] = {'R', 'N', 'T', 'R', 'A', 'I', 'N', '1'};
inline constexpr uint32_t kStateVersion = 1;
uint64_t state_checksum(std::string_view bytes);  // FNV-1a 64
// A saved state's bytes as they are written, in pieces, in order.
using StateWriter = std::function<void(const char* bytes, size_t n)>;
// Reads bytes [offset, offset + n) of a saved state into `out` (the reader
// never asks past the size it was given).
using StateReader = std::function<void(uint64_t offset, char* out, size_t n)>;
// The largest piece the reader reads into a buffer of its own (the checksum
// pass); the tensors are read straight into the trainer's memory.
inline constexpr size_t kStateReadBytes = 256 * 1024;

// Everything in a state but its tensors.
struct StateHeader {
  Arch arch = Arch::plain;
  TrainConfig config;
  uint32_t scalar_bytes = 4;
  int64_t steps = 0;
  int64_t first_nonfinite = -1;
};
// One tensor of a state, where it lives in the trainer: `entries` scalars of
// header.scalar_bytes each.
struct StateTensor {
  char* data;
  uint64_t entries;
};

// The state of `header` and `tensors` handed to `write` piece by piece (the
// header, each tensor straight from its memory, the checksum), and its size in bytes.
void write_train_state(const StateHeader& header, const std::vector<StateTensor>& tensors, const StateWriter& write);
uint64_t train_state_size(const StateHeader& header, const std::vector<StateTensor>& tensors);

// Reads the header of a state of `size` bytes and checks it whole: the magic,
// the version, the checksum over every byte, the config, the scalar size
// (`scalar_bytes`, the reading trainer's), the step and stop step.
// *tensors_at is where its tensor count starts.
Status read_train_state_header(uint64_t size, const StateReader& read, uint32_t scalar_bytes, StateHeader* out,
                               uint64_t* tensors_at);
// Reads the tensors from tensors_at on into `into` (a trainer made for the
// header): refused, with nothing written, unless the state holds exactly
// these tensors, of these sizes.
Status read_train_state_tensors(uint64_t size, const StateReader& read, uint64_t tensors_at, uint32_t scalar_bytes,
                                const std::vector<StateTensor>& into);

}  // namespace resnorm
