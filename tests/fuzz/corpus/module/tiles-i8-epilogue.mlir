// i8 tiles with i32 sums, column-major B, checked loads and an epilogue:
// scale, add, convert to f32, store.
xpu.kernel @gemm(%A: !xpu.buffer<i8, ro>, %B: !xpu.buffer<i8, ro>, %C: !xpu.buffer<f32>, %k: i32)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %K = arith.index_castui %k : i32 to index
  %z = arith.constant 0 : i32
  %init = xpu.tile_fill %z : !xpu.tile<16x16xi32>
  %acc = scf.for %kk = %c0 to %K step %c16 iter_args(%c = %init) -> (!xpu.tile<16x16xi32>) {
    %a = xpu.tile_load %A[%kk], %K {checked} : !xpu.buffer<i8, ro> -> !xpu.tile<16x16xi8>
    %b = xpu.tile_load %B[%kk], %K col_major {checked} : !xpu.buffer<i8, ro> -> !xpu.tile<16x16xi8>
    %r = xpu.mac %c, %a, %b : !xpu.tile<16x16xi32>, !xpu.tile<16x16xi8>, !xpu.tile<16x16xi8>
    scf.yield %r : !xpu.tile<16x16xi32>
  }
  %two = arith.constant 2 : i32
  %s = xpu.tile_scale %acc, %two : !xpu.tile<16x16xi32>
  %t = xpu.tile_add %s, %acc : !xpu.tile<16x16xi32>
  %f = xpu.tile_convert %t : !xpu.tile<16x16xi32> -> !xpu.tile<16x16xf32>
  xpu.tile_store %f, %C[%c0], %c16 {checked} : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}
