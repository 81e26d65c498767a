// resnorm/export_pytorch.h: a training run as one self-contained PyTorch script.
//
//   std::string script;
//   resnorm::Status st = resnorm::export_pytorch<float>({{tc}}, 0, &script);   // every arch of tc
//
// The script is core/pytorch/resnorm_torch.py (the model as nn.Modules, the
// optimizer, the trainer's logs and JSON) followed by RUN, a JSON document:
// the run's config, every architecture's initial parameters (float64,
// base64, in the network's order: network.h), and the data: every training
// batch of the run and the held-out set as the task drew them (tasks.h).
// Several groups (a lab claim whose runs differ in more than the
// architecture): RUN holds each group's document under "groups", every run
// with the lab's key and label, and each distinct data once under "data";
// the script trains the groups in turn and prints each run's key on every
// line.
// Shipping the data keeps the script free of a port of the engine's random
// streams: step 0 in PyTorch is the engine's step 0.
//
// Refused with a Status naming the field: an architecture the script does
// not implement (`arch`, with the implemented list), and a file over
// kPytorchMaxBytes (`steps`, naming steps and batch). BatchNorm (`norm`) is
// exported: the config carries its momentum and whether pads count.
#pragma once

#include <string>
#include <vector>

#include "resnorm/trainer.h"

namespace resnorm {

// The largest script written, in bytes: the data grows with steps x batch.
inline constexpr double kPytorchMaxBytes = 20e6;

// The architectures the script implements, in the engine's order.
const std::vector<Arch>& pytorch_archs();

// One config's runs in a script: every arch of config.archs, and per arch the
// lab's key and label of its run (needed with several groups, unused with one).
struct PytorchGroup {
  TrainConfig config;
  std::vector<std::string> keys, labels;
};

// The groups' runs as one script: each arch of each group configured afresh
// (Trainer<S>, beside `held` bytes as Trainer::configure counts them), so the
// script holds the initial weights in S's precision. One group writes the
// CLI's script of its config.
template <class S>
Status export_pytorch(const std::vector<PytorchGroup>& groups, double held, std::string* script);

// The simulation of cfg (Engine::simulate: the stack at init, one sequence h_0,
// loss <r, out>) as a PyTorch script: the same code, then RUN with the config,
// every arch's unit wiring and weights (W = s B, float64, base64), h_0 and r.
// Run, it prints the JSON of `resnorm simulate --json` computed by PyTorch.
// Refused like the engine's simulate (check_simulate) and for an arch the
// script does not implement (`arch`).
Status export_pytorch_simulation(const Config& cfg, std::string* script);

// The code part of the script (core/pytorch/resnorm_torch.py), embedded at build time.
extern const char* const kResnormTorchPy;

}  // namespace resnorm
