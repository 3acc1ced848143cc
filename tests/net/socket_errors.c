// SPDX-License-Identifier: GPL-2.0
/* Description: socket uring_cmds fail like the ioctls: -EINVAL on a listening TCP socket, -EOPNOTSUPP for unknown ops and unsupported protocols */
/*
 * Usage: socket_errors
 *
 *   listening TCP (v4, v6), SIOCINQ and SIOCOUTQ       -EINVAL (as the ioctl)
 *   unknown op (99, 0x80000000) on TCP and UDP         -EOPNOTSUPP
 *   AF_UNIX stream/dgram/seqpacket, AF_NETLINK          -EOPNOTSUPP
 * each both inline and with IOSQE_ASYNC.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/sockios.h>

#include "t_helpers.h"

static struct io_uring ring;

static const char *opname(__u32 op)
{
	static char buf[32];

	if (op == SOCKET_URING_OP_SIOCINQ)
		return "SIOCINQ";
	if (op == SOCKET_URING_OP_SIOCOUTQ)
		return "SIOCOUTQ";
	snprintf(buf, sizeof(buf), "op %#x", op);
	return buf;
}

static void expect(const char *what, int fd, __u32 op, int want)
{
	static const __u8 modes[] = { 0, IOSQE_ASYNC };
	size_t i;
	int res;

	for (i = 0; i < sizeof(modes); i++) {
		const char *how = modes[i] ? "IOSQE_ASYNC" : "inline";

		if (t_sock_cmd(&ring, fd, op, modes[i], &res))
			continue;
		if (res != want)
			t_error("%s %s (%s): res %s, expected %s", what, opname(op),
				how, t_res_str(res), t_res_str(want));
		else
			t_info("%s %s (%s): %s", what, opname(op), how,
			       t_res_str(res));
	}
}

static void listening_tcp(const char *name, int family)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char what[64];
	int fd, v;

	memset(&ss, 0, sizeof(ss));
	ss.ss_family = family;	/* the wildcard address, port 0 */
	len = family == AF_INET ? sizeof(struct sockaddr_in) :
				  sizeof(struct sockaddr_in6);
	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		t_info("%s: no socket (%s), skipped", name, t_errname(errno));
		return;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 4))
		t_die("%s: bind/listen: %m", name);

	/* the ioctls agree that a listener has no queue sizes */
	if (t_sock_ioctl(fd, SIOCINQ, &v) != -EINVAL ||
	    t_sock_ioctl(fd, SIOCOUTQ, &v) != -EINVAL)
		t_error("%s: ioctl SIOCINQ/SIOCOUTQ on a listener did not fail with EINVAL",
			name);

	snprintf(what, sizeof(what), "listening %s", name);
	expect(what, fd, SOCKET_URING_OP_SIOCINQ, -EINVAL);
	expect(what, fd, SOCKET_URING_OP_SIOCOUTQ, -EINVAL);
	close(fd);
}

static void unknown_ops(const char *name, int family, int type)
{
	int fd = socket(family, type | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		t_info("%s: no socket (%s), skipped", name, t_errname(errno));
		return;
	}
	expect(name, fd, 99, -EOPNOTSUPP);
	expect(name, fd, 0x80000000u, -EOPNOTSUPP);
	close(fd);
}

static void unsupported(const char *name, int family, int type, int proto)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd < 0) {
		t_info("%s: no socket (%s), skipped", name, t_errname(errno));
		return;
	}
	expect(name, fd, SOCKET_URING_OP_SIOCINQ, -EOPNOTSUPP);
	expect(name, fd, SOCKET_URING_OP_SIOCOUTQ, -EOPNOTSUPP);
	close(fd);
}

int main(void)
{
	int ret = t_ring_init(&ring, 8, 0);

	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));

	listening_tcp("tcp4", AF_INET);
	listening_tcp("tcp6", AF_INET6);

	unknown_ops("tcp4", AF_INET, SOCK_STREAM);
	unknown_ops("udp4", AF_INET, SOCK_DGRAM);
	unknown_ops("tcp6", AF_INET6, SOCK_STREAM);

	unsupported("unix stream", AF_UNIX, SOCK_STREAM, 0);
	unsupported("unix dgram", AF_UNIX, SOCK_DGRAM, 0);
	unsupported("unix seqpacket", AF_UNIX, SOCK_SEQPACKET, 0);
	unsupported("netlink route", AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	if (!t_cq_empty(&ring))
		t_error("unexpected extra completion in the CQ ring");
	io_uring_queue_exit(&ring);
	return t_result();
}
