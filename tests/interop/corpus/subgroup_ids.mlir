// Subgroup coordinates: every invocation adds 1 to the counter of its
// (subgroup id, lane) pair and counts the subgroups; the result does not
// depend on the wave width: every used pair is hit once per workgroup.
// check[0] counts invocations whose lane id < subgroup size and subgroup
// id < number of subgroups; check[1] counts invocations with lane id 0.
gpu.module @m {
  gpu.func @subgroup_ids(%check: memref<2xi32>, %hits: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1 : i32
    %sg = gpu.subgroup_id : index
    %lane = gpu.lane_id
    %size = gpu.subgroup_size : index
    %count = gpu.num_subgroups : index
    %a = arith.cmpi ult, %lane, %size : index
    %b = arith.cmpi ult, %sg, %count : index
    %ok = arith.andi %a, %b : i1
    scf.if %ok {
      %o = memref.atomic_rmw addi %one, %check[%c0] : (i32, memref<2xi32>) -> i32
    }
    %l0 = arith.cmpi eq, %lane, %c0 : index
    scf.if %l0 {
      %o = memref.atomic_rmw addi %one, %check[%c1] : (i32, memref<2xi32>) -> i32
    }
    %slot0 = arith.muli %sg, %size : index
    %slot = arith.addi %slot0, %lane : index
    %o2 = memref.atomic_rmw addi %one, %hits[%slot] : (i32, memref<?xi32>) -> i32
    gpu.return
  }
}
