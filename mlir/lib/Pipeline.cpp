// The compiler's stages as functions; see Pipeline.h.
#include "xpu/Pipeline.h"
#include "xpu/TileLowering.h"
#include "xpu/Analysis/AccessModes.h"
#include "xpu/Dialect/XPU/IR/Tiles.h"
#include "xpu/FrontEnd/GPUImport.h"
#include "xpu/ParserGuards.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace xpu {

void registerDialects(DialectRegistry &registry) {
  registry.insert<XPUDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, cf::ControlFlowDialect, vector::VectorDialect,
                  gpu::GPUDialect, memref::MemRefDialect, func::FuncDialect,
                  ub::UBDialect, LLVM::LLVMDialect, NVVM::NVVMDialect,
                  ROCDL::ROCDLDialect, spirv::SPIRVDialect>();
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

void resolveLocation(Location loc, std::string &file, unsigned &line,
                     unsigned &column) {
  if (auto flc = dyn_cast<FileLineColLoc>(loc)) {
    file = flc.getFilename().str();
    line = flc.getLine();
    column = flc.getColumn();
  } else if (auto named = dyn_cast<NameLoc>(loc)) {
    resolveLocation(named.getChildLoc(), file, line, column);
  } else if (auto call = dyn_cast<CallSiteLoc>(loc)) {
    resolveLocation(call.getCaller(), file, line, column);
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations()) {
      resolveLocation(inner, file, line, column);
      if (line)
        return;
    }
  }
}

DiagnosticCollector::DiagnosticCollector(MLIRContext &context,
                                         DiagnosticList &list)
    : ctx(context), out(list) {
  id = ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &diag) {
    auto record = [this](mlir::Diagnostic &d) {
      Diagnostic rec;
      switch (d.getSeverity()) {
      case DiagnosticSeverity::Error:
        rec.severity = Diagnostic::Severity::error;
        ++errors;
        break;
      case DiagnosticSeverity::Warning:
        rec.severity = Diagnostic::Severity::warning;
        break;
      case DiagnosticSeverity::Note:
        rec.severity = Diagnostic::Severity::note;
        break;
      case DiagnosticSeverity::Remark:
        rec.severity = Diagnostic::Severity::remark;
        break;
      }
      std::string text = d.str();
      // "XPU-GC007: reason" carries its own code.
      llvm::StringRef s(text);
      if (s.starts_with("XPU-")) {
        size_t colon = s.find(": ");
        if (colon != llvm::StringRef::npos && colon < 16) {
          rec.code = s.take_front(colon).str();
          s = s.drop_front(colon + 2);
        }
      }
      if (rec.code.empty() && rec.severity == Diagnostic::Severity::error)
        rec.code = defaultCode;
      // One line: the first line of a multi-line message.
      rec.message = s.take_until([](char c) { return c == '\n'; }).str();
      resolveLocation(d.getLocation(), rec.file, rec.line, rec.column);
      out.push_back(std::move(rec));
    };
    record(diag);
    for (mlir::Diagnostic &note : diag.getNotes())
      record(note);
    return success();
  });
}

DiagnosticCollector::~DiagnosticCollector() {
  ctx.getDiagEngine().eraseHandler(id);
}

/// A module holds kernels and device functions, nothing else: an op outside
/// them (a top-level xpu.alloc, barrier or coordinate, a func.func, a nested
/// module) has no invocation to run for, and no backend lowers it.
static LogicalResult verifyTopLevel(ModuleOp module) {
  bool ok = true;
  for (Operation &op : module.getBody()->getOperations()) {
    if (isa<KernelOp, FuncOp>(op))
      continue;
    emitError(op.getLoc()) << "'" << op.getName()
                   << "' is outside any kernel: a module holds only xpu.kernel "
                      "and xpu.func (or an upstream gpu.module to import); "
                      "move it into a kernel body";
    ok = false;
  }
  return success(ok);
}

/// Attributes the compiler sets on operations for its own later stages
/// (`xpu.site` numbers run-time checks; `checked` marks one; `xpu.barriers`,
/// `xpu.shared_bytes` and `xpu.kernel` describe lowered functions). Written
/// in the source they would be believed: `xpu.site = 4e10` sized a table,
/// `checked` on an arithmetic op failed code generation. `checked` stays
/// accepted where it is part of the op (loads, stores, atomics: it only
/// adds a run-time check).
static LogicalResult refuseCompilerAttributes(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    for (NamedAttribute attr : op->getDiscardableAttrs()) {
      StringRef name = attr.getName().getValue();
      if (!name.starts_with("xpu.") && name != "checked")
        continue;
      emitError(op->getLoc()) << "'" << name << "' on '" << op->getName()
                      << "' is an attribute the compiler sets, not one kernel "
                         "source may write";
      ok = false;
    }
  });
  return success(ok);
}

