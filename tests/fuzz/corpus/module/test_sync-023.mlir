
    xpu.kernel @rotate(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>) {
      %t = xpu.thread_id x
      %n = xpu.workgroup_size x
      %g = xpu.global_id x
      %s = xpu.alloc : !xpu.buffer<1024xi32, shared>
      %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
      xpu.store %v, %s[%t] : !xpu.buffer<1024xi32, shared>
      xpu.barrier
      %c1 = arith.constant 1 : index
      %next = arith.addi %t, %c1 : index
      %wrap = arith.remui %next, %n : index
      %w = xpu.load %s[%wrap] : !xpu.buffer<1024xi32, shared>
      xpu.store %w, %out[%g] : !xpu.buffer<i32>
      xpu.return
    }