/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "secret.h"

static const char *const kind_options[] = {
	[CR_SECRET_ENV] = "--secret",
	[CR_SECRET_FILE] = "--secret-file",
};

static bool name_char(char c, bool first, enum cr_secret_kind kind)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_')
		return true;
	if (c >= '0' && c <= '9')
		return !first || kind == CR_SECRET_FILE;
	return kind == CR_SECRET_FILE && !first && (c == '.' || c == '-');
}

bool cr_secret_name_ok(enum cr_secret_kind kind, const char *name, size_t len)
{
	if (len == 0 || len > 255)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!name_char(name[i], i == 0, kind))
			return false;
	return true;
}

int cr_secret_spec_check(const char *opt, enum cr_secret_kind kind, const char *arg, char *msg,
			 size_t size)
{
	const char *eq = strchr(arg, '=');

	if (!eq || !eq[1])
		return cr_msg(msg, size, -EINVAL, "%s: '%s' is not of the form NAME=FILE", opt, arg);
	if (!cr_secret_name_ok(kind, arg, (size_t)(eq - arg)))
		return cr_msg(msg, size, -EINVAL,
			      kind == CR_SECRET_ENV
				      ? "%s: '%.*s' is not a variable name (letters, digits and _, not starting with a digit)"
				      : "%s: '%.*s' is not a file name (letters, digits, _, . and -, not starting with .)",
			      opt, (int)(eq - arg), arg);
	return 0;
}

void cr_secret_erase(char *s)
{
	if (s)
		explicit_bzero(s, strlen(s));
	free(s);
}

/* Up to CR_SECRET_MAX bytes of @fd into a new NUL-terminated buffer; -EFBIG past it, -EILSEQ
 * for a NUL byte (neither an environment nor the file's text can carry one). */
