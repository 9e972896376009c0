// The upstream gpu dialect front end (mlir/lib/FrontEnd/GPU): what its
// kernels tell the runtime through their parameters' attributes, and the
// operations it accepts.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/KernelABI.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace xpu::gpuimport {

/// On a kernel parameter the import made for a memref parameter's buffer:
/// the memref type it stands for (its rank, static sizes, layout).
inline constexpr llvm::StringLiteral kMemrefAttr = "xpu.memref";
/// On the parameters the import added: what the launch fills them with,
/// "offset", "size<d>", "stride<d>" (of the view parameter before them) or
/// "dynamic_shared_bytes".
inline constexpr llvm::StringLiteral kRoleAttr = "xpu.role";
/// On a kernel: dynamic shared memory bytes that views at fixed offsets
/// read, the least a launch may give.
inline constexpr llvm::StringLiteral kMinDynamicSharedAttr =
    "xpu.min_dynamic_shared_bytes";

/// Sets the launch role and view layout of each of `kernel`'s flattened
/// parameters (`params`, in order) and the kernel's dynamic shared minimum.
void describeParams(KernelOp kernel, std::vector<abi::Param> &params,
                    abi::KernelInfo &info);

/// One operation the import accepts, and what it becomes.
struct AcceptedOp {
  llvm::StringLiteral name; ///< "memref.subview"
  llvm::StringLiteral job;  ///< "memory", "arguments", "collectives", "values"
};
/// Every operation the import accepts (docs/interop.md lists the same).
llvm::ArrayRef<AcceptedOp> acceptedOps();

} // namespace xpu::gpuimport
