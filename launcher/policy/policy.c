/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "policy.h"

static const char *const path_access_names[_CR_PATH_ACCESS_MAX] = {
	[CR_PATH_RO] = "ro",
	[CR_PATH_RW] = "rw",
	[CR_PATH_HIDE] = "hide",
};

static const char *const net_mode_names[_CR_NET_MAX] = {
	[CR_NET_NONE] = "none",
	[CR_NET_HOST] = "host",
	[CR_NET_HOSTS] = "allow_hosts",
};

static const char *const seccomp_mode_names[_CR_SECCOMP_MAX] = {
	[CR_SECCOMP_DEFAULT] = "default",
	[CR_SECCOMP_STRICT] = "strict",
	[CR_SECCOMP_BASIC] = "basic",
	[CR_SECCOMP_OFF] = "off",
	[CR_SECCOMP_PROFILE] = "profile",
};

const char *cr_path_access_to_string(enum cr_path_access a)
{
	return a >= 0 && a < _CR_PATH_ACCESS_MAX ? path_access_names[a] : NULL;
}

const char *cr_net_mode_to_string(enum cr_net_mode m)
{
	return m >= 0 && m < _CR_NET_MAX ? net_mode_names[m] : NULL;
}

enum cr_net_mode cr_net_mode_from_string(const char *s)
{
	for (int i = 0; i < _CR_NET_MAX; i++)
		if (s && strcmp(s, net_mode_names[i]) == 0)
			return i;
	return _CR_NET_INVALID;
}

static const char *const landlock_mode_names[_CR_LANDLOCK_MODE_MAX] = {
	[CR_LANDLOCK_BEST_EFFORT] = "best-effort",
	[CR_LANDLOCK_REQUIRED] = "required",
	[CR_LANDLOCK_OFF] = "off",
};

const char *cr_landlock_mode_to_string(enum cr_landlock_mode m)
{
	return m >= 0 && m < _CR_LANDLOCK_MODE_MAX ? landlock_mode_names[m] : NULL;
}

enum cr_landlock_mode cr_landlock_mode_from_string(const char *s)
{
	for (int i = 0; i < _CR_LANDLOCK_MODE_MAX; i++)
		if (s && strcmp(s, landlock_mode_names[i]) == 0)
			return i;
	return _CR_LANDLOCK_MODE_INVALID;
}

const char *cr_seccomp_mode_to_string(enum cr_seccomp_mode m)
{
	return m >= 0 && m < _CR_SECCOMP_MAX ? seccomp_mode_names[m] : NULL;
}

enum cr_seccomp_mode cr_seccomp_mode_from_string(const char *s)
{
	for (int i = 0; i < _CR_SECCOMP_MAX; i++)
		if (s && i != CR_SECCOMP_PROFILE && i != CR_SECCOMP_BASIC &&
		    strcmp(s, seccomp_mode_names[i]) == 0)
			return i;
	return _CR_SECCOMP_INVALID;
}

void cr_secrets_free(struct cr_secret *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].name);
		if (s[i].value)
			explicit_bzero(s[i].value, strlen(s[i].value));
		free(s[i].value);
	}
	free(s);
}

void cr_policy_done(struct cr_policy *p)
{
	free(p->workspace);
	free(p->cwd);
	free(p->home);
	for (size_t i = 0; i < p->n_paths; i++)
		free(p->paths[i].path);
	free(p->paths);
	for (size_t i = 0; i < p->n_pins; i++)
		free(p->pins[i]);
	free(p->pins);
	for (size_t i = 0; i < p->n_caches; i++) {
		free(p->caches[i].name);
		free(p->caches[i].path);
		free(p->caches[i].dir);
	}
	free(p->caches);
	strv_freep(&p->path_hidden);
	strv_freep(&p->unreadable);
	free(p->hostname);
	strv_freep(&p->allow_hosts);
	for (char **e = p->env; e && *e; e++)
		explicit_bzero(*e, strlen(*e));
	strv_freep(&p->env);
	cr_secrets_free(p->secrets, p->n_secrets);
	free(p->keep_fds);
	free(p->tcp_connect);
	free(p->tcp_bind);
	free(p->seccomp_profile);
	cr_fs_ops_free(p->fs_ops, p->n_fs_ops);
	free(p->ex.argv0);
	free(p->ex.uid_map);
	free(p->ex.gid_map);
	for (size_t i = 0; i < p->ex.n_seccomp_programs; i++)
		free(p->ex.seccomp_programs[i].insns);
	free(p->ex.seccomp_programs);
	strv_freep(&p->ex.lock_files);
	*p = (struct cr_policy){};
}
