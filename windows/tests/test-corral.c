/* SPDX-License-Identifier: MIT */
/* corral.exe end to end, under Wine in CI: started with CreateProcessW as a user would, its
 * exit status, output and JSON status checked. The wsl backend runs against fake-wsl.exe
 * (CORRAL_WSL_EXE), which records the command line it got and the argv it parsed from it, and
 * writes an inner status as the Linux corral would. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "launcher/base/macro.h"
#include "windows-internal.h"
#include "wsl/wsl.h"
#include "wstr.h"

static char dir[MAX_PATH * 3]; /* where the test's executables are */
static char corral_exe[MAX_PATH * 3];
static char fake_wsl[MAX_PATH * 3];
static char helper[MAX_PATH * 3];
static char tmp[MAX_PATH * 3]; /* a fresh directory for this run */
static wchar_t wtmp[MAX_PATH];
static char log_path[MAX_PATH * 3]; /* fake-wsl's record */
static char status_path[MAX_PATH * 3];
static char output[65536]; /* corral's stdout and stderr */
static const wchar_t *corral_cwd; /* corral.exe's current directory; NULL: this one's */

static void setenv_w(const char *name, const char *value)
{
	_cleanup_free_ wchar_t *n = NULL, *v = NULL;

	assert_int_equal(cr_win_utf16(name, &n), 0);
	if (value)
		assert_int_equal(cr_win_utf16(value, &v), 0);
	assert_true(SetEnvironmentVariableW(n, v) || !value);
}

static void delete_file(const char *path)
{
	_cleanup_free_ wchar_t *w = NULL;

	if (cr_win_utf16(path, &w) == 0)
		(void)DeleteFileW(w);
}

static bool file_exists(const char *path)
{
	_cleanup_free_ wchar_t *w = NULL;

	return cr_win_utf16(path, &w) == 0 && GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES;
}

/* Start corral.exe with @args (NULL-terminated), its stdout and stderr into *@ret_out. U+E000
 * in an argument is passed as an unpaired surrogate, U+D800. */
static HANDLE corral_start(const char *const *args, HANDLE *ret_out)
{
	char *argv[64];
	size_t n = 0;
	_cleanup_free_ char *line = NULL;
	_cleanup_free_ wchar_t *wline = NULL, *wapp = NULL;
	SECURITY_ATTRIBUTES sa = {.nLength = sizeof(sa), .bInheritHandle = TRUE};
	STARTUPINFOW si = {.cb = sizeof(si), .dwFlags = STARTF_USESTDHANDLES};
	PROCESS_INFORMATION pi;
	wchar_t out_path[MAX_PATH];
	HANDLE out;

	argv[n++] = corral_exe;
	for (; args[n - 1]; n++)
		argv[n] = (char *)args[n - 1];
	argv[n] = NULL;
	assert_int_equal(cr_win_join_cmdline(argv, &line), 0);
	assert_int_equal(cr_win_utf16(line, &wline), 0);
	for (wchar_t *c = wline; *c; c++) /* cr_win_join_cmdline() takes UTF-8 only */
		if (*c == 0xe000)
			*c = 0xd800;
	assert_int_equal(cr_win_utf16(corral_exe, &wapp), 0);
	assert_true(GetTempFileNameW(wtmp, L"out", 0, out_path) != 0);
	out = CreateFileW(out_path, GENERIC_READ | GENERIC_WRITE,
			  FILE_SHARE_READ | FILE_SHARE_WRITE, &sa, CREATE_ALWAYS,
			  FILE_FLAG_DELETE_ON_CLOSE, NULL);
	assert_true(out != INVALID_HANDLE_VALUE);
	si.hStdInput = NULL;
	si.hStdOutput = si.hStdError = out;
	/* Once in CI, Wine's CreateProcessW failed to start corral.exe at all: that is the test
	 * bed, not corral; said with its error, then tried again. */
	for (int try = 1; !CreateProcessW(wapp, wline, NULL, NULL, TRUE, 0, NULL, corral_cwd, &si, &pi);
	     try++) {
		print_message("# CreateProcessW(corral.exe), try %d: error %lu\n", try,
			      (unsigned long)GetLastError());
		assert_true(try < 3);
		Sleep(200);
	}
	(void)CloseHandle(pi.hThread);
	*ret_out = out;
	return pi.hProcess;
}

/* Wait for corral.exe (@what: its command, for the log), its output in output[]. Its exit
 * code. */
static int corral_finish(HANDLE process, HANDLE out, const char *what)
{
	DWORD code = 0, got = 0;

	assert_int_equal(WaitForSingleObject(process, 60000), WAIT_OBJECT_0);
	assert_true(GetExitCodeProcess(process, &code));
	(void)CloseHandle(process);
	(void)SetFilePointer(out, 0, NULL, FILE_BEGIN);
	(void)ReadFile(out, output, sizeof(output) - 1, &got, NULL);
	output[got] = '\0';
	(void)CloseHandle(out);
	printf("# corral.exe %s -> %lu\n", what, (unsigned long)code);
	if (got)
		printf("#   %.*s\n", (int)strcspn(output, "\n"), output);
	return (int)code;
}

/* Run corral.exe with @args (NULL-terminated), its output in output[]. Returns its exit code. */
static int corral(const char *const *args)
{
	HANDLE out, p = corral_start(args, &out);

	return corral_finish(p, out, args[0]);
}

static json_object *status_read(void)
{
	json_object *o = json_object_from_file(status_path);

	assert_non_null(o);
	return o;
}

static const char *str(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_string(v);
}

static int num(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	assert_true(json_object_is_type(v, json_type_int));
	return json_object_get_int(v);
}

