// REQUIRES: spirv-val-coop-matrix
// RUN: rm -rf %t && mkdir -p %t
// RUN: xpujit compile %S/tiles-coop-matrix.mlir --target=spirv --chip=cooperative-matrix -o %t/k.spv
// RUN: %spirv-val --target-env vulkan1.3 %t/k.spv
//
// The cooperative-matrix module of tiles-coop-matrix.mlir is valid SPIR-V
// for Vulkan 1.3. Needs a spirv-val that knows SPV_KHR_cooperative_matrix
// (SPIRV-Tools v2023.4 or later; Debian 12 has v2023.1): spirv-val on PATH
// or XPU_SPIRV_VAL names it (tests/lit/lit.cfg.py), else UNSUPPORTED.
