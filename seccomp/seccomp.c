/* SPDX-License-Identifier: MIT */
/* A run's syscall filter: which programs, prepared in corral's own process, and their
 * installation in the command's process. The built-in profiles never touch libseccomp here:
 * their BPF was generated at build time (seccomp-programs.c). */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/base/hex.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "seccomp-internal.h"
#include "seccomp.h"

struct cr_seccomp {
	enum cr_seccomp_mode mode;
	char *profile;
	bool spawn;
	bool ptrace; /* the built-in program without @ptrace (--ptrace=sandbox) */
	bool setid; /* the setid program is installed */
	const char *cache;
	struct sock_fprog progs[3]; /* in installation order: the profile's, spawn, setid */
	size_t n_progs;
	struct cr_bpf compiled;	    /* a user profile's program, owned */
	char sha256[65];
};

const struct cr_sc_builtin *cr_sc_builtin_find(const char *profile, const char *arch)
{
	for (size_t i = 0; arch && i < cr_sc_n_builtins; i++)
		if (strcmp(cr_sc_builtins[i].profile, profile) == 0 &&
		    strcmp(cr_sc_builtins[i].arch, arch) == 0)
			return &cr_sc_builtins[i];
	return NULL;
}

size_t cr_seccomp_builtin_syscalls(const char *profile)
{
	const struct cr_sc_builtin *b = cr_sc_builtin_find(profile, CR_SECCOMP_NATIVE_ARCH);

	return b ? b->n_syscalls : 0;
}

static void add_prog(struct cr_seccomp *s, const struct sock_filter *insns, size_t len)
{
	/* The kernel only reads the program. */
	s->progs[s->n_progs++] = (struct sock_fprog){
		.len = (unsigned short)len,
		.filter = (struct sock_filter *)insns,
	};
}

static int add_builtin(struct cr_seccomp *s, const char *profile, char *msg, size_t size)
{
	const struct cr_sc_builtin *b = cr_sc_builtin_find(profile, CR_SECCOMP_NATIVE_ARCH);

	if (!b) {
		(void)snprintf(msg, size,
			       "corral has no built-in seccomp program for this architecture; use --seccomp-profile FILE or --seccomp=off");
		return -EOPNOTSUPP;
	}
	add_prog(s, b->insns, b->len);
	return 0;
}

static int read_profile(const char *path, char **ret, size_t *ret_size, char *msg, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *data = NULL;
	struct stat st;
	ssize_t n;

	int r;

	fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = negative_errno();
		(void)snprintf(msg, size, "--seccomp-profile %s: %s", path, strerror(-r));
		return r;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > CR_SC_PROFILE_MAX_SIZE) {
		(void)snprintf(msg, size, "--seccomp-profile %s: %s", path,
			       S_ISREG(st.st_mode) ? "larger than 1 MiB" : "not a regular file");
		return -EINVAL;
	}
	data = malloc((size_t)st.st_size + 1);
	if (!data)
		return -ENOMEM;
	n = pread(fd, data, (size_t)st.st_size, 0);
	if (n < 0) {
		r = negative_errno();
		(void)snprintf(msg, size, "--seccomp-profile %s: %s", path, strerror(-r));
		return r;
	}
	data[n] = '\0';
	*ret_size = (size_t)n;
	*ret = TAKE_PTR(data);
	return 0;
}

/* The cache key: everything the compiled program depends on. */
static void cache_key(const char *data, size_t size, uint8_t key[32])
{
	SHA2_CTX ctx;
	char prefix[128];
	int n;

	n = snprintf(prefix, sizeof(prefix), "corral-seccomp-cache 1\n%s\n%s\nlibseccomp %s\n",
		     CR_VERSION, CR_SECCOMP_NATIVE_ARCH ?: "native", cr_sc_libseccomp_version());
	SHA256Init(&ctx);
	SHA256Update(&ctx, (const uint8_t *)prefix, (size_t)n);
	SHA256Update(&ctx, (const uint8_t *)data, size);
	SHA256Final(key, &ctx);
}

static int add_profile(struct cr_seccomp *s, const char *path, char *msg, size_t size)
{
	_cleanup_free_ char *data = NULL;
	struct cr_sc_ruleset rs = {};
	char dir[4096];
	uint8_t key[32];
	size_t n = 0;
	int r;

	r = read_profile(path, &data, &n, msg, size);
	if (r < 0)
		return r;
	r = cr_sc_profile_parse(data, n, path, &rs, msg, size);
	if (r < 0)
		return r;
	cache_key(data, n, key);
	if (cr_sc_cache_dir(dir, sizeof(dir)) < 0)
		dir[0] = '\0';
	r = dir[0] ? cr_sc_cache_load(dir, key, &s->compiled) : -ENOENT;
	if (r >= 0) {
		s->cache = "hit";
	} else {
		if (r != -ENOENT)
			cr_debug("seccomp cache: cannot use the entry in %s: %s", dir, strerror(-r));
		s->cache = "miss";
		r = cr_sc_compile(&rs, CR_SECCOMP_NATIVE_ARCH, &s->compiled);
		if (r < 0) {
			(void)snprintf(msg, size, "--seccomp-profile %s: cannot compile it: %s", path,
				       strerror(-r));
			cr_sc_ruleset_done(&rs);
			return r;
		}
		r = dir[0] ? cr_sc_cache_store(dir, key, &s->compiled) : -ENOENT;
		if (r < 0)
			cr_debug("seccomp cache: cannot store the program in %s: %s",
				 dir[0] ? dir : "(no XDG_CACHE_HOME or HOME)", strerror(-r));
	}
	cr_sc_ruleset_done(&rs);
	add_prog(s, s->compiled.insns, s->compiled.len);
	return 0;
}

