/* SPDX-License-Identifier: MIT */
/* Profiles: parsing and finding them. Read with launcher/base/ini.c, corral's one INI reader.
 *
 *   # a comment: a line starting with '#' or ';'
 *   [profile]
 *   description = one line of text
 *
 *   [filesystem]
 *   workspace = rw              ; rw (default) or ro
 *   read = PATH                 ; shown read-only; repeatable, one path per key
 *   write = PATH                ; shown writable; repeatable
 *   read_if_exists = PATH       ; like read, skipped when missing at run time
 *   write_if_exists = PATH      ; like write, skipped when missing
 *   hide = PATH                 ; covered with an empty directory or file; skipped when missing
 *   cache = NAME:PATH           ; a named cache corral keeps (cache.h) shown writable at PATH;
 *                               ; repeatable
 *
 *   [network]
 *   mode = none                 ; none (default), allow_hosts or all
 *   allow_host = PATTERN        ; repeatable; only with, and needed by, mode = allow_hosts
 *
 *   [process]
 *   spawn = yes                 ; yes (default) or no; true and false also do
 *   path = standard             ; standard (default: CR_DEFAULT_PATH) or inherit: the caller's
 *                               ; PATH less the directories the sandbox does not show
 *
 *   [limits]                    ; each SIZE|N|CPUS or max, as the --memory ... options take them
 *   memory = 4G   memory_swap = 1G   pids = 1024   cpu = 1.5   cpu_time = 600
 *   file_size = 1G   open_files = 1024
 *   timeout = 3600              ; seconds, decimals allowed, > 0 and at most a year
 *   enforce = best-effort       ; best-effort (default) or required: fail if a limit cannot be
 *
 *   [security]
 *   seccomp = default           ; default (default), strict or off
 *   landlock = best-effort      ; best-effort (default), required or off
 *   ptrace = no                 ; no (default) or sandbox: ptrace between the sandbox's own
 *                               ; processes (gdb, strace, LeakSanitizer)
 *
 *   [commands]                  ; what `corral serve` does with a command of each risk tier
 *   safe = allow                ; allow, ask or deny; defaults: safe, caution and unknown
 *   caution = allow             ; allow, dangerous ask
 *   unknown = allow
 *   dangerous = ask
 *   allow = git status          ; a command line always allowed (repeatable)
 *   allow_prefix = git log      ; a command that starts with these words (repeatable)
 *
 * One "KEY = VALUE" per line (not "KEY: VALUE"); the value runs to the end of the line or to a
 * ';' after a space (an inline comment). Nothing is quoted or continued: an indented line is
 * refused, since inih would read it as a continuation of the key above. Every section, key and
 * value is checked, and an error is "SOURCE:LINE: reason": an unknown section or key, a key before
 * any section, an empty or bad value, a key other than read, write, ..., allow_host given twice,
 * a NUL byte, a control character other than tab, a line longer than CR_INI_MAX_LINE bytes
 * (refused rather than cut). Paths must be absolute after expansion, where only a
 * leading "~" or "~/" (the home directory) and a leading "${WORKSPACE}" (kept for
 * cr_profile_resolve()) expand; any other '$' or '~' is refused rather than kept literally.
 * The line-level rules (base/ini.h) are those of every INI file corral reads. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "request.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/ini.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "cache.h"
#include "host-pattern.h"
#include "profile-internal.h"
#include "profile.h"
#include "launcher/risk/shell-parse.h"

static const char *const section_names[] = {
	"profile", "filesystem", "network", "process", "limits", "security", "commands", NULL,
};

struct parse;
struct key;
typedef int (*key_parser)(struct parse *p, const struct key *k, const char *value);

/* A key of the format: the scalar ones may be given once, the repeatable ones any number of
 * times. The limit keys are not listed: they are the names cr_limit_to_string() gives. */
struct key {
	const char *section, *name;
	key_parser parse;
	int arg;
	bool repeatable;
};

enum { LIST_READ, LIST_WRITE, LIST_HIDE };

