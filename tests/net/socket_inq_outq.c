// SPDX-License-Identifier: GPL-2.0
/* Description: SOCKET_URING_OP_SIOCINQ/SIOCOUTQ answer what ioctl(SIOCINQ/SIOCOUTQ) answers on tcp, udp, udplite and raw sockets, v4 and v6 */
/*
 * Usage: socket_inq_outq            (needs "lo" up; raw sockets need CAP_NET_RAW)
 *
 * Each queue is put in a known, stable state on loopback (data queued at a
 * receiver that does not read; a TCP sender whose peer's window is full; a
 * UDP/raw sender holding corked MSG_MORE data), then read as
 *   ioctl, uring_cmd inline, uring_cmd IOSQE_ASYNC, ioctl
 * and retried until both ioctl answers agree; both uring_cmd answers must
 * equal them. Since uring_cmd and the ioctl share the kernel's computation
 * (patch 0004), the answers are also checked against what the test knows:
 * TCP with the peer's window full, the uring_cmd SIOCOUTQ of the sender
 * plus SIOCINQ of the receiver is every byte sent (nothing is read and
 * loopback loses nothing); corked UDP/raw data counts at least its 500
 * bytes in SIOCOUTQ. And TCP bytes sent but not acknowledged, which
 * loopback otherwise acknowledges at once: 700 bytes queued in TCP_REPAIR
 * mode count as sent (snd_nxt moves, nothing reaches the peer), so
 * SIOCOUTQ must be 700 while the peer's SIOCINQ stays 0; an answer that
 * left out the unacknowledged bytes would be 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/sockios.h>

#include "t_helpers.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE	136
#endif
/* RFC 3692 experimental protocol number: nothing else uses it on lo */
#define RAW_PROTO	253

enum { CASE_PASS, CASE_SKIP, CASE_FAIL };

static struct io_uring ring;

struct addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static void loopback(int family, struct addr *a)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&a->ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&a->ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_loopback;
		a->len = sizeof(*sin6);
	}
}

