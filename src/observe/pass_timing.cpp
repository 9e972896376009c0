// XPU_LOG=debug and traces: one "pass:" line and one trace event per MLIR
// pass the front end runs.
#include "observe/observe.h"
#include "observe/sinks.h"
#include "runtime/env.h"
#include "runtime/log.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"

#include <cstdio>
#include <vector>

namespace xpu::observe {

namespace {
class PassTiming : public mlir::PassInstrumentation {
public:
  void runBeforePass(mlir::Pass *, mlir::Operation *) override {
    starts_.push_back(nowUs());
  }
  void runAfterPass(mlir::Pass *pass, mlir::Operation *op) override { done(pass, op, ""); }
  void runAfterPassFailed(mlir::Pass *pass, mlir::Operation *op) override {
    done(pass, op, " failed");
  }

private:
  std::vector<double> starts_; // passes nest (a pipeline runs inside a pass)

  void done(mlir::Pass *pass, mlir::Operation *op, const char *outcome) {
    if (starts_.empty())
      return;
    double start = starts_.back(), end = nowUs();
    starts_.pop_back();
    std::string name = pass->getArgument().str();
    if (name.empty())
      name = pass->getName().str();
    trace::complete("pass " + name, "pass", start, end - start, trace::kHostPid,
                    trace::hostThread());
    char took[32];
    std::snprintf(took, sizeof took, "%.3f", (end - start) / 1e3);
    rt::log(rt::LogLevel::debug, "pass: name=" + name + " op=" +
                                     op->getName().getStringRef().str() + " ms=" + took +
                                     outcome);
  }
};
} // namespace

void instrumentPasses(mlir::PassManager &pm) {
  const rt::Settings *s = nullptr;
  bool debug = rt::settings(s).isOk() && s->log >= rt::LogLevel::debug;
  if (debug || enabled(kTrace))
    pm.addInstrumentation(std::make_unique<PassTiming>());
}

} // namespace xpu::observe
