// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t xpujit compile %s --target=nvptx --chip=sm_90 -o %t/k.cubin
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=WGMMA
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=ORDER
// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t XPU_TILE_TIERS_OFF=wgmma xpujit compile %s --target=nvptx --chip=sm_90 -o %t/k.cubin
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=MMA
//
// Staged operand copies (issue 15) offline for sm_90, on the wgmma tier
// and on mma.sync: the operand loads of a K loop whose stages fit the
// budget are copied ahead with 16-byte cp.async (several K steps in
// flight; each iteration waits for all but the stages - 2 newest groups),
// with element copies where the tiles are not 16-byte aligned at run time.
// Past 48 KiB the kernel's shared memory is in the dynamic window (the
// sm_90 block may have 227 KiB). A block whose two stages would not fit
// reads one step ahead through registers instead.

// 128x128x16 on one warpgroup: 8 KiB a stage, four stages, copies two
// iterations ahead (a step's wgmma may still read its stage in the next).
// WGMMA-LABEL: .entry staged(
// WGMMA-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// WGMMA-DAG: cp.async.commit_group;
// WGMMA-DAG: cp.async.wait_group 1;
// WGMMA-DAG: fence.proxy.async.shared::cta;
// WGMMA-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// A step issues its wgmma, then the copies for a later iteration, then
// waits for the previous step's wgmma only (the loop is rotated: that
// wait heads the next iteration); the last one is waited for after the
// loop.
// ORDER-LABEL: .entry staged(
// ORDER: wgmma.wait_group.sync.aligned 1;
// ORDER: bar.sync
// ORDER: wgmma.commit_group.sync.aligned;
// ORDER-NOT: wgmma.wait_group
// ORDER: cp.async.cg.shared.global
// ORDER: wgmma.wait_group.sync.aligned 0;
// ORDER: ret;
// 128x256x32: 24 KiB a stage, four stages in the dynamic window, its base
// rounded up to the 1,024 bytes of the 128-byte swizzle.
// WGMMA-LABEL: .entry wide(
// WGMMA: mov.{{[bu]}}64 {{.*}}, __xpu_dynamic_shared;
// WGMMA: and.b64 {{.*}}, -1024;
// WGMMA-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// WGMMA-DAG: cp.async.wait_group 1;
// WGMMA-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// 128x128x256: 128 KiB a stage, so not staged.
// WGMMA-LABEL: .entry deep(
// WGMMA-NOT: cp.async
// WGMMA: ld.global.v2.b32
// WGMMA-NOT: cp.async
// WGMMA: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// WGMMA-NOT: cp.async
// WGMMA: ret;

// On mma.sync the padded rows make 128x128x16 stages 10.25 KiB: four, in
// 41 KiB of static shared memory.
// MMA-LABEL: .entry staged(
// MMA-DAG: .shared .align 16 .b8 __xpu_shared_
// MMA-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// MMA-DAG: cp.async.wait_group 2;
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMA-LABEL: .entry wide(
// MMA-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// MMA-DAG: cp.async.wait_group 2;
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMA-LABEL: .entry deep(
// MMA-NOT: cp.async
// MMA: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32

xpu.kernel @staged(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>,
                   %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 128, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %acc = scf.for %kk = %o to %k step %c16 iter_args(%c = %init) -> (!xpu.tile<128x128xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<bf16, ro> -> !xpu.tile<128x16xbf16>
    %boff = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%boff], %n : !xpu.buffer<bf16, ro> -> !xpu.tile<16x128xbf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x16xbf16>, !xpu.tile<16x128xbf16>
    scf.yield %r : !xpu.tile<128x128xf32>
  }
  xpu.tile_store %acc, %C[%o], %n : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @wide(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>,
                 %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x256xf32>
  %acc = scf.for %kk = %o to %k step %c32 iter_args(%c = %init) -> (!xpu.tile<128x256xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<bf16, ro> -> !xpu.tile<128x32xbf16>
    %boff = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%boff], %n : !xpu.buffer<bf16, ro> -> !xpu.tile<32x256xbf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x256xf32>, !xpu.tile<128x32xbf16>, !xpu.tile<32x256xbf16>
    scf.yield %r : !xpu.tile<128x256xf32>
  }
  xpu.tile_store %acc, %C[%o], %n : !xpu.tile<128x256xf32>, !xpu.buffer<f32>
  xpu.return
}

xpu.kernel @deep(%A: !xpu.buffer<bf16, ro>, %B: !xpu.buffer<bf16, ro>, %C: !xpu.buffer<f32>,
                 %k32: i32, %n32: i32)
    attributes {workgroup_size = array<i64: 256, 1, 1>} {
  %k = arith.index_castui %k32 : i32 to index
  %n = arith.index_castui %n32 : i32 to index
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %init = xpu.tile_fill %z : !xpu.tile<128x128xf32>
  %acc = scf.for %kk = %o to %k step %c256 iter_args(%c = %init) -> (!xpu.tile<128x128xf32>) {
    %a = xpu.tile_load %A[%kk], %k : !xpu.buffer<bf16, ro> -> !xpu.tile<128x256xbf16>
    %boff = arith.muli %kk, %n : index
    %b = xpu.tile_load %B[%boff], %n : !xpu.buffer<bf16, ro> -> !xpu.tile<256x128xbf16>
    %r = xpu.mac %c, %a, %b : !xpu.tile<128x128xf32>, !xpu.tile<128x256xbf16>, !xpu.tile<256x128xbf16>
    scf.yield %r : !xpu.tile<128x128xf32>
  }
  xpu.tile_store %acc, %C[%o], %n : !xpu.tile<128x128xf32>, !xpu.buffer<f32>
  xpu.return
}
