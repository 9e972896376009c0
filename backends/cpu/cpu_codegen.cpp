// CPU code generation with LLVM, and loading with ORC; see cpu_codegen.h.
#include "cpu_codegen.h"
#include "cpu_float_builtins.h"
#include "../common/llvm_codegen.h"

#include "runtime/dump.h"
#include "xpu/CpuAnyShape.h"
#include "xpu/Pipeline.h"

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <atomic>
#include <mutex>

namespace xpu::cpu {

using rt::Status;

static void initNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

const rt::TargetDesc &hostTarget() {
  static rt::TargetDesc desc = [] {
    rt::TargetDesc d;
    d.kind = rt::TargetDesc::Kind::cpu;
    d.triple = llvm::sys::getProcessTriple();
    d.chip = llvm::sys::getHostCPUName().str();
    std::vector<std::string> feats;
    for (const auto &f : llvm::sys::getHostCPUFeatures())
      feats.push_back((f.second ? "+" : "-") + f.first().str());
    std::sort(feats.begin(), feats.end());
    for (const auto &f : feats)
      d.features += (d.features.empty() ? "" : ",") + f;
    d.waveWidth = 1;
    return d;
  }();
  return desc;
}

static Status createHostMachine(std::unique_ptr<llvm::TargetMachine> &out) {
  initNativeTarget();
  return codegen::createMachine(hostTarget(), llvm::Reloc::PIC_, out);
}

Status compileForHost(mlir::ModuleOp module, rt::Blob &out) {
  codegen::StageTimer timer;
  if (mlir::failed(lowerToLLVMDialect(module, LLVMTarget::cpu, /*waveWidth=*/1)))
    return {XPU_ERROR_COMPILE, "lowering for the CPU failed"};
  rt::dumpStage("lowered-cpu.mlir", module);
  timer.lap("lowering");

  std::unique_ptr<llvm::TargetMachine> tm;
  XPU_RETURN_IF_ERROR(createHostMachine(tm));
  llvm::LLVMContext llvmCtx;
  std::unique_ptr<llvm::Module> m = translateToLLVMIR(module, llvmCtx);
  if (!m)
    return {XPU_ERROR_COMPILE, "translation to LLVM IR failed"};
  m->setTargetTriple(tm->getTargetTriple());
  m->setDataLayout(tm->createDataLayout());
  for (llvm::Function &f : *m)
    if (!f.isDeclaration()) {
      f.addFnAttr("target-cpu", tm->getTargetCPU());
      f.addFnAttr("target-features", tm->getTargetFeatureString());
    }
  rt::dumpStage("cpu.ll", codegen::printModule(*m));

  codegen::optimize(*m, *tm, /*slp=*/true, /*forwardLate=*/true);
  rt::dumpStage("cpu-optimized.ll", codegen::printModule(*m));

  XPU_RETURN_IF_ERROR(
      codegen::emit(*m, *tm, llvm::CodeGenFileType::ObjectFile, out.code));
  out.format = "elf-object";
  out.toolchain = "LLVM " LLVM_VERSION_STRING " " + hostTarget().chip;
  timer.lap("llvm");
  out.log = timer.log();
  return {};
}

namespace {

/// The JIT links objects only; IR never reaches it.
class NoIRCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  NoIRCompiler() : IRCompiler({}) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  operator()(llvm::Module &) override {
    return llvm::make_error<llvm::StringError>(
        "the CPU kernel JIT links objects; it does not compile IR",
        llvm::inconvertibleErrorCode());
  }
};

/// The process-wide JIT that links CPU kernel objects. Its start-up is part
/// of the first kernel load of every process (a cache hit included), so it
/// skips what object linking does not need: host detection (hostTarget()
/// has it), a target machine for IR compilation and for the data layout
/// (which only prefixes symbol names, and ELF has no prefix), and the
/// static-initializer platform (kernel objects have no initializers).
llvm::orc::LLJIT *jit(Status &st) {
  static std::unique_ptr<llvm::orc::LLJIT> instance;
  static std::string error;
  static std::once_flag once;
  std::call_once(once, [] {
    const rt::TargetDesc &t = hostTarget();
    llvm::Triple triple(t.triple);
    llvm::orc::JITTargetMachineBuilder machine{triple};
    machine.setCPU(t.chip);
    llvm::orc::LLJITBuilder builder;
    builder.setJITTargetMachineBuilder(std::move(machine))
        .setPlatformSetUp(llvm::orc::setUpInactivePlatform)
        .setCompileFunctionCreator(
            [](llvm::orc::JITTargetMachineBuilder)
                -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
              return std::make_unique<NoIRCompiler>();
            });
    if (triple.isOSBinFormatELF())
      builder.setDataLayout(llvm::DataLayout());
    else
      initNativeTarget(); // the data layout comes from a target machine
    auto j = builder.create();
    if (!j) {
      error = llvm::toString(j.takeError());
      return;
    }
    instance = std::move(*j);
    defineFloatBuiltins(*instance);
  });
  if (!instance)
    st = {XPU_ERROR_BACKEND, "cannot start the CPU JIT: " + error};
  return instance.get();
}

