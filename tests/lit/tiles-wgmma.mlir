// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t xpujit compile %s --target=nvptx --chip=sm_90 -o %t/k.cubin 2>&1 | FileCheck %s --check-prefix=NOTE
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=PTX
// RUN: env XPU_TILE_TIERS_OFF=wgmma xpujit compile %s --target=nvptx --chip=sm_90 -o %t/off.cubin 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: not env XPU_TILE_TIERS_OFF=wgmma,fast xpujit compile %s --target=nvptx --chip=sm_90 -o %t/bad.cubin 2>&1 | FileCheck %s --check-prefix=BAD
//
// The wgmma tier (issue 15) offline for sm_90: a bf16 GEMM with B
// row-major (read transposed) and an f16 one with B column-major on two
// warpgroups become wgmma.mma_async on swizzled shared operands, compiled
// for sm_90a (ptxas assembles them where a CUDA toolkit is installed). A
// workgroup that is not whole warpgroups, a shape not made of 64x16x16
// steps and a tile wider than its warpgroups' 256 columns each take
// mma.sync and say why; XPU_TILE_TIERS_OFF=wgmma turns the tier off (and
// an unknown name there is an error that lists the names).

// NOTE-DAG: [mma-tiering] kernel 'bf16': wgmma (warpgroup MMA (wgmma.mma_async m64nNk16))
// NOTE-DAG: [mma-tiering] kernel 'f16_two_groups': wgmma
// NOTE-DAG: [mma-tiering] kernel 'three_warps': mma.sync ({{.*}}); not wgmma: wgmma is issued by whole warpgroups: the kernel must fix its workgroup_size to a multiple of 128 (it is 96)
// NOTE-DAG: [mma-tiering] kernel 'short': mma.sync ({{.*}}); not wgmma: the 32x64x16 f16 mac at {{.*}} is not made of wgmma's 64x16x16 steps
// NOTE-DAG: [mma-tiering] kernel 'wide': mma.sync ({{.*}}); not wgmma: the 64x512x16 f16 mac at {{.*}} is wider than 256 columns, which 1 warpgroups of wgmma (256 columns each) cannot hold
// OFF-DAG: [mma-tiering] kernel 'bf16': mma.sync ({{.*}}); not wgmma: turned off by XPU_TILE_TIERS_OFF
// BAD: XPU_TILE_TIERS_OFF: 'fast' is not one of: wgmma, mma.sync, dot4, mfma, wmma, cooperative-matrix
// PTX: .target sm_90a
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {{.*}}, p, 1, 1, 0, 1;
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{.*}}, p, 1, 1, 0, 0;
// PTX-DAG: fence.proxy.async.shared::cta
// PTX-DAG: wgmma.wait_group.sync.aligned 0
// PTX-DAG: .align 1024 .b8 __xpu_shared_

xpu.kernel @bf16(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>, %k32: i32)
    attributes {workgroup_size = array<i64: 128, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ld = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<64x64xf32>
  %acc = scf.for %kk = %o to %k step %c64 iter_args(%c = %init) -> (!xpu.tile<64x64xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<bf16, ro> -> !xpu.tile<64x64xbf16>
    %b = xpu.tile_load %B[%kk], %ld : !xpu.buffer<bf16, ro> -> !xpu.tile<64x64xbf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<64x64xf32>, !xpu.tile<64x64xbf16>, !xpu.tile<64x64xbf16>
    scf.yield %r : !xpu.tile<64x64xf32>
  }
  xpu.tile_store %acc, %C[%o], %ld : !xpu.tile<64x64xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @f16_two_groups(%A: !xpu.buffer<f16, ro>, %B: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 32 : index
  %ldc = arith.constant 128 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<128x32xf16>
  %b = xpu.tile_load %B[%o], %ld col_major : !xpu.buffer<f16, ro> -> !xpu.tile<32x128xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x32xf16>, !xpu.tile<32x128xf16>
  xpu.tile_store %r, %C[%o], %ldc : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @three_warps(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 96, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<64x64xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<64x64xf16>
  %r = xpu.mac %init, %a, %a : !xpu.tile<64x64xf32>, !xpu.tile<64x64xf16>, !xpu.tile<64x64xf16>
  xpu.tile_store %r, %C[%o], %ld : !xpu.tile<64x64xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @short(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 128, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %ldc = arith.constant 64 : index
  %init = xpu.tile_fill %z : !xpu.tile<32x64xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<32x16xf16>
  %b = xpu.tile_load %A[%o], %ldc : !xpu.buffer<f16, ro> -> !xpu.tile<16x64xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<32x64xf32>, !xpu.tile<32x16xf16>, !xpu.tile<16x64xf16>
  xpu.tile_store %r, %C[%o], %ldc : !xpu.tile<32x64xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @wide(%A: !xpu.buffer<f16, ro>, %C: !xpu.buffer<f32>)
    attributes {workgroup_size = array<i64: 128, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %ldc = arith.constant 512 : index
  %init = xpu.tile_fill %z : !xpu.tile<64x512xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<64x16xf16>
  %b = xpu.tile_load %A[%o], %ldc : !xpu.buffer<f16, ro> -> !xpu.tile<16x512xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<64x512xf32>, !xpu.tile<64x16xf16>, !xpu.tile<16x512xf16>
  xpu.tile_store %r, %C[%o], %ldc : !xpu.tile<64x512xf32>, !xpu.buffer<f32>
  xpu.return
}
