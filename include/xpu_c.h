/* xpu_c.h: the C interface of libxpujit, a JIT compiler and runtime for
 * data-parallel kernels.
 *
 * This header is the whole published API: what is not declared here is not
 * part of it. It is C99 and C++ clean.
 *
 * The path of a kernel: the host hands MLIR text to xpu_module_create(),
 * which parses and verifies it, admits each kernel against its profile,
 * checks what the kernel needs against what the device can do, lowers it
 * for the device, and loads it. xpu_module_kernel() finds a kernel by name;
 * xpu_launch() runs it over a grid of workgroups on a stream.
 *
 * Errors. Every function that can fail returns an xpu_status (XPU_SUCCESS is
 * 0). After a failure, xpu_last_error_message() and xpu_last_error_status()
 * describe it; they are per thread, so concurrent callers never see each
 * other's errors. A call that fails leaves its out-parameters untouched and
 * the process and its data intact.
 *
 * Handles. Every object is an opaque handle. Each create has a matching
 * release; releasing NULL is a no-op. Passing a released handle, a handle of
 * the wrong kind, or NULL where an object is needed returns
 * XPU_ERROR_INVALID_HANDLE (never a crash). Unless a function says
 * otherwise, handles may be used from any thread concurrently.
 */
#ifndef XPU_C_H
#define XPU_C_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define XPU_API __declspec(dllimport)
#elif defined(__GNUC__)
#define XPU_API __attribute__((visibility("default")))
#else
#define XPU_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*===========================================================================*
 * Versions
 *===========================================================================*/

#define XPU_VERSION_MAJOR 0
#define XPU_VERSION_MINOR 1
#define XPU_VERSION_PATCH 0
#define XPU_MAKE_VERSION(major, minor, patch)                                  \
  ((((uint32_t)(major)) << 22) | (((uint32_t)(minor)) << 12) |                 \
   ((uint32_t)(patch)))
#define XPU_VERSION                                                            \
  XPU_MAKE_VERSION(XPU_VERSION_MAJOR, XPU_VERSION_MINOR, XPU_VERSION_PATCH)

/* The version of the library actually loaded (compare with XPU_VERSION to
 * detect a header/library mismatch). */
XPU_API uint32_t xpu_version(void);
/* "0.1.0 (LLVM 22.1.8)": the library version and the LLVM it embeds. */
XPU_API const char *xpu_version_string(void);

/*===========================================================================*
 * Status and errors
 *===========================================================================*/

/* Stable numbers; a number is never reused for another meaning. */
typedef enum xpu_status {
  XPU_SUCCESS = 0,
  XPU_ERROR_INVALID_ARGUMENT = 1, /* a bad value: size, pointer, option */
  XPU_ERROR_INVALID_HANDLE = 2,   /* NULL, released, or wrong kind */
  XPU_ERROR_OUT_OF_MEMORY = 3,    /* host or device memory exhausted */
  XPU_ERROR_PARSE = 4,            /* kernel IR did not parse or verify */
  XPU_ERROR_REFUSED = 5,     /* a profile or capability gate refused it */
  XPU_ERROR_NOT_FOUND = 6,   /* no such kernel, device or entry */
  XPU_ERROR_UNSUPPORTED = 7, /* the backend or build lacks the feature */
  XPU_ERROR_COMPILE = 8,     /* lowering or code generation failed */
  XPU_ERROR_BACKEND = 9,     /* the driver reported an error */
  XPU_ERROR_DEVICE_FAULT = 10,   /* a kernel faulted on the device */
  XPU_ERROR_DEVICE_LOST = 11,    /* the device or its context is gone */
  XPU_ERROR_BUSY = 12,           /* a buffer is borrowed by in-flight work */
  XPU_ERROR_OUT_OF_BOUNDS = 13,  /* a checked access was out of bounds */
  XPU_ERROR_ARGUMENT_MISMATCH = 14, /* launch arguments do not fit kernel */
  XPU_ERROR_INTERNAL = 15,          /* a bug in xpujit: please report it */
  XPU_STATUS_FORCE32 = 0x7FFFFFFF
} xpu_status;

/* "XPU_ERROR_BUSY" etc.; never NULL. */
XPU_API const char *xpu_status_name(xpu_status status);

