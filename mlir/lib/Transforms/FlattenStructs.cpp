// Turns each struct parameter of a kernel into one parameter per field, so
// every backend passes scalars and vectors as it always has. See Passes.td.
#include "xpu/KernelABI.h"
#include "xpu/Pipeline.h"
#include "xpu/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace xpu {
#define GEN_PASS_DEF_FLATTENSTRUCTS
#include "xpu/Transforms/Passes.h.inc"
} // namespace xpu

using namespace mlir;
using namespace xpu;

namespace {

LogicalResult flatten(KernelOp kernel, unsigned index, StructType type) {
  MLIRContext *ctx = kernel.getContext();
  Builder b(ctx);
  Block &entry = kernel.getBody().front();
  BlockArgument arg = entry.getArgument(index);
  auto nameAttr = kernel.getArgAttrOfType<StringAttr>(index, "xpu.name");
  std::string name = nameAttr ? nameAttr.str() : "arg" + std::to_string(index);
  std::vector<abi::Param> fields;
  for (Type t : type.getFieldTypes())
    fields.push_back(paramOf(t));
  abi::StructLayout layout = abi::structLayout(fields);

  // The fields, right after the struct, each knowing where it came from.
  SmallVector<Value> values;
  for (auto [k, t] : llvm::enumerate(type.getFieldTypes())) {
    NamedAttrList attrs;
    attrs.set("xpu.name", b.getStringAttr(name + "." + type.getFieldNames()[k].str()));
    attrs.set(abi::kStructFieldAttr,
              b.getDictionaryAttr({b.getNamedAttr("struct", b.getStringAttr(name)),
                                   b.getNamedAttr("type", b.getStringAttr(type.getName())),
                                   b.getNamedAttr("offset", b.getI64IntegerAttr(layout.offsets[k])),
                                   b.getNamedAttr("bytes", b.getI64IntegerAttr(layout.bytes))}));
    unsigned at = index + 1 + unsigned(k);
    if (failed(kernel.insertArgument(at, t, attrs.getDictionary(ctx), arg.getLoc())))
      return kernel.emitOpError("could not add the fields of struct parameter '") << name << "'";
    values.push_back(entry.getArgument(at));
  }
  for (OpOperand &use : llvm::make_early_inc_range(arg.getUses())) {
    auto get = dyn_cast<StructGetOp>(use.getOwner());
    if (!get)
      return use.getOwner()->emitOpError()
             << "uses struct parameter '" << name
             << "' as a value; a struct is read only with xpu.struct_get";
    get.getResult().replaceAllUsesWith(values[*type.fieldIndex(get.getField())]);
    get.erase();
  }
  if (failed(kernel.eraseArgument(index)))
    return kernel.emitOpError("could not remove struct parameter '") << name << "'";
  return success();
}

struct FlattenStructsPass : xpu::impl::FlattenStructsBase<FlattenStructsPass> {
  void runOnOperation() override {
    for (KernelOp kernel : getOperation().getOps<KernelOp>())
      for (unsigned i = kernel.getNumArguments(); i-- > 0;)
        if (auto type = dyn_cast<StructType>(kernel.getArgumentTypes()[i]))
          if (failed(flatten(kernel, i, type)))
            return signalPassFailure();
    // Structs anywhere else (a device function's parameter) have no lowering.
    WalkResult r = getOperation().walk([](Operation *op) {
      for (Type t : op->getResultTypes())
        if (isa<StructType>(t))
          return op->emitOpError("makes a struct value; structs are kernel parameters "
                                 "only"),
                 WalkResult::interrupt();
      if (auto fn = dyn_cast<FuncOp>(op))
        for (Type t : fn.getArgumentTypes())
          if (isa<StructType>(t))
            return fn.emitOpError("takes a struct; pass its fields to device functions"),
                   WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
