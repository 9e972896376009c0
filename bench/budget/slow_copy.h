// The slow kernel of the compute-unit budget benchmark and of the
// scheduler's conformance tests: `slow_copy` writes out[i] = in[i] + 1, but
// only after a loop of `iters` dependent multiply-adds, reading `in` after
// the loop too (the index depends on the loop's result through `zero`,
// which is 0 at run time): the loop cannot be folded away, the result stays
// checkable on the host, and its accesses come late.
#pragma once

namespace bench {

inline const char *kSlowCopy = R"(
xpu.kernel @slow_copy(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>, %iters: i32,
                      %zero: i32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in_range = arith.cmpi ult, %i, %n_idx : index
  scf.if %in_range {
    %c1 = arith.constant 1 : i32
    %i0 = arith.constant 0 : index
    %i1 = arith.constant 1 : index
    %iters_idx = arith.index_castui %iters : i32 to index
    %mul = arith.constant 1664525 : i32
    %add = arith.constant 1013904223 : i32
    %seed = arith.index_castui %i : index to i32
    %acc = scf.for %j = %i0 to %iters_idx step %i1 iter_args(%x = %seed) -> (i32) {
      %m = arith.muli %x, %mul : i32
      %a = arith.addi %m, %add : i32
      scf.yield %a : i32
    }
    %k = arith.andi %acc, %zero : i32
    %k_idx = arith.index_castui %k : i32 to index
    %at = arith.addi %i, %k_idx : index
    %v = xpu.load %in[%at] : !xpu.buffer<i32, ro>
    %r0 = arith.addi %v, %c1 : i32
    %r = arith.addi %r0, %k : i32
    xpu.store %r, %out[%at] : !xpu.buffer<i32>
  }
  xpu.return
}
)";

} // namespace bench
