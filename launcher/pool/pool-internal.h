/* SPDX-License-Identifier: MIT */
/* What the two ends of `corral pool` share: the client in `corral run` (pool-client.c) and the
 * pool's process (pool-server.c, pool-keys.c). Not for other modules.
 *
 * One AF_UNIX SOCK_SEQPACKET connection per run; every message is one packet:
 *   client  POOL_HELLO: struct pool_req alone, sent by `corral run` as soon as it connects: the
 *           pool answers with an offer while the client builds its policy.
 *           POOL_TAKEN: struct pool_req with the timeouts: the client sent its command
 *           straight to the offered sandbox's runner (the pool keeps the timeout from now).
 *           POOL_DONE: struct pool_req alone: the client read the command's end (the worker had
 *           emptied its pid namespace before it said so): the used sandbox may wait for an
 *           idle moment to be destroyed. Without it, the end of the connection destroys the
 *           sandbox at once.
 *           POOL_EXEC: struct pool_req, then NUL-terminated strings (corral's version, cwd,
 *           argv, envp) + SCM_RIGHTS [stdin, stdout, stderr]. The command's environment and
 *           working directory are the client's policy's (the gate ran in the client).
 *           POOL_SPEC, after a POOL_MISS that asks for it: struct pool_req, then the client's
 *           directory, its `corral run` arguments and its whole environment, from which the pool
 *           builds the same policy itself (gate included) and, if its fingerprint is the one
 *           the client sent, keeps sandboxes ready for it.
 *           POOL_SIGNAL: struct pool_req with .sig: pass the signal to the command.
 *           POOL_STATUS, POOL_STOP: struct pool_req alone (`corral pool status|stop`).
 *   pool    POOL_OFFER: struct pool_reply with .fp, the policy of the offered sandbox, then its
 *           `enforced` object (JSON text) + SCM_RIGHTS [exec, status] (a ready worker's two
 *           channels, lent: warm ops' lend()) and, where .counters says so, [oom, pids] (its
 *           cgroup's event counter files). A client whose policy has another fingerprint
 *           closes them and sends POOL_EXEC; the offered sandbox is then discarded, as it is
 *           when the connection ends: a sandbox whose channels left the pool is never offered
 *           again. POOL_NO_OFFER: struct pool_reply alone: no ready sandbox.
 *           POOL_TIMEOUT: struct pool_reply alone: the timeout was reached, the command is
 *           being stopped (sent before the signal, so before its end).
 *   pool    POOL_MISS: struct pool_reply, then the reason (text): run cold. .status is 1 when the
 *           pool wants the POOL_SPEC.
 *           POOL_STARTED: struct pool_reply, then the `enforced` object (JSON text): the
 *           command was handed over (the client makes its status's parts meanwhile).
 *           POOL_RESULT: struct pool_reply alone: the command's outcome.
 *           POOL_STATS: struct pool_reply, then the pool's state (JSON text); POOL_MISS, no
 *           text, when it could not be made (out of memory).
 * End of file from the client is SIGKILL for its command; from the pool, before POOL_RESULT, the
 * end of the run (the pool died: its sandboxes died with it).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sha2.h>
#include <stdint.h>
#include <sys/types.h>

struct cr_policy;

#define CR_POOL_PROTO	     3
/* One request, as a warm sandbox's (zygote-internal.h): below the default socket buffer. */
#define CR_POOL_MAX_MSG	     (128 * 1024)
#define CR_POOL_DEFAULT_SIZE 8
#define CR_POOL_MAX_SIZE     32
#define CR_POOL_SOCKET_NAME  "pool.sock"

enum { POOL_EXEC = 1, POOL_SPEC, POOL_SIGNAL, POOL_STATUS, POOL_STOP, POOL_HELLO, POOL_TAKEN,
       POOL_DONE };
enum { POOL_MISS = 1, POOL_RESULT, POOL_STATS, POOL_STARTED, POOL_OFFER, POOL_NO_OFFER,
       POOL_TIMEOUT };

struct pool_req {
	uint32_t type, proto;
	uint8_t fp[32];		/* the policy's fingerprint (cr_pool_fingerprint()) */
	uint64_t timeout_ms, kill_after_ms;
	int32_t sig;		/* POOL_SIGNAL */
	uint32_t n_strings;	/* NUL-terminated strings after the header */
	uint32_t argc;		/* POOL_EXEC: how many of them are argv (the rest: envp) */
};

struct pool_reply {
	uint32_t type;
	int32_t kind, status, err; /* enum cr_outcome_kind, exit code or signal, positive errno */
	uint8_t oom_killed, pids_limit_hit, timed_out, want_spec;
	uint32_t len;		   /* bytes of text after the header */
	uint8_t fp[32];		   /* POOL_OFFER: the offered sandbox's policy */
	uint32_t counters;	   /* POOL_OFFER: the oom and pids files follow the channels */
};

/* SHA-256 over everything of @p that shapes the sandbox (not argv, env, cwd, the timeout and
 * the descriptors, which each command brings): two policies with one fingerprint build the same
 * sandbox. */
void cr_pool_fingerprint(const struct cr_policy *p, uint8_t ret[32]);
/* The fingerprint's pieces, each length-prefixed so that no two sequences hash alike (a NULL
 * string differs from ""); pool-door.c hashes its doors' fields with them too. */
void pool_put_bytes(SHA2_CTX *c, const void *p, size_t n);
void pool_put_str(SHA2_CTX *c, const char *s);
void pool_put_u64(SHA2_CTX *c, uint64_t v);

/* The explicit part of a policy (cr_policy.ex, fs_ops; pool-door.c): its digest, which the
 * fingerprint covers, and why the pool cannot serve it (NULL: it can). */
void pool_door_digest(const struct cr_policy *p, uint8_t ret[32]);
const char *pool_door_unfit(const struct cr_policy *p);

/* Can the pool serve @p at all? NULL if so, else why not (a fixed phrase). The client also
 * runs cold when its stdin is a terminal (job control). */
const char *cr_pool_unfit(const struct cr_policy *p);

/* The pool's socket: $XDG_RUNTIME_DIR/corral/pool.sock, else pool.sock in corral's state
 * directory, from @env. @mkdir: create the directory (0700) if missing. Allocated in @ret. */
int cr_pool_socket_path(char *const *env, bool mkdir, char **ret);

/* Is the pool listening on @fd (connected to @path) this user's? The listener's uid must be
 * ours: a socket another user put at the path (a runtime or state directory shared by mistake,
 * or root running corral with a user's HOME or XDG_RUNTIME_DIR still set) would be handed the
 * command, its environment and its descriptors, and could answer with any outcome. 0, or
 * -EPERM with @why. */
int pool_server_check(int fd, const char *path, char *why, size_t size);

/* The stock from pool.conf (pool-config.c) into @size, left alone when the file or its key is
 * missing. 0, or -errno with "FILE:LINE: reason" in @msg. */
int pool_config_size(char *const *env, unsigned *size, char *msg, size_t msg_size);

/* Pack @n strings after @hdr_size bytes already in @buf (of CR_POOL_MAX_MSG). The total size,
 * or -E2BIG. */
ssize_t pool_pack(char *buf, size_t hdr_size, char *const *strings, size_t n, size_t *off);
/* Split @n strings from @buf (@size bytes, after @hdr_size) into @ret (n + 1 pointers, the last
 * NULL). 0 or -EBADMSG. */
int pool_unpack(char *buf, size_t size, size_t hdr_size, size_t n, char **ret);

