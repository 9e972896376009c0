#!/usr/bin/env bash
# Packs what a run on the GPU machine needs (it has no LLVM and no build
# tools for us) into .device/bundle.tgz: the library and the test and
# benchmark programs, stripped. tests/device/h200.sh unpacks and runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${XPU_BUILD_DIR:-$root/build}"
stage="$root/.device/stage"
rm -rf "$stage" && mkdir -p "$stage/lib" "$stage/bin"
strip -o "$stage/lib/libxpujit.so.0" "$build/src/libxpujit.so.0.1.0"
ln -sf libxpujit.so.0 "$stage/lib/libxpujit.so"
for exe in tests/conformance tests/link_saxpy tests/dlopen_smoke tools/xpujit/xpujit \
           bench/xpu-bench-cache bench/xpu-bench-compile bench/xpu-bench-launch \
           bench/xpu-bench-stream bench/xpu-bench-reduce bench/xpu-bench-graphs \
           tests/cache_api tests/vulkan_tests; do
  [ -f "$build/$exe" ] && strip -o "$stage/bin/$(basename "$exe")" "$build/$exe"
done
tar -C "$stage" -czf "$root/.device/bundle.tgz" lib bin
rm -rf "$stage"
ls -la "$root/.device/bundle.tgz"
