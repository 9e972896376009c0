// The module report: JSON of schema "xpujit.module-report" (docs/observe.md).
#pragma once

#include "runtime/status.h"

#include <string>

namespace xpu::rt {
struct ModuleObj;
}

namespace xpu::observe {

/// Makes `module`'s report; runs the front end on its source again.
rt::Status moduleReport(rt::ModuleObj &module, std::string &out);

} // namespace xpu::observe
