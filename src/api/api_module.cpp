// C API: modules, kernels, their parameters, compiler diagnostics, and code
// generated for a named target without a device.
#include "observe/module_report.h"
#include "observe/observe.h"
#include "runtime/compiler.h"
#include "runtime/enum_bits.h"
#include "runtime/objects.h"
#include "runtime/targets.h"
#include "runtime/view_args.h"
#include "scheduler/manifest.h"

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <sstream>

using namespace xpu::rt;
using xpu::Diagnostic;

namespace {

std::string jsonString(const std::string &s) {
  std::ostringstream os;
  os << '"';
  for (unsigned char c : s) {
    switch (c) {
    case '"': os << "\\\""; break;
    case '\\': os << "\\\\"; break;
    case '\n': os << "\\n"; break;
    case '\t': os << "\\t"; break;
    case '\r': os << "\\r"; break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        os << buf;
      } else {
        os << c;
      }
    }
  }
  os << '"';
  return os.str();
}

std::shared_ptr<DiagnosticsObj> makeDiagnostics(std::vector<Diagnostic> list) {
  static const char *severities[] = {"error", "warning", "note", "remark"};
  auto obj = std::make_shared<DiagnosticsObj>();
  obj->list = std::move(list);
  std::ostringstream json, text;
  json << "[";
  for (size_t i = 0; i < obj->list.size(); ++i) {
    const Diagnostic &d = obj->list[i];
    json << (i ? "," : "") << "{\"severity\":\"" << severities[int(d.severity)]
         << "\",\"code\":" << jsonString(d.code)
         << ",\"message\":" << jsonString(d.message)
         << ",\"file\":" << jsonString(d.file) << ",\"line\":" << d.line
         << ",\"column\":" << d.column << "}";
    text << formatDiagnostic(d) << "\n";
  }
  json << "]";
  obj->json = json.str();
  obj->text = text.str();
  return obj;
}

/// Hands the diagnostics to the caller when asked for (NULL when even a
/// handle for them cannot be made).
void publish(std::vector<Diagnostic> list, xpu_diagnostics *out) {
  if (out)
    *out = toHandle<xpu_diagnostics>(
        HandleTable::get().add(Kind::diagnostics, makeDiagnostics(std::move(list))));
}

xpu_type toType(xpu::abi::Scalar s) { return xpu_type(int(s)); }

/// Whether the caller's options reach `field`: callers built against an
/// older header pass a smaller struct.
#define XPU_OPTION(options, field)                                             \
  ((options) && (options)->struct_size >=                                      \
                    offsetof(xpu_module_options, field) + sizeof((options)->field))

/// The device as a kernel's `device` attribute names it: BACKEND:INDEX,
/// INDEX counting that backend's devices in the context (as XPU_DEVICE).
std::string deviceSpec(const ContextObj &ctx, const DeviceObj &dev) {
  xpu_backend backend = dev.device->identity().backend;
  unsigned index = 0;
  for (const auto &d : ctx.devices) {
    if (d.get() == &dev)
      break;
    index += d->device->identity().backend == backend;
  }
  return std::string(xpu_backend_name(backend)) + ":" + std::to_string(index);
}

Status checkOptionsSize(const xpu_module_options *options) {
  if (options && options->struct_size < sizeof(uint32_t) * 2)
    return invalidArgument("xpu_module_options.struct_size is not set "
                           "(initialize with XPU_MODULE_OPTIONS_INIT)");
  return {};
}

} // namespace

