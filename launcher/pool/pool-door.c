/* SPDX-License-Identifier: MIT */
/* The pool's other door: policies a door describes whole (cr_policy.ex, an explicit filesystem:
 * bwrap's command line), built in the pool by the door's own code, registered by the program
 * (launcher/cmd), since the pool sits below the doors. Their part of the fingerprint, and what a
 * sandbox of theirs was built against (each source's identity), re-checked when it is taken. */
#include <errno.h>
#include <sha2.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/policy/fs-op.h"
#include "launcher/policy/policy.h"
#include "pool-internal.h"
#include "pool-server.h"
#include "pool.h"

static const struct cr_pool_door *door;

void cr_pool_door_register(const struct cr_pool_door *d)
{
	door = d;
}

bool pool_door_spec(char *const *argv)
{
	return door && argv && argv[0] && strcmp(argv[0], door->name) == 0;
}

int pool_door_build(int argc, char **argv, char *const *env, struct cr_policy *ret, char *msg,
		    size_t size)
{
	return door->build(argc, argv, env, ret, msg, size);
}

/* Everything of cr_policy.ex and fs_ops that shapes the sandbox. The descriptors a policy names
 * (a bind's, a file's, --userns...) are its run's own: such a policy is never pooled
 * (pool_door_unfit()), but their presence is in the digest all the same. */
void pool_door_digest(const struct cr_policy *p, uint8_t ret[32])
{
	const struct cr_explicit *ex = &p->ex;
	SHA2_CTX c;

	SHA256Init(&c);
	pool_put_u64(&c, ex->on);
	pool_put_u64(&c, p->n_fs_ops);
	for (size_t i = 0; i < p->n_fs_ops; i++) {
		const struct cr_fs_op *f = &p->fs_ops[i];

		pool_put_u64(&c, (uint64_t)f->kind);
		pool_put_u64(&c, f->flags);
		pool_put_u64(&c, f->mode);
		pool_put_u64(&c, f->size);
		pool_put_str(&c, f->src);
		pool_put_str(&c, f->dst);
		pool_put_str(&c, f->upper);
		pool_put_str(&c, f->work);
		pool_put_u64(&c, f->fd >= 0);
	}
	pool_put_u64(&c, ex->namespaces);
	pool_put_u64(&c, ex->nested_userns);
	pool_put_u64(&c, ex->assert_no_userns);
	pool_put_u64(&c, ex->uid);
	pool_put_u64(&c, ex->gid);
	pool_put_u64(&c, ex->caps);
	pool_put_u64(&c, ex->caps_inheritable);
	pool_put_u64(&c, ex->as_pid_1);
	pool_put_u64(&c, ex->init_dumpable);
	pool_put_u64(&c, ex->new_session);
	pool_put_u64(&c, ex->ctty);
	pool_put_u64(&c, ex->harden_proc);
	pool_put_u64(&c, ex->cwd_fallback);
	pool_put_str(&c, ex->argv0);
	pool_put_u64(&c, ex->n_seccomp_programs);
	for (size_t i = 0; i < ex->n_seccomp_programs; i++)
		pool_put_bytes(&c, ex->seccomp_programs[i].insns, ex->seccomp_programs[i].size);
	pool_put_u64(&c, ex->block_fd >= 0);
	pool_put_u64(&c, ex->ready_fd >= 0);
	pool_put_u64(&c, ex->userns_block_fd >= 0);
	pool_put_u64(&c, ex->userns_fd >= 0);
	pool_put_u64(&c, ex->pidns_fd >= 0);
	pool_put_u64(&c, ex->userns2_fd >= 0);
	pool_put_u64(&c, ex->joins);
	for (char **l = ex->lock_files; l && *l; l++)
		pool_put_str(&c, *l);
	pool_put_str(&c, p->limits.cgroup_path);
	SHA256Final(ret, &c);
}

/* Is @path relative? The kernel resolves it against the directory of the process that opens
 * it: the caller's in a cold run, the pool's (its own, or another client's while a spec is
 * built) in a pre-built sandbox, and the fingerprint holds the text alone. */
