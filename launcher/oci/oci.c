/* SPDX-License-Identifier: MIT */
/* `corral oci`: the global options engines pass (--root, --log, --log-format), the commands, and
 * errors reported where the engine looks for them (stderr, and the --log file: containerd and
 * Docker read the last error line of log.json when a call fails). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

extern char **environ;

#include "bundle.h"
#include "features.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/session/state.h"
#include "oci-internal.h"
#include "oci.h"
#include "state.h"

#define JSON_PRETTY (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

static const char usage[] =
	"Usage: corral oci [GLOBAL OPTIONS] COMMAND [ARGS]\n"
	"\n"
	"corral as an OCI runtime (runtime-spec " CR_OCI_VERSION_MIN " to " CR_OCI_VERSION_MAX
	"), for podman, containerd and Docker.\n"
	"See docs/oci.md for what is implemented and what config.json may not ask for.\n"
	"\n"
	"Commands:\n"
	"  features         the runtime-spec features document (JSON): what corral implements\n"
	"  create [--bundle DIR] [--pid-file FILE] [--console-socket PATH] [--preserve-fds N]\n"
	"         [--no-pivot] [--no-new-keyring] ID\n"
	"                   build container ID from DIR/config.json (-b DIR; default .) and\n"
	"                   leave its process waiting; FILE gets the pid to reap (it exits\n"
	"                   with the process's status). A field corral refuses is named.\n"
	"                   N: descriptors 3 to N+2 are passed on; --no-pivot and\n"
	"                   --no-new-keyring are accepted and change nothing\n"
	"  start ID         let the process of a created container run (one whose\n"
	"                   config.json has no process fails, and is stopped)\n"
	"  state ID         the state of container ID (runtime-spec state JSON)\n"
	"  kill [--all|-a] ID [SIGNAL]\n"
	"                   signal the container's process (--all: each of its processes);\n"
	"                   SIGNAL as 15, TERM or SIGTERM (default SIGTERM)\n"
	"  delete [--force|-f] ID\n"
	"                   remove a stopped container (--force: a created or running one too,\n"
	"                   killing everything in it)\n"
	"  ps [--format|-f table|json] ID\n"
	"                   the host pids of the container's processes, pid 1 first: a JSON\n"
	"                   array (the default), or a table of one PID column\n"
	"  exec --process FILE [--detach|-d] [--pid-file FILE] [--console-socket PATH]\n"
	"       [--tty|-t] ID\n"
	"                   run the process FILE describes (config.json's \"process\") in the\n"
	"                   running container ID, as confined as its own; without --detach,\n"
	"                   wait for it and exit with its status\n"
	"  help             show this text\n"
	"  run, pause, resume, update, events, list, checkpoint, restore, spec: not\n"
	"                   implemented yet (exit 1)\n"
	"\n"
	"Global options:\n"
	"  --root DIR       where container state lives (default /run/corral-oci for root,\n"
	"                   $XDG_RUNTIME_DIR/corral-oci for a user)\n"
	"  --log FILE       also append errors and warnings to FILE\n"
	"  --log-format text|json  the format of --log's lines (default text)\n"
	"  --debug          print debugging messages on stderr\n"
	"  --userns auto|required|spec  as root, a config.json without a user namespace gets\n"
	"                   one, its root idmapped: no host root in the container (auto, the\n"
	"                   default: where the root can be idmapped, else none, said so;\n"
	"                   required: or refuse), or none, as the spec says (spec); default\n"
	"                   $CORRAL_OCI_USERNS, else auto\n"
	"  -h, --help       show this text\n"
	"  -v, --version    print the version and the runtime-spec version\n"
	"A global option's value follows as the next word or after '='. --systemd-cgroup is\n"
	"refused: corral takes cgroupfs paths.\n"
	"\n"
	"Exit status: 0; 1 when a command failed (runc's convention); 125 on bad usage; exec\n"
	"without --detach: the process's status.\n";

/* One line at @level in --log FILE, in its format. */
static void log_line(const struct oci_opts *o, const char *level, const char *msg)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *line = NULL;
	char now[32];
	json_object *j;

	if (!o->log)
		return;
	cr_audit_now(now);
	j = json_object_new_object();
	if (o->log_json && cr_json_add(j, "level", json_object_new_string(level)) == 0 &&
	    cr_json_add(j, "msg", json_object_new_string(msg)) == 0 &&
	    cr_json_add(j, "time", json_object_new_string(now)) == 0)
		line = cr_json_text(j, JSON_C_TO_STRING_PLAIN);
	else if (!o->log_json &&
		 asprintf(&line, "time=\"%s\" level=%s msg=\"%s\"", now, level, msg) < 0)
		line = NULL;
	json_object_put(j);
	fd = open(o->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (!line || fd < 0 || cr_write_all(fd, line, strlen(line)) < 0 ||
	    cr_write_all(fd, "\n", 1) < 0)
		fprintf(stderr, "corral oci: cannot write the %s to --log %s\n", level, o->log);
}

void oci_error(const struct oci_opts *o, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "corral oci: %s\n", msg);
	log_line(o, "error", msg);
}

void oci_log_warning(const struct oci_opts *o, const char *msg)
{
	log_line(o, "warning", msg);
}

static int print_json(const struct oci_opts *o, json_object *j)
{
	int r = j ? cr_json_puts(j, JSON_PRETTY, stdout) : -ENOMEM;

	json_object_put(j);
	if (r == 0 && fflush(stdout) != 0)
		r = -EIO;
	if (r < 0)
		oci_error(o, "cannot write the JSON: %s", strerror(-r));
	return r < 0 ? OCI_EXIT_FAILED : 0;
}

