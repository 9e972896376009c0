// Kernel cache latencies, side by side in one run: an in-process hit (the
// same text again), a disk hit in a new process, and a cold compile, each
// measured as xpu_module_create + xpu_module_kernel, i.e. up to a
// launchable kernel. Child processes of this program measure the new-process
// cases. Writes a markdown table with the machine, date and command.
//
//   xpu-bench-cache [--device SPEC] [--kernels N] [--processes N]
//                   [--cache-dir DIR] [--out FILE]
#include "bench_util.h"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

/// Microseconds for one create + kernel lookup of kernel `i`.
double timeCreate(xpu_context ctx, xpu_device dev, int i, bool release = true) {
  std::string text = bench::saxpyText(i), name = "saxpy" + std::to_string(i);
  xpu_module m;
  xpu_kernel k;
  auto t0 = Clock::now();
  if (xpu_module_create(ctx, dev, text.data(), text.size(), nullptr, &m, nullptr) ||
      xpu_module_kernel(m, name.c_str(), &k))
    bench::die("xpu_module_create");
  double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  if (release)
    xpu_module_release(m);
  return us;
}

/// Child: create kernels first..first+count-1 and print the times, one a line.
int child(const std::string &device, int first, int count) {
  auto t0 = Clock::now();
  xpu_context ctx;
  if (xpu_context_create(nullptr, &ctx))
    bench::die("xpu_context_create");
  xpu_device dev = bench::findDevice(ctx, device);
  std::printf("context %.3f\n",
              std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  for (int i = first; i < first + count; ++i)
    std::printf("%.3f\n", timeCreate(ctx, dev, i));
  xpu_context_release(ctx);
  return 0;
}

/// Runs this program as a child; returns its lines.
std::vector<std::string> runChild(const std::vector<std::string> &args,
                                  const char *cacheMode) {
  int fds[2];
  if (pipe(fds) != 0)
    bench::die("pipe");
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    setenv("XPU_CACHE", cacheMode, 1);
    std::vector<char *> argv;
    for (const std::string &a : args)
      argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    out.append(buf, size_t(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "xpu-bench-cache: a child process failed\n");
    std::exit(1);
  }
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

struct Row {
  std::string what;
  std::vector<double> us;
};

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size() - 1) + 0.5))];
}

std::string fmt(double us) {
  char buf[32];
  if (us < 1000)
    std::snprintf(buf, sizeof buf, "%.2f µs", us);
  else
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1000);
  return buf;
}

} // namespace

