/* SPDX-License-Identifier: MIT */
/* config.json (a struct cr_oci_config) turned into the struct cr_policy the Linux driver
 * enforces, with an explicit filesystem: root.path, mounts[] in order, maskedPaths and
 * readonlyPaths; the namespaces, ids, capabilities and limits; and corral's floor under it all
 * (the built-in seccomp denylist, /proc's kernel knobs read-only, a pids limit). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "bundle.h"
#include "userns.h"
#include "launcher/policy/policy.h"

/* What the caller is, for the checks that depend on it. */
struct cr_oci_caller {
	uint32_t uid, gid;
	enum cr_oci_userns userns; /* the runtime's mode for root without a user namespace */
	bool host_root;		   /* uid 0 of the initial user namespace (cr_oci_host_root()) */
};

/* Fill @ret from @c, whose bundle is the absolute directory @bundle. What config.json asks for
 * and corral cannot do yet fails with -EOPNOTSUPP and @err naming the field ("linux.seccomp: a
 * bundle's own seccomp profile is not translated yet"); -ENOMEM. @ret is filled either way and
 * must be released with cr_policy_done() and strv_free() of its argv. Pure but for stat(2) of
 * host paths (what maskedPaths hide: a directory or a file). */
int cr_oci_policy_build(const struct cr_oci_config *c, const char *bundle,
			const struct cr_oci_caller *caller, struct cr_policy *ret, char *err,
			size_t size);

/* What corral's floor changes of config.json in the policy @p built, said at create and in
 * status.json's oci_not_applied; NULL when nothing: the process put in a nested user namespace
 * because its bounding set keeps CAP_SYS_RESOURCE. */
const char *cr_oci_policy_floor_note(const struct cr_policy *p);
