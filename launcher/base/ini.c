/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ini.h"
#include "log.h"

int cr_ini_fail_at(struct cr_ini *ini, unsigned line, int err, const char *fmt, ...)
{
	char reason[512];
	va_list ap;

	if (ini->err_line)
		return 0;
	va_start(ap, fmt);
	(void)vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	ini->err_line = line;
	ini->err = err;
	(void)snprintf(ini->msg, ini->msg_size, "%s:%u: %s", ini->source, line, reason);
	return 0; /* inih: an error on this line */
}

/* "[a], [b] or [c]": the known sections, for messages. */
static void expected_sections(const struct cr_ini *ini, char *buf, size_t size)
{
	size_t len = 0, n = 0;

	buf[0] = '\0';
	while (ini->sections[n])
		n++;
	for (size_t i = 0; i < n && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s[%s]",
					i == 0 ? "" : i + 1 < n ? ", " : " or ", ini->sections[i]);
}

static bool section_is_known(const struct cr_ini *ini, const char *s, size_t n)
{
	for (size_t i = 0; ini->sections[i]; i++)
		if (strlen(ini->sections[i]) == n && strncmp(s, ini->sections[i], n) == 0)
			return true;
	return false;
}

/* Blanks at the start of the @len bytes at @s, which need not be NUL-terminated. */
static size_t span_blank(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* A section line: "[NAME]", then nothing but blanks or a comment. inih ignores what follows the
 * ']' and never tells the handler about a section without keys, so it is checked here. */
static void check_section_line(struct cr_ini *ini, const char *s, size_t len)
{
	const char *close = memchr(s, ']', len);
	char expected[256];
	size_t n, end;

	if (!close) {
		(void)cr_ini_fail(ini, "a section line needs its ']'");
		return;
	}
	n = (size_t)(close - s - 1);
	end = (size_t)(close + 1 - s);
	end += span_blank(s + end, len - end);
	if (end < len && !strchr(";#", s[end])) {
		(void)cr_ini_fail(ini, "unexpected text after the section's ']'");
		return;
	}
	if (section_is_known(ini, s + 1, n))
		return;
	expected_sections(ini, expected, sizeof(expected));
	(void)cr_ini_fail(ini, "unknown section [%.*s] (expected %s)", (int)n, s + 1, expected);
}

/* The check of one raw line (without its "\n" and a "\r" before it). Returns false when inih
 * must not see the line. */
static bool check_line(struct cr_ini *ini, const char *s, size_t len)
{
	size_t blank = span_blank(s, len);

	if (memchr(s, '\0', len))
		return cr_ini_fail(ini, "line %u holds a NUL byte", ini->line), false;
	if (len > CR_INI_MAX_LINE)
		return cr_ini_fail(ini, "line %u is longer than %d bytes", ini->line,
				   CR_INI_MAX_LINE),
		       false;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') || s[i] == 0x7f)
			return cr_ini_fail(ini, "line %u holds control character 0x%02x", ini->line,
					   (unsigned char)s[i]),
			       false;
	if (blank == len || strchr(";#", s[blank]))
		return true; /* blank, or a comment */
	if (blank > 0)
		return cr_ini_fail(ini,
				   "the line is indented: inih would read it as the continuation of the key above; remove the indentation"),
		       false;
	if (s[0] == '[')
		check_section_line(ini, s, len);
	return true;
}

/* fgets() over the text in memory, counting lines and checking each before inih sees it. A bad
 * line reaches inih empty. */
static char *reader(char *buf, int size, void *userdata)
{
	struct cr_ini *ini = userdata;
	const char *s = ini->pos, *nl;
	size_t len;

	if (ini->pos >= ini->end)
		return NULL;
	nl = memchr(s, '\n', (size_t)(ini->end - s));
	len = (size_t)((nl ? nl : ini->end) - s);
	ini->pos = nl ? nl + 1 : ini->end;
	ini->line++;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	if (ini->line == 1 && len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		s += 3; /* a UTF-8 byte order mark, which inih also skips */
		len -= 3;
	}
	ini->cur = s;
	if (!check_line(ini, s, len)) {
		len = 0;
	} else if (size < 1 || len > (size_t)size - 1) {
		/* inih's buffer, should the library ever be built with a smaller one */
		(void)cr_ini_fail(ini, "line %u is longer than %d bytes", ini->line,
				  size > 0 ? size - 1 : 0);
		len = 0;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	return buf;
}

static int handler(void *userdata, const char *section, const char *name, const char *value)
{
	struct cr_ini *ini = userdata;
	size_t n = strlen(name);
	char expected[256];

	if (!section[0]) {
		expected_sections(ini, expected, sizeof(expected));
		return cr_ini_fail(ini, "'%s' comes before any section (expected %s)", name,
				   expected);
	}
	if (!section_is_known(ini, section, strlen(section)))
		return cr_ini_fail(ini, "unknown section [%s]", section);
	/* inih also takes "KEY: VALUE"; the format is "KEY = VALUE" only. */
	if (n == 0 || strncmp(ini->cur, name, n) != 0 ||
	    ini->cur[n + strspn(ini->cur + n, " \t")] != '=')
		return cr_ini_fail(ini, "expected KEY = VALUE");
	return ini->on_key(ini, section, name, value);
}

int cr_ini_parse(struct cr_ini *ini, const char *text, size_t size, char *msg, size_t msg_size)
{
	int r;

	ini->pos = text;
	ini->end = text + size;
	ini->line = 0;
	ini->err_line = 0;
	ini->err = 0;
	ini->msg = msg;
	ini->msg_size = msg_size;
	r = ini_parse_stream(reader, ini, handler, ini);
	if (ini->err_line && (r == 0 || r >= (int)ini->err_line))
		return ini->err; /* ours comes first */
	if (r > 0) {
		(void)snprintf(msg, msg_size,
			       "%s:%d: syntax error (expected [SECTION], KEY = VALUE or a comment)",
			       ini->source, r);
		return -EINVAL;
	}
	if (r < 0) {
		cr_debug("ini_parse_stream() returned %d", r);
		(void)snprintf(msg, msg_size, "%s: cannot be parsed: %s", ini->source,
			       r == -2 ? "out of memory" : "inih failed");
		return r == -2 ? -ENOMEM : -EIO;
	}
	return 0;
}
