// Rewrites IR shapes that a code generator we depend on is known to
// miscompile into equivalent shapes it gets right. Each rewrite names the
// version and the reproducer that showed it. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

#include <type_traits>

namespace xpu {
#define GEN_PASS_DEF_AVOIDMISCOMPILES
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

Value splatInt(OpBuilder &b, Location loc, Type t, int64_t v) {
  Type e = getElementTypeOrSelf(t);
  unsigned w = e.isIndex() ? 64 : e.getIntOrFloatBitWidth();
  APInt value(w, v, /*isSigned=*/true, /*implicitTrunc=*/true);
  if (auto vec = dyn_cast<VectorType>(t))
    return arith::ConstantOp::create(b, loc, vec, DenseElementsAttr::get(vec, value));
  return arith::ConstantOp::create(b, loc, t, b.getIntegerAttr(e, value));
}

//===----------------------------------------------------------------------===//
// LLVM 22 (cpu, nvvm, rocdl)
//===----------------------------------------------------------------------===//

/// LLVM 22's InstCombine turns `trunc (extractelement (load <3 x i64>)) to
/// i1` into a load of `<129 x i1>`, whose x86 lowering reads the whole byte
/// instead of its low bit (repro: shared/repros/differential/
/// cpu-i1-broadcast.mlir, o[i] = in[3i+2] & 1 came out as in[3i+2] & 0xff
/// masks). `(x & 1) != 0` keeps the load an integer load.
void truncToBoolAsCompare(arith::TruncIOp op) {
  if (!getElementTypeOrSelf(op.getType()).isInteger(1))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type t = op.getIn().getType();
  Value low = arith::AndIOp::create(b, loc, op.getIn(), splatInt(b, loc, t, 1));
  Value ne = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, low,
                                   splatInt(b, loc, t, 0));
  op.replaceAllUsesWith(ne);
  op.erase();
}

/// LLVM 22's InstCombine folds `vector.reduce.mul (sext <N x i1>)` into
/// `zext (vector.reduce.and)`, which is wrong for odd N: (-1)^3 = -1, not 1
/// (repro: shared/repros/differential/cpu-mul-reduction-vec3.mlir). The
/// product is formed lane by lane instead, which InstCombine folds right.
void mulReductionByLanes(vector::ReductionOp op) {
  if (op.getKind() != vector::CombiningKind::MUL ||
      !isa<IntegerType>(op.getDest().getType()))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value v = op.getVector();
  int64_t lanes = op.getSourceVectorType().getNumElements();
  Value acc = op.getAcc();
  for (int64_t k = 0; k < lanes; ++k) {
    Value lane = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{k});
    acc = acc ? Value(arith::MulIOp::create(b, loc, acc, lane)) : lane;
  }
  op.replaceAllUsesWith(acc);
  op.erase();
}

