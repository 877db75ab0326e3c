/* SPDX-License-Identifier: MIT */
/* Root's container without a user namespace (userns.h). The runtime-spec runs it as host root,
 * with the capabilities config.json lists; corral by default adds a user namespace in which the
 * process's ids are an unprivileged host id (65534, as `corral run` gives root's sandboxes), and
 * idmaps the container's root so that the image's files (host root's) are the process's: a
 * breakout, or a write to a host file bound in, meets the rights of nobody. docs/oci.md, "Root
 * without a user namespace", says why this is the default. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher/policy/request.h"
#include "userns.h"

#define ANNOTATION "io.corral.userns"

int cr_oci_userns_parse(const char *value, enum cr_oci_userns *ret)
{
	if (strcmp(value, "auto") == 0)
		*ret = CR_OCI_USERNS_AUTO;
	else if (strcmp(value, "required") == 0)
		*ret = CR_OCI_USERNS_REQUIRED;
	else if (strcmp(value, "spec") == 0)
		*ret = CR_OCI_USERNS_SPEC;
	else
		return -EINVAL;
	return 0;
}

int cr_oci_userns_mode(const char *flag, enum cr_oci_userns *ret, char *err, size_t size)
{
	const char *env = getenv("CORRAL_OCI_USERNS");
	const char *v = flag ? flag : env && env[0] ? env : "auto";

	if (cr_oci_userns_parse(v, ret) < 0) {
		(void)snprintf(err, size, "%s: '%s' is not auto, required or spec",
			       flag ? "--userns" : "CORRAL_OCI_USERNS", v);
		return -EINVAL;
	}
	return 0;
}

int cr_oci_userns_asked(const struct cr_oci_config *c, enum cr_oci_userns mode,
			enum cr_oci_userns *ret, char *err, size_t size)
{
	const char *a = NULL;

	for (size_t i = 0; i < c->annotations.n; i++)
		if (strcmp(c->annotations.keys[i], ANNOTATION) == 0)
			a = c->annotations.values[i];
	*ret = mode;
	if (a && cr_oci_userns_parse(a, ret) < 0)
		return snprintf(err, size, "annotations: %s: '%s' is not auto, required or spec",
				ANNOTATION, a),
		       -EINVAL;
	if (*ret == CR_OCI_USERNS_SPEC && mode != CR_OCI_USERNS_SPEC)
		return snprintf(err, size,
				"annotations: %s: spec (host root in the container) needs the runtime's --userns spec",
				ANNOTATION),
		       -EPERM;
	return 0;
}

bool cr_oci_host_root(void)
{
	unsigned long inside, outside, count;
	FILE *f;
	int n;

	if (getuid() != 0)
		return false;
	f = fopen("/proc/self/uid_map", "re");
	n = f ? fscanf(f, "%lu %lu %lu", &inside, &outside, &count) : 0;
	if (f)
		(void)fclose(f);
	return n == 3 && inside == 0 && outside == 0 && count == 4294967295ul;
}

const char *cr_oci_userns_unfit(const struct cr_oci_config *c, const struct cr_policy *p)
{
	/* a pod's container, joining the pid namespace of another (whose user namespace may be
	 * one corral added): not yet */
	if (p->ex.pidns_fd >= 0)
		return "it joins another container's pid namespace (a pod's)";
	/* supplementary groups need setgroups(), which a user namespace of corral's denies */
	for (size_t i = 0; i < c->process.additional_gids.n; i++)
		if (c->process.additional_gids.v[i] != c->process.gid)
			return "process.user.additionalGids needs setgroups(), which the user namespace corral adds denies";
	/* a node is made with mknod(2), which needs CAP_MKNOD over the host's user namespace */
	if (c->n_devices)
		return "linux.devices: a node is made with mknod(2), which no user namespace may";
	/* a mount namespace joined by path: only its owner (the host's user namespace) may enter it */
	if (p->ex.join_mnt)
		return "a mount namespace joined by path, which only its owner's user namespace may enter";
	/* the host name of a uts namespace joined by path: its owner is the caller's */
	if ((p->ex.joins & CR_NS_UTS) && c->hostname && c->hostname[0])
		return "hostname in a joined uts namespace, which the user namespace corral adds does not own";
	return NULL;
}

int cr_oci_userns_apply(const struct cr_oci_config *c, bool host_root, enum cr_oci_userns mode,
			struct cr_policy *p, char *err, size_t size)
{
	enum cr_oci_userns asked;
	int r = cr_oci_userns_asked(c, mode, &asked, err, size);
	const char *why;

	if (r < 0 || !host_root || (p->ex.namespaces & CR_NS_USER) || p->ex.userns_fd >= 0 ||
	    asked == CR_OCI_USERNS_SPEC)
		return r;
	why = cr_oci_userns_unfit(c, p);
	if (why && asked == CR_OCI_USERNS_REQUIRED)
		return snprintf(err, size, "%s required: %s", ANNOTATION, why), -EOPNOTSUPP;
	if (why)
		return 0;
	p->ex.namespaces |= CR_NS_USER;
	p->ex.idmap_root = true;
	p->ex.host_uid = CR_DEFAULT_SANDBOX_ID;
	p->ex.host_gid = CR_DEFAULT_SANDBOX_ID;
	return 0;
}

void cr_oci_userns_drop(struct cr_policy *p)
{
	p->ex.namespaces &= ~(unsigned)CR_NS_USER;
	p->ex.idmap_root = false;
	p->ex.nested_userns = true; /* as for any container without a user namespace */
	/* built as root, then the process's ids taken, as any root container without a user
	 * namespace (policy.c's late_ids(); no supplementary group: none was asked, above) */
	p->ex.late_ids = true;
	p->ex.late_uid = p->ex.uid;
	p->ex.late_gid = p->ex.gid;
	p->ex.n_groups = 0;
	p->ex.uid = 0;
	p->ex.gid = 0;
	p->ex.host_uid = 0;
	p->ex.host_gid = 0;
}
