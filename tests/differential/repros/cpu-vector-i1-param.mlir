// Found by the differential tester: a vector<3xi1> scalar parameter read
// bit-packed on the CPU (lanes 1 and 2 came out false; NVPTX declared the
// parameter one byte long). o[3i+j] must be p[j].
xpu.kernel @k(%o: !xpu.buffer<i32>, %p: vector<3xi1>) {
  %i = xpu.global_id x
  %e = arith.extui %p : vector<3xi1> to vector<3xi32>
  %c3 = arith.constant 3 : index
  %at = arith.muli %i, %c3 : index
  xpu.store %e, %o[%at] : !xpu.buffer<i32> -> vector<3xi32>
  xpu.return
}
