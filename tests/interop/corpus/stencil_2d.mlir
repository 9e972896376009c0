// Five-point stencil on the interior of a memref<?x?xi32>; the border is
// copied. One invocation per element, 2-D grid.
gpu.module @m {
  gpu.func @stencil_2d(%out: memref<?x?xi32>, %in: memref<?x?xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %four = arith.constant 4 : i32
    %H = memref.dim %in, %c0 : memref<?x?xi32>
    %W = memref.dim %in, %c1 : memref<?x?xi32>
    %x = gpu.global_id x
    %y = gpu.global_id y
    %xin = arith.cmpi ult, %x, %W : index
    %yin = arith.cmpi ult, %y, %H : index
    %ok = arith.andi %xin, %yin : i1
    scf.if %ok {
      %Wm = arith.subi %W, %c1 : index
      %Hm = arith.subi %H, %c1 : index
      %xl = arith.cmpi ugt, %x, %c0 : index
      %xh = arith.cmpi ult, %x, %Wm : index
      %yl = arith.cmpi ugt, %y, %c0 : index
      %yh = arith.cmpi ult, %y, %Hm : index
      %a = arith.andi %xl, %xh : i1
      %b = arith.andi %yl, %yh : i1
      %interior = arith.andi %a, %b : i1
      %c = memref.load %in[%y, %x] : memref<?x?xi32>
      %r = scf.if %interior -> (i32) {
        %xm = arith.subi %x, %c1 : index
        %xp = arith.addi %x, %c1 : index
        %ym = arith.subi %y, %c1 : index
        %yp = arith.addi %y, %c1 : index
        %n = memref.load %in[%ym, %x] : memref<?x?xi32>
        %s = memref.load %in[%yp, %x] : memref<?x?xi32>
        %w = memref.load %in[%y, %xm] : memref<?x?xi32>
        %e = memref.load %in[%y, %xp] : memref<?x?xi32>
        %c4 = arith.muli %c, %four : i32
        %t1 = arith.addi %n, %s : i32
        %t2 = arith.addi %w, %e : i32
        %t3 = arith.addi %t1, %t2 : i32
        %t4 = arith.subi %t3, %c4 : i32
        scf.yield %t4 : i32
      } else {
        scf.yield %c : i32
      }
      memref.store %r, %out[%y, %x] : memref<?x?xi32>
    }
    gpu.return
  }
}
