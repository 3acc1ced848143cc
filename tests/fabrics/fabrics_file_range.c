// SPDX-License-Identifier: GPL-2.0
/* Description: nvmet file namespace: vectored passthrough I/O of many segments past its end fails with Capacity Exceeded and leaks nothing */
/*
 * Usage: fabrics_file_range BLOCKDEV [CHARDEV [CTRLDEV]]  (see t_nvme_open())
 *
 * BLOCKDEV is a node of tests/nvmet.sh's file-backed namespace (its head,
 * or with nvme_core.multipath=N a controller's node). nvmet's file backend
 * (drivers/nvme/target/io-cmd-file.c) gives a command of more than
 * NVMET_MAX_INLINE_BIOVEC (8) scatterlist entries a kmalloc'ed bvec array;
 * 6.1 completed a command that runs past the namespace's end with -ENOSPC
 * without freeing it (drivers-nvme patch 1, "nvmet: free the bvec on file
 * namespace range errors"). Here, NVME_URING_CMD_IO_VEC commands over 32
 * iovecs of 4 KiB, each on a page of its own with a page left out between
 * them (so that neither the host nor the target merges them into fewer
 * segments):
 *   - a read and a write that end exactly at the namespace's end: success,
 *     and the read returns what the write wrote;
 *   - reads and writes that cross the end, and reads and writes that start
 *     at the end: each completes with NVMe status Capacity Exceeded (the
 *     target's errno_to_nvme_status(-ENOSPC)), and the blocks before the
 *     end are unchanged by the write that crossed it.
 * Then FLUSH_CMDS reads of one block: the last pointer to a lost array
 * is the failed command's own req->f.bvec, in a request slot (nvme-loop's
 * iod, nvmet-tcp's command) that the next commands through that slot
 * overwrite, so these reuse every slot of the queues several times over.
 * Where kmemleak is (the debug kernel), it is then asked twice, 6 s on (an
 * object is reported only when it is older than 5 s and unchanged since
 * the previous scan, so a single scan after the commands reports none):
 * an unreferenced object allocated in nvmet_file_execute_rw() fails the
 * test, and stays listed for tests/run.sh's own scan at the end of the
 * run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "t_nvme.h"

#define NSEG		32
#define SEG_LEN		4096
#define IO_LEN		(NSEG * SEG_LEN)
#define REPEAT		8
/* more than the tags of all queues of a loop or tcp controller (2 x 128) */
#define FLUSH_CMDS	2048

static struct t_nvme n;
static struct io_uring ring;
static struct iovec iov[NSEG];
static unsigned char *spread;	/* 2 * NSEG pages: every other one used */

static void fill(unsigned char seed)
{
	int i;

	for (i = 0; i < NSEG; i++)
		memset(iov[i].iov_base, seed + i, SEG_LEN);
}

static bool holds(unsigned char seed)
{
	unsigned char *p;
	int i, j;

	for (i = 0; i < NSEG; i++) {
		p = iov[i].iov_base;
		for (j = 0; j < SEG_LEN; j++)
			if (p[j] != (unsigned char)(seed + i))
				return false;
	}
	return true;
}

/* one vectored command; the completion's res */
static int vec_io(__u8 opcode, __u64 slba)
{
	struct nvme_uring_cmd c;
	struct t_cqe cqe;

	uringcmd_nvme_rw_vec(&c, opcode, n.nsid, iov, NSEG, slba,
			     IO_LEN / n.lbs);
	if (t_nvme_cmd(&ring, n.bfd, NVME_URING_CMD_IO_VEC, &c, 0, &cqe))
		return -EIO;	/* reported by t_nvme_cmd() */
	return cqe.res;
}

static void expect_ok(const char *what, __u8 opcode, __u64 slba)
{
	int res = vec_io(opcode, slba);

	if (res)
		t_error("%s: %s, expected 0", what, t_nvme_res_str(res));
}

static void expect_cap_exceeded(const char *what, __u8 opcode, __u64 slba)
{
	int res = vec_io(opcode, slba);

	if (!uringcmd_nvme_res_is_status(res, NVME_SCT_GENERIC,
					 NVME_SC_CAP_EXCEEDED))
		t_error("%s: %s, expected NVMe status Capacity Exceeded (%#x)",
			what, t_nvme_res_str(res), NVME_SC_CAP_EXCEEDED);
}

int main(int argc, char **argv)
{
	__u64 nlb, end;
	char what[128];
	int i, ret;

	t_nvme_open(&n, argc, argv);
	if (SEG_LEN % n.lbs)
		t_skip("logical block size %u does not divide %d", n.lbs, SEG_LEN);
	if (n.max_bytes && n.max_bytes < IO_LEN)
		t_skip("%s takes at most %u bytes a command, the test needs %d",
		       n.bdev, n.max_bytes, IO_LEN);
	nlb = IO_LEN / n.lbs;
	end = n.nlb;
	if (end < 2 * nlb)
		t_skip("%s is too small: %llu blocks", n.bdev,
		       (unsigned long long)end);

	spread = t_alloc(2 * IO_LEN);
	for (i = 0; i < NSEG; i++) {
		iov[i].iov_base = spread + 2 * i * SEG_LEN;
		iov[i].iov_len = SEG_LEN;
	}
	ret = t_nvme_ring(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init(SQE128|CQE32): %s", t_errname(ret));

	/* the last IO_LEN bytes: a write and a read-back in range */
	fill(0x11);
	expect_ok("IO_VEC write of 32 segments ending at the namespace's end",
		  nvme_cmd_write, end - nlb);
	fill(0);
	expect_ok("IO_VEC read of 32 segments ending at the namespace's end",
		  nvme_cmd_read, end - nlb);
	if (!holds(0x11))
		t_error("the read at the end did not return what was written there");

	for (i = 0; i < REPEAT; i++) {
		fill(0x5a);
		snprintf(what, sizeof(what),
			 "IO_VEC read of 32 segments across the end (%d)", i);
		expect_cap_exceeded(what, nvme_cmd_read, end - nlb / 2);
		snprintf(what, sizeof(what),
			 "IO_VEC write of 32 segments across the end (%d)", i);
		expect_cap_exceeded(what, nvme_cmd_write, end - nlb / 2);
		snprintf(what, sizeof(what),
			 "IO_VEC read of 32 segments at the end (%d)", i);
		expect_cap_exceeded(what, nvme_cmd_read, end);
		snprintf(what, sizeof(what),
			 "IO_VEC write of 32 segments at the end (%d)", i);
		expect_cap_exceeded(what, nvme_cmd_write, end);
	}

	/* the failed writes changed nothing before the end */
	fill(0);
	expect_ok("IO_VEC read of the last 32 segments again",
		  nvme_cmd_read, end - nlb);
	if (!holds(0x11))
		t_error("a write across the namespace's end changed the blocks before it");

	/* overwrite every request slot's req->f.bvec (see the top) */
	for (i = 0; i < FLUSH_CMDS; i++) {
		struct nvme_uring_cmd c;
		struct t_cqe cqe;

		uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, spread, n.lbs, 0, 1);
		if (t_nvme_cmd(&ring, n.bfd, NVME_URING_CMD_IO, &c, 0, &cqe))
			break;
		if (cqe.res) {
			t_error("read %d of one block at 0: %s, expected 0", i,
				t_nvme_res_str(cqe.res));
			break;
		}
	}

	io_uring_queue_exit(&ring);
	t_nvme_close(&n);

	t_kmemleak_check("nvmet_file_execute_rw",
			 "the bvec arrays of out-of-range commands");
	return t_result();
}
