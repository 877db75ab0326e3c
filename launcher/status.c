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
#include "outcome.h"
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

json_object *cr_status_build(const struct cr_status *s)
{
	int sig = s->outcome && s->outcome->kind == CR_OUTCOME_SIGNALED ? s->outcome->status : 0;
	json_object *o = json_object_new_object();
	size_t argc = 0;
	int r;

	while (s->argv && s->argv[argc])
		argc++;
	r = cr_json_add(o, "version", json_object_new_int(CR_STATUS_VERSION));
	r = r ?: cr_json_add(o, "corral_version", json_object_new_string(CR_VERSION));
	r = r ?: cr_json_add(o, "driver", json_object_new_string(s->driver));
	r = r ?: cr_json_add(o, "command", cr_json_strv(s->argv, argc));
	r = r ?: cr_outcome_status_json(o, &(struct cr_outcome_status){
		.outcome = s->outcome,
		.timed_out = s->timed_out,
		.denied = s->denied,
		/* the driver's enforced.degraded */
		.degraded = s->enforced && json_object_get_boolean(
						   json_object_object_get(s->enforced, "degraded")),
		.exit_code = s->exit_code,
		.signal_name = sig ? cr_signal_name(sig) : NULL,
		.duration_ms = s->duration_ms,
		.enforced = s->enforced,
		.error = s->error,
		.errno_name = s->error && s->error->err > 0 ? strerrorname_np(s->error->err) : NULL,
	});
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
