// The kernel builder; see kernel_builder.h. Every call checks its inputs
// first and changes nothing when it fails; each op it makes is verified
// alone before its result is handed out, so the finished module is the
// IR the same text would parse to.
#include "runtime/kernel_builder.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Pipeline.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cctype>
#include <deque>
#include <map>

namespace xpu::rt {

using namespace mlir;

namespace {

std::atomic<uint32_t> nextSerial{1};

/// An open block: the function body or a block of a structured op.
enum class FrameKind { function, ifThen, ifElse, forBody, whileBefore, whileAfter };

const char *describe(FrameKind k) {
  switch (k) {
  case FrameKind::function: return "kernel or function body";
  case FrameKind::ifThen: return "then-block of an if";
  case FrameKind::ifElse: return "else-block of an if";
  case FrameKind::forBody: return "body of a for";
  case FrameKind::whileBefore: return "condition block of a while";
  case FrameKind::whileAfter: return "body of a while";
  }
  return "block";
}

struct Frame {
  FrameKind kind;
  Operation *op; ///< the function, or the structured op being built
  Block *block;  ///< where operations go
  SmallVector<Type> types; ///< ifElse: the then-block's yields; whileAfter: the passed values
};

/// The op each operand kind takes: integers and index / floats.
struct OpNames {
  const char *name; ///< for messages
  const char *integer, *floating;
};

const OpNames kBinary[] = {
    {"ADD", "arith.addi", "arith.addf"},     {"SUB", "arith.subi", "arith.subf"},
    {"MUL", "arith.muli", "arith.mulf"},     {"DIV", "arith.divsi", "arith.divf"},
    {"DIVU", "arith.divui", nullptr},        {"REM", "arith.remsi", "arith.remf"},
    {"REMU", "arith.remui", nullptr},        {"MIN", "arith.minsi", "arith.minimumf"},
    {"MINU", "arith.minui", nullptr},        {"MAX", "arith.maxsi", "arith.maximumf"},
    {"MAXU", "arith.maxui", nullptr},        {"AND", "arith.andi", nullptr},
    {"OR", "arith.ori", nullptr},            {"XOR", "arith.xori", nullptr},
    {"SHL", "arith.shli", nullptr},          {"SHR", "arith.shrsi", nullptr},
    {"SHRU", "arith.shrui", nullptr},        {"POW", nullptr, "math.powf"},
};

const OpNames kUnary[] = {
    {"NEG", nullptr, "arith.negf"},   {"ABS", "math.absi", "math.absf"},
    {"SQRT", nullptr, "math.sqrt"},   {"RSQRT", nullptr, "math.rsqrt"},
    {"EXP", nullptr, "math.exp"},     {"EXP2", nullptr, "math.exp2"},
    {"LOG", nullptr, "math.log"},     {"LOG2", nullptr, "math.log2"},
    {"SIN", nullptr, "math.sin"},     {"COS", nullptr, "math.cos"},
    {"TAN", nullptr, "math.tan"},     {"TANH", nullptr, "math.tanh"},
    {"FLOOR", nullptr, "math.floor"}, {"CEIL", nullptr, "math.ceil"},
    {"ROUND", nullptr, "math.round"}, {"TRUNC", nullptr, "math.trunc"},
};

const char *const kCasts[] = {
    "arith.index_cast", "arith.index_castui", "arith.extsi",  "arith.extui",
    "arith.trunci",     "arith.sitofp",       "arith.uitofp", "arith.fptosi",
    "arith.fptoui",     "arith.extf",         "arith.truncf", "arith.bitcast",
};

const arith::CmpIPredicate kCmpI[] = {
    arith::CmpIPredicate::eq,  arith::CmpIPredicate::ne,  arith::CmpIPredicate::slt,
    arith::CmpIPredicate::sle, arith::CmpIPredicate::sgt, arith::CmpIPredicate::sge,
    arith::CmpIPredicate::ult, arith::CmpIPredicate::ule, arith::CmpIPredicate::ugt,
    arith::CmpIPredicate::uge};
const arith::CmpFPredicate kCmpF[] = {
    arith::CmpFPredicate::OEQ, arith::CmpFPredicate::UNE, arith::CmpFPredicate::OLT,
    arith::CmpFPredicate::OLE, arith::CmpFPredicate::OGT, arith::CmpFPredicate::OGE,
    arith::CmpFPredicate::ULT, arith::CmpFPredicate::ULE, arith::CmpFPredicate::UGT,
    arith::CmpFPredicate::UGE, arith::CmpFPredicate::ORD, arith::CmpFPredicate::UNO};

template <typename E, typename T, size_t N> bool inRange(E e, const T (&)[N]) {
  return uint32_t(e) < N;
}

/// Names as the text writes them: `%name` for values, `@name` for symbols.
bool isName(const char *s) {
  if (!s || !*s || std::isdigit((unsigned char)*s))
    return false;
  for (; *s; ++s)
    if (!std::isalnum((unsigned char)*s) && *s != '_' && *s != '$' && *s != '.')
      return false;
  return true;
}

bool isScalar(Type t) {
  if (auto i = dyn_cast<IntegerType>(t))
    return i.isSignless() && (i.getWidth() == 1 || i.getWidth() == 8 ||
                              i.getWidth() == 16 || i.getWidth() == 32 ||
                              i.getWidth() == 64);
  return t.isIndex() || t.isF16() || t.isBF16() || t.isF32() || t.isF64();
}

/// The types a builder value may have: scalars, 1-D vectors of them,
/// buffers, structs (kernel parameters).
bool isValueType(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.getRank() == 1 && !v.isScalable() && isScalar(v.getElementType());
  return isScalar(t) || isa<BufferType, StructType>(t);
}

Type elementOf(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.getElementType();
  return t;
}
bool isIntLike(Type t) {
  Type e = elementOf(t);
  return e.isSignlessInteger() || e.isIndex();
}
bool isFloatLike(Type t) { return isa<FloatType>(elementOf(t)); }

std::string text(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string text(TypeRange types) {
  std::string s = "(";
  for (auto [i, t] : llvm::enumerate(types))
    s += (i ? ", " : "") + text(t);
  return s + ")";
}

} // namespace

struct KernelBuilder::Impl {
  MLIRContext ctx{MLIRContext::Threading::DISABLED};
  OwningOpRef<ModuleOp> module;
  OpBuilder b{&ctx};
  Location loc = UnknownLoc::get(&ctx);
  const uint32_t serial = nextSerial++;
  std::vector<Value> values;
  std::vector<Frame> frames;
  bool finished = false;
  std::string diagnostic; ///< the first error the context reported since cleared
  std::map<std::string, Type, std::less<>> parsedTypes;
  llvm::DenseMap<Type, const char *> typeTexts;
  std::deque<std::string> typeTextStore; ///< stable storage for typeTexts

