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

/// The entry points of one kernel in a loaded object.
struct CpuKernel : rt::BackendKernel {
  void *group = nullptr; ///< GroupEntry, for kernels without barriers
  void *item = nullptr;  ///< ItemEntry, for kernels with barriers
};

} // namespace xpu::cpu
