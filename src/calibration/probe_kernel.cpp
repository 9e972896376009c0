// Probe kernels; see probe_kernel.h.
#include "calibration/probe_kernel.h"

namespace xpu::cal {

rt::Status ProbeProgram::build(rt::Device &device, const std::string &text,
                               const std::string &name) {
  device_ = &device;
  rt::CompileRequest request;
  request.text = text;
  request.sourceName = name;
  request.skipGates = true; // the probe measures what the gates would need
  DiagnosticList diags;
  rt::Status st = rt::compileProgram(device, request, program_, diags);
  if (!st.isOk())
    return {st.code(), "building " + name + ": " + st.message()};
  return {};
}

rt::Status ProbeProgram::launch(rt::Queue &queue, const std::string &kernel, uint32_t grid,
                                uint32_t block, const std::vector<ProbeArg> &args) {
  size_t index = 0;
  while (index < program_->kernels.size() && program_->kernels[index]->name != kernel)
    ++index;
  if (index == program_->kernels.size())
    return rt::internalError("probe kernel '" + kernel + "' is not in its module");
  const abi::KernelInfo &info = *program_->kernels[index];
  if (args.size() != info.params.size())
    return rt::internalError("probe kernel '" + kernel + "' takes " +
                             std::to_string(info.params.size()) + " arguments");
  // Backends copy the argument block when the launch is enqueued.
  std::vector<abi::Slot> slots;
  std::vector<uint8_t> block_(abi::layoutArgs(info.params, slots));
  rt::LaunchRequest req;
  size_t slot = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (info.params[i].isBuffer) {
      uint64_t address = args[i].buffer->memory->address(), count = args[i].buffer->count;
      std::memcpy(block_.data() + slots[slot].offset, &address, 8);
      std::memcpy(block_.data() + slots[slot + 1].offset, &count, 8);
      req.buffers.push_back(args[i].buffer->memory.get());
      slot += 2;
    } else {
      std::memcpy(block_.data() + slots[slot].offset, &args[i].scalar, slots[slot].bytes);
      req.buffers.push_back(nullptr);
      ++slot;
    }
  }
  req.kernel = program_->code->kernel(index);
  req.info = &info;
  req.grid[0] = grid;
  req.block[0] = block;
  req.args = block_.data();
  req.argBytes = block_.size();
  req.slots = &slots;
  if (!info.checkSites.empty()) {
    rt::StatusWord word;
    XPU_RETURN_IF_ERROR(device_->allocateStatusWord(word));
    words_.push_back(word);
    req.status = word.device;
  }
  return queue.launch(req);
}

rt::Status ProbeProgram::finish(rt::Queue &queue) {
  rt::Status st = queue.synchronize();
  for (const rt::StatusWord &w : words_) {
    if (st.isOk() && w.host[0])
      st = rt::internalError("a probe kernel made " + std::to_string(w.host[0]) +
                             " out-of-bounds accesses");
    device_->freeStatusWord(w);
  }
  words_.clear();
  return st;
}

rt::Status ProbeProgram::run(rt::Queue &queue, const std::string &kernel, uint32_t grid,
                             uint32_t block, const std::vector<ProbeArg> &args) {
  XPU_RETURN_IF_ERROR(launch(queue, kernel, grid, block, args));
  return finish(queue);
}

ProbeProgram::~ProbeProgram() {
  for (const rt::StatusWord &w : words_)
    device_->freeStatusWord(w);
}

} // namespace xpu::cal
