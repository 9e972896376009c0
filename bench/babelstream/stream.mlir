// BabelStream's five kernels in xpu IR, on f64. Every access is guarded by
// its buffer's size, so admission proves them in bounds and no run-time
// check is generated.
xpu.kernel @copy(%c: !xpu.buffer<f64>, %a: !xpu.buffer<f64, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %c : !xpu.buffer<f64>
  %ok = arith.cmpi ult, %i, %n : index
  %m = xpu.buffer_size %a : !xpu.buffer<f64, ro>
  %ok2 = arith.cmpi ult, %i, %m : index
  %both = arith.andi %ok, %ok2 : i1
  scf.if %both {
    %v = xpu.load %a[%i] : !xpu.buffer<f64, ro>
    xpu.store %v, %c[%i] : !xpu.buffer<f64>
  }
  xpu.return
}

xpu.kernel @mul(%b: !xpu.buffer<f64>, %c: !xpu.buffer<f64, ro>, %scalar: f64) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %b : !xpu.buffer<f64>
  %ok = arith.cmpi ult, %i, %n : index
  %m = xpu.buffer_size %c : !xpu.buffer<f64, ro>
  %ok2 = arith.cmpi ult, %i, %m : index
  %both = arith.andi %ok, %ok2 : i1
  scf.if %both {
    %v = xpu.load %c[%i] : !xpu.buffer<f64, ro>
    %r = arith.mulf %scalar, %v : f64
    xpu.store %r, %b[%i] : !xpu.buffer<f64>
  }
  xpu.return
}

xpu.kernel @add(%c: !xpu.buffer<f64>, %a: !xpu.buffer<f64, ro>, %b: !xpu.buffer<f64, ro>) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %c : !xpu.buffer<f64>
  %na = xpu.buffer_size %a : !xpu.buffer<f64, ro>
  %nb = xpu.buffer_size %b : !xpu.buffer<f64, ro>
  %o1 = arith.cmpi ult, %i, %n : index
  %o2 = arith.cmpi ult, %i, %na : index
  %o3 = arith.cmpi ult, %i, %nb : index
  %o12 = arith.andi %o1, %o2 : i1
  %ok = arith.andi %o12, %o3 : i1
  scf.if %ok {
    %x = xpu.load %a[%i] : !xpu.buffer<f64, ro>
    %y = xpu.load %b[%i] : !xpu.buffer<f64, ro>
    %r = arith.addf %x, %y : f64
    xpu.store %r, %c[%i] : !xpu.buffer<f64>
  }
  xpu.return
}

xpu.kernel @triad(%a: !xpu.buffer<f64>, %b: !xpu.buffer<f64, ro>, %c: !xpu.buffer<f64, ro>,
                  %scalar: f64) {
  %i = xpu.global_id x
  %n = xpu.buffer_size %a : !xpu.buffer<f64>
  %nb = xpu.buffer_size %b : !xpu.buffer<f64, ro>
  %nc = xpu.buffer_size %c : !xpu.buffer<f64, ro>
  %o1 = arith.cmpi ult, %i, %n : index
  %o2 = arith.cmpi ult, %i, %nb : index
  %o3 = arith.cmpi ult, %i, %nc : index
  %o12 = arith.andi %o1, %o2 : i1
  %ok = arith.andi %o12, %o3 : i1
  scf.if %ok {
    %x = xpu.load %b[%i] : !xpu.buffer<f64, ro>
    %y = xpu.load %c[%i] : !xpu.buffer<f64, ro>
    %s = arith.mulf %scalar, %y : f64
    %r = arith.addf %x, %s : f64
    xpu.store %r, %a[%i] : !xpu.buffer<f64>
  }
  xpu.return
}

// Each workgroup strides over the arrays, then combines its 1024 partial sums;
// the host adds the workgroups' sums.
xpu.kernel @dot(%sums: !xpu.buffer<f64>, %a: !xpu.buffer<f64, ro>, %b: !xpu.buffer<f64, ro>)
    attributes {workgroup_size = array<i64: 1024, 1, 1>} {
  %g = xpu.global_id x
  %stride = xpu.global_size x
  %n = xpu.buffer_size %a : !xpu.buffer<f64, ro>
  %nb = xpu.buffer_size %b : !xpu.buffer<f64, ro>
  %len = arith.minui %n, %nb : index
  %zero = arith.constant 0.0 : f64
  %acc = scf.for %i = %g to %len step %stride iter_args(%s = %zero) -> (f64) {
    %x = xpu.load %a[%i] : !xpu.buffer<f64, ro>
    %y = xpu.load %b[%i] : !xpu.buffer<f64, ro>
    %p = arith.mulf %x, %y : f64
    %t = arith.addf %s, %p : f64
    scf.yield %t : f64
  }
  %sum = xpu.reduce add %acc tree : f64
  %t = xpu.thread_id x
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %t, %c0 : index
  %wg = xpu.workgroup_id x
  %ns = xpu.buffer_size %sums : !xpu.buffer<f64>
  %inb = arith.cmpi ult, %wg, %ns : index
  %w = arith.andi %first, %inb : i1
  scf.if %w {
    xpu.store %sum, %sums[%wg] : !xpu.buffer<f64>
  }
  xpu.return
}
