// The xpu dialect: registration, the buffer type's syntax, op verifiers and
// custom assembly.
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/IR/Combiners.h"
#include "xpu/Dialect/XPU/IR/Tiles.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace xpu;

#include "xpu/Dialect/XPU/IR/XPUDialect.cpp.inc"
#include "xpu/Dialect/XPU/IR/XPUEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "xpu/Dialect/XPU/IR/XPUTypes.cpp.inc"
#define GET_OP_CLASSES
#include "xpu/Dialect/XPU/IR/XPUOps.cpp.inc"

void XPUDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "xpu/Dialect/XPU/IR/XPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "xpu/Dialect/XPU/IR/XPUOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// BufferType: !xpu.buffer<[N x] T [, space] [, access]>
//===----------------------------------------------------------------------===//

Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t, 1> dims;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (dims.size() > 1) {
    parser.emitError(parser.getCurrentLocation(),
                     "xpu buffers are one-dimensional");
    return {};
  }
  Space space = Space::global;
  Access access = Access::rw;
  bool sawSpace = false, sawAccess = false;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef word;
    if (parser.parseKeyword(&word))
      return {};
    if (auto s = symbolizeSpace(word); s && !sawSpace) {
      space = *s;
      sawSpace = true;
    } else if (auto a = symbolizeAccess(word); a && !sawAccess) {
      access = *a;
      sawAccess = true;
    } else {
      parser.emitError(loc, "expected an address space (global, shared, "
                            "private) or an access mode (rw, ro, owned, "
                            "alias), each at most once, got '")
          << word << "'";
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  int64_t size = dims.empty() ? kDynamic : dims.front();
  return parser.getChecked<BufferType>(parser.getContext(), elementType, space,
                                       access, size);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  if (hasStaticSize())
    printer << getSize() << "x";
  printer << getElementType();
  if (getSpace() != Space::global)
    printer << ", " << stringifySpace(getSpace());
  if (getAccess() != Access::rw)
    printer << ", " << stringifyAccess(getAccess());
  printer << ">";
}

LogicalResult
BufferType::verify(function_ref<InFlightDiagnostic()> emitError, Type elementType,
                   Space space, Access access, int64_t size) {
  // The element types the kernel ABI (abi::Scalar) and every backend's
  // memory layout know; another width (i3, i128, f80) had no size the host
  // and the device agree on.
  bool known = elementType.isSignlessInteger(1) || elementType.isSignlessInteger(8) ||
               elementType.isSignlessInteger(16) || elementType.isSignlessInteger(32) ||
               elementType.isSignlessInteger(64) || elementType.isF16() ||
               elementType.isBF16() || elementType.isF32() || elementType.isF64();
  if (!known)
    return emitError() << "buffer element type must be i1, i8, i16, i32, i64, f16, "
                          "bf16, f32 or f64, got "
                       << elementType;
  if (size == 0 || size < kDynamic)
    return emitError() << "buffer size must be positive";
  // Shared buffers without a static count are dynamic shared memory
  // (xpu.dynamic_shared); allocations need one (AllocOp::verify).
  if (space == Space::private_ && size == kDynamic)
    return emitError() << stringifySpace(space)
                       << " buffers need a static element count";
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels and functions
//===----------------------------------------------------------------------===//

template <typename OpT>
static ParseResult parseFunctionLike(OpAsmParser &parser,
                                     OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag, std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  SMLoc loc = parser.getCurrentLocation();
  if (failed(function_interface_impl::parseFunctionOp(
          parser, result, /*allowVariadic=*/false,
          OpT::getFunctionTypeAttrName(result.name), buildFuncType,
          OpT::getArgAttrsAttrName(result.name),
          OpT::getResAttrsAttrName(result.name))))
    return failure();
  // An inherent attribute of the wrong kind (`workgroup_size = [64, 1, 1]`,
  // `profile = 1`) would be dropped without a word when the operation is
  // made from the dictionary: refuse it here, where the text is.
  return result.name.verifyInherentAttrs(result.attributes,
                                         [&] { return parser.emitError(loc); });
}

/// The parameters' source names (set by the parser or the builder) become
/// their SSA names, so a printed kernel reads like its source and parses
/// back to the same names.
static void nameParameters(FunctionOpInterface fn, Region &region,
                           OpAsmSetValueNameFn setName) {
  if (region.empty())
    return;
  for (BlockArgument arg : region.front().getArguments())
    if (auto name = fn.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "xpu.name"))
      setName(arg, name.getValue());
}

