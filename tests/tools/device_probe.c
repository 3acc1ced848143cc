// SPDX-License-Identifier: GPL-2.0
/*
 * device_probe: what tests/check-device.sh asks a block node before it runs
 * the suite on the running kernel; not a test (built into $(O)/.tools, which
 * run.sh does not look in).
 *
 *   device_probe series NODE
 *	Opens NODE read-only and asks the library's probes
 *	(uringcmd_probe_block(), uringcmd_nvme_probe()): BLKSSZGET through
 *	BLOCK_URING_CMD_IOCTL and Identify Controller through
 *	NVME_URING_CMD_ADMIN, both answered (the sector size; 0) on a kernel
 *	with the series, -EOPNOTSUPP on a block node of one without (6.1's
 *	block devices have no ->uring_cmd); -ENOTBLK for a node that is not
 *	a block device.
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
#include <unistd.h>
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
	struct uringcmd_probe p = { 0 };
	char qs[64], as[64];
	int fd, ret;

	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("cannot open %s: %s\n", node, strerror(errno));
		return 2;
	}
	/* the library's probes: lib/uringcmd.h, lib/uringcmd-nvme.h */
	ret = uringcmd_probe_block(fd, &p);
	if (ret == -ENOTBLK) {
		p.block_query = ret;
	} else if (ret) {
		printf("uringcmd_probe_block: %s\n", errname(-ret));
		return 2;
	}
	ret = uringcmd_nvme_probe(fd, 0, &p);
	if (ret) {
		printf("uringcmd_nvme_probe: %s (a kernel before 6.0 has no ring of the shape NVMe passthrough needs)\n",
		       errname(-ret));
		return 2;
	}
	printf("BLOCK_URING_CMD_IOCTL(BLKSSZGET) answered %s, NVME_URING_CMD_ADMIN (Identify Controller) %s\n",
	       res_str(p.block_query, qs, sizeof(qs)), res_str(p.nvme_admin, as, sizeof(as)));
	return p.block_query > 0 && p.nvme_admin == 0 ? 0 : 1;
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
