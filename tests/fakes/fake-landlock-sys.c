/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake-landlock-sys.h"
#include "landlock/landlock-sys.h"

struct fake_ll fake_ll;

/* A descriptor that stands for the ruleset: a real one, so closing it is harmless. */
static int ruleset_fd(void)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

void fake_ll_reset(int abi)
{
	memset(&fake_ll, 0, sizeof(fake_ll));
	fake_ll.abi = abi;
}

int sys_landlock_create_ruleset(const struct cr_ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
	if (flags == LANDLOCK_CREATE_RULESET_VERSION && !attr && size == 0)
		return fake_ll.abi > 0 ? fake_ll.abi : -EOPNOTSUPP;
	if (flags != 0 || !attr || fake_ll.abi <= 0)
		return -EINVAL;
	fake_ll.n_create++;
	if (fake_ll.fail_create)
		return fake_ll.fail_create;
	memset(&fake_ll.attr, 0, sizeof(fake_ll.attr));
	memcpy(&fake_ll.attr, attr, size < sizeof(*attr) ? size : sizeof(*attr));
	fake_ll.attr_size = size;
	return ruleset_fd();
}

int sys_landlock_add_rule(int ruleset, int type, const void *rule_attr, uint32_t flags)
{
	struct fake_ll_rule *r;
	struct stat st;

	if (ruleset < 0 || flags != 0 || fake_ll.n_rules >= FAKE_LL_MAX_RULES)
		return -EINVAL;
	r = &fake_ll.rules[fake_ll.n_rules];
	*r = (struct fake_ll_rule){.type = type};
	if (type == CR_LL_RULE_PATH_BENEATH) {
		const struct cr_ll_path_beneath_attr *a = rule_attr;

		if (fstat(a->parent_fd, &st) < 0)
			return -EBADF;
		r->access = a->allowed_access;
		r->dev = st.st_dev;
		r->ino = st.st_ino;
		r->is_dir = S_ISDIR(st.st_mode);
		/* As the kernel: rights beyond the handled ones, or beyond a file's, are refused.
		 */
		if ((r->access & ~fake_ll.attr.handled_access_fs) ||
		    (!r->is_dir &&
		     (r->access &
		      ~(uint64_t)(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
				  LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |
				  LANDLOCK_ACCESS_FS_IOCTL_DEV))))
			return -EINVAL;
		if (r->access == 0)
			return -ENOMSG;
	} else if (type == CR_LL_RULE_NET_PORT) {
		const struct cr_ll_net_port_attr *a = rule_attr;

		if (fake_ll.abi < 4 || (a->allowed_access & ~fake_ll.attr.handled_access_net))
			return -EINVAL;
		r->access = a->allowed_access;
		r->port = a->port;
	} else {
		return -EINVAL;
	}
	fake_ll.n_rules++;
	return 0;
}

int sys_landlock_restrict_self(int ruleset, uint32_t flags)
{
	if (ruleset < 0)
		return -EBADF;
	fake_ll.n_restrict++;
	fake_ll.restrict_flags = flags;
	if (fake_ll.abi < 7 && flags != 0)
		return -EINVAL;
	return fake_ll.fail_restrict;
}

const struct fake_ll_rule *fake_ll_rule_for(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return NULL;
	for (size_t i = 0; i < fake_ll.n_rules; i++)
		if (fake_ll.rules[i].type == CR_LL_RULE_PATH_BENEATH &&
		    fake_ll.rules[i].dev == st.st_dev && fake_ll.rules[i].ino == st.st_ino)
			return &fake_ll.rules[i];
	return NULL;
}
