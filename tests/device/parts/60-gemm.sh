# Tiles and mac (issue 15) on the H200: the tile conformance tests on CUDA
# and on the NVIDIA Vulkan driver (each fails when its backend has no
# device), then C = A·B at 1024, 4096 and 8192 with bf16 and f16 operands
# and f32 accumulation: torch.matmul (cuBLAS) as the reference, xpujit's
# tile kernel in several variants (tile shape, workgroup size) on cuda:0 and
# f16 on vulkan:0, each run self-checked on sampled elements against
# float64 and naming the tier its [mma-tiering] note chose. Writes
# $res/gemm.md (bench/gemm/table.py).

step "gemm: the tile conformance tests on cuda:0 and the NVIDIA Vulkan driver"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-ts=tiles'
check env XPU_TEST_BACKEND=vulkan "$bin/conformance" '-ts=tiles'

step "gemm: torch.matmul (cuBLAS), bf16 and f16"
gemm_sizes=1024,4096,8192
for t in bf16 f16; do
  check_to "$res/gemm-torch-$t.jsonl" python3 bench/gemm/reference_matmul.py --impl torch \
    --type "$t" --sizes "$gemm_sizes" --iterations 20
done

step "gemm: xpujit tile variants on cuda:0 (bf16, f16) and vulkan:0 (f16)"
for t in bf16 f16; do
  for v in 64x64x16:256 64x64x32:256 32x64x32:128; do
    check_to "$res/gemm-xpu-cuda-$t-${v%%:*}.jsonl" "$bin/xpu-bench-gemm" --device cuda:0 \
      --type "$t" --sizes "$gemm_sizes" --tile "${v%%:*}" --threads "${v##*:}" --iterations 5
  done
done
for v in 64x64x16:256 32x64x32:128; do
  check_to "$res/gemm-xpu-vulkan-f16-${v%%:*}.jsonl" "$bin/xpu-bench-gemm" --device vulkan:0 \
    --type f16 --sizes "$gemm_sizes" --tile "${v%%:*}" --threads "${v##*:}" --iterations 5
done
{
  echo "# C = A·B with xpujit tiles vs torch.matmul (cuBLAS) on the H200"
  echo
  echo "Square n, f32 accumulation, median of the iterations after a warm-up (device events),"
  echo "each xpujit run checked on 2048 sampled elements against float64;"
  echo "\`tests/device/parts/60-gemm.sh\`, bench/gemm/."
  echo
  python3 bench/gemm/table.py "$res"/gemm-*.jsonl
} > "$res/gemm.md"
cat "$res/gemm.md"
