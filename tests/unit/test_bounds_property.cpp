// Property test of the bounds prover (mlir/lib/Admission/BoundsProof.cpp):
// it draws random kernels — index and guard expressions over arith add,
// sub, mul, and/or/xor, shifts, division, min/max, select, casts, signed
// and unsigned compares, and/or/not of conditions, constants including
// negative and near-overflow ones, scf.if / cf.cond_br guards and scf.for
// loops — asks the prover about the one access, and evaluates the kernel
// for inputs with its own interpreter of the integer semantics. It fails
// when the prover claims in bounds and some input reaches the access out
// of bounds, printing the kernel and that input.
//
// Small widths (index of 4 to 6 bits, integers of 1 to 8) are evaluated
// exhaustively over every input. The prover's rules are written once for
// any width (APInt), so these runs cover the same code that runs at 32 and
// 64 bits; what depends on the real widths (launch limits, buffer lengths,
// index_cast between i32/i64 and a 32- or 64-bit index) is covered by the
// sampled runs at 32 and 64 bits below and by test_bounds_rules.cpp.
//
// CI runs a fixed seed for a few seconds. To run long:
//   XPU_BOUNDS_SEED=<n> XPU_BOUNDS_CASES=<n> build/tests/unit_tests -tc='bounds prover*'
// (XPU_BOUNDS_SEED=random draws a seed and prints it.)
#include "unit.h"

#include "xpu/Admission/BoundsProof.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Parser/Parser.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <sstream>

namespace {

using P = mlir::arith::CmpIPredicate;

//===----------------------------------------------------------------------===//
// Kernels as expression DAGs
//===----------------------------------------------------------------------===//

struct Ty {
  unsigned bits;
  bool index;
  bool operator==(const Ty &o) const { return bits == o.bits && index == o.index; }
};

enum class Op {
  param, constant, coordinate, size, iv, add, sub, mul, andi, ori, xori, shl,
  shrui, shrsi, divui, divsi, remui, remsi, minsi, maxsi, minui, maxui,
  select, extui, extsi, trunci, indexCast, indexCastUI, cmp,
};

const char *opName(Op op) {
  switch (op) {
  case Op::add: return "arith.addi";
  case Op::sub: return "arith.subi";
  case Op::mul: return "arith.muli";
  case Op::andi: return "arith.andi";
  case Op::ori: return "arith.ori";
  case Op::xori: return "arith.xori";
  case Op::shl: return "arith.shli";
  case Op::shrui: return "arith.shrui";
  case Op::shrsi: return "arith.shrsi";
  case Op::divui: return "arith.divui";
  case Op::divsi: return "arith.divsi";
  case Op::remui: return "arith.remui";
  case Op::remsi: return "arith.remsi";
  case Op::minsi: return "arith.minsi";
  case Op::maxsi: return "arith.maxsi";
  case Op::minui: return "arith.minui";
  case Op::maxui: return "arith.maxui";
  case Op::extui: return "arith.extui";
  case Op::extsi: return "arith.extsi";
  case Op::trunci: return "arith.trunci";
  case Op::indexCast: return "arith.index_cast";
  case Op::indexCastUI: return "arith.index_castui";
  default: return "?";
  }
}

struct Node {
  Op op;
  Ty ty;
  std::vector<int> args;
  uint64_t value = 0; ///< constant (masked), or parameter number
  P pred = P::eq;
  bool inLoop = false; ///< depends on the loop counter
};

uint64_t mask(unsigned bits) { return bits >= 64 ? ~0ull : (1ull << bits) - 1; }
int64_t sext(uint64_t v, unsigned bits) {
  return bits >= 64 ? int64_t(v) : int64_t(v << (64 - bits)) >> (64 - bits);
}

/// One generated kernel with one guarded access.
struct Kernel {
  unsigned W;                     ///< index width the prover and interpreter use
  std::vector<Node> nodes;
  std::vector<unsigned> params;   ///< widths of the scalar parameters
  int64_t staticLength = -1;      ///< or a dynamic buffer
  unsigned accessWidth = 1;       ///< elements touched
  bool store = false;
  uint64_t wg = 1, grid = 1;      ///< fixed launch shape along x
  bool fixedShape = true;
  int index = -1;                 ///< the access's index node
  std::vector<std::pair<int, bool>> guards; ///< (i1 node, must be true)
  bool useBranch = false;         ///< the one guard as cf.cond_br
  int loopLo = -1, loopUb = -1, loopStep = -1, loopIv = -1;
  bool loopUnsigned = false;

