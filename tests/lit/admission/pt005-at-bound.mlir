// RUN: xpujit check %s 2>&1 | count 0
// RUN: xpujit run %s --kernel k --grid 2 --block 64 --arg 'buf:i32[128]' --arg i32:8191 --device cpu | FileCheck %s
// Every profile: exactly 65,536 bytes of private scratch per invocation
// (32 KiB in the kernel, 32 KiB in the helper it calls) is admitted, and
// runs with a barrier. The workgroup size is fixed: the CPU keeps each
// invocation's scratch across the barrier, for every invocation of the
// workgroup (at most 16 MiB, XPU-CPU003).
// Each invocation writes both ends of both arrays and reads them back:
// out[i] = 6 (i + 1) + 2.
// CHECK: out: i32[128] {{.*}}[8, 14, 20, 26, 32, 38, 44, 50,
xpu.func @helper(%n: index, %v: i32) -> i32 {
  %p = xpu.alloc : !xpu.buffer<8192xi32, private>
  %c0 = arith.constant 0 : index
  xpu.store %v, %p[%n] : !xpu.buffer<8192xi32, private>
  xpu.store %v, %p[%c0] : !xpu.buffer<8192xi32, private>
  %a = xpu.load %p[%n] : !xpu.buffer<8192xi32, private>
  %b = xpu.load %p[%c0] : !xpu.buffer<8192xi32, private>
  %s = arith.addi %a, %b : i32
  xpu.return %s : i32
}
xpu.kernel @k(%out: !xpu.buffer<i32>, %last: i32) attributes {
    workgroup_size = array<i64: 64, 1, 1>} {
  %q = xpu.alloc : !xpu.buffer<8192xi32, private>
  %i = xpu.global_id x
  %n = arith.index_cast %last : i32 to index
  %c0 = arith.constant 0 : index
  %i32 = arith.index_cast %i : index to i32
  %one = arith.constant 1 : i32
  %v = arith.addi %i32, %one : i32
  xpu.store %v, %q[%n] : !xpu.buffer<8192xi32, private>
  xpu.store %v, %q[%c0] : !xpu.buffer<8192xi32, private>
  xpu.barrier
  %a = xpu.load %q[%n] : !xpu.buffer<8192xi32, private>
  %b = xpu.load %q[%c0] : !xpu.buffer<8192xi32, private>
  %s = arith.addi %a, %b : i32
  %h = xpu.call @helper(%n, %s) : (index, i32) -> i32
  %t = arith.addi %h, %s : i32
  %c2 = arith.constant 2 : i32
  %r = arith.addi %t, %c2 : i32
  xpu.store %r, %out[%i] : !xpu.buffer<i32>
  xpu.return
}
