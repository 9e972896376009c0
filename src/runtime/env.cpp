// Parsing of the environment variables; see env.h.
#include "runtime/env.h"

#include <cstdlib>
#include <mutex>

namespace xpu::rt {

std::optional<xpu_backend> parseBackend(const std::string &name) {
  if (name == "cpu")
    return XPU_BACKEND_CPU;
  if (name == "cuda")
    return XPU_BACKEND_CUDA;
  if (name == "hip")
    return XPU_BACKEND_HIP;
  if (name == "vulkan")
    return XPU_BACKEND_VULKAN;
  return std::nullopt;
}

static Status readSettings(Settings &s) {
  if (const char *v = std::getenv("XPU_BACKEND"); v && *v) {
    s.backend = parseBackend(v);
    if (!s.backend)
      return invalidArgument(std::string("XPU_BACKEND='") + v +
                             "' is not one of: cpu, cuda, hip, vulkan");
  }
  if (const char *v = std::getenv("XPU_DEVICE"); v && *v) {
    std::string d = v;
    std::string backend = d.substr(0, d.find(':'));
    if (!parseBackend(backend))
      return invalidArgument("XPU_DEVICE='" + d +
                             "' must be BACKEND or BACKEND:INDEX with BACKEND "
                             "one of: cpu, cuda, hip, vulkan");
    if (d.find(':') != std::string::npos) {
      std::string index = d.substr(d.find(':') + 1);
      if (index.empty() || index.find_first_not_of("0123456789") != std::string::npos)
        return invalidArgument("XPU_DEVICE='" + d + "': the index after ':' must be a number");
    }
    s.device = d;
  }
  if (const char *v = std::getenv("XPU_LOG"); v && *v) {
    std::string l = v;
    if (l == "error")
      s.log = LogLevel::error;
    else if (l == "warn")
      s.log = LogLevel::warn;
    else if (l == "info")
      s.log = LogLevel::info;
    else if (l == "debug")
      s.log = LogLevel::debug;
    else
      return invalidArgument("XPU_LOG='" + l +
                             "' is not one of: error, warn, info, debug");
  }
  if (const char *v = std::getenv("XPU_DUMP_DIR"); v && *v)
    s.dumpDir = v;
  // The feature names are checked by the Vulkan backend, which knows them.
  if (const char *v = std::getenv("XPU_VULKAN_DISABLE_FEATURES"); v && *v)
    s.vulkanDisableFeatures = v;
  if (const char *v = std::getenv("XPU_VULKAN_STAGING"); v && *v) {
    std::string staging = v;
    if (staging != "0" && staging != "1")
      return invalidArgument("XPU_VULKAN_STAGING='" + staging + "' is not one of: 0, 1");
    s.vulkanStaging = staging == "1";
  }
  return {};
}

Status settings(const Settings *&out) {
  static Settings s;
  static Status st;
  static std::once_flag once;
  std::call_once(once, [] { st = readSettings(s); });
  out = &s;
  return st;
}

} // namespace xpu::rt
