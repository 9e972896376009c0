// Requirement analysis: what each admitted kernel needs from a target
// (element types in memory and in arithmetic, atomics, wave operations,
// shared memory, workgroup size, math library calls, contraction control).
#include "xpu/Conversion/MathLibrary.h"
#include "xpu/Analysis/SurfaceRequirements.h"
#include "xpu/Pipeline.h"
#include "xpu/Requirements.h"

#include "xpu/Dialect/XPU/IR/Tiles.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace xpu {

const char *capabilityName(Capability c) {
  switch (c) {
  case Capability::i8Storage: return "i8.storage";
  case Capability::i8Arith: return "i8.arith";
  case Capability::i16Storage: return "i16.storage";
  case Capability::i16Arith: return "i16.arith";
  case Capability::i64Storage: return "i64.storage";
  case Capability::i64Arith: return "i64.arith";
  case Capability::f16Storage: return "f16.storage";
  case Capability::f16Arith: return "f16.arith";
  case Capability::bf16Storage: return "bf16.storage";
  case Capability::bf16Arith: return "bf16.arith";
  case Capability::f64Storage: return "f64.storage";
  case Capability::f64Arith: return "f64.arith";
  case Capability::atomicI32: return "atomic.i32";
  case Capability::atomicI64: return "atomic.i64";
  case Capability::atomicF32Add: return "atomic.f32.add";
  case Capability::atomicF64Add: return "atomic.f64.add";
  case Capability::atomicDeviceScope: return "atomic.scope.device";
  case Capability::waveOps: return "wave.ops";
  case Capability::waveShuffle: return "wave.shuffle";
  case Capability::waveBallot: return "wave.ballot";
  case Capability::waveVote: return "wave.vote";
  case Capability::waveReduce: return "wave.reduce";
  case Capability::waveReduce64: return "wave.reduce.64bit";
  case Capability::sharedMemory: return "shared.memory";
  case Capability::workgroupInvocations: return "workgroup.invocations";
  case Capability::contractionControl: return "fp.contraction-control";
  case Capability::mathLibrary: return "math.library";
  case Capability::matrixTiles: return "matrix.tiles";
  case Capability::f64Math: return "math.f64";
  case Capability::fmaF32: return "fp.fma.f32";
  case Capability::fmaF64: return "fp.fma.f64";
  case Capability::tileMmaSync: return "tile.mma-sync";
  case Capability::tileWgmma: return "tile.wgmma";
  case Capability::tileMfma: return "tile.mfma";
  case Capability::tileWmma: return "tile.wmma";
  case Capability::tileCoopMatrix: return "tile.cooperative-matrix";
  case Capability::tileCoopMatrixWorkgroup: return "tile.cooperative-matrix-workgroup";
  case Capability::tileDotInt8: return "tile.dot-int8";
  case Capability::count_: break;
  }
  return "?";
}

const char *capabilityPhrase(Capability c) {
  switch (c) {
  case Capability::i8Storage: return "8-bit integers in memory";
  case Capability::i8Arith: return "8-bit integer arithmetic";
  case Capability::i16Storage: return "16-bit integers in memory";
  case Capability::i16Arith: return "16-bit integer arithmetic";
  case Capability::i64Storage: return "64-bit integers in memory";
  case Capability::i64Arith: return "64-bit integer arithmetic";
  case Capability::f16Storage: return "f16 in memory";
  case Capability::f16Arith: return "f16 arithmetic";
  case Capability::bf16Storage: return "bf16 in memory";
  case Capability::bf16Arith: return "bf16 arithmetic";
  case Capability::f64Storage: return "f64 in memory";
  case Capability::f64Arith: return "f64 arithmetic";
  case Capability::atomicI32: return "32-bit integer atomics";
  case Capability::atomicI64: return "64-bit integer atomics";
  case Capability::atomicF32Add: return "f32 atomic add";
  case Capability::atomicF64Add: return "f64 atomic add";
  case Capability::atomicDeviceScope: return "device-scope atomics";
  case Capability::waveOps: return "wave (subgroup) operations";
  case Capability::waveShuffle: return "wave shuffles";
  case Capability::waveBallot: return "wave ballots";
  case Capability::waveVote: return "wave votes";
  case Capability::waveReduce: return "wave reductions and scans";
  case Capability::waveReduce64: return "64-bit wave reductions and scans";
  case Capability::sharedMemory: return "workgroup-shared memory";
  case Capability::workgroupInvocations: return "its workgroup size";
  case Capability::contractionControl: return "floating point without contraction";
  case Capability::mathLibrary: return "math library functions";
  case Capability::matrixTiles: return "matrix tiles";
  case Capability::f64Math: return "f64 math functions";
  case Capability::fmaF32: return "a fused multiply-add of f32 (math.fma)";
  case Capability::fmaF64: return "a fused multiply-add of f64 (math.fma)";
  case Capability::tileMmaSync: return "warp matrix multiply-accumulate (mma.sync)";
  case Capability::tileWgmma: return "warpgroup matrix multiply-accumulate (wgmma)";
  case Capability::tileMfma: return "AMD matrix fused multiply-add (MFMA)";
  case Capability::tileWmma: return "AMD wave matrix multiply-accumulate (WMMA)";
  case Capability::tileCoopMatrix: return "cooperative matrices (VK_KHR_cooperative_matrix)";
  case Capability::tileCoopMatrixWorkgroup:
    return "workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2)";
  case Capability::tileDotInt8: return "packed 8-bit integer dot products";
  case Capability::count_: break;
  }
  return "?";
}

