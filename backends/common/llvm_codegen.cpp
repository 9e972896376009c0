// Shared LLVM code generation; see llvm_codegen.h.
#include "llvm_codegen.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace xpu::codegen {

rt::Status createMachine(const rt::TargetDesc &target, std::optional<llvm::Reloc::Model> reloc,
                         std::unique_ptr<llvm::TargetMachine> &out) {
  std::string error;
  llvm::Triple triple(target.triple);
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return {XPU_ERROR_COMPILE, "no LLVM target for " + target.triple + " in this build: " + error};
  llvm::TargetOptions options;
  options.AllowFPOpFusion = llvm::FPOpFusion::Standard;
  out.reset(t->createTargetMachine(triple, target.chip, target.features, options, reloc,
                                   std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!out)
    return {XPU_ERROR_COMPILE, "cannot create a target machine for " + target.triple + " " +
                                   target.chip};
  return {};
}

std::string printModule(const llvm::Module &m) {
  std::string s;
  llvm::raw_string_ostream os(s);
  m.print(os, nullptr);
  return s;
}

void optimize(llvm::Module &m, llvm::TargetMachine &tm, bool slp) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.SLPVectorization = slp;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(m, mam);
}

rt::Status emit(llvm::Module &m, llvm::TargetMachine &tm, llvm::CodeGenFileType type,
                std::vector<uint8_t> &out) {
  llvm::SmallVector<char, 0> bytes;
  llvm::raw_svector_ostream os(bytes);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type))
    return {XPU_ERROR_COMPILE, "the target " + tm.getTargetTriple().str() +
                                   " cannot emit this kind of file"};
  pm.run(m);
  out.assign(bytes.begin(), bytes.end());
  return {};
}

void StageTimer::lap(const char *stage) {
  auto now = std::chrono::steady_clock::now();
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%s %.1f ms", log_.empty() ? "" : "; ", stage,
                std::chrono::duration<double, std::milli>(now - start_).count());
  log_ += buf;
  start_ = now;
}

} // namespace xpu::codegen
