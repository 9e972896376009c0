// Ops the upstream gpu dialect import (issue 21) needs and the kernel
// surface lacked: memory sized at launch and the ids of waves. Included from
// XPUOps.td.
#ifndef XPU_INTEROP_OPS_TD
#define XPU_INTEROP_OPS_TD

def XPU_DynamicSharedOp : XPU_Op<"dynamic_shared", [Pure]> {
  let summary = "workgroup-shared memory whose size the launch gives";
  let description = [{
    The workgroup's dynamic shared memory (`gpu.dynamic_shared_memory`), as a
    shared buffer of the result's element type. `bytes` is its size, which
    the host passes with the launch (`xpu_launch_options.dynamic_shared_bytes`)
    and the kernel receives as the parameter marked
    `xpu.role = "dynamic_shared_bytes"`. Every `xpu.dynamic_shared` of a
    kernel starts at the same address, after the static shared allocations.
    Contents start undefined.

    ```mlir
    %n = arith.index_cast %bytes_param : i64 to index
    %tile = xpu.dynamic_shared %n : !xpu.buffer<f32, shared>
    ```

    CUDA and AMD declare an external zero-length workgroup array and pass
    the size at launch; the CPU appends the region to the workgroup's shared
    block (`xpu-lower-execution-model` sets `base`, where it starts);
    Vulkan, which sizes workgroup memory when the shader is compiled,
    declares the largest array the device allows after the static ones.
  }];
  let arguments = (ins Index:$bytes, Optional<AnyType>:$base);
  let results = (outs XPU_AnyBuffer:$result);
  let assemblyFormat = [{
    $bytes (`at` $base^ `:` type($base))? attr-dict `:` qualified(type($result))
  }];
  let builders = [OpBuilder<(ins "::mlir::Type":$type, "::mlir::Value":$bytes), [{
    build($_builder, $_state, type, bytes, ::mlir::Value());
  }]>];
  let hasVerifier = 1;
}

class XPU_WaveQueryOp<string mnemonic, string what> : XPU_Op<mnemonic, [
    Pure, DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = what;
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let builders = [OpBuilder<(ins), [{
    build($_builder, $_state, $_builder.getIndexType());
  }]>];
}

def XPU_WaveIdOp : XPU_WaveQueryOp<"wave_id",
    "the index of the invocation's wave inside its workgroup"> {
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    `gpu.subgroup_id`. On CUDA and AMD waves are formed from consecutive
    linear invocation indices, so this is `linear id / wave width`; on the
    CPU (waves of one) it is the linear id; on Vulkan, where the driver
    decides which invocations share a subgroup, it is the `SubgroupId`
    builtin, consistent with `xpu.lane_id`.
    ```mlir
    %wave = xpu.wave_id
    ```
  }];
#else
  let description = [{
    `gpu.subgroup_id`. On CUDA and AMD waves are formed from consecutive
    linear invocation indices, so this is `linear id / wave width`; on the
    CPU (waves of one) it is the linear id; on Vulkan, where the driver
    decides which invocations share a subgroup, it is the `SubgroupId`
    builtin, consistent with `xpu.lane_id`.
  }];
#endif
}

def XPU_WaveCountOp : XPU_WaveQueryOp<"wave_count",
    "the number of waves in the invocation's workgroup"> {
#ifdef XPU_DOC_EXAMPLES
  let description = [{
    `gpu.num_subgroups`: `ceil(invocations / wave width)` on CUDA, AMD and
    the CPU; the `NumSubgroups` builtin on Vulkan.
    ```mlir
    %waves = xpu.wave_count
    ```
  }];
#else
  let description = [{
    `gpu.num_subgroups`: `ceil(invocations / wave width)` on CUDA, AMD and
    the CPU; the `NumSubgroups` builtin on Vulkan.
  }];
#endif
}

#endif // XPU_INTEROP_OPS_TD
