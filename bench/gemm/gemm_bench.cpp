// C = A·B with tiles (issue 15): square sizes, bf16, f16 or f32 operands
// with an f32 accumulator, timed with device events (median of the
// iterations after one warm-up launch), checked on sampled elements against
// a float64 reference of the same operands. Prints one JSON line per run
// with the tier the compiler chose (its [mma-tiering] note); bench/gemm/
// table.py joins them with the reference (torch.matmul, NumPy) into a table.
//
//   xpu-bench-gemm --device cuda:0 --type bf16 --sizes 1024,4096 --tile 64x64x32 --threads 256
//
// --group G runs the workgroups in grouped order (G block rows at a time;
// gemm_kernel.h). --expect-tier NAME makes a run whose note names another tier fail (exit
// 1), so a device run notices a silent demotion. --print-kernel prints the
// kernel's MLIR and exits (bench/gemm/library_probe_shaders.sh compiles it
// offline for the Vulkan probe).
#include "../bench_util.h"
#include "gemm_kernel.h"

#include <cmath>
#include <random>
#include <sstream>

namespace {

std::vector<int> parseList(const std::string &s, char sep) {
  std::vector<int> v;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    v.push_back(std::atoi(item.c_str()));
  return v;
}

/// The tier named by the module's [mma-tiering] note.
std::string tierOf(const std::string &diagnostics) {
  std::string key = "[mma-tiering] kernel 'gemm': ";
  size_t at = diagnostics.find(key);
  if (at == std::string::npos)
    return "?";
  at += key.size();
  return diagnostics.substr(at, diagnostics.find(' ', at) - at);
}

} // namespace

