/* SPDX-License-Identifier: MIT */
/* config.json's linux.resources beyond corral's own limits (memory.limit and swap, pids.limit,
 * cpu.quota, shares): each setting read and turned into the files it writes in the caller's
 * cgroup, in its cgroup v1 form and its cgroup2 form (struct cr_cgroup_file), the mapping other
 * runtimes use. Which one applies is the host's business (cgroup/resources.c); a setting the
 * version found has no file for fails there, named. Pure: nothing is checked against the host. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle-internal.h"
#include "resources.h"

/* A new file for @field; its v1 and v2 forms are filled by the caller. */
static struct cr_cgroup_file *add(struct cr_oci_resources *f, const char *field)
{
	struct cr_cgroup_file *e;

	if (f->n_files == f->cap_files) {
		size_t cap = f->cap_files ? 2 * f->cap_files : 8;
		struct cr_cgroup_file *v = reallocarray(f->files, cap, sizeof(*v));

		if (!v)
			return NULL;
		f->files = v;
		f->cap_files = cap;
	}
	e = &f->files[f->n_files++];
	*e = (struct cr_cgroup_file){};
	(void)snprintf(e->field, sizeof(e->field), "%s", field);
	return e;
}

static void set_v1(struct cr_cgroup_file *e, const char *ctl, const char *file, const char *fmt,
		   ...) _printf_(4, 5);
static void set_v1(struct cr_cgroup_file *e, const char *ctl, const char *file, const char *fmt,
		   ...)
{
	va_list ap;

	(void)snprintf(e->v1_ctl, sizeof(e->v1_ctl), "%s", ctl);
	(void)snprintf(e->v1_file, sizeof(e->v1_file), "%s", file);
	va_start(ap, fmt);
	(void)vsnprintf(e->v1_value, sizeof(e->v1_value), fmt, ap);
	va_end(ap);
}

static void set_v2(struct cr_cgroup_file *e, const char *ctl, const char *file, const char *fmt,
		   ...) _printf_(4, 5);
static void set_v2(struct cr_cgroup_file *e, const char *ctl, const char *file, const char *fmt,
		   ...)
{
	va_list ap;

	(void)snprintf(e->v2_ctl, sizeof(e->v2_ctl), "%s", ctl);
	(void)snprintf(e->v2_file, sizeof(e->v2_file), "%s", file);
	va_start(ap, fmt);
	(void)vsnprintf(e->v2_value, sizeof(e->v2_value), fmt, ap);
	va_end(ap);
}

static void no_v2(struct cr_cgroup_file *e, const char *why)
{
	(void)snprintf(e->v2_why, sizeof(e->v2_why), "%s", why);
}

/* --- memory ----------------------------------------------------------------------------------- */

/* An integer setting @key of @o that 0 (and -1) leave unset; @ret_set says it was given. */
static int get_set(struct oci_ctx *x, json_object *o, const char *path, const char *key,
		   int64_t min, int64_t max, int64_t *ret)
{
	int r;

	*ret = 0;
	r = oci_get_int(x, o, path, key, -1, max, ret, NULL);
	if (r == 0 && *ret > 0 && *ret < min) {
		char p[128];

		return oci_fail(x, oci_path(p, sizeof(p), path, key, 0),
				"%lld is below %lld (-1 or 0: not set)", (long long)*ret,
				(long long)min);
	}
	return r;
}

static int memory_files(struct oci_ctx *x, json_object *mem, struct cr_oci_resources *f)
{
	const char *p = "linux.resources.memory";
	struct cr_cgroup_file *e;
	int64_t v = 0;
	bool oom = false, set = false;
	int r;

	r = get_set(x, mem, p, "reservation", 1, INT64_MAX, &v);
	if (r == 0 && v > 0) {
		if (!(e = add(f, "linux.resources.memory.reservation")))
			return -ENOMEM;
		set_v1(e, "memory", "memory.soft_limit_in_bytes", "%" PRId64, v);
		set_v2(e, "memory", "memory.low", "%" PRId64, v);
	}
	r = r ?: get_set(x, mem, p, "kernel", 1, INT64_MAX, &v);
	if (r == 0 && v > 0) {
		if (!(e = add(f, "linux.resources.memory.kernel")))
			return -ENOMEM;
		/* Linux 6.1 and later take the write and ignore it: read back */
		set_v1(e, "memory", "memory.kmem.limit_in_bytes", "%" PRId64, v);
		e->check = true;
		no_v2(e, "cgroup2 has no kernel memory limit");
	}
	r = r ?: get_set(x, mem, p, "kernelTCP", 1, INT64_MAX, &v);
	if (r == 0 && v > 0) {
		if (!(e = add(f, "linux.resources.memory.kernelTCP")))
			return -ENOMEM;
		set_v1(e, "memory", "memory.kmem.tcp.limit_in_bytes", "%" PRId64, v);
		no_v2(e, "cgroup2 has no kernel TCP memory limit");
	}
	r = r ?: oci_get_int(x, mem, p, "swappiness", 0, 100, &v, &set);
	if (r == 0 && set) {
		if (!(e = add(f, "linux.resources.memory.swappiness")))
			return -ENOMEM;
		set_v1(e, "memory", "memory.swappiness", "%" PRId64, v);
		no_v2(e, "cgroup2 has no per-cgroup swappiness");
	}
	r = r ?: oci_get_bool(x, mem, p, "disableOOMKiller", &oom);
	if (r == 0 && oom) {
		if (!(e = add(f, "linux.resources.memory.disableOOMKiller")))
			return -ENOMEM;
		set_v1(e, "memory", "memory.oom_control", "1");
		no_v2(e, "cgroup2 cannot turn the OOM killer off");
	}
	return r;
}

