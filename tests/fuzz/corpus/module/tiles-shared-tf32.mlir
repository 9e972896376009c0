// f32 tiles multiplied as tf32, one operand staged through a shared
// buffer, the sums converted to bf16 and stored.
xpu.kernel @k(%A: !xpu.buffer<f32, ro>, %C: !xpu.buffer<bf16>)
    attributes {workgroup_size = array<i64: 64, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %s = xpu.alloc : !xpu.buffer<256xf32, shared>
  %z = arith.constant 0.0 : f32
  %a = xpu.tile_load %A[%c0], %c16 : !xpu.buffer<f32, ro> -> !xpu.tile<16x16xf32>
  xpu.tile_store %a, %s[%c0], %c16 : !xpu.tile<16x16xf32>, !xpu.buffer<256xf32, shared>
  xpu.barrier
  %b = xpu.tile_load %s[%c0], %c16 : !xpu.buffer<256xf32, shared> -> !xpu.tile<16x16xf32>
  %c = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  %r = xpu.mac %c, %a, %b tf32 : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf32>, !xpu.tile<16x16xf32>
  %h = xpu.tile_convert %r : !xpu.tile<16x16xf32> -> !xpu.tile<16x16xbf16>
  xpu.tile_store %h, %C[%c0], %c16 : !xpu.tile<16x16xbf16>, !xpu.buffer<bf16>
  xpu.return
}
