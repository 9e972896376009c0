// The f32 sum of 2^log2n floats built from wave reductions
// (bench/reduce/wave_sum.mlir) on one device, in two launches: the data
// into one partial sum per workgroup, then those into one. Both launches
// are timed together with device events; the median of the iterations is
// printed as a JSON line matching reduce_cub's, with the sum checked
// against the host's.
//
//   xpu-bench-reduce [--device cuda:0] [--log2n 28] [--iterations 100]
//                    [--groups-per-unit 8] [--block 256] [--source wave_sum.mlir]
#include "../bench_util.h"

#include <cmath>
#include <cstring>

namespace {

float value(size_t i) { return float((uint32_t(i) * 2654435761u) >> 29); }

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec, source = "bench/reduce/wave_sum.mlir";
  int log2n = 28, iterations = 100;
  uint32_t perUnit = 8, block = 256;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--device" && i + 1 < argc)
      deviceSpec = argv[++i];
    else if (a == "--log2n" && i + 1 < argc)
      log2n = std::atoi(argv[++i]);
    else if (a == "--iterations" && i + 1 < argc)
      iterations = std::atoi(argv[++i]);
    else if (a == "--groups-per-unit" && i + 1 < argc)
      perUnit = uint32_t(std::atoi(argv[++i]));
    else if (a == "--block" && i + 1 < argc)
      block = uint32_t(std::atoi(argv[++i]));
    else if (a == "--source" && i + 1 < argc)
      source = argv[++i];
    else {
      std::fprintf(stderr, "usage: xpu-bench-reduce [--device SPEC] [--log2n N] "
                           "[--iterations N] [--groups-per-unit N] [--block N] "
                           "[--source wave_sum.mlir]\n");
      return 2;
    }
  }
  std::string text = bench::readSource(source);
  const size_t n = size_t(1) << log2n;
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  xpu_module_options opts = XPU_MODULE_OPTIONS_INIT;
  opts.source_name = source.c_str();
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, text.data(), text.size(), &opts, &mod, nullptr));
  xpu_kernel sum;
  BENCH_OK(xpu_module_kernel(mod, "wave_sum", &sum));

  const uint32_t groups = std::max(1u, info.compute_units) * perUnit;
  std::vector<float> host(n);
  double want = 0;
  for (size_t i = 0; i < n; ++i)
    want += host[i] = value(i);
  xpu_buffer data, partials, result;
  BENCH_OK(xpu_buffer_create(dev, n * sizeof(float), &data));
  BENCH_OK(xpu_buffer_create(dev, groups * sizeof(float), &partials));
  BENCH_OK(xpu_buffer_create(dev, sizeof(float), &result));
  BENCH_OK(xpu_buffer_upload(data, 0, host.data(), n * sizeof(float)));
  xpu_stream s;
  BENCH_OK(xpu_stream_default(dev, &s));
  xpu_event start, stop;
  BENCH_OK(xpu_event_create(dev, &start));
  BENCH_OK(xpu_event_create(dev, &stop));

  uint32_t grid1[3] = {groups, 1, 1}, grid2[3] = {1, 1, 1}, blk[3] = {block, 1, 1};
  xpu_arg pass1[] = {xpu_arg_buffer(partials), xpu_arg_buffer(data)};
  xpu_arg pass2[] = {xpu_arg_buffer(result), xpu_arg_buffer(partials)};
  std::vector<double> ms;
  for (int it = 0; it < iterations; ++it) {
    BENCH_OK(xpu_event_record(start, s));
    BENCH_OK(xpu_launch(sum, s, grid1, blk, pass1, 2));
    BENCH_OK(xpu_launch(sum, s, grid2, blk, pass2, 2));
    BENCH_OK(xpu_event_record(stop, s));
    BENCH_OK(xpu_stream_synchronize(s));
    double t;
    BENCH_OK(xpu_event_elapsed(start, stop, &t));
    ms.push_back(t);
  }
  float got = 0;
  BENCH_OK(xpu_buffer_download(result, 0, &got, sizeof got));
  bool ok = std::fabs(got - want) <= 1e-5 * want;
  double median = bench::median(ms), bytes = double(n) * sizeof(float);
  std::printf("{\"impl\": \"xpujit-%s\", \"kernel\": \"sum\", \"n\": %zu, \"bytes\": %.0f, "
              "\"median_ms\": %.6f, \"gbps\": %.1f, \"sum\": %.9g, \"expected\": %.17g, "
              "\"groups\": %u, \"block\": %u, \"check\": \"%s\"}\n",
              xpu_backend_name(info.backend), n, bytes, median,
              bytes / (median * 1e-3) / 1e9, got, want, groups, block, ok ? "pass" : "FAIL");
  xpu_context_release(ctx);
  return ok ? 0 : 1;
}
