// Host cost per launch. By default xpu_launch against the CUDA driver's
// cuLaunchKernel on the same cubin, in the same process, context and stream
// order; with --against DEVICE, xpu_launch on --device against xpu_launch on
// DEVICE (e.g. vulkan:0 against cuda:0). Batches of launches are timed on the
// host (no synchronization inside a batch); the two sides alternate so drift
// hits both alike.
//
//   xpu-bench-launch [--device cuda:0] [--against DEVICE] [--batches N]
//                    [--per-batch K] [--out FILE]
#include "bench_util.h"

#include <dlfcn.h>

#include <chrono>
#include <cstring>
#include <memory>

namespace {

using Clock = std::chrono::steady_clock;

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
const char *kKernelNames[] = {"empty", "four_args"};
constexpr uint32_t kGrid[3] = {1, 1, 1}, kBlock[3] = {32, 1, 1};

/// One side of the comparison: launches `n` of kernel `k` (0 empty, 1
/// four_args) without waiting, or waits for them.
class Side {
public:
  virtual ~Side() = default;
  virtual void launch(int k, int n) = 0;
  virtual void sync() = 0;
};

/// xpu_launch on one device.
class XpuSide : public Side {
public:
  XpuSide(xpu_context ctx, xpu_device dev) {
    BENCH_OK(xpu_module_create(ctx, dev, kKernels, std::strlen(kKernels), nullptr, &mod,
                               nullptr));
    BENCH_OK(xpu_stream_create(dev, &stream));
    BENCH_OK(xpu_buffer_create(dev, 1 << 20, &y));
    BENCH_OK(xpu_buffer_create(dev, 1 << 20, &x));
    for (int k = 0; k < 2; ++k)
      BENCH_OK(xpu_module_kernel(mod, kKernelNames[k], &kernels[k]));
    args[0] = xpu_arg_buffer(y);
    args[1] = xpu_arg_buffer(x);
    args[2] = xpu_arg_f32(2.0f);
    args[3] = xpu_arg_i32((1 << 20) / 4);
  }
  void launch(int k, int n) override {
    for (int i = 0; i < n; ++i)
      if (xpu_launch(kernels[k], stream, kGrid, kBlock, k ? args : nullptr, k ? 4 : 0))
        bench::die("xpu_launch");
  }
  void sync() override { BENCH_OK(xpu_stream_synchronize(stream)); }

  xpu_module mod;
  xpu_stream stream;

private:
  xpu_buffer y, x;
  xpu_kernel kernels[2];
  xpu_arg args[4];
};

/// cuLaunchKernel on the cubin of an XpuSide's module, resolved by hand.
class RawCudaSide : public Side {
public:
  explicit RawCudaSide(xpu_module mod) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
      std::fprintf(stderr, "libcuda.so.1 not found: this comparison needs a CUDA device\n");
      std::exit(2);
    }
    auto sym = [&](const char *name) {
      void *p = dlsym(lib, name);
      if (!p) {
        std::fprintf(stderr, "%s missing from libcuda.so.1\n", name);
        std::exit(2);
      }
      return p;
    };
    auto moduleLoadData = reinterpret_cast<int (*)(void **, const void *)>(sym("cuModuleLoadData"));
    auto moduleGetFunction =
        reinterpret_cast<int (*)(void **, void *, const char *)>(sym("cuModuleGetFunction"));
    auto streamCreate = reinterpret_cast<int (*)(void **, unsigned)>(sym("cuStreamCreate"));
    streamSynchronize = reinterpret_cast<int (*)(void *)>(sym("cuStreamSynchronize"));
    launchKernel = reinterpret_cast<decltype(launchKernel)>(sym("cuLaunchKernel"));
    const void *cubin;
    size_t size;
    const char *format;
    BENCH_OK(xpu_module_binary(mod, &cubin, &size, &format));
    void *module;
    if (std::strcmp(format, "cubin") || moduleLoadData(&module, cubin) ||
        streamCreate(&stream, 1) || moduleGetFunction(&functions[0], module, "empty") ||
        moduleGetFunction(&functions[1], module, "four_args")) {
      std::fprintf(stderr, "raw driver setup failed (code object: %s)\n", format);
      std::exit(1);
    }
  }
  void launch(int k, int n) override {
    // The kernel ABI passes each buffer as a pointer and an element count,
    // then the scalars, then the status word. The bodies read nothing, so
    // null pointers do.
    void *fourParams[] = {&yPtr, &count, &xPtr, &count, &a, &n32, &status};
    void *emptyParams[] = {&status};
    for (int i = 0; i < n; ++i)
      if (launchKernel(functions[k], 1, 1, 1, 32, 1, 1, 0, stream,
                       k ? fourParams : emptyParams, nullptr)) {
        std::fprintf(stderr, "cuLaunchKernel failed\n");
        std::exit(1);
      }
  }
  void sync() override { streamSynchronize(stream); }

