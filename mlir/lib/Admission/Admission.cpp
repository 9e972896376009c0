// Admission: each kernel is checked against its profile and either admitted
// whole or refused with one located diagnostic (the first failing rule).
//
// deterministic-v1 follows RFC 0005 exactly: its types, its six-token effect
// vocabulary, its bounds, and its 13 refusal reasons (XPU-GC001..013)
// checked in its precedence order. portable admits floats and marks every
// access it cannot prove in bounds `checked`, so the backend guards it.
#include "xpu/Admission/BoundsProof.h"
#include "xpu/Admission/LaunchExtents.h"
#include "xpu/Admission/PrivateScratch.h"
#include "xpu/Admission/UniformControl.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/StringSet.h"

#include <functional>

namespace xpu {
#define GEN_PASS_DEF_ADMIT
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

// RFC 0005 bounds.
constexpr unsigned kMaxParams = 8;
constexpr int64_t kMaxWorkgroupAxis = 1024;
constexpr int64_t kMaxWorkgroupInvocations = 1024;
constexpr int64_t kMaxGridAxis = 65535;
constexpr int64_t kMaxBufferElements = 16 * 1024 * 1024;

// RFC 0005 device-effect vocabulary.
const llvm::StringSet<> &effectVocabulary() {
  static const llvm::StringSet<> v = {"DeviceAlloc",   "DeviceCopyIn",
                                      "DeviceCopyOut", "DeviceDispatch",
                                      "DeviceSynchronize", "DeviceRelease"};
  return v;
}

/// The refusal of one kernel: where, which rule, why.
struct Refusal {
  Location loc;
  unsigned code;
  std::string reason;
};

std::string codeName(unsigned code) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "XPU-GC%03u", code);
  return buf;
}

/// RFC admitted scalars: integers of 1, 8, 16, 32 or 64 bits.
bool isAdmittedScalar(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  return i && llvm::is_contained({1u, 8u, 16u, 32u, 64u}, i.getWidth());
}

bool isAdmittedParamType(Type t) {
  if (isAdmittedScalar(t))
    return true;
  if (auto v = dyn_cast<VectorType>(t))
    return v.getRank() == 1 && !v.isScalable() && v.getNumElements() >= 2 &&
           v.getNumElements() <= 4 && isAdmittedScalar(v.getElementType());
  if (auto b = dyn_cast<BufferType>(t))
    return isAdmittedScalar(b.getElementType());
  return false;
}

bool isFloatLike(Type t) {
  if (auto shaped = dyn_cast<ShapedType>(t))
    t = shaped.getElementType();
  if (auto b = dyn_cast<BufferType>(t))
    t = b.getElementType();
  return isa<FloatType>(t);
}

/// An op computes with floats when a float value or constant goes in or
/// comes out.
bool usesFloats(Operation *op) {
  for (Type t : op->getOperandTypes())
    if (isFloatLike(t))
      return true;
  for (Type t : op->getResultTypes())
    if (isFloatLike(t))
      return true;
  for (NamedAttribute a : op->getAttrs())
    if (auto typed = dyn_cast<TypedAttr>(a.getValue()))
      if (isFloatLike(typed.getType()))
        return true;
  return false;
}

std::string opName(Operation *op) {
  return "'" + op->getName().getStringRef().str() + "'";
}

/// The location of parameter `i` of `fn`.
Location paramLoc(FunctionOpInterface fn, unsigned i) {
  return fn.getFunctionBody().front().getArgument(i).getLoc();
}

std::string paramName(FunctionOpInterface fn, unsigned i) {
  if (auto n = fn.getArgAttrOfType<StringAttr>(i, "xpu.name"))
    return "'" + n.str() + "'";
  return "#" + std::to_string(i);
}

/// The dialects of the kernel surface: what every backend lowers.
bool isKernelSurface(Operation *op) {
  return isa_and_nonnull<arith::ArithDialect, scf::SCFDialect, cf::ControlFlowDialect,
                         vector::VectorDialect, math::MathDialect, ub::UBDialect,
                         XPUDialect>(op->getDialect());
}

/// Upstream ops that act on the host from a kernel; none is lowered by any
/// backend. An explicit list: unknown ops are not taken for host effects.
bool isUnloweredHostEffect(Operation *op) {
  return isa<vector::PrintOp, cf::AssertOp, gpu::PrintfOp, HostEffectOp>(op);
}

/// Host effects: the list above, and xpu ops that declare HostEffect (a
/// printf a backend carries out, say).
bool isHostEffect(Operation *op) {
  return isUnloweredHostEffect(op) || op->hasTrait<HostEffect>();
}

