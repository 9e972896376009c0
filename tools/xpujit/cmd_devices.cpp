// `xpujit devices`: every device of every backend, and why a backend has none.
#include "cli.h"

#include <cstdio>
#include <cstring>

namespace cli {

namespace {

const char *verdictName(xpu_verdict v) {
  switch (v) {
  case XPU_VERDICT_AVAILABLE: return "available";
  case XPU_VERDICT_UNAVAILABLE: return "unavailable";
  default: return "unknown";
  }
}

const char *kindName(xpu_capability_kind k) {
  static const char *names[] = {"backend-structural", "device-optional",
                                "host-toolchain", "toolchain-semantic",
                                "policy", "flag-legality"};
  return unsigned(k) < 6 ? names[k] : "?";
}

int printCapabilities(xpu_device d) {
  uint32_t n = 0;
  if (xpu_status st = xpu_device_capability_count(d, &n))
    return reportFailure("cannot read capabilities", st);
  for (uint32_t i = 0; i < n; ++i) {
    xpu_capability c;
    if (xpu_status st = xpu_device_capability(d, i, &c))
      return reportFailure("cannot read a capability", st);
    std::printf("        %-24s %-11s %-18s", c.name, verdictName(c.verdict),
                kindName(c.kind));
    if (c.has_limit)
      std::printf(" limit %llu", (unsigned long long)c.limit);
    std::printf("\n          %s%s%s\n", c.reason[0] ? c.reason : "",
                c.reason[0] ? "; " : "", c.evidence);
  }
  return kOk;
}

} // namespace

int runDevices(int argc, char **argv) {
  bool caps = false, calibration = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: xpujit devices [--caps] [--calibration]\n\n"
                  "Lists each device with its index, backend, name, architecture,\n"
                  "memory and compute units, then each backend that found none and\n"
                  "why. The default device (XPU_BACKEND, XPU_DEVICE) is marked *.\n"
                  "--caps adds each device's capability table: every capability a\n"
                  "kernel can need, its verdict (available, unavailable, unknown),\n"
                  "who decided it, and the query or measurement behind it.\n"
                  "--calibration adds what was measured on each device (measured\n"
                  "now and stored when the calibration store has no record).\n");
      return kOk;
    }
    if (!std::strcmp(argv[i], "--caps")) {
      caps = true;
      continue;
    }
    if (!std::strcmp(argv[i], "--calibration")) {
      calibration = true;
      continue;
    }
    std::fprintf(stderr, "xpujit devices: unknown option '%s'\n", argv[i]);
    return kUsage;
  }
  Context ctx;
  if (xpu_status st = xpu_context_create(nullptr, &ctx.handle))
    return reportFailure("cannot create a context", st);
  uint32_t n = 0;
  if (xpu_status st = xpu_device_count(ctx.handle, &n))
    return reportFailure("cannot count devices", st);
  xpu_device def = nullptr;
  (void)xpu_device_default(ctx.handle, &def);
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    if (xpu_status st = xpu_device_get(ctx.handle, i, &d))
      return reportFailure("cannot get a device", st);
    if (xpu_status st = xpu_device_info_get(d, &info))
      return reportFailure("cannot describe a device", st);
    std::printf("%c %u  %-6s  %s\n", d == def ? '*' : ' ', i,
                xpu_backend_name(info.backend), info.name);
    std::printf("        arch %s, %.1f GiB, %u compute units, wave width %u, "
                "max workgroup %u\n",
                info.arch, double(info.memory_bytes) / (1024.0 * 1024 * 1024),
                info.compute_units, info.wave_width, info.max_workgroup_size);
    if (info.driver[0])
      std::printf("        driver %s\n", info.driver);
    if (caps && printCapabilities(d) != kOk)
      return kFailed;
    if (calibration && printCalibration(d, "        ") != kOk)
      return kFailed;
  }
  for (xpu_backend b : {XPU_BACKEND_CUDA, XPU_BACKEND_HIP, XPU_BACKEND_VULKAN,
                        XPU_BACKEND_CPU}) {
    const char *note = xpu_context_backend_note(ctx.handle, b);
    if (note[0])
      std::printf("  %s: no devices (%s)\n", xpu_backend_name(b), note);
  }
  return kOk;
}

} // namespace cli
