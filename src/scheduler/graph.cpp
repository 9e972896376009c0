// Launch graphs; see graph.h.
#include "scheduler/graph.h"

#include "scheduler/hazards.h"
#include "scheduler/stream_queue.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace xpu::sched {

using rt::Status;

void Node::assign(const std::shared_ptr<rt::KernelObj> &k, const PreparedLaunch &launch) {
  kernel = k;
  std::memcpy(grid, launch.request.grid, sizeof grid);
  std::memcpy(block, launch.request.block, sizeof block);
  dynamicShared = launch.request.dynamicSharedBytes;
  args.assign(launch.args.begin(), launch.args.end());
  buffers.assign(launch.buffers.begin(), launch.buffers.end());
}

bool Node::sameShape(const Node &o) const {
  return kernel == o.kernel && !std::memcmp(grid, o.grid, sizeof grid) &&
         !std::memcmp(block, o.block, sizeof block) && dynamicShared == o.dynamicShared;
}

bool Node::sameLaunch(const Node &o) const {
  return sameShape(o) && args == o.args && buffers == o.buffers;
}

uint8_t orderedUses(uint8_t uses) {
  if (uses & abi::useUnknown)
    return abi::useRead | abi::useWrite;
  if (uses & abi::useAccumulate)
    uses |= abi::useWrite;
  return uses;
}

std::vector<std::vector<uint32_t>>
dependencies(const std::vector<const rt::LaunchRequest *> &nodes) {
  struct Last {
    int64_t writer = -1;
    std::vector<uint32_t> readers; ///< since the writer
  };
  std::map<const rt::BackendBuffer *, Last> last;
  std::vector<std::vector<uint32_t>> after(nodes.size());
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const rt::LaunchRequest &r = *nodes[i];
    // A buffer passed twice counts once, with both uses.
    std::map<const rt::BackendBuffer *, uint8_t> mine;
    for (size_t p = 0; p < r.info->params.size(); ++p)
      if (r.info->params[p].isBuffer)
        mine[r.buffers[p]] |= orderedUses(r.info->params[p].uses);
    auto dependOn = [&](uint32_t j) {
      if (std::find(after[i].begin(), after[i].end(), j) == after[i].end())
        after[i].push_back(j);
    };
    for (auto &[memory, u] : mine) {
      Last &l = last[memory];
      if (l.writer >= 0)
        dependOn(uint32_t(l.writer)); // RAW, WAW
      if (u & abi::useWrite) {
        for (uint32_t r : l.readers)
          dependOn(r); // WAR
        l.writer = i;
        l.readers.clear();
      } else if (u & abi::useRead) {
        l.readers.push_back(i);
      }
    }
    std::sort(after[i].begin(), after[i].end());
  }
  return after;
}

ExecState::~ExecState() {
  native_.reset();
  for (const rt::StatusWord &w : words_)
    if (w.host)
      device_->device->freeStatusWord(w);
}

void Node::toRequest(uint64_t status, rt::LaunchRequest &r) const {
  const rt::KernelObj &k = *kernel;
  r.kernel = k.code;
  r.info = k.info.get();
  std::memcpy(r.grid, grid, sizeof r.grid);
  std::memcpy(r.block, block, sizeof r.block);
  r.args = args.data();
  r.argBytes = args.size();
  r.slots = &k.slots;
  r.dynamicSharedBytes = dynamicShared;
  r.buffers.assign(k.info->params.size(), nullptr);
  for (size_t p = 0, b = 0; p < k.info->params.size(); ++p)
    if (k.info->params[p].isBuffer)
      r.buffers[p] = buffers[b++]->memory.get();
  r.status = status;
}

void ExecState::setRequest(size_t i, const Node &node) {
  kernels_[i] = node.kernel;
  node.toRequest(words_[i].device, requests_[i]);
  // The request points into the exec's own copy of the arguments.
  args_[i] = node.args;
  requests_[i].args = args_[i].data();
}

Status ExecState::create(const std::shared_ptr<rt::DeviceObj> &device,
                         const std::vector<const Node *> &nodes, bool holdBuffers,
                         std::shared_ptr<ExecState> &out) {
  if (nodes.empty())
    return rt::invalidArgument("a graph needs at least one launch");
  auto e = std::make_shared<ExecState>();
  e->device_ = device;
  e->holdBuffers_ = holdBuffers;
  size_t n = nodes.size();
  e->kernels_.resize(n);
  e->args_.resize(n);
  e->requests_.resize(n);
  e->words_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    if (!nodes[i]->kernel->info->checkSites.empty())
      XPU_RETURN_IF_ERROR(device->device->allocateStatusWord(e->words_[i]));
    e->setRequest(i, *nodes[i]);
    if (holdBuffers)
      e->held_.push_back(*nodes[i]);
  }
  XPU_RETURN_IF_ERROR(e->build());
  out = std::move(e);
  return {};
}

