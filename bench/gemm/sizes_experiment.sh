#!/usr/bin/env bash
# The sizes experiment of 2026-12-07 (c), on the GPU machine (device tool,
# carrying .gl and .device): does the workgroup tier spill because its
# strides and bounds are run-time values? The probe's own GEMM with K and N
# baked in (wg), read from push constants as the library reads them (push)
# and given as specialization constants (spec); the library's kernel as on
# main (lib) and with M, N and K baked into its text (libconst, three block
# shapes). Shaders in .device/sizes, made by workgroup_matrix_gemm.py
# --sizes and library_probe_shaders.sh. Exits 1 when the NVIDIA Vulkan
# driver is not found or a shader fails its check.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,utilization.gpu,temperature.gpu --format=csv |
  tee "$OUT/gpu.txt"
date -u | tee -a "$OUT/gpu.txt"
.device/sizes/xpu-vulkan-gemm-probe --query > "$OUT/query.txt" 2>&1
grep -q NVIDIA "$OUT/query.txt" || { cat "$OUT/query.txt"; echo "FAILED: no NVIDIA Vulkan device"; exit 1; }
timeout 300 bash bench/gemm/run_vulkan_probe.sh .device/sizes
status=$?
date -u
exit $status
