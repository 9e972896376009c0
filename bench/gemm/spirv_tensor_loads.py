#!/usr/bin/env python3
"""Turns the stub calls of a `workgroup_matrix_gemm.py --tensor` module, after
mlir-translate serialized it, into VK_NV_cooperative_matrix2 tensor-layout
loads, which MLIR 22's SPIR-V dialect cannot express:

  %m = OpFunctionCall %matA %tensor_a %row %k
  ->
  %p  = OpAccessChain %ptr_f16 %A %c0 %c0          (the buffer's first element)
  %l0 = OpCreateTensorLayoutNV %layout
  %l1 = OpTensorLayoutSetDimensionNV %layout %l0 %cM %cK
  %l2 = OpTensorLayoutSliceNV %layout %l1 %row %cBM %k %cBK
  %m  = OpCooperativeMatrixLoadTensorNV %matA %p %undef %l2 None None

(B alike, over K x N); a call @tensor_c(%row, %col, %acc) becomes a store
of the sums through a layout over M x N sliced alike. Then it drops the
stubs and declares the capabilities and extensions. The layout's clamp mode
is --clamp (undefined: the tile must lie in the tensor; constant: elements
outside read 0, and a store writes none past M or N — with undefined, the
NVIDIA driver writes them: bench/results/h100-2026-12-07-b.md).

  spirv_tensor_loads.py g.spv --m 4096 --n 4096 --k 4096 --bm 128 --bn 256 \\
      --bk 64 [--clamp constant]          (rewrites g.spv in place)
"""
import argparse
import struct

OP_NAME, OP_EXTENSION, OP_CAPABILITY = 5, 10, 17
OP_TYPE_INT, OP_TYPE_FLOAT, OP_TYPE_POINTER = 21, 22, 32
OP_CONSTANT, OP_VARIABLE, OP_FUNCTION, OP_FUNCTION_END = 43, 59, 54, 56
OP_FUNCTION_CALL, OP_ACCESS_CHAIN, OP_UNDEF = 57, 65, 1
OP_LOAD_TENSOR, OP_STORE_TENSOR, OP_TYPE_LAYOUT, OP_CREATE_LAYOUT = 5367, 5368, 5370, 5372
OP_LAYOUT_SET_DIMENSION, OP_LAYOUT_SLICE = 5373, 5375
CAP_TENSOR_ADDRESSING, CAP_COOP_TENSOR_ADDRESSING = 5439, 5433
STORAGE_BUFFER = 12
CLAMP = {"undefined": 0, "constant": 1}


def instructions(words):
    i = 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        yield op, words[i + 1:i + count]
        i += count


def encode(op, operands):
    return [(len(operands) + 1) << 16 | op] + list(operands)


def string(s):
    b = s.encode() + b"\0"
    b += b"\0" * (-len(b) % 4)
    return list(struct.unpack(f"<{len(b) // 4}I", b))


def decode_string(operands):
    b = struct.pack(f"<{len(operands)}I", *operands)
    return b[:b.index(b"\0")].decode()


