#!/usr/bin/env python3
"""Lists the device extensions of each Vulkan physical device the loader
finds (through ctypes: no Vulkan SDK or vulkaninfo needed, as on the GPU
machine), printing the count and the ones that matter to xpujit's tile
tiers (cooperative matrices, workgroup memory layouts, integer dot
products, NVIDIA's). Exits non-zero when there is no device.

  VK_DRIVER_FILES=... python3 scripts/vulkan-extensions.py
"""
import ctypes, sys
vk = ctypes.CDLL("libvulkan.so.1")
class AppInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("pApplicationName", ctypes.c_char_p),
                ("applicationVersion", ctypes.c_uint32), ("pEngineName", ctypes.c_char_p),
                ("engineVersion", ctypes.c_uint32), ("apiVersion", ctypes.c_uint32)]
class InstInfo(ctypes.Structure):
    _fields_ = [("sType", ctypes.c_int), ("pNext", ctypes.c_void_p), ("flags", ctypes.c_uint32),
                ("pApplicationInfo", ctypes.POINTER(AppInfo)), ("enabledLayerCount", ctypes.c_uint32),
                ("ppEnabledLayerNames", ctypes.c_void_p), ("enabledExtensionCount", ctypes.c_uint32),
                ("ppEnabledExtensionNames", ctypes.c_void_p)]
class ExtProp(ctypes.Structure):
    _fields_ = [("extensionName", ctypes.c_char * 256), ("specVersion", ctypes.c_uint32)]
app = AppInfo(0, None, b"x", 0, b"x", 0, (1 << 22) | (3 << 12))
info = InstInfo(1, None, 0, ctypes.pointer(app), 0, None, 0, None)
inst = ctypes.c_void_p()
r = vk.vkCreateInstance(ctypes.byref(info), None, ctypes.byref(inst))
if r != 0:
    sys.exit("vkCreateInstance failed: %d" % r)
n = ctypes.c_uint32()
vk.vkEnumeratePhysicalDevices(inst, ctypes.byref(n), None)
devs = (ctypes.c_void_p * n.value)()
vk.vkEnumeratePhysicalDevices(inst, ctypes.byref(n), devs)
for d in devs:
    m = ctypes.c_uint32()
    vk.vkEnumerateDeviceExtensionProperties(ctypes.c_void_p(d), None, ctypes.byref(m), None)
    props = (ExtProp * m.value)()
    vk.vkEnumerateDeviceExtensionProperties(ctypes.c_void_p(d), None, ctypes.byref(m), props)
    names = sorted(p.extensionName.decode() for p in props)
    print(len(names), "extensions")
    for x in names:
        if "cooperative" in x or "workgroup_memory" in x or "shader_integer_dot" in x or "NV_" in x:
            print(" ", x)
if not n.value:
    sys.exit("no Vulkan device")
