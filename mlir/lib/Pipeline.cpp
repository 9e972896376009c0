// The compiler's stages as functions; see Pipeline.h.
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/AsmParser/AsmParserState.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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
                  ROCDL::ROCDLDialect>();
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

OwningOpRef<ModuleOp> parseKernelSource(MLIRContext &ctx, StringRef text,
                                        StringRef sourceName) {
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
    for (auto [i, arg] : llvm::enumerate(def->arguments)) {
      const char *begin = arg.loc.Start.getPointer();
      const char *end = arg.loc.End.getPointer();
      if (!begin || end <= begin)
        continue;
      StringRef name(begin, end - begin);
      name.consume_front("%");
      fn.setArgAttr(i, "xpu.name", StringAttr::get(&ctx, name));
    }
  });

  PassManager pm(&ctx, ModuleOp::getOperationName());
  pm.addPass(createImportGPU());
  if (failed(pm.run(*module)) || failed(verify(*module)))
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

std::vector<abi::KernelInfo> describeKernels(ModuleOp module) {
  std::vector<abi::KernelInfo> kernels;
  std::vector<abi::CheckSite> sites;
  module.walk([&](Operation *op) {
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
    if (sites.size() <= size_t(site.getInt()))
      sites.resize(site.getInt() + 1);
    sites[site.getInt()] = s;
  });

  auto withBarriers = functionsWithBarriers(module);
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    abi::KernelInfo info;
    info.name = kernel.getSymName().str();
    info.profile = kernel.getProfileName().str();
    info.location = locationText(kernel.getLoc());
    for (auto [i, type] : llvm::enumerate(kernel.getArgumentTypes())) {
      abi::Param p;
      if (auto name = kernel.getArgAttrOfType<StringAttr>(i, "xpu.name"))
        p.name = name.str();
      else
        p.name = "arg" + std::to_string(i);
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
      info.params.push_back(std::move(p));
    }
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
    info.sharedBytes = sharedScratchBytes(kernel);
    info.usesBarriers = withBarriers.contains(kernel);
    info.checkSites = sites;
    kernels.push_back(std::move(info));
  }
  return kernels;
}

LogicalResult lowerToLLVMDialect(ModuleOp module, LLVMTarget target,
                                 unsigned waveWidth) {
  const char *name = target == LLVMTarget::cpu    ? "cpu"
                     : target == LLVMTarget::nvvm ? "nvvm"
                                                  : "rocdl";
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.addPass(createExpandReductions());
  LowerExecutionModelOptions execOptions;
  execOptions.target = name;
  execOptions.waveWidth = waveWidth;
  pm.addPass(createLowerExecutionModel(execOptions));
  pm.addPass(createPrepareLowering());
  if (target != LLVMTarget::cpu) {
    MathToLibCallsOptions mathOptions;
    mathOptions.target = name;
    pm.addPass(createMathToLibCalls(mathOptions));
  }
  pm.addPass(createSCFToControlFlowPass());
  ConvertXPUToLLVMOptions llvmOptions;
  llvmOptions.target = name;
  pm.addPass(createConvertXPUToLLVM(llvmOptions));
  if (target == LLVMTarget::cpu)
    pm.addPass(createCPUWrappers());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  return pm.run(module);
}

std::unique_ptr<llvm::Module> translateToLLVMIR(ModuleOp module,
                                                llvm::LLVMContext &llvmCtx) {
  return translateModuleToLLVMIR(module, llvmCtx, "xpu");
}

} // namespace xpu
