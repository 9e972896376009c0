// The value sets a bounds proof computes with. For an integer of n bits an
// Interval is the set of bit patterns that lie both in an unsigned range
// [umin, umax] and in a signed range [smin, smax]; keeping both views lets
// a proof use whichever the operation's signedness needs.
//
// Every transfer function follows the operation's two's-complement
// semantics at n bits (results wrap modulo 2^n) and returns a superset of
// the exact result set. None trusts an overflow flag (`nsw`, `nuw`): a
// kernel's flags are its own claims. Operations that are undefined for
// some operands (division by zero, shifts by n or more) give the full
// range whenever such an operand is possible.
#pragma once

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/APInt.h"

#include <optional>
#include <string>

namespace xpu::bounds {

class Interval {
public:
  static Interval full(unsigned bits);
  static Interval empty(unsigned bits);
  static Interval constant(const llvm::APInt &value);
  /// The patterns in [lo, hi] read unsigned (empty when lo > hi).
  static Interval fromUnsigned(const llvm::APInt &lo, const llvm::APInt &hi);
  /// The patterns in [lo, hi] read signed (empty when lo > hi).
  static Interval fromSigned(const llvm::APInt &lo, const llvm::APInt &hi);

  unsigned bits() const { return ulo.getBitWidth(); }
  bool isEmpty() const { return none; }
  const llvm::APInt &umin() const { return ulo; }
  const llvm::APInt &umax() const { return uhi; }
  const llvm::APInt &smin() const { return slo; }
  const llvm::APInt &smax() const { return shi; }
  /// Every value is >= 0 read signed (so both readings agree).
  bool isNonNegative() const { return !none && !slo.isNegative(); }
  std::optional<llvm::APInt> singleton() const;

  Interval meet(const Interval &o) const; ///< intersection
  Interval join(const Interval &o) const; ///< a superset of the union
  bool operator==(const Interval &o) const;
  bool operator!=(const Interval &o) const { return !(*this == o); }
  std::string str() const;

private:
  Interval(llvm::APInt ulo, llvm::APInt uhi, llvm::APInt slo, llvm::APInt shi,
           bool none);
  /// Tightens each view by the other (the set is their intersection).
  void normalize();

  llvm::APInt ulo, uhi, slo, shi;
  bool none = false;
};

// Transfer functions of arith operations at the operands' width.
Interval add(const Interval &a, const Interval &b);
Interval sub(const Interval &a, const Interval &b);
Interval mul(const Interval &a, const Interval &b);
Interval bitAnd(const Interval &a, const Interval &b);
Interval bitOr(const Interval &a, const Interval &b);
Interval bitXor(const Interval &a, const Interval &b);
Interval shl(const Interval &a, const Interval &b);
Interval shrU(const Interval &a, const Interval &b);
Interval shrS(const Interval &a, const Interval &b);
Interval divU(const Interval &a, const Interval &b);
Interval divS(const Interval &a, const Interval &b);
Interval remU(const Interval &a, const Interval &b);
Interval remS(const Interval &a, const Interval &b);
Interval minU(const Interval &a, const Interval &b);
Interval minS(const Interval &a, const Interval &b);
Interval maxU(const Interval &a, const Interval &b);
Interval maxS(const Interval &a, const Interval &b);
Interval select(const Interval &cond, const Interval &a, const Interval &b);
Interval zeroExtend(const Interval &a, unsigned bits);
Interval signExtend(const Interval &a, unsigned bits);
Interval truncate(const Interval &a, unsigned bits);
/// The i1 result of `cmpi pred, a, b`.
Interval compare(mlir::arith::CmpIPredicate pred, const Interval &a,
                 const Interval &b);

/// Given that `a pred b` holds, removes from `a` and `b` the values that
/// cannot take part in it (either may become empty: the fact is
/// impossible).
void refine(mlir::arith::CmpIPredicate pred, Interval &a, Interval &b);

} // namespace xpu::bounds
