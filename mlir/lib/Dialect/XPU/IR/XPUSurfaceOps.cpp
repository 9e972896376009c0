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
