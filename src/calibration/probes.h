// The calibration probes: small kernels run on one device whose results
// are facts about the device and its whole toolchain. Each returns
// measurements (record.h); a fact a probe could not measure comes back with
// no value and the reason as its evidence.
#pragma once

#include "calibration/record.h"
#include "runtime/backend.h"

#include <memory>
#include <vector>

namespace xpu::cal {

class ProbeProgram;

/// Names of the measurements the capability model and code generation
/// rest on (the correctness probes).
namespace fact {
inline constexpr const char *contraction = "fp.contraction-kept";
inline constexpr const char *fmaF16 = "fma.f16.fused";
inline constexpr const char *fmaF32 = "fma.f32.fused";
inline constexpr const char *fmaF64 = "fma.f64.fused";
inline constexpr const char *subnormalF16 = "subnormal.f16.arith";
inline constexpr const char *subnormalF32 = "subnormal.f32.arith";
inline constexpr const char *subnormalF64 = "subnormal.f64.arith";
inline constexpr const char *subnormalExpF32 = "subnormal.f32.exp";
inline constexpr const char *loopPassLimit = "loop.pass-limit";
} // namespace fact

/// How the evidence of a fact a probe failed to measure begins: such a
/// record is used by the process that measured it but not stored, so that
/// a passing failure (memory, a busy device) is measured again next time.
inline constexpr const char *kProbeFailed = "probe failed: ";
inline bool probeFailed(const Measurement &m) {
  return !m.value && m.evidence.rfind(kProbeFailed, 0) == 0;
}

/// Which element types the device computes with (from its device-optional
/// facts), so probes of the others are recorded as absent, not run.
struct ProbeTypes {
  bool f16 = false, f64 = false, mathLibrary = false;
};
ProbeTypes probeTypes(rt::Device &device);

/// Contraction of a*b+c when the kernel does not permit it, fusion of
/// math.fma, and subnormal results of arithmetic (and of exp for f32),
/// for f32 and, where the device has them, f16 and f64: one module.
/// `permitContraction` builds the a*b+c kernels as fast-math instead, so
/// that tests can show the probe sees a contracting toolchain.
/// With `loopCounting`, the loop probe's counting kernel is built into the
/// same module (one compile for both) and the module is handed out for
/// measureLoopLimit.
std::vector<Measurement> measureNumerics(rt::Device &device, const ProbeTypes &types,
                                         bool permitContraction = false,
                                         std::shared_ptr<ProbeProgram> *loopCounting = nullptr);

/// How many loop passes one invocation may run: 0 when one invocation
/// counted to 2^20 unhindered, else the count it stopped at, with follow-up
/// runs saying whether the budget is per loop, shared by an invocation's
/// loops, and shared by invocations that run together.
/// `counting` holds the counting kernel (loopCountKernel) when the caller
/// built it already; the follow-up runs are built only where a budget shows.
std::vector<Measurement> measureLoopLimit(rt::Device &device, ProbeProgram *counting = nullptr);

/// The loop probe's counting kernel, @loop_count.
const std::string &loopCountKernel();

/// Copy bandwidth both ways, launch cost, event and inter-queue cost, peak
/// FLOP/s of f32 (and f64 where the device has it), and how many
/// workgroups run at once. Small sizes on CPU devices (the native backend
/// and software Vulkan), so that they cost little in CI.
std::vector<Measurement> measurePerformance(rt::Device &device, const ProbeTypes &types);

/// The names measurePerformance fills (present or absent).
const std::vector<std::string> &performanceFacts();

} // namespace xpu::cal
