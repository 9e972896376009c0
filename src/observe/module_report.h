// The module report: JSON of schema "xpujit.module-report" (docs/observe.md).
#pragma once

#include "runtime/status.h"
#include "xpu/Diagnostic.h"

#include <string>

namespace xpu::rt {
struct ModuleObj;
struct TargetDesc;
struct Blob;
} // namespace xpu::rt

namespace xpu::observe {

/// Makes `module`'s report; runs the front end on its source again.
rt::Status moduleReport(rt::ModuleObj &module, std::string &out);

struct ModuleRecord;
/// The report of `blob`, compiled for `target` without a device
/// (xpu_compile_for_target_report): no device, limits or cache.
rt::Status targetReport(const ModuleRecord &rec, const rt::TargetDesc &target,
                        const rt::Blob &blob, const DiagnosticList &diagnostics,
                        std::string &out);

} // namespace xpu::observe