/* --- cpu -------------------------------------------------------------------------------------- */

/* A cpuset list: "0-3,7". */
static bool cpu_list_ok(const char *s)
{
	return s[0] && strspn(s, "0123456789,-") == strlen(s) && strlen(s) < 64;
}

static int cpu_string(struct oci_ctx *x, json_object *cpu, const char *key,
		      struct cr_oci_resources *f)
{
	char p[64], file[32];
	const char *s = NULL;
	struct cr_cgroup_file *e;
	int r = oci_get_string(x, cpu, "linux.resources.cpu", key, &s);

	if (r < 0 || !s || !s[0])
		return r;
	oci_path(p, sizeof(p), "linux.resources.cpu", key, 0);
	if (!cpu_list_ok(s))
		return oci_fail(x, p, "'%s' is not a list of numbers and ranges (0-3,7)", s);
	if (!(e = add(f, p)))
		return -ENOMEM;
	(void)snprintf(file, sizeof(file), "cpuset.%s", key);
	set_v1(e, "cpuset", file, "%s", s);
	set_v2(e, "cpuset", file, "%s", s);
	return 0;
}

int oci_resources_cpu(struct oci_ctx *x, json_object *cpu, int64_t quota, int64_t period,
		      struct cr_oci_resources *res)
{
	const char *p = "linux.resources.cpu";
	struct cr_cgroup_file *e;
	int64_t rt_period = 0, rt_runtime = 0;
	int r = 0;

	/* the exact quota and period (corral's own --cpu rounds to thousandths of a CPU) */
	if (quota > 0 || period > 0) {
		if (!(e = add(res, period > 0 ? "linux.resources.cpu.period"
					      : "linux.resources.cpu.quota")))
			return -ENOMEM;
		if (period > 0)
			set_v1(e, "cpu", "cpu.cfs_period_us", "%" PRId64, period);
		else
			set_v1(e, "cpu", "cpu.cfs_quota_us", "%" PRId64, quota);
		if (quota > 0)
			set_v2(e, "cpu", "cpu.max", "%" PRId64 " %" PRId64, quota,
			       period > 0 ? period : 100000);
		else
			set_v2(e, "cpu", "cpu.max", "max %" PRId64, period);
		if (quota > 0 && period > 0) {
			if (!(e = add(res, "linux.resources.cpu.quota")))
				return -ENOMEM;
			set_v1(e, "cpu", "cpu.cfs_quota_us", "%" PRId64, quota);
			no_v2(e, ""); /* cpu.max above has both */
		}
	}
	if (cpu) {
		r = get_set(x, cpu, p, "realtimePeriod", 1, INT64_MAX, &rt_period);
		r = r ?: get_set(x, cpu, p, "realtimeRuntime", 1, INT64_MAX, &rt_runtime);
	}
	if (r == 0 && rt_period > 0) {
		if (!(e = add(res, "linux.resources.cpu.realtimePeriod")))
			return -ENOMEM;
		set_v1(e, "cpu", "cpu.rt_period_us", "%" PRId64, rt_period);
		no_v2(e, "cgroup2 has no real-time scheduling budget");
	}
	if (r == 0 && rt_runtime > 0) {
		if (!(e = add(res, "linux.resources.cpu.realtimeRuntime")))
			return -ENOMEM;
		set_v1(e, "cpu", "cpu.rt_runtime_us", "%" PRId64, rt_runtime);
		no_v2(e, "cgroup2 has no real-time scheduling budget");
	}
	if (cpu) {
		r = r ?: cpu_string(x, cpu, "cpus", res);
		r = r ?: cpu_string(x, cpu, "mems", res);
	}
	return r;
}

