// NVIDIA code generation; see cuda_codegen.h.
#include "cuda_codegen.h"
#include "ptxas_report.h"
#include "../common/llvm_codegen.h"

#include "capability/target_facts.h"
#include "runtime/dump.h"
#include "runtime/kernel_cache.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Pipeline.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();
extern char **environ;

namespace xpu::cuda {

using rt::Status;

namespace {

/// Runs `argv`, capturing its output; returns the exit status (-1: could not
/// start it).
int runProgram(const std::vector<std::string> &argv, std::string &output) {
  char outPath[] = "/tmp/xpujit-ptxas-out-XXXXXX";
  int fd = mkstemp(outPath);
  if (fd < 0)
    return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, fd, 2);
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fd);
  int status = -1;
  if (rc == 0 && waitpid(pid, &status, 0) == pid)
    status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  else
    status = -1;
  std::ifstream in(outPath);
  std::stringstream ss;
  ss << in.rdbuf();
  output = ss.str();
  unlink(outPath);
  return status;
}

/// Links the libdevice functions the module calls, and tells NVVMReflect
/// that denormals are kept (no flush to zero).
Status linkLibdevice(llvm::Module &m) {
  bool needed = false;
  for (llvm::Function &f : m)
    needed |= f.isDeclaration() && f.getName().starts_with("__nv_");
  if (!needed)
    return {};
  std::string path = cap::libdevicePath();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return {XPU_ERROR_COMPILE, "math functions need libdevice, not found at " + path};
  auto lib = llvm::parseBitcodeFile((*buffer)->getMemBufferRef(), m.getContext());
  if (!lib)
    return {XPU_ERROR_COMPILE, "cannot read " + path + ": " +
                                   llvm::toString(lib.takeError())};
  (*lib)->setTargetTriple(m.getTargetTriple());
  (*lib)->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(*lib), llvm::Linker::LinkOnlyNeeded))
    return {XPU_ERROR_COMPILE, "linking libdevice failed"};
  m.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t(0));
  return {};
}

/// Where ptxas is looked for, in order.
std::vector<std::string> ptxasCandidates() {
  std::vector<std::string> candidates;
  if (const char *env = std::getenv("XPU_PTXAS"); env && *env)
    candidates.push_back(env);
  candidates.push_back(cap::cudaToolkitRoot() + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  return candidates;
}

} // namespace

std::string nvptxToolchainIdentity() {
  // Every candidate, not only the one that runs: which one runs may change
  // without the first one changing.
  std::string id = "LLVM " LLVM_VERSION_STRING " NVPTX";
  for (const std::string &c : ptxasCandidates())
    id += "; ptxas " + rt::fileIdentity(c);
  return id + "; libdevice " + rt::fileIdentity(cap::libdevicePath());
}

const Ptxas &ptxas() {
  static Ptxas p = [] {
    Ptxas found;
    const char *requested = std::getenv("XPU_PTXAS");
    for (const std::string &c : ptxasCandidates()) {
      std::string out;
      if (access(c.c_str(), X_OK) != 0 || runProgram({c, "--version"}, out) != 0) {
        if (requested && *requested && c == requested) {
          found.error = "XPU_PTXAS='" + c + "' is not a ptxas that runs (`" + c +
                        " --version` " +
                        (access(c.c_str(), X_OK) != 0 ? "cannot be executed)" : "failed)");
          return found;
        }
        continue;
      }
      size_t v = out.find(", V");
      found.path = c;
      found.version = v == std::string::npos
                          ? "unknown version"
                          : out.substr(v + 3, out.find_first_of("\r\n", v) - v - 3);
      return found;
    }
    found.why = "no runnable ptxas (XPU_PTXAS, $CUDA_PATH/bin, /usr/local/cuda/bin)";
    return found;
  }();
  return p;
}

static void initNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

const std::vector<std::string> &nvptxChips() {
  static const std::vector<std::string> chips = [] {
    initNVPTX();
    std::vector<std::string> out;
    std::string error;
    llvm::Triple triple("nvptx64-nvidia-cuda");
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target)
      return out;
    std::unique_ptr<llvm::MCSubtargetInfo> sti(
        target->createMCSubtargetInfo(triple, "", ""));
    for (const llvm::SubtargetSubTypeKV &kv : sti->getAllProcessorDescriptions()) {
      llvm::StringRef name = kv.Key;
      unsigned cc = 0;
      // sm_XY only: the "a"/"f" variants are not a compute capability.
      if (name.consume_front("sm_") && !name.getAsInteger(10, cc) && cc >= 50)
        out.push_back(kv.Key);
    }
    return out;
  }();
  return chips;
}

Status checkNvptxChip(const std::string &chip) {
  const std::vector<std::string> &known = nvptxChips();
  if (std::find(known.begin(), known.end(), chip) != known.end())
    return {};
  std::string list;
  for (const std::string &c : known)
    list += (list.empty() ? "" : ", ") + c;
  return rt::invalidArgument("unknown NVIDIA architecture '" + chip + "' (LLVM " +
                             LLVM_VERSION_STRING " generates code for: " + list + ")");
}

rt::TargetDesc nvptxTarget(int major, int minor) {
  rt::TargetDesc t;
  t.kind = rt::TargetDesc::Kind::nvptx;
  t.triple = "nvptx64-nvidia-cuda";
  t.chip = "sm_" + std::to_string(major * 10 + minor);
  // The PTX ISA each architecture needs at least (sm_90: 7.8, sm_100: 8.6,
  // sm_120: 8.7); 8.0 is the floor LLVM accepts for the rest.
  t.features = major >= 12 ? "+ptx87" : major >= 10 ? "+ptx86" : "+ptx80";
  t.waveWidth = 32;
  return t;
}

