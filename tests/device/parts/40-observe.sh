# Observing on the GPU machine (issue 18): the trace, the module and
# dispatch reports and the logs of `xpujit run` on cuda:0 and the NVIDIA
# Vulkan device, with device times from CUDA events and Vulkan timestamps
# (tests/observe/test_observe.py: fails when the backend has no device,
# since the report must name that backend); the hooks test on CUDA; and
# the launch cost with observers off, with no-op hooks and recording.
step "observe: traces, reports and logs on cuda and vulkan"
for b in cuda vulkan; do
  check env XPU_BACKEND=$b python3 tests/observe/test_observe.py "$bin/xpujit" examples \
    "$root/$run/observe-$b"
  cp "$root/$run/observe-$b/t.json" "$res/observe-trace-$b.json" 2>/dev/null || true
done
check env XPU_BACKEND=cuda "$bin/observe_hooks"

step "observe: launch cost with observers off and on (cuda:0)"
check "$bin/xpu-bench-observe" --device cuda:0 --scratch "$res" --out "$res/observe-launch-cuda.md"