/// Ops the lowering makes for its own later stages (XPU_LoweringOnly):
/// written in the source their operands would be trusted, as the lowering's
/// are (a coop_sums_mac of billions of K steps unrolled for hours).
static LogicalResult refuseLoweringOps(ModuleOp module) {
  bool ok = true;
  module.walk([&](Operation *op) {
    if (!op->hasTrait<LoweringOnly>())
      return;
    emitError(op->getLoc()) << "'" << op->getName()
                            << "' is made by the compiler's lowering; kernel source "
                               "may not use it";
    ok = false;
  });
  return success(ok);
}

OwningOpRef<ModuleOp> parseKernelSource(MLIRContext &ctx, StringRef text,
                                        StringRef sourceName) {
  if (failed(refuseParserCrashers(ctx, text, sourceName)))
    return nullptr;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, sourceName), llvm::SMLoc());
  Block block;
  AsmParserState state;
  ParserConfig config(&ctx);
  if (failed(parseAsmSourceFile(sourceMgr, &block, config, &state)))
    return nullptr;

  // The module: the one written, or one made around top-level ops.
  OwningOpRef<ModuleOp> module;
  if (block.getOperations().size() == 1 && isa<ModuleOp>(block.front())) {
    module = cast<ModuleOp>(block.front());
    module->getOperation()->remove();
  } else {
    Location loc = FileLineColLoc::get(&ctx, sourceName, 1, 1);
    module = ModuleOp::create(loc);
    module->getBody()->getOperations().splice(module->getBody()->begin(),
                                              block.getOperations());
  }

  // Parameter names from the source text ("%y" -> "y").
  module->walk([&](FunctionOpInterface fn) {
    if (fn.getFunctionBody().empty())
      return;
    const AsmParserState::BlockDefinition *def =
        state.getBlockDef(&fn.getFunctionBody().front());
    if (!def)
      return;
    // A gpu.func's entry block also holds its attributions, which are not
    // parameters.
    for (auto [i, arg] : llvm::enumerate(def->arguments)) {
      if (i >= fn.getNumArguments())
        break;
      const char *begin = arg.loc.Start.getPointer();
      const char *end = arg.loc.End.getPointer();
      if (!begin || end <= begin)
        continue;
      StringRef name(begin, end - begin);
      name.consume_front("%");
      fn.setArgAttr(i, "xpu.name", StringAttr::get(&ctx, name));
    }
  });

  // Verified before the import, which assumes valid IR.
  if (failed(verify(*module)) || failed(refuseCompilerAttributes(*module)) ||
      failed(refuseLoweringOps(*module)))
    return nullptr;
  PassManager pm(&ctx, ModuleOp::getOperationName());
  pm.addPass(createImportGPU());
  if (failed(pm.run(*module)) || failed(verify(*module)) ||
      failed(verifyTopLevel(*module)))
    return nullptr;
  return module;
}

std::string printKernelSource(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, OpPrintingFlags().enableDebugInfo(false));
  return text;
}

void assignCheckSites(ModuleOp module) {
  int64_t next = 0;
  Builder b(module.getContext());
  module.walk([&](Operation *op) {
    if (op->hasAttr("checked"))
      op->setAttr("xpu.site", b.getI64IntegerAttr(next++));
  });
}

static abi::Scalar scalarOf(Type t) {
  if (t.isInteger(1))
    return abi::Scalar::i1;
  if (t.isInteger(8))
    return abi::Scalar::i8;
  if (t.isInteger(16))
    return abi::Scalar::i16;
  if (t.isInteger(32))
    return abi::Scalar::i32;
  if (t.isInteger(64))
    return abi::Scalar::i64;
  if (t.isF16())
    return abi::Scalar::f16;
  if (t.isBF16())
    return abi::Scalar::bf16;
  if (t.isF32())
    return abi::Scalar::f32;
  return abi::Scalar::f64;
}