/* A socket bound to the loopback address; -errno if it cannot be had. */
static int bound_socket(int family, int type, int proto, struct addr *a)
{
	int fd = socket(family, type | SOCK_CLOEXEC, proto);

	if (fd < 0)
		return -errno;
	loopback(family, a);
	if (bind(fd, (struct sockaddr *)&a->ss, a->len) ||
	    getsockname(fd, (struct sockaddr *)&a->ss, &a->len)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static const char *opname(int op)
{
	return op == SOCKET_URING_OP_SIOCINQ ? "SIOCINQ" : "SIOCOUTQ";
}

/* Wait until ioctl(@op) on @fd satisfies @pred against @v; false on timeout. */
static bool wait_ioctl(int fd, int op, bool (*pred)(int, int), int v, int *got)
{
	unsigned long req = op == SOCKET_URING_OP_SIOCINQ ? SIOCINQ : SIOCOUTQ;
	unsigned long long end = t_now_ms() + 3000;

	do {
		if (t_sock_ioctl(fd, req, got))
			return false;
		if (pred(*got, v))
			return true;
		t_sleep_ms(5);
	} while (t_now_ms() < end);
	return false;
}

static bool eq(int a, int b) { return a == b; }
static bool gt(int a, int b) { return a > b; }

/*
 * Compare the uring_cmd answers with the ioctl answers for @op on @fd
 * while the queue is stable; the agreed value goes to *@val.
 */
static bool compare(const char *what, int fd, int op, int *val)
{
	unsigned long req = op == SOCKET_URING_OP_SIOCINQ ? SIOCINQ : SIOCOUTQ;
	int before, after, inl, async, attempt, ret;

	for (attempt = 0; attempt < 50; attempt++) {
		ret = t_sock_ioctl(fd, req, &before);
		if (ret) {
			t_error("%s: ioctl(%s): %s", what, opname(op),
				t_errname(ret));
			return false;
		}
		if (t_sock_cmd(&ring, fd, op, 0, &inl) ||
		    t_sock_cmd(&ring, fd, op, IOSQE_ASYNC, &async))
			return false;
		ret = t_sock_ioctl(fd, req, &after);
		if (ret) {
			t_error("%s: second ioctl(%s): %s", what, opname(op),
				t_errname(ret));
			return false;
		}
		if (before != after) {
			t_sleep_ms(10);
			continue;
		}
		if (inl != before || async != before) {
			t_error("%s: %s uring_cmd %s, IOSQE_ASYNC %s, ioctl %d",
				what, opname(op), t_res_str(inl),
				t_res_str(async), before);
			return false;
		}
		*val = before;
		t_info("%s: %s = %d (ioctl, uring_cmd, async uring_cmd)",
		       what, opname(op), before);
		return true;
	}
	t_error("%s: %s: queue never held still for two ioctls", what,
		opname(op));
	return false;
}

/* compare() and also require @pred(value, @v). */
static bool expect(const char *what, int fd, int op, bool (*pred)(int, int),
		   int v, const char *desc)
{
	int val;

	if (!compare(what, fd, op, &val))
		return false;
	if (!pred(val, v)) {
		t_error("%s: %s = %d, expected %s %d", what, opname(op), val,
			desc, v);
		return false;
	}
	return true;
}

/*
 * A socket kind this kernel does not have (no such family or protocol) is
 * left out; any other reason a socket cannot be had is a failure.
 */
static int skip_case(const char *name, const char *why, int err)
{
	if (err != -EAFNOSUPPORT && err != -EPROTONOSUPPORT &&
	    err != -ESOCKTNOSUPPORT) {
		t_error("%s: %s: %s", name, why, t_errname(-err));
		return CASE_FAIL;
	}
	t_info("%s: skipped: %s%s%s", name, why, err ? ": " : "",
	       err ? t_errname(err) : "");
	return CASE_SKIP;
}

/*
 * Every byte sent is either unacknowledged at the sender (SIOCOUTQ) or
 * unread at the receiver (SIOCINQ): their sum through uring_cmd is @sent
 * once the stack has settled (until an ACK goes out, received bytes count
 * on both sides, so a few retries).
 */
static void tcp_conserved(const char *name, int cfd, int sfd, long sent)
{
	unsigned long long end = t_now_ms() + 3000;
	int outq = -1, inq = -1;

	do {
		if (t_sock_cmd(&ring, cfd, SOCKET_URING_OP_SIOCOUTQ, 0, &outq) ||
		    t_sock_cmd(&ring, sfd, SOCKET_URING_OP_SIOCINQ, 0, &inq))
			return;
		if ((long)outq + inq == sent) {
			t_info("%s: SIOCOUTQ %d + SIOCINQ %d = %ld bytes sent",
			       name, outq, inq, sent);
			return;
		}
		t_sleep_ms(20);
	} while (t_now_ms() < end);
	t_error("%s: uring_cmd SIOCOUTQ %d + SIOCINQ %d = %ld, but %ld bytes were sent",
		name, outq, inq, (long)outq + inq, sent);
}

/* Connect to the listening @lfd at @a: the connecting and accepted sockets. */
static void tcp_connect(const char *name, int family, int lfd,
			const struct addr *a, int *cfd, int *sfd)
{
	*cfd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*cfd < 0 || connect(*cfd, (const struct sockaddr *)&a->ss, a->len))
		t_die("%s: connect: %m", name);
	*sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (*sfd < 0)
		t_die("%s: accept: %m", name);
}

/* 700 bytes "sent" in TCP_REPAIR mode: unacknowledged, never delivered */
static void tcp_unacked(const char *name, int family)
{
	int lfd, cfd, sfd, on = 1, q = TCP_SEND_QUEUE;
	char buf[700], what[64];
	struct addr a;

	lfd = bound_socket(family, SOCK_STREAM, 0, &a);
	if (lfd < 0 || listen(lfd, 1))
		t_die("%s: listener: %m", name);
	tcp_connect(name, family, lfd, &a, &cfd, &sfd);
	if (setsockopt(cfd, IPPROTO_TCP, TCP_REPAIR, &on, sizeof(on)) ||
	    setsockopt(cfd, IPPROTO_TCP, TCP_REPAIR_QUEUE, &q, sizeof(q))) {
		t_error("%s: TCP_REPAIR (needs CAP_NET_ADMIN): %m", name);
		goto out;
	}
	t_fill_pattern(buf, sizeof(buf), 2);
	if (send(cfd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf)) {
		t_error("%s: send in repair mode: %m", name);
		goto out;
	}
	snprintf(what, sizeof(what), "%s 700 bytes unacknowledged", name);
	expect(what, cfd, SOCKET_URING_OP_SIOCOUTQ, eq, 700, "==");
	snprintf(what, sizeof(what), "%s 700 bytes never delivered", name);
	expect(what, sfd, SOCKET_URING_OP_SIOCINQ, eq, 0, "==");
out:
	close(sfd);
	close(cfd);
	close(lfd);
}

static int test_tcp(const char *name, int family)
{
	char buf[4096], what[64];
	unsigned int errs = t_nr_errors();
	int lfd, cfd, sfd, val, small = 4096;
	long total = 0;
	struct addr a;

	lfd = bound_socket(family, SOCK_STREAM, 0, &a);
	if (lfd < 0)
		return skip_case(name, "no loopback listener", lfd);
	/* a small receive window, inherited by the accepted socket */
	setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (listen(lfd, 1))
		t_die("%s: listen: %m", name);
	tcp_connect(name, family, lfd, &a, &cfd, &sfd);

	snprintf(what, sizeof(what), "%s empty, accepted side", name);
	expect(what, sfd, SOCKET_URING_OP_SIOCINQ, eq, 0, "==");
	snprintf(what, sizeof(what), "%s empty, connecting side", name);
	expect(what, cfd, SOCKET_URING_OP_SIOCINQ, eq, 0, "==");

	/* 1000 bytes waiting at the receiver */
	t_fill_pattern(buf, sizeof(buf), 1);
	if (send(cfd, buf, 1000, 0) != 1000)
		t_die("%s: send: %m", name);
	if (!wait_ioctl(sfd, SOCKET_URING_OP_SIOCINQ, eq, 1000, &val))
		t_error("%s: SIOCINQ never reached 1000 (%d)", name, val);
	snprintf(what, sizeof(what), "%s 1000 bytes queued", name);
	expect(what, sfd, SOCKET_URING_OP_SIOCINQ, eq, 1000, "==");

	/* everything sent has been acked */
	if (!wait_ioctl(cfd, SOCKET_URING_OP_SIOCOUTQ, eq, 0, &val))
		t_error("%s: SIOCOUTQ never drained (%d)", name, val);
	snprintf(what, sizeof(what), "%s all acked", name);
	expect(what, cfd, SOCKET_URING_OP_SIOCOUTQ, eq, 0, "==");

	/* fill the peer's window: data stays unacked in the send queue */
	if (fcntl(cfd, F_SETFL, O_NONBLOCK))
		t_die("%s: fcntl: %m", name);
	for (;;) {
		ssize_t n = send(cfd, buf, sizeof(buf), MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0)
			t_die("%s: send: %m", name);
		total += n;
		if (total > (256L << 20))
			t_die("%s: send buffer never filled", name);
	}
	/* let the stack settle: acks, window probes */
	t_sleep_ms(50);
	snprintf(what, sizeof(what), "%s peer window full (%ld sent)", name,
		 total);
	expect(what, cfd, SOCKET_URING_OP_SIOCOUTQ, gt, 0, ">");
	expect(what, sfd, SOCKET_URING_OP_SIOCINQ, gt, 1000, ">");
	tcp_conserved(name, cfd, sfd, 1000 + total);
	tcp_unacked(name, family);

	close(sfd);
	close(cfd);
	close(lfd);
	return t_nr_errors() == errs ? CASE_PASS : CASE_FAIL;
}

/*
 * Raw sockets see every packet of their protocol on the host: let @fd
 * queue only datagrams whose payload starts with @cookie (network order),
 * @hdr bytes into what the socket receives.
 */
static void only_cookie(int fd, int hdr, __u32 cookie)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, hdr),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, cookie, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};

	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)))
		t_die("SO_ATTACH_FILTER: %m");
}

