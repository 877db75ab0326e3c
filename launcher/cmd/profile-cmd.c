/* SPDX-License-Identifier: MIT */
/* `corral profile list|show`: which profiles there are, and the effective policy of one. */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile-cmd.h"
#include "launcher/driver.h"
#include "launcher/base/json-util.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "launcher/policy/profile-builtin.h"
#include "launcher/policy/profile-find.h"
#include "launcher/policy/profile-resolve.h"
#include "launcher/policy/profile.h"
#include "macos/sbpl.h"
#include "launcher/status.h"

extern char **environ;

static const char usage[] =
	"Usage: corral profile list [--json]\n"
	"       corral profile show NAME|FILE [--json | --ini] [-w|--workspace DIR] [--backend macos]\n"
	"\n"
	"list  the profiles: the built-ins, and NAME.ini in $XDG_CONFIG_HOME/corral/profiles\n"
	"      (~/.config/corral/profiles) and " CR_SYSCONF_PROFILES ", which shadow\n"
	"      the built-ins of the same name in that order.\n"
	"show  the effective policy of a profile resolved against DIR (default: the current\n"
	"      directory): its paths, network, processes, limits and security layers.\n"
	"      --ini prints the profile's text instead. A FILE is a path with a '/'.\n"
	"      --backend macos prints the SBPL profile and the sandbox-exec parameters the macos\n"
	"      driver would use, on any host, so that it can be reviewed (linux: the default).\n"
	"--json  one JSON line instead of text.\n"
	"\n"
	"Exit status: 0; 125 on bad usage or a profile that cannot be read.\n";

/* One name and where it is defined, best first. */
struct entry {
	char *name;
	bool user, system, builtin;
};

struct list {
	struct entry *v;
	size_t n;
};

static void list_done(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].name);
	free(l->v);
	*l = (struct list){};
}

static struct entry *list_get(struct list *l, const char *name)
{
	struct entry *v;

	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	v = reallocarray(l->v, l->n + 1, sizeof(*v));
	if (!v)
		return NULL;
	l->v = v;
	v[l->n] = (struct entry){ .name = strdup(name) };
	return v[l->n].name ? &v[l->n++] : NULL;
}

/* Every NAME.ini in @dir with a valid NAME; a missing directory has none. */
static int scan_dir(struct list *l, const char *dir, bool user)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	int r = 0;

	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		_cleanup_free_ char *name = NULL;
		struct entry *e;

		if (n <= 4 || strcmp(de->d_name + n - 4, ".ini") != 0)
			continue;
		name = strndup(de->d_name, n - 4);
		if (!name)
			r = -ENOMEM;
		if (!name || !cr_profile_name_is_valid(name))
			continue;
		e = list_get(l, name);
		if (!e)
			r = -ENOMEM;
		else if (user)
			e->user = true;
		else
			e->system = true;
	}
	(void)closedir(d);
	return r;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

/* The built-ins in their order, then the other names alphabetically. */
static int collect(const struct cr_profile_dirs *dirs, struct list *l)
{
	size_t n_builtin = 0;
	int r;

	for (size_t i = 0; cr_profile_builtin_names[i]; i++, n_builtin++) {
		struct entry *e = list_get(l, cr_profile_builtin_names[i]);

		if (!e)
			return -ENOMEM;
		e->builtin = true;
	}
	r = scan_dir(l, dirs->user_dir, true);
	if (r >= 0)
		r = scan_dir(l, dirs->system_dir, false);
	if (r < 0)
		return r;
	qsort(l->v + n_builtin, l->n - n_builtin, sizeof(*l->v), by_name);
	return 0;
}

/* What @e's winner shadows. */
static json_object *shadowed(const struct cr_profile_dirs *dirs, const struct entry *e)
{
	json_object *a = json_object_new_array();
	char path[4096];
	int r = a ? 0 : -ENOMEM;

	if (e->user && e->system) {
		(void)snprintf(path, sizeof(path), "%s/%s.ini", dirs->system_dir, e->name);
		r = r ?: cr_json_append(a, json_object_new_string(path));
	}
	if ((e->user || e->system) && e->builtin)
		r = r ?: cr_json_append(a, json_object_new_string("builtin"));
	return cr_json_whole(a, r);
}

