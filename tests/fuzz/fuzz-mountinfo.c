/* SPDX-License-Identifier: MIT */
/* launcher/base/mountinfo.c: lines of /proc/self/mountinfo, and paths made printable for a message.
 * Invariants: a line is accepted or refused (-EINVAL); an accepted one gives a mount point that
 * starts with '/' and a non-empty type, both within the line; any mount point and type the
 * kernel would write (escaped: space, tab, newline, backslash as \ooo) parse back to the same
 * bytes; a printable path holds no control character, fits its buffer, and is the path itself
 * when that has none and no backslash. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/base/macro.h"
#include "launcher/base/mountinfo.h"

/* @s escaped as the kernel's mangle() does, into @out (room for 4 bytes per byte and NUL). */
static void kernel_escape(const char *s, char *out)
{
	for (; *s; s++)
		if (strchr(" \t\n\\", *s))
			out += sprintf(out, "\\%03o", (unsigned char)*s);
		else
			*out++ = *s;
	*out = '\0';
}

static void check_printable(const char *s)
{
	char buf[64];
	size_t n;

	cr_mountinfo_printable(s, buf, sizeof(buf));
	n = strlen(buf);
	FUZZ_CHECK(n < sizeof(buf), "too long");
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)buf[i] >= 0x20 && buf[i] != 0x7f, "control character");
	if (strlen(s) < sizeof(buf) && strcspn(s, "\\") == strlen(s)) {
		bool plain = true;

		for (const char *c = s; *c; c++)
			plain &= (unsigned char)*c >= 0x20 && *c != 0x7f;
		FUZZ_CHECK(!plain || strcmp(buf, s) == 0, "'%s' changed to '%s'", s, buf);
	}
}

/* The kernel's line for mount point @mnt and type @type parses back to them. */
static void check_round_trip(const char *mnt, const char *type)
{
	_cleanup_free_ char *line = NULL, *emnt = NULL, *etype = NULL;
	struct cr_mountinfo mi;

	if (mnt[0] != '/' || !type[0])
		return;
	emnt = malloc(4 * strlen(mnt) + 1);
	etype = malloc(4 * strlen(type) + 1);
	if (!emnt || !etype)
		abort();
	kernel_escape(mnt, emnt);
	kernel_escape(type, etype);
	if (asprintf(&line, "42 1 0:5 / %s rw,nosuid shared:1 - %s src rw", emnt, etype) < 0)
		abort();
	FUZZ_CHECK(cr_mountinfo_parse(line, &mi) == 0, "'%s' refused", line);
	FUZZ_CHECK(mi.id == 42 && strcmp(mi.mount_point, mnt) == 0 && strcmp(mi.fstype, type) == 0,
		   "'%s' -> '%s' '%s'", line, mi.mount_point, mi.fstype);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *line = NULL, *copy = NULL;
	struct cr_mountinfo mi;
	const char *type;
	size_t len;
	int r;

	if (size > 8192)
		return 0;
	line = fuzz_strndup(data, size);
	copy = strdup(line);
	if (!copy)
		abort();
	len = strlen(line);
	r = cr_mountinfo_parse(line, &mi);
	FUZZ_CHECK(r == 0 || r == -EINVAL, "%d", r);
	if (r == 0) {
		FUZZ_CHECK(mi.mount_point[0] == '/' && mi.fstype[0], "empty fields");
		FUZZ_CHECK(mi.mount_point > line && mi.mount_point < line + len &&
				   mi.fstype > mi.mount_point && mi.fstype < line + len,
			   "fields outside the line");
	}
	check_printable(copy);
	/* The input as a mount point, its part after the first NUL-free '|' as a type. */
	type = strchr(copy, '|');
	if (type)
		copy[type++ - copy] = '\0';
	check_round_trip(copy, type ? type : "ext4");
	return 0;
}
