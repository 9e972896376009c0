#!/usr/bin/env python3
"""Writes the hand-made seeds of the builder and launch targets into
corpus/builder and corpus/launch: byte programs in the encodings that
fuzz_builder.cpp and fuzz_launch.cpp read (keep them in step when those
change). The fuzzer grows the corpus from these; rerun after editing."""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))

# fuzz_builder.cpp: each step is [type index, call, operands...].
T = {"i1": 0, "i32": 3, "i64": 4, "index": 5, "f32": 8, "vec4i32": 11,
     "buf_f32": 14, "buf_f32_ro": 15, "buf_i32": 16, "shared": 18}
NAME = {"k": 0, "f": 1, "a": 4, "x": 5, "y": 6, "n": 7}
KERNEL, FUNC, PARAM, RETURN, CINT, CFLOAT, BINARY, UNARY = 0, 1, 2, 3, 4, 5, 6, 7
COMPARE, CAST, COORD, LOAD, STORE, ALLOC, BARRIER = 9, 11, 15, 16, 17, 19, 20
ATOMIC, REDUCE, CALL, IF, ELSE, IF_END, FOR, FOR_END = 21, 22, 23, 24, 25, 26, 27, 28
PRINT, WAVE_SHUFFLE, WAVE_BROADCAST, WAVE_BALLOT, WAVE_VOTE = 33, 34, 35, 36, 37
WAVE_REDUCE, WAVE_SCAN = 38, 39

def step(call, *operands, type_="i32"):
    return bytes([T[type_], call, *operands])

def i64(v):
    return struct.pack(">q", v)

saxpy = b"".join([
    step(KERNEL, 0, NAME["k"]),
    step(PARAM, NAME["y"], type_="buf_f32"),      # v0
    step(PARAM, NAME["x"], type_="buf_f32_ro"),   # v1
    step(PARAM, NAME["a"], type_="f32"),          # v2
    step(PARAM, NAME["n"], type_="i32"),          # v3
    step(COORD, 2, 0),                            # v4 = global_id x
    step(CAST, 1, 3, type_="index"),              # v5 = index_castui n
    step(COMPARE, 6, 4, 5),                       # v6 = i ult n
    step(IF, 6),
    step(LOAD, 1, 4, 0),                          # v7
    step(LOAD, 0, 4, 0),                          # v8
    step(BINARY, 2, 2, 7),                        # v9 = a * x
    step(BINARY, 0, 9, 8),                        # v10 = v9 + y
    step(STORE, 10, 0, 4),
    step(IF_END, 0),
    step(RETURN, 0),
])

loop_shared = b"".join([
    step(KERNEL, 4, 0, 64, 0, 1, 0, 1, NAME["k"]),  # workgroup_size 64,1,1
    step(PARAM, NAME["y"], type_="buf_i32"),      # v0
    step(ALLOC, type_="shared"),                  # v1
    step(COORD, 0, 0),                            # v2 = thread_id x
    step(CINT, type_="index") + i64(0),           # v3
    step(CINT, type_="index") + i64(8),           # v4
    step(CINT, type_="index") + i64(1),           # v5
    step(CINT, type_="i32") + i64(0),             # v6
    step(FOR, 3, 4, 5, 1, 6),                     # v7 = iv, v8 = acc
    step(BINARY, 0, 8, 8),                        # v9
    step(FOR_END, 1, 9),                          # v10
    step(BARRIER),
    step(REDUCE, 0, 0, 10),                       # v11 = reduce add sequential
    step(STORE, 11, 0, 2),
    step(RETURN, 0),
])

func_call = b"".join([
    step(FUNC, NAME["f"]),
    step(PARAM, NAME["x"], type_="i32"),          # v0
    step(BINARY, 2, 0, 0),                        # v1 = x * x
    step(RETURN, 1, 1),
    step(KERNEL, 0, NAME["k"]),
    step(PARAM, NAME["y"], type_="buf_i32"),      # v2
    step(PARAM, NAME["n"], type_="i32"),          # v3
    step(CALL, 1, 3, 1, NAME["f"]),               # v4 = f(n)
    step(COORD, 2, 0),                            # v5
    step(ATOMIC, 0, 0, 4, 4, 2, 5),               # atomic add relaxed device
    step(RETURN, 0),
])

