// Times Engine<float>::simulate on a scene: first call (cold weight bank and
// workspaces) and the steady-state calls, in ms. Prints one JSON line.
//   resnorm_bench [--arch ...] [--depth N] ... [--repeat N] [--results FILE] [--phases N]
// --results FILE  writes the results of one more call at the given gain (the
//                 CLI's JSON), so the benchmark can check every contender's numbers
// --phases N      instead of timing simulate, prints where one recompute spends its
//                 time (bench/phases.h), medians over N recomputes
// --serve 1       a long-lived process for bench/run.js, which interleaves it with
//                 the other contenders call by call; reads commands from stdin:
//                   run K          K timed calls (the process's first call is timed
//                                  apart): {"first_ms": ..., "samples_ms": [...]}
//                   results FILE   one call at the given gain, its JSON into FILE
//                 and answers each with one JSON line on stdout (the first line,
//                 unasked: {"isa", "compiler"}); exits at EOF.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "isa.h"
#include "phases.h"
#include "resnorm/engine.h"

using namespace resnorm;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  Config cfg;
  int repeat = 200, phases = 0, serve = 0;
  std::string results_file;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    if (key == "--repeat") {
      repeat = std::max(1, std::atoi(argv[i + 1]));
      continue;
    }
    if (key == "--phases") {
      phases = std::max(1, std::atoi(argv[i + 1]));
      continue;
    }
    if (key == "--serve") {
      serve = std::atoi(argv[i + 1]);
      continue;
    }
    if (key == "--results") {
      results_file = argv[i + 1];
      continue;
    }
    std::string field = key.substr(2);
    for (char& c : field)
      if (c == '-') c = '_';
    Status st = set_field(cfg, field, argv[i + 1]);
    if (!st.ok()) {
      std::fprintf(stderr, "resnorm_bench: %s\n", st.message.c_str());
      return 2;
    }
  }
  if (Status st = validate(cfg); !st.ok()) {
    std::fprintf(stderr, "resnorm_bench: %s\n", st.message.c_str());
    return 2;
  }
  if (phases) {
    bench::Phases p = bench::profile(cfg, phases);
    std::printf(
        "{\"configure_ms\": %.4f, \"forward_ms\": %.4f, \"backward_ms\": %.4f, \"result_ms\": %.4f, "
        "\"total_ms\": %.4f, \"kernels_ms\": %.4f, \"norms_ms\": %.4f, \"repeat\": %d, \"isa\": \"%s\"}\n",
        p.configure, p.forward, p.backward, p.result, p.total, p.kernels, p.norms, phases, bench::isa().c_str());
    return 0;
  }
  const double gain = cfg.gain;
  Engine<float> engine;
  Results res;
  if (serve) {
    std::printf("{\"isa\": \"%s\", \"compiler\": \"%s\"}\n", bench::isa().c_str(), bench::compiler().c_str());
    std::fflush(stdout);
    long calls = 0;
    std::string line;
    char buf[64];
    while (std::getline(std::cin, line)) {
      if (line.rfind("run ", 0) == 0) {
        const int k = std::max(0, std::atoi(line.c_str() + 4));
        std::string out = "{";
        auto one = [&]() {
          cfg.gain = (calls++ % 2) ? gain + 1e-3 : gain;  // as a slider would
          auto t = Clock::now();
          engine.simulate(cfg, &res);
          return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
        };
        if (calls == 0) {
          std::snprintf(buf, sizeof buf, "\"first_ms\": %.4f, ", one());
          out += buf;
        }
        out += "\"samples_ms\": [";
        for (int r = 0; r < k; ++r) {
          std::snprintf(buf, sizeof buf, "%s%.4f", r ? ", " : "", one());
          out += buf;
        }
        std::printf("%s]}\n", out.c_str());
      } else if (line.rfind("results ", 0) == 0) {
        cfg.gain = gain;
        engine.simulate(cfg, &res);
        std::ofstream(line.substr(8)) << results_json(res) << "\n";
        std::printf("{\"ok\": true}\n");
      } else {
        std::printf("{\"error\": \"unknown command\"}\n");
      }
      std::fflush(stdout);
    }
    return 0;
  }
  auto t0 = Clock::now();
  Status st = engine.simulate(cfg, &res);
  const double first = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (!st.ok()) {
    std::fprintf(stderr, "resnorm_bench: %s\n", st.message.c_str());
    return 2;
  }
  std::vector<double> ms;
  for (int r = 0; r < repeat; ++r) {
    // Alternate the gain as a slider would, so nothing is trivially cached.
    cfg.gain = (r % 2) ? gain : gain + 1e-3;
    auto t = Clock::now();
    engine.simulate(cfg, &res);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  if (!results_file.empty()) {
    cfg.gain = gain;
    engine.simulate(cfg, &res);
    std::ofstream(results_file) << results_json(res) << "\n";
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  std::string samples;
  char buf[32];
  for (size_t i = 0; i < ms.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.4f", i ? ", " : "", ms[i]);
    samples += buf;
  }
  std::printf(
      "{\"first_ms\": %.4f, \"median_ms\": %.4f, \"p10_ms\": %.4f, \"p90_ms\": %.4f, \"repeat\": %d, "
      "\"isa\": \"%s\", \"compiler\": \"%s\", \"samples_ms\": [%s]}\n",
      first, sorted[sorted.size() / 2], sorted[sorted.size() / 10], sorted[sorted.size() * 9 / 10], repeat,
      bench::isa().c_str(), bench::compiler().c_str(), samples.c_str());
  return 0;
}
