// A butterfly sum inside each subgroup with gpu.shuffle xor (offsets 1, 2,
// 4, ... below the subgroup size; a partner that does not exist adds 0),
// then lane 0 of each subgroup adds its subgroup's sum to the total. The
// total is the sum of the inputs whatever the subgroup size.
gpu.module @m {
  gpu.func @shuffle_butterfly(%total: memref<1xi32>, %in: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %zero = arith.constant 0 : i32
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %size = gpu.subgroup_size : index
    %w = arith.index_cast %size : index to i32
    %sum:2 = scf.while (%acc = %v, %off = %one) : (i32, i32) -> (i32, i32) {
      %more = arith.cmpi ult, %off, %w : i32
      scf.condition(%more) %acc, %off : i32, i32
    } do {
    ^bb0(%acc: i32, %off: i32):
      %other, %valid = gpu.shuffle xor %acc, %off, %w : i32
      %add = arith.select %valid, %other, %zero : i32
      %next = arith.addi %acc, %add : i32
      %off2 = arith.shli %off, %one : i32
      scf.yield %next, %off2 : i32, i32
    }
    %lane = gpu.lane_id
    %first = arith.cmpi eq, %lane, %c0 : index
    scf.if %first {
      %o = memref.atomic_rmw addi %sum#0, %total[%c0] : (i32, memref<1xi32>) -> i32
    }
    gpu.return
  }
}
