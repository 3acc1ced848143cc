// SPDX-License-Identifier: GPL-2.0
/* Description: block queries issued by an IORING_SETUP_SQPOLL thread complete with the ioctl answers */
/*
 * Usage: block_query_sqpoll [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * The SQ thread issues the command inline from a kernel thread that shares
 * the submitter's mm: the answer at addr must land in this process.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include <linux/fs.h>

#include "t_helpers.h"

#define BATCH	32

int main(int argc, char **argv)
{
	static struct t_bdev b;
	struct io_uring ring;
	int ret, res;

	t_bdev_open(&b, argc, argv, O_RDONLY);
	t_info("device %s (%s)", b.path, b.name);

	/* the tests run as root: -EPERM is a failure like any other */
	ret = t_ring_init(&ring, BATCH, IORING_SETUP_SQPOLL);
	if (ret)
		t_die("io_uring_queue_init(IORING_SETUP_SQPOLL): %s",
		      t_errname(ret));

	if (!t_query_batch(&ring, b.fd, BATCH, 0, "sqpoll batch:"))
		t_info("sqpoll batch of %d: ok", BATCH);

	if (!t_block_query(&ring, b.fd, BLKFLSBUF, 0, 0, 0, &res) &&
	    res != -ENOTTY)
		t_error("sqpoll unknown ioctl: res %s, expected -ENOTTY",
			t_res_str(res));

	io_uring_queue_exit(&ring);
	t_bdev_close(&b);
	return t_result();
}
