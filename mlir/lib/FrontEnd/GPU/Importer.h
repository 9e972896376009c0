// What the files of the gpu dialect front end share: the importer of one
// function, memref values as buffers with layouts, and the refusal of
// constructs it does not import. Internal to mlir/lib/FrontEnd/GPU.
#pragma once

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/FrontEnd/GPUImport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace xpu::gpuimport {

/// A memref value as the import carries it: the xpu buffer its elements
/// live in and its layout as index values. Element (i0, .., in-1) is
/// element `offset + sum(ik * strides[k])` of `buffer`; `base` is where the
/// memref's base pointer is (memref.reinterpret_cast offsets count from it).
struct Memref {
  mlir::MemRefType type;
  mlir::Value buffer;
  mlir::Value base, offset;
  llvm::SmallVector<mlir::Value, 4> sizes, strides;
};

/// How far one job's handler got with an op.
enum class Handled { no, yes, failed };

/// "XPU-UNSUPPORTED: 'op' <what>; <instead>" at the op: the import's
/// refusal of a construct, never a parse error.
mlir::InFlightDiagnostic unsupported(mlir::Operation *op, const llvm::Twine &what,
                                     const llvm::Twine &instead);
mlir::InFlightDiagnostic unsupported(mlir::Location loc, const llvm::Twine &what,
                                     const llvm::Twine &instead);

/// A type as MLIR prints it, for messages.
std::string typeText(mlir::Type t);

/// The xpu address space a memref's memory space names, or none when the
/// import does not know it.
std::optional<Space> spaceOf(mlir::MemRefType type);

/// Imports the body of one function after its signature (Arguments.cpp):
/// keeps the memref values it meets, and builds index arithmetic.
class Importer {
public:
  explicit Importer(mlir::MLIRContext *ctx) : b(ctx) {}

  mlir::FunctionOpInterface fn; ///< the xpu kernel or function being made
  mlir::OpBuilder b;

  /// The memref value `v` stands for; reports and returns null when the
  /// import has none for it.
  const Memref *lookup(mlir::Value v, mlir::Operation *user);
  void define(mlir::Value v, Memref m) { memrefs[v] = std::move(m); }

  mlir::Value index(mlir::Location loc, int64_t v);
  mlir::Value add(mlir::Location loc, mlir::Value a, mlir::Value c);
  mlir::Value mul(mlir::Location loc, mlir::Value a, mlir::Value c);
  /// A static value, or the value given (OpFoldResult of sizes/offsets).
  mlir::Value value(mlir::Location loc, mlir::OpFoldResult v);
  /// The buffer element `indices` name in `m`.
  mlir::Value element(mlir::Location loc, const Memref &m, mlir::ValueRange indices);
  /// Row-major strides of a memref of `sizes` (identity layouts).
  llvm::SmallVector<mlir::Value, 4> rowMajor(mlir::Location loc,
                                              llvm::ArrayRef<mlir::Value> sizes);
  /// `m` described by `type`'s static sizes, strides and offset where it
  /// has them (memref.cast; after a view the type names what is known).
  Memref retyped(mlir::Location loc, Memref m, mlir::MemRefType type);

  /// The kernel's dynamic shared memory size in bytes (an index), made
  /// once from a parameter the launch fills; null in device functions.
  mlir::Value dynamicSharedBytes(mlir::Location loc);

  /// Parameters of the function being made: each appends an argument to
  /// the entry block, after those of the function it replaces (`oldArgs`),
  /// which finishSignature() removes once the body no longer uses them.
  mlir::Value appendParam(mlir::Type type, mlir::DictionaryAttr attrs);
  mlir::LogicalResult finishSignature();
  unsigned oldArgs = 0;

  /// memref.view ops whose typed memory was made with their root
  /// (Memory.cpp): the buffer, and its base when the view has its own
  /// allocation (null: the view's byte shift gives it).
  llvm::DenseMap<mlir::Operation *, Memref> plannedViews;

private:
  llvm::SmallVector<mlir::Type> paramTypes;
  llvm::SmallVector<mlir::Attribute> paramAttrs;
  llvm::DenseMap<mlir::Value, Memref> memrefs;
  mlir::Value sharedBytes;
};

/// The jobs: each handles the ops of its kind (memory: memref and the gpu
/// memory ops; collectives: synchronization, atomics, ids, reductions,
/// shuffles, printf; values: vector transfers and calls).
Handled importMemoryOp(Importer &im, mlir::Operation *op);
Handled importCollectiveOp(Importer &im, mlir::Operation *op);
Handled importValueOp(Importer &im, mlir::Operation *op);

/// Ops whose regions their job consumes (the walk does not enter them).
bool consumesRegions(mlir::Operation *op);

/// Arguments.cpp: makes `old`'s xpu counterpart (a kernel or a device
/// function) before it, with memref parameters as buffers plus the layout
/// parameters their types leave open, index parameters of kernels as i64,
/// workgroup and private attributions as allocations, and the body moved
/// over. Sets `im.fn` and defines each memref parameter in `im`.
mlir::LogicalResult importSignature(mlir::FunctionOpInterface old, Importer &im);
/// Calls and returns (Arguments.cpp): memref operands are flattened.
Handled importArgumentOp(Importer &im, mlir::Operation *op);

/// Memory.cpp: a shared or private allocation holding `root`, a memref of
/// `type` (an allocation or an attribution). When memref.view gives its
/// bytes types, the memory is made for the views instead.
mlir::LogicalResult allocate(Importer &im, mlir::Value root, mlir::MemRefType type,
                             Space space);

/// The flattened operands a call passes for `m` of type `type` (buffer,
/// then the layout values the callee's parameter type leaves open).
void flattenMemref(Importer &im, mlir::Location loc, const Memref &m,
                   mlir::MemRefType type, llvm::SmallVectorImpl<mlir::Value> &out);

} // namespace xpu::gpuimport