/* --- blockIO ---------------------------------------------------------------------------------- */

/* blkio's weight (10 to 1000) as io.weight's (1 to 10000), as other runtimes convert it. */
static int64_t io_weight(int64_t w)
{
	return 1 + (w - 10) * 9999 / 990;
}

static int get_dev(struct oci_ctx *x, json_object *o, const char *path, int64_t *major,
		   int64_t *minor)
{
	int r = oci_get_int(x, o, path, "major", 0, UINT32_MAX, major, NULL);

	r = r ?: oci_get_int(x, o, path, "minor", 0, UINT32_MAX, minor, NULL);
	if (r == 0 && (!json_object_object_get_ex(o, "major", NULL) ||
		       !json_object_object_get_ex(o, "minor", NULL)))
		return oci_fail(x, path, "major and minor are required");
	return r;
}

static int weight_device(struct oci_ctx *x, json_object *o, const char *path,
			 struct cr_oci_resources *f)
{
	static const char *const known[] = { "major", "minor", "weight", "leafWeight", NULL };
	int64_t major = 0, minor = 0, w = 0, leaf = 0;
	struct cr_cgroup_file *e;
	int r = oci_check_keys(x, o, path, known);

	r = r ?: get_dev(x, o, path, &major, &minor);
	r = r ?: get_set(x, o, path, "weight", 10, 1000, &w);
	r = r ?: get_set(x, o, path, "leafWeight", 10, 1000, &leaf);
	if (r == 0 && w > 0) {
		if (!(e = add(f, path)))
			return -ENOMEM;
		set_v1(e, "blkio", "blkio.weight_device", "%" PRId64 ":%" PRId64 " %" PRId64, major,
		       minor, w);
		set_v2(e, "io", "io.weight", "%" PRId64 ":%" PRId64 " %" PRId64, major, minor,
		       io_weight(w));
	}
	if (r == 0 && leaf > 0) {
		if (!(e = add(f, path)))
			return -ENOMEM;
		set_v1(e, "blkio", "blkio.leaf_weight_device", "%" PRId64 ":%" PRId64 " %" PRId64,
		       major, minor, leaf);
		no_v2(e, "cgroup2 has no leaf weight");
	}
	return r;
}

static const struct {
	const char *key, *v1, *v2;
} throttles[] = {
	{ "throttleReadBpsDevice", "blkio.throttle.read_bps_device", "rbps" },
	{ "throttleWriteBpsDevice", "blkio.throttle.write_bps_device", "wbps" },
	{ "throttleReadIOPSDevice", "blkio.throttle.read_iops_device", "riops" },
	{ "throttleWriteIOPSDevice", "blkio.throttle.write_iops_device", "wiops" },
};

static int throttle(struct oci_ctx *x, json_object *o, const char *path, size_t k,
		    struct cr_oci_resources *f)
{
	static const char *const known[] = { "major", "minor", "rate", NULL };
	struct cr_cgroup_file *e;
	int64_t major = 0, minor = 0;
	uint64_t rate = 0;
	int r = oci_check_keys(x, o, path, known);

	r = r ?: get_dev(x, o, path, &major, &minor);
	r = r ?: oci_get_u64(x, o, path, "rate", &rate);
	if (r < 0)
		return r;
	if (!(e = add(f, path)))
		return -ENOMEM;
	set_v1(e, "blkio", throttles[k].v1, "%" PRId64 ":%" PRId64 " %" PRIu64, major, minor, rate);
	if (rate)
		set_v2(e, "io", "io.max", "%" PRId64 ":%" PRId64 " %s=%" PRIu64, major, minor,
		       throttles[k].v2, rate);
	else
		set_v2(e, "io", "io.max", "%" PRId64 ":%" PRId64 " %s=max", major, minor,
		       throttles[k].v2);
	return 0;
}

typedef int each_fn(struct oci_ctx *x, json_object *o, const char *path, size_t k,
		    struct cr_oci_resources *f);

/* Each object of array @key of @o through @one (@k passed on). */
static int each(struct oci_ctx *x, json_object *o, const char *path, const char *key, size_t k,
		each_fn *one, struct cr_oci_resources *f)
{
	json_object *a = NULL;
	char p[96], q[112];
	int r = oci_get_array(x, o, path, key, &a);

	oci_path(p, sizeof(p), path, key, 0);
	for (size_t i = 0; r == 0 && a && i < json_object_array_length(a); i++) {
		json_object *m = json_object_array_get_idx(a, i);

		oci_path(q, sizeof(q), p, NULL, i);
		r = json_object_is_type(m, json_type_object) ? one(x, m, q, k, f)
							     : oci_fail(x, q, "must be an object");
	}
	return r;
}

