// RUN: xpujit compile %s --target=amdgcn --chip=gfx90a -o %t.gfx90a.hsaco
// RUN: llvm-readelf -h --notes %t.gfx90a.hsaco | FileCheck %s --check-prefixes=NOTES,NOTES90A
// RUN: xpujit compile %s --target=amdgcn --chip=gfx942 -o %t.gfx942.hsaco
// RUN: llvm-readelf -h --notes %t.gfx942.hsaco | FileCheck %s --check-prefixes=NOTES,NOTES942
// RUN: llvm-objdump -d --mcpu=gfx942 %t.gfx942.hsaco | FileCheck %s --check-prefix=ISA942 --implicit-check-not=v_fma --implicit-check-not=v_fmac --implicit-check-not=v_pk_fma
// RUN: xpujit compile %s --target=amdgcn --chip=gfx1100 -o %t.gfx1100.hsaco
// RUN: llvm-readelf -h --notes %t.gfx1100.hsaco | FileCheck %s --check-prefixes=NOTES,NOTES1100
// RUN: llvm-objdump -d --mcpu=gfx1100 %t.gfx1100.hsaco | FileCheck %s --check-prefix=ISA1100 --implicit-check-not=v_fma --implicit-check-not=v_fmac
// RUN: xpujit compile %s --target=amdgcn --chip=gfx1100 --wave=64 -o %t.w64.hsaco
// RUN: llvm-readelf --notes %t.w64.hsaco | FileCheck %s --check-prefix=WAVE64
// RUN: not xpujit compile %s --target=amdgcn --chip=gfx90a --wave=32 -o %t.x 2>&1 | FileCheck %s --check-prefix=NOWAVE32
// RUN: not xpujit compile %s --target=amdgcn --chip=gfx803 -o %t.x 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not xpujit compile %s --target=amdgcn -o %t.x 2>&1 | FileCheck %s --check-prefix=NOCHIP
//
// The code objects xpujit generates for AMD GPUs, read with LLVM's own
// tools (independent of xpujit's reader): code object v5 for the HSA
// runtime, the kernel ABI's arguments (buffer = global pointer + i64 count,
// scalars by value at their natural alignment, the status word last), the
// architecture's wave size, and saxpy's multiply and add kept apart.

// NOTES: OS/ABI: AMDGPU - HSA
// NOTES-NEXT: ABI Version: 3
// NOTES90A: Flags: {{.*}}gfx90a
// NOTES942: Flags: {{.*}}gfx942
// NOTES1100: Flags: {{.*}}gfx1100
// NOTES: NT_AMDGPU_METADATA
// NOTES: amdhsa.kernels:
// NOTES-NEXT: - {{(.agpr_count: +0)?}}
// NOTES: .args:
// NOTES-NEXT: - .address_space: global
// NOTES-NEXT:   .offset: 0
// NOTES-NEXT:   .size: 8
// NOTES-NEXT:   .value_kind: global_buffer
// NOTES-NEXT: - .offset: 8
// NOTES-NEXT:   .size: 8
// NOTES-NEXT:   .value_kind: by_value
// NOTES-NEXT: - .address_space: global
// NOTES-NEXT:   .offset: 16
// NOTES-NEXT:   .size: 8
// NOTES-NEXT:   .value_kind: global_buffer
// NOTES-NEXT: - .offset: 24
// NOTES-NEXT:   .size: 8
// NOTES-NEXT:   .value_kind: by_value
// NOTES-NEXT: - .offset: 32
// NOTES-NEXT:   .size: 4
// NOTES-NEXT:   .value_kind: by_value
// NOTES-NEXT: - .offset: 36
// NOTES-NEXT:   .size: 4
// NOTES-NEXT:   .value_kind: by_value
// NOTES-NEXT: - .address_space: generic
// NOTES-NEXT:   .offset: 40
// NOTES-NEXT:   .size: 8
// NOTES-NEXT:   .value_kind: global_buffer
// NOTES: .group_segment_fixed_size: 0
// NOTES: .kernarg_segment_size: 48
// NOTES: .max_flat_workgroup_size: 1024
// NOTES: .name: saxpy
// NOTES: .private_segment_fixed_size: 0
// NOTES: .symbol: saxpy.kd
// NOTES: .uses_dynamic_stack: false
// NOTES90A: .wavefront_size: 64
// NOTES942: .wavefront_size: 64
// NOTES1100: .wavefront_size: 32
// NOTES90A: amdhsa.target: amdgcn-amd-amdhsa--gfx90a
// NOTES942: amdhsa.target: amdgcn-amd-amdhsa--gfx942
// NOTES1100: amdhsa.target: amdgcn-amd-amdhsa--gfx1100
// NOTES: amdhsa.version:
// NOTES-NEXT: - 1
// NOTES-NEXT: - 2

// The workgroup size from the dispatch packet (byte 4, the pointer in
// s[0:1]); a and n from the kernarg segment (byte 32, in s[2:3]); one
// multiply and one add.
// ISA942-LABEL: <saxpy>:
// ISA942: s_load_dword s{{[0-9]+}}, s[0:1], 0x4
// ISA942: s_load_dwordx2 s[{{[0-9]+}}:{{[0-9]+}}], s[2:3], 0x20
// ISA942: s_and_saveexec_b64
// ISA942: global_load_dword
// ISA942: v_mul_f32_e32
// ISA942-NEXT: v_add_f32_e32
// ISA942-NEXT: global_store_dword
// ISA942: s_endpgm

// Wave32: the execution mask is 32 bits.
// ISA1100-LABEL: <saxpy>:
// ISA1100: s_load_b32 s{{[0-9]+}}, s[0:1], 0x4
// ISA1100: s_load_b64 s[{{[0-9]+}}:{{[0-9]+}}], s[2:3], 0x20
// ISA1100: s_and_saveexec_b32
// ISA1100: global_load_b32
// ISA1100: v_mul_f32_e32
// ISA1100: v_add_f32_e32
// ISA1100: global_store_b32
// ISA1100: s_endpgm

// WAVE64: .wavefront_size: 64
// NOWAVE32: gfx90a has no wave size 32 (64 only)
// OLD: gfx803 is older than gfx9
// NOCHIP: target amdgcn needs a chip

xpu.kernel @saxpy(%y: !xpu.buffer<f32>, %x: !xpu.buffer<f32, ro>, %a: f32, %n: i32) {
  %i = xpu.global_id x
  %n_idx = arith.index_castui %n : i32 to index
  %in = arith.cmpi ult, %i, %n_idx : index
  scf.if %in {
    %xi = xpu.load %x[%i] : !xpu.buffer<f32, ro>
    %yi = xpu.load %y[%i] : !xpu.buffer<f32>
    %ax = arith.mulf %a, %xi : f32
    %r = arith.addf %ax, %yi : f32
    xpu.store %r, %y[%i] : !xpu.buffer<f32>
  }
  xpu.return
}
