// `xpujit devices`: every device of every backend, and why a backend has none.
#include "cli.h"

#include <cstdio>
#include <cstring>

namespace cli {

int runDevices(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: xpujit devices\n\n"
                  "Lists each device with its index, backend, name, architecture,\n"
                  "memory and compute units, then each backend that found none and\n"
                  "why. The default device (XPU_BACKEND, XPU_DEVICE) is marked *.\n");
      return kOk;
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
