"""Modules and kernels: compiling IR text, kernel parameter lists, and
launching with arguments converted by each parameter's declared type."""
import ctypes
import dataclasses
import json
import sys

import numpy as np

from . import _lib, types
from ._lib import lib
from .errors import (ArgumentMismatchError, XpuError, check, error,
                     take_diagnostics)
from .memory import Buffer

NO_RUNTIME_CHECKS = 1  # XPU_MODULE_NO_RUNTIME_CHECKS


def module_options(source_name, runtime_checks):
    """The xpu_module_options for these settings."""
    opts = _lib.ModuleOptions()
    opts.struct_size = ctypes.sizeof(opts)
    opts.flags = 0 if runtime_checks else NO_RUNTIME_CHECKS
    opts.source_name = _lib.text(source_name)
    return opts


def located(err, text, source_name):
    """Adds the source line of the first located error to the message, so
    a failure in built or generated IR shows the IR it is about."""
    lines = text.splitlines()
    for d in err.diagnostics:
        if d.severity == "error" and d.file == source_name and 0 < d.line <= len(lines):
            caret = " " * (max(d.column, 1) - 1) + "^"
            err.message += f"\n{d.line:5} | {lines[d.line - 1]}\n      | {caret}"
            err.args = (err.message,)
            break
    return err


def compile(source, device=None, *, source_name=None, runtime_checks=True):
    """Compiles kernel IR for `device` and loads it; returns a Module.

    `source` is MLIR text (the xpu dialect with arith, math, scf, vector)
    or a Builder. `device` None means the default device, which kernels of
    the deterministic-v1 profile refuse (they need an explicit device).
    `source_name` names the source in diagnostics ("<input>" for text,
    "<builder>" for a builder). `runtime_checks=False` drops the bounds
    checks of portable kernels (unsafe). Raises ParseError, RefusedError or
    CompileError carrying the compiler's diagnostics."""
    from .builder import Builder
    from .device import default_device
    if isinstance(source, Builder):
        return source.finish(device, source_name=source_name,
                             runtime_checks=runtime_checks)
    from .device import context
    name = source_name or "<input>"
    data = source.encode()
    mod, diags = _lib.handle(), _lib.handle()
    status = lib.xpu_module_create(
        context().handle, device.handle if device else None, data, len(data),
        ctypes.byref(module_options(name, runtime_checks)), ctypes.byref(mod),
        ctypes.byref(diags))
    message = _lib.string(lib.xpu_last_error_message()) if status else ""
    found = take_diagnostics(diags)
    if status:
        raise located(error(status, message, found), source, name)
    return Module(device or default_device(), mod, found, source)


_OFFLINE = {
    "xpu_compile_for_target": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t,
                                              ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                              ctypes.POINTER(ctypes.c_void_p),
                                              ctypes.POINTER(ctypes.c_size_t), ctypes.c_void_p]),
    "xpu_compile_for_target_report": (
        ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p,
                       ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                       ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_void_p),
                       ctypes.c_void_p]),
    "xpu_compiled_code_free": (None, [ctypes.c_void_p]),
}
for _name, (_res, _args) in _OFFLINE.items():
    getattr(lib, _name).restype, getattr(lib, _name).argtypes = _res, _args


def compile_for_target(text, target, chip=None, *, source_name=None, wave_width=0,
                       report=False):
    """Generates a target's code without a device, as `xpujit compile` does:
    `target` is "cpu", "nvptx", "amdgcn" or "spirv"; `chip` e.g. "sm_90" or
    "gfx942" (None: the target's default). Returns the code as bytes or,
    with report=True, (code, report) where report is the offline module
    report as a dict (schema "xpujit.module-report", "offline": true; no
    device, limits or cache). Raises ParseError, RefusedError or
    CompileError carrying the compiler's diagnostics."""
    from .device import context
    name = source_name or "<input>"
    data = text.encode()
    opts = module_options(name, True)
    opts.wave_width = wave_width
    code, size, diags = ctypes.c_void_p(), ctypes.c_size_t(), _lib.handle()
    rep = ctypes.c_void_p()
    common = (context().handle, data, len(data), ctypes.byref(opts), target.encode(),
              _lib.text(chip), ctypes.byref(code), ctypes.byref(size))
    if report:
        status = lib.xpu_compile_for_target_report(*common, ctypes.byref(rep),
                                                   ctypes.byref(diags))
    else:
        status = lib.xpu_compile_for_target(*common, ctypes.byref(diags))
    message = _lib.string(lib.xpu_last_error_message()) if status else ""
    found = take_diagnostics(diags)
    if status:
        raise located(error(status, message, found), text, name)
    try:
        blob = ctypes.string_at(code, size.value)
        parsed = json.loads(ctypes.string_at(rep).decode()) if report else None
    finally:
        lib.xpu_compiled_code_free(code)
        lib.xpu_compiled_code_free(rep)
    return (blob, parsed) if report else blob


