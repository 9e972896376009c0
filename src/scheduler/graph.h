// Launch graphs: chains of launches recorded once and replayed as a unit,
// by the device's own graphs where it has them (a CUDA or HIP graph, a
// pre-recorded Vulkan command buffer), else as a recorded launch list
// enqueued one launch at a time (the CPU). Explicit capture
// (xpu_stream_begin_capture) and automatic capture share them.
#pragma once

#include "scheduler/submit.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace xpu::sched {

/// One recorded launch, with what it needs to be enqueued again.
struct Node {
  std::shared_ptr<rt::KernelObj> kernel;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  uint32_t dynamicShared = 0; ///< bytes of dynamic shared memory
  std::vector<uint8_t> args;
  /// The buffer of each buffer parameter, in parameter order.
  std::vector<std::shared_ptr<rt::BufferObj>> buffers;

  /// Copies `launch` of `kernel` (reusing this node's storage).
  void assign(const std::shared_ptr<rt::KernelObj> &kernel, const PreparedLaunch &launch);
  /// The same kernel and launch shape (dynamic shared memory included).
  bool sameShape(const Node &other) const;
  /// The same arguments and buffers as well.
  bool sameLaunch(const Node &other) const;
  /// The request that enqueues the node with status word `status`; it
  /// points into the node.
  void toRequest(uint64_t status, rt::LaunchRequest &out) const;
};

/// What launch i must wait for among launches 0..i-1: the last earlier
/// writer of each buffer it uses, and the readers since, when it writes
/// (RAW, WAR, WAW from the manifests' access modes).
std::vector<std::vector<uint32_t>>
dependencies(const std::vector<const rt::LaunchRequest *> &launches);

/// A buffer parameter's uses as ordering sees them: accumulating is
/// writing, an unknown use is reading and writing.
uint8_t orderedUses(uint8_t uses);

/// An instantiated chain. Shared with the work that uses it: a stream that
/// enqueued it keeps it until it synchronizes, and its status words are
/// checked there.
class ExecState : public std::enable_shared_from_this<ExecState> {
public:
  ~ExecState();
  /// Instantiates `nodes` on `device`. With `holdBuffers` the exec keeps
  /// the nodes' buffers alive (explicit graphs); without, every launch
  /// brings its current arguments (automatic capture).
  static rt::Status create(const std::shared_ptr<rt::DeviceObj> &device,
                           const std::vector<const Node *> &nodes, bool holdBuffers,
                           std::shared_ptr<ExecState> &out);

  size_t size() const { return kernels_.size(); }
  const std::shared_ptr<rt::KernelObj> &kernelRef(size_t i) const { return kernels_[i]; }
  const rt::LaunchRequest &request(size_t i) const { return requests_[i]; }
  /// Whether node `i` would launch exactly as `node` does.
  bool matches(size_t i, const Node &node) const;
  /// Node `i` launches as `node` from the next enqueue on (same kernel and
  /// shape); the device's graph is updated, or rebuilt when the new buffers
  /// change which nodes depend on which.
  rt::Status setNode(size_t i, const Node &node);
  /// Enqueues every node on `queue` (a device queue) in order.
  rt::Status enqueue(rt::Queue &queue);
  /// After an enqueue on `stream` (its mu held) at `sequence`: the status
  /// words are checked at its next synchronization, the exec stays alive
  /// until then, and an exec that holds its buffers lends them.
  void account(rt::StreamObj &stream, const std::shared_ptr<rt::StreamObj> &self,
               uint64_t sequence);
  /// An exec that holds its buffers: each, with the union of its uses.
  const std::vector<std::pair<std::shared_ptr<rt::BufferObj>, uint8_t>> &footprint() const {
    return bufferUses_;
  }
  const char *kind() const;
  /// Whether the device replays it as a graph of its own.
  bool native() const { return native_ != nullptr; }

private:
  rt::Status build();
  void setRequest(size_t i, const Node &node);
  std::vector<const rt::LaunchRequest *> requestList() const;

  std::shared_ptr<rt::DeviceObj> device_;
  bool holdBuffers_ = false;
  std::vector<std::shared_ptr<rt::KernelObj>> kernels_;
  std::vector<std::vector<uint8_t>> args_;
  std::vector<rt::LaunchRequest> requests_;
  std::vector<Node> held_; ///< holdBuffers_: the nodes, buffers and all
  std::vector<std::pair<std::shared_ptr<rt::BufferObj>, uint8_t>> bufferUses_;
  std::vector<std::vector<uint32_t>> after_;
  std::vector<rt::StatusWord> words_;
  std::unique_ptr<rt::BackendGraph> native_;
};

/// A captured graph (xpu_graph).
struct GraphObj : rt::Object {
  std::shared_ptr<rt::DeviceObj> device;
  std::vector<Node> nodes;
};

/// An instantiated graph (xpu_graph_exec).
struct GraphExecObj : rt::Object {
  std::shared_ptr<rt::DeviceObj> device;
  std::mutex mu; ///< serializes updates and launches
  std::shared_ptr<ExecState> state;
};

/// Enqueues `exec` on `stream` in its order, after other streams' work on
/// its buffers.
rt::Status launchExec(GraphExecObj &exec, const std::shared_ptr<rt::StreamObj> &stream);

} // namespace xpu::sched

namespace xpu::rt {
template <> constexpr Kind kindOf<sched::GraphObj>() { return Kind::graph; }
template <> constexpr Kind kindOf<sched::GraphExecObj>() { return Kind::graphExec; }
} // namespace xpu::rt
