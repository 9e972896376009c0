// BabelStream's five kernels (copy, mul, add, triad, dot) from stream.mlir,
// run through the C API on one device: arrays of N doubles initialized to
// 0.1, 0.2, 0.0, each kernel timed with device events, median of the
// iterations, every element checked at the end against the values the
// iterations must produce. Prints one JSON line per kernel (bytes, median
// ms, GB/s) so a driver script can compare backends and nvcc.
//
//   xpu-bench-stream [--device cuda:0] [--log2n 27] [--iterations 100]
#include "../bench_util.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace {

constexpr double kScalar = 0.4;
constexpr double kStartA = 0.1, kStartB = 0.2, kStartC = 0.0;

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec, source = "bench/babelstream/stream.mlir";
  int log2n = 27, iterations = 100;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (a == "--log2n" && i + 1 < argc)
      log2n = std::atoi(argv[++i]);
    else if (a == "--iterations" && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (a == "--source" && i + 1 < argc)
      source = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-stream [--device SPEC] [--log2n N] "
                           "[--iterations N] [--source stream.mlir]\n");
      return 2;
    }
  }
  const size_t n = size_t(1) << log2n;
  std::string text = readFile(source);
  if (text.empty()) {
    std::fprintf(stderr, "cannot read %s\n", source.c_str());
    return 2;
  }
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = source.c_str();
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, text.data(), text.size(), &opts, &mod, nullptr));
  xpu_kernel copy, mul, add, triad, dot;
  BENCH_OK(xpu_module_kernel(mod, "copy", &copy));
  BENCH_OK(xpu_module_kernel(mod, "mul", &mul));
  BENCH_OK(xpu_module_kernel(mod, "add", &add));
  BENCH_OK(xpu_module_kernel(mod, "triad", &triad));
  BENCH_OK(xpu_module_kernel(mod, "dot", &dot));

  const uint32_t dotGroups = std::max(1u, info.compute_units) * 4;
  xpu_buffer a, b, c, sums;
  BENCH_OK(xpu_buffer_create(dev, n * 8, &a));
  BENCH_OK(xpu_buffer_create(dev, n * 8, &b));
  BENCH_OK(xpu_buffer_create(dev, n * 8, &c));
  BENCH_OK(xpu_buffer_create(dev, dotGroups * 8, &sums));
  {
    std::vector<double> init(n);
    for (auto [buf, v] : {std::pair{a, kStartA}, {b, kStartB}, {c, kStartC}}) {
      std::fill(init.begin(), init.end(), v);
      BENCH_OK(xpu_buffer_upload(buf, 0, init.data(), n * 8));
    }
  }
  xpu_stream s;
  BENCH_OK(xpu_stream_default(dev, &s));
  xpu_event start, stop;
  BENCH_OK(xpu_event_create(dev, &start));
  BENCH_OK(xpu_event_create(dev, &stop));

  const uint32_t block = 1024;
  uint32_t grid[3] = {uint32_t((n + block - 1) / block), 1, 1}, blk[3] = {block, 1, 1};
  uint32_t dotGrid[3] = {dotGroups, 1, 1};
  xpu_arg copyArgs[] = {xpu_arg_buffer(c), xpu_arg_buffer(a)};
  xpu_arg mulArgs[] = {xpu_arg_buffer(b), xpu_arg_buffer(c), xpu_arg_f64(kScalar)};
  xpu_arg addArgs[] = {xpu_arg_buffer(c), xpu_arg_buffer(a), xpu_arg_buffer(b)};
  xpu_arg triadArgs[] = {xpu_arg_buffer(a), xpu_arg_buffer(b), xpu_arg_buffer(c),
                         xpu_arg_f64(kScalar)};
  xpu_arg dotArgs[] = {xpu_arg_buffer(sums), xpu_arg_buffer(a), xpu_arg_buffer(b)};

  struct Kernel {
    const char *name;
    xpu_kernel k;
    uint32_t *grid;
    xpu_arg *args;
    size_t nargs;
    double bytes;
    std::vector<double> ms;
  } kernels[] = {
      {"copy", copy, grid, copyArgs, 2, 2.0 * 8 * n, {}},
      {"mul", mul, grid, mulArgs, 3, 2.0 * 8 * n, {}},
      {"add", add, grid, addArgs, 3, 3.0 * 8 * n, {}},
      {"triad", triad, grid, triadArgs, 4, 3.0 * 8 * n, {}},
      {"dot", dot, dotGrid, dotArgs, 3, 2.0 * 8 * n, {}},
  };
  double dotSum = 0;
  std::vector<double> partial(dotGroups);
  for (int it = 0; it < iterations; ++it)
    for (Kernel &k : kernels) {
      BENCH_OK(xpu_event_record(start, s));
      BENCH_OK(xpu_launch(k.k, s, k.grid, blk, k.args, k.nargs));
      BENCH_OK(xpu_event_record(stop, s));
      BENCH_OK(xpu_stream_synchronize(s));
      double ms;
      BENCH_OK(xpu_event_elapsed(start, stop, &ms));
      k.ms.push_back(ms);
      if (k.k == dot) {
        BENCH_OK(xpu_buffer_download(sums, 0, partial.data(), dotGroups * 8));
        dotSum = 0;
        for (double p : partial)
          dotSum += p;
      }
    }

  // The values every element must hold after the iterations.
  double ga = kStartA, gb = kStartB, gc = kStartC;
  for (int it = 0; it < iterations; ++it) {
    gc = ga;
    gb = kScalar * gc;
    gc = ga + gb;
    ga = gb + kScalar * gc;
  }
  double wantDot = ga * gb * double(n);
  size_t wrong = 0;
  std::vector<double> host(n);
  for (auto [buf, want] : {std::pair{a, ga}, {b, gb}, {c, gc}}) {
    BENCH_OK(xpu_buffer_download(buf, 0, host.data(), n * 8));
    for (double v : host)
      wrong += v != want;
  }
  bool dotOk = std::fabs(dotSum - wantDot) <= 1e-8 * std::fabs(wantDot);

  for (Kernel &k : kernels) {
    double ms = bench::median(k.ms);
    std::printf("{\"impl\": \"xpujit-%s\", \"kernel\": \"%s\", \"n\": %zu, \"bytes\": %.0f, "
                "\"median_ms\": %.6f, \"gbps\": %.1f}\n",
                xpu_backend_name(info.backend), k.name, n, k.bytes, ms,
                k.bytes / (ms * 1e-3) / 1e9);
  }
  std::printf("{\"impl\": \"xpujit-%s\", \"check\": \"%s\", \"wrong_elements\": %zu, "
              "\"dot\": %.17g, \"dot_expected\": %.17g}\n",
              xpu_backend_name(info.backend), wrong == 0 && dotOk ? "pass" : "FAIL", wrong,
              dotSum, wantDot);
  xpu_context_release(ctx);
  return wrong == 0 && dotOk ? 0 : 1;
}
