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
    "       xpujit compile FILE --target T [--chip C] [--wave N] --manifest [-o OUT]\n"
    "\n"
    "Compiles every kernel of FILE for target T without a device and writes\n"
    "the generated code to OUT:\n"
    "  --target amdgcn --chip gfx942   AMDGPU code object v5 (.hsaco)\n"
    "  --target nvptx --chip sm_90     cubin, or PTX when no ptxas is found\n"
    "  --target cpu                    ELF object for this host\n"
    "--wave 64 asks for wave64 on AMD gfx10 and later (wave32 by default).\n"
    "--manifest prints each kernel's manifest on stdout, a JSON array: what\n"
    "its code occupies (registers, spills, shared and private memory, the\n"
    "largest workgroup; absent where no query gives it), the access mode of\n"
    "each buffer and the parameters its cost depends on (-o still writes the\n"
    "code when given; diagnostics then go to stderr).\n"
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
  std::string file, target, chip, wave, output;
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
             option(argc, argv, i, "--output", output))
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
  char *end = nullptr;
  unsigned long waveWidth = wave.empty() ? 0 : std::strtoul(wave.c_str(), &end, 10);
  if (!wave.empty() && (*end || waveWidth == 0 || waveWidth > 1024)) {
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
  xpu_diagnostics diags = nullptr;
  const char *chipName = chip.empty() ? nullptr : chip.c_str();
  xpu_status st;
  if (manifest) {
    char *manifests = nullptr;
    st = xpu_compile_manifest(ctx.handle, text.data(), text.size(), &options,
                              target.c_str(), chipName, &manifests, &diags);
    if (st == XPU_SUCCESS) {
      std::fputs(manifests, stdout);
      xpu_compiled_code_free(manifests);
      if (output.empty()) {
        xpu_diagnostics_release(diags);
        return kOk;
      }
      xpu_diagnostics_release(diags);
      diags = nullptr;
    }
  }
  if (!manifest || st == XPU_SUCCESS)
    st = xpu_compile_for_target(ctx.handle, text.data(), text.size(), &options,
                                target.c_str(), chipName, &code, &size, &diags);
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
  if (!out) {
    std::fprintf(stderr, "xpujit compile: cannot write '%s'\n", output.c_str());
    return kFailed;
  }
  return kOk;
}

} // namespace cli
