// What every backend that generates code through LLVM shares: the O3
// pipeline for a target machine, and emitting objects or assembly.
#pragma once

#include "runtime/status.h"

#include "llvm/Target/TargetMachine.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace xpu::codegen {

/// Runs LLVM's full O3 pipeline, tuned for `tm`, over `m`.
void optimize(llvm::Module &m, llvm::TargetMachine &tm);

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
