// What every backend that generates code through LLVM shares: the target
// machine, the O3 pipeline for it, and emitting objects or assembly.
#pragma once

#include "runtime/backend.h"
#include "runtime/status.h"

#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace xpu::codegen {

/// A target machine for `target` (its LLVM target initialized already) at
/// the highest optimization level. Floating-point contraction only where the
/// IR permits it: in fast-math kernels.
rt::Status createMachine(const rt::TargetDesc &target, std::optional<llvm::Reloc::Model> reloc,
                         std::unique_ptr<llvm::TargetMachine> &out);

/// `m` as LLVM IR text, for XPU_DUMP_DIR.
std::string printModule(const llvm::Module &m);

/// Runs LLVM's full O3 pipeline, tuned for `tm`, over `m`. A bare
/// PassBuilder leaves the SLP vectorizer off (clang turns it on at -O2);
/// `slp` turns it on, as the CPU backend does: the work-item loops of short
/// tree levels are unrolled whole before the loop vectorizer sees them.
/// `forwardLate` adds a last round of load forwarding and dead-store
/// removal: only in the straight-line code that unrolling and
/// vectorization leave does GVN see that a load reads what a store before
/// it wrote (the CPU's on-stack shared memory, whose stores then go).
void optimize(llvm::Module &m, llvm::TargetMachine &tm, bool slp = false,
              bool forwardLate = false);

/// Emits `m` for `tm` as an object file or assembly text.
rt::Status emit(llvm::Module &m, llvm::TargetMachine &tm, llvm::CodeGenFileType type,
                std::vector<uint8_t> &out);

/// Times the stages of a compilation for the build log ("llvm 3.1 ms").
class StageTimer {
public:
  /// Ends the current stage, naming it in the log.
  void lap(const char *stage);
  const std::string &log() const { return log_; }

private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string log_;
};

} // namespace xpu::codegen
