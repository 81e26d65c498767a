// Times Trainer<float>::step on one training config, for bench/run.js's
// training part (bench/lib/train.js), with the same ISA flags as the other
// native contenders. Flags are the train fields (--depth 4 --width 64 ...,
// '-' for '_'); the trainer trains the first architecture of --arch.
//   resnorm_train_bench [flags] --serve 1
//     a long-lived process; reads commands from stdin and answers each with
//     one JSON line (the first line, unasked: {"isa", "compiler", "tokens_per_step"}):
//       step K     K updates, each timed alone; the first update of the process
//                  is timed apart: {"first_ms": ..., "samples_ms": [...]}
//       losses K   a new trainer of the same config logging every step: the
//                  train_loss of its first K updates, every digit {"losses": [...]}
//     exits at EOF.
//   resnorm_train_bench [flags] --cost 1
//     check_train() and train_cost() of the config:
//     {"ok": ..., "field": ..., "message": ..., "max_fit": ..., "bytes": ..., "work": ...}
//   resnorm_train_bench --largest 1
//     the allowed config whose train_cost() holds the most bytes: every size
//     field at its maximum (width, expansion, heads, seq, vocab,
//     eval_batches), for each task and each batch 1, 2, 4, ..., 256 the
//     deepest depth check_train() allows, one architecture (pre_ln):
//     {"config": {...}, "bytes": ..., "work": ...}
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "isa.h"
#include "resnorm/trainer.h"

using namespace resnorm;
using Clock = std::chrono::steady_clock;

namespace {

// A JSON string of s (the messages and names here are printable ASCII).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

double field_max(const char* name) { return find_train_field(name)->max; }

// The config of the --largest search: every size field at its maximum, one
// architecture; the caller picks task, batch and depth.
TrainConfig largest_shape() {
  TrainConfig tc;
  tc.archs = {Arch::pre_ln};
  tc.width = int(field_max("width"));
  tc.expansion = int(field_max("expansion"));
  tc.heads = int(field_max("heads"));
  tc.seq = int(field_max("seq"));
  tc.vocab = int(field_max("vocab"));
  tc.eval_batches = int(field_max("eval_batches"));
  tc.depth = int(field_max("depth"));
  return tc;
}

int largest() {
  TrainConfig best;
  double best_bytes = -1;
  const FieldSpec& tasks = *find_train_field("task");
  for (size_t t = 0; t < tasks.choices.size(); ++t)
    for (int batch = 1; batch <= int(field_max("batch")); batch *= 2) {
      TrainConfig tc = largest_shape();
      tc.task = Task(t);
      tc.batch = batch;
      Status st = check_train(tc);
      if (!st.ok() && st.field == "depth" && st.max_fit >= 1) {
        tc.depth = int(st.max_fit);
        st = check_train(tc);
      }
      if (!st.ok()) continue;
      const double bytes = train_cost(tc).bytes;
      if (bytes > best_bytes) {
        best_bytes = bytes;
        best = tc;
      }
    }
  if (best_bytes < 0) {
    std::printf("{\"error\": \"no config of the search is allowed\"}\n");
    return 1;
  }
  const Cost k = train_cost(best);
  std::printf("{\"config\": %s, \"bytes\": %.0f, \"work\": %.6g}\n", train_config_json(best).c_str(), k.bytes, k.work);
  return 0;
}

int cost(const TrainConfig& tc) {
  const Status st = check_train(tc);
  const Cost k = train_cost(tc);
  std::printf("{\"ok\": %s, \"field\": %s, \"message\": %s, \"max_fit\": %.10g, \"bytes\": %.0f, \"work\": %.6g}\n",
              st.ok() ? "true" : "false", quoted(st.field).c_str(), quoted(st.message).c_str(), st.max_fit, k.bytes,
              k.work);
  return 0;
}

int serve(const TrainConfig& tc) {
  Trainer<float> trainer;
  if (Status st = trainer.configure(tc, tc.archs[0]); !st.ok()) {
    std::fprintf(stderr, "resnorm_train_bench: %s\n", st.message.c_str());
    return 2;
  }
  const TaskData& task = trainer.task();
  std::printf("{\"isa\": \"%s\", \"compiler\": %s, \"tokens_per_step\": %ld}\n", bench::isa().c_str(),
              quoted(bench::compiler()).c_str(), long(tc.batch) * task.context());
  std::fflush(stdout);
  bool first = true;
  char buf[64];
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.rfind("step ", 0) == 0) {
      const int k = std::max(0, std::atoi(line.c_str() + 5));
      auto one = [&]() {
        const auto t = Clock::now();
        trainer.step(1);
        return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
      };
      std::string out = "{";
      if (first) {
        std::snprintf(buf, sizeof buf, "\"first_ms\": %.4f, ", one());
        out += buf;
        first = false;
      }
      out += "\"samples_ms\": [";
      for (int i = 0; i < k; ++i) {
        std::snprintf(buf, sizeof buf, "%s%.4f", i ? ", " : "", one());
        out += buf;
      }
      std::printf("%s], \"steps_done\": %lld}\n", out.c_str(), static_cast<long long>(trainer.steps_done()));
    } else if (line.rfind("losses ", 0) == 0) {
      const int k = std::max(0, std::atoi(line.c_str() + 7));
      TrainConfig each = tc;
      each.log_every = 1;
      Trainer<float> fresh;
      fresh.configure(each, each.archs[0]);
      std::string out = "{\"losses\": [";
      int i = 0;
      for (const TrainLog& log : fresh.step(k)) {
        std::snprintf(buf, sizeof buf, "%s%.17g", i++ ? ", " : "", log.train_loss);
        out += buf;
      }
      std::printf("%s]}\n", out.c_str());
    } else {
      std::printf("{\"error\": \"unknown command\"}\n");
    }
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  TrainConfig tc;
  std::string mode;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--serve" || key == "--cost" || key == "--largest") {
      mode = key.substr(2);
      continue;
    }
    std::string field = key.substr(2);
    for (char& c : field)
      if (c == '-') c = '_';
    if (Status st = set_train_field(tc, field, argv[i + 1]); !st.ok()) {
      std::fprintf(stderr, "resnorm_train_bench: %s\n", st.message.c_str());
      return 2;
    }
  }
  if (mode == "largest") return largest();
  if (Status st = validate(tc); !st.ok()) {
    std::fprintf(stderr, "resnorm_train_bench: %s\n", st.message.c_str());
    return 2;
  }
  if (mode == "cost") return cost(tc);
  if (mode == "serve") return serve(tc);
  std::fprintf(stderr, "usage: resnorm_train_bench [train flags] --serve 1 | --cost 1 | --largest 1\n");
  return 2;
}
