// The path of a kernel from text to a loaded module: parse and verify,
// admit, describe, look up the cache, lower and generate code for a
// device, store, load. Each stage is a function in mlir/, cache/ or a
// backend; this file only strings them together.
#pragma once

#include "cache/memory_cache.h"
#include "runtime/backend.h"
#include "xpu/Diagnostic.h"

#include <memory>
#include <mutex>
#include <string_view>

namespace xpu::rt {

struct CompileRequest {
  std::string_view text;
  std::string sourceName = "<input>";
  /// The caller named the device (deterministic kernels require it).
  bool explicitDevice = true;
  /// The device the module is created for, as a kernel's `device`
  /// attribute names it ("vulkan:0"); empty when there is none (checks).
  std::string device;
  /// For checks without a device: report the static capability verdicts
  /// for this target ("cpu", "nvptx", "amdgcn", "spirv").
  std::string target;
  /// Insert run-time bounds checks where nothing proves an access (portable).
  bool runtimeChecks = true;
  /// Compile without the capability gates (for probes that measure them).
  bool skipGates = false;
  /// Compile options as text; part of cache keys.
  std::string options;
};

/// A module compiled and loaded on one device. Immutable, so every
/// xpu_module made from the same source on the device shares it.
struct Program {
  Blob blob;
  /// From the front end for this very source: parameter names and the
  /// source locations that run-time check failures report.
  std::vector<std::shared_ptr<const abi::KernelInfo>> kernels;
  std::unique_ptr<LoadedModule> code;
  /// What the front end said about the source (warnings), replayed on hits.
  DiagnosticList diagnostics;
};

/// A device's part of the kernel cache: its key environment and its loaded
/// programs by source key (the in-process hit: no MLIR, no loading).
class DeviceCache {
public:
  const cache::Key &environment(Device &device);
  cache::MemoryCache<Program> programs{256};

private:
  std::once_flag once_;
  cache::Key environment_;
};

/// Compiles `request` for `device` and loads it, or takes it from the
/// cache. Diagnostics go to `diags` whatever the outcome; the returned
/// status summarizes the first error.
Status buildProgram(Device &device, DeviceCache &cache,
                    const CompileRequest &request,
                    std::shared_ptr<const Program> &out, DiagnosticList &diags);

/// The same without the cache: every stage runs (XPU_CACHE=off,
/// XPU_DUMP_DIR, and probes).
Status compileProgram(Device &device, const CompileRequest &request,
                      std::shared_ptr<const Program> &out, DiagnosticList &diags);

/// Everything before code generation: parse, verify, admit.
Status checkModule(const CompileRequest &request, DiagnosticList &diags);

/// Compiles for a target without a device: the front end, the offline
/// capability gate (cap::offlineGate), then the target's code generator.
/// `kernels` receives the kernels described, in the blob's order.
Status compileForTarget(const CompileRequest &request, const TargetDesc &target,
                        Blob &out, std::vector<abi::KernelInfo> &kernels,
                        DiagnosticList &diags);

/// The front end again, for module reports (src/observe): the kernels it
/// describes, what each needs, and the canonical IR that content keys hash.
Status describeModule(const CompileRequest &request,
                      std::vector<abi::KernelInfo> &kernels,
                      std::vector<KernelRequirements> &needs, std::string &canonical,
                      DiagnosticList &diags);

/// Parse and verify only, then print in the library's form
/// (xpu::printKernelSource): the normal form of xpu_module_format.
Status formatModule(const CompileRequest &request, std::string &out,
                    DiagnosticList &diags);

/// "file:line:col: error: CODE: message"
std::string formatDiagnostic(const Diagnostic &d);

} // namespace xpu::rt
