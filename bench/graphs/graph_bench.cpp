// Chains of launches replayed: a chain of `--chain` saxpy launches over
// `--n` floats and one synchronization, timed on the host (median of
// `--iterations` chains) as
//   launches     xpu_launch one by one (automatic capture off)
//   automatic    xpu_launch with automatic capture (after its warm-up)
//   graph        an explicit xpujit graph (xpu_graph_launch)
//   cuda graph   a graph made by hand with the CUDA driver API from the same
//                cubin (stream capture of cuLaunchKernel, cuGraphLaunch)
//   cuLaunchKernel  the same launches made raw (CUDA only)
// and the host cost per kernel of 100 empty kernels: recording them into a
// graph, replaying the graph (xpu_graph_launch, and cuGraphLaunch on CUDA),
// and holding them for automatic capture.
//
//   xpu-bench-graphs [--device cuda:0] [--chain 100] [--n 1048576]
//                    [--iterations 50] [--out FILE] [--json FILE]
#include "../bench_util.h"

#include <dlfcn.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

const char *kKernels = R"(
xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %yi = xpu.load %y[%i] : !xpu.buffer<f32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
xpu.kernel @empty() {
  xpu.return
}
)";

double usSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

/// The hand-made reference: the CUDA driver API on xpujit's cubin, in the
/// context xpujit made current.
class CudaDriver {
public:
  explicit CudaDriver(xpu_module mod) {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib)
      fail("libcuda.so.1 not found");
    auto sym = [&](const char *name) {
      void *p = dlsym(lib, name);
      if (!p)
        fail(name);
      return p;
    };
    moduleLoadData = reinterpret_cast<int (*)(void **, const void *)>(sym("cuModuleLoadData"));
    moduleGetFunction =
        reinterpret_cast<int (*)(void **, void *, const char *)>(sym("cuModuleGetFunction"));
    streamCreate = reinterpret_cast<int (*)(void **, unsigned)>(sym("cuStreamCreate"));
    streamSynchronize = reinterpret_cast<int (*)(void *)>(sym("cuStreamSynchronize"));
    launchKernel = reinterpret_cast<decltype(launchKernel)>(sym("cuLaunchKernel"));
    beginCapture = reinterpret_cast<int (*)(void *, int)>(sym("cuStreamBeginCapture_v2"));
    endCapture = reinterpret_cast<int (*)(void *, void **)>(sym("cuStreamEndCapture"));
    instantiate = reinterpret_cast<int (*)(void **, void *, unsigned long long)>(
        sym("cuGraphInstantiateWithFlags"));
    graphLaunch = reinterpret_cast<int (*)(void *, void *)>(sym("cuGraphLaunch"));
    memAlloc = reinterpret_cast<int (*)(uint64_t *, size_t)>(sym("cuMemAlloc_v2"));
    const void *cubin;
    size_t size;
    const char *format;
    BENCH_OK(xpu_module_binary(mod, &cubin, &size, &format));
    void *module;
    (void)format; // a cubin, or PTX (NUL-terminated) for the driver's JIT
    if (moduleLoadData(&module, cubin) ||
        moduleGetFunction(&saxpy, module, "saxpy") ||
        moduleGetFunction(&empty, module, "empty") || streamCreate(&stream, 1) ||
        memAlloc(&status, 64))
      fail("setup");
  }
  [[noreturn]] static void fail(const char *what) {
    std::fprintf(stderr, "cuda reference: %s\n", what);
    std::exit(1);
  }
  /// `count` launches of saxpy on (y, x) or of the empty kernel.
  void launches(bool isSaxpy, int count, uint64_t y, uint64_t x, uint64_t n) {
    uint64_t elements = n;
    float a = 1.0001f;
    int32_t n32 = int32_t(n);
    void *saxpyParams[] = {&y, &elements, &x, &elements, &a, &n32, &status};
    void *emptyParams[] = {&status};
    unsigned grid = isSaxpy ? unsigned((n + 255) / 256) : 1;
    for (int i = 0; i < count; ++i)
      if (launchKernel(isSaxpy ? saxpy : empty, grid, 1, 1, isSaxpy ? 256 : 32, 1, 1, 0,
                       stream, isSaxpy ? saxpyParams : emptyParams, nullptr))
        fail("cuLaunchKernel");
  }
  void *captureGraph(bool isSaxpy, int count, uint64_t y, uint64_t x, uint64_t n) {
    void *graph = nullptr, *exec = nullptr;
    if (beginCapture(stream, 0 /* global */))
      fail("cuStreamBeginCapture");
    launches(isSaxpy, count, y, x, n);
    if (endCapture(stream, &graph) || instantiate(&exec, graph, 0))
      fail("capture");
    return exec;
  }
  void launchGraph(void *exec) {
    if (graphLaunch(exec, stream))
      fail("cuGraphLaunch");
  }
  void sync() { streamSynchronize(stream); }

