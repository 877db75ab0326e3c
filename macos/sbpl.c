/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "sbpl.h"

#define PATH_MAX_BYTES 1024

/* Read-only system locations a shell, its tools and the toolchains need. /Library holds the
 * Command Line Tools and frameworks; its keychains are denied below. */
static const char *const system_read[] = {
	"/usr", "/bin", "/sbin", "/System", "/Library", "/private/etc", "/private/var/db/dyld",
	"/private/var/db/timezone", "/opt/homebrew", "/usr/local", "/Applications/Xcode.app",
};

static const char *const dev_read[] = {
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/fd", "/dev/dtracehelper",
};

/* What common tools look up: logging, notifications, user and group names, trust evaluation
 * for TLS, launch services for `open`-less tools that still ask. Not the security server (the
 * keychain) nor anything that can start applications. */
static const char *const mach_services[] = {
	"com.apple.system.logger",
	"com.apple.system.notification_center",
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership",
	"com.apple.trustd",
	"com.apple.trustd.agent",
	"com.apple.diagnosticd",
	"com.apple.analyticsd",
	"com.apple.cfprefsd.daemon",
	"com.apple.cfprefsd.agent",
};

const char *const cr_sbpl_home_secrets[] = {
	"/.ssh", "/.aws", "/.gnupg", "/.azure", "/.kube", "/.docker", "/.netrc", "/.npmrc",
	"/.pypirc", "/.config/gcloud", "/.config/gh", "/.git-credentials",
	"/Library/Keychains", "/Library/Cookies", "/Library/Mail", "/Library/Messages",
	"/Library/Safari", "/Library/Application Support/Google/Chrome",
	"/Library/Application Support/Firefox", "/Library/Application Support/BraveSoftware",
	"/Library/Application Support/Microsoft Edge",
	/* corral's own profiles and state: a command must not widen the next run's policy */
	"/.config/corral", "/.local/state/corral",
	NULL,
};

/* Whole-system secrets, constant paths (no user input): written into the text as literals. */
static const char *const system_secrets[] = { "/Library/Keychains", "/private/var/db/sudo" };

/* One UTF-8 sequence at @p (at most @n bytes): its length, or 0 if invalid (overlong forms,
 * surrogates and code points past U+10FFFF included). */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	uint32_t cp;
	size_t len;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

int cr_sbpl_check_path(const char *what, const char *path, size_t size, char *msg,
		       size_t msg_size)
{
	const unsigned char *p = (const unsigned char *)path;

	if (!path || size == 0 || path[0] != '/')
		return cr_msg(msg, msg_size, -EINVAL, "%s: not an absolute path", what);
	if (size > PATH_MAX_BYTES)
		return cr_msg(msg, msg_size, -EINVAL, "%s: longer than %d bytes", what,
			      PATH_MAX_BYTES);
	for (size_t i = 0; i < size;) {
		size_t k;

		if (p[i] == 0)
			return cr_msg(msg, msg_size, -EINVAL, "%s: contains a NUL byte", what);
		if (p[i] < 0x20 || p[i] == 0x7f)
			return cr_msg(msg, msg_size, -EINVAL,
				      "%s: contains a control character (0x%02x)", what, p[i]);
		k = utf8_len(p + i, size - i);
		if (k == 0)
			return cr_msg(msg, msg_size, -EINVAL, "%s: not valid UTF-8 (byte %zu)",
				      what, i);
		i += k;
	}
	if (size == 1)
		return 0;
	if (path[size - 1] == '/')
		return cr_msg(msg, msg_size, -EINVAL, "%s: ends with '/'", what);
	for (const char *c = path; c < path + size;) {
		const char *next = memchr(c + 1, '/', (size_t)(path + size - c - 1));
		size_t n = (size_t)((next ? next : path + size) - c - 1);

		if (n == 0 || (n == 1 && c[1] == '.') || (n == 2 && c[1] == '.' && c[2] == '.'))
			return cr_msg(msg, msg_size, -EINVAL,
				      "%s: not canonical (an empty, '.' or '..' component)", what);
		if (!next)
			break;
		c = next;
	}
	return 0;
}

