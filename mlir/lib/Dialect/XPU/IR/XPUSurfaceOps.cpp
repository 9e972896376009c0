// Verifiers and syntax of the kernel-surface ops and types (XPUSurfaceOps.td).
#include "xpu/Dialect/XPU/IR/Combiners.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/PrintFormat.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace xpu;

LogicalResult WaveReduceOp::verify() {
  return verifyCombiner(*this, getKind(), getValue().getType());
}

LogicalResult WaveScanOp::verify() {
  return verifyCombiner(*this, getKind(), getValue().getType());
}

LogicalResult BitsViewOp::verify() {
  BufferType from = getBuffer().getType(), to = getResult().getType();
  Type elem = from.getElementType();
  if (to.getElementType() != IntegerType::get(getContext(), elem.getIntOrFloatBitWidth()) ||
      to.getSpace() != from.getSpace() || to.getAccess() != from.getAccess() ||
      to.getSize() != from.getSize())
    return emitOpError() << "views " << from << " as " << to
                         << "; expected the same buffer of integers of its width";
  return success();
}

//===----------------------------------------------------------------------===//
// Struct parameters: !xpu.struct<"name", field: type, ...>
//===----------------------------------------------------------------------===//

/// The field types a launch can pass by value (and a C host lay out).
static bool isStructField(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.getRank() == 1 && !v.isScalable() && v.getNumElements() >= 2 &&
           v.getNumElements() <= 4 && isStructField(v.getElementType());
  if (auto i = dyn_cast<IntegerType>(t))
    return i.isSignless() && (i.getWidth() == 1 || i.getWidth() == 8 || i.getWidth() == 16 ||
                              i.getWidth() == 32 || i.getWidth() == 64);
  return t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}

Type StructType::parse(AsmParser &parser) {
  std::string name;
  SmallVector<StringAttr> names;
  SmallVector<Type> types;
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef field;
    Type t;
    if (parser.parseKeyword(&field) || parser.parseColon() || parser.parseType(t))
      return {};
    names.push_back(StringAttr::get(parser.getContext(), field));
    types.push_back(t);
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<StructType>(parser.getContext(), llvm::StringRef(name),
                                       llvm::ArrayRef<StringAttr>(names),
                                       llvm::ArrayRef<Type>(types));
}

void StructType::print(AsmPrinter &printer) const {
  printer << "<\"" << getName() << "\"";
  for (auto [n, t] : llvm::zip(getFieldNames(), getFieldTypes()))
    printer << ", " << n.getValue() << ": " << t;
  printer << ">";
}

LogicalResult StructType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, ArrayRef<StringAttr> names,
                                 ArrayRef<Type> types) {
  if (names.empty())
    return emitError() << "struct '" << name << "' has no fields";
  llvm::SmallDenseSet<StringAttr> seen;
  for (auto [n, t] : llvm::zip(names, types)) {
    if (!seen.insert(n).second)
      return emitError() << "struct '" << name << "' has two fields named '"
                         << n.getValue() << "'";
    if (!isStructField(t))
      return emitError() << "field '" << n.getValue() << "' of struct '" << name
                         << "' has type " << t
                         << "; fields are scalars (i1..i64, f16, bf16, f32, f64) or "
                            "vectors of 2-4 of them";
  }
  return success();
}

std::optional<unsigned> StructType::fieldIndex(StringRef name) const {
  for (auto [i, n] : llvm::enumerate(getFieldNames()))
    if (n.getValue() == name)
      return unsigned(i);
  return std::nullopt;
}

LogicalResult StructGetOp::verify() {
  auto type = dyn_cast<StructType>(getAggregate().getType());
  if (!type)
    return emitOpError() << "reads a field of " << getAggregate().getType()
                         << ", which is not an !xpu.struct";
  std::optional<unsigned> i = type.fieldIndex(getField());
  if (!i)
    return emitOpError() << "struct '" << type.getName() << "' has no field '"
                         << getField() << "'";
  if (type.getFieldTypes()[*i] != getResult().getType())
    return emitOpError() << "field '" << getField() << "' is "
                         << type.getFieldTypes()[*i] << ", not "
                         << getResult().getType();
  return success();
}