/// LLVM 22's x86 back end (SelectionDAG, any CPU) drops a function's whole
/// body when SLP vectorization turns the 128-bit products of an
/// arith.mulsi_extended into `<2 x i128>` shuffled into `<4 x i128>` and
/// truncated (repro: shared/repros/differential/cpu-static-mulsi-extended.mlir,
/// every store vanished; the optimized IR through `llc-22 -O3` gives a bare
/// `retq`). The extended products are formed without i128: in i64 for
/// widths up to 32, from 32-bit halves for i64 (Hacker's Delight, mulhs).
template <typename Op>
void extendedMulWithoutI128(Op op) {
  constexpr bool isSigned = std::is_same_v<Op, arith::MulSIExtendedOp>;
  Type t = op.getLhs().getType();
  Type elem = getElementTypeOrSelf(t);
  if (!elem.isInteger())
    return;
  unsigned w = elem.getIntOrFloatBitWidth();
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value x = op.getLhs(), y = op.getRhs();
  Value low = arith::MulIOp::create(b, loc, x, y), high;
  auto shr = [&](Value v, int64_t n, bool s) -> Value {
    Value amount = splatInt(b, loc, v.getType(), n);
    return s ? Value(arith::ShRSIOp::create(b, loc, v, amount))
             : Value(arith::ShRUIOp::create(b, loc, v, amount));
  };
  if (w <= 32) {
    Type wide = isa<VectorType>(t) ? Type(VectorType::get(cast<VectorType>(t).getShape(),
                                                          b.getI64Type()))
                                   : Type(b.getI64Type());
    auto ext = [&](Value v) -> Value {
      return isSigned ? Value(arith::ExtSIOp::create(b, loc, wide, v))
                      : Value(arith::ExtUIOp::create(b, loc, wide, v));
    };
    Value p = arith::MulIOp::create(b, loc, ext(x), ext(y));
    high = arith::TruncIOp::create(b, loc, t, shr(p, w, false));
  } else {
    Value lowMask = splatInt(b, loc, t, 0xffffffffLL);
    auto lo32 = [&](Value v) -> Value { return arith::AndIOp::create(b, loc, v, lowMask); };
    auto mul = [&](Value l, Value r) -> Value { return arith::MulIOp::create(b, loc, l, r); };
    auto add = [&](Value l, Value r) -> Value { return arith::AddIOp::create(b, loc, l, r); };
    Value x0 = lo32(x), y0 = lo32(y);
    Value x1 = shr(x, 32, isSigned), y1 = shr(y, 32, isSigned);
    Value w0 = mul(x0, y0);
    Value mid = add(mul(x1, y0), shr(w0, 32, false));
    Value w1 = add(mul(x0, y1), lo32(mid));
    high = add(add(mul(x1, y1), shr(mid, 32, isSigned)), shr(w1, 32, isSigned));
  }
  op.getLow().replaceAllUsesWith(low);
  op.getHigh().replaceAllUsesWith(high);
  op.erase();
}

//===----------------------------------------------------------------------===//
// Vulkan (seen on lavapipe, Mesa 22.3.6 with LLVM 15.0.6)
//===----------------------------------------------------------------------===//

/// lavapipe gets signed comparisons (and smin/smax, floordiv) of an
/// `OpSConvert` result against a constant wrong: `sext(a) : i64 < 0` is
/// false for every a (repro: shared/repros/differential/vk-sext-cmp-slt.mlir,
/// vk-floordivsi-sext-const.mlir). The extension is done with shifts of
/// the zero-extended value instead, which it compiles right.
void signExtendByShifts(arith::ExtSIOp op) {
  Type from = getElementTypeOrSelf(op.getIn().getType());
  Type to = getElementTypeOrSelf(op.getType());
  if (from.isInteger(1) || to.isIndex() || from.isIndex())
    return; // bool extends by a select; index is not an OpSConvert
  OpBuilder b(op);
  Location loc = op.getLoc();
  unsigned gap = to.getIntOrFloatBitWidth() - from.getIntOrFloatBitWidth();
  Value wide = arith::ExtUIOp::create(b, loc, op.getType(), op.getIn());
  Value amount = splatInt(b, loc, op.getType(), gap);
  Value up = arith::ShLIOp::create(b, loc, wide, amount);
  op.replaceAllUsesWith(Value(arith::ShRSIOp::create(b, loc, up, amount)));
  op.erase();
}