struct parse {
	struct cr_ini ini; /* the reader: the source, the line, the first error */
	const struct cr_profile_dirs *dirs;
	struct cr_profile *prof;
	unsigned *seen; /* per key of keys[], then per limit: the line it was first given on */
};

#define fail(p, ...) cr_ini_fail(&(p)->ini, __VA_ARGS__)
#define fail_oom(p)  cr_ini_fail_oom(&(p)->ini)

static int parse_description(struct parse *p, const struct key *k, const char *value)
{
	char *d = strdup(value);

	if (!d)
		return fail_oom(p);
	free(p->prof->description);
	p->prof->description = d;
	return 1;
}

static int parse_workspace(struct parse *p, const struct key *k, const char *value)
{
	if (strcmp(value, "rw") != 0 && strcmp(value, "ro") != 0)
		return fail(p, "workspace = '%s': expected rw or ro", value);
	p->prof->workspace_ro = strcmp(value, "ro") == 0;
	return 1;
}

/* Does @s hold a '$' or a '~'? */
static bool has_expansion(const char *s)
{
	for (; *s; s++)
		if (*s == '$' || *s == '~')
			return true;
	return false;
}

/* "~" and "~/..." become the home directory; a leading "${WORKSPACE}" is kept. */
static int expand_path(struct parse *p, const char *value, char **ret)
{
	const char *home = p->dirs ? p->dirs->home : NULL;
	size_t skip = 0; /* what expands */

	if (value[0] == '~') {
		if (value[1] != '\0' && value[1] != '/')
			return fail(p, "'%s': ~USER does not expand (only a leading ~ and ${WORKSPACE} do)",
				    value);
		if (!home)
			return fail(p, "'%s': ~ needs a home directory, and there is none (HOME is not set)",
				    value);
		skip = 1;
	} else if (strncmp(value, "${WORKSPACE}", 12) == 0 &&
		   (value[12] == '\0' || value[12] == '/')) {
		skip = 12;
	}
	if (has_expansion(value + skip))
		return fail(p, "'%s': only a leading ~ and ${WORKSPACE} expand; '$' and '~' are not allowed elsewhere",
			    value);
	if (skip == 0 && value[0] != '/')
		return fail(p, "'%s' is relative: a path must be absolute, or start with ~/ or ${WORKSPACE}",
			    value);
	if (value[0] != '~')
		*ret = strdup(value);
	else if (asprintf(ret, "%s%s", strcmp(home, "/") == 0 && value[1] ? "" : home,
			  value + 1) < 0)
		*ret = NULL; /* asprintf() leaves it undefined */
	if (!*ret)
		return fail_oom(p);
	if (cr_path_check(*ret, value[0] != '$') < 0) {
		free(*ret);
		*ret = NULL;
		return fail(p, "'%s': not a usable absolute path (too long, or home is relative)",
			    value);
	}
	return 1;
}

static int parse_path(struct parse *p, const struct key *k, const char *value)
{
	struct cr_profile *prof = p->prof;
	struct cr_profile_path **list = k->arg == LIST_READ    ? &prof->read
					: k->arg == LIST_WRITE ? &prof->write
							       : &prof->hide;
	size_t *n = k->arg == LIST_READ    ? &prof->n_read
		    : k->arg == LIST_WRITE ? &prof->n_write
					   : &prof->n_hide;
	struct cr_profile_path *a;
	char *path = NULL;

	if (!expand_path(p, value, &path))
		return 0;
	a = reallocarray(*list, *n + 1, sizeof(**list));
	if (!a) {
		free(path);
		return fail_oom(p);
	}
	*list = a;
	a[(*n)++] = (struct cr_profile_path){
		.path = path,
		.line = p->ini.line,
		.optional = strstr(k->name, "_if_exists") != NULL,
	};
	return 1;
}

