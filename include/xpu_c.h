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
  XPU_ERROR_DEADLINE = 16,   /* a submission's window closed before it could start */
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

/* Devices are listed in the default order: CUDA, HIP, Vulkan, CPU, then
 * Vulkan devices that run on the host CPU (software renderers such as
 * lavapipe: slower than the CPU backend, and with a measured loop limit).
 * The CPU device is always present. Device handles belong to the context. */
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
 * completed. The event must have been recorded. It may be an event of
 * another device of the context: CUDA streams wait for CUDA events of any
 * device on the device; otherwise the calling thread waits for the event
 * here, before returning. */
XPU_API xpu_status xpu_stream_wait_event(xpu_stream stream, xpu_event event);
/* Blocks until the event completes. */
XPU_API xpu_status xpu_event_synchronize(xpu_event event);
/* XPU_SUCCESS when complete, XPU_ERROR_BUSY when not yet. */
XPU_API xpu_status xpu_event_query(xpu_event event);
/* Milliseconds between two completed events of one device, as the device
 * measures them (GPU timestamps on CUDA); 0 for an event and itself.
 * XPU_ERROR_BUSY while either has not completed. */
XPU_API xpu_status xpu_event_elapsed(xpu_event start, xpu_event end,
                                     double *milliseconds);

/*===========================================================================*
 * Buffers
 *===========================================================================*/

/* A buffer of `bytes` bytes of device memory (contents undefined).
 * Thread-safe. A buffer used by a launch is borrowed by it until the
 * launch's stream is synchronized (deferred borrow until sync): while it is,
 * xpu_buffer_free() and asynchronous copies on other streams that would
 * conflict with the launch fail with XPU_ERROR_BUSY and change nothing;
 * blocking copies and xpu_buffer_map wait for it. */
XPU_API xpu_status xpu_buffer_create(xpu_device device, size_t bytes,
                                     xpu_buffer *out);
/* Frees the buffer; XPU_ERROR_BUSY (and nothing freed) while borrowed. */
XPU_API xpu_status xpu_buffer_free(xpu_buffer buffer);
XPU_API xpu_status xpu_buffer_size(xpu_buffer buffer, size_t *out);

/* Blocking copies between host memory and the buffer at `offset`. Like
 * CUDA's blocking copies, they first wait for enqueued work that conflicts
 * (a download for work that writes the buffer, an upload for all work that
 * uses it), synchronizing those streams and returning the first error of
 * their work. */
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
/* Parses and verifies MLIR text and prints it back in the library's own
 * form: the form xpu_builder_print() uses, with parameters under their
 * source names and every other value numbered. Two texts of the same IR
 * format to the same string, so a host can compare a built kernel with its
 * text. `*out` is valid until the next xpu_module_format call on this
 * thread. `options` (source_name only) and `diagnostics` are as for
 * xpu_module_check; nothing is admitted or compiled. */
XPU_API xpu_status xpu_module_format(xpu_context context, const char *text,
                                     size_t length,
                                     const xpu_module_options *options,
                                     const char **out,
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
 * Thread-safe. "spirv" (no chip) is a capable Vulkan 1.3 device: SPIR-V
 * 1.6, 64-bit index, every integer width; a real device compiles for its
 * own features. "spirv" with chip "cooperative-matrix" is the same device
 * with VK_KHR_cooperative_matrix as the cooperative-matrix tile tier needs
 * it (16x16x16 f16 x f16 + f32 at subgroup scope, subgroups of 32); chip
 * "cooperative-matrix-workgroup" adds VK_NV_cooperative_matrix2's
 * workgroup-scope matrices as NVIDIA's driver offers them. */
XPU_API xpu_status xpu_compile_for_target(xpu_context context, const char *text,
                                          size_t length,
                                          const xpu_module_options *options,
                                          const char *target, const char *chip,
                                          void **code, size_t *size,
                                          xpu_diagnostics *diagnostics);
/* Frees code from xpu_compile_for_target; NULL is a no-op. */
XPU_API void xpu_compiled_code_free(void *code);

/* Releases the module and its kernels. Launches already enqueued finish
 * (they hold the module: see "Lifetimes, handles and checked arguments"). */
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
  XPU_PARAM_STRUCT = 2, /* a plain struct by value (see "Struct arguments") */
  XPU_PARAM_VIEW = 3, /* a memref parameter: see "Memref views" below */
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
  xpu_type type;       /* the scalar, or the buffer's element type; 0 for
                          a struct (xpu_kernel_struct_layout describes it) */
  uint32_t lanes;      /* vector lanes of a scalar parameter, else 1 */
  xpu_access access;   /* buffers only */
} xpu_param_info;

/* The kernel's name; owned by the module. The parameters listed below are
 * the arguments a launch passes: a struct parameter is one. */
XPU_API const char *xpu_kernel_name(xpu_kernel kernel);
XPU_API xpu_status xpu_kernel_param_count(xpu_kernel kernel, uint32_t *out);
/* Strings in `*out` are owned by the module. */
XPU_API xpu_status xpu_kernel_param(xpu_kernel kernel, uint32_t index,
                                    xpu_param_info *out);

/*===========================================================================*
 * Several devices
 *
 * One context holds every device it found; buffers live on one device each,
 * and modules are compiled once per distinct target (the kernel cache's key
 * names the target) and loaded on each device that uses them.
 *===========================================================================*/

/* Copies `bytes` from `src` at `src_offset` to `dst` at `dst_offset`, in the
 * order of `stream` (a stream of either buffer's device; NULL: the default
 * stream of `dst`'s device). Within one device it is a device copy; between
 * two CUDA devices a peer copy (cuMemcpyPeerAsync: direct where peer access
 * exists, staged by the driver otherwise); between other devices it is
 * staged through host memory and done before the call returns (waiting for
 * the work on either buffer it conflicts with). Both buffers are borrowed by
 * the stream as for a launch; ranges must fit and, within one buffer, not
 * overlap. Thread-safe. */
XPU_API xpu_status xpu_buffer_copy(xpu_buffer dst, size_t dst_offset, xpu_buffer src,
                                   size_t src_offset, size_t bytes, xpu_stream stream);

/*===========================================================================*
 * Host access and external memory (zero-copy)
 *
 * Memory the host can reach directly is mapped instead of copied: the CPU
 * backend's buffers, Vulkan memory the host sees (lavapipe, integrated GPUs),
 * and on CUDA pinned or managed memory when asked for at creation. Memory
 * xpujit did not allocate (a NumPy array, a PyTorch or CuPy tensor, an NCCL
 * buffer) is imported without a copy and stays the caller's.
 *===========================================================================*/

typedef enum xpu_memory_kind {
  XPU_MEMORY_DEVICE = 0,       /* device memory (the default of xpu_buffer_create) */
  XPU_MEMORY_HOST_VISIBLE = 1, /* memory xpu_buffer_map can map: on CUDA pinned
                                  host memory mapped into the device, on Vulkan a
                                  host-visible coherent memory type */
  XPU_MEMORY_MANAGED = 2,      /* CUDA managed memory, migrated on demand */
  XPU_MEMORY_KIND_FORCE32 = 0x7FFFFFFF
} xpu_memory_kind;

typedef struct xpu_buffer_options {
  uint32_t struct_size; /* sizeof(xpu_buffer_options) */
  xpu_memory_kind memory;
} xpu_buffer_options;
#define XPU_BUFFER_OPTIONS_INIT {sizeof(xpu_buffer_options), XPU_MEMORY_DEVICE}

/* xpu_buffer_create with options (NULL: as xpu_buffer_create). A kind the
 * device does not have is XPU_ERROR_UNSUPPORTED, saying why. */
XPU_API xpu_status xpu_buffer_create_ex(xpu_device device, size_t bytes,
                                        const xpu_buffer_options *options,
                                        xpu_buffer *out);

typedef enum xpu_map_access {
  XPU_MAP_READ = 1,
  XPU_MAP_WRITE = 2,
  XPU_MAP_READ_WRITE = 3,
  XPU_MAP_ACCESS_FORCE32 = 0x7FFFFFFF
} xpu_map_access;

/* 1 in `*out` when xpu_buffer_map can map the buffer, else 0. */
XPU_API xpu_status xpu_buffer_is_mappable(xpu_buffer buffer, int *out);
/* The host address of the buffer's first byte, valid until the matching
 * xpu_buffer_unmap. Like a blocking copy, it first waits for enqueued work
 * that conflicts with `access` (a READ waits for work that writes the buffer,
 * a WRITE for all work that uses it), synchronizing those streams and
 * returning the first error of their work. While the buffer is mapped, work
 * that would use it (launches, asynchronous copies) and freeing it fail
 * with XPU_ERROR_BUSY; blocking copies still work. Maps nest: each map needs
 * its unmap. XPU_ERROR_UNSUPPORTED when the memory is not host-visible (CUDA
 * device memory; Vulkan memory with XPU_VULKAN_STAGING=1). Thread-safe. */
XPU_API xpu_status xpu_buffer_map(xpu_buffer buffer, xpu_map_access access,
                                  void **out);
XPU_API xpu_status xpu_buffer_unmap(xpu_buffer buffer);

typedef enum xpu_import_kind {
  XPU_IMPORT_HOST_POINTER = 1,   /* host memory: the CPU backend */
  XPU_IMPORT_DEVICE_POINTER = 2, /* a device address: CUDA (memory of the same
                                    device, or managed), and the CPU backend,
                                    whose device addresses are host addresses */
  XPU_IMPORT_KIND_FORCE32 = 0x7FFFFFFF
} xpu_import_kind;

