// The tiled kernels of bench/async: a 3-point stencil over tiles of 256
// (and a halo) staged in shared memory, once with xpu.async_copy (cp.async
// on NVIDIA sm_80+) and once with plain loads, stores and a barrier.
// out[i] = in[i-1] + in[i] + in[i+1], 0 outside [0, n).
xpu.kernel @stencil_async(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %n: i32)
    attributes {workgroup_size = array<i64: 256>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %c257 = arith.constant 257 : index
  %c258 = arith.constant 258 : index
  %zero = arith.constant 0.0 : f32
  %n_idx = arith.index_castui %n : i32 to index
  %tile = xpu.alloc : !xpu.buffer<258xf32, shared>
  %first = arith.muli %wg, %c256 : index
  %left = arith.cmpi eq, %first, %c0 : index
  %from = arith.subi %first, %c1 : index
  %src = arith.select %left, %c0, %from : index
  %dst = arith.select %left, %c1, %c0 : index
  %end = arith.addi %first, %c257 : index
  %last = arith.minui %end, %n_idx : index
  %count = arith.subi %last, %src : index
  xpu.store %zero, %tile[%t] : !xpu.buffer<258xf32, shared>
  %is_first = arith.cmpi eq, %t, %c0 : index
  scf.if %is_first {
    xpu.store %zero, %tile[%c256] : !xpu.buffer<258xf32, shared>
    xpu.store %zero, %tile[%c257] : !xpu.buffer<258xf32, shared>
  }
  xpu.barrier
  %tok = xpu.async_copy %in[%src] to %tile[%dst], %count : !xpu.buffer<f32, ro> to !xpu.buffer<258xf32, shared>
  %inside = arith.cmpi ult, %g, %n_idx : index
  xpu.async_wait %tok
  scf.if %inside {
    %i1 = arith.addi %t, %c1 : index
    %i2 = arith.addi %t, %c2 : index
    %a = xpu.load %tile[%t] : !xpu.buffer<258xf32, shared>
    %b = xpu.load %tile[%i1] : !xpu.buffer<258xf32, shared>
    %c = xpu.load %tile[%i2] : !xpu.buffer<258xf32, shared>
    %ab = arith.addf %a, %b : f32
    %abc = arith.addf %ab, %c : f32
    xpu.store %abc, %out[%g] : !xpu.buffer<f32>
  }
  xpu.return
}

xpu.kernel @stencil_plain(%out: !xpu.buffer<f32>, %in: !xpu.buffer<f32, ro>, %n: i32)
    attributes {workgroup_size = array<i64: 256>} {
  %t = xpu.thread_id x
  %g = xpu.global_id x
  %wg = xpu.workgroup_id x
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %c257 = arith.constant 257 : index
  %zero = arith.constant 0.0 : f32
  %n_idx = arith.index_castui %n : i32 to index
  %tile = xpu.alloc : !xpu.buffer<258xf32, shared>
  %first = arith.muli %wg, %c256 : index
  // Cell t + 1 holds in[first + t]; cells 0 and 257 the halo.
  %inside = arith.cmpi ult, %g, %n_idx : index
  %mine = scf.if %inside -> f32 {
    %x = xpu.load %in[%g] : !xpu.buffer<f32, ro>
    scf.yield %x : f32
  } else {
    scf.yield %zero : f32
  }
  %t1 = arith.addi %t, %c1 : index
  xpu.store %mine, %tile[%t1] : !xpu.buffer<258xf32, shared>
  %is_first = arith.cmpi eq, %t, %c0 : index
  scf.if %is_first {
    %has_left = arith.cmpi ugt, %first, %c0 : index
    %l = scf.if %has_left -> f32 {
      %li = arith.subi %first, %c1 : index
      %x = xpu.load %in[%li] : !xpu.buffer<f32, ro>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    xpu.store %l, %tile[%c0] : !xpu.buffer<258xf32, shared>
    %ri = arith.addi %first, %c256 : index
    %has_right = arith.cmpi ult, %ri, %n_idx : index
    %r = scf.if %has_right -> f32 {
      %x = xpu.load %in[%ri] : !xpu.buffer<f32, ro>
      scf.yield %x : f32
    } else {
      scf.yield %zero : f32
    }
    xpu.store %r, %tile[%c257] : !xpu.buffer<258xf32, shared>
  }
  xpu.barrier
  scf.if %inside {
    %i2 = arith.addi %t, %c2 : index
    %a = xpu.load %tile[%t] : !xpu.buffer<258xf32, shared>
    %b = xpu.load %tile[%t1] : !xpu.buffer<258xf32, shared>
    %c = xpu.load %tile[%i2] : !xpu.buffer<258xf32, shared>
    %ab = arith.addf %a, %b : f32
    %abc = arith.addf %ab, %c : f32
    xpu.store %abc, %out[%g] : !xpu.buffer<f32>
  }
  xpu.return
}
