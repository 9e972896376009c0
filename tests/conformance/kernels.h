// Kernels more than one test uses, as text: the builder tests build the
// same kernels by calls and compare their printed form with these.
#pragma once

namespace conf {

/// y[i] = a * x[i] + y[i] for i < n.
inline const char *const kSaxpy = R"(
    xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
      %i = xpu.global_id x
      %n_idx = arith.index_castui %n : i32 to index
      %in = arith.cmpi ult, %i, %n_idx : index
      scf.if %in {
        %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>
        %yi = xpu.load %y[%i] : !xpu.buffer<f32>
        %ax = arith.mulf %a, %xi : f32
        %r = arith.addf %ax, %yi : f32
        xpu.store %r, %y[%i] : !xpu.buffer<f32>
      }
      xpu.return
    })";

/// Each workgroup of 256 sums its elements of `in` into out[workgroup] by a
/// tree reduction in shared memory, with barriers.
inline const char *const kBlockSum = R"(
    xpu.kernel @block_sum(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
        attributes {workgroup_size = array<i64: 256, 1, 1>} {
      %t = xpu.thread_id x
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %s = xpu.alloc : !xpu.buffer<256xi32, shared>
      %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
      xpu.store %v, %s[%t] : !xpu.buffer<256xi32, shared>
      xpu.barrier
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      scf.for %k = %c0 to %c8 step %c1 {
        %stride = arith.shrui %c128, %k : index
        %active = arith.cmpi ult, %t, %stride : index
        scf.if %active {
          %o = arith.addi %t, %stride : index
          %a = xpu.load %s[%t] : !xpu.buffer<256xi32, shared>
          %b = xpu.load %s[%o] : !xpu.buffer<256xi32, shared>
          %sum = arith.addi %a, %b : i32
          xpu.store %sum, %s[%t] : !xpu.buffer<256xi32, shared>
        }
        xpu.barrier
      }
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %r = xpu.load %s[%c0] : !xpu.buffer<256xi32, shared>
        xpu.store %r, %out[%wg] : !xpu.buffer<i32>
      }
      xpu.return
    })";

} // namespace conf