/// The same defect through `arith.index_cast`, which sign-extends where it
/// widens (index of `indexBits` to a wider integer, or back): seed 4006996
/// of the 20,000-kernel run, `index_cast (index_cast i1 to index) to i64`
/// rem a constant came out as the remainder of 2^64 - 1 for -1 (the
/// remainder's `x < 0` was false; reproducer:
/// tests/differential/repros/vk-index-cast-sext-rem.mlir).
void indexSignExtendByShifts(arith::IndexCastOp op, unsigned indexBits) {
  Type from = getElementTypeOrSelf(op.getIn().getType());
  Type to = getElementTypeOrSelf(op.getType());
  auto bits = [&](Type t) { return t.isIndex() ? indexBits : t.getIntOrFloatBitWidth(); };
  if (bits(to) <= bits(from))
    return; // a narrowing cast is a truncation
  OpBuilder b(op);
  Location loc = op.getLoc();
  if (from.isInteger(1)) { // MLIR selects in 32 bits, then widens
    op.replaceAllUsesWith(Value(arith::SelectOp::create(
        b, loc, op.getIn(), splatInt(b, loc, op.getType(), -1), splatInt(b, loc, op.getType(), 0))));
    op.erase();
    return;
  }
  int64_t gap = bits(to) - bits(from);
  Value wide = arith::IndexCastUIOp::create(b, loc, op.getType(), op.getIn());
  Value amount = splatInt(b, loc, op.getType(), gap);
  Value up = arith::ShLIOp::create(b, loc, wide, amount);
  op.replaceAllUsesWith(Value(arith::ShRSIOp::create(b, loc, up, amount)));
  op.erase();
}

/// The scalar types a value of `t` travels as: one per lane of a vector.
void flatTypes(Type t, SmallVectorImpl<Type> &out) {
  if (auto vec = dyn_cast<VectorType>(t))
    out.append(vec.getNumElements(), vec.getElementType());
  else
    out.push_back(t);
}

void flatValues(OpBuilder &b, Location loc, ValueRange values,
                SmallVectorImpl<Value> &out) {
  for (Value v : values) {
    auto vec = dyn_cast<VectorType>(v.getType());
    if (!vec) {
      out.push_back(v);
      continue;
    }
    if (auto lanes = v.getDefiningOp<vector::FromElementsOp>()) {
      llvm::append_range(out, lanes.getElements()); // a header only forwards
      continue;
    }
    for (int64_t k = 0; k < vec.getNumElements(); ++k)
      out.push_back(vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{k}));
  }
}

/// Rebuilds values of `types` from their flat lanes.
SmallVector<Value> rebuild(OpBuilder &b, Location loc, TypeRange types,
                           ValueRange flat) {
  SmallVector<Value> out;
  size_t next = 0;
  for (Type t : types) {
    auto vec = dyn_cast<VectorType>(t);
    if (!vec) {
      out.push_back(flat[next++]);
      continue;
    }
    int64_t n = vec.getNumElements();
    out.push_back(vector::FromElementsOp::create(b, loc, vec, flat.slice(next, n)));
    next += n;
  }
  return out;
}

/// lavapipe loses vector values carried by a loop whose trip count differs
/// between invocations of a subgroup when its header computes them (repro:
/// shared/repros/differential/vk-while-vector-header-vec{2,3,4}.mlir:
/// o[i] = 6 * (cnt[i] + 1) came out as a neighbour's value). Scalars are
/// carried right, so each vector travels as its lanes.
void scalarizeLoopValues(scf::WhileOp op) {
  auto hasVector = [](TypeRange types) {
    return llvm::any_of(types, [](Type t) { return isa<VectorType>(t); });
  };
  if (!hasVector(op.getOperandTypes()) && !hasVector(op.getResultTypes()))
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  SmallVector<Type> initTypes, resultTypes;
  for (Type t : op.getOperandTypes())
    flatTypes(t, initTypes);
  for (Type t : op.getResultTypes())
    flatTypes(t, resultTypes);
  SmallVector<Value> inits;
  flatValues(b, loc, op.getInits(), inits);
  auto flat = scf::WhileOp::create(b, loc, resultTypes, inits);

  auto moveRegion = [&](Region &from, Region &to, TypeRange argTypes,
                        ArrayRef<Type> flatArgTypes) {
    Block *oldBlock = &from.front();
    SmallVector<Location> locs(flatArgTypes.size(), loc);
    Block *block = b.createBlock(&to, {}, flatArgTypes, locs);
    SmallVector<Value> args = rebuild(b, loc, argTypes, block->getArguments());
    for (auto [old, now] : llvm::zip(oldBlock->getArguments(), args))
      old.replaceAllUsesWith(now);
    block->getOperations().splice(block->end(), oldBlock->getOperations());
    Operation *term = block->getTerminator();
    b.setInsertionPoint(term);
    SmallVector<Value> operands;
    if (auto cond = dyn_cast<scf::ConditionOp>(term)) {
      flatValues(b, loc, cond.getArgs(), operands);
      cond.getArgsMutable().assign(operands);
    } else {
      auto yield = cast<scf::YieldOp>(term);
      flatValues(b, loc, yield.getResults(), operands);
      yield.getResultsMutable().assign(operands);
    }
    for (Value v : args)
      if (auto lanes = v.getDefiningOp<vector::FromElementsOp>(); lanes && lanes->use_empty())
        lanes->erase();
  };
  moveRegion(op.getBefore(), flat.getBefore(), op.getOperandTypes(), initTypes);
  moveRegion(op.getAfter(), flat.getAfter(), op.getResultTypes(), resultTypes);
  b.setInsertionPointAfter(flat);
  SmallVector<Value> results = rebuild(b, loc, op.getResultTypes(), flat.getResults());
  op.replaceAllUsesWith(results);
  op.erase();
}