static int parse_cache(struct parse *p, const struct key *k, const char *value)
{
	struct cr_profile *prof = p->prof;
	struct cr_profile_cache *a;
	char *name = NULL, *path = NULL, *spec;
	char why[256];
	int r;

	r = cr_cache_spec_parse("cache", value, ':', "/", &name, &path, why, sizeof(why));
	free(name);
	free(path);
	if (r == -ENOMEM)
		return fail_oom(p);
	if (r < 0)
		return fail(p, "%s", why);
	spec = strdup(value);
	a = spec ? reallocarray(prof->caches, prof->n_caches + 1, sizeof(*a)) : NULL;
	if (!a) {
		free(spec);
		return fail_oom(p);
	}
	prof->caches = a;
	a[prof->n_caches++] = (struct cr_profile_cache){ spec, p->ini.line };
	return 1;
}

static int parse_mode(struct parse *p, const struct key *k, const char *value)
{
	enum cr_net_cap n = cr_net_cap_from_string(value);

	if (n < 0)
		return fail(p, "mode = '%s': expected none, allow_hosts or all", value);
	p->prof->net = n;
	return 1;
}

/* Append a copy of @s to the NULL-terminated @v of @n. 0 or -ENOMEM. */
static int strv_push_dup(char ***v, size_t *n, const char *s)
{
	char *d = strdup(s), **a;

	if (!d)
		return -ENOMEM;
	a = reallocarray(*v, *n + 2, sizeof(*a));
	if (!a)
		return free(d), -ENOMEM;
	*v = a;
	a[(*n)++] = d;
	a[*n] = NULL;
	return 0;
}

static int parse_host(struct parse *p, const struct key *k, const char *value)
{
	struct cr_profile *prof = p->prof;
	_cleanup_free_ char *host = NULL;
	char **v;

	if (cr_host_pattern_check(value) < 0)
		return fail(p,
			    "allow_host = '%s': not a host pattern (a DNS name, *.NAME for the names below it, or an IPv4 address; then optionally :PORT, 1-65535)",
			    value);
	host = strdup(value);
	if (!host)
		return fail_oom(p);
	for (char *c = host; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < prof->n_hosts; i++)
		if (strcmp(prof->hosts[i], host) == 0)
			return 1; /* the same host again changes nothing */
	v = reallocarray(prof->hosts, prof->n_hosts + 2, sizeof(*v));
	if (!v)
		return fail_oom(p);
	prof->hosts = v;
	v[prof->n_hosts++] = TAKE_PTR(host);
	v[prof->n_hosts] = NULL;
	return 1;
}