def rewrite(words, a):
    insts = list(instructions(words))
    bound = words[3]

    def new_id():
        nonlocal bound
        bound += 1
        return bound - 1

    names = {decode_string(ops[1:]): ops[0] for op, ops in insts if op == OP_NAME}
    i32 = next(ops[0] for op, ops in insts if op == OP_TYPE_INT and ops[1:] == [32, 0])
    f16 = next(ops[0] for op, ops in insts if op == OP_TYPE_FLOAT and ops[1] == 16)
    consts = {}
    globals_ = []
    f32 = next(ops[0] for op, ops in insts if op == OP_TYPE_FLOAT and ops[1] == 32)

    def pointer_to(elem):
        found = next((ops[0] for op, ops in insts
                      if op == OP_TYPE_POINTER and ops[1:] == [STORAGE_BUFFER, elem]), None)
        if found is None:
            found = new_id()
            globals_.extend(encode(OP_TYPE_POINTER, [found, STORAGE_BUFFER, elem]))
        return found

    ptr_f16, ptr_f32 = pointer_to(f16), pointer_to(f32)
    stubs = {names[stub]: spec for stub, spec in (
        ("tensor_a", ("A", a.m, a.k, a.bm, a.bk)),
        ("tensor_b", ("B", a.k, a.n, a.bk, a.bn)),
        ("tensor_c", ("C", a.m, a.n, a.bm, a.bn))) if stub in names}

    def const(v):
        if v not in consts:
            consts[v] = new_id()
            globals_.extend(encode(OP_CONSTANT, [i32, consts[v], v]))
        return consts[v]

    layout = new_id()
    globals_consts_first = [const(2), const(CLAMP[a.clamp])]
    layout_decl = encode(OP_TYPE_LAYOUT, [layout, *globals_consts_first])
    undef = {}
    out_fn = []
    skipping = False
    for op, ops in insts:
        if op == OP_FUNCTION and ops[1] in stubs:
            skipping = True
        if skipping:
            skipping = op != OP_FUNCTION_END
            continue
        if op == OP_FUNCTION_CALL and ops[2] in stubs and stubs[ops[2]][0] == "C":
            row, col, value = ops[3:6]
            p, l0, l1, l2 = new_id(), new_id(), new_id(), new_id()
            out_fn += encode(OP_ACCESS_CHAIN, [ptr_f32, p, names["C"], const(0), const(0)])
            out_fn += encode(OP_CREATE_LAYOUT, [layout, l0])
            out_fn += encode(OP_LAYOUT_SET_DIMENSION, [layout, l1, l0, const(a.m), const(a.n)])
            out_fn += encode(OP_LAYOUT_SLICE,
                             [layout, l2, l1, row, const(a.bm), col, const(a.bn)])
            out_fn += encode(OP_STORE_TENSOR, [p, value, l2, 0, 0])
            continue
        if op == OP_FUNCTION_CALL and ops[2] in stubs:
            matrix, result, (row, col) = ops[0], ops[1], ops[3:5]
            buf, dim0, dim1, span0, span1 = stubs[ops[2]]
            if matrix not in undef:
                undef[matrix] = new_id()
            p, l0, l1, l2 = new_id(), new_id(), new_id(), new_id()
            out_fn += encode(OP_ACCESS_CHAIN, [ptr_f16, p, names[buf], const(0), const(0)])
            out_fn += encode(OP_CREATE_LAYOUT, [layout, l0])
            out_fn += encode(OP_LAYOUT_SET_DIMENSION, [layout, l1, l0, const(dim0), const(dim1)])
            out_fn += encode(OP_LAYOUT_SLICE,
                             [layout, l2, l1, row, const(span0), col, const(span1)])
            out_fn += encode(OP_LOAD_TENSOR, [matrix, result, p, undef[matrix], l2, 0, 0])
            continue
        if op == OP_NAME and ops[0] in stubs:
            continue
        out_fn.append((op, ops))

    # Reassemble: capabilities and extensions first, the new declarations
    # before the first function.
    out = list(words[:5])
    placed_caps = placed_exts = placed_globals = False
    for item in out_fn:
        if isinstance(item, int):
            out.append(item)
            continue
        op, ops = item
        if op != OP_CAPABILITY and not placed_caps:
            for cap in (CAP_TENSOR_ADDRESSING, CAP_COOP_TENSOR_ADDRESSING):
                out += encode(OP_CAPABILITY, [cap])
            placed_caps = True
        if op not in (OP_CAPABILITY, OP_EXTENSION) and not placed_exts:
            for ext in ("SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing"):
                out += encode(OP_EXTENSION, string(ext))
            placed_exts = True
        if op == OP_FUNCTION and not placed_globals:
            out += globals_ + layout_decl
            for matrix, u in undef.items():
                out += encode(OP_UNDEF, [matrix, u])
            placed_globals = True
        out += encode(op, ops)
    out[3] = bound
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("spv")
    for name in ("m", "n", "k", "bm", "bn", "bk"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--clamp", choices=sorted(CLAMP), default="undefined")
    a = p.parse_args()
    data = open(a.spv, "rb").read()
    words = list(struct.unpack(f"<{len(data) // 4}I", data))
    out = rewrite(words, a)
    open(a.spv, "wb").write(struct.pack(f"<{len(out)}I", *out))


if __name__ == "__main__":
    main()
