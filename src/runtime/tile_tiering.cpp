// Tile tiering; see tile_tiering.h.
#include "runtime/tile_tiering.h"

#include "runtime/env.h"

#include "xpu/Dialect/XPU/IR/Tiles.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Pipeline.h"

#include "llvm/Support/raw_ostream.h"

namespace xpu::rt {

namespace {

constexpr const char *kNote = "[mma-tiering] ";

/// One xpu.mac as the tiers judge it.
struct Mac {
  int64_t m, n, k;
  mlir::Type operand, accumulator;
  bool tf32;
  std::string where;
  /// The kernel scales, adds or converts tiles: on the cooperative-matrix
  /// tiers the sums then pass through shared memory.
  bool elementwise = false;
  /// The workgroup-scope tier reads both operands at the mac and, where it
  /// cannot read them straight from their buffers, copies them in slices
  /// of K (readAtMacs, workgroupCopyDepth).
  bool readAtMac = false;
};

std::string typeName(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string shapeName(const Mac &mac) {
  return std::to_string(mac.m) + "x" + std::to_string(mac.n) + "x" +
         std::to_string(mac.k) + " " + typeName(mac.operand) + " mac at " + mac.where;
}

/// Why `mac` does not fit `m` x `n` x `k` steps, or "".
std::string steps(const Mac &mac, int64_t m, int64_t n, int64_t k, const char *tier) {
  if (mac.m % m || mac.n % n || mac.k % k)
    return "the " + shapeName(mac) + " is not made of " + tier + "'s " +
           std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " steps";
  return "";
}

struct Tier {
  const char *name; ///< the xpu.mma_tier value and the note's word
  const char *what; ///< in words
  Capability hardware;
  std::string (*fits)(const Mac &);
  /// Issued by whole groups of `groupSize` invocations (warps, subgroups,
  /// warpgroups): what they are called, or null.
  const char *wholeGroups = nullptr;
  int64_t groupSize = 32;
  /// Why a mac does not fit the tier with this many groups, or "".
  std::string (*fitsGroups)(const Mac &, int64_t groups) = nullptr;
  /// Why a mac does not fit the tier on this chip, or "".
  std::string (*fitsChip)(const Mac &, const TargetDesc &) = nullptr;
  /// Computed on the CPU from the instructions' definitions
  /// (XPU_TILE_EMULATE): the kernel is marked xpu.mma_emulated.
  bool emulated = false;
};

/// What xpujit lowers to wgmma: m64nNk16 with f16 or bf16 operands and f32
/// sums, N a multiple of 16 (so an N-contiguous B starts every warpgroup's
/// columns at a whole swizzle atom).
std::string fitsWgmma(const Mac &mac) {
  if (!mac.operand.isF16() && !mac.operand.isBF16())
    return "the " + shapeName(mac) + " has " + typeName(mac.operand) +
           " operands; xpujit's wgmma tier takes f16 and bf16";
  if (!mac.accumulator.isF32())
    return "the " + shapeName(mac) + " has " + typeName(mac.accumulator) +
           " sums; xpujit's wgmma tier keeps f32 sums";
  return steps(mac, 64, 16, 16, "wgmma");
}
/// A wgmma is at most 256 columns wide, so the warpgroups must cover N in
/// pieces of at most 256 (LowerTiles' warpGrid).
std::string fitsWgmmaGroups(const Mac &mac, int64_t groups) {
  for (int64_t used = groups; used >= 1; --used)
    for (int64_t wn = 1; wn <= used; ++wn)
      if (used % wn == 0 && mac.m % (64 * (used / wn)) == 0 && mac.n % (16 * wn) == 0 &&
          mac.n / wn <= 256)
        return "";
  return "the " + shapeName(mac) + " is wider than " + std::to_string(256 * groups) +
         " columns, which " + std::to_string(groups) +
         " warpgroups of wgmma (256 columns each) cannot hold";
}
/// What xpujit lowers to mma.sync: m16n8k16 with f16 or bf16 operands.
std::string fitsMmaSync(const Mac &mac) {
  if (!mac.operand.isF16() && !mac.operand.isBF16())
    return "the " + shapeName(mac) + " has " + typeName(mac.operand) +
           " operands; xpujit's mma.sync tier takes f16 and bf16";
  if (!mac.accumulator.isF32())
    return "the " + shapeName(mac) + " has " + typeName(mac.accumulator) +
           " sums; xpujit's mma.sync tier keeps f32 sums";
  return steps(mac, 16, 8, 16, "mma.sync");
}
/// What xpujit lowers to MFMA and WMMA: 16x16x16 steps with f16 or bf16
/// operands and f32 sums.
std::string fitsAmd(const Mac &mac, const char *tier) {
  if (!mac.operand.isF16() && !mac.operand.isBF16())
    return "the " + shapeName(mac) + " has " + typeName(mac.operand) + " operands; xpujit's " +
           tier + " tier takes f16 and bf16";
  if (!mac.accumulator.isF32())
    return "the " + shapeName(mac) + " has " + typeName(mac.accumulator) +
           " sums; xpujit's " + tier + " tier keeps f32 sums";
  return steps(mac, 16, 16, 16, tier);
}
std::string fitsMfma(const Mac &mac) { return fitsAmd(mac, "mfma"); }
std::string fitsWmma(const Mac &mac) { return fitsAmd(mac, "wmma"); }
/// gfx908's bf16 MFMA steps are 8 deep (v_mfma_f32_16x16x8bf16); the
/// 16-deep ones xpujit issues came with gfx90a.
std::string fitsMfmaChip(const Mac &mac, const TargetDesc &target) {
  if (mac.operand.isBF16() && target.chip == "gfx908")
    return "the " + shapeName(mac) +
           " has bf16 operands, and gfx908 has no v_mfma_f32_16x16x16bf16_1k (gfx90a and later)";
  return "";
}
/// xpujit issues WMMA as gfx11 lays out its operands, in waves of 32
/// (gfx12 spreads each operand row over two half-waves).
std::string fitsWmmaChip(const Mac &, const TargetDesc &target) {
  if (target.chip.rfind("gfx11", 0) != 0)
    return "xpujit lowers WMMA for gfx11, whose operand layout it follows; " + target.chip +
           " lays the operands out differently";
  if (target.waveWidth != 32)
    return "xpujit lowers WMMA for waves of 32; the target runs waves of " +
           std::to_string(target.waveWidth);
  return "";
}
/// The emulated AMD tiers pass barriers inside the macs, so every wave of
/// the workgroup must hold sums (the first grid LowerTiles' warpGrid tries).
std::string fitsEveryWave(const Mac &mac, int64_t waves) {
  for (int64_t wm = 1; wm <= waves; ++wm)
    if (waves % wm == 0 && mac.m % (16 * wm) == 0 && mac.n % (16 * (waves / wm)) == 0)
      return "";
  return "the " + shapeName(mac) + " cannot be shared by all " + std::to_string(waves) +
         " waves in 16x16 blocks, which the emulation needs";
}
/// What xpujit lowers to cooperative matrices: 16x16x16 f16 operands with
/// f32 sums (backends/vulkan/vulkan_tiles.cpp asks the device for exactly
/// that combination).
std::string fitsCoopMatrix(const Mac &mac) {
  if (!mac.operand.isF16() || !mac.accumulator.isF32())
    return "the " + shapeName(mac) + " has " + typeName(mac.operand) + " operands and " +
           typeName(mac.accumulator) +
           " sums; xpujit's cooperative-matrix tier takes f16 operands with f32 sums";
  return steps(mac, 16, 16, 16, "the cooperative-matrix tier");
}
/// What xpujit lowers to one workgroup-scope matrix per tile: f16 operands
/// with f32 sums, M and N multiples of 32 and K of 16 (the coarsest
/// granularity NVIDIA's driver lists, at 256 invocations), each at most 256
/// (backends/vulkan/vulkan_tiles.cpp asks the device for all of it).
std::string fitsCoopMatrixWorkgroup(const Mac &mac) {
  if (std::string why = fitsCoopMatrix(mac); !why.empty())
    return why;
  if (mac.m % 32 || mac.n % 32)
    return "the " + shapeName(mac) + " is not made of 32x32 blocks of C, the granularity "
           "of workgroup-scope matrices at 256 invocations";
  if (mac.m > 256 || mac.n > 256 || mac.k > 256)
    return "the " + shapeName(mac) + " has a side over 256, the largest workgroup-scope "
           "matrix xpujit asks for";
  return "";
}
/// Workgroup-scope matrices take workgroups of a power of two subgroups, at
/// most 256 invocations.
std::string fitsWorkgroupMatrixGroups(const Mac &, int64_t groups) {
  if (groups > 8 || (groups & (groups - 1)))
    return "workgroup-scope matrices need a workgroup of 1, 2, 4 or 8 subgroups of 32 (it "
           "has " + std::to_string(groups) + ")";
  return "";
}
/// Emulated, every invocation holds the whole tile's sums (three of them in
/// an edge store), which the CPU's budget for values live across barriers
/// bounds: at most 2^19 sums in all the workgroup's invocations together.
std::string fitsEmulatedWorkgroupMatrixGroups(const Mac &mac, int64_t groups) {
  if (std::string why = fitsWorkgroupMatrixGroups(mac, groups); !why.empty())
    return why;
  if (mac.m * mac.n * groups * 32 > (int64_t(1) << 19))
    return "the emulation holds a " + std::to_string(mac.m) + "x" + std::to_string(mac.n) +
           " tile's sums in each of " + std::to_string(groups * 32) +
           " invocations, more than 2^19 in all";
  return "";
}
/// The shared memory the workgroup tier itself needs for `macs`: each
/// operand tile in padded rows, or a slice of K of each where the mac reads
/// both (xpu-lower-tiles), the positions of an edge store and, in a kernel
/// with elementwise tile ops, the sums; the driver reserves more beside it,
/// which the fact's limit leaves out.
uint64_t workgroupMatrixShared(const std::vector<Mac> &macs) {
  uint64_t bytes = 0;
  for (const Mac &mac : macs) {
    int64_t k = mac.readAtMac ? workgroupCopyDepth(mac.k) : mac.k;
    bytes += uint64_t(mac.m * (k + 8) + k * (mac.n + 8)) * 2 +
             uint64_t(std::max(mac.m, mac.n)) * 4 +
             (mac.elementwise ? uint64_t(mac.m * mac.n) * 4 : 0);
  }
  return bytes;
}
std::string fitsDot4(const Mac &mac) {
  if (!mac.operand.isInteger(8))
    return "the " + shapeName(mac) + " does not have i8 operands";
  if (mac.k % 4)
    return "the " + shapeName(mac) + " has a K that is not a multiple of 4";
  return "";
}
std::string fitsAnything(const Mac &) { return ""; }

const Tier kSoftware = {"software", "the software tile (shared memory, vector loops)",
                        Capability::matrixTiles, fitsAnything};

std::vector<Tier> tiersOf(TargetDesc::Kind target) {
  using C = Capability;
  switch (target) {
  case TargetDesc::Kind::nvptx:
    return {{"wgmma", "warpgroup MMA (wgmma.mma_async m64nNk16)", C::tileWgmma,
             fitsWgmma, "whole warpgroups", 128, fitsWgmmaGroups},
            {"mma.sync", "warp MMA (mma.sync.m16n8k16)", C::tileMmaSync, fitsMmaSync,
             "whole warps"},
            {"dot4", "packed 8-bit dot products (dp4a)", C::tileDotInt8, fitsDot4},
            kSoftware};
  case TargetDesc::Kind::amdgcn:
    return {{"mfma", "matrix cores (v_mfma_f32_16x16x16)", C::tileMfma, fitsMfma,
             "whole waves of 64", 64, nullptr, fitsMfmaChip},
            {"wmma", "matrix cores (v_wmma_f32_16x16x16)", C::tileWmma, fitsWmma,
             "whole waves of 32", 32, nullptr, fitsWmmaChip},
            {"dot4", "packed 8-bit dot products (v_dot4_i32_i8)", C::tileDotInt8,
             fitsDot4},
            kSoftware};
  case TargetDesc::Kind::spirv:
    // Workgroup-scope matrices come first: with their strides specialized
    // they run 108-317 TFLOP/s on an H100 where the subgroup tier's best
    // block runs 76-80 (bench/results/h100-2026-12-07-c.md). (Before, with
    // run-time strides, the driver spilled them and they came second.)
    return {{"cooperative-matrix-workgroup",
             "workgroup-scope cooperative matrices (VK_NV_cooperative_matrix2)",
             C::tileCoopMatrixWorkgroup, fitsCoopMatrixWorkgroup, "whole subgroups of 32", 32,
             fitsWorkgroupMatrixGroups},
            {"cooperative-matrix", "cooperative matrices (VK_KHR_cooperative_matrix)",
             C::tileCoopMatrix, fitsCoopMatrix, "whole subgroups of 32"},
            {"dot4", "integer dot products (OpSDot)", C::tileDotInt8, fitsDot4},
            kSoftware};
  case TargetDesc::Kind::cpu:
    if (const Settings *config = nullptr; settings(config).isOk()) {
      if (config->tileEmulate == "mfma")
        return {{"mfma", "v_mfma_f32_16x16x16 emulated on the CPU (XPU_TILE_EMULATE)",
                 C::matrixTiles, fitsMfma, "whole waves of 64", 64, fitsEveryWave,
                 nullptr, true},
                kSoftware};
      if (config->tileEmulate == "wmma")
        return {{"wmma", "v_wmma_f32_16x16x16 emulated on the CPU (XPU_TILE_EMULATE)",
                 C::matrixTiles, fitsWmma, "whole waves of 32", 32, fitsEveryWave,
                 nullptr, true},
                kSoftware};
      if (config->tileEmulate == "cooperative-matrix-workgroup")
        return {{"cooperative-matrix-workgroup",
                 "workgroup-scope cooperative matrices emulated on the CPU (XPU_TILE_EMULATE)",
                 C::matrixTiles, fitsCoopMatrixWorkgroup, "whole subgroups of 32", 32,
                 fitsEmulatedWorkgroupMatrixGroups, nullptr, true},
                kSoftware};
      if (config->tileEmulate == "cooperative-matrix")
        return {{"cooperative-matrix",
                 "cooperative matrices emulated on the CPU (XPU_TILE_EMULATE)", C::matrixTiles,
                 fitsCoopMatrix, "whole subgroups of 32", 32, nullptr, nullptr, true},
                kSoftware};
    }
    break;
  }
  return {kSoftware};
}

std::string locationOf(mlir::Location loc) {
  std::string file;
  unsigned line = 0, col = 0;
  resolveLocation(loc, file, line, col);
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

/// Why `tier` cannot run `macs` of a kernel with `invocations` per
/// workgroup (0: not fixed) on a device with `facts`, or "".
std::string refusal(const Tier &tier, const std::vector<Mac> &macs, int64_t invocations,
                    const TargetDesc &target, const cap::FactTable &facts) {
  if (const Settings *config = nullptr; settings(config).isOk()) {
    std::string off = "," + config->tileTiersOff + ",";
    if (off.find(std::string(",") + tier.name + ",") != std::string::npos)
      return "turned off by XPU_TILE_TIERS_OFF";
  }
  const cap::Fact &fact = facts[size_t(tier.hardware)];
  if (!cap::permits(fact.verdict)) {
    std::string why = std::visit(
        [](const auto &v) -> std::string {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, cap::Unavailable>)
            return v.reason;
          else if constexpr (std::is_same_v<V, cap::Unknown>)
            return "unknown: " + v.why;
          else
            return "";
        },
        fact.verdict);
    return why + " (" + fact.evidence + ")";
  }
  for (const Mac &mac : macs)
    if (std::string why = tier.fits(mac); !why.empty())
      return why;
  if (tier.hardware == Capability::tileCoopMatrixWorkgroup && fact.limit &&
      workgroupMatrixShared(macs) > *fact.limit)
    return "its tiles take " + std::to_string(workgroupMatrixShared(macs)) +
           " bytes of shared memory, more than the " + std::to_string(*fact.limit) +
           " the device leaves beside workgroup-scope matrices (" + fact.evidence + ")";
  if (tier.fitsChip)
    for (const Mac &mac : macs)
      if (std::string why = tier.fitsChip(mac, target); !why.empty())
        return why;
  if (tier.wholeGroups && (invocations == 0 || invocations % tier.groupSize))
    return std::string(tier.name) + " is issued by " + tier.wholeGroups +
           ": the kernel must fix its workgroup_size to a multiple of " +
           std::to_string(tier.groupSize) +
           (invocations ? " (it is " + std::to_string(invocations) + ")" : "");
  if (tier.fitsGroups)
    for (const Mac &mac : macs)
      if (std::string why = tier.fitsGroups(mac, invocations / tier.groupSize); !why.empty())
        return why;
  return "";
}

} // namespace

void selectTileTiers(mlir::ModuleOp module, const TargetDesc &target,
                     const cap::FactTable &facts, DiagnosticList &diags,
                     std::string &buildInfo) {
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    bool tiles = false, elementwise = false;
    std::vector<Mac> macs;
    kernel.walk([&](mlir::Operation *op) {
      if (auto mac = mlir::dyn_cast<MacOp>(op)) {
        auto c = mlir::cast<TileType>(mac.getC().getType());
        auto a = mlir::cast<TileType>(mac.getA().getType());
        macs.push_back({c.getRows(), c.getCols(), a.getCols(), a.getElementType(),
                        c.getElementType(), mac.getTf32(), locationOf(mac.getLoc())});
        auto readAtMac = [](mlir::Value tile) {
          auto load = tile.getDefiningOp<TileLoadOp>();
          return load && readAtMacs(load);
        };
        macs.back().readAtMac = readAtMac(mac.getA()) && readAtMac(mac.getB());
      }
      elementwise |= mlir::isa<TileScaleOp, TileAddOp, TileConvertOp>(op);
      tiles |= mlir::isa<TileStoreOp>(op) ||
               llvm::any_of(op->getResultTypes(),
                            [](mlir::Type t) { return mlir::isa<TileType>(t); });
    });
    if (!tiles)
      continue;
    for (Mac &mac : macs)
      mac.elementwise = elementwise;
    int64_t invocations = 0;
    if (auto wg = kernel.getWorkgroupSize()) {
      invocations = 1;
      for (int64_t e : *wg)
        invocations *= e;
    }
    std::string demoted;
    const Tier *chosen = nullptr;
    std::vector<Tier> tiers = tiersOf(target.kind);
    for (const Tier &tier : tiers) {
      std::string why = macs.empty() && &tier != &tiers.back()
                            ? "the kernel has no mac"
                            : refusal(tier, macs, invocations, target, facts);
      if (why.empty()) {
        chosen = &tier;
        break;
      }
      demoted += std::string("; not ") + tier.name + ": " + why;
    }
    // The software tile fits every kernel on every target.
    if (!chosen)
      chosen = &tiers.back();
    kernel->setAttr("xpu.mma_tier", mlir::StringAttr::get(kernel.getContext(), chosen->name));
    if (chosen->emulated)
      kernel->setAttr("xpu.mma_emulated", mlir::UnitAttr::get(kernel.getContext()));
    // How much shared memory a block may have: NVIDIA's tiers stage their
    // operands in as much of it as fits (xpu-lower-tiles).
    const cap::Fact &shared = facts[size_t(Capability::sharedMemory)];
    if (target.kind == TargetDesc::Kind::nvptx && cap::permits(shared.verdict) && shared.limit)
      kernel->setAttr("xpu.shared_limit",
                      mlir::IntegerAttr::get(mlir::IntegerType::get(kernel.getContext(), 64),
                                             int64_t(*shared.limit)));

    std::string message = std::string(kNote) + "kernel '" + kernel.getSymName().str() +
                          "': " + chosen->name + " (" + chosen->what + ")" + demoted;
    Diagnostic note;
    note.severity = Diagnostic::Severity::note;
    note.message = message;
    resolveLocation(kernel.getLoc(), note.file, note.line, note.column);
    diags.push_back(note);
    buildInfo += message + "\n";
  }
}

} // namespace xpu::rt
