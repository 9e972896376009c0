// The tile type's syntax and the verifiers of the tile ops (XPUTileOps.td).
#include "xpu/Dialect/XPU/IR/Tiles.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace xpu;

namespace xpu {

bool isTileElementType(Type t) {
  return t.isInteger(8) || t.isInteger(32) || t.isF16() || t.isBF16() ||
         t.isF32() || t.isF64();
}

Type macAccumulatorType(Type operand) {
  MLIRContext *ctx = operand.getContext();
  if (operand.isF16() || operand.isBF16() || operand.isF32())
    return Float32Type::get(ctx);
  if (operand.isInteger(8))
    return IntegerType::get(ctx, 32);
  if (operand.isF64())
    return operand;
  return {};
}

bool readAtMacs(TileLoadOp load) {
  Value tile = load.getResult();
  auto buffer = cast<BufferType>(load.getBuffer().getType());
  return !load.getColMajor() && cast<TileType>(tile.getType()).getElementType().isF16() &&
         buffer.getAccess() == Access::ro && !tile.use_empty() &&
         llvm::all_of(tile.getUses(), [](OpOperand &use) {
           return isa<MacOp>(use.getOwner()) && use.getOperandNumber() != 0;
         });
}

LogicalResult verifyTileFreeSignature(FunctionOpInterface fn) {
  for (Type t : fn.getArgumentTypes())
    if (isa<TileType>(t))
      return fn->emitOpError("has a tile parameter; tiles are register-resident "
                             "and never passed (load them from a buffer inside "
                             "the kernel)");
  for (Type t : fn.getResultTypes())
    if (isa<TileType>(t))
      return fn->emitOpError("returns a tile; tiles never leave a kernel body");
  return success();
}

} // namespace xpu

//===----------------------------------------------------------------------===//
// TileType: !xpu.tile<RxCxT>
//===----------------------------------------------------------------------===//

Type TileType::parse(AsmParser &parser) {
  SmallVector<int64_t, 2> dims;
  Type elementType;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  if (dims.size() != 2) {
    parser.emitError(loc, "a tile has two dimensions (rows x cols)");
    return {};
  }
  return parser.getChecked<TileType>(parser.getContext(), dims[0], dims[1],
                                     elementType);
}

void TileType::print(AsmPrinter &printer) const {
  printer << "<" << getRows() << "x" << getCols() << "x" << getElementType()
          << ">";
}

LogicalResult TileType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t rows, int64_t cols, Type elementType) {
  if (rows < 1 || cols < 1)
    return emitError() << "tile dimensions must be positive, got " << rows
                       << "x" << cols;
  // Tiles are registers: keep them to what a workgroup can hold.
  if (rows > 1024 || cols > 1024 || rows * cols > 65536)
    return emitError() << "a " << rows << "x" << cols
                       << " tile is larger than 65536 elements (or 1024 on a side)";
  if (!isTileElementType(elementType))
    return emitError() << "tile elements are i8, i32, f16, bf16, f32 or f64, got "
                       << elementType;
  return success();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

/// Tile ops live in kernel bodies only: the kernel fixes the workgroup
/// that holds the tile.
static LogicalResult verifyInKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("is a workgroup tile operation and may only appear "
                           "in an xpu.kernel body (not in device functions)");
  return success();
}

/// A tile load or store's buffer: global or shared, of the tile's elements.
static LogicalResult verifyTileBuffer(Operation *op, BufferType buffer,
                                      TileType tile) {
  if (buffer.getSpace() == Space::private_)
    return op->emitOpError("tiles move between the workgroup and global or "
                           "shared buffers, not private ones");
  if (buffer.getElementType() != tile.getElementType())
    return op->emitOpError() << "moves a tile of " << tile.getElementType()
                             << " through a buffer of "
                             << buffer.getElementType();
  return success();
}

LogicalResult TileFillOp::verify() { return verifyInKernel(*this); }

LogicalResult TileLoadOp::verify() {
  if (failed(verifyTileBuffer(*this, cast<BufferType>(getBuffer().getType()),
                              getResult().getType())))
    return failure();
  return verifyInKernel(*this);
}

LogicalResult TileStoreOp::verify() {
  auto buffer = cast<BufferType>(getBuffer().getType());
  auto tile = cast<TileType>(getValue().getType());
  if (buffer.getAccess() == Access::ro)
    return emitOpError("stores to a read-only buffer");
  if (failed(verifyTileBuffer(*this, buffer, tile)))
    return failure();
  int64_t width = getColMajor() ? tile.getRows() : tile.getCols();
  APInt stride;
  if (matchPattern(getStride(), m_ConstantInt(&stride)) &&
      stride.getSExtValue() < width)
    return emitOpError() << "stride " << stride.getSExtValue()
                         << " is below the tile's width " << width
                         << ": two elements would be stored to one place";
  return verifyInKernel(*this);
}

LogicalResult MacOp::verify() {
  auto c = cast<TileType>(getC().getType());
  auto a = cast<TileType>(getA().getType());
  auto b = cast<TileType>(getB().getType());
  if (a.getRows() != c.getRows() || b.getCols() != c.getCols() ||
      a.getCols() != b.getRows())
    return emitOpError() << "shapes do not compose: c " << c.getRows() << "x"
                         << c.getCols() << " = a " << a.getRows() << "x"
                         << a.getCols() << " . b " << b.getRows() << "x"
                         << b.getCols() << " + c";
  if (a.getElementType() != b.getElementType())
    return emitOpError() << "operands a and b have different element types ("
                         << a.getElementType() << ", " << b.getElementType() << ")";
  Type acc = macAccumulatorType(a.getElementType());
  if (!acc || acc != c.getElementType())
    return emitOpError() << "cannot accumulate " << a.getElementType()
                         << " products in " << c.getElementType()
                         << " (f16, bf16, f32 -> f32; i8 -> i32; f64 -> f64)";
  if (getTf32() && !a.getElementType().isF32())
    return emitOpError("tf32 applies to f32 operands only");
  return verifyInKernel(*this);
}

