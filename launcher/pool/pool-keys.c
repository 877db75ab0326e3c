/* SPDX-License-Identifier: MIT */
/* The pool's policies and their sandboxes. A key is one policy, built in the pool from a client's
 * POOL_SPEC exactly as `corral run` builds it (the profile, the options, the gate, corral's own
 * files pinned), and kept only if its fingerprint is the client's: the sandboxes of a key are
 * therefore those a cold run of that policy builds, by the same code (the driver's prepare and
 * spawn, through its warm sandboxes with one worker each). A sandbox serves one command and is
 * destroyed.
 *
 * The builder thread makes and destroys the sandboxes, so that neither is on the socket's path.
 * It lives as long as the pool: each sandbox's pid 1 dies with the thread that started it
 * (PR_SET_PDEATHSIG), and so with the pool. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/mountinfo.h"
#include "launcher/base/path-util.h"
#include "launcher/base/time-util.h"
#include "launcher/policy/anchor.h"
#include "launcher/policy/cli.h"
#include "launcher/policy/policy-build.h"
#include "launcher/session/caches.h"
#include "launcher/session/state.h"
#include "launcher/serve/serve-internal.h"
#include "pool-internal.h"
#include "pool-server.h"

enum { JOB_BUILD = 1, JOB_FREE, JOB_QUIT };

struct job {
	int type;
	struct pool_key *key;
	struct cr_warm *w;
};

struct done {
	struct pool_key *key;
	struct pool_sandbox *sb; /* NULL: the build failed */
	char *enforced;
	struct cr_setup_error err;
};

/* --- the builder thread ------------------------------------------------------------------- */

static void snap_one(const char *path, struct pool_snap *s)
{
	struct stat st;

	if (s->n >= POOL_MAX_SNAP) {
		s->complete = false;
		return;
	}
	if (lstat(path, &st) < 0)
		st = (struct stat){};
	s->id[s->n].dev = st.st_dev;
	s->id[s->n].ino = st.st_ino;
	s->n++;
}

void pool_snap_take(const struct cr_policy *p, struct pool_snap *ret)
{
	if (p->ex.on) {
		pool_door_snap(p, ret);
		return;
	}
	ret->n = 0;
	ret->complete = true;
	snap_one(p->workspace, ret);
	for (size_t i = 0; i < p->n_paths; i++)
		snap_one(p->paths[i].path, ret);
	for (size_t i = 0; i < p->n_pins; i++)
		snap_one(p->pins[i], ret);
	for (size_t i = 0; i < p->n_caches; i++)
		snap_one(p->caches[i].dir, ret);
}

uint64_t pool_mounts_gen(struct pool_state *ps)
{
	struct pollfd p = { .fd = ps->mounts_fd, .events = POLLPRI };
	int r = ps->mounts_fd >= 0 ? poll(&p, 1, 0) : -1;

	/* the kernel reports a change once to each open file: this is the only one that asks */
	if (r != 0)
		__atomic_add_fetch(&ps->mounts_gen, 1, __ATOMIC_RELEASE);
	return ps->mounts_gen;
}

