/* SPDX-License-Identifier: MIT */
/* config.json's hooks (hooks.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "container.h"
#include "hooks.h"
#include "launcher/base/fd-util.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "launcher/base/time-util.h"

#define HOOKS_FILE   "hooks.json"
#define HOOKS_MAX    (1u << 20)
#define HOOK_ERR_MAX 512

/* @s as execve() takes it, NULL-terminated (in the hook's process: it is exec'd or exits). */
static char *const *strv_z(const struct cr_oci_strv *s)
{
	char **v = calloc(s->n + 1, sizeof(char *));

	for (size_t i = 0; v && i < s->n; i++)
		v[i] = (char *)s->v[i];
	return v;
}

/* The hook's process: stdin from @in, stdout to /dev/null, stderr to @errw. */
static _Noreturn void hook_child(const struct cr_oci_hook *h, int in, int errw)
{
	static char *const no_env[] = { NULL };
	char *argv0[] = { (char *)h->path, NULL };
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (dup2(in, 0) < 0 || null < 0 || dup2(null, 1) < 0 || dup2(errw, 2) < 0)
		_exit(127);
	(void)sigprocmask(SIG_SETMASK, &(sigset_t){}, NULL);
	execve(h->path, h->args.n ? strv_z(&h->args) : argv0, h->env.n ? strv_z(&h->env) : no_env);
	dprintf(2, "cannot run %s: %m", h->path);
	_exit(127);
}

/* Wait for @pid, reading its stderr from @errr into @buf, at most @timeout seconds (0: none). */
static int hook_wait(pid_t pid, int errr, int timeout, char *buf, size_t size, int *ret_status)
{
	double deadline = timeout ? cr_now_ms_f() + timeout * 1000.0 : 0;
	size_t len = 0;
	int r = 0;

	for (;;) {
		struct pollfd p = { .fd = errr, .events = POLLIN };
		int ms = deadline ? (int)(deadline - cr_now_ms_f()) : -1;
		ssize_t n;

		if (deadline && ms <= 0) {
			(void)kill(pid, SIGKILL);
			r = -ETIME;
			break;
		}
		if (poll(&p, 1, ms) < 0 && errno != EINTR)
			break;
		if (!p.revents)
			continue;
		n = read(errr, buf + len, size - 1 - len);
		if (n <= 0)
			break; /* its stderr closed: it ended (or closed it) */
		len += (size_t)n;
		if (len == size - 1)
			len = 0; /* keep the last of it */
	}
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	buf[len] = '\0';
	while (waitpid(pid, ret_status, 0) < 0)
		if (errno != EINTR)
			return negative_errno();
	return r;
}

static int run_one(const struct cr_oci_hook *h, const char *state, char *out, size_t size,
		   int *ret_status)
{
	_cleanup_close_ int inr = -EBADF, inw = -EBADF, errr = -EBADF, errw = -EBADF;
	int in[2], e[2];
	void (*sig)(int);
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) < 0)
		return negative_errno();
	inr = in[0], inw = in[1];
	if (pipe2(e, O_CLOEXEC) < 0)
		return negative_errno();
	errr = e[0], errw = e[1];
	pid = fork();
	if (pid < 0)
		return negative_errno();
	if (pid == 0)
		hook_child(h, inr, errw);
	closep(&inr);
	closep(&errw);
	/* the state, then EOF; a hook that does not read it gets EPIPE, which is not its failure */
	sig = signal(SIGPIPE, SIG_IGN);
	(void)cr_write_all(inw, state, strlen(state));
	(void)signal(SIGPIPE, sig);
	closep(&inw);
	return hook_wait(pid, errr, h->timeout, out, size, ret_status);
}

int oci_hooks_run(const struct cr_oci_config *c, enum cr_oci_hook_kind kind, const char *state,
		  char *err, size_t size)
{
	for (size_t i = 0; i < c->n_hooks[kind]; i++) {
		const struct cr_oci_hook *h = &c->hooks[kind][i];
		char out[HOOK_ERR_MAX];
		int status = 0, r = run_one(h, state, out, sizeof(out), &status);

		if (r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (r == -ETIME)
			(void)snprintf(err, size, "hooks.%s[%zu] %s: killed at its timeout (%d s)%s%s",
				       cr_oci_hook_name(kind), i, h->path, h->timeout,
				       out[0] ? ": " : "", out);
		else if (r < 0)
			(void)snprintf(err, size, "hooks.%s[%zu] %s: %s", cr_oci_hook_name(kind), i,
				       h->path, strerror(-r));
		else
			(void)snprintf(err, size, "hooks.%s[%zu] %s: %s %d%s%s",
				       cr_oci_hook_name(kind), i, h->path,
				       WIFEXITED(status) ? "exit status" : "killed by signal",
				       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				       out[0] ? ": " : "", out);
		return r < 0 ? r : -ECHILD;
	}
	return 0;
}

static json_object *strv_json(const struct cr_oci_strv *s)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < s->n; i++)
		if (json_object_array_add(a, json_object_new_string(s->v[i])) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

static int add_kind(json_object *hooks, const struct cr_oci_config *c, enum cr_oci_hook_kind k)
{
	json_object *a = json_object_new_array();
	int r = a ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < c->n_hooks[k]; i++) {
		const struct cr_oci_hook *h = &c->hooks[k][i];
		json_object *o = json_object_new_object();

		r = o ? 0 : -ENOMEM;
		r = r ?: cr_json_add(o, "path", json_object_new_string(h->path));
		if (r >= 0 && h->args.n)
			r = cr_json_add(o, "args", strv_json(&h->args));
		if (r >= 0 && h->env.n)
			r = cr_json_add(o, "env", strv_json(&h->env));
		if (r >= 0 && h->timeout)
			r = cr_json_add(o, "timeout", json_object_new_int(h->timeout));
		if (r >= 0)
			r = json_object_array_add(a, o) < 0 ? -ENOMEM : 0;
		else
			json_object_put(o);
	}
	if (r < 0) {
		json_object_put(a);
		return r;
	}
	return cr_json_add(hooks, cr_oci_hook_name(k), a);
}

json_object *oci_hooks_doc(const struct cr_oci_config *c)
{
	json_object *o = json_object_new_object(), *root = json_object_new_object(),
		    *hooks = json_object_new_object();
	int r = 0;

	r = r ?: cr_json_add(o, "ociVersion", json_object_new_string(CR_OCI_VERSION_MAX));
	r = r ?: cr_json_add(root, "path", json_object_new_string("/"));
	r = r ?: cr_json_add(o, "root", json_object_get(root));
	r = r ?: add_kind(hooks, c, CR_OCI_HOOK_POSTSTART);
	r = r ?: add_kind(hooks, c, CR_OCI_HOOK_POSTSTOP);
	r = r ?: cr_json_add(o, "hooks", json_object_get(hooks));
	json_object_put(root);
	json_object_put(hooks);
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

int oci_hooks_load(int dfd, struct cr_oci_config *ret)
{
	_cleanup_close_ int fd = openat(dfd, HOOKS_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	char err[256];
	ssize_t n;

	*ret = (struct cr_oci_config){};
	if (fd < 0)
		return errno == ENOENT ? 0 : negative_errno();
	text = malloc(HOOKS_MAX);
	if (!text)
		return -ENOMEM;
	n = read(fd, text, HOOKS_MAX - 1);
	if (n < 0)
		return negative_errno();
	text[n] = '\0';
	return cr_oci_config_parse(text, (size_t)n, ret, err, sizeof(err));
}