std::vector<const rt::LaunchRequest *> ExecState::requestList() const {
  std::vector<const rt::LaunchRequest *> out;
  for (const rt::LaunchRequest &r : requests_)
    out.push_back(&r);
  return out;
}

/// Dependencies, the buffers' uses and the device's graph for the current
/// nodes.
Status ExecState::build() {
  std::vector<const rt::LaunchRequest *> requests = requestList();
  after_ = dependencies(requests);
  bufferUses_.clear();
  if (holdBuffers_) {
    std::map<const rt::BufferObj *, size_t> index;
    for (const Node &n : held_) {
      size_t b = 0;
      for (const abi::Param &p : n.kernel->info->params) {
        if (!p.isBuffer)
          continue;
        const std::shared_ptr<rt::BufferObj> &buf = n.buffers[b++];
        auto [it, fresh] = index.emplace(buf.get(), bufferUses_.size());
        if (fresh)
          bufferUses_.push_back({buf, 0});
        bufferUses_[it->second].second |= orderedUses(p.uses);
      }
    }
  }
  native_.reset();
  Status st = device_->device->createGraph(requests, after_, native_);
  if (st.code() == XPU_ERROR_UNSUPPORTED) {
    native_.reset(); // replayed one launch at a time
    return {};
  }
  return st;
}

bool ExecState::matches(size_t i, const Node &node) const {
  const rt::LaunchRequest &r = requests_[i];
  if (kernels_[i] != node.kernel || args_[i] != node.args ||
      std::memcmp(r.grid, node.grid, sizeof r.grid) ||
      std::memcmp(r.block, node.block, sizeof r.block) ||
      r.dynamicSharedBytes != node.dynamicShared)
    return false;
  for (size_t p = 0, b = 0; p < r.buffers.size(); ++p)
    if (r.buffers[p] && r.buffers[p] != node.buffers[b++]->memory.get())
      return false;
  return true;
}

Status ExecState::setNode(size_t i, const Node &node) {
  std::vector<rt::BackendBuffer *> before = requests_[i].buffers;
  setRequest(i, node);
  if (holdBuffers_)
    held_[i] = node;
  // Other buffers may make other nodes depend on this one: then the
  // device's graph is made again.
  if (requests_[i].buffers != before && dependencies(requestList()) != after_)
    return build();
  return native_ ? native_->update(i, requests_[i]) : Status();
}

Status ExecState::enqueue(rt::Queue &queue) {
  if (native_)
    return queue.launchGraph(*native_);
  for (const rt::LaunchRequest &r : requests_)
    XPU_RETURN_IF_ERROR(queue.launch(r));
  return {};
}

void ExecState::account(rt::StreamObj &stream, const std::shared_ptr<rt::StreamObj> &self,
                        uint64_t sequence) {
  auto me = shared_from_this();
  for (size_t i = 0; i < words_.size(); ++i)
    if (words_[i].host)
      stream.checks.push_back({words_[i], kernels_[i]->info, me});
  if (holdBuffers_)
    for (const Node &n : held_)
      lendBuffers(self, sequence, *n.kernel, n.buffers);
  front(stream).keepUntilSync(me);
}

const char *ExecState::kind() const {
  return native_ ? native_->kind() : "recorded launch list";
}

Status launchExec(GraphExecObj &exec, const std::shared_ptr<rt::StreamObj> &stream) {
  std::lock_guard<std::mutex> g(exec.mu);
  ExecState &state = *exec.state;
  // Ordered after other streams' work on its buffers, as its launches
  // would be one by one.
  std::vector<BufferUse> uses;
  for (const auto &[buffer, u] : state.footprint())
    uses.push_back({buffer.get(), u});
  Fences fences;
  XPU_RETURN_IF_ERROR(fenceConflicts(*stream, uses, fences));
  std::lock_guard<std::mutex> s(stream->mu);
  StreamQueue &q = front(*stream);
  XPU_RETURN_IF_ERROR(q.waitFences(fences));
  XPU_RETURN_IF_ERROR(q.enqueueExec(state));
  uint64_t seq = ++stream->enqueued;
  state.account(*stream, stream, seq);
  return {};
}

} // namespace xpu::sched
