// Intervals of n-bit integers and the transfer functions of arith
// operations over them; see IntegerIntervals.h. Each rule's comment says
// why its result contains every exact result.
#include "xpu/Admission/IntegerIntervals.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

using llvm::APInt;
using mlir::arith::CmpIPredicate;
namespace APIntOps = llvm::APIntOps;

namespace xpu::bounds {

//===----------------------------------------------------------------------===//
// The domain
//===----------------------------------------------------------------------===//

Interval::Interval(APInt ulo, APInt uhi, APInt slo, APInt shi, bool none)
    : ulo(std::move(ulo)), uhi(std::move(uhi)), slo(std::move(slo)),
      shi(std::move(shi)), none(none) {
  normalize();
}

Interval Interval::full(unsigned bits) {
  return Interval(APInt::getZero(bits), APInt::getMaxValue(bits),
                  APInt::getSignedMinValue(bits), APInt::getSignedMaxValue(bits),
                  false);
}

Interval Interval::empty(unsigned bits) {
  APInt z = APInt::getZero(bits);
  return Interval(z, z, z, z, true);
}

Interval Interval::constant(const APInt &value) {
  return Interval(value, value, value, value, false);
}

Interval Interval::fromUnsigned(const APInt &lo, const APInt &hi) {
  unsigned n = lo.getBitWidth();
  if (lo.ugt(hi))
    return empty(n);
  return Interval(lo, hi, APInt::getSignedMinValue(n), APInt::getSignedMaxValue(n),
                  false);
}

Interval Interval::fromSigned(const APInt &lo, const APInt &hi) {
  unsigned n = lo.getBitWidth();
  if (lo.sgt(hi))
    return empty(n);
  return Interval(APInt::getZero(n), APInt::getMaxValue(n), lo, hi, false);
}

std::optional<APInt> Interval::singleton() const {
  if (!none && ulo == uhi)
    return ulo;
  return std::nullopt;
}

// The set is {x : ulo <=u x <=u uhi and slo <=s x <=s shi}. The signed range
// covers one or two runs of unsigned patterns (two when it crosses zero);
// intersecting them with the unsigned range gives the exact set as at most
// two unsigned runs, whose hulls in either reading are the new bounds.
void Interval::normalize() {
  if (none)
    return;
  unsigned n = bits();
  llvm::SmallVector<std::pair<APInt, APInt>, 2> runs;
  auto addRun = [&](const APInt &lo, const APInt &hi) {
    APInt l = APIntOps::umax(lo, ulo), h = APIntOps::umin(hi, uhi);
    if (l.ule(h))
      runs.push_back({l, h});
  };
  if (slo.isNegative() == shi.isNegative()) {
    addRun(slo, shi); // one sign: the patterns keep their order
  } else {
    addRun(APInt::getZero(n), shi); // [0, shi], then [slo, -1]
    addRun(slo, APInt::getMaxValue(n));
  }
  if (runs.empty()) {
    none = true;
    return;
  }
  ulo = runs.front().first;
  uhi = runs.back().second;
  bool first = true;
  auto addSigned = [&](const APInt &lo, const APInt &hi) {
    slo = first ? lo : APIntOps::smin(slo, lo);
    shi = first ? hi : APIntOps::smax(shi, hi);
    first = false;
  };
  for (auto &[lo, hi] : runs) {
    if (lo.isNegative() == hi.isNegative()) {
      addSigned(lo, hi);
    } else { // the run crosses 2^(n-1): [lo, SMAX] and [SMIN, hi]
      addSigned(lo, APInt::getSignedMaxValue(n));
      addSigned(APInt::getSignedMinValue(n), hi);
    }
  }
}

Interval Interval::meet(const Interval &o) const {
  if (none || o.none)
    return empty(bits());
  APInt l = APIntOps::umax(ulo, o.ulo), h = APIntOps::umin(uhi, o.uhi);
  APInt sl = APIntOps::smax(slo, o.slo), sh = APIntOps::smin(shi, o.shi);
  if (l.ugt(h) || sl.sgt(sh))
    return empty(bits());
  return Interval(l, h, sl, sh, false);
}

Interval Interval::join(const Interval &o) const {
  if (none)
    return o;
  if (o.none)
    return *this;
  return Interval(APIntOps::umin(ulo, o.ulo), APIntOps::umax(uhi, o.uhi),
                  APIntOps::smin(slo, o.slo), APIntOps::smax(shi, o.shi), false);
}

bool Interval::operator==(const Interval &o) const {
  if (none || o.none)
    return none == o.none;
  return ulo == o.ulo && uhi == o.uhi && slo == o.slo && shi == o.shi;
}

std::string Interval::str() const {
  if (none)
    return "empty";
  if (bits() > 64)
    return "i" + std::to_string(bits());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "u[" << ulo.getZExtValue() << ", " << uhi.getZExtValue() << "] s["
     << slo.getSExtValue() << ", " << shi.getSExtValue() << "]";
  return s;
}

//===----------------------------------------------------------------------===//
// Transfer functions
//===----------------------------------------------------------------------===//

namespace {

Interval fullLike(const Interval &a) { return Interval::full(a.bits()); }

bool anyEmpty(const Interval &a, const Interval &b) {
  return a.isEmpty() || b.isEmpty();
}

/// The patterns below 2^k: [0, 2^k - 1] for the smallest k that holds `v`.
APInt bitsUpTo(const APInt &v) {
  return APInt::getLowBitsSet(v.getBitWidth(), v.getActiveBits());
}

} // namespace

// Unsigned: a+b is monotone in both operands; if the largest sum does not
// pass 2^n no sum wraps, and if the smallest passes it every sum wraps
// exactly once, which keeps the order. Signed: the same with the signed
// extremes, kept only when neither extreme sum overflows.
Interval add(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  Interval u = fullLike(a), s = fullLike(a);
  bool ovLo, ovHi;
  APInt lo = a.umin().uadd_ov(b.umin(), ovLo), hi = a.umax().uadd_ov(b.umax(), ovHi);
  if (ovLo == ovHi)
    u = Interval::fromUnsigned(lo, hi);
  bool sLo, sHi;
  APInt l = a.smin().sadd_ov(b.smin(), sLo), h = a.smax().sadd_ov(b.smax(), sHi);
  if (!sLo && !sHi)
    s = Interval::fromSigned(l, h);
  return u.meet(s);
}

// a-b is increasing in a and decreasing in b: the extremes are
// amin-bmax and amax-bmin. Unsigned: no difference borrows when
// amin >= bmax, every one borrows (once, keeping order) when amax < bmin.
Interval sub(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  Interval u = fullLike(a), s = fullLike(a);
  if (a.umin().uge(b.umax()) || a.umax().ult(b.umin()))
    u = Interval::fromUnsigned(a.umin() - b.umax(), a.umax() - b.umin());
  bool sLo, sHi;
  APInt l = a.smin().ssub_ov(b.smax(), sLo), h = a.smax().ssub_ov(b.smin(), sHi);
  if (!sLo && !sHi)
    s = Interval::fromSigned(l, h);
  return u.meet(s);
}

// Unsigned: the product is monotone; if the largest does not overflow none
// does. Signed: a bilinear function takes its extremes at the corners, so
// if no corner product overflows no product does.
Interval mul(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  Interval u = fullLike(a), s = fullLike(a);
  bool ov;
  APInt hi = a.umax().umul_ov(b.umax(), ov);
  if (!ov)
    u = Interval::fromUnsigned(a.umin() * b.umin(), hi);
  const APInt *as[] = {&a.smin(), &a.smax()}, *bs[] = {&b.smin(), &b.smax()};
  bool anyOv = false;
  std::optional<APInt> l, h;
  for (const APInt *x : as)
    for (const APInt *y : bs) {
      APInt p = x->smul_ov(*y, ov);
      anyOv |= ov;
      l = l ? APIntOps::smin(*l, p) : p;
      h = h ? APIntOps::smax(*h, p) : p;
    }
  if (!anyOv)
    s = Interval::fromSigned(*l, *h);
  return u.meet(s);
}

// x & y has no bit that either lacks: it is at most each operand read
// unsigned. Both negative: the sign bit survives.
Interval bitAnd(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  unsigned n = a.bits();
  Interval r = Interval::fromUnsigned(APInt::getZero(n), APIntOps::umin(a.umax(), b.umax()));
  if (a.smax().isNegative() && b.smax().isNegative())
    r = r.meet(Interval::fromSigned(APInt::getSignedMinValue(n), APInt::getAllOnes(n)));
  return r;
}

// x | y keeps every bit of each operand (so it is at least each, read
// unsigned) and sets none above the highest either has. Either negative:
// the sign bit is set.
Interval bitOr(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  unsigned n = a.bits();
  Interval r = Interval::fromUnsigned(APIntOps::umax(a.umin(), b.umin()),
                                      bitsUpTo(APIntOps::umax(a.umax(), b.umax())));
  if (a.smax().isNegative() || b.smax().isNegative())
    r = r.meet(Interval::fromSigned(APInt::getSignedMinValue(n), APInt::getAllOnes(n)));
  return r;
}

// x ^ y sets no bit above the highest either operand has.
Interval bitXor(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  unsigned n = a.bits();
  return Interval::fromUnsigned(APInt::getZero(n),
                                bitsUpTo(APIntOps::umax(a.umax(), b.umax())));
}

/// A shift amount that is always below the width (otherwise the result is
/// undefined and nothing is claimed).
static bool shiftInRange(const Interval &amount) {
  return amount.umax().ult(amount.bits());
}

// x << k = x * 2^k: monotone in both; if the largest does not lose bits,
// none does.
Interval shl(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (!shiftInRange(b))
    return fullLike(a);
  bool ov;
  APInt hi = a.umax().ushl_ov(b.umax(), ov);
  if (ov)
    return fullLike(a);
  return Interval::fromUnsigned(a.umin().shl(b.umin()), hi);
}

// x >>u k decreases in k and increases in x.
Interval shrU(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (!shiftInRange(b))
    return fullLike(a);
  return Interval::fromUnsigned(a.umin().lshr(b.umax()), a.umax().lshr(b.umin()));
}

// x >>s k increases in x; for a fixed x it moves toward 0 or -1 as k
// grows, so the extremes are at the corners.
Interval shrS(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (!shiftInRange(b))
    return fullLike(a);
  APInt lo = APIntOps::smin(a.smin().ashr(b.umin()), a.smin().ashr(b.umax()));
  APInt hi = APIntOps::smax(a.smax().ashr(b.umin()), a.smax().ashr(b.umax()));
  return Interval::fromSigned(lo, hi);
}

// x /u y for y >= 1: increases in x, decreases in y.
Interval divU(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (b.umin().isZero())
    return fullLike(a);
  return Interval::fromUnsigned(a.umin().udiv(b.umax()), a.umax().udiv(b.umin()));
}

// Both operands >= 0 and y >= 1: the same as unsigned division (no
// INT_MIN / -1 overflow can occur).
Interval divS(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (!a.isNonNegative() || !b.smin().isStrictlyPositive())
    return fullLike(a);
  return divU(a, b);
}

// x %u y for y >= 1 is below y and at most x; it is x when x < y.
Interval remU(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (b.umin().isZero())
    return fullLike(a);
  if (a.umax().ult(b.umin()))
    return a;
  return Interval::fromUnsigned(APInt::getZero(a.bits()),
                                APIntOps::umin(a.umax(), b.umax() - 1));
}

// x %s y for y >= 1 has the sign of x and magnitude below y (y = -1, the
// only overflowing divisor, is excluded).
Interval remS(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  if (!b.smin().isStrictlyPositive())
    return fullLike(a);
  if (a.isNonNegative())
    return remU(a, b);
  APInt m = b.smax() - 1;
  APInt lo = -m, hi = m;
  if (a.smax().isNegative() || a.smax().isZero())
    hi = APInt::getZero(a.bits());
  return Interval::fromSigned(lo, hi);
}

// min and max are monotone in both operands in their own reading.
Interval minU(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  return Interval::fromUnsigned(APIntOps::umin(a.umin(), b.umin()),
                                APIntOps::umin(a.umax(), b.umax()));
}
Interval minS(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  return Interval::fromSigned(APIntOps::smin(a.smin(), b.smin()),
                              APIntOps::smin(a.smax(), b.smax()));
}
Interval maxU(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  return Interval::fromUnsigned(APIntOps::umax(a.umin(), b.umin()),
                                APIntOps::umax(a.umax(), b.umax()));
}
Interval maxS(const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(a.bits());
  return Interval::fromSigned(APIntOps::smax(a.smin(), b.smin()),
                              APIntOps::smax(a.smax(), b.smax()));
}

// One operand when the condition is known, else either.
Interval select(const Interval &cond, const Interval &a, const Interval &b) {
  if (cond.isEmpty())
    return Interval::empty(a.bits());
  if (auto c = cond.singleton())
    return c->isOne() ? a : b;
  return a.join(b);
}

// Zero extension keeps the unsigned reading; sign extension the signed one.
Interval zeroExtend(const Interval &a, unsigned bits) {
  if (a.isEmpty())
    return Interval::empty(bits);
  return Interval::fromUnsigned(a.umin().zext(bits), a.umax().zext(bits));
}
Interval signExtend(const Interval &a, unsigned bits) {
  if (a.isEmpty())
    return Interval::empty(bits);
  return Interval::fromSigned(a.smin().sext(bits), a.smax().sext(bits));
}

// Truncation keeps a range whose values already fit the narrow width (in
// either reading); otherwise the low bits may take any value.
Interval truncate(const Interval &a, unsigned bits) {
  if (a.isEmpty())
    return Interval::empty(bits);
  Interval r = Interval::full(bits);
  if (a.umax().isIntN(bits))
    r = r.meet(Interval::fromUnsigned(a.umin().trunc(bits), a.umax().trunc(bits)));
  if (a.smin().isSignedIntN(bits) && a.smax().isSignedIntN(bits))
    r = r.meet(Interval::fromSigned(a.smin().trunc(bits), a.smax().trunc(bits)));
  return r;
}

namespace {

/// Whether `a pred b` holds for all values (true), for none (false), or
/// neither is known.
std::optional<bool> decide(CmpIPredicate pred, const Interval &a, const Interval &b) {
  using P = CmpIPredicate;
  switch (pred) {
  case P::ult:
    if (a.umax().ult(b.umin())) return true;
    if (a.umin().uge(b.umax())) return false;
    return std::nullopt;
  case P::ule:
    if (a.umax().ule(b.umin())) return true;
    if (a.umin().ugt(b.umax())) return false;
    return std::nullopt;
  case P::slt:
    if (a.smax().slt(b.smin())) return true;
    if (a.smin().sge(b.smax())) return false;
    return std::nullopt;
  case P::sle:
    if (a.smax().sle(b.smin())) return true;
    if (a.smin().sgt(b.smax())) return false;
    return std::nullopt;
  case P::ugt: return decide(P::ult, b, a);
  case P::uge: return decide(P::ule, b, a);
  case P::sgt: return decide(P::slt, b, a);
  case P::sge: return decide(P::sle, b, a);
  case P::eq: {
    auto x = a.singleton(), y = b.singleton();
    if (x && y && *x == *y) return true;
    if (a.meet(b).isEmpty()) return false;
    return std::nullopt;
  }
  case P::ne:
    if (auto e = decide(P::eq, a, b)) return !*e;
    return std::nullopt;
  }
  return std::nullopt;
}

} // namespace

Interval compare(CmpIPredicate pred, const Interval &a, const Interval &b) {
  if (anyEmpty(a, b))
    return Interval::empty(1);
  if (auto d = decide(pred, a, b))
    return Interval::constant(APInt(1, *d ? 1 : 0));
  return Interval::full(1);
}

// a < b bounds a by b's largest value less one, and b by a's smallest plus
// one (in the predicate's reading); <= without the one. An extreme that
// has no neighbour (a < 0 unsigned) leaves the side empty.
void refine(CmpIPredicate pred, Interval &a, Interval &b) {
  using P = CmpIPredicate;
  if (a.isEmpty() || b.isEmpty()) {
    a = b = Interval::empty(a.bits());
    return;
  }
  unsigned n = a.bits();
  APInt zero = APInt::getZero(n), umax = APInt::getMaxValue(n);
  APInt smin = APInt::getSignedMinValue(n), smax = APInt::getSignedMaxValue(n);
  switch (pred) {
  case P::ult: {
    Interval na = b.umax().isZero() ? Interval::empty(n)
                                    : a.meet(Interval::fromUnsigned(zero, b.umax() - 1));
    Interval nb = a.umin().isAllOnes() ? Interval::empty(n)
                                       : b.meet(Interval::fromUnsigned(a.umin() + 1, umax));
    a = na, b = nb;
    return;
  }
  case P::ule: {
    Interval na = a.meet(Interval::fromUnsigned(zero, b.umax()));
    Interval nb = b.meet(Interval::fromUnsigned(a.umin(), umax));
    a = na, b = nb;
    return;
  }
  case P::slt: {
    Interval na = b.smax().isMinSignedValue()
                      ? Interval::empty(n)
                      : a.meet(Interval::fromSigned(smin, b.smax() - 1));
    Interval nb = a.smin().isMaxSignedValue()
                      ? Interval::empty(n)
                      : b.meet(Interval::fromSigned(a.smin() + 1, smax));
    a = na, b = nb;
    return;
  }
  case P::sle: {
    Interval na = a.meet(Interval::fromSigned(smin, b.smax()));
    Interval nb = b.meet(Interval::fromSigned(a.smin(), smax));
    a = na, b = nb;
    return;
  }
  case P::ugt: return refine(P::ult, b, a);
  case P::uge: return refine(P::ule, b, a);
  case P::sgt: return refine(P::slt, b, a);
  case P::sge: return refine(P::sle, b, a);
  case P::eq:
    a = b = a.meet(b);
    return;
  case P::ne: {
    // Only a singleton on one side can be cut off the other's ends.
    auto cut = [&](Interval &x, const APInt &c) {
      if (x.singleton() == c) {
        x = Interval::empty(n);
        return;
      }
      if (x.umin() == c)
        x = x.meet(Interval::fromUnsigned(c + 1, umax));
      else if (x.umax() == c)
        x = x.meet(Interval::fromUnsigned(zero, c - 1));
      if (x.smin() == c)
        x = x.meet(Interval::fromSigned(c + 1, smax));
      else if (x.smax() == c)
        x = x.meet(Interval::fromSigned(smin, c - 1));
    };
    if (auto c = b.singleton())
      cut(a, *c);
    else if (auto c = a.singleton())
      cut(b, *c);
    return;
  }
  }
}

} // namespace xpu::bounds
