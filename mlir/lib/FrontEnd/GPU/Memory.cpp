// The gpu dialect front end, memory: allocations in the right address
// space, dynamic shared memory, loads and stores, and the memref ops that
// only change a layout (subview, casts, reshapes, views), which become
// index arithmetic over the same buffer.
#include "Importer.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace xpu;
using namespace xpu::gpuimport;

namespace {

int64_t elementBytes(Type t) { return std::max(1u, t.getIntOrFloatBitWidth() / 8); }

/// Elements a static strided layout spans, at least 1.
int64_t span(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  int64_t count = offset + 1;
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    if (size == 0)
      return 1;
    count += (size - 1) * stride;
  }
  return std::max<int64_t>(count, 1);
}

/// A static allocation of `type` in `space` and the memref over it.
Memref staticAlloc(Importer &im, Location loc, MemRefType type, Space space) {
  auto buffer = AllocOp::create(
      im.b, loc, BufferType::get(type.getContext(), type.getElementType(), space,
                                 Access::rw, span(type)));
  Memref m;
  m.type = type;
  m.buffer = buffer;
  m.base = im.index(loc, 0);
  auto [strides, offset] = type.getStridesAndOffset();
  m.offset = im.index(loc, offset);
  for (auto [size, stride] : llvm::zip(type.getShape(), strides)) {
    m.sizes.push_back(im.index(loc, size));
    m.strides.push_back(im.index(loc, stride));
  }
  return m;
}

/// Records the kernel's least dynamic shared memory size.
void needDynamicShared(Importer &im, int64_t bytes) {
  Operation *fn = im.fn.getOperation();
  int64_t now = 0;
  if (auto a = fn->getAttrOfType<IntegerAttr>(kMinDynamicSharedAttr))
    now = a.getInt();
  if (bytes > now)
    fn->setAttr(kMinDynamicSharedAttr, im.b.getI64IntegerAttr(bytes));
}

/// The memory of `root`, an i8 memref that memref.view gives types: with
/// one element type, one buffer of it (each view starts at its byte shift);
/// with several, views at fixed offsets that do not overlap, each its own
/// allocation (SPIR-V cannot alias memory of different types). `bytes` is
/// the root's static size, or null for dynamic shared memory.
/// Returns Handled::no when no view types it.
Handled planViews(Importer &im, Value root, Space space, Location loc,
                  std::optional<int64_t> bytes) {
  // Views give the bytes types; dim, rank and dealloc only look at the
  // root; anything else reads or writes its bytes as i8.
  SmallVector<memref::ViewOp> views;
  Operation *direct = nullptr;
  bool metadata = false;
  for (Operation *user : root.getUsers()) {
    if (auto v = dyn_cast<memref::ViewOp>(user))
      views.push_back(v);
    else if (isa<memref::DimOp, memref::RankOp, memref::DeallocOp>(user))
      metadata = true;
    else
      direct = user;
  }
  if (views.empty())
    return Handled::no;
  auto defineRoot = [&](Value buffer) {
    Memref m;
    m.type = cast<MemRefType>(root.getType());
    m.buffer = buffer;
    m.base = m.offset = im.index(loc, 0);
    m.sizes.push_back(bytes ? im.index(loc, *bytes) : im.dynamicSharedBytes(loc));
    m.strides.push_back(im.index(loc, 1));
    im.define(root, m);
  };
  llvm::SmallSetVector<Type, 2> types;
  for (memref::ViewOp v : views)
    types.insert(v.getType().getElementType());
  if (direct)
    types.insert(im.b.getI8Type());
  Type first = *types.begin();
  if (!first.isIntOrFloat()) {
    unsupported(views.front(), "views memory as " + typeText(first),
                "memrefs of integer or float scalars are imported");
    return Handled::failed;
  }

  if (types.size() == 1) {
    Value buffer;
    if (bytes) {
      int64_t count = std::max<int64_t>(1, *bytes / elementBytes(first));
      buffer = AllocOp::create(im.b, loc, BufferType::get(root.getContext(), first,
                                                          space, Access::rw, count));
    } else {
      Value total = im.dynamicSharedBytes(loc);
      buffer = DynamicSharedOp::create(
          im.b, loc,
          BufferType::get(root.getContext(), first, space, Access::rw,
                          BufferType::kDynamic),
          total);
    }
    for (memref::ViewOp v : views) {
      Memref m;
      m.buffer = buffer;
      im.plannedViews[v] = m;
    }
    if (direct || metadata)
      defineRoot(buffer);
    return Handled::yes;
  }

  if (direct) {
    unsupported(direct, "reads bytes that memref.view also gives other types",
                "give each element type its own allocation");
    return Handled::failed;
  }
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  for (memref::ViewOp v : views) {
    auto shift = getConstantIntValue(v.getByteShift());
    MemRefType t = v.getType();
    if (!shift || !t.hasStaticShape()) {
      unsupported(v, "views memory of several element types at a shift or "
                     "with sizes fixed only at run time",
                  "give each element type its own allocation, or views of "
                  "static shifts and shapes");
      return Handled::failed;
    }
    int64_t begin = *shift, end = begin + t.getNumElements() * elementBytes(t.getElementType());
    for (auto [b, e] : ranges)
      if (begin < e && b < end) {
        unsupported(v, "overlaps another view of the same memory with another "
                       "element type",
                    "give each element type its own allocation");
        return Handled::failed;
      }
    if (bytes && end > *bytes) {
      unsupported(v, "reaches past the end of the memory it views",
                  "keep views inside their allocation");
      return Handled::failed;
    }
    ranges.push_back({begin, end});
    if (!bytes)
      needDynamicShared(im, end);
    im.plannedViews[v] = staticAlloc(im, loc, t, space);
  }
  if (metadata)
    defineRoot(nullptr);
  return Handled::yes;
}

