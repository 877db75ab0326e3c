/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caches.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "state.h"

int cr_caches_attach(struct cr_policy *p, const char *state_dir, char *msg, size_t size)
{
	size_t len, strict_from = 0;

	if (p->n_caches == 0)
		return 0;
	if (!state_dir)
		return cr_msg(msg, size, -ENOENT,
			      "cache %s: corral has no state directory to keep it in ('corral doctor' says why; set XDG_STATE_HOME)",
			      p->caches[0].name);
	len = strlen(state_dir);
	while (len > 1 && state_dir[len - 1] == '/')
		len--;
	/* Strict from the state directory's own last component on: it is corral's. */
	for (size_t i = 0; i < len; i++)
		if (state_dir[i] == '/' && i + 1 < len)
			strict_from = i;
	for (size_t i = 0; i < p->n_caches; i++) {
		_cleanup_free_ char *path = NULL, *canon = NULL;
		_cleanup_close_ int fd = -EBADF;
		int r;

		if (asprintf(&path, "%.*s/caches/%s", (int)len, state_dir, p->caches[i].name) < 0)
			return cr_msg(msg, size, -ENOMEM, "out of memory");
		fd = cr_state_open_dir(path, strict_from, true, msg, size);
		if (fd < 0)
			return fd;
		r = cr_fd_path(fd, &canon);
		if (r < 0)
			return cr_msg(msg, size, r, "cannot resolve %s: %s", path, strerror(-r));
		free(p->caches[i].dir);
		p->caches[i].dir = TAKE_PTR(canon);
	}
	return 0;
}
