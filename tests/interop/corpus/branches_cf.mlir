// A kernel whose body was lowered to cf branches before outlining (as
// --convert-scf-to-cf leaves it): a counted loop and a conditional.
// out[i] = sum over k < in[i] % 16 of (k odd ? k : 2k).
gpu.module @m {
  gpu.func @branches_cf(%out: memref<?xi32>, %in: memref<?xi32>) kernel {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c15 = arith.constant 15 : i32
    %i = gpu.global_id x
    %v = memref.load %in[%i] : memref<?xi32>
    %n = arith.andi %v, %c15 : i32
    cf.br ^head(%c0, %c0 : i32, i32)
  ^head(%k: i32, %acc: i32):
    %more = arith.cmpi slt, %k, %n : i32
    cf.cond_br %more, ^body, ^exit
  ^body:
    %odd = arith.andi %k, %c1 : i32
    %isodd = arith.cmpi ne, %odd, %c0 : i32
    cf.cond_br %isodd, ^add1(%k : i32), ^add2
  ^add2:
    %d = arith.muli %k, %c2 : i32
    cf.br ^add1(%d : i32)
  ^add1(%t: i32):
    %acc2 = arith.addi %acc, %t : i32
    %k2 = arith.addi %k, %c1 : i32
    cf.br ^head(%k2, %acc2 : i32, i32)
  ^exit:
    memref.store %acc, %out[%i] : memref<?xi32>
    gpu.return
  }
}
