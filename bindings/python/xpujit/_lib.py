"""Finds libxpujit and declares the C functions of xpu_c.h that the package
calls, with their ctypes signatures and structs."""
import ctypes
import os
import pathlib
from ctypes import (POINTER, Structure, Union, c_char, c_char_p, c_double,
                    c_float, c_int, c_int8, c_int16, c_int32, c_int64,
                    c_size_t, c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

# The header this package was written against: the library must have the
# same major version and at least this minor one.
VERSION_MAJOR, VERSION_MINOR = 0, 1

_HERE = pathlib.Path(__file__).resolve().parent


def _candidates():
    """Where the library may be, in the order it is looked for."""
    env = os.environ.get("XPU_LIBRARY")
    if env:
        return [("XPU_LIBRARY", env)]
    found = [("next to the package", str(p))
             for p in sorted(_HERE.glob("libxpujit.so*"))]
    # Running from a source checkout: bindings/python/xpujit -> the repo.
    build = os.environ.get("XPU_BUILD_DIR") or str(_HERE.parents[2] / "build")
    found.append(("the build tree", os.path.join(build, "src", "libxpujit.so")))
    found.append(("the library search path", "libxpujit.so.0"))
    return found


def _load():
    tried = []
    for where, path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(f"{path} ({where}): no such file")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append(f"{path} ({where}): {e}")
    raise ImportError("xpujit: cannot load libxpujit.so; set XPU_LIBRARY to its "
                      "path. Tried:\n  " + "\n  ".join(tried))


lib, path = _load()

# Opaque handles are pointers; NULL is None.
handle = c_void_p


class DeviceInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("backend", c_int),
                ("name", c_char * 256), ("vendor", c_char * 64),
                ("arch", c_char * 64), ("driver", c_char * 128),
                ("uuid", c_uint8 * 16), ("memory_bytes", c_uint64),
                ("compute_units", c_uint32), ("wave_width", c_uint32),
                ("max_workgroup_size", c_uint32), ("index", c_uint32)]


class Capability(Structure):
    _fields_ = [("name", c_char_p), ("description", c_char_p), ("kind", c_int),
                ("verdict", c_int), ("reason", c_char_p), ("evidence", c_char_p),
                ("limit", c_uint64), ("has_limit", c_uint32)]


class Diagnostic(Structure):
    _fields_ = [("severity", c_int), ("code", c_char_p), ("message", c_char_p),
                ("file", c_char_p), ("line", c_uint32), ("column", c_uint32)]


class ModuleOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("flags", c_uint32),
                ("source_name", c_char_p), ("target", c_char_p),
                ("wave_width", c_uint32)]


class ParamInfo(Structure):
    _fields_ = [("name", c_char_p), ("kind", c_int), ("type", c_int),
                ("lanes", c_uint32), ("access", c_int)]


class StructField(Structure):
    _fields_ = [("name", c_char_p), ("type", c_int), ("lanes", c_uint32),
                ("offset", c_uint32)]


class StructArg(Structure):
    _fields_ = [("data", c_void_p), ("size", c_size_t),
                ("fields", POINTER(StructField)), ("field_count", c_uint32)]


VIEW_MAX_RANK = 4
VIEW_DYNAMIC = -(1 << 63)  # XPU_VIEW_DYNAMIC


class View(Structure):
    _fields_ = [("buffer", c_void_p), ("byte_offset", c_uint64), ("rank", c_uint32),
                ("sizes", c_int64 * VIEW_MAX_RANK), ("strides", c_int64 * VIEW_MAX_RANK)]


class ViewInfo(Structure):
    _fields_ = [("struct_size", c_uint32), ("rank", c_uint32), ("identity", c_uint32),
                ("sizes", c_int64 * VIEW_MAX_RANK), ("strides", c_int64 * VIEW_MAX_RANK),
                ("offset", c_int64)]


class LaunchOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("dynamic_shared_bytes", c_uint32)]


