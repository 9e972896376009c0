// Which math ops a GPU lowers to calls into its vendor's math library
// (libdevice, the AMD device libraries): the requirement analysis gates
// them on the library (Capability::mathLibrary) and xpu-math-to-libcalls
// rewrites them, from this one list.
#pragma once

#include "mlir/IR/Operation.h"

namespace xpu {

bool needsMathLibrary(mlir::Operation *op);

} // namespace xpu
