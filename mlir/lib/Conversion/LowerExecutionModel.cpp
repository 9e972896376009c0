// Replaces coordinates, wave queries, and (on the CPU) barriers and shared
// scratch with what the target provides. See Passes.td.
#include "xpu/KernelABI.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"

namespace xpu {
#define GEN_PASS_DEF_LOWEREXECUTIONMODEL
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

enum class Target { cpu, nvvm, rocdl };

std::optional<Target> parseTarget(StringRef name) {
  if (name == "cpu")
    return Target::cpu;
  if (name == "nvvm")
    return Target::nvvm;
  if (name == "rocdl")
    return Target::rocdl;
  return std::nullopt;
}

Value toIndex(OpBuilder &b, Location loc, Value i32) {
  return arith::IndexCastUIOp::create(b, loc, b.getIndexType(), i32);
}

/// Where a target reads the per-axis launch quantities from.
class CoordinateSource {
public:
  virtual ~CoordinateSource() = default;
  virtual Value threadId(OpBuilder &b, Location loc, Dim d) = 0;
  virtual Value workgroupId(OpBuilder &b, Location loc, Dim d) = 0;
  virtual Value workgroupSize(OpBuilder &b, Location loc, Dim d) = 0;
  virtual Value gridSize(OpBuilder &b, Location loc, Dim d) = 0;
  virtual Value laneId(OpBuilder &b, Location loc) = 0;
};

/// NVIDIA special registers.
class NVVMSource : public CoordinateSource {
  template <typename X, typename Y, typename Z>
  static Value read(OpBuilder &b, Location loc, Dim d) {
    Type i32 = b.getI32Type();
    switch (d) {
    case Dim::x:
      return toIndex(b, loc, X::create(b, loc, i32));
    case Dim::y:
      return toIndex(b, loc, Y::create(b, loc, i32));
    case Dim::z:
      return toIndex(b, loc, Z::create(b, loc, i32));
    }
    llvm_unreachable("axis");
  }

public:
  Value threadId(OpBuilder &b, Location loc, Dim d) override {
    return read<NVVM::ThreadIdXOp, NVVM::ThreadIdYOp, NVVM::ThreadIdZOp>(b, loc, d);
  }
  Value workgroupId(OpBuilder &b, Location loc, Dim d) override {
    return read<NVVM::BlockIdXOp, NVVM::BlockIdYOp, NVVM::BlockIdZOp>(b, loc, d);
  }
  Value workgroupSize(OpBuilder &b, Location loc, Dim d) override {
    return read<NVVM::BlockDimXOp, NVVM::BlockDimYOp, NVVM::BlockDimZOp>(b, loc, d);
  }
  Value gridSize(OpBuilder &b, Location loc, Dim d) override {
    return read<NVVM::GridDimXOp, NVVM::GridDimYOp, NVVM::GridDimZOp>(b, loc, d);
  }
  Value laneId(OpBuilder &b, Location loc) override {
    return toIndex(b, loc, NVVM::LaneIdOp::create(b, loc, b.getI32Type()));
  }
};

/// AMD: ids from special registers; sizes from the HSA dispatch packet
/// (workgroup_size_{x,y,z} as u16 at byte 4, grid_size_{x,y,z} in
/// work-items as u32 at byte 12), which needs no device library.
class ROCDLSource : public CoordinateSource {
  template <typename X, typename Y, typename Z>
  static Value read(OpBuilder &b, Location loc, Dim d) {
    Type i32 = b.getI32Type();
    switch (d) {
    case Dim::x:
      return toIndex(b, loc, X::create(b, loc, i32));
    case Dim::y:
      return toIndex(b, loc, Y::create(b, loc, i32));
    case Dim::z:
      return toIndex(b, loc, Z::create(b, loc, i32));
    }
    llvm_unreachable("axis");
  }
  static Value packetField(OpBuilder &b, Location loc, unsigned offset,
                           Type type) {
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 4);
    Value packet = LLVM::CallIntrinsicOp::create(
                       b, loc, ptrTy, b.getStringAttr("llvm.amdgcn.dispatch.ptr"),
                       ValueRange{})
                       .getResult(0);
    Value at = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), packet,
                                   ArrayRef<LLVM::GEPArg>{int32_t(offset)});
    auto load = LLVM::LoadOp::create(b, loc, type, at);
    load.setInvariant(true);
    Value v = load;
    if (type != b.getI32Type())
      v = LLVM::ZExtOp::create(b, loc, b.getI32Type(), v);
    return toIndex(b, loc, v);
  }

