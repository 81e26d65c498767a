// The JSON writer (json.cpp): the one form of every document (", " and ": "
// on one line), numbers at the digits asked for, non-finite as null, strings
// escaped, containers nested and empty.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

#include "resnorm/json.h"

using namespace resnorm;

TEST_CASE("json: objects and arrays nest on one line, with ', ' and ': '", "[json]") {
  Json j;
  j.begin_object().key("a").integer(1).key("b").begin_array().string("x").boolean(true).null().end_array();
  j.key("c").begin_object().end_object().key("d").begin_array().end_array().key("e").raw("{\"f\": 2}");
  CHECK(j.end_object().str() == "{\"a\": 1, \"b\": [\"x\", true, null], \"c\": {}, \"d\": [], \"e\": {\"f\": 2}}");
  Json list;
  list.begin_array().begin_array().number(1).end_array().begin_array().end_array().end_array();
  CHECK(list.str() == "[[1], []]");
}

TEST_CASE("json: numbers at 9 digits or as asked, exact ones read back, non-finite as null", "[json]") {
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(json_number(0.1 + 0.2) == "0.3");
  CHECK(json_number(1.0 / 3.0) == "0.333333333");
  CHECK(json_number(1.0 / 3.0, 10) == "0.3333333333");
  CHECK(json_number(1e6) == "1000000");
  CHECK(json_number(NAN) == "null");
  CHECK(json_number(-inf) == "null");
  for (double v : {0.1 + 0.2, 1.0 / 3.0, 1e-30, 0.03333333333333333, 1e-3, 4294967295.0}) {
    INFO(v);
    CHECK(std::strtod(exact_number(v).c_str(), nullptr) == v);
  }
  CHECK(exact_number(1e-3) == "0.001");
  CHECK(exact_number(0.1 + 0.2) == "0.30000000000000004");
  Json j;
  j.begin_array().number(inf).exact(NAN).integer(-3).integer_or_null(-1).integer_or_null(7).end_array();
  CHECK(j.str() == "[null, null, -3, null, 7]");
}

TEST_CASE("json: strings escape quotes, backslashes and control bytes", "[json]") {
  Json j;
  j.begin_object().key("k\"ey").string("a\\b\n\x01").end_object();
  CHECK(j.str() == "{\"k\\\"ey\": \"a\\\\b\\u000a\\u0001\"}");
}

TEST_CASE("json: named arrays and numbers are written under their names, found by name", "[json]") {
  const std::vector<double> a = {1, NAN}, b = {};
  const std::vector<NamedArray> arrays = {{"a", &a}, {"b", &b}};
  Json j;
  j.begin_object().scalars({{"s", 2.5}, {"t", NAN}}).arrays(arrays).end_object();
  CHECK(j.str() == "{\"s\": 2.5, \"t\": null, \"a\": [1, null], \"b\": []}");
  CHECK(find_array(arrays, "b") == &b);
  CHECK(find_array(arrays, "c") == nullptr);
}