  Impl() {
    DialectRegistry registry;
    registerDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadDialect<XPUDialect, arith::ArithDialect, math::MathDialect,
                    scf::SCFDialect, vector::VectorDialect>();
    ctx.getDiagEngine().registerHandler([this](mlir::Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error && diagnostic.empty())
        diagnostic = d.str();
      return success();
    });
    module = ModuleOp::create(loc);
  }

  static Status fail(const char *call, const std::string &why) {
    return invalidArgument(std::string(call) + ": " + why);
  }

  /// The builder is open for building, with a kernel or function begun.
  Status ready(const char *call) {
    if (finished)
      return fail(call, "the builder is finished");
    if (frames.empty())
      return fail(call, "no kernel or function is open (begin one first)");
    return {};
  }

  std::string functionName() {
    return "'" + cast<SymbolOpInterface>(frames.front().op).getName().str() + "'";
  }

  /// A value of this builder, whatever block made it.
  Status lookup(ValueId id, const char *call, const char *what, Value &out) {
    uint32_t index = uint32_t(id);
    if (!id)
      return {XPU_ERROR_INVALID_HANDLE, std::string(call) + ": `" + what + "` is NULL"};
    if ((id >> 32) != serial || index == 0 || index > values.size())
      return {XPU_ERROR_INVALID_HANDLE,
              std::string(call) + ": `" + what +
                  "` is not a value of this builder (another builder's, or a "
                  "released one's)"};
    out = values[index - 1];
    return {};
  }

  /// Whether the innermost open block can use `v`: it was made in that
  /// block or in one enclosing it (the text's scoping rule).
  bool visible(Value v) {
    Block *def = v.getParentBlock();
    for (Block *blk = frames.back().block; blk;) {
      if (blk == def)
        return true;
      Operation *parent = blk->getParentOp();
      if (!parent || isa<ModuleOp>(parent))
        return false;
      blk = parent->getBlock();
    }
    return false;
  }

  /// A value usable at the insertion point.
  Status get(ValueId id, const char *call, const char *what, Value &out) {
    XPU_RETURN_IF_ERROR(lookup(id, call, what, out));
    if (!visible(out))
      return fail(call, std::string("`") + what +
                            "` is not visible here: it was made in a block that "
                            "has ended, or in another kernel or function");
    return {};
  }

  Status getAll(const ValueIds &ids, const char *call, const char *what,
                SmallVectorImpl<Value> &out) {
    for (ValueId id : ids) {
      Value v;
      XPU_RETURN_IF_ERROR(get(id, call, what, v));
      out.push_back(v);
    }
    return {};
  }

  ValueId add(Value v) {
    values.push_back(v);
    return (uint64_t(serial) << 32) | uint64_t(values.size());
  }

  Status parseType(const char *textIn, const char *call, Type &out) {
    if (!textIn)
      return fail(call, "the type is NULL");
    if (auto it = parsedTypes.find(textIn); it != parsedTypes.end()) {
      out = it->second;
      return {};
    }
    diagnostic.clear();
    Type t = mlir::parseType(textIn, &ctx);
    if (!t)
      return fail(call, std::string("'") + textIn + "' is not a type" +
                            (diagnostic.empty() ? "" : " (" + diagnostic + ")"));
    if (!isValueType(t))
      return fail(call, std::string("type '") + textIn +
                            "' is not one a kernel value can have (i1, i8, i16, "
                            "i32, i64, f16, bf16, f32, f64, index, vector<NxT> "
                            "of them, !xpu.buffer<...>, !xpu.struct<...>)");
    parsedTypes.emplace(textIn, t);
    out = t;
    return {};
  }

  const char *typeText(Type t) {
    auto it = typeTexts.find(t);
    if (it != typeTexts.end())
      return it->second;
    typeTextStore.push_back(text(t));
    return typeTexts[t] = typeTextStore.back().c_str();
  }

  OpBuilder &here() {
    b.setInsertionPointToEnd(frames.back().block);
    return b;
  }

  /// Verifies the op just made; on failure removes it and says why.
  Status check(Operation *op, const char *call) {
    diagnostic.clear();
    if (succeeded(verify(op, /*verifyRecursively=*/false)))
      return {};
    op->erase();
    return fail(call, diagnostic.empty() ? "the operation does not verify"
                                         : diagnostic);
  }

  /// Makes `name` generically with `operands` and one result of `type`.
  Status emit(const char *name, ValueRange operands, Type type, const char *call,
              ValueId &out) {
    OperationState state(loc, name);
    state.addOperands(operands);
    state.addTypes(type);
    Operation *op = here().create(state);
    XPU_RETURN_IF_ERROR(check(op, call));
    out = add(op->getResult(0));
    return {};
  }

  Status emitted(Operation *op, const char *call, ValueId &out) {
    XPU_RETURN_IF_ERROR(check(op, call));
    out = add(op->getResult(0));
    return {};
  }

  /// The innermost open block must be of `kind` (the structure rule for
  /// else, ends and terminators).
  Status expect(const char *call, std::initializer_list<FrameKind> kinds,
                const char *what) {
    XPU_RETURN_IF_ERROR(ready(call));
    for (FrameKind k : kinds)
      if (frames.back().kind == k)
        return {};
    return fail(call, std::string("the innermost open block is the ") +
                          describe(frames.back().kind) + ", not " + what);
  }

  Status sameTypes(const char *call, TypeRange got, TypeRange want,
                   const char *what) {
    if (TypeRange(got) == TypeRange(want))
      return {};
    return fail(call, std::string(what) + ": got " + text(got) + ", expected " +
                          text(want));
  }

  /// Recreates structured op `old` with `resultTypes`, moving its regions:
  /// how an if or while gets the results its yields decide.
  Operation *withResults(Operation *old, TypeRange resultTypes) {
    b.setInsertionPoint(old);
    OperationState state(loc, old->getName());
    state.addOperands(old->getOperands());
    state.addTypes(resultTypes);
    for (unsigned i = 0; i < old->getNumRegions(); ++i)
      state.addRegion();
    Operation *op = b.create(state);
    for (unsigned i = 0; i < old->getNumRegions(); ++i)
      op->getRegion(i).takeBody(old->getRegion(i));
    old->erase();
    return op;
  }

  /// Ends the innermost block with scf.yield of `yields`.
  void yield(ArrayRef<Value> yields) { scf::YieldOp::create(here(), loc, yields); }