static void assert_argv_equal(json_object *a, char *const *want)
{
	size_t n = 0;

	while (want[n])
		n++;
	assert_true(json_object_is_type(a, json_type_array));
	assert_int_equal(json_object_array_length(a), n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(json_object_get_string(json_object_array_get_idx(a, i)),
				    want[i]);
}

/* fake-wsl's records: each a vector of strings, the raw command line first. */
struct record {
	char *v[64];
	int n; /* raw + argc */
};

static int records_read(struct record *recs, int max)
{
	FILE *f = fopen(log_path, "rb");
	int n = 0, argc;

	if (!f)
		return 0;
	while (n < max && fscanf(f, "rec %d\n", &argc) == 1) {
		recs[n].n = argc + 1;
		assert_true(argc + 1 <= 64);
		for (int i = 0; i <= argc; i++) {
			size_t len;
			char *s;

			assert_int_equal(fscanf(f, "%zu:", &len), 1);
			s = malloc(len + 1);
			assert_int_equal(fread(s, 1, len, f), len);
			s[len] = '\0';
			assert_int_equal(fgetc(f), '\n');
			recs[n].v[i] = s;
		}
		n++;
	}
	fclose(f);
	return n;
}

static void records_free(struct record *recs, int n)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < recs[i].n; j++)
			free(recs[i].v[j]);
}

static int setup(void **state)
{
	corral_cwd = NULL;
	setenv_w("CORRAL_WSL_EXE", fake_wsl);
	setenv_w("FAKE_WSL_LOG", log_path);
	setenv_w("FAKE_WSL_EXIT", NULL);
	setenv_w("FAKE_WSL_INNER", NULL);
	setenv_w("FAKE_WSL_DISTROS", NULL);
	setenv_w("FAKE_WSL_NO_CORRAL", NULL);
	setenv_w("FAKE_WSL_IMPORT_EXIT", NULL);
	delete_file(log_path);
	delete_file(status_path);
	return 0;
}

/* Usage errors exit 125 as Linux corral's do (launcher/cmd/main.c); --help and --version 0. */
static void test_usage(void **state)
{
	assert_int_equal(corral((const char *[]){"--help", NULL}), 0);
	assert_non_null(strstr(output, "Usage: corral COMMAND"));
	assert_int_equal(corral((const char *[]){"run", "--help", NULL}), 0);
	assert_non_null(strstr(output, "--backend windows|wsl"));
	assert_int_equal(corral((const char *[]){"--version", NULL}), 0);
	assert_non_null(strstr(output, "corral 0.1.0"));
	assert_int_equal(corral((const char *[]){"run", "--bogus", "--", "x", NULL}), 125);
	assert_non_null(strstr(output, "unknown option '--bogus'"));
	assert_int_equal(corral((const char *[]){"run", "--backend", "vm", "--", "x", NULL}), 125);
	assert_non_null(strstr(output, "expected windows or wsl"));
	assert_int_equal(corral((const char *[]){"run", "--memory", "lots", "--", "x", NULL}), 125);
	assert_int_equal(corral((const char *[]){"run", NULL}), 125);
	assert_non_null(strstr(output, "no command given"));
	assert_int_equal(corral((const char *[]){"frobnicate", NULL}), 125);
	assert_int_equal(corral((const char *[]){NULL}), 125);
}

/* --timeout is read by launcher/base/parse-util.c, as on Linux: decimal seconds, no exponent,
 * sign, hex, infinity or NaN (strtod took them all), and at most a year. */
static void test_timeout_as_on_linux(void **state)
{
	static const char *const bad[] = {"1e3", "1E3", "+5", "-1", "0", "0.0004", "0x10", "inf",
					  "nan", " 5", ".5", "5.", "1s", "31622401"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("--timeout '%s'\n", bad[i]);
		assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
							 "--timeout", bad[i], "--", helper, "exit",
							 "0", NULL}),
				 125);
		assert_non_null(strstr(output, "expected seconds between 0.001 and 31622400"));
	}
	/* the positive control: the same run with a timeout Linux takes */
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
						 "--timeout", "31622.5", "--", helper, "exit", "7",
						 NULL}),
			 7);
}

/* The windows backend end to end: the helper's exit code, and the status file. */
static void test_windows_exit_code(void **state)
{
	char *want[] = {helper, "exit", "42", NULL};

	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
						 "--json-status", status_path, "--memory", "64M",
						 "--", helper, "exit", "42", NULL}),
			 42);
	json_object *st = status_read(), *enforced, *limits, *mem;

	assert_int_equal(num(st, "version"), 1);
	assert_string_equal(str(st, "driver"), "windows");
	assert_string_equal(str(st, "backend"), "windows");
	assert_string_equal(str(st, "outcome"), "exited");
	assert_int_equal(num(st, "exit_code"), 42);
	assert_argv_equal(json_object_object_get(st, "command"), want);
	assert_null(json_object_object_get(st, "error"));
	enforced = json_object_object_get(st, "enforced");
	assert_string_equal(str(enforced, "sandbox"), "job_object");
	assert_string_equal(str(enforced, "network"), "host");
	limits = json_object_object_get(enforced, "limits");
	mem = json_object_object_get(limits, "memory");
	assert_int_equal(json_object_get_int64(json_object_object_get(mem, "value")), 64 << 20);
	json_object_put(st);

	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 helper, "exit", "0", NULL}),
			 0);
}

static int64_t limit_value(json_object *st, const char *name)
{
	json_object *limits =
		json_object_object_get(json_object_object_get(st, "enforced"), "limits");

	return json_object_get_int64(
		json_object_object_get(json_object_object_get(limits, name), "value"));
}

/* The options reach the driver's policy: --ro-workspace, --spawn=no (one process), --pids,
 * --cpu-time, the default of 4096 processes. */