class ArgValue(Union):
    _fields_ = [("buffer", c_void_p), ("i8", c_int8), ("i16", c_int16),
                ("i32", c_int32), ("i64", c_int64), ("f16_bits", c_uint16),
                ("f32", c_float), ("f64", c_double), ("b", c_uint8),
                ("bytes", c_uint8 * 32), ("structure", StructArg), ("view", POINTER(View))]


class Arg(Structure):
    _fields_ = [("kind", c_int), ("type", c_int), ("lanes", c_uint32),
                ("v", ArgValue)]


class KernelAttributes(Structure):
    _fields_ = [("struct_size", c_uint32), ("profile", c_char_p),
                ("workgroup_size", c_uint32 * 3), ("grid_size", c_uint32 * 3),
                ("fastmath", c_uint32), ("effects", POINTER(c_char_p)),
                ("effect_count", c_size_t), ("device", c_char_p)]


class BufferOptions(Structure):
    _fields_ = [("struct_size", c_uint32), ("memory", c_int)]


# xpu_release_fn: called with the import's user data once xpujit is done.
ReleaseFn = ctypes.CFUNCTYPE(None, c_void_p)


class ImportDesc(Structure):
    _fields_ = [("struct_size", c_uint32), ("kind", c_int), ("address", c_uint64),
                ("bytes", c_size_t), ("release", ReleaseFn), ("release_data", c_void_p)]


_status = c_int
_v = handle
_pv = POINTER(handle)
_out_str = POINTER(c_char_p)

