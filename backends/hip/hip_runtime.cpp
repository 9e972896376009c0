// Loading the HIP runtime and describing its errors; see hip_runtime.h.
#include "hip_runtime.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <vector>

namespace xpu::hip {

namespace {

/// Where libamdhip64 may be: under $ROCM_PATH, the loader's path (HIP 7, 6,
/// the unversioned development link), and ROCm's default prefix.
std::vector<std::string> candidates() {
  std::vector<std::string> c;
  if (const char *root = std::getenv("ROCM_PATH"); root && *root)
    c.push_back(std::string(root) + "/lib/libamdhip64.so");
  for (const char *name : {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so",
                           "/opt/rocm/lib/libamdhip64.so"})
    c.push_back(name);
  return c;
}

} // namespace

const Runtime *runtime(std::string &why) {
  static Runtime r;
  static std::string error;
  static bool ok = false;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = nullptr;
    std::string tried;
    for (const std::string &name : candidates()) {
      if ((lib = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL))) {
        r.library = name;
        break;
      }
      tried += (tried.empty() ? "" : ", ") + name;
    }
    if (!lib) {
      error = "libamdhip64 not found (tried " + tried + ")";
      return;
    }
#define XPU_HIP_RESOLVE(name, ret, params)                                     \
  r.name = reinterpret_cast<ret(*) params>(dlsym(lib, #name));                \
  if (!r.name) {                                                               \
    error = r.library + " lacks " #name " (xpujit needs HIP 6 or later)";     \
    return;                                                                    \
  }
    XPU_HIP_ENTRY_POINTS(XPU_HIP_RESOLVE)
#undef XPU_HIP_RESOLVE
#define XPU_HIP_RESOLVE_OPTIONAL(name, ret, params)                            \
  r.name = reinterpret_cast<ret(*) params>(dlsym(lib, #name));
    XPU_HIP_OPTIONAL_ENTRY_POINTS(XPU_HIP_RESOLVE_OPTIONAL)
#undef XPU_HIP_RESOLVE_OPTIONAL
    hipError_t e = r.hipInit(0);
    if (e != hipSuccess) {
      error = e == hipErrorNoDevice ? "the HIP runtime found no device"
                                    : "hipInit failed: " + describe(r, e);
      return;
    }
    ok = true;
  });
  why = error;
  return ok ? &r : nullptr;
}

std::string describe(const Runtime &r, hipError_t e) {
  const char *name = r.hipGetErrorName ? r.hipGetErrorName(e) : nullptr;
  const char *text = r.hipGetErrorString ? r.hipGetErrorString(e) : nullptr;
  std::string s = name ? name : "HIP error " + std::to_string(e);
  if (text)
    s += std::string(": ") + text;
  return s;
}

rt::Status failure(const Runtime &r, hipError_t e, const std::string &what) {
  xpu_status code = XPU_ERROR_BACKEND;
  if (isStickyError(e))
    code = XPU_ERROR_DEVICE_FAULT;
  else if (e == hipErrorOutOfMemory)
    code = XPU_ERROR_OUT_OF_MEMORY;
  return {code, what + ": " + describe(r, e)};
}

std::string versionText(int v) {
  return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
         std::to_string(v % 100000);
}

} // namespace xpu::hip
