// A compiler diagnostic as the library reports it (no MLIR types, so the
// runtime can hold lists of them without the compiler's headers).
#pragma once

#include <string>
#include <vector>

namespace xpu {

struct Diagnostic {
  enum class Severity { error = 0, warning = 1, note = 2, remark = 3 };
  Severity severity = Severity::error;
  std::string code;    ///< "XPU-GC007"; empty when none
  std::string message; ///< one line
  std::string file;
  unsigned line = 0, column = 0;
};
using DiagnosticList = std::vector<Diagnostic>;

} // namespace xpu
