// Shared set-up of the C API misuse tests: a context, its CPU device, and
// kernels that the tests compile on it.
#pragma once

#include "xpu_c.h"

#include <doctest/doctest.h>

#include <string>

namespace misuse {

#define XPU_OK(expr)                                                           \
  do {                                                                         \
    xpu_status st_ = (expr);                                                   \
    INFO(#expr << " -> " << std::string(xpu_status_name(st_)) << ": "          \
               << std::string(xpu_last_error_message()));                      \
    REQUIRE(st_ == XPU_SUCCESS);                                               \
  } while (0)

/// Checks that `expr` fails with `status` and a message (no silent failure).
#define XPU_FAILS(expr, status)                                                \
  do {                                                                         \
    xpu_status st_ = (expr);                                                   \
    INFO(#expr << " -> " << std::string(xpu_status_name(st_)) << ": "          \
               << std::string(xpu_last_error_message()));                      \
    CHECK(st_ == (status));                                                    \
    CHECK(std::string(xpu_last_error_message()) != "");                        \
  } while (0)

struct Env {
  xpu_context ctx = nullptr;
  xpu_device dev = nullptr;
};
/// The process's context and its device of XPU_TEST_BACKEND (cpu when
/// unset), made once; the tests fail when there is none.
Env &env();
/// The device of XPU_TEST_BACKEND in `ctx`.
xpu_device deviceOf(xpu_context ctx);

/// y = a * x + y over n elements (README's kernel).
extern const char kSaxpy[];
/// o[0] = f(o[0]) applied n times: long enough to be still queued when the
/// test releases what it uses (tens of milliseconds for n = 2^24).
extern const char kSpin[];
/// The host's value of kSpin's result.
float spinReference(float start, uint32_t n);

xpu_module compile(const char *text, xpu_device dev = nullptr);
xpu_kernel kernelOf(xpu_module m, const char *name);

} // namespace misuse
