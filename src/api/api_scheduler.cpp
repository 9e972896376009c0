// C API: manifests, the deadline clock, automatic capture, launch graphs
// (the scheduler is src/scheduler/; xpu_submit is with xpu_launch).
#include "runtime/objects.h"
#include "scheduler/deadline.h"
#include "scheduler/graph.h"
#include "scheduler/manifest.h"
#include "scheduler/stream_queue.h"

using namespace xpu::rt;
namespace sched = xpu::sched;
namespace abi = xpu::abi;

namespace {

void copyFact(const abi::CodeFact &from, xpu_manifest_fact &to) {
  to.value = from.known ? from.value : 0;
  to.known = from.known;
  to.source = from.source.c_str();
}

/// The stream a graph call names: NULL is the device's default stream.
Status streamOn(const std::shared_ptr<DeviceObj> &dev, xpu_stream stream,
                std::shared_ptr<StreamObj> &out) {
  if (!stream)
    return dev->stream0(out);
  XPU_RETURN_IF_ERROR(resolve(stream, out));
  if (out->device != dev)
    return invalidArgument("the stream belongs to another device than the graph");
  return {};
}

template <typename T> void releaseHandle(const void *handle) {
  if (!handle)
    return;
  auto obj = unregisterObject<T>(reinterpret_cast<uint64_t>(handle));
  if (obj)
    if (auto ctx = obj->device->context.lock())
      ctx->forget(obj->handle);
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_kernel_manifest_get(xpu_kernel kernel, xpu_kernel_manifest *out) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_kernel_manifest_get: `out` is NULL"));
  if (out->struct_size < sizeof(xpu_kernel_manifest))
    return finish(invalidArgument("xpu_kernel_manifest.struct_size must be "
                                  "sizeof(xpu_kernel_manifest)"));
  const sched::Manifest &m = sched::manifestOf(*k);
  out->target = m.target.c_str();
  out->classified = m.classified;
  copyFact(m.footprint.registers, out->registers);
  copyFact(m.footprint.spillBytes, out->spill_bytes);
  copyFact(m.footprint.sharedBytes, out->shared_bytes);
  copyFact(m.footprint.localBytes, out->local_bytes);
  copyFact(m.footprint.maxWorkgroupSize, out->max_workgroup_size);
  out->json = m.json.c_str();
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_kernel_param_uses(xpu_kernel kernel, uint32_t index,
                                         uint32_t *uses, uint32_t *cost) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  std::vector<sched::ArgumentFacts> facts = sched::argumentFacts(*k->info);
  if (index >= facts.size())
    return finish({XPU_ERROR_NOT_FOUND,
                   "parameter index " + std::to_string(index) + " out of range"});
  if (uses)
    *uses = facts[index].uses;
  if (cost)
    *cost = facts[index].cost;
  return XPU_SUCCESS;
}

XPU_API uint64_t xpu_clock_ns(void) { return sched::clockNs(); }

XPU_API xpu_status xpu_stream_set_auto_capture(xpu_stream stream, int enabled) {
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  std::lock_guard<std::mutex> g(s->mu);
  return finish(sched::front(*s).setAutoCapture(enabled != 0));
}

XPU_API xpu_status xpu_stream_begin_capture(xpu_stream stream) {
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  auto graph = std::make_shared<sched::GraphObj>();
  graph->device = s->device;
  std::lock_guard<std::mutex> g(s->mu);
  return finish(sched::front(*s).beginCapture(std::move(graph)));
}

XPU_API xpu_status xpu_stream_end_capture(xpu_stream stream, xpu_graph *out) {
  std::shared_ptr<StreamObj> s;
  if (Status st = resolve(stream, s); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_stream_end_capture: `out` is NULL"));
  std::shared_ptr<sched::GraphObj> graph;
  {
    std::lock_guard<std::mutex> g(s->mu);
    if (!sched::front(*s).capturing())
      return finish(invalidArgument("the stream is not capturing a graph "
                                    "(xpu_stream_begin_capture)"));
    graph = sched::front(*s).endCapture();
  }
  if (graph->nodes.empty())
    return finish(invalidArgument("no launch was recorded between "
                                  "xpu_stream_begin_capture and xpu_stream_end_capture"));
  uint64_t h = 0;
  if (Status st = registerObject(s->device, graph, h); !st.isOk())
    return finish(st);
  *out = toHandle<xpu_graph>(h);
  return XPU_SUCCESS;
}

XPU_API void xpu_graph_release(xpu_graph graph) { releaseHandle<sched::GraphObj>(graph); }

XPU_API xpu_status xpu_graph_node_count(xpu_graph graph, uint32_t *out) {
  std::shared_ptr<sched::GraphObj> g;
  if (Status st = resolve(graph, g); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_graph_node_count: `out` is NULL"));
  *out = uint32_t(g->nodes.size());
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_graph_instantiate(xpu_graph graph, xpu_graph_exec *out) {
  std::shared_ptr<sched::GraphObj> g;
  if (Status st = resolve(graph, g); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_graph_instantiate: `out` is NULL"));
  std::vector<const sched::Node *> nodes;
  for (const sched::Node &n : g->nodes)
    nodes.push_back(&n);
  auto exec = std::make_shared<sched::GraphExecObj>();
  exec->device = g->device;
  if (Status st = sched::ExecState::create(g->device, nodes, /*holdBuffers=*/true,
                                           exec->state);
      !st.isOk())
    return finish(st);
  uint64_t h = 0;
  if (Status st = registerObject(g->device, exec, h); !st.isOk())
    return finish(st);
  *out = toHandle<xpu_graph_exec>(h);
  return XPU_SUCCESS;
}

XPU_API void xpu_graph_exec_release(xpu_graph_exec exec) {
  releaseHandle<sched::GraphExecObj>(exec);
}

XPU_API xpu_status xpu_graph_launch(xpu_graph_exec exec, xpu_stream stream) {
  std::shared_ptr<sched::GraphExecObj> e;
  if (Status st = resolve(exec, e); !st.isOk())
    return finish(st);
  std::shared_ptr<StreamObj> s;
  if (Status st = streamOn(e->device, stream, s); !st.isOk())
    return finish(st);
  return finish(sched::launchExec(*e, s));
}

XPU_API xpu_status xpu_graph_exec_set_args(xpu_graph_exec exec, uint32_t node,
                                           const xpu_arg *args, size_t arg_count) {
  std::shared_ptr<sched::GraphExecObj> e;
  if (Status st = resolve(exec, e); !st.isOk())
    return finish(st);
  std::lock_guard<std::mutex> g(e->mu);
  sched::ExecState &state = *e->state;
  if (node >= state.size())
    return finish({XPU_ERROR_NOT_FOUND, "the graph has " + std::to_string(state.size()) +
                                            " launches; there is no launch " +
                                            std::to_string(node)});
  const LaunchRequest &r = state.request(node);
  sched::PreparedLaunch launch;
  if (Status st = sched::prepareLaunch(state.kernelRef(node), r.grid, r.block, args,
                                       arg_count, r.dynamicSharedBytes, launch);
      !st.isOk())
    return finish(st);
  sched::Node replacement;
  replacement.assign(state.kernelRef(node), launch);
  return finish(state.setNode(node, replacement));
}

XPU_API const char *xpu_graph_exec_kind(xpu_graph_exec exec) {
  std::shared_ptr<sched::GraphExecObj> e;
  if (!resolve(exec, e).isOk())
    return "";
  return e->state->kind();
}

} // extern "C"
