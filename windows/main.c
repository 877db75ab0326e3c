/* SPDX-License-Identifier: MIT */
/* corral.exe: `run` with the windows backend (Job Object + Low integrity token) or the wsl
 * backend (corral's Linux driver inside a dedicated WSL2 distro), `wsl setup|status|reset`,
 * `doctor`. Arguments are read as UTF-16 (GetCommandLineW) and handled as UTF-8. */
#include <windows.h> /* first: the other Win32 headers need it */
#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-win.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"

static const char main_usage[] =
	"Usage: corral COMMAND [OPTIONS]\n"
	"\n"
	"Run a command in a sandbox (Windows build).\n"
	"\n"
	"Commands:\n"
	"  run [OPTIONS] [--] CMD [ARG...]  run CMD in a sandbox and return its status\n"
	"  wsl setup|status|reset           the WSL2 distro of the wsl backend\n"
	"  doctor [--json]                  show what this host can enforce\n"
	"  help [COMMAND]                   show this text, or the options of COMMAND\n"
	"\n"
	"Options:\n"
	"  -h, --help     show this text\n"
	"  -V, --version  print the version\n";

static const char run_usage[] =
	"Usage: corral run [OPTIONS] [--] CMD [ARG...]\n"
	"\n"
	"  --backend windows|wsl  windows (default): a Job Object and a Low integrity token;\n"
	"                         wsl: corral's Linux sandbox inside the WSL2 distro\n"
	"  --distro NAME          wsl: the distro (default corral; see corral wsl setup)\n"
	"  --workspace DIR        the directory the command may write (default: the current one)\n"
	"  --ro-workspace         windows: the workspace is read-only too\n"
	"  --net none|host        default none; the windows backend cannot isolate the network\n"
	"                         and refuses to run without --net=host\n"
	"  --memory SIZE          job memory limit (K, M, G, T)\n"
	"  --pids N               processes (default 4096)\n"
	"  --cpu-time SECS        CPU time per process\n"
	"  --limits best-effort|required\n"
	"  --timeout SECS         stop the sandbox after SECS; exit 124\n"
	"  --spawn yes|no         no: the command cannot start processes\n"
	"  --setenv NAME=VALUE    set a variable in the command's environment\n"
	"  --keep-env NAME        pass a variable of corral's environment\n"
	"                         (PATH is the system's standard one unless kept or set)\n"
	"  --allow-degraded       windows: run in a Job Object alone (Job-only mode) when a Low\n"
	"                         integrity token cannot be made; the status says so\n"
	"  --json-status FILE     write the JSON status of the run to FILE\n"
	"  --profile NAME         wsl: the inner corral's profile (the windows backend refuses\n"
	"                         profiles: they ask for what it cannot enforce)\n"
	"  -q, --quiet            errors only\n"
	"  -v, --verbose          more detail\n"
	"  -h, --help             show this text\n"
	"\n"
	"Exit status: the command's own; 124 timeout; 125 corral could not build the sandbox or\n"
	"bad usage; 126 CMD not executable; 127 CMD not found; 128+N killed by signal N.\n"
	"CORRAL_WSL_EXE names the wsl.exe to use instead of System32's (tests).\n";

static int run_main(int argc, char **argv)
{
	struct cr_win_run_options o;
	char msg[512];
	int r;

	r = cr_win_run_parse(argc, argv, &o, msg, sizeof(msg));
	if (r == 1) {
		fputs(run_usage, stdout);
		return 0;
	}
	if (r < 0) {
		cr_log_error("run: %s", msg);
		return CR_WIN_EXIT_USAGE;
	}
	if (o.verbosity < 0)
		cr_log_set_level(CR_LOG_ERR);
	else if (o.verbosity > 0)
		cr_log_set_level(CR_LOG_DEBUG);
	r = o.backend == CR_WIN_BACKEND_WSL ? cr_win_run_wsl(&o) : cr_win_run_windows(&o);
	cr_win_run_options_done(&o);
	return r;
}

