// resnorm: the native command line over the engine.
//
//   resnorm simulate [--arch a,b,...] [--depth N] ... [--json]
//
// Flags are the fields of config.h's table (final_norm is --final-norm). A bad
// value exits with status 2 and one line on stderr naming the flag, the value
// and the allowed range; nothing is printed on stdout then. Numbers are
// decimal (config.h, parse_decimal); whatever a message echoes of the
// arguments is cut to 40 bytes with control bytes shown as '?'.
#include <cstdio>
#include <cstring>
#include <string>

#include "resnorm/engine.h"

using namespace resnorm;

namespace {

// final_norm -> final-norm
std::string flag_name(std::string name) {
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

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
  if (argc < 2) return usage(stderr);
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") return usage(stdout);
  if (cmd != "simulate") return bad("unknown command '" + printable(cmd) + "' (allowed: simulate)");
  Config cfg;
  bool json = false;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json") {
      json = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") return usage(stdout);
    if (arg.rfind("--", 0) != 0) return bad("unexpected argument '" + printable(arg) + "'");
    std::string key = arg.substr(2), value;
    bool has_value = false;
    size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      has_value = true;
    }
    // Flags are the field names with '-' for '_' (--final-norm), in that spelling only.
    std::string field = key;
    for (char& ch : field)
      if (ch == '-') ch = '_';
    const FieldSpec* spec = key.find('_') == std::string::npos ? find_field(field) : nullptr;
    if (!spec) {
      const std::string hint = find_field(key) ? ", did you mean --" + flag_name(key) + "?" : ", see resnorm --help";
      return bad("unknown flag --" + printable(key) + " (flags are spelled with '-'" + hint + ")");
    }
    if (!has_value) {
      if (i + 1 >= argc || std::strncmp(argv[i + 1], "--", 2) == 0)
        return bad("--" + key + ": missing value (allowed " + allowed_text(*spec) + ")");
      value = argv[++i];
    }
    Status st = set_field(cfg, field, value);
    if (!st.ok()) return bad("--" + key + st.message.substr(st.field.size()));
  }
  Engine<float> engine;
  Results res;
  Status st = engine.simulate(cfg, &res);
  if (!st.ok()) return bad("--" + flag_name(st.field) + st.message.substr(st.field.size()));
  if (json)
    std::printf("%s\n", results_json(res).c_str());
  else
    std::fputs(results_table(res).c_str(), stdout);
  return 0;
}