static json_object *entry_json(const struct cr_profile_dirs *dirs, const struct entry *e)
{
	json_object *o = json_object_new_object();
	struct cr_profile p = {};
	char msg[1024] = "";
	int r;

	if (cr_profile_load(e->name, dirs, &p, msg, sizeof(msg)) >= 0) {
		r = cr_json_add(o, "name", json_object_new_string(e->name));
		r = r ?: cr_json_add(o, "source", json_object_new_string(p.source));
		r = r ?: cr_json_add(o, "description", json_object_new_string(p.description));
	} else {
		r = cr_json_add(o, "name", json_object_new_string(e->name));
		r = r ?: cr_json_add(o, "error", json_object_new_string(msg));
	}
	r = r ?: cr_json_add(o, "shadows", shadowed(dirs, e));
	cr_profile_done(&p);
	return cr_json_whole(o, r);
}

static void print_entry(json_object *o)
{
	json_object *name = json_object_object_get(o, "name");
	json_object *source = json_object_object_get(o, "source");
	json_object *desc = json_object_object_get(o, "description");
	json_object *err = json_object_object_get(o, "error");
	json_object *sh = json_object_object_get(o, "shadows");

	printf("%s (%s", json_object_get_string(name),
	       source ? json_object_get_string(source) : "invalid");
	for (size_t i = 0; i < json_object_array_length(sh); i++)
		printf("%s%s", i ? ", " : "; shadows ",
		       json_object_get_string(json_object_array_get_idx(sh, i)));
	printf(")\n    %s\n", err ? json_object_get_string(err) : json_object_get_string(desc));
}

static int list_main(const struct cr_profile_dirs *dirs, bool json)
{
	_cleanup_(list_done) struct list l = {};
	json_object *a = NULL, *top = NULL;
	int r;

	r = collect(dirs, &l);
	a = r >= 0 ? json_object_new_array() : NULL;
	r = a ? 0 : -ENOMEM;
	for (size_t i = 0; r == 0 && i < l.n; i++)
		r = cr_json_append(a, entry_json(dirs, &l.v[i]));
	top = json_object_new_object();
	r = r ?: cr_json_add(top, "default", json_object_new_string(CR_DEFAULT_PROFILE));
	if (r < 0)
		json_object_put(a);
	r = r ?: cr_json_add(top, "profiles", a);
	if (r < 0) {
		json_object_put(top);
		cr_log_error("profile list: out of memory");
		return CR_EXIT_SETUP;
	}
	if (json)
		r = cr_status_write(top, STDOUT_FILENO);
	else
		for (size_t i = 0; i < json_object_array_length(a); i++)
			print_entry(json_object_array_get_idx(a, i));
	json_object_put(top);
	return r < 0 ? CR_EXIT_SETUP : 0;
}

/* The options of `profile show`. */
struct show_args {
	const char *profile, *workspace;
	bool json, ini;
	bool macos; /* --backend macos: the SBPL profile the macos driver would use */
};

static int parse_show(int argc, char **argv, struct show_args *a)
{
	for (int i = 2; i < argc; i++) {
		const char *s = argv[i];

		if (strcmp(s, "--json") == 0)
			a->json = true;
		else if (strcmp(s, "--ini") == 0)
			a->ini = true;
		else if (strcmp(s, "--backend") == 0 && i + 1 < argc &&
			 (strcmp(argv[i + 1], "macos") == 0 || strcmp(argv[i + 1], "linux") == 0))
			a->macos = strcmp(argv[++i], "macos") == 0;
		else if (strcmp(s, "--backend") == 0)
			return cr_log_error("profile show: --backend takes linux or macos"), -EINVAL;
		else if ((strcmp(s, "-w") == 0 || strcmp(s, "--workspace") == 0) && i + 1 < argc)
			a->workspace = argv[++i];
		else if (strcmp(s, "-w") == 0 || strcmp(s, "--workspace") == 0)
			return cr_log_error("profile show: %s needs a directory", s), -EINVAL;
		else if (strncmp(s, "--workspace=", 12) == 0)
			a->workspace = s + 12;
		else if (s[0] == '-' && s[1])
			return cr_log_error("profile show: unknown option '%s'", s), -EINVAL;
		else if (a->profile)
			return cr_log_error("profile show: one profile at a time ('%s' and '%s')",
					    a->profile, s),
			       -EINVAL;
		else
			a->profile = s;
	}
	if (!a->profile)
		return cr_log_error("profile show: which profile? (usage: corral profile show NAME|FILE)"),
		       -EINVAL;
	if (a->json && a->ini)
		return cr_log_error("profile show: --json and --ini exclude each other"), -EINVAL;
	if (a->macos && a->ini)
		return cr_log_error("profile show: --backend macos prints the SBPL profile; --ini the INI text: choose one"),
		       -EINVAL;
	return 0;
}