abi::Param paramOf(Type type) {
  abi::Param p;
  if (auto buf = dyn_cast<BufferType>(type)) {
    p.isBuffer = true;
    p.elem = scalarOf(buf.getElementType());
    p.space = static_cast<abi::Space>(buf.getSpace());
    p.access = static_cast<abi::Access>(buf.getAccess());
    p.staticCount = buf.getSize();
  } else if (auto vec = dyn_cast<VectorType>(type)) {
    p.elem = scalarOf(vec.getElementType());
    p.lanes = vec.getNumElements();
  } else {
    p.elem = scalarOf(type);
  }
  return p;
}

static std::string locationText(Location loc) {
  std::string file;
  unsigned line = 0, col = 0;
  resolveLocation(loc, file, line, col);
  if (!line)
    return file.empty() ? "<unknown>" : file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// The source name of the buffer an access goes through.
static std::string bufferName(Value buffer) {
  if (auto arg = dyn_cast<BlockArgument>(buffer)) {
    auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (fn && arg.getOwner()->isEntryBlock())
      if (auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "xpu.name"))
        return name.str();
  }
  return "scratch";
}

/// The printf sites xpu-lower-printf listed on the module.
static std::vector<abi::PrintSite> printSites(ModuleOp module) {
  std::vector<abi::PrintSite> sites;
  auto list = module->getAttrOfType<ArrayAttr>(abi::kPrintSitesAttr);
  for (Attribute a : list ? list : ArrayAttr::get(module.getContext(), {})) {
    auto d = cast<DictionaryAttr>(a);
    abi::PrintSite s;
    s.format = d.getAs<StringAttr>("format").str();
    s.location = d.getAs<StringAttr>("location").str();
    for (Attribute t : d.getAs<ArrayAttr>("args"))
      s.args.push_back(scalarOf(cast<TypeAttr>(t).getValue()));
    sites.push_back(std::move(s));
  }
  return sites;
}

/// Parameter `i`, a field of a struct parameter (xpu-flatten-structs), joins
/// its struct: a new one when the previous parameter was not of it. The
/// first field stands for the struct's launch argument, the others are
/// filled from it (Role::structField).
static void addStructField(abi::KernelInfo &info, abi::Param &p, DictionaryAttr field,
                           unsigned i) {
  std::string name = field.getAs<StringAttr>("struct").str();
  if (info.structs.empty() || info.structs.back().name != name ||
      info.structs.back().firstParam + info.structs.back().fieldCount != i) {
    abi::StructArg s;
    s.name = name;
    s.typeName = field.getAs<StringAttr>("type").str();
    s.bytes = uint32_t(field.getAs<IntegerAttr>("bytes").getInt());
    s.firstParam = i;
    info.structs.push_back(s);
  } else {
    p.role = abi::Role::structField;
  }
  ++info.structs.back().fieldCount;
  p.structArg = int32_t(info.structs.size() - 1);
  p.fieldOffset = uint32_t(field.getAs<IntegerAttr>("offset").getInt());
}

