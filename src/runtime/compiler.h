// The path of a kernel from text to a loadable blob: parse and verify,
// admit, describe, lower and generate code for a device. Each stage is a
// function in mlir/ or a backend; this file only strings them together.
#pragma once

#include "runtime/backend.h"
#include "xpu/Diagnostic.h"

#include <string_view>

namespace xpu::rt {

struct CompileRequest {
  std::string_view text;
  std::string sourceName = "<input>";
  /// The caller named the device (deterministic kernels require it).
  bool explicitDevice = true;
  /// For checks without a device: report the static capability verdicts
  /// for this target ("cpu", "nvptx", "amdgcn", "spirv").
  std::string target;
  /// Insert run-time bounds checks where nothing proves an access (portable).
  bool runtimeChecks = true;
  /// Compile without the capability gates (for probes that measure them).
  bool skipGates = false;
};

struct CompiledModule {
  Blob blob;
  std::vector<abi::KernelInfo> kernels;
};

/// Compiles `request` for `device`. Diagnostics go to `diags` whatever the
/// outcome; the returned status summarizes the first error.
Status compileModule(Device &device, const CompileRequest &request,
                     CompiledModule &out, DiagnosticList &diags);

/// Everything before code generation: parse, verify, admit.
Status checkModule(const CompileRequest &request, DiagnosticList &diags);

/// "file:line:col: error: CODE: message"
std::string formatDiagnostic(const Diagnostic &d);

} // namespace xpu::rt
