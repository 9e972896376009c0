// Kernel manifests (spec §17.8): per (kernel, target), what the code
// occupies (registers, spills, shared and private memory, the largest
// workgroup) from the code generator and the driver, the access mode of
// each buffer parameter and the parameters the kernel's cost depends on,
// from the IR. A fact no query gives is absent, with why.
#pragma once

#include "runtime/backend.h"

#include <memory>
#include <string>
#include <vector>

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

/// What a kernel does with each launch argument (xpu_kernel_param's order):
/// a buffer's uses, and the cost bits of the argument and of the parameters
/// lowering derived from it (a struct's fields, a view's layout: its length).
struct ArgumentFacts {
  const abi::Param *param; ///< the argument's (first) parameter
  std::string name;
  const char *kind; ///< "buffer", "view", "scalar", "struct"
  uint8_t uses = 0, cost = 0;
};
std::vector<ArgumentFacts> argumentFacts(const abi::KernelInfo &kernel);

/// Completes `f` with what a target's code cannot say differently from
/// the device: on targets whose code sets no workgroup limit of its own
/// (host code, SPIR-V) the device's limit, and the compiler's own shared
/// allocation; the rest stays absent with why.
void completeFootprint(rt::TargetDesc::Kind target, const abi::KernelInfo &kernel,
                       const rt::DeviceIdentity *device, abi::Footprint &f);

/// The manifest of `kernel` compiled for `targetName`, from `f`.
Manifest makeManifest(const abi::KernelInfo &kernel, std::string targetName,
                      abi::Footprint f);

/// The manifests of `kernels` compiled offline for `target` (`blob` holds
/// what the code generator said): a JSON array, xpu_compile_manifest's text.
std::string offlineManifests(const rt::TargetDesc &desc, const char *target,
                             const rt::Blob &blob,
                             const std::vector<abi::KernelInfo> &kernels);

/// The manifest of a loaded kernel, made on first use and kept by it.
const Manifest &manifestOf(rt::KernelObj &kernel);

/// "read, write", "accumulate", "none", ... for messages.
std::string usesText(uint8_t uses);

} // namespace xpu::sched