# name: (result type, argument types). Everything returning xpu_status
# is checked by the caller (see errors.check).
_SIGNATURES = {
    "xpu_version": (c_uint32, []),
    "xpu_version_string": (c_char_p, []),
    "xpu_status_name": (c_char_p, [_status]),
    "xpu_last_error_status": (_status, []),
    "xpu_last_error_message": (c_char_p, []),
    "xpu_diagnostics_count": (c_size_t, [_v]),
    "xpu_diagnostics_get": (_status, [_v, c_size_t, POINTER(Diagnostic)]),
    "xpu_diagnostics_release": (None, [_v]),
    "xpu_context_create": (_status, [c_void_p, _pv]),
    "xpu_context_release": (None, [_v]),
    "xpu_context_backend_note": (c_char_p, [_v, c_int]),
    "xpu_backend_name": (c_char_p, [c_int]),
    "xpu_device_count": (_status, [_v, POINTER(c_uint32)]),
    "xpu_device_get": (_status, [_v, c_uint32, _pv]),
    "xpu_device_default": (_status, [_v, _pv]),
    "xpu_device_info_get": (_status, [_v, POINTER(DeviceInfo)]),
    "xpu_device_synchronize": (_status, [_v]),
    "xpu_device_capability_count": (_status, [_v, POINTER(c_uint32)]),
    "xpu_device_capability": (_status, [_v, c_uint32, POINTER(Capability)]),
    "xpu_stream_create": (_status, [_v, _pv]),
    "xpu_stream_release": (None, [_v]),
    "xpu_stream_synchronize": (_status, [_v]),
    "xpu_stream_default": (_status, [_v, _pv]),
    "xpu_event_create": (_status, [_v, _pv]),
    "xpu_event_release": (None, [_v]),
    "xpu_event_record": (_status, [_v, _v]),
    "xpu_stream_wait_event": (_status, [_v, _v]),
    "xpu_event_synchronize": (_status, [_v]),
    "xpu_event_query": (_status, [_v]),
    "xpu_buffer_create": (_status, [_v, c_size_t, _pv]),
    "xpu_buffer_free": (_status, [_v]),
    "xpu_buffer_create_ex": (_status, [_v, c_size_t, POINTER(BufferOptions), _pv]),
    "xpu_buffer_is_mappable": (_status, [_v, POINTER(c_int)]),
    "xpu_buffer_map": (_status, [_v, c_int, POINTER(c_void_p)]),
    "xpu_buffer_unmap": (_status, [_v]),
    "xpu_buffer_import": (_status, [_v, POINTER(ImportDesc), _pv]),
    "xpu_buffer_synchronize": (_status, [_v]),
    "xpu_buffer_address": (_status, [_v, POINTER(c_uint64)]),
    "xpu_stream_native": (_status, [_v, POINTER(c_void_p)]),
    "xpu_buffer_upload": (_status, [_v, c_size_t, c_void_p, c_size_t]),
    "xpu_buffer_download": (_status, [_v, c_size_t, c_void_p, c_size_t]),
    "xpu_buffer_upload_async": (_status, [_v, c_size_t, c_void_p, c_size_t, _v]),
    "xpu_buffer_download_async": (_status, [_v, c_size_t, c_void_p, c_size_t, _v]),
    "xpu_module_create": (_status, [_v, _v, c_char_p, c_size_t,
                                    POINTER(ModuleOptions), _pv, _pv]),
    "xpu_module_format": (_status, [_v, c_char_p, c_size_t, POINTER(ModuleOptions),
                                    _out_str, _pv]),
    "xpu_module_release": (None, [_v]),
    "xpu_module_kernel_count": (_status, [_v, POINTER(c_uint32)]),
    "xpu_module_kernel_at": (_status, [_v, c_uint32, _pv]),
    "xpu_kernel_name": (c_char_p, [_v]),
    "xpu_kernel_param_count": (_status, [_v, POINTER(c_uint32)]),
    "xpu_kernel_param": (_status, [_v, c_uint32, POINTER(ParamInfo)]),
    "xpu_launch": (_status, [_v, _v, POINTER(c_uint32), POINTER(c_uint32),
                             POINTER(Arg), c_size_t]),
    "xpu_launch_with_options": (_status, [_v, _v, POINTER(c_uint32), POINTER(c_uint32),
                                          POINTER(Arg), c_size_t,
                                          POINTER(LaunchOptions)]),
    "xpu_kernel_param_view": (_status, [_v, c_uint32, POINTER(ViewInfo)]),
    "xpu_builder_create": (_status, [_v, _pv]),
    "xpu_builder_release": (None, [_v]),
    "xpu_builder_kernel_begin": (_status, [_v, c_char_p, POINTER(KernelAttributes)]),
    "xpu_builder_func_begin": (_status, [_v, c_char_p]),
    "xpu_builder_param": (_status, [_v, c_char_p, c_char_p, _pv]),
    "xpu_builder_return": (_status, [_v, _pv, c_size_t]),
    "xpu_builder_constant_int": (_status, [_v, c_char_p, c_int64, _pv]),
    "xpu_builder_constant_float": (_status, [_v, c_char_p, c_double, _pv]),
    "xpu_builder_binary": (_status, [_v, c_int, _v, _v, _pv]),
    "xpu_builder_unary": (_status, [_v, c_int, _v, _pv]),
    "xpu_builder_fma": (_status, [_v, _v, _v, _v, _pv]),
    "xpu_builder_compare": (_status, [_v, c_int, _v, _v, _pv]),
    "xpu_builder_select": (_status, [_v, _v, _v, _v, _pv]),
    "xpu_builder_cast": (_status, [_v, c_int, _v, c_char_p, _pv]),
    "xpu_builder_broadcast": (_status, [_v, _v, c_uint32, _pv]),
    "xpu_builder_extract": (_status, [_v, _v, c_uint32, _pv]),
    "xpu_builder_insert": (_status, [_v, _v, _v, c_uint32, _pv]),
    "xpu_builder_coordinate": (_status, [_v, c_int, c_uint32, _pv]),
    "xpu_builder_load": (_status, [_v, _v, _v, c_uint32, _pv]),
    "xpu_builder_store": (_status, [_v, _v, _v, _v]),
    "xpu_builder_buffer_size": (_status, [_v, _v, _pv]),
    "xpu_builder_alloc": (_status, [_v, c_char_p, _pv]),
    "xpu_builder_barrier": (_status, [_v]),
    "xpu_builder_atomic": (_status, [_v, c_int, _v, _v, _v, c_int, c_int, _pv]),
    "xpu_builder_reduce": (_status, [_v, c_int, _v, c_int, _pv]),
    "xpu_builder_atomic_cmpxchg": (_status, [_v, _v, _v, _v, _v, c_int, c_int, _pv]),
    "xpu_builder_call": (_status, [_v, c_char_p, _pv, c_size_t, _pv, c_size_t]),
    "xpu_builder_if_begin": (_status, [_v, _v]),
    "xpu_builder_else": (_status, [_v, _pv, c_size_t]),
    "xpu_builder_if_end": (_status, [_v, _pv, c_size_t, _pv]),
    "xpu_builder_for_begin": (_status, [_v, _v, _v, _v, _pv, c_size_t, _pv, _pv]),
    "xpu_builder_for_end": (_status, [_v, _pv, c_size_t, _pv]),
    "xpu_builder_while_begin": (_status, [_v, _pv, c_size_t, _pv]),
    "xpu_builder_while_do": (_status, [_v, _v, _pv, c_size_t, _pv]),
    "xpu_builder_while_end": (_status, [_v, _pv, c_size_t, _pv, c_size_t]),
    "xpu_builder_value_type": (_status, [_v, _v, _out_str]),
    "xpu_builder_print": (_status, [_v, _out_str]),
    "xpu_builder_finish": (_status, [_v, _v, POINTER(ModuleOptions), _pv, _pv]),
    "xpu_kernel_struct_layout": (_status, [_v, c_uint32, POINTER(c_size_t),
                                           POINTER(c_uint32)]),
    "xpu_kernel_struct_field": (_status, [_v, c_uint32, c_uint32, POINTER(StructField)]),
    "xpu_builder_struct_get": (_status, [_v, _v, c_char_p, _pv]),
    "xpu_builder_printf": (_status, [_v, c_char_p, _pv, c_size_t]),
    "xpu_builder_fn_value": (_status, [_v, c_char_p, POINTER(c_char_p), c_size_t, _pv]),
    "xpu_builder_fn_call": (_status, [_v, _v, POINTER(c_char_p), c_size_t, _pv, c_size_t,
                                      _pv, c_size_t]),
    "xpu_builder_grid_stride_begin": (_status, [_v, _v, _pv]),
    "xpu_builder_grid_stride_end": (_status, [_v]),
    # Wave operations.
    "xpu_builder_wave_shuffle": (_status, [_v, c_int, _v, _v, _pv]),
    "xpu_builder_wave_broadcast": (_status, [_v, _v, _v, _pv]),
    "xpu_builder_wave_ballot": (_status, [_v, _v, _pv]),
    "xpu_builder_wave_vote": (_status, [_v, c_int, _v, _pv]),
    "xpu_builder_wave_reduce": (_status, [_v, c_int, _v, _pv]),
    "xpu_builder_wave_scan": (_status, [_v, c_int, _v, c_int, _pv]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError:
        raise ImportError(f"xpujit: {path} lacks {_name}; it is older than this "
                          f"package (rebuild it, or point XPU_LIBRARY at a newer "
                          f"one)") from None
    _fn.restype, _fn.argtypes = _res, _args

_version = lib.xpu_version()
if (_version >> 22) != VERSION_MAJOR or ((_version >> 12) & 0x3FF) < VERSION_MINOR:
    raise ImportError(f"xpujit: {path} is version "
                      f"{lib.xpu_version_string().decode()}; this package needs "
                      f"{VERSION_MAJOR}.{VERSION_MINOR} or a later {VERSION_MAJOR}.x")


def values(items):
    """A C array of value handles from handles, or None when empty."""
    items = list(items)
    if not items:
        return None
    return (handle * len(items))(*items)


def text(s):
    """bytes for a C string argument (None stays NULL)."""
    return None if s is None else s.encode()


def string(b):
    """str from a C string result."""
    return "" if b is None else b.decode(errors="replace")