std::string hostEffectText(Operation *op) {
  if (auto effect = dyn_cast<HostEffectOp>(op))
    return "the host effect '" + effect.getEffect().str() + "'";
  if (isa<cf::AssertOp>(op))
    return opName(op) + " (it reports to the host and aborts)";
  return opName(op) + " (it prints on the host)";
}

/// A device named the way XPU_DEVICE names one: BACKEND or BACKEND:INDEX,
/// INDEX counting that backend's devices in the context from 0.
struct DeviceSpec {
  std::string backend;
  std::optional<unsigned> index;
};

std::optional<DeviceSpec> parseDeviceSpec(StringRef text) {
  auto [backend, index] = text.split(':');
  if (!llvm::is_contained({"cpu", "cuda", "hip", "vulkan"}, backend))
    return std::nullopt;
  DeviceSpec spec{backend.str(), std::nullopt};
  if (text.contains(':')) {
    unsigned n = 0;
    if (index.empty() || !llvm::all_of(index, llvm::isDigit) ||
        index.getAsInteger(10, n))
      return std::nullopt;
    spec.index = n;
  }
  return spec;
}

/// Whether `named` (the kernel's `device`) names `actual` ("vulkan:0").
bool namesDevice(const DeviceSpec &named, const DeviceSpec &actual) {
  return named.backend == actual.backend &&
         (!named.index || named.index == actual.index);
}

class DeterministicChecker {
public:
  DeterministicChecker(KernelOp kernel, bool explicitDevice, StringRef device)
      : kernel(kernel), explicitDevice(explicitDevice), device(device) {}

  std::optional<Refusal> check() {
    // RFC precedence: effects, device capability, parameter count,
    // parameter types, buffer capacity, parameter modes, shape bounds,
    // aliasing, then body operations in declaration order.
    if (auto r = checkEffects())
      return r;
    if (auto r = checkDevice())
      return r;
    if (auto r = checkParamCount())
      return r;
    if (auto r = checkParamTypes())
      return r;
    if (auto r = checkCapacity())
      return r;
    if (auto r = checkModes())
      return r;
    if (auto r = checkShape())
      return r;
    if (auto r = checkAliasing())
      return r;
    llvm::SmallPtrSet<Operation *, 4> visiting;
    return checkBody(kernel, visiting);
  }

private:
  std::optional<Refusal> checkEffects() {
    if (auto effects = kernel.getEffects())
      for (Attribute a : *effects) {
        StringRef token = cast<StringAttr>(a).getValue();
        if (!effectVocabulary().contains(token))
          return Refusal{kernel.getLoc(), 1,
                         "declared effect '" + token.str() +
                             "' is outside the device-effect vocabulary "
                             "(DeviceAlloc, DeviceCopyIn, DeviceCopyOut, "
                             "DeviceDispatch, DeviceSynchronize, DeviceRelease)"};
      }
    return std::nullopt;
  }

  std::optional<Refusal> checkDevice() {
    bool dispatches = false;
    if (auto effects = kernel.getEffects())
      for (Attribute a : *effects)
        dispatches |= cast<StringAttr>(a).getValue() == "DeviceDispatch";
    if (dispatches && !kernel.getDevice())
      return Refusal{kernel.getLoc(), 2,
                     "the DeviceDispatch effect names no device capability "
                     "(add a `device` attribute): implicit device selection "
                     "is not admitted"};
    std::optional<DeviceSpec> named;
    if (auto attr = kernel.getDevice())
      if (!(named = parseDeviceSpec(*attr)))
        return Refusal{kernel.getLoc(), 2,
                       "the device capability '" + attr->str() +
                           "' names no device: write BACKEND or BACKEND:INDEX "
                           "(BACKEND one of cpu, cuda, hip, vulkan; INDEX "
                           "counts that backend's devices from 0, as in "
                           "XPU_DEVICE)"};
    if (!explicitDevice)
      return Refusal{kernel.getLoc(), 2,
                     "dispatch without an explicitly chosen device: the "
                     "module was created for the default device; pass the "
                     "device to xpu_module_create"};
    if (named && !device.empty() && !namesDevice(*named, *parseDeviceSpec(device)))
      return Refusal{kernel.getLoc(), 2,
                     "the kernel's device capability names '" +
                         kernel.getDevice()->str() +
                         "', but the module is created for " + device.str()};
    return std::nullopt;
  }

  std::optional<Refusal> checkParamCount() {
    size_t n = kernel.getArgumentTypes().size();
    if (n == 0 || n > kMaxParams)
      return Refusal{kernel.getLoc(), 3,
                     "the kernel has " + std::to_string(n) +
                         " parameters; the profile admits 1 to " +
                         std::to_string(kMaxParams)};
    return std::nullopt;
  }

