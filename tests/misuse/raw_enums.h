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
/* An argument whose kind and type fields hold these values. */
xpu_arg raw_arg(int32_t kind, int32_t type, uint32_t lanes);

#ifdef __cplusplus
}
#endif

#endif
