/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/json-util.h"
#include "capability.h"
#include "host-pattern.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"

static const char *const net_cap_names[_CR_NETCAP_MAX] = {
	[CR_NETCAP_NONE] = "none",
	[CR_NETCAP_HOSTS] = "allow_hosts",
	[CR_NETCAP_ALL] = "all",
};

static const char *const unconfined_names[] = { "seccomp", "landlock", "namespaces", "limits",
						"ptrace" };

const char *cr_net_cap_to_string(enum cr_net_cap n)
{
	return n >= 0 && n < _CR_NETCAP_MAX ? net_cap_names[n] : NULL;
}

enum cr_net_cap cr_net_cap_from_string(const char *s)
{
	for (int i = 0; i < _CR_NETCAP_MAX; i++)
		if (s && strcmp(s, net_cap_names[i]) == 0)
			return i;
	return _CR_NETCAP_INVALID;
}

/* --- lists --------------------------------------------------------------------------------- */

static int strv_push(char ***v, size_t *n, const char *s)
{
	_cleanup_free_ char *copy = strdup(s);
	char **a;

	if (!copy)
		return -ENOMEM;
	a = reallocarray(*v, *n + 2, sizeof(char *));
	if (!a)
		return -ENOMEM;
	a[(*n)++] = TAKE_PTR(copy);
	a[*n] = NULL;
	*v = a;
	return 0;
}

/* Remove entry @i, keeping the order of the others. */
static void strv_remove(char **v, size_t *n, size_t i)
{
	free(v[i]);
	memmove(v + i, v + i + 1, (*n - i) * sizeof(char *)); /* moves the NULL too */
	(*n)--;
}

static bool path_covered(char *const *v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (cr_path_is_within(path, v[i]))
			return true;
	return false;
}

static bool host_covered(char *const *v, size_t n, const char *host)
{
	for (size_t i = 0; i < n; i++)
		if (cr_host_matches(v[i], host))
			return true;
	return false;
}

int cr_capability_add_path(struct cr_capability *c, bool write, const char *path)
{
	char ***v = write ? &c->fs_write : &c->fs_read;
	size_t *n = write ? &c->n_fs_write : &c->n_fs_read;

	if (path_covered(*v, *n, path))
		return 0;
	/* Keep the list minimal: entries inside the new path add nothing. */
	for (size_t i = *n; i-- > 0;)
		if (cr_path_is_within((*v)[i], path))
			strv_remove(*v, n, i);
	return strv_push(v, n, path);
}

