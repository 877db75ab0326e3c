/* SPDX-License-Identifier: MIT */
/* corral.exe, the Windows front end: its command line, the policy it builds for the windows
 * driver, the JSON status it writes, and the wsl backend (wsl.exe and the inner corral). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "launcher/driver.h"
#include "launcher/policy/policy.h"

struct json_object;

#define CR_WIN_VERSION    "0.1.0"
#define CR_WIN_EXIT_USAGE 125 /* as Linux corral: bad usage exits 125 (launcher/cmd/main.c) */

enum cr_win_backend {
	CR_WIN_BACKEND_WINDOWS,
	CR_WIN_BACKEND_WSL,
};

/* `corral run` as corral.exe takes it. Strings point into the argument vector. */
struct cr_win_run_options {
	enum cr_win_backend backend;
	const char *workspace; /* NULL: the current directory */
	bool workspace_ro;
	const char *json_status; /* a file path, or NULL */
	const char *profile;     /* wsl only: passed to the inner corral */
	const char *distro;      /* wsl only: "corral" unless --distro */
	const char *net;         /* NULL: "none", as on Linux */
	uint64_t limits[_CR_LIMIT_MAX];
	bool limits_required;
	uint64_t timeout_ms;
	int spawn; /* -1: not given; 0: --spawn=no; 1: --spawn=yes */
	bool allow_degraded;
	char **setenv;   /* K=V, NULL-terminated */
	char **keep_env; /* names, NULL-terminated */
	char **inner;    /* the options for the inner corral (wsl), NULL-terminated */
	int verbosity;   /* -1 -q, 0, 1 -v */
	char **argv;     /* the command, NULL-terminated */
};

/* Parse `run`'s options (@argv[0] is "run"). 0; 1 for --help (printed); -EINVAL with a reason in
 * @msg. @ret owns its vectors: free them with cr_win_run_options_done(). */
int cr_win_run_parse(int argc, char **argv, struct cr_win_run_options *ret, char *msg, size_t size);
void cr_win_run_options_done(struct cr_win_run_options *o);

/* The command's PATH unless --keep-env PATH or --setenv PATH give another: the directories of a
 * fresh Windows install's system PATH under @windir (C:\Windows): system32, the Windows
 * directory itself, System32\Wbem, System32\WindowsPowerShell\v1.0, System32\OpenSSH. Never the
 * caller's PATH. 0 or -ENOMEM. */
int cr_win_standard_path(const char *windir, char **ret);
/* "PATH=" and cr_win_standard_path() of this system's Windows directory: the system's own
 * (GetSystemWindowsDirectoryW), not %SystemRoot%, which the caller sets. 0, -ENOENT or
 * -ENOMEM. */
int cr_win_standard_path_entry(char **ret);

/* The policy the windows driver enforces, from @o and the host environment (UTF-8 KEY=VALUE).
 * The workspace is made absolute and must be a directory. 0 or -errno with @msg. Free with
 * cr_win_policy_done(). */
int cr_win_policy_build(const struct cr_win_run_options *o, char **host_env, struct cr_policy *ret,
			char *msg, size_t size);
void cr_win_policy_done(struct cr_policy *p);
/* The workspace (--workspace, else the current directory) as an absolute long path, checked to be
 * a directory. 0 or -errno with @msg. */
int cr_win_workspace_resolve(const struct cr_win_run_options *o, char **ret, char *msg,
			     size_t size);

/* What the run printed and wrote. */
struct cr_win_status {
	const char *driver; /* "windows" or "wsl" */
	char *const *argv;
	const struct cr_outcome *outcome; /* NULL: nothing was started */
	const struct cr_setup_error *error;
	bool timed_out;
	double duration_ms;
	struct json_object *enforced; /* borrowed */
};

/* The status object (docs/json-status.md's top-level keys, "backend" added). */
struct json_object *cr_win_status_build(const struct cr_win_status *s);
/* Write @o as one line to @path (UTF-8). 0 or -errno. */
int cr_win_status_write(struct json_object *o, const char *path);
/* The status file is written ("{}") before anything runs, as on Linux it is opened first: a run
 * whose status cannot be written does not start. 0 or -errno. */
int cr_win_status_check(const char *path);

/* The command line as UTF-8 strings (CommandLineToArgvW on GetCommandLineW: main()'s argv is
 * in the ANSI code page), an unpaired surrogate as cr_win_utf8() writes it. 0 or -ENOMEM. */
int cr_win_args(int *ret_argc, char ***ret_argv);
/* The process environment as UTF-8 KEY=VALUE strings (the "=C:" entries left out). */
int cr_win_environ(char ***ret);
/* The absolute, long form of @path (or of the current directory when NULL), UTF-8. */
int cr_win_full_path(const char *path, char **ret);

int cr_win_run_windows(const struct cr_win_run_options *o);
int cr_win_run_wsl(const struct cr_win_run_options *o);
int cr_win_wsl_main(int argc, char **argv);
int cr_win_doctor_main(int argc, char **argv);

/* wsl.exe: $CORRAL_WSL_EXE if set (tests), else System32, else PATH. 0 or -ENOENT. */
int cr_win_find_wsl(wchar_t **ret);
/* Run @app (wsl.exe) with @argv (argv[0] included), standard handles inherited; with @ret_out,
 * standard output is captured instead (all of it, up to 1 MiB). Its environment is corral.exe's
 * with the standard PATH (cr_win_standard_path_entry()) and without WSLENV, so that neither
 * brings the caller's PATH into the distro. Waits; 0 with @ret_exit or -errno. */
int cr_win_run_process(const wchar_t *app, char *const *argv, int *ret_exit, char **ret_out,
		       size_t *ret_out_len);

/* Parse `wsl.exe -l -v` output (UTF-16LE, as wsl.exe writes it unless WSL_UTF8=1; UTF-8 is
 * accepted too) for @name: 1 and @state/@version filled when listed, 0 when not. */
int cr_win_wsl_list_find(const char *out, size_t len, const char *name, char *state,
			 size_t state_size, int *version);
