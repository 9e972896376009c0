// XPU_DUMP_DIR support; see dump.h.
#include "runtime/dump.h"
#include "runtime/env.h"
#include "runtime/log.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

namespace xpu::rt {

namespace {
thread_local std::string currentId;

std::string pathFor(const char *stage) {
  const Settings *s = nullptr;
  (void)settings(s);
  if (s->dumpDir.empty() || currentId.empty())
    return {};
  return s->dumpDir + "/" + currentId + "." + stage;
}
} // namespace

DumpScope::DumpScope(std::string id) : previous(std::move(currentId)) {
  currentId = std::move(id);
}
DumpScope::~DumpScope() { currentId = std::move(previous); }

bool dumping() { return !pathFor("").empty(); }

void dumpStage(const char *stage, const void *bytes, size_t size) {
  std::string path = pathFor(stage);
  if (path.empty())
    return;
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    logOnce(LogLevel::warn, "dump:" + path,
            "XPU_DUMP_DIR: cannot write " + path);
    return;
  }
  std::fwrite(bytes, 1, size, f);
  std::fclose(f);
}

void dumpStage(const char *stage, const std::string &text) {
  dumpStage(stage, text.data(), text.size());
}

void dumpStage(const char *stage, mlir::ModuleOp module) {
  if (pathFor(stage).empty())
    return;
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  dumpStage(stage, text);
}

} // namespace xpu::rt