  std::optional<Refusal> checkParamTypes() {
    for (auto [i, t] : llvm::enumerate(kernel.getArgumentTypes()))
      if (!isAdmittedParamType(t)) {
        std::string s;
        llvm::raw_string_ostream os(s);
        os << t;
        return Refusal{paramLoc(kernel, i), 4,
                       "parameter " + paramName(kernel, i) + " has type " + s +
                           ", outside the kernel-safe types (integer or bool "
                           "scalars, vectors of 2-4 of them, buffers of them)"};
      }
    return std::nullopt;
  }

  std::optional<Refusal> checkCapacity() {
    for (auto [i, t] : llvm::enumerate(kernel.getArgumentTypes()))
      if (auto b = dyn_cast<BufferType>(t))
        if (b.hasStaticSize() && b.getSize() > kMaxBufferElements)
          return Refusal{paramLoc(kernel, i), 13,
                         "buffer parameter " + paramName(kernel, i) + " holds " +
                             std::to_string(b.getSize()) +
                             " elements; the profile admits at most " +
                             std::to_string(kMaxBufferElements)};
    return std::nullopt;
  }

  std::optional<Refusal> checkModes() {
    for (auto [i, t] : llvm::enumerate(kernel.getArgumentTypes()))
      if (auto b = dyn_cast<BufferType>(t))
        if (b.getAccess() == Access::owned || b.getAccess() == Access::alias)
          return Refusal{paramLoc(kernel, i), 5,
                         "parameter " + paramName(kernel, i) + " is " +
                             (b.getAccess() == Access::owned
                                  ? "an owned transfer"
                                  : "a shared alias") +
                             "; only read-only and read-write views are admitted"};
    return std::nullopt;
  }

  std::optional<Refusal> checkShape() {
    if (auto wg = kernel.getWorkgroupSize()) {
      int64_t product = 1;
      for (auto [axis, e] : llvm::enumerate(*wg)) {
        if (e < 1 || e > kMaxWorkgroupAxis)
          return Refusal{kernel.getLoc(), 6,
                         "workgroup extent " + std::to_string(e) + " on axis " +
                             std::to_string(axis) + " is outside 1.." +
                             std::to_string(kMaxWorkgroupAxis)};
        product *= e;
      }
      if (product > kMaxWorkgroupInvocations)
        return Refusal{kernel.getLoc(), 6,
                       "a workgroup of " + std::to_string(product) +
                           " invocations exceeds " +
                           std::to_string(kMaxWorkgroupInvocations)};
    }
    if (auto grid = kernel.getGridSize())
      for (auto [axis, e] : llvm::enumerate(*grid))
        if (e < 1 || e > kMaxGridAxis)
          return Refusal{kernel.getLoc(), 6,
                         "grid extent " + std::to_string(e) + " on axis " +
                             std::to_string(axis) + " is outside 1.." +
                             std::to_string(kMaxGridAxis)};
    return std::nullopt;
  }

  /// A buffer parameter may declare that it overlaps another
  /// (`{xpu.may_alias = "other"}`); the profile has no disjointness proof to
  /// accept that with. Launches also refuse one buffer passed twice.
  std::optional<Refusal> checkAliasing() {
    for (unsigned i = 0; i < kernel.getNumArguments(); ++i)
      if (auto other = kernel.getArgAttrOfType<StringAttr>(i, "xpu.may_alias"))
        return Refusal{paramLoc(kernel, i), 11,
                       "buffer parameter " + paramName(kernel, i) +
                           " may alias '" + other.str() +
                           "', and no disjointness proof is available"};
    return std::nullopt;
  }

