// Each invocation sorts its 8 elements in a private attribution (an
// insertion sort), then writes them back.
gpu.module @m {
  gpu.func @private_sort(%data: memref<?x8xi32>)
      private(%local: memref<8xi32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %rows = memref.dim %data, %c0 : memref<?x8xi32>
    %r = gpu.global_id x
    %ok = arith.cmpi ult, %r, %rows : index
    scf.if %ok {
      scf.for %k = %c0 to %c8 step %c1 {
        %v = memref.load %data[%r, %k] : memref<?x8xi32>
        memref.store %v, %local[%k] : memref<8xi32, #gpu.address_space<private>>
      }
      scf.for %k = %c1 to %c8 step %c1 {
        %key = memref.load %local[%k] : memref<8xi32, #gpu.address_space<private>>
        %end = scf.while (%j = %k) : (index) -> index {
          %pos = arith.cmpi ugt, %j, %c0 : index
          %go = scf.if %pos -> (i1) {
            %jm = arith.subi %j, %c1 : index
            %p = memref.load %local[%jm] : memref<8xi32, #gpu.address_space<private>>
            %gt = arith.cmpi sgt, %p, %key : i32
            scf.yield %gt : i1
          } else {
            %f = arith.constant false
            scf.yield %f : i1
          }
          scf.condition(%go) %j : index
        } do {
        ^bb0(%j: index):
          %jm = arith.subi %j, %c1 : index
          %p = memref.load %local[%jm] : memref<8xi32, #gpu.address_space<private>>
          memref.store %p, %local[%j] : memref<8xi32, #gpu.address_space<private>>
          scf.yield %jm : index
        }
        memref.store %key, %local[%end] : memref<8xi32, #gpu.address_space<private>>
      }
      scf.for %k = %c0 to %c8 step %c1 {
        %v = memref.load %local[%k] : memref<8xi32, #gpu.address_space<private>>
        memref.store %v, %data[%r, %k] : memref<?x8xi32>
      }
    }
    gpu.return
  }
}
