// SPDX-License-Identifier: GPL-2.0
/* Description: block queries forced to io-wq with IOSQE_ASYNC complete, with the right answers and errors */
/*
 * Usage: block_query_async [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * From io-wq an inline result must still be posted: a regression shows up
 * as a missing completion, caught by the T_TIMEOUT_MS deadline rather than
 * by a hang.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>

#include <linux/fs.h>

#include "t_helpers.h"

#define BATCH	64

static void expect(struct io_uring *ring, int fd, const char *what,
		   __u32 ioctl_cmd, __u32 flags, __u64 addr, int want)
{
	int res;

	if (t_block_query(ring, fd, ioctl_cmd, flags, addr, IOSQE_ASYNC, &res))
		return;
	if (res != want)
		t_error("async %s: res %s, expected %s", what, t_res_str(res),
			t_res_str(want));
	else
		t_info("async %s: %s", what, t_res_str(res));
}

int main(int argc, char **argv)
{
	static struct t_bdev b;
	struct io_uring ring;
	__u64 slot, want;
	size_t i;
	int ret, res;

	t_bdev_open(&b, argc, argv, O_RDONLY);
	t_info("device %s (%s)", b.path, b.name);

	ret = t_ring_init(&ring, BATCH, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));

	/* one at a time, every query */
	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i];

		ret = t_query_ioctl(b.fd, q, &want);
		if (ret) {
			t_error("ioctl %s: %s", q->name, t_errname(ret));
			continue;
		}
		slot = 0xa5a5a5a5a5a5a5a5ULL;
		if (t_block_query(&ring, b.fd, q->cmd, 0,
				  (__u64)(uintptr_t)&slot, IOSQE_ASYNC, &res))
			break;	/* no completion: the ring is unusable */
		t_check_query_answer("async", q, want, res, &slot);
	}

	/* errors must be posted from io-wq too */
	if (!t_nr_errors()) {
		expect(&ring, b.fd, "unknown ioctl", BLKFLSBUF, 0, 0, -ENOTTY);
		expect(&ring, b.fd, "flags != 0", BLKSSZGET, 1, 0, -EINVAL);
		expect(&ring, b.fd, "BLKGETSIZE64 without addr", BLKGETSIZE64,
		       0, 0, -EINVAL);
		expect(&ring, b.fd, "bad addr", BLKGETSIZE64, 0, 1, -EFAULT);
	}

	/* a full batch through io-wq */
	if (!t_nr_errors() &&
	    !t_query_batch(&ring, b.fd, BATCH, IOSQE_ASYNC, "async batch:"))
		t_info("async batch of %d: ok", BATCH);

	io_uring_queue_exit(&ring);
	t_bdev_close(&b);
	return t_result();
}
