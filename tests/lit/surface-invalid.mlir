// RUN: xpu-opt %s -split-input-file -verify-diagnostics
// The verifier's refusals of wave operations and atomics.

xpu.kernel @k(%v: f32) {
  // expected-error @+1 {{'smin' does not apply to 'f32'}}
  %r = xpu.wave_reduce smin %v : f32
  xpu.return
}

// -----

xpu.kernel @k(%v: i32) {
  // expected-error @+1 {{'fmax' does not apply to 'i32'}}
  %r = xpu.wave_scan fmax %v inclusive : i32
  xpu.return
}

// -----

xpu.kernel @k(%v: i16, %k: i32) {
  // expected-error @+1 {{a 32- or 64-bit integer or float}}
  %r = xpu.wave_shuffle xor %v, %k : i16
  xpu.return
}

// -----

xpu.kernel @k(%b: !xpu.buffer<i32>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'cmpxchg' needs the value it expects (`expected`)}}
  %r = xpu.atomic_rmw cmpxchg %v, %b[%c0] seq_cst device : !xpu.buffer<i32>
  xpu.return
}

// -----

xpu.kernel @k(%b: !xpu.buffer<i32>, %v: i32) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'fmin' does not apply to 'i32'}}
  %r = xpu.atomic_rmw fmin %v, %b[%c0] seq_cst device : !xpu.buffer<i32>
  xpu.return
}
