// Proves buffer accesses in bounds; see BoundsProof.h.
//
// An access of `w` elements at `index` into `buffer` is in bounds when
// u(index) + w <= u(length), reading both unsigned at the index width W
// (the run-time check PrepareLowering inserts tests the same). `length` is
// what xpu.buffer_size yields, never more than the elements the buffer
// holds (CoordinateRanges.cpp). A proof at W has three steps:
//
//  1. Facts. Conditions that hold wherever the access executes: the
//     conditions of enclosing scf.if ops (through and/or/not), of cf.cond_br
//     edges that dominate it, and `iv < ub` of enclosing scf.for loops. An
//     SSA condition's operands are the latest values of what it compared,
//     which are the values the access uses: every value defined after them
//     on a path to the access is a new SSA value.
//  2. Intervals. Each integer value gets the set of W-bit (or its own
//     width's) patterns it can hold, from its definition's transfer
//     function (IntegerIntervals.cpp), tightened by the facts.
//  3. Linear bounds. Values are read as mathematical integers u(v) (their
//     unsigned reading). Definitions that provably do not wrap give linear
//     bounds (`u(i + 1) = u(i) + 1` when i < 2^W - 1); facts give linear
//     inequalities between such bounds; the goal u(index) + w - u(length)
//     <= 0 is proven by subtracting positive multiples of inequalities and
//     bounding what remains by the intervals.
//
// The access is proven when the goal holds at every width asked for, or
// when the facts contradict each other (it never executes).
#include "xpu/Admission/BoundsProof.h"
#include "xpu/Admission/IntegerIntervals.h"
#include "xpu/Dialect/XPU/IR/CoordinateRanges.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using xpu::bounds::Interval;
using llvm::APInt;
using P = arith::CmpIPredicate;

namespace xpu {

namespace {

// Limits that keep a proof cheap; hitting one only loses precision.
constexpr unsigned kMaxDepth = 12;       ///< definitions followed from a value
constexpr unsigned kMaxForms = 6;        ///< linear bounds kept per value
constexpr unsigned kMaxConstraints = 32; ///< inequalities from facts
constexpr unsigned kSearchDepth = 3;     ///< inequalities combined per goal
constexpr unsigned kMaxRounds = 3;       ///< passes tightening intervals by facts
constexpr unsigned kMaxConditionDepth = 16;
/// Linear bounds are exact in this many bits: coefficients and multipliers
/// stay below 2^32 and values below 2^64, and a form is dropped before its
/// terms pass 2^200.
constexpr unsigned kMathBits = 256;
constexpr unsigned kMaxCoefficientBits = 32;

/// `lhs pred rhs` holds wherever the access executes.
struct Fact {
  P pred;
  Value lhs, rhs;
};

//===----------------------------------------------------------------------===//
// Step 1: facts
//===----------------------------------------------------------------------===//

/// Adds what `cond == holds` says: a conjunction that holds, a disjunction
/// that fails, a negation, or a comparison.
void addCondition(Value cond, bool holds, SmallVectorImpl<Fact> &facts,
                  unsigned depth = 0) {
  Operation *def = cond.getDefiningOp();
  if (!def || depth > kMaxConditionDepth || !cond.getType().isInteger(1))
    return;
  if (auto a = dyn_cast<arith::AndIOp>(def)) {
    if (holds) { // a & b is 1 only when both are
      addCondition(a.getLhs(), true, facts, depth + 1);
      addCondition(a.getRhs(), true, facts, depth + 1);
    }
    return;
  }
  if (auto o = dyn_cast<arith::OrIOp>(def)) {
    if (!holds) { // a | b is 0 only when both are
      addCondition(o.getLhs(), false, facts, depth + 1);
      addCondition(o.getRhs(), false, facts, depth + 1);
    }
    return;
  }
  if (auto x = dyn_cast<arith::XOrIOp>(def)) {
    // a ^ 1 is not a; a ^ 0 is a.
    APInt k;
    if (matchPattern(x.getRhs(), m_ConstantInt(&k)))
      addCondition(x.getLhs(), k.isZero() ? holds : !holds, facts, depth + 1);
    else if (matchPattern(x.getLhs(), m_ConstantInt(&k)))
      addCondition(x.getRhs(), k.isZero() ? holds : !holds, facts, depth + 1);
    return;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(def)) {
    if (!cmp.getLhs().getType().isIntOrIndex())
      return; // a vector comparison is not an i1 condition
    P pred = holds ? cmp.getPredicate() : arith::invertPredicate(cmp.getPredicate());
    facts.push_back({pred, cmp.getLhs(), cmp.getRhs()});
  }
}

/// The facts that hold wherever `op` (in `fn`) executes.
SmallVector<Fact> collectFacts(Operation *op, FunctionOpInterface fn,
                               DominanceInfo &dominance) {
  SmallVector<Fact> facts;
  for (Operation *child = op, *parent = op->getParentOp();
       parent && parent != fn.getOperation();
       child = parent, parent = parent->getParentOp()) {
    if (auto ifOp = dyn_cast<scf::IfOp>(parent)) {
      bool inThen = &ifOp.getThenRegion() == child->getParentRegion();
      addCondition(ifOp.getCondition(), inThen, facts);
    } else if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
      // The loop tests iv < ub (signed, or unsigned when marked so) before
      // each run of its body, with ub fixed for the loop.
      facts.push_back({forOp.getUnsignedCmp() ? P::ult : P::slt,
                       forOp.getInductionVar(), forOp.getUpperBound()});
    }
  }
  // A cond_br edge into a block with no other predecessor: its condition
  // held (with its operands' latest values) in every block it dominates.
  Block *block = op->getBlock();
  fn.walk([&](cf::CondBranchOp br) {
    auto edge = [&](Block *dest, bool holds) {
      if (dest->getSinglePredecessor() && dominance.dominates(dest, block))
        addCondition(br.getCondition(), holds, facts);
    };
    if (br.getTrueDest() != br.getFalseDest()) {
      edge(br.getTrueDest(), true);
      edge(br.getFalseDest(), false);
    }
  });
  return facts;
}

//===----------------------------------------------------------------------===//
// Linear bounds over mathematical integers
//===----------------------------------------------------------------------===//

APInt math(int64_t v) { return APInt(kMathBits, uint64_t(v), /*isSigned=*/true); }

/// sum(coef * u(atom)) + c, terms sorted by atom, no zero coefficient.
struct Lin {
  SmallVector<std::pair<unsigned, APInt>, 4> terms;
  APInt c = math(0);