static bool relative(const char *path)
{
	return path && path[0] != '/';
}

/* An overlay's lowers, '\n'-joined: is one of them relative? */
static bool lowers_relative(const char *s)
{
	while (s && *s) {
		if (*s != '/')
			return true;
		s += strcspn(s, "\n");
		s += *s == '\n';
	}
	return false;
}

static bool source_relative(const struct cr_fs_op *f)
{
	if (f->kind == CR_FS_BIND)
		return relative(f->src);
	if (f->kind == CR_FS_OVERLAY)
		return lowers_relative(f->src) || relative(f->upper) || relative(f->work);
	return false;
}

const char *pool_door_unfit(const struct cr_policy *p)
{
	const struct cr_explicit *ex = &p->ex;

	if (!ex->on)
		return NULL;
	for (size_t i = 0; i < p->n_fs_ops; i++)
		if (p->fs_ops[i].fd >= 0)
			return "a bind or file from a descriptor belongs to its run";
	if (ex->n_seccomp_programs)
		return "a seccomp program from a descriptor belongs to its run";
	if (ex->block_fd >= 0 || ex->ready_fd >= 0 || ex->userns_block_fd >= 0 ||
	    ex->userns_fd >= 0 || ex->pidns_fd >= 0 || ex->userns2_fd >= 0 || ex->joins ||
	    ex->join_mnt)
		return "a namespace or descriptor of the caller's belongs to its run";
	if (ex->lock_files)
		return "a lock file is held by the run's own init";
	if (ex->as_pid_1)
		return "the command as pid 1: a pre-built sandbox's pid 1 is its own";
	if (ex->caps)
		return "capabilities kept: a pre-built sandbox's command has none";
	if (!ex->new_session || ex->ctty)
		return "the caller's session: a pre-built sandbox is in the pool's";
	if (ex->argv0)
		return "another argv[0]: a pre-built sandbox runs argv as given";
	if (ex->assert_no_userns)
		return "an assertion checked when the sandbox is built";
	for (size_t i = 0; i < p->n_fs_ops; i++) {
		const struct cr_fs_op *f = &p->fs_ops[i];

		if (f->kind == CR_FS_PROC && strcmp(f->dst, "/proc") != 0)
			return "a procfs elsewhere than /proc: a pooled sandbox remounts /proc only";
		if (f->kind == CR_FS_OVERLAY && f->upper)
			return "an overlay's upper directory: one sandbox at a time may mount it";
		if (source_relative(f))
			return "a relative source path: it names a file of the caller's directory, "
			       "which a pre-built sandbox was not built from";
	}
	return NULL;
}

/* What a host path is now: its device and inode, zero when it does not exist (a --*-try source
 * skipped at the build shows as one that appeared since). Followed, as a bind follows it. */
static void snap_path(const char *path, struct pool_snap *s)
{
	struct stat st;

	if (s->n >= POOL_MAX_SNAP) {
		s->complete = false;
		return;
	}
	if (!path || stat(path, &st) < 0)
		st = (struct stat){};
	s->id[s->n].dev = st.st_dev;
	s->id[s->n].ino = st.st_ino;
	s->n++;
}

void pool_door_snap(const struct cr_policy *p, struct pool_snap *ret)
{
	ret->n = 0;
	ret->complete = true;
	for (size_t i = 0; i < p->n_fs_ops; i++) {
		const struct cr_fs_op *f = &p->fs_ops[i];

		if (f->kind == CR_FS_BIND)
			snap_path(f->src, ret);
		else if (f->kind == CR_FS_OVERLAY) {
			/* the lowers are '\n'-joined: each one */
			const char *s = f->src;

			while (s && *s) {
				char one[4096];
				size_t n = strcspn(s, "\n");

				if (n < sizeof(one)) {
					memcpy(one, s, n);
					one[n] = '\0';
					snap_path(one, ret);
				} else
					ret->complete = false;
				s += n + (s[n] == '\n');
			}
			snap_path(f->upper, ret);
			snap_path(f->work, ret);
		}
	}
}