int main(int argc, char **argv) {
  std::string device, cacheDir, out, command;
  int kernels = 20, processes = 5, childFirst = -1, childCount = 0;
  for (int i = 0; i < argc; ++i)
    command += (i ? " " : "") + std::string(argv[i]);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "xpu-bench-cache: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--device")
      device = next();
    else if (a == "--kernels")
      kernels = std::max(2, std::atoi(next().c_str()));
    else if (a == "--processes")
      processes = std::max(1, std::atoi(next().c_str()));
    else if (a == "--cache-dir")
      cacheDir = next();
    else if (a == "--out")
      out = next();
    else if (a == "--child") {
      childFirst = std::atoi(next().c_str());
      childCount = std::atoi(next().c_str());
    } else {
      std::fprintf(stderr,
                   "usage: xpu-bench-cache [--device SPEC] [--kernels N] "
                   "[--processes N] [--cache-dir DIR] [--out FILE]\n");
      return a == "--help" ? 0 : 2;
    }
  }
  if (childFirst >= 0)
    return child(device, childFirst, childCount);

  namespace fs = std::filesystem;
  if (cacheDir.empty())
    cacheDir = (fs::path(fs::read_symlink("/proc/self/exe")).parent_path() / "bench-cache").string();
  fs::remove_all(cacheDir);
  setenv("XPU_CACHE_DIR", cacheDir.c_str(), 1);
  setenv("XPU_CACHE", "on", 1);

  xpu_context ctx;
  if (xpu_context_create(nullptr, &ctx))
    bench::die("xpu_context_create");
  xpu_device dev = bench::findDevice(ctx, device);
  xpu_device_info info = {sizeof info};
  xpu_device_info_get(dev, &info);
  std::string spec = device.empty() ? xpu_backend_name(info.backend) : device;
  xpu_cache_stats stats = {sizeof stats};
  if (xpu_cache_stats_get(&stats) || stats.mode != XPU_CACHE_MODE_ON) {
    std::fprintf(stderr, "xpu-bench-cache: the disk cache is not usable at %s: %s\n",
                 cacheDir.c_str(), stats.note ? stats.note : "");
    return 1;
  }

  Row inProcess{"in-process hit (same text again)", {}};
  Row diskFirst{"disk hit, first kernel of a new process", {}};
  Row diskNext{"disk hit, later kernels of a process", {}};
  Row coldFirst{"cold compile, first kernel of a new process", {}};
  Row coldNext{"cold compile, later kernels of a process", {}};
  Row context{"(context creation in a new process, not in the rows above)", {}};

  // Cold compiles in this process; they also fill the disk cache. Kernel 0
  // pays the process's one-time start-up, so it is not counted here.
  for (int i = 0; i < kernels; ++i) {
    double us = timeCreate(ctx, dev, i);
    if (i > 0)
      coldNext.us.push_back(us);
  }
  // In-process hits: the same text again, while a module of it is alive.
  timeCreate(ctx, dev, 0, /*release=*/false);
  for (int r = 0; r < 10000; ++r)
    inProcess.us.push_back(timeCreate(ctx, dev, 0));

  // New processes: with the disk cache, then with none (cold).
  std::vector<std::string> args = {argv[0], "--child", "0", std::to_string(kernels)};
  if (!device.empty())
    args.insert(args.end(), {"--device", device});
  for (int p = 0; p < processes; ++p) {
    auto lines = runChild(args, "on");
    context.us.push_back(std::atof(lines.at(0).c_str() + 8));
    diskFirst.us.push_back(std::atof(lines.at(1).c_str()));
    for (size_t l = 2; l < lines.size(); ++l)
      diskNext.us.push_back(std::atof(lines[l].c_str()));
  }
  std::vector<std::string> coldArgs = {argv[0], "--child", "1000", "1"};
  if (!device.empty())
    coldArgs.insert(coldArgs.end(), {"--device", device});
  for (int p = 0; p < processes; ++p)
    coldFirst.us.push_back(std::atof(runChild(coldArgs, "off").at(1).c_str()));
  xpu_context_release(ctx);
  fs::remove_all(cacheDir);

  // The report.
  char date[64];
  time_t now = time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
  struct utsname un;
  uname(&un);
  std::ostringstream md;
  md << "# Kernel cache latency (" << spec << ")\n\n"
     << "Time from `xpu_module_create` to a launchable kernel "
        "(`xpu_module_kernel`), for a saxpy kernel.\n\n"
     << "| | |\n|---|---|\n"
     << "| date | " << date << " |\n"
     << "| machine | " << bench::cpuModel() << ", " << sysconf(_SC_NPROCESSORS_ONLN)
     << " CPUs, " << un.sysname << " " << un.release << " |\n"
     << "| device | " << info.name << " (" << xpu_backend_name(info.backend) << ", "
     << info.arch << (info.driver[0] ? ", " : "") << info.driver << ") |\n"
     << "| library | xpujit " << xpu_version_string() << " |\n"
     << "| command | `" << command << "` |\n"
     << "| samples | in-process: 10000; cold and disk hits: " << processes
     << " processes, " << kernels << " kernels each |\n\n"
     << "| case | median | min | p90 | Triton warm hit (~3 ms) / this |\n"
     << "|---|---:|---:|---:|---:|\n";
  for (const Row *r : {&inProcess, &diskFirst, &diskNext, &coldFirst, &coldNext, &context}) {
    double med = percentile(r->us, 0.5);
    md << "| " << r->what << " | " << fmt(med) << " | " << fmt(percentile(r->us, 0))
       << " | " << fmt(percentile(r->us, 0.9)) << " | ";
    if (r != &context) {
      char ratio[32];
      double x = 3000.0 / med;
      std::snprintf(ratio, sizeof ratio, x >= 10 ? "%.0fx" : "%.2fx", x);
      md << ratio;
    }
    md << " |\n";
  }
  md << "\nTargets (issue 7, CPU backend): in-process hit under 2 µs; disk hit "
        "to a launchable kernel under 1 ms.\n";
  std::fputs(md.str().c_str(), stdout);
  if (!out.empty()) {
    std::ofstream f(out);
    f << md.str();
    if (!f) {
      std::fprintf(stderr, "xpu-bench-cache: cannot write %s\n", out.c_str());
      return 1;
    }
    std::fprintf(stderr, "written to %s\n", out.c_str());
  }
  return 0;
}
