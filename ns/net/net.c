/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <string.h>

#include "launcher/base/macro.h"
#include "net.h"

/* One RTM_NEWLINK request and its acknowledgement, over a socket of its own: two small messages
 * that need no library (the kernel binds the socket at the first send). */
int cr_net_loopback_up(void)
{
	_cleanup_close_ int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifm;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_NEWLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK, .nlmsg_seq = 1 },
		/* "lo" is always index 1 in a fresh namespace */
		.ifm = { .ifi_family = AF_UNSPEC, .ifi_index = 1, .ifi_change = IFF_UP,
			 .ifi_flags = IFF_UP },
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	union {
		struct nlmsghdr nh;
		char buf[512];
	} ack;
	const struct nlmsgerr *e = NLMSG_DATA(&ack.nh);
	ssize_t n;

	if (fd < 0)
		return negative_errno();
	if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return negative_errno();
	do
		n = recv(fd, &ack, sizeof(ack), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return negative_errno();
	if (!NLMSG_OK(&ack.nh, (size_t)n) || ack.nh.nlmsg_seq != req.nh.nlmsg_seq ||
	    ack.nh.nlmsg_type != NLMSG_ERROR || ack.nh.nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EPROTO;
	/* An acknowledgement is an NLMSG_ERROR whose code is 0; else the code is -errno. */
	return e->error <= 0 ? e->error : -EPROTO;
}