std::string KernelRequirements::whereNeeded(Capability c) const {
  for (const auto &[cap, where] : firstUse)
    if (cap == c)
      return where;
  return location;
}

namespace {

/// The storage and arithmetic capabilities a scalar type implies.
std::optional<std::pair<Capability, Capability>> typeCaps(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    t = shaped.getElementType();
  if (auto tile = dyn_cast<TileType>(t))
    t = tile.getElementType();
  if (auto b = dyn_cast<BufferType>(t)) {
    // A bool is a byte in global memory, as on the host (XPUToSPIRV's
    // memoryType); in shared and private memory it stays a bool.
    if (b.getElementType().isInteger(1))
      return b.getSpace() == Space::global
                 ? std::optional(std::make_pair(Capability::i8Storage,
                                                Capability::i8Storage))
                 : std::nullopt;
    t = b.getElementType();
  }
  // A bool value (a comparison, a select's condition, a bool parameter,
  // passed in a 32-bit slot) is native on every target: not 8-bit
  // arithmetic.
  if (t.isInteger(8))
    return std::make_pair(Capability::i8Storage, Capability::i8Arith);
  if (t.isInteger(16))
    return std::make_pair(Capability::i16Storage, Capability::i16Arith);
  if (t.isInteger(64))
    return std::make_pair(Capability::i64Storage, Capability::i64Arith);
  if (t.isF16())
    return std::make_pair(Capability::f16Storage, Capability::f16Arith);
  if (t.isBF16())
    return std::make_pair(Capability::bf16Storage, Capability::bf16Arith);
  if (t.isF64())
    return std::make_pair(Capability::f64Storage, Capability::f64Arith);
  return std::nullopt;
}

/// Ops that only move or convert values (memory form), not compute on them.
bool movesOnly(Operation *op) {
  return isa<LoadOp, StoreOp, AllocOp, ViewOp, BufferSizeOp, ReturnOp, CallOp, TileLoadOp,
             TileStoreOp,
             arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::ExtFOp,
             arith::TruncFOp, arith::BitcastOp, arith::IndexCastOp,
             arith::IndexCastUIOp, arith::SIToFPOp, arith::UIToFPOp,
             arith::FPToSIOp, arith::FPToUIOp>(op);
}

class Analyzer {
public:
  Analyzer(ModuleOp module, KernelRequirements &req) : module(module), req(req) {}

  void need(Capability c, Location loc) {
    if (req.needs.insert(c).second) {
      std::string file;
      unsigned line = 0, col = 0;
      resolveLocation(loc, file, line, col);
      req.firstUse.emplace_back(
          c, line ? file + ":" + std::to_string(line) + ":" + std::to_string(col)
                  : req.location);
    }
  }

  void walk(FunctionOpInterface fn) {
    if (!visited.insert(fn).second)
      return;
    for (auto [i, t] : llvm::enumerate(fn.getArgumentTypes()))
      if (auto caps = typeCaps(t))
        need(caps->first, fn.getFunctionBody().front().getArgument(i).getLoc());
    fn.getFunctionBody().walk([&](Operation *op) { visit(op); });
  }

