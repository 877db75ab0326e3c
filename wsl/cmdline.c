/* SPDX-License-Identifier: MIT */
/* Windows command lines, both ways. Microsoft documents the parsing rules in "Parsing C
 * command-line arguments" (the C runtime) and for CommandLineToArgvW; wsl.exe gets its arguments
 * that way before it hands them, as UTF-8, to the Linux side. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "wsl.h"

struct buf {
	char *p;
	size_t n, cap;
};

static int put(struct buf *b, char c, size_t count)
{
	if (b->n + count + 1 > b->cap) {
		size_t cap = (b->n + count + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	memset(b->p + b->n, c, count);
	b->n += count;
	b->p[b->n] = '\0';
	return 0;
}

/* Valid UTF-8: no overlong form, no surrogate, nothing past U+10FFFF. */
bool cr_wsl_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		unsigned len = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2
					 : *p >= 0xe0 && *p <= 0xef ? 3
					 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
		unsigned cp = len == 1 ? *p : len == 2 ? *p & 0x1fu : len == 3 ? *p & 0x0fu : *p & 7u;

		if (len == 0)
			return false;
		for (unsigned i = 1; i < len; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (p[i] & 0x3fu);
		}
		if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		p += len;
	}
	return true;
}

static bool needs_quotes(const char *a)
{
	return !*a || strpbrk(a, " \t\n\v\"");
}

/* One argument by the argument rules. */
static int quote_arg(struct buf *b, const char *a)
{
	int r = 0;

	if (!needs_quotes(a)) {
		for (; *a && r >= 0; a++)
			r = put(b, *a, 1);
		return r;
	}
	r = put(b, '"', 1);
	for (const char *p = a; r >= 0;) {
		size_t bs = strspn(p, "\\");

		p += bs;
		if (!*p) /* before the closing quote: each backslash doubled */
			return r >= 0 && (r = put(b, '\\', 2 * bs)) >= 0 ? put(b, '"', 1) : r;
		if (*p == '"') /* before a quote: doubled, plus one for the quote itself */
			r = put(b, '\\', 2 * bs + 1);
		else
			r = put(b, '\\', bs);
		if (r >= 0)
			r = put(b, *p++, 1);
	}
	return r;
}

int cr_win_join_cmdline(char *const *argv, char **ret)
{
	struct buf b = {};
	int r = 0;

	if (!argv || !argv[0] || strchr(argv[0], '"') || !*argv[0])
		return -EINVAL;
	for (size_t i = 0; argv[i]; i++)
		if (!cr_wsl_utf8_valid(argv[i]))
			return -EINVAL;
	/* The program name: no escapes at all, only quotes around it. */
	if (strpbrk(argv[0], " \t"))
		r = put(&b, '"', 1);
	for (const char *p = argv[0]; *p && r >= 0; p++)
		r = put(&b, *p, 1);
	if (r >= 0 && strpbrk(argv[0], " \t"))
		r = put(&b, '"', 1);
	for (size_t i = 1; argv[i] && r >= 0; i++) {
		r = put(&b, ' ', 1);
		if (r >= 0)
			r = quote_arg(&b, argv[i]);
	}
	if (r < 0) {
		free(b.p);
		return r;
	}
	*ret = b.p;
	return 0;
}

static int push(char ***v, size_t *n, struct buf *b)
{
	char **a = reallocarray(*v, *n + 2, sizeof(char *));

	if (!a)
		return -ENOMEM;
	*v = a;
	a[(*n)++] = b->p ? b->p : strdup("");
	a[*n] = NULL;
	*b = (struct buf){};
	return a[*n - 1] ? 0 : -ENOMEM;
}

/* The program name: up to the next quote if it starts with one, else up to blank space. */
static const char *split_program(const char *p, struct buf *b, int *r)
{
	bool quoted = *p == '"';

	if (quoted)
		p++;
	for (; *p && *r >= 0; p++) {
		if (quoted ? *p == '"' : (*p == ' ' || *p == '\t'))
			break;
		*r = put(b, *p, 1);
	}
	if (*r >= 0 && !b->p)
		*r = put(b, 'x', 0); /* an empty name is still an argument */
	return quoted && *p == '"' ? p + 1 : p;
}

int cr_win_split_cmdline(const char *cmdline, char ***ret)
{
	struct buf b = {};
	char **v = NULL;
	size_t n = 0;
	const char *p;
	int r = 0;

	p = split_program(cmdline, &b, &r);
	if (r >= 0)
		r = push(&v, &n, &b);
	while (r >= 0) {
		bool quoted = false, any = false;

		p += strspn(p, " \t");
		if (!*p)
			break;
		for (; *p && r >= 0; p++) {
			size_t bs = strspn(p, "\\");

			if (!quoted && (*p == ' ' || *p == '\t'))
				break;
			any = true;
			if (bs) {
				p += bs;
				if (*p == '"') {
					r = put(&b, '\\', bs / 2);
					if (r >= 0 && bs % 2) {
						r = put(&b, '"', 1);
						continue;
					}
				} else {
					r = put(&b, '\\', bs);
					p--;
					continue;
				}
			}
			if (r < 0)
				break;
			if (*p != '"')
				r = put(&b, *p, 1);
			else if (quoted && p[1] == '"') /* "" inside quotes: a literal quote */
				r = put(&b, '"', 1), p++;
			else
				quoted = !quoted;
		}
		if (any && r >= 0)
			r = push(&v, &n, &b);
	}
	free(b.p);
	if (r < 0) {
		strv_freep(&v);
		return r;
	}
	*ret = v;
	return 0;
}