  bool hasLoop() const { return loopLo >= 0; }
  std::string typeName(Ty t) const {
    return t.index ? "index" : "i" + std::to_string(t.bits);
  }
  std::string text() const;
};

std::string Kernel::text() const {
  std::ostringstream os;
  std::string buf = staticLength >= 0
                        ? "!xpu.buffer<" + std::to_string(staticLength) + "xi8>"
                        : std::string("!xpu.buffer<i8>");
  os << "xpu.kernel @k(%b: " << buf;
  for (size_t i = 0; i < params.size(); ++i)
    os << ", %p" << i << ": i" << params[i];
  os << ")";
  if (fixedShape)
    os << " attributes {workgroup_size = array<i64: " << wg
       << ">, grid_size = array<i64: " << grid << ">}";
  os << " {\n";
  auto name = [](int n) { return "%v" + std::to_string(n); };
  auto emit = [&](int id, const std::string &indent) {
    const Node &n = nodes[id];
    std::string t = typeName(n.ty);
    os << indent;
    switch (n.op) {
    case Op::iv:
      return; // the loop's own argument
    case Op::param:
      // Parameters are used through a no-op so each node has one name.
      os << name(id) << " = arith.addi %p" << n.value << ", " << name(n.args[0])
         << " : " << t << "\n";
      return;
    case Op::constant:
      if (n.ty.bits == 1 && !n.ty.index)
        os << name(id) << " = arith.constant " << (n.value ? "true" : "false") << "\n";
      else
        os << name(id) << " = arith.constant " << sext(n.value, n.ty.bits) << " : " << t
           << "\n";
      return;
    case Op::coordinate:
      os << name(id) << " = xpu.global_id x\n";
      return;
    case Op::size:
      os << name(id) << " = xpu.buffer_size %b : " << buf << "\n";
      return;
    case Op::select:
      os << name(id) << " = arith.select " << name(n.args[0]) << ", " << name(n.args[1])
         << ", " << name(n.args[2]) << " : " << t << "\n";
      return;
    case Op::cmp:
      os << name(id) << " = arith.cmpi " << mlir::arith::stringifyCmpIPredicate(n.pred).str()
         << ", " << name(n.args[0]) << ", " << name(n.args[1]) << " : "
         << typeName(nodes[n.args[0]].ty) << "\n";
      return;
    case Op::extui: case Op::extsi: case Op::trunci: case Op::indexCast:
    case Op::indexCastUI:
      os << name(id) << " = " << opName(n.op) << " " << name(n.args[0]) << " : "
         << typeName(nodes[n.args[0]].ty) << " to " << t << "\n";
      return;
    default:
      os << name(id) << " = " << opName(n.op) << " " << name(n.args[0]) << ", "
         << name(n.args[1]) << " : " << t << "\n";
    }
  };
  for (size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].inLoop)
      emit(int(i), "  ");
  std::string indent = "  ";
  if (hasLoop()) {
    os << "  scf.for " << (loopUnsigned ? "unsigned " : "") << name(loopIv)
       << " = " << name(loopLo) << " to " << name(loopUb) << " step " << name(loopStep)
       << " {\n";
    indent = "    ";
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].inLoop)
        emit(int(i), indent);
  }
  std::string access =
      store ? "xpu.store %c, %b[" + name(index) + "] : " + buf
            : "%r = xpu.load %b[" + name(index) + "] : " + buf;
  if (accessWidth > 1)
    access += " -> vector<" + std::to_string(accessWidth) + "xi8>";
  // The stored value, at the access's indentation.
  auto value = [&](const std::string &at) -> std::string {
    if (!store)
      return "";
    if (accessWidth == 1)
      return at + "%c = arith.constant 7 : i8\n";
    return at + "%c0 = arith.constant 7 : i8\n" + at + "%c = vector.broadcast %c0 : i8 to vector<" +
           std::to_string(accessWidth) + "xi8>\n";
  };
  if (useBranch) {
    auto [cond, holds] = guards[0];
    os << "  cf.cond_br " << name(cond) << ", " << (holds ? "^in, ^out" : "^out, ^in")
       << "\n^in:\n"
       << value("  ");
    os << "  " << access << "\n  cf.br ^out\n^out:\n  xpu.return\n}\n";
    return os.str();
  }
  for (auto [cond, holds] : guards) {
    os << indent << "scf.if " << name(cond) << (holds ? " {\n" : " {\n" + indent + "} else {\n");
    indent += "  ";
  }
  os << value(indent) << indent << access << "\n";
  for (size_t g = guards.size(); g-- > 0;) {
    indent.resize(indent.size() - 2);
    os << indent << "}\n";
  }
  if (hasLoop())
    os << "  }\n";
  os << "  xpu.return\n}\n";
  return os.str();
}

