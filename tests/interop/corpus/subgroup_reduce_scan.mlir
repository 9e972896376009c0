// Subgroup reductions (gpu.subgroup_reduce add, maxsi and xor) and an
// inclusive prefix sum through shuffles up: lane 0 of each subgroup adds
// the subgroup's sum to total[0], folds its maximum into total[1] and its
// xor into total[2] (the same totals whatever the subgroup size); each
// invocation writes its prefix within its subgroup to prefix[i].
gpu.module @m {
  gpu.func @subgroup_reduce_scan(%total: memref<3xi32>, %prefix: memref<?xi32>, %in: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1 : i32
    %z = arith.constant 0 : i32
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %s = gpu.subgroup_reduce add %v : (i32) -> i32
    %m = gpu.subgroup_reduce maxsi %v : (i32) -> i32
    %x = gpu.subgroup_reduce xor %v : (i32) -> i32
    %size = gpu.subgroup_size : index
    %w = arith.index_cast %size : index to i32
    %scan:2 = scf.while (%acc = %v, %off = %one) : (i32, i32) -> (i32, i32) {
      %more = arith.cmpi ult, %off, %w : i32
      scf.condition(%more) %acc, %off : i32, i32
    } do {
    ^bb0(%acc: i32, %off: i32):
      %other, %valid = gpu.shuffle up %acc, %off, %w : i32
      %add = arith.select %valid, %other, %z : i32
      %next = arith.addi %acc, %add : i32
      %off2 = arith.shli %off, %one : i32
      scf.yield %next, %off2 : i32, i32
    }
    %lane = gpu.lane_id
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      %o0 = memref.atomic_rmw addi %s, %total[%c0] : (i32, memref<3xi32>) -> i32
      %o1 = memref.atomic_rmw maxs %m, %total[%c1] : (i32, memref<3xi32>) -> i32
      %o2 = memref.atomic_rmw xori %x, %total[%c2] : (i32, memref<3xi32>) -> i32
    }
    memref.store %scan#0, %prefix[%i] : memref<?xi32>
    gpu.return
  }
}
