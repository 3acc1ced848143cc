// SPDX-License-Identifier: GPL-2.0
/* Description: malformed block uring_cmds fail with the documented errors; SQE128 rings give the same answers */
/*
 * Usage: block_query_errors [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 *   ioctl code that is not a query          -ENOTTY
 *   flags != 0                              -EINVAL
 *   64-bit query without addr               -EINVAL
 *   addr that cannot be written             -EFAULT
 *   cmd_op neither BLOCK_URING_CMD_IOCTL nor a driver's   -EOPNOTSUPP
 *   any type-0x12 number but the block layer's commands
 *                                           -EOPNOTSUPP (the block layer's)
 *   non-zero sqe->ioprio, len or file_index -EINVAL (as 6.12 for its 0x12
 *                                           commands; block_discard tests
 *                                           BLOCK_URING_CMD_DISCARD)
 *   IORING_URING_CMD_FIXED (a registered buffer)               -EINVAL
 *   32-bit BLKBSZGET, BLKGETSIZE64 numbers  the 32-bit ioctl's answers
 *                                           (the kernel's own, asked
 *                                           through int $0x80)
 *   IORING_SETUP_IOPOLL ring                queries answered; unknown cmd_op -EOPNOTSUPP
 *   regular file, pipe                      -EOPNOTSUPP
 *   IORING_SETUP_SQE128 ring                same answers as the ioctls;
 *                                           a non-zero byte after the
 *                                           payload -EINVAL
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/fs.h>

#include "t_helpers.h"

/* Not BLOCK_URING_CMD_IOCTL and not an NVMe ('N') command. */
#define UNKNOWN_CMD_OP	_IO(0x12, 0xff)

static void expect_res(const char *what, int res, int want)
{
	if (res != want)
		t_error("%s: res %s, expected %s", what, t_res_str(res),
			t_res_str(want));
	else
		t_info("%s: %s", what, t_res_str(res));
}

static void expect_query(struct io_uring *ring, int fd, const char *what,
			 __u32 ioctl_cmd, __u32 flags, __u64 addr, int want)
{
	int res;

	if (!t_block_query(ring, fd, ioctl_cmd, flags, addr, 0, &res))
		expect_res(what, res, want);
}

static void expect_cmd(struct io_uring *ring, int fd, const char *what,
		       __u32 cmd_op, int want)
{
	struct block_uring_cmd bc = { .ioctl_cmd = BLKSSZGET };
	struct io_uring_sqe *sqe = t_get_sqe(ring);
	struct t_cqe c;
	int ret;

	t_prep_uring_cmd(ring, sqe, fd, cmd_op, &bc, sizeof(bc));
	ret = t_submit_wait_one(ring, &c, T_TIMEOUT_MS);
	if (ret)
		t_error("%s: no completion: %s", what, t_res_str(ret));
	else
		expect_res(what, c.res, want);
}

/* A good query with one SQE field that no 0x12 command takes set. */
static void expect_sqe_field(struct io_uring *ring, int fd, const char *what,
			     int field)
{
	struct io_uring_sqe *sqe = t_get_sqe(ring);
	struct t_cqe c;
	int ret;

	t_prep_block_query(ring, sqe, fd, BLKSSZGET, 0, 0);
	if (field == 0)
		sqe->ioprio = 1;
	else if (field == 1)
		sqe->len = 1;
	else
		sqe->file_index = 1;
	ret = t_submit_wait_one(ring, &c, T_TIMEOUT_MS);
	if (ret)
		t_error("%s: no completion: %s", what, t_res_str(ret));
	else
		expect_res(what, c.res, -EINVAL);
}