int cr_capability_add_host(struct cr_capability *c, const char *host)
{
	_cleanup_free_ char *lower = NULL;
	int r;

	if (cr_host_pattern_check(host) < 0)
		return -EINVAL;
	lower = strdup(host);
	if (!lower)
		return -ENOMEM;
	for (char *p = lower; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	if (c->net < CR_NETCAP_HOSTS)
		c->net = CR_NETCAP_HOSTS;
	if (host_covered(c->hosts, c->n_hosts, lower))
		return 0;
	for (size_t i = c->n_hosts; i-- > 0;)
		if (cr_host_matches(lower, c->hosts[i]))
			strv_remove(c->hosts, &c->n_hosts, i);
	r = strv_push(&c->hosts, &c->n_hosts, lower);
	return r;
}

/* --- the order ----------------------------------------------------------------------------- */

static bool read_within(const struct cr_capability *base, const char *path)
{
	return path_covered(base->fs_read, base->n_fs_read, path) ||
	       path_covered(base->fs_write, base->n_fs_write, path);
}

static bool net_within(const struct cr_capability *req, const struct cr_capability *base)
{
	if (req->net == CR_NETCAP_NONE || base->net == CR_NETCAP_ALL)
		return true;
	if (req->net == CR_NETCAP_ALL || base->net == CR_NETCAP_NONE)
		return false;
	for (size_t i = 0; i < req->n_hosts; i++)
		if (!host_covered(base->hosts, base->n_hosts, req->hosts[i]))
			return false;
	return true;
}

bool cr_capability_is_within(const struct cr_capability *req, const struct cr_capability *base)
{
	for (size_t i = 0; i < req->n_fs_read; i++)
		if (!read_within(base, req->fs_read[i]))
			return false;
	for (size_t i = 0; i < req->n_fs_write; i++)
		if (!path_covered(base->fs_write, base->n_fs_write, req->fs_write[i]))
			return false;
	if (!net_within(req, base) || (req->spawn && !base->spawn))
		return false;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		if (req->limit[l] > base->limit[l])
			return false;
	return req->timeout_ms <= base->timeout_ms && (req->unconfined & ~base->unconfined) == 0;
}

static int add_all(struct cr_capability *c, const struct cr_capability *from)
{
	int r = 0;

	for (size_t i = 0; i < from->n_fs_read && r >= 0; i++)
		r = cr_capability_add_path(c, false, from->fs_read[i]);
	for (size_t i = 0; i < from->n_fs_write && r >= 0; i++)
		r = cr_capability_add_path(c, true, from->fs_write[i]);
	for (size_t i = 0; i < from->n_hosts && r >= 0; i++)
		r = cr_capability_add_host(c, from->hosts[i]);
	return r;
}

static void join_scalars(struct cr_capability *c, const struct cr_capability *a,
			 const struct cr_capability *b)
{
	c->net = a->net > b->net ? a->net : b->net;
	c->spawn = a->spawn || b->spawn;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		c->limit[l] = a->limit[l] > b->limit[l] ? a->limit[l] : b->limit[l];
	c->timeout_ms = a->timeout_ms > b->timeout_ms ? a->timeout_ms : b->timeout_ms;
	c->unconfined = a->unconfined | b->unconfined;
}

/* With the whole network, a host list means nothing. */
static void drop_hosts_unless_needed(struct cr_capability *c)
{
	if (c->net == CR_NETCAP_HOSTS)
		return;
	strv_freep(&c->hosts);
	c->hosts = NULL;
	c->n_hosts = 0;
}

int cr_capability_join(const struct cr_capability *a, const struct cr_capability *b,
		       struct cr_capability *ret)
{
	struct cr_capability c = {};
	int r;

	r = add_all(&c, a);
	if (r >= 0)
		r = add_all(&c, b);
	if (r < 0) {
		cr_capability_done(&c);
		return r;
	}
	join_scalars(&c, a, b);
	drop_hosts_unless_needed(&c);
	*ret = c;
	return 0;
}

static int excess_net(const struct cr_capability *req, const struct cr_capability *base,
		      struct cr_capability *c)
{
	int r = 0;

	if (net_within(req, base))
		return 0;
	if (req->net == CR_NETCAP_ALL) {
		c->net = CR_NETCAP_ALL;
		return 0;
	}
	for (size_t i = 0; i < req->n_hosts && r >= 0; i++)
		if (base->net == CR_NETCAP_NONE ||
		    !host_covered(base->hosts, base->n_hosts, req->hosts[i]))
			r = cr_capability_add_host(c, req->hosts[i]);
	c->net = CR_NETCAP_HOSTS;
	return r;
}

int cr_capability_excess(const struct cr_capability *req, const struct cr_capability *base,
			 struct cr_capability *ret)
{
	struct cr_capability c = {};
	int r = 0;

	for (size_t i = 0; i < req->n_fs_read && r >= 0; i++)
		if (!read_within(base, req->fs_read[i]))
			r = cr_capability_add_path(&c, false, req->fs_read[i]);
	for (size_t i = 0; i < req->n_fs_write && r >= 0; i++)
		if (!path_covered(base->fs_write, base->n_fs_write, req->fs_write[i]))
			r = cr_capability_add_path(&c, true, req->fs_write[i]);
	if (r >= 0)
		r = excess_net(req, base, &c);
	if (r < 0) {
		cr_capability_done(&c);
		return r;
	}
	c.spawn = req->spawn && !base->spawn;
	for (int l = 0; l < _CR_LIMIT_MAX; l++)
		c.limit[l] = req->limit[l] > base->limit[l] ? req->limit[l] : CR_LIMIT_UNSET;
	c.timeout_ms = req->timeout_ms > base->timeout_ms ? req->timeout_ms : 0;
	c.unconfined = req->unconfined & ~base->unconfined;
	*ret = c;
	return 0;
}

void cr_capability_done(struct cr_capability *c)
{
	strv_freep(&c->fs_read);
	strv_freep(&c->fs_write);
	strv_freep(&c->hosts);
	*c = (struct cr_capability){};
}

/* --- JSON ---------------------------------------------------------------------------------- */

static json_object *limit_to_json(enum cr_limit l, uint64_t v)
{
	if (v == CR_LIMIT_INFINITY)
		return json_object_new_string("max");
	if (l == CR_LIMIT_CPU)
		return json_object_new_double((double)v / 1000);
	return json_object_new_uint64(v);
}

static int limits_to_json(json_object *o, const struct cr_capability *c, bool as_request)
{
	json_object *limits = json_object_new_object();
	int r = 0;

	if (!limits)
		return -ENOMEM;
	for (int l = 0; l < _CR_LIMIT_MAX && r >= 0; l++)
		if (c->limit[l] != CR_LIMIT_UNSET)
			r = cr_json_add(limits, cr_limit_to_string(l), limit_to_json(l, c->limit[l]));
	if (r < 0 || (as_request && json_object_object_length(limits) == 0)) {
		json_object_put(limits);
		return r;
	}
	return cr_json_add(o, "limits", limits);
}

static int unconfined_to_json(json_object *o, const struct cr_capability *c, bool as_request)
{
	json_object *a;

	if (as_request && !c->unconfined)
		return 0;
	a = json_object_new_array();
	for (size_t i = 0; a && i < ELEMENTSOF(unconfined_names); i++)
		if ((c->unconfined & (1u << i)) &&
		    cr_json_append(a, json_object_new_string(unconfined_names[i])) < 0) {
			json_object_put(a);
			return -ENOMEM;
		}
	return cr_json_add(o, "unconfined", a);
}

static json_object *timeout_to_json(uint64_t ms)
{
	return ms == UINT64_MAX ? json_object_new_string("max") : json_object_new_uint64(ms);
}

json_object *cr_capability_to_json(const struct cr_capability *c, bool as_request)
{
	json_object *o = json_object_new_object();
	int r = o ? 0 : -ENOMEM;

	if (r >= 0 && (c->n_fs_read || !as_request))
		r = cr_json_add(o, "fs_read", cr_json_strv(c->fs_read, c->n_fs_read));
	if (r >= 0 && (c->n_fs_write || !as_request))
		r = cr_json_add(o, "fs_write", cr_json_strv(c->fs_write, c->n_fs_write));
	if (r >= 0 && (c->net != CR_NETCAP_NONE || !as_request))
		r = cr_json_add(o, "network", json_object_new_string(cr_net_cap_to_string(c->net)));
	if (r >= 0 && c->net == CR_NETCAP_HOSTS)
		r = cr_json_add(o, "allow_hosts", cr_json_strv(c->hosts, c->n_hosts));
	if (r >= 0 && (c->spawn || !as_request))
		r = cr_json_add(o, "spawn", json_object_new_boolean(c->spawn));
	if (r >= 0)
		r = limits_to_json(o, c, as_request);
	if (r >= 0 && (c->timeout_ms || !as_request))
		r = cr_json_add(o, "timeout_ms", timeout_to_json(c->timeout_ms));
	if (r >= 0)
		r = unconfined_to_json(o, c, as_request);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* A path as cr_path_canonicalize() gives them: absolute, no ".", "..", "//" or trailing '/'. */
static bool looks_canonical(const char *p)
{
	size_t n = strlen(p);

	if (cr_path_check(p, true) < 0)
		return false;
	if (n > 1 && p[n - 1] == '/')
		return false;
	return !strstr(p, "//") && !strstr(p, "/./") && !strstr(p, "/../") &&
	       !(n >= 2 && strcmp(p + n - 2, "/.") == 0) &&
	       !(n >= 3 && strcmp(p + n - 3, "/..") == 0);
}

static int paths_from_json(json_object *o, const char *key, struct cr_capability *c, char *msg,
			   size_t size)
{
	json_object *a;
	int r;

	if (!json_object_object_get_ex(o, key, &a))
		return 0;
	if (!json_object_is_type(a, json_type_array))
		return cr_msg(msg, size, -EINVAL, "\"%s\" is not an array", key);
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);
		const char *p = json_object_get_string(e);

		if (!json_object_is_type(e, json_type_string) || !looks_canonical(p))
			return cr_msg(msg, size, -EINVAL, "\"%s\"[%zu] is not a canonical absolute path", key, i);
		r = cr_capability_add_path(c, strcmp(key, "fs_write") == 0, p);
		if (r < 0)
			return r;
	}
	return 0;
}

