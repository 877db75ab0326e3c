/* SPDX-License-Identifier: MIT */
/* `corral wsl setup|status|reset`: the dedicated distro the wsl backend runs in. Only the distro
 * the user names (--name, "corral" by default) is touched, and it is unregistered only once the
 * root filesystem to import again has been checked to be readable. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-win.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "win-macro.h"
#include "wstr.h"

static const char wsl_usage[] =
	"Usage: corral wsl setup --rootfs TARBALL [--dir DIR] [--name NAME]\n"
	"       corral wsl status [--name NAME] [--json]\n"
	"       corral wsl reset --rootfs TARBALL [--dir DIR] [--name NAME]\n"
	"\n"
	"The WSL2 distro the wsl backend runs commands in (NAME: corral by default).\n"
	"  setup   wsl.exe --import NAME DIR TARBALL --version 2 (DIR: "
	"%LOCALAPPDATA%\\corral\\wsl\\NAME)\n"
	"  status  whether NAME is registered, its state and WSL version, and whether corral\n"
	"          runs inside it (this starts the distro); exits 0 when ready, 1 if not\n"
	"  reset   checks that TARBALL is readable, then wsl.exe --unregister NAME (which deletes\n"
	"          the distro and its files) and imports TARBALL again\n"
	"Only the distro named by --name is touched. CORRAL_WSL_EXE overrides the wsl.exe used.\n";

struct wsl_options {
	const char *rootfs, *dir, *name;
	bool json;
};

static int parse(int argc, char **argv, struct wsl_options *o, char *msg, size_t size)
{
	*o = (struct wsl_options){.name = "corral"};
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], **dest = NULL;

		if (strcmp(a, "--json") == 0 && strcmp(argv[1], "status") == 0) {
			o->json = true;
			continue;
		}
		if (strcmp(a, "--rootfs") == 0)
			dest = &o->rootfs;
		else if (strcmp(a, "--dir") == 0)
			dest = &o->dir;
		else if (strcmp(a, "--name") == 0)
			dest = &o->name;
		if (!dest)
			return cr_msg(msg, size, -EINVAL, "wsl %s: unknown option '%s'", argv[1],
				      a);
		if (i + 1 >= argc)
			return cr_msg(msg, size, -EINVAL, "wsl %s: %s needs a value", argv[1], a);
		*dest = argv[++i];
	}
	if (!*o->name || strlen(o->name) > 64 ||
	    strspn(o->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
		    strlen(o->name) ||
	    o->name[0] == '-')
		return cr_msg(msg, size, -EINVAL,
			      "--name '%s': a distro name is letters, digits, '.', '_' and '-'",
			      o->name);
	return 0;
}

/* @rootfs must be a readable file before anything is imported or unregistered. */
static int check_rootfs(const char *rootfs, char **ret_full, char *msg, size_t size)
{
	_cleanup_free_ wchar_t *w = NULL;
	_cleanup_handle_ HANDLE h = INVALID_HANDLE_VALUE;
	char *full = NULL;
	DWORD attr;

	if (!rootfs)
		return cr_msg(msg, size, -EINVAL, "--rootfs TARBALL is required");
	if (cr_win_full_path(rootfs, &full) < 0 || cr_win_utf16(full, &w) < 0) {
		free(full);
		return cr_msg(msg, size, -ENOENT, "--rootfs '%s': no such file", rootfs);
	}
	attr = GetFileAttributesW(w);
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	if (attr == INVALID_FILE_ATTRIBUTES || (attr & FILE_ATTRIBUTE_DIRECTORY) ||
	    h == INVALID_HANDLE_VALUE) {
		free(full);
		return cr_msg(msg, size, -EACCES, "--rootfs '%s': not a readable file", rootfs);
	}
	*ret_full = full;
	return 0;
}

/* mkdir -p, for the distro's directory. */
static int make_dirs(const char *dir)
{
	_cleanup_free_ wchar_t *w = NULL;
	int r = cr_win_utf16(dir, &w);

	if (r < 0)
		return r;
	for (wchar_t *p = w + 3; r >= 0; p++) { /* after "C:\" */
		wchar_t c = *p;

		if (c != L'\\' && c != L'/' && c != L'\0')
			continue;
		*p = L'\0';
		if (!CreateDirectoryW(w, NULL) && GetLastError() != ERROR_ALREADY_EXISTS)
			r = -EACCES;
		*p = c;
		if (!c)
			break;
	}
	return r;
}

