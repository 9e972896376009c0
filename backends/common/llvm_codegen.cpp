// Shared LLVM code generation; see llvm_codegen.h.
#include "llvm_codegen.h"

#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar/DeadStoreElimination.h"
#include "llvm/Transforms/Scalar/EarlyCSE.h"
#include "llvm/Transforms/Scalar/GVN.h"
#include "llvm/Transforms/Scalar/SimplifyCFG.h"
#include "llvm/Transforms/Vectorize/VectorCombine.h"
#include "xpu/KernelABI.h"

#include <cstdio>
#include <mutex>

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

/// GVN finds the store a load reads by scanning back at most this many
/// instructions per block (LLVM's memdep-block-scan-limit, 100 by
/// default). A tree reduction's levels, unrolled whole, put its last
/// loads a few hundred instructions after the stores they read; at the
/// default those stay loads of the stack array, its stores stay with
/// them, and the tail of the tree stays scalar.
constexpr const char *kMemDepScanLimit = "1000";

/// Raises the scan limit once, unless the process set it itself. The
/// option is LLVM's global state: libxpujit links its own LLVM, so no other
/// LLVM in the process sees it, but every later compilation of xpujit's
/// does, for every target (the NVPTX O3 output of the tile GEMM and of the
/// CPU benchmark's kernels is the same with and without it).
static void raiseMemDepScanLimit() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("memdep-block-scan-limit");
    if (it != options.end() && it->second->getNumOccurrences() == 0)
      (void)it->second->addOccurrence(0, it->first, kMemDepScanLimit);
  });
}

namespace {

/// Copies of at most this many bytes into a private array are expanded.
constexpr uint64_t kMaxExpandedCopy = 16 << 10;

/// Rewrites a memcpy of constant size into a stack array as loads and
/// stores of whole vector registers. GVN forwards a store to the loads that
/// read it, but not a memcpy's bytes: a copy loop that loop-idiom
/// recognition turned into a memcpy (a workgroup copying its slice into
/// shared memory) would keep the array's every later load.
struct ExpandCopiesIntoPrivateArrays : llvm::PassInfoMixin<ExpandCopiesIntoPrivateArrays> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &fam) {
    const llvm::TargetTransformInfo &tti = fam.getResult<llvm::TargetIRAnalysis>(f);
    uint64_t chunk = std::max<uint64_t>(
        16, tti.getRegisterBitWidth(llvm::TargetTransformInfo::RGK_FixedWidthVector)
                    .getFixedValue() / 8);
    llvm::SmallVector<llvm::MemCpyInst *> copies;
    for (llvm::Instruction &i : llvm::instructions(f))
      if (auto *copy = llvm::dyn_cast<llvm::MemCpyInst>(&i)) {
        auto *bytes = llvm::dyn_cast<llvm::ConstantInt>(copy->getLength());
        if (bytes && bytes->getZExtValue() <= kMaxExpandedCopy && !copy->isVolatile() &&
            llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(copy->getDest())))
          copies.push_back(copy);
      }
    for (llvm::MemCpyInst *copy : copies) {
      llvm::IRBuilder<> b(copy);
      uint64_t bytes = llvm::cast<llvm::ConstantInt>(copy->getLength())->getZExtValue();
      for (uint64_t at = 0; at < bytes;) {
        uint64_t n = std::min(chunk, llvm::bit_floor(bytes - at));
        // i32 lanes where the size allows: with i8 lanes and the bitcasts
        // GVN adds, instruction selection issued a 1 KiB copy's last line
        // first, and a DRAM-bound tree sum ran 1.6-1.7 ms against 0.9-1.3
        // for the same loads in ascending order (xpu.reduce's).
        llvm::Type *t = n % 4 == 0 ? llvm::FixedVectorType::get(b.getInt32Ty(), unsigned(n / 4))
                                   : llvm::FixedVectorType::get(b.getInt8Ty(), unsigned(n));
        llvm::Value *from = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy->getSource(), at);
        llvm::Value *to = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy->getDest(), at);
        llvm::Align fromAlign = llvm::commonAlignment(copy->getSourceAlign().valueOrOne(), at);
        llvm::Align toAlign = llvm::commonAlignment(copy->getDestAlign().valueOrOne(), at);
        llvm::LoadInst *load = b.CreateAlignedLoad(t, from, fromAlign);
        llvm::StoreInst *store = b.CreateAlignedStore(load, to, toAlign);
        load->copyMetadata(*copy, {llvm::LLVMContext::MD_alias_scope,
                                   llvm::LLVMContext::MD_noalias});
        store->copyMetadata(*copy, {llvm::LLVMContext::MD_alias_scope,
                                    llvm::LLVMContext::MD_noalias});
        at += n;
      }
      copy->eraseFromParent();
    }
    return copies.empty() ? llvm::PreservedAnalyses::all() : llvm::PreservedAnalyses::none();
  }
};

