// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// RUN: not xpujit run %s --kernel k --grid 1 --block 1 --device cpu 2>&1 | FileCheck %s
// array<index> through a chain of type aliases: the same MLIR 22 parser
// crash as fuzz-dense-array-index.mlir, refused at the element type.
// CHECK: array-index-alias.mlir:8:39: error: XPU-PARSE: a dense array's elements must be integers or floats, not 'index'
!t = index
!u = !t
xpu.kernel @k() attributes {a = array<!u: 1, 2>} {
  xpu.return
}