/* yes/no, and true/false as many INI files write them. */
static int parse_bool(const char *value, bool *ret)
{
	if (strcmp(value, "yes") == 0 || strcmp(value, "true") == 0)
		*ret = true;
	else if (strcmp(value, "no") == 0 || strcmp(value, "false") == 0)
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_spawn(struct parse *p, const struct key *k, const char *value)
{
	if (parse_bool(value, &p->prof->spawn) < 0)
		return fail(p, "spawn = '%s': expected yes or no", value);
	return 1;
}

static int parse_path_env(struct parse *p, const struct key *k, const char *value)
{
	if (strcmp(value, "standard") != 0 && strcmp(value, "inherit") != 0)
		return fail(p, "path = '%s': expected standard or inherit", value);
	p->prof->inherit_path = strcmp(value, "inherit") == 0;
	return 1;
}

static int parse_timeout(struct parse *p, const struct key *k, const char *value)
{
	uint64_t ms;
	int r = cr_parse_seconds(value, &ms);

	if (r < 0 || ms == 0 || ms > CR_MAX_WAIT_MS)
		return fail(p, "timeout = '%s': expected seconds, more than 0 and at most %llu",
			    value, (unsigned long long)(CR_MAX_WAIT_MS / 1000));
	p->prof->timeout_ms = ms;
	return 1;
}

static int parse_enforce(struct parse *p, const struct key *k, const char *value)
{
	if (strcmp(value, "best-effort") != 0 && strcmp(value, "required") != 0)
		return fail(p, "enforce = '%s': expected best-effort or required", value);
	p->prof->limits.required = strcmp(value, "required") == 0;
	return 1;
}

static int parse_seccomp(struct parse *p, const struct key *k, const char *value)
{
	enum cr_seccomp_mode m = cr_seccomp_mode_from_string(value);

	if (m < 0)
		return fail(p, "seccomp = '%s': expected default, strict or off", value);
	p->prof->seccomp = m;
	return 1;
}

static int parse_landlock(struct parse *p, const struct key *k, const char *value)
{
	enum cr_landlock_mode m = cr_landlock_mode_from_string(value);

	if (m < 0)
		return fail(p, "landlock = '%s': expected best-effort, required or off", value);
	p->prof->landlock = m;
	return 1;
}

static int parse_ptrace(struct parse *p, const struct key *k, const char *value)
{
	if (strcmp(value, "sandbox") != 0 && strcmp(value, "no") != 0)
		return fail(p, "ptrace = '%s': expected no or sandbox", value);
	p->prof->ptrace = strcmp(value, "sandbox") == 0;
	return 1;
}

static const char *const rule_names[_CR_COMMAND_RULE_MAX] = {
	[CR_COMMAND_ALLOW] = "allow",
	[CR_COMMAND_ASK] = "ask",
	[CR_COMMAND_DENY] = "deny",
};

const char *cr_command_rule_to_string(enum cr_command_rule r)
{
	return r >= 0 && r < _CR_COMMAND_RULE_MAX ? rule_names[r] : NULL;
}

enum cr_command_rule cr_command_rule_from_string(const char *s)
{
	for (int i = 0; s && i < _CR_COMMAND_RULE_MAX; i++)
		if (strcmp(s, rule_names[i]) == 0)
			return i;
	return _CR_COMMAND_RULE_INVALID;
}

static int parse_tier_rule(struct parse *p, const struct key *k, const char *value)
{
	enum cr_command_rule r = cr_command_rule_from_string(value);

	if (r < 0)
		return fail(p, "%s = '%s': expected allow, ask or deny", k->name, value);
	p->prof->tier_rule[k->arg] = r;
	return 1;
}

/* An allow entry must be a command line; an allow_prefix entry one simple command of plain
 * words (no quotes or expansions, which would not compare as written). */
static int parse_allow(struct parse *p, const struct key *k, const char *value)
{
	struct cr_profile *prof = p->prof;
	bool prefix = k->arg;
	struct cr_sh_script s = {};
	char why[256];
	int r;

	r = cr_sh_parse(value, &s, why, sizeof(why));
	if (r == -ENOMEM)
		return fail_oom(p);
	if (r < 0)
		return fail(p, "%s = '%s': not a command line: %s", k->name, value, why);
	r = s.n_commands == 1 && s.commands[0].n_words > 0 && !s.commands[0].n_assigns &&
	    !s.commands[0].n_redirs;
	for (size_t i = 0; r && i < s.commands[0].n_words; i++)
		r = !s.commands[0].words[i].flags;
	cr_sh_script_done(&s);
	if (prefix && !r)
		return fail(p, "allow_prefix = '%s': expected a command's first words, unquoted, without $, operators or redirections",
			    value);
	if (strv_push_dup(prefix ? &prof->allow_prefixes : &prof->allow_commands,
			  prefix ? &prof->n_allow_prefixes : &prof->n_allow_commands, value) < 0)
		return fail_oom(p);
	return 1;
}

/* clang-format off */
static const struct key keys[] = {
	{ "profile",    "description",     parse_description, 0,          false },
	{ "filesystem", "workspace",       parse_workspace,   0,          false },
	{ "filesystem", "read",            parse_path,        LIST_READ,  true },
	{ "filesystem", "write",           parse_path,        LIST_WRITE, true },
	{ "filesystem", "read_if_exists",  parse_path,        LIST_READ,  true },
	{ "filesystem", "write_if_exists", parse_path,        LIST_WRITE, true },
	{ "filesystem", "hide",            parse_path,        LIST_HIDE,  true },
	{ "filesystem", "cache",           parse_cache,       0,          true },
	{ "network",    "mode",            parse_mode,        0,          false },
	{ "network",    "allow_host",      parse_host,        0,          true },
	{ "process",    "spawn",           parse_spawn,       0,          false },
	{ "process",    "path",            parse_path_env,    0,          false },
	{ "limits",     "timeout",         parse_timeout,     0,          false },
	{ "limits",     "enforce",         parse_enforce,     0,          false },
	{ "security",   "seccomp",         parse_seccomp,     0,          false },
	{ "security",   "landlock",        parse_landlock,    0,          false },
	{ "security",   "ptrace",          parse_ptrace,      0,          false },
	{ "commands",   "safe",            parse_tier_rule,   CR_RISK_SAFE,      false },
	{ "commands",   "caution",         parse_tier_rule,   CR_RISK_CAUTION,   false },
	{ "commands",   "unknown",         parse_tier_rule,   CR_RISK_UNKNOWN,   false },
	{ "commands",   "dangerous",       parse_tier_rule,   CR_RISK_DANGEROUS, false },
	{ "commands",   "allow",           parse_allow,       0,          true },
	{ "commands",   "allow_prefix",    parse_allow,       1,          true },
};
/* clang-format on */

#define KEY_MODE       8
#define KEY_ALLOW_HOST 9
#define N_SEEN	       (ELEMENTSOF(keys) + _CR_LIMIT_MAX)

static int parse_limit(struct parse *p, enum cr_limit l, const char *value)
{
	uint64_t v;
	int r = cr_limit_parse(l, value, &v);

	if (r == -ERANGE)
		return fail(p, "%s = '%s': out of range", cr_limit_to_string(l), value);
	if (r < 0)
		return fail(p, "%s = '%s': expected %s or max", cr_limit_to_string(l), value,
			    l == CR_LIMIT_MEMORY || l == CR_LIMIT_MEMORY_SWAP ||
					    l == CR_LIMIT_FILE_SIZE
				    ? "bytes with an optional K, M, G or T"
			    : l == CR_LIMIT_CPU ? "a number of CPUs such as 1.5"
						: "a whole number");
	p->prof->limits.value[l] = v;
	p->prof->limits.set[l] = true;
	return 1;
}

/* The keys a section takes, for messages. */
static const char *expected_keys(const char *section)
{
	if (strcmp(section, "profile") == 0)
		return "description";
	if (strcmp(section, "filesystem") == 0)
		return "workspace, read, write, read_if_exists, write_if_exists, hide or cache";
	if (strcmp(section, "network") == 0)
		return "mode or allow_host";
	if (strcmp(section, "process") == 0)
		return "spawn or path";
	if (strcmp(section, "limits") == 0)
		return "memory, memory_swap, pids, cpu, cpu_time, file_size, open_files, timeout or enforce";
	if (strcmp(section, "commands") == 0)
		return "safe, caution, unknown, dangerous, allow or allow_prefix";
	return "seccomp or landlock";
}

/* The index in p->seen of @section/@name; -1 if there is no such key. */
static int find_key(const char *section, const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(keys); i++)
		if (strcmp(keys[i].section, section) == 0 && strcmp(keys[i].name, name) == 0)
			return (int)i;
	for (int l = 0; strcmp(section, "limits") == 0 && l < _CR_LIMIT_MAX; l++)
		if (strcmp(cr_limit_to_string(l), name) == 0)
			return (int)ELEMENTSOF(keys) + l;
	return -1;
}

