// The compiler's stages as functions: parse with located diagnostics,
// describe kernels for the runtime, and lower for an LLVM-based target.
// The runtime strings these together (src/runtime/compiler.cpp).
#pragma once

#include "xpu/Diagnostic.h"
#include "xpu/KernelABI.h"
#include "xpu/Requirements.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace xpu {

/// Every dialect, interface and translation the library uses.
void registerDialects(mlir::DialectRegistry &registry);

/// Collects the context's diagnostics into a list for as long as it lives,
/// instead of printing them. A message of the form "XPU-CODE: text" yields
/// that code; otherwise `defaultCode` (changed between stages) is used.
class DiagnosticCollector {
public:
  DiagnosticCollector(mlir::MLIRContext &ctx, DiagnosticList &out);
  ~DiagnosticCollector();
  void setDefaultCode(std::string code) { defaultCode = std::move(code); }
  bool hadError() const { return errors > 0; }

private:
  mlir::MLIRContext &ctx;
  DiagnosticList &out;
  std::string defaultCode;
  unsigned errors = 0;
  mlir::DiagnosticEngine::HandlerID id;
};

/// Where a location points, as file/line/column (unknown: empty, 0, 0).
void resolveLocation(mlir::Location loc, std::string &file, unsigned &line,
                     unsigned &column);

/// Parses `text` as a module. Kernel and function parameters get their
/// source names (`%y` -> "y") as the `xpu.name` argument attribute, so
/// diagnostics and the runtime can name them. Upstream gpu.module kernels
/// are imported. Returns null after reporting errors.
mlir::OwningOpRef<mlir::ModuleOp> parseKernelSource(mlir::MLIRContext &ctx,
                                                     llvm::StringRef text,
                                                     llvm::StringRef sourceName);

/// The library's text form of a module: custom assembly without locations,
/// parameters under their source names. The builder prints with it and
/// xpu_module_format normalizes text to it, so equal IR prints equal text.
std::string printKernelSource(mlir::ModuleOp module);

/// Numbers the runtime-checked accesses (`xpu.site`), in walk order.
void assignCheckSites(mlir::ModuleOp module);

/// Numbers every scf.for and scf.while after the accesses (`xpu.site`,
/// described as "loop"), for devices that stop loops after a budget of
/// passes: the GuardLoopLimit pass reports a stopped loop at its site.
/// Ops that a lowering turns into loops (tile ops, xpu.reduce, math.ipowi,
/// float min/max atomics) get a site of their own (`xpu.loop_site`),
/// which those loops take (inheritLoopSite): the budget is shared by every
/// loop, so one the kernel does not spell out can run out of it too.
void assignLoopSites(mlir::ModuleOp module);

/// Gives `loop`, made by lowering `from`, the loop site assignLoopSites
/// gave `from` (nothing when it has none).
void inheritLoopSite(mlir::Operation *loop, mlir::Operation *from);

/// How a kernel parameter of `type` is passed (its name left empty).
abi::Param paramOf(mlir::Type type);

/// What the runtime needs to know about each kernel. Call after admission
/// and assignCheckSites, before lowering.
std::vector<abi::KernelInfo> describeKernels(mlir::ModuleOp module);

/// What each kernel needs from a target. Call after admission, before
/// lowering (a reduction's shared scratch on GPUs is counted).
std::vector<KernelRequirements> analyzeRequirements(mlir::ModuleOp module);

enum class LLVMTarget { cpu, nvvm, rocdl };

/// The version of the lowering pipeline, part of every kernel cache key.
/// Bump it when lowering or code generation changes what a kernel compiles
/// to (the library's build id is in the key too, but a build without one
/// relies on this).
constexpr unsigned kPipelineVersion = 3;

/// Lowers an admitted module to the LLVM dialect for `target`. `chip`
/// (sm_90, gfx942; may be empty) selects instructions only some have.
mlir::LogicalResult lowerToLLVMDialect(mlir::ModuleOp module, LLVMTarget target,
                                       unsigned waveWidth,
                                       llvm::StringRef chip = "");

/// How kernels are lowered to SPIR-V for one Vulkan device.
struct SPIRVOptions {
  unsigned indexBits = 32;             ///< 64 where the device has shaderInt64
  unsigned maxPushConstantBytes = 128; ///< the device's maxPushConstantsSize
  bool preserveFloats = false; ///< IEEE f32 denormals, zeros, infinities, NaNs
  /// Measured device facts (src/calibration) the lowering works around:
  /// loops numbered by assignLoopSites report being stopped by the device's
  /// loop budget (lavapipe); math.fma of f16 / f32 is computed exactly
  /// through the wider type where the driver does not fuse it; f32 exp and
  /// exp2 keep subnormal results where the driver's flush them.
  bool guardLoops = false;
  bool softwareFmaF16 = false, softwareFmaF32 = false;
  bool subnormalExp = false;
  /// The tile kernels whose pipelines are specialized on their strides:
  /// "workgroup" (the workgroup-scope tier's), "all" or "off"
  /// (XPU_TILE_SPECIALIZE; xpu-lower-tiles' specialize option).
  std::string specializeTileStrides = "workgroup";
  /// Workgroup-scope tile kernels with a copying K loop split in two
  /// (XPU_TILE_SPLIT=on; xpu-lower-tiles' split-copying option).
  bool splitCopyingTiles = false;
};

/// Lowers an admitted module to a spirv.module for Vulkan: helpers inlined,
/// checks materialized with a buffer status word, kernels converted, the
/// module's capabilities and extensions deduced. `module` must carry the
/// device's `spirv.target_env`; the module's SPIR-V version is the target's.
mlir::LogicalResult lowerToSPIRV(mlir::ModuleOp module, const SPIRVOptions &options);

/// The SPIR-V words of the spirv.module that lowerToSPIRV made.
mlir::LogicalResult serializeSPIRV(mlir::ModuleOp module,
                                   std::vector<uint32_t> &words);

/// Translates an LLVM-dialect module to LLVM IR.
std::unique_ptr<llvm::Module> translateToLLVMIR(mlir::ModuleOp module,
                                                llvm::LLVMContext &llvmCtx);

} // namespace xpu