/// The header's first run is peeled in front of the loop and the loop body
/// runs the header after itself, so the loop's own header only forwards
/// values:
///   while (c, h = B(init)) { condition(c) h } do { (c, h) = B(A(h)) }
/// for two defects:
/// - MLIR 22's SCF-to-SPIR-V conversion makes invalid SPIR-V (an OpPhi whose
///   incoming block is no predecessor; spirv-val refuses it, lavapipe's
///   pipeline creation corrupts the heap) for an scf.while whose header
///   holds a loop or an if (reduced by tests/differential: a while nested
///   in a while's header).
/// - lavapipe (Mesa 22.3.6, Debian 12's llvmpipe on LLVM 15.0.6) gives an
///   invocation that leaves a loop before others of its subgroup the value
///   of one header run more, when the header passes on a value it computes
///   as `zext(f(trunc(carried)))` and the loop's result is only used
///   truncated (repros: tests/differential/repros/vk-while-zext-header.mlir;
///   vk-while-ctlz-i64.mlir, an i64 math.ctlz, which our lowering counts by
///   32-bit halves: o16[2] = 58 instead of 62, found by differential.py
///   --seed 3019154). The SPIR-V is valid and right (spirv-val; the CPU and
///   the reference agree), and the same values computed in the loop body
///   come out right, so every header that computes a value it passes on is
///   peeled, not only that shape.
scf::WhileOp trivialHeader(scf::WhileOp op) {
  Block &before = op.getBefore().front();
  auto computedHere = [&](Value v) { return v.getParentBlock() == &before &&
                                            !isa<BlockArgument>(v); };
  bool holdsRegion = llvm::any_of(before.without_terminator(),
                                  [](Operation &o) { return o.getNumRegions() > 0; });
  if (!holdsRegion && llvm::none_of(op.getConditionOp().getArgs(), computedHere))
    return op;
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto header = [&](ValueRange args, SmallVectorImpl<Value> &out) {
    IRMapping map;
    map.map(before.getArguments(), args);
    for (Operation &o : before.without_terminator())
      b.clone(o, map);
    auto cond = cast<scf::ConditionOp>(before.getTerminator());
    out.push_back(map.lookupOrDefault(cond.getCondition()));
    for (Value v : cond.getArgs())
      out.push_back(map.lookupOrDefault(v));
  };
  SmallVector<Value> inits;
  header(op.getInits(), inits);
  auto loop = scf::WhileOp::create(b, loc, op.getResultTypes(), inits);
  SmallVector<Type> carried(ValueRange(inits).getTypes());
  Block *forward = b.createBlock(&loop.getBefore(), {}, carried,
                                 SmallVector<Location>(carried.size(), loc));
  scf::ConditionOp::create(b, loc, forward->getArgument(0),
                           forward->getArguments().drop_front());
  SmallVector<Location> locs(op.getNumResults(), loc);
  Block *body = b.createBlock(&loop.getAfter(), {}, op.getResultTypes(), locs);
  Block &after = op.getAfter().front();
  IRMapping map;
  map.map(after.getArguments(), body->getArguments());
  for (Operation &o : after.without_terminator())
    b.clone(o, map);
  SmallVector<Value> yielded, next;
  for (Value v : cast<scf::YieldOp>(after.getTerminator()).getResults())
    yielded.push_back(map.lookupOrDefault(v));
  header(yielded, next);
  scf::YieldOp::create(b, loc, next);
  op.replaceAllUsesWith(loop.getResults());
  op.erase();
  return loop;
}