/* A KEY = VALUE of a known section (cr_ini_parse() checked the rest of the line). */
static int on_key(struct cr_ini *ini, const char *section, const char *name, const char *value)
{
	struct parse *p = ini->userdata;
	int i;

	i = find_key(section, name);
	if (i < 0)
		return fail(p, "unknown key '%s' in [%s] (expected %s)", name, section,
			    expected_keys(section));
	if (p->seen[i] && (i >= (int)ELEMENTSOF(keys) || !keys[i].repeatable))
		return fail(p, "'%s' is given twice; first on line %u", name, p->seen[i]);
	if (!p->seen[i])
		p->seen[i] = p->ini.line;
	if (!value[0])
		return fail(p, "'%s' has an empty value", name);
	if (i >= (int)ELEMENTSOF(keys))
		return parse_limit(p, i - (int)ELEMENTSOF(keys), value);
	return keys[i].parse(p, &keys[i], value);
}

/* What no single line shows: the hosts and the network mode go together. */
static void check_network(struct parse *p)
{
	unsigned mode_line = p->seen[KEY_MODE], host_line = p->seen[KEY_ALLOW_HOST];

	if (host_line && p->prof->net != CR_NETCAP_HOSTS) {
		if (mode_line)
			(void)cr_ini_fail_at(&p->ini, host_line, -EINVAL,
				      "allow_host needs mode = allow_hosts, and line %u says mode = %s",
				      mode_line, cr_net_cap_to_string(p->prof->net));
		else
			(void)cr_ini_fail_at(&p->ini, host_line, -EINVAL,
				      "allow_host needs mode = allow_hosts in [network]");
	} else if (p->prof->net == CR_NETCAP_HOSTS && p->prof->n_hosts == 0) {
		(void)cr_ini_fail_at(&p->ini, mode_line, -EINVAL,
			      "mode = allow_hosts needs at least one allow_host = PATTERN");
	}
}