private:
  int (*moduleLoadData)(void **, const void *);
  int (*moduleGetFunction)(void **, void *, const char *);
  int (*streamCreate)(void **, unsigned);
  int (*streamSynchronize)(void *);
  int (*launchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                      unsigned, void *, void **, void **);
  int (*beginCapture)(void *, int);
  int (*endCapture)(void *, void **);
  int (*instantiate)(void **, void *, unsigned long long);
  int (*graphLaunch)(void *, void *);
  int (*memAlloc)(uint64_t *, size_t);
  void *stream = nullptr, *saxpy = nullptr, *empty = nullptr;
  uint64_t status = 0;
};

struct Row {
  std::string what;
  double us; ///< per chain, or per kernel for host costs
};

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec = "cuda:0", outPath, jsonPath;
  int chain = 100, iterations = 50;
  uint32_t n = 1u << 20;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (a == "--chain" && i + 1 < argc)
      chain = std::atoi(argv[++i]);
    else if (a == "--n" && i + 1 < argc)
      n = uint32_t(std::strtoul(argv[++i], nullptr, 10));
    else if (a == "--iterations" && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (a == "--out" && i + 1 < argc)
      outPath = argv[++i];
    else if (a == "--json" && i + 1 < argc)
      jsonPath = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-graphs [--device cuda:0] [--chain 100] "
                           "[--n 1048576] [--iterations 50] [--out FILE] [--json FILE]\n");
      return 2;
    }
  }
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  bool cuda = info.backend == XPU_BACKEND_CUDA;
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, kKernels, std::strlen(kKernels), nullptr, &mod,
                             nullptr));
  xpu_kernel saxpy, empty;
  BENCH_OK(xpu_module_kernel(mod, "saxpy", &saxpy));
  BENCH_OK(xpu_module_kernel(mod, "empty", &empty));
  xpu_stream raw, automatic, graphs;
  BENCH_OK(xpu_stream_create(dev, &raw));
  BENCH_OK(xpu_stream_create(dev, &automatic));
  BENCH_OK(xpu_stream_create(dev, &graphs));
  BENCH_OK(xpu_stream_set_auto_capture(raw, 0));
  BENCH_OK(xpu_stream_set_auto_capture(graphs, 0));
  std::vector<float> ones(n, 1.0f);
  xpu_buffer y, x;
  BENCH_OK(xpu_buffer_create(dev, size_t(n) * 4, &y));
  BENCH_OK(xpu_buffer_create(dev, size_t(n) * 4, &x));
  BENCH_OK(xpu_buffer_upload(x, 0, ones.data(), size_t(n) * 4));
  BENCH_OK(xpu_buffer_upload(y, 0, ones.data(), size_t(n) * 4));
  xpu_arg args[4] = {xpu_arg_buffer(y), xpu_arg_buffer(x), xpu_arg_f32(1.0001f),
                     xpu_arg_i32(int32_t(n))};
  uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  uint32_t one[3] = {1, 1, 1}, warp[3] = {32, 1, 1};

  auto chainOf = [&](xpu_stream s) {
    for (int i = 0; i < chain; ++i)
      BENCH_OK(xpu_launch(saxpy, s, grid, block, args, 4));
  };
  auto record = [&](xpu_stream s, bool isSaxpy, int count) {
    xpu_graph g;
    xpu_graph_exec e;
    BENCH_OK(xpu_stream_begin_capture(s));
    for (int i = 0; i < count; ++i)
      BENCH_OK(isSaxpy ? xpu_launch(saxpy, s, grid, block, args, 4)
                       : xpu_launch(empty, s, one, warp, nullptr, 0));
    BENCH_OK(xpu_stream_end_capture(s, &g));
    BENCH_OK(xpu_graph_instantiate(g, &e));
    xpu_graph_release(g);
    return e;
  };
  xpu_graph_exec saxpyGraph = record(graphs, true, chain);

  std::unique_ptr<CudaDriver> driver;
  void *handGraph = nullptr, *handEmpty = nullptr;
  uint64_t yAddress = 0, xAddress = 0;
  if (cuda) {
    driver = std::make_unique<CudaDriver>(mod);
    BENCH_OK(xpu_buffer_address(y, &yAddress));
    BENCH_OK(xpu_buffer_address(x, &xAddress));
    handGraph = driver->captureGraph(true, chain, yAddress, xAddress, n);
    handEmpty = driver->captureGraph(false, 100, 0, 0, 0);
  }

  // Chains: the sides alternate within each iteration, so drift hits all.
  using Side = std::pair<std::string, std::function<void()>>;
  std::vector<Side> sides = {
      {"xpu_launch one by one", [&] { chainOf(raw); BENCH_OK(xpu_stream_synchronize(raw)); }},
      {"xpu_launch, automatic capture",
       [&] { chainOf(automatic); BENCH_OK(xpu_stream_synchronize(automatic)); }},
      {"explicit graph (xpu_graph_launch)",
       [&] {
         BENCH_OK(xpu_graph_launch(saxpyGraph, graphs));
         BENCH_OK(xpu_stream_synchronize(graphs));
       }},
  };
  if (cuda) {
    sides.push_back({"CUDA graph by hand (cuGraphLaunch)", [&] {
                       driver->launchGraph(handGraph);
                       driver->sync();
                     }});
    sides.push_back({"cuLaunchKernel one by one", [&] {
                       driver->launches(true, chain, yAddress, xAddress, n);
                       driver->sync();
                     }});
  }
  std::vector<std::vector<double>> times(sides.size());
  for (int it = 0; it < iterations + 5; ++it)
    for (size_t s = 0; s < sides.size(); ++s) {
      auto t0 = Clock::now();
      sides[s].second();
      if (it >= 5) // warm-up: automatic capture instantiates on its second chain
        times[s].push_back(usSince(t0));
    }
  std::vector<Row> chains;
  for (size_t s = 0; s < sides.size(); ++s)
    chains.push_back({sides[s].first, bench::median(times[s])});

  // Host cost per kernel of 100 empty kernels.
  std::vector<Row> host;
  {
    std::vector<double> recordUs, replayUs, heldUs, handUs;
    xpu_graph_exec emptyGraph = record(graphs, false, 100);
    for (int it = 0; it < iterations + 5; ++it) {
      auto t0 = Clock::now();
      xpu_graph g;
      BENCH_OK(xpu_stream_begin_capture(graphs));
      for (int i = 0; i < 100; ++i)
        BENCH_OK(xpu_launch(empty, graphs, one, warp, nullptr, 0));
      BENCH_OK(xpu_stream_end_capture(graphs, &g));
      double rec = usSince(t0);
      xpu_graph_release(g);
      t0 = Clock::now();
      BENCH_OK(xpu_graph_launch(emptyGraph, graphs));
      double replay = usSince(t0);
      BENCH_OK(xpu_stream_synchronize(graphs));
      t0 = Clock::now();
      for (int i = 0; i < 100; ++i)
        BENCH_OK(xpu_launch(empty, automatic, one, warp, nullptr, 0));
      double held = usSince(t0);
      BENCH_OK(xpu_stream_synchronize(automatic));
      if (cuda) {
        t0 = Clock::now();
        driver->launchGraph(handEmpty);
        handUs.push_back(usSince(t0) / 100);
        driver->sync();
      }
      if (it < 5)
        continue;
      recordUs.push_back(rec / 100);
      replayUs.push_back(replay / 100);
      heldUs.push_back(held / 100);
    }
    host.push_back({"recording into a graph (xpu_launch while capturing)",
                    bench::median(recordUs)});
    host.push_back({"replaying the graph (xpu_graph_launch / 100)", bench::median(replayUs)});
    host.push_back({"automatic capture (xpu_launch, held)", bench::median(heldUs)});
    if (cuda)
      host.push_back({"CUDA graph by hand (cuGraphLaunch / 100)", bench::median(handUs)});
    xpu_graph_exec_release(emptyGraph);
  }

  // The chain's result, so nothing above was for show: every y[i] is
  // 1.0001 * 1 added (5 + iterations) * chain * (sides) times to 1.
  std::vector<float> result(n);
  BENCH_OK(xpu_buffer_download(y, 0, result.data(), size_t(n) * 4));
  float expected = 1.0f;
  for (int64_t t = 0; t < int64_t(iterations + 5) * chain * int64_t(sides.size()); ++t)
    expected = 1.0001f * 1.0f + expected;
  size_t wrong = 0;
  for (float v : result)
    wrong += v != expected;

  const Row *reference = nullptr;
  for (const Row &r : chains)
    if (r.what.rfind("CUDA graph", 0) == 0)
      reference = &r;
  if (!reference)
    reference = &chains[2]; // the explicit graph
  std::string text = bench::header("Launch chains replayed: graphs and automatic capture",
                                   dev, argc, argv);
  char line[512];
  std::snprintf(line, sizeof line,
                "A chain of %d saxpy launches over %u floats and one synchronization; "
                "median of %d chains, host clock. Ratio: to %s.\n\n"
                "| chain | µs per chain | µs per kernel | ratio |\n|---|---:|---:|---:|\n",
                chain, n, iterations, reference->what.c_str());
  text += line;
  for (const Row &r : chains) {
    std::snprintf(line, sizeof line, "| %s | %.1f | %.3f | %.3f |\n", r.what.c_str(), r.us,
                  r.us / chain, r.us / reference->us);
    text += line;
  }
  text += "\nHost cost per kernel of 100 empty kernels (median of " +
          std::to_string(iterations) + "):\n\n| what | µs per kernel |\n|---|---:|\n";
  for (const Row &r : host) {
    std::snprintf(line, sizeof line, "| %s | %.3f |\n", r.what.c_str(), r.us);
    text += line;
  }
  std::snprintf(line, sizeof line, "\nCheck: %zu of %u elements differ from the host's %.6g.\n",
                wrong, n, double(expected));
  text += line;
  bench::write(outPath, text);
  if (!jsonPath.empty()) {
    std::string json = "{\"device\": \"" + deviceSpec + "\", \"chain\": " +
                       std::to_string(chain) + ", \"wrong\": " + std::to_string(wrong);
    for (const Row &r : chains)
      json += ", \"" + r.what + "\": " + std::to_string(r.us);
    for (const Row &r : host)
      json += ", \"host: " + r.what + "\": " + std::to_string(r.us);
    bench::write(jsonPath, json + "}\n");
  }
  xpu_graph_exec_release(saxpyGraph);
  xpu_context_release(ctx);
  return wrong ? 1 : 0;
}
