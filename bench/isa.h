// What a native bench binary was compiled for and with, for its first JSON line.
#pragma once

#include <string>

namespace bench {

// The instruction sets this binary was compiled for (RESNORM_ARCH_FLAGS).
inline std::string isa() {
  std::string s = "x86-64";
#ifdef __SSE4_2__
  s += "+sse4.2";
#endif
#ifdef __AVX__
  s += "+avx";
#endif
#ifdef __AVX2__
  s += "+avx2";
#endif
#ifdef __FMA__
  s += "+fma";
#endif
#ifdef __AVX512F__
  s += "+avx512f";
#endif
#if !defined(__x86_64__)
  s = "non-x86";
#endif
  return s;
}

// "clang 14.0.6" or "gcc 12.2.0" (printable ASCII: safe inside a JSON string).
inline std::string compiler() {
#ifdef __clang__
  std::string s = std::string("clang ") + __clang_version__;
#else
  std::string s = std::string("gcc ") + __VERSION__;
#endif
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace bench