/// Element-wise integer vector ops lane by lane (spirv). NVIDIA's Vulkan
/// driver 580 computed wrong lanes for a vector<4xi16> OpSDiv of -1 by a
/// selected constant divisor (-1 in every lane) and a vector<3xi32>
/// ceildivsi (one lane's sign) on the H200
/// (tests/differential/open/nv-vk-divsi-i16-vector.mlir,
/// nv-vk-ceildivsi-i32-vector.mlir). Every element-wise arith or math op
/// that reads or writes integer vectors is split, not only divisions: the
/// GPU has no integer vector ALU, so the driver scalarizes them anyway, and
/// lavapipe already runs invocations side by side in SIMD lanes.
bool touchesIntegers(Operation *op) {
  auto isInt = [](Type t) { return isa<IntegerType, IndexType>(getElementTypeOrSelf(t)); };
  return llvm::any_of(op->getOperandTypes(), isInt) || llvm::any_of(op->getResultTypes(), isInt);
}

void integerVectorByLanes(Operation *op) {
  if (op->getNumResults() == 0 || !op->hasTrait<OpTrait::Elementwise>() ||
      !isa_and_nonnull<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      !touchesIntegers(op))
    return;
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  if (!type || type.getRank() != 1 || type.isScalable())
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  SmallVector<SmallVector<Value>> lanes(op->getNumResults());
  for (int64_t k = 0; k < type.getNumElements(); ++k) {
    IRMapping map;
    for (Value v : op->getOperands()) {
      if (!isa<VectorType>(v.getType())) // select's condition may be a scalar
        continue;
      if (auto lanesOf = v.getDefiningOp<vector::FromElementsOp>()) // split already
        map.map(v, lanesOf.getElements()[k]);
      else
        map.map(v, vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{k}));
    }
    Operation *lane = b.clone(*op, map);
    for (auto [i, r] : llvm::enumerate(lane->getResults())) {
      r.setType(getElementTypeOrSelf(r.getType()));
      lanes[i].push_back(r);
    }
  }
  for (auto [i, r] : llvm::enumerate(op->getResults()))
    r.replaceAllUsesWith(
        vector::FromElementsOp::create(b, loc, cast<VectorType>(r.getType()), lanes[i]));
  op->erase();
}

