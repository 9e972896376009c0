// RUN: xpu-opt %s -split-input-file -verify-diagnostics
// The verifier's refusals, each with its location.

// expected-error @+1 {{shared buffers need a static element count}}
xpu.kernel @k(%a: !xpu.buffer<f32, shared>) { xpu.return }

// -----

xpu.kernel @k(%a: !xpu.buffer<f32, ro>, %v: f32) {
  %i = xpu.thread_id x
  // expected-error @+1 {{stores to a read-only buffer}}
  xpu.store %v, %a[%i] : !xpu.buffer<f32, ro>
  xpu.return
}

// -----

xpu.kernel @k(%a: !xpu.buffer<f32>) {
  %i = xpu.thread_id x
  // expected-error @+1 {{expected the element type or a vector of 2-4}}
  %v = xpu.load %a[%i] : !xpu.buffer<f32> -> vector<8xf32>
  xpu.return
}

// -----

// expected-error @+1 {{unknown profile 'fast' (accepted: portable, deterministic-v1)}}
xpu.kernel @k() attributes {profile = "fast"} { xpu.return }

// -----

xpu.kernel @k() {
  // expected-error @+1 {{allocates only shared or private buffers}}
  %g = xpu.alloc : !xpu.buffer<4xf32>
  xpu.return
}

// -----

xpu.kernel @k(%n: i32) {
  // expected-error @+1 {{'nothere' is not an xpu.func in this module}}
  %r = xpu.call @nothere(%n) : (i32) -> i32
  xpu.return
}

// -----

xpu.kernel @k(%a: !xpu.buffer<i32>, %v: i32) {
  %i = xpu.thread_id x
  // expected-error @+1 {{'fadd' does not apply to 'i32'}}
  %o = xpu.atomic_rmw fadd %v, %a[%i] seq_cst device : !xpu.buffer<i32>
  xpu.return
}

// -----

// expected-error @+1 {{expected an address space (global, shared, private) or an access mode (rw, ro, owned, alias), each at most once, got 'fast'}}
xpu.kernel @k(%a: !xpu.buffer<f32, fast>) { xpu.return }
