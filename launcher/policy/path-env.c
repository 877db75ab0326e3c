/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "path-env.h"

/* A rule at depth @d holding @path decides if it is deeper than what decided so far. */
static void consider(const char *path, const char *rule, bool shows, unsigned *depth,
		     bool *matched, bool *ret)
{
	unsigned d = cr_path_depth(rule);

	if (!cr_path_is_within(path, rule) || (*matched && d < *depth))
		return;
	*depth = d;
	*matched = true;
	*ret = shows;
}

bool cr_policy_shows_host(const struct cr_policy *p, const char *const *system_paths,
			  const char *path)
{
	bool matched = false, shows = false;
	unsigned depth = 0;

	if (p->workspace)
		consider(path, p->workspace, true, &depth, &matched, &shows);
	for (size_t i = 0; i < p->n_paths; i++)
		consider(path, p->paths[i].path, p->paths[i].access != CR_PATH_HIDE, &depth,
			 &matched, &shows);
	for (size_t i = 0; i < p->n_caches; i++)
		consider(path, p->caches[i].path, false, &depth, &matched, &shows);
	if (matched)
		return shows;
	for (size_t i = 0; system_paths && system_paths[i]; i++)
		if (cr_path_is_within(path, system_paths[i]))
			return true;
	return false;
}

/* Append @s (@n bytes) to the NULL-terminated @v of @len entries. 0 or -ENOMEM. */
static int push_n(char ***v, size_t *len, const char *s, size_t n)
{
	char *d = strndup(s, n), **a;

	a = d ? reallocarray(*v, *len + 2, sizeof(*a)) : NULL;
	if (!a) {
		free(d);
		return -ENOMEM;
	}
	a[(*len)++] = d;
	a[*len] = NULL;
	*v = a;
	return 0;
}

static bool listed(char *const *v, const char *s, size_t n)
{
	for (; v && *v; v++)
		if (strlen(*v) == n && strncmp(*v, s, n) == 0)
			return true;
	return false;
}

int cr_sandbox_path(const struct cr_policy *p, const char *const *system_paths,
		    const char *host_path, char **ret_path, char ***ret_hidden)
{
	_cleanup_strv_ char **kept = NULL, **hidden = NULL;
	size_t n_kept = 0, n_hidden = 0, len = 0;
	const char *s = host_path && *host_path ? host_path : CR_DEFAULT_PATH;
	char *out, *o;
	int r = 0;

	for (const char *e = s;; e++) {
		size_t n = strcspn(e, ":");
		char one[4096];
		bool shows;

		(void)snprintf(one, sizeof(one), "%.*s", (int)n, e);
		shows = one[0] == '/' && n < sizeof(one) && cr_path_check(one, true) == 0 &&
			cr_policy_shows_host(p, system_paths, one);
		if (shows && !listed(kept, e, n)) {
			r = push_n(&kept, &n_kept, e, n);
			len += n + 1;
		} else if (!shows && !listed(hidden, e, n)) {
			r = push_n(&hidden, &n_hidden, e, n);
		}
		if (r < 0)
			return r;
		e += n;
		if (!*e)
			break;
	}
	if (n_kept == 0)
		out = strdup(CR_DEFAULT_PATH);
	else
		out = o = calloc(1, len);
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < n_kept; i++)
		o += sprintf(o, "%s%s", i ? ":" : "", kept[i]);
	*ret_path = out;
	*ret_hidden = TAKE_PTR(hidden);
	return 0;
}
