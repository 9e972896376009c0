
    xpu.kernel @sums(%fout: !xpu.buffer<f32>, %iout: !xpu.buffer<i32>,
                     %mout: !xpu.buffer<i32>, %f: !xpu.buffer<f32, ro>,
                     %i: !xpu.buffer<i32, ro>) {
      %g = xpu.global_id x
      %wg = xpu.workgroup_id x
      %fv = xpu.load %f[%g] : !xpu.buffer<f32, ro>
      %iv = xpu.load %i[%g] : !xpu.buffer<i32, ro>
      %fs = xpu.reduce add %fv sequential : f32
      %is = xpu.reduce add %iv tree : i32
      %mx = xpu.reduce smax %iv sequential : i32
      %t = xpu.thread_id x
      %c0 = arith.constant 0 : index
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        xpu.store %fs, %fout[%wg] : !xpu.buffer<f32>
        xpu.store %is, %iout[%wg] : !xpu.buffer<i32>
        xpu.store %mx, %mout[%wg] : !xpu.buffer<i32>
      }
      xpu.return
    }