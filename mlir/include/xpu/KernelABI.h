// The contract between generated kernel code and the runtime: what the
// runtime knows about a kernel, how its parameters are passed, and the CPU
// launch record. Plain C++ (no MLIR), included by the compiler and runtime.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xpu::abi {

/// Scalar element types. The numbers are the C API's `xpu_type` values.
enum class Scalar : uint8_t {
  i1 = 1, i8 = 2, i16 = 3, i32 = 4, i64 = 5, f16 = 6, bf16 = 7, f32 = 8,
  f64 = 9,
};

/// Bytes a scalar occupies in memory and in an argument slot (bool is one
/// byte, as on the host).
constexpr unsigned scalarBytes(Scalar s) {
  switch (s) {
  case Scalar::i1:
  case Scalar::i8:
    return 1;
  case Scalar::i16:
  case Scalar::f16:
  case Scalar::bf16:
    return 2;
  case Scalar::i32:
  case Scalar::f32:
    return 4;
  case Scalar::i64:
  case Scalar::f64:
    return 8;
  }
  return 0;
}

constexpr bool isFloat(Scalar s) {
  return s == Scalar::f16 || s == Scalar::bf16 || s == Scalar::f32 ||
         s == Scalar::f64;
}

const char *scalarName(Scalar s);

/// Buffer address spaces and access modes; numbers match the dialect enums
/// and the C API.
enum class Space : uint8_t { global = 0, shared = 1, priv = 2 };
enum class Access : uint8_t { rw = 0, ro = 1, owned = 2, alias = 3 };

/// What a kernel does with a buffer parameter, from its IR (the manifest's
/// access modes; mlir/lib/Analysis/AccessModes.cpp). A buffer only updated
/// by atomic read-modify-writes (other than exchanges) accumulates.
enum Use : uint8_t {
  useRead = 1,
  useWrite = 2,
  useAccumulate = 4,
  useUnknown = 8, ///< a use the analysis cannot follow: read-write for ordering
};
/// How a parameter bears on a kernel's cost: its value, a buffer's length,
/// or a buffer's contents reach a loop bound or a branch condition.
enum Cost : uint8_t { costValue = 1, costLength = 2, costContents = 4 };

/// Where a flattened parameter's value comes from at launch. Most are the
/// launch's arguments; the parameters an imported gpu.func kernel gained
/// for a memref's layout and for its dynamic shared memory are filled in by
/// the launch from the argument they belong to (interop, issue 21).
enum class Role : uint8_t {
  argument = 0,
  viewOffset = 1,        ///< element offset of the view before it (i64)
  viewSize = 2,          ///< size of dimension `dim` of that view (i64)
  viewStride = 3,        ///< stride of dimension `dim` of that view (i64)
  dynamicSharedBytes = 4, ///< the launch's dynamic shared memory bytes (i64)
  /// A struct's field after its first: filled from the struct argument the
  /// first field stands for (spec 17.4, KernelInfo::structs).
  structField = 5,
  printBuffer = 6 ///< the print buffer the launch makes (xpu.printf)
};

/// What a memref parameter's type fixes about the views it takes: the
/// rank, each size and stride (kDynamicExtent: given at launch) and the
/// element offset. An identity layout is row-major over the view's sizes.
constexpr int64_t kDynamicExtent = INT64_MIN;
constexpr unsigned kMaxViewRank = 4;
struct ViewLayout {
  uint8_t rank = 0;
  bool identity = true;
  std::array<int64_t, kMaxViewRank> sizes{}, strides{};
  int64_t offset = 0;
  bool operator==(const ViewLayout &) const = default;
};