  /// Closes the innermost structured op: verifies it and hands out results.
  Status close(Operation *op, const char *call, ValueIds &results) {
    frames.pop_back();
    diagnostic.clear();
    if (failed(verify(op, /*verifyRecursively=*/false)))
      return internalError(std::string(call) + ": the built op does not verify: " +
                           diagnostic);
    results.clear();
    for (Value r : op->getResults())
      results.push_back(add(r));
    return {};
  }
};

KernelBuilder::KernelBuilder() : impl_(std::make_unique<Impl>()) {}
KernelBuilder::~KernelBuilder() = default;

//===----------------------------------------------------------------------===//
// Kernels and functions
//===----------------------------------------------------------------------===//

static Status beginFunction(KernelBuilder::Impl &m, const char *call,
                            const char *name) {
  if (m.finished)
    return m.fail(call, "the builder is finished");
  if (!m.frames.empty())
    return m.fail(call, m.functionName() +
                            " is still open (end it with xpu_builder_return)");
  if (!isName(name))
    return m.fail(call, std::string("'") + (name ? name : "(null)") +
                            "' is not a name (letters, digits, _ $ .; not "
                            "starting with a digit)");
  if (SymbolTable::lookupSymbolIn(*m.module, name))
    return m.fail(call, std::string("the module already has '@") + name + "'");
  return {};
}

static void openFunction(KernelBuilder::Impl &m, Operation *fn, Region &body) {
  Block *entry = new Block();
  body.push_back(entry);
  m.frames.push_back({FrameKind::function, fn, entry, {}});
}

Status KernelBuilder::beginKernel(const char *name, const KernelAttributes &a) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_kernel_begin";
  XPU_RETURN_IF_ERROR(beginFunction(m, call, name));
  if (a.profile && StringRef(a.profile) != kProfilePortable &&
      StringRef(a.profile) != kProfileDeterministic)
    return m.fail(call, std::string("unknown profile '") + a.profile +
                            "' (accepted: portable, deterministic-v1)");
  m.b.setInsertionPointToEnd(m.module->getBody());
  auto kernel = KernelOp::create(m.b, m.loc, name, m.b.getFunctionType({}, {}));
  if (a.profile)
    kernel.setProfileAttr(m.b.getStringAttr(a.profile));
  if (a.hasEffects)
    kernel.setEffectsAttr(m.b.getStrArrayAttr(
        SmallVector<StringRef>(a.effects.begin(), a.effects.end())));
  if (a.device)
    kernel.setDeviceAttr(m.b.getStringAttr(a.device));
  if (!a.workgroupSize.empty())
    kernel.setWorkgroupSizeAttr(m.b.getDenseI64ArrayAttr(a.workgroupSize));
  if (!a.gridSize.empty())
    kernel.setGridSizeAttr(m.b.getDenseI64ArrayAttr(a.gridSize));
  if (a.fastmath)
    kernel.setFastmathAttr(m.b.getUnitAttr());
  openFunction(m, kernel, kernel.getBody());
  return {};
}

Status KernelBuilder::beginFunc(const char *name) {
  Impl &m = *impl_;
  XPU_RETURN_IF_ERROR(beginFunction(m, "xpu_builder_func_begin", name));
  m.b.setInsertionPointToEnd(m.module->getBody());
  auto fn = FuncOp::create(m.b, m.loc, name, m.b.getFunctionType({}, {}));
  openFunction(m, fn, fn.getBody());
  return {};
}

Status KernelBuilder::param(const char *name, const char *type, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_param";
  XPU_RETURN_IF_ERROR(m.ready(call));
  bool named = name && *name;
  if (named && !isName(name))
    return m.fail(call, std::string("'") + name +
                            "' is not a name (letters, digits, _ $ .; not "
                            "starting with a digit)");
  auto fn = cast<FunctionOpInterface>(m.frames.front().op);
  if (named)
    for (unsigned i = 0; i < fn.getNumArguments(); ++i)
      if (auto n = fn.getArgAttrOfType<StringAttr>(i, "xpu.name");
          n && n.getValue() == name)
        return m.fail(call, m.functionName() + " already has a parameter '" +
                                name + "'");
  Type t;
  XPU_RETURN_IF_ERROR(m.parseType(type, call, t));
  unsigned index = fn.getNumArguments();
  DictionaryAttr attrs;
  if (named)
    attrs = m.b.getDictionaryAttr(
        m.b.getNamedAttr("xpu.name", m.b.getStringAttr(name)));
  if (failed(fn.insertArgument(index, t, attrs, m.loc)))
    return internalError(std::string(call) + ": could not add the parameter");
  out = m.add(fn.getArgument(index));
  return {};
}

Status KernelBuilder::ret(const ValueIds &ids) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_return";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (m.frames.size() > 1)
    return m.fail(call, std::string("the ") + describe(m.frames.back().kind) +
                            " is still open: xpu.return ends the " +
                            "kernel or function body, so end the block first");
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(ids, call, "values", vals));
  auto fn = cast<FunctionOpInterface>(m.frames.front().op);
  bool isKernel = isa<KernelOp>(fn.getOperation());
  if (isKernel && !vals.empty())
    return m.fail(call, "kernels return no values; store results to buffers");
  auto oldType = cast<FunctionType>(fn.getFunctionType());
  if (!isKernel)
    fn.setType(m.b.getFunctionType(oldType.getInputs(), ValueRange(vals).getTypes()));
  auto r = ReturnOp::create(m.here(), m.loc, vals);
  m.diagnostic.clear();
  if (failed(verify(r)) || failed(verify(fn, /*verifyRecursively=*/true))) {
    std::string why = m.diagnostic;
    r->erase();
    fn.setType(oldType);
    return internalError(std::string(call) + ": the built function does not verify: " +
                         why);
  }
  m.frames.pop_back();
  return {};
}

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Status KernelBuilder::constantInt(const char *type, int64_t value, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_constant_int";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Type t;
  XPU_RETURN_IF_ERROR(m.parseType(type, call, t));
  if (!isIntLike(t))
    return m.fail(call, "type " + text(t) +
                            " is not an integer, index or vector of them");
  Type e = elementOf(t);
  TypedAttr attr;
  if (e.isIndex()) {
    attr = m.b.getIndexAttr(value);
  } else {
    unsigned w = e.getIntOrFloatBitWidth();
    bool fits = w == 64 || (w == 1 ? (value == 0 || value == 1)
                                   : value >= -(int64_t(1) << (w - 1)) &&
                                         value <= (int64_t(1) << w) - 1);
    if (!fits)
      return m.fail(call, std::to_string(value) + " does not fit " + text(e));
    attr = IntegerAttr::get(e, APInt(w, uint64_t(value), /*isSigned=*/false,
                                     /*implicitTrunc=*/true));
  }
  if (auto v = dyn_cast<VectorType>(t))
    attr = DenseElementsAttr::get(v, Attribute(attr));
  return m.emitted(arith::ConstantOp::create(m.here(), m.loc, attr), call, out);
}

Status KernelBuilder::constantFloat(const char *type, double value, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_constant_float";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Type t;
  XPU_RETURN_IF_ERROR(m.parseType(type, call, t));
  if (!isFloatLike(t))
    return m.fail(call, "type " + text(t) + " is not a float or vector of floats");
  TypedAttr attr = m.b.getFloatAttr(elementOf(t), value);
  if (auto v = dyn_cast<VectorType>(t))
    attr = DenseElementsAttr::get(v, Attribute(attr));
  return m.emitted(arith::ConstantOp::create(m.here(), m.loc, attr), call, out);
}

