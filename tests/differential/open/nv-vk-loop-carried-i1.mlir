// differential: crash on vulkan:0 (the process died by a signal)
// launch: grid 1, block 1
// in0 (i64) = [2, 63, 7, -6, -2, 5, 256, 288230376151711744, 9223372036854775807, -1989712216939845096, -2, 63, -6, 64, -9223372036854775807, -1623889161584946090, 1, 1048576, -9086814492492333697, -8, 5, 0, 3, 0, -6862886565118865783, -9, 65]
// in1 (i1) = [-1, -1, -1, -1, 0, 0, -1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0]
// in2 (i8) = [1, 7, 1, 18, -1, -54, -127, 2, 6]
// p = 0
// expected o1 = [-1]
xpu.kernel @k(%o1: !xpu.buffer<1xi1>, %in0: !xpu.buffer<3xi64, ro>, %in1: !xpu.buffer<2xi1, ro>, %in2: !xpu.buffer<1xi8, ro>, %p: i8)
    attributes {workgroup_size = array<i64: 1, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %gid = xpu.global_id x
  %tid = xpu.thread_id x
  %t1 = arith.constant 3 : index
  %t2 = arith.muli %gid, %t1 : index
  %v0 = xpu.load %in0[%t2] : !xpu.buffer<3xi64, ro>
  %t3 = arith.constant 3 : index
  %t4 = arith.muli %gid, %t3 : index
  %t5 = arith.constant 2 : index
  %t6 = arith.addi %t4, %t5 : index
  %v2 = xpu.load %in0[%t6] : !xpu.buffer<3xi64, ro>
  %t7 = arith.constant 2 : index
  %t8 = arith.muli %gid, %t7 : index
  %t9 = arith.constant 1 : index
  %t10 = arith.addi %t8, %t9 : index
  %v4 = xpu.load %in1[%t10] : !xpu.buffer<2xi1, ro>
  %v14 = arith.trunci %v2 : i64 to i1
  %t11 = arith.constant 0 : index
  %t12 = arith.constant 1 : index
  %t13 = arith.constant 7 : i64
  %t14 = arith.andi %v0, %t13 : i64
  %t15 = arith.index_castui %t14 : i64 to index
  %v32 = scf.for %t16 = %t11 to %t15 step %t12 iter_args(%v25 = %v4) -> (i1) {
    %v24 = arith.index_castui %t16 : index to i32
    scf.yield %v14 : i1
  }
  %t17 = arith.constant 1 : index
  %t18 = arith.muli %gid, %t17 : index
  xpu.store %v32, %o1[%t18] : !xpu.buffer<1xi1>
  xpu.return
}
