// RUN: xpu-opt %s -split-input-file -verify-diagnostics
// A kernel attribute of the wrong kind is refused where it is written. It
// was dropped: `workgroup_size = [64, 1, 1]` left the shape unfixed, and
// `profile = ["deterministic-v1"]` admitted the kernel as portable.

// expected-error @+1 {{attribute 'workgroup_size' failed to satisfy constraint: i64 dense array attribute}}
xpu.kernel @k() attributes {workgroup_size = [64, 1, 1]} { xpu.return }

// -----

// expected-error @+1 {{attribute 'grid_size' failed to satisfy constraint: i64 dense array attribute}}
xpu.kernel @k() attributes {grid_size = array<i32: 4>} { xpu.return }

// -----

// expected-error @+1 {{attribute 'profile' failed to satisfy constraint: string attribute}}
xpu.kernel @k() attributes {profile = ["deterministic-v1"]} { xpu.return }

// -----

// expected-error @+1 {{attribute 'effects' failed to satisfy constraint: string array attribute}}
xpu.kernel @k() attributes {effects = "DeviceCopyIn"} { xpu.return }

// -----

// expected-error @+1 {{attribute 'device' failed to satisfy constraint: string attribute}}
xpu.kernel @k() attributes {device = 0} { xpu.return }

// -----

// expected-error @+1 {{attribute 'fastmath' failed to satisfy constraint: unit attribute}}
xpu.kernel @k() attributes {fastmath = true} { xpu.return }

