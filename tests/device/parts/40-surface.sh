# The kernel surface (issue 14) on the H200: the wave-operation, atomic,
# struct-argument, printf, function-value and async-copy conformance tests
# on CUDA and on the NVIDIA Vulkan driver (each fails when its backend has
# no device), then the f32 sum of 2^28 floats built from wave reductions
# against cub::DeviceReduce::Sum on the same data in the same run
# (bench/reduce/), and a tiled stencil with and without asynchronous copies
# (bench/async/).

step "surface: the kernel-surface conformance tests on cuda:0"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-ts=surface'
step "surface: ... on the NVIDIA Vulkan driver"
check env XPU_TEST_BACKEND=vulkan "$bin/conformance" '-ts=surface'

step "surface: f32 sum of 2^28 floats, wave reductions vs cub::DeviceReduce::Sum"
surface_rows=""
if command -v nvcc >/dev/null; then
  check nvcc -O3 -arch=sm_90 -o "$run/reduce_cub" bench/reduce/reduce_cub.cu
  check "$run/reduce_cub" --log2n 28 --iterations 100 | tee "$res/reduce-cub.jsonl"
else
  echo "FAILED: no nvcc for the CUB reference"
  status=1
fi
for d in cuda:0 vulkan:0; do
  check "$bin/xpu-bench-reduce" --device "$d" --log2n 28 --iterations 100 \
    | tee "$res/reduce-xpu-${d%%:*}.jsonl"
done
step "surface: a tiled stencil with and without asynchronous copies (cp.async on cuda)"
for d in cuda:0 vulkan:0; do
  check "$bin/xpu-bench-async" --device "$d" --log2n 26 --iterations 50 \
    | tee "$res/async-xpu-${d%%:*}.jsonl"
done
python3 - "$res" > "$res/surface.md" <<'PY'
import glob, json, os, sys
res = sys.argv[1]
rows = []
for path in sorted(glob.glob(os.path.join(res, "reduce-*.jsonl"))):
    for line in open(path):
        if line.startswith("{"):
            rows.append(json.loads(line))
cub = next((r for r in rows if r["impl"] == "cub"), None)
print("# f32 sum of 2^28 floats: wave reductions vs cub::DeviceReduce::Sum\n")
print("Median of 100 runs, device-event timing, GB/s of the data read once; "
      "`tests/device/parts/40-surface.sh`, bench/reduce/.\n")
print("| implementation | median ms | GB/s | / CUB | check |")
print("|---|---:|---:|---:|---|")
for r in rows:
    ratio = f"{r['gbps'] / cub['gbps']:.3f}" if cub else "-"
    print(f"| {r['impl']} | {r['median_ms']:.4f} | {r['gbps']:.1f} | {ratio} | {r['check']} |")
print("\n# A tiled 3-point stencil: shared tiles filled by xpu.async_copy vs plain loads\n")
print("2^26 floats, 256 per tile, median of 50 runs; GB/s counting one read and one write.\n")
print("| backend | kernel | median ms | GB/s | async / plain | check |")
print("|---|---|---:|---:|---:|---|")
for path in sorted(glob.glob(os.path.join(res, "async-*.jsonl"))):
    rs = [json.loads(l) for l in open(path) if l.startswith("{")]
    plain = next((r for r in rs if r["kernel"] == "stencil_plain"), None)
    for r in rs:
        ratio = f"{plain['median_ms'] / r['median_ms']:.3f}" if plain else "-"
        print(f"| {r['impl']} | {r['kernel']} | {r['median_ms']:.4f} | {r['gbps']:.1f} | {ratio} | {r['check']} |")
PY
cat "$res/surface.md"
