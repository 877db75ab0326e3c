/* SPDX-License-Identifier: MIT */
/* Building JSON with every write checked: corral's documents (status, ledger lines, serve
 * responses, reports) are built whole or not at all. Only json-c's own calls underneath, so
 * corral.exe and the Windows driver use it too. */
#pragma once

#include <stddef.h>

struct json_object;

/* The one checked way to build a JSON object or array: each consumes @v (freed on failure) and
 * returns 0 or -ENOMEM. A NULL @v is a failed allocation, never a JSON null (cr_json_add_null()
 * says that), and a NULL @o an earlier one, so a document is built whole or not at all:
 *     r = r ?: cr_json_add(o, "time", json_object_new_string(now)); */
int cr_json_add(struct json_object *o, const char *key, struct json_object *v);
int cr_json_append(struct json_object *a, struct json_object *v);

/* A JSON null under @key of @o. 0 or -ENOMEM. */
int cr_json_add_null(struct json_object *o, const char *key);

/* The string @s under @key of @o, or null when @s is NULL. 0 or -ENOMEM. */
int cr_json_add_str(struct json_object *o, const char *key, const char *s);

/* @o when @r (a chain of the adds above) is 0; else @o is freed and NULL returned, so that a
 * document is sent or written whole or not at all. */
struct json_object *cr_json_whole(struct json_object *o, int r);

/* @key of @from, as it is (a JSON null too), into @to when @from has it; nothing when it does
 * not or @from is NULL. 0 or -ENOMEM. */
int cr_json_copy(struct json_object *to, struct json_object *from, const char *key);

/* The @n strings of @v as a JSON array; NULL on allocation failure. */
struct json_object *cr_json_strv(char *const *v, size_t n);