/* DIR, or the current directory: canonical and a directory. */
static int find_workspace(const char *dir, char **ret)
{
	_cleanup_free_ char *w = NULL;
	struct stat st;
	int r;

	r = cr_path_canonicalize(dir ?: ".", &w);
	if (r < 0)
		return cr_log_errno(r, "profile show: workspace '%s': %m", dir ?: "."), r;
	if (stat(w, &st) < 0 || !S_ISDIR(st.st_mode)) {
		cr_log_error("profile show: workspace '%s' is not a directory", w);
		return -ENOTDIR;
	}
	*ret = TAKE_PTR(w);
	return 0;
}

/* "ro", "rw" or "hide", as the workspace's access and cr_policy say it. */
static const char *access_name(enum cr_path_access a)
{
	return cr_path_access_to_string(a);
}

/* A limit as a profile writes it: sizes with K, M, G or T when they divide evenly. */
static void format_limit(enum cr_limit l, uint64_t v, char *buf, unsigned size)
{
	static const char units[] = "KMGT";
	int u = -1;

	if (v == CR_LIMIT_INFINITY ||
	    (l != CR_LIMIT_MEMORY && l != CR_LIMIT_MEMORY_SWAP && l != CR_LIMIT_FILE_SIZE)) {
		cr_limit_format(l, v, buf, size);
		return;
	}
	while (u < 3 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	(void)snprintf(buf, size, "%llu%.*s", (unsigned long long)v, u >= 0, u >= 0 ? units + u : "");
}

static void print_limits(const struct cr_profile *p)
{
	char buf[64];
	bool any = false;

	printf("limits      ");
	for (int l = 0; l < _CR_LIMIT_MAX; l++) {
		if (!p->limits.set[l])
			continue;
		format_limit(l, p->limits.value[l], buf, sizeof(buf));
		printf("%s%s = %s", any ? ", " : "", cr_limit_to_string(l), buf);
		any = true;
	}
	printf("%s\n", any ? "; the others unbounded" : "none");
	if (p->timeout_ms % 1000)
		printf("timeout     %llu.%03llu s\n", (unsigned long long)(p->timeout_ms / 1000),
		       (unsigned long long)(p->timeout_ms % 1000));
	else if (p->timeout_ms)
		printf("timeout     %llu s\n", (unsigned long long)(p->timeout_ms / 1000));
	else
		printf("timeout     none\n");
	printf("enforce     %s\n", p->limits.required ? "required" : "best-effort");
}

static void print_paths(const struct cr_profile_resolution *res)
{
	printf("paths%s\n", res->n_rules ? "" : "       none besides the system and the workspace");
	for (size_t i = 0; i < res->n_rules; i++)
		printf("  %-6s %s (line %u)\n", access_name(res->rules[i].access), res->rules[i].path,
		       res->lines[i]);
	if (res->n_skipped)
		printf("skipped     missing or out of reach here, so left out\n");
	for (size_t i = 0; i < res->n_skipped; i++)
		printf("  %-6s %s (line %u)\n", access_name(res->skipped[i].access),
		       res->skipped[i].path, res->skipped[i].line);
}

/* [filesystem] cache lines, as written: "~" is the sandbox's HOME of each run. */
static void print_caches(const struct cr_profile *p)
{
	printf("caches%s\n", p->n_caches ? "      kept in the state directory, STATE/caches/NAME"
					   : "      none");
	for (size_t i = 0; i < p->n_caches; i++)
		printf("  %s (line %u)\n", p->caches[i].spec, p->caches[i].line);
}

/* [commands]: the rule of each tier, then the allowlist. */
static void print_commands(const struct cr_profile *p)
{
	printf("commands   ");
	for (int t = 0; t < _CR_RISK_MAX; t++)
		printf("%s %s %s", t ? "," : "", cr_risk_tier_to_string(t),
		       cr_command_rule_to_string(p->tier_rule[t]));
	printf("\n");
	for (size_t i = 0; i < p->n_allow_commands; i++)
		printf("  allow        %s\n", p->allow_commands[i]);
	for (size_t i = 0; i < p->n_allow_prefixes; i++)
		printf("  allow_prefix %s\n", p->allow_prefixes[i]);
}

static void show_print(const struct cr_profile *p, const char *workspace,
		       const struct cr_profile_resolution *res)
{
	printf("profile     %s (%s)\n", p->name, p->source);
	if (p->description[0])
		printf("            %s\n", p->description);
	printf("workspace   %s (%s)\n", workspace, p->workspace_ro ? "read-only" : "read-write");
	print_paths(res);
	print_caches(p);
	printf("network     %s", cr_net_cap_to_string(p->net));
	for (size_t i = 0; i < p->n_hosts; i++)
		printf("%s%s", i ? ", " : ": ", p->hosts[i]);
	printf("\nspawn       %s\n", p->spawn ? "yes" : "no (the command cannot start processes)");
	printf("path        %s\n", p->inherit_path
					 ? "inherit (the caller's, less what the sandbox does not show)"
					 : "standard");
	print_limits(p);
	printf("seccomp     %s\n", cr_seccomp_mode_to_string(p->seccomp));
	printf("landlock    %s\n", cr_landlock_mode_to_string(p->landlock));
	printf("ptrace      %s\n", p->ptrace ? "sandbox (between the sandbox's own processes)" : "no");
	print_commands(p);
}

static json_object *path_json(const char *path, enum cr_path_access access, unsigned line)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "path", json_object_new_string(path));
	r = r ?: cr_json_add(o, "access", json_object_new_string(access_name(access)));
	if (line)
		r = r ?: cr_json_add(o, "line", json_object_new_int64(line));
	return cr_json_whole(o, r);
}