extern "C" {

XPU_API xpu_status xpu_module_create(xpu_context context, xpu_device device,
                                     const char *text, size_t length,
                                     const xpu_module_options *options,
                                     xpu_module *out,
                                     xpu_diagnostics *diagnostics) {
  if (diagnostics)
    *diagnostics = nullptr;
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_module_create: `out` is NULL"));
  if (!text)
    return finish(invalidArgument("xpu_module_create: `text` is NULL"));
  if (Status st = checkOptionsSize(options); !st.isOk())
    return finish(st);

  std::shared_ptr<DeviceObj> dev;
  CompileRequest request;
  request.text = std::string_view(text, length);
  if (XPU_OPTION(options, source_name) && options->source_name)
    request.sourceName = options->source_name;
  if (options)
    request.runtimeChecks = !(options->flags & XPU_MODULE_NO_RUNTIME_CHECKS);
  if (device) {
    if (Status st = resolve(device, dev); !st.isOk())
      return finish(st);
    if (dev->context.lock() != ctx)
      return finish(invalidArgument("the device belongs to another context"));
  } else {
    xpu_device def = nullptr;
    if (xpu_status s = xpu_device_default(context, &def); s != XPU_SUCCESS)
      return s;
    (void)resolve(def, dev);
    request.explicitDevice = false;
  }
  request.device = deviceSpec(*ctx, *dev);
  if (XPU_OPTION(options, wave_width) && options->wave_width &&
      options->wave_width != dev->device->target().waveWidth)
    return finish({XPU_ERROR_UNSUPPORTED,
                   dev->device->label() + " runs code for waves of " +
                       std::to_string(dev->device->target().waveWidth) + ", not " +
                       std::to_string(options->wave_width) +
                       " (other widths: xpu_compile_for_target)"});

  request.options = "flags=" + std::to_string(options ? options->flags : 0);
  std::shared_ptr<const Program> program;
  std::vector<Diagnostic> diags;
  xpu::observe::BuildScope observed(request, *dev->device);
  Status st = buildProgram(*dev->device, dev->cache, request, program, diags);
  std::shared_ptr<xpu::observe::ModuleRecord> record = observed.finish(st.isOk());
  publish(std::move(diags), diagnostics);
  if (!st.isOk())
    return finish(st);

  auto mod = std::make_shared<ModuleObj>();
  mod->device = dev;
  mod->program = program;
  mod->observed = std::move(record);
  mod->buildInfo = program->blob.format + " from " + program->blob.toolchain + "; " +
                   program->blob.log;
  uint64_t h = 0;
  if (Status st = registerObject(dev, mod, h); !st.isOk())
    return finish(st);
  for (size_t i = 0; i < program->kernels.size(); ++i) {
    auto k = std::make_shared<KernelObj>();
    k->module = mod;
    k->info = program->kernels[i];
    k->code = program->code->kernel(i);
    k->argBytes = xpu::abi::layoutArgs(k->info->params, k->slots);
    describeArguments(*dev, *program, *k);
    uint64_t kh = 0;
    if (Status st = registerObject(dev, k, kh); !st.isOk()) {
      xpu_module_release(toHandle<xpu_module>(h));
      return finish(st);
    }
    mod->kernelHandles.push_back(kh);
  }
  *out = toHandle<xpu_module>(h);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_module_check(xpu_context context, const char *text,
                                    size_t length,
                                    const xpu_module_options *options,
                                    xpu_diagnostics *diagnostics) {
  if (diagnostics)
    *diagnostics = nullptr;
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!text)
    return finish(invalidArgument("xpu_module_check: `text` is NULL"));
  CompileRequest request;
  request.text = std::string_view(text, length);
  if (Status st = checkOptionsSize(options); !st.isOk())
    return finish(st);
  if (XPU_OPTION(options, source_name) && options->source_name)
    request.sourceName = options->source_name;
  if (XPU_OPTION(options, target) && options->target)
    request.target = options->target;
  std::vector<Diagnostic> diags;
  Status st = checkModule(request, diags);
  publish(std::move(diags), diagnostics);
  return finish(st);
}

XPU_API xpu_status xpu_module_format(xpu_context context, const char *text,
                                     size_t length,
                                     const xpu_module_options *options,
                                     const char **out,
                                     xpu_diagnostics *diagnostics) {
  if (diagnostics)
    *diagnostics = nullptr;
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!text || !out)
    return finish(invalidArgument("xpu_module_format: `text` or `out` is NULL"));
  if (Status st = checkOptionsSize(options); !st.isOk())
    return finish(st);
  CompileRequest request;
  request.text = std::string_view(text, length);
  if (XPU_OPTION(options, source_name) && options->source_name)
    request.sourceName = options->source_name;
  static thread_local std::string formatted;
  std::string result;
  std::vector<Diagnostic> diags;
  Status st = formatModule(request, result, diags);
  publish(std::move(diags), diagnostics);
  if (!st.isOk())
    return finish(st);
  formatted = std::move(result);
  *out = formatted.c_str();
  return XPU_SUCCESS;
}

