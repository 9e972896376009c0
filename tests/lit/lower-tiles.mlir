// RUN: xpu-opt %s -xpu-lower-tiles | FileCheck %s
// RUN: xpu-opt %s -xpu-lower-tiles=target=spirv | FileCheck %s --check-prefix=DOT
// The software tile: each tile value is a workgroup-shared buffer, each
// tile op a loop over it between barriers; a mac's K loop carries vector<4>
// sums; tiles carried by scf.for keep one buffer for the whole loop. The
// int8 dot tier multiplies four k at a time with xpu.dot4_i8.

// CHECK-LABEL: xpu.kernel @gemm
// CHECK-DAG: xpu.alloc : !xpu.buffer<256xf32, shared>
// CHECK-DAG: xpu.alloc : !xpu.buffer<128xf16, shared>
// CHECK: xpu.barrier
// CHECK: scf.for
// CHECK: xpu.load %arg0[{{.*}}] {checked{{.*}}} : !xpu.buffer<f16, ro>
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>
// CHECK: math.fma {{.*}} : vector<4xf32>
// CHECK: xpu.barrier
// CHECK: scf.if
// CHECK: xpu.store {{.*}} %arg1[{{.*}}] {checked{{.*}}} : !xpu.buffer<f32>
// CHECK-NOT: xpu.tile
// CHECK-NOT: xpu.mac
xpu.kernel @gemm(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %n: index)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ld = arith.constant 16 : index
  %acc = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %r = scf.for %k = %o to %n step %c1 iter_args(%c = %acc) -> (!xpu.tile<16x16xf32>) {
    %a = xpu.tile_load %A[%o], %ld {checked} : !xpu.buffer<f16, ro> -> !xpu.tile<16x8xf16>
    %b = xpu.tile_load %A[%o], %ld {checked} : !xpu.buffer<f16, ro> -> !xpu.tile<8x16xf16>
    %c2 = xpu.mac %c, %a, %b : !xpu.tile<16x16xf32>, !xpu.tile<16x8xf16>, !xpu.tile<8x16xf16>
    scf.yield %c2 : !xpu.tile<16x16xf32>
  }
  xpu.tile_store %r, %C[%o], %ld {checked} : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}

// DOT-LABEL: xpu.kernel @int8
// DOT: xpu.load {{.*}} : !xpu.buffer<64xi8, shared> -> vector<4xi8>
// DOT: xpu.dot4_i8 {{.*}} : vector<4xi8>
xpu.kernel @int8(%A: !xpu.buffer<i8, ro>, %C: !xpu.buffer<i32>)
    attributes {xpu.mma_tier = "dot4"} {
  %z = arith.constant 0 : i32
  %o = arith.constant 0 : index
  %ld = arith.constant 8 : index
  %acc = xpu.tile_fill %z : !xpu.tile<8x8xi32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<i8, ro> -> !xpu.tile<8x8xi8>
  %c = xpu.mac %acc, %a, %a : !xpu.tile<8x8xi32>, !xpu.tile<8x8xi8>, !xpu.tile<8x8xi8>
  xpu.tile_store %c, %C[%o], %ld : !xpu.tile<8x8xi32>, !xpu.buffer<i32>
  xpu.return
}