static void fnv(uint64_t *h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		*h = (*h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
}

/* @path resolved as the kernel shows mount points, added to @roots; one that does not resolve
 * has no mount below it. */
static void add_root(char **roots, size_t *n, size_t max, const char *path)
{
	if (path && *n < max && (roots[*n] = realpath(path, NULL)))
		(*n)++;
}

/* @p's paths and the system directories a sandbox binds. */
static size_t digest_roots(const struct cr_policy *p, char **roots, size_t max)
{
	const char *const *sys = cr_driver_native()->system_paths;
	size_t n = 0;

	add_root(roots, &n, max, p->workspace);
	for (size_t i = 0; i < p->n_paths; i++)
		add_root(roots, &n, max, p->paths[i].path);
	for (size_t i = 0; i < p->n_pins; i++)
		add_root(roots, &n, max, p->pins[i]);
	for (size_t i = 0; i < p->n_caches; i++)
		add_root(roots, &n, max, p->caches[i].dir);
	for (size_t i = 0; sys && sys[i]; i++)
		add_root(roots, &n, max, sys[i]);
	return n;
}

int pool_mounts_digest(const struct cr_policy *p, uint64_t *ret)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	char *roots[POOL_MAX_SNAP + 16];
	size_t cap = 0, n_roots = 0;
	uint64_t h = 0xcbf29ce484222325ULL;
	ssize_t len;
	int r = 0;

	if (!f)
		return negative_errno();
	if (!p->ex.on)
		n_roots = digest_roots(p, roots, ELEMENTSOF(roots));
	while ((len = getline(&line, &cap, f)) > 0) {
		uint64_t one = 0xcbf29ce484222325ULL;
		struct cr_mountinfo mi;
		bool in = p->ex.on;

		fnv(&one, line, (size_t)len);
		line[len - 1] = line[len - 1] == '\n' ? '\0' : line[len - 1];
		if (!in && cr_mountinfo_parse(line, &mi) < 0)
			in = true; /* a line it cannot read counts */
		for (size_t i = 0; !in && i < n_roots; i++)
			in = cr_path_is_within(mi.mount_point, roots[i]);
		if (in)
			fnv(&h, (const char *)&one, sizeof(one));
	}
	if (ferror(f))
		r = -EIO;
	for (size_t i = 0; i < n_roots; i++)
		free(roots[i]);
	*ret = h;
	return r;
}

static char *report_text(const struct cr_warm *w)
{
	json_object *o = json_object_new_object();
	char *text = NULL;

	if (o && cr_driver_native()->warm->report(w, o) >= 0)
		text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return text;
}

static void send_done(struct pool_state *ps, const struct done *d)
{
	/* A pipe write of fewer than PIPE_BUF bytes is whole. */
	(void)!write(ps->done[1], d, sizeof(*d));
}

static void build_one(struct pool_state *ps, struct pool_key *k)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	struct done d = { .key = k };
	struct pool_sandbox *sb = calloc(1, sizeof(*sb));

	if (!sb) {
		d.err.err = ENOMEM;
		send_done(ps, &d);
		return;
	}
	/* Before the build: a path replaced or a mount changed meanwhile shows as a change when
	 * it is taken. */
	sb->snap.mounts = __atomic_load_n(&ps->mounts_gen, __ATOMIC_ACQUIRE);
	pool_snap_take(&k->policy, &sb->snap);
	if (pool_mounts_digest(&k->policy, &sb->snap.mounts_digest) < 0)
		sb->snap.complete = false; /* stale at its first change */
	if (ops->start(&k->policy, 1, &sb->w, &d.err) >= 0) {
		uint64_t oom, pids;

		d.sb = sb;
		d.enforced = report_text(sb->w);
		/* Opens the cgroup's event files here, once: the result reads them again, but no
		 * longer opens them on the request's path. */
		ops->events(sb->w, &oom, &pids);
	} else
		free(sb);
	send_done(ps, &d);
}

static void *builder_main(void *arg)
{
	struct pool_state *ps = arg;
	struct job j;

	for (;;) {
		ssize_t n = read(ps->job[0], &j, sizeof(j));

		if (n < 0 && errno == EINTR)
			continue;
		if (n != sizeof(j) || j.type == JOB_QUIT)
			return NULL;
		if (j.type == JOB_BUILD)
			build_one(ps, j.key);
		else if (j.type == JOB_FREE)
			(void)cr_driver_native()->warm->free(j.w);
	}
}

static void send_job(struct pool_state *ps, const struct job *j)
{
	(void)!write(ps->job[1], j, sizeof(*j));
}

