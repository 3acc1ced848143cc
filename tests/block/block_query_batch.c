// SPDX-License-Identifier: GPL-2.0
/* Description: 64 block queries in one io_uring_submit all complete once, matched by user_data, with the ioctl answers */
/*
 * Usage: block_query_batch [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * Three rounds on the same ring: the inline path must leave the ring
 * reusable, and no round may see completions of another.
 */
#include <fcntl.h>
#include <stdio.h>

#include "t_helpers.h"

#define BATCH	64

int main(int argc, char **argv)
{
	static struct t_bdev b;
	struct io_uring ring;
	int ret, round;

	t_bdev_open(&b, argc, argv, O_RDONLY);
	t_info("device %s (%s)", b.path, b.name);

	ret = t_ring_init(&ring, BATCH, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));

	for (round = 0; round < 3; round++) {
		char what[32];

		snprintf(what, sizeof(what), "round %d:", round);
		if (!t_query_batch(&ring, b.fd, BATCH, 0, what))
			t_info("%s %d queries in one submit: ok", what, BATCH);
	}

	io_uring_queue_exit(&ring);
	t_bdev_close(&b);
	return t_result();
}
