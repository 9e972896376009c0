// The gpu dialect front end, arguments: function signatures, calls and
// returns. A memref parameter becomes a buffer plus the layout values its
// type leaves open (offset, sizes, strides): launch parameters of a kernel,
// filled from the view argument the host passes (abi::Role), or index
// parameters of a device function, passed by its callers.
#include "Importer.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace xpu;
using namespace xpu::gpuimport;

namespace {

/// The pieces of a memref's layout a parameter receives: for kernels what
/// the type leaves dynamic; for device functions also the base and offset
/// (a caller's memref may start anywhere in its buffer).
struct Open {
  bool base = false, offset = false;
  SmallVector<unsigned, 4> sizes, strides;
};

Open openPieces(MemRefType type, bool kernel) {
  Open open;
  open.base = open.offset = !kernel;
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      open.sizes.push_back(d);
  if (!type.getLayout().isIdentity()) {
    auto [strides, offset] = type.getStridesAndOffset();
    for (auto [d, stride] : llvm::enumerate(strides))
      if (ShapedType::isDynamic(stride))
        open.strides.push_back(d);
    open.offset |= ShapedType::isDynamic(offset);
  }
  return open;
}

/// Why a memref parameter type cannot be imported, or "".
std::string refusalOf(MemRefType type, bool kernel) {
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat())
    return "has elements of type " + typeText(elem) +
           "; memrefs of integer or float scalars are imported (load vectors "
           "with vector.load)";
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return "has a layout that is not strided; use an identity or strided<> layout";
  auto space = spaceOf(type);
  if (!space)
    return "is in an unknown memory space; use #gpu.address_space<global>, "
           "<workgroup> or <private>";
  if (kernel && *space != Space::global)
    return "is a kernel parameter outside global memory; declare workgroup and "
           "private memory as attributions or allocations";
  if (kernel && type.getRank() > int64_t(abi::kMaxViewRank))
    return "has rank " + std::to_string(type.getRank()) +
           "; kernel parameters have rank 0 to 4";
  if (*space == Space::private_ && !type.hasStaticShape())
    return "is private memory of dynamic shape; private memrefs have static shapes";
  return "";
}

/// The buffer type holding a memref parameter: static when its whole
/// layout is (the launch then checks the buffer's length).
BufferType bufferOf(MemRefType type, Space space) {
  int64_t count = BufferType::kDynamic;
  if (type.hasStaticShape() && type.getLayout().isIdentity() && type.getNumElements() > 0)
    count = type.getNumElements();
  else if (space == Space::private_) {
    auto [strides, offset] = type.getStridesAndOffset();
    count = offset + 1;
    for (auto [size, stride] : llvm::zip(type.getShape(), strides))
      count += (size - 1) * stride;
  }
  return BufferType::get(type.getContext(), type.getElementType(), space,
                         Access::rw, count);
}

DictionaryAttr attrs(MLIRContext *ctx, ArrayRef<std::pair<StringRef, Attribute>> list) {
  SmallVector<NamedAttribute> named;
  for (auto [name, value] : list)
    named.emplace_back(StringAttr::get(ctx, name), value);
  return DictionaryAttr::get(ctx, named);
}