  void visit(Operation *op) {
    Location loc = op->getLoc();
    // A mac widens its operands exactly to the sums' type (f16 and bf16
    // products are exact in f32, i8 ones in i32) and computes in that type:
    // its operand tiles need storage, its sums arithmetic.
    if (auto mac = dyn_cast<MacOp>(op)) {
      for (Value operand : {mac.getA(), mac.getB()})
        if (auto caps = typeCaps(operand.getType()))
          need(caps->first, loc);
      if (auto caps = typeCaps(mac.getC().getType()))
        need(caps->second, loc);
      return;
    }
    for (Type t : op->getResultTypes())
      if (auto caps = typeCaps(t))
        need(movesOnly(op) ? caps->first : caps->second, loc);
    for (Type t : op->getOperandTypes())
      if (auto caps = typeCaps(t))
        need(movesOnly(op) ? caps->first : caps->second, loc);
    if (auto alloc = dyn_cast<AllocOp>(op))
      if (auto caps = typeCaps(alloc.getResult().getType()))
        need(caps->first, loc);
    if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
      Type e = cast<BufferType>(atomic.getBuffer().getType()).getElementType();
      if (e.isInteger(32))
        need(Capability::atomicI32, loc);
      else if (e.isInteger(64))
        need(Capability::atomicI64, loc);
      else if (e.isF32())
        need(atomic.getKind() == AtomicKind::fadd ? Capability::atomicF32Add
                                                  : Capability::atomicI32, loc);
      else if (e.isF64())
        need(atomic.getKind() == AtomicKind::fadd ? Capability::atomicF64Add
                                                  : Capability::atomicI64, loc);
      if (atomic.getScope() == Scope::device || atomic.getScope() == Scope::queue_family)
        need(Capability::atomicDeviceScope, loc);
    }
    if (isa<WaveWidthOp, LaneIdOp, WaveIdOp, WaveCountOp>(op))
      need(Capability::waveOps, loc);
    for (Capability c : surfaceNeeds(op))
      need(c, loc);
    if (isa<DynamicSharedOp>(op))
      need(Capability::sharedMemory, loc);
    if (needsMathLibrary(op)) {
      need(Capability::mathLibrary, loc);
      if (getElementTypeOrSelf(op->getResult(0).getType()).isF64())
        need(Capability::f64Math, loc);
    }
    if (auto fma = dyn_cast<math::FmaOp>(op)) {
      Type e = getElementTypeOrSelf(fma.getType());
      if (e.isF32())
        need(Capability::fmaF32, loc);
      else if (e.isF64())
        need(Capability::fmaF64, loc);
    }
    if (!req.fastMath && !movesOnly(op) && isa<arith::ArithFastMathInterface>(op))
      need(Capability::contractionControl, loc);
    if (auto call = dyn_cast<CallOp>(op))
      if (auto callee = module.lookupSymbol<FuncOp>(call.getCallee()))
        walk(callee);
  }

private:
  ModuleOp module;
  KernelRequirements &req;
  llvm::SmallPtrSet<Operation *, 8> visited;
};

} // namespace

std::vector<KernelRequirements> analyzeRequirements(ModuleOp module) {
  std::vector<KernelRequirements> result;
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    KernelRequirements req;
    req.kernel = kernel.getSymName().str();
    std::string file;
    unsigned line = 0, col = 0;
    resolveLocation(kernel.getLoc(), file, line, col);
    req.location = file + ":" + std::to_string(line) + ":" + std::to_string(col);
    req.fastMath = kernel.getFastmath();
    Analyzer(module, req).walk(kernel);
    req.sharedBytes = sharedBytesWithTiles(kernel);
    if (req.sharedBytes)
      req.needs.insert(Capability::sharedMemory);
    if (auto wg = kernel.getWorkgroupSize()) {
      ArrayRef<int64_t> extents = *wg;
      req.workgroupInvocations = 1;
      for (int64_t e : extents)
        req.workgroupInvocations *= uint64_t(e);
      req.needs.insert(Capability::workgroupInvocations);
    }
    result.push_back(std::move(req));
  }
  return result;
}

} // namespace xpu
