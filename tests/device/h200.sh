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
# Results gather here and come back as one archive: the device tool returns
# at most 8 files from $OUT.
res="$run/results"
mkdir -p "$res"
export LD_LIBRARY_PATH="$root/$run/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export XPU_CACHE_DIR="$root/$run/cache"
export XPU_LIBRARY="$root/$run/lib/libxpujit.so"
bin="$run/bin"
status=0
step() { echo; echo "=== $*"; }
check() { "$@"; rc=$?; [ $rc -eq 0 ] || { echo "FAILED ($rc): $*"; status=1; }; }
# check, keeping the output in FILE too (a `check ... | tee` would lose the
# status in the pipeline's subshell).
check_to() { local file=$1; shift; check "$@" > "$file"; cat "$file"; }

# The machine may lack the Vulkan loader: carry Debian's Vulkan loader packages in .gl/
# (see the device README) and unpack it; point the loader at NVIDIA's ICD.
if ! ldconfig -p | grep -q libvulkan.so.1 && ls .gl/libvulkan1*.deb >/dev/null 2>&1; then
  for f in .gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nv_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nv_icd" ] && export VK_DRIVER_FILES="$nv_icd"

# XPU_DEVICE_STAGES picks what runs, so the whole script can be split over
# two device calls of 10 minutes: "base" (everything before the parts) and
# "parts"; XPU_DEVICE_PARTS is one or more globs (space-separated) of the
# part names to run (default all); globs that match no part fail the run.
device_stages="${XPU_DEVICE_STAGES:-base parts}"
parts_glob="${XPU_DEVICE_PARTS:-*}"
# The device tool may lend an H100 for an H200: summaries name the card that ran.
gpu="$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
if [[ " $device_stages " == *" base "* ]]; then
step "machine"
date -u; uname -a; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv
ldd "$run/lib/libxpujit.so" | grep -v "^\s*/" || true

step "devices"
check "$bin/xpujit" devices --caps

step "conformance on cuda (cold cache, then from the cache)"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tce=*device fault*,*graph fault*'
check env XPU_TEST_BACKEND=cuda XPU_TEST_EXPECT_CACHED=1 "$bin/conformance" '-tce=*device fault*,*graph fault*'
step "a device fault, in a process of its own"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tc=*device fault*'
step "a device fault in a replayed graph, in a process of its own"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tc=*graph fault*'
step "conformance on cpu (same library, same machine)"
check env XPU_TEST_BACKEND=cpu "$bin/conformance"

step "vulkan on the NVIDIA driver"
devices=$("$bin/xpujit" devices)
echo "$devices"
if grep -q "  vulkan  " <<<"$devices"; then
  check env XPU_TEST_BACKEND=vulkan "$bin/conformance" '-tce=*device fault*,*graph fault*'
  check env XPU_TEST_BACKEND=vulkan XPU_TEST_EXPECT_CACHED=1 "$bin/conformance" '-tce=*device fault*,*graph fault*'
  check env XPU_TEST_BACKEND=vulkan "$bin/vulkan_tests"
  check_to "$res/stream-xpu-vulkan.jsonl" "$bin/xpu-bench-stream" --device vulkan:0 --log2n 27 --iterations 100
  check "$bin/xpu-bench-launch" --device vulkan:0 --against cuda:0 --out "$res/launch-vulkan.md"
else
  # The script is meant to test Vulkan on the NVIDIA driver: no device is a failure.
  echo "FAILED: no vulkan device (VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}; carry the loader packages in .gl/)"
  status=1
fi

step "C programs on the default device"
check "$bin/link_saxpy" examples/saxpy.mlir
check "$bin/dlopen_smoke" "$run/lib/libxpujit.so"
check "$bin/xpujit" run examples/saxpy.mlir --kernel saxpy --grid 4096 --block 256 \
  --arg 'buf:f32[1048576]=rand' --arg 'buf:f32[1048576]=iota' --arg f32:2 --arg u32:1048576

step "Python package (ctypes over the bundled library)"
if python3 -c "import numpy, pytest" 2>/dev/null; then
  check python3 -m pytest -q -p no:cacheprovider tests/python
else
  for d in cuda:0 vulkan:0; do check env PYTHONPATH=bindings/python python3 examples/saxpy.py $d; done
fi

step "benchmarks"
check "$bin/xpu-bench-launch" --device cuda:0 --out "$res/launch-cuda.md"
check "$bin/xpu-bench-compile" --device cuda:0 --out "$res/compile-cuda.md"
check "$bin/xpu-bench-cache" --device cuda:0 --out "$res/cache-cuda.md"
check_to "$res/stream-xpu-cuda.jsonl" "$bin/xpu-bench-stream" --device cuda:0 --log2n 27 --iterations 100
if command -v nvcc >/dev/null; then
  nvcc --version | tail -2
  check nvcc -O3 -arch=sm_90 -o "$run/stream_nvcc" bench/babelstream/stream_nvcc.cu
  check_to "$res/stream-nvcc.jsonl" "$run/stream_nvcc" --log2n 27 --iterations 100
fi

fi

# Each topic's checks and benchmarks live in tests/device/parts/NAME.sh, run in
# name order with step, check, $bin, $res and $run available.
if [[ " $device_stages " == *" parts "* ]]; then
  ran=0
  read -ra globs <<<"$parts_glob"  # split on spaces without expanding them here
  for glob in "${globs[@]}"; do
    for part in tests/device/parts/$glob.sh; do
      [ -f "$part" ] || continue
      ran=$((ran + 1))
      step "part $(basename "$part" .sh)"
      # shellcheck source=/dev/null
      source "$part"
    done
  done
  if [ "$ran" = 0 ]; then
    echo "FAIL: XPU_DEVICE_PARTS='$parts_glob' names no part of tests/device/parts/"
    status=1
  fi
fi

step "summary"
{
  echo "# xpujit on ${gpu:-an unnamed GPU} ($(date -u +%Y-%m-%d))"
  echo
  echo "Command: \`XPU_DEVICE_STAGES='$device_stages' XPU_DEVICE_PARTS='$parts_glob' bash tests/device/h200.sh\`"
  echo "(bundle from scripts/device-bundle.sh)."
  if [[ " $device_stages " == *" base "* ]]; then
    echo "Checks: conformance on cuda (cold and cached), vulkan (cold and cached, when"
    echo "the NVIDIA Vulkan driver is found) and cpu, the device-fault case,"
    echo "C programs, the tool and the Python package, then the parts named;"
  else
    echo "Checks: the parts named only (tests/device/parts/);"
  fi
  echo "overall status $status."
  echo
  [ -f "$res/stream-nvcc.jsonl" ] && python3 bench/babelstream/compare.py \
    "$res/stream-nvcc.jsonl" "$res/stream-xpu-cuda.jsonl" $(ls "$res"/stream-xpu-vulkan.jsonl 2>/dev/null)
  for f in "$res"/*.md; do
    [ -f "$f" ] && { echo; sed 's/^# /## /' "$f"; }
  done
} > "$OUT/summary.md"
cat "$OUT/summary.md"
tar -C "$run" -czf "$OUT/results.tgz" results

step "done: status $status"
exit $status
