// Proves buffer accesses in bounds. Admission asks for each access of a
// kernel or device function: a proven access runs unchecked; any other is
// checked at run time (portable) or refused with XPU-GC007
// (deterministic-v1). A backend may ask too, with the one index width it
// lowers to, before dropping a check.
//
// A proof holds for every launch a backend can run and at every width
// `index` may be lowered to: it reasons about the operations' two's-
// complement semantics at their own widths, never about mathematical
// integers the code does not compute. The rules, one by one, are in
// docs/profiles.md ("Bounds proofs") and at each rule in BoundsProof.cpp.
#pragma once

#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstdint>
#include <optional>
#include <string>

namespace xpu {

/// The outcome of one access's proof.
struct BoundsVerdict {
  bool proven = false;
  /// One sentence: what proved it, or, when nothing did, at which index
  /// width and how far the index may reach.
  std::string reason;
  /// When not proven: the access is in bounds whenever the buffer's length
  /// (xpu.buffer_size) is at least this, as far as the index's range shows
  /// (a backend may test it at launch to run an unchecked version). Empty
  /// when the range reaches the top of the index width.
  std::optional<uint64_t> lengthNeeded;
};

class BoundsProver {
public:
  /// The widths of `index` an admitted kernel may be lowered with: 64 on
  /// the CPU, CUDA and HIP; 64 or 32 on Vulkan (without shaderInt64).
  static constexpr unsigned kTargetIndexWidths[] = {64, 32};

  /// Prepares proofs for the accesses of `fn` (a kernel or device
  /// function), each at every width in `indexWidths` (at most 64).
  explicit BoundsProver(mlir::FunctionOpInterface fn,
                        llvm::ArrayRef<unsigned> indexWidths = kTargetIndexWidths);

  /// Whether every element `access` (xpu.load, xpu.store or
  /// xpu.atomic_rmw) touches lies inside its buffer whenever it executes:
  /// 0 <= index and index + width <= length, as unsigned values at the
  /// index width. Anything else is not proven.
  BoundsVerdict prove(mlir::Operation *access);
  bool provesInBounds(mlir::Operation *access) { return prove(access).proven; }

private:
  mlir::FunctionOpInterface fn;
  mlir::DominanceInfo dominance;
  llvm::SmallVector<unsigned, 2> widths;
};

} // namespace xpu