  std::optional<Refusal> checkBody(FunctionOpInterface fn,
                                   llvm::SmallPtrSet<Operation *, 4> &visiting) {
    if (!visiting.insert(fn).second)
      return Refusal{fn.getLoc(), 12,
                     "device function '" + fn.getName().str() +
                         "' calls itself; recursion is not admitted"};
    BoundsProver prover(fn);
    std::optional<Refusal> refusal;
    auto module = kernel->getParentOfType<ModuleOp>();
    fn.getFunctionBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      refusal = checkOp(op, prover, module, visiting);
      return refusal ? WalkResult::interrupt() : WalkResult::advance();
    });
    visiting.erase(fn);
    return refusal;
  }

  std::optional<Refusal> checkOp(Operation *op, BoundsProver &prover,
                                 ModuleOp module,
                                 llvm::SmallPtrSet<Operation *, 4> &visiting) {
    if (auto atomic = dyn_cast<AtomicRMWOp>(op)) {
      Type elem = cast<BufferType>(atomic.getBuffer().getType()).getElementType();
      if (!isa<IntegerType>(elem))
        return Refusal{op->getLoc(), 9, "an atomic on a non-integer element"};
      if (atomic.getOrder() != MemoryOrder::seq_cst)
        return Refusal{op->getLoc(), 9,
                       std::string("an atomic with order '") +
                           stringifyMemoryOrder(atomic.getOrder()).str() +
                           "' has no fixed total order; use seq_cst"};
      // Only an order-independent combination is deterministic, and only
      // when nobody looks at the value it replaced.
      if (atomic.getKind() == AtomicKind::xchg || atomic.getKind() == AtomicKind::cmpxchg)
        return Refusal{op->getLoc(), 9,
                       "an atomic exchange's final value depends on which "
                       "invocation goes last"};
      if (!atomic.getResult().use_empty())
        return Refusal{op->getLoc(), 9,
                       "the value an atomic returns depends on the schedule; "
                       "it may not be used"};
      if (BoundsVerdict v = prover.prove(op); !v.proven)
        return outOfBounds(op, "atomic", v);
      return std::nullopt;
    }
    if (auto reduce = dyn_cast<ReduceOp>(op)) {
      if (reduce.getOrder() != ReduceOrder::sequential)
        return Refusal{op->getLoc(), 8,
                       std::string("a reduction in '") +
                           stringifyReduceOrder(reduce.getOrder()).str() +
                           "' order combines operands in an order that "
                           "depends on the device; use sequential"};
    }
    if (usesFloats(op))
      return Refusal{op->getLoc(), 10,
                     opName(op) + " computes with floating point, which the "
                                  "exact-integer profile does not admit"};
    if (isa<LoadOp, StoreOp>(op)) {
      if (BoundsVerdict v = prover.prove(op); !v.proven)
        return outOfBounds(op, isa<LoadOp>(op) ? "load" : "store", v);
      return std::nullopt;
    }
    if (isHostEffect(op))
      return Refusal{op->getLoc(), 12,
                     "the kernel performs " + hostEffectText(op)};
    if (isa<PrintfOp>(op))
      return Refusal{op->getLoc(), 12, "the kernel performs the host effect 'print'"};
    if (isa<AsyncCopyOp>(op))
      return Refusal{op->getLoc(), 12,
                     "an asynchronous copy's accesses are checked at run time, not "
                     "proven, and it lies outside the profile's closed operation set"};
    // Integer wave reductions, scans and votes are exact whatever the
    // combination order; what names lanes (ids, shuffles, ballot masks)
    // depends on the device's wave width.
    if (isa<WaveWidthOp, LaneIdOp, WaveShuffleOp, WaveBroadcastOp, WaveBallotOp>(op))
      return Refusal{op->getLoc(), 12,
                     opName(op) + " depends on the device's wave width, "
                                  "outside the profile's closed operation set"};
    if (auto call = dyn_cast<CallOp>(op)) {
      auto callee = module.lookupSymbol<FuncOp>(call.getCallee());
      return checkBody(callee, visiting);
    }
    if (auto call = dyn_cast<FnCallOp>(op)) {
      for (Attribute f : call.getSet())
        if (auto r = checkBody(module.lookupSymbol<FuncOp>(cast<FlatSymbolRefAttr>(f)), visiting))
          return r;
      return std::nullopt;
    }
    if (isKernelSurface(op))
      return std::nullopt;
    return Refusal{op->getLoc(), 12,
                   opName(op) + " reaches outside the profile's closed "
                                "operation set"};
  }

  Refusal outOfBounds(Operation *op, const char *what, const BoundsVerdict &v) {
    return Refusal{op->getLoc(), 7,
                   std::string("this ") + what +
                       " is neither proven in bounds nor guarded by a check "
                       "against the buffer's size: " + v.reason};
  }

  KernelOp kernel;
  bool explicitDevice;
  StringRef device;
};

/// Scalars a launch passes by value under portable: a width that is the
/// same on every target (so not `index`) and a slot in the kernel ABI.
bool isLaunchScalar(Type t) {
  return isAdmittedScalar(t) || t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}

