/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caches.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "state.h"

/* The sandbox owns its cache's directory (idmapped as root), so it may chmod it: group- or
 * world-writable, it would be refused as every state directory is. Set back to 0700 and said,
 * so that a build's chmod does not lock the cache out of the next run. Only a directory of
 * corral's uid, opened without following a link, in STATE/caches (checked: the user's alone). */
static void restore_mode(int caches_fd, const char *name)
{
	_cleanup_close_ int fd = -EBADF;
	struct stat st;

	fd = openat(caches_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_uid != geteuid() || !(st.st_mode & 022))
		return;
	if (fchmod(fd, 0700) == 0)
		cr_log_warning("cache %s: its directory was writable by group or others (mode %04o, a command's chmod); set back to 0700",
			       name, (unsigned)(st.st_mode & 07777));
}

int cr_caches_attach(struct cr_policy *p, const char *state_dir, char *msg, size_t size)
{
	_cleanup_free_ char *top = NULL;
	_cleanup_close_ int caches_fd = -EBADF;
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
	if (asprintf(&top, "%.*s/caches", (int)len, state_dir) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	caches_fd = cr_state_open_dir(top, strict_from, true, msg, size);
	if (caches_fd < 0)
		return caches_fd;
	for (size_t i = 0; i < p->n_caches; i++) {
		_cleanup_free_ char *path = NULL, *canon = NULL;
		_cleanup_close_ int fd = -EBADF;
		int r;

		if (asprintf(&path, "%.*s/caches/%s", (int)len, state_dir, p->caches[i].name) < 0)
			return cr_msg(msg, size, -ENOMEM, "out of memory");
		restore_mode(caches_fd, p->caches[i].name);
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
