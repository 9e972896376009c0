// Ranges of the launch-dependent ops; see CoordinateRanges.h.
//
// Every bound is computed in 64-bit unsigned arithmetic from extents no
// larger than abi::kMaxGridExtent and kMaxWorkgroupExtent, so no product
// here can wrap (1024 * (2^32 - 1) < 2^42). A fixed extent that no launch
// can pass (0, negative, or above those limits) is ignored: admission
// refuses such a kernel (LaunchExtents.cpp), and the fallback range still
// holds for any launch that does run.
#include "xpu/Dialect/XPU/IR/CoordinateRanges.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/KernelABI.h"

#include <algorithm>

using namespace mlir;

namespace xpu {

namespace {

/// The extent a kernel fixes along `dim`, when a launch can pass it.
std::optional<uint64_t> fixedExtent(Operation *op, Dim dim, bool grid) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return std::nullopt;
  auto shape = grid ? kernel.getGridSize() : kernel.getWorkgroupSize();
  if (!shape)
    return std::nullopt;
  unsigned axis = static_cast<unsigned>(dim);
  int64_t e = axis < shape->size() ? (*shape)[axis] : 1;
  uint64_t limit = grid ? abi::kMaxGridExtent : uint64_t(kMaxWorkgroupExtent);
  if (e < 1 || uint64_t(e) > limit)
    return std::nullopt;
  return uint64_t(e);
}

/// The extents along one axis: [lo, hi] of workgroup and grid sizes, each
/// capped by the most invocations an axis runs with at `indexBits`.
struct Extents {
  UnsignedRange wg, grid;
  uint64_t global; ///< abi::maxGlobalExtent
};

Extents extents(Operation *op, Dim dim, unsigned indexBits) {
  Extents e;
  e.global = abi::maxGlobalExtent(indexBits);
  auto wg = fixedExtent(op, dim, false);
  auto grid = fixedExtent(op, dim, true);
  auto cap = [&](uint64_t v) { return std::min(v, e.global); };
  e.wg = wg ? UnsignedRange{cap(*wg), cap(*wg)}
            : UnsignedRange{1, cap(uint64_t(kMaxWorkgroupExtent))};
  e.grid = grid ? UnsignedRange{cap(*grid), cap(*grid)}
                : UnsignedRange{1, cap(abi::kMaxGridExtent)};
  return e;
}

// A static length is a constant (the launch checks the buffer holds at
// least that many); a dynamic one is an element count the launch passes.
UnsignedRange lengthRange(BufferType type) {
  if (type.hasStaticSize())
    return UnsignedRange{uint64_t(type.getSize()), uint64_t(type.getSize())};
  return UnsignedRange{0, abi::kMaxBufferElements};
}

std::optional<UnsignedRange> unsaturated(Operation *op, unsigned indexBits) {
  auto dimOf = [&](Operation *o) -> std::optional<Dim> {
    if (auto d = dyn_cast<ThreadIdOp>(o)) return d.getDim();
    if (auto d = dyn_cast<WorkgroupIdOp>(o)) return d.getDim();
    if (auto d = dyn_cast<GlobalIdOp>(o)) return d.getDim();
    if (auto d = dyn_cast<WorkgroupSizeOp>(o)) return d.getDim();
    if (auto d = dyn_cast<GridSizeOp>(o)) return d.getDim();
    if (auto d = dyn_cast<GlobalSizeOp>(o)) return d.getDim();
    return std::nullopt;
  };
  if (auto dim = dimOf(op)) {
    Extents e = extents(op, *dim, indexBits);
    // Ids count from 0 to their extent less one; a global id is below the
    // global size, which is at most e.global.
    if (isa<ThreadIdOp>(op))
      return UnsignedRange{0, e.wg.hi - 1};
    if (isa<WorkgroupIdOp>(op))
      return UnsignedRange{0, e.grid.hi - 1};
    if (isa<GlobalIdOp>(op))
      return UnsignedRange{0, std::min(e.wg.hi * e.grid.hi, e.global) - 1};
    if (isa<WorkgroupSizeOp>(op))
      return e.wg;
    if (isa<GridSizeOp>(op))
      return e.grid;
    return UnsignedRange{std::min(e.wg.lo * e.grid.lo, e.global),
                         std::min(e.wg.hi * e.grid.hi, e.global)};
  }
  // Waves are 1 (CPU) to 128 (the widest Vulkan subgroup) invocations.
  if (isa<WaveWidthOp>(op))
    return UnsignedRange{1, 128};
  if (isa<LaneIdOp>(op))
    return UnsignedRange{0, 127};
  if (auto size = dyn_cast<BufferSizeOp>(op))
    return lengthRange(cast<BufferType>(size.getBuffer().getType()));
  return std::nullopt;
}

/// Values that do not fit the width would arrive truncated: claim nothing.
UnsignedRange saturate(UnsignedRange r, unsigned indexBits) {
  if (indexBits >= 64)
    return r;
  uint64_t max = (uint64_t(1) << indexBits) - 1;
  return r.hi > max ? UnsignedRange{0, max} : r;
}

} // namespace

std::optional<UnsignedRange> launchValueRange(Operation *op, unsigned indexBits) {
  if (std::optional<UnsignedRange> r = unsaturated(op, indexBits))
    return saturate(*r, indexBits);
  return std::nullopt;
}

UnsignedRange bufferLengthRange(BufferType type, unsigned indexBits) {
  return saturate(lengthRange(type), indexBits);
}

//===----------------------------------------------------------------------===//
// InferIntRangeInterface, at MLIR's 64-bit index
//===----------------------------------------------------------------------===//

static void setRange(Operation *op, Value result, SetIntRangeFn set) {
  constexpr unsigned bits = IndexType::kInternalStorageBitWidth;
  UnsignedRange r = *launchValueRange(op, bits);
  set(result, ConstantIntRanges::fromUnsigned(APInt(bits, r.lo), APInt(bits, r.hi)));
}

#define XPU_LAUNCH_VALUE_RANGE(Op)                                             \
  void Op::inferResultRanges(ArrayRef<ConstantIntRanges>, SetIntRangeFn set) { \
    setRange(*this, getResult(), set);                                         \
  }
XPU_LAUNCH_VALUE_RANGE(ThreadIdOp)
XPU_LAUNCH_VALUE_RANGE(WorkgroupIdOp)
XPU_LAUNCH_VALUE_RANGE(GlobalIdOp)
XPU_LAUNCH_VALUE_RANGE(WorkgroupSizeOp)
XPU_LAUNCH_VALUE_RANGE(GridSizeOp)
XPU_LAUNCH_VALUE_RANGE(GlobalSizeOp)
XPU_LAUNCH_VALUE_RANGE(WaveWidthOp)
XPU_LAUNCH_VALUE_RANGE(LaneIdOp)
XPU_LAUNCH_VALUE_RANGE(BufferSizeOp)
#undef XPU_LAUNCH_VALUE_RANGE

} // namespace xpu
