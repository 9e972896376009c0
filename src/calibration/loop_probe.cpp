// The loop-iteration limit probe (see probes.h). Mesa's llvmpipe, under
// lavapipe, gives each group of invocations it runs together (one SIMD
// vector) a budget of loop passes: gallivm's LP_MAX_TGSI_LOOP_ITERATIONS
// (65535), decremented at the end of every pass of every loop, including
// the pass that leaves the loop and one pass of each loop in a branch no
// invocation took; when it reaches zero every loop exits after its current
// pass. Nothing reports it. This probe measures the budget; kernels built
// for such a device check for it (mlir/lib/Transforms/GuardLoopLimit.cpp).
#include "calibration/probe_kernel.h"
#include "calibration/probes.h"

namespace xpu::cal {

namespace {

/// Where a budget shows: @two counts the passes of two loops of %n;
/// @apart: invocation 0 loops %n times in a first loop, the others %n
/// times in a second one.
const char *kFollowUps = R"(
xpu.kernel @two(%out: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %g = xpu.global_id x
  %size = xpu.buffer_size %out : !xpu.buffer<i32>
  %in = arith.cmpi ult, %g, %size : index
  %a = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  %b = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %a) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  scf.if %in {
    xpu.store %b, %out[%g] : !xpu.buffer<i32>
  }
  xpu.return
}
xpu.kernel @apart(%out: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %g = xpu.global_id x
  %size = xpu.buffer_size %out : !xpu.buffer<i32>
  %in = arith.cmpi ult, %g, %size : index
  %first = arith.cmpi eq, %g, %c0 : index
  %na = arith.select %first, %N, %c0 : index
  %nb = arith.select %first, %c0, %N : index
  %a = scf.for %i = %c0 to %na step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  %b = scf.for %i = %c0 to %nb step %c1 iter_args(%acc = %a) -> (i32) {
    %x = arith.addi %acc, %one : i32
    scf.yield %x : i32
  }
  scf.if %in {
    xpu.store %b, %out[%g] : !xpu.buffer<i32>
  }
  xpu.return
}
)";

constexpr int32_t kTry = 1 << 20;

} // namespace

/// out[g] = passes of one loop of %n iterations; the loop also steps a
/// linear congruential generator into lcg[g], which no compiler can fold
/// into a closed form, so the loop really runs.
const std::string &loopCountKernel() {
  static const std::string text = R"(
xpu.kernel @loop_count(%out: !xpu.buffer<i32>, %lcg: !xpu.buffer<i32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %mul = arith.constant 1103515245 : i32
  %add = arith.constant 12345 : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %N = arith.index_castui %n : i32 to index
  %g = xpu.global_id x
  %size = xpu.buffer_size %out : !xpu.buffer<i32>
  %lsize = xpu.buffer_size %lcg : !xpu.buffer<i32>
  %in1 = arith.cmpi ult, %g, %size : index
  %in2 = arith.cmpi ult, %g, %lsize : index
  %in = arith.andi %in1, %in2 : i1
  %r:2 = scf.for %i = %c0 to %N step %c1 iter_args(%acc = %zero, %x = %zero) -> (i32, i32) {
    %a = arith.addi %acc, %one : i32
    %m = arith.muli %x, %mul : i32
    %y = arith.addi %m, %add : i32
    scf.yield %a, %y : i32, i32
  }
  scf.if %in {
    xpu.store %r#0, %out[%g] : !xpu.buffer<i32>
    xpu.store %r#1, %lcg[%g] : !xpu.buffer<i32>
  }
  xpu.return
}
)";
  return text;
}

std::vector<Measurement> measureLoopLimit(rt::Device &device, ProbeProgram *counting) {
  const char *unit = "passes";
  std::string where = " on " + device.label();
  ProbeProgram own, program;
  std::unique_ptr<rt::Queue> queue;
  auto absent = [&](const std::string &why) {
    std::string e = kProbeFailed + std::string("the loop probe did not run") + where;
    return std::vector<Measurement>{
        {fact::loopPassLimit, std::nullopt, unit, e + ": " + why, now()}};
  };
  if (!counting) {
    if (rt::Status st = own.build(device, loopCountKernel(), "<loop probe>"); !st.isOk())
      return absent(st.message());
    counting = &own;
  }
  if (rt::Status st = device.createQueue(queue); !st.isOk())
    return absent(st.message());
  // Runs `kernel` over `invocations` with %n = n; the counts come back.
  auto counts = [&](const char *kernel, uint32_t invocations, int32_t n,
                    std::vector<int32_t> &out) -> rt::Status {
    out.assign(invocations, -1);
    ProbeBuffer b;
    XPU_RETURN_IF_ERROR(makeBuffer(device, out, b));
    XPU_RETURN_IF_ERROR(program.run(*queue, kernel, 1, invocations,
                                    {ProbeArg::of(b), ProbeArg::value(n)}));
    return readBuffer(device, b, out);
  };
  std::vector<int32_t> one(1, -1), lcg(1, -1), two, apart;
  {
    ProbeBuffer b, l;
    rt::Status st = makeBuffer(device, one, b);
    if (st.isOk())
      st = makeBuffer(device, lcg, l);
    if (st.isOk())
      st = counting->run(*queue, "loop_count", 1, 1,
                         {ProbeArg::of(b), ProbeArg::of(l), ProbeArg::value(kTry)});
    if (st.isOk())
      st = readBuffer(device, b, one);
    if (st.isOk())
      st = readBuffer(device, l, lcg);
    if (!st.isOk())
      return absent(st.message());
  }
  uint32_t want = 0;
  for (int32_t i = 0; i < kTry; ++i)
    want = want * 1103515245u + 12345u;
  if (one[0] == kTry && uint32_t(lcg[0]) != want)
    return absent("the probe loop ran " + std::to_string(kTry) +
                  " times but computed a different value");
  if (one[0] == kTry)
    return {{fact::loopPassLimit, 0.0, unit,
             "no limit" + where + ": one invocation counted to " + std::to_string(kTry) +
                 " in one loop (0 = no limit up to that count)",
             now()}};
  int32_t limit = one[0];
  if (rt::Status st = program.build(device, kFollowUps, "<loop probe follow-ups>"); !st.isOk())
    return absent(st.message());
  std::string evidence = "one invocation counting to " + std::to_string(kTry) + where +
                         " stopped at " + std::to_string(limit) + ", silently";
  // How the budget is shared: two loops of m, and two invocations of one
  // group looping m times in different loops. m + 1 passes (the last one
  // leaves the loop) fit in the budget once, not twice.
  int32_t m = limit / 2 + limit / 8;
  if (counts("two", 1, m, two).isOk())
    evidence += "; two loops of " + std::to_string(m) + " iterations counted " +
                std::to_string(two[0]) + " in total (" +
                (two[0] == 2 * m                ? "a budget per loop"
                 : two[0] == limit - 1          ? "one budget for the invocation's loops, "
                                                  "each costing its iterations + 1"
                                                : "a shared budget") +
                ")";
  if (counts("apart", 2, m, apart).isOk())
    evidence += "; two invocations of one workgroup looping " + std::to_string(m) +
                " times in different loops counted " + std::to_string(apart[0]) + " and " +
                std::to_string(apart[1]) +
                (apart[1] < m ? " (invocations run together share the budget)"
                              : " (each invocation has its own budget)");
  return {{fact::loopPassLimit, double(limit), unit, evidence, now()}};
}

} // namespace xpu::cal
