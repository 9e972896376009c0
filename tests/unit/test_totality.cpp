// The type-width totality sweep: for every backend target that lowers
// through LLVM and every scalar type, a buffer element and a kernel argument
// occupy exactly the host's width, or the type is refused with a diagnostic,
// or it is in the pinned list of types with no memory form.
#include "unit.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <doctest/doctest.h>

#include <map>
#include <set>

namespace {

struct ScalarCase {
  const char *mlir;
  size_t hostBytes; ///< sizeof the host type (bool is 1 byte)
};

const std::vector<ScalarCase> kScalars = {
    {"i1", sizeof(bool)},   {"i8", 1},  {"i16", 2},  {"i32", 4}, {"i64", 8},
    {"f16", 2},             {"bf16", 2}, {"f32", sizeof(float)},
    {"f64", sizeof(double)}, {"index", 0}, // index has no host width of its own
};

// Types that exist in registers but have no memory form on some target,
// each with the reason. Adding an entry must be a deliberate edit here.
const std::set<std::string> kNoMemoryForm = {};

enum class Outcome { hostWidth, refused, noMemoryForm };

/// Stores a kernel argument of `type` into a buffer of `type` and reports
/// how the target lowered it.
Outcome classify(xpu::LLVMTarget target, const ScalarCase &sc, size_t &storeBytes,
                 std::string &diagnostic) {
  unit::Compiler c;
  std::string t = sc.mlir;
  auto module = c.parse("xpu.kernel @k(%b: !xpu.buffer<" + t + ">, %v: " + t +
                        ") {\n  %c0 = arith.constant 0 : index\n"
                        "  xpu.store %v, %b[%c0] : !xpu.buffer<" + t + ">\n"
                        "  xpu.return\n}\n");
  if (!module) {
    diagnostic = c.diags.empty() ? "" : c.diags.front().message;
    return Outcome::refused;
  }
  if (mlir::failed(xpu::lowerToLLVMDialect(*module, target, 32))) {
    diagnostic = c.diags.empty() ? "" : c.diags.front().message;
    return Outcome::refused;
  }
  llvm::LLVMContext llctx;
  auto m = xpu::translateToLLVMIR(*module, llctx);
  REQUIRE(m);
  llvm::DataLayout dl("");
  for (llvm::Function &f : *m)
    for (llvm::BasicBlock &bb : f)
      for (llvm::Instruction &inst : bb)
        if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst)) {
          storeBytes = dl.getTypeStoreSize(store->getValueOperand()->getType());
          return Outcome::hostWidth;
        }
  return Outcome::noMemoryForm;
}

} // namespace

TEST_CASE("type-width totality across LLVM targets") {
  std::set<std::string> noMemoryForm;
  for (xpu::LLVMTarget target :
       {xpu::LLVMTarget::cpu, xpu::LLVMTarget::nvvm, xpu::LLVMTarget::rocdl}) {
    for (const ScalarCase &sc : kScalars) {
      CAPTURE(sc.mlir);
      CAPTURE(int(target));
      size_t bytes = 0;
      std::string diag;
      switch (classify(target, sc, bytes, diag)) {
      case Outcome::hostWidth:
        CHECK(bytes == sc.hostBytes);
        break;
      case Outcome::refused:
        CHECK_FALSE(diag.empty()); // an incomplete match is not a refusal
        break;
      case Outcome::noMemoryForm:
        noMemoryForm.insert(sc.mlir);
        break;
      }
    }
  }
  CHECK(noMemoryForm == kNoMemoryForm);
}

TEST_CASE("kernel argument slots hold the host's width") {
  for (int s = int(xpu::abi::Scalar::i1); s <= int(xpu::abi::Scalar::f64); ++s) {
    xpu::abi::Param p;
    p.elem = xpu::abi::Scalar(s);
    std::vector<xpu::abi::Slot> slots;
    xpu::abi::layoutArgs({p}, slots);
    REQUIRE(slots.size() == 1);
    CHECK(slots[0].bytes == xpu::abi::scalarBytes(p.elem));
  }
}