/// The op of `names` for operands of type `t`, or a failure naming why not.
static Status pick(KernelBuilder::Impl &m, const char *call, const char *what,
                   const OpNames &names, Type t, const char *&op) {
  op = isFloatLike(t) ? names.floating : isIntLike(t) ? names.integer : nullptr;
  if (op)
    return {};
  return m.fail(call, std::string(what) + names.name + " does not apply to " + text(t));
}

Status KernelBuilder::binary(xpu_binary_op op, ValueId lhs, ValueId rhs,
                             ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_binary";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!inRange(op, kBinary))
    return m.fail(call, "unknown operation " + std::to_string(int(op)));
  Value l, r;
  XPU_RETURN_IF_ERROR(m.get(lhs, call, "lhs", l));
  XPU_RETURN_IF_ERROR(m.get(rhs, call, "rhs", r));
  if (l.getType() != r.getType())
    return m.fail(call, "the operands have different types, " + text(l.getType()) +
                            " and " + text(r.getType()));
  const char *name;
  XPU_RETURN_IF_ERROR(pick(m, call, "XPU_BINARY_", kBinary[op], l.getType(), name));
  return m.emit(name, {l, r}, l.getType(), call, out);
}

Status KernelBuilder::unary(xpu_unary_op op, ValueId operand, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_unary";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!inRange(op, kUnary))
    return m.fail(call, "unknown operation " + std::to_string(int(op)));
  Value v;
  XPU_RETURN_IF_ERROR(m.get(operand, call, "operand", v));
  const char *name;
  XPU_RETURN_IF_ERROR(pick(m, call, "XPU_UNARY_", kUnary[op], v.getType(), name));
  return m.emit(name, {v}, v.getType(), call, out);
}

Status KernelBuilder::fma(ValueId a, ValueId b, ValueId c, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_fma";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value x, y, z;
  XPU_RETURN_IF_ERROR(m.get(a, call, "a", x));
  XPU_RETURN_IF_ERROR(m.get(b, call, "b", y));
  XPU_RETURN_IF_ERROR(m.get(c, call, "c", z));
  if (x.getType() != y.getType() || x.getType() != z.getType() ||
      !isFloatLike(x.getType()))
    return m.fail(call, "needs three floats of one type, got " +
                            text(TypeRange{x.getType(), y.getType(), z.getType()}));
  return m.emit("math.fma", {x, y, z}, x.getType(), call, out);
}

Status KernelBuilder::compare(xpu_compare pred, ValueId lhs, ValueId rhs,
                              ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_compare";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!inRange(pred, kCmpF))
    return m.fail(call, "unknown predicate " + std::to_string(int(pred)));
  Value l, r;
  XPU_RETURN_IF_ERROR(m.get(lhs, call, "lhs", l));
  XPU_RETURN_IF_ERROR(m.get(rhs, call, "rhs", r));
  Type t = l.getType();
  if (t != r.getType())
    return m.fail(call, "the operands have different types, " + text(t) + " and " +
                            text(r.getType()));
  if (isFloatLike(t))
    return m.emitted(arith::CmpFOp::create(m.here(), m.loc, kCmpF[pred], l, r), call,
                     out);
  if (!isIntLike(t))
    return m.fail(call, "cannot compare values of type " + text(t));
  if (!inRange(pred, kCmpI))
    return m.fail(call, "XPU_COMPARE_ORD and XPU_COMPARE_UNO apply to floats only");
  return m.emitted(arith::CmpIOp::create(m.here(), m.loc, kCmpI[pred], l, r), call,
                   out);
}

Status KernelBuilder::select(ValueId cond, ValueId t, ValueId f, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_select";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value c, x, y;
  XPU_RETURN_IF_ERROR(m.get(cond, call, "condition", c));
  XPU_RETURN_IF_ERROR(m.get(t, call, "if_true", x));
  XPU_RETURN_IF_ERROR(m.get(f, call, "if_false", y));
  if (!elementOf(c.getType()).isInteger(1))
    return m.fail(call, "the condition must be i1 (or a vector of i1), got " +
                            text(c.getType()));
  if (x.getType() != y.getType())
    return m.fail(call, "the choices have different types, " + text(x.getType()) +
                            " and " + text(y.getType()));
  return m.emitted(arith::SelectOp::create(m.here(), m.loc, c, x, y), call, out);
}

Status KernelBuilder::cast(xpu_cast cast, ValueId value, const char *type,
                           ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_cast";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!inRange(cast, kCasts))
    return m.fail(call, "unknown cast " + std::to_string(int(cast)));
  Value v;
  XPU_RETURN_IF_ERROR(m.get(value, call, "value", v));
  Type t;
  XPU_RETURN_IF_ERROR(m.parseType(type, call, t));
  if (isa<BufferType>(v.getType()) || isa<BufferType>(t))
    return m.fail(call, "buffers are not converted");
  return m.emit(kCasts[cast], {v}, t, call, out);
}

Status KernelBuilder::broadcast(ValueId scalar, uint32_t lanes, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_broadcast";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value v;
  XPU_RETURN_IF_ERROR(m.get(scalar, call, "scalar", v));
  if (!isScalar(v.getType()))
    return m.fail(call, "needs a scalar, got " + text(v.getType()));
  if (lanes < 1 || lanes > 64)
    return m.fail(call, "lanes must be 1 to 64, got " + std::to_string(lanes));
  auto vt = VectorType::get({int64_t(lanes)}, v.getType());
  return m.emitted(vector::BroadcastOp::create(m.here(), m.loc, vt, v), call, out);
}

static Status laneOf(KernelBuilder::Impl &m, const char *call, Value vec,
                     uint32_t lane) {
  auto vt = dyn_cast<VectorType>(vec.getType());
  if (!vt)
    return m.fail(call, "needs a vector, got " + text(vec.getType()));
  if (lane >= vt.getNumElements())
    return m.fail(call, "lane " + std::to_string(lane) + " is outside " +
                            text(vec.getType()));
  return {};
}

Status KernelBuilder::extract(ValueId vector, uint32_t lane, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_extract";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value v;
  XPU_RETURN_IF_ERROR(m.get(vector, call, "vector", v));
  XPU_RETURN_IF_ERROR(laneOf(m, call, v, lane));
  return m.emitted(vector::ExtractOp::create(m.here(), m.loc, v,
                                             ArrayRef<int64_t>{int64_t(lane)}),
                   call, out);
}