private:
  int (*streamSynchronize)(void *);
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, void *, void **, void **);
  void *stream;
  void *functions[2];
  uint64_t yPtr = 0, xPtr = 0, count = (1 << 20) / 4, status = 0;
  float a = 2.0f;
  int32_t n32 = int32_t(count);
};

struct Result {
  const char *name;
  double sideUs, referenceUs;
};

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec = "cuda:0", againstSpec, outPath;
  int batches = 200, perBatch = 256;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (a == "--against" && i + 1 < argc)
      againstSpec = argv[++i];
    else if (a == "--batches" && i + 1 < argc)
      batches = std::atoi(argv[++i]);
    else if (a == "--per-batch" && i + 1 < argc)
      perBatch = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      outPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-launch [--device cuda:0] [--against DEVICE] "
                           "[--batches N] [--per-batch K] [--out FILE]\n");
      return 2;
    }
  }
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  // Creating the xpu stream first makes the CUDA context current on this
  // thread, which the raw side then uses too.
  XpuSide side(ctx, dev);
  std::unique_ptr<Side> reference;
  std::string referenceName;
  if (againstSpec.empty()) {
    reference = std::make_unique<RawCudaSide>(side.mod);
    referenceName = "cuLaunchKernel";
  } else {
    reference = std::make_unique<XpuSide>(ctx, bench::findDevice(ctx, againstSpec));
    referenceName = "xpu_launch on " + againstSpec;
  }

  std::vector<Result> results;
  for (int k = 0; k < 2; ++k) {
    std::vector<double> sideUs, referenceUs;
    for (int b = 0; b < batches + 10; ++b) {
      auto t0 = Clock::now();
      side.launch(k, perBatch);
      auto t1 = Clock::now();
      side.sync();
      auto t2 = Clock::now();
      reference->launch(k, perBatch);
      auto t3 = Clock::now();
      reference->sync();
      if (b < 10)
        continue; // warm-up
      sideUs.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / perBatch);
      referenceUs.push_back(std::chrono::duration<double, std::micro>(t3 - t2).count() /
                            perBatch);
    }
    results.push_back({kKernelNames[k], bench::median(sideUs), bench::median(referenceUs)});
  }

  std::string title = "Launch cost on the host: xpu_launch on " + deviceSpec + " vs " +
                      referenceName;
  std::string text = bench::header(title.c_str(), dev, argc, argv);
  char line[512];
  std::snprintf(line, sizeof line,
                "Median over %d batches of %d launches (1 workgroup of 32), host "
                "time of the launch calls only.\n\n"
                "| kernel | xpu_launch on %s (µs) | %s (µs) | difference (µs) |\n"
                "|---|---:|---:|---:|\n",
                batches, perBatch, deviceSpec.c_str(), referenceName.c_str());
  text += line;
  for (const Result &r : results) {
    std::snprintf(line, sizeof line, "| %s | %.3f | %.3f | %+.3f |\n", r.name, r.sideUs,
                  r.referenceUs, r.sideUs - r.referenceUs);
    text += line;
  }
  bench::write(outPath, text);
  xpu_context_release(ctx);
  return 0;
}