/// portable: parameters are buffers, launch scalars or 1-D vectors of them.
std::optional<Refusal> checkPortableParams(KernelOp kernel) {
  auto fn = cast<FunctionOpInterface>(kernel.getOperation());
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    Type elem = type;
    if (auto v = dyn_cast<VectorType>(type))
      elem = v.getRank() == 1 && !v.isScalable() ? v.getElementType() : Type();
    if (isa<BufferType, StructType>(type) || (elem && isLaunchScalar(elem)))
      continue;
    std::string typeText;
    llvm::raw_string_ostream(typeText) << type;
    std::string reason = "parameter " + paramName(fn, i) + " has type '" + typeText +
                         "', which a launch cannot pass; ";
    reason += elem && elem.isIndex()
                  ? "the width of 'index' belongs to the target: use i32 or i64"
                  : "use a buffer, an integer of 1, 8, 16, 32 or 64 bits, "
                    "f16, bf16, f32, f64, or a 1-D vector of them";
    return Refusal{paramLoc(fn, i), 1, reason};
  }
  return std::nullopt;
}

/// portable: the body, and the device functions it calls, in order: no
/// host effect that no backend carries out (XPU-PT003), no op outside the
/// kernel surface (XPU-PT004). Either would fail in code generation.
std::optional<std::pair<std::string, Refusal>> checkPortableBody(KernelOp kernel) {
  std::optional<std::pair<std::string, Refusal>> refusal;
  auto module = kernel->getParentOfType<ModuleOp>();
  llvm::SmallPtrSet<Operation *, 4> seen;
  std::function<void(Operation *)> visit = [&](Operation *fn) {
    if (!seen.insert(fn).second)
      return;
    fn->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == fn)
        return WalkResult::advance();
      if (isUnloweredHostEffect(op))
        refusal = {"XPU-PT003",
                   Refusal{op->getLoc(), 0,
                           "the kernel performs " + hostEffectText(op) +
                               ", which no backend carries out"}};
      else if (!isKernelSurface(op))
        refusal = {"XPU-PT004",
                   Refusal{op->getLoc(), 0,
                           opName(op) + " is outside the kernel surface (the xpu, "
                                        "arith, math, scf, cf, vector and ub "
                                        "dialects), which every backend lowers"}};
      else if (auto call = dyn_cast<CallOp>(op))
        if (auto callee = module.lookupSymbol<FuncOp>(call.getCallee()))
          visit(callee);
      return refusal ? WalkResult::interrupt() : WalkResult::advance();
    });
  };
  visit(kernel);
  return refusal;
}

/// portable: every access not proven in bounds is checked at run time.
void markUnprovenAccesses(FunctionOpInterface fn) {
  BoundsProver prover(fn);
  UnitAttr unit = UnitAttr::get(fn.getContext());
  fn.walk([&](Operation *op) {
    if (isa<LoadOp, StoreOp, AtomicRMWOp>(op) && !prover.provesInBounds(op))
      op->setAttr("checked", unit);
  });
}

struct AdmitPass : xpu::impl::AdmitBase<AdmitPass> {
  using AdmitBase::AdmitBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool refused = false;
    std::optional<UniformityAnalysis> uniformity;
    for (KernelOp kernel : module.getOps<KernelOp>()) {
      bool deterministic = kernel.getProfileName() == kProfileDeterministic;
      std::optional<Refusal> r;
      std::string code;
      if (deterministic) {
        if ((r = DeterministicChecker(kernel, explicitDevice, device).check()))
          code = codeName(r->code);
      } else if ((r = checkPortableParams(kernel))) {
        code = "XPU-PT001";
      }
      auto emitRefusal = [&] {
        emitError(r->loc) << code << ": kernel '" << kernel.getSymName()
                          << "': " << r->reason;
        refused = true;
      };
      if (r) {
        emitRefusal();
        continue;
      }
      if (failed(verifyFixedExtents(kernel))) {
        refused = true;
        continue;
      }
      // portable: the parameters, the kernel's shape, then its body.
      if (auto body = deterministic ? std::nullopt : checkPortableBody(kernel)) {
        code = body->first;
        r = body->second;
        emitRefusal();
        continue;
      }
      // Both profiles, after the profile's own rules (the RFC's precedence
      // covers only its 13 reasons).
      if (failed(verifyPrivateScratch(kernel))) {
        refused = true;
        continue;
      }
      if (!uniformity)
        uniformity.emplace(module);
      if (failed(checkUniformControl(kernel, *uniformity)))
        refused = true;
    }
    if (refused)
      return signalPassFailure();
    // Admitted: portable kernels and helpers get run-time checks where
    // nothing proves an access in bounds (deterministic ones have none left).
    if (!runtimeChecks)
      return;
    for (auto fn : module.getOps<FunctionOpInterface>())
      if (isa<KernelOp, FuncOp>(fn))
        markUnprovenAccesses(fn);
  }
};

} // namespace
