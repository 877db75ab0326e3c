/* SPDX-License-Identifier: MIT */
/* The pool's configuration file: pool.conf beside the user's profiles
 * ($XDG_CONFIG_HOME/corral/pool.conf, else ~/.config/corral/pool.conf), read by
 * `corral pool start`. One section, [pool], one key:
 *   size = N   sandboxes kept ready per policy (the stock), 1-CR_POOL_MAX_SIZE
 * A missing file is the defaults; anything else it says that corral cannot take is an error,
 * never skipped. The option --size wins over the file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/base/ini.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/read-file.h"
#include "launcher/policy/profile-find.h"
#include "pool-internal.h"

#define POOL_CONFIG_MAX_SIZE 4096

static int on_key(struct cr_ini *ini, const char *section, const char *name, const char *value)
{
	unsigned *size = ini->userdata;
	uint64_t v;

	(void)section; /* [pool], the only one */
	if (strcmp(name, "size") != 0)
		return cr_ini_fail(ini, "unknown key '%s' (the [pool] section has: size)", name);
	if (cr_parse_uint(value, 1, CR_POOL_MAX_SIZE, &v) < 0)
		return cr_ini_fail(ini, "size = %s: expected a whole number from 1 to %d", value,
				   CR_POOL_MAX_SIZE);
	*size = (unsigned)v;
	return 1;
}

/* The file's path: the profiles' directory's parent, only where it is the caller's own. */
static int config_path(char *const *env, char **ret)
{
	struct cr_profile_dirs d = {};
	const char *slash;
	int r;

	r = cr_profile_dirs_from_env(env, &d);
	if (r < 0)
		return r;
	*ret = NULL;
	slash = d.user_dir ? strrchr(d.user_dir, '/') : NULL;
	if (slash && asprintf(ret, "%.*s/pool.conf", (int)(slash - d.user_dir), d.user_dir) < 0)
		r = -ENOMEM;
	cr_profile_dirs_done(&d);
	return r;
}

int pool_config_size(char *const *env, unsigned *size, char *msg, size_t msg_size)
{
	static const char *const sections[] = { "pool", NULL };
	_cleanup_free_ char *path = NULL, *text = NULL;
	struct cr_ini ini = { .sections = sections, .on_key = on_key, .userdata = size };
	size_t n;
	int r;

	r = config_path(env, &path);
	if (r < 0)
		return cr_msg(msg, msg_size, r, "out of memory");
	if (!path)
		return 0;
	r = cr_read_config_file(path, POOL_CONFIG_MAX_SIZE, &text, &n, msg, msg_size);
	if (r < 0 || !text)
		return r;
	ini.source = path;
	return cr_ini_parse(&ini, text, n, msg, msg_size);
}