static json_object *paths_json(const struct cr_profile_resolution *res, bool skipped)
{
	json_object *a = json_object_new_array();
	size_t n = skipped ? res->n_skipped : res->n_rules;
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++) {
		const struct cr_profile_skip *s = &res->skipped[i];
		const struct cr_path_rule *rule = &res->rules[i];

		r = cr_json_append(a, skipped ? path_json(s->path, s->access, s->line)
					      : path_json(rule->path, rule->access, res->lines[i]));
	}
	return cr_json_whole(a, r);
}

/* [{"name": N, "path": P as written, "line": L}] */
static json_object *caches_json(const struct cr_profile *p)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < p->n_caches; i++) {
		const char *spec = p->caches[i].spec, *colon = strchr(spec, ':');
		json_object *c = json_object_new_object();
		int q = c && colon ? 0 : -ENOMEM;

		q = q ?: cr_json_add(c, "name", json_object_new_string_len(spec, (int)(colon - spec)));
		q = q ?: cr_json_add(c, "path", json_object_new_string(colon + 1));
		q = q ?: cr_json_add(c, "line", json_object_new_int64(p->caches[i].line));
		r = cr_json_append(a, cr_json_whole(c, q));
	}
	return cr_json_whole(a, r);
}

/* {"safe": "allow", ..., "allow": [...], "allow_prefix": [...]} */
static json_object *commands_json(const struct cr_profile *p)
{
	json_object *o = json_object_new_object();
	int r = 0;

	for (int t = 0; r == 0 && t < _CR_RISK_MAX; t++)
		r = cr_json_add(o, cr_risk_tier_to_string(t),
				json_object_new_string(cr_command_rule_to_string(p->tier_rule[t])));
	r = r ?: cr_json_add(o, "allow", cr_json_strv(p->allow_commands, p->n_allow_commands));
	r = r ?: cr_json_add(o, "allow_prefix",
			     cr_json_strv(p->allow_prefixes, p->n_allow_prefixes));
	return cr_json_whole(o, r);
}

/* NULL only on allocation failure. */
static json_object *show_json(const struct cr_profile *p, const char *workspace,
			      const struct cr_profile_resolution *res)
{
	json_object *o = json_object_new_object(), *w = json_object_new_object();
	const char *landlock = cr_landlock_mode_to_string(p->landlock);
	int r;

	r = cr_json_add(w, "path", json_object_new_string(workspace));
	r = r ?: cr_json_add(w, "access", json_object_new_string(p->workspace_ro ? "ro" : "rw"));
	w = cr_json_whole(w, r);
	r = cr_json_add(o, "name", json_object_new_string(p->name));
	r = r ?: cr_json_add(o, "source", json_object_new_string(p->source));
	r = r ?: cr_json_add(o, "description", json_object_new_string(p->description));
	if (r < 0)
		json_object_put(w);
	r = r ?: cr_json_add(o, "workspace", w);
	r = r ?: cr_json_add(o, "paths", paths_json(res, false));
	r = r ?: cr_json_add(o, "skipped", paths_json(res, true));
	r = r ?: cr_json_add(o, "caches", caches_json(p));
	r = r ?: cr_json_add(o, "path", json_object_new_string(p->inherit_path ? "inherit" : "standard"));
	r = r ?: cr_json_add(o, "baseline", cr_capability_to_json(&res->baseline, false));
	r = r ?: cr_json_add(o, "seccomp",
			     json_object_new_string(cr_seccomp_mode_to_string(p->seccomp)));
	r = r ?: cr_json_add(o, "landlock", json_object_new_string(landlock));
	r = r ?: cr_json_add(o, "ptrace", json_object_new_string(p->ptrace ? "sandbox" : "no"));
	r = r ?: cr_json_add(o, "limits_enforce",
			     json_object_new_string(p->limits.required ? "required" : "best-effort"));
	r = r ?: cr_json_add(o, "commands", commands_json(p));
	return cr_json_whole(o, r);
}

