// The tensor-store stubs of a serialized SPIR-V module (kTensorStoreStub,
// TileLowering.h) as the VK_NV_cooperative_matrix2 instructions they stand
// for. MLIR 22's SPIR-V dialect has neither tensor layouts nor
// OpCooperativeMatrixStoreTensorNV, so the workgroup-scope tier
// (CoopMatrixToSPIRV.cpp) calls stubs and the words are rewritten here,
// after spirv::serialize. Opcodes and operand orders are those of
// SPV_NV_cooperative_matrix2 and SPV_NV_tensor_addressing.
#include "xpu/TileLowering.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstring>

namespace xpu {

namespace {

enum : uint32_t {
  OpName = 5,
  OpExtension = 10,
  OpMemoryModel = 14,
  OpCapability = 17,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpFunction = 54,
  OpFunctionEnd = 56,
  OpFunctionCall = 57,
  OpCooperativeMatrixStoreTensorNV = 5368,
  OpTypeTensorLayoutNV = 5370,
  OpTypeTensorViewNV = 5371,
  OpCreateTensorLayoutNV = 5372,
  OpTensorLayoutSetDimensionNV = 5373,
  OpTensorLayoutSetStrideNV = 5374,
  OpTensorLayoutSliceNV = 5375,
  OpCreateTensorViewNV = 5377,
  CapabilityCooperativeMatrixTensorAddressingNV = 5433,
  CapabilityTensorAddressingNV = 5439,
  MemoryModelVulkan = 3,
  MemoryAccessNonPrivatePointer = 0x20,
  TensorAddressingTensorView = 0x1,
  ClampModeConstant = 1,
};

struct Instruction {
  uint32_t opcode;
  llvm::ArrayRef<uint32_t> operands; ///< the words after the first
};

/// The instructions after the header; empty when a word count runs past the
/// end (a module this code did not serialize is left alone).
llvm::SmallVector<Instruction> instructions(llvm::ArrayRef<uint32_t> words) {
  llvm::SmallVector<Instruction> out;
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16;
    if (count == 0 || i + count > words.size())
      return {};
    out.push_back({words[i] & 0xffff, words.slice(i + 1, count - 1)});
    i += count;
  }
  return out;
}

llvm::StringRef literalString(llvm::ArrayRef<uint32_t> words) {
  const char *s = reinterpret_cast<const char *>(words.data());
  return llvm::StringRef(s, strnlen(s, words.size() * sizeof(uint32_t)));
}

void emit(llvm::SmallVectorImpl<uint32_t> &out, uint32_t opcode,
          llvm::ArrayRef<uint32_t> operands) {
  out.push_back(uint32_t(operands.size() + 1) << 16 | opcode);
  out.append(operands.begin(), operands.end());
}

void emitString(llvm::SmallVectorImpl<uint32_t> &out, uint32_t opcode, llvm::StringRef s) {
  llvm::SmallVector<uint32_t> words((s.size() + 4) / 4, 0);
  memcpy(words.data(), s.data(), s.size());
  emit(out, opcode, words);
}

} // namespace