/// The argument attributes without `xpu.name`, which the SSA names carry.
static ArrayAttr argAttrsWithoutNames(FunctionOpInterface fn) {
  ArrayAttr all = fn.getArgAttrsAttr();
  if (!all)
    return nullptr;
  SmallVector<Attribute> kept;
  bool any = false;
  for (Attribute a : all) {
    NamedAttrList attrs(cast<DictionaryAttr>(a));
    attrs.erase("xpu.name");
    any |= !attrs.empty();
    kept.push_back(attrs.getDictionary(fn.getContext()));
  }
  return any ? ArrayAttr::get(fn.getContext(), kept) : nullptr;
}

template <typename OpT>
static void printFunctionLike(OpAsmPrinter &p, OpT op) {
  // function_interface_impl::printFunctionOp, with argument names elided.
  p << ' ';
  StringRef visibility = SymbolTable::getVisibilityAttrName();
  if (auto v = op->template getAttrOfType<StringAttr>(visibility))
    p << v.getValue() << ' ';
  p.printSymbolName(op.getSymName());
  call_interface_impl::printFunctionSignature(
      p, op.getArgumentTypes(), argAttrsWithoutNames(op), /*isVariadic=*/false,
      op.getResultTypes(), op.getResAttrsAttr(), &op.getBody(),
      /*printEmptyResult=*/false);
  function_interface_impl::printFunctionAttributes(
      p, op,
      {visibility, op.getFunctionTypeAttrName(), op.getArgAttrsAttrName(),
       op.getResAttrsAttrName()});
  if (!op.getBody().empty()) {
    p << ' ';
    p.printRegion(op.getBody(), /*printEntryBlockArgs=*/false,
                  /*printBlockTerminators=*/true);
  }
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseFunctionLike<KernelOp>(parser, result);
}
void KernelOp::print(OpAsmPrinter &p) { printFunctionLike(p, *this); }
void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setName) {
  nameParameters(*this, region, setName);
}

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  return parseFunctionLike<FuncOp>(parser, result);
}
void FuncOp::print(OpAsmPrinter &p) { printFunctionLike(p, *this); }
void FuncOp::getAsmBlockArgumentNames(Region &region,
                                      OpAsmSetValueNameFn setName) {
  nameParameters(*this, region, setName);
}

static LogicalResult verifyShapeAttr(Operation *op, StringRef name,
                                     std::optional<ArrayRef<int64_t>> shape) {
  if (!shape)
    return success();
  if (shape->size() < 1 || shape->size() > 3)
    return op->emitOpError() << "'" << name << "' needs 1 to 3 extents";
  return success();
}

LogicalResult KernelOp::verify() {
  if (getBody().empty())
    return emitOpError("needs a body");
  if (!getResultTypes().empty())
    return emitOpError("kernels return no values; write results to buffers");
  StringRef profile = getProfileName();
  if (profile != kProfilePortable && profile != kProfileDeterministic)
    return emitOpError() << "unknown profile '" << profile
                         << "' (accepted: portable, deterministic-v1)";
  if (failed(verifyShapeAttr(*this, "workgroup_size", getWorkgroupSize())) ||
      failed(verifyShapeAttr(*this, "grid_size", getGridSize())))
    return failure();
  for (Type t : getArgumentTypes())
    if (auto buf = dyn_cast<BufferType>(t); buf && buf.getSpace() != Space::global)
      return emitOpError() << "takes a " << stringifySpace(buf.getSpace())
                           << " buffer parameter; kernels receive global buffers "
                              "and allocate shared and private ones (xpu.alloc)";
  return verifyTileFreeSignature(*this);
}

LogicalResult FuncOp::verify() {
  if (getBody().empty())
    return emitOpError("device functions need a body");
  return verifyTileFreeSignature(*this);
}

LogicalResult ReturnOp::verify() {
  auto fn = cast<FunctionOpInterface>((*this)->getParentOp());
  ArrayRef<Type> results = fn.getResultTypes();
  if (getOperands().size() != results.size())
    return emitOpError() << "returns " << getOperands().size()
                         << " values but the enclosing function has "
                         << results.size() << " results";
  for (auto [value, type] : llvm::zip(getOperands(), results))
    if (value.getType() != type)
      return emitOpError() << "return type " << value.getType()
                           << " does not match the function result " << type;
  return success();
}

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto fn = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!fn)
    return emitOpError() << "'" << getCallee()
                         << "' is not an xpu.func in this module";
  FunctionType type = fn.getFunctionType();
  if (TypeRange(type.getInputs()) != TypeRange(getOperands().getTypes()) ||
      TypeRange(type.getResults()) != TypeRange(getResults().getTypes()))
    return emitOpError() << "operand or result types do not match '"
                         << getCallee() << "' of type " << type;
  return success();
}

// Coordinate and buffer-size ranges (inferResultRanges): CoordinateRanges.cpp.

//===----------------------------------------------------------------------===//
// Loads and stores: `xpu.load %b[%i] : !xpu.buffer<T> [-> vector<NxT>]`
//===----------------------------------------------------------------------===//

