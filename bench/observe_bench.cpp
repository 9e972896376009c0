// Host cost per launch with observers off, with no-op launch hooks, and
// with a trace and a dispatch report recording, in one process on one
// device (an empty kernel; batches alternate between the modes so drift
// hits all alike, each round starting with another). "off" is the path every launch takes when nothing is
// enabled: one relaxed load and a branch more than before observers.
//
//   xpu-bench-observe [--device cpu] [--batches N] [--per-batch K] [--out FILE]
#include "bench_util.h"

#include <chrono>
#include <cstring>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

void noopEnter(const xpu_launch_info *, void *) {}
void noopExit(const xpu_launch_info *, xpu_status, void *) {}

enum Mode { kOff, kHooks, kRecording, kModes };
const char *kModeNames[] = {"off", "no-op hooks", "trace + dispatch report"};

void enter(Mode m, const std::string &dir) {
  if (m == kHooks) {
    xpu_launch_hooks h = XPU_LAUNCH_HOOKS_INIT;
    h.enter = noopEnter;
    h.exit = noopExit;
    BENCH_OK(xpu_launch_hooks_set(&h));
  } else if (m == kRecording) {
    BENCH_OK(xpu_trace_start((dir + "/observe-bench.trace.json").c_str()));
    BENCH_OK(xpu_dispatch_report_start((dir + "/observe-bench.dispatch.jsonl").c_str()));
  }
}

void leave(Mode m) {
  if (m == kHooks)
    BENCH_OK(xpu_launch_hooks_set(nullptr));
  else if (m == kRecording) {
    BENCH_OK(xpu_dispatch_report_stop());
    BENCH_OK(xpu_trace_stop());
  }
}

} // namespace

int main(int argc, char **argv) {
  std::string spec = "cpu", out, dir = ".";
  int batches = 30, perBatch = 200;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--device")
      spec = next();
    else if (a == "--batches")
      batches = std::atoi(next().c_str());
    else if (a == "--per-batch")
      perBatch = std::atoi(next().c_str());
    else if (a == "--out")
      out = next();
    else if (a == "--scratch")
      dir = next();
    else {
      std::fprintf(stderr, "usage: xpu-bench-observe [--device D] [--batches N] "
                           "[--per-batch K] [--scratch DIR] [--out FILE]\n");
      return 2;
    }
  }
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, spec);
  const char kEmpty[] = "xpu.kernel @empty() {\n  xpu.return\n}\n";
  xpu_module mod;
  xpu_kernel k;
  BENCH_OK(xpu_module_create(ctx, dev, kEmpty, sizeof kEmpty - 1, nullptr, &mod, nullptr));
  BENCH_OK(xpu_module_kernel(mod, "empty", &k));
  const uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  std::vector<double> ns[kModes];
  // Each round starts with another mode, so no mode always follows the
  // synchronization (and file writes) of the same other one.
  for (int b = 0; b < batches; ++b)
    for (int j = 0; j < kModes; ++j) {
      int m = (b + j) % kModes;
      enter(Mode(m), dir);
      auto t0 = Clock::now();
      for (int i = 0; i < perBatch; ++i)
        BENCH_OK(xpu_launch(k, nullptr, grid, block, nullptr, 0));
      auto t1 = Clock::now();
      BENCH_OK(xpu_device_synchronize(dev)); // not timed: device times resolve here
      leave(Mode(m));
      ns[m].push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / perBatch);
    }
  std::string report = bench::header("Launch cost with observers off and on", dev, argc, argv);
  std::ifstream loadavg("/proc/loadavg");
  std::string load;
  std::getline(loadavg, load);
  report += "- load average at the end (1, 5, 15 min, tasks): " + load + "\n";
  char line[256];
  std::snprintf(line, sizeof line,
                "\n%d batches of %d launches of an empty kernel per mode, median per "
                "launch (host time of xpu_launch, no synchronization inside a batch)\n\n"
                "| mode | ns per launch | ratio to off |\n|---|---|---|\n",
                batches, perBatch);
  report += line;
  double off = bench::median(ns[kOff]);
  for (int m = 0; m < kModes; ++m) {
    double med = bench::median(ns[m]);
    std::snprintf(line, sizeof line, "| %s | %.0f | %.2f |\n", kModeNames[m], med, med / off);
    report += line;
  }
  std::fputs(report.c_str(), stdout);
  if (!out.empty())
    std::ofstream(out) << report;
  unlink((dir + "/observe-bench.trace.json").c_str());
  unlink((dir + "/observe-bench.dispatch.jsonl").c_str());
  xpu_module_release(mod);
  xpu_context_release(ctx);
  return 0;
}
