/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "launcher/base/macro.h"

/* Every capability out of the bounding set: PR_CAPBSET_DROP fails with EINVAL past the
 * kernel's last capability, which ends the loop without reading cap_last_cap. */
static int drop_bounding(void)
{
	for (int c = 0;; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			return errno == EINVAL && c > CAP_SETFCAP ? 0 : negative_errno();
}

int cr_caps_drop_all(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
			     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	int r;

	/* Root inside the namespace (--map-root) must not regain capabilities at execve. */
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return negative_errno();
	/* Raw system calls rather than a library that reads /proc/1/status three times: the
	 * bounding set (while CAP_SETPCAP is still held), the ambient set, then effective,
	 * permitted and inheritable all empty. */
	r = drop_bounding();
	if (r < 0)
		return r;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return negative_errno();
	if (syscall(SYS_capset, &h, d) < 0)
		return negative_errno();
	return 0;
}

int cr_caps_set(uint64_t caps, uint64_t inheritable, uint64_t ambient)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};

	/* The bounding set first, while CAP_SETPCAP is still held; past the kernel's last
	 * capability PR_CAPBSET_DROP fails with EINVAL, which ends the loop. */
	for (int c = 0;; c++) {
		if (c < 64 && (caps & (1ull << c)))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0) {
			if (errno == EINVAL && c > CAP_SETFCAP)
				break;
			return negative_errno();
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		return negative_errno();
	for (size_t i = 0; i < ELEMENTSOF(d); i++) {
		d[i].effective = d[i].permitted = (uint32_t)(caps >> (32 * i));
		d[i].inheritable = (uint32_t)(inheritable >> (32 * i));
	}
	if (syscall(SYS_capset, &h, d) < 0)
		return negative_errno();
	/* EINVAL: a capability this kernel does not have */
	for (int c = 0; c < 64; c++)
		if ((ambient & (1ull << c)) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0 && errno != EINVAL)
			return negative_errno();
	return 0;
}

int cr_caps_keep(uint64_t caps, bool inheritable, bool ambient)
{
	return cr_caps_set(caps, inheritable || ambient ? caps : 0, ambient ? caps : 0);
}

int cr_caps_switch_ids(uint32_t uid, uint32_t gid, const uint32_t *groups, size_t n)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = {};
	gid_t g[n + 1];

	for (size_t i = 0; i < n; i++)
		g[i] = groups[i];
	/* the permitted set survives the change of uid; the effective one is set again below */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(n, g) < 0 ||
	    setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0 ||
	    prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		return negative_errno();
	if (syscall(SYS_capget, &h, d) < 0)
		return negative_errno();
	for (size_t i = 0; i < ELEMENTSOF(d); i++)
		d[i].effective = d[i].permitted;
	if (syscall(SYS_capset, &h, d) < 0)
		return negative_errno();
	return 0;
}
