// `xpujit calibrate`: measure devices anew, print what was measured, and
// write a snapshot for a fixed device (XPU_CALIBRATION=SNAPSHOT). Also the
// calibration table of `xpujit devices --calibration`.
#include "cli.h"

#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>

namespace cli {

namespace {

std::string valueText(const xpu_calibration_record &r) {
  if (!r.has_value)
    return "absent";
  char buf[64];
  if (!std::strcmp(r.unit, "bool"))
    return r.value != 0 ? "yes" : "no";
  std::snprintf(buf, sizeof buf, "%.6g %s", r.value, r.unit);
  return buf;
}

} // namespace

int printCalibration(xpu_device d, const char *indent) {
  uint32_t n = 0;
  if (xpu_status st = xpu_device_calibration_count(d, XPU_CALIBRATION_ALL, &n))
    return reportFailure("cannot read the calibration", st);
  for (uint32_t i = 0; i < n; ++i) {
    xpu_calibration_record r = {sizeof r};
    if (xpu_status st = xpu_device_calibration_record(d, i, &r))
      return reportFailure("cannot read a calibration record", st);
    if (i == 0)
      std::printf("%scalibration key: %s\n", indent, r.key);
    std::printf("%s%-24s %s\n%s  %s (%s)\n", indent, r.name, valueText(r).c_str(), indent,
                r.evidence, r.date);
  }
  return kOk;
}

int runCalibrate(int argc, char **argv) {
  std::vector<std::string> specs;
  std::string out, markdown;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf(
          "usage: xpujit calibrate [--device D]... [--out SNAPSHOT] [--markdown FILE]\n\n"
          "Measures each device anew (all devices without --device): the\n"
          "correctness facts compiles rest on (contraction, fma fusion, subnormal\n"
          "results, a loop-pass limit) and the performance facts (copy bandwidth,\n"
          "launch, event and inter-queue cost, peak FLOP/s, occupancy), stores\n"
          "them in the calibration store and prints them.\n"
          "--out writes the records to SNAPSHOT, for a fixed device without a\n"
          "writable store: XPU_CALIBRATION=SNAPSHOT serves them (on the device,\n"
          "driver and library they were measured with only).\n"
          "--markdown writes the table as Markdown, with the machine and date.\n");
      return kOk;
    }
    if ((a == "--device" || a == "--out" || a == "--markdown") && i + 1 < argc) {
      std::string v = argv[++i];
      (a == "--device" ? specs.push_back(v) : void((a == "--out" ? out : markdown) = v));
      continue;
    }
    std::fprintf(stderr, "xpujit calibrate: unknown or incomplete option '%s'\n", argv[i]);
    return kUsage;
  }
  Context ctx;
  if (xpu_status st = xpu_context_create(nullptr, &ctx.handle))
    return reportFailure("cannot create a context", st);
  std::vector<xpu_device> devices;
  if (specs.empty()) {
    uint32_t n = 0;
    if (xpu_status st = xpu_device_count(ctx.handle, &n))
      return reportFailure("cannot count devices", st);
    for (uint32_t i = 0; i < n; ++i) {
      xpu_device d;
      if (xpu_status st = xpu_device_get(ctx.handle, i, &d))
        return reportFailure("cannot get a device", st);
      devices.push_back(d);
    }
  }
  for (const std::string &s : specs) {
    xpu_device d;
    if (xpu_status st = findDevice(ctx.handle, s, &d))
      return st == XPU_ERROR_NOT_FOUND ? kFailed : reportFailure("cannot find a device", st);
    devices.push_back(d);
  }

  std::string md;
  for (xpu_device d : devices) {
    xpu_device_info info = {sizeof info};
    if (xpu_status st = xpu_device_info_get(d, &info))
      return reportFailure("cannot describe a device", st);
    std::printf("%s  %s (%s)\n", xpu_backend_name(info.backend), info.name, info.driver);
    if (xpu_status st = xpu_device_calibrate(d))
      return reportFailure("calibration failed", st);
    if (printCalibration(d, "    ") != kOk)
      return kFailed;
    uint32_t n = 0;
    (void)xpu_device_calibration_count(d, XPU_CALIBRATION_ALL, &n);
    md += std::string("\n### ") + xpu_backend_name(info.backend) + ": " + info.name + "\n\n";
    for (uint32_t i = 0; i < n; ++i) {
      xpu_calibration_record r = {sizeof r};
      if (xpu_device_calibration_record(d, i, &r))
        continue;
      if (i == 0)
        md += std::string("Key: ") + r.key + "\n\n| fact | value | evidence |\n|---|---:|---|\n";
      std::string ev = r.evidence;
      for (char &c : ev)
        if (c == '|')
          c = '/';
      md += std::string("| ") + r.name + " | " + valueText(r) + " | " + ev + " |\n";
    }
  }
  if (!out.empty()) {
    if (xpu_status st = xpu_calibration_snapshot_write(devices.data(),
                                                       uint32_t(devices.size()), out.c_str()))
      return reportFailure("cannot write the snapshot", st);
    std::printf("snapshot of %zu device(s) written to %s\n", devices.size(), out.c_str());
  }
  if (!markdown.empty()) {
    char date[32];
    std::time_t t = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&t));
    std::string cmd = "xpujit";
    for (int i = 0; i < argc; ++i)
      cmd += std::string(" ") + argv[i];
    std::ofstream f(markdown);
    f << "# Calibration (" << date << ")\n\nCommand: `" << cmd << "`; library "
      << xpu_version_string() << ".\n" << md;
    if (!f)
      return reportFailure("cannot write the Markdown table", XPU_ERROR_BACKEND);
  }
  return kOk;
}

} // namespace cli
