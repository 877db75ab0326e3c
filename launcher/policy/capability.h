/* SPDX-License-Identifier: MIT */
/* Capabilities: what a run may do, as an agent thinks of it (read these paths, write those, reach
 * these hosts, start processes, use this much), ordered as a lattice. A profile gives a session
 * its baseline; a run's request is what its options ask for beyond the profile; a request is
 * allowed when it lies within the baseline joined with the session's grants. Pure and portable
 * (no system call but none): every backend and the tests share it. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "limits.h"

struct json_object;

/* Network, ordered: none < allow_hosts (by subset of hosts) < all. */
enum cr_net_cap {
	CR_NETCAP_NONE,	 /* loopback only */
	CR_NETCAP_HOSTS, /* only the hosts listed, through corral's proxy */
	CR_NETCAP_ALL,	 /* the host's network */
	_CR_NETCAP_MAX,
	_CR_NETCAP_INVALID = -EINVAL,
};

/* Layers a request weakens or turns off, compared with its profile (bits of
 * cr_capability.unconfined; "seccomp", "landlock", "namespaces", "limits", "ptrace" in JSON).
 * Fewer bits is smaller. */
enum {
	CR_UNCONFINED_SECCOMP = 1 << 0,	 /* a filter weaker than the profile's: off, default under
					  * strict, or a --seccomp-profile of one's own */
	CR_UNCONFINED_LANDLOCK = 1 << 1, /* --landlock=off, or best-effort where required */
	CR_UNCONFINED_USERNS = 1 << 2,	 /* --allow-degraded: may run without namespaces */
	CR_UNCONFINED_LIMITS = 1 << 3,	 /* --limits=best-effort where the profile requires them */
	CR_UNCONFINED_PTRACE = 1 << 4,	 /* --ptrace=sandbox where the profile refuses ptrace */
	_CR_UNCONFINED_ALL = (1 << 5) - 1,
};

struct cr_capability {
	char **fs_read; /* canonical absolute paths (directories or files), NULL-terminated */
	size_t n_fs_read;
	char **fs_write; /* canonical absolute paths; writing implies reading */
	size_t n_fs_write;
	enum cr_net_cap net;
	char **hosts; /* with CR_NETCAP_HOSTS: patterns (cr_host_pattern_check()); NULL-terminated */
	size_t n_hosts;
	bool spawn; /* may start processes */
	/* Upper bounds, ordered as numbers: CR_LIMIT_UNSET (0) is the least ("not asked for" in a
	 * request; in a baseline, a request may not ask for it at all) and CR_LIMIT_INFINITY ("max")
	 * the greatest (a baseline without a bound; a request for no limit). */
	uint64_t limit[_CR_LIMIT_MAX];
	/* Like a limit: 0 is "not asked for" (and allows nothing), UINT64_MAX no bound at all. */
	uint64_t timeout_ms;
	unsigned unconfined; /* CR_UNCONFINED_* */
};

/* "none", "allow_hosts", "all"; NULL if out of range. And back; _CR_NETCAP_INVALID if unknown. */
const char *cr_net_cap_to_string(enum cr_net_cap n);
enum cr_net_cap cr_net_cap_from_string(const char *s);

/* Append a copy of @path to the capability's read (or write) list, unless an entry already
 * covers it. @path must be canonical. 0 or -ENOMEM. */
int cr_capability_add_path(struct cr_capability *c, bool write, const char *path);
/* Append a copy of host pattern @host (checked with cr_host_pattern_check()), lower-cased, and
 * raise c->net to at least CR_NETCAP_HOSTS. 0, -EINVAL or -ENOMEM. */
int cr_capability_add_host(struct cr_capability *c, const char *host);

/* Is @req within @base? Monotone in both: fs_read paths each inside (by path component) a read or
 * write path of @base; fs_write inside a write path; net none <= allow_hosts (each host covered)
 * <= all; spawn false <= true; each limit and the timeout <= as numbers (an unset request limit is
 * within anything; "max" only within "max"); unconfined a subset. */
bool cr_capability_is_within(const struct cr_capability *req, const struct cr_capability *base);

/* The least capability that contains both: paths and hosts unioned, the wider network, spawn or-ed,
 * limits and timeout the larger,
 * unconfined or-ed. 0 or -ENOMEM; @ret untouched on failure. */
int cr_capability_join(const struct cr_capability *a, const struct cr_capability *b,
		       struct cr_capability *ret);

/* What of @req lies outside @base: the paths, hosts, network, spawn, limits and layers that
 * make cr_capability_is_within() false, and nothing else (empty when it is true). 0 or -ENOMEM. */
int cr_capability_excess(const struct cr_capability *req, const struct cr_capability *base,
			 struct cr_capability *ret);


/* JSON form, e.g. {"fs_read":[...],"fs_write":[...],"network":"allow_hosts",
 * "allow_hosts":[...],"spawn":true,"limits":{"memory":1073741824,"pids":"max"},
 * "timeout_ms":60000,"unconfined":["seccomp"]}. With @as_request, keys for what is not asked for
 * are left out (empty lists, network none, spawn false, timeout 0, no layers), so a denial's
 * "needs" shows only what is needed. Unset limits are always left out (absent = not allowed). NULL only on allocation failure. */
struct json_object *cr_capability_to_json(const struct cr_capability *c, bool as_request);
/* Parse the JSON form back (a missing key is "not asked for"/empty, as cr_capability_to_json()
 * with @as_request writes it). Validates everything: paths absolute and canonical-looking (no
 * ".", "..", "//", trailing '/', control characters), host patterns, known limit names, values.
 * 0, -EINVAL with a reason in @msg, or -ENOMEM. */
int cr_capability_from_json(struct json_object *o, struct cr_capability *ret, char *msg,
			    size_t size);

/* Free what @c owns and zero it; accepts a zeroed capability. */
void cr_capability_done(struct cr_capability *c);