int pool_builder_start(struct pool_state *ps)
{
	int r;

	if (pipe2(ps->job, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(ps->done, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	r = pthread_create(&ps->builder, NULL, builder_main, ps);
	if (r > 0)
		return -r;
	ps->builder_started = true;
	return 0;
}

void pool_builder_stop(struct pool_state *ps)
{
	struct job j = { .type = JOB_QUIT };

	pool_flush_spent(ps);
	for (size_t i = 0; i < POOL_MAX_KEYS; i++)
		for (struct pool_sandbox *sb = ps->keys[i].ready; sb; sb = sb->next) {
			struct job f = { .type = JOB_FREE, .w = sb->w };

			send_job(ps, &f);
		}
	if (!ps->builder_started)
		return;
	send_job(ps, &j);
	(void)pthread_join(ps->builder, NULL);
	ps->builder_started = false;
}

void pool_park(struct pool_state *ps, struct pool_sandbox *sb)
{
	sb->next = ps->spent;
	ps->spent = sb;
	if (++ps->n_spent > POOL_MAX_SPENT)
		pool_flush_spent(ps);
}

void pool_flush_spent(struct pool_state *ps)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	struct pool_sandbox *sb;

	while ((sb = ps->spent)) {
		ps->spent = sb->next;
		/* pid 1 first: its worker's exit would let the zygote make another one */
		(void)kill(ops->pid(sb->w), SIGKILL);
		sb->e = ops->exec_free(sb->e);
		pool_discard(ps, sb);
	}
	ps->n_spent = 0;
}

void pool_discard(struct pool_state *ps, struct pool_sandbox *sb)
{
	struct job j = { .type = JOB_FREE, .w = sb->w };

	if (sb->w)
		send_job(ps, &j);
	free(sb);
}

void pool_refill(struct pool_state *ps, struct pool_key *k)
{
	struct job j = { .type = JOB_BUILD, .key = k };
	unsigned want = (ps->running + ps->lent) && ps->size > 2 ? 2 : ps->size;

	if (k->used && k->n_building == 0 && k->n_ready < want) {
		k->n_building++;
		send_job(ps, &j);
	}
}

void pool_builder_done(struct pool_state *ps)
{
	struct done d;

	while (read(ps->done[0], &d, sizeof(d)) == sizeof(d)) {
		struct pool_key *k = d.key;

		k->n_building--;
		if (!k->used && k->n_building == 0)
			pool_key_drop(ps, k); /* dropped meanwhile: free the rest now */
		if (!d.sb) {
			ps->build_failed++;
			cr_log_warning("pool: a sandbox could not be built (stage %s): %s",
				       d.err.stage[0] ? d.err.stage : "prepare", d.err.message);
			continue;
		}
		ps->built++;
		if (!k->enforced)
			k->enforced = TAKE_PTR(d.enforced);
		free(d.enforced);
		if (!k->used) { /* dropped meanwhile */
			pool_discard(ps, d.sb);
			continue;
		}
		d.sb->next = k->ready;
		k->ready = d.sb;
		k->n_ready++;
		pool_refill(ps, k); /* the next one, if the stock or the load wants it */
	}
}

/* --- the keys ------------------------------------------------------------------------------- */

struct pool_key *pool_key_find(struct pool_state *ps, const uint8_t fp[32])
{
	for (size_t i = 0; i < POOL_MAX_KEYS; i++)
		if (ps->keys[i].used && memcmp(ps->keys[i].fp, fp, 32) == 0)
			return &ps->keys[i];
	return NULL;
}

struct pool_key *pool_key_recent(struct pool_state *ps)
{
	struct pool_key *best = NULL;

	for (size_t i = 0; i < POOL_MAX_KEYS; i++) {
		struct pool_key *k = &ps->keys[i];

		if (k->used && k->n_ready && (!best || k->last_used_ms > best->last_used_ms))
			best = k;
	}
	return best;
}

void pool_key_drop(struct pool_state *ps, struct pool_key *k)
{
	struct pool_sandbox *sb;

	while ((sb = k->ready)) {
		k->ready = sb->next;
		pool_discard(ps, sb);
	}
	k->n_ready = 0;
	k->used = false;
	if (k->n_building)
		return; /* the builder still reads the policy: freed when the key is reused */
	cr_policy_done(&k->policy);
	if (k->gate_open)
		cr_gate_done(&k->gate);
	k->gate_open = false;
	cr_run_options_done(&k->opts);
	free(k->enforced);
	free(k->args);
	free(k->spec);
	*k = (struct pool_key){};
}

/* A free slot: an unused one, or the least recently used whose builds are over. */
static struct pool_key *key_slot(struct pool_state *ps)
{
	struct pool_key *best = NULL;

	for (size_t i = 0; i < POOL_MAX_KEYS; i++) {
		struct pool_key *k = &ps->keys[i];

		if (k->n_building)
			continue;
		if (!k->used && !k->spec)
			return k;
		if (!best || k->last_used_ms < best->last_used_ms)
			best = k;
	}
	if (best) {
		pool_key_drop(ps, best);
		pool_key_drop(ps, best); /* now that nothing is being built: the rest */
	}
	return best;
}

/* corral's own files out of reach, and the caches attached, as `corral run` does
 * (guard_own_files()). */
static int guard(struct pool_key *k, char *const *env, char *msg, size_t size)
{
	_cleanup_free_ char *state = NULL;
	struct cr_anchor_sources src = {
		.dirs = &k->gate.dirs,
		.profile = k->opts.profile,
		.seccomp_profile = k->opts.seccomp_profile,
		.state_dir = k->gate.state_dir,
		.audit_path = k->gate.audit_path,
		.env = env,
	};
	struct cr_anchors anchors = {};
	int r;

	if (!k->gate.state_dir && cr_state_dir(env, &state) == 0)
		src.state_dir = state;
	r = cr_anchors_collect(&src, &anchors);
	if (r < 0)
		return cr_msg(msg, size, r, "out of memory");
	r = cr_policy_guard(&k->policy, &anchors,
			    k->gate.have_session ? k->gate.session.workspace : NULL, msg, size);
	cr_anchors_done(&anchors);
	/* and each cache's own directory, as `corral run` makes it: without it a policy with
	 * caches cannot be built here */
	if (r >= 0)
		r = cr_caches_attach(&k->policy, src.state_dir, msg, size);
	return r;
}

/* The policy of @k from its options, as run.c's build() makes it. */
static int key_build(struct pool_key *k, char *const *env, char *msg, size_t size)
{
	struct cr_policy_input in = {
		.opts = &k->opts,
		.system_paths = cr_driver_native()->system_paths,
		.host_env = env,
		.is_root = geteuid() == 0,
	};
	int r;

	r = cr_gate_open(&k->gate, &k->opts, env, msg, size);
	k->gate_open = true;
	if (r < 0)
		return r;
	in.profile = &k->gate.profile;
	in.session_workspace = k->gate.have_session && !k->opts.workspace
				       ? k->gate.session.workspace
				       : NULL;
	r = cr_policy_build_from(&in, &k->policy, &k->gate.request, &k->gate.baseline, msg, size);
	if (r >= 0)
		r = guard(k, env, msg, size);
	if (r >= 0)
		r = cr_gate_decide(&k->gate, &k->opts, msg, size);
	if (r >= 0 && k->gate.decision == CR_DECISION_DENIED)
		r = cr_msg(msg, size, -EPERM, "the gate denies this policy");
	return r;
}

static int key_fill(struct pool_state *ps, struct pool_key *k, const struct pool_req *h,
		    char *why, size_t size)
{
	char **env, *cwd;
	const char *unfit;
	uint8_t fp[32];
	int r;

	k->args = calloc((size_t)h->n_strings + 2, sizeof(char *));
	if (!k->args)
		return cr_msg(why, size, -ENOMEM, "out of memory");
	r = pool_unpack(k->spec, k->spec_size, sizeof(*h), h->n_strings, k->args);
	if (r < 0 || h->argc < 1 || h->argc >= h->n_strings)
		return cr_msg(why, size, -EBADMSG, "malformed spec");
	cwd = k->args[0];
	/* argv NULL-terminated, then the environment: shift the environment one up */
	memmove(k->args + h->argc + 2, k->args + h->argc + 1,
		(h->n_strings - h->argc) * sizeof(char *));
	k->args[h->argc + 1] = NULL;
	env = k->args + h->argc + 2;
	if (chdir(cwd) < 0)
		return cr_msg(why, size, -errno, "cannot enter the client's directory %s: %m", cwd);
	if (pool_door_spec(k->args + 1))
		r = pool_door_build((int)h->argc, k->args + 1, env, &k->policy, why, size);
	else
		r = cr_cli_parse_run((int)h->argc, k->args + 1, &k->opts, why, size);
	if (r >= 0 && !pool_door_spec(k->args + 1))
		r = key_build(k, env, why, size);
	(void)!chdir("/");
	if (r < 0)
		return r;
	cr_pool_fingerprint(&k->policy, fp);
	if (memcmp(fp, h->fp, sizeof(fp)) != 0)
		return cr_msg(why, size, -EAGAIN, "the pool built another policy from these options");
	unfit = cr_pool_unfit(&k->policy);
	if (unfit)
		return cr_msg(why, size, -EAGAIN, "%s", unfit);
	if (cr_serve_policy_shows(&k->policy, cr_driver_native()->system_paths, ps->socket_path))
		return cr_msg(why, size, -EPERM,
			      "the sandbox would see the pool's socket %s", ps->socket_path);
	memcpy(k->fp, fp, sizeof(fp));
	return 0;
}

int pool_key_add(struct pool_state *ps, char *msg, size_t msg_size, char *why, size_t size)
{
	struct pool_req h;
	struct pool_key *k;
	int r;

	memcpy(&h, msg, sizeof(h));
	if (pool_key_find(ps, h.fp)) {
		free(msg);
		return 0;
	}
	k = key_slot(ps);
	if (!k) {
		free(msg);
		return cr_msg(why, size, -EBUSY, "every slot of the pool is being built");
	}
	k->spec = msg;
	k->spec_size = msg_size;
	r = key_fill(ps, k, &h, why, size);
	k->used = true;
	k->last_used_ms = cr_now_ms();
	if (r < 0) {
		pool_key_drop(ps, k);
		return r;
	}
	pool_refill(ps, k);
	return 0;
}

/* Whether @sb still shows the mounts it copied: the same generation of the host's mount table,
 * or, after a change, the same lines of the mounts under @k's paths (read once per change). */
static bool mounts_same(struct pool_key *k, const struct pool_sandbox *sb, uint64_t gen)
{
	if (gen == sb->snap.mounts)
		return true;
	if (k->digest_gen != gen) {
		if (pool_mounts_digest(&k->policy, &k->digest) < 0)
			return false;
		k->digest_gen = gen;
	}
	return k->digest == sb->snap.mounts_digest;
}

struct pool_sandbox *pool_key_take(struct pool_state *ps, struct pool_key *k, char *why,
				   size_t size)
{
	const struct cr_warm_ops *ops = cr_driver_native()->warm;
	struct pool_sandbox *sb;
	struct pool_snap now;

	k->last_used_ms = cr_now_ms();
	while ((sb = k->ready)) {
		k->ready = sb->next;
		k->n_ready--;
		/* ZY_READY read, or the sandbox gone (-EPIPE): another one */
		if (ops->handle(sb->w) < 0 || ops->ready(sb->w) == 0) {
			pool_discard(ps, sb);
			continue;
		}
		pool_snap_take(&k->policy, &now);
		now.mounts = pool_mounts_gen(ps);
		if (now.complete && sb->snap.complete && mounts_same(k, sb, now.mounts) &&
		    now.n == sb->snap.n &&
		    memcmp(now.id, sb->snap.id, now.n * sizeof(now.id[0])) == 0)
			return sb;
		/* A path of the policy was replaced, or a mount made or removed, since: the binds
		 * show the old ones. */
		pool_discard(ps, sb);
		(void)cr_msg(why, size, -ESTALE,
			     "a path of the policy changed since the sandboxes were built");
		while ((sb = k->ready)) {
			k->ready = sb->next;
			pool_discard(ps, sb);
		}
		k->n_ready = 0;
		return NULL;
	}
	(void)cr_msg(why, size, -EAGAIN, "no pre-built sandbox is ready (%u being built)",
		     k->n_building);
	return NULL;
}
