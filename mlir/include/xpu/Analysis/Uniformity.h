// Uniformity analysis: which values are the same for every invocation of a
// workgroup (or of a wave), and which operations run under control flow
// that every invocation of the workgroup (or wave) takes the same way.
//
// Admission refuses ops that need uniform control flow (barriers,
// reductions, wave operations: RequiresUniformControlFlow in XPUTraits.h)
// where it is not uniform (XPU-UC001); backends may ask the same questions.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUTraits.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <memory>

namespace xpu {

/// What the analysis knows, computed once for a module or a function.
///
/// A value is uniform at a scope when every invocation of that scope that
/// computes it computes the same value. Sources:
///
/// - uniform: kernel parameters, constants, workgroup_id, workgroup_size,
///   grid_size, global_size, wave_width, buffer sizes, xpu.reduce results,
///   loads at a uniform index of a uniform read-only (`ro`) buffer;
/// - uniform across a wave only: wave reductions, votes and ballots
///   (UniformResults<wave>), a wave broadcast from lane 0 (live in every
///   wave; another lane may not be, and then each lane keeps its value);
/// - divergent: thread_id, global_id, lane_id, wave shuffles and scans, atomic results, ub.poison,
///   loads from read-write, shared or private buffers (another invocation
///   may write between two reads), results of ops the analysis does not
///   know: with side effects or regions, xpu ops not listed here, and ops
///   of no operands that are not constants (an op declares better with
///   UniformResults in XPUTraits.td);
/// - anything else (pure arith, math, vector, ...) joins its operands. The results of scf.if / scf.for /
///   scf.while / scf.index_switch, loop-carried values and block arguments
///   join every incoming value and the decision that selects between them;
///   a call's results join its callee's returned values, with the callee
///   analyzed under the join of its call sites (arguments and control).
///
/// A decision (an scf.if condition, scf.for bounds, an scf.while condition,
/// an scf.index_switch selector, the condition of a cf.cond_br or cf.switch)
/// is as uniform as the values it reads. An op is under uniform control when
/// every decision it depends on is uniform: the structured ops around it,
/// every branch it is control dependent on (the blocks between a branch and
/// its post-dominator, early exits included), and the call sites of its
/// function. Values defined in blocks under a divergent branch count as
/// divergent everywhere, so loop-exit values carry their divergence out.
///
/// A `ro` buffer is one that no invocation of the launch writes (stores and
/// atomics through it are refused by the verifier; a launch that also
/// passes it as a written parameter breaks that promise, and
/// deterministic-v1 refuses such a launch with XPU-GC011).
class UniformityAnalysis {
public:
  /// `root` is a module (each xpu.kernel with uniform parameters, and the
  /// device functions they call) or one function (uniform parameters when
  /// it is an xpu.kernel, divergent otherwise). Suits `getAnalysis<>()`.
  explicit UniformityAnalysis(mlir::Operation *root);
  ~UniformityAnalysis();
  UniformityAnalysis(UniformityAnalysis &&);

  /// How widely `v` is shared (Uniformity::none for values outside the
  /// analyzed functions).
  Uniformity uniformity(mlir::Value v) const;
  bool isUniform(mlir::Value v, Uniformity scope = Uniformity::workgroup) const {
    return uniformity(v) <= scope;
  }

  /// How uniform the control flow that reaches `op` is (Uniformity::none
  /// for ops outside the analyzed functions).
  Uniformity controlUniformity(mlir::Operation *op) const;
  bool isUnderUniformControl(mlir::Operation *op,
                             Uniformity scope = Uniformity::workgroup) const {
    return controlUniformity(op) <= scope;
  }

  /// Why `op` is not under control flow uniform at `scope`: the innermost
  /// op whose decision is not (an scf.if, scf.for, scf.while,
  /// scf.index_switch, a branch, or a call of `op`'s function), or null when
  /// its control is uniform at `scope`.
  mlir::Operation *divergentDecision(mlir::Operation *op, Uniformity scope) const;

  /// The value a decision op reads that makes it non-uniform at `scope`
  /// (the condition, a loop bound, ...), or null.
  mlir::Value divergentOperand(mlir::Operation *decision, Uniformity scope) const;

  /// Where a non-uniform value's divergence comes from: the coordinate,
  /// load, atomic or other op that first made it so (possibly `v`'s own
  /// defining op), or null for uniform values.
  mlir::Operation *divergenceSource(mlir::Value v) const;

private:
  struct State;
  std::unique_ptr<State> state;
};

} // namespace xpu
