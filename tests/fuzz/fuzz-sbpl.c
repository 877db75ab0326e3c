/* SPDX-License-Identifier: MIT */
/* macos/sbpl.c: the path check and the SBPL profile generator of the macOS driver.
 * Invariants: a path cr_sbpl_check_path() accepts is absolute, at most 1024 bytes, free of NUL
 * and control characters, valid UTF-8 and canonical (no empty, "." or ".." component, no
 * trailing '/'); an embedded NUL is always refused. cr_sbpl_generate() succeeds exactly when
 * every path passes the check, and then: the profile text is byte-identical to the one for
 * placeholder paths of the same shape (no path reaches the text, so none can break out of a
 * string), its parentheses balance outside strings and every string closes on its line, each
 * parameter is NAME=PATH with the input path unchanged, and each is referenced as
 * (param "NAME"). The input: a flags byte, then NUL-separated paths: workspace, temporary
 * directory, home, then read, write and hide paths in turn. */
#include <errno.h>

#include "fuzz-util.h"
#include "macos/sbpl.h"
#include "launcher/base/macro.h"
#include "wsl/wsl.h"

#define MAX_PATHS 12

static bool canonical(const char *p)
{
	if (strcmp(p, "/") == 0)
		return true;
	if (p[0] != '/' || p[strlen(p) - 1] == '/')
		return false;
	for (const char *c = p; c; c = strchr(c + 1, '/')) {
		size_t n = strcspn(c + 1, "/");

		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return false;
	}
	return true;
}

static bool check_one(const char *p)
{
	char msg[256];
	size_t len = strlen(p);
	bool ok = cr_sbpl_check_path("path", p, len, msg, sizeof(msg)) == 0;

	if (ok) {
		FUZZ_CHECK(len >= 1 && len <= 1024 && canonical(p), "accepted '%s'", p);
		FUZZ_CHECK(cr_wsl_utf8_valid(p), "accepted '%s', not UTF-8", p);
		for (const char *c = p; *c; c++)
			FUZZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f,
				   "accepted control char");
	}
	/* The same bytes and the NUL after them: refused. */
	FUZZ_CHECK(cr_sbpl_check_path("path", p, len + 1, msg, sizeof(msg)) < 0, "NUL accepted");
	return ok;
}

/* Outside strings, parentheses balance; inside, no newline. */
static void check_syntax(const char *t)
{
	bool in_string = false;
	long depth = 0;

	for (const char *c = t; *c; c++) {
		if (in_string) {
			FUZZ_CHECK(*c != '\n', "a string runs past its line");
			FUZZ_CHECK(*c != '\\', "an escape in a string");
			in_string = *c != '"';
		} else if (*c == '"') {
			in_string = true;
		} else if (*c == ';') {
			c += strcspn(c, "\n") - 1;
		} else {
			depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
			FUZZ_CHECK(depth >= 0, "a ')' without its '('");
		}
	}
	FUZZ_CHECK(!in_string && depth == 0, "unbalanced profile");
}