int main(int argc, char **argv) {
  std::string deviceSpec, type = "bf16", sizes = "1024", tile = "64x64x32", expectTier;
  int threads = 256, iterations = 10, samples = 2048, group = 0;
  bool printKernel = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    bool more = i + 1 < argc;
    if (a == "--device" && more)
      deviceSpec = argv[++i];
    else if (a == "--type" && more)
      type = argv[++i];
    else if (a == "--sizes" && more)
      sizes = argv[++i];
    else if (a == "--tile" && more)
      tile = argv[++i];
    else if (a == "--threads" && more)
      threads = std::atoi(argv[++i]);
    else if (a == "--iterations" && more)
      iterations = std::atoi(argv[++i]);
    else if (a == "--samples" && more)
      samples = std::atoi(argv[++i]);
    else if (a == "--group" && more)
      group = std::atoi(argv[++i]);
    else if (a == "--expect-tier" && more)
      expectTier = argv[++i];
    else if (a == "--print-kernel")
      printKernel = true;
    else {
      std::fprintf(stderr, "usage: xpu-bench-gemm [--device SPEC] [--type bf16|f16|f32] "
                           "[--sizes N,N,...] [--tile MxNxK] [--threads N] "
                           "[--iterations N] [--samples N] [--group G] [--expect-tier NAME] "
                           "[--print-kernel]\n");
      return 2;
    }
  }
  std::vector<int> shape = parseList(tile, 'x');
  if (shape.size() != 3 || (type != "bf16" && type != "f16" && type != "f32")) {
    std::fprintf(stderr, "bad --tile or --type\n");
    return 2;
  }
  gemm::Kernel k;
  k.ta = type;
  k.tm = shape[0];
  k.tn = shape[1];
  k.tk = shape[2];
  k.threads = threads;
  k.group = group;
  std::string text = k.text();
  if (printKernel) {
    std::fputs(text.c_str(), stdout);
    return 0;
  }

  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, deviceSpec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  xpu_module mod;
  xpu_diagnostics diags = nullptr;
  if (xpu_module_create(ctx, dev, text.data(), text.size(), nullptr, &mod, &diags) !=
      XPU_SUCCESS) {
    std::fprintf(stderr, "%s\n%s\n", xpu_last_error_message(), xpu_diagnostics_text(diags));
    return 1;
  }
  std::string tier = tierOf(xpu_diagnostics_text(diags));
  if (!expectTier.empty() && tier != expectTier) {
    std::fprintf(stderr, "expected the %s tier, the note says:\n%s\n", expectTier.c_str(),
                 xpu_diagnostics_text(diags));
    return 1;
  }
  xpu_diagnostics_release(diags);
  xpu_kernel kernel;
  BENCH_OK(xpu_module_kernel(mod, "gemm", &kernel));
  // What the tier's code takes: its stages show in the shared memory.
  xpu_kernel_manifest manifest = {sizeof manifest};
  BENCH_OK(xpu_kernel_manifest_get(kernel, &manifest));

  bool allOk = true;
  std::mt19937_64 rng(std::random_device{}());
  for (int n : parseList(sizes, ',')) {
    if (n % k.tm || n % k.tn || n % k.tk) {
      std::fprintf(stderr, "size %d is not a multiple of the tile %s\n", n, tile.c_str());
      return 2;
    }
    size_t elems = size_t(n) * n, bytes = type == "f32" ? 4 : 2;
    std::uniform_real_distribution<float> d(-1, 1);
    std::vector<uint8_t> a(elems * bytes), b(elems * bytes);
    auto fill = [&](std::vector<uint8_t> &v) {
      for (size_t i = 0; i < elems; ++i) {
        float f = d(rng);
        if (type == "f32")
          std::memcpy(&v[i * 4], &f, 4);
        else {
          uint16_t h = type == "bf16" ? gemm::toBf16(f) : gemm::toHalf(f);
          std::memcpy(&v[i * 2], &h, 2);
        }
      }
    };
    auto value = [&](const std::vector<uint8_t> &v, size_t i) -> double {
      if (type == "f32") {
        float f;
        std::memcpy(&f, &v[i * 4], 4);
        return f;
      }
      uint16_t h;
      std::memcpy(&h, &v[i * 2], 2);
      return type == "bf16" ? gemm::fromBf16(h) : gemm::fromHalf(h);
    };
    fill(a);
    fill(b);
    xpu_buffer ba, bb, bc;
    BENCH_OK(xpu_buffer_create(dev, a.size(), &ba));
    BENCH_OK(xpu_buffer_create(dev, b.size(), &bb));
    BENCH_OK(xpu_buffer_create(dev, elems * 4, &bc));
    BENCH_OK(xpu_buffer_upload(ba, 0, a.data(), a.size()));
    BENCH_OK(xpu_buffer_upload(bb, 0, b.data(), b.size()));
    std::vector<float> c(elems, std::nanf(""));
    BENCH_OK(xpu_buffer_upload(bc, 0, c.data(), elems * 4)); // poison
    xpu_stream s;
    BENCH_OK(xpu_stream_default(dev, &s));
    xpu_event start, stop;
    BENCH_OK(xpu_event_create(dev, &start));
    BENCH_OK(xpu_event_create(dev, &stop));
    uint32_t grid[3] = {uint32_t(n / k.tn), uint32_t(n / k.tm), 1};
    uint32_t block[3] = {uint32_t(threads), 1, 1};
    xpu_arg args[] = {xpu_arg_buffer(ba), xpu_arg_buffer(bb), xpu_arg_buffer(bc),
                      xpu_arg_i32(n), xpu_arg_i32(n), xpu_arg_i32(n)};
    std::vector<double> ms;
    for (int it = 0; it <= iterations; ++it) {
      BENCH_OK(xpu_event_record(start, s));
      BENCH_OK(xpu_launch(kernel, s, grid, block, args, 6));
      BENCH_OK(xpu_event_record(stop, s));
      BENCH_OK(xpu_stream_synchronize(s));
      double t;
      BENCH_OK(xpu_event_elapsed(start, stop, &t));
      if (it > 0) // the first launch warms up
        ms.push_back(t);
    }
    BENCH_OK(xpu_buffer_download(bc, 0, c.data(), elems * 4));
    // Sampled elements against float64: K roundings of half an f32 ulp.
    std::uniform_int_distribution<int> pick(0, n - 1);
    int bad = 0;
    for (int t = 0; t < samples; ++t) {
      int i = pick(rng), j = pick(rng);
      double ref = 0, mag = 0;
      for (int kk = 0; kk < n; ++kk) {
        double p = value(a, size_t(i) * n + kk) * value(b, size_t(kk) * n + j);
        ref += p;
        mag += std::fabs(p);
      }
      double got = c[size_t(i) * n + j];
      if (!(std::fabs(got - ref) <= n * std::ldexp(1.0, -23) * mag + 1e-30))
        ++bad;
    }
    double median = bench::median(ms);
    double tflops = 2.0 * n * n * double(n) / (median * 1e-3) / 1e12;
    std::printf("{\"impl\": \"xpujit-%s\", \"device\": \"%s\", \"type\": \"%s\", \"n\": %d, "
                "\"tile\": \"%s\", \"threads\": %d, \"group\": %d, \"tier\": \"%s\", \"median_ms\": %.4f, "
                "\"tflops\": %.4f, \"shared_bytes\": %lld, \"registers\": %lld, "
                "\"samples\": %d, \"bad\": %d, \"check\": \"%s\"}\n",
                xpu_backend_name(info.backend), info.name, type.c_str(), n, tile.c_str(),
                threads, group, tier.c_str(), median, tflops,
                manifest.shared_bytes.known ? (long long)manifest.shared_bytes.value : -1LL,
                manifest.registers.known ? (long long)manifest.registers.value : -1LL, samples,
                bad, bad ? "FAIL" : "pass");
    std::fflush(stdout);
    allOk &= bad == 0;
    xpu_event_release(start);
    xpu_event_release(stop);
    BENCH_OK(xpu_buffer_free(ba));
    BENCH_OK(xpu_buffer_free(bb));
    BENCH_OK(xpu_buffer_free(bc));
  }
  xpu_context_release(ctx);
  return allOk ? 0 : 1;
}