wave = b"".join([
    step(KERNEL, 0, NAME["k"]),
    step(PARAM, NAME["y"], type_="buf_i32"),      # v0
    step(COORD, 2, 0),                            # v1 = global_id x
    step(CAST, 0, 1, type_="i32"),                # v2 = index_cast i
    step(WAVE_REDUCE, 0, 2),                      # v3 = wave sum
    step(WAVE_SCAN, 0, 1, 3),                     # v4 = exclusive scan
    step(CINT, type_="i32") + i64(1),             # v5
    step(WAVE_SHUFFLE, 0, 4, 5),                  # v6 = lane ^ 1
    step(WAVE_BROADCAST, 6, 5),                   # v7
    step(COMPARE, 6, 2, 5),                       # v8 = i ult 1
    step(WAVE_VOTE, 0, 8),                        # v9 = any
    step(WAVE_BALLOT, 8),                         # v10
    step(STORE, 7, 0, 1),
    step(PRINT),
    step(RETURN, 0),
])

misuse = b"".join([
    step(ELSE, 0),                                # else outside an if
    step(BINARY, 0, 255, 254),                    # NULL and a foreign value
    step(KERNEL, 0, NAME["k"]),
    step(BINARY, 230, 0, 0),                      # a negative operation
    step(COORD, 250) + b"\xff\xff\xff\xff" + bytes([0]),
    step(CAST, 240, 253) + i64(-1),
    step(RETURN, 0),
    step(RETURN, 0),                              # return twice
])

# fuzz_launch.cpp: [how, pick, grid/block byte pairs x3, count, args..., map];
# an argument is [kind < 100, buffer pick] or [kind, type, lanes, 32 bytes].
def buf(i):
    return bytes([0, i])

def scalar(type_code, lanes=1, value=b""):
    return bytes([150, type_code - 1, lanes]) + value.ljust(32, b"\0")

F32, I8, I16, I32, I64, F64, BOOL = 8, 2, 3, 4, 5, 9, 1
scale = bytes([0, 0, 0, 7, 0, 0, 0, 0, 4]) + buf(2) + buf(2) + \
    scalar(F32, value=struct.pack("<f", 2.0)) + scalar(I32, value=struct.pack("<i", 1000))
scalars = bytes([0, 2, 1, 3, 0, 0, 0, 0, 6]) + buf(3) + scalar(I8, value=b"\x7f") + \
    scalar(I16, value=struct.pack("<h", -3)) + scalar(I64, value=struct.pack("<q", 1 << 40)) + \
    scalar(F64, value=struct.pack("<d", 2.5)) + scalar(BOOL, value=b"\x01")
wide = bytes([0, 3, 0, 0, 0, 0, 0, 0, 4]) + buf(2) + scalar(F32, 4) + scalar(F32, 8) + scalar(F64, 8)
def extent(i):  # the byte that picks kExtents[i]
    return next(b for b in range(200, 256) if b % 16 == i)

# block {2^31, 2^31, 4}: a product that wraps to 0 in 64 bits
wrap = bytes([0, 1, 0, extent(13), 0, extent(13), 0, extent(4), 2]) + buf(1) + scalar(I32)
early = bytes([0x81, 0, 1, 7, 0, 0, 0, 0, 4]) + buf(2) + buf(1) + scalar(F32) + scalar(I32)
fixed = bytes([0, 4, 1, 3, 0, 1, 0, 0, 1]) + buf(0)
det = bytes([0, 6, 0, 0, 0, 0, 0, 0, 2]) + buf(2) + buf(2)
shared = bytes([0, 5, 3, 7, 0, 0, 0, 0, 1]) + buf(3)
# scale into imported host memory (pick 0x84), then a read map of it
imported = bytes([0, 0, 0, 7, 0, 0, 0, 0, 4]) + buf(0x84) + buf(2) + \
    scalar(F32, value=struct.pack("<f", 3.0)) + scalar(I32, value=struct.pack("<i", 1000)) + \
    bytes([0x23])
unguarded = bytes([0, 1, 3, 7, 0, 0, 0, 0, 2]) + buf(0) + scalar(I32, value=b"\x05")

seeds = {
    "builder": {"saxpy": saxpy, "loop-shared-reduce": loop_shared,
                "func-call-atomic": func_call, "misuse": misuse,
                "wave-operations": wave},
    "launch": {"scale": scale, "scalars": scalars, "wide-vectors": wide,
               "block-wrap": wrap, "early-release": early, "fixed-shape": fixed,
               "deterministic-alias": det, "shared-barrier": shared,
               "out-of-bounds": unguarded, "imported-map": imported},
}
for target, files in seeds.items():
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