static int show_resolved(const struct cr_profile *p, const struct show_args *a)
{
	_cleanup_free_ char *ws = NULL;
	struct cr_profile_resolution res = {};
	char msg[1024];
	json_object *o;
	int r;

	if (find_workspace(a->workspace, &ws) < 0)
		return CR_EXIT_SETUP;
	if (a->macos) {
		r = cr_sbpl_show(p, ws, environ, a->json, msg, sizeof(msg));
		if (r < 0)
			cr_log_error("profile show --backend macos: %s", msg);
		return r < 0 ? CR_EXIT_SETUP : 0;
	}
	r = cr_profile_resolve_full(p, ws, cr_driver_native()->system_paths, &res, msg,
				    sizeof(msg));
	if (r < 0) {
		cr_log_error("%s", msg);
		return CR_EXIT_SETUP;
	}
	if (!a->json) {
		show_print(p, ws, &res);
		cr_profile_resolution_done(&res);
		return 0;
	}
	o = show_json(p, ws, &res);
	r = o ? cr_status_write(o, STDOUT_FILENO) : -ENOMEM;
	json_object_put(o);
	cr_profile_resolution_done(&res);
	if (r < 0)
		return cr_log_errno(r, "profile show: %m"), CR_EXIT_SETUP;
	return 0;
}

static int show_main(const struct cr_profile_dirs *dirs, const struct show_args *a)
{
	struct cr_profile_file f = {};
	struct cr_profile p = {};
	char msg[1024];
	int r;

	r = cr_profile_find(a->profile, dirs, &f, msg, sizeof(msg));
	if (r >= 0)
		r = cr_profile_parse(f.text, f.size, f.name, f.source, dirs, &p, msg, sizeof(msg));
	if (r < 0) {
		cr_profile_file_done(&f);
		cr_log_error("%s", msg);
		return CR_EXIT_SETUP;
	}
	if (a->ini) {
		r = fwrite(f.text, 1, f.size, stdout) == f.size ? 0 : CR_EXIT_SETUP;
		if (f.size > 0 && f.text[f.size - 1] != '\n')
			putchar('\n');
	} else {
		r = show_resolved(&p, a);
	}
	cr_profile_done(&p);
	cr_profile_file_done(&f);
	return r;
}

int cr_profile_main(int argc, char **argv)
{
	struct cr_profile_dirs dirs = {};
	struct show_args a = {};
	const char *cmd = argc > 1 ? argv[1] : NULL;
	int r;

	if (cmd && (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "help") == 0)) {
		fputs(usage, stdout);
		return 0;
	}
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(usage, stdout);
			return 0;
		}
	if (!cmd || (strcmp(cmd, "list") != 0 && strcmp(cmd, "show") != 0)) {
		cr_log_error("profile: %s%s%s (usage: corral profile list|show NAME)",
			     cmd ? "unknown command '" : "which command?", cmd ?: "", cmd ? "'" : "");
		return CR_EXIT_SETUP;
	}
	for (int i = 2; strcmp(cmd, "list") == 0 && i < argc; i++)
		if (strcmp(argv[i], "--json") != 0 || i > 2) {
			cr_log_error("profile list: unexpected argument '%s' (usage: corral profile list [--json])",
				     argv[i]);
			return CR_EXIT_SETUP;
		}
	if (strcmp(cmd, "show") == 0 && parse_show(argc, argv, &a) < 0)
		return CR_EXIT_SETUP;
	if (cr_profile_dirs_from_env(environ, &dirs) < 0) {
		cr_log_error("profile: out of memory");
		return CR_EXIT_SETUP;
	}
	if (dirs.skipped && !dirs.user_dir)
		cr_log_warning("profile: skipped the profile directory %s", dirs.skipped);
	r = strcmp(cmd, "list") == 0 ? list_main(&dirs, argc == 3) : show_main(&dirs, &a);
	cr_profile_dirs_done(&dirs);
	return r;
}
