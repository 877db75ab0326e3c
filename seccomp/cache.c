/* SPDX-License-Identifier: MIT */
/* The cache of compiled user profiles: one file per key (a SHA-256 of the profile's content,
 * corral's version, the architecture and libseccomp's version) under
 * $XDG_CACHE_HOME/corral/seccomp, or ~/.cache/corral/seccomp. A file is a header (magic, the
 * instruction count, the SHA-256 of the instructions, the key) and the instructions. It is
 * written whole under a temporary name (O_TMPFILE where the filesystem has it) and renamed into
 * place, and checked on every read: size, key and digest. The directory and the file must belong
 * to corral's user and be writable by nobody else; anything else is a miss. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/base/fd-util.h"
#include "launcher/base/hex.h"
#include "launcher/base/macro.h"
#include "seccomp-internal.h"

#define MAGIC "CRSCBPF\001"

struct header {
	char magic[8];
	uint32_t n_insns;
	uint32_t zero;
	uint8_t digest[32]; /* of the instructions */
	uint8_t key[32];
};

void cr_sc_sha256(const void *data, size_t size, uint8_t ret[32])
{
	SHA2_CTX ctx;

	SHA256Init(&ctx);
	SHA256Update(&ctx, data, size);
	SHA256Final(ret, &ctx);
}

int cr_sc_cache_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	/* The XDG spec: a relative value is invalid and ignored. */
	if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/corral/seccomp", xdg);
	else if (home && home[0] == '/')
		n = snprintf(buf, size, "%s/.cache/corral/seccomp", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* Owned by us and writable by no one else: nobody else can have placed a program there. */
static int check_owner(int fd, bool dir)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return -EBADFD;
	if (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
		return -EPERM;
	return 0;
}

static int open_dir(const char *dir, bool create)
{
	_cleanup_close_ int fd = -EBADF;
	char path[PATH_MAX];
	int r;

	if (create) {
		/* mkdir -p, 0700 for what we make. */
		(void)snprintf(path, sizeof(path), "%s", dir);
		for (char *s = strchr(path + 1, '/');; s = strchr(s + 1, '/')) {
			if (s)
				*s = '\0';
			if (mkdir(path, 0700) < 0 && errno != EEXIST)
				return negative_errno();
			if (!s)
				break;
			*s = '/';
		}
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = check_owner(fd, true);
	if (r < 0)
		return r;
	return TAKE_FD(fd);
}

static void entry_name(const uint8_t key[32], char *buf)
{
	cr_hex(key, 32, buf);
	strcat(buf, ".bpf");
}

static int verify(const uint8_t *data, size_t size, const uint8_t key[32], struct cr_bpf *ret)
{
	const struct header *h = (const struct header *)data;
	uint8_t digest[32];
	struct sock_filter *insns;

	if (size < sizeof(*h) || memcmp(h->magic, MAGIC, 8) != 0 || h->zero != 0)
		return -EBADMSG;
	if (h->n_insns == 0 || h->n_insns > BPF_MAXINSNS ||
	    size != sizeof(*h) + h->n_insns * sizeof(struct sock_filter))
		return -EBADMSG;
	if (memcmp(h->key, key, 32) != 0)
		return -EBADMSG;
	cr_sc_sha256(data + sizeof(*h), size - sizeof(*h), digest);
	if (memcmp(digest, h->digest, 32) != 0)
		return -EBADMSG;
	insns = malloc(size - sizeof(*h));
	if (!insns)
		return -ENOMEM;
	memcpy(insns, data + sizeof(*h), size - sizeof(*h));
	*ret = (struct cr_bpf){ insns, h->n_insns };
	return 0;
}

int cr_sc_cache_load(const char *dir, const uint8_t key[32], struct cr_bpf *ret)
{
	_cleanup_close_ int dfd = -EBADF, fd = -EBADF;
	_cleanup_free_ uint8_t *data = NULL;
	char name[70];
	struct stat st;
	ssize_t n;
	int r;

	dfd = open_dir(dir, false);
	if (dfd < 0)
		return dfd == -ENOENT ? -ENOENT : dfd;
	entry_name(key, name);
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	r = check_owner(fd, false);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size < (off_t)sizeof(struct header) ||
	    st.st_size > (off_t)(sizeof(struct header) + BPF_MAXINSNS * sizeof(struct sock_filter)))
		return -EBADMSG;
	data = malloc((size_t)st.st_size);
	if (!data)
		return -ENOMEM;
	n = pread(fd, data, (size_t)st.st_size, 0);
	if (n < 0)
		return negative_errno();
	return verify(data, (size_t)n, key, ret);
}

/* A file with @data under the name @tmp in @dfd: made anonymously (O_TMPFILE), written, then
 * linked, so no partial file ever has a name; or, where O_TMPFILE is missing, created there. */
static int write_tmp(int dfd, const char *tmp, const void *data, size_t size)
{
	_cleanup_close_ int fd = -EBADF;
	char proc[64];
	int r;

	(void)unlinkat(dfd, tmp, 0); /* left by a process of the same pid that died */
	fd = openat(dfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	if (fd >= 0) {
		r = cr_write_all(fd, data, size);
		if (r < 0)
			return r;
		(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		if (linkat(AT_FDCWD, proc, dfd, tmp, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		closep(&fd);
	}
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return negative_errno();
	r = cr_write_all(fd, data, size);
	if (r < 0)
		(void)unlinkat(dfd, tmp, 0);
	return r;
}

int cr_sc_cache_store(const char *dir, const uint8_t key[32], const struct cr_bpf *bpf)
{
	_cleanup_close_ int dfd = -EBADF;
	_cleanup_free_ uint8_t *data = NULL;
	size_t code = bpf->len * sizeof(struct sock_filter);
	struct header h = { .magic = MAGIC, .n_insns = (uint32_t)bpf->len };
	char name[70], tmp[96];
	int r;

	if (bpf->len == 0 || bpf->len > BPF_MAXINSNS)
		return -EINVAL;
	dfd = open_dir(dir, true);
	if (dfd < 0)
		return dfd;
	memcpy(h.key, key, 32);
	cr_sc_sha256(bpf->insns, code, h.digest);
	data = malloc(sizeof(h) + code);
	if (!data)
		return -ENOMEM;
	memcpy(data, &h, sizeof(h));
	memcpy(data + sizeof(h), bpf->insns, code);
	entry_name(key, name);
	(void)snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	r = write_tmp(dfd, tmp, data, sizeof(h) + code);
	if (r < 0)
		return r;
	if (renameat(dfd, tmp, dfd, name) < 0) {
		r = negative_errno();
		(void)unlinkat(dfd, tmp, 0);
		return r;
	}
	return 0;
}