static void check_bad_input(struct io_uring *ring, int fd)
{
	static const __u32 not_queries[] = {
		BLKFLSBUF, BLKRRPART, BLKRASET, BLKBSZSET, BLKDISCARD, 0,
		0xffffffffu, BLOCK_URING_CMD_IOCTL,
	};
	long page = sysconf(_SC_PAGESIZE);
	char what[96];
	void *ro_page, *gone_page;
	size_t i;

	for (i = 0; i < sizeof(not_queries) / sizeof(not_queries[0]); i++) {
		snprintf(what, sizeof(what), "ioctl_cmd %#x (not a query)",
			 not_queries[i]);
		expect_query(ring, fd, what, not_queries[i], 0, 0, -ENOTTY);
	}

	expect_query(ring, fd, "BLKSSZGET flags=1", BLKSSZGET, 1, 0, -EINVAL);
	expect_query(ring, fd, "BLKSSZGET flags=1<<31", BLKSSZGET, 1u << 31, 0,
		     -EINVAL);
	expect_query(ring, fd, "BLKGETSIZE64 flags=1", BLKGETSIZE64, 1, 0,
		     -EINVAL);
	expect_query(ring, fd, "not a query, flags=1", BLKFLSBUF, 1, 0,
		     -EINVAL);

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		if (!uringcmd_block_queries[i].needs_addr)
			continue;
		snprintf(what, sizeof(what), "%s without addr",
			 uringcmd_block_queries[i].name);
		expect_query(ring, fd, what, uringcmd_block_queries[i].cmd, 0, 0, -EINVAL);
	}

	ro_page = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	gone_page = mmap(NULL, page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro_page == MAP_FAILED || gone_page == MAP_FAILED)
		t_die("mmap: %m");
	munmap(gone_page, page);

	{
		const struct { const char *name; __u64 addr; } bad[] = {
			{ "addr 1", 1 },
			{ "unmapped page", (__u64)(uintptr_t)gone_page },
			{ "read-only page", (__u64)(uintptr_t)ro_page },
			{ "kernel address", 0xffff888000000000ULL },
			{ "non-canonical address", 0x8000000000000000ULL },
		};
		const __u32 cmds[] = { BLKSSZGET, BLKGETSIZE64, BLKGETDISKSEQ };
		size_t j;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			for (j = 0; j < sizeof(cmds) / sizeof(cmds[0]); j++) {
				snprintf(what, sizeof(what), "%s addr=%s",
					 uringcmd_block_query_find(cmds[j])->name, bad[i].name);
				expect_query(ring, fd, what, cmds[j], 0,
					     bad[i].addr, -EFAULT);
			}
		}
	}
	munmap(ro_page, page);

	expect_cmd(ring, fd, "cmd_op _IO(0x12, 0xff)", UNKNOWN_CMD_OP,
		   -EOPNOTSUPP);
	expect_cmd(ring, fd, "cmd_op 0xffffffff", 0xffffffffu, -EOPNOTSUPP);
	/* the block layer's own numbers never reach a driver */
	expect_cmd(ring, fd, "cmd_op _IO(0x12, 1)", _IO(0x12, 1), -EOPNOTSUPP);
	expect_sqe_field(ring, fd, "BLKSSZGET with sqe->ioprio set", 0);
	expect_sqe_field(ring, fd, "BLKSSZGET with sqe->len set", 1);
	expect_sqe_field(ring, fd, "BLKSSZGET with sqe->file_index set", 2);
	expect_cmd(ring, fd, "cmd_op _IOWR(0x12, 0xc1, 16 bytes)",
		   _IOC(_IOC_READ | _IOC_WRITE, 0x12, 0xc1, 16), -EOPNOTSUPP);
}

/*
 * BLKBSZGET and BLKGETSIZE64 are _IOR(0x12, 112/114, size_t): a 32-bit
 * program sends them with a 4-byte size. Each number gets what the
 * kernel's own 32-bit ioctl answers on this node, asked here through the
 * i386 system call (t_ioctl32()): kernels differ there (6.1's
 * compat_blkdev_ioctl() answers BLKBSZGET with the logical block size,
 * 6.12's with block_size(), as its native ioctl), and the uring_cmd must
 * answer as the kernel it runs on. BLKGETSIZE64 writes the size in bytes.
 */