/// The quotient and remainder of unsigned 64-bit `a` by `d` (d != 0: the
/// divisor guards of DefineIntegerSemantics ran before): in 32 bits when
/// both fit, else by restoring division, one quotient bit per step.
std::pair<Value, Value> unsignedDivRem64(OpBuilder &b, Location loc, Value a, Value d) {
  Type i64 = b.getI64Type(), i32 = b.getI32Type();
  using P = arith::CmpIPredicate;
  Value zero = splatInt(b, loc, i64, 0), one = splatInt(b, loc, i64, 1);
  Value high = arith::ShRUIOp::create(b, loc, arith::OrIOp::create(b, loc, a, d),
                                      splatInt(b, loc, i64, 32));
  Value narrow = arith::CmpIOp::create(b, loc, P::eq, high, zero);
  auto split = scf::IfOp::create(b, loc, TypeRange{i64, i64}, narrow, /*withElse=*/true);
  OpBuilder t = split.getThenBodyBuilder();
  Value a32 = arith::TruncIOp::create(t, loc, i32, a);
  Value d32 = arith::TruncIOp::create(t, loc, i32, d);
  scf::YieldOp::create(
      t, loc,
      ValueRange{arith::ExtUIOp::create(t, loc, i64, arith::DivUIOp::create(t, loc, a32, d32)),
                 arith::ExtUIOp::create(t, loc, i64, arith::RemUIOp::create(t, loc, a32, d32))});
  OpBuilder e = split.getElseBodyBuilder();
  Value top = splatInt(e, loc, i64, 63);
  auto steps = scf::ForOp::create(
      e, loc, arith::ConstantIndexOp::create(e, loc, 0),
      arith::ConstantIndexOp::create(e, loc, 64), arith::ConstantIndexOp::create(e, loc, 1),
      ValueRange{zero, zero},
      [&](OpBuilder &l, Location loc, Value i, ValueRange qr) {
        Value q = qr[0], r = qr[1];
        Value at =
            arith::SubIOp::create(l, loc, top, arith::IndexCastUIOp::create(l, loc, i64, i));
        Value bit = arith::AndIOp::create(l, loc, arith::ShRUIOp::create(l, loc, a, at), one);
        // r < d before the shift; a bit shifted out of r makes it >= d.
        Value carry = arith::CmpIOp::create(l, loc, P::ne,
                                            arith::ShRUIOp::create(l, loc, r, top), zero);
        Value r2 = arith::OrIOp::create(l, loc, arith::ShLIOp::create(l, loc, r, one), bit);
        Value fits = arith::OrIOp::create(l, loc, carry,
                                          arith::CmpIOp::create(l, loc, P::uge, r2, d));
        Value rNext =
            arith::SelectOp::create(l, loc, fits, arith::SubIOp::create(l, loc, r2, d), r2);
        Value qNext = arith::OrIOp::create(l, loc, arith::ShLIOp::create(l, loc, q, one),
                                           arith::ExtUIOp::create(l, loc, i64, fits));
        scf::YieldOp::create(l, loc, ValueRange{qNext, rNext});
      });
  scf::YieldOp::create(e, loc, steps.getResults());
  return {split.getResult(0), split.getResult(1)};
}

/// 64-bit integer division and remainder in our own code (spirv). NVIDIA's
/// Vulkan driver 580 computed 64-bit OpUDiv/OpSDiv wrong where a quotient
/// meets its remainder or its product with the divisor: the ceildivui,
/// ceildivsi and floordivsi of a vector<2xi64>, split into two divisions
/// side by side, each came out with the other's rounding
/// (tests/differential/open/nv-vk-ceildivui-i64-vector.mlir; on the H200,
/// also with the remainder as a - q * d; the same kernels in 32 bits were
/// right). Divisions by a constant, which the driver turns into multiplies,
/// are left to it.
/// The (quotient, remainder) pairs computed so far, per operands and
/// signedness: a kernel's `a / d` and `a % d` share one division.
using DivRemCache = llvm::DenseMap<std::tuple<Value, Value, unsigned>, std::pair<Value, Value>>;

