/* SPDX-License-Identifier: MIT */
/* A fake json-c (tests/fake-json-c/json-c/json.h): objects and arrays as lists of children. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

enum kind {
	OBJECT,
	ARRAY,
	STRING,
	BOOLEAN,
	UINT64
};

struct json_object {
	enum kind kind;
	char *key; /* as a member of an object */
	char *s;
	uint64_t n;
	json_object **children;
	size_t n_children;
	unsigned refs; /* json_object_get() and json_object_put() */
};

static json_object *new_node(enum kind k)
{
	json_object *o = calloc(1, sizeof(*o));

	if (o) {
		o->kind = k;
		o->refs = 1;
	}
	return o;
}

json_object *json_object_new_object(void)
{
	return new_node(OBJECT);
}

json_object *json_object_new_array(void)
{
	return new_node(ARRAY);
}

json_object *json_object_new_string(const char *s)
{
	json_object *o = new_node(STRING);

	if (o)
		o->s = strdup(s);
	return o;
}

json_object *json_object_new_boolean(int b)
{
	json_object *o = new_node(BOOLEAN);

	if (o)
		o->n = b != 0;
	return o;
}

json_object *json_object_new_uint64(uint64_t v)
{
	json_object *o = new_node(UINT64);

	if (o)
		o->n = v;
	return o;
}

/* A NULL value stands for JSON null, as in json-c: a STRING node with no text. */
static int append(json_object *parent, const char *key, json_object *v)
{
	json_object **c = realloc(parent->children, (parent->n_children + 1) * sizeof(*c));

	if (!c)
		return -1;
	parent->children = c;
	if (!v)
		v = new_node(STRING);
	if (!v)
		return -1;
	v->key = key ? strdup(key) : NULL;
	c[parent->n_children++] = v;
	return 0;
}

int json_object_object_add(json_object *o, const char *key, json_object *v)
{
	return append(o, key, v);
}

int json_object_array_add(json_object *a, json_object *v)
{
	return append(a, NULL, v);
}

int json_object_object_get_ex(const json_object *o, const char *key, json_object **ret)
{
	for (size_t i = 0; o && i < o->n_children; i++)
		if (o->children[i]->key && strcmp(o->children[i]->key, key) == 0) {
			if (ret)
				*ret = o->children[i];
			return 1;
		}
	return 0;
}

const char *json_object_get_string(json_object *o)
{
	return o && o->kind == STRING ? o->s : NULL;
}

int json_object_get_boolean(const json_object *o)
{
	return o && o->kind == BOOLEAN && o->n;
}

uint64_t json_object_get_uint64(const json_object *o)
{
	return o && o->kind == UINT64 ? o->n : 0;
}

size_t json_object_array_length(const json_object *a)
{
	return a ? a->n_children : 0;
}

json_object *json_object_get(json_object *o)
{
	if (o)
		o->refs++;
	return o;
}

int json_object_put(json_object *o)
{
	if (!o || --o->refs > 0)
		return 0;
	for (size_t i = 0; i < o->n_children; i++)
		json_object_put(o->children[i]);
	free(o->children);
	free(o->key);
	free(o->s);
	free(o);
	return 1;
}