static void check_compat_numbers(struct io_uring *ring, int fd)
{
	const __u32 bszget32 = _IOR(0x12, 112, __u32);
	const __u32 getsize64_32 = _IOR(0x12, 114, __u32);
	__u64 bytes, bytes32 = 0x5a5a5a5a5a5a5a5aULL,
	      slot = 0xa5a5a5a5a5a5a5a5ULL;
	__u32 bsz32 = 0x5a5a5a5a;
	int ret, res;

	if (ioctl(fd, BLKGETSIZE64, &bytes))
		t_die("ioctl(BLKGETSIZE64): %m");
	ret = t_ioctl32(fd, bszget32, &bsz32, sizeof(bsz32));
	if (ret == -ENOSYS) {
		t_error("32-bit BLKBSZGET: the kernel runs no 32-bit system calls (IA32_EMULATION), so its answer cannot be compared");
		return;
	}
	if (ret) {
		t_error("32-bit ioctl(BLKBSZGET): %s", t_res_str(ret));
	} else {
		t_info("32-bit ioctl(BLKBSZGET): %u", bsz32);
		if (!t_block_query(ring, fd, bszget32, 0, 0, 0, &res))
			expect_res("32-bit BLKBSZGET", res, (int)bsz32);
	}
	expect_query(ring, fd, "32-bit BLKGETSIZE64 without addr", getsize64_32,
		     0, 0, -EINVAL);
	ret = t_ioctl32(fd, getsize64_32, &bytes32, sizeof(bytes32));
	if (ret)
		t_error("32-bit ioctl(BLKGETSIZE64): %s", t_res_str(ret));
	else if (bytes32 != bytes)
		t_error("32-bit ioctl(BLKGETSIZE64): %llu, the 64-bit one %llu",
			(unsigned long long)bytes32, (unsigned long long)bytes);
	if (!ret && !t_block_query(ring, fd, getsize64_32, 0,
				   (__u64)(uintptr_t)&slot, 0, &res)) {
		expect_res("32-bit BLKGETSIZE64", res, 0);
		if (slot != bytes32)
			t_error("32-bit BLKGETSIZE64: *addr = %llu, the 32-bit ioctl's %llu",
				(unsigned long long)slot,
				(unsigned long long)bytes32);
	}
}

/* A registered buffer means nothing to a query: refused, not ignored. */
static void check_fixed(int fd)
{
	/* anonymous memory: 6.1 registers no file-backed pages (.data, .bss) */
	struct iovec iov = { .iov_base = aligned_alloc(4096, 4096), .iov_len = 4096 };
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct t_cqe c;
	int ret;

	if (!iov.iov_base)
		t_die("aligned_alloc: %m");
	ret = t_ring_init(&ring, 4, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret)
		t_die("io_uring_register_buffers: %s", t_errname(ret));
	sqe = t_get_sqe(&ring);
	t_prep_block_query(&ring, sqe, fd, BLKSSZGET, 0, 0);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	ret = t_submit_wait_one(&ring, &c, T_TIMEOUT_MS);
	if (ret)
		t_error("IORING_URING_CMD_FIXED: no completion: %s",
			t_res_str(ret));
	else
		expect_res("BLKSSZGET with IORING_URING_CMD_FIXED", c.res,
			   -EINVAL);
	t_cq_quiet(&ring, "IORING_URING_CMD_FIXED");
	io_uring_queue_exit(&ring);
	free(iov.iov_base);
}

static void check_iopoll(int fd)
{
	struct io_uring ring;
	int ret, res, want;

	ret = t_ring_init(&ring, 4, IORING_SETUP_IOPOLL);
	if (ret) {
		t_error("io_uring_queue_init(IORING_SETUP_IOPOLL): %s",
			t_errname(ret));
		return;
	}
	if (ioctl(fd, BLKSSZGET, &want))
		t_die("ioctl(BLKSSZGET): %m");
	/* answered inline and posted without polling */
	if (!t_block_query(&ring, fd, BLKSSZGET, 0, 0, 0, &res))
		expect_res("IOPOLL ring BLKSSZGET", res, want);
	/* a driver-private command of no driver: refused as on other rings */
	expect_cmd(&ring, fd, "IOPOLL ring cmd_op _IO(0x12, 0xff)",
		   UNKNOWN_CMD_OP, -EOPNOTSUPP);
	t_cq_quiet(&ring, "IOPOLL ring");
	io_uring_queue_exit(&ring);
}

