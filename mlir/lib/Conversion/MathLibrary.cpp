// The math ops that need a vendor math library on GPUs; see MathLibrary.h.
#include "xpu/Conversion/MathLibrary.h"

#include "mlir/Dialect/Math/IR/Math.h"

namespace xpu {

bool needsMathLibrary(mlir::Operation *op) {
  using namespace mlir::math;
  return mlir::isa<ExpOp, Exp2Op, ExpM1Op, LogOp, Log2Op, Log10Op, Log1pOp, SinOp,
                   CosOp, TanOp, TanhOp, SinhOp, CoshOp, AsinOp, AcosOp, AtanOp,
                   Atan2Op, AsinhOp, AcoshOp, AtanhOp, PowFOp, ErfOp, ErfcOp, CbrtOp>(op);
}

} // namespace xpu
