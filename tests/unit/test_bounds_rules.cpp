// The bounds prover's parts, rule by rule: every interval transfer function
// and refinement checked against every operand value at 3 bits, the
// launch-value ranges at the real index widths (32 and 64 bits), and the
// proofs that differ between a 32- and a 64-bit index.
#include "unit.h"

#include "xpu/Admission/BoundsProof.h"
#include "xpu/Admission/IntegerIntervals.h"
#include "xpu/Dialect/XPU/IR/CoordinateRanges.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/KernelABI.h"

#include "mlir/Parser/Parser.h"

#include <doctest/doctest.h>

#include <functional>
#include <random>

using llvm::APInt;
using xpu::bounds::Interval;
using P = mlir::arith::CmpIPredicate;

namespace {

bool contains(const Interval &r, const APInt &v) {
  return !r.isEmpty() && v.uge(r.umin()) && v.ule(r.umax()) && v.sge(r.smin()) &&
         v.sle(r.smax());
}

/// Intervals of `n` bits: every unsigned and every signed range, and
/// intersections of the two (which may be two runs of patterns).
std::vector<Interval> intervals(unsigned n) {
  std::vector<Interval> out;
  uint64_t count = uint64_t(1) << n;
  for (uint64_t lo = 0; lo < count; ++lo)
    for (uint64_t hi = lo; hi < count; ++hi) {
      out.push_back(Interval::fromUnsigned(APInt(n, lo), APInt(n, hi)));
      int64_t slo = int64_t(lo) - int64_t(count / 2), shi = int64_t(hi) - int64_t(count / 2);
      out.push_back(Interval::fromSigned(APInt(n, uint64_t(slo), true),
                                         APInt(n, uint64_t(shi), true)));
    }
  std::mt19937 rng(7);
  size_t base = out.size();
  for (int i = 0; i < 60; ++i) {
    Interval m = out[rng() % base].meet(out[rng() % base]);
    if (!m.isEmpty())
      out.push_back(m);
  }
  return out;
}

std::vector<APInt> members(const Interval &r) {
  std::vector<APInt> out;
  unsigned n = r.bits();
  for (uint64_t v = 0; v < (uint64_t(1) << n); ++v)
    if (contains(r, APInt(n, v)))
      out.push_back(APInt(n, v));
  return out;
}

using Binary = std::function<Interval(const Interval &, const Interval &)>;
/// The exact result, or nullopt where the operation is undefined.
using Exact = std::function<std::optional<APInt>(const APInt &, const APInt &)>;

void checkBinary(const char *name, const Binary &f, const Exact &exact) {
  const unsigned n = 3;
  std::vector<Interval> all = intervals(n);
  for (const Interval &a : all)
    for (const Interval &b : all) {
      Interval r = f(a, b);
      for (const APInt &x : members(a))
        for (const APInt &y : members(b)) {
          std::optional<APInt> e = exact(x, y);
          if (!e)
            continue;
          if (!contains(r, *e))
            FAIL(name << "(" << a.str() << ", " << b.str() << ") = " << r.str()
                      << " misses " << x.getZExtValue() << " op " << y.getZExtValue()
                      << " = " << e->getZExtValue());
        }
    }
}

} // namespace