/* The status and message of the last failed call on this thread.
 * The message is valid until the next failing call on this thread; it is
 * "" when no call has failed. Successful calls do not clear it. */
XPU_API xpu_status xpu_last_error_status(void);
XPU_API const char *xpu_last_error_message(void);

/*===========================================================================*
 * Diagnostics: what the compiler says about a kernel
 *===========================================================================*/

typedef struct xpu_diagnostics_s *xpu_diagnostics;

typedef enum xpu_severity {
  XPU_SEVERITY_ERROR = 0,
  XPU_SEVERITY_WARNING = 1,
  XPU_SEVERITY_NOTE = 2,
  XPU_SEVERITY_REMARK = 3,
  XPU_SEVERITY_FORCE32 = 0x7FFFFFFF
} xpu_severity;

/* One diagnostic. Strings are owned by the list and live as long as it. */
typedef struct xpu_diagnostic {
  xpu_severity severity;
  const char *code;    /* "XPU-GC007", "XPU-PARSE", ...; "" when none */
  const char *message; /* one line, without the location or code */
  const char *file;    /* "" when unknown */
  uint32_t line;       /* 1-based; 0 when unknown */
  uint32_t column;     /* 1-based; 0 when unknown */
} xpu_diagnostic;

XPU_API size_t xpu_diagnostics_count(xpu_diagnostics diags);
/* Copies diagnostic `index` into `*out`. */
XPU_API xpu_status xpu_diagnostics_get(xpu_diagnostics diags, size_t index,
                                       xpu_diagnostic *out);
/* The list as a JSON array of objects with keys severity, code, message,
 * file, line, column. Owned by the list. */
XPU_API const char *xpu_diagnostics_json(xpu_diagnostics diags);
/* The list as text, one "file:line:col: error: CODE: message" per line.
 * Owned by the list. */
XPU_API const char *xpu_diagnostics_text(xpu_diagnostics diags);
XPU_API void xpu_diagnostics_release(xpu_diagnostics diags);

/*===========================================================================*
 * Handles
 *===========================================================================*/

typedef struct xpu_context_s *xpu_context;
typedef struct xpu_device_s *xpu_device;
typedef struct xpu_buffer_s *xpu_buffer;
typedef struct xpu_stream_s *xpu_stream;
typedef struct xpu_event_s *xpu_event;
typedef struct xpu_module_s *xpu_module;
typedef struct xpu_kernel_s *xpu_kernel;

/*===========================================================================*
 * Context
 *===========================================================================*/

/* Options for xpu_context_create. Initialize with XPU_CONTEXT_OPTIONS_INIT
 * so that fields added later keep their defaults. */
typedef struct xpu_context_options {
  uint32_t struct_size; /* sizeof(xpu_context_options) */
  uint32_t flags;       /* reserved, 0 */
} xpu_context_options;
#define XPU_CONTEXT_OPTIONS_INIT {sizeof(xpu_context_options), 0}

/* A context owns the devices it found, and everything made on them.
 * `options` may be NULL. The context enumerates every backend's devices at
 * creation; a backend whose library is missing contributes no devices.
 * Thread-safe. Releasing a context waits for its streams and releases every
 * object made from it; their handles become invalid. */
XPU_API xpu_status xpu_context_create(const xpu_context_options *options,
                                      xpu_context *out);
XPU_API void xpu_context_release(xpu_context context);

/*===========================================================================*
 * Devices
 *===========================================================================*/

typedef enum xpu_backend {
  XPU_BACKEND_CPU = 0,
  XPU_BACKEND_CUDA = 1,
  XPU_BACKEND_HIP = 2,
  XPU_BACKEND_VULKAN = 3,
  XPU_BACKEND_FORCE32 = 0x7FFFFFFF
} xpu_backend;

/* "cpu", "cuda", "hip", "vulkan". */
XPU_API const char *xpu_backend_name(xpu_backend backend);

