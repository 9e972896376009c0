// Asynchronous copy elements and waits for a target: cp.async and its
// wait on NVIDIA sm_80 and later, plain loads and stores elsewhere. See
// Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_LOWERASYNCCOPIES
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

/// cp.async copies 4, 8 or 16 bytes and needs sm_80.
bool cpAsync(StringRef target, StringRef chip, Type elem) {
  unsigned sm = 0;
  unsigned bytes = elem.getIntOrFloatBitWidth() / 8;
  return target == "nvvm" && chip.consume_front("sm_") &&
         !chip.take_while(llvm::isDigit).getAsInteger(10, sm) && sm >= 80 &&
         (bytes == 4 || bytes == 8);
}

struct LowerAsyncCopiesPass : xpu::impl::LowerAsyncCopiesBase<LowerAsyncCopiesPass> {
  using LowerAsyncCopiesBase::LowerAsyncCopiesBase;

  void runOnOperation() override {
    bool anyAsync = false;
    SmallVector<AsyncCopyElementOp> elements;
    getOperation().walk([&](AsyncCopyElementOp op) { elements.push_back(op); });
    for (AsyncCopyElementOp op : elements) {
      if (op.getCpAsync()) { // made so by xpu-lower-tiles
        anyAsync = true;
        continue;
      }
      Type elem = cast<BufferType>(op.getSrc().getType()).getElementType();
      if (cpAsync(target, chip, elem)) {
        op.setCpAsync(true);
        anyAsync = true;
        continue;
      }
      OpBuilder b(op);
      Value v = LoadOp::create(b, op.getLoc(), elem, op.getSrc(), op.getSrcIndex());
      StoreOp::create(b, op.getLoc(), v, op.getDst(), op.getDstIndex());
      op.erase();
    }
    SmallVector<AsyncWaitOp> waits;
    getOperation().walk([&](AsyncWaitOp op) { waits.push_back(op); });
    // Each invocation waits for its own cp.async copies; the barrier after
    // the wait (xpu-expand-async-copies) then for everyone's.
    for (AsyncWaitOp op : waits) {
      OpBuilder b(op);
      if (anyAsync) {
        NVVM::CpAsyncCommitGroupOp::create(b, op.getLoc());
        NVVM::CpAsyncWaitGroupOp::create(b, op.getLoc(), 0);
      }
      op.erase();
    }
  }
};

} // namespace