static int cmd_features(const struct oci_opts *o, int argc, char **argv)
{
	if (argc != 1) {
		oci_error(o, "features takes no argument ('%s')", argv[1]);
		return CR_EXIT_SETUP;
	}
	return print_json(o, cr_oci_features_json());
}

/* The state's pid is the container's process on the host (runtime-spec: "the ID of the
 * container process"), whose /proc/PID/ns/ a caller joins or compares; the monitor's, in the
 * caller's namespaces, is in --pid-file for the engine to reap (pod.c maps it back). */
static json_object *container_pid(const struct cr_oci_state *st, json_object *o)
{
	json_object *v;

	if (o && st->status != CR_OCI_STOPPED && json_object_object_get_ex(st->doc, "init_pid", &v) &&
	    json_object_get_int(v) > 0)
		json_object_object_add(o, "pid", json_object_new_int(json_object_get_int(v)));
	return o;
}

static int cmd_state(const struct oci_opts *o, int argc, char **argv)
{
	char root[PATH_MAX], err[1024] = "";
	struct cr_oci_state st;
	int r;

	if (argc != 2) {
		oci_error(o, "usage: corral oci state ID");
		return CR_EXIT_SETUP;
	}
	if (o->root)
		r = snprintf(root, sizeof(root), "%s", o->root) >= (int)sizeof(root) ? -ENAMETOOLONG : 0;
	else
		r = cr_oci_root_default(environ, root, sizeof(root), err, sizeof(err));
	r = r ?: cr_oci_state_read(root, argv[1], &st, err, sizeof(err));
	if (r < 0) {
		oci_error(o, "state %s: %s", argv[1], err[0] ? err : strerror(-r));
		return OCI_EXIT_FAILED;
	}
	r = print_json(o, container_pid(&st, cr_oci_state_json(&st)));
	cr_oci_state_done(&st);
	return r;
}

static int dispatch(const struct oci_opts *o, int argc, char **argv)
{
	static const char *const later[] = { "run", "pause", "resume", "update", "events", "list",
					     "checkpoint", "restore", "spec", NULL };
	const char *cmd = argv[0];

	if (strcmp(cmd, "features") == 0)
		return cmd_features(o, argc, argv);
	if (strcmp(cmd, "state") == 0)
		return cmd_state(o, argc, argv);
	if (strcmp(cmd, "create") == 0)
		return oci_cmd_create(o, argc, argv);
	if (strcmp(cmd, "start") == 0)
		return oci_cmd_start(o, argc, argv);
	if (strcmp(cmd, "kill") == 0)
		return oci_cmd_kill(o, argc, argv);
	if (strcmp(cmd, "delete") == 0)
		return oci_cmd_delete(o, argc, argv);
	if (strcmp(cmd, "exec") == 0)
		return oci_cmd_exec(o, argc, argv);
	if (strcmp(cmd, "ps") == 0)
		return oci_cmd_ps(o, argc, argv);
	if (strcmp(cmd, "help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	for (size_t i = 0; later[i]; i++)
		if (strcmp(cmd, later[i]) == 0) {
			oci_error(o, "%s: not implemented yet (docs/oci.md says what is)", cmd);
			return OCI_EXIT_FAILED;
		}
	oci_error(o, "unknown command '%s' (corral oci --help lists them)", cmd);
	return CR_EXIT_SETUP;
}

/* A global option's value: "--opt VALUE" or "--opt=VALUE". NULL if @arg is not @opt. */
static const char *value_of(const char *opt, int argc, char **argv, int *i, bool *ret_missing)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc)
		return *ret_missing = true, NULL;
	return argv[++*i];
}

int cr_oci_main(int argc, char **argv)
{
	struct oci_opts o = {};
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i], *v;
		bool missing = false;

		if ((v = value_of("--root", argc, argv, &i, &missing))) {
			o.root = v;
		} else if ((v = value_of("--log", argc, argv, &i, &missing))) {
			o.log = v;
		} else if ((v = value_of("--log-format", argc, argv, &i, &missing))) {
			if (strcmp(v, "json") != 0 && strcmp(v, "text") != 0) {
				oci_error(&o, "--log-format: '%s' is not text or json", v);
				return CR_EXIT_SETUP;
			}
			o.log_json = strcmp(v, "json") == 0;
		} else if ((v = value_of("--userns", argc, argv, &i, &missing))) {
			if (strcmp(v, "auto") != 0 && strcmp(v, "required") != 0 &&
			    strcmp(v, "spec") != 0) {
				oci_error(&o, "--userns: '%s' is not auto, required or spec", v);
				return CR_EXIT_SETUP;
			}
			o.userns = v;
		} else if (missing) {
			oci_error(&o, "%s needs a value", a);
			return CR_EXIT_SETUP;
		} else if (strcmp(a, "--debug") == 0) {
			cr_log_set_level(CR_LOG_DEBUG);
		} else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0) {
			printf("corral version %s\nspec: %s\n", CR_VERSION, CR_OCI_VERSION_MAX);
			return 0;
		} else if (strcmp(a, "--systemd-cgroup") == 0) {
			oci_error(&o, "--systemd-cgroup: not supported by corral (it takes cgroupfs paths); set the engine's cgroup manager to cgroupfs");
			return CR_EXIT_SETUP;
		} else {
			oci_error(&o, "unknown global option '%s' (corral oci --help lists them)", a);
			return CR_EXIT_SETUP;
		}
	}
	if (o.root && o.root[0] != '/') {
		oci_error(&o, "--root: '%s' is not an absolute path", o.root);
		return CR_EXIT_SETUP;
	}
	if (i >= argc) {
		fputs(usage, stderr);
		return CR_EXIT_SETUP;
	}
	return dispatch(&o, argc - i, argv + i);
}
