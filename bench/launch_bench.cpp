// Host cost per launch: xpu_launch against the CUDA driver's cuLaunchKernel
// on the same cubin, in the same process, context and stream order. Batches
// of launches are timed on the host (no synchronization inside a batch);
// xpu and raw batches alternate so drift hits both alike.
//
//   xpu-bench-launch [--device cuda:0] [--batches N] [--per-batch K] [--out FILE]
#include "bench_util.h"

#include <dlfcn.h>

#include <chrono>
#include <cstring>

namespace {

using Clock = std::chrono::steady_clock;

// The few driver entry points the raw side needs, resolved by hand.
using CUresult = int;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
struct RawDriver {
  CUresult (*moduleLoadData)(CUmodule *, const void *);
  CUresult (*moduleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*streamCreate)(CUstream *, unsigned);
  CUresult (*streamSynchronize)(CUstream);
  CUresult (*launchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                           unsigned, unsigned, unsigned, CUstream, void **, void **);
};

RawDriver loadDriver() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) {
    std::fprintf(stderr, "libcuda.so.1 not found: this benchmark needs a CUDA device\n");
    std::exit(2);
  }
  RawDriver d;
  d.moduleLoadData = reinterpret_cast<decltype(d.moduleLoadData)>(dlsym(lib, "cuModuleLoadData"));
  d.moduleGetFunction =
      reinterpret_cast<decltype(d.moduleGetFunction)>(dlsym(lib, "cuModuleGetFunction"));
  d.streamCreate = reinterpret_cast<decltype(d.streamCreate)>(dlsym(lib, "cuStreamCreate"));
  d.streamSynchronize =
      reinterpret_cast<decltype(d.streamSynchronize)>(dlsym(lib, "cuStreamSynchronize"));
  d.launchKernel = reinterpret_cast<decltype(d.launchKernel)>(dlsym(lib, "cuLaunchKernel"));
  return d;
}

// An empty kernel, and one with saxpy's four arguments (two buffers, two
// scalars) that does nothing with them, so argument handling is measured.
const char *kKernels = R"(
xpu.kernel @empty() {
  xpu.return
}
xpu.kernel @four_args(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  xpu.return
}
)";

struct Result {
  const char *name;
  double xpuUs, rawUs;
};

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec = "cuda:0", outPath;
  int batches = 200, perBatch = 256;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (a == "--batches" && i + 1 < argc)
      batches = std::atoi(argv[++i]);
    else if (a == "--per-batch" && i + 1 < argc)
      perBatch = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      outPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-launch [--device cuda:0] [--batches N] "
                           "[--per-batch K] [--out FILE]\n");
      return 2;
    }
  }
  RawDriver drv = loadDriver();
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, kKernels, std::strlen(kKernels), nullptr, &mod,
                             nullptr));
  const void *cubin;
  size_t size;
  const char *format;
  BENCH_OK(xpu_module_binary(mod, &cubin, &size, &format));

  // xpu's side. Creating a stream makes the device's context current on
  // this thread, which the raw side then uses too.
  xpu_stream stream;
  BENCH_OK(xpu_stream_create(dev, &stream));
  xpu_buffer y, x;
  BENCH_OK(xpu_buffer_create(dev, 1 << 20, &y));
  BENCH_OK(xpu_buffer_create(dev, 1 << 20, &x));

  // The raw side: the same code object, loaded again through the driver.
  CUmodule rawModule;
  CUstream rawStream;
  if (drv.moduleLoadData(&rawModule, cubin) || drv.streamCreate(&rawStream, 1)) {
    std::fprintf(stderr, "raw driver setup failed\n");
    return 1;
  }
  // The kernel ABI passes each buffer as a pointer and an element count.
  // The bodies read nothing, so the raw side may pass null pointers.
  uint64_t yPtr = 0, xPtr = 0, count = (1 << 20) / 4, status = 0;
  float a = 2.0f;
  int32_t n = int32_t(count);

  std::vector<Result> results;
  for (const char *name : {"empty", "four_args"}) {
    bool four = std::strcmp(name, "four_args") == 0;
    xpu_kernel k;
    BENCH_OK(xpu_module_kernel(mod, name, &k));
    CUfunction f;
    if (drv.moduleGetFunction(&f, rawModule, name)) {
      std::fprintf(stderr, "raw cuModuleGetFunction(%s) failed\n", name);
      return 1;
    }
    xpu_arg args[4] = {xpu_arg_buffer(y), xpu_arg_buffer(x), xpu_arg_f32(a),
                       xpu_arg_i32(n)};
    // Flattened parameters in the kernel ABI: y ptr, y count, x ptr, x count,
    // a, n, status.
    void *fourParams[] = {&yPtr, &count, &xPtr, &count, &a, &n, &status};
    void *emptyParams[] = {&status};
    void **rawParams = four ? fourParams : emptyParams;
    uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};

    std::vector<double> xpuUs, rawUs;
    for (int b = 0; b < batches + 10; ++b) {
      auto t0 = Clock::now();
      for (int i = 0; i < perBatch; ++i)
        if (xpu_launch(k, stream, grid, block, four ? args : nullptr, four ? 4 : 0))
          bench::die("xpu_launch");
      auto t1 = Clock::now();
      BENCH_OK(xpu_stream_synchronize(stream));
      auto t2 = Clock::now();
      for (int i = 0; i < perBatch; ++i)
        if (drv.launchKernel(f, 1, 1, 1, 32, 1, 1, 0, rawStream, rawParams, nullptr)) {
          std::fprintf(stderr, "cuLaunchKernel failed\n");
          return 1;
        }
      auto t3 = Clock::now();
      drv.streamSynchronize(rawStream);
      if (b < 10)
        continue; // warm-up
      xpuUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / perBatch);
      rawUs.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count() / perBatch);
    }
    results.push_back({name, bench::median(xpuUs), bench::median(rawUs)});
  }

  std::string text = bench::header("Launch cost on the host: xpu_launch vs cuLaunchKernel",
                                   dev, argc, argv);
  char line[256];
  std::snprintf(line, sizeof line,
                "Median over %d batches of %d launches (1 workgroup of 32), host "
                "time of the launch calls only; code object: %s.\n\n"
                "| kernel | xpu_launch (µs) | cuLaunchKernel (µs) | difference (µs) |\n"
                "|---|---:|---:|---:|\n",
                batches, perBatch, format);
  text += line;
  for (const Result &r : results) {
    std::snprintf(line, sizeof line, "| %s | %.3f | %.3f | %+.3f |\n", r.name, r.xpuUs,
                  r.rawUs, r.xpuUs - r.rawUs);
    text += line;
  }
  bench::write(outPath, text);
  xpu_context_release(ctx);
  return 0;
}