/* Called once xpujit no longer uses imported memory: after xpu_buffer_free,
 * or when the context is released (enqueued work has finished by then). */
typedef void (*xpu_release_fn)(void *user_data);

typedef struct xpu_import_desc {
  uint32_t struct_size; /* sizeof(xpu_import_desc) */
  xpu_import_kind kind;
  uint64_t address;  /* the memory's first byte: a host or device address */
  size_t bytes;      /* at least 1 */
  xpu_release_fn release; /* may be NULL */
  void *release_data;
} xpu_import_desc;
#define XPU_IMPORT_DESC_INIT {sizeof(xpu_import_desc), XPU_IMPORT_HOST_POINTER, 0, 0, NULL, NULL}

/* A buffer over memory the caller owns, without a copy. The memory must
 * stay valid until the release callback runs; the caller must not free it
 * before. xpujit never frees it. Borrows work as for any buffer: the caller
 * must not touch it while enqueued work uses it (until the stream is
 * synchronized). Host memory must be aligned to 16 bytes (what malloc
 * gives); CUDA addresses are checked with the driver to belong to the
 * device. Vulkan imports nothing (XPU_ERROR_UNSUPPORTED). Thread-safe. */
XPU_API xpu_status xpu_buffer_import(xpu_device device, const xpu_import_desc *desc,
                                     xpu_buffer *out);

/* Waits for every enqueued use of the buffer (synchronizing the streams of
 * that work, returning their first error): after it, another library may
 * read or write the buffer's memory. */
XPU_API xpu_status xpu_buffer_synchronize(xpu_buffer buffer);

/* The driver's stream behind `stream` (a CUstream on CUDA, a hipStream_t on
 * HIP), e.g. for the DLPack stream protocol. XPU_ERROR_UNSUPPORTED on
 * backends without one (CPU, Vulkan). The handle stays xpujit's. */
XPU_API xpu_status xpu_stream_native(xpu_stream stream, void **out);

/* The address kernels receive for the buffer: a device pointer on CUDA and
 * HIP (for NCCL, CUDA-aware MPI, __cuda_array_interface__), the host
 * address on the CPU. XPU_ERROR_UNSUPPORTED on Vulkan, whose buffers have
 * no address in xpujit's binding model. */
XPU_API xpu_status xpu_buffer_address(xpu_buffer buffer, uint64_t *out);

/*===========================================================================*
 * Launch
 *===========================================================================*/

struct xpu_view; /* a memref parameter's argument, defined below */

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
    const struct xpu_view *view; /* XPU_PARAM_VIEW: see xpu_arg_view */
    /* Struct arguments (XPU_PARAM_STRUCT): the host's struct, read during
     * xpu_launch only. */
    struct {
      const void *data;
      size_t size;                    /* sizeof the struct */
      const struct xpu_struct_field *fields; /* its layout, or NULL */
      uint32_t field_count;
    } structure;
  } v;
} xpu_arg;

/*---------------------------------------------------------------------------*
 * Struct arguments (spec 17.4)
 *
 * A kernel parameter of type !xpu.struct<"name", field: type, ...> takes a
 * plain C struct with the same fields in the same order, laid out by C's
 * rules (each scalar at an offset its size divides, a vector field as an
 * array of its lanes: vector<3xf32> is float[3]; bool is one byte). The
 * launch copies the struct's bytes (it need not outlive xpu_launch); it is
 * read-only in the kernel. The size must equal the kernel's struct, and
 * when the host describes its layout (`fields`, `field_count`), every
 * field's name, type, lanes and offset must match in order; otherwise
 * XPU_ERROR_ARGUMENT_MISMATCH names the first field that differs.
 *---------------------------------------------------------------------------*/

/* One field of a struct: as the kernel declares it (xpu_kernel_struct_field)
 * or as the host lays it out (xpu_arg.v.structure.fields). */
typedef struct xpu_struct_field {
  const char *name;
  xpu_type type;   /* the scalar, or a vector's lane type */
  uint32_t lanes;  /* 1 for a scalar */
  uint32_t offset; /* bytes from the struct's start */
} xpu_struct_field;

/* An XPU_PARAM_STRUCT argument of `size` bytes at `data`, its layout not
 * described (only the size is checked). */
XPU_API xpu_arg xpu_arg_struct(const void *data, size_t size);

/* For a struct parameter `param` (xpu_kernel_param says XPU_PARAM_STRUCT):
 * its C size and number of fields, and field `field` of it. Strings are
 * owned by the module. XPU_ERROR_INVALID_ARGUMENT when `param` is not a
 * struct, XPU_ERROR_NOT_FOUND when an index is out of range. */
XPU_API xpu_status xpu_kernel_struct_layout(xpu_kernel kernel, uint32_t param,
                                            size_t *bytes, uint32_t *field_count);
XPU_API xpu_status xpu_kernel_struct_field(xpu_kernel kernel, uint32_t param,
                                           uint32_t field, xpu_struct_field *out);

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
 * Lifetimes, handles and checked arguments
 *
 * Queued work keeps what it uses alive. A launch holds its kernel (and with
 * it the module and the loaded code) and its buffers; an event record or a
 * stream wait holds the event; an asynchronous copy holds its buffer. They
 * are held until the stream the work was enqueued on is synchronized
 * (xpu_stream_synchronize, xpu_device_synchronize, or the release of the
 * stream or of the context, which synchronize). So xpu_event_release,
 * xpu_module_release and xpu_stream_release may be called while work that
 * uses the object is still queued: the handle is invalid at once, the
 * object goes when the work is known to be done. (Buffers cannot be freed
 * while borrowed at all: xpu_buffer_free is XPU_ERROR_BUSY until then.) A
 * stream that is never synchronized keeps what its work used.
 *
 * Handle values are never reused within a process: once released, a
 * handle is XPU_ERROR_INVALID_HANDLE for good, however many objects are
 * made and released after it (every handle value is issued once; a
 * process can make 2^56 handles in all). At most 2^24 - 1 handles are live
 * at once; beyond that, creating an object is XPU_ERROR_OUT_OF_MEMORY.
 *
 * Releasing a context releases its devices, their default streams and
 * worker threads, and the driver objects behind them: a program that
 * creates and releases contexts in a loop runs in constant memory.
 *
 * Arguments are checked, not trusted: sizes and extents are checked before
 * any arithmetic on them (a buffer larger than the device's memory is
 * XPU_ERROR_OUT_OF_MEMORY; a block extent above the device's workgroup
 * limit is XPU_ERROR_INVALID_ARGUMENT before extents are multiplied); an
 * enum argument that is not one of its enumerators (a negative value
 * included) is XPU_ERROR_INVALID_ARGUMENT (XPU_ERROR_ARGUMENT_MISMATCH in
 * an xpu_arg; "unknown", "no such backend" or 0 from the functions that
 * return a name or a size); an xpu_arg value wider than its 32-byte union
 * (a vector parameter such as vector<8xf64>) is
 * XPU_ERROR_ARGUMENT_MISMATCH at launch. The environment variables the library reads (XPU_BACKEND,
 * XPU_DEVICE, XPU_LOG, XPU_CACHE, XPU_CACHE_DIR, XPU_CACHE_MAX_BYTES,
 * XPU_CACHE_STATS, XPU_CALIBRATION_STATS, XPU_VULKAN_STAGING,
 * XPU_VULKAN_DISABLE_FEATURES) are parsed once; a bad value makes
 * xpu_context_create (and, but for the Vulkan feature names, the cache
 * functions) fail with XPU_ERROR_INVALID_ARGUMENT naming the variable and
 * what it accepts. XPU_PTXAS naming no runnable ptxas fails NVIDIA
 * compilations (XPU_ERROR_COMPILE) instead of using another one; an
 * XPU_DUMP_DIR that cannot be written, and an XPU_CALIBRATION snapshot that
 * cannot be read or does not check out (its records are then measured
 * instead), are reported once through the log.
 *===========================================================================*/

/*===========================================================================*
 * Memref views and launch options (kernels imported from the gpu dialect)
 *
 * A gpu.func kernel over memrefs (see docs/interop.md) takes each memref
 * parameter as a view: a buffer and the offset, sizes and strides of the
 * memref in it. xpu_kernel_param reports such a parameter with kind
 * XPU_PARAM_VIEW; xpu_kernel_param_view says what its memref type fixes.
 * It takes an XPU_PARAM_VIEW argument (xpu_arg_view), or a plain buffer
 * where the buffer alone fixes the layout (rank 0 or 1 with an identity
 * layout: the buffer's length is the size; a static shape: the buffer
 * must hold it). index parameters of such kernels are 64-bit
 * (XPU_TYPE_I64).
 *===========================================================================*/

#define XPU_VIEW_MAX_RANK 4
/* In xpu_view_info: a size, stride or offset the memref type leaves to the
 * view. */
#define XPU_VIEW_DYNAMIC INT64_MIN

/* Element (i0, ..., i[rank-1]) of the view is the one at byte
 * byte_offset + (i0 * strides[0] + ... + i[rank-1] * strides[rank-1]) *
 * element size of `buffer`. Sizes are at least 0; strides count elements
 * and may be 0 or negative. Entries past `rank` are ignored. The launch
 * checks a view against the parameter's memref type and fails with
 * XPU_ERROR_ARGUMENT_MISMATCH, naming the parameter, when the rank, a
 * static size or stride, or the offset (a multiple of the element size,
 * equal to the type's where the type fixes it) differ, when an identity
 * layout's strides are not row-major over the sizes, or when an element of
 * the view lies outside the buffer. */