void rewriteTensorStoreStubs(llvm::SmallVectorImpl<uint32_t> &words) {
  llvm::SmallVector<Instruction> insts = instructions(words);
  llvm::DenseMap<uint32_t, bool> stubs; // function id -> column-major (a view)
  llvm::DenseSet<llvm::StringRef> extensions;
  bool vulkanModel = false;
  uint32_t i32 = 0, boolType = 0;
  for (const Instruction &in : insts) {
    if (in.opcode == OpName && in.operands.size() > 1) {
      llvm::StringRef name = literalString(in.operands.drop_front());
      if (name.starts_with(kTensorStoreStub))
        stubs[in.operands[0]] = name.drop_front(kTensorStoreStub.size()).starts_with("_cm");
    } else if (in.opcode == OpExtension) {
      extensions.insert(literalString(in.operands));
    } else if (in.opcode == OpMemoryModel && in.operands.size() == 2) {
      vulkanModel = in.operands[1] == MemoryModelVulkan;
    } else if (in.opcode == OpTypeInt && in.operands.size() == 3 && in.operands[1] == 32 &&
               !i32) {
      i32 = in.operands[0];
    } else if (in.opcode == OpTypeBool && in.operands.size() == 1) {
      boolType = in.operands[0];
    }
  }
  if (stubs.empty() || !i32)
    return;

  uint32_t bound = words[3];
  auto fresh = [&] { return bound++; };
  // Declarations placed before the first function: constants, the layout
  // type (two dimensions, elements outside them clamped: stores drop them)
  // and, for column-major stores, a view that swaps the dimensions.
  llvm::SmallVector<uint32_t> declarations;
  llvm::DenseMap<uint32_t, uint32_t> constants;
  auto constant = [&](uint32_t v) {
    auto [it, added] = constants.try_emplace(v, 0);
    if (added) {
      it->second = fresh();
      emit(declarations, OpConstant, {i32, it->second, v});
    }
    return it->second;
  };
  uint32_t zero = constant(0), one = constant(1), two = constant(2);
  uint32_t layout = fresh();
  emit(declarations, OpTypeTensorLayoutNV, {layout, two, constant(ClampModeConstant)});
  uint32_t view = 0;
  if (llvm::any_of(stubs, [](auto &s) { return s.second; })) {
    if (!boolType) {
      boolType = fresh();
      emit(declarations, OpTypeBool, {boolType});
    }
    uint32_t no = fresh();
    emit(declarations, OpConstantFalse, {boolType, no});
    view = fresh();
    emit(declarations, OpTypeTensorViewNV, {view, two, no, one, zero});
  }

  llvm::SmallVector<uint32_t> out(words.begin(), words.begin() + 5);
  bool capsDone = false, extsDone = false, declsDone = false, inStub = false;
  for (const Instruction &in : insts) {
    if (!capsDone && in.opcode != OpCapability) {
      for (uint32_t cap : {CapabilityTensorAddressingNV,
                           CapabilityCooperativeMatrixTensorAddressingNV})
        emit(out, OpCapability, {cap});
      capsDone = true;
    }
    if (!extsDone && in.opcode != OpCapability && in.opcode != OpExtension) {
      for (llvm::StringRef ext : {"SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing"})
        if (!extensions.contains(ext))
          emitString(out, OpExtension, ext);
      extsDone = true;
    }
    if (in.opcode == OpFunction && !declsDone) {
      out.append(declarations);
      declsDone = true;
    }
    if (in.opcode == OpFunction && stubs.count(in.operands[1]))
      inStub = true;
    if (inStub) { // the stub's body goes
      inStub = in.opcode != OpFunctionEnd;
      continue;
    }
    if (in.opcode == OpName && stubs.count(in.operands[0]))
      continue;
    if (in.opcode == OpFunctionCall && in.operands.size() == 12 &&
        stubs.count(in.operands[2])) {
      // matrix, pointer, dim0, dim1, stride, start0, span0, start1, span1
      llvm::ArrayRef<uint32_t> a = in.operands.drop_front(3);
      uint32_t l0 = fresh(), l1 = fresh(), l2 = fresh(), l3 = fresh();
      emit(out, OpCreateTensorLayoutNV, {layout, l0});
      emit(out, OpTensorLayoutSetDimensionNV, {layout, l1, l0, a[2], a[3]});
      emit(out, OpTensorLayoutSetStrideNV, {layout, l2, l1, a[4], one});
      emit(out, OpTensorLayoutSliceNV, {layout, l3, l2, a[5], a[6], a[7], a[8]});
      uint32_t memory = vulkanModel ? MemoryAccessNonPrivatePointer : 0;
      if (stubs.lookup(in.operands[2])) {
        uint32_t v = fresh();
        emit(out, OpCreateTensorViewNV, {view, v});
        emit(out, OpCooperativeMatrixStoreTensorNV,
             {a[1], a[0], l3, memory, TensorAddressingTensorView, v});
      } else {
        emit(out, OpCooperativeMatrixStoreTensorNV, {a[1], a[0], l3, memory, 0});
      }
      continue;
    }
    emit(out, in.opcode, in.operands);
  }
  out[3] = bound;
  words.assign(out.begin(), out.end());
}

} // namespace xpu