/// A value type that a buffer of `buffer` can hold: the element type, or a
/// vector of 2 to 4 of them.
static LogicalResult verifyAccessType(Operation *op, BufferType buffer,
                                      Type valueType) {
  if (valueType == buffer.getElementType())
    return success();
  auto vec = dyn_cast<VectorType>(valueType);
  if (vec && vec.getRank() == 1 && !vec.isScalable() &&
      vec.getElementType() == buffer.getElementType() &&
      vec.getNumElements() >= 2 && vec.getNumElements() <= 4)
    return success();
  return op->emitOpError() << "accesses " << valueType << " in a buffer of "
                           << buffer.getElementType()
                           << " (expected the element type or a vector of 2-4 "
                              "of it)";
}

static int64_t accessWidth(Type valueType) {
  if (auto vec = dyn_cast<VectorType>(valueType))
    return vec.getNumElements();
  return 1;
}

static ParseResult parseAccessTail(OpAsmParser &parser, OperationState &result,
                                   Type &bufferType, Type &valueType) {
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon() ||
      parser.parseType(bufferType))
    return failure();
  auto buffer = dyn_cast<BufferType>(bufferType);
  if (!buffer)
    return parser.emitError(parser.getNameLoc(), "expected an !xpu.buffer type");
  valueType = buffer.getElementType();
  if (succeeded(parser.parseOptionalArrow()) && parser.parseType(valueType))
    return failure();
  return success();
}

ParseResult LoadOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand buffer, index;
  Type bufferType, valueType;
  if (parser.parseOperand(buffer) || parser.parseLSquare() ||
      parser.parseOperand(index) || parser.parseRSquare() ||
      parseAccessTail(parser, result, bufferType, valueType) ||
      parser.resolveOperand(buffer, bufferType, result.operands) ||
      parser.resolveOperand(index, parser.getBuilder().getIndexType(),
                            result.operands))
    return failure();
  result.addTypes(valueType);
  return success();
}

void LoadOp::print(OpAsmPrinter &p) {
  p << " " << getBuffer() << "[" << getIndex() << "]";
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getBuffer().getType();
  if (getResult().getType() != getBufferType().getElementType())
    p << " -> " << getResult().getType();
}

LogicalResult LoadOp::verify() {
  return verifyAccessType(*this, getBufferType(), getResult().getType());
}
int64_t LoadOp::getWidth() { return accessWidth(getResult().getType()); }

ParseResult StoreOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::UnresolvedOperand value, buffer, index;
  Type bufferType, valueType;
  if (parser.parseOperand(value) || parser.parseComma() ||
      parser.parseOperand(buffer) || parser.parseLSquare() ||
      parser.parseOperand(index) || parser.parseRSquare() ||
      parseAccessTail(parser, result, bufferType, valueType) ||
      parser.resolveOperand(value, valueType, result.operands) ||
      parser.resolveOperand(buffer, bufferType, result.operands) ||
      parser.resolveOperand(index, parser.getBuilder().getIndexType(),
                            result.operands))
    return failure();
  return success();
}

void StoreOp::print(OpAsmPrinter &p) {
  p << " " << getValue() << ", " << getBuffer() << "[" << getIndex() << "]";
  p.printOptionalAttrDict((*this)->getAttrs());
  p << " : " << getBuffer().getType();
  if (getValue().getType() != getBufferType().getElementType())
    p << " -> " << getValue().getType();
}

LogicalResult StoreOp::verify() {
  if (getBufferType().getAccess() == Access::ro)
    return emitOpError("stores to a read-only buffer");
  return verifyAccessType(*this, getBufferType(), getValue().getType());
}
int64_t StoreOp::getWidth() { return accessWidth(getValue().getType()); }

LogicalResult AllocOp::verify() {
  BufferType type = getResult().getType();
  if (type.getSpace() == Space::global)
    return emitOpError("allocates only shared or private buffers; global "
                       "buffers come from the host");
  if (!type.hasStaticSize())
    return emitOpError("needs a static element count (shared memory sized at "
                       "launch is xpu.dynamic_shared)");
  // One tile per workgroup is sized and placed per kernel (the CPU's shared
  // block, a GPU's static shared segment): a helper has no workgroup of its
  // own to size it for, and the backends disagreed on it.
  if (type.getSpace() == Space::shared && (*this)->getParentOfType<FuncOp>())
    return emitOpError("allocates shared memory in a device function; allocate it "
                       "in the kernel and pass the buffer to the helper");
  return success();
}

LogicalResult ViewOp::verify() {
  if (!getResult().getType().hasStaticSize())
    return emitOpError("views need a statically sized buffer type");
  return success();
}

