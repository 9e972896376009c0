#!/usr/bin/env bash
# The bisect experiment of 2026-12-07 (d), on the GPU machine (device tool,
# carrying .gl and .device): what keeps the library's 128x256x64 workgroup-
# tier kernel at 110-129 TFLOP/s where the probe's GEMM, the same loads and
# multiply-add, runs 298-323? Variants of the library made by
# bench/results/2026-12-07-d-library-variants.patch (XPU_EXP):
#   spec         the library as on main
#   d            no copying path: every mac reads straight from the buffers
#                (no shared memory in the kernel; wrong at unaligned edges)
#   l            the workgroup size as a literal LocalSize (XPU_EXP_WG), not
#                specialization constants decorated WorkgroupSize
#   dl           both; dle also no element-wise edge store; dlef also the
#                tile store unguarded (the probe's kernel, 64-bit indices)
#   du2, dlu2    d and dl with the K loop unrolled twice (the probe's u2 ran
#                8 % faster than its u1)
# 1. The probe over .device/bisect: each variant compiled offline
#    (library_probe_shaders.sh, kinds lib<variant>) beside the probe's own
#    wg and spec shaders (u1 and u2), and spec with a shared array no
#    workgroup uses (workgroup_matrix_gemm.py --dead-shared: specsh as
#    large as the library's copying path has, 27136 and 18944 bytes;
#    specshs 8192, specshb 40960).
# 2. The library itself (.device/bundle.tgz, built with the patch; without
#    XPU_EXP it is main): xpu-bench-gemm per variant, compiled on the device
#    with the cache off (XPU_EXP is not in the cache key), and the CUDA
#    tier for the ratio.
# Exits 1 when the NVIDIA Vulkan driver is not found or a run fails its check.
set -u
source "$(dirname "$0")/nvidia_vulkan_setup.sh"
nvidia_vulkan_setup .device/bisect/xpu-vulkan-gemm-probe
# 200 dispatches a shader; then two with the 20 of earlier calls, to see
# whether so short a burst runs before the GPU's clocks have risen (the
# probe ran the library's 128x128x64 module at 175 where the library's own
# bench ran it at 282-295).
clocks() { nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu \
  --format=csv,noheader >> "$OUT/gpu.txt"; }
clocks
PROBE_ITERS=200 must timeout 300 bash bench/gemm/run_vulkan_probe.sh .device/bisect
for spv in wg_4096_128x256x64_t256_u1 libspec_4096_128x128x64_t128_u1; do
  bm=128 bn=${spv#*_4096_128x} bn=${bn%%x*} wg=${spv#*_t} wg=${wg%_u1}
  abi=(); [[ "$spv" == lib* ]] && abi=(--xpujit)
  must timeout 60 .device/bisect/xpu-vulkan-gemm-probe --spv ".device/bisect/$spv.spv" "${abi[@]}" \
    --m 4096 --n 4096 --k 4096 --bm "$bm" --bn "$bn" --wg "$wg" --iters 20 >> "$OUT/ramp.log" 2>&1
done
cat "$OUT/ramp.log"
clocks

run=.device/run
rm -rf "$run" && mkdir -p "$run" && tar -C "$run" -xzf .device/bundle.tgz
export LD_LIBRARY_PATH=$PWD/$run/lib XPU_LIBRARY=$PWD/$run/lib/libxpujit.so XPU_CACHE=off
bin=$run/bin
{
  for t in 128x256x64:256 128x128x64:128 128x256x32:256; do
    for v in "spec:" "d:directonly" "l:localsize" "dl:directonly,localsize" \
             "dle:directonly,localsize,noedge" "dlef:directonly,localsize,noedge,forcestore" \
             "du2:directonly,unroll2" "dlu2:directonly,localsize,unroll2"; do
      echo "== variant ${v%%:*}, block ${t%%:*} / ${t##*:}"
      must env XPU_EXP="${v#*:}" XPU_EXP_WG="${t##*:}" timeout 60 "$bin/xpu-bench-gemm" \
        --device vulkan:0 --type f16 --sizes 4096 --tile "${t%%:*}" --threads "${t##*:}" \
        --iterations 20 --expect-tier cooperative-matrix-workgroup
    done
  done
  echo "== CUDA tier"
  must timeout 60 "$bin/xpu-bench-gemm" --device cuda:0 --type f16 --sizes 4096 \
    --tile 128x256x64 --threads 256 --group 16 --iterations 5 --expect-tier wgmma
} 2>&1 | tee "$OUT/library.log"
grep -q FAILED "$OUT/library.log" && status=1
exit $status
