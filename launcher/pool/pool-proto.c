/* SPDX-License-Identifier: MIT */
/* What the pool's client and server share: the policy's fingerprint, which policies the pool can
 * serve, where its socket is, and the packing of a message's strings. */
#include <errno.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/policy/policy.h"
#include "launcher/session/state.h"
#include "pool-internal.h"

void pool_put_bytes(SHA2_CTX *c, const void *p, size_t n)
{
	uint64_t len = n;

	SHA256Update(c, (const uint8_t *)&len, sizeof(len));
	SHA256Update(c, p, n);
}

void pool_put_str(SHA2_CTX *c, const char *s)
{
	pool_put_bytes(c, s ?: "\xff", s ? strlen(s) : 1); /* NULL differs from "" */
}

void pool_put_u64(SHA2_CTX *c, uint64_t v)
{
	pool_put_bytes(c, &v, sizeof(v));
}

static void put_ports(SHA2_CTX *c, const struct cr_port_range *r, size_t n)
{
	pool_put_u64(c, r ? n + 1 : 0); /* NULL (not restricted) differs from none */
	for (size_t i = 0; i < n; i++) {
		pool_put_u64(c, r[i].first);
		pool_put_u64(c, r[i].last);
	}
}

void cr_pool_fingerprint(const struct cr_policy *p, uint8_t ret[32])
{
	uint8_t door[32];
	SHA2_CTX c;

	SHA256Init(&c);
	pool_put_str(&c, CR_VERSION);
	pool_put_str(&c, p->workspace);
	pool_put_u64(&c, p->workspace_ro);
	pool_put_str(&c, p->home);
	pool_put_u64(&c, p->n_paths);
	for (size_t i = 0; i < p->n_paths; i++) {
		pool_put_str(&c, p->paths[i].path);
		pool_put_u64(&c, (uint64_t)p->paths[i].access);
	}
	pool_put_u64(&c, p->n_pins);
	for (size_t i = 0; i < p->n_pins; i++)
		pool_put_str(&c, p->pins[i]);
	pool_put_u64(&c, p->n_caches);
	for (size_t i = 0; i < p->n_caches; i++) {
		pool_put_str(&c, p->caches[i].name);
		pool_put_str(&c, p->caches[i].path);
		pool_put_str(&c, p->caches[i].dir);
	}
	pool_put_u64(&c, (uint64_t)p->net);
	pool_put_u64(&c, p->n_allow_hosts);
	for (size_t i = 0; i < p->n_allow_hosts; i++)
		pool_put_str(&c, p->allow_hosts[i]);
	pool_put_u64(&c, (uint64_t)p->landlock);
	pool_put_u64(&c, (uint64_t)p->landlock_min_abi);
	put_ports(&c, p->tcp_connect, p->n_tcp_connect);
	put_ports(&c, p->tcp_bind, p->n_tcp_bind);
	pool_put_u64(&c, p->allow_degraded);
	pool_put_u64(&c, p->map_root);
	pool_put_u64(&c, p->uid);
	pool_put_u64(&c, p->gid);
	pool_put_str(&c, p->hostname);
	pool_put_u64(&c, p->n_secrets);
	pool_put_u64(&c, p->redirect_stdio);
	pool_put_u64(&c, p->n_keep_fds);
	pool_put_u64(&c, (uint64_t)p->seccomp);
	pool_put_str(&c, p->seccomp_profile);
	pool_put_u64(&c, p->no_spawn);
	pool_put_u64(&c, p->ptrace);
	for (int l = 0; l < _CR_LIMIT_MAX; l++) {
		pool_put_u64(&c, p->limits.value[l]);
		pool_put_u64(&c, p->limits.set[l]);
	}
	pool_put_u64(&c, p->limits.required);
	pool_door_digest(p, door);
	pool_put_bytes(&c, door, sizeof(door));
	SHA256Final(ret, &c);
}

const char *cr_pool_unfit(const struct cr_policy *p)
{
	if (p->n_keep_fds)
		return "--keep-fd: the pool passes only the three standard descriptors";
	if (p->n_secrets)
		return "secrets: a pre-built sandbox cannot hold this run's secrets";
	if (p->net == CR_NET_HOSTS)
		return "--allow-host: the proxy belongs to the run that starts it";
	if (p->allow_degraded)
		return "--allow-degraded: degraded mode has no pre-built sandbox";
	return pool_door_unfit(p);
}

int cr_pool_socket_path(char *const *env, bool mkdir, char **ret)
{
	_cleanup_free_ char *dir = NULL;
	const char *run = NULL;
	char msg[256];
	int r;

	for (char *const *e = env; e && *e; e++)
		if (strncmp(*e, "XDG_RUNTIME_DIR=/", 17) == 0)
			run = *e + 16;
	if (run && asprintf(&dir, "%s/corral", run) < 0)
		return -ENOMEM;
	if (!run) {
		r = cr_state_dir(env, &dir);
		if (r < 0)
			return r;
	}
	if (mkdir) {
		r = cr_state_mkdir(dir, msg, sizeof(msg));
		if (r < 0)
			return r;
	}
	if (asprintf(ret, "%s/%s", dir, CR_POOL_SOCKET_NAME) < 0)
		return -ENOMEM;
	return 0;
}

int pool_server_check(int fd, const char *path, char *why, size_t size)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 || len != sizeof(cred))
		return cr_msg(why, size, -EPERM, "cannot tell who listens on %s: %s", path,
			      strerror(errno));
	if (cred.uid != geteuid())
		return cr_msg(why, size, -EPERM,
			      "%s is not this user's pool: uid %u listens on it (not served there)",
			      path, (unsigned)cred.uid);
	return 0;
}

ssize_t pool_pack(char *buf, size_t hdr_size, char *const *strings, size_t n, size_t *off)
{
	size_t o = *off ?: hdr_size;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(strings[i]) + 1;

		if (o + len > CR_POOL_MAX_MSG)
			return -E2BIG;
		memcpy(buf + o, strings[i], len);
		o += len;
	}
	*off = o;
	return (ssize_t)o;
}

int pool_unpack(char *buf, size_t size, size_t hdr_size, size_t n, char **ret)
{
	char *s = buf + hdr_size, *end = buf + size;

	if (size < hdr_size || (size > hdr_size && end[-1] != '\0'))
		return -EBADMSG;
	for (size_t i = 0; i < n; i++) {
		if (s >= end)
			return -EBADMSG;
		ret[i] = s;
		s += strlen(s) + 1;
	}
	ret[n] = NULL;
	return 0;
}

