/* SPDX-License-Identifier: MIT */
/* The rules the risk handlers share (risk-internal.h): where a path points (the workspace, the
 * home directory, a system directory, a device), which files hold secrets, the operands and
 * options of an argument vector, and what the line around a command does (a download before it
 * or inside its words, code fed to its standard input). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "risk-internal.h"
#include "shell-parse.h"

/* "/a/./b/../c" -> "/a/c", in place; the result is absolute. */
void risk_normalize(char *p)
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

bool risk_is_in(const char *s, const char *const *v)
{
	for (; *v; v++)
		if (strcmp(s, *v) == 0)
			return true;
	return false;
}

/* An absolute path (normalized) outside the home directory. */
static enum path_class classify_abs(const char *a, const char *workspace)
{
	if (risk_is_in(a, harmless) || strncmp(a, "/dev/fd/", 8) == 0 ||
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
enum path_class risk_classify_path(struct ctx *c, const struct cr_sh_word *w)
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
	risk_normalize(a);
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

void risk_check_secret(struct ctx *c, const char *name, const struct cr_sh_word *w)
{
	if (strpbrk(w->text, " \t\n"))
		return; /* text, not a path */
	for (size_t i = 0; secrets[i]; i++)
		if (strstr(w->text, secrets[i])) {
			risk_reason(c, CR_RISK_DANGEROUS, "%s reads secrets (%s)", name, w->text);
			return;
		}
}

void risk_check_read(struct ctx *c, const char *name, const struct cr_sh_word *w)
{
	enum path_class k;

	risk_check_secret(c, name, w);
	if (is_computed(w))
		return;
	k = risk_classify_path(c, w);
	if (k != P_WORKSPACE && k != P_HARMLESS)
		risk_reason(c, CR_RISK_CAUTION, "%s reads outside the workspace (%s)", name,
			    w->text);
}

void risk_check_write(struct ctx *c, const char *name, const struct cr_sh_word *w)
{
	char buf[64];

	risk_check_secret(c, name, w);
	if (is_computed(w)) {
		risk_reason(c, CR_RISK_CAUTION, "%s writes to a path that depends on %s", name,
			    depends_on(w, buf, sizeof(buf)));
		return;
	}
	switch (risk_classify_path(c, w)) {
	case P_DEVICE:
		risk_reason(c, CR_RISK_DANGEROUS, "%s writes to a disk or memory device (%s)", name,
			    w->text);
		break;
	case P_SYSTEM:
	case P_TOP:
		risk_reason(c, CR_RISK_DANGEROUS, "%s writes to a system path (%s)", name, w->text);
		break;
	case P_HOME:
	case P_OUTSIDE:
		risk_reason(c, CR_RISK_CAUTION, "%s writes outside the workspace (%s)", name,
			    w->text);
		break;
	case P_WORKSPACE:
	case P_HARMLESS:
	default:
		break;
	}
}

/* The operands of @a from @from on: the words that are not options (all after "--"). */
void risk_each_operand(struct ctx *c, const struct args *a, size_t from, const char *name,
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
size_t risk_operand(const struct args *a, size_t from, size_t k)
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

bool risk_has_option(const struct args *a, const char *shorts, const char *const *longs)
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

	return cmd->n_words > 0 && risk_is_in(base_name(cmd->words[0].text), names);
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
bool risk_downloads_inside(const struct ctx *c, const struct cr_sh_command *cmd)
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
void risk_code_from_stdin(struct ctx *c, const struct args *a, const char *name, bool shell)
{
	const char *text;

	if (has_redir(a->cmd, CR_SH_REDIR_HEREDOC, &text) ||
	    has_redir(a->cmd, CR_SH_REDIR_HERESTRING, &text)) {
		if (a->cmd && risk_downloads_inside(c, a->cmd))
			risk_reason(c, CR_RISK_DANGEROUS, "%s runs downloaded code", name);
		else if (shell)
			risk_analyse_text(c, text, name);
		else
			risk_reason(c, CR_RISK_UNKNOWN, "%s runs code corral does not analyse",
				    name);
	} else if (a->cmd && a->cmd->piped_in && downloads_before(c, a->cmd)) {
		risk_reason(c, CR_RISK_DANGEROUS,
			    "downloaded content is piped into %s, which runs it as code", name);
	} else {
		risk_reason(c, CR_RISK_UNKNOWN, "%s runs the code it reads from its input", name);
	}
}
