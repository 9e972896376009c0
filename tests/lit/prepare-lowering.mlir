// RUN: xpu-opt %s -xpu-prepare-lowering | FileCheck %s
// Checked accesses become a bounds test whose failing branch reports the
// site through the status word (the new trailing parameter) and suppresses
// the access.

// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: %[[STATUS:[a-z0-9]+]]: !llvm.ptr {xpu.status})
xpu.kernel @k(%a: !xpu.buffer<f32>, %i: index) attributes {fastmath} {
  // CHECK: %[[N:.*]] = xpu.buffer_size %{{.*}} : !xpu.buffer<f32>
  // CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %[[N]] : index
  // CHECK: %[[V:.*]] = scf.if %[[OK]] -> (f32) {
  // CHECK:   xpu.load
  // CHECK: } else {
  // CHECK:   xpu.report_out_of_bounds %[[STATUS]] site 3 : !llvm.ptr
  // CHECK:   arith.constant 0.000000e+00 : f32
  %v = xpu.load %a[%i] {checked, xpu.site = 3 : i64} : !xpu.buffer<f32>
  // Vector accesses check that all their elements fit, without computing
  // an end that could wrap: index < size and size - index >= 4.
  // CHECK: %[[N4:.*]] = xpu.buffer_size
  // CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[I:.*]], %[[N4]] : index
  // CHECK: %[[ROOM:.*]] = arith.subi %[[N4]], %[[I]] : index
  // CHECK: %[[FITS:.*]] = arith.cmpi uge, %[[ROOM]], %c4 : index
  // CHECK: %[[BOTH:.*]] = arith.andi %[[FIRST]], %[[FITS]] : i1
  // CHECK: scf.if %[[BOTH]]
  // CHECK: xpu.store {{.*}} -> vector<4xf32>
  %v4 = vector.broadcast %v : f32 to vector<4xf32>
  xpu.store %v4, %a[%i] {checked} : !xpu.buffer<f32> -> vector<4xf32>
  // Fast-math kernels may contract.
  // CHECK: arith.mulf %{{.*}} fastmath<contract> : f32
  %m = arith.mulf %v, %v : f32
  xpu.return
}

// For SPIR-V the status word is a buffer, bound like the kernel's others.
// RUN: xpu-opt %s -xpu-prepare-lowering=status-type=buffer | FileCheck %s --check-prefix=BUF
// BUF-LABEL: xpu.kernel @k
// BUF-SAME: %[[STATUS:[a-z0-9]+]]: !xpu.buffer<2xi32> {xpu.status})
// BUF: xpu.report_out_of_bounds %[[STATUS]] site 3 : !xpu.buffer<2xi32>
