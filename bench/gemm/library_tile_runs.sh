# Sourced by bench/gemm's device experiments (edge_store_experiment.sh,
# sizes_experiment.sh) on the GPU machine: the library from the bundle
# (scripts/device-bundle.sh), its tile conformance tests and GEMM bench on
# the workgroup-scope tier, the subgroup tier's best block and the CUDA
# tier for the ratios, into $OUT/library.log. Uses `must` and `status`
# (nvidia_vulkan_setup.sh); a step that fails sets status=1. Any extra
# commands given run after the workgroup tier's blocks, with $bin the
# bundle's programs.
library_tile_runs() {
  local run=.device/run
  rm -rf "$run" && mkdir -p "$run" && tar -C "$run" -xzf .device/bundle.tgz
  export LD_LIBRARY_PATH=$PWD/$run/lib XPU_CACHE_DIR=$PWD/$run/cache
  export XPU_LIBRARY=$PWD/$run/lib/libxpujit.so
  bin=$run/bin
  {
    echo "== conformance tiles, workgroup tier"
    must env XPU_TEST_BACKEND=vulkan XPU_TILE_TIERS_OFF=cooperative-matrix timeout 200 \
      "$bin/conformance" -ts=tiles
    for t in 128x256x64:256 128x256x32:256 128x128x64:128; do
      must env XPU_TILE_TIERS_OFF=cooperative-matrix timeout 60 "$bin/xpu-bench-gemm" \
        --device vulkan:0 --type f16 --sizes 4096,8192 --tile "${t%%:*}" --threads "${t##*:}" \
        --iterations 5 --expect-tier cooperative-matrix-workgroup
    done
    must env XPU_TILE_TIERS_OFF=cooperative-matrix timeout 60 "$bin/xpu-bench-gemm" \
      --device vulkan:0 --type f16 --sizes 4096,8192 --tile 128x256x64 --threads 256 \
      --group 16 --iterations 5 --expect-tier cooperative-matrix-workgroup
    "$@"
    must env XPU_TILE_TIERS_OFF=cooperative-matrix-workgroup timeout 60 "$bin/xpu-bench-gemm" \
      --device vulkan:0 --type f16 --sizes 4096,8192 --tile 128x256x32 --threads 512 \
      --iterations 5 --expect-tier cooperative-matrix
    must timeout 60 "$bin/xpu-bench-gemm" --device cuda:0 --type f16 --sizes 4096,8192 \
      --tile 128x256x64 --threads 256 --group 16 --iterations 5 --expect-tier wgmma
  } 2>&1 | tee "$OUT/library.log"
  grep -q FAILED "$OUT/library.log" && status=1
}
