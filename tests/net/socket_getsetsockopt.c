// SPDX-License-Identifier: GPL-2.0
/* Description: SOCKET_URING_OP_GETSOCKOPT/SETSOCKOPT (6.12's ABI) answer and act as getsockopt(2)/setsockopt(2), errors included */
/*
 * Usage: socket_getsetsockopt
 *
 * Written against Linux 6.12's ABI and liburing's io_uring_prep_cmd_sock()
 * (sqe->level, ->optname, ->optval, ->optlen), so it runs unchanged on the
 * 6.1 series and on 6.12. Each command inline and with IOSQE_ASYNC, on
 * TCP and UDP over IPv4 and IPv6 and on an AF_UNIX stream socket:
 *   - GETSOCKOPT of SO_RCVBUF, SO_SNDBUF, SO_TYPE, SO_KEEPALIVE (ints),
 *     SO_LINGER (struct linger) and SO_RCVTIMEO_OLD (struct timeval):
 *     cqe->res is the length getsockopt(2) stores in optlen and the bytes
 *     equal getsockopt(2)'s byte for byte (both buffers prefilled with
 *     0xa5); a 2-byte optlen gets what getsockopt(2) gives for 2 bytes;
 *   - SETSOCKOPT of SO_RCVBUF, SO_SNDBUF, SO_KEEPALIVE and SO_LINGER, and
 *     (TCP) IPPROTO_TCP TCP_NODELAY: res 0, and getsockopt(2) then sees
 *     the same as on a twin socket set with setsockopt(2);
 *   - errors: an unknown SOL_SOCKET option and an unknown level through
 *     SETSOCKOPT, an unknown SOL_SOCKET option through GETSOCKOPT: the
 *     errno of the system call on the same socket; GETSOCKOPT at another
 *     level than SOL_SOCKET (TCP_NODELAY): -EOPNOTSUPP, the documented
 *     limit of the command; an optval pointing at unmapped memory:
 *     -EFAULT both ways; a SETSOCKOPT optlen shorter than the option
 *     (2 bytes of an int, 4 of a struct linger) and a negative optlen:
 *     -EINVAL, as the system calls; a negative GETSOCKOPT optlen: -EINVAL.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "t_helpers.h"

#ifndef SO_RCVTIMEO_OLD
#define SO_RCVTIMEO_OLD	SO_RCVTIMEO
#endif

static struct io_uring ring;
static void *bad_ptr;		/* an unmapped page */

static const __u8 modes[] = { 0, IOSQE_ASYNC };

static const char *how(__u8 mode)
{
	return mode ? "IOSQE_ASYNC" : "inline";
}

/* one socket command; cqe->res, or -EIO with the failure reported */
static int sock_cmd(int fd, int op, int level, int optname, void *optval,
		    int optlen, __u8 sqe_flags)
{
	struct io_uring_sqe *sqe = t_get_sqe(&ring);
	struct t_cqe c;
	int ret;

	io_uring_prep_cmd_sock(sqe, op, fd, level, optname, optval, optlen);
	sqe->flags = sqe_flags;
	sqe->user_data = 0x50c4;
	ret = t_submit_wait_one(&ring, &c, T_TIMEOUT_MS);
	if (ret) {
		t_error("socket command %d: no completion: %s", op,
			t_res_str(ret));
		return -EIO;
	}
	return c.res;
}

struct opt {
	const char	*name;
	int		level;
	int		optname;
	int		len;
};

