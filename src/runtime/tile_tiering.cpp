// Tile tiering; see tile_tiering.h.
#include "runtime/tile_tiering.h"

#include "runtime/env.h"

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

/// The operand types tensor-core tiers take; f32 only with tf32.
std::string tensorTypes(const Mac &mac, bool f64, const char *tier) {
  mlir::Type t = mac.operand;
  if (t.isF16() || t.isBF16() || t.isInteger(8) || (t.isF32() && mac.tf32) ||
      (f64 && t.isF64()))
    return "";
  if (t.isF32())
    return "the " + shapeName(mac) + " has f32 operands without `tf32`, and " + tier +
           " multiplies f32 only as TF32";
  return "the " + shapeName(mac) + " has " + typeName(t) + " operands, which " + tier +
         " does not take";
}

struct Tier {
  const char *name; ///< the xpu.mma_tier value and the note's word
  const char *what; ///< in words
  Capability hardware;
  bool lowered;     ///< xpujit lowers it (xpu-lower-tiles and the targets)
  std::string (*fits)(const Mac &);
  /// Issued by whole groups of `groupSize` invocations (warps, subgroups,
  /// warpgroups): what they are called, or null.
  const char *wholeGroups = nullptr;
  int64_t groupSize = 32;
  /// Why a mac does not fit the tier with this many groups, or "".
  std::string (*fitsGroups)(const Mac &, int64_t groups) = nullptr;
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
std::string fitsAmd(const Mac &mac) {
  if (auto t = tensorTypes(mac, true, "the AMD matrix unit"); !t.empty())
    return t;
  return steps(mac, 16, 16, mac.operand.isInteger(8) ? 16 : 4, "the AMD matrix unit");
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
std::string fitsDot4(const Mac &mac) {
  if (!mac.operand.isInteger(8))
    return "the " + shapeName(mac) + " does not have i8 operands";
  if (mac.k % 4)
    return "the " + shapeName(mac) + " has a K that is not a multiple of 4";
  return "";
}
std::string fitsAnything(const Mac &) { return ""; }

const Tier kSoftware = {"software", "the software tile (shared memory, vector loops)",
                        Capability::matrixTiles, true, fitsAnything};

std::vector<Tier> tiersOf(TargetDesc::Kind target) {
  using C = Capability;
  switch (target) {
  case TargetDesc::Kind::nvptx:
    return {{"wgmma", "warpgroup MMA (wgmma.mma_async m64nNk16)", C::tileWgmma, true,
             fitsWgmma, "whole warpgroups", 128, fitsWgmmaGroups},
            {"mma.sync", "warp MMA (mma.sync.m16n8k16)", C::tileMmaSync, true, fitsMmaSync,
             "whole warps"},
            {"dot4", "packed 8-bit dot products (dp4a)", C::tileDotInt8, true, fitsDot4},
            kSoftware};
  case TargetDesc::Kind::amdgcn:
    return {{"mfma", "MFMA", C::tileMfma, false, fitsAmd},
            {"wmma", "WMMA", C::tileWmma, false, fitsAmd},
            {"dot4", "packed 8-bit dot products (v_dot4_i32_i8)", C::tileDotInt8, true,
             fitsDot4},
            kSoftware};
  case TargetDesc::Kind::spirv:
    return {{"cooperative-matrix", "cooperative matrices (VK_KHR_cooperative_matrix)",
             C::tileCoopMatrix, true, fitsCoopMatrix, "whole subgroups of 32"},
            {"dot4", "integer dot products (OpSDot)", C::tileDotInt8, true, fitsDot4},
            kSoftware};
  case TargetDesc::Kind::cpu:
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
                    const cap::FactTable &facts) {
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
  if (tier.wholeGroups && (invocations == 0 || invocations % tier.groupSize))
    return std::string(tier.name) + " is issued by " + tier.wholeGroups +
           ": the kernel must fix its workgroup_size to a multiple of " +
           std::to_string(tier.groupSize) +
           (invocations ? " (it is " + std::to_string(invocations) + ")" : "");
  if (tier.fitsGroups)
    for (const Mac &mac : macs)
      if (std::string why = tier.fitsGroups(mac, invocations / tier.groupSize); !why.empty())
        return why;
  if (!tier.lowered)
    return std::string("the hardware is there (") + fact.evidence +
           "), but xpujit does not lower tiles to it yet";
  return "";
}

} // namespace

void selectTileTiers(mlir::ModuleOp module, const TargetDesc &target,
                     const cap::FactTable &facts, DiagnosticList &diags,
                     std::string &buildInfo) {
  for (KernelOp kernel : module.getOps<KernelOp>()) {
    bool tiles = false;
    std::vector<Mac> macs;
    kernel.walk([&](mlir::Operation *op) {
      if (auto mac = mlir::dyn_cast<MacOp>(op)) {
        auto c = mlir::cast<TileType>(mac.getC().getType());
        auto a = mlir::cast<TileType>(mac.getA().getType());
        macs.push_back({c.getRows(), c.getCols(), a.getCols(), a.getElementType(),
                        c.getElementType(), mac.getTf32(), locationOf(mac.getLoc())});
      }
      tiles |= mlir::isa<TileStoreOp>(op) ||
               llvm::any_of(op->getResultTypes(),
                            [](mlir::Type t) { return mlir::isa<TileType>(t); });
    });
    if (!tiles)
      continue;
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
      std::string why = macs.empty() && tier.hardware != Capability::matrixTiles
                            ? "the kernel has no mac"
                            : refusal(tier, macs, invocations, facts);
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