TEST_CASE("bounds intervals: every transfer function contains every exact result") {
  using namespace xpu::bounds;
  auto always = [](auto f) {
    return [f](const APInt &x, const APInt &y) -> std::optional<APInt> { return f(x, y); };
  };
  checkBinary("add", add, always([](auto &x, auto &y) { return x + y; }));
  checkBinary("sub", sub, always([](auto &x, auto &y) { return x - y; }));
  checkBinary("mul", mul, always([](auto &x, auto &y) { return x * y; }));
  checkBinary("and", bitAnd, always([](auto &x, auto &y) { return x & y; }));
  checkBinary("or", bitOr, always([](auto &x, auto &y) { return x | y; }));
  checkBinary("xor", bitXor, always([](auto &x, auto &y) { return x ^ y; }));
  auto shift = [](auto f) {
    return [f](const APInt &x, const APInt &y) -> std::optional<APInt> {
      if (y.uge(x.getBitWidth()))
        return std::nullopt;
      return f(x, y);
    };
  };
  checkBinary("shl", shl, shift([](auto &x, auto &y) { return x.shl(y); }));
  checkBinary("shrui", shrU, shift([](auto &x, auto &y) { return x.lshr(y); }));
  checkBinary("shrsi", shrS, shift([](auto &x, auto &y) { return x.ashr(y); }));
  auto unsignedDiv = [](auto f) {
    return [f](const APInt &x, const APInt &y) -> std::optional<APInt> {
      if (y.isZero())
        return std::nullopt;
      return f(x, y);
    };
  };
  auto signedDiv = [](auto f) {
    return [f](const APInt &x, const APInt &y) -> std::optional<APInt> {
      if (y.isZero() || (y.isAllOnes() && x.isMinSignedValue()))
        return std::nullopt;
      return f(x, y);
    };
  };
  checkBinary("divui", divU, unsignedDiv([](auto &x, auto &y) { return x.udiv(y); }));
  checkBinary("remui", remU, unsignedDiv([](auto &x, auto &y) { return x.urem(y); }));
  checkBinary("divsi", divS, signedDiv([](auto &x, auto &y) { return x.sdiv(y); }));
  checkBinary("remsi", remS, signedDiv([](auto &x, auto &y) { return x.srem(y); }));
  checkBinary("minui", minU, always([](auto &x, auto &y) { return llvm::APIntOps::umin(x, y); }));
  checkBinary("minsi", minS, always([](auto &x, auto &y) { return llvm::APIntOps::smin(x, y); }));
  checkBinary("maxui", maxU, always([](auto &x, auto &y) { return llvm::APIntOps::umax(x, y); }));
  checkBinary("maxsi", maxS, always([](auto &x, auto &y) { return llvm::APIntOps::smax(x, y); }));
  checkBinary("join", [](auto &a, auto &b) { return a.join(b); },
              always([](auto &x, auto &) { return x; }));
  for (int p = 0; p < 10; ++p) {
    P pred = P(p);
    checkBinary("cmpi", [&](auto &a, auto &b) { return compare(pred, a, b); },
                always([&](auto &x, auto &y) {
                  return APInt(1, mlir::arith::applyCmpPredicate(pred, x, y));
                }));
  }
}

TEST_CASE("bounds intervals: casts, select and refinement keep every possible value") {
  using namespace xpu::bounds;
  std::vector<Interval> all = intervals(3);
  for (const Interval &a : all)
    for (unsigned to = 1; to <= 5; ++to) {
      Interval z = to > 3 ? zeroExtend(a, to) : truncate(a, to);
      Interval s = to > 3 ? signExtend(a, to) : truncate(a, to);
      for (const APInt &x : members(a)) {
        CHECK(contains(z, to > 3 ? x.zext(to) : x.trunc(to)));
        CHECK(contains(s, to > 3 ? x.sext(to) : x.trunc(to)));
      }
    }
  std::vector<Interval> conds = {Interval::full(1), Interval::constant(APInt(1, 0)),
                                 Interval::constant(APInt(1, 1))};
  for (const Interval &c : conds)
    for (size_t i = 0; i < all.size(); i += 7)
      for (size_t j = 0; j < all.size(); j += 5) {
        Interval r = select(c, all[i], all[j]);
        for (const APInt &k : members(c))
          for (const APInt &x : members(k.isOne() ? all[i] : all[j]))
            CHECK(contains(r, x));
      }
  // refine removes only values that cannot satisfy the predicate.
  for (int p = 0; p < 10; ++p)
    for (const Interval &a : all)
      for (const Interval &b : all) {
        Interval ra = a, rb = b;
        refine(P(p), ra, rb);
        for (const APInt &x : members(a))
          for (const APInt &y : members(b))
            if (mlir::arith::applyCmpPredicate(P(p), x, y))
              if (!contains(ra, x) || !contains(rb, y))
                FAIL("refine " << mlir::arith::stringifyCmpIPredicate(P(p)).str() << " "
                               << a.str() << ", " << b.str() << " -> " << ra.str() << ", "
                               << rb.str() << " drops " << x.getZExtValue() << ", "
                               << y.getZExtValue());
      }
}

