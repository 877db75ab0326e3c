/* SPDX-License-Identifier: MIT */
/* Command risk analysis: the simple commands launcher/risk/shell-parse.c finds, classified by a table
 * of known programs and by the paths they touch. A command starts safe; every finding is a
 * reason with a tier, and the line takes the worst.
 *
 *   safe       read-only tools (ls, cat, grep, find, git status, ...) on workspace paths
 *   caution    destructive but common: rm, mv, cp, chmod, sed -i, git reset, writes through >,
 *              package installs, the network, and reading or writing outside the workspace
 *   unknown    a program not in the table, code corral cannot see (python3 -c, make, sh FILE,
 *              sh -c "$VAR"), a path the line computes for rm -r, a line that does not parse
 *   dangerous  sudo/su/doas/pkexec, rm -r or chmod/chown on / or a system directory or the
 *              home directory, writes to system paths and disk devices, mkfs, shutdown,
 *              kill -1, downloaded code run (curl | sh, sh -c "$(curl)", bash <(curl)), fork
 *              bombs, LD_PRELOAD/BASH_ENV/... injection, eval of computed text, nc -e, reading
 *              secrets (~/.ssh/id_*, ~/.aws/credentials, ...), git push --force
 *
 * A program is looked up by its base name; wrappers (command, exec, nohup, time, nice, timeout,
 * env, xargs, sudo, ...) are seen through, and sh -c, bash -c, eval and here-documents fed to a
 * shell are analysed as shell text of their own. "~" and "$HOME" are outside the workspace. */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "risk.h"
#include "shell-parse.h"

#define MAX_NESTING 8 /* sh -c 'sh -c ...' and eval levels */

struct ctx {
	const char *workspace;
	char *cwd;                         /* where relative paths start; NULL: unknown */
	const struct cr_sh_script *script; /* the text being analysed now */
	struct cr_risk *risk;
	unsigned depth;
	int err; /* -ENOMEM once an allocation failed */
};

/* An argument vector: a slice of a command's words. */
struct args {
	const struct cr_sh_word *w;
	size_t n;
	const struct cr_sh_command *cmd; /* where they come from (pipes, redirections) */
};

typedef void (*handler)(struct ctx *c, const struct args *a, const char *name);

static void classify_args(struct ctx *c, const struct args *a);
static void analyse_text(struct ctx *c, const char *text, const char *what);

static const char *const tier_names[_CR_RISK_MAX] = {
	[CR_RISK_SAFE] = "safe",
	[CR_RISK_CAUTION] = "caution",
	[CR_RISK_UNKNOWN] = "unknown",
	[CR_RISK_DANGEROUS] = "dangerous",
};

const char *cr_risk_tier_to_string(enum cr_risk_tier t)
{
	return t >= 0 && t < _CR_RISK_MAX ? tier_names[t] : NULL;
}

enum cr_risk_tier cr_risk_tier_from_string(const char *s)
{
	for (int i = 0; s && i < _CR_RISK_MAX; i++)
		if (strcmp(s, tier_names[i]) == 0)
			return i;
	return _CR_RISK_INVALID;
}

static int strv_push(char ***v, size_t *n, char *s)
{
	char **a;

	if (!s)
		return -ENOMEM;
	a = reallocarray(*v, *n + 2, sizeof(*a));
	if (!a)
		return free(s), -ENOMEM;
	*v = a;
	a[(*n)++] = s;
	a[*n] = NULL;
	return 0;
}

static void reason(struct ctx *c, enum cr_risk_tier t, const char *fmt, ...) _printf_(3, 4);
static void reason(struct ctx *c, enum cr_risk_tier t, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int r;

	if (t > c->risk->tier)
		c->risk->tier = t;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		c->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < c->risk->n_reasons; i++)
		if (strcmp(c->risk->reasons[i], s) == 0)
			return free(s);
	if (strv_push(&c->risk->reasons, &c->risk->n_reasons, s) < 0)
		c->err = -ENOMEM;
}

/* --- words and paths ------------------------------------------------------------------------- */

static const char *base_name(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash && slash[1] ? slash + 1 : s;
}

static bool is(const struct cr_sh_word *w, const char *s)
{
	return strcmp(w->text, s) == 0;
}

static bool is_option(const struct cr_sh_word *w)
{
	return w->text[0] == '-' && w->text[1] != '\0';
}

/* Is @w computed when the line runs: an expansion or substitution other than a leading $HOME? */
static bool is_computed(const struct cr_sh_word *w)
{
	unsigned f = w->flags & (CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST);
	const char *t = w->text;
	size_t h;

	if (!f)
		return false;
	h = strncmp(t, "$HOME", 5) == 0 && !((t[5] >= 'A' && t[5] <= 'Z') || t[5] == '_') ? 5
	    : strncmp(t, "${HOME}", 7) == 0                                               ? 7
											  : 0;
	return h == 0 || strpbrk(t + h, "$`") != NULL;
}

/* What a computed word depends on, for reasons. */
static const char *depends_on(const struct cr_sh_word *w, char *buf, size_t size)
{
	if (w->var)
		(void)snprintf(buf, size, "$%s", w->var);
	else
		(void)snprintf(buf, size, "a command's output");
	return buf;
}

