// The gpu dialect front end: turns upstream gpu.module kernels over memrefs
// into xpu kernels, so that they meet the same admission, gates and
// lowering as kernels written in xpu. This file drives the import and holds
// the table of accepted ops; the jobs are in Memory.cpp, Arguments.cpp,
// Collectives.cpp and Values.cpp. See Passes.td (xpu-import-gpu).
#include "Importer.h"

#include "xpu/Transforms/Passes.h"

#include "mlir/Conversion/ControlFlowToSCF/ControlFlowToSCF.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringSet.h"

namespace xpu {
#define GEN_PASS_DEF_IMPORTGPU
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;
using namespace xpu::gpuimport;

namespace xpu::gpuimport {

ArrayRef<AcceptedOp> acceptedOps() {
  static const AcceptedOp ops[] = {
      // memory
      {"memref.load", "memory"},
      {"memref.store", "memory"},
      {"memref.alloca", "memory"},
      {"memref.alloc", "memory"},
      {"memref.dealloc", "memory"},
      {"memref.dim", "memory"},
      {"memref.rank", "memory"},
      {"memref.subview", "memory"},
      {"memref.reinterpret_cast", "memory"},
      {"memref.cast", "memory"},
      {"memref.collapse_shape", "memory"},
      {"memref.expand_shape", "memory"},
      {"memref.transpose", "memory"},
      {"memref.view", "memory"},
      {"memref.extract_strided_metadata", "memory"},
      {"memref.assume_alignment", "memory"},
      {"memref.memory_space_cast", "memory"},
      {"memref.copy", "memory"},
      {"gpu.dynamic_shared_memory", "memory"},
      // arguments
      {"gpu.func", "arguments"},
      {"func.func", "arguments"},
      {"gpu.return", "arguments"},
      {"func.return", "arguments"},
      {"func.call", "arguments"},
      // collectives
      {"gpu.thread_id", "collectives"},
      {"gpu.block_id", "collectives"},
      {"gpu.block_dim", "collectives"},
      {"gpu.grid_dim", "collectives"},
      {"gpu.global_id", "collectives"},
      {"gpu.lane_id", "collectives"},
      {"gpu.subgroup_id", "collectives"},
      {"gpu.num_subgroups", "collectives"},
      {"gpu.subgroup_size", "collectives"},
      {"gpu.barrier", "collectives"},
      {"gpu.all_reduce", "collectives"},
      {"memref.atomic_rmw", "collectives"},
      {"gpu.subgroup_reduce", "collectives"},
      {"gpu.shuffle", "collectives"},
      {"gpu.rotate", "collectives"},
      // values
      {"vector.load", "values"},
      {"vector.store", "values"},
      {"vector.transfer_read", "values"},
      {"vector.transfer_write", "values"},
      {"vector.maskedload", "values"},
      {"vector.maskedstore", "values"},
  };
  return ops;
}

InFlightDiagnostic unsupported(Location loc, const Twine &what, const Twine &instead) {
  return emitError(loc) << "XPU-UNSUPPORTED: " << what << "; " << instead;
}

InFlightDiagnostic unsupported(Operation *op, const Twine &what, const Twine &instead) {
  return unsupported(op->getLoc(), "'" + op->getName().getStringRef() + "' " + what,
                     instead);
}

std::string typeText(Type t) {
  std::string s;
  llvm::raw_string_ostream(s) << t;
  return s;
}

std::optional<Space> spaceOf(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return Space::global;
  if (auto as = dyn_cast<gpu::AddressSpaceAttr>(space)) {
    switch (as.getValue()) {
    case gpu::AddressSpace::Global:
      return Space::global;
    case gpu::AddressSpace::Workgroup:
      return Space::shared;
    case gpu::AddressSpace::Private:
      return Space::private_;
    }
  }
  // The numbers NVVM and ROCDL give the spaces (what the gpu dialect's
  // own lowerings produce): 1 global, 3 workgroup, 5 private.
  if (auto i = dyn_cast<IntegerAttr>(space)) {
    switch (i.getInt()) {
    case 0:
    case 1:
      return Space::global;
    case 3:
      return Space::shared;
    case 5:
      return Space::private_;
    }
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

const Memref *Importer::lookup(Value v, Operation *user) {
  auto it = memrefs.find(v);
  if (it != memrefs.end())
    return &it->second;
  unsupported(user, "uses a memref that does not come from a parameter, an "
                    "allocation or a memref op in the same function",
              "memrefs may not pass through block arguments, loops, selects "
              "or unsupported ops");
  return nullptr;
}

Value Importer::index(Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value Importer::add(Location loc, Value a, Value c) {
  return b.createOrFold<arith::AddIOp>(loc, a, c);
}

Value Importer::mul(Location loc, Value a, Value c) {
  return b.createOrFold<arith::MulIOp>(loc, a, c);
}

Value Importer::value(Location loc, OpFoldResult v) {
  if (auto attr = dyn_cast<Attribute>(v))
    return index(loc, cast<IntegerAttr>(attr).getInt());
  return cast<Value>(v);
}

Value Importer::element(Location loc, const Memref &m, ValueRange indices) {
  Value at = m.offset;
  for (auto [i, stride] : llvm::zip(indices, m.strides))
    at = add(loc, at, mul(loc, i, stride));
  return at;
}

SmallVector<Value, 4> Importer::rowMajor(Location loc, ArrayRef<Value> sizes) {
  SmallVector<Value, 4> strides(sizes.size());
  Value stride = index(loc, 1);
  for (size_t d = sizes.size(); d-- > 0;) {
    strides[d] = stride;
    stride = mul(loc, stride, sizes[d]);
  }
  return strides;
}

Memref Importer::retyped(Location loc, Memref m, MemRefType type) {
  m.type = type;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (!ShapedType::isDynamic(size))
      m.sizes[d] = index(loc, size);
  SmallVector<int64_t> strides;
  int64_t offset;
  if (succeeded(type.getStridesAndOffset(strides, offset))) {
    for (auto [d, stride] : llvm::enumerate(strides))
      if (!ShapedType::isDynamic(stride))
        m.strides[d] = index(loc, stride);
    if (!ShapedType::isDynamic(offset))
      m.offset = add(loc, m.base, index(loc, offset));
  }
  return m;
}

Value Importer::dynamicSharedBytes(Location loc) {
  if (sharedBytes)
    return sharedBytes;
  auto kernel = dyn_cast<KernelOp>(fn.getOperation());
  if (!kernel)
    return nullptr;
  MLIRContext *ctx = b.getContext();
  auto attrs = DictionaryAttr::get(
      ctx, {NamedAttribute(StringAttr::get(ctx, kRoleAttr),
                           StringAttr::get(ctx, "dynamic_shared_bytes")),
            NamedAttribute(StringAttr::get(ctx, "xpu.name"),
                           StringAttr::get(ctx, "dynamic_shared_bytes"))});
  Value param = appendParam(b.getI64Type(), attrs);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(&kernel.getBody().front());
  sharedBytes = arith::IndexCastOp::create(b, loc, b.getIndexType(), param);
  return sharedBytes;
}

Value Importer::appendParam(Type type, DictionaryAttr attrs) {
  paramTypes.push_back(type);
  paramAttrs.push_back(attrs ? attrs : DictionaryAttr::get(b.getContext()));
  Block &entry = fn.getFunctionBody().front();
  return entry.addArgument(type, fn.getLoc());
}

LogicalResult Importer::finishSignature() {
  Block &entry = fn.getFunctionBody().front();
  for (unsigned i = 0; i < oldArgs; ++i)
    if (!entry.getArgument(i).use_empty())
      return unsupported(entry.getArgument(i).getLoc(),
                         "a parameter or attribution is still used after the "
                         "import",
                         "memrefs may only be used by the memref ops listed in "
                         "docs/interop.md");
  entry.eraseArguments(0, oldArgs);
  oldArgs = 0;
  fn.setFunctionTypeAttr(TypeAttr::get(
      FunctionType::get(b.getContext(), paramTypes, fn.getResultTypes())));
  fn.setAllArgAttrs(paramAttrs);
  return success();
}

} // namespace xpu::gpuimport

namespace {

/// Dialects whose ops stay as they are in imported bodies: the kernel IR's
/// own (README "Kernel IR"), and the xpu ops the import makes.
bool keptAsIs(Operation *op) {
  return isa_and_nonnull<arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                         cf::ControlFlowDialect, vector::VectorDialect,
                         ub::UBDialect, XPUDialect>(op->getDialect());
}

bool touchesMemrefs(Operation *op) {
  auto isMemref = [](Type t) { return isa<BaseMemRefType>(t); };
  return llvm::any_of(op->getOperandTypes(), isMemref) ||
         llvm::any_of(op->getResultTypes(), isMemref);
}

/// What to write instead of an op the import does not accept.
std::string insteadOf(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  if (dialect == "affine")
    return "lower affine ops first (mlir-opt --lower-affine)";
  if (dialect == "tensor" || dialect == "linalg" || dialect == "bufferization")
    return "bufferize and lower to loops first; kernels work on memrefs";
  if (isa<memref::GlobalOp, memref::GetGlobalOp>(op))
    return "pass constant tables as a buffer argument";
  if (isa<memref::GenericAtomicRMWOp>(op))
    return "use memref.atomic_rmw with a kind of its own";
  if (isa<gpu::PrintfOp>(op))
    return "write values to a buffer argument";
  if (isa<gpu::LaunchOp>(op))
    return "outline it into a gpu.module (mlir-opt --gpu-kernel-outlining)";
  if (isa<gpu::LaunchFuncOp>(op))
    return "launch kernels through the xpujit API";
  if (dialect == "gpu" || dialect == "memref")
    return "docs/interop.md lists the gpu and memref ops that are imported";
  return "kernel bodies use the arith, math, scf, cf and vector dialects";
}

/// Imports the body of `im.fn`, op by op in program order, so every memref
/// is defined before it is used.
LogicalResult importBody(Importer &im) {
  static const llvm::StringSet<> accepted = [] {
    llvm::StringSet<> s;
    for (const AcceptedOp &op : acceptedOps())
      s.insert(op.name);
    return s;
  }();
  SmallVector<Operation *> ops;
  im.fn.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
    ops.push_back(op);
    return consumesRegions(op) ? WalkResult::skip() : WalkResult::advance();
  });
  SmallVector<Operation *> done;
  for (Operation *op : ops) {
    if (!accepted.contains(op->getName().getStringRef())) {
      if (keptAsIs(op) && !touchesMemrefs(op))
        continue;
      unsupported(op, keptAsIs(op) ? "takes or yields a memref" : "is not imported",
                  insteadOf(op));
      return failure();
    }
    im.b.setInsertionPoint(op);
    Handled h = importArgumentOp(im, op);
    if (h == Handled::no)
      h = importMemoryOp(im, op);
    if (h == Handled::no)
      h = importCollectiveOp(im, op);
    if (h == Handled::no)
      h = importValueOp(im, op);
    if (h == Handled::failed)
      return failure();
    if (h == Handled::no) {
      // Listed but with no handler: a bug in the table.
      op->emitError() << "internal error: '" << op->getName()
                      << "' is listed as imported but no job handles it";
      return failure();
    }
    done.push_back(op);
  }
  // Users before what they use: reverse program order.
  for (Operation *op : llvm::reverse(done)) {
    if (!op->use_empty())
      return op->emitError() << "internal error: '" << op->getName()
                             << "' is still used after its import";
    op->erase();
  }
  // Layout arithmetic nobody used (constants, casts of unused sizes).
  SmallVector<Operation *> dead;
  im.fn.getFunctionBody().walk<WalkOrder::PostOrder>([&](Operation *op) {
    dead.push_back(op);
  });
  for (Operation *op : llvm::reverse(dead))
    if (op->getNumRegions() == 0 && isOpTriviallyDead(op))
      op->erase();
  return success();
}

/// Lifts cf branches into scf (SPIR-V needs structured control flow, and
/// MLIR pipelines often lower scf to cf before outlining kernels).
struct LiftToSCF : ControlFlowToSCFTransformation {
  FailureOr<Operation *> createUnreachableTerminator(Location loc, OpBuilder &b,
                                                     Region &region) override {
    auto fn = cast<FunctionOpInterface>(region.getParentOp());
    SmallVector<Value> poison;
    for (Type t : fn.getResultTypes())
      poison.push_back(ub::PoisonOp::create(b, loc, t));
    return ReturnOp::create(b, loc, poison).getOperation();
  }
};

LogicalResult structure(FunctionOpInterface fn) {
  Region &body = fn.getFunctionBody();
  if (body.hasOneBlock())
    return success();
  LiftToSCF lift;
  DominanceInfo dominance(fn);
  if (failed(transformCFGToSCF(body, lift, dominance)))
    return unsupported(fn.getLoc(), "the function's branches do not form loops "
                                    "and conditionals that scf can express",
                       "write the body with scf.if, scf.for and scf.while");
  return success();
}

LogicalResult importFunction(Operation *fnOp) {
  auto old = cast<FunctionOpInterface>(fnOp);
  if (old.isExternal())
    return unsupported(fnOp, "declares '" + old.getName() + "' without a body",
                       "define device functions inside the gpu.module; kernels "
                       "cannot call code outside it");
  Importer im(fnOp->getContext());
  if (failed(importSignature(old, im)))
    return failure();
  old->erase();
  if (failed(importBody(im)) || failed(im.finishSignature()))
    return failure();
  return structure(im.fn);
}

struct ImportGPUPass : xpu::impl::ImportGPUBase<ImportGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    bool failed_ = false;
    module.walk([&](gpu::LaunchOp op) {
      unsupported(op, "is a kernel that was not outlined", insteadOf(op));
      failed_ = true;
    });
    if (failed_)
      return signalPassFailure();
    // Host code beside the gpu.module (as MLIR pipelines emit it): xpujit
    // runs the kernels and the host launches them through its API.
    if (!gpuModules.empty())
      for (auto host : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
        emitWarning(host.getLoc())
            << "host function '" << host.getName()
            << "' is not compiled: xpujit compiles the kernels of the gpu.module; "
               "launch them through its API";
        host.erase();
      }
    module.walk([&](gpu::LaunchFuncOp op) {
      unsupported(op, "is a host-side launch", insteadOf(op));
      failed_ = true;
    });
    if (failed_)
      return signalPassFailure();
    for (gpu::GPUModuleOp gm : gpuModules) {
      // In order, so helpers stay ahead of the kernels that call them.
      for (Operation &op : llvm::make_early_inc_range(gm.getBody()->getOperations())) {
        if (isa<gpu::GPUFuncOp, func::FuncOp>(op)) {
          if (failed(importFunction(&op)))
            return signalPassFailure();
          continue;
        }
        unsupported(&op, "inside gpu.module is not imported", insteadOf(&op));
        return signalPassFailure();
      }
      // The xpu functions were made before the gpu.module; move them out.
      gm.erase();
    }
    if (module->hasAttr("gpu.container_module"))
      module->removeAttr("gpu.container_module");
  }
};

} // namespace
