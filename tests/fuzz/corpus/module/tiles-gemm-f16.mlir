// A tiled f16 GEMM with f32 sums (xpu-bench-gemm's kernel): tile loads in a K loop, mac, store.
xpu.kernel @gemm(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>, %m: i32, %n: i32, %k: i32)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %tk = arith.constant 16 : index
  %tm = arith.constant 32 : index
  %tn = arith.constant 32 : index
  %N = arith.index_castui %n : i32 to index
  %K = arith.index_castui %k : i32 to index
  %M = arith.index_castui %m : i32 to index
  %bx = xpu.workgroup_id x
  %by = xpu.workgroup_id y
  %row0 = arith.muli %by, %tm : index
  %col0 = arith.muli %bx, %tn : index
  %zero = arith.constant 0.0 : f32
  %init = xpu.tile_fill %zero : !xpu.tile<32x32xf32>
  %acc = scf.for %kk = %c0 to %K step %tk iter_args(%c = %init) -> (!xpu.tile<32x32xf32>) {
    %ash = arith.constant 0 : index
    %ar = arith.muli %row0, %K : index
    %aoff0 = arith.addi %ar, %kk : index
    %aoff = arith.addi %aoff0, %ash : index
    %a = xpu.tile_load %A[%aoff], %K : !xpu.buffer<f16, ro> -> !xpu.tile<32x16xf16>
    %br = arith.muli %kk, %N : index
    %boff = arith.addi %br, %col0 : index
    %b = xpu.tile_load %B[%boff], %N : !xpu.buffer<f16, ro> -> !xpu.tile<16x32xf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<32x32xf32>, !xpu.tile<32x16xf16>, !xpu.tile<16x32xf16>
    scf.yield %r : !xpu.tile<32x32xf32>
  }
  %cr = arith.muli %row0, %N : index
  %coff0 = arith.addi %cr, %col0 : index
  %csh = arith.constant 0 : index
  %coff = arith.addi %coff0, %csh : index
  xpu.tile_store %acc, %C[%coff], %N : !xpu.tile<32x32xf32>, !xpu.buffer<f32>
  xpu.return
}
