// Loading the CUDA driver and describing its errors; see cuda_driver.h.
#include "cuda_driver.h"

#include <dlfcn.h>

#include <mutex>

namespace xpu::cuda {

const Driver *driver(std::string &why) {
  static Driver d;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      error = "libcuda.so.1 not found";
      return;
    }
#define XPU_CUDA_RESOLVE(name, symbol, ret, params)                            \
  d.name = reinterpret_cast<ret(*) params>(dlsym(lib, symbol));               \
  if (!d.name) {                                                               \
    error = std::string("libcuda.so.1 lacks ") + symbol;                       \
    return;                                                                    \
  }
    XPU_CUDA_ENTRY_POINTS(XPU_CUDA_RESOLVE)
#undef XPU_CUDA_RESOLVE
#define XPU_CUDA_RESOLVE_OPTIONAL(name, symbol, ret, params)                   \
  d.name = reinterpret_cast<ret(*) params>(dlsym(lib, symbol));               \
  if (!d.name)                                                                 \
    d.missing += std::string(d.missing.empty() ? "" : ", ") + symbol;
    XPU_CUDA_OPTIONAL_ENTRY_POINTS(XPU_CUDA_RESOLVE_OPTIONAL)
#undef XPU_CUDA_RESOLVE_OPTIONAL
    // Green contexts say what they lack when a budget asks for them.
#define XPU_CUDA_RESOLVE_GREEN(name, symbol, ret, params)                      \
  d.name = reinterpret_cast<ret(*) params>(dlsym(lib, symbol));
    XPU_CUDA_GREEN_CONTEXT_ENTRY_POINTS(XPU_CUDA_RESOLVE_GREEN)
#undef XPU_CUDA_RESOLVE_GREEN
    CUresult r = d.cuInit(0);
    if (r != CUDA_SUCCESS) {
      error = r == CUDA_ERROR_NO_DEVICE ? "the driver found no device"
                                        : "cuInit failed: " + describe(d, r);
      return;
    }
    ok = true;
  });
  why = error;
  return ok ? &d : nullptr;
}

std::string missingGreenContextEntryPoints(const Driver &d) {
  std::string missing;
#define XPU_CUDA_LACKS(name, symbol, ret, params)                              \
  if (!d.name)                                                                 \
    missing += std::string(missing.empty() ? "" : ", ") + symbol;
  XPU_CUDA_GREEN_CONTEXT_ENTRY_POINTS(XPU_CUDA_LACKS)
#undef XPU_CUDA_LACKS
  return missing;
}

namespace {
std::mutex poisonMutex;
std::string poisonReason;
} // namespace

void poison(const std::string &why) {
  std::lock_guard<std::mutex> g(poisonMutex);
  if (poisonReason.empty())
    poisonReason = why;
}

std::string poisoned() {
  std::lock_guard<std::mutex> g(poisonMutex);
  return poisonReason;
}

std::string describe(const Driver &d, CUresult r) {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(r, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(r, &text);
  std::string s = name ? name : "CUDA error " + std::to_string(r);
  if (text)
    s += std::string(": ") + text;
  return s;
}

rt::Status failure(const Driver &d, CUresult r, const std::string &what) {
  xpu_status code = XPU_ERROR_BACKEND;
  if (isStickyError(r))
    code = XPU_ERROR_DEVICE_FAULT;
  else if (r == CUDA_ERROR_OUT_OF_MEMORY)
    code = XPU_ERROR_OUT_OF_MEMORY;
  return {code, what + ": " + describe(d, r)};
}

} // namespace xpu::cuda
