// Reading an AMDGPU code object (HSACO): the ELF header and the kernel
// metadata note (msgpack, "amdhsa.kernels"), and checking it against the
// kernel ABI xpujit generated the code for.
#pragma once

#include "runtime/backend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace xpu::hip {

/// One kernel argument as the code object describes it.
struct CodeObjectArg {
  uint64_t offset = 0, size = 0;
  std::string valueKind;    ///< "global_buffer", "by_value", "hidden_..."
  std::string addressSpace; ///< "global", "generic", or "" for values
};

/// One kernel of a code object.
struct CodeObjectKernel {
  std::string name, symbol;
  std::vector<CodeObjectArg> args;
  uint64_t groupSegmentBytes = 0;   ///< LDS: the kernel's shared memory
  uint64_t privateSegmentBytes = 0; ///< scratch per work-item
  uint64_t kernargSegmentBytes = 0;
  uint32_t wavefrontSize = 0;
  uint32_t maxFlatWorkgroupSize = 0;
  uint32_t sgprs = 0, vgprs = 0;
  uint32_t sgprSpills = 0, vgprSpills = 0;
  bool dynamicStack = false;
};

struct CodeObject {
  unsigned version = 0; ///< code object version (5 for xpujit's)
  std::string target;   ///< "amdgcn-amd-amdhsa--gfx942"
  std::vector<CodeObjectKernel> kernels;
  const CodeObjectKernel *find(const std::string &name) const;
};

/// Parses `bytes` as an AMDGPU code object. Bad input is an error status,
/// never a crash.
rt::Status readCodeObject(const std::vector<uint8_t> &bytes, CodeObject &out);

/// The manifest's footprint of each of `kernels` (in order) from the code
/// object's metadata.
std::vector<abi::Footprint> footprints(const CodeObject &code,
                                       const std::vector<abi::KernelInfo> &kernels);

/// The explicit arguments a kernel must have on AMDGPU: the kernel ABI's
/// flattened parameters (a buffer is a global pointer and an i64 count),
/// each at the next offset aligned to its size, then the status-word
/// pointer (generic address space).
std::vector<CodeObjectArg> expectedArgs(const abi::KernelInfo &kernel);

/// Checks that `code` is a code object v5 for `target` whose kernels are
/// `kernels`, each with the expected arguments, the target's wave size, a
/// group segment within the shared memory it declares (LLVM packs and
/// drops unused allocations), and a static stack. The message names the
/// first difference.
rt::Status checkCodeObject(const CodeObject &code, const rt::TargetDesc &target,
                           const std::vector<abi::KernelInfo> &kernels);

} // namespace xpu::hip
