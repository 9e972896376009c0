// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// Zero parameters are refused (the profile admits 1 to 8).
// CHECK: gc003-zero-params.mlir:4:1: error: XPU-GC003: kernel 'empty': the kernel has 0 parameters; the profile admits 1 to 8
xpu.kernel @empty() attributes {profile = "deterministic-v1"} {
  xpu.return
}