std::vector<abi::KernelInfo> describeKernels(ModuleOp module) {
  std::vector<abi::KernelInfo> kernels;
  std::vector<abi::CheckSite> sites;
  auto record = [&](IntegerAttr site, abi::CheckSite s) {
    if (sites.size() <= size_t(site.getInt()))
      sites.resize(site.getInt() + 1);
    sites[site.getInt()] = std::move(s);
  };
  module.walk([&](Operation *op) {
    // An op that becomes loops when lowered (assignLoopSites), at the op.
    if (auto loopSite = op->getAttrOfType<IntegerAttr>("xpu.loop_site"))
      record(loopSite, {locationText(op->getLoc()), "loop"});
    auto site = op->getAttrOfType<IntegerAttr>("xpu.site");
    if (!site)
      return;
    abi::CheckSite s;
    s.location = locationText(op->getLoc());
    if (auto load = dyn_cast<LoadOp>(op))
      s.what = "load from '" + bufferName(load.getBuffer()) + "'";
    else if (auto store = dyn_cast<StoreOp>(op))
      s.what = "store to '" + bufferName(store.getBuffer()) + "'";
    else if (auto atomic = dyn_cast<AtomicRMWOp>(op))
      s.what = "atomic on '" + bufferName(atomic.getBuffer()) + "'";
    else if (auto load = dyn_cast<TileLoadOp>(op))
      s.what = "tile load from '" + bufferName(load.getBuffer()) + "'";
    else if (auto store = dyn_cast<TileStoreOp>(op))
      s.what = "tile store to '" + bufferName(store.getBuffer()) + "'";
    else if (isa<scf::ForOp, scf::WhileOp>(op))
      s.what = "loop";
    record(site, std::move(s));
  });

  auto withBarriers = functionsWithBarriers(module);
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    abi::KernelInfo info;
    info.name = kernel.getSymName().str();
    info.profile = kernel.getProfileName().str();
    info.location = locationText(kernel.getLoc());
    ParamUses uses = analyzeParamUses(kernel);
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      abi::Param p = paramOf(type);
      p.uses = uses.uses[i];
      p.cost = uses.cost[i];
      if (auto name = kernel.getArgAttrOfType<StringAttr>(i, "xpu.name"))
        p.name = name.str();
      else
        p.name = "arg" + std::to_string(i);
      if (auto field = kernel.getArgAttrOfType<DictionaryAttr>(i, abi::kStructFieldAttr))
        addStructField(info, p, field, i);
      if (kernel.getArgAttr(i, abi::kPrintBufferAttr)) {
        info.printParam = int32_t(i);
        info.prints = printSites(module);
        p.role = abi::Role::printBuffer;
      }
      info.params.push_back(std::move(p));
    }
    gpuimport::describeParams(kernel, info.params, info);
    auto extents = [](std::optional<ArrayRef<int64_t>> shape)
        -> std::optional<std::array<uint32_t, 3>> {
      if (!shape)
        return std::nullopt;
      std::array<uint32_t, 3> e{1, 1, 1};
      for (size_t i = 0; i < shape->size() && i < 3; ++i)
        e[i] = uint32_t((*shape)[i]);
      return e;
    };
    info.workgroupSize = extents(kernel.getWorkgroupSize());
    info.gridSize = extents(kernel.getGridSize());
    info.sharedBytes = sharedBytesWithTiles(kernel);
    info.usesBarriers = withBarriers.contains(kernel);
    info.checkSites = sites;
    kernels.push_back(std::move(info));
  }
  return kernels;
}

LogicalResult lowerToLLVMDialect(ModuleOp module, LLVMTarget target,
                                 unsigned waveWidth, StringRef chip) {
  const char *name = target == LLVMTarget::cpu    ? "cpu"
                     : target == LLVMTarget::nvvm ? "nvvm"
                                                  : "rocdl";
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  LowerTilesOptions tileOptions;
  tileOptions.target = name;
  pm.addPass(createLowerTiles(tileOptions));
  LowerWaveOpsOptions waveOptions;
  waveOptions.target = name;
  waveOptions.waveWidth = waveWidth;
  waveOptions.chip = chip.str();
  pm.addPass(createLowerWaveOps(waveOptions));
  LowerAsyncCopiesOptions asyncOptions;
  asyncOptions.target = name;
  asyncOptions.chip = chip.str();
  pm.addPass(createLowerAsyncCopies(asyncOptions));
  if (target == LLVMTarget::cpu) {
    // One call per workgroup: barriers and reductions become region
    // boundaries of work-item loops instead of code. Wave ids first become
    // thread ids, which the loops replace.
    pm.addPass(createLowerWaveIds());
    InlineHelpersOptions inlineOptions;
    inlineOptions.onlyBarriers = true;
    pm.addPass(createInlineHelpers(inlineOptions));
    pm.addPass(createCPUWorkItemLoops());
  } else {
    pm.addPass(createExpandReductions());
  }
  pm.addPass(createDefineIntegerSemantics());
  AvoidMiscompilesOptions avoid;
  avoid.target = "llvm";
  pm.addPass(createAvoidMiscompiles(avoid));
  pm.addPass(createLowerWaveIds());
  LowerExecutionModelOptions execOptions;
  execOptions.target = name;
  execOptions.waveWidth = waveWidth;
  pm.addPass(createLowerExecutionModel(execOptions));
  PrepareLoweringOptions prepareOptions;
  prepareOptions.skipWorkItemLoops = target == LLVMTarget::cpu;
  pm.addPass(createPrepareLowering(prepareOptions));
  if (target == LLVMTarget::cpu)
    pm.addPass(createCPUChecks());
  ExpandMathOptions expandMath;
  expandMath.target = name;
  pm.addPass(createExpandMath(expandMath));
  MathToLibCallsOptions mathOptions;
  mathOptions.target = name;
  pm.addPass(createMathToLibCalls(mathOptions));
  pm.addPass(createSCFToControlFlowPass());
  // Integer division that rounds up or down, and similar ops no target
  // lowers directly, become plain arithmetic.
  pm.addPass(arith::createArithExpandOpsPass());
  if (target == LLVMTarget::nvvm)
    pm.addPass(createPlaceSharedMemory());
  ConvertXPUToLLVMOptions llvmOptions;
  llvmOptions.target = name;
  pm.addPass(createConvertXPUToLLVM(llvmOptions));
  if (target == LLVMTarget::cpu)
    pm.addPass(createCPUWrappers());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  return pm.run(module);
}

