// resnorm/json.h: the one JSON writer, for every document the engine writes:
// the CLI's simulate and train output, the configs, and the field tables the
// bindings hand to JS.
//
//   Json j;
//   j.begin_object().key("depth").integer(96).key("arch").begin_array().string("pre_ln").end_array().end_object();
//   j.str();   // {"depth": 96, "arch": ["pre_ln"]}
//
// One line, items separated by ", " and keys by ": ". Numbers: number() with
// 9 significant digits (a measurement) or as many as asked, exact() the
// shortest text that reads back as the same double (a setting), integer()
// whole numbers. A number that is not finite is written null.
//
// A result's arrays and numbers are handed to the writer and to the bindings
// by name (NamedArray, NamedScalar): the one list of a result's keys, so no
// second list of them exists to be kept in step.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace resnorm {

struct NamedArray {
  const char* name;
  const std::vector<double>* values;
};

struct NamedScalar {
  const char* name;
  double value;
};

// The array named `name` in `arrays`, or nullptr.
const std::vector<double>* find_array(const std::vector<NamedArray>& arrays, std::string_view name);

// %.<digits>g, "null" when not finite.
std::string json_number(double v, int digits = 9);
// The shortest of %.15g, %.16g, %.17g that reads back as v.
std::string exact_number(double v);

class Json {
 public:
  Json& begin_object();
  Json& end_object();
  Json& begin_array();
  Json& end_array();
  Json& key(std::string_view k);
  Json& string(std::string_view s);        // quoted, with '"', '\' and control bytes escaped
  Json& number(double v, int digits = 9);  // %.<digits>g
  Json& exact(double v);                   // exact_number()
  Json& integer(int64_t v);
  Json& integer_or_null(int64_t v);  // null for a negative v (the -1 of "none")
  Json& boolean(bool v);
  Json& null();
  Json& array(const std::vector<double>& v);         // [number, ...]
  Json& arrays(const std::vector<NamedArray>& a);    // "name": [number, ...] for each
  Json& scalars(const std::vector<NamedScalar>& a);  // "name": number for each
  Json& raw(std::string_view document);              // a value already written as JSON
  const std::string& str() const { return s_; }

 private:
  Json& value(std::string_view text);
  void separate();  // ", " between two items of a container
  std::string s_;
  bool first_ = true;       // the next item is its container's first
  bool after_key_ = false;  // a key was written: its value follows without a separator
};

}  // namespace resnorm