  static Lin atom(unsigned a) {
    Lin l;
    l.terms.push_back({a, math(1)});
    return l;
  }
  static Lin constant(const APInt &c) {
    Lin l;
    l.c = c;
    return l;
  }
  APInt coef(unsigned a) const {
    for (auto &[t, k] : terms)
      if (t == a)
        return k;
    return math(0);
  }
  /// this + k * o
  Lin plus(const Lin &o, const APInt &k) const {
    Lin r;
    r.c = c + k * o.c;
    auto i = terms.begin(), e = terms.end();
    auto j = o.terms.begin(), f = o.terms.end();
    while (i != e || j != f) {
      if (j == f || (i != e && i->first < j->first)) {
        r.terms.push_back(*i++);
      } else if (i == e || j->first < i->first) {
        APInt scaled = k * j->second;
        if (!scaled.isZero())
          r.terms.push_back({j->first, scaled});
        ++j;
      } else {
        APInt sum = i->second + k * j->second;
        if (!sum.isZero())
          r.terms.push_back({i->first, sum});
        ++i, ++j;
      }
    }
    return r;
  }
  Lin plus(const APInt &k) const {
    Lin r = *this;
    r.c += k;
    return r;
  }
  Lin scaled(const APInt &k) const { return Lin().plus(*this, k); }
  /// Too large to combine further without risking overflow of kMathBits.
  bool tooBig() const {
    auto big = [](const APInt &v) { return v.abs().getActiveBits() > 200; };
    if (big(c))
      return true;
    for (auto &[t, k] : terms)
      if (big(k))
        return true;
    return false;
  }
  bool operator==(const Lin &o) const { return c == o.c && terms == o.terms; }
};

//===----------------------------------------------------------------------===//
// Steps 2 and 3: one access at one index width
//===----------------------------------------------------------------------===//

class Proof {
public:
  Proof(Operation *access, Value buffer, Value index, int64_t width,
        unsigned indexBits, ArrayRef<Fact> facts, DominanceInfo &dominance)
      : access(access), buffer(buffer), index(index), width(width),
        indexBits(indexBits), facts(facts), dominance(dominance) {}

  enum class Outcome { unreachable, byRange, byGuard, unproven };
  Outcome run();
  /// The index's largest unsigned value (after facts), for messages.
  APInt indexMax() { return interval(index).umax(); }

private:
  unsigned bitsOf(Type t) const {
    if (t.isIndex())
      return indexBits;
    if (auto i = dyn_cast<IntegerType>(t))
      return i.getWidth();
    return 0;
  }

