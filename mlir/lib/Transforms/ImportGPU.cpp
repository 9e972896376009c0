// Interop: turns upstream gpu.module kernels over memrefs into xpu kernels so
// they meet the same admission, gating and lowering. See Passes.td.
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_IMPORTGPU
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

Dim toDim(gpu::Dimension d) {
  switch (d) {
  case gpu::Dimension::x:
    return Dim::x;
  case gpu::Dimension::y:
    return Dim::y;
  case gpu::Dimension::z:
    return Dim::z;
  }
  return Dim::x;
}

/// The buffer a memref becomes: rank 1 of any length, or a static shape
/// linearized in row-major order.
FailureOr<BufferType> bufferFor(Location loc, MemRefType type, Access access) {
  if (!type.getLayout().isIdentity())
    return emitError(loc) << "only identity-layout memrefs are imported, got "
                          << type;
  Space space = Space::global;
  if (auto as = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace())) {
    if (as.getValue() == gpu::AddressSpace::Workgroup)
      space = Space::shared;
    else if (as.getValue() == gpu::AddressSpace::Private)
      space = Space::private_;
  } else if (type.getMemorySpace()) {
    return emitError(loc) << "unsupported memref memory space in " << type;
  }
  int64_t size = BufferType::kDynamic;
  if (type.hasStaticShape())
    size = type.getNumElements();
  else if (type.getRank() != 1)
    return emitError(loc) << "dynamic memrefs must be one-dimensional, got "
                          << type;
  return BufferType::get(type.getContext(), type.getElementType(), space,
                         access, size);
}

/// Row-major linear index of `indices` into a memref of static `shape`.
Value linearize(OpBuilder &b, Location loc, MemRefType type, ValueRange indices) {
  if (indices.size() == 1)
    return indices.front();
  Value lin = indices.front();
  for (unsigned i = 1; i < indices.size(); ++i) {
    Value extent = arith::ConstantIndexOp::create(b, loc, type.getDimSize(i));
    lin = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, lin, extent),
                                indices[i]);
  }
  return lin;
}

/// The memref type a value had before import retyped it.
using OriginalTypes = llvm::DenseMap<Value, MemRefType>;

MemRefType memrefTypeOf(Value v, const OriginalTypes &original) {
  if (auto mt = dyn_cast<MemRefType>(v.getType()))
    return mt;
  return original.lookup(v);
}

LogicalResult rewriteBody(Region &body, OriginalTypes &original) {
  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) {
    if (isa<gpu::GPUDialect, memref::MemRefDialect, func::FuncDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value repl;
    if (auto o = dyn_cast<gpu::ThreadIdOp>(op))
      repl = ThreadIdOp::create(b, loc, toDim(o.getDimension()));
    else if (auto o = dyn_cast<gpu::BlockIdOp>(op))
      repl = WorkgroupIdOp::create(b, loc, toDim(o.getDimension()));
    else if (auto o = dyn_cast<gpu::BlockDimOp>(op))
      repl = WorkgroupSizeOp::create(b, loc, toDim(o.getDimension()));
    else if (auto o = dyn_cast<gpu::GridDimOp>(op))
      repl = GridSizeOp::create(b, loc, toDim(o.getDimension()));
    else if (auto o = dyn_cast<gpu::GlobalIdOp>(op))
      repl = GlobalIdOp::create(b, loc, toDim(o.getDimension()));
    else if (isa<gpu::LaneIdOp>(op))
      repl = LaneIdOp::create(b, loc);
    else if (isa<gpu::SubgroupSizeOp>(op))
      repl = WaveWidthOp::create(b, loc);
    else if (isa<gpu::BarrierOp>(op))
      BarrierOp::create(b, loc);
    else if (auto o = dyn_cast<gpu::ReturnOp>(op))
      ReturnOp::create(b, loc, o.getOperands());
    else if (auto o = dyn_cast<func::ReturnOp>(op))
      ReturnOp::create(b, loc, o.getOperands());
    else if (auto o = dyn_cast<func::CallOp>(op)) {
      auto call = CallOp::create(b, loc, o.getResultTypes(), o.getCallee(),
                                 o.getOperands());
      op->replaceAllUsesWith(call.getResults());
    }
    else if (auto o = dyn_cast<memref::LoadOp>(op)) {
      MemRefType mt = memrefTypeOf(o.getMemRef(), original);
      repl = LoadOp::create(b, loc, mt.getElementType(), o.getMemRef(),
                            linearize(b, loc, mt, o.getIndices()));
    } else if (auto o = dyn_cast<memref::StoreOp>(op)) {
      MemRefType mt = memrefTypeOf(o.getMemRef(), original);
      StoreOp::create(b, loc, o.getValue(), o.getMemRef(),
                      linearize(b, loc, mt, o.getIndices()));
    } else if (auto o = dyn_cast<memref::DimOp>(op)) {
      repl = BufferSizeOp::create(b, loc, o.getSource());
    } else if (auto o = dyn_cast<memref::AllocaOp>(op)) {
      auto mt = cast<MemRefType>(o.getType());
      if (!mt.hasStaticShape())
        return op->emitError("only statically shaped memref.alloca is imported");
      // The memory space decides who shares it: an alloca in workgroup
      // memory is one tile per workgroup, as a workgroup attribution is;
      // one in no named space is the invocation's own.
      FailureOr<BufferType> buf = bufferFor(loc, mt, Access::rw);
      if (failed(buf))
        return failure();
      Space space = buf->getSpace();
      if (!mt.getMemorySpace())
        space = Space::private_;
      else if (space == Space::global)
        return emitError(loc) << "memref.alloca in global memory is not imported "
                                  "(global buffers come from the host), got "
                               << mt;
      repl = AllocOp::create(b, loc, BufferType::get(op->getContext(), mt.getElementType(),
                                                     space, Access::rw,
                                                     mt.getNumElements()));
      original[repl] = mt;
    } else {
      return op->emitError() << "'" << op->getName()
                             << "' is not supported in imported gpu kernels";
    }
    if (repl) {
      op->getResult(0).replaceAllUsesWith(repl);
    }
    op->erase();
  }
  return success();
}