typedef struct xpu_device_info {
  uint32_t struct_size; /* set by the caller: sizeof(xpu_device_info) */
  xpu_backend backend;
  char name[256];        /* "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)" */
  char vendor[64];       /* "NVIDIA", "AMD", "Mesa", "GenuineIntel" */
  char arch[64];         /* "sm_90", "gfx942", "x86-64 (znver3)", ... */
  char driver[128];      /* driver name and version, "" for the CPU */
  uint8_t uuid[16];      /* all zero when the device reports none */
  uint64_t memory_bytes; /* device memory (host memory for the CPU) */
  uint32_t compute_units;   /* multiprocessors, CUs, or CPU threads */
  uint32_t wave_width;      /* 32, 64, the subgroup size, or 1 (CPU) */
  uint32_t max_workgroup_size; /* invocations per workgroup */
  uint32_t index;           /* position in the context's device list */
} xpu_device_info;

/* Why `backend` contributed no devices to the context ("libcuda.so.1 not
 * found", "not built into this library"), or "" when it found some. Owned
 * by the context. */
XPU_API const char *xpu_context_backend_note(xpu_context context,
                                            xpu_backend backend);

/* Devices are listed in the default order: CUDA, HIP, Vulkan, CPU. The CPU
 * device is always present. Device handles belong to the context. */
XPU_API xpu_status xpu_device_count(xpu_context context, uint32_t *out);
XPU_API xpu_status xpu_device_get(xpu_context context, uint32_t index,
                                  xpu_device *out);
/* The first device in the default order, or the one XPU_DEVICE names
 * ("cuda:0", "cpu", "vulkan:1"), restricted to XPU_BACKEND when set. */
XPU_API xpu_status xpu_device_default(xpu_context context, xpu_device *out);
/* `info->struct_size` must be set; fields beyond it are not written. */
XPU_API xpu_status xpu_device_info_get(xpu_device device,
                                       xpu_device_info *info);
/* Waits for all work on all of the device's streams. */
XPU_API xpu_status xpu_device_synchronize(xpu_device device);

/*===========================================================================*
 * Capabilities: what a device provides, how we know, and the verdict
 *===========================================================================*/

/* Who decides a capability. */
typedef enum xpu_capability_kind {
  XPU_CAPABILITY_BACKEND_STRUCTURAL = 0, /* the target language */
  XPU_CAPABILITY_DEVICE_OPTIONAL = 1,    /* the device (a probed query) */
  XPU_CAPABILITY_HOST_TOOLCHAIN = 2,     /* the host's compilers/libraries */
  XPU_CAPABILITY_TOOLCHAIN_SEMANTIC = 3, /* a measured compiler behaviour */
  XPU_CAPABILITY_POLICY = 4,             /* a decision resting on one */
  XPU_CAPABILITY_FLAG_LEGALITY = 5,      /* a build option x a device bit */
  XPU_CAPABILITY_KIND_FORCE32 = 0x7FFFFFFF
} xpu_capability_kind;

/* Unknown refuses: a fact nobody probed is never assumed available. */
typedef enum xpu_verdict {
  XPU_VERDICT_AVAILABLE = 0,
  XPU_VERDICT_UNAVAILABLE = 1,
  XPU_VERDICT_UNKNOWN = 2,
  XPU_VERDICT_FORCE32 = 0x7FFFFFFF
} xpu_verdict;

/* One capability of a device. Strings are owned by the device. */
typedef struct xpu_capability {
  const char *name;         /* "f64.arith", "shared.memory", ... */
  const char *description;  /* "f64 arithmetic" */
  xpu_capability_kind kind; /* who decided this verdict */
  xpu_verdict verdict;
  const char *reason;   /* why unavailable or unknown; "" when available */
  const char *evidence; /* the query or measurement behind the verdict */
  uint64_t limit;       /* for quantities (bytes, invocations) */
  uint32_t has_limit;   /* 1 when `limit` applies */
} xpu_capability;

/* The device's capability table: every capability a kernel can need, with
 * its verdict on this device. Kernels whose needs are not available (or
 * unknown) are refused by xpu_module_create with XPU-CAP diagnostics. */
XPU_API xpu_status xpu_device_capability_count(xpu_device device, uint32_t *out);
XPU_API xpu_status xpu_device_capability(xpu_device device, uint32_t index,
                                         xpu_capability *out);

/*===========================================================================*
 * Streams and events
 *===========================================================================*/

/* A stream runs its work in order. Work on different streams may overlap;
 * events order it. Each device has a default stream, used when a function
 * takes a NULL stream. Thread-safe. Releasing a stream waits for its work. */
