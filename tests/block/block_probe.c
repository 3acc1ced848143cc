// SPDX-License-Identifier: GPL-2.0
/* Description: the library's probes say what a node takes, as the ioctls and sysfs do */
/*
 * Usage: block_probe [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * uringcmd_probe_block(): block_query is the logical block size that
 * ioctl(BLKSSZGET) and sysfs give; discard is -EBADF (the command known,
 * refused on the read-only open) exactly where sysfs says the device
 * discards, else -EOPNOTSUPP, and the first block reads as before (the
 * probe discards nothing). On an NVMe namespace, uringcmd_nvme_probe()
 * finds admin and I/O passthrough (0), as NVME_IOCTL_ADMIN_CMD's Identify
 * on the same node does; on its generic node /dev/ngXnY I/O but not admin
 * (Linux 6.1: -ENOTTY), on the controller admin. Elsewhere it refuses
 * with -ENODEV, and /dev/null (which completes every uring_cmd with 0) is
 * neither a block device nor NVMe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/fs.h>

#include "t_helpers.h"
#include <uringcmd-nvme.h>

static void check_nvme(const char *path, __u32 nsid, int want_admin, int want_io)
{
	struct uringcmd_probe p;
	int fd, ret;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		t_error("%s: %s", path, strerror(errno));
		return;
	}
	memset(&p, 0x5a, sizeof(p));
	ret = uringcmd_nvme_probe(fd, nsid, &p);
	if (!ret)
		t_info("%s: admin %s, I/O %s", path, t_res_str(p.nvme_admin),
		       t_res_str(p.nvme_io));
	if (ret)
		t_error("uringcmd_nvme_probe(%s): %s", path, t_errname(ret));
	else if (p.nvme_admin != want_admin || p.nvme_io != want_io)
		t_error("uringcmd_nvme_probe(%s): admin %s, I/O %s; expected %s, %s",
			path, t_res_str(p.nvme_admin), t_res_str(p.nvme_io),
			t_errname(want_admin), t_errname(want_io));
	close(fd);
}

int main(int argc, char **argv)
{
	static struct t_bdev b;
	struct uringcmd_probe p;
	char before[4096], after[4096], path[PATH_MAX * 2], ctrl[64];
	struct nvme_passthru_cmd id;
	__u64 dmax = 0, lbs = 0, nsid = 0;
	void *buf;
	int ret, fd;
	int ioctl_lbs = 0;

	t_bdev_open(&b, argc, argv, O_RDONLY);
	t_info("device %s (%s)", b.path, b.name);

	if (ioctl(b.fd, BLKSSZGET, &ioctl_lbs))
		t_die("ioctl BLKSSZGET: %s", strerror(errno));
	if (t_bdev_attr_u64(&b, "queue/logical_block_size", &lbs) ||
	    t_bdev_attr_u64(&b, "queue/discard_max_bytes", &dmax))
		t_die("%s: no queue/logical_block_size or discard_max_bytes", b.name);
	if (pread(b.fd, before, sizeof(before), 0) != (ssize_t)sizeof(before))
		t_die("read of the first 4 KiB: %s", strerror(errno));

	memset(&p, 0x5a, sizeof(p));
	ret = uringcmd_probe_block(b.fd, &p);
	if (ret)
		t_die("uringcmd_probe_block: %s", t_errname(ret));
	t_info("block_query %s, discard %s", t_res_str(p.block_query),
	       t_res_str(p.discard));
	if (p.block_query != ioctl_lbs || (__u64)p.block_query != lbs)
		t_error("block_query %s; ioctl(BLKSSZGET) %d, sysfs %llu",
			t_res_str(p.block_query), ioctl_lbs, (unsigned long long)lbs);
	if (p.discard != (dmax ? -EBADF : -EOPNOTSUPP))
		t_error("discard %s where sysfs discard_max_bytes is %llu (expected %s)",
			t_res_str(p.discard), (unsigned long long)dmax,
			dmax ? "-EBADF" : "-EOPNOTSUPP");
	if (pread(b.fd, after, sizeof(after), 0) != (ssize_t)sizeof(after) ||
	    memcmp(before, after, sizeof(after)))
		t_error("the first 4 KiB changed under the probe");

	/* an NVMe namespace: the passthrough probe, on its three nodes */
	if (uringcmd_nvme_node(b.fd)) {
		if (t_bdev_attr_u64(&b, "nsid", &nsid))
			t_die("%s: no nsid in sysfs", b.name);
		if (posix_memalign(&buf, 4096, 4096))
			t_die("out of memory");
		memset(&id, 0, sizeof(id));
		id.opcode = nvme_admin_identify;
		id.addr = (__u64)(uintptr_t)buf;
		id.data_len = 4096;
		id.cdw10 = NVME_IDENTIFY_CNS_CTRL;
		ret = ioctl(b.fd, NVME_IOCTL_ADMIN_CMD, &id);
		check_nvme(b.path, (__u32)nsid, ret < 0 ? -errno : ret, 0);
		free(buf);
		if (!strncmp(b.name, "nvme", 4)) {
			snprintf(path, sizeof(path), "/dev/ng%.32s", b.name + 4);
			if (!access(path, F_OK))
				check_nvme(path, (__u32)nsid, -ENOTTY, 0);
		}
		/* a path's namespace has its controller as parent device (a
		 * multipath head its subsystem, which has no node) */
		if (!t_bdev_attr_str(&b, "device/uevent", path, sizeof(path)) &&
		    strstr(path, "DEVNAME=")) {
			snprintf(ctrl, sizeof(ctrl), "/dev/%.*s",
				 (int)strcspn(strstr(path, "DEVNAME=") + 8, "\n"),
				 strstr(path, "DEVNAME=") + 8);
			check_nvme(ctrl, 0, 0, -EOPNOTSUPP);
		}
	} else {
		ret = uringcmd_nvme_probe(b.fd, 1, &p);
		if (ret != -ENODEV)
			t_error("uringcmd_nvme_probe on %s: %s, expected -ENODEV",
				b.name, t_errname(ret));
	}

	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		t_die("/dev/null: %s", strerror(errno));
	ret = uringcmd_probe_block(fd, &p);
	if (ret != -ENOTBLK)
		t_error("uringcmd_probe_block(/dev/null): %s, expected -ENOTBLK",
			t_errname(ret));
	ret = uringcmd_nvme_probe(fd, 1, &p);
	if (ret != -ENODEV)
		t_error("uringcmd_nvme_probe(/dev/null): %s, expected -ENODEV",
			t_errname(ret));
	close(fd);

	t_bdev_close(&b);
	return t_result();
}
