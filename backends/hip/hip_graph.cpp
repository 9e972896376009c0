// Launch graphs on HIP; see hip_graph.h.
#include "hip_graph.h"

#include "../common/driver_launch.h"

namespace xpu::hip {

using rt::Status;

namespace {

class HipGraph : public rt::BackendGraph {
public:
  explicit HipGraph(GraphContext c) : context(std::move(c)) {}
  ~HipGraph() override {
    if (!context.enter().isOk())
      return;
    if (exec)
      context.hip->hipGraphExecDestroy(exec);
    if (graph)
      context.hip->hipGraphDestroy(graph);
  }
  const char *kind() const override { return "hip graph"; }

  /// The node's parameters; the runtime copies the values they point to.
  Status params(const rt::LaunchRequest &r, driver::KernelParams &values,
                HipKernelNodeParams &p) {
    XPU_RETURN_IF_ERROR(values.fill(r));
    p = {};
    p.func = reinterpret_cast<void *>(context.function(r.kernel));
    p.gridDim = {r.grid[0], r.grid[1], r.grid[2]};
    p.blockDim = {r.block[0], r.block[1], r.block[2]};
    p.sharedMemBytes = r.dynamicSharedBytes;
    p.kernelParams = values.data();
    return {};
  }

  Status update(size_t index, const rt::LaunchRequest &r) override {
    XPU_RETURN_IF_ERROR(context.enter());
    driver::KernelParams values;
    HipKernelNodeParams p;
    XPU_RETURN_IF_ERROR(params(r, values, p));
    return context.check(
        context.hip->hipGraphExecKernelNodeSetParams(exec, nodes.at(index), &p),
        "hipGraphExecKernelNodeSetParams of '" + r.info->name + "'");
  }

  GraphContext context;
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  std::vector<hipGraphNode_t> nodes;
  driver::InFlightKernels kernels; ///< the graph's kernel names
};

} // namespace

Status createHipGraph(const GraphContext &context,
                      const std::vector<const rt::LaunchRequest *> &requests,
                      const std::vector<std::vector<uint32_t>> &after,
                      std::unique_ptr<rt::BackendGraph> &out) {
  const Runtime &hip = *context.hip;
  if (!hip.hipGraphCreate || !hip.hipGraphAddKernelNode || !hip.hipGraphInstantiate ||
      !hip.hipGraphLaunch || !hip.hipGraphExecKernelNodeSetParams ||
      !hip.hipGraphExecDestroy || !hip.hipGraphDestroy)
    return {XPU_ERROR_UNSUPPORTED, hip.library + " lacks the hipGraph entry points"};
  XPU_RETURN_IF_ERROR(context.enter());
  auto g = std::make_unique<HipGraph>(context);
  XPU_RETURN_IF_ERROR(context.check(hip.hipGraphCreate(&g->graph, 0), "hipGraphCreate"));
  for (size_t i = 0; i < requests.size(); ++i) {
    driver::KernelParams values;
    HipKernelNodeParams p;
    XPU_RETURN_IF_ERROR(g->params(*requests[i], values, p));
    std::vector<hipGraphNode_t> deps;
    for (uint32_t j : after[i])
      deps.push_back(g->nodes[j]);
    hipGraphNode_t node = nullptr;
    XPU_RETURN_IF_ERROR(context.check(
        hip.hipGraphAddKernelNode(&node, g->graph, deps.data(), deps.size(), &p),
        "hipGraphAddKernelNode of '" + requests[i]->info->name + "'"));
    g->nodes.push_back(node);
    g->kernels.add(requests[i]->info->name);
  }
  char log[1024] = {0};
  hipGraphNode_t failed = nullptr;
  hipError_t e = hip.hipGraphInstantiate(&g->exec, g->graph, &failed, log, sizeof log);
  if (e != hipSuccess)
    return context.check(e, std::string("hipGraphInstantiate") +
                                (log[0] ? std::string(" (") + log + ")" : ""));
  out = std::move(g);
  return {};
}

Status launchHipGraph(rt::BackendGraph &graph, hipStream_t stream,
                      driver::InFlightKernels &running) {
  auto &g = static_cast<HipGraph &>(graph);
  XPU_RETURN_IF_ERROR(g.context.enter());
  XPU_RETURN_IF_ERROR(
      g.context.check(g.context.hip->hipGraphLaunch(g.exec, stream), "hipGraphLaunch"));
  running.add(g.kernels); // a fault at the next sync names them
  return {};
}

} // namespace xpu::hip
