// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// portable: gpu.printf written in an xpu kernel.
// CHECK: pt003-gpu-printf.mlir:7:3: error: XPU-PT003: kernel 'k': the kernel performs 'gpu.printf' (it prints on the host), which no backend carries out
xpu.kernel @k(%n: i32) {
  %c0 = arith.constant 0 : i32
  %v = arith.addi %n, %c0 : i32
  gpu.printf "n = %d\n", %v : i32
  xpu.return
}