class HostModule : public rt::LoadedModule {
public:
  llvm::orc::LLJIT *owner = nullptr;
  llvm::orc::JITDylib *dylib = nullptr;
  std::vector<CpuKernel> kernels;

  ~HostModule() override {
    if (dylib)
      llvm::consumeError(owner->getExecutionSession().removeJITDylib(*dylib));
  }
  rt::BackendKernel *kernel(size_t index) override { return &kernels.at(index); }
};

} // namespace

Status loadHostObject(const rt::Blob &blob,
                      const std::vector<abi::KernelInfo> &kernels,
                      std::unique_ptr<rt::LoadedModule> &out) {
  Status st;
  llvm::orc::LLJIT *j = jit(st);
  if (!j)
    return st;
  static std::atomic<uint64_t> counter{0};
  auto dylib = j->createJITDylib("xpu-module-" + std::to_string(counter++));
  if (!dylib)
    return {XPU_ERROR_BACKEND, llvm::toString(dylib.takeError())};
  auto module = std::make_unique<HostModule>();
  module->owner = j;
  module->dylib = &*dylib;
  dylib->addToLinkOrder(j->getMainJITDylib());

  llvm::StringRef bytes(reinterpret_cast<const char *>(blob.code.data()),
                        blob.code.size());
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(bytes, "xpu-kernels.o");
  if (auto err = j->addObjectFile(*dylib, std::move(buffer)))
    return {XPU_ERROR_BACKEND, "cannot link the kernel object: " +
                                   llvm::toString(std::move(err))};
  module->kernels.resize(kernels.size());
  auto isKernel = [&](const std::string &name) {
    return llvm::any_of(kernels, [&](const abi::KernelInfo &k) { return k.name == name; });
  };
  for (size_t i = 0; i < kernels.size(); ++i) {
    CpuKernel &k = module->kernels[i];
    for (const char *suffix :
         {abi::kCpuGroupSuffix, abi::kCpuSharedBytesSuffix, abi::kCpuStackBytesSuffix,
          abi::kCpuAnyShapeSuffix}) {
      std::string name = kernels[i].name + suffix;
      auto addr = j->lookup(*dylib, name);
      if (!addr)
        return {XPU_ERROR_BACKEND, "kernel symbol '" + name + "' not found: " +
                                       llvm::toString(addr.takeError())};
      if (suffix == abi::kCpuGroupSuffix)
        k.entry = addr->toPtr<GroupEntry>();
      else if (suffix == abi::kCpuSharedBytesSuffix)
        k.sharedBytes = *addr->toPtr<const uint64_t *>();
      else if (suffix == abi::kCpuStackBytesSuffix)
        k.stackBytes = *addr->toPtr<const uint64_t *>();
      else
        k.anyShape = *addr->toPtr<const uint64_t *>() != 0;
    }
    // The copying companion, where the tile lowering made one (emulated
    // workgroup-scope tier); a kernel of that name is no companion.
    std::string copying = kernels[i].name + abi::kCopyingCompanionSuffix;
    if (auto entry = j->lookup(*dylib, copying + abi::kCpuGroupSuffix);
        !entry || isKernel(copying)) {
      if (!entry)
        llvm::consumeError(entry.takeError());
    } else {
      auto shared = j->lookup(*dylib, copying + abi::kCpuSharedBytesSuffix);
      auto stack = j->lookup(*dylib, copying + abi::kCpuStackBytesSuffix);
      if (!shared || !stack) {
        std::string why = llvm::toString(shared ? stack.takeError() : shared.takeError());
        if (!shared && !stack)
          llvm::consumeError(stack.takeError());
        return {XPU_ERROR_BACKEND,
                "kernel '" + copying + "' has an entry point without its sizes: " + why};
      }
      k.copyingEntry = entry->toPtr<GroupEntry>();
      k.copyingSharedBytes = *shared->toPtr<const uint64_t *>();
      k.copyingStackBytes = *stack->toPtr<const uint64_t *>();
    }
    std::vector<abi::Slot> slots;
    abi::layoutArgs(kernels[i].params, slots);
    size_t slot = 0;
    for (const abi::Param &p : kernels[i].params) {
      if (!p.isBuffer) {
        ++slot;
        continue;
      }
      bool written = p.access != abi::Access::ro;
      k.buffers.push_back({slots[slot].offset, slots[slot + 1].offset,
                           abi::scalarBytes(p.elem), written});
      k.anyWritten |= written;
      slot += 2;
    }
  }
  out = std::move(module);
  return {};
}

} // namespace xpu::cpu
