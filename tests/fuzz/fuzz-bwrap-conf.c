/* SPDX-License-Identifier: MIT */
/* launcher/bwrap/bwrap-conf.c: /etc/corral/bwrap.conf. Invariants: the text is read (0) or
 * refused (-EINVAL) with "SOURCE:LINE: reason", the same way twice; a read key has a valid value;
 * written back as "KEY = VALUE" lines and read again, the same settings. */
#include <errno.h>

#include "fuzz-util.h"
#include "launcher/bwrap/bwrap-conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cr_bwrap_conf a, b, c;
	char msg[512] = "", msg2[512] = "", text[128];
	int r, r2, n = 0;

	r = cr_bwrap_conf_parse((const char *)data, size, "F", &a, msg, sizeof(msg));
	r2 = cr_bwrap_conf_parse((const char *)data, size, "F", &b, msg2, sizeof(msg2));
	FUZZ_CHECK(r == r2, "%d then %d", r, r2);
	if (r < 0) {
		FUZZ_CHECK(r == -EINVAL, "%d", r);
		FUZZ_CHECK(strncmp(msg, "F:", 2) == 0, "message '%s'", msg);
		FUZZ_CHECK(strcmp(msg, msg2) == 0, "%s / %s", msg, msg2);
		return 0;
	}
	FUZZ_CHECK(!a.has_mode || strcmp(cr_bwrap_mode_to_string(a.mode), "?") != 0, "mode %d",
		   (int)a.mode);
	FUZZ_CHECK(!a.has_pool || (int)a.pool >= 0, "pool %d", (int)a.pool);
	if (a.has_mode)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "mode = %s\n",
			      cr_bwrap_mode_to_string(a.mode));
	if (a.has_pool)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "pool = %s\n",
			      a.pool == CR_POOL_AUTO	? "auto"
			      : a.pool == CR_POOL_REQUIRE ? "require"
							  : "never");
	r = cr_bwrap_conf_parse(text, (size_t)n, "F", &c, msg, sizeof(msg));
	FUZZ_CHECK(r == 0, "written back: %s", msg);
	FUZZ_CHECK(c.has_mode == a.has_mode && c.has_pool == a.has_pool &&
			   (!a.has_mode || c.mode == a.mode) && (!a.has_pool || c.pool == a.pool),
		   "not the same settings");
	return 0;
}
