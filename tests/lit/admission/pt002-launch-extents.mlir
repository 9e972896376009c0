// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// Fixed launch shapes no launch can pass are refused at the kernel, in the
// portable profile too (deterministic-v1 refuses them earlier, as GC006).

// shared/repros/soundness/elided-check.mlir: grid * workgroup overflowed
// int64 in range inference, the check on the store was dropped, and the
// launch (with the extent truncated to 16) wrote past the buffer.
// CHECK: pt002-launch-extents.mlir:[[@LINE+1]]:1: error: XPU-PT002: kernel 'elided': grid extent 4611686018427387920 on axis 0 is outside 1..4294967295, the extents a launch can pass
xpu.kernel @elided(%out: !xpu.buffer<16xi32>)
    attributes {workgroup_size = array<i64: 2>, grid_size = array<i64: 4611686018427387920>} {
  %g = xpu.global_id x
  %c = arith.constant 7 : i32
  xpu.store %c, %out[%g] : !xpu.buffer<16xi32>
  xpu.return
}

// CHECK: pt002-launch-extents.mlir:[[@LINE+1]]:1: error: XPU-PT002: kernel 'grid_zero': grid extent 0 on axis 1
xpu.kernel @grid_zero(%out: !xpu.buffer<i32>) attributes {grid_size = array<i64: 4, 0, 1>} {
  xpu.return
}

// CHECK: pt002-launch-extents.mlir:[[@LINE+1]]:1: error: XPU-PT002: kernel 'grid_above_uint32': grid extent 4294967296 on axis 2
xpu.kernel @grid_above_uint32(%out: !xpu.buffer<i32>) attributes {grid_size = array<i64: 1, 1, 4294967296>} {
  xpu.return
}

// CHECK: pt002-launch-extents.mlir:[[@LINE+1]]:1: error: XPU-PT002: kernel 'workgroup_axis': workgroup extent 2048 on axis 0 is outside 1..1024
xpu.kernel @workgroup_axis(%out: !xpu.buffer<i32>) attributes {workgroup_size = array<i64: 2048>} {
  xpu.return
}

// CHECK: pt002-launch-extents.mlir:[[@LINE+1]]:1: error: XPU-PT002: kernel 'workgroup_negative': workgroup extent -1 on axis 1
xpu.kernel @workgroup_negative(%out: !xpu.buffer<i32>) attributes {workgroup_size = array<i64: 4, -1>} {
  xpu.return
}

// CHECK: pt002-launch-extents.mlir:[[@LINE+1]]:1: error: XPU-PT002: kernel 'workgroup_product': a workgroup of 2048 invocations exceeds 1024
xpu.kernel @workgroup_product(%out: !xpu.buffer<i32>) attributes {workgroup_size = array<i64: 32, 64>} {
  xpu.return
}

// At the bounds: admitted (no error).
xpu.kernel @at_bounds(%out: !xpu.buffer<i32>)
    attributes {workgroup_size = array<i64: 1024, 1, 1>,
                grid_size = array<i64: 4294967295, 4294967295, 4294967295>} {
  %g = xpu.global_id x
  %c = arith.constant 7 : i32
  xpu.store %c, %out[%g] : !xpu.buffer<i32>
  xpu.return
}