/* UDP, UDP-Lite and raw: datagram sockets with first-packet SIOCINQ. */
static int test_dgram(const char *name, int family, int type, int proto,
		      int hdr)
{
	__u32 cookie = (__u32)getpid() * 2654435761u ^ (__u32)t_now_ms();
	char buf[1024], what[80];
	unsigned int errs = t_nr_errors();
	struct addr ra, sa;
	int rfd, sfd, val;

	rfd = bound_socket(family, type, proto, &ra);
	if (rfd < 0)
		return skip_case(name, "no receiving socket", rfd);
	sfd = bound_socket(family, type, proto, &sa);
	if (sfd < 0) {
		close(rfd);
		return skip_case(name, "no sending socket", sfd);
	}
	/* raw sockets have no ports: the address is enough */
	if (connect(sfd, (struct sockaddr *)&ra.ss, ra.len))
		t_die("%s: connect: %m", name);
	if (type == SOCK_RAW) {
		only_cookie(rfd, hdr, cookie);
		/* drop what other raw traffic came in before the filter */
		while (recv(rfd, buf, sizeof(buf), MSG_DONTWAIT) >= 0)
			;
	}

	snprintf(what, sizeof(what), "%s empty", name);
	expect(what, rfd, SOCKET_URING_OP_SIOCINQ, eq, 0, "==");

	/* two datagrams: SIOCINQ is the length of the first */
	t_fill_pattern(buf, sizeof(buf), 2);
	cookie = htonl(cookie);
	memcpy(buf, &cookie, sizeof(cookie));
	if (send(sfd, buf, 333, 0) != 333 || send(sfd, buf, 444, 0) != 444)
		t_die("%s: send: %m", name);
	if (!wait_ioctl(rfd, SOCKET_URING_OP_SIOCINQ, gt, 0, &val))
		t_error("%s: no datagram arrived", name);
	snprintf(what, sizeof(what), "%s 333+444 byte datagrams queued", name);
	expect(what, rfd, SOCKET_URING_OP_SIOCINQ, eq, hdr + 333, "==");

	/* nothing in flight */
	if (!wait_ioctl(sfd, SOCKET_URING_OP_SIOCOUTQ, eq, 0, &val))
		t_error("%s: SIOCOUTQ never drained (%d)", name, val);
	snprintf(what, sizeof(what), "%s idle sender", name);
	expect(what, sfd, SOCKET_URING_OP_SIOCOUTQ, eq, 0, "==");

	/* corked data is charged to the sender's write allocation */
	if (send(sfd, buf, 500, MSG_MORE) != 500)
		t_die("%s: send(MSG_MORE): %m", name);
	snprintf(what, sizeof(what), "%s 500 bytes corked", name);
	expect(what, sfd, SOCKET_URING_OP_SIOCOUTQ, gt, 499, ">");
	/* uncork: the 500 bytes go out as one datagram */
	if (send(sfd, buf, 0, 0) < 0)
		t_die("%s: send (uncork): %m", name);
	if (!wait_ioctl(sfd, SOCKET_URING_OP_SIOCOUTQ, eq, 0, &val))
		t_error("%s: SIOCOUTQ never drained after uncork (%d)", name, val);

	close(sfd);
	close(rfd);
	return t_nr_errors() == errs ? CASE_PASS : CASE_FAIL;
}

