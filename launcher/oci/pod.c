/* SPDX-License-Identifier: MIT */
/* A pod's namespaces (pod.h). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "container.h"
#include "pod.h"
#include "state.h"

/* The container under @root whose monitor is @pid (started at @start): its process, or 0. */
static pid_t monitor_to_init(const char *root, pid_t pid, uint64_t start)
{
	DIR *d = opendir(root);
	struct dirent *de;
	pid_t init = 0;

	if (!d)
		return 0;
	while (!init && (de = readdir(d))) {
		struct cr_oci_state st;
		char err[256];
		json_object *v;

		if (de->d_name[0] == '.' || cr_oci_state_read(root, de->d_name, &st, err, sizeof(err)) < 0)
			continue;
		if (st.pid == pid && st.pid_start_time == start &&
		    json_object_object_get_ex(st.doc, "init_pid", &v))
			init = (pid_t)json_object_get_int(v);
		cr_oci_state_done(&st);
	}
	(void)closedir(d);
	return init;
}

int oci_pod_resolve(const char *root, struct cr_oci_config *c, char (*buf)[OCI_POD_PATH_MAX],
		    char *err, size_t size)
{
	for (size_t i = 0; i < c->n_namespaces; i++) {
		struct cr_oci_namespace *n = &c->namespaces[i];
		char type[16], tail;
		uint64_t start;
		pid_t pid, init;

		if (!n->path || sscanf(n->path, "/proc/%d/ns/%15[a-z_]%c", &pid, type, &tail) != 2 ||
		    pid <= 0 || !(start = oci_start_time(pid)))
			continue;
		init = monitor_to_init(root, pid, start);
		if (!init)
			continue;
		if (!oci_start_time(init))
			return snprintf(err, size,
					"linux.namespaces[%zu].path: %s names the container whose monitor is %d, and its process is gone",
					i, n->path, (int)pid),
			       -ESRCH;
		(void)snprintf(buf[i], OCI_POD_PATH_MAX, "/proc/%d/ns/%s", (int)init, type);
		n->path = buf[i];
	}
	return 0;
}
