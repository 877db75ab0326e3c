/* SPDX-License-Identifier: MIT */
/* The pool's process: its policies ("keys": one policy, its sandboxes) and the builder thread
 * (pool-keys.c), the socket's loop (pool-server.c). Not for other modules. */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/driver.h"
#include "launcher/policy/policy.h"
#include "launcher/policy/request.h"
#include "launcher/session/gate.h"

#define POOL_MAX_KEYS 4
/* What a sandbox was built against: the host's mount table's generation, and the identity
 * (device, inode) of the workspace, the --ro/--rw/--hide paths, the pins and the caches'
 * directories (a door's: its sources). */
#define POOL_MAX_SNAP 64
#define POOL_MAX_SPENT 64

struct pool_snap {
	uint64_t mounts;	/* pool_mounts_gen() */
	uint64_t mounts_digest; /* pool_mounts_digest(): the mounts it copied */
	size_t n;
	bool complete; /* every path fitted */
	struct {
		dev_t dev;
		ino_t ino;
	} id[POOL_MAX_SNAP];
};

struct pool_sandbox {
	struct cr_warm *w;
	struct cr_exec *e; /* spent: its lent worker, held so that the zygote makes no other */
	struct pool_snap snap;
	struct pool_sandbox *next;
};

struct pool_key {
	bool used;
	uint8_t fp[32];
	char *spec;		/* the POOL_SPEC it was built from: the options point into it */
	size_t spec_size;
	char **args;		/* corral run's arguments, then the environment */
	struct cr_run_options opts;
	struct cr_gate gate;
	bool gate_open;
	struct cr_policy policy; /* the builder reads it: freed only with n_building 0 */
	char *enforced;		 /* the sandboxes' `enforced` object, JSON text */
	struct pool_sandbox *ready;
	unsigned n_ready, n_building;
	uint64_t served;
	int64_t last_used_ms;
	/* pool_mounts_digest() at generation digest_gen (0: none yet): taken once per change */
	uint64_t digest, digest_gen;
};

struct pool_state {
	unsigned size;	  /* sandboxes kept ready per policy (the stock) */
	unsigned running; /* commands running in the pool's sandboxes now */
	unsigned lent;	  /* sandboxes offered to a client that has not said it took them yet */
	char *socket_path;
	struct pool_key keys[POOL_MAX_KEYS];
	struct pool_sandbox *spent; /* used, their commands over: destroyed when the pool is idle */
	unsigned n_spent;
	int job[2], done[2]; /* pipes: to the builder, from it */
	int mounts_fd;	     /* /proc/self/mountinfo, polled for changes; -1: not open */
	uint64_t mounts_gen; /* pool_mounts_gen(); the builder reads it (atomically) */
	pthread_t builder;
	bool builder_started;
	uint64_t served, missed, built, build_failed;
	struct {
		uint8_t fp[32];
		char why[256];
	} unfit[8]; /* policies the pool cannot serve, and why: not built again */
	unsigned n_unfit;
};

/* Start the builder thread (it makes and frees the sandboxes, off the socket's loop). */
int pool_builder_start(struct pool_state *ps);
/* Let it free every sandbox, stop it and wait for it. */
void pool_builder_stop(struct pool_state *ps);
/* Take what the builder finished (done_r is readable). */
void pool_builder_done(struct pool_state *ps);
/* Ask for the next sandbox of @k, if it needs one: one build at a time (the builder's next
 * one is asked for when it ends), up to ps->size ready while no command runs and no offer is
 * out, but only up to two ready while commands run or offers are out (a sustained load keeps
 * the builder busy), so that a burst served from the stock does not share its CPU with the
 * stock's refill. */
void pool_refill(struct pool_state *ps, struct pool_key *k);
/* Keep a used sandbox whose command is over, to destroy when the pool is idle (at most
 * POOL_MAX_SPENT: past that, all at once). */
void pool_park(struct pool_state *ps, struct pool_sandbox *sb);
/* Destroy the parked sandboxes. */
void pool_flush_spent(struct pool_state *ps);
/* Hand a used or stale sandbox to the builder to destroy. */
void pool_discard(struct pool_state *ps, struct pool_sandbox *sb);

/* A door's policies (pool-door.c): is @argv (a spec's arguments) the registered door's, its
 * policy built by the door, and what a sandbox of such a policy was built against. */
bool pool_door_spec(char *const *argv);
int pool_door_build(int argc, char **argv, char *const *env, struct cr_policy *ret, char *msg,
		    size_t size);
void pool_door_snap(const struct cr_policy *p, struct pool_snap *ret);

/* The most recently used key with a sandbox ready, or NULL: what a client is offered. */
struct pool_key *pool_key_recent(struct pool_state *ps);
/* The key with fingerprint @fp, or NULL. */
struct pool_key *pool_key_find(struct pool_state *ps, const uint8_t fp[32]);
/* Build the policy of a POOL_SPEC (@msg, @size bytes; taken over) as `corral run` would, gate
 * included, and keep it as a key if its fingerprint is @fp. 0, or -errno with @why. */
int pool_key_add(struct pool_state *ps, char *msg, size_t size, char *why, size_t why_size);
/* A ready sandbox of @k, checked (alive, built against the same paths), or NULL with @why. */
struct pool_sandbox *pool_key_take(struct pool_state *ps, struct pool_key *k, char *why,
				   size_t size);
/* Everything of @k, its sandboxes discarded. */
void pool_key_drop(struct pool_state *ps, struct pool_key *k);
/* The paths' identities now. */
void pool_snap_take(const struct cr_policy *p, struct pool_snap *ret);
/* The generation of the host's mount table: one more each time poll() on /proc/self/mountinfo
 * (ps->mounts_fd) reports a change since the last look, and at every look without the file.
 * A bind (the workspace, a --ro path, a door's source) copies the mounts below it as they
 * were, so a sandbox built before a mount or an unmount (a volume locked and unmounted, a new
 * one) is stale like one whose path was replaced. The socket's thread only. */
uint64_t pool_mounts_gen(struct pool_state *ps);
/* The lines of the host's mount table that a sandbox of @p copies (FNV-1a): the mounts at or
 * below one of its paths or of the system's directories it binds (a door's: every mount, its
 * sources being any path). A change elsewhere (a container engine's own mounts, a volume of
 * another project) leaves it as it was, so the stock stays. 0, or -errno (no mount table:
 * every change then counts). */
int pool_mounts_digest(const struct cr_policy *p, uint64_t *ret);

/* The pool's loop on @listen_fd until POOL_STOP (pool-server.c). 0 or -errno. */
int pool_serve(int listen_fd, const char *socket_path, unsigned size);
