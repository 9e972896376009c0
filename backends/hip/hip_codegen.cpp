// AMD code generation; see hip_codegen.h.
#include "hip_codegen.h"
#include "hip_code_object.h"
#include "hip_device_libs.h"
#include "hip_link.h"
#include "../common/llvm_codegen.h"

#include "runtime/dump.h"
#include "xpu/Pipeline.h"

#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/TargetParser.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <mutex>

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTarget();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUAsmPrinter();

namespace xpu::hip {

using rt::Status;

namespace {

constexpr const char *kTriple = "amdgcn-amd-amdhsa";
/// Code object v5: what ROCm 5.x and later load; LLVM 22 defaults to v6.
constexpr unsigned kCodeObjectVersion = 500;

Status createMachine(const rt::TargetDesc &target,
                     std::unique_ptr<llvm::TargetMachine> &out) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
  return codegen::createMachine(target, llvm::Reloc::PIC_, out);
}

} // namespace

Status amdgcnTarget(const std::string &chipSpec, unsigned waveWidth, rt::TargetDesc &out) {
  std::string chip = chipSpec.substr(0, chipSpec.find(':'));
  llvm::AMDGPU::GPUKind kind = llvm::AMDGPU::parseArchAMDGCN(chip);
  if (kind == llvm::AMDGPU::GK_NONE)
    return rt::invalidArgument("unknown AMD GPU architecture '" + chipSpec +
                               "' (e.g. gfx90a, gfx942, gfx1100)");
  llvm::AMDGPU::IsaVersion isa = llvm::AMDGPU::getIsaVersion(chip);
  if (isa.Major < 9)
    return rt::invalidArgument("AMD GPU architecture " + chip +
                               " is older than gfx9, which xpujit does not target");
  bool wave32 = llvm::AMDGPU::getArchAttrAMDGCN(kind) & llvm::AMDGPU::FEATURE_WAVE32;
  if (waveWidth == 0)
    waveWidth = wave32 ? 32 : 64;
  if (waveWidth != 64 && !(waveWidth == 32 && wave32))
    return rt::invalidArgument(chip + " has no wave size " + std::to_string(waveWidth) +
                               (wave32 ? " (32 or 64)" : " (64 only)"));
  out = rt::TargetDesc();
  out.kind = rt::TargetDesc::Kind::amdgcn;
  out.triple = kTriple;
  out.chip = chip;
  out.features = waveWidth == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
  out.waveWidth = waveWidth;
  return {};
}

std::string amdgpuToolchainIdentity() {
  return "LLVM " LLVM_VERSION_STRING " AMDGPU, code object v5; " + linkerIdentity() +
         "; " + deviceLibraryIdentity();
}

Status compileForAMDGPU(mlir::ModuleOp module, const rt::TargetDesc &target,
                        const std::vector<abi::KernelInfo> &kernels, rt::Blob &out) {
  codegen::StageTimer timer;
  if (mlir::failed(lowerToLLVMDialect(module, LLVMTarget::rocdl, target.waveWidth, target.chip)))
    return {XPU_ERROR_COMPILE, "lowering for AMDGPU failed"};
  rt::dumpStage("lowered-rocdl.mlir", module);
  timer.lap("lowering");

  std::unique_ptr<llvm::TargetMachine> tm;
  XPU_RETURN_IF_ERROR(createMachine(target, tm));
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> m = translateToLLVMIR(module, llvmCtx);
  if (!m)
    return {XPU_ERROR_COMPILE, "translation to LLVM IR failed"};
  m->setTargetTriple(tm->getTargetTriple());
  m->setDataLayout(tm->createDataLayout());
  m->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version", kCodeObjectVersion);
  for (llvm::Function &f : *m)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", target.chip);
      f.addFnAttr("target-features", target.features);
    }
  std::string libraries;
  XPU_RETURN_IF_ERROR(linkDeviceLibraries(*m, target, libraries));
  if (rt::dumping())
    rt::dumpStage("amdgcn.ll", codegen::printModule(*m));
  codegen::optimize(*m, *tm);
  if (rt::dumping()) {
    rt::dumpStage("amdgcn-optimized.ll", codegen::printModule(*m));
    // From a copy: code generation rewrites the module it runs on (AMDGPU's
    // control-flow structurizer adds llvm.amdgcn.if), and the object below
    // from the same module then aborted in instruction selection.
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*m);
    std::vector<uint8_t> assembly;
    XPU_RETURN_IF_ERROR(
        codegen::emit(*copy, *tm, llvm::CodeGenFileType::AssemblyFile, assembly));
    rt::dumpStage("amdgcn.s", assembly.data(), assembly.size());
  }
  std::vector<uint8_t> object;
  XPU_RETURN_IF_ERROR(codegen::emit(*m, *tm, llvm::CodeGenFileType::ObjectFile, object));
  timer.lap("llvm");

  std::vector<uint8_t> hsaco;
  XPU_RETURN_IF_ERROR(linkCodeObject(object, hsaco));
  rt::dumpStage("amdgcn.hsaco", hsaco.data(), hsaco.size());
  // What the runtime will load must be what the kernel ABI says.
  CodeObject code;
  XPU_RETURN_IF_ERROR(readCodeObject(hsaco, code));
  XPU_RETURN_IF_ERROR(checkCodeObject(code, target, kernels));
  out.footprints = footprints(code, kernels);

  out.code = std::move(hsaco);
  out.format = "hsaco";
  out.toolchain = "LLVM " LLVM_VERSION_STRING " AMDGPU " + target.chip + " wave" +
                  std::to_string(target.waveWidth) + ", code object v5, " +
                  linkerIdentity() +
                  (libraries.empty() ? "" : "; device libraries " + libraries);
  timer.lap("lld");
  out.log = timer.log();
  return {};
}

} // namespace xpu::hip
