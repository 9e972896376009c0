
    xpu.kernel @ints(%out: !xpu.buffer<i32>, %a: !xpu.buffer<i32, ro>,
                     %b: !xpu.buffer<i32, ro>, %n: i32) {
      %i = xpu.global_id x
      %n_idx = arith.index_castui %n : i32 to index
      %in = arith.cmpi ult, %i, %n_idx : index
      scf.if %in {
        %av = xpu.load %a[%i] : !xpu.buffer<i32, ro>
        %bv = xpu.load %b[%i] : !xpu.buffer<i32, ro>
        %c31 = arith.constant 31 : i32
        %one = arith.constant 1 : i32
        %sh = arith.andi %bv, %c31 : i32
        %mul = arith.muli %av, %bv : i32
        %x = arith.xori %av, %bv : i32
        %r0 = arith.addi %mul, %x : i32
        %r1 = arith.shrsi %av, %sh : i32
        %r2 = arith.shrui %av, %sh : i32
        %bo = arith.ori %bv, %one : i32
        %r3 = arith.divsi %av, %bo : i32
        %r4 = arith.remsi %av, %bo : i32
        %r5 = arith.maxui %av, %bv : i32
        %r6 = arith.shli %av, %sh : i32
        %c7 = arith.constant 7 : index
        %base = arith.muli %i, %c7 : index
        %k1 = arith.constant 1 : index
        %k2 = arith.constant 2 : index
        %k3 = arith.constant 3 : index
        %k4 = arith.constant 4 : index
        %k5 = arith.constant 5 : index
        %k6 = arith.constant 6 : index
        %p1 = arith.addi %base, %k1 : index
        %p2 = arith.addi %base, %k2 : index
        %p3 = arith.addi %base, %k3 : index
        %p4 = arith.addi %base, %k4 : index
        %p5 = arith.addi %base, %k5 : index
        %p6 = arith.addi %base, %k6 : index
        xpu.store %r0, %out[%base] : !xpu.buffer<i32>
        xpu.store %r1, %out[%p1] : !xpu.buffer<i32>
        xpu.store %r2, %out[%p2] : !xpu.buffer<i32>
        xpu.store %r3, %out[%p3] : !xpu.buffer<i32>
        xpu.store %r4, %out[%p4] : !xpu.buffer<i32>
        xpu.store %r5, %out[%p5] : !xpu.buffer<i32>
        xpu.store %r6, %out[%p6] : !xpu.buffer<i32>
      }
      xpu.return
    }