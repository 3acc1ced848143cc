// SPDX-License-Identifier: GPL-2.0
/* Description: a positive inline uring_cmd answer keeps an IOSQE_IO_LINK chain going; a failed one cancels it */
/*
 * Usage: block_query_link [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * Chains (-> is IOSQE_IO_LINK, => IOSQE_IO_HARDLINK):
 *   BLKBSZGET -> NOP                      NOP completes with 0
 *   BLKSSZGET -> BLKGETSIZE64(addr) -> NOP  all succeed, in order
 *   BLKBSZGET [IOSQE_ASYNC] -> NOP        NOP completes with 0
 *   unknown ioctl -> NOP                  -ENOTTY, then NOP -ECANCELED
 *   BLKGETSIZE64 without addr -> NOP -> NOP  -EINVAL, -ECANCELED, -ECANCELED
 *   unknown ioctl => NOP                  -ENOTTY, then NOP runs: 0
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>

#include <linux/fs.h>

#include "t_helpers.h"

#define MAXLEN	4

struct step {
	bool	nop;		/* IORING_OP_NOP instead of a query */
	__u32	ioctl_cmd;
	bool	use_addr;
	__u8	flags;		/* IOSQE_* */
	int	want;		/* expected res; INT_MIN: the ioctl answer */
};

#define ANSWER	INT_MIN

static void run_chain(struct io_uring *ring, int fd, const char *name,
		      const struct step *steps, unsigned int n)
{
	/* static: a request that never completes may still write here */
	static __u64 slot[MAXLEN];
	__u64 want_val[MAXLEN];
	struct t_cqe c;
	bool seen[MAXLEN] = { false };
	unsigned int i, order = 0, errs = t_nr_errors();
	char what[96];
	int ret;

	snprintf(what, sizeof(what), "%s:", name);

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = t_get_sqe(ring);

		slot[i] = 0xa5a5a5a5a5a5a5a5ULL;
		want_val[i] = 0;
		if (steps[i].nop) {
			io_uring_prep_nop(sqe);
		} else {
			const struct uringcmd_block_query *q = uringcmd_block_query_find(steps[i].ioctl_cmd);

			if (q && t_query_ioctl(fd, q, &want_val[i]))
				t_die("%s: ioctl %s failed", name, q->name);
			t_prep_block_query(ring, sqe, fd, steps[i].ioctl_cmd, 0,
					   steps[i].use_addr ?
					   (__u64)(uintptr_t)&slot[i] : 0);
		}
		sqe->flags = steps[i].flags;
		sqe->user_data = i;
	}
	ret = t_submit(ring, n);
	if (ret) {
		t_error("%s: submit: %s", name, t_res_str(ret));
		return;
	}

	for (order = 0; order < n; order++) {
		const struct step *s;
		int want;

		ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
		if (ret) {
			t_error("%s: only %u of %u completions, then %s", name,
				order, n, t_res_str(ret));
			return;
		}
		if (c.user_data >= n || seen[c.user_data]) {
			t_error("%s: unexpected completion user_data %llu",
				name, (unsigned long long)c.user_data);
			continue;
		}
		i = (unsigned int)c.user_data;
		seen[i] = true;
		s = &steps[i];
		/* links complete in submission order */
		if (i != order)
			t_error("%s: request %u completed as #%u", name, i,
				order);
		want = s->want;
		if (want == ANSWER) {
			const struct uringcmd_block_query *q = uringcmd_block_query_find(s->ioctl_cmd);

			t_check_query_answer(what, q, want_val[i], c.res,
					     s->use_addr ? &slot[i] : NULL);
			continue;
		}
		if (c.res != want)
			t_error("%s: request %u (%s) res %s, expected %s", name,
				i, s->nop ? "NOP" : "uring_cmd",
				t_res_str(c.res), t_res_str(want));
	}
	if (!t_cq_empty(ring))
		t_error("%s: extra completions", name);
	else if (t_nr_errors() == errs)
		t_info("%s: ok", name);
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

	{
		const struct step s[] = {
			{ .ioctl_cmd = BLKBSZGET, .flags = IOSQE_IO_LINK, .want = ANSWER },
			{ .nop = true, .want = 0 },
		};
		run_chain(&ring, b.fd, "BLKBSZGET -> NOP", s, 2);
	}
	{
		const struct step s[] = {
			{ .ioctl_cmd = BLKSSZGET, .flags = IOSQE_IO_LINK, .want = ANSWER },
			{ .ioctl_cmd = BLKGETSIZE64, .use_addr = true,
			  .flags = IOSQE_IO_LINK, .want = ANSWER },
			{ .nop = true, .want = 0 },
		};
		run_chain(&ring, b.fd, "BLKSSZGET -> BLKGETSIZE64 -> NOP", s, 3);
	}
	{
		const struct step s[] = {
			{ .ioctl_cmd = BLKBSZGET,
			  .flags = IOSQE_IO_LINK | IOSQE_ASYNC, .want = ANSWER },
			{ .nop = true, .want = 0 },
		};
		run_chain(&ring, b.fd, "BLKBSZGET[async] -> NOP", s, 2);
	}
	{
		const struct step s[] = {
			{ .ioctl_cmd = BLKFLSBUF, .flags = IOSQE_IO_LINK, .want = -ENOTTY },
			{ .nop = true, .want = -ECANCELED },
		};
		run_chain(&ring, b.fd, "unknown ioctl -> NOP", s, 2);
	}
	{
		const struct step s[] = {
			{ .ioctl_cmd = BLKGETSIZE64, .flags = IOSQE_IO_LINK, .want = -EINVAL },
			{ .nop = true, .flags = IOSQE_IO_LINK, .want = -ECANCELED },
			{ .nop = true, .want = -ECANCELED },
		};
		run_chain(&ring, b.fd, "BLKGETSIZE64 without addr -> NOP -> NOP", s, 3);
	}
	{
		const struct step s[] = {
			{ .ioctl_cmd = BLKFLSBUF, .flags = IOSQE_IO_HARDLINK, .want = -ENOTTY },
			{ .nop = true, .want = 0 },
		};
		run_chain(&ring, b.fd, "unknown ioctl => NOP (hardlink)", s, 2);
	}

	io_uring_queue_exit(&ring);
	t_bdev_close(&b);
	return t_result();
}