Status KernelBuilder::insert(ValueId scalar, ValueId vector, uint32_t lane,
                             ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_insert";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value s, v;
  XPU_RETURN_IF_ERROR(m.get(scalar, call, "scalar", s));
  XPU_RETURN_IF_ERROR(m.get(vector, call, "vector", v));
  XPU_RETURN_IF_ERROR(laneOf(m, call, v, lane));
  if (s.getType() != elementOf(v.getType()))
    return m.fail(call, "cannot insert " + text(s.getType()) + " into " +
                            text(v.getType()));
  return m.emitted(vector::InsertOp::create(m.here(), m.loc, s, v,
                                            ArrayRef<int64_t>{int64_t(lane)}),
                   call, out);
}

//===----------------------------------------------------------------------===//
// Coordinates, memory, synchronization
//===----------------------------------------------------------------------===//

Status KernelBuilder::coordinate(xpu_coordinate which, uint32_t axis,
                                 ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_coordinate";
  XPU_RETURN_IF_ERROR(m.ready(call));
  bool perAxis = which != XPU_COORD_WAVE_WIDTH && which != XPU_COORD_LANE_ID;
  if (uint32_t(which) > XPU_COORD_LANE_ID)
    return m.fail(call, "unknown coordinate " + std::to_string(int(which)));
  if (axis > (perAxis ? 2u : 0u))
    return m.fail(call, perAxis ? "the axis must be 0, 1 or 2 (x, y, z)"
                                : "the wave width and lane id take axis 0");
  OpBuilder &b = m.here();
  Dim d = Dim(axis);
  Operation *op = nullptr;
  switch (which) {
  case XPU_COORD_THREAD_ID: op = ThreadIdOp::create(b, m.loc, d); break;
  case XPU_COORD_WORKGROUP_ID: op = WorkgroupIdOp::create(b, m.loc, d); break;
  case XPU_COORD_GLOBAL_ID: op = GlobalIdOp::create(b, m.loc, d); break;
  case XPU_COORD_WORKGROUP_SIZE: op = WorkgroupSizeOp::create(b, m.loc, d); break;
  case XPU_COORD_GRID_SIZE: op = GridSizeOp::create(b, m.loc, d); break;
  case XPU_COORD_GLOBAL_SIZE: op = GlobalSizeOp::create(b, m.loc, d); break;
  case XPU_COORD_WAVE_WIDTH: op = WaveWidthOp::create(b, m.loc); break;
  default: op = LaneIdOp::create(b, m.loc); break;
  }
  return m.emitted(op, call, out);
}

/// A buffer operand and, when given, an index operand.
static Status access(KernelBuilder::Impl &m, const char *call, ValueId buffer,
                     ValueId *index, Value &buf, Value &idx) {
  XPU_RETURN_IF_ERROR(m.get(buffer, call, "buffer", buf));
  if (!isa<BufferType>(buf.getType()))
    return m.fail(call, "`buffer` is not a buffer but " + text(buf.getType()));
  if (!index)
    return {};
  XPU_RETURN_IF_ERROR(m.get(*index, call, "index", idx));
  if (!idx.getType().isIndex())
    return m.fail(call, "`index` must be an index value, got " +
                            text(idx.getType()) + " (convert it with XPU_CAST_INDEX)");
  return {};
}

Status KernelBuilder::load(ValueId buffer, ValueId index, uint32_t lanes,
                           ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_load";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value buf, idx;
  XPU_RETURN_IF_ERROR(access(m, call, buffer, &index, buf, idx));
  if (lanes > 4)
    return m.fail(call, "loads take 1 to 4 lanes, got " + std::to_string(lanes));
  Type elem = cast<BufferType>(buf.getType()).getElementType();
  Type t = lanes > 1 ? VectorType::get({int64_t(lanes)}, elem) : elem;
  return m.emitted(LoadOp::create(m.here(), m.loc, t, buf, idx), call, out);
}

Status KernelBuilder::store(ValueId value, ValueId buffer, ValueId index) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_store";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value v, buf, idx;
  XPU_RETURN_IF_ERROR(m.get(value, call, "value", v));
  XPU_RETURN_IF_ERROR(access(m, call, buffer, &index, buf, idx));
  return m.check(StoreOp::create(m.here(), m.loc, v, buf, idx), call);
}

Status KernelBuilder::bufferSize(ValueId buffer, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_buffer_size";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value buf, unused;
  XPU_RETURN_IF_ERROR(access(m, call, buffer, nullptr, buf, unused));
  return m.emitted(BufferSizeOp::create(m.here(), m.loc, buf), call, out);
}

Status KernelBuilder::alloc(const char *type, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_alloc";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Type t;
  XPU_RETURN_IF_ERROR(m.parseType(type, call, t));
  if (!isa<BufferType>(t))
    return m.fail(call, "allocates buffers, not " + text(t));
  return m.emitted(AllocOp::create(m.here(), m.loc, t), call, out);
}

Status KernelBuilder::barrier() {
  Impl &m = *impl_;
  const char *call = "xpu_builder_barrier";
  XPU_RETURN_IF_ERROR(m.ready(call));
  return m.check(BarrierOp::create(m.here(), m.loc), call);
}

Status KernelBuilder::atomic(xpu_atomic_op op, ValueId value, ValueId buffer,
                             ValueId index, xpu_memory_order order,
                             xpu_scope scope, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_atomic";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(op) > XPU_ATOMIC_FMAX || uint32_t(order) > XPU_ORDER_SEQ_CST ||
      uint32_t(scope) > XPU_SCOPE_DEVICE)
    return m.fail(call, "unknown operation, order or scope");
  if (op == XPU_ATOMIC_CMPXCHG)
    return m.fail(call, "a compare-exchange needs the value it expects: use "
                        "xpu_builder_atomic_cmpxchg");
  Value v, buf, idx;
  XPU_RETURN_IF_ERROR(m.get(value, call, "value", v));
  XPU_RETURN_IF_ERROR(access(m, call, buffer, &index, buf, idx));
  Type elem = cast<BufferType>(buf.getType()).getElementType();
  if (v.getType() != elem)
    return m.fail(call, "the value is " + text(v.getType()) +
                            " but the buffer holds " + text(elem));
  return m.emitted(AtomicRMWOp::create(m.here(), m.loc, elem, AtomicKind(op), v,
                                       buf, idx, MemoryOrder(order), Scope(scope)),
                   call, out);
}

Status KernelBuilder::atomicCmpxchg(ValueId expected, ValueId desired, ValueId buffer,
                                    ValueId index, xpu_memory_order order, xpu_scope scope,
                                    ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_atomic_cmpxchg";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(order) > XPU_ORDER_SEQ_CST || uint32_t(scope) > XPU_SCOPE_DEVICE)
    return m.fail(call, "unknown order or scope");
  Value e, d, buf, idx;
  XPU_RETURN_IF_ERROR(m.get(expected, call, "expected", e));
  XPU_RETURN_IF_ERROR(m.get(desired, call, "desired", d));
  XPU_RETURN_IF_ERROR(access(m, call, buffer, &index, buf, idx));
  Type elem = cast<BufferType>(buf.getType()).getElementType();
  if (e.getType() != elem || d.getType() != elem)
    return m.fail(call, "expected and desired are " + text(e.getType()) + " and " +
                            text(d.getType()) + " but the buffer holds " + text(elem));
  return m.emitted(AtomicRMWOp::create(m.here(), m.loc, elem, AtomicKind::cmpxchg, d, buf, idx,
                                       e, MemoryOrder(order), Scope(scope)),
                   call, out);
}