static void digest(struct cr_seccomp *s)
{
	SHA2_CTX ctx;
	uint8_t d[32];

	SHA256Init(&ctx);
	for (size_t i = 0; i < s->n_progs; i++)
		SHA256Update(&ctx, (const uint8_t *)s->progs[i].filter,
			     s->progs[i].len * sizeof(struct sock_filter));
	SHA256Final(d, &ctx);
	cr_hex(d, sizeof(d), s->sha256);
}

/* The built-in program of @mode, with or without @ptrace. */
static const char *builtin_name(enum cr_seccomp_mode mode, bool ptrace)
{
	if (mode == CR_SECCOMP_DEFAULT)
		return ptrace ? "default-ptrace" : "default";
	if (mode == CR_SECCOMP_BASIC)
		return "basic";
	return ptrace ? "strict-ptrace" : "strict";
}

int cr_seccomp_prepare(enum cr_seccomp_mode mode, const char *profile_path, bool spawn,
		       bool ptrace, struct cr_seccomp **ret, char *msg, size_t size)
{
	struct cr_seccomp *s;
	int r = 0;

	if (ptrace && mode == CR_SECCOMP_PROFILE) {
		(void)snprintf(msg, size,
			       "--ptrace=sandbox cannot be combined with --seccomp-profile: the profile says itself whether ptrace is refused (its @ptrace group)");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct cr_seccomp){ .mode = mode, .spawn = spawn, .ptrace = ptrace, .cache = "none" };
	if (mode == CR_SECCOMP_DEFAULT || mode == CR_SECCOMP_STRICT || mode == CR_SECCOMP_BASIC)
		r = add_builtin(s, builtin_name(mode, ptrace), msg, size);
	else if (mode == CR_SECCOMP_PROFILE)
		r = profile_path ? add_profile(s, profile_path, msg, size) : -EINVAL;
	if (r >= 0 && !spawn)
		r = add_builtin(s, "spawn", msg, size);
	if (r >= 0 && mode != CR_SECCOMP_OFF) {
		s->profile = strdup(mode == CR_SECCOMP_PROFILE ? profile_path
							       : builtin_name(mode, false));
		r = s->profile ? 0 : -ENOMEM;
	}
	if (r >= 0 && s->n_progs > 0 && !cr_seccomp_available()) {
		(void)snprintf(msg, size,
			       "this kernel cannot install seccomp filters (CONFIG_SECCOMP_FILTER); pass --seccomp=off (without --spawn=no) to run without one");
		r = -ENOSYS;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			(void)snprintf(msg, size, "out of memory");
		cr_seccomp_free(s);
		return r;
	}
	digest(s);
	*ret = s;
	return 0;
}

int cr_seccomp_add_setid(struct cr_seccomp *s, char *msg, size_t size)
{
	int r;

	if (s->setid)
		return 0;
	if (!cr_seccomp_available()) {
		(void)snprintf(msg, size,
			       "this kernel cannot install seccomp filters (CONFIG_SECCOMP_FILTER), which an idmapped workspace needs to refuse set-id bits");
		return -ENOSYS;
	}
	r = add_builtin(s, "setid", msg, size);
	if (r < 0)
		return r;
	s->setid = true;
	digest(s);
	return 0;
}

int cr_seccomp_install(const struct cr_seccomp *s)
{
	for (size_t i = 0; s && i < s->n_progs; i++)
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &s->progs[i]) < 0)
			return negative_errno();
	return 0;
}

void cr_seccomp_describe(const struct cr_seccomp *s, struct cr_seccomp_info *ret)
{
	*ret = (struct cr_seccomp_info){
		.mode = cr_seccomp_mode_to_string(s->mode),
		.profile = s->profile,
		.sha256 = s->n_progs ? s->sha256 : NULL,
		.architecture = s->n_progs ? CR_SECCOMP_NATIVE_ARCH : NULL,
		.spawn = s->spawn,
		.ptrace = s->mode == CR_SECCOMP_PROFILE ? "profile"
			  : s->ptrace || s->mode == CR_SECCOMP_OFF ? "sandbox"
								   : "refused",
		.setid = s->setid,
		.cache = s->cache,
		.n_programs = s->n_progs,
	};
}

struct cr_seccomp *cr_seccomp_free(struct cr_seccomp *s)
{
	if (!s)
		return NULL;
	cr_bpf_done(&s->compiled);
	free(s->profile);
	free(s);
	return NULL;
}
