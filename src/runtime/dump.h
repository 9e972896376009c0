// XPU_DUMP_DIR: the IR of each compiler stage, written to files named
// "<module id>.<stage>" when the variable is set.
#pragma once

#include <string>

namespace mlir {
class ModuleOp;
}

namespace xpu::rt {

/// While alive, stages compiled on this thread are dumped under `id`.
class DumpScope {
public:
  explicit DumpScope(std::string id);
  ~DumpScope();
  DumpScope(const DumpScope &) = delete;
  DumpScope &operator=(const DumpScope &) = delete;

private:
  std::string previous;
};

/// Whether stages compiled on this thread are being dumped (to skip work
/// only a dump needs).
bool dumping();

void dumpStage(const char *stage, const std::string &text);
void dumpStage(const char *stage, mlir::ModuleOp module);
void dumpStage(const char *stage, const void *bytes, size_t size);

} // namespace xpu::rt
