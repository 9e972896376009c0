// The invocation's linear index inside its workgroup; see Invocation.h.
#include "xpu/Dialect/XPU/IR/Invocation.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace xpu {

LinearInvocation linearInvocation(OpBuilder &b, Location loc) {
  Value tx = ThreadIdOp::create(b, loc, Dim::x);
  Value ty = ThreadIdOp::create(b, loc, Dim::y);
  Value tz = ThreadIdOp::create(b, loc, Dim::z);
  Value sx = WorkgroupSizeOp::create(b, loc, Dim::x);
  Value sy = WorkgroupSizeOp::create(b, loc, Dim::y);
  Value sz = WorkgroupSizeOp::create(b, loc, Dim::z);
  Value sxy = arith::MulIOp::create(b, loc, sx, sy);
  Value index = arith::AddIOp::create(
      b, loc, tx,
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ty, sx),
                            arith::MulIOp::create(b, loc, tz, sxy)));
  return {index, arith::MulIOp::create(b, loc, sxy, sz)};
}

} // namespace xpu
