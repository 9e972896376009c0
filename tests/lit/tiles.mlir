// RUN: xpu-opt %s | xpu-opt | FileCheck %s
// Tile ops print and parse back (issue 15).

// CHECK-LABEL: xpu.kernel @gemm
xpu.kernel @gemm(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>,
                 %C: !xpu.buffer<f32>, %lda: index, %ldb: index) {
  %z = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %o = arith.constant 0 : index
  // CHECK: xpu.tile_fill %{{.*}} : !xpu.tile<64x64xf32>
  %acc = xpu.tile_fill %z : !xpu.tile<64x64xf32>
  // CHECK: xpu.tile_load %{{.*}}[%{{.*}}], %{{.*}} : !xpu.buffer<bf16, ro> -> !xpu.tile<64x32xbf16>
  %a = xpu.tile_load %A[%o], %lda : !xpu.buffer<bf16, ro> -> !xpu.tile<64x32xbf16>
  // CHECK: xpu.tile_load %{{.*}}[%{{.*}}], %{{.*}} col_major : !xpu.buffer<bf16, ro> -> !xpu.tile<32x64xbf16>
  %b = xpu.tile_load %B[%o], %ldb col_major : !xpu.buffer<bf16, ro> -> !xpu.tile<32x64xbf16>
  // CHECK: xpu.mac %{{.*}}, %{{.*}}, %{{.*}} : !xpu.tile<64x64xf32>, !xpu.tile<64x32xbf16>, !xpu.tile<32x64xbf16>
  %c = xpu.mac %acc, %a, %b : !xpu.tile<64x64xf32>, !xpu.tile<64x32xbf16>, !xpu.tile<32x64xbf16>
  // CHECK: xpu.tile_scale %{{.*}}, %{{.*}} : !xpu.tile<64x64xf32>
  %s = xpu.tile_scale %c, %two : !xpu.tile<64x64xf32>
  // CHECK: xpu.tile_add %{{.*}}, %{{.*}} : !xpu.tile<64x64xf32>
  %t = xpu.tile_add %s, %c : !xpu.tile<64x64xf32>
  // CHECK: xpu.tile_convert %{{.*}} : !xpu.tile<64x64xf32> -> !xpu.tile<64x64xf16>
  %h = xpu.tile_convert %t : !xpu.tile<64x64xf32> -> !xpu.tile<64x64xf16>
  // CHECK: xpu.tile_store %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} : !xpu.tile<64x64xf32>, !xpu.buffer<f32>
  xpu.tile_store %t, %C[%o], %ldb : !xpu.tile<64x64xf32>, !xpu.buffer<f32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @int8
xpu.kernel @int8(%A: !xpu.buffer<i8, ro>, %C: !xpu.buffer<i32>) {
  %z = arith.constant 0 : i32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %acc = xpu.tile_fill %z : !xpu.tile<16x16xi32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<i8, ro> -> !xpu.tile<16x16xi8>
  // CHECK: xpu.mac {{.*}} : !xpu.tile<16x16xi32>, !xpu.tile<16x16xi8>, !xpu.tile<16x16xi8>
  %c = xpu.mac %acc, %a, %a : !xpu.tile<16x16xi32>, !xpu.tile<16x16xi8>, !xpu.tile<16x16xi8>
  xpu.tile_store %c, %C[%o], %ld : !xpu.tile<16x16xi32>, !xpu.buffer<i32>
  xpu.return
}

// CHECK-LABEL: xpu.kernel @tf32
xpu.kernel @tf32(%A: !xpu.buffer<f32, ro>) {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %acc = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f32, ro> -> !xpu.tile<16x16xf32>
  // CHECK: xpu.mac {{.*}} tf32 : !xpu.tile<16x16xf32>
  %c = xpu.mac %acc, %a, %a tf32 : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf32>, !xpu.tile<16x16xf32>
  xpu.return
}
