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