static void profile_init(struct cr_profile *prof)
{
	*prof = (struct cr_profile){
		.net = CR_NETCAP_NONE,
		.spawn = true,
		.seccomp = CR_SECCOMP_DEFAULT,
		.landlock = CR_LANDLOCK_BEST_EFFORT,
		.tier_rule = {
			[CR_RISK_SAFE] = CR_COMMAND_ALLOW,
			[CR_RISK_CAUTION] = CR_COMMAND_ALLOW,
			[CR_RISK_UNKNOWN] = CR_COMMAND_ALLOW,
			[CR_RISK_DANGEROUS] = CR_COMMAND_ASK,
		},
	};
}

int cr_profile_parse(const char *text, size_t size, const char *name, const char *source,
		     const struct cr_profile_dirs *dirs, struct cr_profile *ret, char *msg,
		     size_t msg_size)
{
	_cleanup_free_ unsigned *seen = calloc(N_SEEN, sizeof(unsigned));
	struct cr_profile prof;
	struct parse p = {
		.ini = { .source = source, .sections = section_names, .on_key = on_key },
		.dirs = dirs, .prof = &prof, .seen = seen,
	};
	int r;

	profile_init(&prof);
	prof.name = strdup(name);
	prof.source = strdup(source);
	prof.description = strdup("");
	if (!seen || !prof.name || !prof.source || !prof.description) {
		cr_profile_done(&prof);
		(void)snprintf(msg, msg_size, "out of memory");
		return -ENOMEM;
	}
	p.ini.userdata = &p;
	r = cr_ini_parse(&p.ini, text, size, msg, msg_size);
	if (r == 0) {
		check_network(&p);
		r = p.ini.err_line ? p.ini.err : 0;
	}
	if (r < 0) {
		cr_profile_done(&prof);
		return r;
	}
	*ret = prof;
	return 0;
}

static void paths_free(struct cr_profile_path *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].path);
	free(v);
}

void cr_profile_done(struct cr_profile *p)
{
	free(p->name);
	free(p->source);
	free(p->description);
	paths_free(p->read, p->n_read);
	paths_free(p->write, p->n_write);
	paths_free(p->hide, p->n_hide);
	for (size_t i = 0; i < p->n_caches; i++)
		free(p->caches[i].spec);
	free(p->caches);
	strv_freep(&p->hosts);
	strv_freep(&p->allow_commands);
	strv_freep(&p->allow_prefixes);
	*p = (struct cr_profile){};
}

int cr_profile_load(const char *name_or_path, const struct cr_profile_dirs *dirs,
		    struct cr_profile *ret, char *msg, size_t msg_size)
{
	struct cr_profile_file f = {};
	int r;

	r = cr_profile_find(name_or_path, dirs, &f, msg, msg_size);
	if (r < 0)
		return r;
	r = cr_profile_parse(f.text, f.size, f.name, f.source, dirs, ret, msg, msg_size);
	cr_profile_file_done(&f);
	return r;
}

/* --- [commands] -------------------------------------------------------------------------------- */