void wideDivisionInSoftware(Operation *op, unsigned indexBits, DivRemCache &done) {
  Value a = op->getOperand(0), d = op->getOperand(1);
  Type t = a.getType();
  if (!(t.isInteger(64) || (t.isIndex() && indexBits == 64)) ||
      d.getDefiningOp<arith::ConstantOp>())
    return;
  bool isSigned = isa<arith::DivSIOp, arith::RemSIOp>(op);
  bool wantsQuotient = isa<arith::DivSIOp, arith::DivUIOp>(op);
  auto key = std::make_tuple(a, d, unsigned(isSigned));
  auto known = done.find(key);
  // Reused only where it dominates: earlier in the same block (ops are
  // visited in order).
  if (known == done.end() ||
      known->second.first.getParentBlock() != op->getBlock()) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Type i64 = b.getI64Type();
    Value wa = a, wd = d;
    if (t.isIndex()) {
      wa = arith::IndexCastUIOp::create(b, loc, i64, a);
      wd = arith::IndexCastUIOp::create(b, loc, i64, d);
    }
    std::pair<Value, Value> qr;
    if (!isSigned) {
      qr = unsignedDivRem64(b, loc, wa, wd);
    } else {
      // |a| / |d| unsigned (|INT_MIN| is 2^63), then the signs of C's
      // truncating division; INT_MIN / -1 never arrives (its divisor is 1).
      using P = arith::CmpIPredicate;
      Value zero = splatInt(b, loc, i64, 0);
      auto negate = [&](Value v) { return Value(arith::SubIOp::create(b, loc, zero, v)); };
      Value aNeg = arith::CmpIOp::create(b, loc, P::slt, wa, zero);
      Value dNeg = arith::CmpIOp::create(b, loc, P::slt, wd, zero);
      auto [q, r] = unsignedDivRem64(b, loc, arith::SelectOp::create(b, loc, aNeg, negate(wa), wa),
                                     arith::SelectOp::create(b, loc, dNeg, negate(wd), wd));
      qr = {arith::SelectOp::create(b, loc, arith::XOrIOp::create(b, loc, aNeg, dNeg),
                                    negate(q), q),
            arith::SelectOp::create(b, loc, aNeg, negate(r), r)};
    }
    if (t.isIndex())
      qr = {arith::IndexCastUIOp::create(b, loc, t, qr.first),
            arith::IndexCastUIOp::create(b, loc, t, qr.second)};
    known = done.insert_or_assign(key, qr).first;
  }
  op->getResult(0).replaceAllUsesWith(wantsQuotient ? known->second.first
                                                    : known->second.second);
  op->erase();
}

/// i32 for i1 and vector<N x i32> for vector<N x i1>; null for other types.
Type wideBool(Type t) {
  if (t.isInteger(1))
    return IntegerType::get(t.getContext(), 32);
  if (auto v = dyn_cast<VectorType>(t); v && v.getElementType().isInteger(1))
    return v.clone(IntegerType::get(t.getContext(), 32));
  return {};
}

Value boolOfWide(OpBuilder &b, Location loc, Value wide) {
  Value zero = arith::ConstantOp::create(b, loc, cast<TypedAttr>(b.getZeroAttr(wide.getType())));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, wide, zero);
}

