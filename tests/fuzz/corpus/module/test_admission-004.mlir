
xpu.kernel @copy(%out: !xpu.buffer<i8>, %in: !xpu.buffer<i8, ro>)
    attributes {profile = "deterministic-v1"} {
  %g = xpu.global_id x
  %n = xpu.buffer_size %in : !xpu.buffer<i8, ro>
  %m = xpu.buffer_size %out : !xpu.buffer<i8>
  %a = arith.cmpi ult, %g, %n : index
  %b = arith.cmpi ult, %g, %m : index
  %ok = arith.andi %a, %b : i1
  scf.if %ok {
    %v = xpu.load %in[%g] : !xpu.buffer<i8, ro>
    xpu.store %v, %out[%g] : !xpu.buffer<i8>
  }
  xpu.return
}