typedef struct xpu_view {
  xpu_buffer buffer;
  uint64_t byte_offset;
  uint32_t rank;
  int64_t sizes[XPU_VIEW_MAX_RANK];
  int64_t strides[XPU_VIEW_MAX_RANK];
} xpu_view;

/* The argument of a memref parameter. `view` is read during the xpu_launch
 * call and may be reused after it; the buffer is borrowed as by
 * xpu_arg_buffer. */
XPU_API xpu_arg xpu_arg_view(const xpu_view *view);

/* What a memref parameter's type fixes about the views it takes. */
typedef struct xpu_view_info {
  uint32_t struct_size;     /* set by the caller: sizeof(xpu_view_info) */
  uint32_t rank;
  uint32_t identity;        /* 1: strides are row-major over the sizes */
  int64_t sizes[XPU_VIEW_MAX_RANK];   /* or XPU_VIEW_DYNAMIC */
  int64_t strides[XPU_VIEW_MAX_RANK]; /* or XPU_VIEW_DYNAMIC (always with
                                         identity: they follow the sizes) */
  int64_t offset;           /* in elements, or XPU_VIEW_DYNAMIC */
} xpu_view_info;

/* Fills `out` up to out->struct_size for parameter `index` (as counted by
 * xpu_kernel_param) of kind XPU_PARAM_VIEW; XPU_ERROR_INVALID_ARGUMENT for
 * another kind. */
XPU_API xpu_status xpu_kernel_param_view(xpu_kernel kernel, uint32_t index,
                                         xpu_view_info *out);

/* Options of one launch. Initialize with XPU_LAUNCH_OPTIONS_INIT. */
typedef struct xpu_launch_options {
  uint32_t struct_size; /* sizeof(xpu_launch_options) */
  /* Bytes of dynamic shared memory (gpu.dynamic_shared_memory) each
   * workgroup gets. Static and dynamic shared memory together must fit the
   * device's limit (capability shared.memory; on Vulkan, where a shader's
   * workgroup memory is fixed when it is compiled, what its module leaves
   * after the static shared memory of its kernels that use dynamic shared
   * memory); a kernel that reads views of it at fixed offsets needs at
   * least as much as they span. Else XPU_ERROR_INVALID_ARGUMENT. Ignored by
   * kernels that use none. */
  uint32_t dynamic_shared_bytes;
} xpu_launch_options;
#define XPU_LAUNCH_OPTIONS_INIT {sizeof(xpu_launch_options), 0}

/* xpu_launch with options; `options` NULL is xpu_launch. Thread-safe as
 * xpu_launch. */
XPU_API xpu_status xpu_launch_with_options(xpu_kernel kernel, xpu_stream stream,
                                           const uint32_t grid[3],
                                           const uint32_t block[3],
                                           const xpu_arg *args, size_t arg_count,
                                           const xpu_launch_options *options);

/*===========================================================================*
 * Scheduling: manifests, submissions, launch graphs
 *
 * Every launch is a submission (spec §17.8). xpu_launch is one at the
 * default policy on its stream; xpu_submit adds a policy, a deadline window,
 * a compute-unit budget and a capture identity. The scheduler takes each
 * submission's read and write sets from the kernel's manifest, bound to the
 * buffers passed:
 *
 * - Ordering. A launch that uses a buffer which enqueued work on another
 *   stream writes (read after write), or that writes a buffer such work
 *   reads or writes (write after read, write after write), waits on the
 *   device for that work: streams that share buffers never race. (An
 *   asynchronous copy on another stream is still refused with
 *   XPU_ERROR_BUSY instead, see Buffers.) The order is the order in which
 *   the host made the calls; calls made at once from two threads are
 *   ordered one way or the other.
 * - Automatic capture. A chain of launches on a stream (the launches
 *   between two other operations on it: a synchronization, a copy, an
 *   event) that repeats with the same kernels and launch shapes is, from
 *   its third time, held on the host and handed to the device in recorded
 *   segments (CUDA and HIP graphs, pre-recorded Vulkan command buffers),
 *   with each segment's arguments updated where they changed. Results are
 *   those of the launches one by one. On the CPU, whose graphs replay
 *   launch by launch, chains run as launched; launches that print
 *   (xpu.printf) or that launch observers see (xpu_launch_hooks_set,
 *   XPU_TRACE) are never held. A held launch reaches the device at the
 *   latest at the next operation on its stream, so launch failures of held
 *   work are reported by the call that hands it over.
 *   xpu_stream_set_auto_capture turns it off for one stream;
 *   xpu_stream_native turns it off for good on that stream (another
 *   library's work must find xpujit's launches already enqueued).
 * - XPU_SCHEDULER=bypass takes the raw launch path, for A/B measurement:
 *   no ordering across streams (streams that share buffers race, as
 *   CUDA's do), no automatic capture, policies and budgets not honoured.
 *   Deadline windows are still enforced, and explicit graphs still work.
 *===========================================================================*/

/* What a kernel does with a buffer parameter, from its IR (bits). A buffer
 * only updated by atomic read-modify-writes (not exchanges) accumulates;
 * ordering treats accumulating as writing. */
enum {
  XPU_USE_READ = 1u << 0,       /* loads elements (or an atomic's old value) */
  XPU_USE_WRITE = 1u << 1,      /* stores elements */
  XPU_USE_ACCUMULATE = 1u << 2, /* atomic read-modify-writes */
  XPU_USE_UNKNOWN = 1u << 3     /* a use the analysis cannot follow; ordered
                                   as a read-write */
};
/* How a parameter bears on the kernel's cost (bits): its value, a buffer's
 * length, or values loaded from a buffer reach a loop bound or a branch
 * condition. */
enum {
  XPU_COST_VALUE = 1u << 0,
  XPU_COST_LENGTH = 1u << 1,
  XPU_COST_CONTENTS = 1u << 2
};

/* One fact of a manifest. A fact no query gives is absent (known 0), never
 * guessed; `source` then says why. Strings are owned by the kernel. */
typedef struct xpu_manifest_fact {
  uint64_t value;
  uint32_t known;
  const char *source; /* the query or tool behind the value, or why absent */
} xpu_manifest_fact;

/* The manifest of a kernel on its device: what its code occupies (from the
 * code generator, e.g. ptxas -v or the AMD code object's metadata, and from
 * the driver, e.g. cuFuncGetAttribute) and what it does with its
 * parameters (xpu_kernel_param_uses). */
typedef struct xpu_kernel_manifest {
  uint32_t struct_size; /* set by the caller: sizeof(xpu_kernel_manifest) */
  const char *target;   /* the device and the code's target, e.g. "cuda
                           device 'NVIDIA H200' (sm_90)" */
  uint32_t classified;  /* 1 when every buffer's access mode is known; an
                           unclassified kernel runs as an unclassified
                           submission (XPU_SUBMIT_UNCLASSIFIED) */
  xpu_manifest_fact registers;          /* per invocation */
  xpu_manifest_fact spill_bytes;        /* registers spilled, bytes per invocation */
  xpu_manifest_fact shared_bytes;       /* workgroup-shared memory of the kernel's own
                                           (not the launch's dynamic bytes) */
  xpu_manifest_fact local_bytes;        /* private memory (stack, scratch) per invocation */
  xpu_manifest_fact max_workgroup_size; /* the largest workgroup the code runs */
  /* All of it as JSON: {"schema": "xpujit.manifest/1", "kernel", "target",
   * "classified", "footprint": {NAME: {"value", "source"} or {"absent"}},
   * "params": [{"name", "kind", "type", "access": [...], "declared",
   * "cost": [...]}], "cost_params": [names]}. */
  const char *json;
} xpu_kernel_manifest;

/* Fills `out` up to out->struct_size. Strings are owned by the kernel.
 * Thread-safe. */
XPU_API xpu_status xpu_kernel_manifest_get(xpu_kernel kernel,
                                           xpu_kernel_manifest *out);
/* Launch argument `index`'s (as xpu_kernel_param counts them) XPU_USE_*
 * bits (0 for scalars and structs) and XPU_COST_* bits (a struct's: any of
 * its fields'; a view's layout bounding work counts as its length); either
 * pointer may be NULL. XPU_ERROR_NOT_FOUND past the last argument. */
XPU_API xpu_status xpu_kernel_param_uses(xpu_kernel kernel, uint32_t index,
                                         uint32_t *uses, uint32_t *cost);
/* The manifests of every kernel of `text` for a target without a device
 * (targets, chips and errors as for xpu_compile_for_target, which it runs):
 * a JSON array of the objects above, with the code generator's facts and
 * none of a driver's. `*json` (NUL-terminated) is freed with
 * xpu_compiled_code_free. */
XPU_API xpu_status xpu_compile_manifest(xpu_context context, const char *text,
                                        size_t length,
                                        const xpu_module_options *options,
                                        const char *target, const char *chip,
                                        char **json, xpu_diagnostics *diagnostics);

/* The clock of deadline windows: CLOCK_MONOTONIC, in nanoseconds. */
XPU_API uint64_t xpu_clock_ns(void);

/* What a submission optimizes for, and what xpujit does about it today:
 * - THROUGHPUT (the default): launches may be batched (Vulkan) and held by
 *   automatic capture.
 * - LATENCY: handed to the device at once: work held for the stream before
 *   it is submitted, the submission is never held, and Vulkan submits its
 *   batch after it.
 * - FRAME_BUDGET: as LATENCY; needs a deadline window (window_close_ns).
 * - ENERGY: as THROUGHPUT: xpujit has no power controls, and the result
 *   says the policy was not honoured. */
