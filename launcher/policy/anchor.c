/* SPDX-License-Identifier: MIT */
/* corral's own files out of the sandbox's reach (anchor.h). A read-only bind is not enough on its
 * own: a command that may write an ancestor of the bind can rename that ancestor away and make a
 * fresh tree in its place, which the next run reads. So every directory on the way that the
 * command could rename or remove becomes a mount point of its own (the kernel refuses to rename
 * or remove a mount point of the caller's namespace, EBUSY), and hard links cannot cross mounts
 * (EXDEV). A symbolic link on the way that the command could replace is refused: no mount can
 * hold a link in place. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "anchor.h"
#include "env.h"
#include "launcher/base/log.h"
#include "launcher/base/macro.h"
#include "launcher/base/path-util.h"
#include "policy.h"
#include "profile.h"

#define MAX_LINKS 40 /* as the kernel's path walk */

/* --- collecting --------------------------------------------------------------------------- */

static int push(struct cr_anchors *s, const char *what, char *path, bool file, unsigned mode)
{
	if (!path)
		return -ENOMEM;
	if (s->n == CR_ANCHORS_MAX) { /* a programming error: the array is sized for every kind */
		free(path);
		return -E2BIG;
	}
	s->a[s->n++] = (struct cr_anchor){ what, path, file, mode };
	return 0;
}

/* The directory above @path (".../corral/profiles" -> ".../corral"). */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash != path ? strndup(path, (size_t)(slash - path)) : NULL;
}

/* @path made absolute against the working directory (a file corral opened relative to it). */
static char *absolute(const char *path)
{
	_cleanup_free_ char *cwd = NULL;
	char *s;

	if (path[0] == '/')
		return strdup(path);
	cwd = getcwd(NULL, 0);
	if (!cwd || asprintf(&s, "%s/%s", cwd, path) < 0)
		return NULL;
	return s;
}

