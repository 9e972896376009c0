#!/usr/bin/env bash
# The sizes experiment of 2026-12-07 (c), on the GPU machine (device tool,
# carrying .gl and .device): does the workgroup tier spill because its
# strides are run-time values? The probe's own GEMM with K and N baked in
# (wg), read from push constants as the library reads them (push) and given
# as specialization constants (spec); the library's kernel as on main before
# the change (lib), with M, N and K baked into its text (libconst) and with
# its strides read from specialization constants (libspec, what the library
# now does). Shaders in .device/sizes, made by workgroup_matrix_gemm.py
# --sizes and library_probe_shaders.sh. Then the library itself from the
# bundle (scripts/device-bundle.sh): the tile conformance tests and the
# GEMM bench on the workgroup tier, and the CUDA tier for the ratio. Exits
# 1 when the NVIDIA Vulkan driver is not found or anything fails its check.
set -u
source "$(dirname "$0")/nvidia_vulkan_setup.sh"
source "$(dirname "$0")/library_tile_runs.sh"
P=.device/sizes/xpu-vulkan-gemm-probe
nvidia_vulkan_setup "$P"
must timeout 240 bash bench/gemm/run_vulkan_probe.sh .device/sizes
{
  # At an M edge the guard after C must stay untouched (the probe exits 1).
  echo "== libspec edge"
  must timeout 60 "$P" --spv .device/sizes/libspec_4096_128x256x64_t256_u1.spv --xpujit \
    --m 4000 --n 4096 --k 4096 --bm 128 --bn 256 --wg 256 --iters 5 --edge
} 2>&1 | tee "$OUT/edge.log"
grep -q FAILED "$OUT/edge.log" && status=1
# The same block with the strides not specialized, for the ratio.
unspecialized() {
  echo "== 128x256x64, strides not specialized (XPU_TILE_SPECIALIZE=off)"
  must env XPU_TILE_TIERS_OFF=cooperative-matrix XPU_TILE_SPECIALIZE=off timeout 60 \
    "$bin/xpu-bench-gemm" --device vulkan:0 --type f16 --sizes 4096 --tile 128x256x64 \
    --threads 256 --iterations 5 --expect-tier cooperative-matrix-workgroup
}
library_tile_runs unspecialized
date -u
exit $status
