// Each workgroup adds 1 to its 8x8 block of a memref<?x?xi32>, reached
// through a rank-preserving memref.subview and a rank-reducing one (a row).
gpu.module @m {
  gpu.func @subview_block(%m: memref<?x?xi32>, %rowsum: memref<?xi32>) kernel
      attributes {known_block_size = array<i32: 8, 8, 1>} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %r0 = arith.muli %by, %c8 : index
    %q0 = arith.muli %bx, %c8 : index
    %blk = memref.subview %m[%r0, %q0] [8, 8] [1, 1]
        : memref<?x?xi32> to memref<8x8xi32, strided<[?, 1], offset: ?>>
    %v = memref.load %blk[%ty, %tx] : memref<8x8xi32, strided<[?, 1], offset: ?>>
    %w = arith.addi %v, %one : i32
    memref.store %w, %blk[%ty, %tx] : memref<8x8xi32, strided<[?, 1], offset: ?>>
    gpu.barrier
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      %row = memref.subview %blk[%ty, 0] [1, 8] [1, 1]
          : memref<8x8xi32, strided<[?, 1], offset: ?>> to memref<8xi32, strided<[1], offset: ?>>
      %s = scf.for %j = %c0 to %c8 step %c1 iter_args(%a = %zero) -> (i32) {
        %e = memref.load %row[%j] : memref<8xi32, strided<[1], offset: ?>>
        %t = arith.addi %a, %e : i32
        scf.yield %t : i32
      }
      %gr = arith.addi %r0, %ty : index
      %o = memref.atomic_rmw addi %s, %rowsum[%gr] : (i32, memref<?xi32>) -> i32
    }
    gpu.return
  }
}
