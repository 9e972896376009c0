# Tiles and mac (issue 15) on the H200's CUDA driver; the Vulkan tiers are
# part 62.
# 1. The tile conformance tests on cuda:0 (f16/bf16 kernels take the
#    wgmma or mma.sync tier there, whichever they fit, and check it; then
#    again with wgmma turned off, XPU_TILE_TIERS_OFF=wgmma, so the shapes
#    wgmma takes run on mma.sync too); each fails without a device.
# 1b. The cooperative-matrix SPIR-V of tests/lit/tiles-coop-matrix.mlir
#    through spirv-val --target-env vulkan1.3 where the machine's spirv-val
#    knows SPV_KHR_cooperative_matrix (SPIRV-Tools v2023.4+; SKIP otherwise).
# 2. The PTX of the mma.sync, wgmma and staged-copy lit kernels for sm_90 (assembled
#    by ptxas where the machine has one; the conformance tests above ran
#    the same lowerings on the device).
# 3. C = A·B at 1024, 4096 and 8192, bf16 and f16 operands, f32 sums:
#    torch.matmul (cuBLAS) as the reference, xpujit's tile kernel in several
#    variants on cuda:0 (each must be given the tier it is run for:
#    --expect-tier; wgmma, and mma.sync with wgmma turned off), each run
#    self-checked on sampled elements against float64. Writes $res/gemm.md
#    (bench/gemm/table.py).

step "tiles: the tile conformance tests on cuda:0"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-ts=tiles'
check env XPU_TEST_BACKEND=cuda XPU_TILE_TIERS_OFF=wgmma "$bin/conformance" '-ts=tiles'

step "tiles: the cooperative-matrix SPIR-V through spirv-val"
coop_spv="$run/tiles-coop-matrix.spv"
check "$bin/xpujit" compile tests/lit/tiles-coop-matrix.mlir --target spirv \
  --chip cooperative-matrix -o "$coop_spv"
check "$bin/xpujit" compile tests/lit/tiles-coop-matrix-workgroup.mlir --target spirv \
  --chip cooperative-matrix-workgroup -o "$run/tiles-coop-matrix-workgroup.spv"
if spirv-val --version 2>/dev/null | grep -Eq 'v(202[4-9]|2023\.[4-9])'; then
  check spirv-val --target-env vulkan1.3 "$coop_spv"
  check spirv-val --target-env vulkan1.3 "$run/tiles-coop-matrix-workgroup.spv"
else
  echo "SKIP: spirv-val here does not know SPV_KHR_cooperative_matrix (needs SPIRV-Tools v2023.4+)"
fi

step "tiles: the mma.sync PTX for the device"
tiles_dump="$run/tiles-ptx"
mkdir -p "$tiles_dump"
check env XPU_DUMP_DIR="$tiles_dump" XPU_TILE_TIERS_OFF=wgmma "$bin/xpujit" compile tests/lit/tiles-mma-sync.mlir \
  --target nvptx --chip sm_90 -o "$tiles_dump/k.cubin"
check grep -q "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" "$tiles_dump"/*.ptx
wgmma_dump="$run/tiles-wgmma-ptx"
mkdir -p "$wgmma_dump"
check env XPU_DUMP_DIR="$wgmma_dump" "$bin/xpujit" compile tests/lit/tiles-wgmma.mlir \
  --target nvptx --chip sm_90 -o "$wgmma_dump/k.cubin"
check grep -q "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16" "$wgmma_dump"/*.ptx
staged_dump="$run/tiles-staged-ptx"
mkdir -p "$staged_dump"
check env XPU_DUMP_DIR="$staged_dump" "$bin/xpujit" compile tests/lit/tiles-staged.mlir \
  --target nvptx --chip sm_90 -o "$staged_dump/k.cubin"
check grep -q "cp.async.cg.shared.global" "$staged_dump"/*.ptx

step "tiles: torch.matmul (cuBLAS), bf16 and f16"
gemm_sizes=1024,4096,8192
for t in bf16 f16; do
  check_to "$res/gemm-torch-$t.jsonl" python3 bench/gemm/reference_matmul.py --impl torch \
    --type "$t" --sizes "$gemm_sizes" --iterations 20
done

step "tiles: xpujit tile variants on cuda:0 (bf16, f16; wgmma and mma.sync)"
for t in bf16 f16; do
  # Staged operand copies (2-4 stages) in as much of the 227 KiB a block may
  # have as they need (past 48 KiB the kernel's shared memory is dynamic):
  # 128x256x64 takes 4 stages of 48 KiB.
  for v in 64x128x16:128 128x128x32:256 128x128x64:256 128x256x32:256 128x256x64:256; do
    check_to "$res/gemm-xpu-cuda-$t-${v/:/-}-wgmma.jsonl" "$bin/xpu-bench-gemm" --device cuda:0 \
      --type "$t" --sizes "$gemm_sizes" --tile "${v%%:*}" --threads "${v##*:}" --iterations 5 \
      --expect-tier wgmma
  done
  # The best blocks again in grouped order (8 or 16 block rows at a time).
  for v in 128x128x64:256 128x256x64:256; do
    for g in 8 16; do
      check_to "$res/gemm-xpu-cuda-$t-${v/:/-}-g$g-wgmma.jsonl" "$bin/xpu-bench-gemm" \
        --device cuda:0 --type "$t" --sizes 4096,8192 --tile "${v%%:*}" --threads "${v##*:}" \
        --group "$g" --iterations 5 --expect-tier wgmma
    done
  done
  for v in 128x128x32:256 128x256x32:256; do
    check_to "$res/gemm-xpu-cuda-$t-${v/:/-}-mma.jsonl" env XPU_TILE_TIERS_OFF=wgmma \
      "$bin/xpu-bench-gemm" --device cuda:0 --type "$t" --sizes "$gemm_sizes" \
      --tile "${v%%:*}" --threads "${v##*:}" --iterations 5 --expect-tier mma.sync
  done
done
{
  echo "# C = A·B with xpujit tiles vs torch.matmul (cuBLAS) on the H200"
  echo
  echo "Square n, f32 accumulation (torch: bf16/f16 results), median of the iterations"
  echo "after a warm-up (device events), each xpujit run checked on 2048 sampled elements"
  echo "against float64; \`tests/device/parts/60-tiles.sh\`, bench/gemm/."
  echo
  python3 bench/gemm/table.py "$res"/gemm-*.jsonl
} > "$res/gemm.md"
cat "$res/gemm.md"
