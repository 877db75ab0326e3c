/* SPDX-License-Identifier: MIT */
/* The OCI runtime's state files: ids, the default root, state.json read, checked against the
 * process it names, and written back as the runtime-spec state JSON. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "state.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/policy/env.h"
#include "launcher/session/state.h"

static const char *const status_names[_CR_OCI_STATUS_MAX] = {
	[CR_OCI_CREATING] = "creating",
	[CR_OCI_CREATED] = "created",
	[CR_OCI_RUNNING] = "running",
	[CR_OCI_STOPPED] = "stopped",
};

const char *cr_oci_status_name(enum cr_oci_status s)
{
	return s < _CR_OCI_STATUS_MAX ? status_names[s] : NULL;
}

int cr_oci_id_check(const char *id, char *err, size_t size)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-";
	size_t n = strlen(id);

	if (n == 0 || n > CR_OCI_ID_MAX)
		return snprintf(err, size, "container id must be 1 to %d bytes", CR_OCI_ID_MAX),
		       -EINVAL;
	if (strspn(id, ok) != n || strcmp(id, ".") == 0 || strcmp(id, "..") == 0)
		return snprintf(err, size,
				"container id '%.64s' may hold only letters, digits and _ . + - (and is not . or ..)",
				id),
		       -EINVAL;
	return 0;
}

/* Root of a user namespace other than the host's (rootless podman runs its runtime there):
 * /run is not ours to write. */
static bool in_user_namespace(void)
{
	char map[128] = "";
	FILE *f = fopen("/proc/self/uid_map", "re");
	unsigned long a = 0, b = 0, n = 0;

	if (!f)
		return false;
	if (!fgets(map, sizeof(map), f))
		map[0] = '\0';
	(void)fclose(f);
	return sscanf(map, "%lu %lu %lu", &a, &b, &n) != 3 || a != 0 || b != 0 || n != 4294967295ul;
}

int cr_oci_root_default(char *const *envp, char *buf, size_t size, char *err, size_t errsize)
{
	const char *xdg = cr_env_get(envp, "XDG_RUNTIME_DIR");
	int n;

	if (geteuid() == 0 && !(in_user_namespace() && xdg && xdg[0] == '/'))
		n = snprintf(buf, size, "/run/corral-oci");
	else if (xdg && xdg[0] == '/')
		n = snprintf(buf, size, "%s/corral-oci", xdg);
	else
		return snprintf(err, errsize,
				"no state root: XDG_RUNTIME_DIR is not set to an absolute path; set it or pass --root DIR"),
		       -ENOENT;
	if (n < 0 || (size_t)n >= size)
		return snprintf(err, errsize, "the state root's path is too long"), -ENAMETOOLONG;
	return 0;
}

/* --- state.json ------------------------------------------------------------------------------- */

static int fail(char *err, size_t size, const char *field, const char *what)
{
	(void)snprintf(err, size, "state.json: %s: %s", field, what);
	return -EINVAL;
}

