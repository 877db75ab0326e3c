/* SPDX-License-Identifier: MIT */
/* wsl/cmdline.c: Windows command lines both ways.
 * Invariants: an argument vector that cr_win_join_cmdline() accepts comes back byte for byte from
 * cr_win_split_cmdline(); join refuses exactly what its contract says (argv[0] empty or holding
 * '"', an argument not valid UTF-8); any text splits (argv[0] always present), and a vector split
 * from any text that joins, splits back to itself. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/base/macro.h"
#include "wsl/wsl.h"

#define MAX_ARGS 64

static bool joinable(char *const *v)
{
	if (!v[0][0] || strchr(v[0], '"'))
		return false;
	for (size_t i = 0; v[i]; i++)
		if (!cr_wsl_utf8_valid(v[i]))
			return false;
	return true;
}

/* join(@v) then split: @v again. */
static void round_trip(char *const *v)
{
	_cleanup_strv_ char **back = NULL;
	_cleanup_free_ char *line = NULL;
	int r;

	r = cr_win_join_cmdline(v, &line);
	FUZZ_CHECK((r == 0) == joinable(v), "join returned %d", r);
	if (r < 0)
		return;
	FUZZ_CHECK(cr_win_split_cmdline(line, &back) == 0, "split failed");
	FUZZ_CHECK(fuzz_strv_equal(v, back), "split(join(argv)) differs from argv; line [%s]",
		   line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	_cleanup_free_ char *buf = NULL, *text = NULL;
	_cleanup_free_ char **v = NULL;
	_cleanup_strv_ char **split = NULL;
	size_t n;

	v = fuzz_split(data, size, MAX_ARGS, &buf, &n);
	round_trip(v);

	text = fuzz_strndup(data, size);
	FUZZ_CHECK(cr_win_split_cmdline(text, &split) == 0, "split failed");
	FUZZ_CHECK(split[0] != NULL, "no argv[0]");
	if (joinable(split))
		round_trip(split);
	return 0;
}