struct gen {
	FILE *f;
	char **params;
	size_t n_params;
	int r;
};

static void emit(struct gen *g, const char *fmt, ...) _printf_(2, 3);
static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vfprintf(g->f, fmt, ap) < 0 && g->r >= 0)
		g->r = -ENOMEM;
	va_end(ap);
}

/* Record NAME=@value and return nothing: the caller writes (param "NAME"). */
static void param(struct gen *g, const char *name, const char *value)
{
	char **a;
	char *kv;

	if (g->r < 0)
		return;
	a = reallocarray(g->params, g->n_params + 2, sizeof(char *));
	if (!a || asprintf(&kv, "%s=%s", name, value) < 0) {
		if (a)
			g->params = a;
		g->r = -ENOMEM;
		return;
	}
	g->params = a;
	g->params[g->n_params++] = kv;
	g->params[g->n_params] = NULL;
}

/* (ACTION OPS (subpath (param "PREFIX_i"))) for each path, each path a parameter. */
static void path_rules(struct gen *g, const char *action, const char *ops, const char *prefix,
		       const char *const *paths, size_t n)
{
	char name[32];

	for (size_t i = 0; i < n; i++) {
		(void)snprintf(name, sizeof(name), "%s_%zu", prefix, i);
		param(g, name, paths[i]);
		emit(g, "(%s %s (subpath (param \"%s\")))\n", action, ops, name);
	}
}

static void literal_list(struct gen *g, const char *head, const char *filter,
			 const char *const *v, size_t n)
{
	emit(g, "(%s", head);
	for (size_t i = 0; i < n; i++)
		emit(g, "\n    (%s \"%s\")", filter, v[i]);
	emit(g, ")\n");
}

static void gen_process(struct gen *g, const struct cr_sbpl_input *in)
{
	emit(g, "(version 1)\n(deny default)\n\n; the command and what it starts\n");
	emit(g, "(allow process-exec)\n");
	if (in->spawn)
		emit(g, "(allow process-fork)\n");
	emit(g, "(allow signal (target same-sandbox))\n");
	emit(g, "(allow process-info* (target same-sandbox))\n");
	emit(g, "(allow sysctl-read)\n");
	emit(g, "(allow user-preference-read)\n");
	/* stat() of any path, for getcwd() and realpath(); contents stay denied */
	emit(g, "(allow file-read-metadata)\n");
}

static void gen_files(struct gen *g, const struct cr_sbpl_input *in)
{
	emit(g, "\n; the system, read-only\n");
	emit(g, "(allow file-read* (literal \"/\"))\n");
	literal_list(g, "allow file-read*", "subpath", system_read, ELEMENTSOF(system_read));
	literal_list(g, "allow file-read*", "literal", dev_read, ELEMENTSOF(dev_read));
	emit(g, "(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\"))\n");
	if (in->interactive)
		emit(g, "(allow file-read* file-write* (literal \"/dev/tty\") "
			"(regex #\"^/dev/ttys[0-9]+$\"))\n(allow pseudo-tty)\n");
	emit(g, "\n; the workspace, the run's temporary directory, and the policy's paths\n");
	param(g, "WORKSPACE", in->workspace);
	emit(g, "(allow %s (subpath (param \"WORKSPACE\")))\n",
	     in->workspace_ro ? "file-read*" : "file-read* file-write*");
	param(g, "TMPDIR", in->tmpdir);
	emit(g, "(allow file-read* file-write* (subpath (param \"TMPDIR\")))\n");
	path_rules(g, "allow", "file-read*", "READ", in->read, in->n_read);
	path_rules(g, "allow", "file-read* file-write*", "WRITE", in->write, in->n_write);
}