typedef enum xpu_policy {
  XPU_POLICY_THROUGHPUT = 0,
  XPU_POLICY_LATENCY = 1,
  XPU_POLICY_FRAME_BUDGET = 2,
  XPU_POLICY_ENERGY = 3,
  XPU_POLICY_FORCE32 = 0x7FFFFFFF
} xpu_policy;

/* Capture identity that keeps a submission out of automatic capture. */
#define XPU_CAPTURE_NEVER UINT64_MAX

typedef struct xpu_submission {
  uint32_t struct_size; /* sizeof(xpu_submission) */
  xpu_policy policy;
  xpu_stream stream;    /* NULL: the kernel device's default stream */
  /* The window, on xpu_clock_ns(), in which the submission may start: it
   * is handed to the device no earlier than window_open_ns (the call waits
   * until then) and only if that happens by window_close_ns, once the
   * stream's earlier work has finished (the call waits for that too, so
   * the work starts when it is handed over). Otherwise it is not run: the
   * call fails with XPU_ERROR_DEADLINE and says by how much the window was
   * missed, and why. 0: no bound. Never run late. */
  uint64_t window_open_ns;
  uint64_t window_close_ns;
  /* Run on this many compute units (multiprocessors, CUs): where the
   * driver partitions compute the submission runs on a stream restricted
   * to them: HIP CU masks (the first `compute_units` CUs), CUDA green
   * contexts (driver 12.5+; the count rounded up to the driver's partition
   * granularity, on sm_90 multiples of 8 SMs, and result.compute_units
   * says how many were reserved). Elsewhere, or when the rounded count is
   * the whole device, it runs unrestricted and the result says the budget
   * was not honoured, and why. 0: no budget. */
  uint32_t compute_units;
  /* Automatic capture keeps one recorded chain per (stream, capture id):
   * chains told apart by their id are recognised even when they
   * alternate on one stream. A change of id ends the chain before it.
   * XPU_CAPTURE_NEVER: never held or captured. 0: the stream's default. */
  uint64_t capture_id;
  /* As xpu_launch_options.dynamic_shared_bytes. */
  uint32_t dynamic_shared_bytes;
} xpu_submission;
#define XPU_SUBMISSION_INIT                                                    \
  {sizeof(xpu_submission), XPU_POLICY_THROUGHPUT, NULL, 0, 0, 0, 0, 0}

/* What became of a submission (bits of xpu_submission_result.flags). */
enum {
  XPU_SUBMIT_UNCLASSIFIED = 1u << 0, /* the kernel has no complete manifest:
                                        its buffers were ordered as
                                        read-write (also logged once) */
  XPU_SUBMIT_ORDERED = 1u << 1,      /* it waits for other streams' work on
                                        its buffers */
  XPU_SUBMIT_HELD = 1u << 2,         /* held by automatic capture: handed to
                                        the device with its segment */
  XPU_SUBMIT_RECORDED = 1u << 3,     /* recorded into an explicit capture
                                        (xpu_stream_begin_capture), not run */
  XPU_SUBMIT_BUDGET_NOT_HONOURED = 1u << 4, /* compute_units not reserved */
  XPU_SUBMIT_POLICY_NOT_HONOURED = 1u << 5, /* the policy changed nothing */
  XPU_SUBMIT_BYPASSED = 1u << 6,     /* XPU_SCHEDULER=bypass: the raw path */
  XPU_SUBMIT_BUDGET_RESERVED = 1u << 7 /* it runs on the budget's compute
                                          units only */
};

typedef struct xpu_submission_result {
  uint32_t struct_size;   /* set by the caller: sizeof(xpu_submission_result) */
  uint32_t flags;         /* XPU_SUBMIT_* bits */
  uint32_t compute_units; /* the compute units it may run on (the device's
                             count when unrestricted; with a budget, what
                             the driver reserved, which may be above it) */
  const char *note;       /* why a policy or budget was not honoured, why
                             the kernel is unclassified; "" when nothing.
                             Valid until this thread's next submission. */
} xpu_submission_result;

/* Launches `kernel` as xpu_launch does, as the submission `submission`
 * describes (NULL: XPU_SUBMISSION_INIT). `result` (may be NULL) says what
 * became of it, also when the call fails with XPU_ERROR_DEADLINE. A bad
 * policy or window (close before open) is XPU_ERROR_INVALID_ARGUMENT. */
XPU_API xpu_status xpu_submit(xpu_kernel kernel, const xpu_submission *submission,
                              const uint32_t grid[3], const uint32_t block[3],
                              const xpu_arg *args, size_t arg_count,
                              xpu_submission_result *result);

/* Turns automatic capture on (`enabled` nonzero, the default) or off for
 * one stream; turning it off hands held work to the device first. Under
 * XPU_SCHEDULER=bypass it stays off. */
XPU_API xpu_status xpu_stream_set_auto_capture(xpu_stream stream, int enabled);

/* Launch graphs: a chain of launches recorded once and replayed as a unit:
 * a CUDA graph (cuGraphLaunch), a HIP graph, a pre-recorded Vulkan command
 * buffer, a recorded launch list on the CPU.
 *
 * Between xpu_stream_begin_capture and xpu_stream_end_capture, launches and
 * submissions on the stream are checked as usual and recorded, not run;
 * other operations on it (copies, events) fail with
 * XPU_ERROR_INVALID_ARGUMENT, and a stream captures one graph at a time.
 * A kernel that prints (xpu.printf) is not recorded (XPU_ERROR_UNSUPPORTED:
 * each launch needs a print buffer of its own). Launch observers
 * (xpu_launch_hooks_set, traces) see neither recorded launches nor
 * replays. A graph keeps its kernels and buffers alive. An instantiated
 * graph (xpu_graph_exec) runs on any stream of its device, in that stream's
 * order, as its launches would one by one: buffer borrows, run-time checks
 * (reported at the stream's next synchronization) and ordering across
 * streams apply to it as a whole. Not thread-safe while being updated;
 * launching the same exec from two threads at once is ordered as the
 * calls are. */
typedef struct xpu_graph_s *xpu_graph;
typedef struct xpu_graph_exec_s *xpu_graph_exec;

XPU_API xpu_status xpu_stream_begin_capture(xpu_stream stream);
/* Ends the capture; `*out` holds the launches recorded since it began (at
 * least one). The graph belongs to the device's context. */
XPU_API xpu_status xpu_stream_end_capture(xpu_stream stream, xpu_graph *out);
XPU_API void xpu_graph_release(xpu_graph graph);
XPU_API xpu_status xpu_graph_node_count(xpu_graph graph, uint32_t *out);
/* Prepares the graph for replay on its device. Later changes to the graph
 * (there are none yet) would not affect it. Owned by the context. */
XPU_API xpu_status xpu_graph_instantiate(xpu_graph graph, xpu_graph_exec *out);
XPU_API void xpu_graph_exec_release(xpu_graph_exec exec);
/* Enqueues the whole graph on `stream` (NULL: the default stream). */
XPU_API xpu_status xpu_graph_launch(xpu_graph_exec exec, xpu_stream stream);
/* Replaces the arguments of launch `node` (in capture order) with `args`,
 * checked as a launch's are against the node's kernel: scalars and
 * buffers. The next launch of the exec uses them; enqueued launches of it
 * keep the arguments they were enqueued with. */
XPU_API xpu_status xpu_graph_exec_set_args(xpu_graph_exec exec, uint32_t node,
                                           const xpu_arg *args, size_t arg_count);
/* How the device replays it: "cuda graph", "hip graph", "vulkan command
 * buffer", or "recorded launch list". Owned by the exec. */
XPU_API const char *xpu_graph_exec_kind(xpu_graph_exec exec);

/*===========================================================================*
 * Builder: kernels made by calls instead of text
 *
 * A builder makes the IR that MLIR text would, one operation per call, and
 * finishes into a module through the same path as xpu_module_create (the
 * built IR is printed and compiled as text, so admission, capability gates,
 * diagnostics and the kernel cache treat both alike).
 *
 *   xpu_builder b;  xpu_value y, x, a, n, i, ...;
 *   xpu_builder_create(ctx, &b);
 *   xpu_builder_kernel_begin(b, "saxpy", NULL);
 *   xpu_builder_param(b, "y", "!xpu.buffer<f32>", &y);
 *   xpu_builder_param(b, "x", "!xpu.buffer<f32, ro>", &x);
 *   xpu_builder_param(b, "a", "f32", &a);
 *   xpu_builder_param(b, "n", "i32", &n);
 *   xpu_builder_coordinate(b, XPU_COORD_GLOBAL_ID, 0, &i);
 *   ...                           (cast n to index, compare, if_begin, ...)
 *   xpu_builder_return(b, NULL, 0);
 *   xpu_builder_finish(b, dev, NULL, &module, NULL);
 *
 * Types are written as in the text: "i32", "f32", "index",
 * "vector<4xf32>", "!xpu.buffer<f32, ro>", "!xpu.buffer<256xf32, shared>".
 * Integer, float and vector values take the same calls; the operation that
 * the text would name (arith.addi or arith.addf, ...) follows from the
 * operand type.
 *
 * Values (xpu_value) are handles owned by the builder: valid until it is
 * released, usable only in the block that made them and the blocks nested
 * in it (as in the text). Structure is begun and ended by calls (kernel or
 * function, if/else, for, while); the calls that end a block take the
 * values it yields and hand out the values the construct produces.
 *
 * Every misuse is an error status with a message, and the builder is left
 * as it was: a NULL or foreign value (another builder's, or a released
 * one's) is XPU_ERROR_INVALID_HANDLE; a type that does not fit, a value
 * used outside its block, a call in the wrong place (an else outside an
 * if, a return inside a loop), an unended block at finish, or any call
 * after finishing is XPU_ERROR_INVALID_ARGUMENT.
 *
 * A builder is not thread-safe: use it from one thread at a time.
 *===========================================================================*/

