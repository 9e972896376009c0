"""Zero-copy exchange with other array libraries: DLPack both ways
(NumPy, PyTorch, CuPy, JAX) and the CUDA array interface (CuPy, Numba).

What an export shares: host-visible memory (the CPU backend, lavapipe) goes
out as kDLCPU through a mapping held until the consumer drops it (launches
that use the buffer raise BusyError meanwhile: the host has it); CUDA memory
goes out as kDLCUDA after the buffer's enqueued work has finished. An
import wraps the other library's memory without a copy; that library keeps
owning it, and it is released back once xpujit's buffer is freed."""
import ctypes
import itertools
import threading

import numpy as np

from . import _lib
from ._lib import lib
from .errors import InvalidArgumentError, UnsupportedError, check
from .memory import IMPORT_DEVICE, IMPORT_HOST, Buffer

# DLPack's ABI (dlpack.h, version 0.8 / 1.0 unversioned capsules).
kDLCPU, kDLCUDA, kDLCUDAHost, kDLROCM, kDLCUDAManaged = 1, 2, 3, 10, 13
_CODE_INT, _CODE_UINT, _CODE_FLOAT, _CODE_BFLOAT, _CODE_BOOL = 0, 1, 2, 4, 6


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p),
                             ("deleter", _Deleter)]

# Python's capsule API through prototypes of our own (not by setting argtypes
# on ctypes.pythonapi's shared function objects, which other code may use).
def _api(name, restype, *argtypes):
    return ctypes.PYFUNCTYPE(restype, *argtypes)((name, ctypes.pythonapi))


_capsule_new = _api("PyCapsule_New", ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p,
                    ctypes.c_void_p)
_capsule_pointer = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.py_object,
                        ctypes.c_char_p)
_capsule_set_name = _api("PyCapsule_SetName", ctypes.c_int, ctypes.py_object,
                         ctypes.c_char_p)
# The destructor gets a borrowed PyObject*: these take it as a plain pointer.
_capsule_is_valid = _api("PyCapsule_IsValid", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)
_capsule_pointer_raw = _api("PyCapsule_GetPointer", ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_char_p)
_CapsuleDestructor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

# Exports alive in a consumer: what their DLManagedTensor refers to.
_exports = {}
_exports_lock = threading.Lock()
_tokens = itertools.count(1)


def _dl_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        code = _CODE_BOOL
    elif dtype.kind in "iuf":
        code = {"i": _CODE_INT, "u": _CODE_UINT, "f": _CODE_FLOAT}[dtype.kind]
    elif dtype.name == "bfloat16":
        code = _CODE_BFLOAT
    else:
        raise UnsupportedError(f"DLPack has no form for dtype {dtype}", 7)
    return _DLDataType(code, dtype.itemsize * 8, 1)


def _np_dtype(t):
    if t.lanes != 1:
        raise UnsupportedError(f"DLPack tensors of {t.lanes}-lane vectors are not imported", 7)
    kinds = {_CODE_INT: "i", _CODE_UINT: "u", _CODE_FLOAT: "f", _CODE_BOOL: "b"}
    if t.code not in kinds or t.bits % 8:
        raise UnsupportedError(f"DLPack dtype code {t.code} with {t.bits} bits is not "
                               "imported", 7)
    return np.dtype("?" if t.code == _CODE_BOOL else f"{kinds[t.code]}{t.bits // 8}")


def _backend_index(device):
    return int(device.spec.split(":")[1])


def dlpack_device(buf):
    """(device type, device id) of a buffer's memory, as DLPack names it."""
    backend = buf.device.info.backend
    if backend == "cuda":
        return (kDLCUDA, _backend_index(buf.device))
    if backend == "hip":
        return (kDLROCM, _backend_index(buf.device))
    if buf.mappable:
        return (kDLCPU, 0)
    raise UnsupportedError(f"{buf.device.spec}: this buffer's memory has no DLPack form "
                           "(Vulkan device memory the host cannot map)", 7)


@_Deleter
def _delete_export(managed):
    token = managed.contents.manager_ctx
    with _exports_lock:
        entry = _exports.pop(token, None)
    if entry and entry.get("mapping") is not None:
        entry["mapping"].unmap()


@_CapsuleDestructor
def _capsule_destructor(capsule):
    # A capsule nobody consumed still owns its tensor.
    if _capsule_is_valid(capsule, b"dltensor"):
        ptr = _capsule_pointer_raw(capsule, b"dltensor")
        managed = ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensor))
        managed.contents.deleter(managed)


def export_dlpack(buf, stream=None):
    """A "dltensor" capsule over the buffer's memory (see the module doc)."""
    if buf.dtype is None:
        raise InvalidArgumentError("an untyped buffer has no DLPack form: make it with "
                                   "a dtype (Device.empty or Device.array)", 1)
    device_type, device_id = dlpack_device(buf)
    mapping = None
    if device_type == kDLCPU:
        mapping = buf.map("rw")
        data = mapping.pointer
    else:
        buf.synchronize()  # the consumer's stream may then use it at once
        data = buf.address
    shape = buf.shape if buf.shape is not None else (len(buf),)
    c_shape = (ctypes.c_int64 * max(1, len(shape)))(*shape)
    managed = _DLManagedTensor()
    managed.dl_tensor = _DLTensor(data, _DLDevice(device_type, device_id), len(shape),
                                  _dl_dtype(buf.dtype), c_shape, None, 0)
    token = next(_tokens)
    managed.manager_ctx = token
    managed.deleter = _delete_export
    with _exports_lock:
        _exports[token] = {"buffer": buf, "mapping": mapping, "shape": c_shape,
                           "managed": managed}
    return _capsule_new(ctypes.addressof(managed), b"dltensor",
                        ctypes.cast(_capsule_destructor, ctypes.c_void_p))


