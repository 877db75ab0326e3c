/* SPDX-License-Identifier: MIT */
/* wsl/path.c: Windows paths to the paths WSL shows them at.
 * Invariants: a path that converts gives an absolute Linux path, valid UTF-8, free of control
 * characters, without an empty, "." or ".." component or a trailing '/' (but "/"), under
 * /mnt/<drive letter> for a drive path; the "\\?\" prefix changes nothing; '/' and '\' are the
 * same separator; and cr_wsl_build_argv() puts that path, and the command unchanged, in the
 * wsl.exe argument vector. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/base/macro.h"
#include "wsl/wsl.h"

static void check_linux_path(const char *win, const char *p)
{
	FUZZ_CHECK(p[0] == '/', "'%s' -> '%s' is relative", win, p);
	FUZZ_CHECK(cr_wsl_utf8_valid(p), "'%s' -> '%s' is not UTF-8", win, p);
	for (const char *c = p; *c; c++)
		FUZZ_CHECK((unsigned char)*c >= 0x20, "'%s' -> control character", win);
	if (p[1] == '\0')
		return;
	FUZZ_CHECK(p[strlen(p) - 1] != '/', "'%s' -> '%s' ends with '/'", win, p);
	for (const char *c = p; c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");

		FUZZ_CHECK(n > 0 && !(n == 1 && c[1] == '.') &&
				   !(n == 2 && c[1] == '.' && c[2] == '.'),
			   "'%s' -> '%s' has an empty, '.' or '..' component", win, p);
	}
	if (strncmp(win, "\\\\?\\", 4) == 0)
		win += 4;
	if (win[0] && win[1] == ':')
		FUZZ_CHECK(strncmp(p, "/mnt/", 5) == 0 && p[5] >= 'a' && p[5] <= 'z' &&
				   (p[6] == '/' || !p[6]),
			   "'%s' -> '%s': not under /mnt/<drive letter>", win, p);
}

static int convert(const char *win, char **ret)
{
	char msg[512];
	int r = cr_wsl_path_from_windows(win, "/mnt", ret, msg, sizeof(msg));

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENAMETOOLONG, "cr_wsl_path_from_windows: %d", r);
	return r;
}

static void check_argv(const char *win, const char *linux_path)
{
	char *cmd[] = {"sh", "-c", (char *)win, NULL};
	char *opts[] = {"--net=none", NULL};
	struct cr_wsl_invocation in = {
		.wsl_exe = "wsl.exe",
		.distro = "corral",
		.workspace = win,
		.status_file = "/run/s.json",
		.corral_options = opts,
		.argv = cmd,
	};
	_cleanup_strv_ char **v = NULL;
	char msg[512];
	size_t n = 0;

	FUZZ_CHECK(cr_wsl_build_argv(&in, &v, msg, sizeof(msg)) == 0, "build_argv: %s", msg);
	while (v[n])
		n++;
	FUZZ_CHECK(n == 12 + 1 + 1 + 3, "%zu arguments", n);
	FUZZ_CHECK(strcmp(v[4], linux_path) == 0 && strcmp(v[9], linux_path) == 0, "workspace");
	FUZZ_CHECK(strcmp(v[13], "--") == 0 && strcmp(v[16], win) == 0, "the command changed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *win = NULL, *p = NULL, *alt = NULL, *q = NULL, *prefixed = NULL;

	if (size > 8192)
		return 0;
	win = fuzz_strndup(data, size);
	if (convert(win, &p) < 0)
		return 0;
	check_linux_path(win, p);
	if (cr_wsl_utf8_valid(win))
		check_argv(win, p);

	/* The same path with the other separator converts to the same. */
	alt = strdup(win);
	if (!alt)
		abort();
	for (char *c = alt; *c; c++)
		*c = *c == '\\' ? '/' : *c == '/' ? '\\' : *c;
	if (strncmp(win, "\\\\?\\", 4) != 0 && strncmp(alt, "\\\\?\\", 4) != 0) {
		FUZZ_CHECK(convert(alt, &q) == 0, "'%s' converts, '%s' does not", win, alt);
		FUZZ_CHECK(strcmp(p, q) == 0, "'%s' -> '%s' but '%s' -> '%s'", win, p, alt, q);
	}
	/* "\\?\" (the long-path prefix) changes nothing on a drive path. */
	if (strncmp(win, "\\\\", 2) != 0 && strncmp(win, "//", 2) != 0) {
		_cleanup_free_ char *r = NULL;

		if (asprintf(&prefixed, "\\\\?\\%s", win) < 0)
			abort();
		FUZZ_CHECK(convert(prefixed, &r) == 0 && strcmp(r, p) == 0, "'%s' and '%s' differ",
			   win, prefixed);
	}
	return 0;
}
