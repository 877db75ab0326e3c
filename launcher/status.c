/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launcher/policy/request.h"
#include "launcher/base/parse-util.h"
#include "launcher/base/json-text.h"
#include "launcher/base/json-util.h"
#include "launcher/base/macro.h"
#include "status.h"

const char *cr_signal_name(int sig)
{
	static char buf[16];
	const char *abbrev = sig > 0 && sig < NSIG ? sigabbrev_np(sig) : NULL;

	if (!abbrev)
		return NULL;
	(void)snprintf(buf, sizeof(buf), "SIG%s", abbrev);
	return buf;
}

static json_object *error_object(const struct cr_setup_error *e)
{
	return cr_outcome_error_json(e, e->err > 0 ? strerrorname_np(e->err) : NULL);
}

static json_object *argv_array(char *const *argv)
{
	json_object *a = json_object_new_array();

	for (; a && argv && *argv; argv++)
		if (cr_json_append(a, json_object_new_string(*argv)) < 0) {
			json_object_put(a);
			return NULL;
		}
	return a;
}

json_object *cr_status_build(const struct cr_status *s)
{
	int sig = s->outcome && s->outcome->kind == CR_OUTCOME_SIGNALED ? s->outcome->status : 0;
	const char *signame = sig ? cr_signal_name(sig) : NULL;
	json_object *o = json_object_new_object();
	bool degraded = s->enforced &&
			json_object_get_boolean(json_object_object_get(s->enforced, "degraded"));
	char duration[32];
	int r;

	/* Microsecond resolution is what the clock gives; more digits would be noise. */
	(void)snprintf(duration, sizeof(duration), "%.3f", s->duration_ms);
	r = cr_json_add(o, "version", json_object_new_int(CR_STATUS_VERSION));
	r = r ?: cr_json_add(o, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(s->driver));
	r = r ?: cr_json_add(o, "command", argv_array(s->argv));
	r = r ?: cr_json_add(o, "outcome", json_object_new_string(cr_outcome_name(
						   s->outcome, s->timed_out, s->denied)));
	r = r ?: cr_json_add(o, "exit_code", json_object_new_int(s->exit_code));
	if (sig)
		r = r ?: cr_json_add(o, "signal", json_object_new_int(sig));
	else
		r = r ?: cr_json_add_null(o, "signal");
	r = r ?: cr_json_add_str(o, "signal_name", signame);
	r = r ?: cr_json_add(o, "timed_out", json_object_new_boolean(s->timed_out));
	r = r ?: cr_json_add(o, "oom_killed",
			     json_object_new_boolean(s->outcome && s->outcome->oom_killed));
	r = r ?: cr_json_add(o, "pids_limit_hit",
			     json_object_new_boolean(s->outcome && s->outcome->pids_limit_hit));
	r = r ?: cr_json_add(o, "duration_ms", json_object_new_double_s(s->duration_ms, duration));
	/* The driver says so in enforced.degraded; repeated here, where no reader can miss it. */
	r = r ?: cr_json_add(o, "degraded", json_object_new_boolean(degraded));
	if (s->enforced)
		r = r ?: cr_json_add(o, "enforced", json_object_get(s->enforced));
	else
		r = r ?: cr_json_add_null(o, "enforced");
	if (s->error)
		r = r ?: cr_json_add(o, "error", error_object(s->error));
	else
		r = r ?: cr_json_add_null(o, "error");
	return cr_json_whole(o, r);
}

int cr_status_open(const char *dest, bool *ret_owned, char *msg, size_t size)
{
	uint64_t v;
	int fd;

	if (strncmp(dest, "fd:", 3) == 0) {
		if (cr_parse_uint(dest + 3, 0, INT_MAX, &v) < 0) {
			(void)snprintf(msg, size, "--json-status '%s': expected fd:N", dest);
			return -EINVAL;
		}
		if (fcntl((int)v, F_GETFL) < 0) {
			(void)snprintf(msg, size, "--json-status %s: descriptor %d is not open", dest,
				       (int)v);
			return -EBADF;
		}
		*ret_owned = false;
		return (int)v;
	}
	if (!*dest) {
		(void)snprintf(msg, size, "--json-status: empty destination");
		return -EINVAL;
	}
	fd = open(dest, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0644);
	if (fd < 0) {
		int r = negative_errno();

		(void)snprintf(msg, size, "--json-status '%s': %s", dest, strerror(-r));
		return r;
	}
	*ret_owned = true;
	return fd;
}

int cr_status_write(json_object *st, int fd)
{
	_cleanup_free_ char *text = cr_json_text(st, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t len, off = 0;

	if (!text)
		return -ENOMEM;
	len = strlen(text);

	while (off < len) {
		ssize_t n = write(fd, text + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return negative_errno();
		off += (size_t)n;
	}
	return write(fd, "\n", 1) == 1 ? 0 : negative_errno();
}