static int default_dir(const char *name, char **ret)
{
	const wchar_t *base = _wgetenv(L"LOCALAPPDATA");
	_cleanup_free_ char *b = NULL;
	char *d;

	if (!base || cr_win_utf8(base, &b) < 0)
		return -ENOENT;
	d = malloc(strlen(b) + strlen(name) + 16);
	if (!d)
		return -ENOMEM;
	(void)sprintf(d, "%s\\corral\\wsl\\%s", b, name);
	*ret = d;
	return 0;
}

static int run_wsl(const wchar_t *wsl, const char *const *args, const char *what)
{
	char *argv[16];
	size_t n = 0;
	int code = 0, r;

	for (; args[n] && n + 2 < ELEMENTSOF(argv); n++)
		argv[n + 1] = (char *)args[n];
	argv[n + 1] = NULL;
	r = cr_win_utf8(wsl, &argv[0]);
	if (r >= 0)
		r = cr_win_run_process(wsl, argv, &code, NULL, NULL);
	free(argv[0]);
	if (r < 0)
		return cr_log_errno(r, "%s: wsl.exe could not be started", what), r;
	if (code != 0) {
		cr_log_error("%s: wsl.exe exited %d", what, code);
		return -EIO;
	}
	return 0;
}

static int import(const wchar_t *wsl, const struct wsl_options *o, const char *rootfs)
{
	_cleanup_free_ char *dir = NULL, *full = NULL;
	int r;

	r = o->dir ? cr_win_full_path(o->dir, &full) : default_dir(o->name, &full);
	if (r < 0)
		return cr_log_errno(r, "--dir: no usable directory (set --dir)"), r;
	r = make_dirs(full);
	if (r < 0)
		return cr_log_errno(r, "cannot create '%s'", full), r;
	cr_log_info("importing %s into %s as %s", rootfs, full, o->name);
	return run_wsl(
		wsl,
		(const char *const[]){"--import", o->name, full, rootfs, "--version", "2", NULL},
		"wsl setup");
}

static int setup_or_reset(const wchar_t *wsl, const struct wsl_options *o, bool reset)
{
	_cleanup_free_ char *rootfs = NULL;
	char msg[512];
	int r;

	r = check_rootfs(o->rootfs, &rootfs, msg, sizeof(msg));
	if (r < 0) {
		cr_log_error("wsl %s: %s%s", reset ? "reset" : "setup", msg,
			     reset ? "; nothing was unregistered" : "");
		return CR_EXIT_SETUP;
	}
	if (reset &&
	    run_wsl(wsl, (const char *const[]){"--unregister", o->name, NULL}, "wsl reset") < 0)
		return CR_EXIT_SETUP;
	return import(wsl, o, rootfs) < 0 ? CR_EXIT_SETUP : 0;
}

/* Is the byte string UTF-16LE? wsl.exe writes its own messages so (not WSL_UTF8=1). */
static int to_utf8(const char *out, size_t len, char **ret)
{
	_cleanup_free_ wchar_t *w = NULL;
	size_t n = len / 2, start = 0;

	if (len < 2 ||
	    (out[1] != '\0' && !((unsigned char)out[0] == 0xff && (unsigned char)out[1] == 0xfe))) {
		*ret = malloc(len + 1);
		if (!*ret)
			return -ENOMEM;
		memcpy(*ret, out, len);
		(*ret)[len] = '\0';
		return 0;
	}
	w = calloc(n + 1, sizeof(wchar_t));
	if (!w)
		return -ENOMEM;
	memcpy(w, out, n * 2);
	if (n > 0 && w[0] == 0xfeff)
		start = 1;
	return cr_win_utf8(w + start, ret);
}

int cr_win_wsl_list_find(const char *out, size_t len, const char *name, char *state,
			 size_t state_size, int *version)
{
	_cleanup_free_ char *text = NULL;
	char *save = NULL;
	bool header = true;

	if (to_utf8(out, len, &text) < 0)
		return -ENOMEM;
	for (char *line = strtok_r(text, "\r\n", &save); line;
	     line = strtok_r(NULL, "\r\n", &save)) {
		char *f[3] = {NULL}, *s2 = NULL;
		int k = 0;

		for (char *t = strtok_r(line, " \t*", &s2); t && k < 3;
		     t = strtok_r(NULL, " \t", &s2))
			f[k++] = t;
		if (k == 0)
			continue;
		if (header) { /* "  NAME  STATE  VERSION" */
			header = false;
			continue;
		}
		if (k == 3 && _stricmp(f[0], name) == 0) {
			(void)snprintf(state, state_size, "%s", f[1]);
			*version = atoi(f[2]);
			return 1;
		}
	}
	return 0;
}

