// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// A module inside the module: its kernel is outside what the runtime
// compiles, so it was silently dropped.
// CHECK: nested-module.mlir:7:3: error: XPU-PARSE: 'builtin.module' is outside any kernel
module {
  module {
    xpu.kernel @k() { xpu.return }
  }
}