def format_module(text, *, source_name=None):
    """Parses and verifies MLIR text and returns it in the library's own
    printed form, as Builder.text prints: two texts of the same IR give the
    same string. Raises ParseError with diagnostics."""
    from .device import context
    data = text.encode()
    out, diags = ctypes.c_char_p(), _lib.handle()
    name = source_name or "<input>"
    status = lib.xpu_module_format(context().handle, data, len(data),
                                   ctypes.byref(module_options(name, True)),
                                   ctypes.byref(out), ctypes.byref(diags))
    message = _lib.string(lib.xpu_last_error_message()) if status else ""
    found = take_diagnostics(diags)
    if status:
        raise located(error(status, message, found), text, name)
    return _lib.string(out.value)


class Module:
    """Compiled kernels loaded on a device. `kernels` maps names to Kernel;
    `diagnostics` holds what the compiler said (warnings); `source` is the
    IR text it was compiled from."""

    def __init__(self, device, handle, diagnostics, source):
        self.device = device
        self.handle = handle
        self.diagnostics = diagnostics
        self.source = source
        n = ctypes.c_uint32()
        check(lib.xpu_module_kernel_count(handle, ctypes.byref(n)))
        self.kernels = {}
        for i in range(n.value):
            k = _lib.handle()
            check(lib.xpu_module_kernel_at(handle, i, ctypes.byref(k)))
            kernel = Kernel(self, k)
            self.kernels[kernel.name] = kernel

    def kernel(self, name):
        """The kernel called `name` (NotFoundError naming those there are)."""
        if name not in self.kernels:
            raise error(6, f"no kernel named {name!r} in the module (it has: "
                           f"{', '.join(self.kernels) or 'none'})")
        return self.kernels[name]

    def report(self):
        """The module's report as a dict (schema "xpujit.module-report"):
        source and IR hashes, admission, capability verdicts with evidence,
        target, device, limits, stage timings and cache outcome."""
        from .observe import module_report
        return module_report(self.handle)

    def __repr__(self):
        return f"<xpujit.Module [{', '.join(self.kernels)}] on {self.device.spec}>"

    def __del__(self):
        if getattr(self, "handle", None) and lib is not None:
            lib.xpu_module_release(self.handle)


@dataclasses.dataclass(frozen=True)
class Layout:
    """What a memref parameter's type fixes about the views it takes: its
    rank, sizes and strides (in elements; None where the view gives them),
    its element offset (None: any) and whether it is an identity layout
    (strides row-major over the sizes)."""
    rank: int
    identity: bool
    sizes: tuple
    strides: tuple
    offset: object

    def __str__(self):
        dims = "".join(f"{'?' if s is None else s}x" for s in self.sizes)
        if self.identity:
            return f"memref<{dims}{{}}>"
        strides = ", ".join("?" if s is None else str(s) for s in self.strides)
        offset = "?" if self.offset is None else self.offset
        return f"memref<{dims}{{}}, strided<[{strides}], offset: {offset}>>"