namespace {

/// A malloc'd copy for the caller, who frees it with xpu_compiled_code_free.
void *callerCopy(const void *bytes, size_t size, size_t extra = 0) {
  void *copy = std::malloc(size + extra ? size + extra : 1);
  if (copy) {
    std::memcpy(copy, bytes, size);
    std::memset(static_cast<char *>(copy) + size, 0, extra);
  }
  return copy;
}

/// xpu_compile_for_target and, with `report`, its module report; with
/// `manifests`, its kernels' manifests (xpu_compile_manifest).
xpu_status compileOffline(const char *api, xpu_context context, const char *text,
                          size_t length, const xpu_module_options *options,
                          const char *target, const char *chip, void **code,
                          size_t *size, char **report, char **manifests,
                          xpu_diagnostics *diagnostics) {
  if (diagnostics)
    *diagnostics = nullptr;
  if (report)
    *report = nullptr;
  if (manifests)
    *manifests = nullptr;
  std::shared_ptr<ContextObj> ctx;
  if (Status st = resolve(context, ctx); !st.isOk())
    return finish(st);
  if (!text || !target || !code || !size)
    return finish(invalidArgument(std::string(api) + ": `text`, `target`, `code` "
                                                     "and `size` must not be NULL"));
  if (Status st = checkOptionsSize(options); !st.isOk())
    return finish(st);
  TargetDesc desc;
  unsigned wave = XPU_OPTION(options, wave_width) ? options->wave_width : 0;
  if (Status st = describeTarget(target, chip ? chip : "", wave, desc); !st.isOk())
    return finish(st);
  CompileRequest request;
  request.text = std::string_view(text, length);
  if (XPU_OPTION(options, source_name) && options->source_name)
    request.sourceName = options->source_name;
  if (options)
    request.runtimeChecks = !(options->flags & XPU_MODULE_NO_RUNTIME_CHECKS);
  Blob blob;
  std::vector<xpu::abi::KernelInfo> kernels;
  std::vector<Diagnostic> diags;
  Status st;
  std::shared_ptr<xpu::observe::ModuleRecord> record;
  {
    // Closed before the report, whose own front-end run is no stage of this.
    xpu::observe::BuildScope observed(request,
                                      std::string("target ") + target + " " + desc.chip);
    st = compileForTarget(request, desc, blob, kernels, diags);
    record = observed.finish(st.isOk());
  }
  std::string reportText;
  if (st.isOk() && report)
    st = xpu::observe::targetReport(*record, desc, blob, diags, reportText);
  publish(std::move(diags), diagnostics);
  if (!st.isOk())
    return finish(st);
  std::string manifestText =
      manifests ? xpu::sched::offlineManifests(desc, target, blob, kernels) : "";
  void *bytes = callerCopy(blob.code.data(), blob.code.size());
  void *json = report ? callerCopy(reportText.data(), reportText.size(), 1) : nullptr;
  void *listed = manifests ? callerCopy(manifestText.data(), manifestText.size(), 1) : nullptr;
  if (!bytes || (report && !json) || (manifests && !listed)) {
    std::free(bytes);
    std::free(json);
    std::free(listed);
    return finish({XPU_ERROR_OUT_OF_MEMORY, "no memory for the generated code"});
  }
  *code = bytes;
  *size = blob.code.size();
  if (report)
    *report = static_cast<char *>(json);
  if (manifests)
    *manifests = static_cast<char *>(listed);
  return XPU_SUCCESS;
}

} // namespace

XPU_API xpu_status xpu_compile_for_target(xpu_context context, const char *text,
                                          size_t length,
                                          const xpu_module_options *options,
                                          const char *target, const char *chip,
                                          void **code, size_t *size,
                                          xpu_diagnostics *diagnostics) {
  return compileOffline("xpu_compile_for_target", context, text, length, options, target,
                        chip, code, size, nullptr, nullptr, diagnostics);
}

XPU_API xpu_status xpu_compile_for_target_report(
    xpu_context context, const char *text, size_t length,
    const xpu_module_options *options, const char *target, const char *chip,
    void **code, size_t *size, char **report, xpu_diagnostics *diagnostics) {
  if (!report) {
    if (diagnostics)
      *diagnostics = nullptr;
    return finish(invalidArgument("xpu_compile_for_target_report: `report` is NULL"));
  }
  return compileOffline("xpu_compile_for_target_report", context, text, length, options,
                        target, chip, code, size, report, nullptr, diagnostics);
}

XPU_API xpu_status xpu_compile_manifest(xpu_context context, const char *text,
                                        size_t length,
                                        const xpu_module_options *options,
                                        const char *target, const char *chip,
                                        char **json, xpu_diagnostics *diagnostics) {
  if (!json) {
    if (diagnostics)
      *diagnostics = nullptr;
    return finish(invalidArgument("xpu_compile_manifest: `json` is NULL"));
  }
  void *code = nullptr;
  size_t size = 0;
  xpu_status st = compileOffline("xpu_compile_manifest", context, text, length, options,
                                 target, chip, &code, &size, nullptr, json, diagnostics);
  std::free(code);
  return st;
}

