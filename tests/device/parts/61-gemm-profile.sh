# Where the best wgmma GEMM block spends its time (issue 15), against
# cuBLAS in the same run: Nsight Compute's speed-of-light, warp-state,
# scheduler and occupancy sections for one 4096³ bf16 launch of each
# (xpu-bench-gemm 128x128x64 on 256 invocations, torch.matmul), with the
# clocks left alone (--clock-control none, METHOD.md). ncu reads the
# hardware counters on Firecracker machines only (KINDS.md): elsewhere the
# step says so and writes nothing. Writes $res/gemm-profile.md.

step "tiles: ncu profile of a 4096³ bf16 GEMM (xpujit wgmma 128x128x64/256, torch.matmul)"
ncu_sections="--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats"
if ncu --version >/dev/null 2>&1; then
  # Two warm-up launches of each, then one profiled.
  ncu --clock-control none $ncu_sections --launch-skip 2 --launch-count 1 -k regex:gemm \
    "$bin/xpu-bench-gemm" --device cuda:0 --type bf16 --sizes 4096 --tile 128x128x64 \
    --threads 256 --iterations 3 --expect-tier wgmma > "$res/ncu-xpujit.txt" 2>&1
  xpu_rc=$?
  ncu --clock-control none $ncu_sections --launch-skip 2 --launch-count 1 \
    -k regex:'gemm|sm90|cutlass|nvjet' python3 bench/gemm/reference_matmul.py --impl torch \
    --type bf16 --sizes 4096 --iterations 3 > "$res/ncu-cublas.txt" 2>&1
  ref_rc=$?
  {
    echo "# ncu: 4096³ bf16, xpujit wgmma 128x128x64/256 vs torch.matmul (status $xpu_rc / $ref_rc)"
    echo
    for f in ncu-xpujit ncu-cublas; do
      echo "## $f"
      echo
      echo '```'
      grep -E "^  [a-z_]|Duration|Throughput|Registers|Shared Memory|Warp Cycles|Issued|Eligible|Active Warps|Occupancy|Stall|Block Size|Grid Size|==PROF==|==ERROR==" "$res/$f.txt" | head -80
      echo '```'
      echo
    done
  } > "$res/gemm-profile.md"
  cat "$res/gemm-profile.md"
else
  echo "SKIP: no ncu on this machine"
fi