static void test_windows_options(void **state)
{
	json_object *st;

	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--ro-workspace",
					"--spawn=no", "--cpu-time", "5", "--json-status",
					status_path, "--", helper, "exit", "3", NULL}),
		3);
	st = status_read();
	assert_string_equal(str(json_object_object_get(st, "enforced"), "workspace_access"), "ro");
	assert_int_equal(limit_value(st, "pids"), 1);
	assert_int_equal(limit_value(st, "cpu_time"), 5);
	json_object_put(st);
	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--json-status",
					status_path, "--", helper, "exit", "0", NULL}),
		0);
	st = status_read();
	assert_string_equal(str(json_object_object_get(st, "enforced"), "workspace_access"), "rw");
	assert_int_equal(limit_value(st, "pids"), 4096);
	json_object_put(st);
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--pids",
						 "7", "--json-status", status_path, "--", helper,
						 "exit", "0", NULL}),
			 0);
	st = status_read();
	assert_int_equal(limit_value(st, "pids"), 7);
	json_object_put(st);
}

/* What the windows backend cannot enforce is refused before anything runs: the default
 * network (none), a profile. The command (it would create a file) did not run. */
static void test_windows_refusals(void **state)
{
	char marker[MAX_PATH * 3];

	(void)snprintf(marker, sizeof(marker), "%s\\marker", tmp);
	delete_file(marker);
	assert_int_equal(corral((const char *[]){"run", "--workspace", tmp, "--json-status",
						 status_path, "--", helper, "write", marker, NULL}),
			 125);
	assert_non_null(strstr(output, "--net=host"));
	assert_false(file_exists(marker));
	json_object *st = status_read(), *err = json_object_object_get(st, "error");

	assert_string_equal(str(st, "outcome"), "setup_failed");
	assert_int_equal(num(st, "exit_code"), 125);
	assert_string_equal(str(err, "stage"), "network");
	assert_null(json_object_object_get(st, "enforced"));
	json_object_put(st);

	assert_int_equal(corral((const char *[]){"run", "--net=host", "--profile", "workspace",
						 "--workspace", tmp, "--json-status", status_path,
						 "--", helper, "write", marker, NULL}),
			 125);
	assert_non_null(strstr(output, "--backend wsl --profile workspace"));
	assert_false(file_exists(marker));
	st = status_read();
	assert_string_equal(str(json_object_object_get(st, "error"), "stage"), "options");
	json_object_put(st);

	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", "C:\\no\\such\\dir",
					"--", helper, "exit", "0", NULL}),
		125);
	assert_non_null(strstr(output, "--workspace"));
}

/* The command's environment: the base, --keep-env names, --setenv; nothing else of corral's. */
static void test_windows_env(void **state)
{
	setenv_w("CR_HOST_ONLY", "1");
	setenv_w("CR_POLICY_VAR", "no");
	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--setenv",
					"CR_POLICY_VAR=yes", "--", helper, "env", tmp, NULL}),
		0);
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 helper, "env", tmp, NULL}),
			 24); /* CR_POLICY_VAR not passed */
	setenv_w("CR_POLICY_VAR", "yes");
	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--keep-env",
					"CR_POLICY_VAR", "--", helper, "env", tmp, NULL}),
		0);
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
						 "--keep-env", "CR_POLICY_VAR", "--keep-env",
						 "CR_HOST_ONLY", "--", helper, "env", tmp, NULL}),
			 25); /* CR_HOST_ONLY passed on request */
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--setenv", "NOVALUE", "--",
						 helper, "env", tmp, NULL}),
			 125);
	setenv_w("CR_HOST_ONLY", NULL);
	setenv_w("CR_POLICY_VAR", NULL);
}

/* The status file's bytes must be strict JSON in strict UTF-8, whatever the names in it: parsed
 * with UTF-8 validation and checked byte by byte. The parsed status. */
static json_object *status_read_strict(void)
{
	_cleanup_free_ wchar_t *w = NULL;
	static char text[65536];
	json_tokener *tok = json_tokener_new();
	json_object *o;
	HANDLE h;
	DWORD got = 0;

	assert_int_equal(cr_win_utf16(status_path, &w), 0);
	h = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
	assert_true(h != INVALID_HANDLE_VALUE);
	assert_true(ReadFile(h, text, sizeof(text) - 1, &got, NULL));
	(void)CloseHandle(h);
	text[got] = '\0';
	printf("#   status: %.*s\n", (int)strcspn(text, "\n"), text);
	assert_true(cr_wsl_utf8_valid(text));
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, text, (int)got);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	json_tokener_free(tok);
	assert_non_null(o);
	return o;
}

/* A workspace whose name holds an unpaired surrogate (NTFS allows one), or an argument that
 * does: the status names it with U+FFFD, as strict UTF-8 JSON. Under Wine, which cannot create such
 * a name, the workspace does not exist and the run is refused; its status quotes the name (the
 * message). On Windows, the user cd's into such a directory and runs corral: the command runs
 * there. */
