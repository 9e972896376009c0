// One device's calibration: its key, and its record, loaded from a snapshot
// or the store, or measured once by the probes and stored. The correctness
// facts (what the capability model and code generation rest on) are read
// at the first compile; the performance facts only when asked for
// (`xpujit calibrate`, `xpujit devices --calibration`, the C API), so a
// compile never pays for them.
#pragma once

#include "calibration/record.h"
#include "capability/capability.h"
#include "runtime/backend.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>

namespace xpu::cal {

class DeviceCalibration {
public:
  explicit DeviceCalibration(rt::Device &device) : device_(device) {}

  /// subject "device", the device's identity and UUID, its driver, the
  /// compiler (library build, pipeline, LLVM, target, device toolchain);
  /// no power mode (no backend has a query for it).
  const Key &key();

  /// The record with at least the correctness facts. While this thread is
  /// running probes (which compile kernels for the device) it is an empty
  /// record: probe kernels are built as if no fact were known.
  std::shared_ptr<const Record> correctness();
  /// The record with the performance facts too.
  std::shared_ptr<const Record> complete();
  /// Measures everything again and stores it (`xpujit calibrate`).
  std::shared_ptr<const Record> recalibrate();
  /// The record as measured or loaded so far (at least the correctness
  /// facts). Every record handed out lives as long as the device, so
  /// strings taken from one stay valid (the C API relies on it).
  std::shared_ptr<const Record> latest();
  /// key().text(), kept.
  const std::string &keyText();

  /// The loop-pass budget of an invocation, when the device has one.
  std::optional<uint64_t> loopPassLimit();
  /// Whether math.fma of `type` ("f16", "f32", "f64") was measured and
  /// found not fused (false when fused, or not measured).
  bool fmaUnfused(const char *type);
  /// Whether f32 exp was measured to flush subnormal results to zero while
  /// the device's arithmetic keeps them (so that a square can keep them).
  bool expFlushesSubnormals();
  /// What the correctness facts change in generated code, for kernel cache
  /// keys ("" when nothing).
  std::string codegenKey();

  /// The launch error for a loop the device stopped (a check site that
  /// GuardLoopLimit reported): names the kernel, the loop and the limit.
  rt::Status loopStopped(const abi::KernelInfo &kernel, const abi::CheckSite &site);

  /// Capability facts the measurements decide (contraction, fma).
  std::vector<cap::Fact> capabilityFacts(const cap::FactTable &deviceFacts);

private:
  enum class Need { correctness, complete, fresh };
  std::shared_ptr<const Record> ensure(Need need);

  rt::Device &device_;
  std::once_flag keyOnce_;
  Key key_;
  std::mutex measureMu_; ///< held while measuring or loading
  std::atomic<std::thread::id> measuring_{};
  std::mutex recordMu_;
  std::shared_ptr<const Record> record_; ///< null until first loaded
  std::vector<std::shared_ptr<const Record>> replaced_;
  std::string keyText_;
};

/// The capability facts `record` decides for a device of `target` whose
/// other facts are `deviceFacts`: contraction control, and fma per type
/// (on SPIR-V an unfused f32 fma is computed in software where the device
/// has f64 arithmetic).
std::vector<cap::Fact> capabilityFactsFrom(const Record &record, rt::TargetDesc::Kind target,
                                           const cap::FactTable &deviceFacts);

} // namespace xpu::cal
