// SPDX-License-Identifier: GPL-2.0
/* Description: a program built against the installed <uringcmd.h> and <uringcmd-nvme.h> (make install) answers as the ioctls do */
/*
 * Usage: nvme_lib_installed [BLOCKDEV]   (default $TEST_NVME_DEV, /dev/nvme0n1)
 *
 * Built as a user would build it: against the headers `make install` put
 * in a staging DESTDIR, found through the installed pkg-config file, with
 * the system's uapi headers only (not the patched kernel's, not tests/lib):
 * so it also shows that the installed headers stand alone on Debian 12.
 *
 * Every query of uringcmd_block_queries[] through BLOCK_URING_CMD_IOCTL
 * equals the ioctl; Identify Controller and Namespace through
 * NVME_URING_CMD_ADMIN equal NVME_IOCTL_ADMIN_CMD, and the namespace's
 * format (uringcmd_nvme_ns_lba_shift()) is BLKSSZGET; a Read of block 0
 * through NVME_URING_CMD_IO equals pread(); SIOCINQ through
 * io_uring_prep_cmd_sock() equals ioctl(SIOCINQ) on a UDP socket; a
 * discard on a read-only open (io_uring_prep_cmd_discard()) is refused
 * with -EBADF (Linux 6.12's order of checks) or -EOPNOTSUPP (no discard).
 *
 * Exit 0 pass, 1 fail (reason on stderr), 77 skip (reason on stdout).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/sockios.h>

#include <uringcmd-nvme.h>

static int failures;

#define fail(...)						\
	do {							\
		fprintf(stderr, "FAIL: " __VA_ARGS__);		\
		fputc('\n', stderr);				\
		failures++;					\
	} while (0)

/* Submit what is queued and wait for one completion: its res, or -errno. */
static int complete_one(struct io_uring *ring, __u64 *result)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_peek_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	if (result)
		*result = uringcmd_nvme_cqe_result(cqe);
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/* The ioctl's answer to @q, widened as the kernel widens it. */
static int ioctl_answer(int fd, const struct uringcmd_block_query *q,
			__u64 *val)
{
	union { __u16 u16; __u32 u32; __u64 u64; } u = { .u64 = 0 };

	if (ioctl(fd, q->cmd, &u) < 0)
		return -errno;
	if (q->ioctl_size == 2)
		*val = u.u16;
	else if (q->ioctl_size == 4)
		*val = q->ioctl_signed ? (__u64)(__s64)(__s32)u.u32 : u.u32;
	else
		*val = u.u64;
	return 0;
}

static void check_queries(int fd)
{
	struct io_uring ring;
	size_t i;
	int ret;

	ret = io_uring_queue_init(4, &ring, 0);
	if (ret) {
		fail("io_uring_queue_init: %s", strerror(-ret));
		return;
	}
	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i];
		__u64 want = 0, slot = 0, got = 0;
		int res;

		if (ioctl_answer(fd, q, &want)) {
			fail("ioctl %s: %m", q->name);
			continue;
		}
		/* the narrow ones without addr: the answer in cqe->res */
		uringcmd_prep_block_query(io_uring_get_sqe(&ring), fd, q->cmd,
					  q->needs_addr ? &slot : NULL);
		res = complete_one(&ring, NULL);
		ret = uringcmd_block_query_answer(q, res, q->needs_addr ? &slot : NULL,
						  &got);
		if (ret)
			fail("%s: cqe->res %d (%s)", q->name, res, strerror(-res));
		else if (got != want)
			fail("%s: %llu through io_uring, %llu through the ioctl",
			     q->name, (unsigned long long)got,
			     (unsigned long long)want);
	}
	io_uring_queue_exit(&ring);
}

