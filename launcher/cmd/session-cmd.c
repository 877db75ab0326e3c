/* SPDX-License-Identifier: MIT */
/* `corral session list|show|rm`: the sessions of the store, as text or JSON, and their removal.
 * A workspace is removed without following any symlink in it (the sandbox wrote them) and
 * without leaving its filesystem; what cannot be removed is reported, and the session is then
 * kept so that `rm` can be run again. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session-cmd.h"
#include "launcher/base/exit-codes.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/session/session.h"
#include "launcher/session/session-internal.h"

extern char **environ;

static const char usage[] =
	"Usage: corral session list [--json]\n"
	"       corral session show ID [--json]\n"
	"       corral session rm ID... | --hash HASH...\n"
	"\n"
	"Sessions (corral run --session ID) keep a workspace and the grants given to them under\n"
	"$XDG_STATE_HOME/corral/sessions (or ~/.local/state/corral/sessions, else the fallback\n"
	"state directory corral doctor names).\n"
	"\n"
	"  list   every session: id, creation time, profile, number of grants, workspace\n"
	"  show   one session, with the join of its grants\n"
	"  rm     remove sessions: workspace, grants and metadata\n"
	"  --json one JSON line instead of text (list, show)\n"
	"  --hash rm: name sessions by their hash instead of the id (32 hex digits: the hash\n"
	"         key of --json, the last component of the workspace)\n"
	"\n"
	"Exit status: 0; 125 on bad usage or an error (rm: if any session could not be removed).\n";

static inline void closedirp(DIR **d)
{
	if (*d)
		(void)closedir(*d);
}

/* The JSON of session @hash: metadata, workspace, number of grants and, with @joined, their join
 * under "granted". 0 or -errno with @msg. */