LogicalResult lowerToSPIRV(ModuleOp module, const SPIRVOptions &options) {
  spirv::TargetEnvAttr env = spirv::lookupTargetEnv(module);
  if (!env)
    return module.emitError("lowering to SPIR-V needs a spirv.target_env");
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  LowerTilesOptions tileOptions;
  tileOptions.target = "spirv";
  tileOptions.specialize = options.specializeTileStrides;
  tileOptions.splitCopying = options.splitCopyingTiles;
  pm.addPass(createLowerTiles(tileOptions));
  pm.addPass(createExpandReductions());
  pm.addPass(createInlineHelpers());
  DefineIntegerSemanticsOptions semantics;
  semantics.indexBits = options.indexBits;
  pm.addPass(createDefineIntegerSemantics(semantics));
  PrepareLoweringOptions prepare;
  prepare.statusType = "buffer";
  pm.addPass(createPrepareLowering(prepare));
  if (options.guardLoops) {
    // The loops math ops become are guarded too (tile ops and reductions
    // became loops above, with the sites of their ops).
    ExpandMathOptions loops;
    loops.target = "spirv";
    loops.loopsOnly = true;
    pm.addPass(createExpandMath(loops));
    pm.addPass(createGuardLoopLimit());
  }
  if (options.softwareFmaF16 || options.softwareFmaF32) {
    SoftwareFMAOptions fma;
    fma.f16 = options.softwareFmaF16;
    fma.f32 = options.softwareFmaF32;
    pm.addPass(createSoftwareFMA(fma));
  }
  if (options.subnormalExp)
    pm.addPass(createSubnormalExp());
  // MLIR 22 lowers an scf.for's results to SPIR-V through variables stored
  // only in the loop body, so a loop that runs zero times yields undefined
  // values; scf.while stores them in the loop header and gets it right.
  pm.addPass(createForToWhileLoopPass());
  ExpandMathOptions expandMath;
  expandMath.target = "spirv";
  pm.addPass(createExpandMath(expandMath));
  pm.addPass(createUnrollVectorsForSPIRV());
  pm.addPass(arith::createArithExpandOpsPass());
  LowerWaveOpsOptions wave;
  wave.target = "spirv";
  pm.addPass(createLowerWaveOps(wave));
  LowerAsyncCopiesOptions async;
  async.target = "spirv";
  pm.addPass(createLowerAsyncCopies(async));
  pm.addPass(createSPIRVFloatAtomics());
  if (options.guardLoops)
    pm.addPass(createGuardLoopLimit()); // the float atomics' exchange loops
  AvoidMiscompilesOptions avoid;
  avoid.target = "spirv";
  avoid.indexBits = options.indexBits;
  pm.addPass(createAvoidMiscompiles(avoid));
  ConvertXPUToSPIRVOptions convert;
  convert.indexBits = options.indexBits;
  convert.maxPushConstantBytes = options.maxPushConstantBytes;
  convert.preserveFloats = options.preserveFloats;
  pm.addPass(createConvertXPUToSPIRV(convert));
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addNestedPass<spirv::ModuleOp>(spirv::createSPIRVUpdateVCEPass());
  if (failed(pm.run(module)))
    return failure();

  // spirv-update-vce deduces the least version the ops need; the module is
  // given the target's, which decides the entry points' interface lists.
  // It does not see builtin variables or execution modes: the subgroup
  // builtins need GroupNonUniform, the float modes their capabilities.
  for (auto spv : module.getOps<spirv::ModuleOp>()) {
    spirv::VerCapExtAttr vce = *spv.getVceTriple();
    SmallVector<spirv::Capability> caps(vce.getCapabilities());
    SmallVector<spirv::Extension> exts(vce.getExtensions());
    bool subgroup = false;
    spv.walk([&](spirv::GlobalVariableOp var) {
      auto builtin = var.getBuiltIn();
      subgroup |= builtin && (*builtin == "SubgroupSize" ||
                              *builtin == "SubgroupLocalInvocationId" ||
                              *builtin == "SubgroupId" || *builtin == "NumSubgroups");
    });
    auto require = [&](spirv::Capability c) {
      if (!llvm::is_contained(caps, c))
        caps.push_back(c);
    };
    if (subgroup)
      require(spirv::Capability::GroupNonUniform);
    if (options.preserveFloats) {
      require(spirv::Capability::DenormPreserve);
      require(spirv::Capability::SignedZeroInfNanPreserve);
    }
    if (useVulkanMemoryModelForCoopMatrices(spv)) {
      require(spirv::Capability::VulkanMemoryModel);
      require(spirv::Capability::VulkanMemoryModelDeviceScope);
    }
    // Nor the width of atomics: 64-bit ones need Int64Atomics, float adds
    // the capability of their width.
    spv.walk([&](Operation *op) {
      if (!op->getName().getStringRef().contains("Atomic") || !op->getNumResults())
        return;
      Type t = op->getResult(0).getType();
      if (t.isInteger(64))
        require(spirv::Capability::Int64Atomics);
      if (isa<spirv::EXTAtomicFAddOp>(op)) {
        require(t.isF64() ? spirv::Capability::AtomicFloat64AddEXT
                          : spirv::Capability::AtomicFloat32AddEXT);
        if (!llvm::is_contained(exts, spirv::Extension::SPV_EXT_shader_atomic_float_add))
          exts.push_back(spirv::Extension::SPV_EXT_shader_atomic_float_add);
      }
    });
    spv.setVceTripleAttr(spirv::VerCapExtAttr::get(env.getVersion(), caps, exts,
                                                   module.getContext()));
  }
  return success();
}

