// resnorm: the native command line over the engine.
//
//   resnorm simulate [--arch a,b,...] [--depth N] ... [--json]
//
// The arguments are parsed by args.cpp (which flags, how numbers are written).
// A bad value exits with status 2 and one line on stderr naming the flag, the
// value and the allowed range; nothing is printed on stdout then.
#include <cstdio>
#include <string>

#include "args.h"
#include "resnorm/engine.h"

using namespace resnorm;

namespace {

int usage(FILE* to) {
  std::fprintf(to, "usage: resnorm simulate [flags] [--json]\n\nflags (all optional):\n");
  for (const FieldSpec& f : field_specs()) {
    const std::string flag = flag_name(f.name);
    std::fprintf(to, "  --%-11s %-34s default %-30s %s\n", flag.c_str(), allowed_text(f).c_str(), f.default_text,
                 f.help);
  }
  std::fprintf(to, "  --json        print one JSON document instead of a table\n");
  std::fprintf(to, "\nnumbers are decimal: 4, -0.5, .5, 1e-3 (no hex, no '+', no spaces)\n");
  return to == stderr ? 2 : 0;
}

int bad(const std::string& message) {
  std::fprintf(stderr, "resnorm: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const CliRequest req = parse_args(argc, argv);
  switch (req.kind) {
    case CliRequest::usage_error: return usage(stderr);
    case CliRequest::help: return usage(stdout);
    case CliRequest::error: return bad(req.message);
    case CliRequest::simulate: break;
  }
  Engine<float> engine;
  Results res;
  const Status st = engine.simulate(req.cfg, &res);
  if (!st.ok()) return bad("--" + flag_name(st.field) + st.message.substr(st.field.size()));
  if (req.json)
    std::printf("%s\n", results_json(res).c_str());
  else
    std::fputs(results_table(res).c_str(), stdout);
  return 0;
}
