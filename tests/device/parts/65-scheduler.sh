# The scheduler (issue 17) on the H200: the manifest, submission, ordering,
# graph and automatic-capture conformance tests on CUDA and on the NVIDIA
# Vulkan driver, again through the raw path (XPU_SCHEDULER=bypass); saxpy's
# manifest for sm_90 without a device; then, in one run on cuda:0 and
# vulkan:0, chains of 100 saxpy(2^20) launches + one sync as raw launches,
# explicit graph replay, automatic capture and a CUDA graph made by hand
# with the driver API from the same cubin, the host cost per kernel of a
# graph of 100 empty kernels, and Vulkan's graph replay per kernel against
# the CUDA backend's (bench/graphs/). Each check fails when its backend has
# no device (the tests' harness and the benchmark refuse a missing one).

sched_tests='-tc=scheduler*,graphs:*,automatic capture*'
for sched_b in cuda vulkan; do
  step "scheduler: manifests, submissions, ordering, graphs, automatic capture on $sched_b"
  check env XPU_TEST_BACKEND=$sched_b "$bin/conformance" "$sched_tests"
  check env XPU_TEST_BACKEND=$sched_b XPU_SCHEDULER=bypass "$bin/conformance" "$sched_tests"
done

step "scheduler: saxpy's manifest for sm_90 without a device"
check_to "$res/scheduler-manifest-sm90.json" "$bin/xpujit" compile examples/saxpy.mlir \
  --target nvptx --chip sm_90 --manifest

step "scheduler: chains of 100 saxpy(2^20) replayed, cuda:0 and vulkan:0 in one run"
check "$bin/xpu-bench-graphs" --device cuda:0 --device vulkan:0 --chain 100 --n 1048576 \
  --iterations 50 --out "$res/scheduler-graphs.md" --tsv "$res/scheduler-graphs.tsv"

# A compute-unit budget reserved by a CUDA green context (driver 12.5+):
# 16 of the H200's 132 SMs; the result must say 16 reserved, every element
# must be right, and the program prints (never asserts) the time of a long
# kernel with and without the budget, and what 17 and 131 SMs reserve
# (rounded up to the driver's 8-SM granularity; 131 rounds to the whole
# device and must be refused as not honoured). Fails when cuda:0 is missing.
step "scheduler: a budget of 16 SMs through a green context on cuda:0"
check "$bin/xpu-bench-budget" --device cuda:0 --units 16 --iterations 5 \
  --out "$res/scheduler-budget-cuda.md"

# Manifest facts from the NVIDIA Vulkan driver's pipeline statistics
# (VK_KHR_pipeline_executable_properties): the log lists every statistic
# the driver names for saxpy's pipeline (name = value (description)), the
# manifest shows which of them became registers, spills, shared or private
# memory (each citing its statistic) and which stayed absent. Printed for
# the lead to read, not asserted beyond this: the run must be on the
# NVIDIA device and succeed, and a fact the manifest claims must cite a
# statistic.
step "scheduler: pipeline statistics and saxpy's manifest on vulkan:0 (NVIDIA)"
# (bash -c: the log is on stderr, and check_to keeps stdout.)
check_to "$res/scheduler-vulkan-statistics.txt" bash -c 'XPU_LOG=debug "$0" run \
  examples/saxpy.mlir --device vulkan:0 --kernel saxpy --grid 4096 --block 256 \
  --arg "buf:f32[1048576]=rand" --arg "buf:f32[1048576]=rand" --arg f32:2 \
  --arg i32:1048576 --manifest 2>&1' "$bin/xpujit"
check grep -q "device NVIDIA" "$res/scheduler-vulkan-statistics.txt"
check grep -q 'executable "' "$res/scheduler-vulkan-statistics.txt"
