// RUN: not xpujit check %s 2>&1 | FileCheck %s --implicit-check-not=error:
// The baseline, except that it declares that the output may overlap the input.
// CHECK: gc011-may-alias.mlir:4:22: error: XPU-GC011: kernel 'baseline': buffer parameter 'out' may alias 'in', and no disjointness proof is available
xpu.kernel @baseline(%out: !xpu.buffer<1024xi32> {xpu.may_alias = "in"}, %in: !xpu.buffer<1024xi32, ro>,
                     %hist: !xpu.buffer<16xi32>, %scale: i32, %v: vector<4xi16>)
    attributes {profile = "deterministic-v1",
                effects = ["DeviceCopyIn", "DeviceDispatch", "DeviceCopyOut"],
                device = "cpu",
                workgroup_size = array<i64: 256, 1, 1>, grid_size = array<i64: 4, 1, 1>} {
  // The launch shape bounds %g to [0, 1023]: proven for 1024-element buffers.
  %g = xpu.global_id x
  %x = xpu.load %in[%g] : !xpu.buffer<1024xi32, ro>
  %y = arith.muli %x, %scale : i32
  %sum = xpu.reduce add %y sequential : i32
  xpu.barrier
  // [0, 15] by range analysis of the mask.
  %c15 = arith.constant 15 : i32
  %bucket = arith.andi %x, %c15 : i32
  %bi = arith.index_castui %bucket : i32 to index
  %one = arith.constant 1 : i32
  %old = xpu.atomic_rmw add %one, %hist[%bi] seq_cst device : !xpu.buffer<16xi32>
  %r = arith.addi %y, %sum : i32
  xpu.store %r, %out[%g] : !xpu.buffer<1024xi32>
  xpu.return
}
