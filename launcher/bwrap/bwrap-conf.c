/* SPDX-License-Identifier: MIT */
/* /etc/corral/bwrap.conf: see bwrap-conf.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bwrap-conf.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/read-file.h"

#define KEY_MAX	  31
#define VALUE_MAX 31

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A word of @p's first bytes up to @n: lower-case letters and '_' (a key), or any byte but a
 * blank or a control character (a value). Its length. */
static size_t word(const char *p, size_t n, bool key)
{
	size_t i = 0;

	while (i < n && (key ? (p[i] >= 'a' && p[i] <= 'z') || p[i] == '_'
			     : (unsigned char)p[i] > ' ' && p[i] != 0x7f))
		i++;
	return i;
}

/* The value @v of @key on line @line into @c. */
static int set_key(struct cr_bwrap_conf *c, const char *key, const char *v, const char *source,
		   unsigned line, char *msg, size_t size)
{
	if (strcmp(key, "mode") == 0) {
		c->mode = cr_bwrap_mode_from_string(v);
		c->has_mode = true;
		if ((int)c->mode < 0)
			return cr_msg(msg, size, -EINVAL, "%s:%u: mode = %s: use compat or hardened",
				      source, line, v);
		return 0;
	}
	if (strcmp(key, "pool") == 0) {
		c->pool = cr_pool_mode_from_string(v);
		c->has_pool = true;
		if ((int)c->pool < 0)
			return cr_msg(msg, size, -EINVAL,
				      "%s:%u: pool = %s: use auto, require or never", source, line, v);
		return 0;
	}
	return cr_msg(msg, size, -EINVAL, "%s:%u: unknown key '%s' (bwrap.conf has: mode, pool)",
		      source, line, key);
}

/* One line of @n bytes (no newline): blank, a comment, or KEY = VALUE. */
static int parse_line(struct cr_bwrap_conf *c, const char *p, size_t n, const char *source,
		      unsigned line, char *msg, size_t size)
{
	char key[KEY_MAX + 1], value[VALUE_MAX + 1];
	size_t i = 0, k, v;

	while (n > 0 && (is_blank(p[n - 1]) || p[n - 1] == '\r'))
		n--;
	while (i < n && is_blank(p[i]))
		i++;
	if (i == n || p[i] == '#' || p[i] == ';')
		return 0;
	k = word(p + i, n - i, true);
	if (k == 0 || k > KEY_MAX)
		goto bad;
	memcpy(key, p + i, k);
	key[k] = '\0';
	for (i += k; i < n && is_blank(p[i]); i++)
		;
	if (i == n || p[i] != '=')
		goto bad;
	for (i++; i < n && is_blank(p[i]); i++)
		;
	v = word(p + i, n - i, false);
	if (v == 0 || v > VALUE_MAX || i + v != n)
		goto bad;
	memcpy(value, p + i, v);
	value[v] = '\0';
	return set_key(c, key, value, source, line, msg, size);
bad:
	return cr_msg(msg, size, -EINVAL, "%s:%u: expected KEY = VALUE (mode or pool), a comment "
		      "or a blank line: '%.*s'", source, line, n < 64 ? (int)n : 64, p);
}

int cr_bwrap_conf_parse(const char *text, size_t size, const char *source,
			struct cr_bwrap_conf *ret, char *msg, size_t msg_size)
{
	const char *p = text, *end = text + size;
	unsigned line = 0;
	int r = 0;

	*ret = (struct cr_bwrap_conf){};
	while (r == 0 && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		line++;
		if (memchr(p, '\0', n))
			return cr_msg(msg, msg_size, -EINVAL, "%s:%u: a NUL byte", source, line);
		r = parse_line(ret, p, n, source, line, msg, msg_size);
		p += n + 1;
	}
	return r;
}

int cr_bwrap_conf_read(const char *path, struct cr_bwrap_conf *ret, char *msg, size_t msg_size)
{
	_cleanup_free_ char *text = NULL;
	size_t n;
	int r;

	*ret = (struct cr_bwrap_conf){};
	r = cr_read_config_file(path, CR_BWRAP_CONF_MAX_SIZE, &text, &n, msg, msg_size);
	if (r < 0 || !text)
		return r;
	return cr_bwrap_conf_parse(text, n, path, ret, msg, msg_size);
}