int cr_win_doctor_main(int argc, char **argv)
{
	static const char *const states[] = {"ok", "degraded", "missing"};
	struct cr_probe p;
	bool json = argc > 1 && strcmp(argv[1], "--json") == 0, ready = true;
	json_object *checks = json_object_new_array(), *o = json_object_new_object();
	int r = checks ? 0 : -ENOMEM;

	if (argc > 2 || (argc == 2 && !json)) {
		cr_log_error("doctor: unknown option '%s' (usage: corral doctor [--json])",
			     argv[1]);
		return CR_WIN_EXIT_USAGE;
	}
	(void)cr_driver_native()->probe(&p);
	for (size_t i = 0; i < p.n_checks; i++) {
		const struct cr_check *c = &p.checks[i];
		json_object *j = json_object_new_object();

		if (c->required && c->state == CR_CHECK_MISSING)
			ready = false;
		r = r ?: cr_json_add(j, "name", json_object_new_string(c->name));
		r = r ?: cr_json_add(j, "state", json_object_new_string(states[c->state]));
		r = r ?: cr_json_add(j, "required", json_object_new_boolean(c->required));
		r = r ?: cr_json_add(j, "value", json_object_new_string(c->value));
		r = r ?: cr_json_add(j, "detail", json_object_new_string(c->detail));
		r = r ?: cr_json_add_str(j, "fix", c->fix[0] ? c->fix : NULL);
		if (r < 0)
			json_object_put(j);
		r = r ?: cr_json_append(checks, j);
		if (!json)
			(void)printf("%-16s %-8s %s: %s%s%s\n", c->name, states[c->state], c->value,
				     c->detail, c->fix[0] ? "; fix: " : "", c->fix);
	}
	checks = cr_json_whole(checks, r);
	r = cr_json_add(o, "corral_version", json_object_new_string(CR_WIN_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string("windows"));
	r = r ?: cr_json_add(o, "ready", json_object_new_boolean(ready));
	if (r < 0)
		json_object_put(checks);
	r = r ?: cr_json_add(o, "checks", checks);
	if (json && r == 0)
		r = cr_json_puts(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE,
				 stdout);
	else if (!json)
		(void)printf("ready: %s\n", ready ? "yes" : "no");
	json_object_put(o);
	if (json && r < 0) {
		cr_log_error("doctor: cannot write the report: %s", strerror(-r));
		return CR_EXIT_SETUP;
	}
	return ready ? 0 : 1;
}

static int dispatch(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd) {
		fputs(main_usage, stderr);
		return CR_WIN_EXIT_USAGE;
	}
	if (strcmp(cmd, "run") == 0)
		return run_main(argc - 1, argv + 1);
	if (strcmp(cmd, "wsl") == 0)
		return cr_win_wsl_main(argc - 1, argv + 1);
	if (strcmp(cmd, "doctor") == 0)
		return cr_win_doctor_main(argc - 1, argv + 1);
	if (strcmp(cmd, "help") == 0 && argc > 2 && strcmp(argv[2], "run") == 0) {
		fputs(run_usage, stdout);
		return 0;
	}
	if (strcmp(cmd, "help") == 0 && argc > 2 && strcmp(argv[2], "wsl") == 0)
		return cr_win_wsl_main(2, (char *[]){"wsl", "--help", NULL});
	if (strcmp(cmd, "help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		fputs(main_usage, stdout);
		return 0;
	}
	if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
		(void)printf("corral %s (windows)\n", CR_WIN_VERSION);
		return 0;
	}
	cr_log_error("unknown command '%s' (try: corral --help)", cmd);
	return CR_WIN_EXIT_USAGE;
}

int main(void)
{
	char **argv = NULL;
	int argc = 0, r;

	/* Text as UTF-8 bytes, no CRLF translation: what the Linux corral prints. */
	(void)_setmode(_fileno(stdout), _O_BINARY);
	(void)_setmode(_fileno(stderr), _O_BINARY);
	r = cr_win_args(&argc, &argv);
	if (r < 0) {
		cr_log_errno(r, "cannot read the command line");
		return CR_EXIT_SETUP;
	}
	r = dispatch(argc, argv);
	(void)fflush(stdout);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return r;
}
