#!/usr/bin/env python3
"""Prints what a SPIR-V binary holds of the instructions spirv-dis may not
know (the Debian 12 one predates SPV_KHR_cooperative_matrix): one line per
OpCapability, OpExtension, OpFunction (with its OpName), OpFunctionCall and
VK_NV_cooperative_matrix2 tensor-addressing instruction, operands as words,
for FileCheck (%spirv-words in lit.cfg.py)."""
import struct
import sys

NAMES = {10: "OpExtension", 17: "OpCapability", 54: "OpFunction", 57: "OpFunctionCall",
         5367: "OpCooperativeMatrixLoadTensorNV", 5368: "OpCooperativeMatrixStoreTensorNV",
         5370: "OpTypeTensorLayoutNV", 5371: "OpTypeTensorViewNV",
         5372: "OpCreateTensorLayoutNV", 5373: "OpTensorLayoutSetDimensionNV",
         5374: "OpTensorLayoutSetStrideNV", 5375: "OpTensorLayoutSliceNV",
         5377: "OpCreateTensorViewNV"}


def string(words):
    return struct.pack(f"<{len(words)}I", *words).split(b"\0")[0].decode()


def main():
    data = open(sys.argv[1], "rb").read()
    words = struct.unpack(f"<{len(data) // 4}I", data)
    if words[0] != 0x07230203:
        sys.exit(f"{sys.argv[1]}: not SPIR-V")
    insts, i = [], 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            sys.exit(f"{sys.argv[1]}: a zero word count at word {i}")
        insts.append((op, words[i + 1:i + count]))
        i += count
    names = {ops[0]: string(ops[1:]) for op, ops in insts if op == 5}
    for op, ops in insts:
        if op not in NAMES:
            continue
        if op == 10:
            print(NAMES[op], string(ops))
        elif op == 54:
            print(NAMES[op], names.get(ops[1], "%" + str(ops[1])))
        elif op == 57:
            print(NAMES[op], names.get(ops[2], "%" + str(ops[2])), *ops[3:])
        else:
            print(NAMES[op], *ops)


if __name__ == "__main__":
    main()