//===----------------------------------------------------------------------===//
// The interpreter: arith's two's-complement semantics at each width
//===----------------------------------------------------------------------===//

/// The inputs of one run.
struct Inputs {
  std::vector<uint64_t> params;
  uint64_t coordinate = 0, size = 0;
};

uint64_t evalNode(const Kernel &k, const Node &n, const std::vector<uint64_t> &v,
                  const Inputs &in, uint64_t iv) {
  unsigned bits = n.ty.bits;
  uint64_t m = mask(bits);
  auto a = [&](int i) { return v[n.args[i]]; };
  auto s = [&](int i) { return sext(v[n.args[i]], k.nodes[n.args[i]].ty.bits); };
  switch (n.op) {
  case Op::param: return (in.params[n.value] + a(0)) & m;
  case Op::constant: return n.value;
  case Op::coordinate: return in.coordinate;
  case Op::size: return in.size;
  case Op::iv: return iv;
  case Op::add: return (a(0) + a(1)) & m;
  case Op::sub: return (a(0) - a(1)) & m;
  case Op::mul: return (a(0) * a(1)) & m;
  case Op::andi: return a(0) & a(1);
  case Op::ori: return a(0) | a(1);
  case Op::xori: return a(0) ^ a(1);
  case Op::shl: return (a(0) << a(1)) & m;
  case Op::shrui: return a(0) >> a(1);
  case Op::shrsi: return uint64_t(s(0) >> a(1)) & m;
  case Op::divui: return a(0) / a(1);
  case Op::remui: return a(0) % a(1);
  case Op::divsi: return uint64_t(s(0) / s(1)) & m; // divisors exclude 0 and -1
  case Op::remsi: return uint64_t(s(0) % s(1)) & m;
  case Op::minsi: return s(0) < s(1) ? a(0) : a(1);
  case Op::maxsi: return s(0) > s(1) ? a(0) : a(1);
  case Op::minui: return std::min(a(0), a(1));
  case Op::maxui: return std::max(a(0), a(1));
  case Op::select: return a(0) ? a(1) : a(2);
  case Op::extui: case Op::trunci: return a(0) & m;
  case Op::extsi: return uint64_t(s(0)) & m;
  case Op::indexCast: // sign-extends or truncates
    return (k.nodes[n.args[0]].ty.bits < bits ? uint64_t(s(0)) : a(0)) & m;
  case Op::indexCastUI: return a(0) & m;
  case Op::cmp: {
    uint64_t x = a(0), y = a(1);
    int64_t sx = s(0), sy = s(1);
    switch (n.pred) {
    case P::eq: return x == y;
    case P::ne: return x != y;
    case P::ult: return x < y;
    case P::ule: return x <= y;
    case P::ugt: return x > y;
    case P::uge: return x >= y;
    case P::slt: return sx < sy;
    case P::sle: return sx <= sy;
    case P::sgt: return sx > sy;
    case P::sge: return sx >= sy;
    }
  }
  }
  return 0;
}

