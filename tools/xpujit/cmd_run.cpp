// `xpujit run FILE`: compile a kernel, make its arguments from --arg specs,
// launch it, and print (or save) what it wrote.
#include "cli.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace cli {

namespace {

const char *kRunHelp =
    "usage: xpujit run FILE --kernel NAME --grid X[,Y[,Z]] --block X[,Y[,Z]]\n"
    "                  --arg SPEC... [options]\n"
    "\n"
    "Compiles FILE for a device, builds one argument per --arg (in parameter\n"
    "order), launches NAME once, and prints each buffer's checksum and first\n"
    "elements.\n"
    "\n"
    "argument specs:\n"
    "  TYPE:VALUE              a scalar: i32:1024, f32:2.5, u32:7, bool:1\n"
    "  buf:TYPE[N]             a buffer of N elements, zero-filled\n"
    "  buf:TYPE[N]=FILL        filled with zero, iota (0,1,2..), rand (seeded;\n"
    "                          floats in [-1,1), integers in [-100,100]) or value:V\n"
    "  view:TYPE[AxB..]=FILL   a buffer of A*B.. elements passed as a row-major\n"
    "                          view of sizes A, B, .. (memref parameters)\n"
    "  TYPE is bool, i8, i16, i32, u32, i64, u64, f16, bf16, f32 or f64.\n"
    "\n"
    "options:\n"
    "  --device SPEC     cpu, cuda:0, vulkan:1, or a device index (default:\n"
    "                    the default device; see `xpujit devices`)\n"
    "  --seed N          random fill seed (default 1)\n"
    "  --print N|all     elements printed per buffer (default 8)\n"
    "  --save DIR        write each buffer to DIR/<param>.in.bin before the\n"
    "                    launch and DIR/<param>.out.bin after it (raw bytes)\n"
    "  --repeat N        launch N times and report the mean time per launch\n"
    "  --dynamic-shared BYTES  dynamic shared memory per workgroup\n"
    "  --report FILE     write the module's report (JSON, docs/observe.md)\n"
    "  --manifest        print the kernel's manifest on its device after the\n"
    "                    run (JSON, as xpu_kernel_manifest_get gives it)\n"
    "  --trace FILE      write a trace of the run (Chrome/Perfetto trace-event\n"
    "                    JSON: open it in ui.perfetto.dev or chrome://tracing)\n";

bool parseExtents(const std::string &text, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  size_t start = 0;
  for (int d = 0; d < 3; ++d) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos
                                                                     : comma - start);
    auto extent = parseCount(part, UINT32_MAX);
    if (!extent)
      return false;
    out[d] = uint32_t(*extent);
    if (comma == std::string::npos)
      return true;
    start = comma + 1;
  }
  return false;
}

uint64_t fnv1a(const std::vector<uint8_t> &bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : bytes)
    h = (h ^ b) * 1099511628211ull;
  return h;
}

bool saveFile(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()), std::streamsize(bytes.size()));
  return bool(out);
}

struct Buffers {
  std::vector<xpu_buffer> list;
  ~Buffers() {
    for (xpu_buffer b : list)
      xpu_buffer_free(b);
  }
};

} // namespace

/// Records a trace for as long as it lives (xpujit run --trace).
struct Trace {
  bool on = false;
  ~Trace() {
    if (on && xpu_trace_stop())
      std::fprintf(stderr, "xpujit run: %s\n", xpu_last_error_message());
  }
};

bool writeReport(xpu_module module, const std::string &path) {
  const char *json = nullptr;
  if (xpu_status st = xpu_module_report(module, &json)) {
    reportFailure("no module report", st);
    return false;
  }
  std::ofstream out(path);
  out << json << "\n";
  if (!out) {
    std::fprintf(stderr, "xpujit run: cannot write '%s'\n", path.c_str());
    return false;
  }
  return true;
}