/// The target a module compiles for: sm_90's architecture-specific
/// variant sm_90a when a kernel takes the wgmma tier (wgmma exists only
/// there; its code runs on compute capability 9.0 alone, as the tier's
/// fact requires).
static rt::TargetDesc moduleTarget(mlir::ModuleOp module, const rt::TargetDesc &target) {
  rt::TargetDesc t = target;
  module.walk([&](KernelOp kernel) {
    auto tier = kernel->getAttrOfType<mlir::StringAttr>("xpu.mma_tier");
    if (tier && tier.getValue() == "wgmma" && t.chip == "sm_90")
      t.chip = "sm_90a";
  });
  return t;
}

Status compileForNVPTX(mlir::ModuleOp module, const rt::TargetDesc &deviceTarget,
                       rt::Blob &out, const std::vector<abi::KernelInfo> *kernels) {
  const rt::TargetDesc target = moduleTarget(module, deviceTarget);
  codegen::StageTimer timer;
  if (mlir::failed(lowerToLLVMDialect(module, LLVMTarget::nvvm, 32, target.chip)))
    return {XPU_ERROR_COMPILE, "lowering for NVPTX failed"};
  rt::dumpStage("lowered-nvvm.mlir", module);
  timer.lap("lowering");
  // Kernels whose shared memory went in the dynamic window: their launches
  // pass those bytes (read from the module before it becomes LLVM IR).
  std::map<std::string, uint64_t> launchShared;
  if (auto placed = module->getAttrOfType<mlir::DictionaryAttr>(abi::kLaunchSharedBytesAttr))
    for (mlir::NamedAttribute a : placed)
      launchShared[a.getName().str()] = uint64_t(mlir::cast<mlir::IntegerAttr>(a.getValue()).getInt());
  if (!launchShared.empty() && !kernels)
    return {XPU_ERROR_INTERNAL, "a kernel's shared memory is dynamic, and the module "
                                "compiles without kernel descriptions to record it in"};
  auto recordLaunchShared = [&](std::vector<abi::Footprint> &footprints) {
    footprints.resize(kernels->size());
    for (size_t i = 0; i < kernels->size(); ++i) {
      auto it = launchShared.find((*kernels)[i].name);
      if (it == launchShared.end())
        continue;
      abi::Footprint &f = footprints[i];
      f.launchSharedBytes = it->second;
      if (f.sharedBytes.known) { // ptxas counted the static part only
        f.sharedBytes.value += it->second;
        f.sharedBytes.source += " + " + std::to_string(it->second) +
                                " bytes xpujit placed in dynamic shared memory";
      }
    }
  };

  // A chip LLVM does not know would only warn here and fail in ptxas.
  XPU_RETURN_IF_ERROR(checkNvptxChip(deviceTarget.chip));
  initNVPTX();
  std::unique_ptr<llvm::TargetMachine> tm;
  XPU_RETURN_IF_ERROR(codegen::createMachine(target, std::nullopt, tm));

  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> m = translateToLLVMIR(module, llvmCtx);
  if (!m)
    return {XPU_ERROR_COMPILE, "translation to LLVM IR failed"};
  m->setTargetTriple(tm->getTargetTriple());
  m->setDataLayout(tm->createDataLayout());
  XPU_RETURN_IF_ERROR(linkLibdevice(*m));
  codegen::optimize(*m, *tm);
  std::vector<uint8_t> ptx;
  XPU_RETURN_IF_ERROR(codegen::emit(*m, *tm, llvm::CodeGenFileType::AssemblyFile, ptx));
  rt::dumpStage("nvptx.ptx", ptx.data(), ptx.size());
  timer.lap("llvm");

  std::string toolchain = "LLVM " LLVM_VERSION_STRING " NVPTX " + target.chip + " " +
                          target.features.substr(1);
  const Ptxas &assembler = ptxas();
  if (!assembler.error.empty())
    return {XPU_ERROR_COMPILE, assembler.error};
  if (assembler.path.empty()) {
    out.code = std::move(ptx);
    out.code.push_back(0); // the driver's JIT reads a C string
    out.format = "ptx";
    out.toolchain = toolchain + "; PTX for the driver's JIT (" + assembler.why + ")";
    if (!launchShared.empty())
      recordLaunchShared(out.footprints);
    out.log = timer.log();
    return {};
  }

  char dir[] = "/tmp/xpujit-ptx-XXXXXX";
  if (!mkdtemp(dir))
    return {XPU_ERROR_COMPILE, "cannot make a temporary directory for ptxas"};
  std::string in = std::string(dir) + "/kernels.ptx", cubin = std::string(dir) + "/kernels.cubin";
  {
    std::ofstream f(in, std::ios::binary);
    f.write(reinterpret_cast<const char *>(ptx.data()), std::streamsize(ptx.size()));
  }
  std::string log;
  // -v: the report of registers, spills and memory the manifest carries.
  int rc = runProgram({assembler.path, "-arch=" + target.chip, "-O3", "-v",
                       "--output-file", cubin, in},
                      log);
  std::ifstream f(cubin, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), {});
  unlink(in.c_str());
  unlink(cubin.c_str());
  rmdir(dir);
  if (rc != 0 || bytes.empty())
    return {XPU_ERROR_COMPILE, "ptxas " + assembler.version + " failed (exit " +
                                   std::to_string(rc) + "): " + log};
  out.code = std::move(bytes);
  out.format = "cubin";
  out.toolchain = toolchain + "; ptxas " + assembler.version;
  if (kernels)
    out.footprints = parsePtxasReport(log, *kernels, assembler.version);
  if (!launchShared.empty())
    recordLaunchShared(out.footprints);
  timer.lap("ptxas");
  out.log = timer.log();
  return {};
}

} // namespace xpu::cuda