/// Runs the kernel for `in`; calls `reached(index, iteration)` each time the
/// access executes. Loops stop after 2^W + 2 iterations: the counter then
/// has repeated a state, so every later iteration repeats an earlier one.
void execute(const Kernel &k, const Inputs &in,
             const std::function<bool(uint64_t, uint64_t)> &reached) {
  std::vector<uint64_t> v(k.nodes.size(), 0);
  auto evalAll = [&](bool loopPart, uint64_t iv) {
    for (size_t i = 0; i < k.nodes.size(); ++i)
      if (k.nodes[i].inLoop == loopPart)
        v[i] = evalNode(k, k.nodes[i], v, in, iv);
  };
  auto guardsHold = [&] {
    for (auto [cond, holds] : k.guards)
      if ((v[cond] != 0) != holds)
        return false;
    return true;
  };
  evalAll(false, 0);
  if (!k.hasLoop()) {
    if (guardsHold())
      reached(v[k.index], 0);
    return;
  }
  uint64_t m = mask(k.W), iv = v[k.loopLo], ub = v[k.loopUb], step = v[k.loopStep];
  uint64_t limit = k.W >= 20 ? 4096 : (1ull << k.W) + 2;
  for (uint64_t it = 0; it < limit; ++it) {
    bool runs = k.loopUnsigned ? iv < ub : sext(iv, k.W) < sext(ub, k.W);
    if (!runs)
      return;
    evalAll(true, iv);
    if (guardsHold() && !reached(v[k.index], it))
      return;
    iv = (iv + step) & m;
  }
}

//===----------------------------------------------------------------------===//
// The generator
//===----------------------------------------------------------------------===//

class Generator {
public:
  Generator(uint64_t seed, unsigned W, std::vector<unsigned> intWidths, unsigned inputBits)
      : rng(seed), W(W), intWidths(std::move(intWidths)), inputBits(inputBits) {}

  Kernel kernel();

private:
  bool chance(double p) { return std::bernoulli_distribution(p)(rng); }
  unsigned pick(size_t n) { return unsigned(std::uniform_int_distribution<size_t>(0, n - 1)(rng)); }
  Ty indexTy() const { return {W, true}; }
  Ty randomIntTy() { return {intWidths[pick(intWidths.size())], false}; }
  Ty randomTy() { return chance(0.5) ? indexTy() : randomIntTy(); }

  int add(Node n) {
    for (int a : n.args)
      n.inLoop |= k.nodes[a].inLoop;
    k.nodes.push_back(std::move(n));
    return int(k.nodes.size()) - 1;
  }
  int constant(Ty t, uint64_t v) { return add({Op::constant, t, {}, v & mask(t.bits)}); }
  int interestingConstant(Ty t);
  int leaf(Ty t);
  int expr(Ty t, int depth);
  int convert(int node, Ty to);
  int cond(int depth);
  int relational(int e);
  int subterm(int e);
  int index();

  std::mt19937_64 rng;
  unsigned W;
  std::vector<unsigned> intWidths;
  unsigned inputBits; ///< budget of enumerated input bits (exhaustive mode)
  Kernel k;
  std::vector<int> paramNodes, indexLeaves, sources;
};

int Generator::interestingConstant(Ty t) {
  unsigned n = t.bits;
  uint64_t smax = mask(n) >> 1;
  const uint64_t picks[] = {0, 1, 2, 3, mask(n), mask(n) - 1, smax, smax + 1, smax - 1,
                            uint64_t(pick(8)), std::uniform_int_distribution<uint64_t>()(rng)};
  return constant(t, picks[pick(std::size(picks))]);
}

int Generator::leaf(Ty t) {
  if (t.index && !indexLeaves.empty() && chance(0.75))
    return indexLeaves[pick(indexLeaves.size())];
  if (!t.index && chance(0.6)) {
    std::vector<int> same;
    for (int p : paramNodes)
      if (k.nodes[p].ty == t)
        same.push_back(p);
    if (!same.empty())
      return same[pick(same.size())];
    if (!paramNodes.empty() && chance(0.7))
      return convert(paramNodes[pick(paramNodes.size())], t);
  }
  return interestingConstant(t);
}

int Generator::convert(int node, Ty to) {
  Ty from = k.nodes[node].ty;
  if (from == to)
    return node;
  if (from.index || to.index) {
    if (from.bits == 1 && !from.index) // i1 -> index has no cast of its own
      node = convert(node, {8, false}), from = {8, false};
    if (to.bits == 1 && !to.index)
      return add({Op::cmp, to, {node, constant(from, 0)}, 0, P::ne});
    return add({chance(0.5) ? Op::indexCast : Op::indexCastUI, to, {node}});
  }
  if (from.bits < to.bits)
    return add({chance(0.5) ? Op::extui : Op::extsi, to, {node}});
  if (from.bits > to.bits)
    return add({Op::trunci, to, {node}});
  return node;
}

