// resnorm/limits.h: what one call may cost, stated up front.
//
// Every field has a range (config.h), but fields that are each in range can
// together ask for more than a browser tab has: all ten architectures at
// depth 1024, width 128, 64 tokens would hold 4 GB. So a call is also
// bounded as a whole, from its shapes alone, before anything is allocated:
//   memory  the bytes the engine holds for the call (weights, every cache of
//           every architecture), computed from the same sizes configure()
//           allocates, for the float engine the CLI and the page run;
//   work    the floating-point operations of the call (forward, backward,
//           weight-gradient norms, generating the weights, the path samples),
//           weighted where an operation runs slower than a GEMM (QR, random
//           normals).
// The budgets are constants, the same natively and in WebAssembly, so a config
// the CLI accepts is one the page accepts. A refused config gets a Status
// naming depth (or samples) with the largest value that fits, and what the
// call would need.
//
// The memory budget is what one engine holds in all: one process, or one wasm
// module (one worker of the page). Where something else already lives in it
// (the trainers a session holds, session.h), a check is given those bytes as
// `held`, and the call must fit in what they leave; the refusal then names
// them and the largest value that fits beside them.
#pragma once

#include <cstdint>

#include "resnorm/config.h"

namespace resnorm {

struct Cost {
  double bytes = 0;  // held by the engine during the call
  double work = 0;   // weighted floating-point operations
};

// The memory budget of one engine: everything one process or wasm module holds
// at once (the wasm heap may grow to this, plus what the module itself needs
// and one call's passing data: see docs/cli.md, "Limits").
inline constexpr double kMemoryBudget = 768.0 * 1024 * 1024;
// About 5 s of work natively on a 2-core laptop of 2024 (bench/run.js
// measures the slowest configs the budget allows).
inline constexpr double kWorkBudget = 5.0e10;

// The bytes one Model<S> of `arch` holds configured for cfg (train: a
// training stack, model.h), and the work of its forward and backward with
// the weight-gradient norms. segment (training, model.h): the cfg.tokens rows
// are segments of that many rows with attention within each (BatchNorm's
// whole-batch pass); 0: one segment of all the rows.
double model_bytes(const Config& cfg, Arch arch, int scalar_bytes, bool train = false, int segment = 0);

// What a Model's workspaces are sized for (model.h): the largest tokens,
// width, hidden width and heads (0 for MLP blocks) it has been configured with
// since it started afresh, each on its own, and the deepest depth.
struct Capacity {
  Block block = Block::mlp;
  int tokens = 0, width = 0, hidden = 0, heads = 0, depth = 0;
};
// At most what a Model holds with workspaces of that capacity, whatever its
// arch (each unit counted with all three norms, and a final norm): each of its
// buffers holds at most its size for these sizes.
double capacity_bytes(const Capacity& cap, int scalar_bytes);
// segment: as model_bytes's; a row meets only the rows of its segment.
double stack_work(const Config& cfg, int segment = 0);
// The work dense averaging, or Hyper-Connections' streams, add to stack_work() for `arch` (0 for the
// architectures without them).
double mix_work(const Config& cfg, Arch arch);
// The work Attention Residuals add to stack_work() for `arch` (0 for the architectures without them).
double attn_res_work(const Config& cfg, Arch arch);

// What Engine<S>::simulate(cfg) costs, for scalars of `scalar_bytes` bytes.
Cost simulate_cost(const Config& cfg, int scalar_bytes = 4);
// What Engine<S>::paths(cfg, samples) costs.
Cost paths_cost(const Config& cfg, int samples, int scalar_bytes = 4);

// Whether `cost` fits both budgets beside `held` bytes the engine holds already.
bool fits(const Cost& cost, double held = 0);

// Status::Ok() if `cost` fits both budgets beside `held`; otherwise an error
// naming `field`, its largest value that fits (`max_fit`, computed by the
// caller), what the call would need and what is held already.
Status check_cost(const Cost& cost, const char* field, double value, double max_fit, double held = 0);

// The checks of simulate and paths: validate(cfg) and the budgets, beside
// `held` bytes the engine holds already (its trainers).
Status check_simulate(const Config& cfg, double held = 0);
Status check_paths(const Config& cfg, int samples, double held = 0);

}  // namespace resnorm
