// The CLI's argument parser on any argument vector: the bytes split at NUL
// into arguments. Never crashes; an error names a flag or the command, is one
// printable line, and a parsed request always holds a config validate() and
// the budgets accept or refuse without crashing.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "args.h"
#include "resnorm/limits.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> args{"resnorm"};
  std::string cur;
  for (size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(data[i]);
    }
  }
  args.push_back(cur);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  const resnorm::CliRequest req = resnorm::parse_args(static_cast<int>(argv.size()), argv.data());
  if (req.kind == resnorm::CliRequest::error) {
    if (req.message.empty()) std::abort();
    for (char c : req.message)
      if (c < 32 || c > 126) std::abort();  // never a control byte in a message
  }
  if (req.kind == resnorm::CliRequest::simulate) {
    const resnorm::Status st = resnorm::check_simulate(req.cfg);
    if (!st.ok() && (st.field.empty() || st.message.rfind(st.field + ": ", 0) != 0)) std::abort();
  }
  return 0;
}
