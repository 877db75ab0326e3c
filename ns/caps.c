/* SPDX-License-Identifier: MIT */
#include <cap-ng.h>
#include <errno.h>
#include <linux/securebits.h>
#include <sys/prctl.h>

#include "caps.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"

int cr_caps_drop_all(void)
{
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
			     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
			     SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	int r;

	/* Root inside the namespace (--map-root) must not regain capabilities at execve. */
	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return negative_errno();
	capng_clear(CAPNG_SELECT_ALL);
	r = capng_apply(CAPNG_SELECT_ALL);
	if (r != 0) {
		cr_debug("capng_apply() returned %d", r);
		return -EPERM;
	}
	return 0;
}

int cr_caps_keep(uint64_t caps, bool inheritable, bool ambient)
{
	capng_type_t sets = CAPNG_EFFECTIVE | CAPNG_PERMITTED | CAPNG_BOUNDING_SET |
			    (inheritable || ambient ? CAPNG_INHERITABLE : 0) |
			    (ambient ? CAPNG_AMBIENT : 0);
	int r;

	capng_clear(CAPNG_SELECT_ALL);
	for (unsigned c = 0; c < 64; c++)
		if ((caps & (1ull << c)) && capng_capability_to_name(c))
			(void)capng_update(CAPNG_ADD, sets, c);
	r = capng_apply(CAPNG_SELECT_ALL);
	if (r != 0) {
		cr_debug("capng_apply() returned %d", r);
		return -EPERM;
	}
	return 0;
}