XPU_API void xpu_compiled_code_free(void *code) { std::free(code); }

XPU_API void xpu_module_release(xpu_module module) {
  if (!module)
    return;
  auto mod = unregisterObject<ModuleObj>(reinterpret_cast<uint64_t>(module));
  if (!mod)
    return;
  auto ctx = mod->device->context.lock();
  for (uint64_t k : mod->kernelHandles) {
    HandleTable::get().remove(k, Kind::kernel);
    if (ctx)
      ctx->forget(k);
  }
  if (ctx)
    ctx->forget(mod->handle);
}

XPU_API xpu_status xpu_module_binary(xpu_module module, const void **data,
                                     size_t *size, const char **format) {
  std::shared_ptr<ModuleObj> mod;
  if (Status st = resolve(module, mod); !st.isOk())
    return finish(st);
  if (!data || !size)
    return finish(invalidArgument("xpu_module_binary: `data` or `size` is NULL"));
  const Blob &blob = mod->program->blob;
  *data = blob.code.data();
  *size = blob.code.size();
  if (format)
    *format = blob.format.c_str();
  return XPU_SUCCESS;
}

XPU_API const char *xpu_module_build_info(xpu_module module) {
  std::shared_ptr<ModuleObj> mod;
  if (!resolve(module, mod).isOk())
    return "";
  return mod->buildInfo.c_str();
}

XPU_API xpu_status xpu_module_kernel_count(xpu_module module, uint32_t *out) {
  std::shared_ptr<ModuleObj> mod;
  if (Status st = resolve(module, mod); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_module_kernel_count: `out` is NULL"));
  *out = uint32_t(mod->kernelHandles.size());
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_module_kernel_at(xpu_module module, uint32_t index,
                                        xpu_kernel *out) {
  std::shared_ptr<ModuleObj> mod;
  if (Status st = resolve(module, mod); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_module_kernel_at: `out` is NULL"));
  if (index >= mod->kernelHandles.size())
    return finish({XPU_ERROR_NOT_FOUND, "kernel index " + std::to_string(index) +
                                            " out of range"});
  *out = toHandle<xpu_kernel>(mod->kernelHandles[index]);
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_module_kernel(xpu_module module, const char *name,
                                     xpu_kernel *out) {
  std::shared_ptr<ModuleObj> mod;
  if (Status st = resolve(module, mod); !st.isOk())
    return finish(st);
  if (!name || !out)
    return finish(invalidArgument("xpu_module_kernel: `name` or `out` is NULL"));
  std::string known;
  const auto &kernels = mod->program->kernels;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i]->name == name) {
      *out = toHandle<xpu_kernel>(mod->kernelHandles[i]);
      return XPU_SUCCESS;
    }
    known += (known.empty() ? "" : ", ") + kernels[i]->name;
  }
  return finish({XPU_ERROR_NOT_FOUND,
                 std::string("no kernel named '") + name + "' in the module" +
                     (known.empty() ? " (it has none)" : " (it has: " + known + ")")});
}

XPU_API const char *xpu_kernel_name(xpu_kernel kernel) {
  std::shared_ptr<KernelObj> k;
  if (!resolve(kernel, k).isOk())
    return "";
  return k->info->name.c_str();
}

XPU_API xpu_status xpu_kernel_param_count(xpu_kernel kernel, uint32_t *out) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_kernel_param_count: `out` is NULL"));
  *out = uint32_t(k->arguments.size());
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_kernel_param(xpu_kernel kernel, uint32_t index,
                                    xpu_param_info *out) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_kernel_param: `out` is NULL"));
  if (index >= k->arguments.size())
    return finish({XPU_ERROR_NOT_FOUND,
                   "parameter index " + std::to_string(index) + " out of range"});
  const xpu::abi::Param &p = k->info->params[k->arguments[index]];
  if (p.structArg >= 0) {
    *out = {};
    out->name = k->info->structs[p.structArg].name.c_str();
    out->kind = XPU_PARAM_STRUCT;
    return XPU_SUCCESS;
  }
  out->name = p.name.c_str();
  out->kind = p.view ? XPU_PARAM_VIEW : p.isBuffer ? XPU_PARAM_BUFFER : XPU_PARAM_SCALAR;
  out->type = toType(p.elem);
  out->lanes = p.lanes;
  out->access = p.access == xpu::abi::Access::ro ? XPU_ACCESS_READ_ONLY
                                                 : XPU_ACCESS_READ_WRITE;
  return XPU_SUCCESS;
}