@dataclasses.dataclass(frozen=True)
class Param:
    """A kernel parameter: name, kind ("scalar", "buffer", "struct", or
    "view" for the memref parameter of a kernel imported from the gpu
    dialect), type (the scalar or element type: "f32", "i32", ...; "" for a
    struct), lanes (vector width of a scalar parameter, else 1), access
    ("rw" or "ro", for buffers), for views the Layout its memref type fixes,
    and for a struct its C size and fields (name, type, lanes, offset)."""
    name: str
    kind: str
    type: str
    lanes: int
    access: str
    layout: Layout = None
    size: int = 0
    fields: tuple = ()

    @property
    def dtype(self):
        """The NumPy dtype of the scalar or of the buffer's elements."""
        return types.dtype_of(self.type)

    def __str__(self):
        if self.kind == "struct":
            return f"{self.name}: struct of {self.size} bytes ({', '.join(f[0] for f in self.fields)})"
        t = self.type if self.lanes == 1 else f"vector<{self.lanes}x{self.type}>"
        if self.kind == "buffer":
            t = f"buffer of {t}" + (", read-only" if self.access == "ro" else "")
        if self.kind == "view":
            t = str(self.layout).format(t)
        return f"{self.name}: {t}"


class View:
    """A strided view of a Buffer: the argument of a memref parameter.
    Element (i0, i1, ...) is element offset + i0 * strides[0] + ... of the
    buffer; strides count elements and default to row-major over
    `shape`."""

    def __init__(self, buffer, shape, strides=None, offset=0):
        self.buffer = buffer
        self.shape = (shape,) if np.isscalar(shape) else tuple(int(x) for x in shape)
        if strides is None:
            strides, step = [], 1
            for size in reversed(self.shape):
                strides.insert(0, step)
                step *= size
        self.strides = tuple(int(x) for x in strides)
        self.offset = int(offset)
        if len(self.strides) != len(self.shape) or len(self.shape) > _lib.VIEW_MAX_RANK:
            raise ValueError(f"a view has 0 to {_lib.VIEW_MAX_RANK} sizes and as many "
                             f"strides, got {self.shape} and {self.strides}")

    def __repr__(self):
        return (f"<xpujit.View {list(self.shape)} strides {list(self.strides)} "
                f"offset {self.offset} of {self.buffer!r}>")