static int session_json(int store_fd, const char *store, const char *hash, bool joined,
			json_object **ret, char *msg, size_t size)
{
	_cleanup_(cr_capability_done) struct cr_capability grants = {};
	_cleanup_json_ json_object *o = NULL;
	_cleanup_free_ char *ws = NULL;
	size_t n;
	int r;

	r = cr_session_metadata_read(store_fd, store, hash, &o, msg, size);
	if (r < 0)
		return r;
	r = cr_session_grants_read(store_fd, store, hash, &grants, &n, msg, size);
	if (r < 0)
		return r;
	if (asprintf(&ws, "%s/%s", store, hash) < 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	r = cr_json_add(o, "workspace", json_object_new_string(ws));
	r = r ?: cr_json_add(o, "grants", json_object_new_int64((int64_t)n));
	if (joined)
		r = r ?: cr_json_add(o, "granted", cr_capability_to_json(&grants, true));
	if (r != 0)
		return cr_msg(msg, size, -ENOMEM, "out of memory");
	*ret = TAKE_PTR(o);
	return 0;
}

static const char *str_or(json_object *o, const char *key, const char *dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return dflt;
	return json_object_get_string(v);
}

static int by_id(const void *a, const void *b)
{
	json_object *const *x = a, *const *y = b;

	return strcmp(str_or(*x, "id", ""), str_or(*y, "id", ""));
}

/* Every "<hash>.json" of the store, as session_json() objects sorted by id. A session that
 * cannot be read is reported and left out; *ret_failed counts them. */
static int collect(int store_fd, const char *store, json_object *list, unsigned *ret_failed)
{
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;
	char msg[1024];
	int fd;

	fd = openat(store_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		int r = negative_errno();

		if (fd >= 0)
			(void)close(fd);
		return cr_log_errno(r, "cannot list %s: %m", store);
	}
	while ((errno = 0, de = readdir(d))) {
		char hash[33];
		json_object *o;

		if (strlen(de->d_name) != 37 || strcmp(de->d_name + 32, ".json") != 0)
			continue;
		memcpy(hash, de->d_name, 32);
		hash[32] = '\0';
		if (!cr_session_hash_valid(hash))
			continue;
		if (session_json(store_fd, store, hash, false, &o, msg, sizeof(msg)) < 0) {
			cr_log_error("%s", msg);
			(*ret_failed)++;
			continue;
		}
		if (cr_json_append(list, o) < 0)
			return cr_log_errno(-ENOMEM, "out of memory");
	}
	if (errno != 0)
		return cr_log_errno(negative_errno(), "cannot list %s: %m", store);
	json_object_array_sort(list, by_id);
	return 0;
}

static void print_json(json_object *o)
{
	(void)cr_json_puts(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
}

static int cmd_list(const char *state_dir, bool json)
{
	_cleanup_json_ json_object *list = json_object_new_array();
	_cleanup_close_ int store_fd = -EBADF;
	_cleanup_free_ char *store = NULL;
	unsigned failed = 0;
	char msg[1024];

	if (!list)
		return cr_log_errno(-ENOMEM, "out of memory"), CR_EXIT_SETUP;
	store_fd = cr_session_store_open(state_dir, false, &store, msg, sizeof(msg));
	if (store_fd < 0 && store_fd != -ENOENT)
		return cr_log_error("%s", msg), CR_EXIT_SETUP;
	if (store_fd >= 0 && collect(store_fd, store, list, &failed) < 0)
		return CR_EXIT_SETUP;
	if (json)
		print_json(list);
	else {
		if (json_object_array_length(list) > 0)
			printf("%-20s  %-12s  %6s  %-s  %s\n", "CREATED", "PROFILE", "GRANTS",
			       "WORKSPACE", "ID");
		for (size_t i = 0; i < json_object_array_length(list); i++) {
			json_object *o = json_object_array_get_idx(list, i);

			printf("%-20s  %-12s  %6d  %s  %s\n", str_or(o, "created", "-"),
			       str_or(o, "profile", "-"),
			       json_object_get_int(json_object_object_get(o, "grants")),
			       str_or(o, "workspace", "-"), str_or(o, "id", "-"));
		}
	}
	return failed > 0 ? CR_EXIT_SETUP : 0;
}

static int cmd_show(const char *state_dir, const char *id, bool json)
{
	_cleanup_(cr_session_done) struct cr_session s = {};
	_cleanup_json_ json_object *o = NULL;
	_cleanup_close_ int store_fd = -EBADF;
	char msg[1024];
	int r;

	r = cr_session_open(state_dir, id, NULL, false, &s, msg, sizeof(msg));
	if (r < 0)
		return cr_log_error("session show: %s", msg), CR_EXIT_SETUP;
	store_fd = cr_state_open_dir(s.store, strlen(s.store), false, msg, sizeof(msg));
	if (store_fd < 0 || session_json(store_fd, s.store, s.hash, true, &o, msg, sizeof(msg)) < 0)
		return cr_log_error("session show: %s", msg), CR_EXIT_SETUP;
	if (json) {
		print_json(o);
		return 0;
	}
	printf("id:        %s\nhash:      %s\ncreated:   %s\nprofile:   %s\nworkspace: %s\n"
	       "grants:    %d\n",
	       s.id, s.hash, s.created, s.profile ? s.profile : "-", s.workspace,
	       json_object_get_int(json_object_object_get(o, "grants")));
	fputs("granted:   ", stdout);
	(void)cr_json_puts(json_object_object_get(o, "granted"),
			   JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, stdout);
	return 0;
}

static unsigned rm_tree(int dfd, const char *name, const char *path, dev_t dev);

/* Make the directory open (O_PATH) at @pfd readable and writable by us if it is ours and is
 * not: a sandbox may leave 0500 directories behind. */
static void make_removable(int pfd, const struct stat *st)
{
	char proc[64];

	if (st->st_uid != geteuid() || (st->st_mode & S_IRWXU) == S_IRWXU)
		return;
	(void)snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	(void)chmod(proc, 0700);
}

/* Remove what directory @name of @dfd (at @path) contains. The number of entries not removed. */
static unsigned rm_children(int dfd, const char *name, const char *path, dev_t dev)
{
	_cleanup_(closedirp) DIR *d = NULL;
	_cleanup_close_ int pfd = -EBADF;
	unsigned failed = 0;
	struct dirent *de;
	struct stat st;
	int fd;

	pfd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0 || fstat(pfd, &st) < 0)
		return cr_log_error("cannot remove %s: %s", path, strerror(errno)), 1;
	if (st.st_dev != dev)
		return cr_log_error("cannot remove %s: another filesystem is mounted there", path),
		       1;
	make_removable(pfd, &st);
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		cr_log_error("cannot remove %s: %s", path, strerror(errno));
		if (fd >= 0)
			(void)close(fd);
		return 1;
	}
	while ((de = readdir(d))) {
		_cleanup_free_ char *child = NULL;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&child, "%s/%s", path, de->d_name) < 0)
			return failed + 1;
		failed += rm_tree(dirfd(d), de->d_name, child, dev);
	}
	return failed;
}

/* Remove @name of @dfd (at @path) and, if it is a directory, everything in it, never following
 * a symlink. The number of entries not removed, each reported. */