static int read_all(int fd, char **ret, size_t *ret_len)
{
	char *buf = malloc(CR_SECRET_MAX + 2);
	size_t len = 0;
	int r = 0;

	if (!buf)
		return -ENOMEM;
	while (len <= CR_SECRET_MAX) {
		ssize_t n = read(fd, buf + len, CR_SECRET_MAX + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = negative_errno();
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (r >= 0 && len > CR_SECRET_MAX)
		r = -EFBIG;
	if (r >= 0 && memchr(buf, '\0', len))
		r = -EILSEQ;
	if (r < 0) {
		explicit_bzero(buf, CR_SECRET_MAX + 2);
		free(buf);
		return r;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* Open @path for a secret: never through a symlink at its end, only a regular file. */
static int open_file(const char *path, char *msg, size_t size, const char *what)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	if (strcmp(path, "-") == 0) {
		fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return cr_msg(msg, size, negative_errno(),
				      "%s: cannot read the standard input: %m", what);
		return TAKE_FD(fd);
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0 && errno == ELOOP)
		return cr_msg(msg, size, -ELOOP,
			      "%s: %s is a symbolic link: name the file itself (or '-' for the standard input)",
			      what, path);
	if (fd < 0)
		return cr_msg(msg, size, negative_errno(), "%s: cannot open %s: %m", what, path);
	if (fstat(fd, &st) < 0)
		return cr_msg(msg, size, negative_errno(), "%s: cannot read %s: %m", what, path);
	if (!S_ISREG(st.st_mode))
		return cr_msg(msg, size, -EINVAL, "%s: %s is not a regular file", what, path);
	if (st.st_size > (off_t)CR_SECRET_MAX)
		return cr_msg(msg, size, -EFBIG, "%s: %s is larger than %u bytes", what, path,
			      CR_SECRET_MAX);
	return TAKE_FD(fd);
}

/* The contents of @path ("-": the standard input) for the secret @what. */
static int read_file(const char *path, const char *what, char **ret, size_t *ret_len, char *msg,
		     size_t size)
{
	_cleanup_close_ int fd = open_file(path, msg, size, what);
	int r;

	if (fd < 0)
		return fd;
	r = read_all(fd, ret, ret_len);
	if (r == -EFBIG)
		return cr_msg(msg, size, r, "%s: %s is larger than %u bytes", what, path,
			      CR_SECRET_MAX);
	if (r == -EILSEQ)
		return cr_msg(msg, size, r, "%s: %s holds a NUL byte, which a secret cannot carry",
			      what, path);
	if (r < 0)
		return cr_msg(msg, size, r, "%s: cannot read %s: %m", what, path);
	return 0;
}

static int add(struct cr_secret **s, size_t *n, const char *name, size_t len, char *value,
	       enum cr_secret_kind kind)
{
	struct cr_secret *a;
	char *copy;

	copy = strndup(name, len);
	a = copy ? reallocarray(*s, *n + 1, sizeof(**s)) : NULL;
	if (!a) {
		free(copy);
		cr_secret_erase(value);
		return -ENOMEM;
	}
	a[(*n)++] = (struct cr_secret){ .name = copy, .value = value, .kind = kind };
	*s = a;
	return 0;
}

/* One NAME=FILE of --secret or --secret-file. An environment's value loses one trailing newline
 * (what `echo value > FILE` adds); a file's is kept as it is. */
static int read_spec(const char *arg, enum cr_secret_kind kind, struct cr_secret **s, size_t *n,
		     char *msg, size_t size)
{
	const char *eq = strchr(arg, '=');
	char what[300], *value = NULL;
	size_t len;
	int r;

	(void)snprintf(what, sizeof(what), "%s %.*s", kind_options[kind], (int)(eq - arg), arg);
	r = read_file(eq + 1, what, &value, &len, msg, size);
	if (r < 0)
		return r;
	if (kind == CR_SECRET_ENV && len > 0 && value[len - 1] == '\n')
		value[--len] = '\0';
	if (len == 0) {
		free(value);
		return cr_msg(msg, size, -EINVAL, "%s: %s is empty", what, eq + 1);
	}
	return add(s, n, arg, (size_t)(eq - arg), value, kind);
}

/* --env-file: NAME=VALUE lines; blank lines and lines starting with # are skipped; a value is
 * the rest of its line, as it is (no quotes, no expansion), without a trailing \r. */
static int parse_env_file(const char *path, char *text, struct cr_secret **s, size_t *n,
			  char *msg, size_t size)
{
	unsigned line = 0;
	int r = 0;

	for (char *p = text, *next; r >= 0 && *p; p = next) {
		char *nl = strchr(p, '\n'), *eq, *value;
		size_t end;

		next = nl ? nl + 1 : p + strlen(p);
		end = (size_t)((nl ? nl : next) - p);
		line++;
		if (end > 0 && p[end - 1] == '\r')
			end--;
		p[end] = '\0';
		if (!*p || *p == '#')
			continue;
		eq = strchr(p, '=');
		if (!eq || !cr_secret_name_ok(CR_SECRET_ENV, p, (size_t)(eq - p)))
			return cr_msg(msg, size, -EINVAL,
				      "--env-file %s: line %u is not NAME=VALUE with a variable name", path,
				      line);
		value = strdup(eq + 1);
		r = value ? add(s, n, p, (size_t)(eq - p), value, CR_SECRET_ENV) : -ENOMEM;
	}
	return r;
}

static int read_env_file(const char *path, struct cr_secret **s, size_t *n, char *msg, size_t size)
{
	char *text = NULL;
	size_t len;
	int r;

	r = read_file(path, "--env-file", &text, &len, msg, size);
	if (r < 0)
		return r;
	r = parse_env_file(path, text, s, n, msg, size);
	explicit_bzero(text, len);
	free(text);
	return r;
}

static int check_unique(const struct cr_secret *s, size_t n, const struct cr_run_options *o,
			char *msg, size_t size)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(s[i].name);

		for (size_t j = 0; j < i; j++)
			if (s[j].kind == s[i].kind && strcmp(s[j].name, s[i].name) == 0)
				return cr_msg(msg, size, -EINVAL, "secret %s is given twice",
					      s[i].name);
		for (size_t j = 0; s[i].kind == CR_SECRET_ENV && j < o->n_setenv; j++)
			if (strncmp(o->setenv[j], s[i].name, len) == 0 && o->setenv[j][len] == '=')
				return cr_msg(msg, size, -EINVAL,
					      "%s is given both as a secret and by --setenv", s[i].name);
	}
	return 0;
}

static int count_stdin(const struct cr_run_options *o)
{
	int k = 0;

	for (size_t i = 0; i < o->n_secrets; i++)
		k += strcmp(strchr(o->secrets[i], '=') + 1, "-") == 0;
	for (size_t i = 0; i < o->n_secret_files; i++)
		k += strcmp(strchr(o->secret_files[i], '=') + 1, "-") == 0;
	for (size_t i = 0; i < o->n_env_files; i++)
		k += strcmp(o->env_files[i], "-") == 0;
	return k;
}

int cr_secrets_read(const struct cr_run_options *o, struct cr_secret **ret, size_t *ret_n,
		    char *msg, size_t size)
{
	struct cr_secret *s = NULL;
	size_t n = 0;
	int r = 0;

	if (count_stdin(o) > 1)
		return cr_msg(msg, size, -EINVAL,
			      "the standard input ('-') can give only one secret or --env-file");
	for (size_t i = 0; r >= 0 && i < o->n_secrets; i++)
		r = read_spec(o->secrets[i], CR_SECRET_ENV, &s, &n, msg, size);
	for (size_t i = 0; r >= 0 && i < o->n_secret_files; i++)
		r = read_spec(o->secret_files[i], CR_SECRET_FILE, &s, &n, msg, size);
	for (size_t i = 0; r >= 0 && i < o->n_env_files; i++)
		r = read_env_file(o->env_files[i], &s, &n, msg, size);
	if (r >= 0)
		r = check_unique(s, n, o, msg, size);
	if (r < 0) {
		cr_secrets_free(s, n);
		return r == -ENOMEM ? cr_msg(msg, size, r, "out of memory") : r;
	}
	*ret = s;
	*ret_n = n;
	return 0;
}

json_object *cr_secrets_json(const struct cr_secret *s, size_t n)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < n; i++) {
		char path[300];

		(void)snprintf(path, sizeof(path), "%s/%s", CR_SECRETS_DIR, s[i].name);
		r = cr_json_append(a, json_object_new_string(s[i].kind == CR_SECRET_FILE ? path
											  : s[i].name));
	}
	return cr_json_whole(a, r);
}
