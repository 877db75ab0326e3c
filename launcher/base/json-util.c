/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <json-c/json.h>

#include "json-util.h"

int cr_json_add(json_object *o, const char *key, json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int cr_json_append(json_object *a, json_object *v)
{
	if (!a || !v || json_object_array_add(a, v) < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int cr_json_add_null(json_object *o, const char *key)
{
	return o && json_object_object_add(o, key, NULL) >= 0 ? 0 : -ENOMEM;
}

int cr_json_add_str(json_object *o, const char *key, const char *s)
{
	return s ? cr_json_add(o, key, json_object_new_string(s)) : cr_json_add_null(o, key);
}

json_object *cr_json_whole(json_object *o, int r)
{
	if (r == 0)
		return o;
	json_object_put(o);
	return NULL;
}

int cr_json_copy(json_object *to, json_object *from, const char *key)
{
	json_object *v = NULL;

	if (!from || !json_object_object_get_ex(from, key, &v))
		return 0;
	return v ? cr_json_add(to, key, json_object_get(v)) : cr_json_add_null(to, key);
}

json_object *cr_json_strv(char *const *v, size_t n)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++)
		r = cr_json_append(a, json_object_new_string(v[i]));
	return cr_json_whole(a, r);
}
