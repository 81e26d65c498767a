#include "args.h"

#include <cstring>
#include <string>
#include <vector>

namespace resnorm {
namespace {

CliRequest failed(const std::string& message) {
  CliRequest r;
  r.kind = CliRequest::error;
  r.message = message;
  return r;
}

}  // namespace

std::string flag_name(std::string name) {
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

CliRequest parse_args(int argc, const char* const* argv) {
  CliRequest req;
  if (argc < 2) {
    req.kind = CliRequest::usage_error;
    return req;
  }
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    req.kind = CliRequest::help;
    return req;
  }
  if (cmd != "simulate" && cmd != "train")
    return failed("unknown command '" + printable(cmd) + "' (allowed: simulate, train)");
  const bool train = cmd == "train";
  if (train) req.kind = CliRequest::train;
  auto find = [train](const std::string& f) { return train ? find_train_field(f) : find_field(f); };
  std::vector<std::string> given;  // the fields set so far
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--json") {
      req.json = true;
      continue;
    }
    if (arg == "--double") {
      req.double_precision = true;
      continue;
    }
    if (arg == "--export-pytorch" || arg.rfind("--export-pytorch=", 0) == 0) {
      if (!req.export_pytorch.empty()) return failed("--export-pytorch: given more than once (give each flag once)");
      if (arg.size() > 16) {
        req.export_pytorch = arg.substr(17);
      } else {
        if (i + 1 >= argc || std::strncmp(argv[i + 1], "--", 2) == 0)
          return failed("--export-pytorch: missing value (a file name)");
        req.export_pytorch = argv[++i];
      }
      if (req.export_pytorch.empty()) return failed("--export-pytorch: missing value (a file name)");
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      req.kind = CliRequest::help;
      req.train_help = train;
      return req;
    }
    if (arg.rfind("--", 0) != 0) return failed("unexpected argument '" + printable(arg) + "'");
    std::string key = arg.substr(2), value;
    bool has_value = false;
    const size_t eq = key.find('=');
    if (eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
      has_value = true;
    }
    std::string field = key;
    for (char& ch : field)
      if (ch == '-') ch = '_';
    const FieldSpec* spec = key.find('_') == std::string::npos ? find(field) : nullptr;
    if (!spec) {
      const std::string hint = find(key) ? ", did you mean --" + flag_name(key) + "?" : ", see resnorm --help";
      return failed("unknown flag --" + printable(key) + " (flags are spelled with '-'" + hint + ")");
    }
    // as a link names a setting given twice, the command line refuses it: which one was meant?
    for (const std::string& f : given)
      if (f == field) return failed("--" + key + ": given more than once (give each flag once)");
    given.push_back(field);
    if (!has_value) {
      if (i + 1 >= argc || std::strncmp(argv[i + 1], "--", 2) == 0)
        return failed("--" + key + ": missing value (allowed " + allowed_text(*spec) + ")");
      value = argv[++i];
    }
    const Status st = train ? set_train_field(req.train_cfg, field, value) : set_field(req.cfg, field, value);
    if (!st.ok()) return failed("--" + key + st.message.substr(st.field.size()));
  }
  if (train) {
    const Status st = validate(req.train_cfg);
    if (!st.ok()) return failed("--" + flag_name(st.field) + st.message.substr(st.field.size()));
  }
  return req;
}

}  // namespace resnorm