int Generator::expr(Ty t, int depth) {
  if (depth <= 0 || chance(0.25))
    return leaf(t);
  unsigned n = t.bits;
  switch (pick(14)) {
  case 0: case 1: case 2: {
    static const Op ops[] = {Op::add, Op::sub, Op::mul, Op::andi, Op::ori, Op::xori};
    Op op = ops[pick(std::size(ops))];
    return add({op, t, {expr(t, depth - 1), expr(t, depth - 1)}});
  }
  case 3: {
    static const Op ops[] = {Op::minsi, Op::maxsi, Op::minui, Op::maxui};
    return add({ops[pick(4)], t, {expr(t, depth - 1), expr(t, depth - 1)}});
  }
  case 4: { // shifts by an amount below the width (else undefined)
    static const Op ops[] = {Op::shl, Op::shrui, Op::shrsi};
    int amount = chance(0.5) ? constant(t, pick(n))
                             : add({Op::remui, t, {expr(t, depth - 1), constant(t, n)}});
    return add({ops[pick(3)], t, {expr(t, depth - 1), amount}});
  }
  case 5: { // unsigned division by a divisor that is never 0
    int d = chance(0.5) ? constant(t, 1 + pick(size_t(std::min<uint64_t>(mask(n), 7))))
                        : add({Op::ori, t, {expr(t, depth - 1), constant(t, 1)}});
    return add({chance(0.5) ? Op::divui : Op::remui, t, {expr(t, depth - 1), d}});
  }
  case 6: { // signed division by a divisor that is never 0 or -1
    if (n < 2)
      return leaf(t);
    int d;
    if (chance(0.5)) {
      int64_t smax = int64_t(mask(n) >> 1);
      int64_t c = chance(0.5) ? 1 + int64_t(pick(size_t(std::min<int64_t>(smax, 3))))
                              : -2 - int64_t(pick(size_t(std::min<int64_t>(smax, 3))));
      d = constant(t, uint64_t(c));
    } else {
      int positive = add({Op::andi, t, {expr(t, depth - 1), constant(t, mask(n) >> 1)}});
      d = add({Op::ori, t, {positive, constant(t, 1)}});
    }
    return add({chance(0.5) ? Op::divsi : Op::remsi, t, {expr(t, depth - 1), d}});
  }
  case 7:
    return add({Op::select, t, {cond(depth - 1), expr(t, depth - 1), expr(t, depth - 1)}});
  case 8: case 9:
    return convert(expr(randomTy(), depth - 1), t);
  default:
    return leaf(t);
  }
}

int Generator::cond(int depth) {
  if (depth > 0 && chance(0.3)) {
    switch (pick(3)) {
    case 0: return add({Op::andi, {1, false}, {cond(depth - 1), cond(depth - 1)}});
    case 1: return add({Op::ori, {1, false}, {cond(depth - 1), cond(depth - 1)}});
    default: return add({Op::xori, {1, false}, {cond(depth - 1), constant({1, false}, 1)}});
    }
  }
  if (chance(0.05))
    return constant({1, false}, pick(2));
  Ty t = randomTy();
  return add({Op::cmp, {1, false}, {expr(t, depth), expr(t, depth)}, 0, P(pick(10))});
}

/// An index expression: the shapes kernels use (an id or a parameter, plus
/// or minus a constant, a row times a stride plus a column, a mask or a
/// remainder), or any expression.
int Generator::index() {
  Ty t = indexTy();
  // Mostly what kernels index with; the size and constants now and then.
  auto base = [&] {
    if (chance(0.85))
      return sources[pick(sources.size())];
    return indexLeaves[pick(indexLeaves.size())];
  };
  switch (pick(7)) {
  case 0: return base();
  case 1: return add({chance(0.6) ? Op::add : Op::sub, t, {base(), constant(t, pick(4))}});
  case 2:
    return add({Op::add, t, {add({Op::mul, t, {base(), chance(0.5) ? base() : constant(t, 1 + pick(4))}}),
                             base()}});
  case 3: {
    static const Op ops[] = {Op::andi, Op::remui, Op::minui, Op::minsi, Op::maxui, Op::shrui};
    Op op = ops[pick(std::size(ops))];
    int c = op == Op::shrui ? constant(t, pick(W)) : constant(t, 1 + pick(size_t(mask(W) - 1)));
    return add({op, t, {base(), c}});
  }
  default: return expr(t, 3);
  }
}