template <typename NewOp, typename OldOp>
LogicalResult importFunc(ModuleOp module, OldOp fn) {
  OpBuilder b(module.getContext());
  b.setInsertionPoint(fn->getParentOp());
  Location loc = fn.getLoc();

  SmallVector<Type> inputs;
  for (Type t : fn.getArgumentTypes()) {
    if (auto mt = dyn_cast<MemRefType>(t)) {
      auto buf = bufferFor(loc, mt, Access::rw);
      if (failed(buf))
        return failure();
      inputs.push_back(*buf);
    } else {
      inputs.push_back(t);
    }
  }
  auto type = b.getFunctionType(inputs, fn.getResultTypes());
  auto op = NewOp::create(b, loc, fn.getName(), type);
  // Parameter attributes (xpu.name among them) name the buffers in errors.
  if (ArrayAttr argAttrs = fn.getAllArgAttrs())
    op.setAllArgAttrs(argAttrs);
  op.getBody().takeBody(fn.getBody());
  Block &entry = op.getBody().front();

  // Workgroup and private attributions become allocations.
  OriginalTypes original;
  unsigned numArgs = inputs.size();
  b.setInsertionPointToStart(&entry);
  for (unsigned i = entry.getNumArguments(); i > numArgs; --i) {
    BlockArgument arg = entry.getArgument(i - 1);
    auto mt = cast<MemRefType>(arg.getType());
    auto buf = bufferFor(loc, mt, Access::rw);
    if (failed(buf))
      return failure();
    Value alloc = AllocOp::create(b, loc, *buf);
    original[alloc] = mt;
    arg.replaceAllUsesWith(alloc);
    entry.eraseArgument(i - 1);
  }
  for (auto [arg, t] : llvm::zip(entry.getArguments(), inputs)) {
    if (auto mt = dyn_cast<MemRefType>(arg.getType()))
      original[arg] = mt;
    arg.setType(t);
  }
  return rewriteBody(op.getBody(), original);
}

struct ImportGPUPass : xpu::impl::ImportGPUBase<ImportGPUPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> gpuModules(module.getOps<gpu::GPUModuleOp>());
    for (gpu::GPUModuleOp gm : gpuModules) {
      // In order, so helpers stay ahead of the kernels that call them.
      for (Operation &op : llvm::make_early_inc_range(gm.getBody()->getOperations())) {
        LogicalResult r = success();
        if (auto fn = dyn_cast<gpu::GPUFuncOp>(op))
          r = fn.isKernel() ? importFunc<KernelOp>(module, fn)
                            : importFunc<FuncOp>(module, fn);
        else if (auto fn = dyn_cast<func::FuncOp>(op))
          r = importFunc<FuncOp>(module, fn); // device helpers may be func.func
        else
          r = op.emitError() << "'" << op.getName()
                             << "' inside gpu.module is not supported";
        if (failed(r))
          return signalPassFailure();
      }
      gm.erase();
    }
    if (module->hasAttr("gpu.container_module"))
      module->removeAttr("gpu.container_module");
    module.walk([&](Operation *op) {
      if (isa<gpu::LaunchFuncOp, gpu::LaunchOp>(op)) {
        op->emitError("host-side gpu launches are not imported; launch through "
                      "the xpujit API");
        signalPassFailure();
      }
    });
  }
};

} // namespace