Handled allocation(Importer &im, Operation *op, Value root, MemRefType type,
                   Space space) {
  return succeeded(allocate(im, root, type, space)) ? Handled::yes : Handled::failed;
}

/// The memref a view op makes from `source`, before retyping.
Handled layoutOp(Importer &im, Operation *op) {
  Location loc = op->getLoc();
  auto use = [&](Value source) { return im.lookup(source, op); };

  if (auto o = dyn_cast<memref::SubViewOp>(op)) {
    const Memref *src = use(o.getSource());
    if (!src)
      return Handled::failed;
    Memref m = *src;
    llvm::SmallBitVector dropped = o.getDroppedDims();
    m.sizes.clear();
    m.strides.clear();
    for (auto [d, off, size, stride] :
         llvm::enumerate(o.getMixedOffsets(), o.getMixedSizes(), o.getMixedStrides())) {
      m.offset = im.add(loc, m.offset, im.mul(loc, im.value(loc, off), src->strides[d]));
      if (dropped.test(d))
        continue;
      m.sizes.push_back(im.value(loc, size));
      m.strides.push_back(im.mul(loc, src->strides[d], im.value(loc, stride)));
    }
    im.define(o.getResult(), im.retyped(loc, m, o.getType()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::ReinterpretCastOp>(op)) {
    const Memref *src = use(o.getSource());
    if (!src)
      return Handled::failed;
    Memref m;
    m.buffer = src->buffer;
    m.base = src->base;
    m.offset = im.add(loc, src->base, im.value(loc, o.getMixedOffsets().front()));
    for (OpFoldResult s : o.getMixedSizes())
      m.sizes.push_back(im.value(loc, s));
    for (OpFoldResult s : o.getMixedStrides())
      m.strides.push_back(im.value(loc, s));
    im.define(o.getResult(), im.retyped(loc, m, o.getType()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::CastOp>(op)) {
    auto to = dyn_cast<MemRefType>(o.getType());
    if (!to) {
      unsupported(op, "makes an unranked memref", "keep memrefs ranked");
      return Handled::failed;
    }
    const Memref *src = use(o.getSource());
    if (!src)
      return Handled::failed;
    im.define(o.getResult(), im.retyped(loc, *src, to));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::CollapseShapeOp>(op)) {
    const Memref *src = use(o.getSrc());
    if (!src)
      return Handled::failed;
    Memref m = *src;
    m.sizes.clear();
    m.strides.clear();
    for (const ReassociationIndices &group : o.getReassociationIndices()) {
      Value size = im.index(loc, 1);
      for (int64_t d : group)
        size = im.mul(loc, size, src->sizes[d]);
      m.sizes.push_back(size);
      m.strides.push_back(group.empty() ? im.index(loc, 1) : src->strides[group.back()]);
    }
    im.define(o.getResult(), im.retyped(loc, m, o.getResultType()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::ExpandShapeOp>(op)) {
    const Memref *src = use(o.getSrc());
    if (!src)
      return Handled::failed;
    Memref m = *src;
    SmallVector<OpFoldResult> shape = o.getMixedOutputShape();
    m.sizes.assign(shape.size(), Value());
    m.strides.assign(shape.size(), Value());
    for (auto [d, group] : llvm::enumerate(o.getReassociationIndices())) {
      Value stride = src->strides[d];
      for (int64_t r : llvm::reverse(group)) {
        m.sizes[r] = im.value(loc, shape[r]);
        m.strides[r] = stride;
        stride = im.mul(loc, stride, m.sizes[r]);
      }
    }
    im.define(o.getResult(), im.retyped(loc, m, o.getResultType()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::TransposeOp>(op)) {
    const Memref *src = use(o.getIn());
    if (!src)
      return Handled::failed;
    Memref m = *src;
    AffineMap perm = o.getPermutation();
    for (unsigned d = 0; d < perm.getNumResults(); ++d) {
      m.sizes[d] = src->sizes[perm.getDimPosition(d)];
      m.strides[d] = src->strides[perm.getDimPosition(d)];
    }
    im.define(o.getResult(), im.retyped(loc, m, o.getType()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::ViewOp>(op)) {
    auto it = im.plannedViews.find(op);
    if (it == im.plannedViews.end()) {
      unsupported(op, "views memory that is not an allocation, an attribution "
                      "or dynamic shared memory",
                  "pass a buffer of the element type the kernel reads");
      return Handled::failed;
    }
    Memref m = it->second;
    MemRefType type = o.getType();
    m.type = type;
    if (!m.base) {
      int64_t elem = elementBytes(type.getElementType());
      if (auto shift = getConstantIntValue(o.getByteShift()); shift && *shift % elem) {
        unsupported(op, "shifts by " + std::to_string(*shift) +
                            " bytes, not a multiple of the element size",
                    "align views to their element type");
        return Handled::failed;
      }
      m.base = im.b.createOrFold<arith::DivUIOp>(loc, o.getByteShift(), im.index(loc, elem));
      m.offset = m.base;
      auto dynamic = o.getSizes().begin();
      for (int64_t size : type.getShape())
        m.sizes.push_back(ShapedType::isDynamic(size) ? *dynamic++ : im.index(loc, size));
      m.strides = im.rowMajor(loc, m.sizes);
    }
    im.define(o.getResult(), std::move(m));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::ExtractStridedMetadataOp>(op)) {
    const Memref *found = use(o.getSource());
    if (!found)
      return Handled::failed;
    Memref src = *found, base;
    base.type = cast<MemRefType>(o.getBaseBuffer().getType());
    base.buffer = src.buffer;
    base.base = base.offset = src.base;
    im.define(o.getBaseBuffer(), base);
    o.getOffset().replaceAllUsesWith(
        im.b.createOrFold<arith::SubIOp>(loc, src.offset, src.base));
    for (auto [r, v] : llvm::zip(o.getSizes(), src.sizes))
      r.replaceAllUsesWith(v);
    for (auto [r, v] : llvm::zip(o.getStrides(), src.strides))
      r.replaceAllUsesWith(v);
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::AssumeAlignmentOp>(op)) {
    const Memref *src = use(o.getMemref());
    if (!src)
      return Handled::failed;
    im.define(o.getResult(), *src);
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::MemorySpaceCastOp>(op)) {
    auto from = dyn_cast<MemRefType>(o.getSource().getType());
    auto to = dyn_cast<MemRefType>(o.getDest().getType());
    if (!from || !to || spaceOf(from) != spaceOf(to)) {
      unsupported(op, "changes the address space of memory",
                  "kernels keep each memref in the space it was made in");
      return Handled::failed;
    }
    const Memref *src = use(o.getSource());
    if (!src)
      return Handled::failed;
    im.define(o.getDest(), im.retyped(loc, *src, to));
    return Handled::yes;
  }
  return Handled::no;
}

/// memref.copy: a loop nest over the shape, element by element.
Handled copy(Importer &im, memref::CopyOp op) {
  Location loc = op.getLoc();
  const Memref *src = im.lookup(op.getSource(), op);
  const Memref *dst = src ? im.lookup(op.getTarget(), op) : nullptr;
  if (!dst)
    return Handled::failed;
  Type elem = src->type.getElementType();
  OpBuilder &b = im.b;
  OpBuilder::InsertionGuard g(b);
  SmallVector<Value, 4> ivs;
  for (Value size : src->sizes) {
    auto loop = scf::ForOp::create(b, loc, im.index(loc, 0), size, im.index(loc, 1));
    b.setInsertionPointToStart(loop.getBody());
    ivs.push_back(loop.getInductionVar());
  }
  Value v = LoadOp::create(b, loc, elem, src->buffer, im.element(loc, *src, ivs));
  StoreOp::create(b, loc, v, dst->buffer, im.element(loc, *dst, ivs));
  return Handled::yes;
}

} // namespace

namespace xpu::gpuimport {

LogicalResult allocate(Importer &im, Value root, MemRefType type, Space space) {
  Location loc = root.getLoc();
  Type elem = type.getElementType();
  if (!elem.isIntOrFloat())
    return unsupported(loc, "an allocation of " + typeText(type) + " holds " +
                                typeText(elem),
                       "allocate memrefs of integer or float scalars");
  if (!type.hasStaticShape())
    return unsupported(loc, "an allocation of " + typeText(type) + " has a dynamic shape",
                       "allocate static shapes, or use gpu.dynamic_shared_memory");
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return unsupported(loc, "an allocation of " + typeText(type) +
                                " has a layout that is not strided",
                       "use an identity or strided<> layout");
  if (elem.isInteger(8) && type.getRank() == 1) {
    Handled h = planViews(im, root, space, loc, type.getNumElements());
    if (h != Handled::no)
      return success(h == Handled::yes);
  }
  im.define(root, staticAlloc(im, loc, type, space));
  return success();
}

Handled importMemoryOp(Importer &im, Operation *op) {
  Location loc = op->getLoc();
  if (auto o = dyn_cast<memref::LoadOp>(op)) {
    const Memref *m = im.lookup(o.getMemRef(), op);
    if (!m)
      return Handled::failed;
    Value v = LoadOp::create(im.b, loc, m->type.getElementType(), m->buffer,
                             im.element(loc, *m, o.getIndices()));
    o.getResult().replaceAllUsesWith(v);
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::StoreOp>(op)) {
    const Memref *m = im.lookup(o.getMemRef(), op);
    if (!m)
      return Handled::failed;
    StoreOp::create(im.b, loc, o.getValue(), m->buffer, im.element(loc, *m, o.getIndices()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::DimOp>(op)) {
    const Memref *m = im.lookup(o.getSource(), op);
    if (!m)
      return Handled::failed;
    Value size;
    if (auto d = o.getConstantIndex()) {
      if (*d < 0 || size_t(*d) >= m->sizes.size()) {
        unsupported(op, "asks for dimension " + std::to_string(*d) +
                            " of a memref of rank " + std::to_string(m->sizes.size()),
                    "ask for a dimension the memref has");
        return Handled::failed;
      }
      size = m->sizes[*d];
    } else {
      // A dimension chosen at run time: select among the sizes.
      size = im.index(loc, 0);
      for (auto [d, s] : llvm::enumerate(m->sizes)) {
        Value is = arith::CmpIOp::create(im.b, loc, arith::CmpIPredicate::eq,
                                         o.getIndex(), im.index(loc, d));
        size = arith::SelectOp::create(im.b, loc, is, s, size);
      }
    }
    o.getResult().replaceAllUsesWith(size);
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::RankOp>(op)) {
    auto ranked = dyn_cast<MemRefType>(o.getMemref().getType());
    if (!ranked) {
      unsupported(op, "asks for the rank of an unranked memref", "keep memrefs ranked");
      return Handled::failed;
    }
    o.getResult().replaceAllUsesWith(im.index(loc, ranked.getRank()));
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::AllocaOp>(op)) {
    // Stack memory in the default space is the invocation's own.
    std::optional<Space> space = spaceOf(o.getType());
    if (space == Space::global)
      space = Space::private_;
    if (!space) {
      unsupported(op, "allocates in an unknown memory space",
                  "use #gpu.address_space<workgroup> or <private>");
      return Handled::failed;
    }
    return allocation(im, op, o.getResult(), o.getType(), *space);
  }
  if (auto o = dyn_cast<memref::AllocOp>(op)) {
    std::optional<Space> space = spaceOf(o.getType());
    if (!space || *space == Space::global) {
      unsupported(op, "allocates global memory inside a kernel (a device heap)",
                  "allocate in #gpu.address_space<workgroup> or <private>, use "
                  "memref.alloca, or pass a buffer from the host");
      return Handled::failed;
    }
    return allocation(im, op, o.getResult(), o.getType(), *space);
  }
  if (isa<memref::DeallocOp>(op))
    return Handled::yes; // scratch lives as long as the kernel
  if (auto o = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
    Value bytes = im.dynamicSharedBytes(loc);
    if (!bytes) {
      unsupported(op, "is outside a kernel",
                  "take dynamic shared memory in the kernel and pass it to helpers");
      return Handled::failed;
    }
    Handled h = planViews(im, o.getResult(), Space::shared, loc, std::nullopt);
    if (h != Handled::no)
      return h;
    Memref m;
    m.type = o.getType();
    m.buffer = DynamicSharedOp::create(
        im.b, loc,
        BufferType::get(op->getContext(), im.b.getI8Type(), Space::shared, Access::rw,
                        BufferType::kDynamic),
        bytes);
    m.base = m.offset = im.index(loc, 0);
    m.sizes.push_back(bytes);
    m.strides.push_back(im.index(loc, 1));
    im.define(o.getResult(), m);
    return Handled::yes;
  }
  if (auto o = dyn_cast<memref::CopyOp>(op))
    return copy(im, o);
  return layoutOp(im, op);
}

} // namespace xpu::gpuimport