/// An index-typed part of `e` (or `e` itself).
int Generator::subterm(int e) {
  while (chance(0.5)) {
    std::vector<int> parts;
    for (int a : k.nodes[e].args)
      if (k.nodes[a].ty.index && k.nodes[a].op != Op::constant)
        parts.push_back(a);
    if (parts.empty())
      break;
    e = parts[pick(parts.size())];
  }
  return e;
}

/// A comparison of (a part of) the index with the buffer's size, as real
/// guards are written, so that the prover has something to prove.
int Generator::relational(int e) {
  Ty t = indexTy();
  int lhs;
  switch (pick(5)) {
  case 0: case 1: lhs = e; break;
  case 2: lhs = add({Op::add, t, {e, constant(t, k.accessWidth - 1 + pick(2))}}); break;
  case 3: lhs = subterm(e); break;
  default:
    lhs = add({chance(0.7) ? Op::add : Op::sub, t, {subterm(e), constant(t, pick(4))}});
  }
  int size = add({Op::size, t});
  int rhs;
  switch (pick(8)) {
  case 0: case 1: case 2: rhs = size; break;
  case 3: rhs = add({chance(0.5) ? Op::minsi : Op::minui, t, {size, expr(t, 1)}}); break;
  case 4: rhs = add({Op::sub, t, {size, constant(t, pick(3))}}); break;
  case 5: rhs = interestingConstant(t); break;
  default: rhs = expr(t, 2); break;
  }
  static const P preds[] = {P::ult, P::ult, P::ult, P::ult, P::slt, P::slt, P::ule, P::sle,
                            P::ugt, P::sgt, P::uge, P::sge, P::eq,  P::ne};
  P pred = preds[pick(std::size(preds))];
  // The greater-than forms put the index on the right.
  bool swap = pred == P::ugt || pred == P::sgt || pred == P::uge || pred == P::sge;
  int c = add({Op::cmp, {1, false}, swap ? std::vector<int>{rhs, lhs} : std::vector<int>{lhs, rhs},
               0, pred});
  if (chance(0.3)) // with a lower bound too, as `i >= 1 && i < n`
    c = add({Op::andi, {1, false},
             {c, add({Op::cmp, {1, false}, {subterm(e), constant(t, pick(3))}, 0,
                      chance(0.5) ? P::sge : P::uge})}});
  return c;
}

Kernel Generator::kernel() {
  k = Kernel();
  k.W = W;
  paramNodes.clear();
  indexLeaves.clear();
  bool exhaustive = inputBits > 0;
  bool loop = chance(0.3);
  // The launch shape and buffer; what is enumerated fits the input budget.
  uint64_t maxGlobal = W >= 64 ? ~0ull : (1ull << (W - 1)) - 1;
  k.fixedShape = exhaustive || chance(0.5);
  k.wg = 1 + pick(size_t(std::min<uint64_t>(maxGlobal, 4)));
  k.grid = 1 + pick(size_t(std::min<uint64_t>(maxGlobal / k.wg, 4)));
  if (chance(0.3))
    k.staticLength = int64_t(1 + pick(size_t(std::min<uint64_t>(mask(W) - 1, 40))));
  k.accessWidth = std::array<unsigned, 4>{1, 1, 2, 4}[pick(4)];
  k.store = chance(0.5);
  unsigned budget = exhaustive ? inputBits - (loop ? 4 : 0) : 64 * 8;
  if (exhaustive && k.staticLength < 0)
    budget -= std::min(budget, W);
  unsigned used = 0;
  unsigned count = pick(4);
  for (unsigned i = 0; i < count; ++i) {
    unsigned bits = intWidths[pick(intWidths.size())];
    if (used + bits > budget)
      break;
    used += bits;
    k.params.push_back(bits);
    Ty t{bits, false};
    paramNodes.push_back(add({Op::param, t, {constant(t, 0)}, i}));
  }
  sources.clear();
  sources.push_back(add({Op::coordinate, indexTy()}));
  for (int p : paramNodes)
    sources.push_back(convert(p, indexTy()));
  indexLeaves = sources;
  indexLeaves.push_back(add({Op::size, indexTy()}));
  if (loop) {
    k.loopLo = chance(0.7) ? constant(indexTy(), pick(3)) : expr(indexTy(), 1);
    int size = add({Op::size, indexTy()});
    k.loopUb = chance(0.5)   ? size
               : chance(0.4) ? add({chance(0.5) ? Op::minsi : Op::minui, indexTy(), {size, expr(indexTy(), 1)}})
                             : expr(indexTy(), 1);
    // A constant step must be positive (scf.for's verifier); others may be
    // anything, including 0 and negative.
    k.loopStep = chance(0.6) ? constant(indexTy(), 1 + pick(2)) : expr(indexTy(), 1);
    if (auto &s = k.nodes[k.loopStep]; s.op == Op::constant && sext(s.value, W) <= 0)
      s.value = 1;
    k.loopUnsigned = chance(0.3);
    Node iv{Op::iv, indexTy()};
    iv.inLoop = true;
    k.nodes.push_back(iv);
    k.loopIv = int(k.nodes.size()) - 1;
    indexLeaves.push_back(k.loopIv);
    sources.push_back(k.loopIv);
    sources.push_back(k.loopIv);
  }
  k.index = index();
  unsigned guards = 1 + pick(2);
  for (unsigned g = 0; g < guards; ++g)
    k.guards.push_back({relational(k.index), chance(0.9)});
  if (chance(0.25))
    k.guards.push_back({cond(2), chance(0.5)});
  k.useBranch = !loop && k.guards.size() == 1 && chance(0.3);
  return k;
}

