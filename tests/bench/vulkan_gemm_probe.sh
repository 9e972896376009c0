#!/usr/bin/env bash
# The Vulkan GEMM probe (bench/gemm/vulkan_gemm_probe.cpp) on whatever Vulkan
# device there is (lavapipe in CI), with the generator's scalar shader (no
# cooperative matrices): a right shader must check out on every sampled
# element (also in grouped block order, and with K and N read at run time),
# one built for another K must be caught; and xpu-bench-gemm's
# kernel as the library compiles it offline (software tile), run through
# --xpujit. Skips (77) without a Vulkan device.
#   vulkan_gemm_probe.sh PROBE MLIR_TRANSLATE GENERATOR XPUJIT BENCH_GEMM
set -u
probe=$1 translate=$2 generator=$3 xpujit=$4 bench=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if ! "$probe" --query > "$dir/query.txt" 2>&1; then
  echo "SKIP: no Vulkan device: $(cat "$dir/query.txt")"
  exit 77
fi
cat "$dir/query.txt"
make_spv() { # K of the shader, output, more generator arguments
  python3 "$generator" --scalar --m 128 --n 128 --k "$1" --wg 64 "${@:3}" > "$dir/s.mlir" &&
    "$translate" --no-implicit-module --serialize-spirv "$dir/s.mlir" -o "$2"
}
make_spv 128 "$dir/right.spv" || { echo "FAIL: could not build the shader"; exit 1; }
make_spv 64 "$dir/wrong.spv" || { echo "FAIL: could not build the shader"; exit 1; }
# Workgroups taking their blocks in grouped order must still cover C once.
make_spv 128 "$dir/grouped.spv" --group 4 || { echo "FAIL: could not build the shader"; exit 1; }
args=(--m 128 --n 128 --k 128 --bm 1 --bn 64 --wg 64 --iters 2)
"$probe" --spv "$dir/right.spv" "${args[@]}" || { echo "FAIL: the right shader did not check out"; exit 1; }
"$probe" --spv "$dir/grouped.spv" "${args[@]}" ||
  { echo "FAIL: the shader in grouped block order did not check out"; exit 1; }
# A shared array used only where no workgroup goes (--dead-shared) leaves C as it is.
make_spv 128 "$dir/dead.spv" --dead-shared 4096 || { echo "FAIL: could not build the shader"; exit 1; }
"$probe" --spv "$dir/dead.spv" "${args[@]}" ||
  { echo "FAIL: the shader with a dead shared array did not check out"; exit 1; }
# So does one whose branch is a literal false or a specialization constant left false.
for when in literal spec; do
  make_spv 128 "$dir/dead-$when.spv" --dead-shared 4096 --dead-when "$when" ||
    { echo "FAIL: could not build the shader (--dead-when $when)"; exit 1; }
  "$probe" --spv "$dir/dead-$when.spv" "${args[@]}" ||
    { echo "FAIL: the shader with a dead shared array behind $when did not check out"; exit 1; }
done
if "$probe" --spv "$dir/wrong.spv" "${args[@]}" > "$dir/wrong.txt"; then
  cat "$dir/wrong.txt"
  echo "FAIL: a shader with the wrong K passed the check"
  exit 1
fi
grep -q "WRONG" "$dir/wrong.txt" || { cat "$dir/wrong.txt"; echo "FAIL: no WRONG verdict"; exit 1; }
# Shaders that read K and N at run time (push constants, as the library's
# do; specialization constants) must compute the K they are run with, not
# the one they were written for.
for sizes in push spec; do
  make_spv 64 "$dir/$sizes.spv" --sizes "$sizes" || { echo "FAIL: could not build the shader"; exit 1; }
  "$probe" --spv "$dir/$sizes.spv" --xpujit "${args[@]}" ||
    { echo "FAIL: the shader with --sizes $sizes did not compute K = 128"; exit 1; }
done
# The library's code: entry point, status word, push constants and the
# workgroup size as a specialization constant must all line up.
"$bench" --type f16 --tile 32x32x16 --threads 64 --print-kernel > "$dir/gemm.mlir" &&
  "$xpujit" compile "$dir/gemm.mlir" --target spirv -o "$dir/lib.spv" 2> "$dir/compile.txt" ||
  { cat "$dir/compile.txt"; echo "FAIL: could not compile the library's kernel"; exit 1; }
"$probe" --spv "$dir/lib.spv" --xpujit --m 128 --n 96 --k 64 --bm 32 --bn 32 --wg 64 --iters 2 ||
  { echo "FAIL: the library's kernel did not check out through --xpujit"; exit 1; }
# M off the block: the library's checked store keeps off the guard after C.
"$probe" --spv "$dir/lib.spv" --xpujit --m 100 --n 96 --k 64 --bm 32 --bn 32 --wg 64 --iters 2 \
  --edge > "$dir/edge.txt" || { cat "$dir/edge.txt"; echo "FAIL: --edge"; exit 1; }
cat "$dir/edge.txt"
grep -q "guard after C untouched" "$dir/edge.txt" || { echo "FAIL: no guard verdict"; exit 1; }
echo "ok: the right shader checks out, the wrong one is caught, the library's kernel runs"