int runRun(int argc, char **argv) {
  std::string file, kernelName, deviceSpec, saveDir, reportPath, tracePath;
  bool manifest = false;
  uint32_t grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  std::vector<ArgSpec> specs;
  uint64_t seed = 1, repeat = 1;
  xpu_launch_options launchOptions = XPU_LAUNCH_OPTIONS_INIT;
  long printCount = 8;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string &out) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "xpujit run: %s needs a value\n", a.c_str());
        return false;
      }
      out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::fputs(kRunHelp, stdout);
      return kOk;
    } else if (a == "--kernel") {
      if (!value(kernelName))
        return kUsage;
    } else if (a == "--device") {
      if (!value(deviceSpec))
        return kUsage;
    } else if (a == "--grid" || a == "--block") {
      if (!value(v))
        return kUsage;
      if (!parseExtents(v, a == "--grid" ? grid : block)) {
        std::fprintf(stderr, "xpujit run: %s takes X[,Y[,Z]], got '%s'\n",
                     a.c_str(), v.c_str());
        return kUsage;
      }
    } else if (a == "--arg") {
      if (!value(v))
        return kUsage;
      ArgSpec spec;
      std::string err = parseArgSpec(v, spec);
      if (!err.empty()) {
        std::fprintf(stderr, "xpujit run: --arg %s: %s\n", v.c_str(), err.c_str());
        return kUsage;
      }
      specs.push_back(spec);
    } else if (a == "--seed" || a == "--repeat" || a == "--print") {
      if (!value(v))
        return kUsage;
      auto n = a == "--print" && v == "all" ? std::optional<uint64_t>(0)
                                            : parseCount(v, INT64_MAX);
      if (!n || (a == "--repeat" && *n == 0)) {
        std::fprintf(stderr, "xpujit run: %s takes %s, got '%s'\n", a.c_str(),
                     a == "--repeat" ? "a count of at least 1"
                     : a == "--print" ? "a count or 'all'" : "a number",
                     v.c_str());
        return kUsage;
      }
      if (a == "--seed")
        seed = *n;
      else if (a == "--repeat")
        repeat = *n;
      else
        printCount = v == "all" ? -1 : long(*n);
    } else if (a == "--dynamic-shared") {
      if (!value(v))
        return kUsage;
      auto n = parseCount(v, UINT32_MAX);
      if (!n) {
        std::fprintf(stderr, "xpujit run: --dynamic-shared takes a byte count, got '%s'\n",
                     v.c_str());
        return kUsage;
      }
      launchOptions.dynamic_shared_bytes = uint32_t(*n);
    } else if (a == "--save") {
      if (!value(saveDir))
        return kUsage;
    } else if (a == "--report") {
      if (!value(reportPath))
        return kUsage;
    } else if (a == "--trace") {
      if (!value(tracePath))
        return kUsage;
    } else if (a == "--manifest") {
      manifest = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "xpujit run: unknown option '%s'\n", a.c_str());
      return kUsage;
    } else if (file.empty()) {
      file = a;
    } else {
      std::fprintf(stderr, "xpujit run: one FILE only\n");
      return kUsage;
    }
  }
  if (file.empty() || kernelName.empty() || !grid[0] || !block[0]) {
    std::fprintf(stderr, "xpujit run: FILE, --kernel, --grid and --block are "
                         "required (see --help)\n");
    return kUsage;
  }

  std::string text;
  if (!readFile(file, text)) {
    std::fprintf(stderr, "xpujit run: cannot read '%s'\n", file.c_str());
    return kFailed;
  }
  Trace trace; // declared before the context: written after it is released
  if (!tracePath.empty()) {
    if (xpu_status st = xpu_trace_start(tracePath.c_str()))
      return reportFailure("cannot record a trace", st);
    trace.on = true;
  }
  Context ctx;
  if (xpu_status st = xpu_context_create(nullptr, &ctx.handle))
    return reportFailure("cannot create a context", st);
  xpu_device dev = nullptr;
  if (xpu_status st = findDevice(ctx.handle, deviceSpec, &dev))
    return reportFailure("no device", st);
  xpu_device_info info = {sizeof info};
  (void)xpu_device_info_get(dev, &info);

  xpu_module_options options = XPU_MODULE_OPTIONS_INIT;
  options.source_name = file.c_str();
  xpu_module module = nullptr;
  xpu_diagnostics diags = nullptr;
  xpu_status st = xpu_module_create(ctx.handle, dev, text.data(), text.size(),
                                    &options, &module, &diags);
  std::fputs(xpu_diagnostics_text(diags), stderr);
  xpu_diagnostics_release(diags);
  if (st)
    return reportFailure("compile failed", st);
  if (!reportPath.empty() && !writeReport(module, reportPath))
    return kFailed;
  xpu_kernel kernel;
  if ((st = xpu_module_kernel(module, kernelName.c_str(), &kernel)))
    return reportFailure("no kernel", st);

  // Arguments, in parameter order.
  uint32_t nparams = 0;
  (void)xpu_kernel_param_count(kernel, &nparams);
  if (specs.size() != nparams) {
    std::fprintf(stderr, "xpujit run: kernel '%s' takes %u arguments; %zu --arg given\n",
                 kernelName.c_str(), nparams, specs.size());
    for (uint32_t i = 0; i < nparams; ++i) {
      xpu_param_info p;
      (void)xpu_kernel_param(kernel, i, &p);
      std::fprintf(stderr, "  %u: %s %s%s\n", i, p.name,
                   p.kind == XPU_PARAM_BUFFER ? "buffer of "
                   : p.kind == XPU_PARAM_VIEW ? "view of "
                                              : "",
                   xpu_type_name(p.type));
    }
    return kUsage;
  }
  Buffers buffers;
  std::vector<xpu_arg> args;
  std::vector<xpu_view> views(specs.size()); // each view arg points into it
  std::vector<std::vector<uint8_t>> contents(specs.size());
  std::vector<std::string> names(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    xpu_param_info p;
    (void)xpu_kernel_param(kernel, uint32_t(i), &p);
    names[i] = p.name;
    if (!specs[i].isBuffer) {
      args.push_back(scalarArg(specs[i]));
      continue;
    }
    if (std::string err = fillBuffer(specs[i], seed + i, contents[i]); !err.empty()) {
      std::fprintf(stderr, "xpujit run: --arg %s: %s\n", specs[i].text.c_str(), err.c_str());
      return kFailed;
    }
    xpu_buffer b;
    if ((st = xpu_buffer_create(dev, contents[i].size(), &b)))
      return reportFailure("cannot allocate a buffer", st);
    buffers.list.push_back(b);
    if ((st = xpu_buffer_upload(b, 0, contents[i].data(), contents[i].size())))
      return reportFailure("cannot upload", st);
    if (!saveDir.empty() &&
        !saveFile(saveDir + "/" + names[i] + ".in.bin", contents[i])) {
      std::fprintf(stderr, "xpujit run: cannot write to '%s'\n", saveDir.c_str());
      return kFailed;
    }
    if (!specs[i].isView) {
      args.push_back(xpu_arg_buffer(b));
      continue;
    }
    xpu_view &view = views[i];
    view.buffer = b;
    view.rank = uint32_t(specs[i].shape.size());
    int64_t stride = 1;
    for (size_t d = view.rank; d-- > 0;) {
      view.sizes[d] = specs[i].shape[d];
      view.strides[d] = stride;
      stride *= specs[i].shape[d];
    }
    args.push_back(xpu_arg_view(&view));
  }

  xpu_stream stream;
  (void)xpu_stream_default(dev, &stream);
  auto start = std::chrono::steady_clock::now();
  for (uint64_t r = 0; r < repeat; ++r)
    if ((st = xpu_launch_with_options(kernel, stream, grid, block, args.data(),
                                      args.size(), &launchOptions)))
      return reportFailure("launch failed", st);
  st = xpu_stream_synchronize(stream);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (st)
    return reportFailure("the kernel failed", st);

  std::printf("device %s (%s)\n", info.name, xpu_backend_name(info.backend));
  std::printf("kernel %s: grid %u,%u,%u block %u,%u,%u", kernelName.c_str(), grid[0],
              grid[1], grid[2], block[0], block[1], block[2]);
  if (repeat > 1)
    std::printf(", %llu launches, %.3f ms each", (unsigned long long)repeat,
                seconds * 1e3 / double(repeat));
  std::printf("\n");
  for (size_t i = 0, b = 0; i < specs.size(); ++i) {
    if (!specs[i].isBuffer)
      continue;
    xpu_buffer buf = buffers.list[b++];
    if ((st = xpu_buffer_download(buf, 0, contents[i].data(), contents[i].size())))
      return reportFailure("cannot download", st);
    if (!saveDir.empty() &&
        !saveFile(saveDir + "/" + names[i] + ".out.bin", contents[i])) {
      std::fprintf(stderr, "xpujit run: cannot write to '%s'\n", saveDir.c_str());
      return kFailed;
    }
    std::printf("%s: %s[%llu] fnv1a=%016llx", names[i].c_str(),
                xpu_type_name(specs[i].type), (unsigned long long)specs[i].count,
                (unsigned long long)fnv1a(contents[i]));
    uint64_t shown = printCount < 0 ? specs[i].count
                                    : std::min<uint64_t>(specs[i].count, uint64_t(printCount));
    if (shown) {
      std::printf(" [");
      for (uint64_t e = 0; e < shown; ++e)
        std::printf("%s%s", e ? ", " : "",
                    formatElement(specs[i].type, contents[i].data(), e).c_str());
      std::printf("%s]", shown < specs[i].count ? ", ..." : "");
    }
    std::printf("\n");
  }
  if (manifest) {
    xpu_kernel_manifest m = {sizeof m};
    if ((st = xpu_kernel_manifest_get(kernel, &m)))
      return reportFailure("no manifest", st);
    std::printf("%s\n", m.json);
  }
  xpu_module_release(module);
  return kOk;
}

} // namespace cli