LogicalResult AtomicRMWOp::verify() {
  auto buffer = cast<BufferType>(getBuffer().getType());
  Type elem = buffer.getElementType();
  if (getValue().getType() != elem || getResult().getType() != elem)
    return emitOpError() << "value and result must be the element type " << elem;
  if (buffer.getAccess() == Access::ro)
    return emitOpError("atomically updates a read-only buffer");
  AtomicKind kind = getKind();
  bool isFloatKind = kind == AtomicKind::fadd || kind == AtomicKind::fmin ||
                     kind == AtomicKind::fmax;
  bool anyKind = kind == AtomicKind::xchg || kind == AtomicKind::cmpxchg;
  if (isFloatKind != isa<FloatType>(elem) && !anyKind)
    return emitOpError() << "'" << stringifyAtomicKind(kind)
                         << "' does not apply to " << elem;
  if (bool(getExpected()) != (kind == AtomicKind::cmpxchg))
    return emitOpError(kind == AtomicKind::cmpxchg
                           ? "'cmpxchg' needs the value it expects (`expected`)"
                           : "only 'cmpxchg' takes an `expected` value");
  if (!elem.isInteger(32) && !elem.isInteger(64) && !elem.isF32() &&
      !elem.isF64())
    return emitOpError() << "atomics work on 32- and 64-bit elements, got "
                         << elem;
  return success();
}

LogicalResult ReduceOp::verify() {
  // A reduction combines through shared scratch of its kernel (AllocOp).
  if ((*this)->getParentOfType<FuncOp>())
    return emitOpError("is in a device function; a workgroup reduction uses the "
                       "kernel's shared memory: reduce in the kernel");
  if (getValue().getType() != getResult().getType())
    return emitOpError("result type must equal the operand type");
  return verifyCombiner(*this, getKind(), getValue().getType());
}

//===----------------------------------------------------------------------===//
// Whole-module facts
//===----------------------------------------------------------------------===//

llvm::DenseSet<Operation *> xpu::functionsWithBarriers(ModuleOp module) {
  llvm::DenseSet<Operation *> result;
  llvm::DenseMap<StringRef, Operation *> byName;
  module.walk([&](FunctionOpInterface fn) { byName[fn.getName()] = fn; });
  // Iterate to a fixed point so barriers reached through calls count.
  for (bool changed = true; changed;) {
    changed = false;
    module.walk([&](FunctionOpInterface fn) {
      if (result.contains(fn))
        return;
      bool has = false;
      fn.walk([&](Operation *op) {
        if (requiredControlUniformity(op) == Uniformity::workgroup)
          has = true;
        else if (auto call = dyn_cast<CallOp>(op))
          has |= result.contains(byName.lookup(call.getCallee()));
      });
      if (has) {
        result.insert(fn);
        changed = true;
      }
    });
  }
  return result;
}

BufferType xpu::reductionScratchType(ReduceOp op) {
  int64_t slots = kMaxWorkgroupExtent;
  auto kernel = op->getParentOfType<KernelOp>();
  if (std::optional<ArrayRef<int64_t>> wg = kernel ? kernel.getWorkgroupSize() : std::nullopt) {
    slots = 1;
    for (int64_t e : *wg)
      slots *= e;
  }
  return BufferType::get(op.getContext(), op.getValue().getType(), Space::shared,
                         Access::rw, slots + 1);
}

uint64_t xpu::sharedScratchBytes(KernelOp kernel) {
  uint64_t total = 0;
  kernel.walk([&](Operation *op) {
    BufferType t;
    if (auto alloc = dyn_cast<AllocOp>(op))
      t = alloc.getResult().getType();
    else if (auto reduce = dyn_cast<ReduceOp>(op))
      t = reductionScratchType(reduce);
    if (!t || t.getSpace() != Space::shared)
      return;
    // Saturating: a static count near 2^63 must not wrap to a small size
    // that the device limit then admits.
    uint64_t bytes = llvm::SaturatingMultiply(
        uint64_t(t.getSize()),
        uint64_t(std::max(1u, t.getElementType().getIntOrFloatBitWidth() / 8)));
    // A buffer aligned beyond kSharedAlign (xpu.alignment, the wgmma
    // tier's operands) may be placed after that much padding.
    if (auto a = op->getAttrOfType<IntegerAttr>("xpu.alignment"); a && uint64_t(a.getInt()) > kSharedAlign)
      bytes = llvm::SaturatingAdd(bytes, uint64_t(a.getInt()) - kSharedAlign);
    uint64_t end = llvm::SaturatingAdd(llvm::SaturatingAdd(total, bytes), kSharedAlign - 1);
    total = end == UINT64_MAX ? UINT64_MAX : end / kSharedAlign * kSharedAlign;
  });
  return total;
}
