// `xpujit check FILE`: parse, verify and admit; print located diagnostics.
#include "cli.h"

#include <cstdio>
#include <cstring>

namespace cli {

int runCheck(int argc, char **argv) {
  std::string file, target;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("usage: xpujit check FILE [--target T] [--json]\n\n"
                  "Parses FILE, verifies it and admits each kernel against its\n"
                  "profile. Diagnostics print as FILE:LINE:COL: error: CODE: message\n"
                  "(or as a JSON array with --json). With --target (cpu, nvptx,\n"
                  "amdgcn, spirv) it also reports what each kernel needs and who\n"
                  "decides it on that target, refusing what the target cannot\n"
                  "express. Exits 0 when every kernel is admitted, 1 otherwise.\n");
      return kOk;
    }
    if (a == "--json")
      json = true;
    else if (a == "--target" && i + 1 < argc)
      target = argv[++i];
    else if (a.rfind("--target=", 0) == 0)
      target = a.substr(9);
    else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "xpujit check: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else if (file.empty())
      file = a;
    else {
      std::fprintf(stderr, "xpujit check: one FILE only\n");
      return kUsage;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "usage: xpujit check FILE [--json]\n");
    return kUsage;
  }
  std::string text;
  if (!readFile(file, text)) {
    std::fprintf(stderr, "xpujit check: cannot read '%s'\n", file.c_str());
    return kFailed;
  }
  Context ctx;
  if (xpu_status st = xpu_context_create(nullptr, &ctx.handle))
    return reportFailure("cannot create a context", st);
  xpu_module_options options = XPU_MODULE_OPTIONS_INIT;
  options.source_name = file.c_str();
  options.target = target.empty() ? nullptr : target.c_str();
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_check(ctx.handle, text.data(), text.size(),
                                   &options, &diags);
  size_t count = xpu_diagnostics_count(diags);
  if (json)
    std::printf("%s\n", xpu_diagnostics_json(diags));
  else
    std::fputs(xpu_diagnostics_text(diags), stderr);
  xpu_diagnostics_release(diags);
  if (st != XPU_SUCCESS && !json && !count)
    return reportFailure("check failed", st);
  return st == XPU_SUCCESS ? kOk : kFailed;
}

} // namespace cli
