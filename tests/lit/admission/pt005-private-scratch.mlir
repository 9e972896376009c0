// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --arg 'buf:i32[1]' --device cpu 2>&1 | FileCheck %s
// Every profile: 4 bytes past 65,536 of private scratch per invocation,
// counted through the helper the kernel calls (pt005-at-bound.mlir has
// exactly 65,536). 4 GB of it overflowed the CPU's stack (SIGSEGV).
// CHECK: pt005-private-scratch.mlir:8:8: error: XPU-PT005: kernel 'k': with this private xpu.alloc, one invocation needs 65540 bytes of private scratch, more than the 65536 every backend gives it
xpu.func @helper(%v: i32) -> i32 {
  %p = xpu.alloc : !xpu.buffer<8193xi32, private>
  %c0 = arith.constant 0 : index
  xpu.store %v, %p[%c0] : !xpu.buffer<8193xi32, private>
  %a = xpu.load %p[%c0] : !xpu.buffer<8193xi32, private>
  xpu.return %a : i32
}
xpu.kernel @k(%out: !xpu.buffer<i32>) {
  %q = xpu.alloc : !xpu.buffer<8192xi32, private>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i32
  xpu.store %one, %q[%c0] : !xpu.buffer<8192xi32, private>
  %a = xpu.load %q[%c0] : !xpu.buffer<8192xi32, private>
  %h = xpu.call @helper(%a) : (i32) -> i32
  xpu.store %h, %out[%c0] : !xpu.buffer<i32>
  xpu.return
}
