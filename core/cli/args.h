// The CLI's arguments as a request: what to run, or the one-line error to
// print. Separate from main() so the fuzzer (tests/fuzz/) drives the same code.
//
//   resnorm simulate [--arch a,b,...] [--depth N] ... [--json]
//   resnorm train [--task reverse] [--arch post_ln,pre_ln] ... [--json] [--double] [--export-pytorch FILE]
//
// Flags are the fields of config.h's table (train: train_config.h's), spelled with '-' for '_'
// (--final-norm), in that spelling only; numbers are decimal (parse_decimal);
// whatever an error echoes of the arguments is cut to 40 bytes with control
// bytes shown as '?'.
#pragma once

#include <string>

#include "resnorm/config.h"
#include "resnorm/train_config.h"

namespace resnorm {

struct CliRequest {
  enum Kind { simulate, train, help, usage_error, error } kind = simulate;
  Config cfg;
  TrainConfig train_cfg;    // kind == train
  bool train_help = false;  // kind == help after `train`: list the train flags
  bool json = false;
  // --export-pytorch FILE writes the run (train) or the simulation (simulate) as a PyTorch script
  // (export_pytorch.h) first; --double trains or simulates in double instead of float (the PyTorch
  // parity tests' reference precision).
  std::string export_pytorch;
  bool double_precision = false;
  std::string message;  // kind == error: the one line to print, without the "resnorm: " prefix
};

CliRequest parse_args(int argc, const char* const* argv);

// final_norm -> final-norm
std::string flag_name(std::string name);

}  // namespace resnorm
