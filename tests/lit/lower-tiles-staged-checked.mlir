// RUN: xpu-opt %s -xpu-lower-tiles=target=nvvm | FileCheck %s
// Staged cp.async copies of checked operand tiles (issue 15): one test
// that the whole tile lies in its buffer precedes unchecked 16-byte
// copies; only a tile that does not fit tests each chunk, and a chunk past
// the end is read element by element with the load's check (so the launch
// reports it). Per-chunk tests in the common case cost the wgmma K loop a
// quarter of its speed on the H200.
// The whole tile fits when its end is within the buffer, and so are its
// offset and stride (so that the end cannot have wrapped around).
// CHECK-LABEL: xpu.kernel @staged
// CHECK: xpu.aligned %arg0
// CHECK: %[[SIZE:.*]] = xpu.buffer_size %arg0
// CHECK: %[[END:.*]] = arith.addi %[[OFF:[0-9]+]], %{{[0-9]+}} : index
// CHECK-NEXT: %[[E:.*]] = arith.cmpi ule, %[[END]], %[[SIZE]] : index
// CHECK-NEXT: %[[O:.*]] = arith.cmpi ule, %[[OFF]], %[[SIZE]] : index
// CHECK-NEXT: %[[S:.*]] = arith.cmpi ule, %{{.*}}, %[[SIZE]] : index
// CHECK-NEXT: %[[OS:.*]] = arith.andi %[[O]], %[[S]] : i1
// CHECK-NEXT: %[[FITS:.*]] = arith.andi %[[E]], %[[OS]] : i1
// CHECK-NEXT: scf.if %[[FITS]]
// CHECK-NOT: xpu.buffer_size
// CHECK: xpu.async_copy_element %arg0[{{.*}}] to {{.*}} {bytes = 16 : i64, cp_async}
// CHECK-NOT: xpu.buffer_size
// CHECK: xpu.async_copy_element %arg0[{{.*}}] to {{.*}} {bytes = 16 : i64, cp_async}
// A chunk is inside when its first element is and 8 elements remain from
// there (not from + 8 <= size, which wraps for a chunk just below 2^64).
// CHECK: } else {
// CHECK: %[[SZ:.*]] = xpu.buffer_size %arg0
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[FROM:[0-9]+]], %[[SZ]] : index
// CHECK-NEXT: %[[ROOM:.*]] = arith.subi %[[SZ]], %[[FROM]] : index
// CHECK-NEXT: arith.constant 8 : index
// CHECK-NEXT: %[[FIT:.*]] = arith.cmpi uge, %[[ROOM]]
// CHECK-NEXT: %[[OK:.*]] = arith.andi %[[IN]], %[[FIT]] : i1
// CHECK-NEXT: scf.if %[[OK]]
// CHECK-NEXT: xpu.async_copy_element %arg0[%[[FROM]]] to {{.*}} {bytes = 16 : i64, cp_async}
// CHECK-NEXT: } else {
// CHECK: xpu.load %arg0[{{.*}}] {checked} : !xpu.buffer<bf16, ro>

xpu.kernel @staged(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>,
                   %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 128, 1, 1>, xpu.mma_tier = "wgmma"} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %acc = scf.for %kk = %o to %k step %c16 iter_args(%c = %init) -> (!xpu.tile<128x128xf32>) {
    %a = xpu.tile_load %A[%kk], %k {checked} : !xpu.buffer<bf16, ro> -> !xpu.tile<128x16xbf16>
    %bo = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%bo], %n {checked} : !xpu.buffer<bf16, ro> -> !xpu.tile<16x128xbf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x16xbf16>, !xpu.tile<16x128xbf16>
    scf.yield %r : !xpu.tile<128x128xf32>
  }
  xpu.tile_store %acc, %C[%o], %n {checked} : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}
