// RUN: xpujit check %s 2>&1 | count 0
// At the bound: a grid of 65535 workgroups, with every access guarded by
// a check against its buffer's size (so no launch shape bounds the index).
xpu.kernel @guarded(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
    attributes {profile = "deterministic-v1",
                workgroup_size = array<i64: 256, 1, 1>, grid_size = array<i64: 65535, 1, 1>} {
  %g = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<i32, ro>
  %m = xpu.buffer_size %out : !xpu.buffer<i32>
  %in_ok = arith.cmpi ult, %g, %n : index
  %out_ok = arith.cmpi ult, %g, %m : index
  %ok = arith.andi %in_ok, %out_ok : i1
  scf.if %ok {
    %x = xpu.load %in[%g] : !xpu.buffer<i32, ro>
    xpu.store %x, %out[%g] : !xpu.buffer<i32>
  }
  // A loop bounded by the buffer's size proves its index too.
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = arith.cmpi eq, %g, %c0 : index
  scf.if %first {
    scf.for %i = %c0 to %m step %c1 {
      %z = arith.constant 0 : i32
      xpu.store %z, %out[%i] : !xpu.buffer<i32>
    }
  }
  xpu.return
}