struct Param {
  std::string name;
  bool isBuffer = false;
  Scalar elem = Scalar::i32;
  uint8_t lanes = 1; ///< >1 for a vector scalar parameter
  Space space = Space::global;
  Access access = Access::rw;
  int64_t staticCount = -1; ///< buffer length fixed by the type, or -1
  /// Launch arguments are Role::argument (a struct argument: its first
  /// field); the others follow the buffer parameter of their view or the
  /// first field of their struct (dynamicSharedBytes, printBuffer: after
  /// every argument).
  Role role = Role::argument;
  uint8_t dim = 0;                  ///< viewSize, viewStride
  std::optional<ViewLayout> view;   ///< a memref parameter's buffer
  /// A field of struct argument `structArg` (KernelInfo::structs) at C
  /// offset `fieldOffset` in it; -1 for a parameter of its own.
  int32_t structArg = -1;
  uint32_t fieldOffset = 0;
  uint8_t uses = 0;         ///< Use bits (buffers)
  uint8_t cost = 0;         ///< Cost bits
};

/// A struct parameter (spec 17.4) as a launch passes it: one argument whose
/// fields are the kernel's parameters firstParam .. firstParam + fieldCount
/// - 1 (named "name.field"), read from the host's bytes at C offsets.
struct StructArg {
  std::string name;     ///< the parameter's name
  std::string typeName; ///< the struct's name
  uint32_t bytes = 0;   ///< sizeof the C struct
  uint32_t firstParam = 0, fieldCount = 0;
};

/// C's layout of a struct of these scalar or vector fields: a scalar aligned
/// to its size, a vector as an array of its lanes, the size a multiple of
/// the largest alignment.
struct StructLayout {
  std::vector<uint32_t> offsets;
  uint32_t bytes = 0, align = 1;
};
StructLayout structLayout(const std::vector<Param> &fields);

/// The argument attribute xpu-flatten-structs marks each field parameter
/// with: {struct = name, type = struct name, offset, bytes}.
constexpr const char *kStructFieldAttr = "xpu.struct_field";

/// xpu-lower-printf: the attribute of the print-buffer parameter it adds
/// (the launch supplies the buffer), and the module attribute listing the
/// printf sites ({format, args = [types], location} each).
constexpr const char *kPrintBufferAttr = "xpu.print_buffer";
constexpr const char *kPrintSitesAttr = "xpu.print_sites";

/// One xpu.printf of a module: its format, its values' types, where it is.
struct PrintSite {
  std::string format;
  std::vector<Scalar> args;
  std::string location;
};

/// One fact about a kernel's generated code (the manifest's footprint): its
/// value and the query or tool that gave it, or absent with why. A fact no
/// query gives is absent, never guessed.
struct CodeFact {
  bool known = false;
  uint64_t value = 0;
  std::string source;
};

/// What a kernel's code occupies on its target, from the code generator
/// (ptxas, the AMD code object) and the driver that loaded it.
struct Footprint {
  CodeFact registers;        ///< per invocation
  CodeFact spillBytes;       ///< bytes of registers spilled per invocation
  CodeFact sharedBytes;      ///< static workgroup-shared memory
  CodeFact localBytes;       ///< private memory (stack, scratch) per invocation
  CodeFact maxWorkgroupSize; ///< the most invocations a workgroup may have
  /// The kernel's own shared memory that each launch passes as dynamic
  /// shared memory, before the caller's (a CUDA block over 48 KiB of static
  /// shared memory: xpu-place-shared-memory); 0 for the rest.
  uint64_t launchSharedBytes = 0;
};

/// A runtime-checked access site: where it is in the source.
struct CheckSite {
  std::string location; ///< "file:line:col"
  std::string what;     ///< "load from 'x'"
};

struct KernelInfo {
  std::string name;
  std::string profile = "portable";
  std::vector<Param> params;
  uint64_t sharedBytes = 0; ///< static workgroup-shared memory
  bool usesBarriers = false;
  std::optional<std::array<uint32_t, 3>> workgroupSize, gridSize;
  std::vector<CheckSite> checkSites; ///< index = site id
  std::string location;              ///< where the kernel is declared
  std::vector<StructArg> structs;    ///< struct parameters, in order
  /// The parameter the launch gives a print buffer (xpu.printf), or -1;
  /// and the module's printf sites its records name.
  int32_t printParam = -1;
  std::vector<PrintSite> prints;
  /// Dynamic shared memory the kernel reads through views at fixed offsets
  /// (interop): launches must give at least this many bytes.
  uint64_t minDynamicSharedBytes = 0;
};

