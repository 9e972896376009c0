// Per-target facts: what each target language can express (a static
// table), which capabilities its devices decide (answered by probes), the
// host toolchain's part, and our measured facts and policies.
#pragma once

#include "capability/capability.h"
#include "runtime/backend.h"

namespace xpu::cap {

using TargetKind = rt::TargetDesc::Kind;

/// "cpu", "nvptx", "amdgcn", "spirv"; parseTargetKind accepts the same.
const char *targetName(TargetKind t);
std::optional<TargetKind> parseTargetKind(const std::string &name);

/// How a target decides one capability.
struct Rule {
  enum class By { table, device, hostToolchain } by = By::table;
  Verdict verdict = Available{}; ///< when decided by the table
  std::string evidence;          ///< the table entry, or what must be probed
};
Rule targetRule(TargetKind target, Capability c);

/// Where the AMD device libraries (ocml.bc, ockl.bc) are, found once per
/// process: only under $ROCM_PATH when it is set, else in the Debian/Ubuntu
/// package's directory (/usr/lib/<multiarch>/amdgcn/bitcode) or ROCm's.
struct AmdDeviceLibraries {
  std::string dir;                   ///< empty when none was found
  std::vector<std::string> searched; ///< every ocml.bc path looked for
};
const AmdDeviceLibraries &amdDeviceLibraries();

/// The CUDA toolkit directory: CUDA_PATH, else /usr/local/cuda.
std::string cudaToolkitRoot();
/// libdevice, the NVIDIA math library the CUDA backend links, in the toolkit.
std::string libdevicePath();

/// Host-toolchain facts (probed once per process): e.g. libdevice for NVPTX
/// math functions. Returns nothing for capabilities no probe answers.
std::optional<Fact> hostToolchainFact(TargetKind target, Capability c);

/// The complete table for one device: the target's rules, with device
/// probes (`deviceFacts`, each carrying its query) and host-toolchain probes
/// filling what the target leaves open, and policies applied last. A
/// capability the device must decide but did not report is unknown.
FactTable resolveFacts(const rt::TargetDesc &target,
                       const std::vector<Fact> &deviceFacts);

/// The measurements and policies in force (for display and tests).
const std::vector<Measurement> &measurements();
const std::vector<std::pair<TargetKind, Policy>> &policies();

} // namespace xpu::cap