namespace {

struct Parsed {
  unit::Compiler c;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  explicit Parsed(const std::string &text) {
    module = mlir::parseSourceString<mlir::ModuleOp>(text, c.ctx.get());
    REQUIRE(module);
  }
  xpu::KernelOp kernel() { return *module->getOps<xpu::KernelOp>().begin(); }
  template <typename OpT> OpT first() {
    OpT found;
    module->walk([&](OpT op) {
      if (!found)
        found = op;
    });
    REQUIRE(found);
    return found;
  }
  /// The accesses of the kernel, in order.
  std::vector<mlir::Operation *> accesses() {
    std::vector<mlir::Operation *> out;
    module->walk([&](mlir::Operation *op) {
      if (mlir::isa<xpu::LoadOp, xpu::StoreOp, xpu::AtomicRMWOp>(op))
        out.push_back(op);
    });
    return out;
  }
};

std::pair<uint64_t, uint64_t> range(mlir::Operation *op, unsigned bits) {
  auto r = xpu::launchValueRange(op, bits);
  REQUIRE(r);
  return {r->lo, r->hi};
}

} // namespace

TEST_CASE("launch-value ranges at 32- and 64-bit index") {
  Parsed free(R"(xpu.kernel @k(%b: !xpu.buffer<i32>, %s: !xpu.buffer<16xi32>) {
    %g = xpu.global_id x
    %t = xpu.thread_id y
    %w = xpu.workgroup_id z
    %n = xpu.grid_size x
    %gs = xpu.global_size x
    %d = xpu.buffer_size %b : !xpu.buffer<i32>
    %c = xpu.buffer_size %s : !xpu.buffer<16xi32>
    xpu.return
  })");
  const uint64_t maxGlobal64 = 0xFFFFFFFFull * 1024, maxGlobal32 = 0x7FFFFFFF;
  CHECK(xpu::abi::maxGlobalExtent(64) == maxGlobal64);
  CHECK(xpu::abi::maxGlobalExtent(32) == maxGlobal32);
  auto g = free.first<xpu::GlobalIdOp>();
  CHECK(range(g, 64) == std::pair<uint64_t, uint64_t>(0, maxGlobal64 - 1));
  // With a 32-bit index the Vulkan backend keeps global sizes below 2^31.
  CHECK(range(g, 32) == std::pair<uint64_t, uint64_t>(0, maxGlobal32 - 1));
  CHECK(range(free.first<xpu::ThreadIdOp>(), 32) == std::pair<uint64_t, uint64_t>(0, 1023));
  CHECK(range(free.first<xpu::WorkgroupIdOp>(), 64) ==
        std::pair<uint64_t, uint64_t>(0, 0xFFFFFFFEull));
  CHECK(range(free.first<xpu::WorkgroupIdOp>(), 32) ==
        std::pair<uint64_t, uint64_t>(0, maxGlobal32 - 1));
  CHECK(range(free.first<xpu::GridSizeOp>(), 64) == std::pair<uint64_t, uint64_t>(1, 0xFFFFFFFFull));
  CHECK(range(free.first<xpu::GlobalSizeOp>(), 64) == std::pair<uint64_t, uint64_t>(1, maxGlobal64));
  std::vector<xpu::BufferSizeOp> sizes;
  free.module->walk([&](xpu::BufferSizeOp op) { sizes.push_back(op); });
  CHECK(range(sizes[0], 64) == std::pair<uint64_t, uint64_t>(0, (uint64_t(1) << 62) - 1));
  CHECK(range(sizes[0], 32) == std::pair<uint64_t, uint64_t>(0, 0xFFFFFFFFull));
  CHECK(range(sizes[1], 32) == std::pair<uint64_t, uint64_t>(16, 16));

  // shared/repros/soundness/elided-check.mlir: grid * workgroup overflowed
  // int64. A fixed extent no launch can pass is ignored (and admission
  // refuses the kernel with XPU-PT002): the range stays what a launch gives.
  Parsed elided(R"(xpu.kernel @k(%out: !xpu.buffer<16xi32>)
      attributes {workgroup_size = array<i64: 2>, grid_size = array<i64: 4611686018427387920>} {
    %g = xpu.global_id x
    %c = arith.constant 7 : i32
    xpu.store %c, %out[%g] : !xpu.buffer<16xi32>
    xpu.return
  })");
  auto eg = elided.first<xpu::GlobalIdOp>();
  CHECK(range(eg, 64) == std::pair<uint64_t, uint64_t>(0, 2 * 0xFFFFFFFFull - 1));
  // The same through MLIR's InferIntRangeInterface.
  std::optional<mlir::ConstantIntRanges> inferred;
  eg.inferResultRanges({}, [&](mlir::Value, const mlir::ConstantIntRanges &r) { inferred = r; });
  REQUIRE(inferred);
  CHECK(inferred->umax().getZExtValue() == 2 * 0xFFFFFFFFull - 1);
  CHECK(inferred->smin().getSExtValue() == 0);
  xpu::BoundsProver prover(elided.kernel());
  CHECK_FALSE(prover.provesInBounds(elided.accesses()[0]));

  Parsed fixed(R"(xpu.kernel @k(%out: !xpu.buffer<16xi32>)
      attributes {workgroup_size = array<i64: 2, 3>, grid_size = array<i64: 8>} {
    %g = xpu.global_id x
    %t = xpu.thread_id y
    %c = arith.constant 7 : i32
    xpu.store %c, %out[%g] : !xpu.buffer<16xi32>
    xpu.return
  })");
  CHECK(range(fixed.first<xpu::GlobalIdOp>(), 32) == std::pair<uint64_t, uint64_t>(0, 15));
  // Not proven for a dynamic buffer, but in bounds for any of 16 or more.
  Parsed dynamic(R"(xpu.kernel @k(%out: !xpu.buffer<i32>, %n: i64)
      attributes {workgroup_size = array<i64: 2, 3>, grid_size = array<i64: 8>} {
    %g = xpu.global_id x
    %c = arith.constant 7 : i32
    xpu.store %c, %out[%g] : !xpu.buffer<i32>
    %v = xpu.load %out[%g] : !xpu.buffer<i32> -> vector<2xi32>
    %p = arith.index_cast %n : i64 to index
    %q = xpu.load %out[%p] : !xpu.buffer<i32>
    xpu.return
  })");
  xpu::BoundsProver dynamicProver(dynamic.kernel());
  xpu::BoundsVerdict store = dynamicProver.prove(dynamic.accesses()[0]);
  CHECK_FALSE(store.proven);
  CHECK(store.lengthNeeded == 16);
  CHECK(dynamicProver.prove(dynamic.accesses()[1]).lengthNeeded == 17);
  CHECK(dynamicProver.prove(dynamic.accesses()[2]).lengthNeeded == std::nullopt);
  CHECK(range(fixed.first<xpu::ThreadIdOp>(), 64) == std::pair<uint64_t, uint64_t>(0, 2));
  xpu::BoundsProver fixedProver(fixed.kernel());
  CHECK(fixedProver.provesInBounds(fixed.accesses()[0]));
}

