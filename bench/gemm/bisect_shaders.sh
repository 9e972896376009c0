#!/usr/bin/env bash
# Makes the shaders bench/gemm/bisect_experiment.sh runs, into DIR (default
# .device/bisect), with the probe beside them. Needs a build of the library
# with bench/results/2026-12-07-d-library-variants.patch applied (its XPU_EXP
# knobs; without the patch every lib* shader would be libspec's). With
# `dead`, only the probe's shaders bench/gemm/split_experiment.sh runs (into
# .device/dead): a dead shared array behind each kind of condition.
#   bisect_shaders.sh [DIR [dead]]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${XPU_BUILD_DIR:-$root/build}"
dir="${1:-$root/.device/bisect}"
translate="${MLIR_TRANSLATE:-/usr/lib/llvm-22/bin/mlir-translate}"
mkdir -p "$dir"
cp "$build/bench/xpu-vulkan-gemm-probe" "$dir/"

probe() { # NAME BM BN BK WG UNROLL [generator arguments]
  local name=$1 bm=$2 bn=$3 bk=$4 wg=$5 u=$6
  python3 "$root/bench/gemm/workgroup_matrix_gemm.py" --m 4096 --n 4096 --k 4096 \
    --bm "$bm" --bn "$bn" --bk "$bk" --wg "$wg" --unroll "$u" "${@:7}" > "$dir/.p.mlir"
  "$translate" --no-implicit-module --serialize-spirv "$dir/.p.mlir" \
    -o "$dir/${name}_4096_${bm}x${bn}x${bk}_t${wg}_u${u}.spv"
}
if [ "${2:-}" = dead ]; then
  probe spec 128 256 64 256 1 --sizes spec
  probe specsh 128 256 64 256 1 --sizes spec --dead-shared 27136
  probe specshl 128 256 64 256 1 --sizes spec --dead-shared 27136 --dead-when literal
  probe specshp 128 256 64 256 1 --sizes spec --dead-shared 27136 --dead-when spec
  probe specshpb 128 256 64 256 1 --sizes spec --dead-shared 40960 --dead-when spec
  rm -f "$dir/.p.mlir"
  exit 0
fi
for u in 1 2; do
  probe wg 128 256 64 256 $u
  probe spec 128 256 64 256 $u --sizes spec
done
probe wg 128 128 64 128 1
# Shared memory that only a branch no workgroup takes uses: as much as the
# library's copying path declares for 128x256x64 (specsh) and less and more.
probe specsh 128 256 64 256 1 --sizes spec --dead-shared 27136
probe specsh 128 256 32 256 1 --sizes spec --dead-shared 18944
probe specshs 128 256 64 256 1 --sizes spec --dead-shared 8192
probe specshb 128 256 64 256 1 --sizes spec --dead-shared 40960
# Beyond the probe's best (128x256x64 on 256, u2): more invocations per
# block, other blocks, deeper unrolling.
probe wg 128 256 32 256 4
probe wg 128 256 64 512 1
probe wg 128 256 64 512 2
probe wg 256 128 64 256 2
probe wg 128 128 64 256 2
probe wg 256 256 32 512 1
rm -f "$dir/.p.mlir"

# The library's kernel under each variant (XPU_EXP; XPU_EXP_WG for the
# literal LocalSize), compiled offline with the cache off (XPU_EXP is not in
# its key).
for v in spec: d:directonly l:localsize dl:directonly,localsize \
         dle:directonly,localsize,noedge dlef:directonly,localsize,noedge,forcestore \
         du2:directonly,unroll2 dlu2:directonly,localsize,unroll2; do
  for block in 128x256x64/256 128x128x64/128 128x256x32/256; do
    XPU_CACHE=off XPU_EXP="${v#*:}" XPU_EXP_WG="${block#*/}" \
      bash "$root/bench/gemm/library_probe_shaders.sh" "$dir" "lib${v%%:*}" "$block"
  done
done
ls "$dir" | wc -l
