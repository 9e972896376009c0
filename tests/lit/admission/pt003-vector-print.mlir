// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --arg buf:f32[1] --device cpu 2>&1 | FileCheck %s
// portable: vector.print has no lowering on any backend. Refused where it is
// written, never an LLVM "JIT session error" on stderr.
// CHECK: pt003-vector-print.mlir:9:3: error: XPU-PT003: kernel 'k': the kernel performs 'vector.print' (it prints on the host), which no backend carries out
xpu.kernel @k(%out: !xpu.buffer<f32>) {
  %c0 = arith.constant 0 : index
  %v = xpu.load %out[%c0] : !xpu.buffer<f32>
  vector.print %v : f32
  xpu.return
}