static void check_nvme(int fd)
{
	struct nvme_id_ctrl *ctrl_u, *ctrl_i;
	struct nvme_id_ns *ns_u, *ns_i;
	struct nvme_passthru_cmd p;
	struct nvme_uring_cmd c;
	struct io_uring ring;
	unsigned char *blk_u, *blk_i;
	char rs[256];
	int nsid, lbs, ret;

	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		fail("NVME_IOCTL_ID: %m");
		return;
	}
	if (posix_memalign((void **)&ctrl_u, 4096, 6 * 4096))
		exit(1);
	ctrl_i = ctrl_u + 1;
	ns_u = (struct nvme_id_ns *)(ctrl_u + 2);
	ns_i = ns_u + 1;
	blk_u = (unsigned char *)(ctrl_u + 4);
	blk_i = blk_u + 4096;
	memset(ctrl_u, 0, 6 * 4096);

	ret = uringcmd_nvme_queue_init(4, &ring, 0);
	if (ret) {
		fail("uringcmd_nvme_queue_init: %s", strerror(-ret));
		return;
	}

	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, ctrl_i);
	uringcmd_nvme_to_passthru(&c, &p);
	if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &p))
		fail("Identify Controller ioctl: %m");
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, ctrl_u);
	uringcmd_prep_nvme(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_ADMIN, &c);
	ret = complete_one(&ring, NULL);
	if (ret)
		fail("Identify Controller: %s", uringcmd_nvme_res_str(ret, rs, sizeof(rs)));
	else if (memcmp(ctrl_u, ctrl_i, 4096))
		fail("Identify Controller differs from the ioctl's");

	uringcmd_nvme_identify(&c, nsid, NVME_IDENTIFY_CNS_NS, ns_i);
	uringcmd_nvme_to_passthru(&c, &p);
	if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &p))
		fail("Identify Namespace ioctl: %m");
	uringcmd_nvme_identify(&c, nsid, NVME_IDENTIFY_CNS_NS, ns_u);
	uringcmd_prep_nvme(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_ADMIN, &c);
	ret = complete_one(&ring, NULL);
	if (ret)
		fail("Identify Namespace: %s", uringcmd_nvme_res_str(ret, rs, sizeof(rs)));
	else if (memcmp(ns_u, ns_i, 4096))
		fail("Identify Namespace differs from the ioctl's");

	if (ioctl(fd, BLKSSZGET, &lbs))
		fail("BLKSSZGET: %m");
	else if (1 << uringcmd_nvme_ns_lba_shift(ns_u) != lbs)
		fail("LBA format %u: %u-byte blocks, BLKSSZGET says %d",
		     uringcmd_nvme_ns_lbaf(ns_u),
		     1u << uringcmd_nvme_ns_lba_shift(ns_u), lbs);

	/* block 0, as long as it fits the 4 KiB buffers */
	if (lbs > 0 && lbs <= 4096 && !uringcmd_nvme_ns_ms(ns_u)) {
		uringcmd_nvme_rw(&c, nvme_cmd_read, nsid, blk_u, lbs, 0, 1);
		uringcmd_prep_nvme(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_IO, &c);
		ret = complete_one(&ring, NULL);
		if (ret)
			fail("Read: %s", uringcmd_nvme_res_str(ret, rs, sizeof(rs)));
		else if (pread(fd, blk_i, lbs, 0) != lbs)
			fail("pread: %m");
		else if (memcmp(blk_u, blk_i, lbs))
			fail("Read of block 0 differs from pread()");
	}
	io_uring_queue_exit(&ring);
	free(ctrl_u);
}

static void check_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	struct io_uring ring;
	char msg[100] = "x";
	int fd, want, res, ret;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		fail("socket: %m");
		return;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &alen) ||
	    sendto(fd, msg, sizeof(msg), 0, (struct sockaddr *)&a, alen) !=
	    (ssize_t)sizeof(msg)) {
		printf("loopback UDP unusable (%m): socket check left out\n");
		close(fd);
		return;
	}
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret) {
		fail("io_uring_queue_init: %s", strerror(-ret));
		close(fd);
		return;
	}
	io_uring_prep_cmd_sock(io_uring_get_sqe(&ring), SOCKET_URING_OP_SIOCINQ,
			       fd, 0, 0, NULL, 0);
	res = complete_one(&ring, NULL);
	if (ioctl(fd, SIOCINQ, &want))
		fail("ioctl SIOCINQ: %m");
	else if (res != want)
		fail("SIOCINQ: %d through io_uring, %d through the ioctl", res,
		     want);
	io_uring_queue_exit(&ring);
	close(fd);
}

static void check_discard(const char *dev)
{
	struct io_uring ring;
	int fd, res;

	fd = open(dev, O_RDONLY);
	if (fd < 0 || io_uring_queue_init(2, &ring, 0)) {
		fail("open %s or io_uring_queue_init: %m", dev);
		return;
	}
	io_uring_prep_cmd_discard(io_uring_get_sqe(&ring), fd, 0, 4096);
	res = complete_one(&ring, NULL);
	if (res != -EBADF && res != -EOPNOTSUPP)
		fail("discard on a read-only open: %d (%s), expected -EBADF or -EOPNOTSUPP",
		     res, strerror(-res));
	io_uring_queue_exit(&ring);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 && argv[1][0] ? argv[1] :
			  getenv("TEST_NVME_DEV") ? getenv("TEST_NVME_DEV") :
			  "/dev/nvme0n1";
	struct stat st;
	int fd;

	if (stat(dev, &st)) {
		printf("%s: %m\n", dev);
		return 77;
	}
	if (!S_ISBLK(st.st_mode)) {
		fprintf(stderr, "%s is not a block device\n", dev);
		return 1;
	}
	fd = open(dev, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "open %s: %m\n", dev);
		return 1;
	}
	check_queries(fd);
	check_nvme(fd);
	check_socket();
	check_discard(dev);
	close(fd);
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("%s: %zu block queries, identify, read, SIOCINQ and discard as expected\n",
	       dev, (size_t)URINGCMD_NR_BLOCK_QUERIES);
	return 0;
}
