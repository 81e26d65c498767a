// Times Engine<float>::simulate on a scene: first call (cold weight bank and
// workspaces) and the median of steady-state calls, in ms. Prints one JSON line.
//   resnorm_bench [--arch ...] [--depth N] ... [--repeat N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "resnorm/engine.h"

using namespace resnorm;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  Config cfg;
  int repeat = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    if (key == "--repeat") {
      repeat = std::max(1, std::atoi(argv[i + 1]));
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
  Engine<float> engine;
  Results res;
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
    cfg.gain = (r % 2) ? 1.0 : 1.0 + 1e-3;
    auto t = Clock::now();
    engine.simulate(cfg, &res);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf("{\"first_ms\": %.4f, \"median_ms\": %.4f, \"p10_ms\": %.4f, \"p90_ms\": %.4f, \"repeat\": %d}\n", first,
              ms[ms.size() / 2], ms[ms.size() / 10], ms[ms.size() * 9 / 10], repeat);
  return 0;
}