static const struct opt get_opts[] = {
	{ "SO_RCVBUF", SOL_SOCKET, SO_RCVBUF, sizeof(int) },
	{ "SO_SNDBUF", SOL_SOCKET, SO_SNDBUF, sizeof(int) },
	{ "SO_TYPE", SOL_SOCKET, SO_TYPE, sizeof(int) },
	{ "SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, sizeof(int) },
	{ "SO_LINGER", SOL_SOCKET, SO_LINGER, sizeof(struct linger) },
	{ "SO_RCVTIMEO_OLD", SOL_SOCKET, SO_RCVTIMEO_OLD, sizeof(struct timeval) },
};

/* GETSOCKOPT of @o with @len bytes against getsockopt(2) */
static void check_get(const char *sk, int fd, const struct opt *o, int len)
{
	unsigned char want[64], got[64];
	socklen_t wlen = len;
	size_t m;
	int res;

	for (m = 0; m < sizeof(modes); m++) {
		memset(want, 0xa5, sizeof(want));
		memset(got, 0xa5, sizeof(got));
		wlen = len;
		if (getsockopt(fd, o->level, o->optname, want, &wlen))
			t_die("%s: getsockopt(%s, %d bytes): %m", sk, o->name, len);
		res = sock_cmd(fd, SOCKET_URING_OP_GETSOCKOPT, o->level,
			       o->optname, got, len, modes[m]);
		if (res != (int)wlen)
			t_error("%s GETSOCKOPT %s, %d bytes (%s): res %s, getsockopt(2) optlen %u",
				sk, o->name, len, how(modes[m]), t_res_str(res),
				(unsigned int)wlen);
		else if (memcmp(got, want, sizeof(got)))
			t_error("%s GETSOCKOPT %s, %d bytes (%s): bytes differ from getsockopt(2)",
				sk, o->name, len, how(modes[m]));
	}
}

/* SETSOCKOPT of @val on @fd; setsockopt(2) of the same on @twin; compare */
static void check_set(const char *sk, int fd, int twin, const struct opt *o,
		      const void *val)
{
	unsigned char a[64], b[64];
	socklen_t alen, blen;
	size_t m;
	int res;

	if (setsockopt(twin, o->level, o->optname, val, o->len))
		t_die("%s: setsockopt(%s): %m", sk, o->name);
	for (m = 0; m < sizeof(modes); m++) {
		res = sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, o->level,
			       o->optname, (void *)val, o->len, modes[m]);
		if (res) {
			t_error("%s SETSOCKOPT %s (%s): res %s, expected 0", sk,
				o->name, how(modes[m]), t_res_str(res));
			continue;
		}
		memset(a, 0xa5, sizeof(a));
		memset(b, 0xa5, sizeof(b));
		alen = blen = sizeof(a);
		if (getsockopt(fd, o->level, o->optname, a, &alen) ||
		    getsockopt(twin, o->level, o->optname, b, &blen))
			t_die("%s: getsockopt(%s): %m", sk, o->name);
		if (alen != blen || memcmp(a, b, sizeof(a)))
			t_error("%s SETSOCKOPT %s (%s): getsockopt(2) then differs from the socket set with setsockopt(2)",
				sk, o->name, how(modes[m]));
	}
}

/* a command's res against -errno of the system call, or against @want */
static void expect(const char *sk, const char *what, int res, int want)
{
	if (res != want)
		t_error("%s %s: res %s, expected %s", sk, what, t_res_str(res),
			t_res_str(want));
	else
		t_info("%s %s: %s", sk, what, t_res_str(res));
}

static int sys_set(int fd, int level, int optname, const void *val, int len)
{
	return setsockopt(fd, level, optname, val, len) ? -errno : 0;
}

static int sys_get(int fd, int level, int optname, void *val, int len)
{
	socklen_t l = len;

	return getsockopt(fd, level, optname, val, &l) ? -errno : (int)l;
}

