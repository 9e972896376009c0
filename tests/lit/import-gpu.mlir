// RUN: xpu-opt %s -split-input-file -xpu-import-gpu | FileCheck %s
// Upstream gpu.module kernels over memrefs become xpu kernels: memrefs are
// buffers plus their layout as index arithmetic.

// Attributions are allocations in their space; a static 2-D memref is a
// buffer of its element count, indexed row-major; a dynamic memref's size
// is a parameter the launch fills (xpu.role); index parameters are i64.
// CHECK-NOT: gpu.module
// CHECK-LABEL: xpu.func @twice
// CHECK-LABEL: xpu.kernel @k
// CHECK-SAME: (%[[A:.*]]: !xpu.buffer<f32> {xpu.memref = memref<?xf32>}, %[[AN:.*]]: i64 {xpu.role = "size0"},
// CHECK-SAME: %[[M:.*]]: !xpu.buffer<12xi32> {xpu.memref = memref<3x4xi32>}, %[[N:.*]]: i64)
// CHECK: %[[LEN:.*]] = arith.index_cast %[[AN]] : i64 to index
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i64 to index
// CHECK: %[[SH:.*]] = xpu.alloc : !xpu.buffer<64xf32, shared>
// CHECK: %[[T:.*]] = xpu.thread_id x
// CHECK: %[[V:.*]] = xpu.load %[[A]][%[[T]]] : !xpu.buffer<f32>
// CHECK: xpu.store %[[V]], %[[SH]][%[[T]]]
// CHECK: xpu.barrier
// CHECK: %[[R:.*]] = arith.muli %[[T]], %c4 : index
// CHECK: %[[L:.*]] = arith.addi %[[R]], %c1 : index
// CHECK: xpu.load %[[M]][%[[L]]] : !xpu.buffer<12xi32>
// CHECK: xpu.call @twice
// CHECK: arith.addi %[[LEN]], %[[NI]] : index
// CHECK: xpu.return
gpu.module @m {
  func.func @twice(%x: f32) -> f32 {
    %r = arith.addf %x, %x : f32
    return %r : f32
  }
  gpu.func @k(%a: memref<?xf32>, %m: memref<3x4xi32>, %n: index)
      workgroup(%sh: memref<64xf32, #gpu.address_space<workgroup>>) kernel {
    %t = gpu.thread_id x
    %v = memref.load %a[%t] : memref<?xf32>
    memref.store %v, %sh[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c1 = arith.constant 1 : index
    %e = memref.load %m[%t, %c1] : memref<3x4xi32>
    %ef = arith.sitofp %e : i32 to f32
    %d = func.call @twice(%ef) : (f32) -> f32
    %c0 = arith.constant 0 : index
    %len = memref.dim %a, %c0 : memref<?xf32>
    %s = arith.addi %len, %n : index
    memref.store %d, %a[%s] : memref<?xf32>
    gpu.return
  }
}

// -----

// memref.alloca in the workgroup space is shared memory, in the default
// space private memory (the repro of issue 21, t21).
// CHECK-LABEL: xpu.kernel @alloca
// CHECK-SAME: workgroup_size = array<i64: 16, 16, 1>
// CHECK-DAG: xpu.alloc : !xpu.buffer<272xf32, shared>
// CHECK-DAG: xpu.alloc : !xpu.buffer<4xi32, private>
gpu.module @m {
  gpu.func @alloca(%out: memref<?xf32>) kernel attributes {known_block_size = array<i32: 16, 16, 1>} {
    %tile = memref.alloca() : memref<272xf32, #gpu.address_space<workgroup>>
    %mine = memref.alloca() : memref<4xi32>
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %z = arith.constant 0 : i32
    memref.store %z, %mine[%c0] : memref<4xi32>
    %v = memref.load %tile[%t] : memref<272xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%t] : memref<?xf32>
    gpu.return
  }
}

// -----

// A strided parameter receives its offset and strides; a subview adds its
// offsets times the strides and multiplies the strides.
// CHECK-LABEL: xpu.kernel @strided
// CHECK-SAME: %[[B:.*]]: !xpu.buffer<i32> {xpu.memref = memref<?x?xi32, strided<[?, ?], offset: ?>>},
// CHECK-SAME: %[[OFF:.*]]: i64 {xpu.role = "offset"}, %{{.*}}: i64 {xpu.role = "size0"},
// CHECK-SAME: %{{.*}}: i64 {xpu.role = "size1"}, %[[S0:.*]]: i64 {xpu.role = "stride0"},
// CHECK-SAME: %[[S1:.*]]: i64 {xpu.role = "stride1"}
// CHECK-DAG: %[[O:.*]] = arith.index_cast %[[OFF]]
// CHECK-DAG: %[[T0:.*]] = arith.index_cast %[[S0]]
// CHECK-DAG: %[[T1:.*]] = arith.index_cast %[[S1]]
// CHECK: %[[R:.*]] = arith.muli %[[T0]], %c2 : index
// CHECK: %[[O2:.*]] = arith.addi %[[O]], %[[R]] : index
// CHECK: %[[C:.*]] = arith.muli %[[T1]], %c3 : index
// CHECK: %[[O3:.*]] = arith.addi %[[O2]], %[[C]] : index
// CHECK: xpu.load %[[B]][%[[O3]]]
gpu.module @m {
  gpu.func @strided(%b: memref<?x?xi32, strided<[?, ?], offset: ?>>, %out: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %s = memref.subview %b[2, 3] [4, 4] [1, 1]
        : memref<?x?xi32, strided<[?, ?], offset: ?>> to memref<4x4xi32, strided<[?, ?], offset: ?>>
    %v = memref.load %s[%c0, %c0] : memref<4x4xi32, strided<[?, ?], offset: ?>>
    memref.store %v, %out[%c0] : memref<1xi32>
    gpu.return
  }
}

// -----

// Collectives map onto xpu ops; dynamic shared memory is xpu.dynamic_shared
// of the size the launch passes; vector.load of 4 contiguous lanes is one
// vector xpu.load.
// CHECK-LABEL: xpu.kernel @collect
// CHECK-SAME: %[[BYTES:[a-z_]+]]: i64 {xpu.role = "dynamic_shared_bytes"}
// CHECK: %[[NB:.*]] = arith.index_cast %[[BYTES]] : i64 to index
// CHECK: xpu.dynamic_shared %[[NB]] : !xpu.buffer<f32, shared>
// CHECK: xpu.reduce add %{{.*}} tree : i32
// CHECK: xpu.atomic_rmw smax %{{.*}} acq_rel device : !xpu.buffer<2xi32>
// CHECK: xpu.wave_id
// CHECK: xpu.wave_count
// CHECK: xpu.load %{{.*}} : !xpu.buffer<f32> -> vector<4xf32>
gpu.module @m {
  gpu.func @collect(%a: memref<2xi32>, %f: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %tile = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<32xf32, #gpu.address_space<workgroup>>
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %s = gpu.all_reduce add %ti {} : (i32) -> (i32)
    %o = memref.atomic_rmw maxs %s, %a[%c0] : (i32, memref<2xi32>) -> i32
    %w = gpu.subgroup_id : index
    %n = gpu.num_subgroups : index
    %v = vector.load %f[%t] : memref<?xf32>, vector<4xf32>
    %x = vector.extract %v[0] : f32 from vector<4xf32>
    memref.store %x, %tile[%w] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %x, %tile[%n] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

// Host code beside the gpu.module is not compiled (a warning says so); the
// kernels are.
// CHECK-LABEL: xpu.kernel @device
// CHECK-NOT: func.func
module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @device(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @host() {
    return
  }
}
