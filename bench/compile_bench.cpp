// Cold compile time of saxpy, from text to a launchable kernel
// (xpu_module_create + xpu_module_kernel) with the kernel cache off, and the
// split between the stages from xpu_module_build_info. The first compile of
// a process also pays one-time set-up (targets, dialects, the device's
// capability probe); the rest show the steady cost.
//
//   xpu-bench-compile [--device cuda:0] [--runs 20] [--out FILE]
#include "bench_util.h"

#include <chrono>
#include <cstring>
#include <map>
#include <regex>

namespace {

/// "front end 1.2 ms; llvm 3.4 ms" -> {front end: 1.2, llvm: 3.4}
std::map<std::string, double> stages(const std::string &info) {
  std::map<std::string, double> out;
  std::regex re("([a-z ]+) ([0-9.]+) ms");
  for (std::sregex_iterator it(info.begin(), info.end(), re), end; it != end; ++it) {
    std::string name = (*it)[1];
    name.erase(0, name.find_first_not_of(' '));
    out[name] = std::stod((*it)[2]);
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec, outPath;
  int runs = 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (a == "--runs" && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      outPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-compile [--device SPEC] [--runs N] [--out FILE]\n");
      return 2;
    }
  }
  setenv("XPU_CACHE", "off", 1);
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);

  std::vector<double> total;
  std::map<std::string, std::vector<double>> split;
  std::string firstInfo, toolchain;
  double first = 0;
  for (int r = 0; r <= runs; ++r) {
    std::string text = bench::saxpyText(r);
    auto t0 = std::chrono::steady_clock::now();
    xpu_module mod;
    xpu_kernel k;
    BENCH_OK(xpu_module_create(ctx, dev, text.data(), text.size(), nullptr, &mod, nullptr));
    BENCH_OK(xpu_module_kernel(mod, ("saxpy" + std::to_string(r)).c_str(), &k));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                    .count();
    std::string info = xpu_module_build_info(mod);
    if (r == 0) {
      first = ms;
      firstInfo = info;
    } else {
      total.push_back(ms);
      for (auto &[name, v] : stages(info))
        split[name].push_back(v);
    }
    toolchain = info.substr(0, info.find(';'));
    xpu_module_release(mod);
  }

  std::string text = bench::header("Cold compile of saxpy: text to a launchable kernel",
                                   dev, argc, argv);
  char line[512];
  std::snprintf(line, sizeof line,
                "Kernel cache off. Code: %s.\n\n"
                "| | ms |\n|---|---:|\n"
                "| first compile in the process (one-time set-up included) | %.1f |\n"
                "| later compiles, median of %d: total | %.1f |\n",
                toolchain.c_str(), first, runs, bench::median(total));
  text += line;
  for (auto &[name, v] : split) {
    std::snprintf(line, sizeof line, "| — %s | %.1f |\n", name.c_str(), bench::median(v));
    text += line;
  }
  text += "\nFirst compile's stages: " + firstInfo + "\n";
  bench::write(outPath, text);
  xpu_context_release(ctx);
  return 0;
}
