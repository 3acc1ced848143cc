// SPDX-License-Identifier: GPL-2.0
/* Description: upstream NVMe char-device passthrough (NVME_URING_CMD_IO on ngXnY, NVME_URING_CMD_ADMIN on nvmeX) still works */
/*
 * Usage: nvme_char_passthru [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *   defaults: $TEST_NVME_DEV or /dev/nvme0n1; $TEST_NVME_CHAR or the ngXnY
 *   of BLOCKDEV; $TEST_NVME_CTRL or /dev/nvme0.
 *
 * I/O: a known pattern written with pwrite(O_DIRECT) on the block device
 * reads back identically through NVME_URING_CMD_IO (Read, 0x02) on the
 * generic char device, and a pattern written through NVME_URING_CMD_IO
 * (Write, 0x01) reads back with pread(O_DIRECT). The blocks used are
 * restored afterwards. A plain 64-byte-SQE ring gets -EOPNOTSUPP.
 *
 * Admin: Identify Controller (0x06, CNS 1, 4096 bytes) through
 * NVME_URING_CMD_ADMIN equals ioctl(NVME_IOCTL_ADMIN_CMD) byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>
#include <uringcmd-nvme.h>

#include "t_helpers.h"

#define IDENTIFY_LEN		NVME_IDENTIFY_DATA_SIZE
#define IO_LEN			(16 * 1024)
#define NVME_TIMEOUT_MS		(3 * T_TIMEOUT_MS)

static void *alloc_buf(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		t_die("posix_memalign: out of memory");
	memset(p, 0, len);
	return p;
}

/* One passthrough command; 0, an NVMe status (> 0) or -errno in *res. */
static int passthru(struct io_uring *ring, int fd, __u32 cmd_op,
		    const struct nvme_uring_cmd *cmd, int *res)
{
	struct io_uring_sqe *sqe = t_get_sqe(ring);
	struct t_cqe c;
	int ret;

	uringcmd_prep_nvme(sqe, fd, cmd_op, cmd);
	sqe->user_data = cmd->opcode;
	ret = t_submit_wait_one(ring, &c, NVME_TIMEOUT_MS);
	if (ret) {
		t_error("passthrough opcode %#x: no completion: %s",
			cmd->opcode, t_res_str(ret));
		return ret;
	}
	*res = c.res;
	return 0;
}

static void full_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n != (ssize_t)len)
		t_die("pwrite %zu bytes at %lld: %zd (%m)", len,
		      (long long)off, n);
	if (fsync(fd))
		t_die("fsync: %m");
}

static void full_pread(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n != (ssize_t)len)
		t_die("pread %zu bytes at %lld: %zd (%m)", len,
		      (long long)off, n);
}

static void compare(const char *what, const void *got, const void *want,
		    size_t len)
{
	long off = t_memcmp_off(got, want, len);

	if (off >= 0)
		t_error("%s: differs at byte %ld: %#04x, expected %#04x", what,
			off, ((const unsigned char *)got)[off],
			((const unsigned char *)want)[off]);
	else
		t_info("%s: %zu bytes equal", what, len);
}

/* Set when the I/O half cannot run here; the admin half still does. */
static char io_skipped[PATH_MAX + 128];