  Interval interval(Value v, unsigned depth = 0);
  Interval compute(Value v, unsigned depth);
  std::optional<Interval> inductionRange(BlockArgument arg, unsigned depth);
  bool tighten(); ///< false: the facts contradict each other

  unsigned valueAtom(Value v);
  unsigned sizeAtom(Value buffer);
  void forms(Value v, bool upper, unsigned depth, SmallVectorImpl<Lin> &out);
  void productForms(arith::MulIOp mul, SmallVectorImpl<Lin> &out);
  void addConstraints();
  APInt leafBound(const Lin &g) const;
  bool search(const Lin &g, unsigned depth) const;

  Operation *access;
  Value buffer, index;
  int64_t width;
  unsigned indexBits;
  ArrayRef<Fact> facts;
  DominanceInfo &dominance;

  DenseMap<Value, Interval> tightened; ///< by facts
  DenseMap<Value, Interval> memo;      ///< interval() results this round
  struct Atom {
    APInt lo, hi; ///< bounds of its unsigned reading
  };
  SmallVector<Atom> atoms;
  DenseMap<std::pair<void *, unsigned>, unsigned> atomIds; ///< (value, 0) or (buffer, 1)
  SmallVector<Lin> constraints;                        ///< each <= 0
};

Interval Proof::interval(Value v, unsigned depth) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Interval r = compute(v, depth);
  if (auto it = tightened.find(v); it != tightened.end())
    r = r.meet(it->second);
  memo.insert({v, r});
  return r;
}

/// Extension or truncation to `to` bits, as index_cast (signed) or
/// index_castui / extui (unsigned) do.
Interval resize(const Interval &a, unsigned to, bool isSigned) {
  if (to > a.bits())
    return isSigned ? bounds::signExtend(a, to) : bounds::zeroExtend(a, to);
  if (to < a.bits())
    return bounds::truncate(a, to);
  return a;
}

