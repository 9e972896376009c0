
    gpu.module @m {
      gpu.func @expsqrt(%out: memref<?xf32>, %in: memref<?xf32>) kernel {
        %i = gpu.global_id x
        %v = memref.load %in[%i] : memref<?xf32>
        %a = math.absf %v : f32
        %s = math.sqrt %a : f32
        memref.store %s, %out[%i] : memref<?xf32>
        gpu.return
      }
    }