static int weight_device_k(struct oci_ctx *x, json_object *o, const char *path, size_t k,
			   struct cr_oci_resources *f)
{
	(void)k;
	return weight_device(x, o, path, f);
}

static int blockio_files(struct oci_ctx *x, json_object *b, struct cr_oci_resources *f)
{
	static const char *const known[] = { "weight",
					     "leafWeight",
					     "weightDevice",
					     "throttleReadBpsDevice",
					     "throttleWriteBpsDevice",
					     "throttleReadIOPSDevice",
					     "throttleWriteIOPSDevice",
					     NULL };
	const char *p = "linux.resources.blockIO";
	struct cr_cgroup_file *e;
	int64_t w = 0, leaf = 0;
	int r = oci_check_keys(x, b, p, known);

	r = r ?: get_set(x, b, p, "weight", 10, 1000, &w);
	r = r ?: get_set(x, b, p, "leafWeight", 10, 1000, &leaf);
	if (r == 0 && w > 0) {
		if (!(e = add(f, "linux.resources.blockIO.weight")))
			return -ENOMEM;
		set_v1(e, "blkio", "blkio.weight", "%" PRId64, w);
		set_v2(e, "io", "io.weight", "default %" PRId64, io_weight(w));
	}
	if (r == 0 && leaf > 0) {
		if (!(e = add(f, "linux.resources.blockIO.leafWeight")))
			return -ENOMEM;
		set_v1(e, "blkio", "blkio.leaf_weight", "%" PRId64, leaf);
		no_v2(e, "cgroup2 has no leaf weight");
	}
	r = r ?: each(x, b, p, "weightDevice", 0, weight_device_k, f);
	for (size_t k = 0; r == 0 && k < sizeof(throttles) / sizeof(throttles[0]); k++)
		r = each(x, b, p, throttles[k].key, k, throttle, f);
	return r;
}

/* --- hugepageLimits, network ------------------------------------------------------------------ */

/* "2MB", "1GB", "64KB": the page size as the kernel names its hugetlb files. */
static bool page_size_ok(const char *s)
{
	size_t digits = strspn(s, "0123456789");

	return digits > 0 && digits < 8 && s[0] != '0' &&
	       (strcmp(s + digits, "KB") == 0 || strcmp(s + digits, "MB") == 0 ||
		strcmp(s + digits, "GB") == 0);
}

static int hugepage(struct oci_ctx *x, json_object *o, const char *path, size_t k,
		    struct cr_oci_resources *f)
{
	static const char *const known[] = { "pageSize", "limit", NULL };
	struct cr_cgroup_file *e;
	const char *size = NULL;
	char file[48];
	uint64_t limit = 0;
	int r = oci_check_keys(x, o, path, known);

	(void)k;
	r = r ?: oci_get_string(x, o, path, "pageSize", &size);
	r = r ?: oci_get_u64(x, o, path, "limit", &limit);
	if (r < 0)
		return r;
	if (!size || !page_size_ok(size))
		return oci_fail(x, path, "pageSize '%s' is not a size such as 2MB or 1GB",
				size ? size : "");
	if (!(e = add(f, path)))
		return -ENOMEM;
	(void)snprintf(file, sizeof(file), "hugetlb.%s.limit_in_bytes", size);
	set_v1(e, "hugetlb", file, "%" PRIu64, limit);
	(void)snprintf(file, sizeof(file), "hugetlb.%s.max", size);
	set_v2(e, "hugetlb", file, "%" PRIu64, limit);
	return 0;
}

static int priority(struct oci_ctx *x, json_object *o, const char *path, size_t k,
		    struct cr_oci_resources *f)
{
	static const char *const known[] = { "name", "priority", NULL };
	struct cr_cgroup_file *e;
	const char *name = NULL;
	int64_t prio = 0;
	int r = oci_check_keys(x, o, path, known);

	(void)k;
	r = r ?: oci_get_string(x, o, path, "name", &name);
	r = r ?: oci_get_int(x, o, path, "priority", 0, UINT32_MAX, &prio, NULL);
	if (r < 0)
		return r;
	if (!name || !name[0] || strlen(name) >= 16 || strpbrk(name, " /\n"))
		return oci_fail(x, path, "name '%s' is not an interface name", name ? name : "");
	if (!(e = add(f, path)))
		return -ENOMEM;
	set_v1(e, "net_prio", "net_prio.ifpriomap", "%s %" PRId64, name, prio);
	no_v2(e, "cgroup2 has no net_prio (a BPF program's job)");
	return 0;
}

