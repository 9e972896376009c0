// The conformance suite's harness: one context and one device of the backend
// named by XPU_TEST_BACKEND (cpu when unset), and small helpers over the C
// API. Every suite body runs unchanged on every backend.
#pragma once

#include "xpu_c.h"

#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace conf {

/// The device under test, set up once by main().
struct Target {
  xpu_context ctx = nullptr;
  xpu_device dev = nullptr;
  xpu_backend backend = XPU_BACKEND_CPU;
  std::string name;
};
Target &target();

/// Fails the current test with the last error when `st` is not success.
#define XPU_OK(expr)                                                           \
  do {                                                                         \
    xpu_status st_ = (expr);                                                   \
    INFO(#expr << " -> " << std::string(xpu_status_name(st_)) << ": "          \
               << std::string(xpu_last_error_message()));                      \
    REQUIRE(st_ == XPU_SUCCESS);                                               \
  } while (0)

/// A compiled module that releases itself.
struct Module {
  xpu_module handle = nullptr;
  explicit Module(const std::string &text, xpu_device dev = nullptr);
  ~Module() { xpu_module_release(handle); }
  xpu_kernel kernel(const char *name) const;
};

/// A device buffer that frees itself (after synchronizing the device).
struct Buffer {
  xpu_buffer handle = nullptr;
  size_t bytes = 0;
  explicit Buffer(size_t bytes);
  template <typename T> static Buffer from(const std::vector<T> &v) {
    Buffer b(v.size() * sizeof(T));
    XPU_OK(xpu_buffer_upload(b.handle, 0, v.data(), b.bytes));
    return b;
  }
  template <typename T> std::vector<T> read() const {
    std::vector<T> out(bytes / sizeof(T));
    XPU_OK(xpu_buffer_download(handle, 0, out.data(), bytes));
    return out;
  }
  Buffer(Buffer &&o) noexcept : handle(o.handle), bytes(o.bytes) { o.handle = nullptr; }
  Buffer(const Buffer &) = delete;
  ~Buffer();
};

/// What compiling `text` for the device under test said, and in `st` how
/// it ended; the module is released.
std::string diagnosticsOf(const std::string &text, xpu_status &st);

/// Launches on the default stream and synchronizes it.
void run(xpu_kernel k, std::initializer_list<uint32_t> grid,
         std::initializer_list<uint32_t> block, std::vector<xpu_arg> args);
xpu_stream defaultStream();

/// Fresh random values for each test run (seeded from std::random_device,
/// printed on failure so a run can be repeated with XPU_TEST_SEED).
std::mt19937_64 &rng();
template <typename T> std::vector<T> randomInts(size_t n, T lo, T hi) {
  std::uniform_int_distribution<int64_t> d(lo, hi);
  std::vector<T> v(n);
  for (auto &x : v)
    x = T(d(rng()));
  return v;
}
inline std::vector<float> randomFloats(size_t n, float lo = -1, float hi = 1) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto &x : v)
    x = d(rng());
  return v;
}

/// Units in the last place between two finite floats of the same sign.
inline uint32_t ulpDistance(float a, float b) {
  int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  return ia > ib ? uint32_t(ia - ib) : uint32_t(ib - ia);
}

/// How far the backend under test may round sqrt from the correct result.
/// Vulkan relaxes it: GLSL.std.450 Sqrt is "inherited from 1.0 /
/// inversesqrt()" (Vulkan spec, Precision and Operation of SPIR-V
/// Instructions: inversesqrt 2 ULP, division 2.5 ULP). Elsewhere sqrt is
/// correctly rounded.
inline uint32_t sqrtMaxUlp() { return target().backend == XPU_BACKEND_VULKAN ? 5 : 0; }

} // namespace conf
