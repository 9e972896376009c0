// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t XPU_TILE_TIERS_OFF=wgmma xpujit compile %s --target=nvptx --chip=sm_90 -o %t/k.cubin 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=PTX
// RUN: xpujit compile %s --target=nvptx --chip=sm_75 -o %t/k75.cubin 2>&1 | FileCheck %s --check-prefix=NOTE75
//
// The mma.sync tier (issue 15) offline for sm_90, with the wgmma tier
// turned off (tiles-wgmma.mlir has the kernels that take it): bf16 and f16 macs become
// mma.sync.m16n8k16 with f32 sums held in registers (ptxas assembles them where a CUDA
// toolkit is installed); a kernel without whole warps, a shape not made of
// 16x8x16 steps, or a chip before sm_80, demotes to the software tile and
// says why.

// NOTE-DAG: [mma-tiering] kernel 'bf16': mma.sync (warp MMA (mma.sync.m16n8k16)); not wgmma: turned off by XPU_TILE_TIERS_OFF
// NOTE-DAG: [mma-tiering] kernel 'f16': mma.sync
// NOTE-DAG: [mma-tiering] kernel 'ragged': software ({{.*}}); not wgmma: {{.*}}; not mma.sync: mma.sync is issued by whole warps: the kernel must fix its workgroup_size to a multiple of 32 (it is 48)
// NOTE-DAG: [mma-tiering] kernel 'narrow': software ({{.*}}); not wgmma: {{.*}}; not mma.sync: the 16x12x16 f16 mac at {{.*}} is not made of mma.sync's 16x8x16 steps
// NOTE75-DAG: [mma-tiering] kernel 'bf16': software ({{.*}}); not wgmma: wgmma needs compute capability 9.0 {{.*}}; not mma.sync: mma.sync for f16, bf16 and tf32 needs sm_80; the device is sm_75
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTX-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// The operand fragments come by ldmatrix (B row-major: transposed), the
// operand copies and the sums' stores in vectors where aligned:
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG: ld.global.v2.b32
// PTX-DAG: st.global.v2.b32

xpu.kernel @bf16(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>, %k32: i32)
    attributes {workgroup_size = array<i64: 128, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %ld = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<64x64xf32>
  %acc = scf.for %kk = %o to %k step %c32 iter_args(%c = %init) -> (!xpu.tile<64x64xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<bf16, ro> -> !xpu.tile<64x32xbf16>
    %b = xpu.tile_load %B[%kk], %ld : !xpu.buffer<bf16, ro> -> !xpu.tile<32x64xbf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<64x64xf32>, !xpu.tile<64x32xbf16>, !xpu.tile<32x64xbf16>
    scf.yield %r : !xpu.tile<64x64xf32>
  }
  xpu.tile_store %acc, %C[%o], %ld : !xpu.tile<64x64xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @f16(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @ragged(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 48, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<16x16xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @narrow(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 32, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %ldc = arith.constant 12 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x12xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %b = xpu.tile_load %A[%o], %ldc : !xpu.buffer<f16, ro> -> !xpu.tile<16x12xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<16x12xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x12xf16>
  xpu.tile_store %r, %C[%o], %ldc : !xpu.tile<16x12xf32>, !xpu.buffer<f32>
  xpu.return
}
