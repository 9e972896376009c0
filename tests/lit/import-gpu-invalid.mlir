// RUN: xpu-opt %s -split-input-file -xpu-import-gpu -verify-diagnostics
// What the gpu dialect import refuses: an XPU-UNSUPPORTED diagnostic at the
// construct, naming it and what to write instead (never a parse error, and
// never another memory space or a silent rewrite). The first case checks
// the code; the others check the message after it (lit reads the code
// followed by a colon as its own directive).

gpu.module @m {
  gpu.func @k(%a: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error-re @+1 {{XPU-UNSUPPORTED{{[:]}} 'memref.alloc' allocates global memory inside a kernel (a device heap); allocate in #gpu.address_space<workgroup> or <private>}}
    %m = memref.alloc() : memref<4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xf32>, %n: index) kernel {
    // expected-error @+1 {{an allocation of memref<?xf32, #gpu.address_space<workgroup>> has a dynamic shape; allocate static shapes, or use gpu.dynamic_shared_memory}}
    %m = memref.alloca(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{parameter 'arg0' of type memref<4xf32, #gpu.address_space<workgroup>> is a kernel parameter outside global memory}}
  gpu.func @k(%a: memref<4xf32, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  // expected-error @+1 {{parameter 'arg0' of type memref<?xvector<4xf32>> has elements of type vector<4xf32>}}
  gpu.func @k(%a: memref<?xvector<4xf32>>) kernel {
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'scf.for' takes or yields a memref}}
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %a) -> (memref<?xf32>) {
      scf.yield %m : memref<?xf32>
    }
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xf32>) kernel {
    %c0 = arith.constant 0 : index
    %v = arith.constant 1.0 : f32
    // expected-error @+1 {{'memref.atomic_rmw' of kind 'mulf' needs a compare-exchange loop}}
    %o = memref.atomic_rmw mulf %v, %a[%c0] : (f32, memref<?xf32>) -> f32
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'gpu.printf' is not imported; write values to a buffer argument}}
    gpu.printf "%d\n", %c0 : index
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?x4xf32>) kernel {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'vector.load' moves a vector of rank 2}}
    %v = vector.load %a[%c0, %c0] : memref<?x4xf32>, vector<2x4xf32>
    gpu.return
  }
}

// -----

gpu.module @m {
  gpu.func @k(%a: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %raw = memref.alloca() : memref<32xi8, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'memref.view' overlaps another view of the same memory with another element type}}
    %x = memref.view %raw[%c0][] : memref<32xi8, #gpu.address_space<workgroup>> to memref<4xi32, #gpu.address_space<workgroup>>
    %y = memref.view %raw[%c8][] : memref<32xi8, #gpu.address_space<workgroup>> to memref<2xf64, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// -----

func.func @host(%a: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'gpu.launch' is a kernel that was not outlined; outline it into a gpu.module (mlir-opt --gpu-kernel-outlining)}}
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    gpu.terminator
  }
  return
}

// -----

gpu.module @m {
  // expected-error @+1 {{'func.func' declares 'ext' without a body; define device functions inside the gpu.module}}
  func.func private @ext(f32) -> f32
}