XPU_API xpu_status xpu_stream_create(xpu_device device, xpu_stream *out);
XPU_API void xpu_stream_release(xpu_stream stream);
/* Blocks until everything enqueued on the stream has finished. This is the
 * point where the stream's buffer borrows end, and where errors of its
 * finished work are reported (XPU_ERROR_OUT_OF_BOUNDS,
 * XPU_ERROR_DEVICE_FAULT). */
XPU_API xpu_status xpu_stream_synchronize(xpu_stream stream);
/* The device's default stream. Owned by the device; do not release it. */
XPU_API xpu_status xpu_stream_default(xpu_device device, xpu_stream *out);

/* An event marks a point in a stream. Thread-safe. */
XPU_API xpu_status xpu_event_create(xpu_device device, xpu_event *out);
XPU_API void xpu_event_release(xpu_event event);
/* Marks the current end of `stream`; the event completes when the work
 * enqueued before it has. */
XPU_API xpu_status xpu_event_record(xpu_event event, xpu_stream stream);
/* Work enqueued on `stream` after this call starts only once `event` has
 * completed. The event must have been recorded. */
XPU_API xpu_status xpu_stream_wait_event(xpu_stream stream, xpu_event event);
/* Blocks until the event completes. */
XPU_API xpu_status xpu_event_synchronize(xpu_event event);
/* XPU_SUCCESS when complete, XPU_ERROR_BUSY when not yet. */
XPU_API xpu_status xpu_event_query(xpu_event event);
/* Milliseconds between two completed events of one device, as the device
 * measures them (GPU timestamps on CUDA). */
XPU_API xpu_status xpu_event_elapsed(xpu_event start, xpu_event end,
                                     double *milliseconds);

/*===========================================================================*
 * Buffers
 *===========================================================================*/

/* A buffer of `bytes` bytes of device memory (contents undefined).
 * Thread-safe. A buffer used by a launch is borrowed by it until the
 * launch's stream is synchronized (deferred borrow until sync): while it is,
 * xpu_buffer_free() and copies that would conflict with the launch fail with
 * XPU_ERROR_BUSY and change nothing. */
XPU_API xpu_status xpu_buffer_create(xpu_device device, size_t bytes,
                                     xpu_buffer *out);
/* Frees the buffer; XPU_ERROR_BUSY (and nothing freed) while borrowed. */
XPU_API xpu_status xpu_buffer_free(xpu_buffer buffer);
XPU_API xpu_status xpu_buffer_size(xpu_buffer buffer, size_t *out);

/* Blocking copies between host memory and the buffer at `offset`. */
XPU_API xpu_status xpu_buffer_upload(xpu_buffer buffer, size_t offset,
                                     const void *src, size_t bytes);
XPU_API xpu_status xpu_buffer_download(xpu_buffer buffer, size_t offset,
                                       void *dst, size_t bytes);
/* Copies enqueued on `stream` (NULL: the device's default stream). The host
 * memory must stay valid and unchanged (upload) or untouched (download)
 * until the stream is synchronized. */
XPU_API xpu_status xpu_buffer_upload_async(xpu_buffer buffer, size_t offset,
                                           const void *src, size_t bytes,
                                           xpu_stream stream);
XPU_API xpu_status xpu_buffer_download_async(xpu_buffer buffer, size_t offset,
                                             void *dst, size_t bytes,
                                             xpu_stream stream);

/*===========================================================================*
 * Modules and kernels
 *===========================================================================*/

/* Options for xpu_module_create. Initialize with XPU_MODULE_OPTIONS_INIT. */
/* Module flags. */
enum {
  /* Generate no run-time bounds checks in portable kernels. Unsafe: an
   * out-of-bounds access is then undefined; on a GPU it may fault the
   * device, which loses the context (XPU_ERROR_DEVICE_FAULT, then
   * XPU_ERROR_DEVICE_LOST). Deterministic kernels never need checks. */
  XPU_MODULE_NO_RUNTIME_CHECKS = 1u << 0
};