typedef struct xpu_builder_s *xpu_builder;
typedef struct xpu_value_s *xpu_value;

/* A builder of one module (kernels and device functions). Owned by the
 * context and released with it. */
XPU_API xpu_status xpu_builder_create(xpu_context context, xpu_builder *out);
/* Invalidates the builder and all its values. */
XPU_API void xpu_builder_release(xpu_builder builder);

/* Attributes of a kernel, as its `attributes {...}` in the text.
 * Initialize with XPU_KERNEL_ATTRIBUTES_INIT: every field then writes
 * nothing. */
typedef struct xpu_kernel_attributes {
  uint32_t struct_size;   /* sizeof(xpu_kernel_attributes) */
  const char *profile;    /* "portable", "deterministic-v1"; NULL: none */
  /* The launch shape the kernel fixes, as 1 to 3 extents: the extents
   * before the first 0 ({256, 0, 0} is array<i64: 256>, {256, 1, 1} is
   * array<i64: 256, 1, 1>). All 0: none. */
  uint32_t workgroup_size[3];
  uint32_t grid_size[3];
  uint32_t fastmath;            /* nonzero: the `fastmath` attribute */
  const char *const *effects;   /* declared device effects; may be NULL */
  size_t effect_count;
  const char *device;           /* the `device` attribute; NULL: none */
} xpu_kernel_attributes;
#define XPU_KERNEL_ATTRIBUTES_INIT                                             \
  {sizeof(xpu_kernel_attributes), NULL, {0, 0, 0}, {0, 0, 0}, 0, NULL, 0, NULL}

/* Begins `xpu.kernel @name`, appended to the module; its body is where the
 * following calls add operations. `attributes` may be NULL. Another kernel
 * or function must not be open. */
XPU_API xpu_status xpu_builder_kernel_begin(
    xpu_builder builder, const char *name,
    const xpu_kernel_attributes *attributes);
/* Begins `xpu.func @name`, a device helper. Its result types are those of
 * the values its xpu_builder_return gives. */
XPU_API xpu_status xpu_builder_func_begin(xpu_builder builder,
                                          const char *name);
/* Appends a parameter of type `type` to the open kernel or function.
 * `name` (letters, digits, `_`, `$`, `.`; not starting with a digit) is the
 * parameter's source name, as `%name` in the text; NULL or "" leaves it
 * unnamed. `*out` is the parameter's value. */
XPU_API xpu_status xpu_builder_param(xpu_builder builder, const char *name,
                                     const char *type, xpu_value *out);
/* Emits `xpu.return` with `values` (`count` of them; kernels return none)
 * and ends the open kernel or function. Every if, for and while in it must
 * have ended. */
XPU_API xpu_status xpu_builder_return(xpu_builder builder,
                                      const xpu_value *values, size_t count);

/* arith.constant of an integer or index type, or a vector of them (a
 * splat). `value` must fit the type, read as signed or as unsigned; i1
 * takes 0 or 1. */
XPU_API xpu_status xpu_builder_constant_int(xpu_builder builder,
                                            const char *type, int64_t value,
                                            xpu_value *out);
/* arith.constant of a float type or a vector of floats (a splat), rounded
 * to the type. */
XPU_API xpu_status xpu_builder_constant_float(xpu_builder builder,
                                              const char *type, double value,
                                              xpu_value *out);

/* Two operands of one type; the result has it too. The operation for
 * integers (and index) / for floats; a dash: the operand kind is refused. */
typedef enum xpu_binary_op {
  XPU_BINARY_ADD = 0,   /* arith.addi   / arith.addf */
  XPU_BINARY_SUB = 1,   /* arith.subi   / arith.subf */
  XPU_BINARY_MUL = 2,   /* arith.muli   / arith.mulf */
  XPU_BINARY_DIV = 3,   /* arith.divsi  / arith.divf */
  XPU_BINARY_DIVU = 4,  /* arith.divui  / - */
  XPU_BINARY_REM = 5,   /* arith.remsi  / arith.remf */
  XPU_BINARY_REMU = 6,  /* arith.remui  / - */
  XPU_BINARY_MIN = 7,   /* arith.minsi  / arith.minimumf */
  XPU_BINARY_MINU = 8,  /* arith.minui  / - */
  XPU_BINARY_MAX = 9,   /* arith.maxsi  / arith.maximumf */
  XPU_BINARY_MAXU = 10, /* arith.maxui  / - */
  XPU_BINARY_AND = 11,  /* arith.andi   / - */
  XPU_BINARY_OR = 12,   /* arith.ori    / - */
  XPU_BINARY_XOR = 13,  /* arith.xori   / - */
  XPU_BINARY_SHL = 14,  /* arith.shli   / - */
  XPU_BINARY_SHR = 15,  /* arith.shrsi  / - */
  XPU_BINARY_SHRU = 16, /* arith.shrui  / - */
  XPU_BINARY_POW = 17,  /* -            / math.powf */
  XPU_BINARY_OP_FORCE32 = 0x7FFFFFFF
} xpu_binary_op;

XPU_API xpu_status xpu_builder_binary(xpu_builder builder, xpu_binary_op op,
                                      xpu_value lhs, xpu_value rhs,
                                      xpu_value *out);

/* One operand; the result has its type. */
typedef enum xpu_unary_op {
  XPU_UNARY_NEG = 0,    /* arith.negf (floats only) */
  XPU_UNARY_ABS = 1,    /* math.absi  / math.absf */
  XPU_UNARY_SQRT = 2,   /* math.sqrt, and below: floats only */
  XPU_UNARY_RSQRT = 3,  /* math.rsqrt */
  XPU_UNARY_EXP = 4,    /* math.exp */
  XPU_UNARY_EXP2 = 5,   /* math.exp2 */
  XPU_UNARY_LOG = 6,    /* math.log */
  XPU_UNARY_LOG2 = 7,   /* math.log2 */
  XPU_UNARY_SIN = 8,    /* math.sin */
  XPU_UNARY_COS = 9,    /* math.cos */
  XPU_UNARY_TAN = 10,   /* math.tan */
  XPU_UNARY_TANH = 11,  /* math.tanh */
  XPU_UNARY_FLOOR = 12, /* math.floor */
  XPU_UNARY_CEIL = 13,  /* math.ceil */
  XPU_UNARY_ROUND = 14, /* math.round (half away from zero) */
  XPU_UNARY_TRUNC = 15, /* math.trunc */
  XPU_UNARY_OP_FORCE32 = 0x7FFFFFFF
} xpu_unary_op;

XPU_API xpu_status xpu_builder_unary(xpu_builder builder, xpu_unary_op op,
                                     xpu_value operand, xpu_value *out);
/* math.fma: a * b + c rounded once (floats; all three of one type). */
XPU_API xpu_status xpu_builder_fma(xpu_builder builder, xpu_value a,
                                   xpu_value b, xpu_value c, xpu_value *out);

/* Comparison predicates: arith.cmpi for integers and index (signed, then
 * unsigned), arith.cmpf for floats (ordered, then unordered: true also
 * when an operand is NaN). NE on floats is `une` (true for NaN), as in C. */
typedef enum xpu_compare {
  XPU_COMPARE_EQ = 0,  /* eq  / oeq */
  XPU_COMPARE_NE = 1,  /* ne  / une */
  XPU_COMPARE_LT = 2,  /* slt / olt */
  XPU_COMPARE_LE = 3,  /* sle / ole */
  XPU_COMPARE_GT = 4,  /* sgt / ogt */
  XPU_COMPARE_GE = 5,  /* sge / oge */
  XPU_COMPARE_ULT = 6, /* ult / ult */
  XPU_COMPARE_ULE = 7, /* ule / ule */
  XPU_COMPARE_UGT = 8, /* ugt / ugt */
  XPU_COMPARE_UGE = 9, /* uge / uge */
  XPU_COMPARE_ORD = 10, /* -  / ord (neither is NaN) */
  XPU_COMPARE_UNO = 11, /* -  / uno (either is NaN) */
  XPU_COMPARE_FORCE32 = 0x7FFFFFFF
} xpu_compare;

/* The result is i1, or a vector of i1 for vector operands. */
XPU_API xpu_status xpu_builder_compare(xpu_builder builder,
                                       xpu_compare predicate, xpu_value lhs,
                                       xpu_value rhs, xpu_value *out);
/* arith.select: `condition` (i1, or a vector of i1 lane by lane) picks
 * `if_true` or `if_false`, which have one type. */
XPU_API xpu_status xpu_builder_select(xpu_builder builder, xpu_value condition,
                                      xpu_value if_true, xpu_value if_false,
                                      xpu_value *out);

/* Conversions, each one arith operation. */
typedef enum xpu_cast {
  XPU_CAST_INDEX = 0,            /* arith.index_cast (integers sign-extend) */
  XPU_CAST_INDEX_UNSIGNED = 1,   /* arith.index_castui (zero-extend) */
  XPU_CAST_SIGN_EXTEND = 2,      /* arith.extsi */
  XPU_CAST_ZERO_EXTEND = 3,      /* arith.extui */
  XPU_CAST_TRUNCATE = 4,         /* arith.trunci */
  XPU_CAST_SIGNED_TO_FLOAT = 5,  /* arith.sitofp */
  XPU_CAST_UNSIGNED_TO_FLOAT = 6, /* arith.uitofp */
  XPU_CAST_FLOAT_TO_SIGNED = 7,  /* arith.fptosi */
  XPU_CAST_FLOAT_TO_UNSIGNED = 8, /* arith.fptoui */
  XPU_CAST_FLOAT_EXTEND = 9,     /* arith.extf */
  XPU_CAST_FLOAT_TRUNCATE = 10,  /* arith.truncf */
  XPU_CAST_BITCAST = 11,         /* arith.bitcast (same width) */
  XPU_CAST_FORCE32 = 0x7FFFFFFF
} xpu_cast;

