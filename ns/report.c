/* SPDX-License-Identifier: MIT */
/* The "enforced" object of the JSON status for a Linux run. */
#include <errno.h>
#include <json-c/json.h>
#include <sched.h>
#include <string.h>

#include "launcher/base/json-util.h"
#include "cgroup/report.h"
#include "degraded.h"
#include "launcher/policy/secret.h"
#include "landlock/landlock.h"
#include "launcher/base/macro.h"
#include "zygote.h"
#include "mount-plan.h"
#include "ns.h"
#include "ns/net/proxy.h"
#include "seccomp/seccomp.h"

static const unsigned long all_ns[] = {
	CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET,
	CLONE_NEWIPC,  CLONE_NEWUTS, CLONE_NEWCGROUP,
};

static json_object *id_pair(uint32_t inside, uint32_t outside)
{
	json_object *o = json_object_new_object();

	if (o && (cr_json_add(o, "inside", json_object_new_int64(inside)) < 0 ||
		  cr_json_add(o, "outside", json_object_new_int64(outside)) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Host paths the plan shows read-only, writable, or hides; the sandbox's private tmpfs mounts; or
 * the files that hold a private machine id.
 * Taken from the plan the child carried out, not from the options, so the report cannot drift
 * from what was mounted. */
enum plan_class { SHOWN_RO, SHOWN_RW, PINNED, HIDDEN, PRIVATE, MACHINE_ID };

static bool in_class(const struct cr_mount_op *op, enum plan_class c)
{
	bool w = op->flags & CR_MNT_WRITABLE;

	switch (c) {
	case SHOWN_RO:
		return (op->kind == CR_MOUNT_BIND && !w) || op->kind == CR_MOUNT_SYSFS;
	case SHOWN_RW: /* a pinned directory is writable only as part of another path */
		return op->kind == CR_MOUNT_BIND && w && !(op->flags & CR_MNT_PIN);
	case PINNED:
		return op->kind == CR_MOUNT_BIND && (op->flags & CR_MNT_PIN);
	case HIDDEN:
		return op->kind == CR_MOUNT_NULL ||
		       (op->kind == CR_MOUNT_TMPFS && !w && strcmp(op->dst, "/dev") != 0 &&
			!(op->flags & CR_MNT_SECRET));
	case PRIVATE:
		return op->kind == CR_MOUNT_TMPFS && w && strncmp(op->dst, "/dev/", 5) != 0;
	case MACHINE_ID:
		return op->kind == CR_MOUNT_TEXT && !(op->flags & CR_MNT_SECRET);
	default:
		return false;
	}
}

static json_object *plan_paths(const struct cr_mount_plan *plan, enum plan_class c)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < plan->n_ops; i++)
		if (in_class(&plan->ops[i], c) &&
		    cr_json_append(a, json_object_new_string(plan->ops[i].dst)) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static json_object *tmpfs_mount(const struct cr_mount_op *op)
{
	json_object *o = json_object_new_object();

	if (o && (cr_json_add(o, "path", json_object_new_string(op->dst)) < 0 ||
		  cr_json_add(o, "size", json_object_new_int64((int64_t)op->size)) < 0 ||
		  cr_json_add(o, "nr_inodes", json_object_new_int64((int64_t)op->nr_inodes)) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* Root's writable paths mounted idmapped (ns/idmap.h), each with the host owner the sandbox acts
 * as there. */
static json_object *idmapped_json(const struct cr_mount_plan *plan)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < plan->n_ops; i++) {
		const struct cr_mount_op *op = &plan->ops[i];
		json_object *m;
		int q;

		if (!(op->flags & CR_MNT_IDMAPPED))
			continue;
		m = json_object_new_object();
		q = m ? 0 : -ENOMEM;
		q = q ?: cr_json_add(m, "path", json_object_new_string(op->dst));
		q = q ?: cr_json_add(m, "owner_uid", json_object_new_int64(op->owner_uid));
		q = q ?: cr_json_add(m, "owner_gid", json_object_new_int64(op->owner_gid));
		r = cr_json_append(a, cr_json_whole(m, q));
	}
	return cr_json_whole(a, r);
}

/* The named caches: name, path inside, directory on the host, and whether it is idmapped (root's
 * run: the sandbox's uid acts as the directory's owner there). */
static json_object *caches_json(const struct cr_policy *p, const struct cr_mount_plan *plan)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < p->n_caches; i++) {
		json_object *m = json_object_new_object();
		bool idmapped = false;
		int q = m ? 0 : -ENOMEM;

		bool shown = false;

		for (size_t j = 0; j < plan->n_ops; j++)
			if (plan->ops[j].kind == CR_MOUNT_BIND &&
			    strcmp(plan->ops[j].dst, p->caches[i].path) == 0) {
				idmapped = plan->ops[j].flags & CR_MNT_IDMAPPED;
				shown = true;
			}
		if (!shown) { /* degraded mode left it out, and said so */
			json_object_put(m);
			continue;
		}
		q = q ?: cr_json_add_str(m, "name", p->caches[i].name);
		q = q ?: cr_json_add_str(m, "path", p->caches[i].path);
		q = q ?: cr_json_add_str(m, "dir", p->caches[i].dir);
		q = q ?: cr_json_add(m, "idmapped", json_object_new_boolean(idmapped));
		r = cr_json_append(a, cr_json_whole(m, q));
	}
	return cr_json_whole(a, r);
}

/* The sizes of the writable tmpfs mounts, and what they were taken from. */
static json_object *tmpfs_json(const struct cr_run *run)
{
	const struct cr_mount_plan *plan = cr_ns_run_plan(run);
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	uint64_t ram;
	enum cr_tmpfs_basis basis = cr_ns_run_tmpfs(run, &ram);
	int r = o && a ? 0 : -ENOMEM;

	for (size_t i = 0; r == 0 && i < plan->n_ops; i++) {
		json_object *m = plan->ops[i].size ? tmpfs_mount(&plan->ops[i]) : NULL;

		if (plan->ops[i].size)
			r = cr_json_append(a, m);
	}
	r = r ?: cr_json_add(o, "basis", json_object_new_string(cr_tmpfs_basis_to_string(basis)));
	r = r ?: cr_json_add(o, "ram", json_object_new_int64((int64_t)ram));
	r = r ?: cr_json_add(o, "mounts", TAKE_PTR(a));
	json_object_put(a);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *env_keys(char *const *env)
{
	json_object *a = json_object_new_array();

	for (; a && env && *env; env++) {
		size_t n = strcspn(*env, "=");

		if (cr_json_append(a, json_object_new_string_len(*env, (int)n)) < 0) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}

static json_object *strv_json(char *const *v)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (; r == 0 && v && *v; v++)
		r = cr_json_append(a, json_object_new_string(*v));
	return cr_json_whole(a, r);
}

static json_object *fd_list(const struct cr_policy *p)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < p->n_keep_fds; i++)
		if (cr_json_append(a, json_object_new_int(p->keep_fds[i])) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

/* The syscall filter, as seccomp/seccomp.h describes it. */
static json_object *seccomp_json(const struct cr_seccomp *s)
{
	json_object *o = json_object_new_object(), *arches = json_object_new_array();
	struct cr_seccomp_info i = {};
	int r = o && arches && s ? 0 : -ENOMEM;

	if (r == 0) {
		cr_seccomp_describe(s, &i);
		if (i.architecture &&
		    cr_json_append(arches, json_object_new_string(i.architecture)) < 0)
			r = -ENOMEM;
	}
	r = r ?: cr_json_add_str(o, "mode", i.mode);
	r = r ?: cr_json_add_str(o, "profile", i.profile);
	r = r ?: cr_json_add_str(o, "sha256", i.sha256);
	r = r ?: cr_json_add(o, "architectures", TAKE_PTR(arches));
	r = r ?: cr_json_add(o, "spawn", json_object_new_boolean(i.spawn));
	r = r ?: cr_json_add_str(o, "ptrace", i.ptrace);
	r = r ?: cr_json_add(o, "setid", json_object_new_boolean(!i.setid));
	r = r ?: cr_json_add_str(o, "cache", i.cache);
	json_object_put(arches);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int cr_ns_report(const struct cr_run *run, json_object *o)
{
	const struct cr_policy *p = cr_ns_run_policy(run);
	const struct cr_idmap *m = cr_ns_run_idmap(run);
	const struct cr_mount_plan *plan = cr_ns_run_plan(run);
	unsigned long flags = cr_ns_run_clone_flags(run);
	json_object *ns = json_object_new_array();
	int r = 0;

	for (size_t i = 0; ns && i < ELEMENTSOF(all_ns); i++)
		if ((flags & all_ns[i]) &&
		    cr_json_append(ns, json_object_new_string(cr_ns_name(all_ns[i]))) < 0)
			r = -ENOMEM;
	r = r ?: cr_json_add(o, "namespaces", ns);
	if (p->ex.on && p->ex.late_ids) { /* no user namespace: the ids the command took */
		r = r ?: cr_json_add(o, "uid_map", id_pair(p->ex.late_uid, p->ex.late_uid));
		r = r ?: cr_json_add(o, "gid_map", id_pair(p->ex.late_gid, p->ex.late_gid));
	} else {
		r = r ?: cr_json_add(o, "uid_map", id_pair(m->inside_uid, m->outside_uid));
		r = r ?: cr_json_add(o, "gid_map", id_pair(m->inside_gid, m->outside_gid));
	}
	r = r ?: cr_json_add(o, "network", json_object_new_string(cr_net_mode_to_string(p->net)));
	r = r ?: cr_json_add(o, "loopback", json_object_new_boolean(p->net != CR_NET_HOST));
	r = r ?: cr_proxy_report(cr_ns_run_proxy(run), o); /* allow_hosts: the list, the proxy */
	r = r ?: cr_json_add(o, "root", json_object_new_string("tmpfs+pivot_root"));
	r = r ?: cr_json_add(o, "read_only", plan_paths(plan, SHOWN_RO));
	r = r ?: cr_json_add(o, "writable", plan_paths(plan, SHOWN_RW));
	r = r ?: cr_json_add(o, "pinned", plan_paths(plan, PINNED));
	r = r ?: cr_json_add(o, "idmapped", idmapped_json(plan));
	r = r ?: cr_json_add(o, "caches", caches_json(p, plan));
	r = r ?: cr_json_add(o, "hidden", plan_paths(plan, HIDDEN));
	r = r ?: cr_json_add(o, "private", plan_paths(plan, PRIVATE));
	r = r ?: cr_json_add(o, "tmpfs", tmpfs_json(run));
	r = r ?: cr_json_add(o, "capabilities", json_object_new_string("none"));
	r = r ?: cr_json_add(o, "no_new_privs",
			     json_object_new_boolean(!(p->ex.on && p->ex.new_privs)));
	r = r ?: cr_json_add(o, "seccomp", seccomp_json(cr_ns_run_seccomp(run)));
	r = r ?: cr_json_add(o, "new_session", json_object_new_boolean(true));
	r = r ?: cr_json_add(o, "environment", env_keys(p->env));
	r = r ?: cr_json_add(o, "path_hidden", strv_json(p->path_hidden));
	r = r ?: cr_json_add(o, "unreadable", strv_json(p->unreadable));
	r = r ?: cr_json_add(o, "secrets", cr_secrets_json(p->secrets, p->n_secrets));
	r = r ?: cr_json_add(o, "kept_fds", fd_list(p));
	r = r ?: (p->hostname ? cr_json_add(o, "hostname", json_object_new_string(p->hostname))
			      : cr_json_add_null(o, "hostname"));
	r = r ?: cr_json_add(o, "init_pid", json_object_new_int(cr_ns_run_pid(run)));
	r = r ?: cr_json_add(o, "machine_id", plan_paths(plan, MACHINE_ID));
	r = r ?: cr_json_add(o, "limits", cr_limits_report_json(cr_ns_run_limits(run)));
	r = r ?: cr_json_add(o, "landlock", cr_landlock_report(cr_ns_run_landlock(run)));
	/* Degraded: "degraded" and "missing_layers", and what the command had instead. */
	r = r ?: cr_degraded_report(cr_ns_run_degraded(run), plan, o);
	return r;
}
