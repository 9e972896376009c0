// What a kernel does with each of its parameters, from its IR: the access
// modes of buffers (read, write, accumulate) and the parameters its cost
// depends on. The scheduler orders submissions by the access modes and the
// kernel manifest reports both (spec §17.8, "Kernel manifests").
#pragma once

#include "xpu/KernelABI.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <vector>

namespace xpu {

/// Per parameter of `kernel` (a KernelOp), in order: the abi::Use bits of
/// each buffer (0 for scalars) and the abi::Cost bits of every parameter.
/// Device functions called with a parameter are followed into. A use the
/// analysis does not understand (an op without memory effects that takes
/// the buffer, a buffer passed where it cannot follow) is abi::useUnknown,
/// which the scheduler orders as a read-write.
struct ParamUses {
  std::vector<uint8_t> uses;
  std::vector<uint8_t> cost;
};
ParamUses analyzeParamUses(mlir::FunctionOpInterface kernel);

} // namespace xpu