static void test_status_unpaired_surrogate(void **state)
{
	char ws[MAX_PATH * 3];
	wchar_t wws[MAX_PATH], mark[MAX_PATH];
	const char *wine = cr_win_wine_version();
	json_object *st;

	/* U+E000 in an argument is sent as the unpaired surrogate U+D800 (corral_start()) */
	(void)snprintf(ws, sizeof(ws), "%s\\ws-\xee\x80\x80-end", tmp);
	for (int backend = 0; backend < 2; backend++) {
		delete_file(status_path);
		assert_int_equal(corral((const char *[]){"run", "--net=host", "--backend",
							 backend ? "wsl" : "windows", "--workspace",
							 ws, "--json-status", status_path, "--",
							 helper, "exit", "0", NULL}),
				 125);
		st = status_read_strict();
		assert_string_equal(str(st, "outcome"), "setup_failed");
		assert_non_null(strstr(str(json_object_object_get(st, "error"), "message"),
				       "\\ws-\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd-end"));
		json_object_put(st);
	}

	/* an argument of the command: refused (a command line is built from UTF-8 only), and the
	 * status quotes it */
	delete_file(status_path);
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
						 "--json-status", status_path, "--", helper, "exit",
						 "0", "\xee\x80\x80", NULL}),
			 125);
	st = status_read_strict();
	assert_string_equal(str(st, "outcome"), "setup_failed");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
				    json_object_object_get(st, "command"), 3)),
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	json_object_put(st);

	swprintf(wws, MAX_PATH, L"%ls\\ws-\xd800-end", wtmp);
	if (!CreateDirectoryW(wws, NULL) && wine) {
		printf("# skipped on Wine %s (it cannot create a name with an unpaired surrogate): "
		       "the run in such a workspace\n",
		       wine);
		return;
	}
	swprintf(mark, MAX_PATH, L"%ls\\ran", wws);
	corral_cwd = wws;
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--json-status", status_path,
						 "--", helper, "write", "ran", NULL}),
			 0);
	assert_true(GetFileAttributesW(mark) != INVALID_FILE_ATTRIBUTES); /* in that workspace */
	st = status_read_strict();
	assert_string_equal(str(st, "outcome"), "exited");
	assert_non_null(strstr(str(json_object_object_get(st, "enforced"), "tmpdir"),
			       "\\ws-\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd-end\\.corral-tmp."));
	json_object_put(st);
	corral_cwd = NULL;
	(void)DeleteFileW(mark);
	(void)RemoveDirectoryW(wws);
}

/* The standard PATH the command gets: this system's own directories, as cli-win.c builds it. */
static void standard_path(char *buf, size_t size)
{
	wchar_t windir[MAX_PATH];
	_cleanup_free_ char *w = NULL;

	assert_true(GetSystemWindowsDirectoryW(windir, MAX_PATH) > 0);
	assert_int_equal(cr_win_utf8(windir, &w), 0);
	(void)snprintf(buf, size,
		       "%s\\system32;%s;%s\\System32\\Wbem;%s\\System32\\WindowsPowerShell\\v1.0;"
		       "%s\\System32\\OpenSSH",
		       w, w, w, w, w);
}

/* The caller's PATH starts with a directory of its own holding a program: the command neither
 * sees that directory nor runs that program by name. It gets the standard PATH, which finds
 * cmd.exe; --keep-env PATH and --setenv PATH give the caller's directory back on request. */
static void test_windows_path(void **state)
{
	char bin[MAX_PATH * 3], prog[MAX_PATH * 3], want[MAX_PATH * 8], caller[MAX_PATH * 8];
	char set[MAX_PATH * 3 + 8], line[MAX_PATH * 8 + 8];
	_cleanup_free_ wchar_t *wbin = NULL, *wprog = NULL, *whelper = NULL;
	wchar_t saved[8192];
	_cleanup_free_ char *saved8 = NULL;
	DWORD had = GetEnvironmentVariableW(L"PATH", saved, 8192);

	assert_true(had > 0 && had < 8192);
	assert_int_equal(cr_win_utf8(saved, &saved8), 0);
	(void)snprintf(bin, sizeof(bin), "%s\\callerbin", tmp);
	(void)snprintf(prog, sizeof(prog), "%s\\cr-caller-only.exe", bin);
	assert_int_equal(cr_win_utf16(bin, &wbin), 0);
	assert_int_equal(cr_win_utf16(prog, &wprog), 0);
	assert_int_equal(cr_win_utf16(helper, &whelper), 0);
	assert_true(CreateDirectoryW(wbin, NULL) || GetLastError() == ERROR_ALREADY_EXISTS);
	assert_true(CopyFileW(whelper, wprog, FALSE));
	(void)snprintf(caller, sizeof(caller), "%s;%s", bin, saved8);
	setenv_w("PATH", caller);

	/* the attack: the program only the caller's PATH names */
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 "cr-caller-only", "exit", "7", NULL}),
			 127);
	assert_non_null(strstr(output, "not found in the command's PATH"));
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 helper, "getenv", "PATH", NULL}),
			 0);
	standard_path(want, sizeof(want));
	(void)snprintf(line, sizeof(line), "PATH=%s\r\n", want); /* the helper's text mode */
	assert_non_null(strstr(output, line));
	assert_null(strstr(output, "callerbin"));
	/* positive controls: the standard PATH finds the system's programs; the caller's PATH on
	 * request */
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 "cmd.exe", "/c", "exit", "3", NULL}),
			 3);
	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--keep-env",
					"PATH", "--", "cr-caller-only", "exit", "7", NULL}),
		7);
	(void)snprintf(set, sizeof(set), "PATH=%s", bin);
	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--setenv", set,
					"--", "cr-caller-only", "exit", "7", NULL}),
		7);

	/* wsl: wsl.exe gets the standard PATH (WSL appends wsl.exe's PATH to the distro's) and no
	 * WSLENV (which would forward PATH) */
	setenv_w("WSLENV", "PATH/l:CR_X");
	assert_int_equal(corral((const char *[]){"run", "--backend", "wsl", "--workspace", tmp,
						 "--json-status", status_path, "--", "true", NULL}),
			 0);
	json_object *st = status_read(), *inner, *env;

	inner = json_object_object_get(st, "inner");
	env = json_object_object_get(inner, "fake_env");
	assert_non_null(env);
	assert_string_equal(str(env, "PATH"), want);
	assert_null(json_object_object_get(env, "WSLENV"));
	json_object_put(st);

	setenv_w("WSLENV", NULL);
	setenv_w("PATH", saved8);
	(void)DeleteFileW(wprog);
	(void)RemoveDirectoryW(wbin);
}