/// Loops carry booleans as i32 (spirv). NVIDIA's Vulkan driver 580 crashed
/// (SIGSEGV in vkCreateComputePipelines) on every valid module whose scf.for
/// or scf.while carried an i1: 32 of 2,500 differential kernels on the H200,
/// all reduced to the shape of tests/differential/open/nv-vk-loop-carried-i1.mlir.
/// The loop is rebuilt with the same body: i1 operands and results become
/// i32 (extui in, != 0 out), its regions' i1 arguments likewise, and what
/// its own terminators pass on is widened.
void boolsCarriedAsI32(Operation *loop) {
  auto widens = [](Type t) { return bool(wideBool(t)); };
  if (!llvm::any_of(loop->getOperandTypes(), widens) &&
      !llvm::any_of(loop->getResultTypes(), widens))
    return;
  OpBuilder b(loop);
  Location loc = loop->getLoc();
  OperationState state(loc, loop->getName());
  for (Value v : loop->getOperands())
    state.addOperands(wideBool(v.getType())
                          ? Value(arith::ExtUIOp::create(b, loc, wideBool(v.getType()), v))
                          : v);
  for (Type t : loop->getResultTypes())
    state.addTypes(wideBool(t) ? wideBool(t) : t);
  state.addAttributes(loop->getDiscardableAttrDictionary().getValue());
  state.propertiesAttr = loop->getPropertiesAsAttribute();
  for (unsigned i = 0; i < loop->getNumRegions(); ++i)
    state.addRegion();
  Operation *wide = b.create(state);
  for (unsigned i = 0; i < loop->getNumRegions(); ++i) {
    Region &region = wide->getRegion(i);
    region.takeBody(loop->getRegion(i));
    Block &block = region.front();
    OpBuilder in = OpBuilder::atBlockBegin(&block);
    for (BlockArgument arg : block.getArguments())
      if (Type t = wideBool(arg.getType())) {
        arg.setType(t);
        Value narrow = boolOfWide(in, loc, arg);
        arg.replaceAllUsesExcept(narrow, narrow.getDefiningOp());
      }
    Operation *term = block.getTerminator();
    OpBuilder out(term);
    // scf.condition's first operand decides; the rest are passed on.
    unsigned first = isa<scf::ConditionOp>(term) ? 1 : 0;
    for (unsigned k = first; k < term->getNumOperands(); ++k)
      if (Type t = wideBool(term->getOperand(k).getType()))
        term->setOperand(k, arith::ExtUIOp::create(out, loc, t, term->getOperand(k)));
  }
  b.setInsertionPointAfter(wide);
  for (auto [old, now] : llvm::zip(loop->getResults(), wide->getResults()))
    old.replaceAllUsesWith(wideBool(old.getType()) ? boolOfWide(b, loc, now) : now);
  loop->erase();
}

struct AvoidMiscompilesPass : xpu::impl::AvoidMiscompilesBase<AvoidMiscompilesPass> {
  using AvoidMiscompilesBase::AvoidMiscompilesBase;
  void runOnOperation() override {
    if (target != "llvm" && target != "spirv") {
      getOperation().emitError() << "unknown target '" << target
                                 << "' (llvm or spirv)";
      return signalPassFailure();
    }
    SmallVector<Operation *> ops;
    if (target == "spirv") {
      // First, so the rewrites below see the lanes.
      getOperation().walk([&](Operation *op) { ops.push_back(op); });
      for (Operation *op : ops)
        integerVectorByLanes(op);
      getOperation().walk([](vector::FromElementsOp lanes) {
        if (lanes->use_empty()) // every user was split too
          lanes.erase();
      });
      ops.clear();
    }
    getOperation().walk([&](Operation *op) { ops.push_back(op); });
    DivRemCache divisions;
    for (Operation *op : ops) {
      if (target == "llvm") {
        if (auto t = dyn_cast<arith::TruncIOp>(op))
          truncToBoolAsCompare(t);
        else if (auto r = dyn_cast<vector::ReductionOp>(op))
          mulReductionByLanes(r);
        else if (auto m = dyn_cast<arith::MulSIExtendedOp>(op))
          extendedMulWithoutI128(m);
        else if (auto m = dyn_cast<arith::MulUIExtendedOp>(op))
          extendedMulWithoutI128(m);
      } else {
        if (auto e = dyn_cast<arith::ExtSIOp>(op))
          signExtendByShifts(e);
        else if (auto c = dyn_cast<arith::IndexCastOp>(op))
          indexSignExtendByShifts(c, indexBits);
        else if (isa<arith::DivUIOp, arith::RemUIOp, arith::DivSIOp, arith::RemSIOp>(op))
          wideDivisionInSoftware(op, indexBits, divisions);
        else if (auto w = dyn_cast<scf::WhileOp>(op))
          scalarizeLoopValues(trivialHeader(w));
      }
    }
    if (target == "spirv") {
      SmallVector<Operation *> loops;
      getOperation().walk([&](Operation *op) {
        if (isa<scf::ForOp, scf::WhileOp>(op))
          loops.push_back(op);
      });
      for (Operation *loop : loops)
        boolsCarriedAsI32(loop);
    }
  }
};

} // namespace