Status KernelBuilder::reduce(xpu_reduce_op op, ValueId value,
                             xpu_reduce_order order, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_reduce";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(op) > XPU_REDUCE_FMAX || uint32_t(order) > XPU_REDUCE_UNSPECIFIED)
    return m.fail(call, "unknown operation or order");
  Value v;
  XPU_RETURN_IF_ERROR(m.get(value, call, "value", v));
  return m.emitted(ReduceOp::create(m.here(), m.loc, v.getType(), ReduceKind(op), v,
                                    ReduceOrder(order)),
                   call, out);
}

Status KernelBuilder::call(const char *callee, const ValueIds &args,
                           size_t resultCount, ValueIds &results) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_call";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!callee)
    return m.fail(call, "the callee is NULL");
  Operation *sym = SymbolTable::lookupSymbolIn(*m.module, callee);
  auto fn = dyn_cast_or_null<FuncOp>(sym);
  if (!fn)
    return m.fail(call, std::string("'@") + callee + "' is not " +
                            (sym ? "a device function (kernels are not called)"
                                 : "a device function of this builder"));
  if (fn.getOperation() == m.frames.front().op)
    return m.fail(call, std::string("'@") + callee +
                            "' has not ended: call a function after its "
                            "xpu_builder_return");
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(args, call, "args", vals));
  FunctionType type = fn.getFunctionType();
  XPU_RETURN_IF_ERROR(m.sameTypes(call, ValueRange(vals).getTypes(),
                                  type.getInputs(), "the argument types"));
  if (resultCount != type.getNumResults())
    return m.fail(call, std::string("'@") + callee + "' returns " +
                            std::to_string(type.getNumResults()) + " values, " +
                            std::to_string(resultCount) + " asked for");
  auto op = CallOp::create(m.here(), m.loc, type.getResults(), callee, vals);
  XPU_RETURN_IF_ERROR(m.check(op, call));
  results.clear();
  for (Value r : op.getResults())
    results.push_back(m.add(r));
  return {};
}

//===----------------------------------------------------------------------===//
// Structured control flow
//===----------------------------------------------------------------------===//

Status KernelBuilder::ifBegin(ValueId cond) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_if_begin";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value c;
  XPU_RETURN_IF_ERROR(m.get(cond, call, "condition", c));
  if (!c.getType().isInteger(1))
    return m.fail(call, "the condition must be i1, got " + text(c.getType()));
  // Results come with the yields at the end (Impl::withResults).
  OperationState state(m.loc, scf::IfOp::getOperationName());
  state.addOperands(c);
  state.addRegion();
  state.addRegion();
  Operation *op = m.here().create(state);
  Block *then = new Block();
  op->getRegion(0).push_back(then);
  m.frames.push_back({FrameKind::ifThen, op, then, {}});
  return {};
}

Status KernelBuilder::ifElse(const ValueIds &yields) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_else";
  XPU_RETURN_IF_ERROR(m.expect(call, {FrameKind::ifThen}, "the then-block of an if"));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(yields, call, "yields", vals));
  m.yield(vals);
  Frame &f = m.frames.back();
  Block *elseBlock = new Block();
  f.op->getRegion(1).push_back(elseBlock);
  f.kind = FrameKind::ifElse;
  f.block = elseBlock;
  auto types = ValueRange(vals).getTypes();
  f.types.assign(types.begin(), types.end());
  return {};
}

Status KernelBuilder::ifEnd(const ValueIds &yields, ValueIds &results) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_if_end";
  XPU_RETURN_IF_ERROR(
      m.expect(call, {FrameKind::ifThen, FrameKind::ifElse}, "a block of an if"));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(yields, call, "yields", vals));
  Frame &f = m.frames.back();
  if (f.kind == FrameKind::ifThen && !vals.empty())
    return m.fail(call, "an if that yields values needs an else-block "
                        "(xpu_builder_else)");
  if (f.kind == FrameKind::ifElse)
    XPU_RETURN_IF_ERROR(m.sameTypes(call, ValueRange(vals).getTypes(), f.types,
                                    "the else-block yields"));
  m.yield(vals);
  Operation *op = f.op;
  if (!vals.empty())
    op = m.withResults(op, f.types);
  return m.close(op, call, results);
}

Status KernelBuilder::forBegin(ValueId lower, ValueId upper, ValueId step,
                               const ValueIds &inits, ValueId &induction,
                               ValueIds &iterArgs) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_for_begin";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value lb, ub, st;
  XPU_RETURN_IF_ERROR(m.get(lower, call, "lower", lb));
  XPU_RETURN_IF_ERROR(m.get(upper, call, "upper", ub));
  XPU_RETURN_IF_ERROR(m.get(step, call, "step", st));
  Type t = lb.getType();
  if (ub.getType() != t || st.getType() != t || !(t.isIndex() || t.isSignlessInteger()))
    return m.fail(call, "lower, upper and step must be of one integer or index type, "
                        "got " + text(TypeRange{t, ub.getType(), st.getType()}));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(inits, call, "inits", vals));
  OperationState state(m.loc, scf::ForOp::getOperationName());
  state.addOperands({lb, ub, st});
  state.addOperands(vals);
  state.addTypes(ValueRange(vals).getTypes());
  state.addRegion();
  Operation *op = m.here().create(state);
  Block *body = new Block();
  op->getRegion(0).push_back(body);
  body->addArgument(t, m.loc);
  for (Value v : vals)
    body->addArgument(v.getType(), m.loc);
  m.frames.push_back({FrameKind::forBody, op, body, {}});
  induction = m.add(body->getArgument(0));
  iterArgs.clear();
  for (BlockArgument a : body->getArguments().drop_front())
    iterArgs.push_back(m.add(a));
  return {};
}

Status KernelBuilder::forEnd(const ValueIds &yields, ValueIds &results) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_for_end";
  XPU_RETURN_IF_ERROR(m.expect(call, {FrameKind::forBody}, "the body of a for"));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(yields, call, "yields", vals));
  Operation *op = m.frames.back().op;
  XPU_RETURN_IF_ERROR(m.sameTypes(call, ValueRange(vals).getTypes(),
                                  op->getResultTypes(), "the body yields"));
  m.yield(vals);
  return m.close(op, call, results);
}

