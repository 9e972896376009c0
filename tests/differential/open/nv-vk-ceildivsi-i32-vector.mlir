// differential: mismatch on vulkan:0: 1 elements differ: o32[1] = 32, expected -32
// launch: grid 1, block 1
// in0 (i32) = [1446573565, 33, 1073741824, 32, -1, -1791777992, 5, -2147483647]
// expected o32 = [32, -32, 32]
xpu.kernel @k(%o32: !xpu.buffer<3xi32>, %in0: !xpu.buffer<4xi32, ro>)
    attributes {profile = "deterministic-v1", effects = ["DeviceCopyIn", "DeviceCopyOut"], workgroup_size = array<i64: 1, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %gid = xpu.global_id x
  %tid = xpu.thread_id x
  %t1 = arith.constant 4 : index
  %t2 = arith.muli %gid, %t1 : index
  %t3 = arith.constant 3 : index
  %t4 = arith.addi %t2, %t3 : index
  %v3 = xpu.load %in0[%t4] : !xpu.buffer<4xi32, ro>
  %v4 = vector.broadcast %v3 : i32 to vector<3xi32>
  %v8 = arith.constant dense<[0, -6, 63]> : vector<3xi64>
  %v9 = arith.shrsi %v8, %v8 : vector<3xi64>
  %v42 = arith.trunci %v9 : vector<3xi64> to vector<3xi32>
  %v43 = arith.ceildivsi %v4, %v42 : vector<3xi32>
  %t5 = arith.constant 3 : index
  %t6 = arith.muli %gid, %t5 : index
  xpu.store %v43, %o32[%t6] : !xpu.buffer<3xi32> -> vector<3xi32>
  xpu.return
}
