# Sourced by bench/gemm's device experiments on the GPU machine (carrying
# .gl): `status` and `must` (a failing step sets status=1), then
# nvidia_vulkan_setup PROBE installs the Vulkan loader from .gl, points it
# at NVIDIA's driver, records the GPU in $OUT/gpu.txt and exits the script
# with 1 unless PROBE --query finds an NVIDIA Vulkan device (a loader
# without the driver must not pass for a run).
status=0
must() { "$@" || { echo "FAILED: $*"; status=1; }; }
nvidia_vulkan_setup() {
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  nvidia-smi --query-gpu=name,driver_version,utilization.gpu,temperature.gpu --format=csv |
    tee "$OUT/gpu.txt"
  date -u | tee -a "$OUT/gpu.txt"
  "$1" --query > "$OUT/query.txt" 2>&1
  grep -q NVIDIA "$OUT/query.txt" ||
    { cat "$OUT/query.txt"; echo "FAILED: no NVIDIA Vulkan device"; exit 1; }
}
