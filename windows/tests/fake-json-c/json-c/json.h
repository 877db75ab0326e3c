/* SPDX-License-Identifier: MIT */
/* The part of json-c's API that windows/report.c uses, for the Windows test build: json-c has
 * no mingw package in Debian. tests/fake-json-c.c keeps the objects as a small tree the tests
 * inspect; the real corral.exe would link json-c itself. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct json_object json_object;

json_object *json_object_new_object(void);
json_object *json_object_new_array(void);
json_object *json_object_new_string(const char *s);
json_object *json_object_new_boolean(int b);
json_object *json_object_new_uint64(uint64_t v);
int json_object_object_add(json_object *o, const char *key, json_object *v);
int json_object_array_add(json_object *a, json_object *v);
int json_object_object_get_ex(const json_object *o, const char *key, json_object **ret);
const char *json_object_get_string(json_object *o);
int json_object_get_boolean(const json_object *o);
uint64_t json_object_get_uint64(const json_object *o);
size_t json_object_array_length(const json_object *a);
json_object *json_object_get(json_object *o);
int json_object_put(json_object *o);