public:
  Value threadId(OpBuilder &b, Location loc, Dim d) override {
    return read<ROCDL::ThreadIdXOp, ROCDL::ThreadIdYOp, ROCDL::ThreadIdZOp>(b, loc, d);
  }
  Value workgroupId(OpBuilder &b, Location loc, Dim d) override {
    return read<ROCDL::BlockIdXOp, ROCDL::BlockIdYOp, ROCDL::BlockIdZOp>(b, loc, d);
  }
  Value workgroupSize(OpBuilder &b, Location loc, Dim d) override {
    return packetField(b, loc, 4 + 2 * unsigned(d), b.getI16Type());
  }
  Value gridSize(OpBuilder &b, Location loc, Dim d) override {
    // The packet counts work-items; workgroups = ceil(items / size), in
    // index width so the rounding cannot overflow (ceildivui has no LLVM
    // lowering of its own).
    Value items = packetField(b, loc, 12 + 4 * unsigned(d), b.getI32Type());
    Value size = workgroupSize(b, loc, d);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value rounded = arith::AddIOp::create(
        b, loc, items, arith::SubIOp::create(b, loc, size, one));
    return arith::DivUIOp::create(b, loc, rounded, size);
  }
  Value laneId(OpBuilder &b, Location loc) override {
    Type i32 = b.getI32Type();
    Value ones = arith::ConstantIntOp::create(b, loc, i32, -1);
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    Value lo = ROCDL::MbcntLoOp::create(b, loc, i32, ones, zero, nullptr, nullptr);
    Value lane = ROCDL::MbcntHiOp::create(b, loc, i32, ones, lo, nullptr, nullptr);
    return toIndex(b, loc, lane);
  }
};

/// The CPU: a kernel runs once per workgroup (xpu-cpu-work-item-loops has
/// replaced thread and global ids by loop variables); the workgroup's own
/// coordinates are in the launch record.
class CPUSource : public CoordinateSource {
public:
  /// The hidden launch-record parameter of the function being rewritten.
  Value launch;

  /// A field of the launch record; `invariant` for those that stay fixed
  /// through a launch (not the workgroup id, which the CPU entry point
  /// rewrites between the workgroups it runs: CPUWrappers.cpp).
  static Value loadField(OpBuilder &b, Location loc, Value launch,
                         unsigned offset, bool invariant = true) {
    auto ptrTy = LLVM::LLVMPointerType::get(b.getContext());
    Value at = LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), launch,
                                   ArrayRef<LLVM::GEPArg>{int32_t(offset)});
    auto load = LLVM::LoadOp::create(b, loc, b.getI32Type(), at);
    load.setInvariant(invariant);
    return toIndex(b, loc, load);
  }
  Value threadId(OpBuilder &, Location, Dim) override {
    llvm_unreachable("thread ids are loop variables on the CPU");
  }
  Value workgroupId(OpBuilder &b, Location loc, Dim d) override {
    return loadField(b, loc, launch, abi::kLaunchWgOffset + 4 * unsigned(d),
                     /*invariant=*/false);
  }
  Value workgroupSize(OpBuilder &b, Location loc, Dim d) override {
    return loadField(b, loc, launch, abi::kLaunchBlockOffset + 4 * unsigned(d));
  }
  Value gridSize(OpBuilder &b, Location loc, Dim d) override {
    return loadField(b, loc, launch, abi::kLaunchGridOffset + 4 * unsigned(d));
  }
  Value laneId(OpBuilder &b, Location loc) override {
    return arith::ConstantIndexOp::create(b, loc, 0); // wave width 1
  }
};