static void test_io(const char *bdev, const char *cdev)
{
	char *bargv[] = { "nvme_char_passthru", (char *)bdev, NULL };
	static struct t_bdev b;
	struct nvme_uring_cmd cmd;
	struct io_uring ring, plain;
	void *orig, *pat, *buf;
	__u64 lbs, ro = 0, size;
	off_t off;
	__u32 nlb;
	int cfd, nsid, ret, res;

	t_bdev_open(&b, 2, bargv, O_RDWR | O_DIRECT);
	cfd = open(cdev, O_RDWR | O_CLOEXEC);
	if (cfd < 0) {
		if (errno == ENOENT)
			t_skip("%s (generic char device of %s) does not exist",
			       cdev, bdev);
		t_die("open %s: %m", cdev);
	}
	nsid = ioctl(cfd, NVME_IOCTL_ID);
	if (nsid <= 0)
		t_die("ioctl(%s, NVME_IOCTL_ID): %d (%m)", cdev, nsid);
	if (t_bdev_attr_u64(&b, "queue/logical_block_size", &lbs) || !lbs ||
	    IO_LEN % lbs)
		t_die("%s: bad logical block size %llu", b.name,
		      (unsigned long long)lbs);
	t_bdev_attr_u64(&b, "ro", &ro);
	if (ro)
		t_skip("%s is read-only: no pattern can be written", b.path);
	if (ioctl(b.fd, BLKGETSIZE64, &size))
		t_die("BLKGETSIZE64: %m");
	if (size < 2 * IO_LEN)
		t_skip("%s is too small (%llu bytes)", b.path,
		       (unsigned long long)size);
	off = size >= (2ULL << 20) ? (1 << 20) : 0;
	nlb = IO_LEN / lbs;
	t_info("%s (%s, nsid %d, lba size %llu): %u blocks at lba %llu",
	       b.path, cdev, nsid, (unsigned long long)lbs, nlb,
	       (unsigned long long)(off / lbs));

	ret = t_ring_init(&ring, 4, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret)
		t_die("io_uring_queue_init(SQE128|CQE32): %s", t_errname(ret));

	orig = alloc_buf(IO_LEN);
	pat = alloc_buf(IO_LEN);
	buf = alloc_buf(IO_LEN);
	full_pread(b.fd, orig, IO_LEN, off);

	/* block-device write, passthrough read */
	t_fill_pattern(pat, IO_LEN, (unsigned int)getpid());
	full_pwrite(b.fd, pat, IO_LEN, off);
	full_pread(b.fd, buf, IO_LEN, off);
	if (t_memcmp_off(buf, pat, IO_LEN) >= 0) {
		/*
		 * The reference path itself loses data: a failure, unless
		 * run-nvme.sh --null said its namespaces read zeroes.
		 */
		if (strcmp(t_env_or("TEST_NVME_NULL", "0"), "1"))
			t_die("%s lost O_DIRECT data: pread after pwrite differs at byte %ld",
			      b.path, t_memcmp_off(buf, pat, IO_LEN));
		snprintf(io_skipped, sizeof(io_skipped),
			 "I/O part skipped: %s does not keep written data (a read-zeroes null-co namespace?)",
			 b.path);
		t_info("%s", io_skipped);
		goto out;
	}
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, nsid, buf, IO_LEN, off / lbs, nlb);
	memset(buf, 0, IO_LEN);
	if (!passthru(&ring, cfd, NVME_URING_CMD_IO, &cmd, &res)) {
		if (res)
			t_error("NVME_URING_CMD_IO read: res %s", t_res_str(res));
		else
			compare("passthrough read of pwrite() pattern", buf,
				pat, IO_LEN);
	}

	/* passthrough write, block-device read */
	t_fill_pattern(pat, IO_LEN, (unsigned int)getpid() + 1);
	uringcmd_nvme_rw(&cmd, nvme_cmd_write, nsid, pat, IO_LEN, off / lbs, nlb);
	if (!passthru(&ring, cfd, NVME_URING_CMD_IO, &cmd, &res)) {
		if (res) {
			t_error("NVME_URING_CMD_IO write: res %s", t_res_str(res));
		} else {
			memset(buf, 0, IO_LEN);
			full_pread(b.fd, buf, IO_LEN, off);
			compare("pread(O_DIRECT) of passthrough write", buf,
				pat, IO_LEN);
		}
	}

	/* passthrough needs big SQEs and CQEs */
	ret = t_ring_init(&plain, 4, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, nsid, buf, IO_LEN, off / lbs, nlb);
	{
		/* only the first 16 bytes of the command fit a plain SQE */
		struct io_uring_sqe *sqe = t_get_sqe(&plain);
		struct t_cqe c;

		t_prep_uring_cmd(&plain, sqe, cfd, NVME_URING_CMD_IO, &cmd, 16);
		if (t_submit_wait_one(&plain, &c, NVME_TIMEOUT_MS))
			t_error("plain ring NVME_URING_CMD_IO: no completion");
		else if (c.res != -EOPNOTSUPP)
			t_error("plain ring NVME_URING_CMD_IO: res %s, expected -EOPNOTSUPP",
				t_res_str(c.res));
		else
			t_info("plain 64-byte SQE ring: -EOPNOTSUPP");
	}
	io_uring_queue_exit(&plain);

