/* Enum arguments as plain ints: see raw_enums.c. */
#ifndef XPU_TESTS_RAW_ENUMS_H
#define XPU_TESTS_RAW_ENUMS_H

#include "xpu_c.h"

#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

const char *raw_status_name(int32_t v);
const char *raw_backend_name(int32_t v);
const char *raw_backend_note(xpu_context c, int32_t v);
const char *raw_type_name(int32_t v);
size_t raw_type_size(int32_t v);
xpu_status raw_binary(xpu_builder b, int32_t op, xpu_value l, xpu_value r, xpu_value *o);
xpu_status raw_unary(xpu_builder b, int32_t op, xpu_value v, xpu_value *o);
xpu_status raw_compare(xpu_builder b, int32_t p, xpu_value l, xpu_value r, xpu_value *o);
xpu_status raw_cast(xpu_builder b, int32_t c, xpu_value v, const char *t, xpu_value *o);
xpu_status raw_coordinate(xpu_builder b, int32_t w, uint32_t axis, xpu_value *o);
xpu_status raw_atomic(xpu_builder b, int32_t op, int32_t order, int32_t scope,
                      xpu_value v, xpu_value buf, xpu_value i, xpu_value *o);
xpu_status raw_reduce(xpu_builder b, int32_t op, int32_t order, xpu_value v, xpu_value *o);
xpu_status raw_wave_shuffle(xpu_builder b, int32_t mode, xpu_value v, xpu_value k, xpu_value *o);
xpu_status raw_wave_vote(xpu_builder b, int32_t vote, xpu_value p, xpu_value *o);
xpu_status raw_wave_reduce(xpu_builder b, int32_t op, xpu_value v, xpu_value *o);
xpu_status raw_wave_scan(xpu_builder b, int32_t op, int32_t scan, xpu_value v, xpu_value *o);
xpu_status raw_buffer_create_ex(xpu_device d, size_t bytes, int32_t memory, xpu_buffer *o);
xpu_status raw_buffer_map(xpu_buffer b, int32_t access, void **o);
xpu_status raw_buffer_import(xpu_device d, int32_t kind, uint64_t address, size_t bytes,
                             xpu_buffer *o);
/* An argument whose kind and type fields hold these values. */
xpu_arg raw_arg(int32_t kind, int32_t type, uint32_t lanes);

#ifdef __cplusplus
}
#endif

#endif
