// RUN: rm -rf %t && mkdir -p %t
// RUN: xpujit compile %s --target=amdgcn --chip=gfx942 -o %t/k942.hsaco 2>&1 | FileCheck %s --check-prefix=NOTE942
// RUN: llvm-objdump -d --mcpu=gfx942 %t/k942.hsaco | FileCheck %s --check-prefix=GFX942
// RUN: llvm-readelf --notes %t/k942.hsaco | FileCheck %s --check-prefix=META942
// RUN: xpujit compile %s --target=amdgcn --chip=gfx90a -o %t/k90a.hsaco
// RUN: llvm-objdump -d --mcpu=gfx90a %t/k90a.hsaco | FileCheck %s --check-prefix=GFX90A
// RUN: xpujit compile %s --target=amdgcn --chip=gfx908 -o %t/k908.hsaco 2>&1 | FileCheck %s --check-prefix=NOTE908
// RUN: llvm-objdump -d --mcpu=gfx908 %t/k908.hsaco | FileCheck %s --check-prefix=GFX908
// RUN: xpujit compile %s --target=amdgcn --chip=gfx1100 -o %t/k1100.hsaco 2>&1 | FileCheck %s --check-prefix=NOTE1100
// RUN: llvm-objdump -d --mcpu=gfx1100 %t/k1100.hsaco | FileCheck %s --check-prefix=GFX1100
// RUN: llvm-readelf --notes %t/k1100.hsaco | FileCheck %s --check-prefix=META1100
// RUN: xpujit compile %s --target=amdgcn --chip=gfx1100 --wave 64 -o %t/k1100w64.hsaco 2>&1 | FileCheck %s --check-prefix=NOTEW64
// RUN: xpujit compile %s --target=amdgcn --chip=gfx1200 -o %t/k1200.hsaco 2>&1 | FileCheck %s --check-prefix=NOTE1200
// RUN: env XPU_TILE_TIERS_OFF=mfma xpujit compile %s --target=amdgcn --chip=gfx942 -o %t/off.hsaco 2>&1 | FileCheck %s --check-prefix=OFF
//
// The AMD matrix-core tiers (issue 15) offline, read back from the code
// objects: 16x16x16 steps of f16 and bf16 with f32 sums become
// v_mfma_f32_16x16x16 on gfx9 (waves of 64; gfx940 and later spell them
// _f16 and _bf16, gfx90a f16 and bf16_1k) and v_wmma_f32_16x16x16 on gfx11
// (waves of 32). gfx908 has no 16-deep bf16 MFMA, so the bf16 kernel goes
// to the software tile there; WMMA is lowered for gfx11 in waves of 32
// only, so gfx11 in wave64 and gfx12 take the software tile, each saying
// why. (The tier's numbers are checked on the CPU with XPU_TILE_EMULATE:
// ctest tiles.cpu-mfma-emulated and tiles.cpu-wmma-emulated.)

// NOTE942-DAG: [mma-tiering] kernel 'bf16': mfma (matrix cores (v_mfma_f32_16x16x16))
// NOTE942-DAG: [mma-tiering] kernel 'f16': mfma (matrix cores (v_mfma_f32_16x16x16))
// NOTE942-DAG: [mma-tiering] kernel 'ragged': software ({{.*}}); not mfma: mfma is issued by whole waves of 64: the kernel must fix its workgroup_size to a multiple of 64 (it is 96)
// NOTE942-DAG: [mma-tiering] kernel 'narrow': software ({{.*}}); not mfma: the 16x8x16 f16 mac at {{.*}} is not made of mfma's 16x16x16 steps
// GFX942-DAG: v_mfma_f32_16x16x16_bf16
// GFX942-DAG: v_mfma_f32_16x16x16_f16
// The operand fragments are read from shared memory in 8-byte vectors:
// GFX942-DAG: ds_read_b64
// META942-DAG: .name: bf16
// META942-DAG: .wavefront_size: 64
// GFX90A-DAG: v_mfma_f32_16x16x16bf16_1k
// GFX90A-DAG: v_mfma_f32_16x16x16f16
// NOTE908-DAG: [mma-tiering] kernel 'bf16': software ({{.*}}); not mfma: the 64x64x32 bf16 mac at {{.*}} has bf16 operands, and gfx908 has no v_mfma_f32_16x16x16bf16_1k (gfx90a and later)
// NOTE908-DAG: [mma-tiering] kernel 'f16': mfma
// GFX908: v_mfma_f32_16x16x16f16
// GFX908-NOT: v_mfma_f32_16x16x16bf16
// NOTE1100-DAG: [mma-tiering] kernel 'bf16': wmma (matrix cores (v_wmma_f32_16x16x16)); not mfma: MFMA needs
// NOTE1100-DAG: [mma-tiering] kernel 'ragged': wmma
// GFX1100-DAG: v_wmma_f32_16x16x16_bf16
// GFX1100-DAG: v_wmma_f32_16x16x16_f16
// META1100-DAG: .wavefront_size: 32
// NOTEW64: [mma-tiering] kernel 'bf16': software ({{.*}}); not mfma: {{.*}}; not wmma: xpujit lowers WMMA for waves of 32; the target runs waves of 64
// NOTE1200: [mma-tiering] kernel 'bf16': software ({{.*}}); not mfma: {{.*}}; not wmma: xpujit lowers WMMA for gfx11, whose operand layout it follows; gfx1200 lays the operands out differently
// OFF: [mma-tiering] kernel 'f16': {{dot4|software}} ({{.*}}); not mfma: turned off by XPU_TILE_TIERS_OFF

xpu.kernel @bf16(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>, %k32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
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
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
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
    attributes {workgroup_size = array<i64: 96, 1, 1>} {
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
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %ldc = arith.constant 8 : index
  %init = xpu.tile_fill %z : !xpu.tile<16x8xf32>
  %a = xpu.tile_load %A[%o], %ld : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %b = xpu.tile_load %A[%o], %ldc : !xpu.buffer<f16, ro> -> !xpu.tile<16x8xf16>
  %r = xpu.mac %init, %a, %b : !xpu.tile<16x8xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x8xf16>
  xpu.tile_store %r, %C[%o], %ldc : !xpu.tile<16x8xf32>, !xpu.buffer<f32>
  xpu.return
}
