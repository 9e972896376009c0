// RUN: xpu-opt %s -split-input-file -verify-diagnostics
// Verifier refusals for what the backends disagreed on or could not lay out.

// Buffer elements are the kernel ABI's scalars: i3 had no size host and
// device agree on (the CPU reported every store out of bounds, Vulkan
// crashed).
// expected-error @+1 {{buffer element type must be i1, i8, i16, i32, i64, f16, bf16, f32 or f64, got 'i3'}}
xpu.kernel @k(%o: !xpu.buffer<i3>) { xpu.return }

// -----

// expected-error @+1 {{buffer element type must be i1, i8, i16, i32, i64, f16, bf16, f32 or f64, got 'i128'}}
xpu.kernel @k(%o: !xpu.buffer<i128>) { xpu.return }

// -----

// expected-error @+1 {{got 'ui32'}}
xpu.kernel @k(%o: !xpu.buffer<ui32>) { xpu.return }

// -----

xpu.kernel @k() {
  // expected-error @+1 {{got 'f80'}}
  %p = xpu.alloc : !xpu.buffer<4xf80, private>
  xpu.return
}

// -----

// Shared scratch in a device function: the CPU refused it in code
// generation, amdgcn failed its ABI check, Vulkan ran it.
xpu.func @f() {
  // expected-error @+1 {{allocates shared memory in a device function; allocate it in the kernel and pass the buffer to the helper}}
  %p = xpu.alloc : !xpu.buffer<16xi32, shared>
  xpu.return
}

// -----

// Private scratch in a device function is the invocation's own: admitted.
xpu.func @f() {
  %p = xpu.alloc : !xpu.buffer<16xi32, private>
  xpu.return
}

// -----

// A reduction in a device function expands to shared scratch there.
xpu.func @f(%v: i32) -> i32 {
  // expected-error @+1 {{is in a device function; a workgroup reduction uses the kernel's shared memory: reduce in the kernel}}
  %s = xpu.reduce add %v sequential : i32
  xpu.return %s : i32
}
