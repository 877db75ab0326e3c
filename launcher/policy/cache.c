/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"

bool cr_cache_name_ok(const char *name, size_t len)
{
	static const char extra[] = "_.-";

	if (len == 0 || len > CR_CACHE_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      (c != '\0' && strchr(extra, c))))
			return false;
	}
	return true;
}

/* Does @path have a "." or ".." component? */
static bool has_dot_component(const char *path)
{
	for (const char *c = path; *c; c += strcspn(c, "/")) {
		size_t n;

		c += strspn(c, "/");
		n = strcspn(c, "/");
		if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return true;
	}
	return false;
}

/* @path with "~" expanded against @home, allocated; NULL on allocation failure. */
static char *expand_home(const char *path, const char *home)
{
	char *s;

	if (path[0] != '~' || (path[1] != '\0' && path[1] != '/'))
		return strdup(path);
	if (asprintf(&s, "%s%s", strcmp(home, "/") == 0 && path[1] ? "" : home, path + 1) < 0)
		return NULL;
	return s;
}

int cr_cache_spec_parse(const char *opt, const char *spec, char sep, const char *home,
			char **ret_name, char **ret_path, char *msg, size_t size)
{
	const char *s = strchr(spec, sep);
	_cleanup_free_ char *name = NULL, *path = NULL;

	if (!s || s == spec || !s[1])
		return cr_msg(msg, size, -EINVAL, "%s: '%s' is not of the form NAME%cPATH", opt,
			      spec, sep);
	if (!cr_cache_name_ok(spec, (size_t)(s - spec)))
		return cr_msg(msg, size, -EINVAL,
			      "%s: cache name '%.*s' is not usable: 1-%d letters, digits, '_', '.' and '-', not starting with '.' (no '/', no '..')",
			      opt, (int)(s - spec) > 80 ? 80 : (int)(s - spec), spec,
			      CR_CACHE_NAME_MAX);
	name = strndup(spec, (size_t)(s - spec));
	path = expand_home(s + 1, home);
	if (!name || !path)
		return -ENOMEM;
	if (cr_path_check(path, true) < 0 || has_dot_component(path))
		return cr_msg(msg, size, -EINVAL,
			      "%s %s: '%s' is not an absolute path inside the sandbox without '.' and '..' (~ is the sandbox's HOME)",
			      opt, name, s + 1);
	if (strcmp(path, "/") == 0)
		return cr_msg(msg, size, -EINVAL, "%s %s: a cache cannot be the root itself", opt,
			      name);
	if (cr_path_is_within(path, "/proc") || cr_path_is_within(path, "/dev"))
		return cr_msg(msg, size, -EINVAL,
			      "%s %s=%s: paths under /proc and /dev are made by the sandbox itself",
			      opt, name, path);
	*ret_name = TAKE_PTR(name);
	*ret_path = TAKE_PTR(path);
	return 0;
}

int cr_cache_add(struct cr_policy *p, size_t n_profile, char *name, char *path, const char *opt,
		 char *msg, size_t size)
{
	_cleanup_free_ char *n = name, *d = path;
	struct cr_cache *a;

	if (cr_path_is_within(p->workspace, d)) {
		return cr_msg(msg, size, -EINVAL,
			      "%s %s: %s would cover the workspace %s; put the cache elsewhere", opt,
			      n, d, p->workspace);
	}
	for (size_t i = 0; i < p->n_caches; i++) {
		if (strcmp(p->caches[i].path, d) != 0)
			continue;
		if (i >= n_profile)
			return cr_msg(msg, size, -EINVAL,
				      "%s %s: %s already holds the cache %s", opt, n, d,
				      p->caches[i].name);
		free(p->caches[i].name); /* the option wins over the profile */
		p->caches[i].name = TAKE_PTR(n);
		return 0;
	}
	a = reallocarray(p->caches, p->n_caches + 1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	p->caches = a;
	a[p->n_caches++] = (struct cr_cache){ TAKE_PTR(n), TAKE_PTR(d), NULL };
	return 0;
}