/// Runs `passes` on the functions with a stack array: only there is
/// anything left to forward (compile time stays that of plain O3
/// elsewhere).
struct OnFunctionsWithStackArrays : llvm::PassInfoMixin<OnFunctionsWithStackArrays> {
  explicit OnFunctionsWithStackArrays(llvm::FunctionPassManager passes)
      : passes(std::move(passes)) {}
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &fam) {
    for (llvm::Instruction &i : f.getEntryBlock())
      if (llvm::isa<llvm::AllocaInst>(i))
        return passes.run(f, fam);
    return llvm::PreservedAnalyses::all();
  }
  llvm::FunctionPassManager passes;
};

/// Inlines the functions marked abi::kCpuInlineLateAttr into their callers.
struct InlineLate : llvm::PassInfoMixin<InlineLate> {
  llvm::PreservedAnalyses run(llvm::Module &m, llvm::ModuleAnalysisManager &mam) {
    bool any = false;
    for (llvm::Function &f : m)
      if (f.hasFnAttribute(abi::kCpuInlineLateAttr)) {
        f.removeFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::AlwaysInline);
        any = true;
      }
    if (!any)
      return llvm::PreservedAnalyses::all();
    return llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/true).run(m, mam);
  }
};

} // namespace

void optimize(llvm::Module &m, llvm::TargetMachine &tm, bool slp, bool forwardLate) {
  if (forwardLate)
    raiseMemDepScanLimit();
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
  if (forwardLate)
    pb.registerOptimizerLastEPCallback(
        [](llvm::ModulePassManager &mpm, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase) {
          // GVN's forwarding leaves extracts of single lanes, which
          // InstCombine scalarizes; VectorCombine folds them back into
          // whole-vector operations, one copy of each after EarlyCSE.
          // Copies into stack arrays become vector stores first.
          llvm::FunctionPassManager fpm;
          fpm.addPass(ExpandCopiesIntoPrivateArrays());
          fpm.addPass(llvm::GVNPass());
          fpm.addPass(llvm::DSEPass());
          fpm.addPass(llvm::InstCombinePass());
          fpm.addPass(llvm::VectorCombinePass());
          fpm.addPass(llvm::EarlyCSEPass());
          fpm.addPass(llvm::InstCombinePass());
          fpm.addPass(llvm::DSEPass()); // the stores whose loads went last
          mpm.addPass(llvm::createModuleToFunctionPassAdaptor(
              OnFunctionsWithStackArrays(std::move(fpm))));
          // Functions compiled on their own first and inlined now (the CPU's
          // one-workgroup bodies into their workgroup loops), then tidied.
          mpm.addPass(InlineLate());
          llvm::FunctionPassManager tidy;
          tidy.addPass(llvm::EarlyCSEPass(/*UseMemorySSA=*/true));
          tidy.addPass(llvm::InstCombinePass());
          tidy.addPass(llvm::SimplifyCFGPass());
          mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(tidy)));
        });
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
