// RUN: not xpujit run %s --kernel k --grid 1 --block 4 --arg 'buf:i32[4]' --device cpu 2>&1 | FileCheck %s
// 2^61 f64 elements of shared scratch are 2^64 bytes: the size wrapped to
// 0, the device limit admitted it, and the launch reported success. The
// size now saturates, so the limit refuses it.
// CHECK: shared-bytes-saturate.mlir:6:1: error: XPU-CAP001: kernel 'k' needs workgroup-shared memory; cpu device {{.*}}needs 18446744073709551615 bytes of shared memory; the limit is
xpu.kernel @k(%o: !xpu.buffer<i32>) {
  %p = xpu.alloc : !xpu.buffer<2305843009213693952xf64, shared>
  %i = xpu.global_id x
  %c = arith.constant 7.0 : f64
  xpu.store %c, %p[%i] : !xpu.buffer<2305843009213693952xf64, shared>
  %v = xpu.load %p[%i] : !xpu.buffer<2305843009213693952xf64, shared>
  %w = arith.fptosi %v : f64 to i32
  xpu.store %w, %o[%i] : !xpu.buffer<i32>
  xpu.return
}