/* The cache's corral directory, found as seccomp/cache.c finds it. */
static int cache_dir(char *const *env, char **ret)
{
	const char *xdg = cr_env_get(env, "XDG_CACHE_HOME"), *home = cr_env_get(env, "HOME");
	int n;

	*ret = NULL;
	if (xdg && xdg[0] == '/')
		n = asprintf(ret, "%s/corral", xdg);
	else if (home && home[0] == '/')
		n = asprintf(ret, "%s/.cache/corral", home);
	else
		return 0;
	if (n < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 1;
}

int cr_anchors_collect(const struct cr_anchor_sources *src, struct cr_anchors *ret)
{
	struct cr_anchors s = {};
	char *cache = NULL;
	int r = 0;

	if (src->dirs && src->dirs->user_dir && !src->dirs->user_unreadable)
		r = push(&s, "configuration directory", parent_of(src->dirs->user_dir), false, 0700);
	if (r >= 0 && src->dirs && src->dirs->system_dir)
		r = push(&s, "system configuration directory", parent_of(src->dirs->system_dir),
			 false, 0755);
	if (r >= 0 && src->profile && strchr(src->profile, '/'))
		r = push(&s, "profile", absolute(src->profile), true, 0);
	if (r >= 0 && src->seccomp_profile)
		r = push(&s, "seccomp profile", absolute(src->seccomp_profile), true, 0);
	if (r >= 0 && src->state_dir)
		r = push(&s, "state directory", strdup(src->state_dir), false, 0700);
	if (r >= 0 && src->audit_path)
		r = push(&s, "ledger", absolute(src->audit_path), true, 0);
	if (r >= 0 && (r = cache_dir(src->env, &cache)) > 0)
		r = push(&s, "cache directory", cache, false, 0700);
	if (r < 0) {
		cr_anchors_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}

void cr_anchors_done(struct cr_anchors *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->a[i].path);
	*a = (struct cr_anchors){};
}

/* --- the policy's view -------------------------------------------------------------------- */

/* The rule that decides what the sandbox may do at @path: the innermost one that contains it
 * (binds are mounted parent first, so the deepest one is on top). NULL: none, the path is not
 * the host's in the sandbox. Pins need no look: each lies inside a writable rule and is
 * writable itself. */
static const struct cr_path_rule *innermost(const struct cr_policy *p, const char *path,
					    struct cr_path_rule *ws)
{
	const struct cr_path_rule *best = NULL;
	size_t best_len = 0;

	*ws = (struct cr_path_rule){ p->workspace, p->workspace_ro ? CR_PATH_RO : CR_PATH_RW };
	if (cr_path_is_within(path, p->workspace)) {
		best = ws;
		best_len = strlen(p->workspace);
	}
	for (size_t i = 0; i < p->n_paths; i++)
		if (strlen(p->paths[i].path) > best_len && cr_path_is_within(path, p->paths[i].path)) {
			best = &p->paths[i];
			best_len = strlen(best->path);
		}
	return best;
}

/* Can the command change what is at @path: create, rename or remove entries in it? */
static bool writable(const struct cr_policy *p, const char *path, const char **ret_by)
{
	struct cr_path_rule ws;
	const struct cr_path_rule *r = innermost(p, path, &ws);

	if (ret_by)
		*ret_by = r ? (r == &ws ? p->workspace : r->path) : NULL;
	return r && r->access == CR_PATH_RW;
}

/* Is @path a mount point of the sandbox (the workspace, a rule's own path, a pin)? */
static bool mount_point(const struct cr_policy *p, const char *path)
{
	if (strcmp(path, p->workspace) == 0)
		return true;
	for (size_t i = 0; i < p->n_paths; i++)
		if (strcmp(p->paths[i].path, path) == 0)
			return true;
	for (size_t i = 0; i < p->n_pins; i++)
		if (strcmp(p->pins[i], path) == 0)
			return true;
	return false;
}

/* Could the sandbox's process find @path: search permission on each directory on the way that
 * the sandbox sees from the host? Only a question when root started corral: the sandbox then
 * runs as p->uid, without supplementary groups, and a directory of root's it may not search
 * cannot be bound (nor reached to be renamed). A user's sandbox runs as the user, and could
 * chmod its own directories anyway. */
/* Root's sandbox in a writable path another host user owns acts there as that owner (an
 * idmapped mount, ns/idmap.h): a directory of the owner's is its own, which it could chmod. */
static bool acts_as_owner(const struct cr_policy *p, const struct cr_path_rule *rule,
			  const struct stat *st)
{
	struct stat top;

	return rule->access == CR_PATH_RW && stat(rule->path, &top) == 0 && top.st_uid != p->uid &&
	       st->st_uid == top.st_uid;
}

static bool reaches(const struct cr_policy *p, const char *path)
{
	char prefix[PATH_MAX];
	struct cr_path_rule ws;
	const struct cr_path_rule *rule;
	struct stat st;
	size_t n = strlen(path);

	if (geteuid() != 0 || n >= sizeof(prefix))
		return true;
	memcpy(prefix, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		mode_t bit;

		if (prefix[i] != '/' && prefix[i] != '\0')
			continue;
		prefix[i] = '\0';
		rule = innermost(p, prefix, &ws);
		if (rule && stat(prefix, &st) == 0 && !acts_as_owner(p, rule, &st)) {
			bit = st.st_uid == p->uid ? S_IXUSR : st.st_gid == p->gid ? S_IXGRP : S_IXOTH;
			if (!(st.st_mode & bit))
				return false;
		}
		prefix[i] = path[i];
	}
	return true;
}

static int add_rule(struct cr_policy *p, const char *path, enum cr_path_access access)
{
	struct cr_path_rule *v;
	char *copy = strdup(path);

	v = copy ? reallocarray(p->paths, p->n_paths + 1, sizeof(*v)) : NULL;
	if (!v) {
		free(copy);
		return -ENOMEM;
	}
	p->paths = v;
	p->paths[p->n_paths++] = (struct cr_path_rule){ copy, access };
	return 0;
}

static int add_pin(struct cr_policy *p, const char *path)
{
	char **v, *copy = strdup(path);

	v = copy ? reallocarray(p->pins, p->n_pins + 1, sizeof(*v)) : NULL;
	if (!v) {
		free(copy);
		return -ENOMEM;
	}
	p->pins = v;
	p->pins[p->n_pins++] = copy;
	return 0;
}

/* --- resolving an anchor ------------------------------------------------------------------ */

/* An anchor as corral reaches it: every directory entered on the way (canonical, in order), and
 * the canonical path, whose tail may be missing. */
struct trail {
	const struct cr_anchor *anchor;
	char *canon;
	char **dirs;
	size_t n_dirs;
	size_t existing; /* length of the canonical prefix that exists (0: "/") */
	bool missing;	 /* the tail after existing is not there */
	bool blocked;	 /* corral itself may not search a directory on the way */
};

static void trail_done(struct trail *t)
{
	free(t->canon);
	for (size_t i = 0; i < t->n_dirs; i++)
		free(t->dirs[i]);
	free(t->dirs);
	*t = (struct trail){};
}

static int trail_add(struct trail *t, const char *dir)
{
	char **v = reallocarray(t->dirs, t->n_dirs + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->dirs = v;
	t->dirs[t->n_dirs] = strdup(dir);
	if (!t->dirs[t->n_dirs])
		return -ENOMEM;
	t->n_dirs++;
	return 0;
}

/* A symbolic link at @link in @dir: refused if the sandbox may write @dir; otherwise its target
 * goes in front of @rest. */
static int follow(const struct cr_policy *p, const struct trail *t, const char *dir,
		  const char *link, char *rest, size_t rest_size, char **pos, char *msg, size_t size)
{
	char target[PATH_MAX], joined[2 * PATH_MAX];
	const char *by;
	ssize_t k;

	if (writable(p, *dir ? dir : "/", &by))
		return cr_msg(msg, size, -EPERM,
			      "corral's %s %s is reached through the symbolic link %s, inside %s, which the command may write: it could replace the link and choose what later runs read; name the link's target instead, or keep %s out of the writable paths",
			      t->anchor->what, t->anchor->path, link, by, by);
	k = readlink(link, target, sizeof(target) - 1);
	if (k < 0)
		return negative_errno();
	target[k] = '\0';
	if (snprintf(joined, sizeof(joined), "%s/%s", target, *pos) >= (int)rest_size)
		return -ENAMETOOLONG;
	memcpy(rest, joined, strlen(joined) + 1);
	*pos = rest;
	return target[0] == '/';
}

/* A file of corral's with a second name inside a writable path: a command could have made that
 * name (a hard link stays within one mount, so only inside the writable path around it) and
 * would change the file through it in a later run. */
static int check_links(const struct cr_policy *p, const struct trail *t, char *msg, size_t size)
{
	_cleanup_free_ char *dir = strndup(t->canon, (size_t)(strrchr(t->canon, '/') - t->canon) ?: 1);
	const char *by;
	struct stat st;

	if (!dir)
		return -ENOMEM;
	if (!writable(p, dir, &by) || lstat(t->canon, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_nlink < 2)
		return 0;
	return cr_msg(msg, size, -EPERM,
		      "corral's %s %s has %lu names (hard links), and lies inside %s, which the command may write: a command may have made another name and could change the file through it; give corral a file with one name",
		      t->anchor->what, t->canon, (unsigned long)st.st_nlink, by);
}

/* Resolve @t->anchor as the kernel would, one component at a time, recording the directories. */
static int walk(const struct cr_policy *p, struct trail *t, char *msg, size_t size)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX], *pos = rest;
	unsigned links = 0;
	struct stat st;
	int r;

	if (snprintf(rest, sizeof(rest), "%s", t->anchor->path) >= (int)sizeof(rest))
		return -ENAMETOOLONG;
	for (;;) {
		size_t len, n = strlen(cur);

		pos += strspn(pos, "/");
		if (!*pos)
			break;
		len = strcspn(pos, "/");
		if (len == 1 && pos[0] == '.') {
			pos += len;
			continue;
		}
		if (len == 2 && pos[0] == '.' && pos[1] == '.') {
			pos += len;
			*(strrchr(cur, '/') ?: cur) = '\0';
			continue;
		}
		if (n + 1 + len >= sizeof(cur))
			return -ENAMETOOLONG;
		cur[n] = '/';
		memcpy(cur + n + 1, pos, len);
		cur[n + 1 + len] = '\0';
		pos += len;
		if (t->missing || t->blocked)
			continue;
		if (lstat(cur, &st) < 0) {
			if (errno != ENOENT && errno != EACCES)
				return negative_errno();
			t->blocked = errno == EACCES; /* nor can the sandbox, which has less */
			t->missing = true;
			t->existing = n;
			continue;
		}
		if (S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];

			memcpy(link, cur, strlen(cur) + 1);
			cur[n] = '\0';
			if (++links > MAX_LINKS)
				return -ELOOP;
			r = follow(p, t, cur, link, rest, sizeof(rest), &pos, msg, size);
			if (r < 0)
				return r;
			if (r > 0)
				cur[0] = '\0';
			continue;
		}
		if (!S_ISDIR(st.st_mode) && pos[strspn(pos, "/")]) {
			/* Not a directory on the way: corral finds nothing there, and neither
			 * could the sandbox make anything, unless it may replace it. */
			const char *by;

			cur[n] = '\0';
			if (writable(p, *cur ? cur : "/", &by))
				return cr_msg(msg, size, -EPERM,
					      "corral's %s %s lies below %s/%.*s, which is not a directory, inside %s, which the command may write: it could put a directory there for later runs to read; remove it, or keep %s out of the writable paths",
					      t->anchor->what, t->anchor->path, cur, (int)len,
					      pos - len, by, by);
			t->blocked = t->missing = true;
			t->existing = n;
			continue;
		}
		if (S_ISDIR(st.st_mode) && (r = trail_add(t, cur)) < 0)
			return r;
	}
	if (!t->missing)
		t->existing = strlen(cur);
	t->canon = strdup(cur[0] ? cur : "/");
	if (!t->canon)
		return -ENOMEM;
	return t->anchor->file && !t->missing ? check_links(p, t, msg, size) : 0;
}