/// Appends the parameters of memref parameter `name` of `type` and
/// defines the memref they make, at the start of the entry block.
LogicalResult importMemrefParam(Importer &im, Value oldArg, MemRefType type,
                                StringRef name, bool kernel) {
  MLIRContext *ctx = oldArg.getContext();
  Location loc = oldArg.getLoc();
  std::string why = refusalOf(type, kernel);
  if (!why.empty())
    return unsupported(loc, "parameter '" + name + "' of type " +
                                typeText(type) + " " + why,
                       "docs/interop.md says which memrefs are imported");
  Space space = *spaceOf(type);
  OpBuilder &b = im.b;
  Type pieceTy = kernel ? Type(b.getI64Type()) : Type(b.getIndexType());
  Value buffer = im.appendParam(
      bufferOf(type, space),
      attrs(ctx, {{"xpu.name", StringAttr::get(ctx, name)},
                  {kMemrefAttr, TypeAttr::get(type)}}));
  auto piece = [&](const std::string &role) -> Value {
    Value v = im.appendParam(pieceTy, attrs(ctx, {{"xpu.name", StringAttr::get(
                                                                   ctx, name + "." + role)},
                                                  {kRoleAttr, StringAttr::get(ctx, role)}}));
    if (kernel)
      v = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
    return v;
  };
  Open open = openPieces(type, kernel);
  Memref m;
  m.type = type;
  m.buffer = buffer;
  m.base = open.base ? piece("base") : im.index(loc, 0);
  auto [strides, offset] = type.getStridesAndOffset();
  m.offset = open.offset ? piece("offset") : im.add(loc, m.base, im.index(loc, offset));
  for (auto [d, size] : llvm::enumerate(type.getShape()))
    m.sizes.push_back(ShapedType::isDynamic(size) ? piece("size" + std::to_string(d))
                                                  : im.index(loc, size));
  if (type.getLayout().isIdentity()) {
    m.strides = im.rowMajor(loc, m.sizes);
  } else {
    for (auto [d, stride] : llvm::enumerate(strides))
      m.strides.push_back(ShapedType::isDynamic(stride)
                              ? piece("stride" + std::to_string(d))
                              : im.index(loc, stride));
  }
  im.define(oldArg, std::move(m));
  return success();
}

StringRef argName(FunctionOpInterface fn, unsigned i, std::string &storage) {
  if (auto name = fn.getArgAttrOfType<StringAttr>(i, "xpu.name"))
    return name.getValue();
  storage = "arg" + std::to_string(i);
  return storage;
}

} // namespace

