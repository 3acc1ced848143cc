// SPDX-License-Identifier: GPL-2.0
/*
 * device_probe: what tests/check-device.sh asks a block node before it runs
 * the suite on the running kernel; not a test (built into $(O)/.tools, which
 * run.sh does not look in).
 *
 *   device_probe series NODE
 *	Opens NODE read-only and sends, in one ring of the shape NVMe
 *	passthrough needs (SQE128 | CQE32), BLOCK_URING_CMD_IOCTL(BLKSSZGET)
 *	and NVME_URING_CMD_ADMIN (Identify Controller): both answered (the
 *	sector size; 0) on a kernel with the series, -EOPNOTSUPP on a block
 *	node of one without (6.1's block devices have no ->uring_cmd).
 *	Prints one line saying what each got; exits 0 if both answered, 1 if
 *	not, 2 if NODE cannot be opened or the ring set up.
 *   device_probe excl NODE
 *	Opens NODE with O_EXCL, as mount, dm and md claim a block device:
 *	exits 0 if the open succeeds, 1 (printing why) if it is busy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <liburing.h>
#include <nvme/types.h>
#include <uringcmd-nvme.h>

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "an unknown errno";
}

/* "-EOPNOTSUPP", "512" or "NVMe status 0x2" for a cqe->res */
static const char *res_str(int res, char *buf, size_t len)
{
	if (res < 0)
		snprintf(buf, len, "-%s", errname(-res));
	else
		snprintf(buf, len, "%d", res);
	return buf;
}

static int series(const char *node)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct nvme_uring_cmd c;
	struct io_uring ring;
	int fd, ret, i, q = 1, a = 1, qres = 0, ares = 0;
	char qs[64], as[64];
	void *id;

	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("cannot open %s: %s\n", node, strerror(errno));
		return 2;
	}
	ret = uringcmd_nvme_queue_init(4, &ring, 0);
	if (ret) {
		printf("no io_uring ring with SQE128 and CQE32 (io_uring_queue_init: %s): a kernel before 6.0, or io_uring disabled\n",
		       errname(-ret));
		return 2;
	}
	if (posix_memalign(&id, 4096, 4096))
		return 2;
	sqe = io_uring_get_sqe(&ring);
	uringcmd_prep_block_query(sqe, fd, BLKSSZGET, NULL);
	sqe->user_data = 1;
	sqe = io_uring_get_sqe(&ring);
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, id);
	uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_ADMIN, &c);
	sqe->user_data = 2;
	ret = io_uring_submit(&ring);
	if (ret != 2) {
		printf("io_uring_submit: %s\n", ret < 0 ? errname(-ret) : "short");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret) {
			printf("io_uring_wait_cqe: %s\n", errname(-ret));
			return 2;
		}
		if (cqe->user_data == 1)
			qres = cqe->res, q = 0;
		else
			ares = cqe->res, a = 0;
		io_uring_cqe_seen(&ring, cqe);
	}
	if (q || a)
		return 2;
	printf("BLOCK_URING_CMD_IOCTL(BLKSSZGET) answered %s, NVME_URING_CMD_ADMIN (Identify Controller) %s\n",
	       res_str(qres, qs, sizeof(qs)), res_str(ares, as, sizeof(as)));
	return qres > 0 && ares == 0 ? 0 : 1;
}

static int excl(const char *node)
{
	int fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd < 0) {
		printf("open(O_EXCL): %s\n", strerror(errno));
		return errno == EBUSY ? 1 : 2;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "series"))
		return series(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "excl"))
		return excl(argv[2]);
	fprintf(stderr, "usage: device_probe series|excl NODE\n");
	return 2;
}