int main(void)
{
	int ret, results[8], n = 0, i, pass = 0, skip = 0;

	if (!t_lo_is_up())
		t_skip("loopback interface lo is down (run: ip link set lo up)");

	ret = t_ring_init(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));

	results[n++] = test_tcp("tcp4", AF_INET);
	results[n++] = test_tcp("tcp6", AF_INET6);
	results[n++] = test_dgram("udp4", AF_INET, SOCK_DGRAM, IPPROTO_UDP, 0);
	results[n++] = test_dgram("udp6", AF_INET6, SOCK_DGRAM, IPPROTO_UDP, 0);
	results[n++] = test_dgram("udplite4", AF_INET, SOCK_DGRAM,
				  IPPROTO_UDPLITE, 0);
	results[n++] = test_dgram("udplite6", AF_INET6, SOCK_DGRAM,
				  IPPROTO_UDPLITE, 0);
	/* raw IPv4 delivers the IP header (20 bytes) with the payload */
	results[n++] = test_dgram("raw4", AF_INET, SOCK_RAW, RAW_PROTO, 20);
	results[n++] = test_dgram("raw6", AF_INET6, SOCK_RAW, RAW_PROTO, 0);

	io_uring_queue_exit(&ring);
	for (i = 0; i < n; i++) {
		pass += results[i] == CASE_PASS;
		skip += results[i] == CASE_SKIP;
	}
	if (t_nr_errors())
		return t_result();
	if (!pass)
		t_skip("every socket kind was unavailable");
	/* make check's kernel has all eight (kernel/guest.config) */
	if (skip && !strcmp(t_env_or("TEST_STRICT", "0"), "1"))
		t_die("%d of %d socket kinds were unavailable (TEST_STRICT=1: all are wanted)",
		      skip, n);
	t_info("%d socket kinds checked, %d skipped", pass, skip);
	return T_EXIT_PASS;
}