static void check_other_files(struct io_uring *ring)
{
	char path[] = "/tmp/uringcmd-regular-XXXXXX";
	int fd, pfd[2];

	fd = mkstemp(path);
	if (fd < 0)
		t_die("mkstemp: %m");
	unlink(path);
	if (write(fd, "x", 1) != 1)
		t_die("write: %m");
	expect_query(ring, fd, "regular file BLOCK_URING_CMD_IOCTL", BLKSSZGET,
		     0, 0, -EOPNOTSUPP);
	expect_cmd(ring, fd, "regular file cmd_op 0", 0, -EOPNOTSUPP);
	close(fd);

	if (pipe(pfd))
		t_die("pipe: %m");
	expect_query(ring, pfd[0], "pipe read end BLOCK_URING_CMD_IOCTL",
		     BLKSSZGET, 0, 0, -EOPNOTSUPP);
	expect_query(ring, pfd[1], "pipe write end BLOCK_URING_CMD_IOCTL",
		     BLKSSZGET, 0, 0, -EOPNOTSUPP);
	expect_cmd(ring, pfd[0], "pipe cmd_op 0", 0, -EOPNOTSUPP);
	close(pfd[0]);
	close(pfd[1]);
}

static void check_sqe128(int fd)
{
	struct io_uring ring;
	__u64 want, slot;
	size_t i;
	int ret, res;

	ret = t_ring_init(&ring, 4, IORING_SETUP_SQE128);
	if (ret) {
		t_error("io_uring_queue_init(IORING_SETUP_SQE128): %s",
			t_errname(ret));
		return;
	}
	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i];

		if (t_query_ioctl(fd, q, &want)) {
			t_error("ioctl %s: %m", q->name);
			continue;
		}
		if (!q->needs_addr &&
		    !t_block_query(&ring, fd, q->cmd, 0, 0, 0, &res))
			t_check_query_answer("SQE128 no addr:", q, want, res,
					     NULL);
		slot = 0xa5a5a5a5a5a5a5a5ULL;
		if (!t_block_query(&ring, fd, q->cmd, 0,
				   (__u64)(uintptr_t)&slot, 0, &res))
			t_check_query_answer("SQE128 with addr:", q, want, res,
					     &slot);
	}
	if (!t_block_query(&ring, fd, BLKFLSBUF, 0, 0, 0, &res))
		expect_res("SQE128 unknown ioctl", res, -ENOTTY);
	/* the 64 bytes after the payload must be zero */
	for (i = 16; i < 80; i += 63) {
		struct io_uring_sqe *sqe = t_get_sqe(&ring);
		struct t_cqe c;
		char what[64];

		t_prep_block_query(&ring, sqe, fd, BLKSSZGET, 0, 0);
		((__u8 *)sqe->cmd)[i] = 1;
		snprintf(what, sizeof(what), "SQE128 cmd byte %zu set", i);
		ret = t_submit_wait_one(&ring, &c, T_TIMEOUT_MS);
		if (ret)
			t_error("%s: no completion: %s", what, t_res_str(ret));
		else
			expect_res(what, c.res, -EINVAL);
	}
	t_cq_quiet(&ring, "SQE128 ring");
	io_uring_queue_exit(&ring);
	t_info("SQE128 ring: %zu queries checked", URINGCMD_NR_BLOCK_QUERIES);
}

int main(int argc, char **argv)
{
	static struct t_bdev b;
	struct io_uring ring;
	int ret;

	t_bdev_open(&b, argc, argv, O_RDONLY);
	t_info("device %s (%s)", b.path, b.name);

	ret = t_ring_init(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));

	check_bad_input(&ring, b.fd);
	check_compat_numbers(&ring, b.fd);
	check_fixed(b.fd);
	check_iopoll(b.fd);
	check_other_files(&ring);
	check_sqe128(b.fd);

	if (!t_cq_empty(&ring))
		t_error("unexpected extra completion in the CQ ring");
	io_uring_queue_exit(&ring);
	t_bdev_close(&b);
	return t_result();
}