def _target_device(device_type, device_id, device):
    from .device import device as find
    want = {kDLCPU: "cpu", kDLCUDAHost: "cpu", kDLCUDA: "cuda", kDLCUDAManaged: "cuda",
            kDLROCM: "hip"}.get(device_type)
    if want is None:
        raise UnsupportedError(f"DLPack device type {device_type} is not imported", 7)
    spec = want if want == "cpu" else f"{want}:{device_id}"
    if device is None:
        return find(spec)
    if device.info.backend != want or (want != "cpu" and _backend_index(device) != device_id):
        raise InvalidArgumentError(f"the tensor lives on {spec}, not on {device.spec}", 1)
    return device


def _compact(shape, strides, itemsize):
    if strides is None:
        return True
    expect = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != expect:
            return False
        expect *= n
    return True


def from_dlpack(obj, device=None):
    """An xpujit Buffer over the memory of any object with __dlpack__ (a
    NumPy array, a PyTorch or CuPy tensor), without a copy. The buffer has
    the tensor's dtype and shape; the tensor must be C-contiguous."""
    device_type, device_id = obj.__dlpack_device__()
    target = _target_device(device_type, device_id, device)
    if device_type in (kDLCUDA, kDLCUDAManaged, kDLROCM):
        # The producer makes our stream wait for its work (DLPack's stream rule).
        native = ctypes.c_void_p()
        check(lib.xpu_stream_native(target.default_stream.handle, ctypes.byref(native)))
        capsule = obj.__dlpack__(stream=native.value or 0)
    else:
        capsule = obj.__dlpack__()
    ptr = _capsule_pointer(capsule, b"dltensor")
    managed = ctypes.cast(ptr, ctypes.POINTER(_DLManagedTensor))
    t = managed.contents.dl_tensor
    dtype = _np_dtype(t.dtype)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None if not t.strides else tuple(t.strides[i] * dtype.itemsize
                                                for i in range(t.ndim))
    if not _compact(shape, strides, dtype.itemsize):
        raise InvalidArgumentError("only C-contiguous tensors are imported (call "
                                   ".contiguous() or np.ascontiguousarray first)", 1)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    kind = IMPORT_HOST if device_type in (kDLCPU, kDLCUDAHost) else IMPORT_DEVICE
    # Consumed: the capsule no longer frees the tensor; the buffer's release does.
    _capsule_set_name(capsule, b"used_dltensor")
    buf = Buffer._import(target, kind, (t.data or 0) + t.byte_offset, max(nbytes, 1),
                         dtype, shape, lambda: managed.contents.deleter(managed)
                         if managed.contents.deleter else None)
    buf._source = obj  # the tensor stays alive as long as the buffer
    return buf


def cuda_array_interface(buf):
    """The CUDA array interface (version 3) of a CUDA buffer."""
    if buf.device.info.backend != "cuda":
        raise AttributeError("__cuda_array_interface__ exists only for CUDA buffers")
    if buf.dtype is None:
        raise AttributeError("an untyped buffer has no __cuda_array_interface__")
    buf.synchronize()
    shape = buf.shape if buf.shape is not None else (len(buf),)
    return {"version": 3, "shape": shape, "typestr": buf.dtype.str, "descr": buf.dtype.descr,
            "data": (buf.address, False), "strides": None, "stream": None}


def from_cuda_array_interface(obj, device=None):
    """An xpujit Buffer over the memory of an object with
    __cuda_array_interface__ (CuPy, Numba), without a copy."""
    cai = obj.__cuda_array_interface__
    dtype = np.dtype(cai["typestr"])
    shape = tuple(cai["shape"])
    if not _compact(shape, cai.get("strides"), dtype.itemsize):
        raise InvalidArgumentError("only C-contiguous arrays are imported", 1)
    from .device import devices
    target = device or next(d for d in devices() if d.info.backend == "cuda")
    stream = cai.get("stream")
    if stream not in (None, 0):
        # Version 3: the producer's work is on `stream`; wait for it (the
        # array interface offers no event to wait on instead).
        lib_cuda = ctypes.CDLL("libcuda.so.1")
        lib_cuda.cuStreamSynchronize(ctypes.c_void_p(stream))
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    buf = Buffer._import(target, IMPORT_DEVICE, cai["data"][0], max(nbytes, 1), dtype,
                         shape, obj)
    buf._source = obj
    return buf


def as_buffer(obj, device):
    """A Buffer over another library's array on `device`, if it offers one
    of the zero-copy protocols; else None."""
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return from_dlpack(obj, device)
    if hasattr(obj, "__cuda_array_interface__"):
        return from_cuda_array_interface(obj, device)
    return None
