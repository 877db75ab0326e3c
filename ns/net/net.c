/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>

#include "launcher/base/macro.h"
#include "net.h"

static void mnl_socket_closep(struct mnl_socket **nl)
{
	if (*nl)
		(void)mnl_socket_close(*nl);
}

int cr_net_loopback_up(void)
{
	__attribute__((cleanup(mnl_socket_closep))) struct mnl_socket *nl = NULL;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct ifinfomsg *ifm;
	unsigned seq, portid;
	ssize_t n;
	int r;

	nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return negative_errno();
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		return negative_errno();
	portid = mnl_socket_get_portid(nl);
	seq = (unsigned)time(NULL);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWLINK;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	ifm = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifm));
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = 1; /* "lo" is always index 1 in a fresh namespace */
	ifm->ifi_change = IFF_UP;
	ifm->ifi_flags = IFF_UP;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return negative_errno();
	n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
	if (n < 0)
		return negative_errno();
	/* mnl_cb_run() turns an NLMSG_ERROR with a non-zero code into -1 with errno set. */
	r = mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL);
	if (r < 0)
		return negative_errno();
	return 0;
}
