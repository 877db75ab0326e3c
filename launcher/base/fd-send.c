/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "fd-util.h"

int cr_send_fds(int sock, const void *m, size_t size, const int *fds, size_t n_fds, int flags)
{
	char cbuf[CMSG_SPACE(CR_SEND_FDS_MAX * sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)m, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (n_fds > CR_SEND_FDS_MAX)
		return -EINVAL;
	if (n_fds) {
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(n_fds * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n_fds * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n_fds * sizeof(int));
	}
	if (sendmsg(sock, &mh, flags | MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}
