// differential: mismatch on vulkan:0: 3 elements differ: o16[0] = -1, expected 0; o16[1] = -1, expected 0; o16[3] = -1, expected 1
// launch: grid 1, block 1
// in0 (i1) = [-1, 0, 0, -1, -1, -1, 0, 0]
// in1 (i16) = [128, 1, -22957, 16, -7248, 14450, -2, -21654, 4, -11817, 16, 32767]
// expected o16 = [0, 0, -1, 1]
xpu.kernel @k(%o16: !xpu.buffer<4xi16>, %in0: !xpu.buffer<2xi1, ro>, %in1: !xpu.buffer<3xi16, ro>)
    attributes {profile = "deterministic-v1", effects = ["DeviceCopyIn", "DeviceCopyOut"], workgroup_size = array<i64: 1, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %gid = xpu.global_id x
  %tid = xpu.thread_id x
  %t1 = arith.constant 2 : index
  %t2 = arith.muli %gid, %t1 : index
  %v0 = xpu.load %in0[%t2] : !xpu.buffer<2xi1, ro>
  %v41 = vector.broadcast %v0 : i1 to vector<4xi1>
  %v42 = arith.constant dense<[2642, -2061, 0, -1]> : vector<4xi16>
  %v46 = arith.extsi %v41 : vector<4xi1> to vector<4xi16>
  %v55 = arith.divsi %v46, %v42 : vector<4xi16>
  %t3 = arith.constant 4 : index
  %t4 = arith.muli %gid, %t3 : index
  xpu.store %v55, %o16[%t4] : !xpu.buffer<4xi16> -> vector<4xi16>
  xpu.return
}