static void gen_ipc_net(struct gen *g, const struct cr_sbpl_input *in)
{
	emit(g, "\n; services common tools look up\n");
	literal_list(g, "allow mach-lookup", "global-name", mach_services,
		     ELEMENTSOF(mach_services));
	emit(g, "(allow ipc-posix-shm-read-data (ipc-posix-name \"apple.shm.notification_center\"))\n");
	emit(g, "\n; network\n");
	switch (in->net) {
	case CR_SBPL_NET_ALL:
		emit(g, "(allow network*)\n(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n");
		break;
	case CR_SBPL_NET_LOOPBACK:
		emit(g, "(allow network* (remote ip \"localhost:*\"))\n"
			"(allow network* (local ip \"localhost:*\"))\n");
		break;
	case CR_SBPL_NET_NONE:
	default:
		emit(g, "(deny network*)\n");
		break;
	}
}

/* Last: SBPL takes the last matching rule, so these win over every allow above. */
static void gen_denials(struct gen *g, const struct cr_sbpl_input *in, char *const *secrets,
			size_t n_secrets)
{
	emit(g, "\n; secrets and hidden paths, denied even inside an allowed tree\n");
	literal_list(g, "deny file-read* file-write*", "subpath", system_secrets,
		     ELEMENTSOF(system_secrets));
	path_rules(g, "deny", "file-read* file-write*", "SECRET", (const char *const *)secrets,
		   n_secrets);
	path_rules(g, "deny", "file-read* file-write*", "HIDE", in->hide, in->n_hide);
}

static int check_all(const struct cr_sbpl_input *in, char *msg, size_t size)
{
	struct {
		const char *what;
		const char *const *v;
		size_t n;
	} lists[] = {
		{ "workspace", &in->workspace, 1 }, { "temporary directory", &in->tmpdir, 1 },
		{ "home", &in->home, 1 },	    { "read path", in->read, in->n_read },
		{ "write path", in->write, in->n_write }, { "hidden path", in->hide, in->n_hide },
	};
	int r;

	if (in->net < 0 || in->net >= _CR_SBPL_NET_MAX)
		return cr_msg(msg, size, -EINVAL, "network: unknown mode");
	for (size_t i = 0; i < ELEMENTSOF(lists); i++)
		for (size_t j = 0; j < lists[i].n; j++) {
			const char *p = lists[i].v[j];

			r = cr_sbpl_check_path(lists[i].what, p, p ? strlen(p) : 0, msg, size);
			if (r < 0)
				return r;
		}
	return 0;
}

static int home_secrets(const char *home, char ***ret, size_t *ret_n)
{
	size_t n = 0;
	char **v;

	while (cr_sbpl_home_secrets[n])
		n++;
	v = calloc(n + 1, sizeof(char *));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (asprintf(&v[i], "%s%s", strcmp(home, "/") == 0 ? "" : home,
			     cr_sbpl_home_secrets[i]) < 0) {
			v[i] = NULL;
			strv_freep(&v);
			return -ENOMEM;
		}
	*ret = v;
	*ret_n = n;
	return 0;
}

int cr_sbpl_generate(const struct cr_sbpl_input *in, struct cr_sbpl *ret, char *msg,
		     size_t msg_size)
{
	_cleanup_strv_ char **secrets = NULL;
	struct gen g = { .r = 0 };
	size_t n_secrets = 0, size = 0;
	char *text = NULL;
	int r;

	r = check_all(in, msg, msg_size);
	if (r < 0)
		return r;
	if (home_secrets(in->home, &secrets, &n_secrets) < 0)
		return cr_msg(msg, msg_size, -ENOMEM, "out of memory");
	g.f = open_memstream(&text, &size);
	if (!g.f)
		return cr_msg(msg, msg_size, -ENOMEM, "out of memory");
	gen_process(&g, in);
	gen_files(&g, in);
	gen_ipc_net(&g, in);
	gen_denials(&g, in, secrets, n_secrets);
	if (fclose(g.f) != 0 && g.r >= 0)
		g.r = -ENOMEM;
	if (g.r < 0) {
		free(text);
		strv_freep(&g.params);
		return cr_msg(msg, msg_size, g.r, "out of memory");
	}
	*ret = (struct cr_sbpl){ .profile = text, .params = g.params, .n_params = g.n_params };
	return 0;
}

void cr_sbpl_done(struct cr_sbpl *s)
{
	free(s->profile);
	strv_freep(&s->params);
	*s = (struct cr_sbpl){};
}
