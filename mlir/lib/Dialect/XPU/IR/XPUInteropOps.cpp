// Verifiers and range inference of the interop ops (XPUInteropOps.td).
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

using namespace mlir;
using namespace xpu;

LogicalResult DynamicSharedOp::verify() {
  BufferType type = getResult().getType();
  if (type.getSpace() != Space::shared || type.hasStaticSize())
    return emitOpError("yields a shared buffer without a static size, got ")
           << type;
  return success();
}

static ConstantIntRanges indexRange(int64_t lo, int64_t hi) {
  return ConstantIntRanges::fromSigned(APInt(64, lo), APInt(64, hi));
}

void WaveIdOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                 SetIntRangeFn setResultRange) {
  setResultRange(getResult(), indexRange(0, kMaxWorkgroupExtent - 1));
}

void WaveCountOp::inferResultRanges(ArrayRef<ConstantIntRanges>,
                                    SetIntRangeFn setResultRange) {
  setResultRange(getResult(), indexRange(1, kMaxWorkgroupExtent));
}