Status KernelBuilder::whileBegin(const ValueIds &inits, ValueIds &args) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_while_begin";
  XPU_RETURN_IF_ERROR(m.ready(call));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(inits, call, "inits", vals));
  // Results come with scf.condition (Impl::withResults at the end).
  OperationState state(m.loc, scf::WhileOp::getOperationName());
  state.addOperands(vals);
  state.addRegion();
  state.addRegion();
  Operation *op = m.here().create(state);
  Block *before = new Block();
  op->getRegion(0).push_back(before);
  args.clear();
  for (Value v : vals)
    args.push_back(m.add(before->addArgument(v.getType(), m.loc)));
  m.frames.push_back({FrameKind::whileBefore, op, before, {}});
  return {};
}

Status KernelBuilder::whileDo(ValueId cond, const ValueIds &passed,
                              ValueIds &args) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_while_do";
  XPU_RETURN_IF_ERROR(
      m.expect(call, {FrameKind::whileBefore}, "the condition block of a while"));
  Value c;
  XPU_RETURN_IF_ERROR(m.get(cond, call, "condition", c));
  if (!c.getType().isInteger(1))
    return m.fail(call, "the condition must be i1, got " + text(c.getType()));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(passed, call, "passed", vals));
  scf::ConditionOp::create(m.here(), m.loc, c, vals);
  Frame &f = m.frames.back();
  Block *after = new Block();
  f.op->getRegion(1).push_back(after);
  f.kind = FrameKind::whileAfter;
  f.block = after;
  auto types = ValueRange(vals).getTypes();
  f.types.assign(types.begin(), types.end());
  args.clear();
  for (Value v : vals)
    args.push_back(m.add(after->addArgument(v.getType(), m.loc)));
  return {};
}

Status KernelBuilder::whileEnd(const ValueIds &yields, size_t resultCount,
                               ValueIds &results) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_while_end";
  XPU_RETURN_IF_ERROR(m.expect(call, {FrameKind::whileAfter}, "the body of a while"));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(yields, call, "yields", vals));
  Frame &f = m.frames.back();
  XPU_RETURN_IF_ERROR(m.sameTypes(call, ValueRange(vals).getTypes(),
                                  f.op->getOperandTypes(), "the body yields"));
  if (resultCount != f.types.size())
    return m.fail(call, "the while has " + std::to_string(f.types.size()) +
                            " results (the values its condition passes), " +
                            std::to_string(resultCount) + " asked for");
  m.yield(vals);
  Operation *op = f.types.empty() ? f.op : m.withResults(f.op, f.types);
  return m.close(op, call, results);
}

//===----------------------------------------------------------------------===//
// Struct parameters
//===----------------------------------------------------------------------===//

Status KernelBuilder::structGet(ValueId value, const char *field, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_struct_get";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value v;
  XPU_RETURN_IF_ERROR(m.get(value, call, "value", v));
  auto type = dyn_cast<StructType>(v.getType());
  if (!type)
    return m.fail(call, "`value` is " + text(v.getType()) + ", not a struct");
  if (!field)
    return m.fail(call, "the field name is NULL");
  std::optional<unsigned> index = type.fieldIndex(field);
  if (!index)
    return m.fail(call, "struct '" + type.getName().str() + "' has no field '" + field + "'");
  return m.emitted(StructGetOp::create(m.here(), m.loc, type.getFieldTypes()[*index], v,
                                       m.b.getStringAttr(field)),
                   call, out);
}

Status KernelBuilder::printf(const char *format, const ValueIds &ids) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_printf";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!format)
    return m.fail(call, "the format is NULL");
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(ids, call, "values", vals));
  return m.check(PrintfOp::create(m.here(), m.loc, m.b.getStringAttr(format), vals), call);
}

/// The symbols of a function set: each an xpu.func of this builder.
static Status functionSet(KernelBuilder::Impl &m, const char *call,
                          const std::vector<std::string> &names, ArrayAttr &out) {
  if (names.empty())
    return m.fail(call, "the set of functions is empty");
  SmallVector<Attribute> refs;
  for (const std::string &name : names) {
    Operation *sym = SymbolTable::lookupSymbolIn(*m.module, name);
    if (!isa_and_nonnull<FuncOp>(sym) || sym == m.frames.front().op)
      return m.fail(call, "'@" + name + "' is not an ended device function of this builder");
    refs.push_back(FlatSymbolRefAttr::get(&m.ctx, name));
  }
  out = ArrayAttr::get(&m.ctx, refs);
  return {};
}

/// Verifies an op with symbol uses (the set's functions) as the text would.
static Status checkUses(KernelBuilder::Impl &m, Operation *op, const char *call) {
  XPU_RETURN_IF_ERROR(m.check(op, call));
  SymbolTableCollection symbols;
  m.diagnostic.clear();
  if (succeeded(cast<SymbolUserOpInterface>(op).verifySymbolUses(symbols)))
    return {};
  op->erase();
  return m.fail(call, m.diagnostic.empty() ? "the set does not verify" : m.diagnostic);
}

Status KernelBuilder::fnValue(const char *callee, const std::vector<std::string> &set,
                              ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_fn_value";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (!callee)
    return m.fail(call, "the callee is NULL");
  ArrayAttr refs;
  XPU_RETURN_IF_ERROR(functionSet(m, call, set, refs));
  auto op = FnValueOp::create(m.here(), m.loc, m.b.getI32Type(),
                              FlatSymbolRefAttr::get(&m.ctx, callee), refs);
  XPU_RETURN_IF_ERROR(checkUses(m, op, call));
  out = m.add(op.getResult());
  return {};
}

Status KernelBuilder::fnCall(ValueId function, const std::vector<std::string> &set,
                             const ValueIds &args, size_t resultCount, ValueIds &results) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_fn_call";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value f;
  XPU_RETURN_IF_ERROR(m.get(function, call, "function", f));
  if (!f.getType().isInteger(32))
    return m.fail(call, "`function` must be an i32 function value, got " + text(f.getType()));
  ArrayAttr refs;
  XPU_RETURN_IF_ERROR(functionSet(m, call, set, refs));
  SmallVector<Value> vals;
  XPU_RETURN_IF_ERROR(m.getAll(args, call, "args", vals));
  FunctionType type = SymbolTable::lookupSymbolIn(*m.module, set.front())
                          ? cast<FuncOp>(SymbolTable::lookupSymbolIn(*m.module, set.front()))
                                .getFunctionType()
                          : FunctionType();
  if (resultCount != type.getNumResults())
    return m.fail(call, "the set's functions return " + std::to_string(type.getNumResults()) +
                            " values, " + std::to_string(resultCount) + " asked for");
  auto op = FnCallOp::create(m.here(), m.loc, type.getResults(), f, refs, vals);
  XPU_RETURN_IF_ERROR(checkUses(m, op, call));
  results.clear();
  for (Value r : op.getResults())
    results.push_back(m.add(r));
  return {};
}

