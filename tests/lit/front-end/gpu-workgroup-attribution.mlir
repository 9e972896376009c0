// RUN: xpujit check %s 2>&1 | count 0
// RUN: xpujit run %s --kernel k --grid 1 --block 64 --device cpu --arg 'buf:f32[64]' --arg 'buf:f32[64]=iota' | FileCheck %s --check-prefix=OUT
// Regression, from shared/repros/interop/t4_workgroup_attribution.mlir: a
// gpu.func's workgroup attribution is an entry-block argument after the
// parameters, and naming the parameters walked past them (LLVM ERROR,
// abort). The tile is shared: each invocation reads its neighbour's store.
// OUT: out: f32[64] {{.*}}[1, 2, 3, 4, 5, 6, 7, 8,
gpu.module @m {
  gpu.func @k(%out: memref<?xf32>, %in: memref<?xf32>)
      workgroup(%tile: memref<64xf32, #gpu.address_space<workgroup>>)
      private(%p: memref<1xf32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %t = gpu.thread_id x
    %v = memref.load %in[%t] : memref<?xf32>
    memref.store %v, %tile[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %n1 = arith.addi %t, %c1 : index
    %n = arith.remui %n1, %c64 : index
    %w = memref.load %tile[%n] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %p[%c0] : memref<1xf32, #gpu.address_space<private>>
    %x = memref.load %p[%c0] : memref<1xf32, #gpu.address_space<private>>
    memref.store %x, %out[%t] : memref<?xf32>
    gpu.return
  }
}
