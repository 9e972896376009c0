# The scheduler (issue 17) on the H200: the submission, ordering, graph and
# automatic-capture conformance tests on CUDA and on the NVIDIA Vulkan
# driver, again through the raw path (XPU_SCHEDULER=bypass), saxpy's
# manifest from ptxas and the driver, then chains of 100 saxpy(2^20)
# launches: explicit and automatic replay against a CUDA graph made by hand
# with the driver API from the same cubin (bench/graphs/), and Vulkan's
# replay against the CUDA backend. Each step fails when its backend has no
# device.

step "graphs: scheduler and graph conformance on cuda:0"
check env XPU_TEST_BACKEND=cuda "$bin/conformance" '-tc=scheduler*,graphs:*,automatic*'
check env XPU_TEST_BACKEND=cuda XPU_SCHEDULER=bypass "$bin/conformance" '-tc=*bypass*,graphs:*'
step "graphs: ... on the NVIDIA Vulkan driver"
check env XPU_TEST_BACKEND=vulkan "$bin/conformance" '-tc=scheduler*,graphs:*,automatic*'
check env XPU_TEST_BACKEND=vulkan XPU_SCHEDULER=bypass "$bin/conformance" '-tc=*bypass*,graphs:*'

step "graphs: saxpy's manifest on cuda:0 and for sm_90 without a device"
check_to "$res/manifest-sm90.json" "$bin/xpujit" compile examples/saxpy.mlir --target nvptx \
  --chip sm_90 --manifest

step "graphs: chains of 100 saxpy(2^20), graphs and automatic capture"
for d in cuda:0 vulkan:0; do
  check "$bin/xpu-bench-graphs" --device "$d" --chain 100 --n 1048576 --iterations 50 \
    --out "$res/graphs-${d%%:*}.txt" --json "$res/graphs-${d%%:*}.json"
done
python3 - "$res" > "$res/graphs.md" <<'PY'
import json, os, sys
res = sys.argv[1]
def load(name):
    path = os.path.join(res, name)
    return json.load(open(path)) if os.path.exists(path) else None
cuda, vk = load("graphs-cuda.json"), load("graphs-vulkan.json")
print("# Chains replayed: graphs and automatic capture (issue 17)\n")
print("100 saxpy(2^20) launches and one sync, median of 50 chains, host clock; "
      "`tests/device/parts/60-graphs.sh`, bench/graphs/. Targets from issue 17.\n")
print("| measure | value | target | met |")
print("|---|---:|---:|---|")
def row(what, value, target, ok):
    print(f"| {what} | {value} | {target} | {'yes' if ok else 'NO'} |")
if cuda:
    hand = cuda["CUDA graph by hand (cuGraphLaunch)"]
    g = cuda["explicit graph (xpu_graph_launch)"] / hand
    a = cuda["xpu_launch, automatic capture"] / hand
    one = cuda["xpu_launch one by one"] / hand
    host = cuda["host: replaying the graph (xpu_graph_launch / 100)"]
    row("explicit graph / CUDA graph by hand", f"{g:.3f}", "<= 1.05", g <= 1.05)
    row("automatic capture / CUDA graph by hand", f"{a:.3f}", "<= 1.05", a <= 1.05)
    row("xpu_launch one by one / CUDA graph by hand", f"{one:.3f}", "(today 1.36)", True)
    row("host cost per kernel, graph of 100 empty kernels", f"{host:.3f} µs", "<= 1 µs",
        host <= 1.0)
    row("chain correct (cuda)", f"{cuda['wrong']} wrong", "0", cuda["wrong"] == 0)
if cuda and vk:
    vkPer = vk["explicit graph (xpu_graph_launch)"] / vk["chain"]
    cudaPer = cuda["xpu_launch one by one"] / cuda["chain"]
    row("vulkan graph per kernel / cuda xpu_launch per kernel", f"{vkPer / cudaPer:.3f}",
        "<= 1", vkPer <= cudaPer)
    row("chain correct (vulkan)", f"{vk['wrong']} wrong", "0", vk["wrong"] == 0)
for name, data in (("cuda", cuda), ("vulkan", vk)):
    if data:
        print(f"\n{name}: " + ", ".join(f"{k} {v:.1f}" for k, v in data.items()
                                         if isinstance(v, float)))
PY
cat "$res/graphs.md"
