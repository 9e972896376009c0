// The xpu dialect: declaration and the enums its types and ops share.
#ifndef XPU_BASE_TD
#define XPU_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def XPU_Dialect : Dialect {
  let name = "xpu";
  let cppNamespace = "::xpu";
  let summary = "Portable data-parallel kernels for xpujit";
  let description = [{
    The kernel surface of xpujit. A module holds `xpu.kernel` entry points and
    `xpu.func` device helpers. Kernel bodies use upstream `arith`, `math`,
    `scf` and `vector` ops plus the coordinate, memory, synchronization,
    atomic and reduction ops of this dialect. Buffers carry their element
    type, address space and access mode in the type, so admission and every
    backend read the same facts from the IR.
  }];
  let useDefaultTypePrinterParser = 1;
}

class XPU_I32Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::xpu";
}

def XPU_Dim : XPU_I32Enum<"Dim", "a grid or workgroup axis", [
  I32EnumAttrCase<"x", 0>, I32EnumAttrCase<"y", 1>, I32EnumAttrCase<"z", 2>]>;

// Address spaces of the kernel model. Each backend maps them to its own
// numbers (NVPTX 1/3/5, AMDGPU 1/3/5, SPIR-V StorageBuffer/Workgroup/Function).
def XPU_Space : XPU_I32Enum<"Space", "buffer address space", [
  I32EnumAttrCase<"global", 0>, I32EnumAttrCase<"shared", 1>,
  I32EnumAttrCase<"private_", 2, "private">]>;

// How a kernel parameter holds its buffer. `owned` and `alias` exist so that
// such kernels can be written and then refused by the deterministic profile
// (RFC ParamMode: only read-only and read-write views are admitted).
def XPU_Access : XPU_I32Enum<"Access", "buffer access mode", [
  I32EnumAttrCase<"rw", 0>, I32EnumAttrCase<"ro", 1>,
  I32EnumAttrCase<"owned", 2>, I32EnumAttrCase<"alias", 3>]>;

def XPU_AtomicKind : XPU_I32Enum<"AtomicKind", "atomic read-modify-write", [
  I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"sub", 1>,
  I32EnumAttrCase<"smin", 2>, I32EnumAttrCase<"smax", 3>,
  I32EnumAttrCase<"umin", 4>, I32EnumAttrCase<"umax", 5>,
  I32EnumAttrCase<"and_", 6, "and">, I32EnumAttrCase<"or_", 7, "or">,
  I32EnumAttrCase<"xor_", 8, "xor">, I32EnumAttrCase<"xchg", 9>,
  I32EnumAttrCase<"fadd", 10>,
  // Issue 14: compare-exchange (with `expected`) and float min/max.
  I32EnumAttrCase<"cmpxchg", 11>, I32EnumAttrCase<"fmin", 12>,
  I32EnumAttrCase<"fmax", 13>]>;

def XPU_MemoryOrder : XPU_I32Enum<"MemoryOrder", "atomic memory order", [
  I32EnumAttrCase<"relaxed", 0>, I32EnumAttrCase<"acquire", 1>,
  I32EnumAttrCase<"release", 2>, I32EnumAttrCase<"acq_rel", 3>,
  I32EnumAttrCase<"seq_cst", 4>]>;

// Vulkan's scope set, the superset of the CUDA and HIP ones (variance row 4).
def XPU_Scope : XPU_I32Enum<"Scope", "synchronization scope", [
  I32EnumAttrCase<"invocation", 0>, I32EnumAttrCase<"subgroup", 1>,
  I32EnumAttrCase<"workgroup", 2>, I32EnumAttrCase<"queue_family", 3>,
  I32EnumAttrCase<"device", 4>]>;

def XPU_ReduceKind : XPU_I32Enum<"ReduceKind", "reduction combiner", [
  I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"mul", 1>,
  I32EnumAttrCase<"smin", 2>, I32EnumAttrCase<"smax", 3>,
  I32EnumAttrCase<"umin", 4>, I32EnumAttrCase<"umax", 5>,
  I32EnumAttrCase<"and_", 6, "and">, I32EnumAttrCase<"or_", 7, "or">,
  I32EnumAttrCase<"xor_", 8, "xor">, I32EnumAttrCase<"fmin", 9>,
  I32EnumAttrCase<"fmax", 10>]>;

// RFC reduction order: only `sequential` (left to right over invocation
// index) is deterministic across devices and workgroup shapes.
def XPU_ReduceOrder : XPU_I32Enum<"ReduceOrder", "reduction combination order", [
  I32EnumAttrCase<"sequential", 0>, I32EnumAttrCase<"tree", 1>,
  I32EnumAttrCase<"unspecified", 2>]>;

#endif // XPU_BASE_TD