static int net_from_json(json_object *o, struct cr_capability *c, char *msg, size_t size)
{
	json_object *v, *a = NULL;
	int r;

	if (!json_object_object_get_ex(o, "network", &v))
		return json_object_object_get_ex(o, "allow_hosts", NULL)
			       ? cr_msg(msg, size, -EINVAL, "\"allow_hosts\" without \"network\": \"allow_hosts\"")
			       : 0;
	c->net = json_object_is_type(v, json_type_string)
			 ? cr_net_cap_from_string(json_object_get_string(v))
			 : _CR_NETCAP_INVALID;
	if (c->net < 0) {
		c->net = CR_NETCAP_NONE;
		return cr_msg(msg, size, -EINVAL, "\"network\" is not \"none\", \"allow_hosts\" or \"all\"");
	}
	(void)json_object_object_get_ex(o, "allow_hosts", &a);
	if ((c->net == CR_NETCAP_HOSTS) != (a != NULL))
		return cr_msg(msg, size, -EINVAL, "\"allow_hosts\" goes with \"network\": \"allow_hosts\", and only with it");
	if (!a)
		return 0;
	if (!json_object_is_type(a, json_type_array) || json_object_array_length(a) == 0)
		return cr_msg(msg, size, -EINVAL, "\"allow_hosts\" is not a non-empty array");
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		r = json_object_is_type(e, json_type_string)
			    ? cr_capability_add_host(c, json_object_get_string(e))
			    : -EINVAL;
		if (r == -EINVAL)
			return cr_msg(msg, size, -EINVAL, "\"allow_hosts\"[%zu] is not a host pattern", i);
		if (r < 0)
			return r;
	}
	return 0;
}