/// Rewrites the coordinate ops inside `fn` using `src`.
void lowerCoordinates(FunctionOpInterface fn, CoordinateSource &src,
                      unsigned waveWidth) {
  IRRewriter rw(fn.getContext());
  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (isa<ThreadIdOp, WorkgroupIdOp, GlobalIdOp, WorkgroupSizeOp, GridSizeOp,
            GlobalSizeOp, WaveWidthOp, LaneIdOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rw.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value v;
    if (auto o = dyn_cast<ThreadIdOp>(op))
      v = src.threadId(rw, loc, o.getDim());
    else if (auto o = dyn_cast<WorkgroupIdOp>(op))
      v = src.workgroupId(rw, loc, o.getDim());
    else if (auto o = dyn_cast<WorkgroupSizeOp>(op))
      v = src.workgroupSize(rw, loc, o.getDim());
    else if (auto o = dyn_cast<GridSizeOp>(op))
      v = src.gridSize(rw, loc, o.getDim());
    else if (auto o = dyn_cast<GlobalIdOp>(op)) {
      Value wg = src.workgroupId(rw, loc, o.getDim());
      Value size = src.workgroupSize(rw, loc, o.getDim());
      Value t = src.threadId(rw, loc, o.getDim());
      v = arith::AddIOp::create(rw, loc, arith::MulIOp::create(rw, loc, wg, size), t);
    } else if (auto o = dyn_cast<GlobalSizeOp>(op)) {
      v = arith::MulIOp::create(rw, loc, src.gridSize(rw, loc, o.getDim()),
                                src.workgroupSize(rw, loc, o.getDim()));
    } else if (isa<WaveWidthOp>(op)) {
      v = arith::ConstantIndexOp::create(rw, loc, waveWidth);
    } else {
      v = src.laneId(rw, loc);
    }
    rw.replaceOp(op, v);
  }
}

