// Kernel manifests (spec §17.8): per (kernel, target), what the code
// occupies (registers, spills, shared and private memory, the largest
// workgroup) from the code generator and the driver, the access mode of
// each buffer parameter and the parameters the kernel's cost depends on,
// from the IR. A fact no query gives is absent, with why.
#pragma once

#include "runtime/backend.h"

#include <memory>
#include <string>

namespace xpu::rt {
struct KernelObj;
}

namespace xpu::sched {

struct Manifest {
  std::string kernel;
  std::string target; ///< "cuda device 'NVIDIA H200' (nvptx sm_90)", "amdgcn gfx942"
  /// Every buffer parameter's access mode is known; an unclassified kernel's
  /// buffers are ordered as read-write.
  bool classified = true;
  abi::Footprint footprint;
  std::string json; ///< the whole manifest (schema "xpujit.manifest/1")
};

/// Completes `f` with what a target's code cannot say differently from
/// the device: on targets whose code sets no workgroup limit of its own
/// (host code, SPIR-V) the device's limit, and the compiler's own shared
/// allocation; the rest stays absent with why.
void completeFootprint(rt::TargetDesc::Kind target, const abi::KernelInfo &kernel,
                       const rt::DeviceIdentity *device, abi::Footprint &f);

/// The manifest of `kernel` compiled for `targetName`, from `f`.
Manifest makeManifest(const abi::KernelInfo &kernel, std::string targetName,
                      abi::Footprint f);

/// The manifest of a loaded kernel, made on first use and kept by it.
const Manifest &manifestOf(rt::KernelObj &kernel);

/// "read, write", "accumulate", "none", ... for messages.
std::string usesText(uint8_t uses);

} // namespace xpu::sched
