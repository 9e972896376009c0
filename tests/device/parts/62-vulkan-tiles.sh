# The Vulkan tile tiers (issue 15) on the H200's NVIDIA Vulkan driver.
# 1. The tile conformance tests: f16 kernels in 32x32 blocks on 1 to 8
#    subgroups take the workgroup-scope tier where the device fact permits
#    it (each test checks the tier its kernel must take), both versions of
#    its K loops, its specialized strides and its edge stores included, and
#    the rest in 16x16x16 steps the subgroup tier; again with the
#    workgroup-scope tier turned off (XPU_TILE_TIERS_OFF), where all those
#    take the subgroup tier; then with cooperativeMatrixWorkgroupScope
#    disabled, and cooperativeMatrix disabled (the notes must say so). It
#    fails without a Vulkan device, and unless the device's
#    tile.cooperative-matrix and tile.cooperative-matrix-workgroup facts are
#    available (xpujit devices --caps), so the tiers really ran.
# 2. C = A·B in f16 with f32 sums at 1024, 4096 and 8192 on vulkan:0: the
#    workgroup-scope tier (the subgroup one turned off; --expect-tier
#    cooperative-matrix-workgroup) and a few blocks on the subgroup tier, each
#    run self-checked on sampled elements against float64; then the table
#    with the CUDA tier's rows and torch references of this call (the best
#    CUDA f16 block and torch run here when part 60 did not run before).
#    Writes $res/gemm-vulkan.md (bench/gemm/table.py).
# XPU_DEVICE_QUICK=1 (for a session short of device time): the first two
# conformance runs, and each tier's best blocks only.
quick="${XPU_DEVICE_QUICK:-0}"

step "tiles: the tile conformance tests on the NVIDIA Vulkan driver"
check env XPU_TEST_BACKEND=vulkan "$bin/conformance" '-ts=tiles'
check env XPU_TEST_BACKEND=vulkan XPU_TILE_TIERS_OFF=cooperative-matrix-workgroup \
  "$bin/conformance" '-ts=tiles'
if [ "$quick" != 1 ]; then
  check env XPU_TEST_BACKEND=vulkan XPU_TILE_TIERS_OFF=cooperative-matrix \
    XPU_VULKAN_DISABLE_FEATURES=cooperativeMatrixWorkgroupScope "$bin/conformance" '-ts=tiles'
  check env XPU_TEST_BACKEND=vulkan XPU_VULKAN_DISABLE_FEATURES=cooperativeMatrix \
    "$bin/conformance" '-ts=tiles'
fi
check_to "$res/vulkan-caps.txt" "$bin/xpujit" devices --caps
check grep -Eq "tile\.cooperative-matrix +available" "$res/vulkan-caps.txt"
check grep -Eq "tile\.cooperative-matrix-workgroup +available" "$res/vulkan-caps.txt"

step "tiles: xpujit tile variants on vulkan:0 (f16; cooperative-matrix-workgroup, cooperative-matrix)"
gemm_sizes=1024,4096,8192
# Each block's sums one workgroup-scope matrix (the driver spreads it over
# the workgroup), in blocks whose operand slices fit the 40 KiB the driver
# leaves beside the matrices; the best blocks again in grouped order.
wg_blocks="64x128x32:128 128x128x32:256 128x128x64:256 128x128x64:128 128x256x32:256
  128x256x64:256 256x128x32:256 256x128x64:256 64x256x64:256"
wg_grouped="128x128x64:128 128x256x64:256" groups="8 16"
sg_blocks="64x64x32:128 64x128x32:128 128x128x32:256 128x256x32:256 128x256x32:512"
if [ "$quick" = 1 ]; then
  wg_blocks="128x128x64:128 128x256x32:256 128x256x64:256" wg_grouped="128x256x64:256" groups=16
  sg_blocks="128x256x32:512"
fi
for v in $wg_blocks; do
  check_to "$res/gemm-xpu-vulkan-f16-${v/:/-}-wg.jsonl" env XPU_TILE_TIERS_OFF=cooperative-matrix \
    "$bin/xpu-bench-gemm" --device vulkan:0 --type f16 --sizes "$gemm_sizes" --tile "${v%%:*}" --threads "${v##*:}" --iterations 5 \
    --expect-tier cooperative-matrix-workgroup
done
for v in $wg_grouped; do
  for g in $groups; do
    check_to "$res/gemm-xpu-vulkan-f16-${v/:/-}-g$g-wg.jsonl" env \
      XPU_TILE_TIERS_OFF=cooperative-matrix "$bin/xpu-bench-gemm" --device vulkan:0 --type f16 \
      --sizes 4096,8192 --tile "${v%%:*}" --threads "${v##*:}" --group "$g" --iterations 5 \
      --expect-tier cooperative-matrix-workgroup
  done
done
# The subgroup tier (16x16 matrices, 4 to 16 per subgroup) on the same
# blocks as some of the above and its best ones.
for v in $sg_blocks; do
  check_to "$res/gemm-xpu-vulkan-f16-${v/:/-}-sg.jsonl" env \
    XPU_TILE_TIERS_OFF=cooperative-matrix-workgroup "$bin/xpu-bench-gemm" --device vulkan:0 \
    --type f16 --sizes "$gemm_sizes" --tile "${v%%:*}" --threads "${v##*:}" --iterations 5 \
    --expect-tier cooperative-matrix
done
# The CUDA tier's best f16 block and torch.matmul in this call, when part 60
# did not run before (the ratios need the same machine).
if ! ls "$res"/gemm-xpu-cuda-f16-*.jsonl >/dev/null 2>&1; then
  check_to "$res/gemm-torch-f16.jsonl" python3 bench/gemm/reference_matmul.py --impl torch \
    --type f16 --sizes "$gemm_sizes" --iterations 20
  check_to "$res/gemm-xpu-cuda-f16-128x256x64-256-g16-wgmma.jsonl" "$bin/xpu-bench-gemm" \
    --device cuda:0 --type f16 --sizes "$gemm_sizes" --tile 128x256x64 --threads 256 --group 16 \
    --iterations 5 --expect-tier wgmma
fi
{
  echo "# C = A·B with xpujit's Vulkan tile tiers on ${gpu:-the GPU}"
  echo
  echo "Square n, f16 operands, f32 accumulation, median of the iterations after a"
  echo "warm-up (device events), each run checked on 2048 sampled elements against"
  echo "float64; \`tests/device/parts/62-vulkan-tiles.sh\`, bench/gemm/."
  echo
  python3 bench/gemm/table.py "$res"/gemm-*.jsonl
} > "$res/gemm-vulkan.md"
cat "$res/gemm-vulkan.md"
