/* SPDX-License-Identifier: MIT */
/* launcher/base/path-util.c: the path checks every backend shares.
 * Invariants: a path cr_path_check() accepts is non-empty, shorter than PATH_MAX, free of
 * control characters, and absolute when asked; cr_path_canonicalize() gives an absolute path
 * that passes the check, names no "." or ".." component and canonicalizes to itself;
 * cr_path_is_within() is reflexive, holds for "/" and for every parent cut at a '/', never
 * for a sibling that only shares a string prefix ("/a" and "/ab"), and matches the depth
 * (a path inside a directory is at least as deep). Each input is also a cache spec
 * (launcher/policy/cache.c, NAME=PATH with the first as HOME): one accepted has a name
 * cr_cache_name_ok() takes (no '/', not "." or "..") and an absolute, checked path with no "."
 * or ".." component, not "/", outside /proc and /dev. The input is two paths separated by NUL. */
#include <errno.h>
#include <limits.h>

#include "fuzz-util.h"
#include "launcher/base/path-util.h"
#include "launcher/base/macro.h"
#include "launcher/policy/cache.h"

static bool is_canonical(const char *p)
{
	if (p[0] != '/')
		return false;
	if (p[1] == '\0')
		return true;
	if (p[strlen(p) - 1] == '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../"))
		return false;
	return !(strlen(p) >= 2 && strcmp(p + strlen(p) - 2, "/.") == 0) &&
	       !(strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0);
}

static void check_path(const char *p)
{
	int r = cr_path_check(p, true), rel = cr_path_check(p, false);

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENAMETOOLONG, "cr_path_check: %d", r);
	FUZZ_CHECK(rel <= 0 && (r == 0 || rel < 0 || p[0] != '/'), "absolute %d relative %d", r,
		   rel);
	if (rel < 0)
		return;
	FUZZ_CHECK(p[0] && strlen(p) < PATH_MAX, "accepted an empty or long path");
	for (const char *c = p; *c; c++)
		FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f, "control character 0x%02x",
			   (unsigned char)*c);
	FUZZ_CHECK(r < 0 || p[0] == '/', "accepted relative '%s' as absolute", p);
}

static void check_canonical(const char *p)
{
	_cleanup_free_ char *c = NULL, *again = NULL;

	if (cr_path_canonicalize(p, &c) < 0)
		return;
	FUZZ_CHECK(cr_path_check(c, true) == 0, "'%s' -> '%s' fails the check", p, c);
	FUZZ_CHECK(is_canonical(c), "'%s' -> '%s' is not canonical", p, c);
	FUZZ_CHECK(cr_path_canonicalize(c, &again) == 0 && strcmp(c, again) == 0,
		   "'%s' -> '%s' is not a fixed point", p, c);
}

static void check_within(const char *path, const char *dir)
{
	bool in = cr_path_is_within(path, dir);
	size_t n = strlen(dir);

	FUZZ_CHECK(cr_path_is_within(path, path), "'%s' not within itself", path);
	FUZZ_CHECK(cr_path_is_within(path, "/"), "'%s' not within /", path);
	if (in && strcmp(dir, "/") != 0)
		FUZZ_CHECK(cr_path_depth(path) >= cr_path_depth(dir), "'%s' in '%s' but shallower",
			   path, dir);
	/* By component, never by string prefix. */
	if (n > 1 && strncmp(path, dir, n) == 0 && path[n] && path[n] != '/')
		FUZZ_CHECK(!in, "'%s' within '%s' by string prefix", path, dir);
	/* Every parent of @path at a '/' contains it. */
	for (size_t i = strlen(path); i > 1; i--)
		if (path[i - 1] == '/' && i - 1 > 0) {
			_cleanup_free_ char *parent = strndup(path, i - 1);

			if (!parent)
				abort();
			FUZZ_CHECK(cr_path_is_within(path, parent), "'%s' not within '%s'", path,
				   parent);
		}
}

static void check_cache_spec(const char *spec, const char *home)
{
	_cleanup_free_ char *name = NULL, *path = NULL;
	char msg[256];
	int r = cr_cache_spec_parse("--cache", spec, '=', home, &name, &path, msg, sizeof(msg));

	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM, "cr_cache_spec_parse: %d", r);
	if (r < 0)
		return;
	FUZZ_CHECK(cr_cache_name_ok(name, strlen(name)) && !strchr(name, '/') &&
			   strcmp(name, "..") != 0,
		   "accepted the name '%s'", name);
	FUZZ_CHECK(cr_path_check(path, true) == 0 && strcmp(path, "/") != 0 &&
			   !strstr(path, "/../") && !strstr(path, "/./"),
		   "accepted the path '%s'", path);
	FUZZ_CHECK(!(strlen(path) >= 3 && strcmp(path + strlen(path) - 3, "/..") == 0),
		   "accepted the path '%s'", path);
	if (is_canonical(path))
		FUZZ_CHECK(!cr_path_is_within(path, "/proc") && !cr_path_is_within(path, "/dev"),
			   "accepted '%s' under /proc or /dev", path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char **v = NULL;
	size_t n;

	if (size > 8192)
		return 0;
	v = fuzz_split(data, size, 2, &buf, &n);
	for (size_t i = 0; i < n; i++) {
		check_path(v[i]);
		check_canonical(v[i]);
	}
	if (n == 2 && v[1][0] == '/' && cr_path_check(v[1], true) == 0)
		check_cache_spec(v[0], v[1]);
	/* cr_path_is_within() wants canonical paths: use it on those only. */
	if (n == 2 && is_canonical(v[0]) && is_canonical(v[1]) && cr_path_check(v[0], true) == 0 &&
	    cr_path_check(v[1], true) == 0)
		check_within(v[0], v[1]);
	return 0;
}