/* Make the missing directories of @t below its existing part, with the anchor's mode, never
 * following a symbolic link; each made one joins the trail. */
static int make_missing(struct trail *t)
{
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *path = strdup(t->canon);
	char *name, *end;
	int r;

	if (!path)
		return -ENOMEM;
	path[t->existing] = '\0';
	fd = open(t->existing ? path : "/", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	path[t->existing] = '/';
	for (name = path + t->existing + 1; *name; name = end + 1) {
		int next;

		end = name + strcspn(name, "/");
		*end = '\0';
		if (mkdirat(fd, name, t->anchor->mode) < 0 && errno != EEXIST)
			return negative_errno();
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			return negative_errno();
		closep(&fd);
		fd = next;
		r = trail_add(t, path);
		if (r < 0)
			return r;
		if (t->canon[end - path] == '\0')
			break;
		*end = '/';
	}
	t->missing = false;
	t->existing = strlen(t->canon);
	return 0;
}

/* A missing anchor the sandbox could make is made now, so that it can be shown read-only. One
 * that corral's user cannot make (EACCES, EPERM, EROFS) the sandbox cannot make either: its
 * existing directories are still pinned. */
static int make_if_missing(const struct cr_policy *p, struct trail *t, char *msg, size_t size)
{
	_cleanup_free_ char *existing = NULL;
	const char *by;
	int r;

	if (!t->missing || t->blocked || t->anchor->file)
		return 0;
	existing = strndup(t->canon, t->existing ?: 1);
	if (!existing)
		return -ENOMEM;
	if (!writable(p, existing, &by))
		return 0;
	r = make_missing(t);
	if (r == -EACCES || r == -EPERM || r == -EROFS) {
		cr_debug("%s %s: cannot be made (%s), by corral nor by the sandbox", t->anchor->what,
			 t->canon, strerror(-r));
		return 0;
	}
	if (r < 0 && r != -ENOMEM)
		return cr_msg(msg, size, r, "cannot make corral's %s %s inside %s: %s",
			      t->anchor->what, t->canon, by, strerror(-r));
	if (r >= 0)
		cr_debug("%s %s made, inside %s", t->anchor->what, t->canon, by);
	return r;
}

/* --- guarding ----------------------------------------------------------------------------- */

/* A writable path inside an anchor (or the anchor itself) would hand it to the command. */
static int refuse_writable_inside(const struct cr_policy *p, const struct trail *t,
				  const char *session_workspace, char *msg, size_t size)
{
	for (size_t i = 0; i <= p->n_paths; i++) {
		const char *w = i == p->n_paths ? p->workspace : p->paths[i].path;
		bool rw = i == p->n_paths ? !p->workspace_ro : p->paths[i].access == CR_PATH_RW;

		if (!rw || !cr_path_is_within(w, t->canon))
			continue;
		if (session_workspace && cr_path_is_within(w, session_workspace))
			continue; /* the session's workspace, which corral assigned */
		return cr_msg(msg, size, -EPERM,
			      "%s %s would be writable, but it lies inside corral's %s %s: the command could change what later runs read as policy; choose a path outside it",
			      i == p->n_paths ? "the workspace" : "--rw", w, t->anchor->what, t->canon);
	}
	return 0;
}

/* Pin each directory on the way that the command could rename or remove, then show the anchor
 * read-only if the command could otherwise change it. */
static int protect(struct cr_policy *p, const struct trail *t)
{
	_cleanup_free_ char *parent = NULL;
	struct cr_path_rule ws;
	const struct cr_path_rule *in;
	int r;

	for (size_t i = 0; i < t->n_dirs; i++) {
		const char *d = t->dirs[i], *by;

		if (strcmp(d, t->canon) == 0 || mount_point(p, d))
			continue;
		free(parent);
		parent = strndup(d, (size_t)(strrchr(d, '/') - d) ?: 1);
		if (!parent)
			return -ENOMEM;
		if (!writable(p, parent, &by) || !reaches(p, parent))
			continue;
		r = add_pin(p, d);
		if (r < 0)
			return r;
		cr_debug("%s %s: %s, inside %s, pinned (a mount point of itself: it cannot be moved)",
			 t->anchor->what, t->canon, d, by);
	}
	if (t->missing)
		return 0;
	in = innermost(p, t->canon, &ws);
	free(parent);
	parent = strndup(t->canon, (size_t)(strrchr(t->canon, '/') - t->canon) ?: 1);
	if (!parent)
		return -ENOMEM;
	if (!in || in->access != CR_PATH_RW || !reaches(p, parent))
		return 0;
	r = add_rule(p, t->canon, CR_PATH_RO);
	if (r >= 0)
		cr_debug("%s %s is inside %s, which the command may write: shown read-only",
			 t->anchor->what, t->canon, in == &ws ? p->workspace : in->path);
	return r;
}

static int cmp_depth(const void *a, const void *b)
{
	unsigned x = cr_path_depth(((const struct trail *)a)->canon);
	unsigned y = cr_path_depth(((const struct trail *)b)->canon);

	return x < y ? -1 : x > y;
}

int cr_policy_guard(struct cr_policy *p, const struct cr_anchors *anchors,
		    const char *session_workspace, char *msg, size_t size)
{
	struct trail t[CR_ANCHORS_MAX] = {};
	size_t n = 0;
	int r = 0;

	for (; n < anchors->n && r >= 0; n++) {
		t[n].anchor = &anchors->a[n];
		r = walk(p, &t[n], msg, size);
		if (r < 0 && r != -EPERM && r != -ENOMEM)
			r = cr_msg(msg, size, r, "cannot resolve corral's %s %s: %s",
				   anchors->a[n].what, anchors->a[n].path, strerror(-r));
		if (r >= 0)
			r = make_if_missing(p, &t[n], msg, size);
		if (r >= 0)
			r = refuse_writable_inside(p, &t[n], session_workspace, msg, size);
	}
	/* Outer anchors first: one inside another is then already read-only. */
	if (r >= 0)
		qsort(t, n, sizeof(*t), cmp_depth);
	for (size_t i = 0; i < n && r >= 0; i++)
		r = protect(p, &t[i]);
	if (r == -ENOMEM)
		(void)cr_msg(msg, size, r, "out of memory");
	for (size_t i = 0; i < n; i++)
		trail_done(&t[i]);
	return r;
}
