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

static json_object *error_object(const struct cr_setup_error *e)
{
	return cr_outcome_error_json(e, errno_name(e->err));
}

json_object *cr_win_status_build(const struct cr_win_status *s)
{
	const struct cr_outcome *out = s->outcome;
	int sig = out && out->kind == CR_OUTCOME_SIGNALED ? out->status : 0;
	bool ran = out && (out->kind == CR_OUTCOME_EXITED || out->kind == CR_OUTCOME_SIGNALED);
	json_object *o = json_object_new_object(), *cmd = json_object_new_array();
	json_object *mode = s->enforced ? json_object_object_get(s->enforced, "mode") : NULL;
	const struct cr_setup_error *err = ran        ? NULL
					   : s->error ? s->error
					   : out      ? &out->error
						      : NULL;
	/* Job-only mode (--allow-degraded, no Low token) is this backend's degraded mode. */
	bool degraded = mode && strcmp(json_object_get_string(mode), "job_only") == 0;
	char duration[32];
	int r = cmd ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && s->argv && s->argv[i]; i++)
		r = cr_json_append(cmd, json_object_new_string(s->argv[i]));
	cmd = cr_json_whole(cmd, r);
	(void)snprintf(duration, sizeof(duration), "%.3f", s->duration_ms);
	r = cr_json_add(o, "version", json_object_new_int(1));
	r = r ?: cr_json_add(o, "corral_version", json_object_new_string(CR_WIN_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(s->driver));
	r = r ?: cr_json_add(o, "backend", json_object_new_string(s->driver));
	if (r < 0)
		json_object_put(cmd);
	r = r ?: cr_json_add(o, "command", cmd);
	r = r ?: cr_json_add(o, "outcome", json_object_new_string(cr_outcome_name(
						   s->outcome, s->timed_out, false)));
	r = r ?: cr_json_add(o, "exit_code", json_object_new_int(cr_exit_code(out, s->timed_out)));
	if (sig)
		r = r ?: cr_json_add(o, "signal", json_object_new_int(sig));
	else
		r = r ?: cr_json_add_null(o, "signal");
	r = r ?: cr_json_add_str(o, "signal_name", signal_name(sig));
	r = r ?: cr_json_add(o, "timed_out", json_object_new_boolean(s->timed_out));
	r = r ?: cr_json_add(o, "oom_killed", json_object_new_boolean(out && out->oom_killed));
	r = r ?: cr_json_add(o, "pids_limit_hit",
			     json_object_new_boolean(out && out->pids_limit_hit));
	r = r ?: cr_json_add(o, "duration_ms", json_object_new_double_s(s->duration_ms, duration));
	r = r ?: cr_json_add(o, "degraded", json_object_new_boolean(degraded));
	if (s->enforced)
		r = r ?: cr_json_add(o, "enforced", json_object_get(s->enforced));
	else
		r = r ?: cr_json_add_null(o, "enforced");
	if (err)
		r = r ?: cr_json_add(o, "error", error_object(err));
	else
		r = r ?: cr_json_add_null(o, "error");
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
