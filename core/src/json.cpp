// The JSON writer (see json.h).
#include "resnorm/json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace resnorm {

const std::vector<double>* find_array(const std::vector<NamedArray>& arrays, std::string_view name) {
  for (const NamedArray& a : arrays)
    if (name == a.name) return a.values;
  return nullptr;
}

std::string json_number(double v, int digits) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string exact_number(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

void Json::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_) s_ += ", ";
  first_ = false;
}

Json& Json::value(std::string_view text) {
  separate();
  s_ += text;
  return *this;
}

Json& Json::begin_object() {
  value("{");
  first_ = true;
  return *this;
}

Json& Json::begin_array() {
  value("[");
  first_ = true;
  return *this;
}

Json& Json::end_object() {
  s_ += '}';
  first_ = false;
  return *this;
}

Json& Json::end_array() {
  s_ += ']';
  first_ = false;
  return *this;
}

Json& Json::key(std::string_view k) {
  string(k);
  s_ += ": ";
  after_key_ = true;
  return *this;
}

Json& Json::string(std::string_view text) {
  separate();
  s_ += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      s_ += '\\';
      s_ += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      s_ += buf;
    } else {
      s_ += c;
    }
  }
  s_ += '"';
  return *this;
}

Json& Json::number(double v, int digits) { return value(json_number(v, digits)); }
Json& Json::exact(double v) { return value(std::isfinite(v) ? exact_number(v) : "null"); }
Json& Json::integer(int64_t v) { return value(std::to_string(v)); }
Json& Json::integer_or_null(int64_t v) { return v < 0 ? null() : integer(v); }
Json& Json::boolean(bool v) { return value(v ? "true" : "false"); }
Json& Json::null() { return value("null"); }
Json& Json::raw(std::string_view document) { return value(document); }

Json& Json::array(const std::vector<double>& v) {
  begin_array();
  for (double x : v) number(x);
  return end_array();
}

Json& Json::arrays(const std::vector<NamedArray>& a) {
  for (const NamedArray& n : a) key(n.name).array(*n.values);
  return *this;
}

Json& Json::scalars(const std::vector<NamedScalar>& a) {
  for (const NamedScalar& n : a) key(n.name).number(n.value);
  return *this;
}

}  // namespace resnorm
