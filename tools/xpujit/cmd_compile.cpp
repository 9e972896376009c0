// `xpujit compile FILE --target T [--chip C] -o OUT`: the code a target's
// devices would run, generated without a device; `--manifest` prints the
// kernels' manifests.
#include "cli.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

namespace cli {

namespace {

const char *kHelp =
    "usage: xpujit compile FILE --target T [--chip C] [--wave N] -o OUT [--json]\n"
    "                      [--report FILE]\n"
    "       xpujit compile FILE --target T [--chip C] [--wave N] --manifest [-o OUT]\n"
    "\n"
    "Compiles every kernel of FILE for target T without a device and writes\n"
    "the generated code to OUT:\n"
    "  --target amdgcn --chip gfx942   AMDGPU code object v5 (.hsaco)\n"
    "  --target nvptx --chip sm_90     cubin, or PTX when no ptxas is found\n"
    "  --target cpu                    ELF object for this host\n"
    "  --target spirv                  SPIR-V 1.6 for a capable Vulkan 1.3 device\n"
    "  --target spirv --chip cooperative-matrix   the same device with\n"
    "                                  VK_KHR_cooperative_matrix (the tile tier's\n"
    "                                  16x16x16 f16 combination, subgroups of 32)\n"
    "  --target spirv --chip cooperative-matrix-workgroup   and with\n"
    "                                  VK_NV_cooperative_matrix2's workgroup-scope\n"
    "                                  matrices (NVIDIA's driver)\n"
    "--wave 64 asks for wave64 on AMD gfx10 and later (wave32 by default).\n"
    "--report FILE writes the module report of what was compiled (JSON,\n"
    "docs/observe.md; offline: no device, limits or cache).\n"
    "--manifest prints each kernel's manifest on stdout, a JSON array: what\n"
    "its code occupies (registers, spills, shared and private memory, the\n"
    "largest workgroup; absent, with why, where no query gives it), the\n"
    "access mode of each buffer and the parameters its cost depends on\n"
    "(-o still writes the code when given; diagnostics then go to stderr).\n"
    "Diagnostics print as FILE:LINE:COL: error: CODE: message (or as a JSON\n"
    "array with --json). Exits 0 when OUT was written, 1 otherwise.\n";

/// "--name VALUE" or "--name=VALUE"; advances `i` past what it used.
bool option(int argc, char **argv, int &i, const char *name, std::string &out) {
  std::string a = argv[i], n = name;
  if (a == n && i + 1 < argc) {
    out = argv[++i];
    return true;
  }
  if (a.rfind(n + "=", 0) == 0) {
    out = a.substr(n.size() + 1);
    return true;
  }
  return false;
}

} // namespace

int runCompile(int argc, char **argv) {
  std::string file, target, chip, wave, output, reportPath;
  bool json = false, manifest = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kHelp, stdout);
      return kOk;
    }
    if (a == "--json")
      json = true;
    else if (a == "--manifest")
      manifest = true;
    else if (option(argc, argv, i, "--target", target) ||
             option(argc, argv, i, "--chip", chip) ||
             option(argc, argv, i, "--wave", wave) || option(argc, argv, i, "-o", output) ||
             option(argc, argv, i, "--output", output) ||
             option(argc, argv, i, "--report", reportPath))
      continue;
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "xpujit compile: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else if (file.empty())
      file = a;
    else {
      std::fprintf(stderr, "xpujit compile: one FILE only\n");
      return kUsage;
    }
  }
  if (file.empty() || target.empty() || (output.empty() && !manifest)) {
    std::fputs(kHelp, stderr);
    return kUsage;
  }
  if (json && manifest) {
    std::fprintf(stderr, "xpujit compile: --json and --manifest both print on stdout; "
                         "choose one\n");
    return kUsage;
  }
  if (manifest && output.empty() && !reportPath.empty()) {
    std::fprintf(stderr, "xpujit compile: --report needs -o OUT\n");
    return kUsage;
  }
  auto parsedWave = wave.empty() ? std::optional<uint64_t>(0) : parseCount(wave, 1024);
  uint64_t waveWidth = parsedWave.value_or(0);
  if (!wave.empty() && waveWidth == 0) {
    std::fprintf(stderr, "xpujit compile: --wave takes a width (32 or 64), not '%s'\n",
                 wave.c_str());
    return kUsage;
  }
  std::string text;
  if (!readFile(file, text)) {
    std::fprintf(stderr, "xpujit compile: cannot read '%s'\n", file.c_str());
    return kFailed;
  }
  Context ctx;
  if (xpu_status st = xpu_context_create(nullptr, &ctx.handle))
    return reportFailure("cannot create a context", st);
  xpu_module_options options = XPU_MODULE_OPTIONS_INIT;
  options.source_name = file.c_str();
  options.wave_width = uint32_t(waveWidth);
  void *code = nullptr;
  size_t size = 0;
  char *report = nullptr;
  xpu_diagnostics diags = nullptr;
  const char *chipName = chip.empty() ? nullptr : chip.c_str();
  xpu_status st = XPU_SUCCESS;
  if (manifest) {
    char *manifests = nullptr;
    st = xpu_compile_manifest(ctx.handle, text.data(), text.size(), &options,
                              target.c_str(), chipName, &manifests, &diags);
    if (st == XPU_SUCCESS) {
      std::fputs(manifests, stdout);
      xpu_compiled_code_free(manifests);
    }
    if (st == XPU_SUCCESS && output.empty()) {
      std::fputs(xpu_diagnostics_text(diags), stderr);
      xpu_diagnostics_release(diags);
      return kOk;
    }
    if (st == XPU_SUCCESS) {
      xpu_diagnostics_release(diags);
      diags = nullptr;
    }
  }
  if (st == XPU_SUCCESS)
    st = reportPath.empty()
             ? xpu_compile_for_target(ctx.handle, text.data(), text.size(), &options,
                                      target.c_str(), chipName, &code, &size, &diags)
             : xpu_compile_for_target_report(ctx.handle, text.data(), text.size(), &options,
                                             target.c_str(), chipName, &code, &size,
                                             &report, &diags);
  bool located = false; // the failure is among the diagnostics
  for (size_t i = 0, n = xpu_diagnostics_count(diags); i < n; ++i) {
    xpu_diagnostic d;
    located |= xpu_diagnostics_get(diags, i, &d) == XPU_SUCCESS &&
               d.severity == XPU_SEVERITY_ERROR;
  }
  if (json)
    std::printf("%s\n", xpu_diagnostics_json(diags));
  else
    std::fputs(xpu_diagnostics_text(diags), stderr);
  xpu_diagnostics_release(diags);
  if (st != XPU_SUCCESS)
    return json || located ? kFailed : reportFailure("compile failed", st);
  std::ofstream out(output, std::ios::binary);
  out.write(static_cast<const char *>(code), std::streamsize(size));
  out.close();
  xpu_compiled_code_free(code);
  bool wrote = bool(out);
  if (!wrote)
    std::fprintf(stderr, "xpujit compile: cannot write '%s'\n", output.c_str());
  if (report) {
    std::ofstream reportOut(reportPath);
    reportOut << report << "\n";
    reportOut.close();
    xpu_compiled_code_free(report);
    if (!reportOut) {
      std::fprintf(stderr, "xpujit compile: cannot write the report '%s'\n",
                   reportPath.c_str());
      wrote = false;
    }
  }
  return wrote ? kOk : kFailed;
}

} // namespace cli