/// Enumerates every input (exhaustive) or a sample of edge and random values.
void forEachInput(const Kernel &k, bool exhaustive, std::mt19937_64 &rng,
                  const std::function<bool(const Inputs &)> &f) {
  uint64_t maxGlobal = k.W >= 64 ? (0xFFFFFFFFull * 1024) : (1ull << (k.W - 1)) - 1;
  uint64_t coords = k.fixedShape ? k.wg * k.grid : maxGlobal;
  uint64_t maxLength = k.W >= 64 ? (uint64_t(1) << 62) - 1 : mask(k.W);
  auto sizeOf = [&](uint64_t s) { return k.staticLength >= 0 ? uint64_t(k.staticLength) : s; };
  if (exhaustive) {
    std::vector<uint64_t> counts;
    for (unsigned b : k.params)
      counts.push_back(1ull << b);
    counts.push_back(coords);
    counts.push_back(k.staticLength >= 0 ? 1 : maxLength + 1);
    std::vector<uint64_t> at(counts.size(), 0);
    while (true) {
      Inputs in;
      for (size_t i = 0; i < k.params.size(); ++i)
        in.params.push_back(at[i]);
      in.coordinate = at[k.params.size()];
      in.size = sizeOf(at[k.params.size() + 1]);
      if (!f(in))
        return;
      size_t d = 0;
      while (d < at.size() && ++at[d] == counts[d])
        at[d++] = 0;
      if (d == at.size())
        return;
    }
  }
  auto edge = [&](uint64_t max, unsigned bits) {
    uint64_t smax = mask(bits) >> 1;
    const uint64_t picks[] = {0, 1, 2, max, max - 1, smax, smax + 1, mask(bits), mask(bits) - 1,
                              std::uniform_int_distribution<uint64_t>(0, max)(rng),
                              std::uniform_int_distribution<uint64_t>(0, 64)(rng)};
    uint64_t v = picks[std::uniform_int_distribution<size_t>(0, std::size(picks) - 1)(rng)];
    return std::min(v & mask(bits), max);
  };
  for (int sample = 0; sample < 400; ++sample) {
    Inputs in;
    for (unsigned b : k.params)
      in.params.push_back(edge(mask(b), b));
    in.coordinate = edge(coords - 1, k.W);
    in.size = sizeOf(edge(maxLength, k.W));
    if (!f(in))
      return;
  }
}

uint64_t envOr(const char *name, uint64_t fallback) {
  const char *v = std::getenv(name);
  if (!v || !*v)
    return fallback;
  if (std::string(v) == "random")
    return std::random_device()();
  return std::strtoull(v, nullptr, 0);
}

