// Spreads each asynchronous copy over the workgroup's invocations, one
// element at a time, each either in bounds or checked at run time as a load
// and a store would be; each wait is followed by its barrier. See Passes.td.
#include "xpu/Dialect/XPU/IR/Invocation.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_EXPANDASYNCCOPIES
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

void expand(AsyncCopyOp op) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  LinearInvocation inv = linearInvocation(b, loc);
  auto loop = scf::ForOp::create(b, loc, inv.index, op.getCount(), inv.count);
  b.setInsertionPointToStart(loop.getBody());
  Value j = loop.getInductionVar();
  Value s = arith::AddIOp::create(b, loc, op.getSrcIndex(), j);
  Value d = arith::AddIOp::create(b, loc, op.getDstIndex(), j);
  auto below = [&](Value i, Value buffer) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i,
                                 BufferSizeOp::create(b, loc, buffer));
  };
  Value ok = arith::AndIOp::create(b, loc, below(s, op.getSrc()), below(d, op.getDst()));
  auto inBounds = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/true);
  b.setInsertionPointToStart(inBounds.thenBlock());
  AsyncCopyElementOp::create(b, loc, op.getSrc(), s, op.getDst(), d, /*cp_async=*/false,
                             /*bytes=*/IntegerAttr());
  // Outside a buffer: the accesses a plain copy would make, checked, so
  // that the launch reports them (the load yields zero).
  b.setInsertionPointToStart(inBounds.elseBlock());
  UnitAttr checked = b.getUnitAttr();
  Type elem = cast<BufferType>(op.getSrc().getType()).getElementType();
  auto load = LoadOp::create(b, loc, elem, op.getSrc(), s);
  load->setAttr("checked", checked);
  auto store = StoreOp::create(b, loc, load, op.getDst(), d);
  store->setAttr("checked", checked);
  op.erase();
}

struct ExpandAsyncCopiesPass : xpu::impl::ExpandAsyncCopiesBase<ExpandAsyncCopiesPass> {
  void runOnOperation() override {
    // Tokens only order a wait after its copies, which program order does.
    // The wait's barrier is explicit from here on (the runtime learns from
    // it that the kernel synchronizes its workgroup); the wait itself stays
    // for targets whose copies are asynchronous.
    getOperation().walk([](AsyncWaitOp wait) {
      wait->setOperands({});
      OpBuilder b(wait.getContext());
      b.setInsertionPointAfter(wait);
      BarrierOp::create(b, wait.getLoc());
    });
    SmallVector<AsyncCopyOp> copies;
    getOperation().walk([&](AsyncCopyOp op) { copies.push_back(op); });
    for (AsyncCopyOp op : copies)
      expand(op);
  }
};

} // namespace
