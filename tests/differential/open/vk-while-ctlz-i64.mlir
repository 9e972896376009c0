// Open defect (2026-12-01): lavapipe (Mesa 22.3.6, llvmpipe LLVM 15) returns
// o16[2] = 58 where every other backend and the reference give 62; found by
// differential.py --seed 3019154 (seeds 3010000..3019999 run of the 20,000).
// Not yet worked around: kept out of repros/ (which CI requires to pass).
// differential: mismatch on vulkan:0: 1 elements differ: o16[2] = 58, expected 62
// launch: grid 1, block 4
// in0 (i64) = [3967386889478922945, 0, 9032902891277077677, -2, 65, 2251799813685248, 8432138213469987837, 2, -7140207019996775268, 0, -8, -2224021750355828520, 8, 1458487236427643512, 9223372036854775807, 8955463261338295228, 2178606543864520925, 5, 3372458080227842347, 0, -9223372036854775807, -1, 9, -1]
// in1 (i16) = [9, 1115, 15, -1, 16, 0, 10176, -30537, 256, 16, 921, -31778, -2, 18342, 12129, -14790, 1, -5, -18315, 15, 32767, 5, 13963, 16]
// acc before = [64, -5, 1, 2, 72057594037927936, 9, 65, -3]
// expected o16 = [58, 58, 62, 58]
// expected acc = [64, -5, 1, 2, 72057594037927936, 9, 65, -3]
xpu.kernel @k(%o16: !xpu.buffer<4xi16>, %in0: !xpu.buffer<8xi64, ro>, %in1: !xpu.buffer<8xi16, ro>, %acc: !xpu.buffer<8xi64>)
    attributes {profile = "deterministic-v1", effects = ["DeviceCopyIn", "DeviceCopyOut"], workgroup_size = array<i64: 4, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %gid = xpu.global_id x
  %tid = xpu.thread_id x
  %t1 = arith.constant 2 : index
  %t2 = arith.muli %gid, %t1 : index
  %t3 = arith.constant 1 : index
  %t4 = arith.addi %t2, %t3 : index
  %v3 = xpu.load %in1[%t4] : !xpu.buffer<8xi16, ro>
  %v4 = arith.index_castui %tid : index to i64
  %t5 = arith.constant 7 : i16
  %t6 = arith.andi %v3, %t5 : i16
  %t7 = arith.extui %t6 : i16 to i32
  %v10, %v10_m = scf.while (%v5 = %v4, %t8 = %t7) : (i64, i32) -> (i64, i32) {
    %t10 = arith.constant 0 : i32
    %t11 = arith.cmpi sgt, %t8, %t10 : i32
    %v6 = math.ctlz %v5 : i64
    scf.condition(%t11) %v6, %t8 : i64, i32
  } do {
  ^bb0(%v7: i64, %t9: i32):
    %t12 = arith.constant 1 : i32
    %t13 = arith.subi %t9, %t12 : i32
    scf.yield %v7, %t13 : i64, i32
  }
  %v13 = arith.trunci %v10 : i64 to i16
  %t14 = arith.constant 1 : index
  %t15 = arith.muli %gid, %t14 : index
  xpu.store %v13, %o16[%t15] : !xpu.buffer<4xi16>
