// The values the launch-dependent ops (coordinates, sizes, wave width,
// xpu.buffer_size) can take on a target whose `index` has a given width,
// from the launch limits every backend keeps (xpu/KernelABI.h) and the
// shape a kernel fixes. Range inference (inferResultRanges, at MLIR's
// 64-bit index) and the bounds prover (at each target's width) use it.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include <cstdint>
#include <optional>

namespace xpu {

/// Unsigned bounds of a value that fits 64 bits.
struct UnsignedRange {
  uint64_t lo, hi;
};

/// The range of `op`'s result at `indexBits` (at most 64) when `op` is one
/// of the ops above; nullopt for any other op. A range that does not fit
/// `indexBits` becomes the whole width: it never wraps.
std::optional<UnsignedRange> launchValueRange(mlir::Operation *op, unsigned indexBits);

/// The range of xpu.buffer_size of a buffer of `type` at `indexBits`: a
/// static length, or an element count below 2^62, never more than the
/// buffer holds.
UnsignedRange bufferLengthRange(BufferType type, unsigned indexBits);

} // namespace xpu
