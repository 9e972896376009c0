// A compute-unit budget (issue 17, spec §17.8) on one device: a long,
// compute-bound kernel over enough invocations to fill every compute unit,
// submitted without a budget and with a budget of `--units` (CUDA: a green
// context), timed on the host (median of `--iterations` submissions, each
// to its stream's synchronization). Prints markdown (--out) with both times
// and their ratio, which is measured, never asserted: a budget of 16 of
// 132 SMs should run about 132/16 times longer. Also shows what budgets of
// `--units` + 1 and of all but one unit reserve (the driver's rounding).
// Exits 1 when the budget of `--units` is not reserved, the reserved count
// is below the request, or any element of any result is wrong (each run
// copies fresh random values, every element is checked); 2 when the
// device is missing.
//
//   xpu-bench-budget [--device cuda:0] [--units 16] [--iterations 5] [--out FILE]
#include "../bench_util.h"
#include "slow_copy.h"

#include <chrono>
#include <cstring>
#include <random>

namespace {

using Clock = std::chrono::steady_clock;

struct Run {
  double ms = 0;
  uint32_t flags = 0, units = 0;
  std::string note;
  size_t wrong = 0;
};

} // namespace

int main(int argc, char **argv) {
  std::string spec = "cuda:0", out;
  uint32_t units = 16;
  int iterations = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--device")
      spec = argv[i + 1];
    else if (a == "--units")
      units = uint32_t(std::atoi(argv[i + 1]));
    else if (a == "--iterations")
      iterations = std::atoi(argv[i + 1]);
    else if (a == "--out")
      out = argv[i + 1];
    else {
      std::fprintf(stderr, "xpu-bench-budget: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  xpu_context ctx;
  BENCH_OK(xpu_context_create(nullptr, &ctx));
  xpu_device dev = bench::findDevice(ctx, spec);
  xpu_device_info info = {sizeof info};
  BENCH_OK(xpu_device_info_get(dev, &info));
  xpu_module mod;
  BENCH_OK(xpu_module_create(ctx, dev, bench::kSlowCopy, std::strlen(bench::kSlowCopy), nullptr, &mod, nullptr));
  xpu_kernel busy;
  BENCH_OK(xpu_module_kernel(mod, "slow_copy", &busy));
  xpu_stream stream;
  BENCH_OK(xpu_stream_create(dev, &stream));

  // Enough invocations for every compute unit many times over.
  const uint32_t n = std::max<uint32_t>(info.compute_units, 1) * 2048 * 4;
  std::vector<int32_t> input(n), result(n);
  std::mt19937 rng(std::random_device{}());
  xpu_buffer in, dst;
  BENCH_OK(xpu_buffer_create(dev, size_t(n) * 4, &in));
  BENCH_OK(xpu_buffer_create(dev, size_t(n) * 4, &dst));
  uint32_t iters = 1024;
  auto submit = [&](uint32_t budget) {
    for (int32_t &v : input)
      v = int32_t(rng() >> 1);
    BENCH_OK(xpu_buffer_upload(in, 0, input.data(), size_t(n) * 4));
    xpu_arg args[5] = {xpu_arg_buffer(dst), xpu_arg_buffer(in), xpu_arg_i32(int32_t(iters)),
                       xpu_arg_i32(0), xpu_arg_i32(int32_t(n))};
    uint32_t grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
    xpu_submission sub = XPU_SUBMISSION_INIT;
    sub.stream = stream;
    sub.compute_units = budget;
    xpu_submission_result res = {sizeof res};
    Run r;
    auto t0 = Clock::now();
    BENCH_OK(xpu_submit(busy, &sub, grid, block, args, 5, &res));
    BENCH_OK(xpu_stream_synchronize(stream));
    r.ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    r.flags = res.flags;
    r.units = res.compute_units;
    r.note = res.note ? res.note : "";
    BENCH_OK(xpu_buffer_download(dst, 0, result.data(), size_t(n) * 4));
    for (uint32_t i = 0; i < n; ++i)
      r.wrong += result[i] != input[i] + 1;
    return r;
  };
  // Unbudgeted, at least 20 ms.
  while (submit(0).ms < 20 && iters < (1u << 24))
    iters *= 4;

  size_t wrong = 0;
  auto timed = [&](uint32_t budget, Run &last) {
    std::vector<double> ms;
    for (int i = 0; i < iterations; ++i) {
      last = submit(budget);
      wrong += last.wrong;
      ms.push_back(last.ms);
    }
    return bench::median(ms);
  };
  Run whole, part;
  double wholeMs = timed(0, whole), partMs = timed(units, part);
  Run above = submit(units + 1), nearlyAll = submit(info.compute_units - 1);
  wrong += above.wrong + nearlyAll.wrong;

  bool reserved = (part.flags & XPU_SUBMIT_BUDGET_RESERVED) &&
                  !(part.flags & XPU_SUBMIT_BUDGET_NOT_HONOURED);
  auto describe = [](const Run &r) {
    if (r.flags & XPU_SUBMIT_BUDGET_RESERVED)
      return std::to_string(r.units) + " reserved";
    if (r.flags & XPU_SUBMIT_BUDGET_NOT_HONOURED)
      return "not honoured: " + r.note;
    return std::string("no budget (not below the device's count)");
  };
  std::string md = bench::header("Compute-unit budgets", dev, argc, argv);
  char buf[4096];
  std::snprintf(buf, sizeof buf,
                "slow_copy over %u invocations, %u dependent multiply-adds each; median of "
                "%d submissions, each to its stream's synchronization.\n\n"
                "| budget | compute units | ms | vs unbudgeted |\n|---|---|---:|---:|\n"
                "| none | %u (the device) | %.3f | 1.00x |\n"
                "| %u | %s | %.3f | %.2fx |\n\n"
                "Device: %u compute units; the ideal ratio for %u is %.2fx.\n\n"
                "- a budget of %u: %s\n- a budget of %u: %s\n\n"
                "Elements wrong over all runs: %zu.\n",
                n, iters, iterations, info.compute_units, wholeMs, units,
                describe(part).c_str(), partMs, partMs / wholeMs, info.compute_units,
                part.units, part.units ? double(info.compute_units) / part.units : 0.0,
                units + 1, describe(above).c_str(), info.compute_units - 1,
                describe(nearlyAll).c_str(), wrong);
  md += buf;
  std::fputs(md.c_str(), stdout);
  if (!out.empty()) {
    std::ofstream file(out);
    file << md;
  }
  int status = 0;
  if (!reserved) {
    std::fprintf(stderr, "xpu-bench-budget: the budget of %u was not reserved: %s\n", units,
                 part.note.c_str());
    status = 1;
  } else if (part.units < units || part.units >= info.compute_units) {
    std::fprintf(stderr, "xpu-bench-budget: a budget of %u reserved %u of %u\n", units,
                 part.units, info.compute_units);
    status = 1;
  }
  if ((above.flags & XPU_SUBMIT_BUDGET_RESERVED) && above.units < units + 1) {
    std::fprintf(stderr, "xpu-bench-budget: a budget of %u reserved only %u\n", units + 1,
                 above.units);
    status = 1;
  }
  if (wrong) {
    std::fprintf(stderr, "xpu-bench-budget: %zu elements wrong\n", wrong);
    status = 1;
  }
  xpu_buffer_free(in);
  xpu_buffer_free(dst);
  xpu_stream_release(stream);
  xpu_module_release(mod);
  xpu_context_release(ctx);
  return status;
}