typedef struct xpu_module_options {
  uint32_t struct_size;    /* sizeof(xpu_module_options) */
  uint32_t flags;          /* XPU_MODULE_* bits */
  const char *source_name; /* file name used in diagnostics; NULL: "<input>" */
  /* xpu_module_check only: also report, as remarks, the static capability
   * verdict of each need on this target ("cpu", "nvptx", "amdgcn",
   * "spirv"), refusing what it cannot express. NULL: none. */
  const char *target;
  /* The wave (warp, subgroup) width to generate code for, on targets that
   * offer more than one: AMD gfx10 and later run 32 (their default) or 64.
   * 0: the target's or device's own. xpu_module_create accepts only the
   * device's width; xpu_compile_for_target any the chip has. */
  uint32_t wave_width;
} xpu_module_options;
#define XPU_MODULE_OPTIONS_INIT {sizeof(xpu_module_options), 0, NULL, NULL, 0}

/* Compiles MLIR text for `device` and loads it. `text` need not be
 * NUL-terminated. `device` NULL means the context's default device (see
 * xpu_device_default); kernels of the deterministic-v1 profile refuse that
 * and must be given their device explicitly. `options` may be NULL. When
 * `diagnostics` is not NULL it receives the compiler's diagnostics (also on
 * success, for warnings), which the caller releases; nothing is printed.
 * Compiled code is cached (see "Kernel cache" below): the same kernel again
 * is not recompiled, and its diagnostics are those its compilation gave.
 * Thread-safe; threads asking for the same kernel at once compile it once. */
XPU_API xpu_status xpu_module_create(xpu_context context, xpu_device device,
                                     const char *text,
                                     size_t length,
                                     const xpu_module_options *options,
                                     xpu_module *out,
                                     xpu_diagnostics *diagnostics);
/* Parses, verifies and admits MLIR text without generating code: the
 * static half of xpu_module_create. XPU_SUCCESS when every kernel is
 * admitted; the diagnostics say why not. */
XPU_API xpu_status xpu_module_check(xpu_context context, const char *text,
                                    size_t length,
                                    const xpu_module_options *options,
                                    xpu_diagnostics *diagnostics);

/* Compiles MLIR text for a target without a device, as xpu_module_create
 * would for a device of that target, and returns the generated code:
 *
 *   target    chip                      code
 *   "amdgcn"  "gfx90a", "gfx942", ...   AMDGPU code object v5 (HSACO: a
 *                                       shared ELF with one kernel
 *                                       descriptor and metadata per kernel)
 *   "nvptx"   "sm_90", ...              a cubin when ptxas is found (see
 *                                       XPU_PTXAS), else PTX text ending
 *                                       in NUL
 *   "cpu"     NULL or "host"            an ELF relocatable object for this
 *                                       host (the CPU backend's ABI)
 *
 * The front end and the target's static, host-toolchain and policy
 * capability gates run as for a device; what a device would decide (its
 * limits, optional features) is left to the device that loads the code.
 * `options` may be NULL (source_name, flags and wave_width apply). On
 * success `*code` (free it with xpu_compiled_code_free) holds `*size`
 * bytes. `diagnostics` as for xpu_module_create. Nothing is cached.
 * Thread-safe. XPU_ERROR_UNSUPPORTED for a target without a code
 * generator in this build ("spirv"). */
XPU_API xpu_status xpu_compile_for_target(xpu_context context, const char *text,
                                          size_t length,
                                          const xpu_module_options *options,
                                          const char *target, const char *chip,
                                          void **code, size_t *size,
                                          xpu_diagnostics *diagnostics);
/* Frees code from xpu_compile_for_target; NULL is a no-op. */
XPU_API void xpu_compiled_code_free(void *code);

/* Releases the module and its kernels. Launches already enqueued finish. */
XPU_API void xpu_module_release(xpu_module module);
/* The generated code as the device loads it ("elf-object", "cubin", "ptx",
 * "hsaco", "spirv"), owned by the module. */
XPU_API xpu_status xpu_module_binary(xpu_module module, const void **data,
                                     size_t *size, const char **format);
/* How the module was built: the toolchain that produced its code and the
 * time each stage took ("front end 1.4 ms; gates 0.1 ms; lowering 2.0 ms;
 * llvm 6.1 ms; ptxas 21.3 ms"), or that it came from the kernel cache.
 * Owned by the module. */