/// The flattened parameters that are launch arguments, in order: what
/// xpu_kernel_param lists and xpu_launch takes (a struct's first field
/// stands for the struct).
std::vector<uint32_t> argumentParams(const KernelInfo &kernel);

/// Kernel parameters are flattened before they reach the target: a buffer
/// becomes a pointer and an i64 element count, anything else stays one value.
/// Each flattened value lives in its own 8-byte-aligned slot of an argument
/// block; the CPU entry point reads the block, and the GPU launch passes a
/// pointer to each slot. A status-word pointer follows the user parameters.
struct Slot {
  uint32_t offset;
  uint32_t bytes;
};
constexpr uint32_t kSlotAlign = 8;

inline uint32_t paramBytes(const Param &p) {
  return p.isBuffer ? 8 : scalarBytes(p.elem) * (p.lanes == 3 ? 4 : p.lanes);
}

/// Lays out the flattened parameters; returns the block size in bytes.
uint32_t layoutArgs(const std::vector<Param> &params, std::vector<Slot> &slots);

/// Vulkan's binding model (variance row 2), derived from the parameter list
/// so that hosts launch Vulkan kernels with the same call as elsewhere.
/// Descriptor set 0: buffer parameter k (counting buffers only, in parameter
/// order) is storage-buffer binding k; the status word, when there is one, is
/// binding B = the number of buffer parameters. The argument block holds each
/// buffer's element count (u32, the length the kernel sees) and each scalar
/// parameter, std430-aligned, with 8- and 16-bit lanes widened to 32 bits.
/// It is pushed as push constants, or, when larger than the device's
/// maxPushConstantsSize, bound as a uniform buffer at binding B + 1.
struct VulkanArgs {
  std::vector<uint32_t> offsets; ///< per parameter: its count or its value
  uint32_t bytes = 0;            ///< block size, a multiple of 4
};
VulkanArgs vulkanArgLayout(const std::vector<Param> &params);

/// Specialization constants 0, 1, 2 of every Vulkan kernel: the workgroup
/// size along x, y, z, set when the pipeline for a launch shape is made.
constexpr uint32_t kVulkanWorkgroupSizeSpecId = 0;

/// A Vulkan kernel may also be specialized on the values of some of its
/// 32- and 64-bit integer parameters (the strides of the workgroup-scope
/// tile tier's cooperative-matrix loads and stores, which NVIDIA's driver
/// compiles into spilling code when they are run-time values). The module
/// reads such a parameter from a specialization constant named
/// kVulkanParamSpecPrefix + kernel + "_param" + its index, with an id of
/// kVulkanParamSpecIdBase or above; the runtime makes a pipeline per
/// launch shape and values of those parameters (vulkan_specialization.h)
/// and still pushes every argument. kSpecializeAttr marks the kernel
/// arguments to specialize on, between xpu-lower-tiles and the lowering.
constexpr uint32_t kVulkanParamSpecIdBase = 16;
constexpr const char *kVulkanParamSpecPrefix = "__xpu_spec_";
constexpr const char *kSpecializeAttr = "xpu.specialize";

/// A kernel of the workgroup-scope tile tier whose K loop has a copying
/// version (xpu-lower-tiles) may come as two kernels of the compiled
/// module: the kernel itself, whose workgroups run only where every tile
/// of the loop is read straight from its buffer, and kernel +
/// kCopyingCompanionSuffix, which runs the others, copying through shared
/// memory. A launch of the kernel runs both over the same grid and
/// arguments, one after the other; each workgroup does its work in exactly
/// one. (NVIDIA's driver stages workgroup-scope loads through the shared
/// memory a shader leaves free: the copying version's arrays beside the
/// direct loop made it 2.6x slower, bench/results/h100-2026-12-07-e.md.)
/// An entry of that name is a companion only where the module has no
/// kernel of the name.
constexpr const char *kCopyingCompanionSuffix = ".xpu_copying";

/// Bytes one lane of a scalar parameter occupies in Vulkan's argument block.
constexpr unsigned vulkanLaneBytes(Scalar s) {
  return scalarBytes(s) < 4 ? 4 : scalarBytes(s);
}

