// C API: module reports, traces, dispatch reports and launch hooks; the
// work is done in src/observe.
#include "observe/module_report.h"
#include "observe/observe.h"
#include "observe/sinks.h"
#include "runtime/objects.h"

using namespace xpu::rt;
namespace observe = xpu::observe;

extern "C" {

XPU_API xpu_status xpu_module_report(xpu_module module, const char **json) {
  std::shared_ptr<ModuleObj> m;
  if (Status st = resolve(module, m); !st.isOk())
    return finish(st);
  if (!json)
    return finish(invalidArgument("xpu_module_report: `json` is NULL"));
  if (!m->observed)
    return finish({XPU_ERROR_INTERNAL, "the module has no build record"});
  std::lock_guard<std::mutex> g(m->observed->reportMu);
  if (m->observed->report.empty())
    if (Status st = observe::moduleReport(*m, m->observed->report); !st.isOk())
      return finish(st);
  *json = m->observed->report.c_str();
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_trace_start(const char *path) {
  if (!path)
    return finish(invalidArgument("xpu_trace_start: `path` is NULL"));
  return finish(observe::trace::start(path));
}

XPU_API xpu_status xpu_trace_stop(void) { return finish(observe::trace::stop()); }

XPU_API xpu_status xpu_dispatch_report_start(const char *path) {
  if (!path)
    return finish(invalidArgument("xpu_dispatch_report_start: `path` is NULL"));
  return finish(observe::dispatch::start(path));
}

XPU_API xpu_status xpu_dispatch_report_stop(void) {
  return finish(observe::dispatch::stop());
}

XPU_API xpu_status xpu_launch_hooks_set(const xpu_launch_hooks *hooks) {
  return finish(observe::setHooks(hooks));
}

} // extern "C"
