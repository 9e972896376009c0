// differential: mismatch on vulkan:0: 2 elements differ: o1[0] = 0, expected -1; o1[1] = -1, expected 0
// launch: grid 1, block 1
// in0 (i16) = [15, 16, -9, 16, 2, 15, 2, 0]
// in1 (i64) = [9, 2, 33554432, 9223372036854775807, -2, -7053006063593620406, 64, 128, 5, 64, 9223372036854775807, 16384, 3, 5, -7658894304766578983, 9223372036854775807, -5477037792222965079, 3, 1, 32, 512, 0, -5, -8818960968122793363, -6603040145201718514, 6, 281524617263070299, 9186740773993909479, -7484246321331052803, 4, -2, -1]
// p = -1
// expected o1 = [-1, 0]
// expected o16 = [-1]
xpu.kernel @k(%o1: !xpu.buffer<2xi1>, %o16: !xpu.buffer<1xi16>, %in0: !xpu.buffer<1xi16, ro>, %in1: !xpu.buffer<4xi64, ro>, %p: i1)
    attributes {workgroup_size = array<i64: 1, 1, 1>, grid_size = array<i64: 1, 1, 1>} {
  %gid = xpu.global_id x
  %tid = xpu.thread_id x
  %t1 = arith.constant 4 : index
  %t2 = arith.muli %gid, %t1 : index
  %v1 = xpu.load %in1[%t2] : !xpu.buffer<4xi64, ro> -> vector<2xi64>
  %t3 = arith.constant 4 : index
  %t4 = arith.muli %gid, %t3 : index
  %t5 = arith.constant 1 : index
  %t6 = arith.addi %t4, %t5 : index
  %v2 = xpu.load %in1[%t6] : !xpu.buffer<4xi64, ro> -> vector<2xi64>
  %v11 = arith.ceildivui %v2, %v1 : vector<2xi64>
  %v12 = arith.trunci %v11 : vector<2xi64> to vector<2xi1>
  %v33 = arith.extsi %p : i1 to i16
  %t7 = arith.constant 2 : index
  %t8 = arith.muli %gid, %t7 : index
  xpu.store %v12, %o1[%t8] : !xpu.buffer<2xi1> -> vector<2xi1>
  %t9 = arith.constant 1 : index
  %t10 = arith.muli %gid, %t9 : index
  xpu.store %v33, %o16[%t10] : !xpu.buffer<1xi16>
  xpu.return
}
