/* SPDX-License-Identifier: MIT */
/* corral's own annotations (io.corral.*): the keys and the values each takes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotations.h"
#include "launcher/base/macro.h"
#include "launcher/policy/ports.h"

static int check_landlock(const char *value, char *err, size_t size)
{
	if (strcmp(value, "auto") == 0 || strcmp(value, "required") == 0)
		return 0;
	(void)snprintf(err, size, "'%s' is not auto or required", value);
	return -EINVAL;
}

static int check_userns(const char *value, char *err, size_t size)
{
	if (strcmp(value, "auto") == 0 || strcmp(value, "required") == 0 ||
	    strcmp(value, "spec") == 0)
		return 0;
	(void)snprintf(err, size, "'%s' is not auto, required or spec", value);
	return -EINVAL;
}

static int check_ports(const char *value, char *err, size_t size)
{
	_cleanup_free_ struct cr_port_range *ranges = NULL;
	size_t n = 0;
	int r = cr_ports_parse(value, 1, &ranges, &n);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		(void)snprintf(err, size,
			       "'%s' is not a list of ports and FIRST-LAST ranges (1 to 65535), e.g. 443,8000-8100",
			       value);
	return r < 0 ? -EINVAL : 0;
}

/* Only annotations that narrow what a container may do: they may come from whoever writes
 * config.json's annotations (podman --annotation, pod annotations passed on by containerd). */
const struct cr_oci_annotation cr_oci_annotations[] = {
	{ "io.corral.landlock",
	  "auto (default): the Landlock ruleset the kernel supports; required: refuse to start without the whole ruleset",
	  check_landlock },
	{ "io.corral.tcp-connect",
	  "PORTS: TCP may connect only to these ports and FIRST-LAST ranges (Landlock), e.g. 443,8000-8100",
	  check_ports },
	{ "io.corral.userns",
	  "auto (default): as root without a user namespace in config.json, one is added (no host root in the container) where the root can be idmapped, else none, said so; required: added or refused; spec: none (only when the runtime runs with --userns spec)",
	  check_userns },
};
const size_t cr_oci_n_annotations = sizeof(cr_oci_annotations) / sizeof(cr_oci_annotations[0]);

int cr_oci_annotation_check(const char *key, const char *value, char *err, size_t size)
{
	if (strncmp(key, "io.corral.", strlen("io.corral.")) != 0)
		return 0;
	for (size_t i = 0; i < cr_oci_n_annotations; i++)
		if (strcmp(cr_oci_annotations[i].key, key) == 0)
			return cr_oci_annotations[i].check(value, err, size);
	(void)snprintf(err, size, "unknown corral annotation (corral oci features lists them)");
	return -EINVAL;
}