/* Not found is 127 (exec_failed); a timeout is 124 (timed_out) and ends the command. */
static void test_windows_not_found_timeout(void **state)
{
	DWORD t0;

	assert_int_equal(
		corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--json-status",
					status_path, "--", "no-such-command-here", NULL}),
		127);
	json_object *st = status_read();

	assert_string_equal(str(st, "outcome"), "exec_failed");
	assert_string_equal(str(json_object_object_get(st, "error"), "stage"), "exec");
	json_object_put(st);

	t0 = GetTickCount();
	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
						 "--timeout", "1", "--json-status", status_path,
						 "--", helper, "sleep", "30000", NULL}),
			 124);
	assert_true(GetTickCount() - t0 < 20000);
	st = status_read();
	assert_string_equal(str(st, "outcome"), "timed_out");
	assert_true(json_object_get_boolean(json_object_object_get(st, "timed_out")));
	json_object_put(st);
}

/* Hostile arguments cross corral.exe -> CreateProcessW -> wsl.exe byte for byte; the inner
 * status is read back and nested, and its exit code is corral's. */
static void test_wsl_hostile_args(void **state)
{
	char *cmd[] = {"printf",   "%s|",        "a b",       "\"quoted\"",     "back\\\\slash",
		       "trail\\",  "trail2\\\\", "",          "\\\"",           "a\\\\\"b",
		       "%PATH%",   "^&|<>",      "tab\there", "ünïcödé ✓ 日本", "new\nline",
		       "'single'", "*?",         NULL};
	const char *args[64] = {"run",       "--backend",     "wsl",         "--workspace",
				tmp,         "--json-status", status_path,   "--memory",
				"64M",       "--setenv",      "K=a \"b\" c", "--net=host",
				"--profile", "dev",           "--"};
	struct record recs[4];
	_cleanup_free_ char *ws_linux = NULL;
	char msg[256];
	size_t n = 15, head;
	int nrec;

	for (size_t i = 0; cmd[i]; i++)
		args[n++] = cmd[i];
	args[n] = NULL;
	setenv_w("FAKE_WSL_EXIT", "7");
	assert_int_equal(corral(args), 7);
	nrec = records_read(recs, 4);
	assert_int_equal(nrec, 1);

	/* The fake's argv: the wsl.exe head, the options passed on, then the command as given. */
	assert_int_equal(cr_wsl_path_from_windows(tmp, "/mnt", &ws_linux, msg, sizeof(msg)), 0);
	assert_string_equal(recs[0].v[2], "-d");
	assert_string_equal(recs[0].v[3], "corral");
	assert_string_equal(recs[0].v[4], "--cd");
	assert_string_equal(recs[0].v[5], ws_linux);
	assert_string_equal(recs[0].v[6], "--exec");
	assert_string_equal(recs[0].v[7], "corral");
	assert_string_equal(recs[0].v[8], "run");
	assert_string_equal(recs[0].v[9], "--workspace");
	assert_string_equal(recs[0].v[10], ws_linux);
	assert_string_equal(recs[0].v[11], "--json-status");
	assert_true(strncmp(recs[0].v[12], "/mnt/c/", 7) == 0);
	assert_string_equal(recs[0].v[13], "--memory");
	assert_string_equal(recs[0].v[14], "64M");
	assert_string_equal(recs[0].v[15], "--setenv");
	assert_string_equal(recs[0].v[16], "K=a \"b\" c");
	assert_string_equal(recs[0].v[17], "--net");
	assert_string_equal(recs[0].v[18], "host");
	assert_string_equal(recs[0].v[19], "--profile");
	assert_string_equal(recs[0].v[20], "dev");
	assert_string_equal(recs[0].v[21], "--");
	head = 22;
	for (size_t i = 0; cmd[i]; i++) {
		assert_true(head + i < (size_t)recs[0].n);
		assert_string_equal(recs[0].v[head + i], cmd[i]);
	}
	assert_int_equal(recs[0].n, (int)(head + 17));
	/* ... and the raw command line splits back into exactly that argv. */
	{
		char **split = NULL;

		assert_int_equal(cr_win_split_cmdline(recs[0].v[0], &split), 0);
		for (int i = 1; i < recs[0].n; i++)
			assert_string_equal(split[i - 1], recs[0].v[i]);
		assert_null(split[recs[0].n - 1]);
		strv_freep(&split);
	}

	json_object *st = status_read(), *inner = json_object_object_get(st, "inner");

	assert_string_equal(str(st, "backend"), "wsl");
	assert_string_equal(str(st, "driver"), "wsl");
	assert_string_equal(str(st, "distro"), "corral");
	assert_string_equal(str(st, "outcome"), "exited");
	assert_int_equal(num(st, "exit_code"), 7);
	assert_int_equal(num(st, "wsl_exit_code"), 7);
	assert_argv_equal(json_object_object_get(st, "command"), cmd);
	assert_non_null(inner);
	assert_string_equal(str(inner, "driver"), "linux");
	assert_argv_equal(json_object_object_get(inner, "command"), cmd);
	assert_string_equal(str(json_object_object_get(st, "enforced"), "network"), "none");
	json_object_put(st);
	/* The temporary status file is gone. */
	{
		char win[MAX_PATH * 3];

		(void)snprintf(win, sizeof(win), "%c:%s", recs[0].v[12][5] & ~0x20,
			       recs[0].v[12] + 6);
		for (char *c = win; *c; c++)
			if (*c == '/')
				*c = '\\';
		printf("# inner status was %s\n", win);
		assert_false(file_exists(win));
	}
	records_free(recs, nrec);

	setenv_w("FAKE_WSL_EXIT", "0");
	assert_int_equal(corral((const char *[]){"run", "--backend=wsl", "--workspace", tmp, "--",
						 "true", NULL}),
			 0);
}

