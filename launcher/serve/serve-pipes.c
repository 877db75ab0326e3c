/* SPDX-License-Identifier: MIT */
/* The output pipes of the next exec, made ahead of it: in the loop pass after an exec took the
 * spare pair (its request already sent, its runner under way), the server makes the two pipes
 * (stdout, stderr) that the next one takes, so that the request path has four syscalls fewer
 * (two pipe2(), two fcntl()). A spare pair is new and has never been handed to a sandbox: each
 * pipe still serves one exec only. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "launcher/base/macro.h"
#include "serve-internal.h"

/* One pipe, its read end non-blocking for the poll loop. 0 or -errno. */
static int output_pipe(int ret[2])
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return negative_errno();
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) < 0) {
		int r = negative_errno();

		(void)close(p[0]);
		(void)close(p[1]);
		return r;
	}
	ret[0] = p[0];
	ret[1] = p[1];
	return 0;
}

int serve_pipes_take(struct serve *sv, int ret_read[2], int ret_write[2])
{
	int p[2][2], r;

	if (sv->have_spare) {
		for (int i = 0; i < 2; i++) {
			ret_read[i] = sv->spare[i][0];
			ret_write[i] = sv->spare[i][1];
		}
		sv->have_spare = false;
		return 0;
	}
	r = output_pipe(p[0]);
	if (r < 0)
		return r;
	r = output_pipe(p[1]);
	if (r < 0) {
		(void)close(p[0][0]);
		(void)close(p[0][1]);
		return r;
	}
	for (int i = 0; i < 2; i++) {
		ret_read[i] = p[i][0];
		ret_write[i] = p[i][1];
	}
	return 0;
}

void serve_pipes_refill(struct serve *sv)
{
	int r[2], w[2];

	if (sv->have_spare || !sv->sessions)
		return;
	if (serve_pipes_take(sv, r, w) < 0)
		return; /* out of descriptors now: the next exec tries again, and says why */
	for (int i = 0; i < 2; i++) {
		sv->spare[i][0] = r[i];
		sv->spare[i][1] = w[i];
	}
	sv->have_spare = true;
}

void serve_pipes_done(struct serve *sv)
{
	if (!sv->have_spare)
		return;
	for (int i = 0; i < 2; i++) {
		(void)close(sv->spare[i][0]);
		(void)close(sv->spare[i][1]);
	}
	sv->have_spare = false;
}