// What a value can hold, from its definition. Anything not listed (loads,
// results of calls, regions and atomics, block arguments other than loop
// counters) may hold any value of its width.
Interval Proof::compute(Value v, unsigned depth) {
  unsigned n = bitsOf(v.getType());
  Interval full = Interval::full(n);
  if (depth > kMaxDepth)
    return full;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return inductionRange(arg, depth).value_or(full);
  Operation *op = v.getDefiningOp();
  // Coordinates, sizes and buffer lengths: what any launch can give them.
  if (auto r = launchValueRange(op, indexBits))
    return Interval::fromUnsigned(APInt(n, r->lo), APInt(n, r->hi));
  // A constant is its bit pattern at the width (an index constant
  // truncated where index is narrower than 64 bits).
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return Interval::constant(c.zextOrTrunc(n));
  auto in = [&](Value x) { return interval(x, depth + 1); };
  auto cast = [&](Value from, bool isSigned) {
    return bitsOf(from.getType()) ? resize(in(from), n, isSigned) : full;
  };
  return llvm::TypeSwitch<Operation *, Interval>(op)
      .Case([&](arith::AddIOp o) { return bounds::add(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::SubIOp o) { return bounds::sub(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::MulIOp o) { return bounds::mul(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::AndIOp o) { return bounds::bitAnd(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::OrIOp o) { return bounds::bitOr(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::XOrIOp o) { return bounds::bitXor(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::ShLIOp o) { return bounds::shl(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::ShRUIOp o) { return bounds::shrU(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::ShRSIOp o) { return bounds::shrS(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::DivUIOp o) { return bounds::divU(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::DivSIOp o) { return bounds::divS(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::RemUIOp o) { return bounds::remU(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::RemSIOp o) { return bounds::remS(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::MinUIOp o) { return bounds::minU(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::MinSIOp o) { return bounds::minS(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::MaxUIOp o) { return bounds::maxU(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::MaxSIOp o) { return bounds::maxS(in(o.getLhs()), in(o.getRhs())); })
      .Case([&](arith::SelectOp o) {
        if (!o.getCondition().getType().isInteger(1))
          return full;
        return bounds::select(in(o.getCondition()), in(o.getTrueValue()),
                              in(o.getFalseValue()));
      })
      .Case([&](arith::CmpIOp o) {
        if (!bitsOf(o.getLhs().getType()))
          return full;
        return bounds::compare(o.getPredicate(), in(o.getLhs()), in(o.getRhs()));
      })
      .Case([&](arith::ExtUIOp o) { return cast(o.getIn(), false); })
      .Case([&](arith::ExtSIOp o) { return cast(o.getIn(), true); })
      .Case([&](arith::TruncIOp o) { return cast(o.getIn(), false); })
      .Case([&](arith::IndexCastOp o) { return cast(o.getIn(), true); })
      .Case([&](arith::IndexCastUIOp o) { return cast(o.getIn(), false); })
      .Default([&](Operation *) { return full; });
}

// scf.for: in the body u/s(iv) < u/s(ub), tested before each run. When the
// step is non-negative and iv + step cannot pass the width's maximum
// (ub.max - 1 + step.max fits), iv only grows from lb, so iv >= lb too.
std::optional<Interval> Proof::inductionRange(BlockArgument arg, unsigned depth) {
  auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
  if (!forOp || arg != forOp.getInductionVar())
    return std::nullopt;
  unsigned n = bitsOf(arg.getType());
  if (!n)
    return std::nullopt;
  Interval lb = interval(forOp.getLowerBound(), depth + 1);
  Interval ub = interval(forOp.getUpperBound(), depth + 1);
  Interval step = interval(forOp.getStep(), depth + 1);
  if (lb.isEmpty() || ub.isEmpty() || step.isEmpty())
    return Interval::empty(n);
  APInt one(n, 1);
  bool ov;
  if (forOp.getUnsignedCmp()) {
    if (ub.umax().isZero())
      return Interval::empty(n); // iv < 0 never holds: the body never runs
    APInt last = ub.umax() - one;
    (void)last.uadd_ov(step.umax(), ov);
    APInt lo = ov ? APInt::getZero(n) : lb.umin();
    return Interval::fromUnsigned(lo, last);
  }
  if (ub.smax().isMinSignedValue())
    return Interval::empty(n);
  APInt last = ub.smax() - one;
  (void)last.sadd_ov(step.smax(), ov);
  APInt lo = ov || step.smin().isNegative() ? APInt::getSignedMinValue(n) : lb.smin();
  return Interval::fromSigned(lo, last);
}

// Each fact removes from its operands' intervals what cannot satisfy it;
// a few passes let tightened operands tighten the values computed from
// them and the other facts. Every step keeps every possible execution.
bool Proof::tighten() {
  for (unsigned round = 0; round < kMaxRounds; ++round) {
    memo.clear();
    bool changed = false;
    for (const Fact &f : facts) {
      if (!bitsOf(f.lhs.getType()))
        continue;
      Interval a = interval(f.lhs), b = interval(f.rhs);
      bounds::refine(f.pred, a, b);
      if (a.isEmpty() || b.isEmpty())
        return false;
      for (auto [v, r] : {std::pair(f.lhs, a), std::pair(f.rhs, b)}) {
        auto [it, inserted] = tightened.insert({v, r});
        Interval met = inserted ? r : it->second.meet(r);
        if (met.isEmpty())
          return false;
        if (inserted || met != it->second) {
          it->second = met;
          changed = true;
        }
      }
    }
    if (!changed)
      break;
  }
  memo.clear();
  return true;
}

unsigned Proof::valueAtom(Value v) {
  auto [it, inserted] = atomIds.insert({{v.getAsOpaquePointer(), 0u}, unsigned(atoms.size())});
  if (inserted) {
    Interval r = interval(v);
    atoms.push_back({r.umin().zext(kMathBits), r.umax().zext(kMathBits)});
  }
  return it->second;
}

// u(length of buffer): all xpu.buffer_size of one buffer yield one value.
unsigned Proof::sizeAtom(Value buf) {
  auto [it, inserted] = atomIds.insert({{buf.getAsOpaquePointer(), 1u}, unsigned(atoms.size())});
  if (!inserted)
    return it->second;
  // What the buffer's type allows, tightened by facts on any of its sizes.
  UnsignedRange range = bufferLengthRange(cast<BufferType>(buf.getType()), indexBits);
  Interval r = Interval::fromUnsigned(APInt(indexBits, range.lo), APInt(indexBits, range.hi));
  for (Operation *user : buf.getUsers())
    if (auto size = dyn_cast<BufferSizeOp>(user))
      if (dominance.properlyDominates(size.getOperation(), access))
        r = r.meet(interval(size.getResult()));
  atoms.push_back({r.umin().zext(kMathBits), r.umax().zext(kMathBits)});
  return it->second;
}

// Linear bounds of u(v): upper bounds (u(v) <= form) or lower bounds
// (u(v) >= form). Each rule names what makes it exact or a bound.
void Proof::forms(Value v, bool upper, unsigned depth, SmallVectorImpl<Lin> &out) {
  unsigned n = bitsOf(v.getType());
  if (!n)
    return;
  auto push = [&](Lin l) {
    if (out.size() < kMaxForms && !l.tooBig() && !llvm::is_contained(out, l))
      out.push_back(std::move(l));
  };
  auto sub = [&](Value x, bool up) {
    SmallVector<Lin, kMaxForms> r;
    forms(x, up, depth + 1, r);
    return r;
  };
  auto pushAll = [&](ArrayRef<Lin> ls) {
    for (const Lin &l : ls)
      push(l);
  };
  // Every form of x, plus k * (every form of y).
  auto pushSums = [&](ArrayRef<Lin> xs, ArrayRef<Lin> ys, const APInt &k) {
    for (const Lin &x : xs)
      for (const Lin &y : ys)
        push(x.plus(y, k));
  };
  Interval iv = interval(v);
  if (iv.isEmpty())
    return;
  if (auto c = iv.singleton()) { // a known value bounds itself exactly
    push(Lin::constant(c->zext(kMathBits)));
    return;
  }
  Operation *op = v.getDefiningOp();
  if (auto size = dyn_cast_if_present<BufferSizeOp>(op)) {
    push(Lin::atom(sizeAtom(size.getBuffer())));
    return;
  }
  push(Lin::atom(valueAtom(v))); // u(v) = u(v)
  if (!op || depth >= kMaxDepth)
    return;
  APInt maxN = APInt::getMaxValue(n).zext(kMathBits);
  // x's bounds when u(op) = u(x) exactly; only upper ones when u(op) <= u(x).
  auto exact = [&](Value x) { pushAll(sub(x, upper)); };
  auto atMost = [&](Value x) {
    if (upper)
      pushAll(sub(x, true));
  };
  // u(a) + s(k) for all u(a) in [lo, hi] stays in [0, 2^n): then
  // u(a + k) = u(a) + s(k), k a constant of any sign.
  auto shiftedStaysInRange = [&](const Interval &a, const APInt &k) {
    APInt sk = k.sext(kMathBits);
    APInt lo = a.umin().zext(kMathBits) + sk, hi = a.umax().zext(kMathBits) + sk;
    return !lo.isNegative() && hi.sle(maxN);
  };
  auto smallCoefficient = [&](const APInt &k) {
    return k.getActiveBits() <= kMaxCoefficientBits;
  };
  bool ov;
  llvm::TypeSwitch<Operation *>(op)
      .Case([&](arith::AddIOp o) {
        Interval a = interval(o.getLhs()), b = interval(o.getRhs());
        // No unsigned wrap (the largest sum fits): u(a + b) = u(a) + u(b).
        (void)a.umax().uadd_ov(b.umax(), ov);
        if (!ov)
          return pushSums(sub(o.getLhs(), upper), sub(o.getRhs(), upper), math(1));
        if (auto k = b.singleton(); k && shiftedStaysInRange(a, *k))
          for (const Lin &x : sub(o.getLhs(), upper))
            push(x.plus(k->sext(kMathBits)));
        if (auto k = a.singleton(); k && shiftedStaysInRange(b, *k))
          for (const Lin &x : sub(o.getRhs(), upper))
            push(x.plus(k->sext(kMathBits)));
      })
      .Case([&](arith::SubIOp o) {
        Interval a = interval(o.getLhs()), b = interval(o.getRhs());
        // No borrow (a >= b always): u(a - b) = u(a) - u(b), so an upper
        // bound of a less a lower bound of b bounds it from above.
        if (a.umin().uge(b.umax()))
          return pushSums(sub(o.getLhs(), upper), sub(o.getRhs(), !upper), math(-1));
        // a - k = a + (-k) mod 2^n: any representative that stays in range
        // is exact.
        if (auto k = b.singleton()) {
          APInt negated = -*k;
          if (shiftedStaysInRange(a, negated))
            for (const Lin &x : sub(o.getLhs(), upper))
              push(x.plus(negated.sext(kMathBits)));
        }
      })
      .Case([&](arith::MulIOp o) {
        Interval a = interval(o.getLhs()), b = interval(o.getRhs());
        // By a constant k that cannot wrap: u(a * k) = k * u(a).
        for (auto [x, ix, k] : {std::tuple(o.getLhs(), a, b), std::tuple(o.getRhs(), b, a)})
          if (auto c = k.singleton(); c && smallCoefficient(*c)) {
            (void)ix.umax().umul_ov(*c, ov);
            if (!ov)
              for (const Lin &l : sub(x, upper))
                push(l.scaled(c->zext(kMathBits)));
          }
        if (upper)
          productForms(o, out);
      })
      .Case([&](arith::ShLIOp o) {
        // x << k = x * 2^k when no bit is shifted out.
        Interval a = interval(o.getLhs());
        if (auto k = interval(o.getRhs()).singleton();
            k && k->ult(std::min(n, kMaxCoefficientBits))) {
          (void)a.umax().ushl_ov(*k, ov);
          if (!ov)
            for (const Lin &l : sub(o.getLhs(), upper))
              push(l.scaled(APInt::getOneBitSet(kMathBits, k->getZExtValue())));
        }
      })
      // x & y <= x, y and min(x, y) <= x, y (unsigned).
      .Case<arith::AndIOp, arith::MinUIOp>([&](Operation *o) {
        atMost(o->getOperand(0));
        atMost(o->getOperand(1));
      })
      // min read signed, when it is >= 0, has both operands >= 0, where
      // the signed and unsigned orders agree.
      .Case([&](arith::MinSIOp o) {
        if (iv.isNonNegative()) {
          atMost(o.getLhs());
          atMost(o.getRhs());
        }
      })
      // x | y >= x, y and max(x, y) >= x, y (unsigned).
      .Case<arith::OrIOp, arith::MaxUIOp>([&](Operation *o) {
        if (!upper) {
          exact(o->getOperand(0));
          exact(o->getOperand(1));
        }
      })
      // maxsi(x, y) >= x >= 0 read signed, so u(max) >= u(x) for x >= 0.
      .Case([&](arith::MaxSIOp o) {
        if (!upper)
          for (Value x : {o.getLhs(), o.getRhs()})
            if (interval(x).isNonNegative())
              exact(x);
      })
      // x %u y < y and <= x, for y >= 1; for x >= 0 and y >= 1 the signed
      // remainder is the unsigned one.
      .Case([&](arith::RemUIOp o) {
        if (interval(o.getRhs()).umin().isZero())
          return;
        atMost(o.getLhs());
        if (upper)
          for (const Lin &l : sub(o.getRhs(), true))
            push(l.plus(math(-1)));
      })
      .Case([&](arith::RemSIOp o) {
        if (!interval(o.getLhs()).isNonNegative() ||
            !interval(o.getRhs()).smin().isStrictlyPositive())
          return;
        atMost(o.getLhs());
        if (upper)
          for (const Lin &l : sub(o.getRhs(), true))
            push(l.plus(math(-1)));
      })
      // x / y <= x for y >= 1 (signed: x >= 0); x >> k <= x (signed: x >= 0).
      .Case([&](arith::DivUIOp o) {
        if (!interval(o.getRhs()).umin().isZero())
          atMost(o.getLhs());
      })
      .Case([&](arith::DivSIOp o) {
        if (interval(o.getLhs()).isNonNegative() &&
            interval(o.getRhs()).smin().isStrictlyPositive())
          atMost(o.getLhs());
      })
      .Case([&](arith::ShRUIOp o) {
        if (interval(o.getRhs()).umax().ult(n))
          atMost(o.getLhs());
      })
      .Case([&](arith::ShRSIOp o) {
        if (interval(o.getLhs()).isNonNegative() && interval(o.getRhs()).umax().ult(n))
          atMost(o.getLhs());
      })
      // A select whose condition the facts decide is that operand.
      .Case([&](arith::SelectOp o) {
        if (!o.getCondition().getType().isInteger(1))
          return;
        if (auto c = interval(o.getCondition()).singleton())
          exact(c->isOne() ? o.getTrueValue() : o.getFalseValue());
      })
      // Casts. Zero extension keeps u(x); sign extension keeps it for
      // x >= 0; truncation keeps it when x fits the narrow width and never
      // makes it larger.
      .Case([&](arith::ExtUIOp o) { exact(o.getIn()); })
      .Case([&](arith::ExtSIOp o) {
        if (interval(o.getIn()).isNonNegative())
          exact(o.getIn());
      })
      .Case([&](arith::TruncIOp o) {
        if (interval(o.getIn()).umax().isIntN(n))
          exact(o.getIn());
        else
          atMost(o.getIn());
      })
      .Case<arith::IndexCastOp, arith::IndexCastUIOp>([&](Operation *o) {
        Value x = o->getOperand(0);
        unsigned from = bitsOf(x.getType());
        if (!from)
          return;
        Interval ix = interval(x);
        bool isSigned = isa<arith::IndexCastOp>(o);
        if (from < n) { // extension
          if (!isSigned || ix.isNonNegative())
            exact(x);
        } else if (from == n || ix.umax().isIntN(n)) {
          exact(x);
        } else {
          atMost(x);
        }
      });
}

// u(x * y) = u(x) * u(y) when the product cannot wrap. A fact u(x) <= u(h) - 1
// (x < h) and a product q = h * y that cannot wrap either and is computed
// before the access give u(x * y) <= (u(h) - 1) * u(y) = u(q) - u(y): the
// row bound of a 2-D index y * w + x with y < h and a check of h * w.
void Proof::productForms(arith::MulIOp mul, SmallVectorImpl<Lin> &out) {
  Value a = mul.getLhs(), b = mul.getRhs();
  bool ov;
  (void)interval(a).umax().umul_ov(interval(b).umax(), ov);
  if (ov)
    return;
  for (auto [x, y] : {std::pair(a, b), std::pair(b, a)}) {
    for (const Fact &f : facts) {
      // x < h in the unsigned reading (signed with x >= 0 agrees).
      Value h;
      bool isSigned = f.pred == P::slt || f.pred == P::sgt;
      if ((f.pred == P::ult || f.pred == P::slt) && f.lhs == x)
        h = f.rhs;
      else if ((f.pred == P::ugt || f.pred == P::sgt) && f.rhs == x)
        h = f.lhs;
      if (!h || (isSigned && !interval(x).isNonNegative()))
        continue;
      (void)interval(h).umax().umul_ov(interval(y).umax(), ov);
      if (ov)
        continue;
      for (Operation *user : h.getUsers()) {
        auto q = dyn_cast<arith::MulIOp>(user);
        if (!q || !dominance.properlyDominates(user, access) ||
            !((q.getLhs() == h && q.getRhs() == y) || (q.getLhs() == y && q.getRhs() == h)))
          continue;
        Lin l = Lin::atom(valueAtom(q.getResult())).plus(Lin::atom(valueAtom(y)), math(-1));
        if (out.size() < kMaxForms && !llvm::is_contained(out, l))
          out.push_back(l);
      }
    }
  }
}

// A fact l < r (or <=) in the unsigned reading gives lower(l) - upper(r)
// + 1 <= 0 for every lower bound of l and upper bound of r. A signed fact
// reads the same when l >= 0: then r > l >= 0 (r >= l >= 0) too, and both
// readings agree. Equality gives <= both ways; `ne` nothing.
void Proof::addConstraints() {
  auto add = [&](Value l, Value r, bool strict) {
    SmallVector<Lin, kMaxForms> lows, ups;
    forms(l, false, 0, lows);
    forms(r, true, 0, ups);
    for (const Lin &lo : lows)
      for (const Lin &up : ups) {
        if (constraints.size() >= kMaxConstraints)
          return;
        Lin c = lo.plus(up, math(-1)).plus(math(strict ? 1 : 0));
        if (!c.tooBig())
          constraints.push_back(std::move(c));
      }
  };
  for (const Fact &f : facts) {
    if (!bitsOf(f.lhs.getType()))
      continue;
    Value l = f.lhs, r = f.rhs;
    P pred = f.pred;
    if (pred == P::ugt || pred == P::uge || pred == P::sgt || pred == P::sge) {
      std::swap(l, r); // l > r is r < l
      pred = pred == P::ugt ? P::ult : pred == P::uge ? P::ule : pred == P::sgt ? P::slt : P::sle;
    }
    switch (pred) {
    case P::ult: add(l, r, true); break;
    case P::ule: add(l, r, false); break;
    case P::slt:
    case P::sle:
      if (interval(l).isNonNegative())
        add(l, r, pred == P::slt);
      break;
    case P::eq:
      add(l, r, false);
      add(r, l, false);
      break;
    default: break;
    }
  }
}

// g's largest value over the atoms' intervals.
APInt Proof::leafBound(const Lin &g) const {
  APInt sum = g.c;
  for (auto &[a, k] : g.terms)
    sum += k * (k.isNegative() ? atoms[a].lo : atoms[a].hi);
  return sum;
}

// g <= 0 follows when g - k * c <= 0 for a constraint c <= 0 and k > 0
// (g = (g - k c) + k c). k is chosen to cancel one of g's atoms.
bool Proof::search(const Lin &g, unsigned depth) const {
  if (!leafBound(g).isStrictlyPositive())
    return true;
  if (depth == 0)
    return false;
  for (const Lin &c : constraints)
    for (auto &[a, kg] : g.terms) {
      APInt kc = c.coef(a);
      if (kc.isZero() || kc.isNegative() != kg.isNegative() || !kg.srem(kc).isZero())
        continue;
      APInt k = kg.sdiv(kc);
      if (k.getActiveBits() > kMaxCoefficientBits)
        continue;
      Lin next = g.plus(c, -k);
      if (!next.tooBig() && search(next, depth - 1))
        return true;
    }
  return false;
}

Proof::Outcome Proof::run() {
  if (!tighten())
    return Outcome::unreachable;
  Interval idx = interval(index);
  if (idx.isEmpty())
    return Outcome::unreachable;
  unsigned size = sizeAtom(buffer);
  APInt w = math(width);
  // The index's interval alone.
  if (!(idx.umax().zext(kMathBits) + w).sgt(atoms[size].lo))
    return Outcome::byRange;
  addConstraints();
  SmallVector<Lin, kMaxForms> ups;
  forms(index, true, 0, ups);
  for (const Lin &up : ups)
    if (search(up.plus(w).plus(Lin::atom(size), math(-1)), kSearchDepth))
      return Outcome::byGuard;
  return Outcome::unproven;
}

/// The buffer, index and element count of an access; false for other ops.
bool accessParts(Operation *op, Value &buffer, Value &index, int64_t &width) {
  width = 1;
  if (auto load = dyn_cast<LoadOp>(op)) {
    buffer = load.getBuffer(), index = load.getIndex(), width = load.getWidth();
    return true;
  }
  if (auto store = dyn_cast<StoreOp>(op)) {
    buffer = store.getBuffer(), index = store.getIndex(), width = store.getWidth();
    return true;
  }
  if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
    buffer = atomic.getBuffer(), index = atomic.getIndex();
    return true;
  }
  return false;
}

} // namespace

BoundsProver::BoundsProver(FunctionOpInterface fn, ArrayRef<unsigned> indexWidths)
    : fn(fn), dominance(fn), widths(indexWidths.begin(), indexWidths.end()) {}

BoundsVerdict BoundsProver::prove(Operation *access) {
  Value buffer, index;
  int64_t width;
  if (!accessParts(access, buffer, index, width))
    return {false, "not a buffer access", std::nullopt};
  SmallVector<Fact> facts = collectFacts(access, fn, dominance);
  bool guarded = false, reachable = false;
  BoundsVerdict unproven{false, "", uint64_t(0)};
  for (unsigned bits : widths) {
    Proof proof(access, buffer, index, width, bits, facts, dominance);
    switch (proof.run()) {
    case Proof::Outcome::unreachable:
      break;
    case Proof::Outcome::byRange:
      reachable = true;
      break;
    case Proof::Outcome::byGuard:
      reachable = guarded = true;
      break;
    case Proof::Outcome::unproven: {
      APInt max = proof.indexMax();
      if (unproven.reason.empty()) {
        auto type = cast<BufferType>(buffer.getType());
        unproven.reason = "with a " + std::to_string(bits) + "-bit index it can reach " +
                          llvm::toString(max, 10, /*Signed=*/false);
        if (type.hasStaticSize())
          unproven.reason += " (the buffer holds " + std::to_string(type.getSize()) + " elements)";
        unproven.reason += ", and no condition that guards it bounds it by the buffer's length";
      }
      // u(index) <= max, so a length of max + width is enough.
      bool ov;
      APInt need = max.zext(65).uadd_ov(APInt(65, uint64_t(width)), ov);
      if (unproven.lengthNeeded && need.isIntN(64))
        unproven.lengthNeeded = std::max(*unproven.lengthNeeded, need.getZExtValue());
      else
        unproven.lengthNeeded = std::nullopt;
      break;
    }
    }
  }
  if (!unproven.reason.empty())
    return unproven;
  return {true,
          !reachable ? "the conditions that guard it cannot all hold"
          : guarded  ? "the conditions that guard it bound the index by the buffer's length"
                     : "the index's range fits the buffer",
          std::nullopt};
}

} // namespace xpu