XPU_API xpu_status xpu_builder_cast(xpu_builder builder, xpu_cast cast,
                                    xpu_value value, const char *type,
                                    xpu_value *out);

/* vector.broadcast: a vector of `lanes` copies of a scalar. */
XPU_API xpu_status xpu_builder_broadcast(xpu_builder builder, xpu_value scalar,
                                         uint32_t lanes, xpu_value *out);
/* vector.extract: lane `lane` of a vector. */
XPU_API xpu_status xpu_builder_extract(xpu_builder builder, xpu_value vector,
                                       uint32_t lane, xpu_value *out);
/* vector.insert: `vector` with lane `lane` replaced by `scalar`. */
XPU_API xpu_status xpu_builder_insert(xpu_builder builder, xpu_value scalar,
                                      xpu_value vector, uint32_t lane,
                                      xpu_value *out);

/* Coordinates of the invocation (index values). */
typedef enum xpu_coordinate {
  XPU_COORD_THREAD_ID = 0,      /* xpu.thread_id: inside the workgroup */
  XPU_COORD_WORKGROUP_ID = 1,   /* xpu.workgroup_id: inside the grid */
  XPU_COORD_GLOBAL_ID = 2,      /* xpu.global_id */
  XPU_COORD_WORKGROUP_SIZE = 3, /* xpu.workgroup_size */
  XPU_COORD_GRID_SIZE = 4,      /* xpu.grid_size */
  XPU_COORD_GLOBAL_SIZE = 5,    /* xpu.global_size */
  XPU_COORD_WAVE_WIDTH = 6,     /* xpu.wave_width (no axis) */
  XPU_COORD_LANE_ID = 7,        /* xpu.lane_id (no axis) */
  XPU_COORD_FORCE32 = 0x7FFFFFFF
} xpu_coordinate;

/* `axis` is 0, 1 or 2 (x, y, z); it must be 0 for the wave width and the
 * lane id. */
XPU_API xpu_status xpu_builder_coordinate(xpu_builder builder,
                                          xpu_coordinate which, uint32_t axis,
                                          xpu_value *out);

/* xpu.load: element `index` (an index value) of `buffer`, or with `lanes`
 * 2 to 4 a vector of the elements from `index` on (0 or 1: a scalar). */
XPU_API xpu_status xpu_builder_load(xpu_builder builder, xpu_value buffer,
                                    xpu_value index, uint32_t lanes,
                                    xpu_value *out);
/* xpu.store: `value` (the element type, or a vector of 2 to 4 of it) to
 * `buffer` at `index`. The buffer must not be read-only. */
XPU_API xpu_status xpu_builder_store(xpu_builder builder, xpu_value value,
                                     xpu_value buffer, xpu_value index);
/* xpu.buffer_size: the buffer's length in elements (index). */
XPU_API xpu_status xpu_builder_buffer_size(xpu_builder builder,
                                           xpu_value buffer, xpu_value *out);
/* xpu.alloc: workgroup-shared or private scratch of a statically sized
 * buffer type ("!xpu.buffer<256xf32, shared>"). */
XPU_API xpu_status xpu_builder_alloc(xpu_builder builder, const char *type,
                                     xpu_value *out);
/* xpu.barrier: every invocation of the workgroup waits for the others. */
XPU_API xpu_status xpu_builder_barrier(xpu_builder builder);

/* Atomic read-modify-write operations (the dialect's numbering). */
typedef enum xpu_atomic_op {
  XPU_ATOMIC_ADD = 0, XPU_ATOMIC_SUB = 1,
  XPU_ATOMIC_SMIN = 2, XPU_ATOMIC_SMAX = 3,
  XPU_ATOMIC_UMIN = 4, XPU_ATOMIC_UMAX = 5,
  XPU_ATOMIC_AND = 6, XPU_ATOMIC_OR = 7, XPU_ATOMIC_XOR = 8,
  XPU_ATOMIC_XCHG = 9,
  XPU_ATOMIC_FADD = 10, /* floats */
  /* Compare-exchange: only through xpu_builder_atomic_cmpxchg. */
  XPU_ATOMIC_CMPXCHG = 11,
  /* Floats, as arith.minimumf / maximumf (a NaN wins, -0 < +0). */
  XPU_ATOMIC_FMIN = 12, XPU_ATOMIC_FMAX = 13,
  XPU_ATOMIC_OP_FORCE32 = 0x7FFFFFFF
} xpu_atomic_op;

typedef enum xpu_memory_order {
  XPU_ORDER_RELAXED = 0, XPU_ORDER_ACQUIRE = 1, XPU_ORDER_RELEASE = 2,
  XPU_ORDER_ACQ_REL = 3, XPU_ORDER_SEQ_CST = 4,
  XPU_MEMORY_ORDER_FORCE32 = 0x7FFFFFFF
} xpu_memory_order;

/* Vulkan's scope set (the superset of CUDA's and HIP's). */
typedef enum xpu_scope {
  XPU_SCOPE_INVOCATION = 0, XPU_SCOPE_SUBGROUP = 1, XPU_SCOPE_WORKGROUP = 2,
  XPU_SCOPE_QUEUE_FAMILY = 3, XPU_SCOPE_DEVICE = 4,
  XPU_SCOPE_FORCE32 = 0x7FFFFFFF
} xpu_scope;

/* xpu.atomic_rmw: applies `op` with `value` to element `index` of
 * `buffer` atomically; `*out` is the element's previous value. */
XPU_API xpu_status xpu_builder_atomic(xpu_builder builder, xpu_atomic_op op,
                                      xpu_value value, xpu_value buffer,
                                      xpu_value index, xpu_memory_order order,
                                      xpu_scope scope, xpu_value *out);

/* xpu.atomic_rmw cmpxchg: stores `desired` in element `index` of `buffer`
 * if the element equals `expected` bit for bit; `*out` is the element found
 * (the exchange happened when it equals `expected`). Integers and floats of
 * 32 and 64 bits; a failed exchange orders like a load (acquire at most). */
XPU_API xpu_status xpu_builder_atomic_cmpxchg(xpu_builder builder,
                                              xpu_value expected,
                                              xpu_value desired,
                                              xpu_value buffer, xpu_value index,
                                              xpu_memory_order order,
                                              xpu_scope scope, xpu_value *out);

/* Workgroup reductions (the dialect's numbering). */
typedef enum xpu_reduce_op {
  XPU_REDUCE_ADD = 0, XPU_REDUCE_MUL = 1,
  XPU_REDUCE_SMIN = 2, XPU_REDUCE_SMAX = 3,
  XPU_REDUCE_UMIN = 4, XPU_REDUCE_UMAX = 5,
  XPU_REDUCE_AND = 6, XPU_REDUCE_OR = 7, XPU_REDUCE_XOR = 8,
  XPU_REDUCE_FMIN = 9, XPU_REDUCE_FMAX = 10,
  XPU_REDUCE_OP_FORCE32 = 0x7FFFFFFF
} xpu_reduce_op;

/* How operands are combined: sequential (left to right in invocation
 * order: the same result everywhere), tree, or left to the target. */
typedef enum xpu_reduce_order {
  XPU_REDUCE_SEQUENTIAL = 0, XPU_REDUCE_TREE = 1, XPU_REDUCE_UNSPECIFIED = 2,
  XPU_REDUCE_ORDER_FORCE32 = 0x7FFFFFFF
} xpu_reduce_order;

/* xpu.reduce: combines `value` over the workgroup; every invocation gets
 * the result. */
XPU_API xpu_status xpu_builder_reduce(xpu_builder builder, xpu_reduce_op op,
                                      xpu_value value, xpu_reduce_order order,
                                      xpu_value *out);

/* xpu.call of the device function `callee`, which must have been built
 * and ended in this builder. `args` must match its parameters;
 * `result_count` must equal its number of results, which `results`
 * receives (may be NULL when it has none). */
XPU_API xpu_status xpu_builder_call(xpu_builder builder, const char *callee,
                                    const xpu_value *args, size_t arg_count,
                                    xpu_value *results, size_t result_count);

/* scf.if. xpu_builder_if_begin opens the then-block. xpu_builder_else
 * ends it, yielding `yields`, and opens the else-block. xpu_builder_if_end
 * ends the open block with `yields` (the same types as the then-block's)
 * and writes the if's `count` results to `results` (may be NULL when count
 * is 0). An if that yields values needs an else. */
XPU_API xpu_status xpu_builder_if_begin(xpu_builder builder,
                                        xpu_value condition);
XPU_API xpu_status xpu_builder_else(xpu_builder builder,
                                    const xpu_value *yields, size_t count);
XPU_API xpu_status xpu_builder_if_end(xpu_builder builder,
                                      const xpu_value *yields, size_t count,
                                      xpu_value *results);

/* scf.for from `lower` to `upper` (exclusive) by `step`, all three of one
 * integer or index type, carrying `count` values that start as `inits`.
 * Opens the body: `*induction` is the loop variable and `iter_args`
 * (`count` entries) the carried values this iteration. xpu_builder_for_end
 * ends the body with the next iteration's values (`count`, the types of
 * `inits`) and writes the loop's results (the last values) to `results`. */