/// The struct that launch argument `param` of `k` is, or a failure.
static Status structParam(const std::shared_ptr<KernelObj> &k, uint32_t param,
                          const xpu::abi::StructArg *&out) {
  if (param >= k->arguments.size())
    return {XPU_ERROR_NOT_FOUND, "parameter index " + std::to_string(param) + " out of range"};
  int32_t s = k->info->params[k->arguments[param]].structArg;
  if (s < 0)
    return invalidArgument("parameter " + std::to_string(param) + " of kernel '" +
                           k->info->name + "' is not a struct");
  out = &k->info->structs[s];
  return {};
}

XPU_API xpu_status xpu_kernel_struct_layout(xpu_kernel kernel, uint32_t param,
                                            size_t *bytes, uint32_t *field_count) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  if (!bytes || !field_count)
    return finish(invalidArgument("xpu_kernel_struct_layout: an out-parameter is NULL"));
  const xpu::abi::StructArg *s = nullptr;
  if (Status st = structParam(k, param, s); !st.isOk())
    return finish(st);
  *bytes = s->bytes;
  *field_count = s->fieldCount;
  return XPU_SUCCESS;
}

XPU_API xpu_status xpu_kernel_struct_field(xpu_kernel kernel, uint32_t param, uint32_t field,
                                           xpu_struct_field *out) {
  std::shared_ptr<KernelObj> k;
  if (Status st = resolve(kernel, k); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_kernel_struct_field: `out` is NULL"));
  const xpu::abi::StructArg *s = nullptr;
  if (Status st = structParam(k, param, s); !st.isOk())
    return finish(st);
  if (field >= s->fieldCount)
    return finish({XPU_ERROR_NOT_FOUND, "struct '" + s->typeName + "' has " +
                                            std::to_string(s->fieldCount) + " fields"});
  const xpu::abi::Param &p = k->info->params[s->firstParam + field];
  out->name = p.name.c_str() + s->name.size() + 1; // "name.field" -> "field"
  out->type = toType(p.elem);
  out->lanes = p.lanes;
  out->offset = p.fieldOffset;
  return XPU_SUCCESS;
}

XPU_API size_t xpu_diagnostics_count(xpu_diagnostics diags) {
  std::shared_ptr<DiagnosticsObj> d;
  if (!resolve(diags, d).isOk())
    return 0;
  return d->list.size();
}

XPU_API xpu_status xpu_diagnostics_get(xpu_diagnostics diags, size_t index,
                                       xpu_diagnostic *out) {
  std::shared_ptr<DiagnosticsObj> d;
  if (Status st = resolve(diags, d); !st.isOk())
    return finish(st);
  if (!out)
    return finish(invalidArgument("xpu_diagnostics_get: `out` is NULL"));
  if (index >= d->list.size())
    return finish({XPU_ERROR_NOT_FOUND, "diagnostic index out of range"});
  const Diagnostic &x = d->list[index];
  out->severity = xpu_severity(int(x.severity));
  out->code = x.code.c_str();
  out->message = x.message.c_str();
  out->file = x.file.c_str();
  out->line = x.line;
  out->column = x.column;
  return XPU_SUCCESS;
}

XPU_API const char *xpu_diagnostics_json(xpu_diagnostics diags) {
  std::shared_ptr<DiagnosticsObj> d;
  if (!resolve(diags, d).isOk())
    return "[]";
  return d->json.c_str();
}

XPU_API const char *xpu_diagnostics_text(xpu_diagnostics diags) {
  std::shared_ptr<DiagnosticsObj> d;
  if (!resolve(diags, d).isOk())
    return "";
  return d->text.c_str();
}

XPU_API void xpu_diagnostics_release(xpu_diagnostics diags) {
  if (diags)
    HandleTable::get().remove(reinterpret_cast<uint64_t>(diags), Kind::diagnostics);
}

XPU_API const char *xpu_type_name(xpu_type type) {
  uint32_t bits = enumBits(type);
  if (bits < XPU_TYPE_BOOL || bits > XPU_TYPE_F64)
    return "unknown";
  return xpu::abi::scalarName(xpu::abi::Scalar(bits));
}

XPU_API size_t xpu_type_size(xpu_type type) {
  uint32_t bits = enumBits(type);
  if (bits < XPU_TYPE_BOOL || bits > XPU_TYPE_F64)
    return 0;
  return xpu::abi::scalarBytes(xpu::abi::Scalar(bits));
}

} // extern "C"
