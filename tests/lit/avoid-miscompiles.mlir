// RUN: xpu-opt %s -split-input-file -xpu-avoid-miscompiles=target=llvm | FileCheck %s --check-prefix=LLVM
// RUN: xpu-opt %s -split-input-file -xpu-avoid-miscompiles=target=spirv | FileCheck %s --check-prefix=SPIRV
// Shapes LLVM 22 and lavapipe miscompile become shapes they get right
// (reproducers: tests/differential/repros/).

// LLVM-LABEL: xpu.kernel @trunc_to_bool
// LLVM-NOT: arith.trunci
// LLVM: %[[L:.*]] = arith.andi %{{.*}}, %{{.*}} : vector<3xi64>
// LLVM: arith.cmpi ne, %[[L]], %{{.*}} : vector<3xi64>
// SPIRV-LABEL: xpu.kernel @trunc_to_bool
// SPIRV: arith.trunci
xpu.kernel @trunc_to_bool(%o: !xpu.buffer<3xi1>, %v: vector<3xi64>) {
  %b = arith.trunci %v : vector<3xi64> to vector<3xi1>
  %c0 = arith.constant 0 : index
  xpu.store %b, %o[%c0] : !xpu.buffer<3xi1> -> vector<3xi1>
  xpu.return
}

// -----

// LLVM-LABEL: xpu.kernel @mul_reduction
// LLVM-NOT: vector.reduction <mul>
// LLVM: vector.extract %{{.*}}[0]
// LLVM: vector.extract %{{.*}}[1]
// LLVM: arith.muli
// LLVM: vector.extract %{{.*}}[2]
// LLVM: arith.muli
// LLVM: vector.reduction <add>
xpu.kernel @mul_reduction(%o: !xpu.buffer<2xi32>, %v: vector<3xi32>) {
  %p = vector.reduction <mul>, %v : vector<3xi32> into i32
  %s = vector.reduction <add>, %v : vector<3xi32> into i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  xpu.store %p, %o[%c0] : !xpu.buffer<2xi32>
  xpu.store %s, %o[%c1] : !xpu.buffer<2xi32>
  xpu.return
}

// -----

// LLVM-LABEL: xpu.kernel @extended_products
// LLVM-NOT: mulsi_extended
// LLVM-NOT: mului_extended
// LLVM-NOT: i128
// LLVM: arith.extsi %{{.*}} : vector<2xi16> to vector<2xi64>
// LLVM: arith.muli %{{.*}} : vector<2xi64>
// LLVM: arith.constant 4294967295 : i64
// LLVM: xpu.return
xpu.kernel @extended_products(%o: !xpu.buffer<2xi64>, %v: vector<2xi16>, %a: i64) {
  %lo, %hi = arith.mulsi_extended %v, %v : vector<2xi16>
  %lo2, %hi2 = arith.mului_extended %a, %a : i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  xpu.store %hi2, %o[%c0] : !xpu.buffer<2xi64>
  xpu.store %lo2, %o[%c1] : !xpu.buffer<2xi64>
  xpu.return
}

// -----

// SPIRV-LABEL: xpu.kernel @sign_extend
// SPIRV-NOT: arith.extsi %{{.*}} : i32 to i64
// SPIRV: %[[U:.*]] = arith.extui %{{.*}} : i32 to i64
// SPIRV: %[[C:.*]] = arith.constant 32 : i64
// SPIRV: %[[S:.*]] = arith.shli %[[U]], %[[C]] : i64
// SPIRV: arith.shrsi %[[S]], %[[C]] : i64
// SPIRV: arith.extsi %{{.*}} : i1 to i64
// LLVM-LABEL: xpu.kernel @sign_extend
// LLVM: arith.extsi %{{.*}} : i32 to i64
xpu.kernel @sign_extend(%o: !xpu.buffer<2xi64>, %a: i32, %b: i1) {
  %x = arith.extsi %a : i32 to i64
  %y = arith.extsi %b : i1 to i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  xpu.store %x, %o[%c0] : !xpu.buffer<2xi64>
  xpu.store %y, %o[%c1] : !xpu.buffer<2xi64>
  xpu.return
}

