// Kernels and helpers of the scheduler's conformance tests (manifests,
// submissions, ordering across streams, graphs, automatic capture).
#pragma once

#include "harness.h"
#include "kernels.h"

#include "../../bench/budget/slow_copy.h"

#include <chrono>
#include <cstdlib>
#include <string>

namespace conf::sched {

/// saxpy (kernels.h; its manifest: y read and write, x read, n a cost
/// parameter) and y = s*y.
inline const std::string kSaxpyScale = std::string(kSaxpy) + R"(
xpu.kernel @scale(%y: !xpu.buffer<f32>, %s: f32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %yi = xpu.load %y[%i] : !xpu.buffer<f32>
    %r = arith.mulf %s, %yi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
)";

/// Kernels whose manifests tell the access modes and cost parameters apart.
inline const char *kUses = R"(
xpu.kernel @histogram(%h: !xpu.buffer<i32>, %v: !xpu.buffer<i32, ro>, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %x = xpu.load %v[%i] : !xpu.buffer<i32, ro>
    %c15 = arith.constant 15 : i32
    %b = arith.andi %x, %c15 : i32
    %b_idx = arith.index_castui %b : i32 to index
    %one = arith.constant 1 : i32
    %old = xpu.atomic_rmw add %one, %h[%b_idx] relaxed device : !xpu.buffer<i32>
  }
  xpu.return
}
xpu.kernel @row_sums(%out: !xpu.buffer<i32>, %m: !xpu.buffer<i32, ro>, %unused: !xpu.buffer<i32>) {
  %i = xpu.global_id x
  %len = xpu.buffer_size %m : !xpu.buffer<i32, ro>
  %zero = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %j = %c0 to %len step %c1 iter_args(%acc = %zero) -> (i32) {
    %v = xpu.load %m[%j] : !xpu.buffer<i32, ro>
    %a = arith.addi %acc, %v : i32
    scf.yield %a : i32
  }
  %ulen = xpu.buffer_size %unused : !xpu.buffer<i32>
  xpu.store %s, %out[%i] : !xpu.buffer<i32>
  xpu.return
}
xpu.kernel @data_loop(%out: !xpu.buffer<i32>, %count: !xpu.buffer<i32, ro>) {
  %i = xpu.global_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = xpu.load %count[%c0] : !xpu.buffer<i32, ro>
  %k_idx = arith.index_castui %k : i32 to index
  %zero = arith.constant 0 : i32
  %s = scf.for %j = %c0 to %k_idx step %c1 iter_args(%acc = %zero) -> (i32) {
    %one = arith.constant 1 : i32
    %a = arith.addi %acc, %one : i32
    scf.yield %a : i32
  }
  xpu.store %s, %out[%i] : !xpu.buffer<i32>
  xpu.return
}
)";

/// `slow_copy` (bench/budget/slow_copy.h) and two fast kernels: `fill`
/// writes `v` everywhere; `add_one` is out = in + 1.
inline const std::string kHazards = std::string(bench::kSlowCopy) + R"(
xpu.kernel @fill(%out: !xpu.buffer<i32>, %v: i32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_idx : index
  scf.if %in_range {
    xpu.store %v, %out[%i] : !xpu.buffer<i32>
  }
  xpu.return
}
xpu.kernel @add_one(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_idx : index
  scf.if %in_range {
    %v = xpu.load %in[%i] : !xpu.buffer<i32, ro>
    %c1 = arith.constant 1 : i32
    %r = arith.addi %v, %c1 : i32
    xpu.store %r, %out[%i] : !xpu.buffer<i32>
  }
  xpu.return
}
)";

/// Whether the suite runs through the scheduler's raw path.
inline bool bypassed() {
  const char *v = std::getenv("XPU_SCHEDULER");
  return v && std::string(v) == "bypass";
}

inline double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
      .count();
}

/// A launch shape covering `n` invocations in workgroups of 64.
struct Shape {
  uint32_t grid[3], block[3] = {64, 1, 1};
  explicit Shape(uint32_t n) : grid{(n + 63) / 64, 1, 1} {}
};

/// A `slow_copy` that runs long enough (at least `ms` on this device) for
/// another stream to overtake it if nothing orders them. Lavapipe runs at
/// most 65,535 loop passes per invocation group: the loop stays below, and
/// the grid grows instead.
struct SlowWork {
  Module module{kHazards};
  xpu_kernel slow = module.kernel("slow_copy");
  xpu_kernel fill = module.kernel("fill");
  xpu_kernel addOne = module.kernel("add_one");
  uint32_t n = 1 << 14, iters = 1024;

  explicit SlowWork(double ms = 40) {
    const uint32_t maxIters = target().backend == XPU_BACKEND_VULKAN ? 30000 : 1u << 26;
    for (;;) {
      Buffer a(size_t(n) * 4), b(size_t(n) * 4);
      auto t0 = std::chrono::steady_clock::now();
      launch(defaultStream(), b.handle, a.handle);
      XPU_OK(xpu_stream_synchronize(defaultStream()));
      double took = msSince(t0);
      if (took >= ms || (n >= (1u << 22) && iters >= maxIters))
        break;
      if (iters < maxIters)
        iters = std::min<uint64_t>(maxIters, uint64_t(iters) * 4);
      else
        n *= 4;
    }
    MESSAGE("slow_copy: " << n << " invocations of " << iters << " passes");
  }
  void launch(xpu_stream s, xpu_buffer out, xpu_buffer in) {
    Shape shape(n);
    xpu_arg args[5] = {xpu_arg_buffer(out), xpu_arg_buffer(in), xpu_arg_i32(int32_t(iters)),
                       xpu_arg_i32(0), xpu_arg_i32(int32_t(n))};
    XPU_OK(xpu_launch(slow, s, shape.grid, shape.block, args, 5));
  }
};

} // namespace conf::sched