static LogicalResult verifySumsMove(Operation *op, Value sums, Value buffer,
                                    std::optional<int64_t> only, bool stores) {
  auto type = cast<BufferType>(buffer.getType());
  if (!type.getElementType().isF32())
    return op->emitOpError("moves f32 sums");
  if (stores && type.getAccess() == Access::ro)
    return op->emitOpError("stores to a read-only buffer");
  auto t = cast<CoopSumsType>(sums.getType());
  if (only && t.getWorkgroup())
    return op->emitOpError("names one matrix of workgroup sums, which are one matrix");
  if (only && (*only < 0 || *only >= t.getCount()))
    return op->emitOpError("names a matrix the sums do not have");
  return success();
}

LogicalResult CoopSumsLoadOp::verify() {
  return verifySumsMove(*this, getSums(), getBuffer(), getOnly(), /*stores=*/false);
}

LogicalResult CoopSumsStoreOp::verify() {
  return verifySumsMove(*this, getSums(), getBuffer(), getOnly(), /*stores=*/true);
}

LogicalResult CoopBlockCopyOp::verify() {
  auto src = cast<BufferType>(getSrc().getType()), dest = cast<BufferType>(getDest().getType());
  if (!src.getElementType().isF16() || !dest.getElementType().isF16())
    return emitOpError("copies f16 blocks");
  if (dest.getAccess() == Access::ro)
    return emitOpError("stores to a read-only buffer");
  if (getLd() < 16)
    return emitOpError("needs rows of at least 16 elements (ld)");
  return success();
}

static LogicalResult verifyBlock(Operation *op, Value blocks, int64_t index, Value buffer,
                                 bool stores) {
  auto type = cast<BufferType>(buffer.getType());
  if (!type.getElementType().isF16())
    return op->emitOpError("moves f16 blocks");
  if (stores && type.getAccess() == Access::ro)
    return op->emitOpError("stores to a read-only buffer");
  if (index < 0 || index >= cast<CoopBlocksType>(blocks.getType()).getCount())
    return op->emitOpError("names a block the subgroup does not hold");
  return success();
}

LogicalResult CoopBlocksLoadOp::verify() {
  return verifyBlock(*this, getBlocks(), getIndex(), getSrc(), /*stores=*/false);
}

LogicalResult CoopBlocksStoreOp::verify() {
  if (getLd() < 16)
    return emitOpError("needs rows of at least 16 elements (ld)");
  return verifyBlock(*this, getBlocks(), getIndex(), getDest(), /*stores=*/true);
}

LogicalResult CoopSumsMacOp::verify() {
  auto elem = [](Value v) { return cast<BufferType>(v.getType()).getElementType(); };
  if (!elem(getA()).isF16() || !elem(getB()).isF16())
    return emitOpError("takes f16 operands");
  if (getK() <= 0 || getK() % 16 || (!getAStride() && getLda() % 8) ||
      (!getBStride() && getLdb() % 8))
    return emitOpError("needs a K made of 16-deep steps and strides of whole 16-byte "
                       "rows (lda, ldb multiples of 8)");
  if ((getAStride() || getBStride()) && !getSums().getType().getWorkgroup())
    return emitOpError("takes dynamic strides with workgroup sums only");
  return success();
}

LogicalResult WarpgroupMmaOp::verify() {
  auto elem = [](Value v) { return cast<BufferType>(v.getType()).getElementType(); };
  Type ta = elem(getA());
  if (!(ta.isF16() || ta.isBF16()) || elem(getB()) != ta)
    return emitOpError("takes f16 or bf16 operands of one type");
  int64_t n = getN(), rows = getRows(), steps = getSteps();
  if (n < 8 || n > 256 || n % 8 || rows < 1 || steps < 1)
    return emitOpError("needs n a multiple of 8 up to 256 and at least one block and step");
  if (int64_t(getAcc().size()) != rows * n / 2 || getResult().size() != getAcc().size())
    return emitOpError("needs rows x n / 2 sums in and out");
  if (int64_t(getAIndex().size()) != rows * steps || int64_t(getBIndex().size()) != steps)
    return emitOpError("needs an A index per block and step and a B index per step");
  for (int64_t swizzle : {getASwizzle(), getBSwizzle()})
    if (swizzle != 32 && swizzle != 64 && swizzle != 128)
      return emitOpError("takes 32-, 64- or 128-byte swizzles");
  for (int64_t offset : {getALbo(), getASbo(), getBLbo(), getBSbo()})
    if (offset <= 0 || offset % 16 || offset >= (int64_t(1) << 18))
      return emitOpError("needs strides of whole 16 bytes below 256 KiB");
  return success();
}

LogicalResult TileScaleOp::verify() { return verifyInKernel(*this); }

LogicalResult TileAddOp::verify() { return verifyInKernel(*this); }

LogicalResult TileConvertOp::verify() {
  TileType from = getTile().getType(), to = getResult().getType();
  if (from.getRows() != to.getRows() || from.getCols() != to.getCols())
    return emitOpError("changes the tile's shape; it converts elements only");
  Type f = from.getElementType(), t = to.getElementType();
  bool ok = (isa<FloatType>(f) && isa<FloatType>(t)) ||
            (f.isInteger(32) && isa<FloatType>(t));
  if (!ok)
    return emitOpError() << "converts " << f << " to " << t
                         << " (floats to floats, or i32 to a float)";
  return verifyInKernel(*this);
}
