/* Calls into the C API with enum arguments given as plain ints, as a C
 * caller may: any 32-bit value, negative ones included. In C that is
 * defined; in C++ the test could not even form such a value without
 * undefined behaviour, so these wrappers are C. */
#include "raw_enums.h"

const char *raw_status_name(int32_t v) { return xpu_status_name(v); }
const char *raw_backend_name(int32_t v) { return xpu_backend_name(v); }
const char *raw_backend_note(xpu_context c, int32_t v) {
  return xpu_context_backend_note(c, v);
}
const char *raw_type_name(int32_t v) { return xpu_type_name(v); }
size_t raw_type_size(int32_t v) { return xpu_type_size(v); }

xpu_status raw_binary(xpu_builder b, int32_t op, xpu_value l, xpu_value r, xpu_value *o) {
  return xpu_builder_binary(b, op, l, r, o);
}
xpu_status raw_unary(xpu_builder b, int32_t op, xpu_value v, xpu_value *o) {
  return xpu_builder_unary(b, op, v, o);
}
xpu_status raw_compare(xpu_builder b, int32_t p, xpu_value l, xpu_value r, xpu_value *o) {
  return xpu_builder_compare(b, p, l, r, o);
}
xpu_status raw_cast(xpu_builder b, int32_t c, xpu_value v, const char *t, xpu_value *o) {
  return xpu_builder_cast(b, c, v, t, o);
}
xpu_status raw_coordinate(xpu_builder b, int32_t w, uint32_t axis, xpu_value *o) {
  return xpu_builder_coordinate(b, w, axis, o);
}
xpu_status raw_atomic(xpu_builder b, int32_t op, int32_t order, int32_t scope,
                      xpu_value v, xpu_value buf, xpu_value i, xpu_value *o) {
  return xpu_builder_atomic(b, op, v, buf, i, order, scope, o);
}
xpu_status raw_reduce(xpu_builder b, int32_t op, int32_t order, xpu_value v, xpu_value *o) {
  return xpu_builder_reduce(b, op, v, order, o);
}

xpu_status raw_wave_shuffle(xpu_builder b, int32_t mode, xpu_value v, xpu_value k, xpu_value *o) {
  return xpu_builder_wave_shuffle(b, mode, v, k, o);
}
xpu_status raw_wave_vote(xpu_builder b, int32_t vote, xpu_value p, xpu_value *o) {
  return xpu_builder_wave_vote(b, vote, p, o);
}
xpu_status raw_wave_reduce(xpu_builder b, int32_t op, xpu_value v, xpu_value *o) {
  return xpu_builder_wave_reduce(b, op, v, o);
}
xpu_status raw_wave_scan(xpu_builder b, int32_t op, int32_t scan, xpu_value v, xpu_value *o) {
  return xpu_builder_wave_scan(b, op, v, scan, o);
}

xpu_status raw_buffer_create_ex(xpu_device d, size_t bytes, int32_t memory, xpu_buffer *o) {
  xpu_buffer_options options = XPU_BUFFER_OPTIONS_INIT;
  options.memory = memory;
  return xpu_buffer_create_ex(d, bytes, &options, o);
}
xpu_status raw_buffer_map(xpu_buffer b, int32_t access, void **o) {
  return xpu_buffer_map(b, access, o);
}
xpu_status raw_buffer_import(xpu_device d, int32_t kind, uint64_t address, size_t bytes,
                             xpu_buffer *o) {
  xpu_import_desc desc = XPU_IMPORT_DESC_INIT;
  desc.kind = kind;
  desc.address = address;
  desc.bytes = bytes;
  return xpu_buffer_import(d, &desc, o);
}

xpu_arg raw_arg(int32_t kind, int32_t type, uint32_t lanes) {
  xpu_arg a;
  memset(&a, 0, sizeof a);
  a.kind = kind;
  a.type = type;
  a.lanes = lanes;
  return a;
}
