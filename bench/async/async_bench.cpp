// Whether asynchronous copies help a tiled kernel: bench/async/tiled.mlir's
// 3-point stencil over shared tiles, filled with xpu.async_copy (cp.async on
// NVIDIA sm_80+) and with plain loads, on the same data in the same run;
// device-event timing, the median of the iterations, every element of both
// results checked against the host. Prints one JSON line per kernel.
//
//   xpu-bench-async [--device cuda:0] [--log2n 26] [--iterations 50]
#include "../bench_util.h"

#include <cstring>

int main(int argc, char **argv) {
  std::string deviceSpec, source = "bench/async/tiled.mlir";
  int log2n = 26, iterations = 50;
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
      std::fprintf(stderr, "usage: xpu-bench-async [--device SPEC] [--log2n N] "
                           "[--iterations N] [--source tiled.mlir]\n");
      return 2;
    }
  }
  std::string text = bench::readSource(source);
  const uint32_t n = uint32_t(1) << log2n;
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, text.data(), text.size(), nullptr, &mod, nullptr));
  std::vector<float> host(n), want(n), got(n);
  for (uint32_t i = 0; i < n; ++i)
    host[i] = float(int((i * 2654435761u) >> 24) - 128) / 16.0f;
  for (uint32_t i = 0; i < n; ++i)
    want[i] = ((i ? host[i - 1] : 0.0f) + host[i]) + (i + 1 < n ? host[i + 1] : 0.0f);
  xpu_buffer in, out;
  BENCH_OK(xpu_buffer_create(dev, n * 4ull, &in));
  BENCH_OK(xpu_buffer_create(dev, n * 4ull, &out));
  BENCH_OK(xpu_buffer_upload(in, 0, host.data(), n * 4ull));
  xpu_stream s;
  BENCH_OK(xpu_stream_default(dev, &s));
  xpu_event start, stop;
  BENCH_OK(xpu_event_create(dev, &start));
  BENCH_OK(xpu_event_create(dev, &stop));
  uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  xpu_arg args[] = {xpu_arg_buffer(out), xpu_arg_buffer(in), xpu_arg_u32(n)};
  int failed = 0;
  for (const char *name : {"stencil_async", "stencil_plain"}) {
    xpu_kernel k;
    BENCH_OK(xpu_module_kernel(mod, name, &k));
    // The previous kernel's output must not pass for this one's.
    std::vector<float> stale(n, -12345.0f);
    BENCH_OK(xpu_buffer_upload(out, 0, stale.data(), n * 4ull));
    std::vector<double> ms;
    for (int it = 0; it < iterations; ++it) {
      BENCH_OK(xpu_event_record(start, s));
      BENCH_OK(xpu_launch(k, s, grid, block, args, 3));
      BENCH_OK(xpu_event_record(stop, s));
      BENCH_OK(xpu_stream_synchronize(s));
      double t;
      BENCH_OK(xpu_event_elapsed(start, stop, &t));
      ms.push_back(t);
    }
    BENCH_OK(xpu_buffer_download(out, 0, got.data(), n * 4ull));
    size_t wrong = 0;
    for (uint32_t i = 0; i < n; ++i)
      wrong += std::memcmp(&got[i], &want[i], 4) != 0;
    failed |= wrong != 0;
    double median = bench::median(ms), bytes = 2.0 * 4 * n;
    std::printf("{\"impl\": \"xpujit-%s\", \"kernel\": \"%s\", \"n\": %u, \"bytes\": %.0f, "
                "\"median_ms\": %.6f, \"gbps\": %.1f, \"wrong_elements\": %zu, \"check\": \"%s\"}\n",
                xpu_backend_name(info.backend), name, n, bytes, median,
                bytes / (median * 1e-3) / 1e9, wrong, wrong ? "FAIL" : "pass");
  }
  xpu_context_release(ctx);
  return failed;
}
