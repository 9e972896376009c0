#!/usr/bin/env bash
# Runs on the GPU machine (see README "GPU runs"): unpacks .device/bundle.tgz
# (made by scripts/device-bundle.sh), then the CUDA conformance suite, the C
# programs, the tool, and the benchmarks, writing logs and results to $OUT.
set -u
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
OUT="${OUT:-$root/.device/out}"
mkdir -p "$OUT"
exec > >(tee "$OUT/run.log") 2>&1
run=.device/run
rm -rf "$run" && mkdir -p "$run" && tar -C "$run" -xzf .device/bundle.tgz
export LD_LIBRARY_PATH="$root/$run/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XPU_CACHE_DIR="$root/$run/cache"
bin="$run/bin"
status=0
step() { echo; echo "=== $*"; }
check() { "$@"; rc=$?; [ $rc -eq 0 ] || { echo "FAILED ($rc): $*"; status=1; }; }

step "machine"
date -u; uname -a; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
ldd "$run/lib/libxpujit.so" | grep -v "^\s*/" || true

step "devices"
check "$bin/xpujit" devices --caps

step "conformance on cuda (cold cache, then from the cache)"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tce=*device fault*'
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tce=*device fault*'
step "a device fault, in a process of its own"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tc=*device fault*'
step "conformance on cpu (same library, same machine)"
check env XPU_TEST_BACKEND=cpu "$bin/conformance"

step "C programs on the default device"
check "$bin/link_saxpy" examples/saxpy.mlir
check "$bin/dlopen_smoke" "$run/lib/libxpujit.so"
check "$bin/xpujit" run examples/saxpy.mlir --kernel saxpy --grid 4096 --block 256 \
  --arg 'buf:f32[1048576]=rand' --arg 'buf:f32[1048576]=iota' --arg f32:2 --arg u32:1048576

step "benchmarks"
check "$bin/xpu-bench-launch" --device cuda:0 --out "$OUT/launch-cuda.md"
check "$bin/xpu-bench-compile" --device cuda:0 --out "$OUT/compile-cuda.md"
check "$bin/xpu-bench-cache" --device cuda:0 --out "$OUT/cache-cuda.md"
check "$bin/xpu-bench-stream" --device cuda:0 --log2n 27 --iterations 100 | tee "$OUT/stream-xpu-cuda.jsonl"
if command -v nvcc >/dev/null; then
  nvcc --version | tail -2
  check nvcc -O3 -arch=sm_90 -o "$run/stream_nvcc" bench/babelstream/stream_nvcc.cu
  check "$run/stream_nvcc" --log2n 27 --iterations 100 | tee "$OUT/stream-nvcc.jsonl"
fi

step "summary"
{
  echo "# xpujit on the H200 ($(date -u +%Y-%m-%d))"
  echo
  echo "Command: \`bash tests/device/h200.sh\` (bundle from scripts/device-bundle.sh)."
  echo "Checks: conformance on cuda (cold and cached) and cpu, the device-fault case,"
  echo "C programs and the tool; overall status $status."
  echo
  [ -f "$OUT/stream-nvcc.jsonl" ] && python3 bench/babelstream/compare.py \
    "$OUT/stream-nvcc.jsonl" "$OUT/stream-xpu-cuda.jsonl" $(ls "$OUT"/stream-xpu-vulkan.jsonl 2>/dev/null)
  for f in launch-cuda compile-cuda cache-cuda; do
    [ -f "$OUT/$f.md" ] && { echo; sed 's/^# /## /' "$OUT/$f.md"; }
  done
} > "$OUT/summary.md"
cat "$OUT/summary.md"

step "done: status $status"
exit $status