struct Stats {
  unsigned cases = 0, proven = 0, reached = 0;
  std::map<std::string, unsigned> reasons; ///< of proven accesses that run
};

/// Draws `cases` kernels and checks every claim of the prover.
Stats run(uint64_t seed, unsigned cases, bool exhaustive, std::vector<unsigned> widths,
          std::vector<unsigned> intWidths) {
  Stats stats;
  unit::Compiler c;
  std::mt19937_64 rng(seed);
  for (unsigned i = 0; i < cases; ++i) {
    unsigned W = widths[i % widths.size()];
    uint64_t caseSeed = rng();
    Generator gen(caseSeed, W, intWidths, exhaustive ? 14 : 0);
    Kernel k = gen.kernel();
    std::string text = k.text();
    auto module = mlir::parseSourceString<mlir::ModuleOp>(text, c.ctx.get());
    INFO("seed " << seed << ", case " << i << " (case seed " << caseSeed << ")\n" << text);
    REQUIRE(module);
    auto kernel = *module->getOps<xpu::KernelOp>().begin();
    mlir::Operation *access = nullptr;
    kernel.walk([&](mlir::Operation *op) {
      if (mlir::isa<xpu::LoadOp, xpu::StoreOp>(op))
        access = op;
    });
    REQUIRE(access);
    xpu::BoundsProver prover(kernel, {W});
    xpu::BoundsVerdict verdict = prover.prove(access);
    ++stats.cases;
    if (!verdict.proven)
      continue;
    ++stats.proven;
    bool ok = true, reachedOnce = false;
    std::mt19937_64 inputRng(caseSeed);
    forEachInput(k, exhaustive, inputRng, [&](const Inputs &in) {
      execute(k, in, [&](uint64_t index, uint64_t iteration) {
        reachedOnce = true;
        uint64_t length = in.size;
        bool inBounds = index <= length && length - index >= k.accessWidth;
        if (inBounds)
          return true;
        std::ostringstream why;
        why << "the prover claims in bounds (" << verdict.reason << ") at a " << W
            << "-bit index, but with";
        for (size_t p = 0; p < in.params.size(); ++p)
          why << " %p" << p << " = " << sext(in.params[p], k.params[p]) << " ("
              << in.params[p] << ")";
        why << ", global id " << in.coordinate << ", buffer length " << length;
        if (k.hasLoop())
          why << ", loop iteration " << iteration;
        why << " the access runs at index " << index << " with " << k.accessWidth
            << " element(s)";
        FAIL_CHECK(why.str());
        ok = false;
        return false;
      });
      return ok;
    });
    stats.reached += reachedOnce;
    ++stats.reasons[(reachedOnce ? "reached: " : "never reached: ") + verdict.reason];
    if (!ok)
      break;
  }
  return stats;
}

} // namespace

TEST_CASE("bounds prover: no false claim over every input at small widths") {
  uint64_t seed = envOr("XPU_BOUNDS_SEED", 20261201);
  unsigned cases = unsigned(envOr("XPU_BOUNDS_CASES", 2000));
  Stats s = run(seed, cases, /*exhaustive=*/true, {4, 5, 6}, {1, 2, 3, 4, 5, 6, 7, 8});
  MESSAGE("seed " << seed << ": " << s.cases << " kernels, " << s.proven
                  << " proven (each checked on every input), " << s.reached
                  << " of them reached");
  for (auto &[why, n] : s.reasons)
    MESSAGE(n << " proven and " << why);
  // The test means something only if a fair share of the claims are about
  // accesses that run.
  CHECK(s.reached * 10 >= s.cases);
}

TEST_CASE("bounds prover: no false claim on sampled inputs at 32 and 64 bits") {
  uint64_t seed = envOr("XPU_BOUNDS_SEED", 20261201) + 1;
  unsigned cases = unsigned(envOr("XPU_BOUNDS_CASES", 2000) / 4);
  Stats s = run(seed, cases, /*exhaustive=*/false, {32, 64}, {1, 8, 16, 32, 64});
  MESSAGE("seed " << seed << ": " << s.cases << " kernels, " << s.proven
                  << " proven (each checked on 400 edge and random inputs), " << s.reached
                  << " of them reached");
  CHECK(s.reached * 10 >= s.cases);
}
