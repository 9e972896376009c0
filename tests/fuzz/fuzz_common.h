// Shared set-up of the fuzz targets that go through the C API: one context
// and its CPU device for the whole run. Without `cache` the kernel cache is
// off (every input is compiled, nothing is written); with it, compiled
// kernels are kept in memory and in XPU_CACHE_DIR, by default fuzz-cache/
// under the working directory (never the user's own cache). A failing call
// is the expected outcome for most inputs; a crash, a hang or a sanitizer
// report is a finding.
#pragma once

#include "xpu_c.h"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace fuzz {

struct Session {
  xpu_context ctx = nullptr;
  xpu_device cpu = nullptr;
};

/// Made on first use (the environment is read once per process, so every
/// target asks the same way each time); exits when the library cannot
/// start, since no input could then run.
inline Session &session(bool cache = false) {
  static Session s = [cache] {
    Session out;
    setenv("XPU_BACKEND", "cpu", 1);
    if (!cache) {
      setenv("XPU_CACHE", "off", 1);
    } else if (!std::getenv("XPU_CACHE_DIR")) {
      char cwd[PATH_MAX];
      if (getcwd(cwd, sizeof cwd))
        setenv("XPU_CACHE_DIR", (std::string(cwd) + "/fuzz-cache").c_str(), 1);
    }
    if (xpu_context_create(nullptr, &out.ctx) != XPU_SUCCESS ||
        xpu_device_default(out.ctx, &out.cpu) != XPU_SUCCESS) {
      std::fprintf(stderr, "fuzz: no CPU device: %s\n", xpu_last_error_message());
      std::exit(1);
    }
    return out;
  }();
  return s;
}

} // namespace fuzz