XPU_API const char *xpu_module_build_info(xpu_module module);
XPU_API xpu_status xpu_module_kernel_count(xpu_module module, uint32_t *out);
/* Kernel handles belong to the module. */
XPU_API xpu_status xpu_module_kernel_at(xpu_module module, uint32_t index,
                                        xpu_kernel *out);
XPU_API xpu_status xpu_module_kernel(xpu_module module, const char *name,
                                     xpu_kernel *out);

/* Scalar element types. */
typedef enum xpu_type {
  XPU_TYPE_BOOL = 1,
  XPU_TYPE_I8 = 2,
  XPU_TYPE_I16 = 3,
  XPU_TYPE_I32 = 4,
  XPU_TYPE_I64 = 5,
  XPU_TYPE_F16 = 6,
  XPU_TYPE_BF16 = 7,
  XPU_TYPE_F32 = 8,
  XPU_TYPE_F64 = 9,
  XPU_TYPE_FORCE32 = 0x7FFFFFFF
} xpu_type;

/* "i32", "f32", ... */
XPU_API const char *xpu_type_name(xpu_type type);
/* Bytes one element occupies (bool: 1). */
XPU_API size_t xpu_type_size(xpu_type type);

typedef enum xpu_param_kind {
  XPU_PARAM_SCALAR = 0,
  XPU_PARAM_BUFFER = 1,
  XPU_PARAM_KIND_FORCE32 = 0x7FFFFFFF
} xpu_param_kind;

typedef enum xpu_access {
  XPU_ACCESS_READ_WRITE = 0,
  XPU_ACCESS_READ_ONLY = 1,
  XPU_ACCESS_FORCE32 = 0x7FFFFFFF
} xpu_access;

typedef struct xpu_param_info {
  const char *name;    /* the parameter's name in the source, or "argN" */
  xpu_param_kind kind;
  xpu_type type;       /* the scalar, or the buffer's element type */
  uint32_t lanes;      /* vector lanes of a scalar parameter, else 1 */
  xpu_access access;   /* buffers only */
} xpu_param_info;

/* The kernel's name; owned by the module. */
XPU_API const char *xpu_kernel_name(xpu_kernel kernel);
XPU_API xpu_status xpu_kernel_param_count(xpu_kernel kernel, uint32_t *out);
/* Strings in `*out` are owned by the module. */
XPU_API xpu_status xpu_kernel_param(xpu_kernel kernel, uint32_t index,
                                    xpu_param_info *out);

/*===========================================================================*
 * Launch
 *===========================================================================*/

/* One launch argument: a buffer, or a scalar tagged with its type. The tag
 * must match the parameter exactly (an i32 parameter takes XPU_TYPE_I32,
 * with a signed or unsigned value of that width). Vector parameters take
 * `lanes` values in `v`. */
typedef struct xpu_arg {
  xpu_param_kind kind;
  xpu_type type;  /* scalars */
  uint32_t lanes; /* scalars: 1, or the vector width (0 is read as 1) */
  union {
    xpu_buffer buffer;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint16_t f16_bits; /* f16 and bf16 as raw bits */
    float f32;
    double f64;
    uint8_t b;
    uint8_t bytes[32]; /* vector values, lanes packed */
  } v;
} xpu_arg;

/* Convenience constructors for xpu_arg. */
XPU_API xpu_arg xpu_arg_buffer(xpu_buffer buffer);
XPU_API xpu_arg xpu_arg_i32(int32_t value);
XPU_API xpu_arg xpu_arg_u32(uint32_t value);
XPU_API xpu_arg xpu_arg_i64(int64_t value);
XPU_API xpu_arg xpu_arg_f32(float value);
XPU_API xpu_arg xpu_arg_f64(double value);

/* Runs `kernel` over grid[0]*grid[1]*grid[2] workgroups of
 * block[0]*block[1]*block[2] invocations each, on `stream` (NULL: the
 * kernel device's default stream). `args` must match the kernel's
 * parameters in number, kind and type (XPU_ERROR_ARGUMENT_MISMATCH names
 * the first that does not). Every extent must be at least 1. The launch is
 * asynchronous; errors found while it runs are reported by the next
 * synchronization of its stream. */
XPU_API xpu_status xpu_launch(xpu_kernel kernel, xpu_stream stream,
                              const uint32_t grid[3], const uint32_t block[3],
                              const xpu_arg *args, size_t arg_count);