XPU_API xpu_status xpu_builder_for_begin(xpu_builder builder, xpu_value lower,
                                         xpu_value upper, xpu_value step,
                                         const xpu_value *inits, size_t count,
                                         xpu_value *induction,
                                         xpu_value *iter_args);
XPU_API xpu_status xpu_builder_for_end(xpu_builder builder,
                                       const xpu_value *yields, size_t count,
                                       xpu_value *results);

/* scf.while carrying `count` values that start as `inits`.
 * xpu_builder_while_begin opens the condition block, whose arguments
 * (`args`, `count` entries) are the carried values. xpu_builder_while_do
 * ends it with scf.condition: the loop goes on while `condition` (i1)
 * holds, passing `passed` (`passed_count` values) to the body, which it
 * opens with them as `args`; when it stops, `passed` become the loop's
 * results. xpu_builder_while_end ends the body with the next carried
 * values (the types of `inits`) and writes the results (`result_count`,
 * which must equal `passed_count`) to `results`. */
XPU_API xpu_status xpu_builder_while_begin(xpu_builder builder,
                                           const xpu_value *inits,
                                           size_t count, xpu_value *args);
XPU_API xpu_status xpu_builder_while_do(xpu_builder builder,
                                        xpu_value condition,
                                        const xpu_value *passed,
                                        size_t passed_count, xpu_value *args);
XPU_API xpu_status xpu_builder_while_end(xpu_builder builder,
                                         const xpu_value *yields, size_t count,
                                         xpu_value *results,
                                         size_t result_count);

/* The value's type as text ("f32", "vector<4xi32>", "!xpu.buffer<f32, ro>").
 * Owned by the builder; valid until it is released. */
XPU_API xpu_status xpu_builder_value_type(xpu_builder builder, xpu_value value,
                                          const char **out);
/* The module built so far, as text. Complete IR prints in the library's
 * form (see xpu_module_format); IR with open blocks prints in MLIR's
 * generic form. Owned by the builder; valid until its next call. */
XPU_API xpu_status xpu_builder_print(xpu_builder builder, const char **out);
/* Ends building and compiles the module for `device`: exactly
 * xpu_module_create on the text xpu_builder_print gives, with `options`
 * (source_name NULL: "<builder>") and `diagnostics` as there. Every kernel
 * and function must have ended. Once the IR is complete the builder is
 * finished, whether or not the compilation succeeds: later calls that
 * build or finish fail; xpu_builder_print and xpu_builder_value_type still
 * work (compile the text with xpu_module_create for another device). */
XPU_API xpu_status xpu_builder_finish(xpu_builder builder, xpu_device device,
                                      const xpu_module_options *options,
                                      xpu_module *out,
                                      xpu_diagnostics *diagnostics);

/* xpu.struct_get: field `field` of a struct parameter (see "Struct
 * arguments"; parameters of type "!xpu.struct<\"name\", a: f32, ...>"). */
XPU_API xpu_status xpu_builder_struct_get(xpu_builder builder, xpu_value value,
                                          const char *field, xpu_value *out);

/* xpu.printf: prints `values` (`count` of them, may be NULL when 0) by the
 * C format `format`, one conversion each (d i u x X o c for integers, f F e
 * E g G a A for floats). Records go to a bounded buffer the launch gets;
 * they are printed to standard output, in the order they were made, when
 * the launch's stream synchronizes, with a line saying how many did not
 * fit, if any. Refused under deterministic-v1 (XPU-GC012). */
XPU_API xpu_status xpu_builder_printf(xpu_builder builder, const char *format,
                                      const xpu_value *values, size_t count);

/* xpu.fn_value: a bounded function value (spec 17.1), an i32 naming
 * `callee`, one of the `count` device functions `set` (each built and ended
 * in this builder, all of one type). */
XPU_API xpu_status xpu_builder_fn_value(xpu_builder builder, const char *callee,
                                        const char *const *set, size_t count,
                                        xpu_value *out);
/* xpu.fn_call: calls the function of `set` that `function` names with
 * `args`; a value outside the set calls nothing and its results are zero.
 * `result_count` must be the set's number of results. */
XPU_API xpu_status xpu_builder_fn_call(xpu_builder builder, xpu_value function,
                                       const char *const *set, size_t count,
                                       const xpu_value *args, size_t arg_count,
                                       xpu_value *results, size_t result_count);

/* The grid-stride loop (spec 17.2): opens the body of scf.for `*index` from
 * xpu.global_id x to `n` (an index value) by xpu.global_size x, so that
 * every launch shape covers [0, n) once. End it with
 * xpu_builder_grid_stride_end. */
XPU_API xpu_status xpu_builder_grid_stride_begin(xpu_builder builder, xpu_value n,
                                                 xpu_value *index);
XPU_API xpu_status xpu_builder_grid_stride_end(xpu_builder builder);

/*===========================================================================*
 * Builder: wave (subgroup) operations
 *
 * A wave is the target's group of invocations that run in lockstep (a warp
 * of 32 on NVIDIA, 32 or 64 on AMD, a Vulkan subgroup, one invocation on the
 * CPU; read the width with XPU_COORD_WAVE_WIDTH, never assume it). Waves
 * are formed from consecutive linear invocation indices of a workgroup; the
 * last wave of a workgroup whose size is not a multiple of the width is
 * partial, and only its live lanes (the invocations that exist) take part.
 * Every live lane of a wave must make the same wave operation together
 * (uniform control flow per wave). Values are i32, i64, f32 or f64;
 * predicates i1. Errors as for the other builder calls.
 *===========================================================================*/

/* Which lane a shuffle reads, from the lane's own id L and an i32 offset K
 * (unsigned arithmetic). A source that is not a live lane of the wave gives
 * the lane its own value, on every backend. */
typedef enum xpu_wave_shuffle {
  XPU_WAVE_SHUFFLE_XOR = 0,   /* L ^ K */
  XPU_WAVE_SHUFFLE_UP = 1,    /* L - K */
  XPU_WAVE_SHUFFLE_DOWN = 2,  /* L + K */
  XPU_WAVE_SHUFFLE_INDEX = 3, /* K */
  XPU_WAVE_SHUFFLE_FORCE32 = 0x7FFFFFFF
} xpu_wave_shuffle;

/* xpu.wave_shuffle: `value` of the lane `mode` and `offset` (i32) name. */
XPU_API xpu_status xpu_builder_wave_shuffle(xpu_builder builder,
                                            xpu_wave_shuffle mode,
                                            xpu_value value, xpu_value offset,
                                            xpu_value *out);
/* xpu.wave_broadcast: `value` of lane `lane` (i32) in every lane (each
 * lane's own when that lane is not live). */
XPU_API xpu_status xpu_builder_wave_broadcast(xpu_builder builder,
                                              xpu_value value, xpu_value lane,
                                              xpu_value *out);
/* xpu.wave_ballot: a vector<4xi32> with bit L % 32 of word L / 32 set for
 * each live lane L whose `predicate` (i1) holds; the same in every lane.
 * Four words fit the widest wave of any target. */
XPU_API xpu_status xpu_builder_wave_ballot(xpu_builder builder,
                                           xpu_value predicate, xpu_value *out);

typedef enum xpu_wave_vote {
  XPU_WAVE_ANY = 0, /* the predicate holds in some live lane */
  XPU_WAVE_ALL = 1, /* ... in every live lane */
  XPU_WAVE_VOTE_FORCE32 = 0x7FFFFFFF
} xpu_wave_vote;

/* xpu.wave_vote: an i1, the same in every lane. */
XPU_API xpu_status xpu_builder_wave_vote(xpu_builder builder, xpu_wave_vote vote,
                                         xpu_value predicate, xpu_value *out);
/* xpu.wave_reduce: `op` (the xpu_reduce_op numbering) of `value` over the
 * live lanes, in every lane. Integers are exact; float add and mul round in
 * the target's order; fmin/fmax are exact (NaN wins, -0 < +0). */
XPU_API xpu_status xpu_builder_wave_reduce(xpu_builder builder, xpu_reduce_op op,
                                           xpu_value value, xpu_value *out);

typedef enum xpu_wave_scan {
  XPU_WAVE_SCAN_INCLUSIVE = 0, /* lane L: lanes 0..L */
  XPU_WAVE_SCAN_EXCLUSIVE = 1, /* lane L: lanes 0..L-1; lane 0 the identity */
  XPU_WAVE_SCAN_FORCE32 = 0x7FFFFFFF
} xpu_wave_scan;

/* xpu.wave_scan: a prefix combination of `value` over the wave's lanes. */
XPU_API xpu_status xpu_builder_wave_scan(xpu_builder builder, xpu_reduce_op op,
                                         xpu_value value, xpu_wave_scan scan,
                                         xpu_value *out);

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

/*===========================================================================*
 * Calibration: facts measured on a device, kept in a store
 *
 * Each device is measured once by small probe kernels and the results are
 * kept as one record per device, keyed by subject ("device"), the device's
 * identity (with its UUID), its driver, the compiler (library build,
 * pipeline, LLVM, target, device toolchain) and a power mode where a query
 * gives one (none does today: it is recorded as absent). A record whose key
 * is not the live one, or whose checksum fails, is ignored, so an upgraded
 * driver or library measures again. The correctness facts (contraction,
 * fma fusion, subnormal results, a loop-pass limit) are read by the first
 * compile on the device; the performance facts (copy bandwidth, launch,
 * event and inter-queue cost, peak FLOP/s, occupancy) only when asked for.
 *
 * Records are served from a snapshot first (one built into the library,
 * then the file XPU_CALIBRATION names), then from the store: by default
 * `calibration/` in the kernel cache's directory (XPU_CACHE_DIR, else
 * $XDG_CACHE_HOME/xpujit, else ~/.cache/xpujit, never under /tmp; read-only
 * with XPU_CACHE=readonly or off). With nothing writable the process runs from
 * memory and says so once; a store that fails is disabled once and
 * reported. Every function below is thread-safe.
 *===========================================================================*/