static void check_errors(const char *sk, int fd, bool tcp)
{
	struct linger ling = { 1, 1 };
	unsigned char buf[64];
	char what[128];
	int one = 1;
	size_t m;

	for (m = 0; m < sizeof(modes); m++) {
		__u8 f = modes[m];

		snprintf(what, sizeof(what), "SETSOCKOPT SOL_SOCKET option 12345 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, SOL_SOCKET,
					  12345, &one, sizeof(one), f),
		       sys_set(fd, SOL_SOCKET, 12345, &one, sizeof(one)));
		snprintf(what, sizeof(what), "SETSOCKOPT level 12345 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, 12345, 1,
					  &one, sizeof(one), f),
		       sys_set(fd, 12345, 1, &one, sizeof(one)));
		snprintf(what, sizeof(what), "GETSOCKOPT SOL_SOCKET option 12345 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_GETSOCKOPT, SOL_SOCKET,
					  12345, buf, sizeof(int), f),
		       sys_get(fd, SOL_SOCKET, 12345, buf, sizeof(int)));
		if (tcp) {
			snprintf(what, sizeof(what), "GETSOCKOPT IPPROTO_TCP TCP_NODELAY (%s)", how(f));
			expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_GETSOCKOPT,
						  IPPROTO_TCP, TCP_NODELAY, buf,
						  sizeof(int), f), -EOPNOTSUPP);
		}
		snprintf(what, sizeof(what), "GETSOCKOPT SO_RCVBUF into unmapped memory (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_GETSOCKOPT, SOL_SOCKET,
					  SO_RCVBUF, bad_ptr, sizeof(int), f), -EFAULT);
		snprintf(what, sizeof(what), "SETSOCKOPT SO_RCVBUF from unmapped memory (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, SOL_SOCKET,
					  SO_RCVBUF, bad_ptr, sizeof(int), f), -EFAULT);
		snprintf(what, sizeof(what), "SETSOCKOPT SO_RCVBUF optlen 2 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, SOL_SOCKET,
					  SO_RCVBUF, &one, 2, f),
		       sys_set(fd, SOL_SOCKET, SO_RCVBUF, &one, 2));
		snprintf(what, sizeof(what), "SETSOCKOPT SO_LINGER optlen 4 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, SOL_SOCKET,
					  SO_LINGER, &ling, 4, f),
		       sys_set(fd, SOL_SOCKET, SO_LINGER, &ling, 4));
		snprintf(what, sizeof(what), "SETSOCKOPT SO_RCVBUF optlen -1 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_SETSOCKOPT, SOL_SOCKET,
					  SO_RCVBUF, &one, -1, f), -EINVAL);
		snprintf(what, sizeof(what), "GETSOCKOPT SO_RCVBUF optlen -1 (%s)", how(f));
		expect(sk, what, sock_cmd(fd, SOCKET_URING_OP_GETSOCKOPT, SOL_SOCKET,
					  SO_RCVBUF, buf, -1, f), -EINVAL);
	}
}

static void one_socket(const char *sk, int family, int type)
{
	static const struct opt rcvbuf = { "SO_RCVBUF", SOL_SOCKET, SO_RCVBUF, sizeof(int) };
	static const struct opt sndbuf = { "SO_SNDBUF", SOL_SOCKET, SO_SNDBUF, sizeof(int) };
	static const struct opt keepalive = { "SO_KEEPALIVE", SOL_SOCKET, SO_KEEPALIVE, sizeof(int) };
	static const struct opt linger = { "SO_LINGER", SOL_SOCKET, SO_LINGER, sizeof(struct linger) };
	static const struct opt nodelay = { "TCP_NODELAY", IPPROTO_TCP, TCP_NODELAY, sizeof(int) };
	struct linger ling = { 1, 7 };
	bool tcp = family != AF_UNIX && type == SOCK_STREAM;
	int fd, twin, v;
	size_t i;

	fd = socket(family, type | SOCK_CLOEXEC, 0);
	twin = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0 || twin < 0) {
		t_info("%s: no socket (%s), skipped", sk, t_errname(errno));
		if (fd >= 0)
			close(fd);
		if (twin >= 0)
			close(twin);
		return;
	}

	for (i = 0; i < sizeof(get_opts) / sizeof(get_opts[0]); i++) {
		check_get(sk, fd, &get_opts[i], get_opts[i].len);
		check_get(sk, fd, &get_opts[i], 2);
	}

	v = 48 * 1024;
	check_set(sk, fd, twin, &rcvbuf, &v);
	v = 96 * 1024;
	check_set(sk, fd, twin, &sndbuf, &v);
	v = 1;
	check_set(sk, fd, twin, &keepalive, &v);
	check_set(sk, fd, twin, &linger, &ling);
	if (tcp)
		check_set(sk, fd, twin, &nodelay, &v);
	/* what was set reads back through GETSOCKOPT too */
	for (i = 0; i < sizeof(get_opts) / sizeof(get_opts[0]); i++)
		check_get(sk, fd, &get_opts[i], get_opts[i].len);

	check_errors(sk, fd, tcp);
	close(fd);
	close(twin);
}

int main(void)
{
	int ret = t_ring_init(&ring, 8, 0);

	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));
	bad_ptr = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad_ptr == MAP_FAILED)
		t_die("mmap: %m");
	munmap(bad_ptr, 4096);

	one_socket("tcp4", AF_INET, SOCK_STREAM);
	one_socket("udp4", AF_INET, SOCK_DGRAM);
	one_socket("tcp6", AF_INET6, SOCK_STREAM);
	one_socket("udp6", AF_INET6, SOCK_DGRAM);
	one_socket("unix stream", AF_UNIX, SOCK_STREAM);

	if (!t_cq_empty(&ring))
		t_error("unexpected extra completion in the CQ ring");
	io_uring_queue_exit(&ring);
	return t_result();
}
