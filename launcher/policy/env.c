/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env.h"
#include "launcher/base/macro.h"

const char *cr_env_get(char *const *env, const char *key)
{
	size_t n = strlen(key);

	for (; env && *env; env++)
		if (strncmp(*env, key, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

/* Set KEY=VALUE (given whole in @kv, key length @klen) in the vector, replacing an earlier one. */
static int env_put(char ***env, size_t *n, const char *kv, size_t klen)
{
	char *copy, **v;

	copy = strdup(kv);
	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i++)
		if (strncmp((*env)[i], kv, klen + 1) == 0) {
			free((*env)[i]);
			(*env)[i] = copy;
			return 0;
		}
	v = reallocarray(*env, *n + 2, sizeof(char *));
	if (!v) {
		free(copy);
		return -ENOMEM;
	}
	v[(*n)++] = copy;
	v[*n] = NULL;
	*env = v;
	return 0;
}

static int env_copy(char ***env, size_t *n, char *const *host, const char *key)
{
	size_t klen = strlen(key);

	for (; host && *host; host++)
		if (strncmp(*host, key, klen) == 0 && (*host)[klen] == '=')
			return env_put(env, n, *host, klen);
	return 0;
}

int cr_env_build(char *const *host, const char *home, const char *const *keep, size_t n_keep,
		 const char *const *set, size_t n_set, char ***ret_env)
{
	static const char *const base[] = { "TERM", "LANG" };
	_cleanup_strv_ char **env = NULL;
	_cleanup_free_ char *home_kv = NULL;
	size_t n = 0;
	int r;

	env = calloc(1, sizeof(char *));
	if (!env)
		return -ENOMEM;
	/* Never the caller's PATH: its entries name the host's layout (a home's tool
	 * directories) and would run binaries the sandbox was not meant to show. */
	r = env_put(&env, &n, "PATH=" CR_DEFAULT_PATH, 4);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(base); i++) {
		r = env_copy(&env, &n, host, base[i]);
		if (r < 0)
			return r;
	}
	if (asprintf(&home_kv, "HOME=%s", home) < 0)
		return -ENOMEM;
	r = env_put(&env, &n, home_kv, 4);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_keep; i++) {
		r = env_copy(&env, &n, host, keep[i]);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < n_set; i++) {
		r = env_put(&env, &n, set[i], strcspn(set[i], "="));
		if (r < 0)
			return r;
	}
	*ret_env = TAKE_PTR(env);
	return 0;
}