def _copy_back(array, buf, offset=0):
    """Writes a buffer's copy of `array` (C order from byte `offset`) back."""
    data = buf.download()
    if data.dtype != array.dtype:
        data = data.view(np.uint8)[offset:offset + array.nbytes].view(array.dtype)
        offset = 0
    else:
        data = data[offset // array.itemsize:]
    array[...] = data[:array.size].reshape(array.shape)


def bf16_bits(v):
    """The bf16 nearest to `v` (ties to even), as its 16 bits."""
    f = np.float32(v)
    if np.isnan(f):
        return np.uint16(0x7FC0)
    bits = int(f.view(np.uint32))
    return np.uint16((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16)


def _extent(v, what):
    v = (v,) if np.isscalar(v) else tuple(v)
    if not 1 <= len(v) <= 3:
        raise ValueError(f"{what} needs 1 to 3 extents, got {v}")
    return (ctypes.c_uint32 * 3)(*(int(x) for x in v + (1,) * (3 - len(v))))


class Kernel:
    """A kernel of a module: its name, parameter list, and launch()."""

    def __init__(self, module, handle):
        self.module = module
        self.handle = handle
        self.name = _lib.string(lib.xpu_kernel_name(handle))
        n = ctypes.c_uint32()
        check(lib.xpu_kernel_param_count(handle, ctypes.byref(n)))
        self.params = []
        raw = _lib.ParamInfo()
        for i in range(n.value):
            check(lib.xpu_kernel_param(handle, i, ctypes.byref(raw)))
            if raw.kind == 2:
                self.params.append(self._struct_param(i, _lib.string(raw.name)))
                continue
            kind = {0: "scalar", 1: "buffer", 3: "view"}[raw.kind]
            self.params.append(Param(
                _lib.string(raw.name), kind, types.name_of(raw.type), raw.lanes,
                "ro" if raw.access == 1 else "rw",
                self._layout(i) if kind == "view" else None))

    def _layout(self, i):
        info = _lib.ViewInfo()
        info.struct_size = ctypes.sizeof(info)
        check(lib.xpu_kernel_param_view(self.handle, i, ctypes.byref(info)))
        known = lambda v: None if v == _lib.VIEW_DYNAMIC else int(v)
        rank = info.rank
        return Layout(rank, bool(info.identity),
                      tuple(known(info.sizes[d]) for d in range(rank)),
                      tuple(known(info.strides[d]) for d in range(rank)),
                      known(info.offset))

    def _struct_param(self, i, name):
        size, count = ctypes.c_size_t(), ctypes.c_uint32()
        check(lib.xpu_kernel_struct_layout(self.handle, i, ctypes.byref(size),
                                           ctypes.byref(count)))
        fields, f = [], _lib.StructField()
        for k in range(count.value):
            check(lib.xpu_kernel_struct_field(self.handle, i, k, ctypes.byref(f)))
            fields.append((_lib.string(f.name), types.name_of(f.type), f.lanes, f.offset))
        return Param(name, "struct", "", 1, "ro", size=size.value, fields=tuple(fields))

    def __repr__(self):
        return f"<xpujit.Kernel {self.name}({', '.join(map(str, self.params))})>"

    def _mismatch(self, i, why):
        return ArgumentMismatchError(
            f"kernel '{self.name}' argument {i} ({self.params[i]}): {why}", 14)

    def launch(self, grid, block, args=(), stream=None, dynamic_shared_bytes=0):
        """Runs the kernel over `grid` workgroups of `block` invocations each
        (ints or tuples of 1 to 3 extents) on `stream` (None: the device's
        default stream).

        `args` match the parameters in order. A scalar parameter takes a
        Python or NumPy number, converted to its declared type (an integer
        must fit it, read as signed or unsigned; a float is rounded; a
        vector parameter takes a sequence of lanes). A buffer parameter
        takes a Buffer, a NumPy array of the element type, or another
        library's array (a PyTorch or CuPy tensor: anything with __dlpack__
        or __cuda_array_interface__). Arrays are used in place where the
        device can reach their memory (NumPy arrays on the CPU backend when
        C-contiguous and 16-byte aligned, tensors on their own CUDA device);
        other NumPy arrays are copied in, and back out unless the parameter
        is read-only. With any array argument, launch() synchronizes the
        stream before returning.
        Otherwise the launch is asynchronous: errors found while it runs
        are raised by the next synchronize().

        A view parameter (a memref of a gpu.func kernel) takes a View, a
        Buffer (viewed row-major over its shape), or a NumPy array, which
        keeps its shape and, where the memref's layout is strided, its
        strides; an identity layout gets a row-major copy. Arrays are copied
        back as above. `dynamic_shared_bytes` is the dynamic shared memory
        (gpu.dynamic_shared_memory) each workgroup gets."""
        args = tuple(args)
        if len(args) != len(self.params):
            raise ArgumentMismatchError(
                f"kernel '{self.name}' takes {len(self.params)} arguments "
                f"({', '.join(map(str, self.params))}), got {len(args)}", 14)
        stream = stream or self.module.device.default_stream
        c_args = (_lib.Arg * max(1, len(args)))()
        views = (_lib.View * max(1, len(args)))()
        lent, copies = [], []
        options = _lib.LaunchOptions(ctypes.sizeof(_lib.LaunchOptions),
                                     int(dynamic_shared_bytes))
        try:
            keep = []
            for i, (p, a) in enumerate(zip(self.params, args)):
                # A Buffer whose shape is not the memref's goes as a plain
                # buffer: the library takes one where it fixes the layout.
                as_buffer = p.kind == "buffer" or (
                    p.kind == "view" and isinstance(a, Buffer) and
                    (a.shape is None or len(a.shape) != p.layout.rank))
                if as_buffer:
                    buf = self._buffer(i, p, a, copies)
                    c_args[i].kind = 1
                    c_args[i].v.buffer = buf.handle
                    lent.append(buf)
                elif p.kind == "struct":
                    self._struct(i, p, a, c_args[i], keep)
                elif p.kind == "view":
                    buf = self._view(i, p, a, copies, views[i])
                    c_args[i].kind = 3
                    c_args[i].v.view = ctypes.pointer(views[i])
                    lent.append(buf)
                else:
                    self._scalar(i, p, a, c_args[i])
            check(lib.xpu_launch_with_options(
                self.handle, stream.handle, _extent(grid, "grid"), _extent(block, "block"),
                c_args, len(args), ctypes.byref(options)))
            stream._borrow(self, *lent)
            if copies:
                stream.synchronize()
                for p, array, buf, back in copies:
                    if p is not None and p.access != "ro":
                        back(array, buf)
        finally:
            for _, _, buf, _ in copies:
                try:
                    buf.free()
                except XpuError:
                    pass  # still borrowed after a failed sync: the stream keeps it

    def _buffer(self, i, p, a, copies):
        if isinstance(a, Buffer):
            if a.device is not self.module.device:
                raise self._mismatch(i, f"the buffer is on {a.device.spec}, the kernel "
                                        f"on {self.module.device.spec}")
            if a.dtype is not None and not types.accepts(p.type, a.dtype):
                raise self._mismatch(i, f"a buffer of {a.dtype}")
            return a
        device = self.module.device
        if isinstance(a, np.ndarray):
            if not types.accepts(p.type, a.dtype):
                raise self._mismatch(i, f"an array of {a.dtype} (pass {p.dtype})")
            if (device.info.backend == "cpu" and a.flags.c_contiguous and a.nbytes
                    and a.ctypes.data % 16 == 0 and (a.flags.writeable or p.access == "ro")):
                buf = Buffer.from_host(device, a)  # used in place: nothing to copy
                copies.append((None, a, buf, None))
                return buf
            buf = Buffer.from_array(device, np.ascontiguousarray(a))
            copies.append((p, a, buf, _copy_back))
            return buf
        from .interop import as_buffer
        buf = as_buffer(a, device)
        if buf is not None:
            if not types.accepts(p.type, buf.dtype):
                raise self._mismatch(i, f"an array of {buf.dtype} (pass {p.dtype})")
            copies.append((None, a, buf, None))
            return buf
        raise self._mismatch(i, f"{type(a).__name__} is neither a Buffer nor an array "
                                "(NumPy, or with __dlpack__ / __cuda_array_interface__)")

    def _struct(self, i, p, a, arg, keep):
        """A NumPy structured scalar or a ctypes.Structure, with its layout,
        which the library checks against the kernel's struct."""
        if isinstance(a, np.ndarray) and a.dtype.names and a.size == 1:
            a = a.reshape(())[()]
        if isinstance(a, np.void) and a.dtype.names:
            data = a.tobytes()
            layout = []
            for name in a.dtype.names:
                dt, offset = a.dtype.fields[name][:2]
                base, lanes = (dt.base, int(np.prod(dt.shape))) if dt.subdtype else (dt, 1)
                layout.append((name, types.host_field_type(base), lanes, offset))
        elif isinstance(a, ctypes.Structure):
            data = bytes(a)
            layout = []
            for name, ctype, *_ in type(a)._fields_:
                lanes = 1
                if issubclass(ctype, ctypes.Array):
                    ctype, lanes = ctype._type_, ctype._length_
                layout.append((name, types.host_field_type(ctype), lanes,
                               getattr(type(a), name).offset))
        else:
            raise self._mismatch(i, f"{type(a).__name__} is neither a NumPy structured "
                                    f"scalar nor a ctypes.Structure")
        raw = ctypes.create_string_buffer(data, len(data))
        names = [n.encode() for n, *_ in layout]
        fields = (_lib.StructField * len(layout))(
            *(_lib.StructField(nm, t, lanes, off) for nm, (_, t, lanes, off) in zip(names, layout)))
        keep += [raw, names, fields]
        arg.kind = 2
        arg.v.structure.data = ctypes.cast(raw, ctypes.c_void_p)
        arg.v.structure.size = len(data)
        arg.v.structure.fields = fields
        arg.v.structure.field_count = len(layout)

    def _view(self, i, p, a, copies, out):
        """Fills `out` (an xpu_view) for view parameter `p` from `a`; returns
        the Buffer it lends."""
        if isinstance(a, Buffer):
            a = View(a, a.shape)
        if isinstance(a, np.ndarray):
            a = self._array_view(i, p, a, copies)
        if not isinstance(a, View):
            raise self._mismatch(i, f"{type(a).__name__} is neither a View, a Buffer "
                                    f"nor a NumPy array")
        buf = self._buffer(i, p, a.buffer, copies)
        out.buffer = buf.handle
        out.byte_offset = a.offset * p.dtype.itemsize
        out.rank = len(a.shape)
        for d, (size, stride) in enumerate(zip(a.shape, a.strides)):
            out.sizes[d], out.strides[d] = size, stride
        return buf

    def _array_view(self, i, p, a, copies):
        """A View of a device copy of array `a`: its own strides where the
        layout takes strides and they are whole elements, else row-major."""
        if not types.accepts(p.type, a.dtype):
            raise self._mismatch(i, f"an array of {a.dtype} (pass {p.dtype})")
        size = a.itemsize
        strided = not p.layout.identity and all(s % size == 0 for s in a.strides)
        first = 0 if not strided else -sum(min(0, (n - 1) * s) for n, s in
                                           zip(a.shape, a.strides) if n) // size
        # The type may fix where the first element is.
        start = max(0, (p.layout.offset or 0) - first)
        if not strided or a.size == 0:
            host = np.ascontiguousarray(a)
            buf = Buffer.empty(self.module.device, start + host.size, a.dtype)
            buf.upload(host, start * size)
            copies.append((p, a, buf, lambda arr, b: _copy_back(
                arr, b, start * size)))
            return View(buf, a.shape, offset=start)
        last = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) // size
        span = first + last + 1
        raw = np.ctypeslib.as_array((ctypes.c_uint8 * (span * size)).from_address(
            a.ctypes.data - first * size)).copy()
        buf = Buffer.empty(self.module.device, start + span, a.dtype)
        buf.upload(raw, start * size)
        strides = tuple(s // size for s in a.strides)

        def back(arr, b):
            data = b.download()
            arr[...] = np.lib.stride_tricks.as_strided(
                data[start + first:], shape=arr.shape, strides=arr.strides)

        copies.append((p, a, buf, back))
        return View(buf, a.shape, strides, start + first)

    def _scalar(self, i, p, a, arg):
        arg.kind, arg.type, arg.lanes = 0, types.TYPE_NUMBER[p.type], p.lanes
        if p.lanes > 1:
            lanes = list(a) if np.ndim(a) == 1 else None
            if lanes is None or len(lanes) != p.lanes:
                raise self._mismatch(i, f"needs a sequence of {p.lanes} values, got {a!r}")
        else:
            lanes = [a]
        data = b"".join(self._encode(i, p, v) for v in lanes)
        ctypes.memmove(arg.v.bytes, data, len(data))

    def _encode(self, i, p, v):
        """One value in the parameter's type, as the host holds it."""
        is_bool = isinstance(v, (bool, np.bool_))
        is_int = isinstance(v, (int, np.integer)) or is_bool
        if p.type == "i1":
            if not is_int or int(v) not in (0, 1):
                raise self._mismatch(i, f"{v!r} is not a bool")
            return np.uint8(int(v)).tobytes()
        if p.type.startswith("i"):
            if not is_int:
                raise self._mismatch(i, f"{v!r} is not an integer")
            bits = int(p.type[1:])
            if not -(1 << (bits - 1)) <= int(v) < (1 << bits):
                raise self._mismatch(i, f"{int(v)} does not fit {p.type}")
            return (int(v) & ((1 << bits) - 1)).to_bytes(bits // 8, sys.byteorder)
        if is_bool or not isinstance(v, (int, float, np.integer, np.floating)):
            raise self._mismatch(i, f"{v!r} is not a number")
        if p.type == "bf16":
            return bf16_bits(v).tobytes()
        return np.array(v, dtype=p.dtype).tobytes()