/*===========================================================================*
 * Kernel cache
 *
 * xpu_module_create caches what it compiles, keyed by a hash of the admitted
 * kernel and of everything that changes the generated code (library build,
 * pipeline and LLVM versions, target, toolchain, device model and driver).
 * Two levels: in the process, and on disk in one directory shared by every
 * process of the user. The disk location is XPU_CACHE_DIR, else
 * $XDG_CACHE_HOME/xpujit, else ~/.cache/xpujit, never under /tmp;
 * XPU_CACHE=on|off|readonly and XPU_CACHE_MAX_BYTES control it (see the
 * README). When the location is unusable the cache works in memory only and
 * says so once through the log. The functions below read the same
 * environment variables as the rest of the library (a bad value is
 * XPU_ERROR_INVALID_ARGUMENT) and are thread-safe.
 *===========================================================================*/

typedef enum xpu_cache_mode {
  XPU_CACHE_MODE_OFF = 0,      /* XPU_CACHE=off: nothing is cached */
  XPU_CACHE_MODE_MEMORY = 1,   /* in the process only: no usable location */
  XPU_CACHE_MODE_READONLY = 2, /* XPU_CACHE=readonly: disk read, not written */
  XPU_CACHE_MODE_ON = 3,       /* memory and disk */
  XPU_CACHE_MODE_FORCE32 = 0x7FFFFFFF
} xpu_cache_mode;

/* The cache's state, and what it did for this process. */
typedef struct xpu_cache_stats {
  uint32_t struct_size; /* set by the caller: sizeof(xpu_cache_stats) */
  xpu_cache_mode mode;  /* the mode in effect */
  const char *location; /* the directory; "" when there is none */
  const char *note;     /* why the mode is not what was asked, or "" */
  uint64_t max_bytes;   /* XPU_CACHE_MAX_BYTES */
  uint64_t entries;     /* entry files on disk now */
  uint64_t bytes;       /* their total size */
  /* This process: xpu_module_create calls served from memory, from disk,
   * and compiled; entries written, damaged entries found (and removed),
   * entries evicted to stay under max_bytes. */
  uint64_t memory_hits, disk_hits, compiles;
  uint64_t stores, bad_entries, evictions;
} xpu_cache_stats;

/* Fills `out` up to out->struct_size. Strings are owned by the library and
 * live until the process exits. Counts the entries on disk (a directory
 * scan). */
XPU_API xpu_status xpu_cache_stats_get(xpu_cache_stats *out);

/* One entry file on disk, as xpu_cache_list and xpu_cache_verify report it.
 * Strings are valid only during the callback. */
typedef struct xpu_cache_entry {
  uint32_t struct_size;    /* sizeof(xpu_cache_entry) of the library */
  const char *path;        /* the file */
  const char *key;         /* 32 hex digits */
  const char *kind;        /* "kernel" (compiled code) or "source" (a
                              source text's link to a kernel entry) */
  const char *description; /* the kernels it holds, or "" */
  const char *problem;     /* why it is bad, or "" when it is good */
  uint64_t bytes;
  int64_t last_used;       /* seconds since the epoch */
} xpu_cache_entry;

typedef void (*xpu_cache_entry_fn)(const xpu_cache_entry *entry, void *user);

/* Calls `fn` for every entry on disk, in no particular order, with what
 * each holds and whether it is damaged (nothing is removed). */
XPU_API xpu_status xpu_cache_list(xpu_cache_entry_fn fn, void *user);
/* Checks every entry (header, checksum, payload) and removes the bad ones,
 * calling `fn` (may be NULL) for each of those. `checked` and `removed`
 * (either may be NULL) receive the counts. With XPU_CACHE=readonly bad
 * entries are reported, not removed. */
XPU_API xpu_status xpu_cache_verify(xpu_cache_entry_fn fn, void *user,
                                    uint64_t *checked, uint64_t *removed);
/* Removes every entry (and temporary files left by killed writers) from
 * the disk cache; `removed` (may be NULL) receives the number of files.
 * XPU_ERROR_UNSUPPORTED with XPU_CACHE=readonly or off. Modules already
 * made and the in-process level are not affected. */
XPU_API xpu_status xpu_cache_clear(uint64_t *removed);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XPU_C_H */