/* "/a/./b/../c" -> "/a/c", in place; the result is absolute. */
static void normalize(char *p)
{
	char *out = p, *s = p;

	while (*s) {
		char *seg;
		size_t n;

		while (*s == '/')
			s++;
		seg = s;
		n = strcspn(s, "/");
		s += n;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

enum path_class {
	P_WORKSPACE, /* in the workspace */
	P_OUTSIDE,   /* elsewhere */
	P_HOME,     /* the home directory itself, or all that is in it: "~", "~/" followed by "*" */
	P_SYSTEM,   /* in a system directory */
	P_TOP,      /* "/", or a directory or glob right below it ("/etc", "/" then "*") */
	P_DEVICE,   /* a disk or memory device */
	P_HARMLESS, /* /dev/null, /dev/stdout, ... */
};

static const char *const system_dirs[] = {
	"/bin",  "/boot", "/dev",  "/etc", "/lib", "/lib32", "/lib64",  "/libx32",  "/opt", "/proc",
	"/root", "/sbin", "/snap", "/sys", "/usr", "/var",   "/System", "/Library", NULL,
};

static const char *const harmless[] = {
	"/dev/null", "/dev/zero",   "/dev/stdin",   "/dev/stdout", "/dev/stderr",
	"/dev/tty",  "/dev/random", "/dev/urandom", "/dev/full",   NULL,
};

static const char *const devices[] = {
	"/dev/sd",   "/dev/hd",   "/dev/vd",      "/dev/xvd",   "/dev/nvme", "/dev/mmcblk",
	"/dev/md",   "/dev/dm-",  "/dev/mapper/", "/dev/disk/", "/dev/mem",  "/dev/kmem",
	"/dev/port", "/dev/loop", "/dev/sr",      NULL,
};

static bool has_prefix_in(const char *s, const char *const *v)
{
	for (; *v; v++)
		if (strncmp(s, *v, strlen(*v)) == 0)
			return true;
	return false;
}

static bool is_in(const char *s, const char *const *v)
{
	for (; *v; v++)
		if (strcmp(s, *v) == 0)
			return true;
	return false;
}

/* An absolute path (normalized) outside the home directory. */
static enum path_class classify_abs(const char *a, const char *workspace)
{
	if (is_in(a, harmless) || strncmp(a, "/dev/fd/", 8) == 0 ||
	    strncmp(a, "/proc/self/fd/", 14) == 0)
		return P_HARMLESS;
	if (has_prefix_in(a, devices))
		return P_DEVICE;
	if (workspace && cr_path_is_within(a, workspace))
		return P_WORKSPACE;
	if (strchr(a + 1, '/') == NULL)
		return P_TOP;
	for (size_t i = 0; system_dirs[i]; i++)
		if (cr_path_is_within(a, system_dirs[i]))
			return P_SYSTEM;
	return P_OUTSIDE;
}

/* Where @w points. Computed words are the caller's business. */
static enum path_class classify_path(struct ctx *c, const struct cr_sh_word *w)
{
	const char *t = w->text;
	char *a = NULL;
	enum path_class k;
	int r;

	if ((w->flags & CR_SH_WORD_TILDE) || strncmp(t, "$HOME", 5) == 0 ||
	    strncmp(t, "${HOME}", 7) == 0) {
		t += t[0] == '~' ? 1 : t[1] == '{' ? 7 : 5;
		if (t[0] != '\0' && t[0] != '/')
			return P_OUTSIDE; /* ~user */
		t += strspn(t, "/");
		return t[0] == '\0' || strcmp(t, "*") == 0 || strcmp(t, ".") == 0 ? P_HOME
										  : P_OUTSIDE;
	}
	if (t[0] == '/')
		r = asprintf(&a, "%s", t);
	else if (c->cwd)
		r = asprintf(&a, "%s/%s", c->cwd, t);
	else
		return P_OUTSIDE;
	if (r < 0) {
		c->err = -ENOMEM;
		return P_OUTSIDE;
	}
	normalize(a);
	k = classify_abs(a, c->workspace);
	free(a);
	return k;
}

/* Credentials an agent has no business reading. */
static const char *const secrets[] = {
	".ssh/id_", ".ssh/identity", "/.aws/credentials",   ".netrc",          ".git-credentials",
	".gnupg/",  "gh/hosts.yml",  ".docker/config.json", ".kube/config",    "_history",
	".pgpass",  "/etc/shadow",   "/etc/gshadow",        ".password-store", NULL,
};

static void check_secret(struct ctx *c, const char *name, const struct cr_sh_word *w)
{
	if (strpbrk(w->text, " \t\n"))
		return; /* text, not a path */
	for (size_t i = 0; secrets[i]; i++)
		if (strstr(w->text, secrets[i])) {
			reason(c, CR_RISK_DANGEROUS, "%s reads secrets (%s)", name, w->text);
			return;
		}
}

static void check_read(struct ctx *c, const char *name, const struct cr_sh_word *w)
{
	enum path_class k;

	check_secret(c, name, w);
	if (is_computed(w))
		return;
	k = classify_path(c, w);
	if (k != P_WORKSPACE && k != P_HARMLESS)
		reason(c, CR_RISK_CAUTION, "%s reads outside the workspace (%s)", name, w->text);
}

static void check_write(struct ctx *c, const char *name, const struct cr_sh_word *w)
{
	char buf[64];

	check_secret(c, name, w);
	if (is_computed(w)) {
		reason(c, CR_RISK_CAUTION, "%s writes to a path that depends on %s", name,
		       depends_on(w, buf, sizeof(buf)));
		return;
	}
	switch (classify_path(c, w)) {
	case P_DEVICE:
		reason(c, CR_RISK_DANGEROUS, "%s writes to a disk or memory device (%s)", name,
		       w->text);
		break;
	case P_SYSTEM:
	case P_TOP:
		reason(c, CR_RISK_DANGEROUS, "%s writes to a system path (%s)", name, w->text);
		break;
	case P_HOME:
	case P_OUTSIDE:
		reason(c, CR_RISK_CAUTION, "%s writes outside the workspace (%s)", name, w->text);
		break;
	case P_WORKSPACE:
	case P_HARMLESS:
	default:
		break;
	}
}

/* The operands of @a from @from on: the words that are not options (all after "--"). */
static void each_operand(struct ctx *c, const struct args *a, size_t from, const char *name,
			 void (*f)(struct ctx *, const char *, const struct cr_sh_word *))
{
	bool opts = true;

	for (size_t i = from; i < a->n; i++) {
		if (opts && is(&a->w[i], "--"))
			opts = false;
		else if (!opts || !is_option(&a->w[i]))
			f(c, name, &a->w[i]);
	}
}

/* The index of the @k-th operand (0-based) at or after @from; a->n if none. */
static size_t operand(const struct args *a, size_t from, size_t k)
{
	bool opts = true;

	for (size_t i = from; i < a->n; i++) {
		if (opts && is(&a->w[i], "--"))
			opts = false;
		else if ((!opts || !is_option(&a->w[i])) && k-- == 0)
			return i;
	}
	return a->n;
}

static bool has_option(const struct args *a, const char *shorts, const char *const *longs)
{
	for (size_t i = 1; i < a->n && !is(&a->w[i], "--"); i++) {
		const char *t = a->w[i].text;

		if (t[0] != '-' || t[1] == '\0')
			continue;
		if (t[1] == '-') {
			for (size_t j = 0; longs && longs[j]; j++)
				if (strcmp(t, longs[j]) == 0)
					return true;
		} else if (shorts && strpbrk(t + 1, shorts)) {
			return true;
		}
	}
	return false;
}

/* --- the line around a command --------------------------------------------------------------- */

static bool is_downloader(const struct cr_sh_command *cmd)
{
	static const char *const names[] = {"curl",  "wget",         "fetch", "aria2c", "http",
					    "https", "lwp-download", "lynx",  NULL};

	return cmd->n_words > 0 && is_in(base_name(cmd->words[0].text), names);
}

/* Is a command of the line that starts before @cmd a downloader? */
static bool downloads_before(const struct ctx *c, const struct cr_sh_command *cmd)
{
	for (size_t i = 0; i < c->script->n_commands; i++)
		if (c->script->commands[i].id < cmd->id && is_downloader(&c->script->commands[i]))
			return true;
	return false;
}

static int by_id(const void *key, const void *elem)
{
	unsigned id = *(const unsigned *)key, e = ((const struct cr_sh_command *)elem)->id;

	return id < e ? -1 : id > e;
}

/* Is @k, through the chain of its owners, inside a word of the command with id @id? */
static bool is_inside(const struct cr_sh_script *s, const struct cr_sh_command *k, unsigned id)
{
	for (unsigned hops = 0; k && k->owner >= 0 && hops <= CR_SH_MAX_DEPTH; hops++) {
		unsigned owner = (unsigned)k->owner;

		if (owner == id)
			return true;
		k = bsearch(&owner, s->commands, s->n_commands, sizeof(*k), by_id);
	}
	return false;
}

/* Is a command inside @cmd's words (at any depth) a downloader? Those commands come right after
 * @cmd in the order of ids. */
static bool downloads_inside(const struct ctx *c, const struct cr_sh_command *cmd)
{
	const struct cr_sh_script *s = c->script;
	const struct cr_sh_command *k =
		bsearch(&cmd->id, s->commands, s->n_commands, sizeof(*k), by_id);

	if (k != cmd)
		return false;
	for (k++; k < s->commands + s->n_commands && is_inside(s, k, cmd->id); k++)
		if (is_downloader(k))
			return true;
	return false;
}

static bool has_redir(const struct cr_sh_command *cmd, enum cr_sh_redir_op op, const char **text)
{
	for (size_t i = 0; cmd && i < cmd->n_redirs; i++)
		if (cmd->redirs[i].op == op) {
			*text = cmd->redirs[i].target.text;
			return true;
		}
	return false;
}

/* A program reads code from its standard input: piped, here-document or here-string. */
static void code_from_stdin(struct ctx *c, const struct args *a, const char *name, bool shell)
{
	const char *text;

	if (has_redir(a->cmd, CR_SH_REDIR_HEREDOC, &text) ||
	    has_redir(a->cmd, CR_SH_REDIR_HERESTRING, &text)) {
		if (a->cmd && downloads_inside(c, a->cmd))
			reason(c, CR_RISK_DANGEROUS, "%s runs downloaded code", name);
		else if (shell)
			analyse_text(c, text, name);
		else
			reason(c, CR_RISK_UNKNOWN, "%s runs code corral does not analyse", name);
	} else if (a->cmd && a->cmd->piped_in && downloads_before(c, a->cmd)) {
		reason(c, CR_RISK_DANGEROUS,
		       "downloaded content is piped into %s, which runs it as code", name);
	} else {
		reason(c, CR_RISK_UNKNOWN, "%s runs the code it reads from its input", name);
	}
}

/* --- handlers -------------------------------------------------------------------------------- */

static void h_safe(struct ctx *c, const struct args *a, const char *name)
{
}

static void h_read(struct ctx *c, const struct args *a, const char *name)
{
	each_operand(c, a, 1, name, check_read);
}

/* grep, rg, jq, awk: the first operand is a pattern or program unless given by option. */
static void h_read_after_pattern(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const longs[] = {"--regexp", "--file", "--from-file", NULL};
	bool given = has_option(
		a, strcmp(name, "awk") == 0 || strcmp(name, "gawk") == 0 ? "f" : "ef", longs);
	size_t first = operand(a, 1, 0);

	for (size_t i = first; i < a->n; i++)
		if ((given || i != first) && !is_option(&a->w[i]))
			check_read(c, name, &a->w[i]);
}

static void h_awk(struct ctx *c, const struct args *a, const char *name)
{
	size_t prog = operand(a, 1, 0);

	for (size_t i = 1; i + 1 < a->n; i++)
		if (is(&a->w[i], "-i") && is(&a->w[i + 1], "inplace"))
			reason(c, CR_RISK_CAUTION, "%s -i inplace edits files in place", name);
	if (prog < a->n && (strstr(a->w[prog].text, "system") || strchr(a->w[prog].text, '|')))
		reason(c, CR_RISK_UNKNOWN, "the %s program runs commands", name);
	h_read_after_pattern(c, a, name);
}

static void h_sed(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const longs[] = {"--expression", "--file", NULL};
	bool inplace = false, given = has_option(a, "ef", longs);
	size_t first = operand(a, 1, 0);

	for (size_t i = 1; i < a->n && !is(&a->w[i], "--"); i++) {
		const char *t = a->w[i].text;

		if (strncmp(t, "--in-place", 10) == 0 ||
		    (t[0] == '-' && t[1] != '-' && strchr(t, 'i')))
			inplace = true;
	}
	if (inplace)
		reason(c, CR_RISK_CAUTION, "%s -i edits files in place", name);
	for (size_t i = first; i < a->n; i++)
		if ((given || i != first) && !is_option(&a->w[i]))
			(inplace ? check_write : check_read)(c, name, &a->w[i]);
}

static void h_write(struct ctx *c, const struct args *a, const char *name)
{
	reason(c, CR_RISK_CAUTION, "%s modifies files", name);
	each_operand(c, a, 1, name, check_write);
}

static void h_tee(struct ctx *c, const struct args *a, const char *name)
{
	if (operand(a, 1, 0) < a->n)
		h_write(c, a, name);
}

static void h_sort(struct ctx *c, const struct args *a, const char *name)
{
	for (size_t i = 1; i < a->n; i++) {
		if (is(&a->w[i], "-o") && i + 1 < a->n) {
			reason(c, CR_RISK_CAUTION, "%s -o writes a file", name);
			check_write(c, name, &a->w[++i]);
		} else if (!is_option(&a->w[i])) {
			check_read(c, name, &a->w[i]);
		}
	}
}

/* cp, ln, install, mv: the last operand (or -t DIR) is written; mv also removes its sources. */
static void h_copy(struct ctx *c, const struct args *a, const char *name)
{
	bool mv = strcmp(name, "mv") == 0;
	size_t n = 0, last = a->n;
	const struct cr_sh_word *target = NULL;

	reason(c, CR_RISK_CAUTION,
	       mv ? "mv moves or renames files" : "%s creates or overwrites files", name);
	for (size_t i = 1; i < a->n; i++)
		if (is(&a->w[i], "-t") && i + 1 < a->n)
			target = &a->w[i + 1];
	while (operand(a, 1, n) < a->n)
		last = operand(a, 1, n++);
	if (!target && last < a->n && n > 1)
		target = &a->w[last];
	for (size_t k = 0; k < n; k++) {
		const struct cr_sh_word *w = &a->w[operand(a, 1, k)];

		if (w == target)
			continue;
		(mv ? check_write : check_read)(c, name, w);
	}
	if (target)
		check_write(c, name, target);
}

struct rm_opts {
	bool recursive, force, no_preserve;
};

static void rm_options(const struct args *a, struct rm_opts *o)
{
	for (size_t i = 1; i < a->n && !is(&a->w[i], "--"); i++) {
		const char *t = a->w[i].text;

		if (strcmp(t, "--recursive") == 0)
			o->recursive = true;
		else if (strcmp(t, "--force") == 0)
			o->force = true;
		else if (strcmp(t, "--no-preserve-root") == 0)
			o->no_preserve = true;
		else if (t[0] == '-' && t[1] != '-') {
			o->recursive |= strpbrk(t, "rR") != NULL;
			o->force |= strchr(t, 'f') != NULL;
		}
	}
}

static void rm_target(struct ctx *c, const struct rm_opts *o, const char *name,
		      const struct cr_sh_word *w)
{
	const char *what = o->recursive ? "rm -r" : name;
	char buf[64];

	check_secret(c, name, w);
	if (is_computed(w)) {
		reason(c, o->recursive ? CR_RISK_UNKNOWN : CR_RISK_CAUTION,
		       "%s on a path that depends on %s, which corral cannot know", what,
		       depends_on(w, buf, sizeof(buf)));
		return;
	}
	switch (classify_path(c, w)) {
	case P_TOP:
		reason(c, CR_RISK_DANGEROUS, "%s on %s: removes the system", what, w->text);
		break;
	case P_SYSTEM:
	case P_DEVICE:
		reason(c, CR_RISK_DANGEROUS, "%s on a system path (%s)", what, w->text);
		break;
	case P_HOME:
		reason(c, o->recursive ? CR_RISK_DANGEROUS : CR_RISK_CAUTION,
		       "%s on the home directory (%s)", what, w->text);
		break;
	case P_OUTSIDE:
		reason(c, CR_RISK_CAUTION, "%s deletes outside the workspace (%s)", what, w->text);
		break;
	case P_WORKSPACE:
	case P_HARMLESS:
	default:
		break;
	}
}

static void h_rm(struct ctx *c, const struct args *a, const char *name)
{
	struct rm_opts o = {};
	bool opts = true;

	rm_options(a, &o);
	if (strcmp(name, "rm") != 0)
		o.recursive = false; /* rmdir, unlink, shred */
	reason(c, CR_RISK_CAUTION,
	       o.recursive ? "rm -r deletes directory trees" : "%s deletes files", name);
	if (o.no_preserve)
		reason(c, CR_RISK_DANGEROUS, "rm --no-preserve-root allows removing /");
	for (size_t i = 1; i < a->n; i++) {
		if (opts && is(&a->w[i], "--"))
			opts = false;
		else if (!opts || !is_option(&a->w[i]))
			rm_target(c, &o, name, &a->w[i]);
	}
}

/* chmod, chown, chgrp: the first operand is the mode or owner (unless --reference). */
static void h_chmod(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const rec[] = {"--recursive", NULL};
	bool recursive = has_option(a, "R", rec), ref = false;
	size_t first;
	char buf[64];

	for (size_t i = 1; i < a->n; i++)
		ref |= strncmp(a->w[i].text, "--reference", 11) == 0;
	reason(c, CR_RISK_CAUTION, "%s changes file permissions or owners", name);
	first = ref ? a->n : operand(a, 1, 0);
	for (size_t k = ref ? 0 : 1; operand(a, 1, k) < a->n; k++) {
		const struct cr_sh_word *w = &a->w[operand(a, 1, k)];
		enum path_class p;

		if (&a->w[first] == w)
			continue;
		if (is_computed(w)) {
			reason(c, CR_RISK_CAUTION, "%s on a path that depends on %s", name,
			       depends_on(w, buf, sizeof(buf)));
			continue;
		}
		p = classify_path(c, w);
		if (p == P_TOP || p == P_SYSTEM || p == P_DEVICE || (p == P_HOME && recursive))
			reason(c, CR_RISK_DANGEROUS, "%s%s on a system path (%s)", name,
			       recursive ? " -R" : "", w->text);
		else if (p == P_OUTSIDE || p == P_HOME)
			reason(c, CR_RISK_CAUTION, "%s outside the workspace (%s)", name, w->text);
	}
}

static void h_dd(struct ctx *c, const struct args *a, const char *name)
{
	reason(c, CR_RISK_CAUTION, "dd writes raw data");
	for (size_t i = 1; i < a->n; i++) {
		struct cr_sh_word w = a->w[i];

		if (strncmp(w.text, "of=", 3) == 0) {
			w.text += 3;
			w.flags &= ~(unsigned)CR_SH_WORD_TILDE;
			w.flags |= w.text[0] == '~' ? CR_SH_WORD_TILDE : 0;
			check_write(c, name, &w);
		} else if (strncmp(w.text, "if=", 3) == 0) {
			w.text += 3;
			w.flags |= w.text[0] == '~' ? CR_SH_WORD_TILDE : 0;
			check_read(c, name, &w);
		}
	}
}

/* find PATHS... EXPRESSION: -delete, -exec PROG ... ; and -fprint FILE. */
static void h_find(struct ctx *c, const struct args *a, const char *name)
{
	size_t i = 1;

	for (; i < a->n && !strchr("-(!)", a->w[i].text[0]); i++)
		check_read(c, name, &a->w[i]);
	for (; i < a->n; i++) {
		const char *t = a->w[i].text;

		if (strcmp(t, "-delete") == 0) {
			reason(c, CR_RISK_CAUTION, "find -delete deletes files");
		} else if (strncmp(t, "-exec", 5) == 0 || strncmp(t, "-ok", 3) == 0) {
			size_t j = i + 1;

			while (j < a->n && !is(&a->w[j], ";") && !is(&a->w[j], "+"))
				j++;
			if (j == a->n)
				reason(c, CR_RISK_UNKNOWN, "find %s without its ';'", t);
			if (j > i + 1)
				classify_args(c, &(struct args){a->w + i + 1, j - i - 1, a->cmd});
			i = j;
		} else if (strncmp(t, "-fprint", 7) == 0 || strcmp(t, "-fls") == 0) {
			if (i + 1 < a->n)
				check_write(c, name, &a->w[++i]);
			reason(c, CR_RISK_CAUTION, "find %s writes a file", t);
		}
	}
}

static void h_dangerous(struct ctx *c, const struct args *a, const char *name);

/* sudo, doas, su, pkexec, runuser: dangerous, and what they run is classified too. */
static void h_sudo(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const with_arg[] = {"-u", "-g", "-C", "-h", "-p", "-r", "-t",
					       "-U", "-D", "-c", "-s", "-l", NULL};
	size_t i = 1;

	reason(c, CR_RISK_DANGEROUS, "%s runs a command with another user's privileges", name);
	if (strcmp(name, "su") == 0 || strcmp(name, "runuser") == 0) {
		for (; i + 1 < a->n; i++)
			if (is(&a->w[i], "-c") || is(&a->w[i], "--command")) {
				if (is_computed(&a->w[i + 1]))
					reason(c, CR_RISK_UNKNOWN, "%s -c runs computed text",
					       name);
				else
					analyse_text(c, a->w[i + 1].text, name);
			}
		return;
	}
	for (; i < a->n && is_option(&a->w[i]); i++) {
		if (is(&a->w[i], "--")) {
			i++;
			break;
		}
		if (strcmp(name, "sudo") == 0 && is_in(a->w[i].text, with_arg) &&
		    !is(&a->w[i], "-s") && !is(&a->w[i], "-l"))
			i++;
		if (strcmp(name, "doas") == 0 && (is(&a->w[i], "-u") || is(&a->w[i], "-C")))
			i++;
	}
	if (i < a->n)
		classify_args(c, &(struct args){a->w + i, a->n - i, a->cmd});
}

/* Wrappers that run their operand: skip their options (and those that take a value). */
struct wrapper {
	const char *name;
	const char *with_value; /* space-separated options that take a value */
	unsigned skip;          /* operands before the program: timeout's DURATION */
};

static const struct wrapper wrappers[] = {
	{"command", "", 0},        {"builtin", "", 0},      {"exec", "-a", 0},
	{"nohup", "", 0},          {"time", "-f -o", 0},    {"nice", "-n", 0},
	{"ionice", "-c -n -p", 0}, {"timeout", "-s -k", 1}, {"stdbuf", "", 0},
	{"setsid", "", 0},         {"chronic", "", 0},      {"unbuffer", "", 0},
	{"watch", "-n -d", 0},     {"caffeinate", "", 0},   {"chrt", "", 1},
	{"taskset", "", 1},        {"nsenter", "-t", 0},    {"catchsegv", "", 0},
};

static bool takes_value(const char *list, const char *opt)
{
	size_t n = strlen(opt);

	for (const char *p = list; (p = strstr(p, opt)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

static void h_wrapper(struct ctx *c, const struct args *a, const char *name)
{
	const struct wrapper *wr = NULL;
	size_t i = 1;

	for (size_t k = 0; k < ELEMENTSOF(wrappers); k++)
		if (strcmp(wrappers[k].name, name) == 0)
			wr = &wrappers[k];
	for (; i < a->n && is_option(&a->w[i]); i++) {
		if (is(&a->w[i], "--")) {
			i++;
			break;
		}
		if ((strcmp(name, "command") == 0 || strcmp(name, "type") == 0) &&
		    (is(&a->w[i], "-v") || is(&a->w[i], "-V")))
			return; /* a lookup */
		if (takes_value(wr->with_value, a->w[i].text))
			i++;
	}
	i += wr->skip;
	if (i < a->n)
		classify_args(c, &(struct args){a->w + i, a->n - i, a->cmd});
}

static void h_xargs(struct ctx *c, const struct args *a, const char *name)
{
	static const char with_value[] = "-I -n -P -L -d -E -s -a -l";
	size_t i = 1;

	for (; i < a->n && is_option(&a->w[i]); i++)
		if (takes_value(with_value, a->w[i].text))
			i++;
	if (i < a->n)
		classify_args(c, &(struct args){a->w + i, a->n - i, a->cmd});
}

/* Variables that make programs load code of the caller's choosing. */
static const char *const inject_dangerous[] = {
	"LD_PRELOAD", "LD_LIBRARY_PATH",       "LD_AUDIT",          "BASH_ENV",
	"ENV",        "PROMPT_COMMAND",        "SHELLOPTS",         "BASHOPTS",
	"GCONV_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH", NULL,
};
static const char *const inject_caution[] = {
	"PYTHONSTARTUP",
	"PYTHONPATH",
	"PYTHONHOME",
	"PERL5OPT",
	"PERL5LIB",
	"PERLLIB",
	"RUBYOPT",
	"RUBYLIB",
	"NODE_OPTIONS",
	"NODE_PATH",
	"GIT_SSH",
	"GIT_SSH_COMMAND",
	"GIT_EXEC_PATH",
	"JAVA_TOOL_OPTIONS",
	"_JAVA_OPTIONS",
	"IFS",
	NULL,
};

/* NAME=VALUE, or a bare NAME (export NAME). */
static void check_assignment(struct ctx *c, const char *text)
{
	size_t n = strcspn(text, "+=");
	char name[128];

	if (n == 0 || n >= sizeof(name))
		return;
	memcpy(name, text, n);
	name[n] = '\0';
	if (is_in(name, inject_dangerous) || strncmp(name, "BASH_FUNC_", 10) == 0)
		reason(c, CR_RISK_DANGEROUS,
		       "sets %s, which makes programs load or run code of its choosing", name);
	else if (is_in(name, inject_caution))
		reason(c, CR_RISK_CAUTION, "sets %s, which changes the code programs load", name);
}

static void h_env(struct ctx *c, const struct args *a, const char *name)
{
	static const char with_value[] = "-u -C -P -S --unset --chdir";
	size_t i = 1;

	for (; i < a->n && is_option(&a->w[i]); i++) {
		if (is(&a->w[i], "-S") || strncmp(a->w[i].text, "--split-string", 14) == 0)
			reason(c, CR_RISK_UNKNOWN, "env -S runs a command corral does not split");
		if (takes_value(with_value, a->w[i].text))
			i++;
	}
	for (; i < a->n && strchr(a->w[i].text, '=') && a->w[i].text[0] != '='; i++)
		check_assignment(c, a->w[i].text);
	if (i < a->n)
		classify_args(c, &(struct args){a->w + i, a->n - i, a->cmd});
}

static void h_export(struct ctx *c, const struct args *a, const char *name)
{
	for (size_t i = 1; i < a->n; i++)
		if (!is_option(&a->w[i]))
			check_assignment(c, a->w[i].text);
}

static void h_cd(struct ctx *c, const struct args *a, const char *name)
{
	size_t i = operand(a, 1, 0);
	char *cwd = NULL;

	if (i < a->n && !is_computed(&a->w[i]) && !(a->w[i].flags & CR_SH_WORD_TILDE) &&
	    !is(&a->w[i], "-")) {
		if (a->w[i].text[0] == '/')
			cwd = strdup(a->w[i].text);
		else if (c->cwd && asprintf(&cwd, "%s/%s", c->cwd, a->w[i].text) < 0)
			cwd = NULL;
		if (cwd)
			normalize(cwd);
	}
	free(c->cwd);
	c->cwd = cwd; /* NULL: somewhere corral cannot tell, outside the workspace */
}

static const char *const shells[] = {"sh",   "bash",  "dash", "zsh",  "ksh", "mksh", "ash",
				     "fish", "rbash", "yash", "tcsh", "csh", NULL};

/* sh -c STRING, sh FILE, sh < input. */
static void h_shell(struct ctx *c, const struct args *a, const char *name)
{
	bool cflag = false, stdin_flag = false;
	size_t i = 1;
	char buf[64];

	for (; i < a->n && (is_option(&a->w[i]) || a->w[i].text[0] == '+'); i++) {
		const char *t = a->w[i].text;

		if (strcmp(t, "--") == 0 || strcmp(t, "-") == 0) {
			i++;
			break;
		}
		if (t[1] != '-' && strchr(t, 'c'))
			cflag = true;
		if (t[1] != '-' && strchr(t, 's'))
			stdin_flag = true;
		if (strcmp(t, "-o") == 0 || strcmp(t, "+o") == 0 || strcmp(t, "--rcfile") == 0 ||
		    strcmp(t, "--init-file") == 0)
			i++;
	}
	if (cflag && i >= a->n) {
		reason(c, CR_RISK_UNKNOWN, "%s -c without a command", name);
	} else if (cflag && a->cmd && downloads_inside(c, a->cmd)) {
		reason(c, CR_RISK_DANGEROUS, "%s -c runs downloaded code", name);
	} else if (cflag && is_computed(&a->w[i])) {
		reason(c, CR_RISK_UNKNOWN,
		       "%s -c runs text that depends on %s, which corral cannot see", name,
		       depends_on(&a->w[i], buf, sizeof(buf)));
	} else if (cflag) {
		analyse_text(c, a->w[i].text, name);
	} else if (i < a->n && !stdin_flag) {
		if (a->cmd && downloads_inside(c, a->cmd))
			reason(c, CR_RISK_DANGEROUS, "%s runs downloaded code", name);
		else
			reason(c, CR_RISK_UNKNOWN,
			       "%s runs the script %s, which corral does not read", name,
			       a->w[i].text);
	} else {
		code_from_stdin(c, a, name, true);
	}
}

static void h_interpreter(struct ctx *c, const struct args *a, const char *name)
{
	size_t first = operand(a, 1, 0);

	if (a->n == 2 && (is(&a->w[1], "--version") || is(&a->w[1], "-V") || is(&a->w[1], "-v") ||
			  is(&a->w[1], "--help")))
		return;
	if (a->cmd && downloads_inside(c, a->cmd)) {
		reason(c, CR_RISK_DANGEROUS, "%s runs downloaded code", name);
		return;
	}
	for (size_t i = 1; i < a->n && i < first; i++)
		if (is(&a->w[i], "-c") || is(&a->w[i], "-e") || is(&a->w[i], "-E") ||
		    is(&a->w[i], "-r") || is(&a->w[i], "--eval") || is(&a->w[i], "-m")) {
			reason(c, CR_RISK_UNKNOWN, "%s %s runs code corral does not analyse", name,
			       a->w[i].text);
			return;
		}
	if (first < a->n && !is(&a->w[first], "-"))
		reason(c, CR_RISK_UNKNOWN, "%s runs %s, which corral does not read", name,
		       a->w[first].text);
	else
		code_from_stdin(c, a, name, false);
}

static void h_eval(struct ctx *c, const struct args *a, const char *name)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	char buf[64];

	for (size_t i = 1; i < a->n; i++)
		if (is_computed(&a->w[i])) {
			reason(c, CR_RISK_DANGEROUS,
			       "%s of text that depends on %s, which corral cannot see", name,
			       depends_on(&a->w[i], buf, sizeof(buf)));
			return;
		}
	for (size_t i = 1; i < a->n; i++)
		len += strlen(a->w[i].text) + 1;
	text = calloc(1, len + 1);
	if (!text) {
		c->err = -ENOMEM;
		return;
	}
	for (size_t i = 1; i < a->n; i++) {
		strcat(text, a->w[i].text);
		strcat(text, " ");
	}
	analyse_text(c, text, name);
}

static void h_source(struct ctx *c, const struct args *a, const char *name)
{
	if (a->cmd && downloads_inside(c, a->cmd))
		reason(c, CR_RISK_DANGEROUS, "%s runs downloaded code", name);
	else
		reason(c, CR_RISK_UNKNOWN, "%s runs %s in the shell, which corral does not read",
		       name, a->n > 1 ? a->w[1].text : "a file");
}

/* kill [-SIG | -s SIG | -n N] [--] PID...: a PID of -1 is every process the caller may signal. */
static void h_kill(struct ctx *c, const struct args *a, const char *name)
{
	size_t i = 1;

	if (a->n > 1 && (is(&a->w[1], "-l") || is(&a->w[1], "-L")))
		return;
	if (i < a->n && is_option(&a->w[i]) && !is(&a->w[i], "--"))
		i += is(&a->w[i], "-s") || is(&a->w[i], "-n") ? 2 : 1;
	if (i < a->n && is(&a->w[i], "--"))
		i++;
	for (; i < a->n; i++)
		if (is(&a->w[i], "-1"))
			reason(c, CR_RISK_DANGEROUS, "%s -1 signals every process it may", name);
	reason(c, CR_RISK_CAUTION, "%s stops processes", name);
}

static void h_netcat(struct ctx *c, const struct args *a, const char *name)
{
	for (size_t i = 1; i < a->n; i++) {
		const char *t = a->w[i].text;

		if (strcmp(t, "-e") == 0 || strcmp(t, "-c") == 0 || strncmp(t, "--exec", 6) == 0 ||
		    strncmp(t, "--sh-exec", 9) == 0 || strncmp(t, "--lua-exec", 10) == 0 ||
		    strstr(t, "EXEC:") || strstr(t, "SYSTEM:") || strstr(t, "exec:")) {
			reason(c, CR_RISK_DANGEROUS, "%s %s serves a program over the network",
			       name, t);
			return;
		}
	}
	reason(c, CR_RISK_CAUTION, "%s opens network connections", name);
}

static void h_network(struct ctx *c, const struct args *a, const char *name)
{
	reason(c, CR_RISK_CAUTION, "%s talks to the network", name);
	for (size_t i = 1; i + 1 < a->n; i++)
		if (is(&a->w[i], "-o") || is(&a->w[i], "-O") || is(&a->w[i], "--output"))
			check_write(c, name, &a->w[i + 1]);
	for (size_t i = 1; i < a->n; i++)
		check_secret(c, name, &a->w[i]);
}

/* git [-C DIR] [-c K=V] SUBCOMMAND ... */
static void h_git(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const safe[] = {
		"status",       "log",        "diff",         "show",          "rev-parse",
		"ls-files",     "grep",       "blame",        "describe",      "shortlog",
		"ls-tree",      "cat-file",   "rev-list",     "reflog",        "whatchanged",
		"name-rev",     "merge-base", "for-each-ref", "count-objects", "help",
		"version",      "--version",  "show-ref",     "ls-remote",     "var",
		"check-ignore", "difftool",   NULL,
	};
	static const char *const caution[] = {
		"add",      "commit",  "checkout",     "switch",    "restore",     "reset",
		"clean",    "stash",   "merge",        "rebase",    "cherry-pick", "revert",
		"pull",     "fetch",   "clone",        "init",      "mv",          "rm",
		"am",       "apply",   "push",         "submodule", "gc",          "prune",
		"worktree", "bisect",  "notes",        "tag",       "branch",      "remote",
		"config",   "archive", "format-patch", "mergetool", NULL,
	};
	const char *sub;
	size_t i = 1;

	for (; i < a->n && is_option(&a->w[i]); i++) {
		if (is(&a->w[i], "-c") && i + 1 < a->n && strpbrk(a->w[i + 1].text, "!") == NULL &&
		    (strstr(a->w[i + 1].text, "ommand") || strstr(a->w[i + 1].text, "pager") ||
		     strstr(a->w[i + 1].text, "editor") || strstr(a->w[i + 1].text, "alias") ||
		     strstr(a->w[i + 1].text, "hooksPath") ||
		     strstr(a->w[i + 1].text, "fsmonitor")))
			reason(c, CR_RISK_UNKNOWN, "git -c %s sets a command git runs",
			       a->w[i + 1].text);
		else if (is(&a->w[i], "-c") && i + 1 < a->n && strchr(a->w[i + 1].text, '!'))
			reason(c, CR_RISK_UNKNOWN, "git -c %s sets a command git runs",
			       a->w[i + 1].text);
		if (is(&a->w[i], "-C") || is(&a->w[i], "-c"))
			i++;
	}
	if (i >= a->n)
		return;
	sub = a->w[i].text;
	if (is_in(sub, safe))
		return;
	if (!is_in(sub, caution)) {
		reason(c, CR_RISK_UNKNOWN, "corral does not know what git %s does", sub);
		return;
	}
	/* Listing forms of the commands that also change things. */
	if ((strcmp(sub, "branch") == 0 || strcmp(sub, "tag") == 0 || strcmp(sub, "remote") == 0 ||
	     strcmp(sub, "stash") == 0) &&
	    (i + 1 == a->n || is(&a->w[i + 1], "-l") || is(&a->w[i + 1], "--list") ||
	     is(&a->w[i + 1], "-v") || is(&a->w[i + 1], "-a") || is(&a->w[i + 1], "list") ||
	     is(&a->w[i + 1], "show") || is(&a->w[i + 1], "-r")))
		return;
	if (strcmp(sub, "config") == 0 && i + 1 < a->n &&
	    (is(&a->w[i + 1], "--get") || is(&a->w[i + 1], "--list") || is(&a->w[i + 1], "-l") ||
	     is(&a->w[i + 1], "get")))
		return;
	if (strcmp(sub, "push") == 0)
		for (size_t j = i + 1; j < a->n; j++)
			if (is(&a->w[j], "--force") || is(&a->w[j], "-f") ||
			    (a->w[j].text[0] == '+' && a->w[j].text[1]) || is(&a->w[j], "--mirror"))
				reason(c, CR_RISK_DANGEROUS,
				       "git push %s overwrites the remote's history", a->w[j].text);
	if ((strcmp(sub, "reset") == 0 && i + 1 < a->n && is(&a->w[i + 1], "--hard")) ||
	    strcmp(sub, "clean") == 0)
		reason(c, CR_RISK_CAUTION, "git %s discards uncommitted work", sub);
	else
		reason(c, CR_RISK_CAUTION, "git %s changes the repository", sub);
}

static void h_systemctl(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const power[] = {"poweroff", "reboot",    "halt",      "kexec",
					    "suspend",  "hibernate", "emergency", "rescue",
					    "isolate",  NULL};
	static const char *const look[] = {
		"status",      "show",      "cat",        "is-active",
		"is-enabled",  "is-failed", "list-units", "list-unit-files",
		"list-timers", "list-jobs", "--version",  NULL};
	size_t i = operand(a, 1, 0);

	if (i >= a->n || is_in(a->w[i].text, look))
		return;
	if (is_in(a->w[i].text, power))
		reason(c, CR_RISK_DANGEROUS, "%s %s stops or restarts the machine", name,
		       a->w[i].text);
	else
		reason(c, CR_RISK_CAUTION, "%s %s changes the system's services", name,
		       a->w[i].text);
}

/* npm, pip, cargo, ...: installing is caution, listing safe, the rest runs project code. */
static void h_packages(struct ctx *c, const struct args *a, const char *name)
{
	static const char *const install[] = {"install", "i",  "add",        "ci",      "uninstall",
					      "remove",  "rm", "update",     "upgrade", "get",
					      "purge",   "un", "autoremove", NULL};
	static const char *const look[] = {"list",    "ls",       "show",   "freeze",    "view",
					   "info",    "outdated", "search", "--version", "-v",
					   "version", "help",     "--help", "check",     "why",
					   "env",     NULL};
	size_t i = operand(a, 1, 0);

	if (i < a->n && is_in(a->w[i].text, look))
		return;
	if (a->n == 2 && is_option(&a->w[1]) && is_in(a->w[1].text, look))
		return;
	if (i < a->n && is_in(a->w[i].text, install))
		reason(c, CR_RISK_CAUTION,
		       "%s %s installs or removes packages, whose scripts may run", name,
		       a->w[i].text);
	else
		reason(c, CR_RISK_UNKNOWN, "%s %s runs code corral does not analyse", name,
		       i < a->n ? a->w[i].text : "");
}

static void h_busybox(struct ctx *c, const struct args *a, const char *name)
{
	if (a->n > 1)
		classify_args(c, &(struct args){a->w + 1, a->n - 1, a->cmd});
}

static void h_trap(struct ctx *c, const struct args *a, const char *name)
{
	size_t i = operand(a, 1, 0);

	if (i < a->n && !is_computed(&a->w[i]) && !is(&a->w[i], "-"))
		analyse_text(c, a->w[i].text, name);
	else if (i < a->n && is_computed(&a->w[i]))
		reason(c, CR_RISK_UNKNOWN, "%s runs computed text", name);
}

static void h_unknown(struct ctx *c, const struct args *a, const char *name)
{
	reason(c, CR_RISK_UNKNOWN, "corral does not know what %s does", name);
}

/* One reason for the whole program. */
static void h_dangerous(struct ctx *c, const struct args *a, const char *name)
{
	if (strncmp(name, "mkfs", 4) == 0 || strcmp(name, "mke2fs") == 0 ||
	    strcmp(name, "mkswap") == 0 || strcmp(name, "wipefs") == 0 || strstr(name, "fdisk") ||
	    strcmp(name, "parted") == 0 || strcmp(name, "sgdisk") == 0)
		reason(c, CR_RISK_DANGEROUS, "%s formats or repartitions disks", name);
	else if (strstr(name, "mod") || strcmp(name, "kexec") == 0)
		reason(c, CR_RISK_DANGEROUS, "%s changes the running kernel", name);
	else if (strstr(name, "user") || strstr(name, "passwd") || strcmp(name, "visudo") == 0 ||
		 strstr(name, "group"))
		reason(c, CR_RISK_DANGEROUS, "%s changes user accounts", name);
	else
		reason(c, CR_RISK_DANGEROUS, "%s stops or restarts the machine", name);
}

static void h_init(struct ctx *c, const struct args *a, const char *name)
{
	if (a->n > 1)
		h_dangerous(c, a, "init");
}

/* clang-format off */
static const struct program {
	const char *name;
	handler h;
} programs[] = {
	/* read-only, operands are paths */
	{ "ls", h_read }, { "cat", h_read }, { "head", h_read }, { "tail", h_read },
	{ "wc", h_read }, { "stat", h_read }, { "file", h_read }, { "diff", h_read },
	{ "cmp", h_read }, { "comm", h_read }, { "uniq", h_read }, { "cut", h_read },
	{ "less", h_read }, { "more", h_read }, { "nl", h_read }, { "od", h_read },
	{ "xxd", h_read }, { "hexdump", h_read }, { "strings", h_read }, { "du", h_read },
	{ "tree", h_read }, { "md5sum", h_read }, { "sha1sum", h_read }, { "sha256sum", h_read },
	{ "sha512sum", h_read }, { "b2sum", h_read }, { "cksum", h_read }, { "base64", h_read },
	{ "tac", h_read }, { "rev", h_read }, { "fold", h_read }, { "fmt", h_read },
	{ "column", h_read }, { "paste", h_read }, { "join", h_read }, { "readlink", h_read },
	{ "realpath", h_read }, { "expand", h_read }, { "unexpand", h_read }, { "zcat", h_read },
	{ "bat", h_read }, { "df", h_read }, { "tr", h_safe }, { "sort", h_sort },
	{ "grep", h_read_after_pattern }, { "egrep", h_read_after_pattern },
	{ "fgrep", h_read_after_pattern }, { "rg", h_read_after_pattern },
	{ "ag", h_read_after_pattern }, { "jq", h_read_after_pattern },
	{ "yq", h_read_after_pattern }, { "awk", h_awk }, { "gawk", h_awk }, { "mawk", h_awk },
	{ "sed", h_sed }, { "find", h_find }, { "fd", h_read },
	/* read-only, no paths */
	{ "echo", h_safe }, { "printf", h_safe }, { "pwd", h_safe }, { "true", h_safe },
	{ "false", h_safe }, { ":", h_safe }, { "test", h_safe }, { "[", h_safe }, { "[[", h_safe },
	{ "which", h_safe }, { "whereis", h_safe }, { "type", h_safe }, { "basename", h_safe },
	{ "dirname", h_safe }, { "date", h_safe }, { "whoami", h_safe }, { "id", h_safe },
	{ "groups", h_safe }, { "uname", h_safe }, { "uptime", h_safe }, { "ps", h_safe },
	{ "free", h_safe }, { "nproc", h_safe }, { "arch", h_safe }, { "printenv", h_safe },
	{ "locale", h_safe }, { "tty", h_safe }, { "seq", h_safe }, { "expr", h_safe },
	{ "yes", h_safe }, { "sleep", h_safe }, { "cal", h_safe }, { "factor", h_safe },
	{ "hash", h_safe }, { "help", h_safe }, { "history", h_safe }, { "jobs", h_safe },
	{ "read", h_safe }, { "wait", h_safe }, { "shift", h_safe }, { "exit", h_safe },
	{ "return", h_safe }, { "break", h_safe }, { "continue", h_safe }, { "let", h_safe },
	{ "getopts", h_safe }, { "unset", h_safe }, { "set", h_safe }, { "shopt", h_safe },
	{ "umask", h_safe }, { "ulimit", h_safe }, { "pushd", h_cd }, { "popd", h_safe },
	{ "dirs", h_safe }, { "cd", h_cd }, { "hostname", h_safe }, { "lsb_release", h_safe },
	{ "env", h_env }, { "export", h_export }, { "declare", h_export },
	{ "typeset", h_export }, { "local", h_export }, { "readonly", h_export },
	/* write */
	{ "rm", h_rm }, { "rmdir", h_rm }, { "unlink", h_rm }, { "shred", h_rm },
	{ "mv", h_copy }, { "cp", h_copy }, { "ln", h_copy }, { "install", h_copy },
	{ "touch", h_write }, { "mkdir", h_write }, { "truncate", h_write }, { "tee", h_tee },
	{ "chmod", h_chmod }, { "chown", h_chmod }, { "chgrp", h_chmod }, { "chattr", h_chmod },
	{ "setfacl", h_chmod }, { "dd", h_dd }, { "patch", h_write }, { "tar", h_write },
	{ "unzip", h_write }, { "zip", h_write }, { "gzip", h_write }, { "gunzip", h_write },
	{ "xz", h_write }, { "bzip2", h_write }, { "mktemp", h_safe },
	{ "kill", h_kill }, { "pkill", h_kill }, { "killall", h_kill },
	{ "crontab", h_write }, { "rsync", h_copy }, { "scp", h_network }, { "sftp", h_network },
	{ "ssh", h_network }, { "curl", h_network }, { "wget", h_network }, { "fetch", h_network },
	{ "aria2c", h_network }, { "nc", h_netcat }, { "ncat", h_netcat }, { "netcat", h_netcat },
	{ "socat", h_netcat }, { "telnet", h_netcat },
	/* run other code */
	{ "git", h_git }, { "systemctl", h_systemctl },
	{ "npm", h_packages }, { "pnpm", h_packages }, { "yarn", h_packages }, { "pip", h_packages },
	{ "pip3", h_packages }, { "gem", h_packages }, { "cargo", h_packages }, { "go", h_packages },
	{ "poetry", h_packages }, { "uv", h_packages }, { "apt", h_packages },
	{ "apt-get", h_packages }, { "dnf", h_packages }, { "yum", h_packages },
	{ "apk", h_packages }, { "pacman", h_packages }, { "zypper", h_packages },
	{ "brew", h_packages }, { "composer", h_packages }, { "bundle", h_packages },
	{ "eval", h_eval }, { "source", h_source }, { ".", h_source }, { "trap", h_trap },
	{ "alias", h_unknown }, { "busybox", h_busybox }, { "xargs", h_xargs },
	{ "python", h_interpreter }, { "python2", h_interpreter }, { "python3", h_interpreter },
	{ "perl", h_interpreter }, { "ruby", h_interpreter }, { "node", h_interpreter },
	{ "nodejs", h_interpreter }, { "php", h_interpreter }, { "lua", h_interpreter },
	{ "deno", h_interpreter }, { "bun", h_interpreter }, { "Rscript", h_interpreter },
	{ "tclsh", h_interpreter }, { "pwsh", h_interpreter },
	/* privileges, the machine */
	{ "sudo", h_sudo }, { "su", h_sudo }, { "doas", h_sudo }, { "pkexec", h_sudo },
	{ "runuser", h_sudo }, { "shutdown", h_dangerous }, { "reboot", h_dangerous },
	{ "halt", h_dangerous }, { "poweroff", h_dangerous }, { "telinit", h_init },
	{ "init", h_init }, { "mke2fs", h_dangerous }, { "mkswap", h_dangerous },
	{ "wipefs", h_dangerous }, { "fdisk", h_dangerous }, { "sfdisk", h_dangerous },
	{ "cfdisk", h_dangerous }, { "parted", h_dangerous }, { "sgdisk", h_dangerous },
	{ "insmod", h_dangerous }, { "rmmod", h_dangerous }, { "modprobe", h_dangerous },
	{ "kexec", h_dangerous }, { "useradd", h_dangerous }, { "userdel", h_dangerous },
	{ "usermod", h_dangerous }, { "passwd", h_dangerous }, { "chpasswd", h_dangerous },
	{ "visudo", h_dangerous }, { "groupadd", h_dangerous }, { "adduser", h_dangerous },
	{ "deluser", h_dangerous },
};
/* clang-format on */

static handler find_handler(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(programs); i++)
		if (strcmp(programs[i].name, name) == 0)
			return programs[i].h;
	for (size_t i = 0; i < ELEMENTSOF(wrappers); i++)
		if (strcmp(wrappers[i].name, name) == 0)
			return h_wrapper;
	if (is_in(name, shells))
		return h_shell;
	if (strncmp(name, "mkfs", 4) == 0)
		return h_dangerous;
	if (strncmp(name, "python3.", 8) == 0 || strncmp(name, "python2.", 8) == 0)
		return h_interpreter;
	return NULL;
}

static bool is_function(const struct ctx *c, const char *name)
{
	for (size_t i = 0; i < c->script->n_functions; i++)
		if (strcmp(c->script->functions[i], name) == 0)
			return true;
	return false;
}

/* The program of @a and its arguments. */
static void classify_args(struct ctx *c, const struct args *a)
{
	const struct cr_sh_word *w0 = &a->w[0];
	const char *name = base_name(w0->text);
	const struct cr_sh_command *cmd = a->cmd;
	char buf[64];
	handler h;

	if (++c->depth > MAX_NESTING * 8) {
		reason(c, CR_RISK_UNKNOWN, "commands nested too deeply to analyse");
	} else if (w0->flags & (CR_SH_WORD_EXPANDS | CR_SH_WORD_SUBST | CR_SH_WORD_PROCSUBST)) {
		reason(c, cmd && downloads_inside(c, cmd) ? CR_RISK_DANGEROUS : CR_RISK_UNKNOWN,
		       "the program to run depends on %s, which corral cannot know",
		       depends_on(w0, buf, sizeof(buf)));
	} else if (is_function(c, w0->text)) {
		if (cmd && cmd->function && strcmp(cmd->function, w0->text) == 0 &&
		    (cmd->piped_in || cmd->piped_out || cmd->background))
			reason(c, CR_RISK_DANGEROUS,
			       "a fork bomb: function %s starts copies of itself without end",
			       w0->text);
		/* A function named like a known program does not hide it: the definition may not
		 * be in force here (a branch not taken, a subshell, `unset -f`), and `command
		 * NAME` skips it. Judge the program as well. */
		if ((h = find_handler(name)))
			h(c, a, name);
	} else if ((h = find_handler(name))) {
		h(c, a, name);
	} else {
		h_unknown(c, a, name);
	}
	c->depth--;
}

/* Redirections of @cmd: writes and reads of files. */
static void check_redirs(struct ctx *c, const struct cr_sh_command *cmd)
{
	/* A command of redirections only (`> f`, or those after a compound command) has no name. */
	const char *name = cmd->n_words ? base_name(cmd->words[0].text) : "a command";

	for (size_t i = 0; i < cmd->n_redirs; i++) {
		const struct cr_sh_redir *r = &cmd->redirs[i];

		switch (r->op) {
		case CR_SH_REDIR_OUT:
		case CR_SH_REDIR_APPEND:
		case CR_SH_REDIR_RDWR:
		case CR_SH_REDIR_OUT_ERR:
		case CR_SH_REDIR_APPEND_ERR:
			if (!is_computed(&r->target) && classify_path(c, &r->target) == P_HARMLESS)
				break;
			reason(c, CR_RISK_CAUTION, "%s writes to %s through a redirection", name,
			       r->target.text);
			check_write(c, name, &r->target);
			break;
		case CR_SH_REDIR_IN:
			check_read(c, name, &r->target);
			break;
		case CR_SH_REDIR_DUP:
		case CR_SH_REDIR_HEREDOC:
		case CR_SH_REDIR_HERESTRING:
		default:
			break;
		}
	}
}

/* "A=1 prog arg ...", for the list of commands. */
static int add_command_text(struct ctx *c, const struct cr_sh_command *cmd)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f;

	if (cmd->n_words + cmd->n_assigns == 0)
		return 0;
	f = open_memstream(&s, &len);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < cmd->n_assigns; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd->assigns[i].text);
	for (size_t i = 0; i < cmd->n_words; i++)
		fprintf(f, "%s%s", i || cmd->n_assigns ? " " : "", cmd->words[i].text);
	if (fclose(f) != 0) {
		free(s);
		return -ENOMEM;
	}
	return strv_push(&c->risk->commands, &c->risk->n_commands, s);
}

static void classify_command(struct ctx *c, const struct cr_sh_command *cmd)
{
	if (add_command_text(c, cmd) < 0)
		c->err = -ENOMEM;
	for (size_t i = 0; i < cmd->n_assigns; i++)
		check_assignment(c, cmd->assigns[i].text);
	check_redirs(c, cmd);
	if (cmd->n_words > 0)
		classify_args(c, &(struct args){cmd->words, cmd->n_words, cmd});
}

static void classify_script(struct ctx *c, const struct cr_sh_script *s)
{
	const struct cr_sh_script *saved = c->script;

	c->script = s;
	for (size_t i = 0; i < s->n_commands; i++)
		classify_command(c, &s->commands[i]);
	c->script = saved;
}

/* Shell text found inside the line (sh -c, eval, a here-document fed to a shell). */
static void analyse_text(struct ctx *c, const char *text, const char *what)
{
	struct cr_sh_script s = {};
	char msg[256];
	int r;

	if (c->depth >= MAX_NESTING * 4) {
		reason(c, CR_RISK_UNKNOWN, "%s: shell text nested too deeply to analyse", what);
		return;
	}
	r = cr_sh_parse(text, &s, msg, sizeof(msg));
	if (r == -ENOMEM) {
		c->err = r;
		return;
	}
	if (r < 0) {
		reason(c, CR_RISK_UNKNOWN, "%s runs text that does not parse: %s", what, msg);
		return;
	}
	c->depth += 4;
	classify_script(c, &s);
	c->depth -= 4;
	cr_sh_script_done(&s);
}

static int ctx_init(struct ctx *c, const char *workspace, struct cr_risk *risk)
{
	*risk = (struct cr_risk){.tier = CR_RISK_SAFE};
	*c = (struct ctx){.workspace = workspace, .risk = risk};
	if (workspace && !(c->cwd = strdup(workspace)))
		return -ENOMEM;
	return 0;
}

static int ctx_finish(struct ctx *c, struct cr_risk *ret)
{
	free(c->cwd);
	if (c->err < 0) {
		cr_risk_done(c->risk);
		return c->err;
	}
	*ret = *c->risk;
	return 0;
}

int cr_risk_shell(const char *script, const char *workspace, struct cr_risk *ret)
{
	struct cr_sh_script s = {};
	struct cr_risk risk;
	struct ctx c;
	char msg[256];
	int r;

	r = ctx_init(&c, workspace, &risk);
	if (r < 0)
		return r;
	r = cr_sh_parse(script, &s, msg, sizeof(msg));
	if (r == -ENOMEM)
		c.err = r;
	else if (r < 0)
		reason(&c, CR_RISK_UNKNOWN, "the command line does not parse: %s", msg);
	else
		classify_script(&c, &s);
	cr_sh_script_done(&s);
	return ctx_finish(&c, ret);
}

int cr_risk_argv(char *const *argv, const char *workspace, struct cr_risk *ret)
{
	_cleanup_free_ struct cr_sh_word *w = NULL;
	struct cr_sh_command cmd = {.owner = -1};
	struct cr_sh_script s = {.commands = &cmd, .n_commands = 1};
	struct cr_risk risk;
	struct ctx c;
	size_t n = 0;
	int r;

	while (argv && argv[n])
		n++;
	r = ctx_init(&c, workspace, &risk);
	if (r < 0)
		return r;
	w = calloc(n + 1, sizeof(*w));
	if (!w)
		c.err = -ENOMEM;
	for (size_t i = 0; w && i < n; i++)
		w[i].text = argv[i]; /* literal words: no shell reads them */
	cmd.words = w;
	cmd.n_words = n;
	if (w && n > 0)
		classify_script(&c, &s);
	return ctx_finish(&c, ret);
}

json_object *cr_risk_to_json(const struct cr_risk *r)
{
	json_object *o = json_object_new_object();
	int e;

	e = cr_json_add(o, "tier",
			json_object_new_string(cr_risk_tier_to_string(r->tier) ?: "unknown"));
	e = e ?: cr_json_add(o, "reasons", cr_json_strv(r->reasons, r->n_reasons));
	e = e ?: cr_json_add(o, "commands", cr_json_strv(r->commands, r->n_commands));
	return cr_json_whole(o, e);
}

void cr_risk_done(struct cr_risk *r)
{
	strv_freep(&r->reasons);
	strv_freep(&r->commands);
	*r = (struct cr_risk){};
}
