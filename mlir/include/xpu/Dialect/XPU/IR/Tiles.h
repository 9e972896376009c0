// What the tile ops (XPUTileOps.td) share with the rest of the dialect and
// with the tile lowerings: the element-type rules of xpu.mac and the check
// that keeps tiles out of signatures.
#pragma once

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cstdint>

namespace xpu {

/// Whether `t` may be a tile's element type (i8, i32, f16, bf16, f32, f64).
bool isTileElementType(mlir::Type t);

/// The accumulator type xpu.mac pairs with operand type `operand` (f16,
/// bf16 and f32 -> f32, i8 -> i32, f64 -> f64), or null.
mlir::Type macAccumulatorType(mlir::Type operand);

/// Tiles are register-resident and never host values: no kernel parameter
/// and no device function parameter or result is a tile.
mlir::LogicalResult verifyTileFreeSignature(mlir::FunctionOpInterface fn);

class KernelOp;
class TileLoadOp;

/// Whether the workgroup-scope cooperative-matrix tier reads `load`'s tile
/// at its macs, straight from the buffer where it can, instead of copying
/// it at the load: an f16 tile, row-major, of a read-only buffer, used only
/// as mac operands.
bool readAtMacs(TileLoadOp load);

/// How deep a slice of K that tier copies into shared memory at a time for
/// a mac whose two operands it reads at the mac but cannot read straight
/// from their buffers (K is a multiple of 16).
inline int64_t workgroupCopyDepth(int64_t k) { return k % 32 ? 16 : 32; }

/// Bytes of workgroup-shared memory `kernel` needs with its tiles lowered to
/// the software tile (which the int8 dot tier shares): its own scratch plus
/// one buffer per tile value (xpu-lower-tiles, on a copy of the kernel).
uint64_t sharedBytesWithTiles(KernelOp kernel);

} // namespace xpu
