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
# Every program the build made for tests, benchmarks and the tool (ELF
# executables one level down), so a new test needs no entry here; but not
# unit_tests, which links the compiler statically (120 MB stripped) and needs
# no GPU: the device tool carries at most 64 MiB.
for exe in $(find "$build/tests" "$build/bench" "$build/tools/xpujit" -maxdepth 1 -type f -perm -u+x); do
  head -c 4 "$exe" | grep -q ELF || continue
  [ "$(basename "$exe")" = unit_tests ] && continue
  strip -o "$stage/bin/$(basename "$exe")" "$exe"
done
tar -C "$stage" -czf "$root/.device/bundle.tgz" lib bin
rm -rf "$stage"
ls -la "$root/.device/bundle.tgz"