static int limit_from_json(enum cr_limit l, json_object *v, uint64_t *ret)
{
	char buf[64];

	if (json_object_is_type(v, json_type_string))
		return strcmp(json_object_get_string(v), "max") == 0 ? (*ret = CR_LIMIT_INFINITY, 0)
								     : -EINVAL;
	if (l == CR_LIMIT_CPU && json_object_is_type(v, json_type_double))
		(void)snprintf(buf, sizeof(buf), "%.3f", json_object_get_double(v));
	else if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) > 0)
		(void)snprintf(buf, sizeof(buf), "%llu",
			       (unsigned long long)json_object_get_uint64(v));
	else
		return -EINVAL;
	/* cpu is in CPUs in JSON and in thousandths here; cr_limit_parse() reads CPUs. */
	return cr_limit_parse(l, buf, ret);
}

static int limits_from_json(json_object *o, struct cr_capability *c, char *msg, size_t size)
{
	json_object *limits;

	if (!json_object_object_get_ex(o, "limits", &limits))
		return 0;
	if (!json_object_is_type(limits, json_type_object))
		return cr_msg(msg, size, -EINVAL, "\"limits\" is not an object");
	json_object_object_foreach(limits, key, v) {
		int l;

		for (l = 0; l < _CR_LIMIT_MAX; l++)
			if (strcmp(key, cr_limit_to_string(l)) == 0)
				break;
		if (l == _CR_LIMIT_MAX)
			return cr_msg(msg, size, -EINVAL, "\"limits\": unknown limit \"%s\"", key);
		if (limit_from_json(l, v, &c->limit[l]) < 0)
			return cr_msg(msg, size, -EINVAL, "\"limits\".\"%s\": not a valid value", key);
	}
	return 0;
}

static int scalars_from_json(json_object *o, struct cr_capability *c, char *msg, size_t size)
{
	json_object *v;

	if (json_object_object_get_ex(o, "spawn", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return cr_msg(msg, size, -EINVAL, "\"spawn\" is not true or false");
		c->spawn = json_object_get_boolean(v);
	}
	if (json_object_object_get_ex(o, "timeout_ms", &v)) {
		if (json_object_is_type(v, json_type_string) &&
		    strcmp(json_object_get_string(v), "max") == 0)
			c->timeout_ms = UINT64_MAX;
		else if (json_object_is_type(v, json_type_int) && json_object_get_int64(v) >= 0)
			c->timeout_ms = json_object_get_uint64(v);
		else
			return cr_msg(msg, size, -EINVAL, "\"timeout_ms\" is not a number of milliseconds or \"max\"");
	}
	if (!json_object_object_get_ex(o, "unconfined", &v))
		return 0;
	if (!json_object_is_type(v, json_type_array))
		return cr_msg(msg, size, -EINVAL, "\"unconfined\" is not an array");
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(v, i));
		size_t j;

		for (j = 0; j < ELEMENTSOF(unconfined_names); j++)
			if (name && strcmp(name, unconfined_names[j]) == 0)
				break;
		if (j == ELEMENTSOF(unconfined_names))
			return cr_msg(msg, size, -EINVAL, "\"unconfined\"[%zu] is not seccomp, landlock, namespaces, limits or ptrace", i);
		c->unconfined |= 1u << j;
	}
	return 0;
}

int cr_capability_from_json(json_object *o, struct cr_capability *ret, char *msg, size_t size)
{
	static const char *const known[] = { "fs_read", "fs_write",   "network",   "allow_hosts",
					     "spawn",	"limits",     "timeout_ms", "unconfined" };
	struct cr_capability c = {};
	int r = 0;

	if (!json_object_is_type(o, json_type_object))
		return cr_msg(msg, size, -EINVAL, "a capability is a JSON object");
	json_object_object_foreach(o, key, v) {
		size_t i;

		(void)v;
		for (i = 0; i < ELEMENTSOF(known); i++)
			if (strcmp(key, known[i]) == 0)
				break;
		if (i == ELEMENTSOF(known))
			return cr_msg(msg, size, -EINVAL, "unknown key \"%s\"", key);
	}
	r = paths_from_json(o, "fs_read", &c, msg, size);
	if (r >= 0)
		r = paths_from_json(o, "fs_write", &c, msg, size);
	if (r >= 0)
		r = net_from_json(o, &c, msg, size);
	if (r >= 0)
		r = limits_from_json(o, &c, msg, size);
	if (r >= 0)
		r = scalars_from_json(o, &c, msg, size);
	if (r < 0) {
		if (r == -ENOMEM)
			(void)snprintf(msg, size, "out of memory");
		cr_capability_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}
