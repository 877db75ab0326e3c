/* SPDX-License-Identifier: MIT */
/* A caller's own cgroup (the OCI door's linux.cgroupsPath: `/libpod_parent/libpod-ID`,
 * `/k8s.io/ID`, or a path relative to the runtime's cgroup): the run goes there, in every
 * hierarchy corral uses, instead of a directory of corral's, so that the engine finds the
 * container's processes, limits and OOM events where it put them. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgroup-internal.h"
#include "launcher/policy/limits.h"

/* Whether the space-separated list @list has the word @word. */
bool cr_cgroup_has_word(const char *list, const char *word);

/* The cgroup2 controllers @files need (space-separated, each once) into @buf, to enable on the
 * way down to the caller's cgroup. */
void cr_cgroup_files_v2_ctls(const struct cr_cgroup_file *files, size_t n, char *buf,
			     size_t size);

/* Whether @path names a cgroup: components that are neither empty, "." nor "..", not the
 * hierarchy's root, no ':' (the systemd form slice:prefix:name, which needs a systemd cgroup
 * manager corral does not have). 0, or -EINVAL with the reason in @err. */
int cr_cgroup_path_check(const char *path, char *err, size_t size);

/* The directory @path names in the hierarchy mounted at @mount where this process sits at @own
 * (relative paths start there), into @buf. 0 or -ENAMETOOLONG. */
int cr_cgroup_path_resolve(const char *mount, const char *own, const char *path, char *buf,
			   size_t size);

/* Make @dir and its missing parents (on cgroup2, @v2, enabling the controllers named in
 * @ctls, space-separated, for each parent's children where the parent offers them), refuse it
 * when a process other than this one is in it (-EBUSY: another container's), and move this
 * process in (its children follow). Returns the open directory, or -errno. */
int cr_cgroup_path_enter(const char *dir, bool v2, const char *ctls);

/* Remove @dir once its processes are gone (rmdir, retried for a second while the kernel
 * empties it; nothing is killed). 0, or -errno (-EBUSY when it is still in use). */
int cr_cgroup_path_remove(const char *dir);

/* The caller's cgroup in every hierarchy corral uses, entered (cr_cgroup_place()). */
struct cr_cgroup_placed {
	int v2_fd;	    /* -EBADF: no cgroup2 hierarchy, or not writable by a user */
	char v2_path[PATH_MAX];
	unsigned v2_ctls; /* bit per enum cr_cgroup_ctl: the controllers the directory has */
	int v1_fd[_CR_CTL_MAX]; /* for the controllers v2 lacks; -EBADF: none */
	char v1_path[_CR_CTL_MAX][PATH_MAX];
};

/* Enter @l's cgroup_path (checked by cr_cgroup_path_check()) in the cgroup2 hierarchy and in
 * the v1 one of each controller cgroup2 does not have, as host @h has them; write its
 * cpu_shares (0: none) and its files (resources.h) there. For a user (not root), a hierarchy it may not write is left out, with the reason in
 * @why (the limits it would hold then fall back as for any run). 0, or -errno with the reason
 * in @msg; on failure nothing is left open. */
int cr_cgroup_place(const struct cr_cgroup_host *h, const struct cr_limits *l,
		    struct cr_cgroup_placed *ret, char why[_CR_CTL_MAX][256], char *msg, size_t size);