static const char *get_str(json_object *doc, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(doc, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static int parse_fields(json_object *doc, struct cr_oci_state *s, char *err, size_t size)
{
	json_object *v;
	const char *status;
	int st = 0;

	s->oci_version = get_str(doc, "ociVersion");
	s->id = get_str(doc, "id");
	s->bundle = get_str(doc, "bundle");
	status = get_str(doc, "status");
	if (!s->oci_version || !s->id || !s->bundle || !status)
		return fail(err, size, "ociVersion, id, status, bundle", "must all be strings");
	while (st < _CR_OCI_STATUS_MAX && strcmp(status_names[st], status) != 0)
		st++;
	if (st == _CR_OCI_STATUS_MAX)
		return fail(err, size, "status", "not creating, created, running or stopped");
	s->status = (enum cr_oci_status)st;
	if (json_object_object_get_ex(doc, "pid", &v)) {
		int64_t pid = json_object_get_int64(v);

		if (!json_object_is_type(v, json_type_int) || pid < 0 || pid > INT32_MAX)
			return fail(err, size, "pid", "must be a process id");
		s->pid = (pid_t)pid;
	}
	if (json_object_object_get_ex(doc, "pid_start_time", &v)) {
		if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
			return fail(err, size, "pid_start_time", "must be a non-negative integer");
		s->pid_start_time = json_object_get_uint64(v);
	}
	if (json_object_object_get_ex(doc, "annotations", &v) && !json_object_is_type(v, json_type_null)) {
		if (!json_object_is_type(v, json_type_object))
			return fail(err, size, "annotations", "must be an object");
		s->annotations = v;
	}
	if ((s->status == CR_OCI_CREATED || s->status == CR_OCI_RUNNING) && s->pid <= 0)
		return fail(err, size, "pid", "a created or running container needs one");
	return 0;
}

int cr_oci_state_parse(const char *text, size_t len, struct cr_oci_state *ret, char *err,
		       size_t size)
{
	json_tokener *tok = json_tokener_new();
	struct cr_oci_state s = {};
	int r;

	*ret = (struct cr_oci_state){};
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	s.doc = len > INT32_MAX ? NULL : json_tokener_parse_ex(tok, text, (int)len);
	if (!s.doc || !json_object_is_type(s.doc, json_type_object)) {
		json_tokener_free(tok);
		cr_oci_state_done(&s);
		return fail(err, size, "the file", "not a JSON object");
	}
	json_tokener_free(tok);
	r = parse_fields(s.doc, &s, err, size);
	if (r < 0) {
		cr_oci_state_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}

void cr_oci_state_done(struct cr_oci_state *s)
{
	json_object_put(s->doc);
	*s = (struct cr_oci_state){};
}

json_object *cr_oci_state_json(const struct cr_oci_state *s)
{
	json_object *o = json_object_new_object();
	int r;

	r = cr_json_add(o, "ociVersion", json_object_new_string(s->oci_version));
	r = r ?: cr_json_add(o, "id", json_object_new_string(s->id));
	r = r ?: cr_json_add(o, "status", json_object_new_string(cr_oci_status_name(s->status)));
	if (s->status != CR_OCI_STOPPED && s->pid > 0)
		r = r ?: cr_json_add(o, "pid", json_object_new_int(s->pid));
	r = r ?: cr_json_add(o, "bundle", json_object_new_string(s->bundle));
	if (s->annotations)
		r = r ?: cr_json_add(o, "annotations", json_object_get(s->annotations));
	return cr_json_whole(o, r);
}

/* --- reading it from the root ----------------------------------------------------------------- */

/* Field 22 of /proc/PID/stat (after the command's closing parenthesis: field 3 is 1 past it);
 * 0 if the process is gone or a zombie. */
static uint64_t start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	_cleanup_close_ int fd = -EBADF;
	unsigned long long t = 0;
	ssize_t n;

	(void)snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	/* a zombie ended: its parent (the engine) has not reaped it yet */
	if (p && (p[1] != ' ' || p[2] == 'Z' || p[2] == 'X'))
		return 0;
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p && sscanf(p + 1, "%llu", &t) != 1)
		t = 0;
	return t;
}

/* A created or running container whose init is gone, or whose pid names another process now,
 * is stopped. */
static void refresh(struct cr_oci_state *s)
{
	uint64_t t;

	if (s->status != CR_OCI_CREATED && s->status != CR_OCI_RUNNING)
		return;
	t = start_time(s->pid);
	if (t == 0 || (s->pid_start_time && t != s->pid_start_time))
		s->status = CR_OCI_STOPPED;
}

static int read_file(int dfd, const char *name, char **ret, size_t *ret_len, char *err, size_t size)
{
	_cleanup_close_ int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	ssize_t n;
	int r;

	if (fd < 0)
		return cr_state_open_error(dfd, name, name, negative_errno(), err, size);
	r = cr_state_check_fd(fd, false, name, err, size);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return negative_errno();
	if (st.st_size > CR_OCI_STATE_MAX)
		return snprintf(err, size, "%s is larger than %d bytes", name, CR_OCI_STATE_MAX), -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	n = read(fd, buf, (size_t)st.st_size + 1);
	if (n < 0 || n > st.st_size)
		return snprintf(err, size, "cannot read %s: %s", name, n < 0 ? strerror(errno) : "it grew"),
		       n < 0 ? negative_errno() : -EAGAIN;
	*ret = TAKE_PTR(buf);
	*ret_len = (size_t)n;
	return 0;
}

int cr_oci_state_read(const char *root, const char *id, struct cr_oci_state *ret, char *err,
		      size_t size)
{
	_cleanup_close_ int rfd = -EBADF, dfd = -EBADF;
	_cleanup_free_ char *text = NULL;
	const char *slash = strrchr(root, '/');
	size_t len = 0;
	int r;

	*ret = (struct cr_oci_state){};
	r = cr_oci_id_check(id, err, size);
	if (r < 0)
		return r;
	rfd = cr_state_open_dir(root, slash ? (size_t)(slash - root) : 0, false, err, size);
	if (rfd == -ENOENT)
		return snprintf(err, size, "container '%s' does not exist (no state root %s)", id, root),
		       -ENOENT;
	if (rfd < 0)
		return rfd;
	dfd = openat(rfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (dfd < 0 && errno == ENOENT)
		return snprintf(err, size, "container '%s' does not exist (in %s)", id, root), -ENOENT;
	if (dfd < 0)
		return cr_state_open_error(rfd, id, id, negative_errno(), err, size);
	r = cr_state_check_fd(dfd, true, id, err, size);
	r = r ?: read_file(dfd, "state.json", &text, &len, err, size);
	r = r ?: cr_oci_state_parse(text, len, ret, err, size);
	if (r < 0)
		return r;
	if (strcmp(ret->id, id) != 0) {
		cr_oci_state_done(ret);
		return snprintf(err, size, "state.json of '%s' names another container", id), -EINVAL;
	}
	refresh(ret);
	return 0;
}