// -----

// SPIRV-LABEL: xpu.kernel @while_vector
// SPIRV: scf.while (%[[C:.*]] = %{{.*}}, %[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}, %[[M:.*]] = %{{.*}}) : (i32, i32, i32, i32) -> (i32, i32, i32)
// SPIRV: %[[B:.*]] = arith.cmpi ne, %[[C]], %{{.*}} : i32
// SPIRV-NEXT: scf.condition(%[[B]]) %[[X]], %[[Y]], %[[M]] : i32, i32, i32
// SPIRV: vector.from_elements
// SPIRV-NOT: vector<2xi32>, i32
// LLVM-LABEL: xpu.kernel @while_vector
// LLVM: scf.while {{.*}} : (vector<2xi32>, i32) -> (vector<2xi32>, i32)
xpu.kernel @while_vector(%o: !xpu.buffer<2xi32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %six = arith.constant dense<6> : vector<2xi32>
  %z = arith.constant dense<0> : vector<2xi32>
  %r:2 = scf.while (%a = %z, %m = %n) : (vector<2xi32>, i32) -> (vector<2xi32>, i32) {
    %h = arith.addi %a, %six : vector<2xi32>
    %c = arith.cmpi sgt, %m, %zero : i32
    scf.condition(%c) %h, %m : vector<2xi32>, i32
  } do {
  ^bb0(%b: vector<2xi32>, %k: i32):
    %k2 = arith.subi %k, %one : i32
    scf.yield %b, %k2 : vector<2xi32>, i32
  }
  %c0 = arith.constant 0 : index
  xpu.store %r#0, %o[%c0] : !xpu.buffer<2xi32> -> vector<2xi32>
  xpu.return
}

// -----

// A header that computes the value it passes on is peeled (lavapipe:
// tests/differential/repros/vk-while-zext-header.mlir): the loop's own header
// only forwards, the body runs the header after itself.
// SPIRV-LABEL: xpu.kernel @while_computing_header
// SPIRV: %[[T:.*]] = arith.trunci %{{.*}} : i32 to i16
// SPIRV: %[[E:.*]] = arith.extui %{{.*}} : i16 to i32
// SPIRV: %[[C:.*]] = arith.cmpi sgt
// SPIRV: %[[W:.*]] = arith.extui %[[C]] : i1 to i32
// SPIRV: scf.while (%[[A:.*]] = %[[W]], %[[B:.*]] = %[[E]], %{{.*}} = %{{.*}}) : (i32, i32, i32) -> (i32, i32)
// SPIRV: %[[N:.*]] = arith.cmpi ne, %[[A]], %{{.*}} : i32
// SPIRV-NEXT: scf.condition(%[[N]]) %[[B]], %{{.*}} : i32, i32
// SPIRV: arith.subi
// SPIRV: arith.trunci
// SPIRV: arith.extui
// SPIRV: scf.yield
// LLVM-LABEL: xpu.kernel @while_computing_header
// LLVM: scf.while {{.*}} : (i32, i32) -> (i32, i32)
// LLVM-NEXT: arith.trunci
xpu.kernel @while_computing_header(%o: !xpu.buffer<2xi16>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %six = arith.constant 6 : i16
  %r:2 = scf.while (%a = %zero, %m = %n) : (i32, i32) -> (i32, i32) {
    %t = arith.trunci %a : i32 to i16
    %s = arith.addi %t, %six : i16
    %h = arith.extui %s : i16 to i32
    %c = arith.cmpi sgt, %m, %zero : i32
    scf.condition(%c) %h, %m : i32, i32
  } do {
  ^bb0(%b: i32, %k: i32):
    %k2 = arith.subi %k, %one : i32
    scf.yield %b, %k2 : i32, i32
  }
  %r16 = arith.trunci %r#0 : i32 to i16
  %c0 = arith.constant 0 : index
  xpu.store %r16, %o[%c0] : !xpu.buffer<2xi16>
  xpu.return
}

