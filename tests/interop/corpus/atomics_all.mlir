// Every plain memref.atomic_rmw kind on global memory: slot k of each
// output combines all inputs (sum, min/max signed and unsigned, and, or,
// xor; assign leaves some input's value).
gpu.module @m {
  gpu.func @atomics_all(%acc: memref<9xi32>, %f: memref<1xf32>, %in: memref<?xi32>, %fin: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %c8 = arith.constant 8 : index
    %i = gpu.global_id x
    %n = memref.dim %in, %c0 : memref<?xi32>
    %ok = arith.cmpi ult, %i, %n : index
    scf.if %ok {
      %v = memref.load %in[%i] : memref<?xi32>
      %a0 = memref.atomic_rmw addi %v, %acc[%c0] : (i32, memref<9xi32>) -> i32
      %a1 = memref.atomic_rmw mins %v, %acc[%c1] : (i32, memref<9xi32>) -> i32
      %a2 = memref.atomic_rmw maxs %v, %acc[%c2] : (i32, memref<9xi32>) -> i32
      %a3 = memref.atomic_rmw minu %v, %acc[%c3] : (i32, memref<9xi32>) -> i32
      %a4 = memref.atomic_rmw maxu %v, %acc[%c4] : (i32, memref<9xi32>) -> i32
      %a5 = memref.atomic_rmw andi %v, %acc[%c5] : (i32, memref<9xi32>) -> i32
      %a6 = memref.atomic_rmw ori %v, %acc[%c6] : (i32, memref<9xi32>) -> i32
      %a7 = memref.atomic_rmw xori %v, %acc[%c7] : (i32, memref<9xi32>) -> i32
      %a8 = memref.atomic_rmw assign %v, %acc[%c8] : (i32, memref<9xi32>) -> i32
      %x = memref.load %fin[%i] : memref<?xf32>
      %a9 = memref.atomic_rmw addf %x, %f[%c0] : (f32, memref<1xf32>) -> f32
    }
    gpu.return
  }
}
