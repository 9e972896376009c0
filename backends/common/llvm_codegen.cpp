// Shared LLVM code generation; see llvm_codegen.h.
#include "llvm_codegen.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace xpu::codegen {

void optimize(llvm::Module &m, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
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