static void check_params(const struct cr_sbpl *s, const struct cr_sbpl_input *in, size_t n_secrets)
{
	size_t k = 0;

	FUZZ_CHECK(s->n_params == 2 + in->n_read + in->n_write + n_secrets + in->n_hide,
		   "%zu parameters", s->n_params);
	for (size_t i = 0; i < s->n_params; i++) {
		const char *eq = strchr(s->params[i], '=');
		char ref[64];

		FUZZ_CHECK(eq && eq > s->params[i], "parameter '%s'", s->params[i]);
		FUZZ_CHECK(strspn(s->params[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789") ==
				   (size_t)(eq - s->params[i]),
			   "parameter name '%s'", s->params[i]);
		(void)snprintf(ref, sizeof(ref), "(param \"%.*s\")", (int)(eq - s->params[i]),
			       s->params[i]);
		FUZZ_CHECK(strstr(s->profile, ref), "%s not referenced", ref);
	}
	FUZZ_CHECK(strcmp(s->params[k++] + 10, in->workspace) == 0, "WORKSPACE changed");
	FUZZ_CHECK(strcmp(s->params[k++] + 7, in->tmpdir) == 0, "TMPDIR changed");
	for (size_t i = 0; i < in->n_read; i++, k++)
		FUZZ_CHECK(strcmp(strchr(s->params[k], '=') + 1, in->read[i]) == 0, "READ changed");
	for (size_t i = 0; i < in->n_write; i++, k++)
		FUZZ_CHECK(strcmp(strchr(s->params[k], '=') + 1, in->write[i]) == 0,
			   "WRITE changed");
	k += n_secrets;
	for (size_t i = 0; i < in->n_hide; i++, k++)
		FUZZ_CHECK(strcmp(strchr(s->params[k], '=') + 1, in->hide[i]) == 0, "HIDE changed");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const placeholder[MAX_PATHS] = {"/w", "/t", "/h", "/a", "/b", "/c",
							   "/d", "/e", "/f", "/g", "/i", "/j"};
	const char *read[MAX_PATHS], *write[MAX_PATHS], *hide[MAX_PATHS];
	const char *pread[MAX_PATHS], *pwrite[MAX_PATHS], *phide[MAX_PATHS];
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ char **v = NULL;
	struct cr_sbpl s = {}, ps = {};
	struct cr_sbpl_input in = {}, pin;
	size_t n, n_secrets = 0;
	bool all_ok = true;
	char msg[512];
	int r;

	if (size < 1 || size > 16384)
		return 0;
	v = fuzz_split(data + 1, size - 1, MAX_PATHS, &buf, &n);
	for (size_t i = 0; i < n; i++)
		all_ok &= check_one(v[i]);
	if (n < 3)
		return 0;
	in = (struct cr_sbpl_input){
		.workspace = v[0],
		.tmpdir = v[1],
		.home = v[2],
		.read = read,
		.write = write,
		.hide = hide,
		.net = (enum cr_sbpl_net)(data[0] % 4), /* 3: out of range, refused */
		.workspace_ro = data[0] & 4,
		.spawn = data[0] & 8,
		.interactive = data[0] & 16,
	};
	pin = in;
	pin.workspace = placeholder[0];
	pin.tmpdir = placeholder[1];
	pin.home = placeholder[2];
	pin.read = pread;
	pin.write = pwrite;
	pin.hide = phide;
	for (size_t i = 3; i < n; i++) {
		size_t k = (i - 3) % 3;
		const char **list = k == 0 ? read : k == 1 ? write : hide;
		const char **plist = k == 0 ? pread : k == 1 ? pwrite : phide;
		size_t *m = k == 0 ? &in.n_read : k == 1 ? &in.n_write : &in.n_hide;

		plist[*m] = placeholder[i];
		list[(*m)++] = v[i];
	}
	pin.n_read = in.n_read;
	pin.n_write = in.n_write;
	pin.n_hide = in.n_hide;

	r = cr_sbpl_generate(&in, &s, msg, sizeof(msg));
	FUZZ_CHECK(r == 0 || r == -EINVAL, "cr_sbpl_generate: %d", r);
	FUZZ_CHECK((r == 0) == (all_ok && data[0] % 4 != 3), "generate %d, paths %s: %s", r,
		   all_ok ? "good" : "bad", r < 0 ? msg : "");
	if (r < 0)
		return 0;
	FUZZ_CHECK(cr_sbpl_generate(&pin, &ps, msg, sizeof(msg)) == 0, "placeholders: %s", msg);
	FUZZ_CHECK(strcmp(s.profile, ps.profile) == 0, "the profile text depends on the paths");
	check_syntax(s.profile);
	while (cr_sbpl_home_secrets[n_secrets])
		n_secrets++;
	check_params(&s, &in, n_secrets);
	cr_sbpl_done(&s);
	cr_sbpl_done(&ps);
	return 0;
}
