#!/usr/bin/env bash
# Set-up in one command: install what is missing, build, and run the saxpy
# example with the xpujit tool on the default device (the CPU when there is
# no GPU).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${XPU_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
"$build/tools/xpujit/xpujit" devices
"$build/tools/xpujit/xpujit" run "$root/examples/saxpy.mlir" --kernel saxpy \
  --grid 4 --block 256 --arg 'buf:f32[1024]=rand' --arg 'buf:f32[1024]=iota' \
  --arg f32:2 --arg u32:1024
