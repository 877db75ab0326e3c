/* SPDX-License-Identifier: MIT */
/* The JSON status corral.exe writes: the top-level keys of docs/json-status.md, as
 * launcher/status.c writes them on Linux, plus "backend". */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "cli-win.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/outcome.h"
#include "win-macro.h"
#include "wstr.h"

/* The signals cr_win_outcome_from_exit() produces, by their Linux numbers. */
static const char *signal_name(int sig)
{
	switch (sig) {
	case 2:
		return "SIGINT";
	case 4:
		return "SIGILL";
	case 6:
		return "SIGABRT";
	case 8:
		return "SIGFPE";
	case 9:
		return "SIGKILL";
	case 11:
		return "SIGSEGV";
	case 15:
		return "SIGTERM";
	default:
		return NULL;
	}
}

static const char *errno_name(int err)
{
	/* clang-format off */
	static const struct { int err; const char *name; } names[] = {
		{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EIO, "EIO" }, { ENOEXEC, "ENOEXEC" },
		{ EBADF, "EBADF" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" }, { EEXIST, "EEXIST" },
		{ ENOTDIR, "ENOTDIR" }, { EINVAL, "EINVAL" }, { ENAMETOOLONG, "ENAMETOOLONG" },
		{ ENOTSUP, "ENOTSUP" }, { ETIMEDOUT, "ETIMEDOUT" }, { EPROTO, "EPROTO" },
	};
	/* clang-format on */

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (names[i].err == err)
			return names[i].name;
	return NULL;
}

json_object *cr_win_status_build(const struct cr_win_status *s)
{
	const struct cr_outcome *out = s->outcome;
	int sig = out && out->kind == CR_OUTCOME_SIGNALED ? out->status : 0;
	bool ran = out && (out->kind == CR_OUTCOME_EXITED || out->kind == CR_OUTCOME_SIGNALED);
	json_object *o = json_object_new_object();
	json_object *mode = s->enforced ? json_object_object_get(s->enforced, "mode") : NULL;
	const struct cr_setup_error *err = ran        ? NULL
					   : s->error ? s->error
					   : out      ? &out->error
						      : NULL;
	size_t argc = 0;
	int r;

	while (s->argv && s->argv[argc])
		argc++;
	r = cr_json_add(o, "version", json_object_new_int(1));
	r = r ?: cr_json_add(o, "corral_version", json_object_new_string(CR_WIN_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(s->driver));
	r = r ?: cr_json_add(o, "backend", json_object_new_string(s->driver));
	r = r ?: cr_json_add(o, "command", cr_json_strv(s->argv, argc));
	r = r ?: cr_outcome_status_json(o, &(struct cr_outcome_status){
		.outcome = out,
		.timed_out = s->timed_out,
		/* Job-only mode (--allow-degraded, no Low token) is this backend's degraded mode. */
		.degraded = mode && strcmp(json_object_get_string(mode), "job_only") == 0,
		.exit_code = cr_exit_code(out, s->timed_out),
		.signal_name = signal_name(sig),
		.duration_ms = s->duration_ms,
		.enforced = s->enforced,
		.error = err,
		.errno_name = err ? errno_name(err->err) : NULL,
	});
	r = r ?: cr_json_add_null(o, "profile");
	return cr_json_whole(o, r);
}

int cr_win_status_write(json_object *o, const char *path)
{
	_cleanup_free_ char *text =
		cr_json_text(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	_cleanup_free_ wchar_t *w = NULL;
	_cleanup_handle_ HANDLE h = INVALID_HANDLE_VALUE;
	size_t len;
	DWORD done = 0;
	int r;

	if (!o || !text) /* a status that could not be built whole is not written in part */
		return -ENOMEM;
	len = strlen(text);
	r = cr_win_utf16(path, &w);
	if (r < 0)
		return r;
	h = CreateFileW(w, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_ALWAYS,
			FILE_ATTRIBUTE_NORMAL, NULL);
	if (h == INVALID_HANDLE_VALUE)
		return -EACCES;
	if (!WriteFile(h, text, (DWORD)len, &done, NULL) || done != len ||
	    !WriteFile(h, "\n", 1, &done, NULL) || done != 1)
		return -EIO;
	return 0;
}

int cr_win_status_check(const char *path)
{
	json_object *o = json_object_new_object();
	int r = cr_win_status_write(o, path);

	json_object_put(o);
	return r;
}