/* One measured fact. Strings are owned by the device (valid until its
 * context is released). */
typedef struct xpu_calibration_record {
  uint32_t struct_size;  /* set by the caller: sizeof(xpu_calibration_record) */
  const char *name;      /* "copy.h2d", "fma.f32.fused", "loop.pass-limit" */
  uint32_t has_value;    /* 0: absent, it could not be measured (see evidence) */
  double value;
  const char *unit;      /* "GB/s", "us", "bool" (1 yes, 0 no), "passes", ... */
  const char *evidence;  /* what ran, where, what it saw */
  const char *date;      /* when it was measured, "2026-12-01T10:22:03Z" */
  const char *key;       /* the record's key as text */
} xpu_calibration_record;

/* Which facts to read. */
typedef enum xpu_calibration_set {
  XPU_CALIBRATION_CORRECTNESS = 0, /* what compiles rest on */
  XPU_CALIBRATION_ALL = 1,         /* ... and the performance facts */
  XPU_CALIBRATION_SET_FORCE32 = 0x7FFFFFFF
} xpu_calibration_set;

/* The number of facts in the device's record, measuring (and storing) the
 * ones of `set` the store does not have. */
XPU_API xpu_status xpu_device_calibration_count(xpu_device device,
                                                xpu_calibration_set set,
                                                uint32_t *out);
/* Fact `index` of the device's record (see xpu_device_calibration_count). */
XPU_API xpu_status xpu_device_calibration_record(xpu_device device, uint32_t index,
                                                 xpu_calibration_record *out);
/* Measures every fact of the device again and stores the record. Kernels
 * already compiled are not affected. */
XPU_API xpu_status xpu_device_calibrate(xpu_device device);
/* Writes the records of `devices` (as measured or loaded so far, with at
 * least the correctness facts) to `path` as a snapshot, for
 * XPU_CALIBRATION or a build with -DXPU_CALIBRATION_SNAPSHOT=path. */
XPU_API xpu_status xpu_calibration_snapshot_write(const xpu_device *devices,
                                                  uint32_t count, const char *path);

/* A store of the host's, in place of the default. Records are opaque text
 * (JSON with a checksum, checked by the library) stored under a key text
 * (16 hex digits). load: 0 and (*data, *size) when found, the data owned by
 * the store and valid until its next call; 1 when there is none; anything
 * else is a failure. store: 0 on success. writable: nonzero when store may
 * be called. A failure disables the store for the rest of the process (said
 * once through the log); the library then runs from memory. */
typedef struct xpu_calibration_store {
  uint32_t struct_size; /* sizeof(xpu_calibration_store) */
  void *user;           /* passed to every callback */
  int (*load)(void *user, const char *key, const char **data, size_t *size);
  int (*store)(void *user, const char *key, const char *data, size_t size);
  int (*writable)(void *user);
} xpu_calibration_store;

/* Replaces the process's store with `store` (copied; the callbacks and
 * `user` must stay valid until the process exits), or with the default
 * store when NULL. XPU_ERROR_BUSY once a record has been read: call it
 * before the first compile. */
XPU_API xpu_status xpu_calibration_store_set(const xpu_calibration_store *store);

/* What calibration did in this process. */
typedef struct xpu_calibration_stats {
  uint32_t struct_size; /* set by the caller: sizeof(xpu_calibration_stats) */
  const char *store;    /* what serves records (valid until this thread's
                           next call of xpu_calibration_stats_get) */
  uint32_t writable;    /* 1 when measurements are stored */
  uint64_t probes;      /* facts measured by running probes */
  uint64_t loaded;      /* records served from a snapshot or the store */
  uint64_t stored;      /* records written */
  uint64_t rejected;    /* records ignored: checksum, key, format */
  uint64_t failures;    /* store calls that failed */
} xpu_calibration_stats;

/* Fills `out` up to out->struct_size. */
XPU_API xpu_status xpu_calibration_stats_get(xpu_calibration_stats *out);

/*===========================================================================*
 * Observing: module reports, dispatch reports, traces, launch hooks
 *
 * Everything here is off until asked for, and costs a launch nothing then
 * (one predictable branch). The same is turned on without code by
 * environment variables: XPU_TRACE=FILE records a trace for the whole
 * process, XPU_REPORT=FILE writes dispatch reports. Schemas: docs/observe.md.
 * All functions here are thread-safe.
 *===========================================================================*/

/* The module's report as JSON (schema "xpujit.module-report", versioned):
 * source identity (hash of the text and of the canonical admitted IR),
 * each kernel's profile and admission, each capability need with its
 * verdict, kind and evidence, the target and device identity, limits,
 * stage timings and cache outcome with the key. It names exactly one
 * target and one device: the module's. Made on the first call (the front
 * end runs again, without code generation); the string is owned by the
 * module and lives until it is released. */
XPU_API xpu_status xpu_module_report(xpu_module module, const char **json);

/* xpu_compile_for_target that also returns the report of what it compiled
 * (same schema and version) in `*report`: a NUL-terminated string, free it
 * with xpu_compiled_code_free. No device is involved, so the report has no
 * `device` and no `limits`, and `build` has no `cache` (nothing is
 * cached); it names exactly one target, the one asked for, and
 * "offline": true. Capability verdicts are those of the offline gate: what
 * a device decides reads "decided_by": "device". `report` must not be
 * NULL; on failure it is set to NULL and nothing is to be freed. Other
 * arguments, errors and thread-safety as for xpu_compile_for_target. */
XPU_API xpu_status xpu_compile_for_target_report(
    xpu_context context, const char *text, size_t length,
    const xpu_module_options *options, const char *target, const char *chip,
    void **code, size_t *size, char **report, xpu_diagnostics *diagnostics);

/* Records a trace of this process (Chrome/Perfetto trace-event JSON:
 * compile stages, cache lookups, copies, launches on the host and on the
 * device, synchronizations, one track per host thread and per stream)
 * until xpu_trace_stop, which writes `path`. XPU_ERROR_BUSY while a trace
 * is recorded already (XPU_TRACE's, for one); XPU_ERROR_INVALID_ARGUMENT
 * when `path` cannot be written. A trace still recording when the process
 * exits is written then. Device times come from events recorded around
 * each launch and are read when its stream synchronizes: a launch whose
 * stream never synchronizes has only its host side in the trace. */
XPU_API xpu_status xpu_trace_start(const char *path);
XPU_API xpu_status xpu_trace_stop(void);

/* Writes one JSON line per launch (schema "xpujit.dispatch") to `path`
 * (truncated) until xpu_dispatch_report_stop: module and kernel identity,
 * device, stream, grid, block, arguments (buffer sizes, scalar values),
 * the enqueue status, and, once the stream synchronizes, the device time
 * measured with events and the run's status: a line is written when its
 * launch's stream synchronizes (a launch refused at enqueue: at once), so
 * synchronize before stopping, or those launches go unreported.
 * Only launches that pass argument checks are reported (a refused launch
 * returns its error to the caller and enqueues nothing). */
XPU_API xpu_status xpu_dispatch_report_start(const char *path);
XPU_API xpu_status xpu_dispatch_report_stop(void);

/* What a launch hook is told. Pointers are valid during the call only. */
typedef struct xpu_launch_info {
  uint32_t struct_size;    /* sizeof(xpu_launch_info) of the library */
  uint64_t sequence;       /* launch number in this process, from 1 */
  xpu_kernel kernel;
  const char *kernel_name;
  const char *source_name; /* the module's source name */
  xpu_device device;
  xpu_stream stream;       /* the stream used (the default one for NULL) */
  const uint32_t *grid;    /* 3 extents */
  const uint32_t *block;   /* 3 extents */
  const xpu_arg *args;
  size_t arg_count;
} xpu_launch_info;

typedef void (*xpu_launch_enter_fn)(const xpu_launch_info *info, void *user);
/* `status` is the enqueue's: errors of the run come with synchronization. */
typedef void (*xpu_launch_exit_fn)(const xpu_launch_info *info, xpu_status status,
                                   void *user);

typedef struct xpu_launch_hooks {
  uint32_t struct_size; /* sizeof(xpu_launch_hooks) */
  xpu_launch_enter_fn enter; /* may be NULL */
  xpu_launch_exit_fn exit;   /* may be NULL */
  void *user;
} xpu_launch_hooks;

#define XPU_LAUNCH_HOOKS_INIT {sizeof(xpu_launch_hooks), NULL, NULL, NULL}

/* Sets the process's launch hooks (NULL removes them). `enter` runs just
 * before a checked launch is enqueued, `exit` just after, on the launching
 * thread, with the stream's lock held: a hook may read `info`, take times
 * and record its own data, but must not call xpujit on the same stream
 * (that waits for the lock it holds). Launches on other threads call the
 * hooks concurrently. A launch that races with xpu_launch_hooks_set sees
 * the old hooks or the new ones, never a mix; launches on other threads
 * may still be running the old hooks when it returns, so keep `user` alive
 * until those launches have returned. */
XPU_API xpu_status xpu_launch_hooks_set(const xpu_launch_hooks *hooks);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* XPU_C_H */
