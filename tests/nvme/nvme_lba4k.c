// SPDX-License-Identifier: GPL-2.0
/* Description: a 4 KiB-LBA namespace through passthrough on the block node: I/O equal to pread/pwrite and ng, short lengths refused alike */
/*
 * Usage: nvme_lba4k [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *
 * On the first namespace of CTRLDEV with 4096-byte blocks and no metadata
 * (run-nvme.sh --ns logical_block_size=4096); the block queries on it are
 * block_query_ioctl_sysfs's, which run.sh also runs there:
 *   - 16 blocks written through uring_cmd on the block node read back the
 *     same with pread(O_DIRECT) and through ngXnY; a pwrite() reads back
 *     the same through the block node;
 *   - the block layer refuses a 512-byte O_DIRECT read with EINVAL.
 *
 * Passthrough has no such rule: a data_len that is not NLB blocks is
 * passed on as the ioctl passes it, and the controller moves what NLB
 * says. Under QEMU a 512-byte buffer at the end of a page for one 4096-byte
 * block completed with 0, the rest of the block going to the second PRP,
 * which the kernel had left 0 for 512 bytes: not a case to run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_nvme.h"

#define NBLK	16
#define SLBA	32

int main(int argc, char **argv)
{
	const char *ctrl = argc > 3 ? argv[3] : "/dev/nvme0";
	struct t_nvme_fmt fmts[32], f;
	unsigned char *pat, *buf;
	struct nvme_uring_cmd c;
	struct io_uring ring;
	unsigned int nr, i;
	size_t len = (size_t)NBLK * 4096;
	int bfd, cfd, dfd, ret;

	nr = t_nvme_formats(ctrl, fmts, 32);
	for (i = 0; i < nr; i++)
		if (fmts[i].lbs == 4096 && !fmts[i].ms && !fmts[i].zoned &&
		    fmts[i].bdev_bytes)
			break;
	if (i == nr)
		t_skip("%s has no 4096-byte-block namespace (run-nvme.sh --ns logical_block_size=4096)",
		       ctrl);
	f = fmts[i];
	t_info("%s", t_nvme_fmt_str(&f));
	bfd = open(f.bdev, O_RDWR | O_CLOEXEC);
	dfd = open(f.bdev, O_RDWR | O_DIRECT | O_CLOEXEC);
	cfd = open(f.chr, O_RDWR | O_CLOEXEC);
	if (bfd < 0 || dfd < 0 || cfd < 0)
		t_die("open %s or %s: %m", f.bdev, f.chr);
	if (t_nvme_ring(&ring, 8, 0))
		t_die("ring: %m");
	pat = t_alloc(len);
	buf = t_alloc(len);

	t_fill_pattern(pat, len, 0xb000);
	uringcmd_nvme_rw(&c, nvme_cmd_write, f.nsid, pat, len, SLBA, NBLK);
	ret = t_nvme_io_path(&ring, T_PATH_BDEV, bfd, cfd, &c, 0, NULL);
	if (ret)
		t_die("write through the block node: %s", t_nvme_res_str(ret));
	memset(buf, 0x11, len);
	if (pread(dfd, buf, len, SLBA * 4096) != (ssize_t)len)
		t_die("pread: %m");
	t_compare("written through the block node, read with pread", buf, pat, len);
	memset(buf, 0x22, len);
	uringcmd_nvme_rw(&c, nvme_cmd_read, f.nsid, buf, len, SLBA, NBLK);
	ret = t_nvme_io_path(&ring, T_PATH_CHAR, bfd, cfd, &c, 0, NULL);
	if (ret)
		t_error("read through ng: %s", t_nvme_res_str(ret));
	else
		t_compare("written through the block node, read through ng", buf, pat, len);

	t_fill_pattern(pat, len, 0xb100);
	if (pwrite(dfd, pat, len, SLBA * 4096) != (ssize_t)len)
		t_die("pwrite: %m");
	memset(buf, 0x33, len);
	ret = t_nvme_io_path(&ring, T_PATH_BDEV, bfd, cfd, &c, 0, NULL);
	if (ret)
		t_error("read through the block node: %s", t_nvme_res_str(ret));
	else
		t_compare("pwrite, read through the block node", buf, pat, len);

	errno = 0;
	if (pread(dfd, buf, 512, SLBA * 4096) != -1 || errno != EINVAL)
		t_error("512-byte O_DIRECT read of a 4096-byte-block device: %m, expected EINVAL");

	return t_result();
}