/// The status word a kernel reports run-time check failures through:
/// word 0 counts suppressed out-of-bounds accesses, word 1 holds 1 + the
/// site id of the first one (0 when none).
constexpr unsigned kStatusWords = 2;

/// What the CPU entry point receives about the launch. Generated code reads
/// it at the offsets below; keep the two in step.
struct CpuLaunch {
  uint32_t wg[3];    ///< this workgroup's id
  uint32_t block[3]; ///< invocations per workgroup
  uint32_t grid[3];  ///< workgroups in the grid
  uint32_t flags;    ///< kCpuBuffersDistinct, ...
  char *shared;      ///< this workgroup's shared block
  uint32_t *status;  ///< the launch's status word
};
constexpr unsigned kLaunchWgOffset = 0;
constexpr unsigned kLaunchBlockOffset = 12;
constexpr unsigned kLaunchGridOffset = 24;
constexpr unsigned kLaunchFlagsOffset = 36;
constexpr unsigned kLaunchSharedOffset = 40;
constexpr unsigned kLaunchStatusOffset = 48;
static_assert(sizeof(void *) == 8, "xpujit targets 64-bit hosts");

/// CpuLaunch::flags: no buffer the kernel may write overlaps another buffer
/// argument, so the entry point may run the code compiled with `noalias`.
constexpr uint32_t kCpuBuffersDistinct = 1;

/// The CPU entry point of kernel `k` is `k` + kCpuGroupSuffix: it runs
/// whole workgroups, those of linear index [begin, end) (x fastest),
/// `void (const uint8_t *args, CpuLaunch *launch, uint64_t begin,
/// uint64_t end)`, writing each one's id into launch->wg. Beside
/// it, `k` + kCpuSharedBytesSuffix is a u64 constant: the bytes of shared
/// block each workgroup needs.
constexpr const char *kCpuGroupSuffix = ".xpu_wg";
/// The attribute of the one-workgroup function that entry point calls: it
/// is compiled on its own and inlined last (backends/common/llvm_codegen.cpp).
constexpr const char *kCpuInlineLateAttr = "xpu-inline-late";
constexpr const char *kCpuSharedBytesSuffix = ".xpu_shared_bytes";
/// Also a u64 constant: the bytes of stack the entry point's own arrays
/// take (context arrays, private buffers), so the runtime knows on which
/// threads it may run.
constexpr const char *kCpuStackBytesSuffix = ".xpu_stack_bytes";

/// Attributes the CPU lowering leaves on a kernel for its entry point: the
/// shared block's size, and per parameter -1 (scalar) or its Access.
constexpr const char *kCpuSharedBytesAttr = "xpu.shared_bytes";
constexpr const char *kCpuBufferAccessAttr = "xpu.buffer_access";

/// On the module, after xpu-place-shared-memory (CUDA): kernel name -> the
/// bytes of its own shared memory each launch passes as dynamic shared
/// memory (Footprint::launchSharedBytes).
constexpr const char *kLaunchSharedBytesAttr = "xpu.launch_shared_bytes";

/// Launch shapes that bounds proofs rely on (CoordinateRanges.cpp). A
/// launch passes each grid extent as a uint32 (xpu_launch); no backend runs
/// a workgroup of more than 1,024 invocations (kMaxWorkgroupExtent). A
/// target whose `index` is narrower than 64 bits runs at most
/// 2^(bits-1) - 1 invocations along an axis, so that a global id and size
/// are non-negative indices there: the Vulkan backend refuses larger
/// launches on a device without shaderInt64.
constexpr uint64_t kMaxGridExtent = 0xFFFFFFFFu;
/// Elements a launch passes for one buffer: at most its bytes, and no
/// address space holds 2^62 bytes (x86-64 and GPUs address at most 2^57).
constexpr uint64_t kMaxBufferElements = (uint64_t(1) << 62) - 1;
constexpr uint64_t maxGlobalExtent(unsigned indexBits) {
  return indexBits >= 64 ? kMaxGridExtent * 1024 : (uint64_t(1) << (indexBits - 1)) - 1;
}

} // namespace xpu::abi

