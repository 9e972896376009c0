// Gives each kernel that prints a print buffer (a hidden last parameter the
// runtime supplies) and turns each xpu.printf into a record appended to it.
// See Passes.td and xpu/PrintFormat.h for the buffer's layout.
#include "xpu/Pipeline.h"
#include "xpu/PrintFormat.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

namespace xpu {
#define GEN_PASS_DEF_LOWERPRINTF
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

Value i32c(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}
Value idx(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

/// The 32-bit words a value is recorded as (PrintFormat.h).
SmallVector<Value, 2> wordsOf(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType(), i32 = b.getI32Type();
  if (t.isF16() || t.isBF16())
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v), t = v.getType();
  if (isa<FloatType>(t))
    v = arith::BitcastOp::create(b, loc, b.getIntegerType(t.getIntOrFloatBitWidth()), v),
    t = v.getType();
  unsigned bits = t.getIntOrFloatBitWidth();
  if (bits < 32)
    return {arith::ExtUIOp::create(b, loc, i32, v)};
  if (bits == 32)
    return {v};
  Value hi = arith::ShRUIOp::create(b, loc, v, arith::ConstantIntOp::create(b, loc, t, 32));
  return {arith::TruncIOp::create(b, loc, i32, v), arith::TruncIOp::create(b, loc, i32, hi)};
}

/// Reserves room for a record of `words` words with a compare-exchange loop
/// that never moves the cursor past the buffer's end (so it cannot wrap),
/// then writes the record, or counts it as dropped.
void lower(PrintfOp op, Value buffer, unsigned site) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Value> words = {i32c(b, loc, site + 1)};
  for (Value v : op.getArgs())
    llvm::append_range(words, wordsOf(b, loc, v));
  Type i32 = b.getI32Type();
  Value c0 = idx(b, loc, 0), c1 = idx(b, loc, 1);
  Value size = BufferSizeOp::create(b, loc, buffer);
  // The last cursor at which the record still fits (negative: never).
  Value limit = arith::SubIOp::create(
      b, loc, size, idx(b, loc, abi::kPrintHeaderWords + int64_t(words.size())));
  Value count = i32c(b, loc, int64_t(words.size()));
  auto atomic = [&](OpBuilder &at, AtomicKind kind, Value v, Value i, Value expected) {
    return AtomicRMWOp::create(at, loc, i32, kind, v, buffer, i, expected, MemoryOrder::relaxed,
                               Scope::device)
        .getResult();
  };
  auto fitsAt = [&](OpBuilder &at, Value cursor) -> Value {
    Value c = arith::IndexCastUIOp::create(at, loc, at.getIndexType(), cursor);
    return arith::CmpIOp::create(at, loc, arith::CmpIPredicate::sle, c, limit);
  };
  Value first = atomic(b, AtomicKind::add, i32c(b, loc, 0), c0, Value());
  auto loop = scf::WhileOp::create(b, loc, TypeRange{i32}, ValueRange{first});
  {
    OpBuilder::InsertionGuard g(b);
    Block *before = b.createBlock(&loop.getBefore(), {}, {i32}, {loc});
    Value guess = before->getArgument(0);
    Value ok = fitsAt(b, guess);
    auto attempt = scf::IfOp::create(b, loc, TypeRange{i32}, ok, /*withElseRegion=*/true);
    b.setInsertionPointToStart(attempt.thenBlock());
    Value next = arith::AddIOp::create(b, loc, guess, count);
    scf::YieldOp::create(b, loc, atomic(b, AtomicKind::cmpxchg, next, c0, guess));
    b.setInsertionPointToStart(attempt.elseBlock());
    scf::YieldOp::create(b, loc, guess);
    b.setInsertionPointAfter(attempt);
    Value seen = attempt.getResult(0);
    Value moved = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, seen, guess);
    scf::ConditionOp::create(b, loc, arith::AndIOp::create(b, loc, ok, moved), ValueRange{seen});
    Block *after = b.createBlock(&loop.getAfter(), {}, {i32}, {loc});
    scf::YieldOp::create(b, loc, after->getArgument(0));
  }
  Value cursor = loop.getResult(0);
  auto fits = scf::IfOp::create(b, loc, TypeRange{}, fitsAt(b, cursor), /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(fits.thenBlock());
    Value base = arith::AddIOp::create(
        b, loc, arith::IndexCastUIOp::create(b, loc, b.getIndexType(), cursor),
        idx(b, loc, abi::kPrintHeaderWords));
    for (auto [k, w] : llvm::enumerate(words))
      StoreOp::create(b, loc, w, buffer,
                      arith::AddIOp::create(b, loc, base, idx(b, loc, int64_t(k))));
    b.setInsertionPointToStart(fits.elseBlock());
    atomic(b, AtomicKind::add, i32c(b, loc, 1), c1, Value());
  }
  op.erase();
}

struct LowerPrintfPass : xpu::impl::LowerPrintfBase<LowerPrintfPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    Builder b(ctx);
    SmallVector<PrintfOp> prints;
    module.walk([&](PrintfOp op) { prints.push_back(op); });
    if (prints.empty())
      return;

    // The functions that print, or call one that does (a fixed point).
    llvm::DenseMap<StringRef, Operation *> byName;
    module.walk([&](FunctionOpInterface fn) { byName[fn.getName()] = fn; });
    llvm::DenseSet<Operation *> printing;
    for (PrintfOp op : prints)
      printing.insert(op->getParentOfType<FunctionOpInterface>());
    for (bool changed = true; changed;) {
      changed = false;
      module.walk([&](CallOp call) {
        Operation *caller = call->getParentOfType<FunctionOpInterface>();
        if (printing.contains(byName.lookup(call.getCallee())))
          changed |= printing.insert(caller).second;
      });
    }
    auto type = BufferType::get(ctx, b.getI32Type(), Space::global, Access::rw,
                                BufferType::kDynamic);
    auto attrs = b.getDictionaryAttr({b.getNamedAttr("xpu.name", b.getStringAttr("__xpu_print")),
                                      b.getNamedAttr(abi::kPrintBufferAttr, b.getUnitAttr())});
    for (Operation *op : printing) {
      auto fn = cast<FunctionOpInterface>(op);
      (void)fn.insertArgument(fn.getNumArguments(), type, attrs, fn.getLoc());
    }
    module.walk([&](CallOp call) {
      if (!printing.contains(byName.lookup(call.getCallee())))
        return;
      auto caller = call->getParentOfType<FunctionOpInterface>();
      Block &entry = caller.getFunctionBody().front();
      SmallVector<Value> operands(call.getOperands());
      operands.push_back(entry.getArgument(entry.getNumArguments() - 1));
      call->setOperands(operands);
    });

    // The sites, for the runtime to format their records.
    SmallVector<Attribute> sites;
    for (auto [s, op] : llvm::enumerate(prints)) {
      SmallVector<Attribute> args;
      for (Value v : op.getArgs())
        args.push_back(TypeAttr::get(v.getType()));
      std::string file;
      unsigned line = 0, col = 0;
      resolveLocation(op.getLoc(), file, line, col);
      sites.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("format", op.getFormatAttr()),
           b.getNamedAttr("args", b.getArrayAttr(args)),
           b.getNamedAttr("location", b.getStringAttr(file + ":" + std::to_string(line) + ":" +
                                                      std::to_string(col)))}));
      Block &entry = op->getParentOfType<FunctionOpInterface>().getFunctionBody().front();
      lower(op, entry.getArgument(entry.getNumArguments() - 1), unsigned(s));
    }
    module->setAttr(abi::kPrintSitesAttr, b.getArrayAttr(sites));
  }
};

} // namespace
