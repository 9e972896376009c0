// Op traits of the xpu dialect that analyses read from any op, so that new
// ops (wave operations, say) only declare them in ODS (XPUTraits.td).
#pragma once

#include "mlir/IR/OpDefinition.h"

#include <cstdint>
#include <optional>

namespace xpu {

/// How widely a value, or a control-flow decision, is shared by the
/// invocations that reach it. Ordered: what is uniform across the workgroup
/// is uniform across each of its waves.
enum class Uniformity : uint8_t {
  workgroup = 0, ///< the same for every invocation of the workgroup
  wave = 1,      ///< the same for every invocation of a wave
  none = 2,      ///< may differ between two invocations of one wave
};

/// The op must be reached by every invocation of its workgroup (`scope` =
/// workgroup: barriers, xpu.reduce) or of its wave (wave operations), so it
/// may only sit under control flow whose decisions are uniform at `scope`.
template <Uniformity scope>
struct RequiresUniformControlFlow {
  template <typename ConcreteType>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteType, Impl> {};
};

/// Every result of the op is uniform at `scope`, whatever its operands
/// (xpu.reduce: the combined value is handed to the whole workgroup).
template <Uniformity scope>
struct UniformResults {
  template <typename ConcreteType>
  class Impl : public mlir::OpTrait::TraitBase<ConcreteType, Impl> {};
};

/// The op acts on the host (prints, say): deterministic-v1 refuses it
/// (XPU-GC012); under portable it is admitted when a backend lowers it.
template <typename ConcreteType>
class HostEffect : public mlir::OpTrait::TraitBase<ConcreteType, HostEffect> {};

/// Made by the lowering only; kernel source may not use it (XPUTraits.td).
template <typename ConcreteType>
class LoweringOnly : public mlir::OpTrait::TraitBase<ConcreteType, LoweringOnly> {};

/// The scope at which `op` needs uniform control flow, if it does.
inline std::optional<Uniformity> requiredControlUniformity(mlir::Operation *op) {
  if (op->hasTrait<RequiresUniformControlFlow<Uniformity::workgroup>::Impl>())
    return Uniformity::workgroup;
  if (op->hasTrait<RequiresUniformControlFlow<Uniformity::wave>::Impl>())
    return Uniformity::wave;
  return std::nullopt;
}

/// The scope at which `op`'s results are uniform by the op's own nature.
inline std::optional<Uniformity> declaredResultUniformity(mlir::Operation *op) {
  if (op->hasTrait<UniformResults<Uniformity::workgroup>::Impl>())
    return Uniformity::workgroup;
  if (op->hasTrait<UniformResults<Uniformity::wave>::Impl>())
    return Uniformity::wave;
  return std::nullopt;
}

} // namespace xpu
