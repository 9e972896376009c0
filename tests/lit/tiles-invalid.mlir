// RUN: xpu-opt %s -split-input-file -verify-diagnostics
// The verifier's refusals of tiles and their ops (issue 15).

// expected-error @+1 {{tile elements are i8, i32, f16, bf16, f32 or f64}}
xpu.kernel @k(%v: !xpu.buffer<f32>, %t: !xpu.tile<4x4xi16>) {
  xpu.return
}

// -----

// expected-error @+1 {{has a tile parameter}}
xpu.kernel @k(%t: !xpu.tile<4x4xf32>) {
  xpu.return
}

// -----

// expected-error @+1 {{returns a tile}}
xpu.func @f() -> !xpu.tile<4x4xf32> {
  %z = arith.constant 0.0 : f32
  %t = xpu.tile_fill %z : !xpu.tile<4x4xf32>
  xpu.return %t : !xpu.tile<4x4xf32>
}

// -----

xpu.func @g() {
  %z = arith.constant 0.0 : f32
  // expected-error @+1 {{may only appear in an xpu.kernel body}}
  %t = xpu.tile_fill %z : !xpu.tile<4x4xf32>
  xpu.return
}

// -----

xpu.kernel @k() {
  %z = arith.constant 0.0 : f32
  %a = xpu.tile_fill %z : !xpu.tile<16x8xf32>
  %b = xpu.tile_fill %z : !xpu.tile<4x16xf32>
  %c = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  // expected-error @+1 {{shapes do not compose}}
  %r = xpu.mac %c, %a, %b : !xpu.tile<16x16xf32>, !xpu.tile<16x8xf32>, !xpu.tile<4x16xf32>
  xpu.return
}

// -----

xpu.kernel @k(%A: !xpu.buffer<f16, ro>) {
  %z = arith.constant 0.0 : f16
  %o = arith.constant 0 : index
  %a = xpu.tile_load %A[%o], %o : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %c = xpu.tile_fill %z : !xpu.tile<16x16xf16>
  // expected-error @+1 {{cannot accumulate 'f16' products in 'f16'}}
  %r = xpu.mac %c, %a, %a : !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.return
}

// -----

xpu.kernel @k(%A: !xpu.buffer<f16, ro>) {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %a = xpu.tile_load %A[%o], %o : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf16>
  %c = xpu.tile_fill %z : !xpu.tile<16x16xf32>
  // expected-error @+1 {{tf32 applies to f32 operands only}}
  %r = xpu.mac %c, %a, %a tf32 : !xpu.tile<16x16xf32>, !xpu.tile<16x16xf16>, !xpu.tile<16x16xf16>
  xpu.return
}

// -----

xpu.kernel @k(%A: !xpu.buffer<f32, ro>) {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %t = xpu.tile_fill %z : !xpu.tile<8x8xf32>
  // expected-error @+1 {{stores to a read-only buffer}}
  xpu.tile_store %t, %A[%o], %o : !xpu.tile<8x8xf32>, !xpu.buffer<f32, ro>
  xpu.return
}

// -----

xpu.kernel @k(%A: !xpu.buffer<f32>) {
  %z = arith.constant 0.0 : f32
  %o = arith.constant 0 : index
  %s = arith.constant 4 : index
  %t = xpu.tile_fill %z : !xpu.tile<8x8xf32>
  // expected-error @+1 {{stride 4 is below the tile's width 8}}
  xpu.tile_store %t, %A[%o], %s : !xpu.tile<8x8xf32>, !xpu.buffer<f32>
  xpu.return
}

// -----

xpu.kernel @k(%A: !xpu.buffer<f16, ro>) {
  %o = arith.constant 0 : index
  // expected-error @+1 {{moves a tile of 'f32' through a buffer of 'f16'}}
  %a = xpu.tile_load %A[%o], %o : !xpu.buffer<f16, ro> -> !xpu.tile<16x16xf32>
  xpu.return
}

// -----

xpu.kernel @k() {
  %s = xpu.alloc : !xpu.buffer<16xf32, private>
  %o = arith.constant 0 : index
  // expected-error @+1 {{not private ones}}
  %a = xpu.tile_load %s[%o], %o : !xpu.buffer<16xf32, private> -> !xpu.tile<4x4xf32>
  xpu.return
}

// -----

xpu.kernel @k() {
  %z = arith.constant 0.0 : f32
  %f = xpu.tile_fill %z : !xpu.tile<8x8xf32>
  // expected-error @+1 {{converts 'f32' to 'i32'}}
  %u = xpu.tile_convert %f : !xpu.tile<8x8xf32> -> !xpu.tile<8x8xi32>
  xpu.return
}

// -----

// The cooperative-matrix tier's ops (lowering only): f16 operands, f32 sums.
xpu.kernel @k(%a: !xpu.buffer<f32, ro>) {
  %o = arith.constant 0 : index
  %s = xpu.coop_sums_alloc : !xpu.coop_sums<1, 1>
  // expected-error @+1 {{takes f16 operands}}
  xpu.coop_sums_mac %s, %a[%o], %a[%o] {k = 16 : i64, lda = 16 : i64, ldb = 16 : i64} : !xpu.coop_sums<1, 1>, !xpu.buffer<f32, ro>, !xpu.buffer<f32, ro>
  xpu.return
}

// -----

xpu.kernel @k(%a: !xpu.buffer<f16, ro>) {
  %o = arith.constant 0 : index
  %s = xpu.coop_sums_alloc : !xpu.coop_sums<1, 1>
  // expected-error @+1 {{needs a K made of 16-deep steps}}
  xpu.coop_sums_mac %s, %a[%o], %a[%o] {k = 8 : i64, lda = 16 : i64, ldb = 16 : i64} : !xpu.coop_sums<1, 1>, !xpu.buffer<f16, ro>, !xpu.buffer<f16, ro>
  xpu.return
}

// -----

xpu.kernel @k(%c: !xpu.buffer<f32, ro>) {
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %s = xpu.coop_sums_alloc : !xpu.coop_sums<1, 2>
  // expected-error @+1 {{stores to a read-only buffer}}
  xpu.coop_sums_store %s, %c[%o], %ld : !xpu.coop_sums<1, 2>, !xpu.buffer<f32, ro>
  xpu.return
}

// -----

xpu.kernel @k(%c: !xpu.buffer<f32>) {
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %s = xpu.coop_sums_alloc : !xpu.coop_sums<1, 2>
  // expected-error @+1 {{names a matrix the sums do not have}}
  xpu.coop_sums_store %s, %c[%o], %ld {only = 2 : i64} : !xpu.coop_sums<1, 2>, !xpu.buffer<f32>
  xpu.return
}

// -----

xpu.kernel @k(%c: !xpu.buffer<f16>) {
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  %s = xpu.coop_sums_alloc : !xpu.coop_sums<1, 1>
  // expected-error @+1 {{moves f32 sums}}
  xpu.coop_sums_load %s, %c[%o], %ld : !xpu.coop_sums<1, 1>, !xpu.buffer<f16>
  xpu.return
}

// -----

xpu.kernel @k(%a: !xpu.buffer<f16, ro>) {
  %o = arith.constant 0 : index
  %ld = arith.constant 16 : index
  // expected-error @+1 {{stores to a read-only buffer}}
  xpu.coop_block_copy %a[%o], %ld -> %a[%o] {ld = 16 : i64} : !xpu.buffer<f16, ro>, !xpu.buffer<f16, ro>
  xpu.return
}