// -----

// A header that only computes its condition stays as it is.
// SPIRV-LABEL: xpu.kernel @while_forwarding_header
// SPIRV: scf.while (%{{.*}} = %{{.*}}) : (i32) -> i32 {
// SPIRV-NEXT: arith.cmpi
xpu.kernel @while_forwarding_header(%o: !xpu.buffer<1xi32>, %n: i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %r = scf.while (%m = %n) : (i32) -> i32 {
    %c = arith.cmpi sgt, %m, %zero : i32
    scf.condition(%c) %m : i32
  } do {
  ^bb0(%k: i32):
    %k2 = arith.subi %k, %one : i32
    scf.yield %k2 : i32
  }
  %c0 = arith.constant 0 : index
  xpu.store %r, %o[%c0] : !xpu.buffer<1xi32>
  xpu.return
}

// -----

// Loops carry booleans as i32 on SPIR-V (NVIDIA's Vulkan driver 580 crashed
// on an i1 loop value: tests/differential/open/nv-vk-loop-carried-i1.mlir).
// SPIRV-LABEL: xpu.kernel @for_bool
// SPIRV: %[[W:.*]] = arith.extui %{{.*}} : i1 to i32
// SPIRV: %[[R:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[W]]) -> (i32)
// SPIRV: arith.cmpi ne, %[[A]], %{{.*}} : i32
// SPIRV: %[[Y:.*]] = arith.extui %{{.*}} : i1 to i32
// SPIRV-NEXT: scf.yield %[[Y]] : i32
// SPIRV: %[[B:.*]] = arith.cmpi ne, %[[R]], %{{.*}} : i32
// SPIRV: xpu.store %[[B]]
// LLVM-LABEL: xpu.kernel @for_bool
// LLVM: scf.for {{.*}} -> (i1)
xpu.kernel @for_bool(%o: !xpu.buffer<1xi1>, %b: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %b) -> (i1) {
    %x = arith.xori %a, %b : i1
    scf.yield %x : i1
  }
  xpu.store %r, %o[%c0] : !xpu.buffer<1xi1>
  xpu.return
}

// -----

// Element-wise ops on integer vectors lane by lane on SPIR-V (NVIDIA's
// Vulkan driver 580: tests/differential/open/README.md); float-only ones
// stay vectors, and a scalar select condition is used as it is.
// SPIRV-LABEL: xpu.kernel @vector_division
// SPIRV-NOT: arith.divsi {{.*}} : vector
// SPIRV: vector.extract %{{.*}}[0] : i16 from vector<2xi16>
// SPIRV: arith.divsi %{{.*}}, %{{.*}} : i16
// SPIRV: arith.divsi %{{.*}}, %{{.*}} : i16
// SPIRV-NOT: vector.from_elements
// SPIRV: arith.cmpi ne, %{{.*}}, %{{.*}} : i16
// SPIRV: arith.cmpi ne, %{{.*}}, %{{.*}} : i16
// SPIRV: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i16
// SPIRV: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i16
// SPIRV: arith.select %arg5, %{{.*}}, %{{.*}} : i16
// SPIRV: vector.from_elements %{{.*}}, %{{.*}} : vector<2xi16>
// SPIRV: arith.addf %{{.*}}, %{{.*}} : vector<2xf32>
// LLVM-LABEL: xpu.kernel @vector_division
// LLVM: arith.divsi %{{.*}}, %{{.*}} : vector<2xi16>
xpu.kernel @vector_division(%o: !xpu.buffer<2xi16>, %f: !xpu.buffer<2xf32>, %a: vector<2xi16>, %b: vector<2xi16>, %x: vector<2xf32>, %p: i1) {
  %q = arith.divsi %a, %b : vector<2xi16>
  %ne = arith.cmpi ne, %q, %b : vector<2xi16>
  %s = arith.select %ne, %q, %a : vector<2xi1>, vector<2xi16>
  %t = arith.select %p, %s, %b : vector<2xi16>
  %y = arith.addf %x, %x : vector<2xf32>
  %c0 = arith.constant 0 : index
  xpu.store %t, %o[%c0] : !xpu.buffer<2xi16> -> vector<2xi16>
  xpu.store %y, %f[%c0] : !xpu.buffer<2xf32> -> vector<2xf32>
  xpu.return
}