struct LowerExecutionModelPass
    : xpu::impl::LowerExecutionModelBase<LowerExecutionModelPass> {
  using LowerExecutionModelBase::LowerExecutionModelBase;

  void runOnOperation() override {
    auto parsed = parseTarget(target);
    if (!parsed) {
      getOperation().emitError() << "unknown target '" << target
                                 << "' (accepted: cpu, nvvm, rocdl)";
      return signalPassFailure();
    }
    if (*parsed == Target::cpu) {
      if (failed(lowerForCPU()))
        signalPassFailure();
      return;
    }
    NVVMSource nvvm;
    ROCDLSource rocdl;
    CoordinateSource &src =
        *parsed == Target::nvvm ? static_cast<CoordinateSource &>(nvvm) : rocdl;
    getOperation().walk([&](FunctionOpInterface fn) {
      if (isa<KernelOp, FuncOp>(fn))
        lowerCoordinates(fn, src, waveWidth);
    });
  }

  /// Every kernel gains (launch, shared) parameters and every helper
  /// (launch); coordinates come from the launch record and shared scratch
  /// is a slice of the workgroup's shared block. Barriers and thread ids
  /// are gone already (xpu-cpu-work-item-loops).
  LogicalResult lowerForCPU() {
    ModuleOp module = getOperation();
    MLIRContext *ctx = module.getContext();
    auto ptrTy = LLVM::LLVMPointerType::get(ctx);
    SmallVector<FunctionOpInterface> fns;
    module.walk([&](FunctionOpInterface fn) {
      if (isa<KernelOp, FuncOp>(fn))
        fns.push_back(fn);
    });
    for (FunctionOpInterface fn : fns) {
      Operation *stale = nullptr;
      fn.walk([&](Operation *op) {
        if (isa<BarrierOp, ReduceOp, ThreadIdOp, GlobalIdOp>(op) && !stale)
          stale = op;
      });
      if (stale)
        return stale->emitOpError(
            "remains for the CPU; run xpu-cpu-work-item-loops first");
    }

    // 1. Hidden parameters: the launch record (and the shared block).
    llvm::DenseMap<Operation *, unsigned> launchArg;
    for (FunctionOpInterface fn : fns) {
      unsigned n = fn.getNumArguments();
      launchArg[fn] = n;
      (void)fn.insertArgument(n, ptrTy, DictionaryAttr::get(ctx), fn.getLoc());
      if (isa<KernelOp>(fn))
        (void)fn.insertArgument(n + 1, ptrTy, DictionaryAttr::get(ctx), fn.getLoc());
    }

    // 2. Calls pass the caller's launch record on.
    module.walk([&](CallOp call) {
      auto caller = call->getParentOfType<FunctionOpInterface>();
      SmallVector<Value> operands(call.getOperands());
      operands.push_back(caller.getArgument(launchArg.lookup(caller)));
      call->setOperands(operands);
    });

    // 3. Coordinates and shared scratch, per function.
    for (FunctionOpInterface fn : fns) {
      CPUSource src;
      src.launch = fn.getArgument(launchArg.lookup(fn));
      lowerCoordinates(fn, src, /*waveWidth=*/1);

      SmallVector<AllocOp> shared;
      fn.walk([&](AllocOp op) {
        if (op.getResult().getType().getSpace() == Space::shared)
          shared.push_back(op);
      });
      if (!shared.empty() && !isa<KernelOp>(fn))
        return shared.front().emitOpError(
            "allocates shared memory outside a kernel body; allocate it in "
            "the kernel and pass the buffer to the helper");
      IRRewriter rw(ctx);
      uint64_t offset = 0;
      auto sharedAt = [&](Location loc, uint64_t offset) -> Value {
        Value baseAt = LLVM::GEPOp::create(
            rw, loc, ptrTy, rw.getI8Type(), src.launch,
            ArrayRef<LLVM::GEPArg>{int32_t(abi::kLaunchSharedOffset)});
        auto base = LLVM::LoadOp::create(rw, loc, ptrTy, baseAt);
        base.setInvariant(true);
        return LLVM::GEPOp::create(rw, loc, ptrTy, rw.getI8Type(), base,
                                   ArrayRef<LLVM::GEPArg>{int32_t(offset)});
      };
      for (AllocOp op : shared) {
        BufferType type = op.getResult().getType();
        uint64_t bytes = uint64_t(type.getSize()) *
                         std::max<uint64_t>(1, type.getElementType()
                                                       .getIntOrFloatBitWidth() /
                                                   8);
        rw.setInsertionPoint(op);
        Value base = fn.getArgument(launchArg.lookup(fn) + 1);
        Value at = LLVM::GEPOp::create(rw, op.getLoc(), ptrTy, rw.getI8Type(), base,
                                       ArrayRef<LLVM::GEPArg>{int32_t(offset)});
        rw.replaceOpWithNewOp<ViewOp>(op, type, at);
        offset = (offset + bytes + kSharedAlign - 1) / kSharedAlign * kSharedAlign;
      }
      // Dynamic shared memory (XPUInteropOps.td) follows the static
      // allocations; the runtime sizes the block for both.
      SmallVector<DynamicSharedOp> dynamic;
      fn.walk([&](DynamicSharedOp op) { dynamic.push_back(op); });
      for (DynamicSharedOp op : dynamic) {
        rw.setInsertionPoint(op);
        op.getBaseMutable().assign(sharedAt(op.getLoc(), offset));
      }
      if (auto kernel = dyn_cast<KernelOp>(fn.getOperation())) {
        kernel->setAttr(abi::kCpuSharedBytesAttr, rw.getI64IntegerAttr(offset));
        kernel->setAttr(abi::kCpuBufferAccessAttr, bufferAccess(kernel));
      }
    }
    return success();
  }

  /// Per parameter: -1 for a scalar, else the buffer's abi::Access, so that
  /// the CPU entry points know which pointers the kernel may write through.
  static DenseI32ArrayAttr bufferAccess(KernelOp kernel) {
    SmallVector<int32_t> modes;
    for (Type t : kernel.getArgumentTypes())
      if (auto buf = dyn_cast<BufferType>(t))
        modes.push_back(int32_t(buf.getAccess()));
      else if (!isa<LLVM::LLVMPointerType>(t))
        modes.push_back(-1);
    return DenseI32ArrayAttr::get(kernel.getContext(), modes);
  }
};

} // namespace
