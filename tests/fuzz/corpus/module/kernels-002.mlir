
    xpu.kernel @block_sum(%out: !xpu.buffer<i32>, %in: !xpu.buffer<i32, ro>)
        attributes {workgroup_size = array<i64: 256, 1, 1>} {
      %t = xpu.thread_id x
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %s = xpu.alloc : !xpu.buffer<256xi32, shared>
      %v = xpu.load %in[%g] : !xpu.buffer<i32, ro>
      xpu.store %v, %s[%t] : !xpu.buffer<256xi32, shared>
      xpu.barrier
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c128 = arith.constant 128 : index
      scf.for %k = %c0 to %c8 step %c1 {
        %stride = arith.shrui %c128, %k : index
        %active = arith.cmpi ult, %t, %stride : index
        scf.if %active {
          %o = arith.addi %t, %stride : index
          %a = xpu.load %s[%t] : !xpu.buffer<256xi32, shared>
          %b = xpu.load %s[%o] : !xpu.buffer<256xi32, shared>
          %sum = arith.addi %a, %b : i32
          xpu.store %sum, %s[%t] : !xpu.buffer<256xi32, shared>
        }
        xpu.barrier
      }
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %r = xpu.load %s[%c0] : !xpu.buffer<256xi32, shared>
        xpu.store %r, %out[%wg] : !xpu.buffer<i32>
      }
      xpu.return
    }