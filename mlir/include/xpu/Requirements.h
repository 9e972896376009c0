// What an admitted kernel needs from a target: the vocabulary shared by the
// requirement analysis (mlir/lib/Analysis) and the capability model
// (src/capability). Plain C++, no MLIR types.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace xpu {

/// Capabilities a kernel can need. Each has a stable name (capabilityName).
enum class Capability : uint8_t {
  // Element types, in memory (buffers, parameters) and in arithmetic.
  i8Storage, i8Arith, i16Storage, i16Arith, i64Storage, i64Arith,
  f16Storage, f16Arith, bf16Storage, bf16Arith, f64Storage, f64Arith,
  // Atomics by element type and operation.
  atomicI32, atomicI64, atomicF32Add, atomicF64Add,
  // Atomics wider than a workgroup (device or queue-family scope).
  atomicDeviceScope,
  // Subgroup / wave queries (wave width, lane id).
  waveOps,
  // Wave operations (issue 14): shuffles and broadcasts, ballots, votes,
  // reductions and scans, and those of 64-bit integers (and f64 min/max).
  waveShuffle, waveBallot, waveVote, waveReduce, waveReduce64,
  // Quantities: workgroup-shared memory and invocations per workgroup.
  sharedMemory, workgroupInvocations,
  // Floating-point contraction kept off unless the kernel opts in.
  contractionControl,
  // Math functions a target lowers through a library (exp, sin, log, ...).
  mathLibrary,
  // Cooperative matrix tiles (issue 15): the software tile every target
  // has, then the hardware each faster tier needs. A kernel needs only
  // matrixTiles; the tier facts decide how its tiles run (tile_tiers.h).
  matrixTiles, tileMmaSync, tileWgmma, tileMfma, tileWmma, tileCoopMatrix,
  tileCoopMatrixWorkgroup, tileDotInt8,
  // Math functions on f64 (exp, sin, ...; GLSL.std.450 has 32-bit forms only).
  f64Math,
  // A fused (singly rounded) multiply-add, math.fma, by element type;
  // measured per device (src/calibration).
  fmaF32, fmaF64,
  count_ // keep last
};

const char *capabilityName(Capability c);
/// A readable phrase for diagnostics: "f64 arithmetic", "64-bit atomics".
const char *capabilityPhrase(Capability c);

/// What one kernel needs.
struct KernelRequirements {
  std::string kernel;
  std::string location; ///< where the kernel is declared
  std::set<Capability> needs;
  uint64_t sharedBytes = 0;          ///< for sharedMemory
  uint64_t workgroupInvocations = 0; ///< fixed workgroup size, 0 if not fixed
  bool fastMath = false;
  /// For each capability, the first op that needs it ("file:line:col").
  std::vector<std::pair<Capability, std::string>> firstUse;
  std::string whereNeeded(Capability c) const;
};

} // namespace xpu
