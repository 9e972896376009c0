// The kernel ABI's layout rules; see KernelABI.h.
#include "xpu/KernelABI.h"

#include <algorithm>

namespace xpu::abi {

const char *scalarName(Scalar s) {
  switch (s) {
  case Scalar::i1: return "bool";
  case Scalar::i8: return "i8";
  case Scalar::i16: return "i16";
  case Scalar::i32: return "i32";
  case Scalar::i64: return "i64";
  case Scalar::f16: return "f16";
  case Scalar::bf16: return "bf16";
  case Scalar::f32: return "f32";
  case Scalar::f64: return "f64";
  }
  return "?";
}

std::vector<uint32_t> argumentParams(const KernelInfo &kernel) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < kernel.params.size(); ++i)
    if (kernel.params[i].role == Role::argument)
      out.push_back(i);
  return out;
}

uint32_t layoutArgs(const std::vector<Param> &params, std::vector<Slot> &slots) {
  slots.clear();
  uint32_t offset = 0;
  auto add = [&](uint32_t bytes) {
    slots.push_back({offset, bytes});
    offset += (bytes + kSlotAlign - 1) / kSlotAlign * kSlotAlign;
  };
  for (const Param &p : params) {
    if (p.isBuffer) {
      add(8); // pointer
      add(8); // element count
    } else {
      add(paramBytes(p));
    }
  }
  return offset;
}

VulkanArgs vulkanArgLayout(const std::vector<Param> &params) {
  VulkanArgs layout;
  uint32_t offset = 0;
  for (const Param &p : params) {
    uint32_t size = 4, align = 4;
    if (!p.isBuffer) {
      // std430: a scalar aligns to its size, vec2 to twice it, vec3 and
      // vec4 to four times it (vec3 is given vec4's room).
      uint32_t lane = vulkanLaneBytes(p.elem);
      uint32_t lanes = p.lanes == 3 ? 4 : p.lanes;
      size = lane * lanes;
      align = lane * (lanes == 1 ? 1 : lanes == 2 ? 2 : 4);
    }
    offset = (offset + align - 1) / align * align;
    layout.offsets.push_back(offset);
    offset += size;
  }
  layout.bytes = (offset + 3) / 4 * 4;
  return layout;
}

} // namespace xpu::abi

namespace xpu::abi {

StructLayout structLayout(const std::vector<Param> &fields) {
  StructLayout layout;
  uint32_t offset = 0;
  for (const Param &f : fields) {
    uint32_t lane = scalarBytes(f.elem);
    offset = (offset + lane - 1) / lane * lane;
    layout.offsets.push_back(offset);
    offset += lane * f.lanes;
    layout.align = std::max(layout.align, lane);
  }
  layout.bytes = (offset + layout.align - 1) / layout.align * layout.align;
  return layout;
}

} // namespace xpu::abi