out:
	full_pwrite(b.fd, orig, IO_LEN, off);
	io_uring_queue_exit(&ring);
	free(orig);
	free(pat);
	free(buf);
	close(cfd);
	t_bdev_close(&b);
}

static void test_admin(const char *ctrl)
{
	struct nvme_passthru_cmd acmd;
	struct nvme_uring_cmd cmd;
	struct io_uring ring;
	unsigned char *ub, *ib;
	char model[41];
	struct stat st;
	int fd, ret, res;

	if (stat(ctrl, &st)) {
		if (errno == ENOENT)
			t_skip("%s does not exist", ctrl);
		t_die("stat %s: %m", ctrl);
	}
	if (!S_ISCHR(st.st_mode))
		t_die("%s is not a character device", ctrl);
	fd = open(ctrl, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s: %m", ctrl);

	ub = alloc_buf(IDENTIFY_LEN);
	ib = alloc_buf(IDENTIFY_LEN);
	memset(ub, 0xa5, IDENTIFY_LEN);
	memset(ib, 0x5a, IDENTIFY_LEN);

	uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, ib);
	uringcmd_nvme_to_passthru(&cmd, &acmd);
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &acmd);
	if (ret)
		t_die("ioctl(%s, NVME_IOCTL_ADMIN_CMD identify): %d (%m)",
		      ctrl, ret);

	ret = t_ring_init(&ring, 4, IORING_SETUP_SQE128 | IORING_SETUP_CQE32);
	if (ret)
		t_die("io_uring_queue_init(SQE128|CQE32): %s", t_errname(ret));
	uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, ub);
	if (!passthru(&ring, fd, NVME_URING_CMD_ADMIN, &cmd, &res)) {
		if (res)
			t_error("NVME_URING_CMD_ADMIN identify: res %s",
				t_res_str(res));
		else
			compare("identify controller, uring_cmd vs ioctl", ub,
				ib, IDENTIFY_LEN);
	}
	memcpy(model, ib + 24, 40);	/* MN, bytes 24-63 */
	model[40] = '\0';
	t_info("%s: vid %#06x, model \"%s\"", ctrl, ib[0] | ib[1] << 8, model);

	io_uring_queue_exit(&ring);
	free(ub);
	free(ib);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *bdev = argc > 1 ? argv[1] :
			   t_env_or("TEST_NVME_DEV", "/dev/nvme0n1");
	const char *ctrl = argc > 3 ? argv[3] :
			   t_env_or("TEST_NVME_CTRL", "/dev/nvme0");
	const char *base = strrchr(bdev, '/');
	char cdev[PATH_MAX];

	base = base ? base + 1 : bdev;
	if (argc > 2)
		snprintf(cdev, sizeof(cdev), "%s", argv[2]);
	else if (getenv("TEST_NVME_CHAR") && *getenv("TEST_NVME_CHAR"))
		snprintf(cdev, sizeof(cdev), "%s", getenv("TEST_NVME_CHAR"));
	else if (!strncmp(base, "nvme", 4))
		snprintf(cdev, sizeof(cdev), "/dev/ng%s", base + 4);
	else
		t_die("cannot derive the generic char device of %s: pass it as argv[2]",
		      bdev);

	if (access(bdev, F_OK))
		t_skip("%s does not exist", bdev);

	test_io(bdev, cdev);
	test_admin(ctrl);
	if (!t_nr_errors() && io_skipped[0])
		t_skip("%s (admin identify passed)", io_skipped);
	return t_result();
}
