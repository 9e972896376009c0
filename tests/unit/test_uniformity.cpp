// The uniformity analysis through its query API (xpu/Analysis/Uniformity.h),
// as backends call it: values and ops found by their source names.
#include "unit.h"

#include "xpu/Analysis/Uniformity.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <doctest/doctest.h>

using xpu::Uniformity;

namespace {

/// The op of `fn` whose first result is named `name` by a `tag` attribute.
mlir::Operation *tagged(mlir::Operation *root, llvm::StringRef name) {
  mlir::Operation *found = nullptr;
  root->walk([&](mlir::Operation *op) {
    if (auto tag = op->getAttrOfType<mlir::StringAttr>("tag"); tag && tag == name)
      found = op;
  });
  REQUIRE(found);
  return found;
}

const char *kKernel = R"(
xpu.func @inc(%v: i32) -> i32 {
  %one = arith.constant {tag = "one"} 1 : i32
  %r = arith.addi %v, %one {tag = "inc"} : i32
  xpu.return %r : i32
}
xpu.kernel @k(%n: i32, %out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
  %c0 = arith.constant 0 : index
  %t = xpu.thread_id x {tag = "t"}
  %t32 = arith.index_castui %t {tag = "t32"} : index to i32
  %wg = xpu.workgroup_id x {tag = "wg"}
  %u = xpu.call @inc(%n) {tag = "u"} : (i32) -> i32
  %d = xpu.call @inc(%t32) {tag = "d"} : (i32) -> i32
  %ro = xpu.load %in[%c0] {tag = "ro"} : !xpu.buffer<i32, ro>
  %rw = xpu.load %out[%c0] {tag = "rw"} : !xpu.buffer<i32>
  %n_idx = arith.index_castui %n : i32 to index
  %at_n = xpu.aligned %in[%n_idx] {bytes = 16 : i64, tag = "aligned_n"} : !xpu.buffer<i32, ro>
  %at_t = xpu.aligned %in[%t] {bytes = 16 : i64, tag = "aligned_t"} : !xpu.buffer<i32, ro>
  %first = arith.cmpi eq, %t, %c0 {tag = "first"} : index
  scf.if %first {
    xpu.store %n, %out[%c0] {tag = "divergent_store"} : !xpu.buffer<i32>
  }
  %pos = arith.cmpi sgt, %n, %u {tag = "pos"} : i32
  scf.if %pos {
    xpu.barrier {tag = "uniform_barrier"}
  }
  xpu.return
}
)";

} // namespace

TEST_CASE("uniformity: values and control, as a backend queries them") {
  unit::Compiler c;
  auto module = c.parseLowered(kKernel);
  REQUIRE(module);
  xpu::UniformityAnalysis u(module->getOperation());
  auto value = [&](const char *name) { return tagged(*module, name)->getResult(0); };

  CHECK(u.isUniform(value("wg")));
  CHECK(u.isUniform(value("u")));  // inc(%n): each call site by its own argument
  CHECK(u.isUniform(value("ro"))); // a read-only buffer at a uniform index
  CHECK(u.isUniform(value("pos")));
  CHECK(u.isUniform(value("aligned_n"))); // where buffer[index] lies: as its operands
  for (const char *name : {"t", "t32", "d", "rw", "first", "aligned_t"}) {
    CAPTURE(name);
    CHECK_FALSE(u.isUniform(value(name)));
    CHECK_FALSE(u.isUniform(value(name), Uniformity::wave));
    CHECK(u.uniformity(value(name)) == Uniformity::none);
  }
  CHECK(u.divergenceSource(value("d")) == tagged(*module, "t"));

  // The helper under the join of its call sites: its own constant stays
  // uniform, what it computes from its divergent argument does not.
  CHECK(u.isUniform(value("one")));
  CHECK_FALSE(u.isUniform(value("inc")));

  mlir::Operation *store = tagged(*module, "divergent_store");
  CHECK_FALSE(u.isUnderUniformControl(store));
  CHECK(u.controlUniformity(store) == Uniformity::none);
  CHECK(mlir::isa<mlir::scf::IfOp>(u.divergentDecision(store, Uniformity::workgroup)));
  CHECK(u.divergentOperand(u.divergentDecision(store, Uniformity::workgroup),
                           Uniformity::workgroup) == value("first"));
  mlir::Operation *barrier = tagged(*module, "uniform_barrier");
  CHECK(u.isUnderUniformControl(barrier));
  CHECK(u.divergentDecision(barrier, Uniformity::workgroup) == nullptr);
}

TEST_CASE("uniformity: one function as the root") {
  unit::Compiler c;
  auto module = c.parseLowered(kKernel);
  REQUIRE(module);
  auto kernel = *module->getOps<xpu::KernelOp>().begin();
  auto helper = *module->getOps<xpu::FuncOp>().begin();
  // A kernel alone: parameters uniform. A device function alone: its
  // callers are unknown, so its parameters are not.
  xpu::UniformityAnalysis k(kernel);
  CHECK(k.isUniform(kernel.getBody().front().getArgument(0)));
  CHECK(k.isUniform(tagged(kernel, "u")->getResult(0)));
  xpu::UniformityAnalysis f(helper);
  CHECK_FALSE(f.isUniform(helper.getBody().front().getArgument(0)));
  CHECK_FALSE(f.isUniform(tagged(helper, "inc")->getResult(0)));
  CHECK(f.isUniform(tagged(helper, "one")->getResult(0)));
  // Outside what was analyzed, nothing is known to be uniform.
  CHECK_FALSE(f.isUniform(kernel.getBody().front().getArgument(0)));
}