/* No wsl.exe: 125, a clear message, nothing started, a status that says why. */
static void test_wsl_missing(void **state)
{
	setenv_w("CORRAL_WSL_EXE", "C:\\no\\such\\wsl.exe");
	assert_int_equal(corral((const char *[]){"run", "--backend", "wsl", "--workspace", tmp,
						 "--json-status", status_path, "--", "true", NULL}),
			 125);
	assert_non_null(strstr(output, "wsl.exe was not found"));
	assert_non_null(strstr(output, "nothing was run"));
	assert_false(file_exists(log_path));
	json_object *st = status_read();

	assert_string_equal(str(st, "outcome"), "setup_failed");
	assert_string_equal(str(json_object_object_get(st, "error"), "stage"), "wsl");
	assert_null(json_object_object_get(st, "inner"));
	json_object_put(st);

	/* The real search (System32, then PATH): Wine has no wsl.exe; a Windows with WSL has. */
	{
		wchar_t found[MAX_PATH];

		if (SearchPathW(NULL, L"wsl.exe", NULL, MAX_PATH, found, NULL)) {
			printf("# wsl.exe is installed here: the search for a missing one is not "
			       "tested\n");
			return;
		}
	}
	setenv_w("CORRAL_WSL_EXE", NULL);
	assert_int_equal(corral((const char *[]){"run", "--backend", "wsl", "--workspace", tmp,
						 "--", "true", NULL}),
			 125);
	assert_non_null(strstr(output, "not in System32 nor in PATH"));
	assert_false(file_exists(log_path));
}

