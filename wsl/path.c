/* SPDX-License-Identifier: MIT */
/* Windows paths to WSL paths, and the wsl.exe command line of `corral run --backend wsl`. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "wsl.h"

/* The components after a root, separated by '\' or '/', appended to @out as "/c1/c2". */
static int append_components(const char *p, char *out, size_t size, char *msg, size_t msize)
{
	size_t n = strlen(out);

	while (*p) {
		size_t len = strcspn(p, "\\/");

		if (len == 0) { /* "a\\b" or a trailing separator */
			p++;
			continue;
		}
		if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
			return cr_msg(msg, msize, -EINVAL,
				      "the workspace path has a '.' or '..' component; give it resolved");
		for (size_t i = 0; i < len; i++)
			if ((unsigned char)p[i] < 0x20 || strchr("<>:\"|?*", p[i]))
				return cr_msg(msg, msize, -EINVAL,
					      "the workspace path has a character Windows does not allow in a name");
		if (n + 1 + len >= size)
			return cr_msg(msg, msize, -ENAMETOOLONG, "the workspace path is too long");
		out[n++] = '/';
		memcpy(out + n, p, len);
		n += len;
		out[n] = '\0';
		p += len;
	}
	return 0;
}

/* "\\wsl$\DISTRO\rest" or "\\wsl.localhost\DISTRO\rest": a path on the distro itself. */
static const char *distro_path(const char *p)
{
	static const char *const hosts[] = { "\\\\wsl$\\", "\\\\wsl.localhost\\", "//wsl$/",
					     "//wsl.localhost/" };

	for (size_t i = 0; i < ELEMENTSOF(hosts); i++)
		if (strncasecmp(p, hosts[i], strlen(hosts[i])) == 0) {
			const char *rest = p + strlen(hosts[i]);
			size_t distro = strcspn(rest, "\\/");

			return distro ? rest + distro : NULL;
		}
	return NULL;
}

int cr_wsl_path_from_windows(const char *winpath, const char *mnt_root, char **ret, char *msg,
			     size_t size)
{
	char out[4096];
	const char *p = winpath, *rest;
	int r;

	if (!p || !*p || !cr_wsl_utf8_valid(p))
		return cr_msg(msg, size, -EINVAL, "the workspace path is empty or not valid UTF-8");
	if (strncmp(p, "\\\\?\\", 4) == 0)
		p += 4; /* the "long path" prefix */
	rest = distro_path(p);
	if (rest) {
		out[0] = '\0';
		r = append_components(rest, out, sizeof(out), msg, size);
		if (r >= 0 && !out[0])
			(void)snprintf(out, sizeof(out), "/");
	} else if (isalpha((unsigned char)p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')) {
		(void)snprintf(out, sizeof(out), "%s/%c", mnt_root, tolower((unsigned char)p[0]));
		r = append_components(p + 3, out, sizeof(out), msg, size);
	} else if (isalpha((unsigned char)p[0]) && p[1] == ':') {
		return cr_msg(msg, size, -EINVAL,
			      "'%s' is relative to the current directory of drive %c:; give a full path",
			      winpath, p[0]);
	} else if (p[0] == '\\' || p[0] == '/') {
		return cr_msg(msg, size, -EINVAL,
			      "'%s' is not on a drive WSL mounts (a network share or a path without a drive)",
			      winpath);
	} else {
		return cr_msg(msg, size, -EINVAL, "'%s' is a relative path; give a full path",
			      winpath);
	}
	if (r < 0)
		return r;
	*ret = strdup(out);
	return *ret ? 0 : cr_msg(msg, size, -ENOMEM, "out of memory");
}

static int vpush(char ***v, size_t *n, const char *s)
{
	char **a = reallocarray(*v, *n + 2, sizeof(char *));

	if (!a)
		return -ENOMEM;
	*v = a;
	a[*n] = strdup(s);
	if (!a[*n])
		return -ENOMEM;
	a[++*n] = NULL;
	return 0;
}

int cr_wsl_build_argv(const struct cr_wsl_invocation *in, char ***ret, char *msg, size_t size)
{
	_cleanup_free_ char *ws = NULL;
	char **v = NULL;
	size_t n = 0;
	int r;

	if (!in->argv || !in->argv[0])
		return cr_msg(msg, size, -EINVAL, "no command given");
	for (size_t i = 0; in->argv[i]; i++)
		if (!cr_wsl_utf8_valid(in->argv[i]))
			return cr_msg(msg, size, -EINVAL,
				      "argument %lu is not valid UTF-8: it cannot cross to Windows and back",
				      (unsigned long)i); /* no %zu: mingw checks this as ms_printf */
	r = cr_wsl_path_from_windows(in->workspace, "/mnt", &ws, msg, size);
	if (r < 0)
		return r;
	{
		const char *head[] = { in->wsl_exe, "-d", in->distro, "--cd", ws, "--exec",
				       "corral", "run", "--workspace", ws, "--json-status",
				       in->status_file };

		for (size_t i = 0; i < ELEMENTSOF(head) && r >= 0; i++)
			r = vpush(&v, &n, head[i]);
	}
	for (size_t i = 0; in->corral_options && in->corral_options[i] && r >= 0; i++)
		r = vpush(&v, &n, in->corral_options[i]);
	if (r >= 0)
		r = vpush(&v, &n, "--");
	for (size_t i = 0; in->argv[i] && r >= 0; i++)
		r = vpush(&v, &n, in->argv[i]);
	if (r < 0) {
		strv_freep(&v);
		return cr_msg(msg, size, r, "out of memory");
	}
	*ret = v;
	return 0;
}
