#!/usr/bin/env bash
# Pipelines specialized on tile strides (XPU_TILE_SPECIALIZE=all, here on
# the Vulkan device's software tier): one GEMM size after another, each a
# new stride value and so a new pipeline. The library says once, at the
# 16th, that each new value compiles another, and not before; every GEMM
# checks out. Skips (77) without a Vulkan device.
#   specialized_pipelines.sh BENCH_GEMM XPUJIT
set -u
bench=$1 xpujit=$2
"$xpujit" devices 2>/dev/null | grep -qE '^[ *]+[0-9]+ +vulkan ' ||
  { echo "SKIP: no Vulkan device"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
note="pipelines specialized on its tile strides"
gemms() { # COUNT: that many sizes, 16 apart, in one process
  local sizes
  sizes=$(seq -s, 16 16 $((16 * $1)))
  XPU_LOG=warn XPU_TILE_SPECIALIZE=all XPU_CACHE=off "$bench" --device vulkan:0 --type f16 \
    --sizes "$sizes" --tile 16x16x16 --threads 32 --iterations 1 --samples 64 \
    > "$dir/out" 2> "$dir/err" || { cat "$dir/out" "$dir/err"; echo "FAIL: a GEMM failed"; exit 1; }
  [ "$(grep -c '"check": "pass"' "$dir/out")" = "$1" ] ||
    { cat "$dir/out"; echo "FAIL: not every one of $1 GEMMs checked out"; exit 1; }
}
gemms 15
grep -q "$note" "$dir/err" && { cat "$dir/err"; echo "FAIL: noted before the 16th pipeline"; exit 1; }
gemms 18
[ "$(grep -c "$note" "$dir/err")" = 1 ] ||
  { cat "$dir/err"; echo "FAIL: not noted exactly once by the 18th pipeline"; exit 1; }
cat "$dir/err"
echo "ok: the 16th specialized pipeline is noted, once"
