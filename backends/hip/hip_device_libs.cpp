// Linking the AMD device libraries; see hip_device_libs.h.
#include "hip_device_libs.h"

#include "capability/target_facts.h"
#include "runtime/kernel_cache.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/TargetParser.h"

#include <cstdio>

namespace xpu::hip {

using rt::Status;

namespace {

/// What the libraries' control variables (the oclc_*.bc files of a ROCm
/// build) are set to. Defining them here, rather than linking those files,
/// also serves architectures newer than the installed libraries.
struct Control {
  const char *name;
  uint64_t value;
};

std::vector<Control> controls(const rt::TargetDesc &target) {
  llvm::AMDGPU::IsaVersion isa = llvm::AMDGPU::getIsaVersion(target.chip);
  return {
      {"__oclc_finite_only_opt", 0},
      {"__oclc_unsafe_math_opt", 0},
      {"__oclc_daz_opt", 0}, // keep f32 denormals, as the kernels do
      {"__oclc_correctly_rounded_sqrt32", 1},
      {"__oclc_wavefrontsize64", target.waveWidth == 64},
      {"__oclc_ISA_version", isa.Major * 1000 + isa.Minor * 100 + isa.Stepping},
      {"__oclc_ABI_version", 500},
  };
}

Status linkFile(llvm::Module &m, const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return {XPU_ERROR_COMPILE, "cannot read " + path + ": " + buffer.getError().message()};
  auto lib = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), m.getContext());
  if (!lib)
    return {XPU_ERROR_COMPILE, "cannot read " + path + " with LLVM " LLVM_VERSION_STRING
                                   ": " + llvm::toString(lib.takeError())};
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    return {XPU_ERROR_COMPILE, "linking " + path + " failed"};
  return {};
}

} // namespace

Status linkDeviceLibraries(llvm::Module &m, const rt::TargetDesc &target,
                           std::string &linked) {
  bool ocml = false, ockl = false;
  for (llvm::Function &f : m) {
    if (!f.isDeclaration())
      continue;
    ocml |= f.getName().starts_with("__ocml_");
    ockl |= f.getName().starts_with("__ockl_");
  }
  if (!ocml && !ockl)
    return {};
  const cap::AmdDeviceLibraries &libs = cap::amdDeviceLibraries();
  if (libs.dir.empty()) {
    std::string looked;
    for (const std::string &p : libs.searched)
      looked += (looked.empty() ? "" : ", ") + p;
    return {XPU_ERROR_COMPILE,
            "math functions need the AMD device libraries; looked for " + looked};
  }
  for (auto [needed, file] : {std::pair{ocml, "ocml.bc"}, std::pair{ockl, "ockl.bc"}}) {
    if (!needed)
      continue;
    std::string path = libs.dir + "/" + file;
    XPU_RETURN_IF_ERROR(linkFile(m, path));
    linked += (linked.empty() ? "" : ", ") + path;
  }
  // A library older than the functions MLIR's table names would otherwise
  // surface as an undefined symbol in lld.
  for (llvm::Function &f : m)
    if (f.isDeclaration() && !f.use_empty() &&
        (f.getName().starts_with("__ocml_") || f.getName().starts_with("__ockl_")))
      return {XPU_ERROR_COMPILE, "the AMD device libraries in " + libs.dir + " lack " +
                                     f.getName().str()};
  for (const Control &c : controls(target)) {
    llvm::GlobalVariable *g = m.getGlobalVariable(c.name);
    if (!g || !g->isDeclaration())
      continue;
    g->setInitializer(llvm::ConstantInt::get(g->getValueType(), c.value));
    g->setConstant(true);
    g->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  // The libraries are built as OpenCL; the kernels are not (the metadata
  // would otherwise call them OpenCL C kernels).
  if (llvm::NamedMDNode *ocl = m.getNamedMetadata("opencl.ocl.version"))
    m.eraseNamedMetadata(ocl);
  return {};
}

const std::string &deviceLibraryIdentity() {
  static const std::string id = [] {
    const cap::AmdDeviceLibraries &libs = cap::amdDeviceLibraries();
    if (libs.dir.empty())
      return std::string("AMD device libraries: none found");
    std::string s = "AMD device libraries";
    for (const char *file : {"ocml.bc", "ockl.bc"})
      s += "; " + rt::fileIdentity(libs.dir + "/" + file);
    return s;
  }();
  return id;
}

} // namespace xpu::hip
