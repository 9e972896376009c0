// Shared helpers of the benchmarks: a device by name, kernel sources, medians, and the
// header every result file starts with (machine, device, date, command).
#pragma once

#include "xpu_c.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace bench {

inline void die(const char *what) {
  std::fprintf(stderr, "%s: %s: %s\n", what, xpu_status_name(xpu_last_error_status()),
               xpu_last_error_message());
  std::exit(1);
}
#define BENCH_OK(call)                                                         \
  do {                                                                         \
    if ((call) != XPU_SUCCESS)                                                 \
      ::bench::die(#call);                                                     \
  } while (0)

/// "cuda:0", "cpu", "vulkan:1", or "" for the default device.
inline xpu_device findDevice(xpu_context ctx, const std::string &spec) {
  if (spec.empty()) {
    xpu_device d;
    BENCH_OK(xpu_device_default(ctx, &d));
    return d;
  }
  std::string backend = spec.substr(0, spec.find(':'));
  long want = spec.find(':') == std::string::npos
                  ? 0
                  : std::strtol(spec.c_str() + spec.find(':') + 1, nullptr, 10);
  uint32_t n = 0;
  BENCH_OK(xpu_device_count(ctx, &n));
  long seen = 0;
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    BENCH_OK(xpu_device_get(ctx, i, &d));
    BENCH_OK(xpu_device_info_get(d, &info));
    if (backend == xpu_backend_name(info.backend) && seen++ == want)
      return d;
  }
  std::fprintf(stderr, "no device '%s'\n", spec.c_str());
  std::exit(2);
}

/// Kernel `i`: saxpy under its own name, so that each has its own key.
inline std::string saxpyText(int i) {
  return "xpu.kernel @saxpy" + std::to_string(i) +
         "(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {\n"
         "  %i = xpu.global_id x\n"
         "  %n_idx = arith.index_castui %n : i32 to index\n"
         "  %in = arith.cmpi ult, %i, %n_idx : index\n"
         "  scf.if %in {\n"
         "    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>\n"
         "    %yi = xpu.load %y[%i] : !xpu.buffer<f32>\n"
         "    %ax = arith.mulf %a, %xi : f32\n"
         "    %r = arith.addf %ax, %yi : f32\n"
         "    xpu.store %r, %y[%i] : !xpu.buffer<f32>\n"
         "  }\n"
         "  xpu.return\n"
         "}\n";
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

inline std::string commandLine(int argc, char **argv) {
  std::string s;
  for (int i = 0; i < argc; ++i)
    s += (i ? " " : "") + std::string(argv[i]);
  return s;
}

inline std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      return line.substr(line.find(':') + 2);
  return "unknown CPU";
}

/// The lines every result file starts with.
inline std::string header(const char *title, xpu_device dev, int argc, char **argv) {
  char date[32];
  std::time_t t = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
  utsname u{};
  uname(&u);
  xpu_device_info info = {sizeof info};
  xpu_device_info_get(dev, &info);
  std::string cpu = cpuModel();
  char buf[2048];
  std::snprintf(buf, sizeof buf,
                "# %s\n\n- date: %s\n- host: %s %s, %s\n- device: %s (%s, %s%s%s)\n"
                "- library: xpujit %s\n- command: `%s`\n\n",
                title, date, u.sysname, u.release, cpu.c_str(), info.name,
                xpu_backend_name(info.backend), info.arch, info.driver[0] ? ", " : "",
                info.driver, xpu_version_string(), commandLine(argc, argv).c_str());
  return buf;
}

/// The kernel source at `path`; exits with a message when it cannot be read.
inline std::string readSource(const std::string &path) {
  std::ifstream file(path);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (text.empty()) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  return text;
}

inline void write(const std::string &path, const std::string &text) {
  std::fputs(text.c_str(), stdout);
  if (path.empty())
    return;
  std::ofstream out(path);
  out << text;
}

} // namespace bench
