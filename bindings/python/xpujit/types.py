"""Kernel types: their names in the IR ("f32", "vector<4xi32>",
"!xpu.buffer<f32, ro>"), the C API's xpu_type numbers, and NumPy dtypes."""
import re

import numpy as np

# xpu_type number -> IR name, NumPy dtype (bf16 has none: its bits are
# carried as uint16).
_SCALARS = {
    1: ("i1", np.dtype(np.bool_)),
    2: ("i8", np.dtype(np.int8)),
    3: ("i16", np.dtype(np.int16)),
    4: ("i32", np.dtype(np.int32)),
    5: ("i64", np.dtype(np.int64)),
    6: ("f16", np.dtype(np.float16)),
    7: ("bf16", np.dtype(np.uint16)),
    8: ("f32", np.dtype(np.float32)),
    9: ("f64", np.dtype(np.float64)),
}
TYPE_NUMBER = {name: number for number, (name, _) in _SCALARS.items()}
SCALAR_NAMES = tuple(TYPE_NUMBER) + ("index",)

# Host dtypes a buffer of each element type accepts: the signed or unsigned
# integer of the same width (kernels decide signedness per operation).
_DTYPES_OF = {
    "i1": (np.dtype(np.bool_), np.dtype(np.uint8), np.dtype(np.int8)),
    "i8": (np.dtype(np.int8), np.dtype(np.uint8)),
    "i16": (np.dtype(np.int16), np.dtype(np.uint16)),
    "i32": (np.dtype(np.int32), np.dtype(np.uint32)),
    "i64": (np.dtype(np.int64), np.dtype(np.uint64)),
    "f16": (np.dtype(np.float16),),
    "bf16": (np.dtype(np.uint16),),
    "f32": (np.dtype(np.float32),),
    "f64": (np.dtype(np.float64),),
}


def name_of(number):
    """The IR name ("f32") of an xpu_type number."""
    return _SCALARS[number][0]


def dtype_of(name):
    """The NumPy dtype that holds elements of IR scalar type `name`."""
    return _DTYPES_OF[name][0]


def accepts(name, dtype):
    """Whether a host array of `dtype` may back a buffer of `name` elements."""
    return np.dtype(dtype) in _DTYPES_OF[name]


def scalar(t):
    """The IR name of a scalar type given as a name ("f32", "index"), a
    NumPy dtype or type (np.float32), or a Python type (float: f32,
    int: i32, bool: i1)."""
    if isinstance(t, str):
        if t not in SCALAR_NAMES:
            raise ValueError(f"unknown scalar type {t!r} (accepted: "
                             f"{', '.join(SCALAR_NAMES)})")
        return t
    for py, name in ((bool, "i1"), (int, "i32"), (float, "f32")):
        if t is py:
            return name
    dt = np.dtype(t)
    for name, accepted in _DTYPES_OF.items():
        if name != "bf16" and dt in accepted:
            return name
    raise ValueError(f"no kernel scalar type for {dt}")


def vector(lanes, element):
    """The IR type of a vector: vector(4, "f32") -> "vector<4xf32>"."""
    return f"vector<{int(lanes)}x{scalar(element)}>"


def struct_type(name, **fields):
    """The IR type of a struct parameter: struct_type("params", scale="f32",
    n="i32", offset=vector(3, "f32")) -> '!xpu.struct<"params", scale: f32,
    n: i32, offset: vector<3xf32>>'. Pass a NumPy structured scalar (of a
    dtype made with align=True, C's layout) or a ctypes.Structure with the
    same fields in the same order."""
    parts = [f'"{name}"'] + [f"{f}: {t if t.startswith('vector<') else scalar(t)}"
                             for f, t in fields.items()]
    return "!xpu.struct<" + ", ".join(parts) + ">"


_HOST_INTS = {1: 2, 2: 3, 4: 4, 8: 5}  # bytes -> xpu_type number


def host_field_type(base):
    """The xpu_type number of a NumPy dtype or ctypes scalar type."""
    import ctypes
    if isinstance(base, type) and issubclass(base, ctypes._SimpleCData):
        if base is ctypes.c_bool:
            return 1
        if base in (ctypes.c_float, ctypes.c_double):
            return 8 if base is ctypes.c_float else 9
        if base._type_ in "bBhHiIlLqQ":
            return _HOST_INTS[ctypes.sizeof(base)]
        raise ValueError(f"no kernel scalar type for {base.__name__}")
    dt = np.dtype(base)
    if dt == np.bool_:
        return 1
    if dt.kind in "iu":
        return _HOST_INTS[dt.itemsize]
    for number, (_, d) in _SCALARS.items():
        if number != 7 and d == dt:
            return number
    raise ValueError(f"no kernel scalar type for {dt}")


def buffer(element, access="rw", space="global", size=None):
    """The IR type of a buffer: buffer("f32", access="ro") ->
    "!xpu.buffer<f32, ro>". `access` is "rw" or "ro" (also "owned",
    "alias"); `space` "global", "shared" or "private"; `size` the static
    element count (required for shared and private buffers)."""
    parts = [f"{int(size)}x" if size is not None else ""]
    parts[0] += scalar(element)
    if space != "global":
        parts.append(space)
    if access != "rw":
        parts.append(access)
    return "!xpu.buffer<" + ", ".join(parts) + ">"


_BUFFER = re.compile(r"!xpu\.buffer<(?:(\d+)x)?(\w+)((?:,\s*\w+)*)>$")
_VECTOR = re.compile(r"vector<(\d+)x(\w+)>$")


class TypeInfo:
    """A parsed IR type: kind ("scalar", "vector" or "buffer"), element
    (the scalar name), lanes, and for buffers access, space and size."""

    def __init__(self, text):
        self.text = text
        self.lanes, self.access, self.space, self.size = 1, "rw", "global", None
        if m := _BUFFER.match(text):
            self.kind, self.element = "buffer", m.group(2)
            self.size = int(m.group(1)) if m.group(1) else None
            for word in filter(None, (w.strip() for w in m.group(3).split(","))):
                if word in ("global", "shared", "private"):
                    self.space = word
                else:
                    self.access = word
        elif m := _VECTOR.match(text):
            self.kind, self.element, self.lanes = "vector", m.group(2), int(m.group(1))
        else:
            self.kind, self.element = "scalar", text

    @property
    def is_float(self):
        return self.element in ("f16", "bf16", "f32", "f64")

    def __repr__(self):
        return f"TypeInfo({self.text!r})"