// -----

// A widening index_cast sign-extends by shifts (lavapipe:
// tests/differential/repros/vk-index-cast-sext-rem.mlir); one of i1 selects.
// SPIRV-LABEL: xpu.kernel @index_cast_widening
// SPIRV: %[[U:.*]] = arith.index_castui %{{.*}} : index to i64
// SPIRV: %[[L:.*]] = arith.shli %[[U]], %[[S:.*]] : i64
// SPIRV: arith.shrsi %[[L]], %[[S]] : i64
// SPIRV: arith.select %{{.*}}, %{{.*}}, %{{.*}} : index
// SPIRV-NOT: arith.index_cast %
// LLVM-LABEL: xpu.kernel @index_cast_widening
// LLVM: arith.index_cast %{{.*}} : index to i64
xpu.kernel @index_cast_widening(%o: !xpu.buffer<2xi64>, %n: index, %b: i1) {
  %w = arith.index_cast %n : index to i64
  %bi = arith.index_cast %b : i1 to index
  %bw = arith.index_castui %bi : index to i64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  xpu.store %w, %o[%c0] : !xpu.buffer<2xi64>
  xpu.store %bw, %o[%c1] : !xpu.buffer<2xi64>
  xpu.return
}

// -----

// 64-bit division by a non-constant divisor in xpujit's own code on SPIR-V
// (NVIDIA's Vulkan driver 580: tests/differential/open/README.md): 32 bits
// when both operands fit, else restoring division; by a constant, and in
// 32 bits, the driver's; a / b and a % b share one division.
// SPIRV-LABEL: xpu.kernel @wide_division
// SPIRV: scf.if %{{.*}} -> (i64, i64)
// SPIRV: arith.divui %{{.*}}, %{{.*}} : i32
// SPIRV: arith.remui %{{.*}}, %{{.*}} : i32
// SPIRV: } else {
// SPIRV: scf.for {{.*}} -> (i64, i64)
// SPIRV-NOT: scf.if
// SPIRV-NOT: arith.divsi %{{.*}}, %arg
// SPIRV: arith.divsi %{{.*}}, %c7_i64 : i64
// SPIRV: arith.divsi %{{.*}}, %{{.*}} : i32
// LLVM-LABEL: xpu.kernel @wide_division
// LLVM: arith.divui %{{.*}}, %{{.*}} : i64
xpu.kernel @wide_division(%o: !xpu.buffer<3xi64>, %p: !xpu.buffer<1xi32>, %a: i64, %b: i64, %x: i32, %y: i32) {
  %q = arith.divui %a, %b : i64
  %m = arith.remui %a, %b : i64
  %c7 = arith.constant 7 : i64
  %s = arith.divsi %a, %c7 : i64
  %t = arith.divsi %x, %y : i32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  xpu.store %q, %o[%c0] : !xpu.buffer<3xi64>
  xpu.store %s, %o[%c1] : !xpu.buffer<3xi64>
  %c2 = arith.constant 2 : index
  xpu.store %m, %o[%c2] : !xpu.buffer<3xi64>
  xpu.store %t, %p[%c0] : !xpu.buffer<1xi32>
  xpu.return
}
