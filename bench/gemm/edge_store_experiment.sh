#!/usr/bin/env bash
# The edge-store experiment of 2026-12-07, on the GPU machine (device tool,
# carrying .gl and .device): NV2 tensor-layout stores at an M edge in the
# hand-written probe (.device/edge: ts_4000_u2_{undefined,constant}.spv);
# the library's workgroup-tier GEMM at an M edge and at 4096 before its edge
# store became tensor-layout stores (lib, libf, and the XPU_EXP variants of
# bench/results/2026-12-07-library-variants.patch) and after (libts; libtsn
# without the element-wise path kept for wrapping indices); the tile
# conformance tests and the bench on the bundle (scripts/device-bundle.sh);
# then a sweep of the probe's shaders. Exits 1 when the NVIDIA Vulkan
# driver is not found or anything that must check out does not. The inputs,
# and what it found: bench/results/h100-2026-12-07-b.md (libts and libtsn
# were built at ce9379b, since reverted: their pipelines crash the driver).
set -u
source "$(dirname "$0")/nvidia_vulkan_setup.sh"
source "$(dirname "$0")/library_tile_runs.sh"
P=.device/probe/xpu-vulkan-gemm-probe
nvidia_vulkan_setup "$P"
E=(--m 4000 --n 4096 --k 4096 --bm 128 --bn 256 --wg 256 --iters 5 --edge)
{
  # The guard after C must stay untouched: the probe exits 1 otherwise.
  for s in .device/edge/*.spv; do echo "== $s"; must timeout 60 "$P" --spv "$s" "${E[@]}"; done
  for v in libts libtsn lib libf; do
    for r in "" --robust; do
      echo "== $v edge $r"
      timeout 60 "$P" --spv ".device/probe/${v}_4096_128x256x64_t256_u1.spv" --xpujit "${E[@]}" $r
      echo "rc=$?" # lib's and libf's own stores are what is measured here, not required
    done
  done
} 2>&1 | tee "$OUT/edge.log"
grep -q FAILED "$OUT/edge.log" && status=1
library_tile_runs
sweep=.device/sweep
rm -rf "$sweep" && mkdir -p "$sweep"
for k in wg_4096_128x256x64_t256_u2 wgg8_4096_128x256x64_t256_u2 wgg16_4096_128x256x64_t256_u2 \
    wgg16_4096_128x256x64_t256_u1 ts_4096_128x256x64_t256_u1 ts_4096_128x256x64_t256_u2 \
    tlts_4096_128x256x64_t256_u2 libts_4096_128x256x64_t256_u1 libts_4096_128x256x32_t256_u1 \
    libts_4096_128x128x64_t128_u1 libtsn_4096_128x256x64_t256_u1 libtsn_4096_128x256x32_t256_u1 \
    libe_4096_128x256x64_t256_u1 libs_4096_128x256x64_t256_u1 libes_4096_128x256x64_t256_u1 \
    libesi32_4096_128x256x64_t256_u1 libc_4096_128x256x64_t256_u1 lib_4096_128x256x64_t256_u1; do
  [ -f ".device/probe/$k.spv" ] && cp ".device/probe/$k.spv" "$sweep/"
done
cp "$P" "$sweep/"
must timeout 200 bash bench/gemm/run_vulkan_probe.sh "$sweep"
date -u
exit $status
