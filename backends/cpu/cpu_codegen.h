// CPU code generation: the admitted module to a host object file, and the
// loader that links such objects into the process with ORC.
#pragma once

#include "runtime/backend.h"

namespace xpu::cpu {

/// The host as a code generation target (triple, CPU name, features).
const rt::TargetDesc &hostTarget();

/// Lowers, optimizes (O3 for the host CPU) and emits an object file.
rt::Status compileForHost(mlir::ModuleOp module, rt::Blob &out);

/// Links `blob` into the process and finds each kernel's entry point.
rt::Status loadHostObject(const rt::Blob &blob,
                          const std::vector<abi::KernelInfo> &kernels,
                          std::unique_ptr<rt::LoadedModule> &out);

/// Runs workgroups [begin, end) of the launch's grid, x fastest, writing
/// each one's id into `launch` (abi::kCpuGroupSuffix).
using GroupEntry = void (*)(const uint8_t *args, abi::CpuLaunch *launch, uint64_t begin,
                            uint64_t end);

/// One kernel of a loaded object.
struct CpuKernel : rt::BackendKernel {
  GroupEntry entry = nullptr;
  uint64_t sharedBytes = 0; ///< shared block per workgroup
  uint64_t stackBytes = 0;  ///< the entry point's own arrays
  /// The kernel may run in any workgroup shape (abi::kCpuAnyShapeAttr).
  bool anyShape = false;
  /// The copying companion (abi::kCopyingCompanionSuffix), run over the
  /// same grid after the kernel; null when there is none.
  GroupEntry copyingEntry = nullptr;
  uint64_t copyingSharedBytes = 0, copyingStackBytes = 0;
  /// Global buffer parameters, for the launch's overlap check.
  struct BufferArg {
    uint32_t pointerOffset, countOffset; ///< slots in the argument block
    uint32_t elementBytes;
    bool written; ///< not read-only
  };
  std::vector<BufferArg> buffers;
  bool anyWritten = false;
};

} // namespace xpu::cpu
