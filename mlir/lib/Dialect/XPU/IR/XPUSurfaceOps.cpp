// Verifiers of the kernel-surface ops (XPUSurfaceOps.td).
#include "xpu/Dialect/XPU/IR/Combiners.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

using namespace mlir;
using namespace xpu;

LogicalResult WaveReduceOp::verify() {
  return verifyCombiner(*this, getKind(), getValue().getType());
}

LogicalResult WaveScanOp::verify() {
  return verifyCombiner(*this, getKind(), getValue().getType());
}

LogicalResult BitsViewOp::verify() {
  BufferType from = getBuffer().getType(), to = getResult().getType();
  Type elem = from.getElementType();
  if (to.getElementType() != IntegerType::get(getContext(), elem.getIntOrFloatBitWidth()) ||
      to.getSpace() != from.getSpace() || to.getAccess() != from.getAccess() ||
      to.getSize() != from.getSize())
    return emitOpError() << "views " << from << " as " << to
                         << "; expected the same buffer of integers of its width";
  return success();
}