/* Do @cmd's words start with @entry's (all of them, if @exact)? Computed words never match. */
static bool words_match(const struct cr_sh_command *cmd, const struct cr_sh_command *entry,
			bool exact)
{
	unsigned computed = CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST;

	if (entry->n_words == 0 || entry->n_words > cmd->n_words ||
	    (exact && entry->n_words != cmd->n_words))
		return false;
	for (size_t i = 0; i < entry->n_words; i++)
		if ((cmd->words[i].flags & computed) ||
		    strcmp(cmd->words[i].text, entry->words[i].text) != 0)
			return false;
	return true;
}

/* Does @entry, parsed, match @cmd? */
static bool entry_matches(const char *entry, const struct cr_sh_command *cmd, bool exact)
{
	struct cr_sh_script s = {};
	bool m;

	if (cr_sh_parse(entry, &s, NULL, 0) < 0)
		return false;
	m = s.n_commands == 1 && !s.commands[0].n_assigns && !s.commands[0].n_redirs &&
	    words_match(cmd, &s.commands[0], exact);
	cr_sh_script_done(&s);
	return m;
}

/* A command the allowlist may cover: words, nothing set before it, nothing substituted into
 * them, no redirection that writes anywhere but /dev/null. */
static bool is_plain(const struct cr_sh_command *cmd)
{
	if (cmd->n_words == 0 || cmd->n_assigns)
		return false;
	for (size_t i = 0; i < cmd->n_words; i++)
		if (cmd->words[i].flags & (CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST))
			return false;
	for (size_t i = 0; i < cmd->n_redirs; i++) {
		const struct cr_sh_redir *r = &cmd->redirs[i];

		if (r->op == CR_SH_REDIR_DUP)
			continue;
		if ((r->op == CR_SH_REDIR_OUT || r->op == CR_SH_REDIR_APPEND ||
		     r->op == CR_SH_REDIR_OUT_ERR || r->op == CR_SH_REDIR_APPEND_ERR) &&
		    strcmp(r->target.text, "/dev/null") == 0 && !r->target.flags)
			continue;
		return false;
	}
	return true;
}

static const char *command_allowed(const struct cr_profile *p, const struct cr_sh_command *cmd)
{
	if (!is_plain(cmd))
		return NULL;
	for (size_t i = 0; i < p->n_allow_commands; i++)
		if (entry_matches(p->allow_commands[i], cmd, true))
			return p->allow_commands[i];
	for (size_t i = 0; i < p->n_allow_prefixes; i++)
		if (entry_matches(p->allow_prefixes[i], cmd, false))
			return p->allow_prefixes[i];
	return NULL;
}

/* The allow entry that covers @line, or NULL. */
static const char *line_allowed(const struct cr_profile *p, const char *line)
{
	size_t start = strspn(line, " \t\n"), end = strlen(line);
	struct cr_sh_script s = {};
	const char *why = NULL;

	while (end > start && strchr(" \t\n", line[end - 1]))
		end--;
	for (size_t i = 0; i < p->n_allow_commands; i++)
		if (strlen(p->allow_commands[i]) == end - start &&
		    strncmp(p->allow_commands[i], line + start, end - start) == 0)
			return p->allow_commands[i];
	if (p->n_allow_commands + p->n_allow_prefixes == 0 || cr_sh_parse(line, &s, NULL, 0) < 0)
		return NULL;
	for (size_t i = 0; i < s.n_commands; i++) {
		const char *w = command_allowed(p, &s.commands[i]);

		why = i == 0 ? w : why;
		if (!w) {
			why = NULL;
			break;
		}
	}
	cr_sh_script_done(&s);
	return why;
}

enum cr_command_rule cr_profile_command_rule(const struct cr_profile *p, const char *command_line,
					     const struct cr_risk *risk, const char **ret_why)
{
	enum cr_risk_tier t = risk && risk->tier >= 0 && risk->tier < _CR_RISK_MAX ? risk->tier
										  : CR_RISK_UNKNOWN;
	const char *why = command_line ? line_allowed(p, command_line) : NULL;

	if (ret_why)
		*ret_why = why ?: cr_risk_tier_to_string(t);
	return why ? CR_COMMAND_ALLOW : p->tier_rule[t];
}