/* An inner status that is not there or not a status: 125 and the reason, in the status too. */
static void test_wsl_bad_inner(void **state)
{
	setenv_w("FAKE_WSL_INNER", "garbage");
	setenv_w("FAKE_WSL_EXIT", "3");
	assert_int_equal(corral((const char *[]){"run", "--backend", "wsl", "--workspace", tmp,
						 "--json-status", status_path, "--", "true", NULL}),
			 125);
	assert_non_null(strstr(output, "is not a corral JSON status"));
	json_object *st = status_read(), *err = json_object_object_get(st, "error");

	assert_string_equal(str(st, "outcome"), "setup_failed");
	assert_string_equal(str(err, "stage"), "inner_status");
	assert_non_null(strstr(str(err, "message"), "wsl.exe exited 3"));
	assert_int_equal(num(st, "wsl_exit_code"), 3);
	assert_null(json_object_object_get(st, "inner"));
	json_object_put(st);

	setenv_w("FAKE_WSL_INNER", "none");
	assert_int_equal(corral((const char *[]){"run", "--backend", "wsl", "--workspace", tmp,
						 "--", "true", NULL}),
			 125);
	assert_non_null(strstr(output, "wrote no status"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* setup: the import's argv; refused without a readable rootfs or with a bad name. */
static void test_wsl_setup(void **state)
{
	char rootfs[MAX_PATH * 3], dest[MAX_PATH * 3];
	struct record recs[4];
	int n;

	(void)snprintf(rootfs, sizeof(rootfs), "%s\\rootfs.tar", tmp);
	(void)snprintf(dest, sizeof(dest), "%s\\distro dir\\corral", tmp);
	assert_int_equal(corral((const char *[]){"wsl", "setup", "--dir", dest, NULL}), 125);
	assert_non_null(strstr(output, "--rootfs TARBALL is required"));
	assert_int_equal(corral((const char *[]){"wsl", "setup", "--rootfs", rootfs, NULL}), 125);
	assert_non_null(strstr(output, "not a readable file"));
	assert_int_equal(corral((const char *[]){"wsl", "setup", "--rootfs", tmp, NULL}), 125);
	assert_non_null(strstr(output, "not a readable file"));
	write_file(rootfs, "tar");
	assert_int_equal(corral((const char *[]){"wsl", "setup", "--rootfs", rootfs, "--name",
						 "--unregister", NULL}),
			 125);
	assert_int_equal(
		corral((const char *[]){"wsl", "setup", "--rootfs", rootfs, "--name", "a b", NULL}),
		125);
	assert_false(file_exists(log_path));

	assert_int_equal(
		corral((const char *[]){"wsl", "setup", "--rootfs", rootfs, "--dir", dest, NULL}),
		0);
	assert_true(file_exists(dest));
	n = records_read(recs, 4);
	assert_int_equal(n, 1);
	assert_int_equal(recs[0].n, 8);
	assert_string_equal(recs[0].v[2], "--import");
	assert_string_equal(recs[0].v[3], "corral");
	assert_string_equal(recs[0].v[4], dest);
	assert_string_equal(recs[0].v[5], rootfs);
	assert_string_equal(recs[0].v[6], "--version");
	assert_string_equal(recs[0].v[7], "2");
	records_free(recs, n);

	setenv_w("FAKE_WSL_IMPORT_EXIT", "1");
	assert_int_equal(
		corral((const char *[]){"wsl", "setup", "--rootfs", rootfs, "--dir", dest, NULL}),
		125);
	assert_non_null(strstr(output, "wsl.exe exited 1"));
}

/* reset: nothing is unregistered before the rootfs is checked; then unregister + import of
 * the named distro only. */
static void test_wsl_reset(void **state)
{
	char rootfs[MAX_PATH * 3], dest[MAX_PATH * 3];
	struct record recs[4];
	int n;

	(void)snprintf(rootfs, sizeof(rootfs), "%s\\rootfs2.tar", tmp);
	(void)snprintf(dest, sizeof(dest), "%s\\d2", tmp);
	assert_int_equal(corral((const char *[]){"wsl", "reset", NULL}), 125);
	assert_int_equal(corral((const char *[]){"wsl", "reset", "--rootfs", rootfs, NULL}), 125);
	assert_non_null(strstr(output, "nothing was unregistered"));
	assert_false(file_exists(log_path));

	write_file(rootfs, "tar");
	assert_int_equal(corral((const char *[]){"wsl", "reset", "--rootfs", rootfs, "--dir", dest,
						 "--name", "corral-test", NULL}),
			 0);
	n = records_read(recs, 4);
	assert_int_equal(n, 2);
	assert_int_equal(recs[0].n, 4);
	assert_string_equal(recs[0].v[2], "--unregister");
	assert_string_equal(recs[0].v[3], "corral-test");
	assert_string_equal(recs[1].v[2], "--import");
	assert_string_equal(recs[1].v[3], "corral-test");
	assert_string_equal(recs[1].v[5], rootfs);
	records_free(recs, n);
}

/* status: `wsl -l -v` parsed from UTF-16LE, then corral --version inside the distro. */
static void test_wsl_status(void **state)
{
	struct record recs[4];
	json_object *st;
	int n;

	setenv_w("FAKE_WSL_DISTROS", "Ubuntu:Running:2,corral:Stopped:2,old:Stopped:1");
	assert_int_equal(corral((const char *[]){"wsl", "status", "--json", NULL}), 0);
	st = json_tokener_parse(strchr(output, '{'));
	assert_non_null(st);
	assert_true(json_object_get_boolean(json_object_object_get(st, "exists")));
	assert_string_equal(str(st, "state"), "Stopped");
	assert_int_equal(num(st, "version"), 2);
	assert_string_equal(str(st, "corral"), "corral 0.1.0");
	assert_true(json_object_get_boolean(json_object_object_get(st, "ready")));
	json_object_put(st);
	n = records_read(recs, 4);
	assert_int_equal(n, 2);
	assert_string_equal(recs[0].v[2], "-l");
	assert_string_equal(recs[0].v[3], "-v");
	assert_string_equal(recs[1].v[2], "-d");
	assert_string_equal(recs[1].v[3], "corral");
	assert_string_equal(recs[1].v[4], "--exec");
	assert_string_equal(recs[1].v[5], "corral");
	assert_string_equal(recs[1].v[6], "--version");
	records_free(recs, n);

	/* WSL 1 is not ready; a distro without corral inside is not; a missing one is not. */
	assert_int_equal(corral((const char *[]){"wsl", "status", "--name", "old", NULL}), 1);
	assert_non_null(strstr(output, "distro old: Stopped, WSL 1"));
	setenv_w("FAKE_WSL_NO_CORRAL", "1");
	assert_int_equal(corral((const char *[]){"wsl", "status", "--json", NULL}), 1);
	st = json_tokener_parse(strchr(output, '{')); /* after fake-wsl's stderr line */
	assert_non_null(st);
	assert_true(json_object_get_boolean(json_object_object_get(st, "exists")));
	assert_null(json_object_object_get(st, "corral"));
	json_object_put(st);
	setenv_w("FAKE_WSL_DISTROS", "");
	assert_int_equal(corral((const char *[]){"wsl", "status", NULL}), 1);
	assert_non_null(strstr(output, "distro corral: not registered"));
}

static void test_doctor(void **state)
{
	int code = corral((const char *[]){"doctor", "--json", NULL});
	json_object *o = json_tokener_parse(output), *checks;

	assert_true(code == 0 || code == 1);
	assert_non_null(o);
	assert_string_equal(str(o, "driver"), "windows");
	checks = json_object_object_get(o, "checks");
	assert_int_equal(json_object_array_length(checks), 5);
	assert_string_equal(str(json_object_array_get_idx(checks, 0), "name"), "backend");
	assert_string_equal(str(json_object_array_get_idx(checks, 4), "name"), "wsl_distros");
	assert_int_equal(json_object_get_boolean(json_object_object_get(o, "ready")), code == 0);
	json_object_put(o);
	assert_int_equal(corral((const char *[]){"doctor", "--bogus", NULL}), 125);
}

/* Remove what is below @d (test files only: no links are made there). */
static void rm_tree(const wchar_t *d)
{
	WIN32_FIND_DATAW fd;
	wchar_t pattern[MAX_PATH], child[MAX_PATH];
	HANDLE h;

	swprintf(pattern, MAX_PATH, L"%ls\\*", d);
	h = FindFirstFileW(pattern, &fd);
	if (h == INVALID_HANDLE_VALUE)
		return;
	do {
		if (wcscmp(fd.cFileName, L".") == 0 || wcscmp(fd.cFileName, L"..") == 0)
			continue;
		swprintf(child, MAX_PATH, L"%ls\\%ls", d, fd.cFileName);
		if (fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
			rm_tree(child);
			(void)RemoveDirectoryW(child);
		} else
			(void)DeleteFileW(child);
	} while (FindNextFileW(h, &fd));
	(void)FindClose(h);
}

static void path_in_dir(char *buf, const char *name)
{
	(void)snprintf(buf, MAX_PATH * 3, "%s\\%s", dir, name);
}

/* Records in the label journal @dir (%LOCALAPPDATA%\\corral\\labels). */
static int journal_records(const char *labels)
{
	_cleanup_free_ wchar_t *w = NULL;
	char pattern[MAX_PATH * 3 + 16];
	WIN32_FIND_DATAW fd;
	HANDLE find;
	int n = 0;

	(void)snprintf(pattern, sizeof(pattern), "%s\\*.label", labels);
	assert_int_equal(cr_win_utf16(pattern, &w), 0);
	find = FindFirstFileW(w, &fd);
	if (find == INVALID_HANDLE_VALUE)
		return 0;
	do
		n++;
	while (FindNextFileW(find, &fd));
	(void)FindClose(find);
	return n;
}

/* A corral killed during its run cannot restore the workspace's label; its journal record
 * stays, and the next run restores the label from it and says so. A run that ends keeps no
 * record (the positive control). */
static void test_label_journal(void **state)
{
	char lad[MAX_PATH * 3], labels[MAX_PATH * 3 + 32], mark[MAX_PATH * 3 + 16];
	wchar_t saved[MAX_PATH];
	DWORD had = GetEnvironmentVariableW(L"LOCALAPPDATA", saved, MAX_PATH);
	HANDLE p, out;
	int n = 0;

	(void)snprintf(lad, sizeof(lad), "%s\\appdata", tmp);
	(void)snprintf(labels, sizeof(labels), "%s\\corral\\labels", lad);
	(void)snprintf(mark, sizeof(mark), "%s\\running", tmp);
	delete_file(mark);
	{
		_cleanup_free_ wchar_t *w = NULL;

		assert_int_equal(cr_win_utf16(lad, &w), 0);
		(void)CreateDirectoryW(w, NULL);
	}
	setenv_w("LOCALAPPDATA", lad);

	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 helper, "exit", "0", NULL}),
			 0);
	assert_int_equal(journal_records(labels), 0);
	assert_null(strstr(output, "restored"));

	/* Killed once the command runs (it made @mark): not between its suspended start and its
	 * assignment to the job, which would leave it suspended outside the job. It sleeps 5 s
	 * only: Wine does not always kill a job's processes when its owner is terminated. */
	p = corral_start((const char *[]){"run", "--net=host", "--workspace", tmp, "--", helper,
					  "mark", mark, "5000", NULL},
			 &out);
	for (int i = 0; i < 200 && !file_exists(mark); i++)
		Sleep(50);
	n = journal_records(labels);
	printf("# while the command runs: %d record(s) in the journal\n", n);
	assert_true(file_exists(mark));
	assert_int_equal(n, 1);
	assert_true(TerminateProcess(p, 9));
	assert_int_equal(corral_finish(p, out, "run (killed)"), 9);
	assert_int_equal(journal_records(labels), 1);

	assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp, "--",
						 helper, "exit", "0", NULL}),
			 0);
	assert_non_null(strstr(output, "restored the integrity label of "));
	assert_non_null(strstr(output, tmp));
	assert_int_equal(journal_records(labels), 0);

	/* A record that would label a directory Low (what a Low process able to write the journal
	 * would forge) is dropped, not applied. */
	{
		char forged[MAX_PATH * 3 + 64], text[MAX_PATH * 3 + 64];

		(void)snprintf(forged, sizeof(forged), "%s\\99999999-0000000000000001-1.label",
			       labels);
		(void)snprintf(text, sizeof(text), "%s\nS:(ML;OICI;NW;;;LW)\n", tmp);
		write_file(forged, text);
		assert_int_equal(journal_records(labels), 1);
		assert_int_equal(corral((const char *[]){"run", "--net=host", "--workspace", tmp,
							 "--", helper, "exit", "0", NULL}),
				 0);
		assert_non_null(strstr(output, "dropped 1 label journal records"));
		assert_null(strstr(output, "restored the integrity label"));
		assert_int_equal(journal_records(labels), 0);
	}

	assert_true(SetEnvironmentVariableW(L"LOCALAPPDATA", had ? saved : NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_usage, setup),
		cmocka_unit_test_setup(test_timeout_as_on_linux, setup),
		cmocka_unit_test_setup(test_windows_exit_code, setup),
		cmocka_unit_test_setup(test_windows_options, setup),
		cmocka_unit_test_setup(test_windows_refusals, setup),
		cmocka_unit_test_setup(test_windows_env, setup),
		cmocka_unit_test_setup(test_windows_path, setup),
		cmocka_unit_test_setup(test_status_unpaired_surrogate, setup),
		cmocka_unit_test_setup(test_windows_not_found_timeout, setup),
		cmocka_unit_test_setup(test_wsl_hostile_args, setup),
		cmocka_unit_test_setup(test_wsl_missing, setup),
		cmocka_unit_test_setup(test_wsl_bad_inner, setup),
		cmocka_unit_test_setup(test_wsl_setup, setup),
		cmocka_unit_test_setup(test_wsl_reset, setup),
		cmocka_unit_test_setup(test_wsl_status, setup),
		cmocka_unit_test_setup(test_doctor, setup),
		cmocka_unit_test_setup(test_label_journal, setup),
	};
	wchar_t self[MAX_PATH], t[MAX_PATH], *slash;
	_cleanup_free_ char *d = NULL, *tm = NULL;
	int r;

	(void)GetModuleFileNameW(NULL, self, MAX_PATH);
	slash = wcsrchr(self, L'\\');
	*slash = L'\0';
	if (cr_win_utf8(self, &d) < 0)
		return 1;
	(void)snprintf(dir, sizeof(dir), "%s", d);
	path_in_dir(corral_exe, "corral.exe");
	path_in_dir(fake_wsl, "fake-wsl.exe");
	path_in_dir(helper, "cr-win-helper.exe");
	/* The temporary directory on drive C, long form: its /mnt/c path is what WSL sees. */
	(void)GetTempPathW(MAX_PATH, t);
	(void)GetLongPathNameW(t, t, MAX_PATH);
	swprintf(t + wcslen(t), MAX_PATH - wcslen(t), L"corral-test-%lu",
		 (unsigned long)GetCurrentProcessId());
	(void)CreateDirectoryW(t, NULL);
	wcscpy(wtmp, t);
	rm_tree(wtmp); /* Wine reuses process ids: a previous run's files */
	if (cr_win_utf8(t, &tm) < 0)
		return 1;
	(void)snprintf(tmp, sizeof(tmp), "%s", tm);
	(void)snprintf(log_path, sizeof(log_path), "%s\\fake-wsl.log", tmp);
	(void)snprintf(status_path, sizeof(status_path), "%s\\status.json", tmp);
	printf("# corral.exe: %s; workspace %s\n", corral_exe, tmp);
	r = cmocka_run_group_tests_name("corral.exe", tests, NULL, NULL);
	rm_tree(wtmp);
	(void)RemoveDirectoryW(wtmp);
	return r;
}