TEST_CASE("bounds proofs that depend on the index width") {
  // A 64-bit guard on the value that becomes the index: with a 32-bit index
  // the cast truncates, but the guard keeps the value below 2^32 - 1.
  Parsed guarded(R"(xpu.kernel @k(%b: !xpu.buffer<i32>, %p: i64) {
    %n = xpu.buffer_size %b : !xpu.buffer<i32>
    %n64 = arith.index_castui %n : index to i64
    %ok = arith.cmpi ult, %p, %n64 : i64
    scf.if %ok {
      %i = arith.index_cast %p : i64 to index
      %v = xpu.load %b[%i] : !xpu.buffer<i32>
    }
    xpu.return
  })");
  xpu::BoundsProver both(guarded.kernel());
  CHECK(both.provesInBounds(guarded.accesses()[0]));

  // A guard on a truncated value bounds the truncation, not the wide value:
  // with a 32-bit index, p = 2^32 + 4 passes t = 4 < size while
  // trunc(p >> 1) = 2^31 + 2 is far out of bounds.
  Parsed truncated(R"(xpu.kernel @k(%b: !xpu.buffer<i32>, %p: i64) {
    %t = arith.index_cast %p : i64 to index
    %n = xpu.buffer_size %b : !xpu.buffer<i32>
    %ok = arith.cmpi ult, %t, %n : index
    scf.if %ok {
      %c1 = arith.constant 1 : i64
      %half = arith.shrui %p, %c1 : i64
      %i = arith.index_cast %half : i64 to index
      %v = xpu.load %b[%i] : !xpu.buffer<i32>
    }
    xpu.return
  })");
  mlir::Operation *halfLoad = truncated.accesses()[0];
  CHECK(xpu::BoundsProver(truncated.kernel(), {64}).provesInBounds(halfLoad));
  CHECK_FALSE(xpu::BoundsProver(truncated.kernel(), {32}).provesInBounds(halfLoad));

  // w * h <= size bounds y * w + x only where the products cannot wrap:
  // with a 64-bit index (i32 extents) but not with a 32-bit one.
  Parsed twoD(R"(xpu.kernel @k(%img: !xpu.buffer<f32>, %w32: i32, %h32: i32) {
    %x = xpu.global_id x
    %y = xpu.global_id y
    %w = arith.index_castui %w32 : i32 to index
    %h = arith.index_castui %h32 : i32 to index
    %size = xpu.buffer_size %img : !xpu.buffer<f32>
    %wh = arith.muli %h, %w : index
    %inx = arith.cmpi ult, %x, %w : index
    %iny = arith.cmpi ult, %y, %h : index
    %fits = arith.cmpi ule, %wh, %size : index
    %a = arith.andi %inx, %iny : i1
    %ok = arith.andi %a, %fits : i1
    scf.if %ok {
      %row = arith.muli %y, %w : index
      %at = arith.addi %row, %x : index
      %v = xpu.load %img[%at] : !xpu.buffer<f32>
    }
    xpu.return
  })");
  mlir::Operation *load = twoD.accesses()[0];
  CHECK(xpu::BoundsProver(twoD.kernel(), {64}).provesInBounds(load));
  xpu::BoundsVerdict at32 = xpu::BoundsProver(twoD.kernel(), {32}).prove(load);
  CHECK_FALSE(at32.proven);
  CHECK(at32.reason.find("32-bit index") != std::string::npos);
  CHECK_FALSE(xpu::BoundsProver(twoD.kernel()).provesInBounds(load));

  // A signed grid-stride loop: the counter stays below 2^62 + 2^42 with a
  // 64-bit index, but can wrap past 2^31 - 1 with a 32-bit one.
  Parsed stride(R"(xpu.kernel @k(%b: !xpu.buffer<f32>) {
    %g = xpu.global_id x
    %step = xpu.global_size x
    %n = xpu.buffer_size %b : !xpu.buffer<f32>
    scf.for %i = %g to %n step %step {
      %v = xpu.load %b[%i] : !xpu.buffer<f32>
    }
    xpu.return
  })");
  CHECK(xpu::BoundsProver(stride.kernel(), {64}).provesInBounds(stride.accesses()[0]));
  CHECK_FALSE(xpu::BoundsProver(stride.kernel(), {32}).provesInBounds(stride.accesses()[0]));

  // An index constant of 2^32 + 3: 3 with a 32-bit index, past the buffer
  // with a 64-bit one.
  Parsed wide(R"(xpu.kernel @k(%b: !xpu.buffer<16xi32>) {
    %k = arith.constant 4294967299 : index
    %v = xpu.load %b[%k] : !xpu.buffer<16xi32>
    xpu.return
  })");
  CHECK(xpu::BoundsProver(wide.kernel(), {32}).provesInBounds(wide.accesses()[0]));
  CHECK_FALSE(xpu::BoundsProver(wide.kernel(), {64}).provesInBounds(wide.accesses()[0]));
}
