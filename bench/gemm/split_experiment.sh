#!/usr/bin/env bash
# The split experiment of 2026-12-07 (e), on the GPU machine (device tool,
# carrying .gl, .device/bundle.tgz of scripts/device-bundle.sh and
# .device/dead of `bench/gemm/bisect_shaders.sh .device/dead dead`): the
# workgroup-scope tier's kernels split in two (XPU_TILE_SPLIT=on; xpu-lower-tiles,
# SplitCopyingVersions.cpp), the direct version's pipeline with none of the
# copying version's shared memory, against the same kernels whole (off, the
# default until this has run), and the CUDA
# tier for the ratio; the most telling runs first, each log written as it
# goes, so that a run cut short still says something.
# 1. xpu-bench-gemm's blocks split and whole at 4096, the CUDA tier.
# 2. The tile conformance tests on the NVIDIA Vulkan driver (every element
#    of every edge and unaligned case), and the companion's pipeline made
#    (XPU_LOG=debug).
# 3. The probe over .device/dead: its 128x256x64 GEMM beside a shared array
#    of 27136 bytes (the library's copying path's) used only in a branch no
#    workgroup takes, the branch's condition a run-time value (specsh), a
#    literal false (specshl) or a specialization constant left false
#    (specshp; specshpb with 40960 bytes): does the driver keep an array
#    whose only use folds away?
# 4. The same blocks at 8192, and 128x256x32.
# Exits 1 when the NVIDIA Vulkan driver is not found or a run fails.
set -u
source "$(dirname "$0")/nvidia_vulkan_setup.sh"
nvidia_vulkan_setup .device/dead/xpu-vulkan-gemm-probe
run=.device/run
rm -rf "$run" && mkdir -p "$run" && tar -C "$run" -xzf .device/bundle.tgz
export LD_LIBRARY_PATH=$PWD/$run/lib XPU_CACHE_DIR=$PWD/$run/cache
bin=$run/bin
blocks() { # SIZES BLOCK:THREADS ...
  local sizes=$1 t split
  shift
  for t in "$@"; do
    for split in on off; do
      echo "== block ${t%%:*} / ${t##*:}, XPU_TILE_SPLIT=$split"
      must env XPU_TILE_SPLIT=$split timeout 60 "$bin/xpu-bench-gemm" --device vulkan:0 \
        --type f16 --sizes "$sizes" --tile "${t%%:*}" --threads "${t##*:}" --iterations 10 \
        --expect-tier cooperative-matrix-workgroup
    done
  done
}
cuda() {
  echo "== CUDA tier"
  must timeout 60 "$bin/xpu-bench-gemm" --device cuda:0 --type f16 --sizes "$1" \
    --tile 128x256x64 --threads 256 --group 16 --iterations 10 --expect-tier wgmma
}
{
  blocks 4096 128x256x64:256 128x128x64:128
  cuda 4096
} 2>&1 | tee "$OUT/library.log"
{
  "$bin/xpujit" devices --caps | grep -E "tile\.cooperative-matrix"
  echo "== conformance tiles on vulkan"
  must env XPU_TEST_BACKEND=vulkan XPU_TILE_SPLIT=on timeout 200 "$bin/conformance" -ts=tiles
  echo "== the companion's pipelines are made"
  env XPU_LOG=debug XPU_TILE_SPLIT=on timeout 60 "$bin/xpu-bench-gemm" --device vulkan:0 --type f16 --sizes 1024 \
    --tile 128x256x64 --threads 256 --iterations 1 2>&1 | grep "created pipeline"
} 2>&1 | tee "$OUT/conformance.log"
grep -q "created pipeline for 'gemm.xpu_copying'" "$OUT/conformance.log" ||
  { echo "FAILED: no pipeline of the copying companion" | tee -a "$OUT/conformance.log"; status=1; }
PROBE_ITERS=50 must timeout 120 bash bench/gemm/run_vulkan_probe.sh .device/dead
{
  blocks 8192 128x256x64:256 128x128x64:128
  blocks 4096,8192 128x256x32:256
  cuda 8192
} 2>&1 | tee "$OUT/library-more.log"
cat "$OUT"/*.log | grep -q FAILED && status=1
date -u
exit $status
