#!/usr/bin/env bash
# Compiles xpu-bench-gemm's f16 kernel for the workgroup-scope tier offline
# (`xpujit compile --target spirv --chip cooperative-matrix-workgroup`, the
# subgroup tier turned off) into DIR/KIND_SIZE_BMxBNxBK_tWG_u1.spv, the
# names bench/gemm/run_vulkan_probe.sh reads: the probe then times the
# library's own code beside the hand-written shaders in one device call.
#
#   library_probe_shaders.sh DIR [KIND] [BLOCK ...]   (KIND lib, BLOCK 128x256x64/256)
#
# KIND must start with lib (the probe runs those with --xpujit); a
# different KIND names a build of the library changed for an experiment. A
# KIND ending in const bakes M = N = K = 4096 into the kernel's text (the
# strides and bounds constants, as in the probe's own shaders).
set -euo pipefail
dir="$1" kind="${2:-lib}"
shift $(( $# > 1 ? 2 : 1 ))
[[ "$kind" == lib* ]] || { echo "KIND must start with lib" >&2; exit 2; }
build="${XPU_BUILD_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build}"
mkdir -p "$dir"
for block in "${@:-128x256x64/256}"; do
  tile="${block%/*}" threads="${block#*/}"
  "$build/bench/xpu-bench-gemm" --type f16 --tile "$tile" --threads "$threads" --print-kernel \
    > "$dir/.kernel.mlir"
  if [[ "$kind" == *const ]]; then
    sed -i -E 's/%([MNK]) = arith.index_castui %[mnk] : i32 to index/%\1 = arith.constant 4096 : index/' \
      "$dir/.kernel.mlir"
    [ "$(grep -c 'arith.constant 4096 : index' "$dir/.kernel.mlir")" = 3 ] ||
      { echo "the kernel's sizes were not found" >&2; exit 1; }
  fi
  XPU_TILE_TIERS_OFF=cooperative-matrix "$build/tools/xpujit/xpujit" compile "$dir/.kernel.mlir" \
    --target spirv --chip cooperative-matrix-workgroup \
    -o "$dir/${kind}_4096_${tile}_t${threads}_u1.spv"
done
rm -f "$dir/.kernel.mlir"