static unsigned rm_tree(int dfd, const char *name, const char *path, dev_t dev)
{
	unsigned failed = 0;
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : (cr_log_error("cannot remove %s: %m", path), 1);
	if (S_ISDIR(st.st_mode))
		failed = rm_children(dfd, name, path, dev);
	/* A directory that kept entries cannot be empty: they were reported and counted. */
	if (unlinkat(dfd, name, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0 && errno != ENOENT &&
	    failed == 0) {
		cr_log_error("cannot remove %s: %m", path);
		failed = 1;
	}
	return failed;
}

/* Remove session @hash (@what names it in messages): the workspace, then the grants, then the
 * metadata, which is what makes the session exist. */
static int remove_session(int store_fd, const char *store, const char *hash, const char *what)
{
	_cleanup_free_ char *ws = NULL, *meta = NULL, *grants = NULL;
	struct stat st, sst;
	unsigned failed;
	bool exists;

	if (asprintf(&ws, "%s/%s", store, hash) < 0 || asprintf(&meta, "%s.json", hash) < 0 ||
	    asprintf(&grants, "%s.grants.jsonl", hash) < 0)
		return cr_log_errno(-ENOMEM, "out of memory");
	exists = fstatat(store_fd, meta, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		 fstatat(store_fd, hash, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
		 fstatat(store_fd, grants, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!exists)
		return cr_log_errno(-ENOENT, "session rm: no session %s", what);
	if (fstat(store_fd, &sst) < 0)
		return cr_log_errno(negative_errno(), "session rm: cannot stat %s: %m", store);
	failed = rm_tree(store_fd, hash, ws, sst.st_dev);
	if (failed > 0)
		return cr_log_errno(-ENOTEMPTY, "session rm: %s is not empty; session %s is kept",
				    ws, what);
	if (unlinkat(store_fd, grants, 0) < 0 && errno != ENOENT)
		return cr_log_errno(negative_errno(), "session rm: cannot remove %s/%s: %m", store,
				    grants);
	if (unlinkat(store_fd, meta, 0) < 0 && errno != ENOENT)
		return cr_log_errno(negative_errno(), "session rm: cannot remove %s/%s: %m", store,
				    meta);
	return 0;
}

static int cmd_rm(const char *state_dir, char **args, int n, bool by_hash)
{
	_cleanup_close_ int store_fd = -EBADF;
	_cleanup_free_ char *store = NULL;
	char msg[1024], hash[33], what[CR_SESSION_ID_MAX + 64];
	int status = 0;

	if (n == 0)
		return cr_log_error(
			       "session rm: no session given (usage: corral session rm ID...)"),
		       CR_EXIT_SETUP;
	store_fd = cr_session_store_open(state_dir, false, &store, msg, sizeof(msg));
	if (store_fd < 0 && store_fd != -ENOENT)
		return cr_log_error("session rm: %s", msg), CR_EXIT_SETUP;
	for (int i = 0; i < n; i++) {
		if (by_hash && !cr_session_hash_valid(args[i])) {
			cr_log_error("session rm: '%s' is not a session hash (32 hex digits)",
				     args[i]);
			status = CR_EXIT_SETUP;
			continue;
		}
		if (!by_hash && cr_session_id_check(args[i], msg, sizeof(msg)) < 0) {
			cr_log_error("session rm: %s", msg);
			status = CR_EXIT_SETUP;
			continue;
		}
		if (by_hash)
			(void)snprintf(hash, sizeof(hash), "%s", args[i]);
		else
			cr_session_hash(args[i], hash);
		(void)snprintf(what, sizeof(what), by_hash ? "with hash %s" : "'%s'", args[i]);
		if (store_fd < 0) {
			cr_log_error("session rm: no session %s", what);
			status = CR_EXIT_SETUP;
		} else if (remove_session(store_fd, store, hash, what) < 0)
			status = CR_EXIT_SETUP;
	}
	return status;
}

/* Options of every subcommand: --json, --hash, -h; "--" ends them. The rest go to @args. */
static int parse(int argc, char **argv, bool *json, bool *by_hash, char **args, int *n)
{
	bool opts = true;

	for (int i = 2; i < argc; i++) {
		if (opts && strcmp(argv[i], "--") == 0)
			opts = false;
		else if (opts && strcmp(argv[i], "--json") == 0)
			*json = true;
		else if (opts && strcmp(argv[i], "--hash") == 0)
			*by_hash = true;
		else if (opts && (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0))
			return fputs(usage, stdout), 1;
		else if (opts && argv[i][0] == '-' && argv[i][1])
			return cr_log_error(
				       "session: unknown option '%s' (try: corral session --help)",
				       argv[i]),
			       -EINVAL;
		else
			args[(*n)++] = argv[i];
	}
	return 0;
}

int cr_session_main(int argc, char **argv)
{
	_cleanup_free_ char **args = calloc((size_t)argc + 1, sizeof(char *));
	_cleanup_free_ char *state_dir = NULL;
	const char *sub = argc > 1 ? argv[1] : NULL;
	bool json = false, by_hash = false;
	char msg[1024];
	int n = 0, r;

	if (!args)
		return cr_log_errno(-ENOMEM, "out of memory"), CR_EXIT_SETUP;
	if (!sub || strcmp(sub, "-h") == 0 || strcmp(sub, "--help") == 0) {
		fputs(usage, sub ? stdout : stderr);
		return sub ? 0 : CR_EXIT_SETUP;
	}
	r = parse(argc, argv, &json, &by_hash, args, &n);
	if (r != 0)
		return r > 0 ? 0 : CR_EXIT_SETUP;
	r = cr_state_dir_warn(environ, &state_dir, NULL, msg, sizeof(msg));
	if (r < 0)
		return cr_log_error("session: %s", msg), CR_EXIT_SETUP;
	if (strcmp(sub, "list") == 0 && n == 0 && !by_hash)
		return cmd_list(state_dir, json);
	if (strcmp(sub, "show") == 0 && n == 1 && !by_hash)
		return cmd_show(state_dir, args[0], json);
	if (strcmp(sub, "rm") == 0 && !json)
		return cmd_rm(state_dir, args, n, by_hash);
	cr_log_error("session: bad arguments for '%s' (try: corral session --help)", sub);
	return CR_EXIT_SETUP;
}
