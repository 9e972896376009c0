// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t xpujit compile %s --target=nvptx --chip=sm_90 -o %t/k.cubin
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=WGMMA
// RUN: rm -rf %t && mkdir -p %t
// RUN: env XPU_DUMP_DIR=%t XPU_TILE_TIERS_OFF=wgmma xpujit compile %s --target=nvptx --chip=sm_90 -o %t/k.cubin
// RUN: cat %t/*.nvptx.ptx | FileCheck %s --check-prefix=MMA
//
// Staged operand copies (issue 15) offline for sm_90, on the wgmma tier
// and on mma.sync: the operand loads of a K loop whose stages fit the
// budget are copied ahead with 16-byte cp.async (several K steps in
// flight; each iteration waits for all but the stages - 2 newest groups),
// with element copies where the tiles are not 16-byte aligned at run time.
// A block whose two stages would not fit reads one step ahead through
// registers instead.

// 128x128x16 on one warpgroup: 8 KiB a stage, four stages.
// WGMMA-LABEL: .entry staged(
// WGMMA-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// WGMMA-DAG: cp.async.commit_group;
// WGMMA-DAG: cp.async.wait_group 2;
// WGMMA-DAG: fence.proxy.async.shared::cta;
// WGMMA-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// 128x256x32: 24 KiB a stage, so not staged.
// WGMMA-LABEL: .entry wide(
// WGMMA-NOT: cp.async
// WGMMA: ld.global.v2.b32
// WGMMA-NOT: cp.async
// WGMMA: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// WGMMA-NOT: cp.async
// WGMMA: ret;

// On mma.sync the padded rows make 128x128x16 stages 10.25 KiB: three.
// MMA-LABEL: .entry staged(
// MMA-DAG: cp.async.cg.shared.global [{{.*}}], [{{.*}}], 16;
// MMA-DAG: cp.async.wait_group 1;
// MMA-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// MMA-LABEL: .entry wide(
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