Status KernelBuilder::gridStrideBegin(ValueId n, ValueId &index) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_grid_stride_begin";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value bound;
  XPU_RETURN_IF_ERROR(m.get(n, call, "n", bound));
  if (!bound.getType().isIndex())
    return m.fail(call, "`n` must be an index value, got " + text(bound.getType()) +
                            " (convert it with XPU_CAST_INDEX_UNSIGNED)");
  // for (i = global id; i < n; i += global size): spec 17.2's stride.
  ValueId start = m.add(GlobalIdOp::create(m.here(), m.loc, Dim::x));
  ValueId step = m.add(GlobalSizeOp::create(m.here(), m.loc, Dim::x));
  ValueIds iterArgs;
  return forBegin(start, n, step, {}, index, iterArgs);
}

Status KernelBuilder::gridStrideEnd() {
  Impl &m = *impl_;
  const char *call = "xpu_builder_grid_stride_end";
  XPU_RETURN_IF_ERROR(m.expect(call, {FrameKind::forBody}, "the body of a grid-stride loop"));
  ValueIds results;
  return forEnd({}, results);
}

//===----------------------------------------------------------------------===//
// Wave operations
//===----------------------------------------------------------------------===//

/// A wave operand: a value of one of the wave types (i32, i64, f32, f64).
static Status waveValue(KernelBuilder::Impl &m, const char *call, ValueId id,
                        const char *what, Value &out) {
  XPU_RETURN_IF_ERROR(m.get(id, call, what, out));
  Type t = out.getType();
  if (!t.isInteger(32) && !t.isInteger(64) && !t.isF32() && !t.isF64())
    return m.fail(call, std::string("`") + what + "` must be i32, i64, f32 or f64, got " +
                            text(t));
  return {};
}

/// An operand of exactly type `want` ("i32" lanes and offsets, "i1" predicates).
static Status typedValue(KernelBuilder::Impl &m, const char *call, ValueId id,
                         const char *what, Type want, Value &out) {
  XPU_RETURN_IF_ERROR(m.get(id, call, what, out));
  if (out.getType() != want)
    return m.fail(call, std::string("`") + what + "` must be " + text(want) + ", got " +
                            text(out.getType()));
  return {};
}

Status KernelBuilder::waveShuffle(xpu_wave_shuffle mode, ValueId value, ValueId offset,
                                  ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_wave_shuffle";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(mode) > XPU_WAVE_SHUFFLE_INDEX)
    return m.fail(call, "unknown shuffle mode " + std::to_string(int(mode)));
  Value v, k;
  XPU_RETURN_IF_ERROR(waveValue(m, call, value, "value", v));
  XPU_RETURN_IF_ERROR(typedValue(m, call, offset, "offset", m.b.getI32Type(), k));
  return m.emitted(WaveShuffleOp::create(m.here(), m.loc, v.getType(),
                                         WaveShuffleMode(mode), v, k),
                   call, out);
}

Status KernelBuilder::waveBroadcast(ValueId value, ValueId lane, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_wave_broadcast";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value v, l;
  XPU_RETURN_IF_ERROR(waveValue(m, call, value, "value", v));
  XPU_RETURN_IF_ERROR(typedValue(m, call, lane, "lane", m.b.getI32Type(), l));
  return m.emitted(WaveBroadcastOp::create(m.here(), m.loc, v.getType(), v, l), call, out);
}

Status KernelBuilder::waveBallot(ValueId predicate, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_wave_ballot";
  XPU_RETURN_IF_ERROR(m.ready(call));
  Value p;
  XPU_RETURN_IF_ERROR(typedValue(m, call, predicate, "predicate", m.b.getI1Type(), p));
  auto mask = VectorType::get({4}, m.b.getI32Type());
  return m.emitted(WaveBallotOp::create(m.here(), m.loc, mask, p), call, out);
}

Status KernelBuilder::waveVote(xpu_wave_vote vote, ValueId predicate, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_wave_vote";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(vote) > XPU_WAVE_ALL)
    return m.fail(call, "unknown vote " + std::to_string(int(vote)));
  Value p;
  XPU_RETURN_IF_ERROR(typedValue(m, call, predicate, "predicate", m.b.getI1Type(), p));
  return m.emitted(WaveVoteOp::create(m.here(), m.loc, m.b.getI1Type(), WaveVoteKind(vote), p),
                   call, out);
}

Status KernelBuilder::waveReduce(xpu_reduce_op op, ValueId value, ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_wave_reduce";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(op) > XPU_REDUCE_FMAX)
    return m.fail(call, "unknown operation " + std::to_string(int(op)));
  Value v;
  XPU_RETURN_IF_ERROR(waveValue(m, call, value, "value", v));
  return m.emitted(WaveReduceOp::create(m.here(), m.loc, v.getType(), ReduceKind(op), v),
                   call, out);
}

Status KernelBuilder::waveScan(xpu_reduce_op op, ValueId value, xpu_wave_scan scan,
                               ValueId &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_wave_scan";
  XPU_RETURN_IF_ERROR(m.ready(call));
  if (uint32_t(op) > XPU_REDUCE_FMAX || uint32_t(scan) > XPU_WAVE_SCAN_EXCLUSIVE)
    return m.fail(call, "unknown operation or scan");
  Value v;
  XPU_RETURN_IF_ERROR(waveValue(m, call, value, "value", v));
  return m.emitted(WaveScanOp::create(m.here(), m.loc, v.getType(), ReduceKind(op), v,
                                      WaveScanKind(scan)),
                   call, out);
}

//===----------------------------------------------------------------------===//
// Inspection and the end
//===----------------------------------------------------------------------===//

Status KernelBuilder::valueType(ValueId value, const char *&out) {
  Value v;
  XPU_RETURN_IF_ERROR(impl_->lookup(value, "xpu_builder_value_type", "value", v));
  out = impl_->typeText(v.getType());
  return {};
}

std::string KernelBuilder::print() {
  Impl &m = *impl_;
  m.diagnostic.clear();
  if (succeeded(verify(*m.module)))
    return printKernelSource(*m.module);
  // Open blocks lack terminators; only the generic form prints them safely.
  std::string s;
  llvm::raw_string_ostream os(s);
  m.module->print(os, OpPrintingFlags().printGenericOpForm().assumeVerified());
  return s;
}

Status KernelBuilder::finish(std::string &out) {
  Impl &m = *impl_;
  const char *call = "xpu_builder_finish";
  if (m.finished)
    return m.fail(call, "the builder is already finished (compile its text with "
                        "xpu_module_create for another device)");
  if (!m.frames.empty())
    return m.fail(call, m.functionName() + " has not ended: its " +
                            describe(m.frames.back().kind) + " is still open");
  m.diagnostic.clear();
  if (failed(verify(*m.module)))
    return m.fail(call, "the module does not verify: " + m.diagnostic);
  m.finished = true;
  out = printKernelSource(*m.module);
  return {};
}

} // namespace xpu::rt
