// xpujit: list devices, check, compile and run kernels from the shell.
#include "cli.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace cli {

int reportFailure(const char *what, xpu_status status) {
  std::fprintf(stderr, "xpujit: %s: %s: %s\n", what, xpu_status_name(status),
               xpu_last_error_message());
  return kFailed;
}

bool readFile(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

xpu_status findDevice(xpu_context ctx, const std::string &spec, xpu_device *out) {
  if (spec.empty())
    return xpu_device_default(ctx, out);
  uint32_t n = 0;
  xpu_status st = xpu_device_count(ctx, &n);
  if (st)
    return st;
  std::string backend = spec.substr(0, spec.find(':'));
  std::optional<uint64_t> index = 0;
  if (spec.find(':') != std::string::npos)
    index = parseCount(spec.substr(spec.find(':') + 1), UINT32_MAX);
  auto number = parseCount(spec, UINT32_MAX);
  bool numeric = number.has_value();
  if (!index) {
    std::fprintf(stderr, "xpujit: device '%s': the index after ':' must be a number\n",
                 spec.c_str());
    return XPU_ERROR_INVALID_ARGUMENT;
  }
  uint64_t seen = 0;
  for (uint32_t i = 0; i < n; ++i) {
    xpu_device d;
    xpu_device_info info = {sizeof info};
    if ((st = xpu_device_get(ctx, i, &d)) || (st = xpu_device_info_get(d, &info)))
      return st;
    bool match = numeric ? i == *number
                         : backend == xpu_backend_name(info.backend) &&
                               seen++ == *index;
    if (match) {
      *out = d;
      return XPU_SUCCESS;
    }
  }
  std::fprintf(stderr, "xpujit: no device '%s' (see `xpujit devices`)\n",
               spec.c_str());
  return XPU_ERROR_NOT_FOUND;
}

} // namespace cli

static void usage(FILE *to) {
  std::fprintf(to,
               "usage: xpujit COMMAND [options]\n"
               "\n"
               "commands:\n"
               "  devices          list the devices every backend found\n"
               "  check FILE       parse, verify and admit kernels; print diagnostics\n"
               "  run FILE ...     compile a kernel and run it on a device\n"
               "  compile FILE ... generate a target's code without a device\n"
               "  cache COMMAND    inspect, verify or clear the kernel cache\n"
               "  calibrate        measure devices; print and snapshot the facts\n"
               "  version          print the library version\n"
               "\n"
               "`xpujit COMMAND --help` describes each command.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return cli::kUsage;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    usage(stdout);
    return cli::kOk;
  }
  if (cmd == "version" || cmd == "--version") {
    std::printf("xpujit %s\n", xpu_version_string());
    if (xpu_version() != XPU_VERSION)
      std::printf("warning: the tool was built against header version %u\n",
                  XPU_VERSION);
    return cli::kOk;
  }
  if (cmd == "devices")
    return cli::runDevices(argc - 1, argv + 1);
  if (cmd == "check")
    return cli::runCheck(argc - 1, argv + 1);
  if (cmd == "run")
    return cli::runRun(argc - 1, argv + 1);
  if (cmd == "compile")
    return cli::runCompile(argc - 1, argv + 1);
  if (cmd == "cache")
    return cli::runCache(argc - 1, argv + 1);
  if (cmd == "calibrate")
    return cli::runCalibrate(argc - 1, argv + 1);
  std::fprintf(stderr, "xpujit: unknown command '%s'\n\n", cmd.c_str());
  usage(stderr);
  return cli::kUsage;
}