static int network_files(struct oci_ctx *x, json_object *n, struct cr_oci_resources *f)
{
	static const char *const known[] = { "classID", "priorities", NULL };
	const char *p = "linux.resources.network";
	struct cr_cgroup_file *e;
	int64_t id = 0;
	bool set = false;
	int r = oci_check_keys(x, n, p, known);

	r = r ?: oci_get_int(x, n, p, "classID", 0, UINT32_MAX, &id, &set);
	if (r == 0 && set) {
		if (!(e = add(f, "linux.resources.network.classID")))
			return -ENOMEM;
		set_v1(e, "net_cls", "net_cls.classid", "%" PRId64, id);
		no_v2(e, "cgroup2 has no net_cls (a BPF program's job)");
	}
	return r ?: each(x, n, p, "priorities", 0, priority, f);
}

/* --- devices ---------------------------------------------------------------------------------- */

static void dev_number(char *buf, size_t size, int64_t n)
{
	if (n < 0)
		(void)snprintf(buf, size, "*");
	else
		(void)snprintf(buf, size, "%" PRId64, n);
}

/* The nodes of corral's /dev (ns/mount-plan-explicit.c), which engines leave to the runtime to allow (podman
 * sends "deny all" and no rule for /dev/null): allowed after the caller's rules, as other
 * runtimes do, unless a rule of the caller's denies that node by its number. */
static const struct {
	int64_t major, minor; /* -1: any */
} dev_nodes[] = {
	{ 1, 3 }, { 1, 5 }, { 1, 7 }, { 1, 8 }, { 1, 9 }, /* null zero full random urandom */
	{ 5, 0 }, { 5, 2 }, { 136, -1 },		  /* tty ptmx pts */
};

static bool denied_by_name(const struct cr_oci_resources *res, int64_t major, int64_t minor)
{
	for (size_t i = 0; i < res->n_devices; i++) {
		const struct cr_oci_device_rule *d = &res->devices[i];

		if (!d->allow && d->type == 'c' && d->major == major &&
		    (d->minor == minor || d->minor == -1))
			return true;
	}
	return false;
}

static int device_defaults(struct cr_oci_resources *res)
{
	for (size_t k = 0; k < sizeof(dev_nodes) / sizeof(dev_nodes[0]); k++) {
		struct cr_cgroup_file *e;
		char minor[24];

		if (denied_by_name(res, dev_nodes[k].major, dev_nodes[k].minor))
			continue;
		if (!(e = add(res, "linux.resources.devices (corral's /dev)")))
			return -ENOMEM;
		dev_number(minor, sizeof(minor), dev_nodes[k].minor);
		set_v1(e, "devices", "devices.allow", "c %" PRId64 ":%s rwm", dev_nodes[k].major,
		       minor);
		no_v2(e, "cgroup2 needs a BPF device program");
		e->optional = true;
	}
	return 0;
}

static int device_files(struct cr_oci_resources *res)
{
	for (size_t i = 0; i < res->n_devices; i++) {
		const struct cr_oci_device_rule *d = &res->devices[i];
		char p[64], major[24], minor[24];
		struct cr_cgroup_file *e;

		oci_path(p, sizeof(p), "linux.resources.devices", NULL, i);
		if (!(e = add(res, p)))
			return -ENOMEM;
		dev_number(major, sizeof(major), d->major);
		dev_number(minor, sizeof(minor), d->minor);
		set_v1(e, "devices", d->allow ? "devices.allow" : "devices.deny", "%c %s:%s %s",
		       d->type, major, minor, d->access);
		/* cgroup2 takes a BPF program; without it the rules still hold (oci.md): every
		 * mount is nodev and /dev has only the nodes runtimes allow */
		no_v2(e, "cgroup2 needs a BPF device program");
		e->optional = true;
	}
	return res->n_devices ? device_defaults(res) : 0;
}

int oci_resources_more(struct oci_ctx *x, json_object *o, json_object *mem,
		       struct cr_oci_resources *res)
{
	json_object *b = NULL, *n = NULL;
	int r = 0;

	if (mem)
		r = memory_files(x, mem, res);
	r = r ?: oci_get_object(x, o, "linux.resources", "blockIO", &b);
	if (r == 0 && b)
		r = blockio_files(x, b, res);
	r = r ?: each(x, o, "linux.resources", "hugepageLimits", 0, hugepage, res);
	r = r ?: oci_get_object(x, o, "linux.resources", "network", &n);
	if (r == 0 && n)
		r = network_files(x, n, res);
	r = r ?: device_files(res);
	return r;
}