//===----------------------------------------------------------------------===//
// Printing from kernels
//===----------------------------------------------------------------------===//

LogicalResult PrintfOp::verify() {
  std::vector<abi::PrintPiece> pieces;
  std::string error;
  if (!abi::parsePrintFormat(getFormat().str(), pieces, error)) {
    std::string escaped;
    llvm::raw_string_ostream os(escaped);
    llvm::printEscapedString(getFormat(), os);
    return emitOpError() << "format \"" << escaped << "\": " << error;
  }
  size_t conversions = llvm::count_if(pieces, [](auto &p) { return p.conversion != 0; });
  if (conversions != getArgs().size())
    return emitOpError() << "the format has " << conversions << " conversions but "
                         << getArgs().size() << " values are given";
  size_t k = 0;
  for (const abi::PrintPiece &p : pieces) {
    if (!p.conversion)
      continue;
    Type t = getArgs()[k].getType();
    bool isInt = t.isSignlessInteger() &&
                 llvm::is_contained({1u, 8u, 16u, 32u, 64u}, t.getIntOrFloatBitWidth());
    bool isFloat = t.isF16() || t.isBF16() || t.isF32() || t.isF64();
    if (!(abi::isFloatConversion(p.conversion) ? isFloat : isInt))
      return emitOpError() << "value " << k << " is " << t << " but its conversion '%"
                           << p.conversion << "' takes "
                           << (abi::isFloatConversion(p.conversion)
                                   ? "a float (f16, bf16, f32, f64)"
                                   : "an integer (i1, i8, i16, i32, i64)");
    ++k;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Bounded function values
//===----------------------------------------------------------------------===//

/// Every member of `set` is an xpu.func of type `want` (the first member's
/// when `want` is null); reports on `op` otherwise.
static LogicalResult verifyFunctionSet(Operation *op, ArrayAttr set, FunctionType want,
                                       SymbolTableCollection &symbols) {
  if (set.empty())
    return op->emitOpError("names an empty set of functions");
  for (Attribute a : set) {
    auto ref = cast<FlatSymbolRefAttr>(a);
    auto fn = symbols.lookupNearestSymbolFrom<FuncOp>(op, ref);
    if (!fn)
      return op->emitOpError() << "'" << ref.getValue() << "' is not an xpu.func in this module";
    if (!want)
      want = fn.getFunctionType();
    if (fn.getFunctionType() != want)
      return op->emitOpError() << "the functions of the set have different types: '"
                               << ref.getValue() << "' is " << fn.getFunctionType()
                               << ", not " << want;
  }
  return success();
}

LogicalResult FnValueOp::verifySymbolUses(SymbolTableCollection &symbols) {
  if (!llvm::is_contained(getSet(), getCalleeAttr()))
    return emitOpError() << "'" << getCallee() << "' is not one of the set";
  return verifyFunctionSet(*this, getSet(), FunctionType(), symbols);
}

LogicalResult FnCallOp::verifySymbolUses(SymbolTableCollection &symbols) {
  auto type = FunctionType::get(getContext(), getInputs().getTypes(), getResultTypes());
  return verifyFunctionSet(*this, getSet(), type, symbols);
}

//===----------------------------------------------------------------------===//
// Asynchronous copies
//===----------------------------------------------------------------------===//

LogicalResult AsyncCopyOp::verify() {
  auto src = cast<BufferType>(getSrc().getType()), dst = cast<BufferType>(getDst().getType());
  if (src.getSpace() != Space::global || dst.getSpace() != Space::shared)
    return emitOpError("copies from a global buffer into a shared one");
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "copies " << src.getElementType() << " elements into a buffer of "
                         << dst.getElementType();
  return success();
}