struct wsl_state {
	bool exists;
	char state[32];
	int version;
	char corral[64]; /* "corral 0.1.0", or empty */
};

static void probe_distro(const wchar_t *wsl, const char *name, struct wsl_state *s)
{
	_cleanup_free_ char *self = NULL, *out = NULL;
	size_t len = 0;
	int code = 0;

	if (cr_win_utf8(wsl, &self) < 0)
		return;
	if (cr_win_run_process(wsl, (char *[]){self, "-l", "-v", NULL}, &code, &out, &len) < 0)
		return;
	s->exists =
		cr_win_wsl_list_find(out, len, name, s->state, sizeof(s->state), &s->version) == 1;
	free(out);
	out = NULL;
	if (!s->exists ||
	    cr_win_run_process(
		    wsl,
		    (char *[]){self, "-d", (char *)name, "--exec", "corral", "--version", NULL},
		    &code, &out, &len) < 0 ||
	    code != 0 || strncmp(out, "corral ", 7) != 0)
		return;
	(void)snprintf(s->corral, sizeof(s->corral), "%.*s", (int)strcspn(out, "\r\n"), out);
}

static int status(const wchar_t *wsl, const struct wsl_options *o)
{
	struct wsl_state s = {0};
	_cleanup_free_ char *wsl8 = NULL;
	bool ready;

	if (wsl)
		probe_distro(wsl, o->name, &s);
	if (wsl)
		(void)cr_win_utf8(wsl, &wsl8);
	ready = s.exists && s.version == 2 && s.corral[0];
	if (o->json) {
		json_object *j = json_object_new_object();
		int r;

		r = cr_json_add(j, "distro", json_object_new_string(o->name));
		r = r ?: cr_json_add_str(j, "wsl", wsl8);
		r = r ?: cr_json_add(j, "exists", json_object_new_boolean(s.exists));
		r = r ?: cr_json_add_str(j, "state", s.exists ? s.state : NULL);
		if (s.exists)
			r = r ?: cr_json_add(j, "version", json_object_new_int(s.version));
		else
			r = r ?: cr_json_add_null(j, "version");
		r = r ?: cr_json_add_str(j, "corral", s.corral[0] ? s.corral : NULL);
		r = r ?: cr_json_add(j, "ready", json_object_new_boolean(ready));
		if (r == 0)
			r = cr_json_puts(j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
					 stdout);
		json_object_put(j);
		if (r < 0) {
			cr_log_error("wsl status: cannot write the report: %s", strerror(-r));
			return CR_EXIT_SETUP;
		}
	} else {
		(void)printf("wsl.exe: %s\n", wsl8 ? wsl8 : "not found");
		if (s.exists)
			(void)printf("distro %s: %s, WSL %d\ncorral inside: %s\n", o->name, s.state,
				     s.version, s.corral[0] ? s.corral : "no");
		else
			(void)printf("distro %s: not registered (corral wsl setup --rootfs "
				     "TARBALL)\n",
				     o->name);
		(void)printf("ready: %s\n", ready ? "yes" : "no");
	}
	return ready ? 0 : 1;
}

int cr_win_wsl_main(int argc, char **argv)
{
	_cleanup_free_ wchar_t *wsl = NULL;
	struct wsl_options o;
	char msg[512];
	const char *sub = argc > 1 ? argv[1] : NULL;
	int r;

	if (!sub || strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
		fputs(wsl_usage, sub ? stdout : stderr);
		return sub ? 0 : CR_WIN_EXIT_USAGE;
	}
	if (strcmp(sub, "setup") != 0 && strcmp(sub, "status") != 0 && strcmp(sub, "reset") != 0) {
		cr_log_error("wsl: unknown command '%s' (try: corral wsl --help)", sub);
		return CR_WIN_EXIT_USAGE;
	}
	if (parse(argc, argv, &o, msg, sizeof(msg)) < 0) {
		cr_log_error("%s", msg);
		return CR_WIN_EXIT_USAGE;
	}
	r = cr_win_find_wsl(&wsl);
	if (strcmp(sub, "status") == 0)
		return status(r < 0 ? NULL : wsl, &o);
	if (r < 0) {
		cr_log_error("wsl %s: wsl.exe was not found: install WSL first ('wsl --install')",
			     sub);
		return CR_EXIT_SETUP;
	}
	return setup_or_reset(wsl, &o, strcmp(sub, "reset") == 0);
}