namespace xpu::gpuimport {

LogicalResult importSignature(FunctionOpInterface old, Importer &im) {
  MLIRContext *ctx = old.getContext();
  OpBuilder &b = im.b;
  auto gpuFn = dyn_cast<gpu::GPUFuncOp>(old.getOperation());
  bool kernel = gpuFn && gpuFn.isKernel();
  for (Type t : old.getResultTypes())
    if (isa<BaseMemRefType>(t))
      return unsupported(old, "returns a memref",
                         "pass the memref as a parameter instead");

  b.setInsertionPoint(old->getParentOp());
  auto empty = FunctionType::get(ctx, {}, old.getResultTypes());
  Operation *made = kernel ? KernelOp::create(b, old.getLoc(), old.getName(), empty)
                                 .getOperation()
                           : FuncOp::create(b, old.getLoc(), old.getName(), empty)
                                 .getOperation();
  im.fn = cast<FunctionOpInterface>(made);
  if (kernel) {
    auto k = cast<KernelOp>(made);
    auto shape = [&](DenseI32ArrayAttr a) -> DenseI64ArrayAttr {
      if (!a)
        return nullptr;
      SmallVector<int64_t> v(a.asArrayRef().begin(), a.asArrayRef().end());
      return b.getDenseI64ArrayAttr(v);
    };
    if (auto wg = shape(gpuFn.getKnownBlockSizeAttr()))
      k.setWorkgroupSizeAttr(wg);
    if (auto grid = shape(gpuFn.getKnownGridSizeAttr()))
      k.setGridSizeAttr(grid);
  }

  // Attributions follow the parameters in the entry block (gpu.func).
  SmallVector<BlockArgument> workgroup, privateMem;
  if (gpuFn) {
    workgroup.assign(gpuFn.getWorkgroupAttributions().begin(),
                     gpuFn.getWorkgroupAttributions().end());
    privateMem.assign(gpuFn.getPrivateAttributions().begin(),
                      gpuFn.getPrivateAttributions().end());
  }
  Region &body = im.fn.getFunctionBody();
  body.takeBody(old.getFunctionBody());
  Block &entry = body.front();
  im.oldArgs = entry.getNumArguments();
  b.setInsertionPointToStart(&entry);

  for (auto [i, t] : llvm::enumerate(old.getArgumentTypes())) {
    std::string storage;
    StringRef name = argName(old, i, storage);
    Value arg = entry.getArgument(i);
    if (auto mt = dyn_cast<MemRefType>(t)) {
      if (failed(importMemrefParam(im, arg, mt, name, kernel)))
        return failure();
      continue;
    }
    if (isa<BaseMemRefType>(t))
      return unsupported(arg.getLoc(), "parameter '" + name + "' is an unranked memref",
                         "give memref parameters a rank");
    auto named = attrs(ctx, {{"xpu.name", StringAttr::get(ctx, name)}});
    if (kernel && t.isIndex()) {
      // The width of index belongs to the target; launches pass 64 bits.
      Value wide = im.appendParam(b.getI64Type(), named);
      arg.replaceAllUsesWith(
          arith::IndexCastOp::create(b, arg.getLoc(), b.getIndexType(), wide));
      continue;
    }
    arg.replaceAllUsesWith(im.appendParam(t, named));
  }

  // Workgroup and private attributions (gpu.func) are allocations.
  auto attribute = [&](ArrayRef<BlockArgument> args, Space space) -> LogicalResult {
    for (BlockArgument a : args)
      if (failed(allocate(im, a, cast<MemRefType>(a.getType()), space)))
        return failure();
    return success();
  };
  if (failed(attribute(workgroup, Space::shared)) ||
      failed(attribute(privateMem, Space::private_)))
    return failure();
  return success();
}

void flattenMemref(Importer &im, Location loc, const Memref &m, MemRefType type,
                   SmallVectorImpl<Value> &out) {
  Open open = openPieces(type, /*kernel=*/false);
  out.push_back(m.buffer);
  out.push_back(m.base);
  out.push_back(m.offset);
  for (unsigned d : open.sizes)
    out.push_back(m.sizes[d]);
  for (unsigned d : open.strides)
    out.push_back(m.strides[d]);
}

Handled importArgumentOp(Importer &im, Operation *op) {
  Location loc = op->getLoc();
  if (isa<gpu::ReturnOp, func::ReturnOp>(op)) {
    ReturnOp::create(im.b, loc, op->getOperands());
    return Handled::yes;
  }
  auto call = dyn_cast<func::CallOp>(op);
  if (!call)
    return Handled::no;
  for (Type t : call.getResultTypes())
    if (isa<BaseMemRefType>(t)) {
      unsupported(op, "returns a memref", "pass the memref as a parameter instead");
      return Handled::failed;
    }
  SmallVector<Value> operands;
  for (Value v : call.getOperands()) {
    auto mt = dyn_cast<MemRefType>(v.getType());
    if (!mt) {
      operands.push_back(v);
      continue;
    }
    const Memref *m = im.lookup(v, op);
    if (!m)
      return Handled::failed;
    flattenMemref(im, loc, *m, mt, operands);
  }
  auto made = CallOp::create(im.b, loc, call.getResultTypes(), call.getCallee(), operands);
  call.replaceAllUsesWith(made.getResults());
  return Handled::yes;
}

void describeParams(KernelOp kernel, std::vector<abi::Param> &params,
                    abi::KernelInfo &info) {
  for (auto [i, p] : llvm::enumerate(params)) {
    if (auto role = kernel.getArgAttrOfType<StringAttr>(i, kRoleAttr)) {
      StringRef r = role.getValue();
      unsigned dim = 0;
      if (r == "offset")
        p.role = abi::Role::viewOffset;
      else if (r == "dynamic_shared_bytes")
        p.role = abi::Role::dynamicSharedBytes;
      else if (r.consume_front("size") && !r.getAsInteger(10, dim))
        p.role = abi::Role::viewSize;
      else if (r.consume_front("stride") && !r.getAsInteger(10, dim))
        p.role = abi::Role::viewStride;
      p.dim = uint8_t(dim);
    }
    auto memref = kernel.getArgAttrOfType<TypeAttr>(i, kMemrefAttr);
    if (!memref)
      continue;
    auto type = cast<MemRefType>(memref.getValue());
    abi::ViewLayout v;
    v.rank = uint8_t(type.getRank());
    v.identity = type.getLayout().isIdentity();
    auto [strides, offset] = type.getStridesAndOffset();
    auto open = [](int64_t x) { return ShapedType::isDynamic(x) ? abi::kDynamicExtent : x; };
    for (unsigned d = 0; d < v.rank; ++d) {
      v.sizes[d] = open(type.getDimSize(d));
      v.strides[d] = v.identity ? abi::kDynamicExtent : open(strides[d]);
    }
    v.offset = v.identity ? 0 : open(offset);
    p.view = v;
  }
  if (auto min = kernel->getAttrOfType<IntegerAttr>(kMinDynamicSharedAttr))
    info.minDynamicSharedBytes = uint64_t(min.getInt());
}

} // namespace xpu::gpuimport