/// MLIR's serializer cannot decorate a specialization-constant composite,
/// so `OpDecorate %__xpu_workgroup_size BuiltIn WorkgroupSize` is added to
/// the words: the id is found by its OpName, and the instruction goes at the
/// end of the debug and annotation sections (SPIR-V 2.4, logical layout).
static void decorateWorkgroupSize(SmallVectorImpl<uint32_t> &words) {
  enum : uint32_t {
    OpName = 5,
    OpDecorate = 71,
    DecorationBuiltIn = 11,
    BuiltInWorkgroupSize = 25,
  };
  // Opcodes that may precede the types and globals.
  static const uint32_t preamble[] = {2,  3,  4,  5,  6,  7,  10, 11,  14,  15,
                                      16, 17, 71, 72, 73, 74, 75, 330, 331, 332,
                                      5632, 5633};
  uint32_t id = 0;
  size_t insertAt = 0;
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || i + count > words.size() ||
        !llvm::is_contained(preamble, opcode))
      break;
    if (opcode == OpName && count > 2) {
      StringRef name(reinterpret_cast<const char *>(&words[i + 2]),
                     (count - 2) * sizeof(uint32_t));
      if (name.take_until([](char c) { return c == 0; }) == kWorkgroupSizeSymbol)
        id = words[i + 1];
    }
    i += count;
    insertAt = i;
  }
  if (!id)
    return;
  uint32_t decorate[] = {(4u << 16) | OpDecorate, id, DecorationBuiltIn,
                         BuiltInWorkgroupSize};
  words.insert(words.begin() + insertAt, std::begin(decorate), std::end(decorate));
}

LogicalResult serializeSPIRV(ModuleOp module, std::vector<uint32_t> &words) {
  auto modules = module.getOps<spirv::ModuleOp>();
  if (modules.empty())
    return module.emitError("no spirv.module to serialize");
  SmallVector<uint32_t, 0> binary;
  if (failed(spirv::serialize(*modules.begin(), binary)))
    return failure();
  decorateWorkgroupSize(binary);
  words.assign(binary.begin(), binary.end());
  return success();
}

std::unique_ptr<llvm::Module> translateToLLVMIR(ModuleOp module,
                                                llvm::LLVMContext &llvmCtx) {
  return translateModuleToLLVMIR(module, llvmCtx, "xpu");
}

} // namespace xpu
