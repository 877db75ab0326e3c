/* SPDX-License-Identifier: MIT */
/* `corral serve`'s stats: per session the pool, the counters, and the memory its warm sandbox
 * costs (the proportional set size of its pid 1 and every descendant, from /proc). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/base/time-util.h"
#include "serve-internal.h"

#define MAX_WALK 4096 /* processes visited per session */

/* Resident set from statm, for processes whose smaps only root may read (not dumpable). */
static uint64_t rss_of(int pid)
{
	char path[64];
	uint64_t size, resident = 0;
	FILE *f;

	(void)snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%" SCNu64 " %" SCNu64, &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static uint64_t pss_of(int pid, bool *ret_rss)
{
	char path[64], line[256];
	uint64_t kb = 0;
	FILE *f;

	(void)snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", pid);
	f = fopen(path, "re");
	if (!f) {
		*ret_rss = true;
		return rss_of(pid);
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Pss: %" SCNu64 " kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* Does @pid share the memory of its parent @ppid: a vfork() child that has not executed yet,
 * as the runner of a ready worker is? Its memory is its parent's, counted once. */
static bool shares_parent_memory(int ppid, int pid)
{
	return ppid > 0 && syscall(SYS_kcmp, ppid, pid, KCMP_VM, 0, 0) == 0;
}

/* Pss of @pid (a child of @ppid, or 0) and its descendants (through
 * /proc/PID/task/TID/children). */
static uint64_t tree_pss(int ppid, int pid, unsigned *budget, bool *ret_rss)
{
	char path[64];
	uint64_t sum;
	DIR *d;
	struct dirent *de;

	if (*budget == 0)
		return 0;
	(*budget)--;
	sum = shares_parent_memory(ppid, pid) ? 0 : pss_of(pid, ret_rss);
	(void)snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return sum;
	while ((de = readdir(d))) {
		char cpath[320];
		FILE *f;
		int child;

		if (de->d_name[0] == '.')
			continue;
		(void)snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children", pid, de->d_name);
		f = fopen(cpath, "re");
		if (!f)
			continue;
		while (fscanf(f, "%d", &child) == 1)
			sum += tree_pss(pid, child, budget, ret_rss);
		fclose(f);
	}
	closedir(d);
	return sum;
}

static json_object *session_stats(struct serve *sv, struct serve_session *s)
{
	json_object *o = json_object_new_object();
	unsigned in_flight = 0, budget = MAX_WALK;
	int pid = s->w ? sv->warm->pid(s->w) : 0;
	bool rss = false;
	uint64_t mem = pid > 0 ? tree_pss(0, pid, &budget, &rss) : 0;
	int r;

	for (struct serve_exec *x = sv->execs; x; x = x->next)
		in_flight += x->session == s;
	r = cr_json_add(o, "id", json_object_new_string(s->id));
	r = r ?: cr_json_add(o, "profile", json_object_new_string(s->profile.name));
	r = r ?: cr_json_add(o, "workspace", json_object_new_string(s->policy.workspace));
	if (pid > 0)
		r = r ?: cr_json_add(o, "pid", json_object_new_int(pid));
	else
		r = r ?: cr_json_add_null(o, "pid");
	r = r ?: cr_json_add(o, "pool_ready",
			     json_object_new_int(s->w ? (int)sv->warm->ready(s->w) : 0));
	r = r ?: cr_json_add(o, "execs_total", json_object_new_int64((int64_t)s->execs_total));
	r = r ?: cr_json_add(o, "execs_in_flight", json_object_new_int((int)in_flight));
	r = r ?: cr_json_add(o, "sandbox_restarts", json_object_new_int((int)s->restarts));
	r = r ?: cr_json_add(o, "memory_pss_bytes", json_object_new_int64((int64_t)mem));
	/* "rss" where smaps is root's to read only (the sandbox's processes are not dumpable) */
	r = r ?: cr_json_add(o, "memory_source", json_object_new_string(rss ? "rss" : "pss"));
	return cr_json_whole(o, r);
}

void serve_stats(struct serve *sv, uint64_t client, struct cr_serve_request *req)
{
	json_object *o = cr_serve_response("stats_result", req->id);
	json_object *list = json_object_new_array();
	int r = list ? 0 : -ENOMEM;

	for (struct serve_session *s = sv->sessions; r == 0 && s; s = s->next)
		r = cr_json_append(list, session_stats(sv, s));
	if (r < 0)
		json_object_put(list);
	r = r ?: cr_json_add(o, "sessions", list);
	r = r ?: cr_json_add(o, "execs_total", json_object_new_int64((int64_t)sv->execs_total));
	r = r ?: cr_json_add(o, "uptime_ms",
			     json_object_new_int64((int64_t)(cr_now_ms_f() - sv->start_ms)));
	r = r ?: cr_json_add(o, "pid", json_object_new_int(getpid()));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(sv->drv->name));
	if (r < 0) {
		json_object_put(o);
		return serve_send_error(sv, client, req->id, "internal", "out of memory");
	}
	serve_send(sv, client, o);
}
