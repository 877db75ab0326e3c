/* SPDX-License-Identifier: MIT */
/* The bwrap door through `corral pool` (launcher/pool/): a run whose sandbox a pool has ready
 * starts in it, as `corral run --pool=auto` does; any other runs cold (corral-bwrap(1), POOL). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "args.h"
#include "bwrap-conf.h"
#include "launcher/outcome.h"
#include "launcher/pool/pool.h"

/* The capabilities of the calling process (its effective set). */
uint64_t cr_bwrap_caller_caps(void);
/* What the mode adds to the parsed policy (hardened) or keeps of bwrap's (compat): the same in
 * the door and in the pool that builds the policy again. */
void cr_bwrap_shape(struct cr_bwrap *b);

/* CORRAL_POOL, else "pool = " of @conf (bwrap.conf's, read by cr_bwrap_conf_read()), else
 * auto. -EINVAL with a message in @msg. */
int cr_bwrap_pool_mode(const struct cr_bwrap_conf *conf, enum cr_pool_mode *ret, char *msg,
		       size_t size);

/* Why this run cannot go through a pool, from what only the door knows (its descriptors, the
 * caller's death, the directory); NULL if it can. The pool adds the policy's own reasons. */
const char *cr_bwrap_unpoolable(const struct cr_bwrap *b);

struct cr_bwrap_pooled {
	const char *via;   /* "pool" or "cold" */
	char note[512];	   /* why it went cold, when a pool runs; why it failed */
};

/* Connect to the pool of @mode, done first thing so that the pool checks its peer while the
 * door parses: the descriptor, or -1 (no pool, or @mode never). */
int cr_bwrap_pool_connect(enum cr_pool_mode mode);

/* Run @b's command in a pool's sandbox (@fd: cr_bwrap_pool_connect()'s, taken over); on a miss
 * the pool builds the same policy from @b's options. 1: it ran there, @o has the outcome; 0:
 * run it cold (ret->note says why, empty when no pool runs); -errno: it failed for good
 * (CORRAL_POOL=require, or the pool died during the run), ret->note says why. */
int cr_bwrap_via_pool(const struct cr_bwrap *b, enum cr_pool_mode mode, int fd,
		      struct cr_outcome *o, struct cr_bwrap_pooled *ret);

/* The pool's side: the policy of a bwrap command line, registered with the pool. */
extern const struct cr_pool_door cr_bwrap_pool_door;
