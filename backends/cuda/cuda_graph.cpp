// Launch graphs on CUDA; see cuda_graph.h.
#include "cuda_graph.h"

#include "../common/driver_launch.h"

namespace xpu::cuda {

using rt::Status;

namespace {

class CudaGraph : public rt::BackendGraph {
public:
  explicit CudaGraph(GraphContext c) : context(std::move(c)) {}
  ~CudaGraph() override {
    // An exec still running is freed by the driver once it completes.
    if (!context.enter().isOk())
      return;
    if (exec)
      context.drv->cuGraphExecDestroy(exec);
    if (graph)
      context.drv->cuGraphDestroy(graph);
  }
  const char *kind() const override { return "cuda graph"; }

  /// The node's parameters; the driver copies the values they point to.
  Status params(const rt::LaunchRequest &r, driver::KernelParams &values,
                CudaKernelNodeParams &p) {
    XPU_RETURN_IF_ERROR(values.fill(r));
    p = {};
    p.func = context.function(r.kernel);
    p.gridDimX = r.grid[0];
    p.gridDimY = r.grid[1];
    p.gridDimZ = r.grid[2];
    p.blockDimX = r.block[0];
    p.blockDimY = r.block[1];
    p.blockDimZ = r.block[2];
    p.sharedMemBytes = r.dynamicSharedBytes + context.launchShared(r.kernel);
    p.kernelParams = values.data();
    return {};
  }

  Status update(size_t index, const rt::LaunchRequest &r) override {
    XPU_RETURN_IF_ERROR(context.enter());
    driver::KernelParams values;
    CudaKernelNodeParams p;
    XPU_RETURN_IF_ERROR(params(r, values, p));
    return context.check(context.drv->cuGraphExecKernelNodeSetParams(exec, nodes.at(index), &p),
                         "cuGraphExecKernelNodeSetParams of '" + r.info->name + "'");
  }

  GraphContext context;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<CUgraphNode> nodes;
  driver::InFlightKernels kernels; ///< the graph's kernel names
};

} // namespace

Status createCudaGraph(const GraphContext &context,
                       const std::vector<const rt::LaunchRequest *> &requests,
                       const std::vector<std::vector<uint32_t>> & /*after: implied*/,
                       std::unique_ptr<rt::BackendGraph> &out) {
  const Driver &drv = *context.drv;
  if (!drv.missing.empty())
    return {XPU_ERROR_UNSUPPORTED,
            "the CUDA driver lacks what xpujit's graphs need: " + drv.missing};
  XPU_RETURN_IF_ERROR(context.enter());
  auto g = std::make_unique<CudaGraph>(context);
  XPU_RETURN_IF_ERROR(context.check(drv.cuGraphCreate(&g->graph, 0), "cuGraphCreate"));
  for (size_t i = 0; i < requests.size(); ++i) {
    driver::KernelParams values;
    CudaKernelNodeParams p;
    XPU_RETURN_IF_ERROR(g->params(*requests[i], values, p));
    // Stream order: each node waits for the one before it, which implies
    // every access-set edge of `after`. Those edges alone would let
    // independent kernels overlap, but cuGraphLaunch then costs far more
    // host time: on driver 580 (H200), 137 us for 100 independent empty
    // kernels against 4.7 us for the same 100 in a chain
    // (bench/results/h200-2026-12-01-b.md, "replaying the graph"; in a
    // chain 0.103 us per kernel: h200-2026-12-01-c.md).
    CUgraphNode node = nullptr, *previous = i ? &g->nodes[i - 1] : nullptr;
    XPU_RETURN_IF_ERROR(context.check(
        drv.cuGraphAddKernelNode(&node, g->graph, previous, previous ? 1 : 0, &p),
        "cuGraphAddKernelNode of '" + requests[i]->info->name + "'"));
    g->nodes.push_back(node);
    g->kernels.add(requests[i]->info->name);
  }
  XPU_RETURN_IF_ERROR(context.check(drv.cuGraphInstantiateWithFlags(&g->exec, g->graph, 0),
                                    "cuGraphInstantiateWithFlags"));
  out = std::move(g);
  return {};
}

Status launchCudaGraph(rt::BackendGraph &graph, CUstream stream,
                       driver::InFlightKernels &running) {
  auto &g = static_cast<CudaGraph &>(graph);
  XPU_RETURN_IF_ERROR(g.context.enter());
  XPU_RETURN_IF_ERROR(
      g.context.check(g.context.drv->cuGraphLaunch(g.exec, stream), "cuGraphLaunch"));
  running.add(g.kernels); // a fault at the next sync names them
  return {};
}

} // namespace xpu::cuda
