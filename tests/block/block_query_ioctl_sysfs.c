// SPDX-License-Identifier: GPL-2.0
/* Description: every BLOCK_URING_CMD_IOCTL query answers what the ioctl and sysfs say */
/*
 * Usage: block_query_ioctl_sysfs [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * For each supported query: the uring_cmd answer without addr (narrow
 * queries), with addr (all queries; *addr poisoned first) and the ioctl
 * of the same code must agree, and where sysfs exposes the value it must
 * agree too. BLKSECTGET, BLKRAGET and BLKFRAGET again off their defaults,
 * at values the test sets through sysfs (they share code with the ioctl).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/blkzoned.h>

#include "t_helpers.h"

#define POISON	0xa5a5a5a5a5a5a5a5ULL

/* The sysfs view of @q, or false if sysfs has no counterpart. */
static bool sysfs_expect(const struct t_bdev *b, const struct uringcmd_block_query *q,
			 __u64 ioctl_val, __u64 *want, char *how, size_t howlen)
{
	char zoned[32] = "";
	__u64 v;
	int ret;

#define ATTR(a)								\
	do {								\
		ret = t_bdev_attr_u64(b, a, &v);			\
		if (ret) {						\
			t_error("%s: cannot read sysfs %s: %s", q->name,	\
				a, t_errname(ret));			\
			return false;					\
		}							\
		snprintf(how, howlen, "sysfs %s", a);			\
	} while (0)

	switch (q->cmd) {
	case BLKROGET:
		ATTR("ro");
		*want = v;
		return true;
	case BLKSSZGET:
		ATTR("queue/logical_block_size");
		*want = v;
		return true;
	case BLKPBSZGET:
		ATTR("queue/physical_block_size");
		*want = v;
		return true;
	case BLKIOMIN:
		ATTR("queue/minimum_io_size");
		*want = v;
		return true;
	case BLKIOOPT:
		ATTR("queue/optimal_io_size");
		*want = v;
		return true;
	case BLKALIGNOFF:
		ATTR("alignment_offset");
		*want = v;
		return true;
	case BLKDISCARDZEROES:
		ATTR("queue/discard_zeroes_data");
		*want = v;
		return true;
	case BLKROTATIONAL:
		ATTR("queue/rotational");
		*want = v;
		return true;
	case BLKSECTGET:
		/* max_sectors_kb is max_sectors >> 1: compare in KiB */
		ATTR("queue/max_sectors_kb");
		if (v * 2 >= 0xffff) {
			*want = 0xffff;
		} else {
			if ((ioctl_val >> 1) != v) {
				t_error("BLKSECTGET: ioctl %llu sectors, %s = %llu KiB",
					(unsigned long long)ioctl_val, how,
					(unsigned long long)v);
			}
			/* the sysfs value cannot tell an odd sector count */
			*want = ioctl_val;
			snprintf(how, howlen, "sysfs queue/max_sectors_kb*2 (%llu)",
				 (unsigned long long)v * 2);
		}
		return true;
	case BLKGETZONESZ:
	case BLKGETNRZONES:
		t_bdev_attr_str(b, "queue/zoned", zoned, sizeof(zoned));
		if (!zoned[0] || !strcmp(zoned, "none")) {
			*want = 0;
			snprintf(how, howlen, "sysfs queue/zoned = \"%s\" (0)",
				 zoned[0] ? zoned : "(missing)");
			return true;
		}
		if (q->cmd == BLKGETZONESZ)
			ATTR("queue/chunk_sectors");
		else
			ATTR("queue/nr_zones");
		*want = v;
		return true;
	case BLKGETSIZE64:
		ATTR("size");
		*want = v * 512;
		return true;
	case BLKGETSIZE:
		ATTR("size");
		*want = v;
		return true;
	case BLKGETDISKSEQ:
		ret = t_bdev_attr_u64(b, "diskseq", &v);
		if (ret == -ENOENT)
			return false;
		ATTR("diskseq");
		*want = v;
		return true;
	case BLKRAGET:
	case BLKFRAGET:
		ATTR("queue/read_ahead_kb");
		*want = v * 2;	/* KiB to 512-byte sectors */
		return true;
	default:
		/* BLKBSZGET: the soft block size has no sysfs file */
		return false;
	}
#undef ATTR
}

/*
 * BLKBSZGET has no sysfs file and answers the page size on every device
 * here: change the soft block size (BLKBSZSET on an O_EXCL open) and ask
 * again through uring_cmd and the ioctl on the first open, then restore.
 */
static void check_bszset(struct io_uring *ring, const struct t_bdev *b,
			 __u64 lbs)
{
	int fd, cur = 0, want, got = 0, res = 0;

	/* a 32-bit BLKBSZGET answers the logical block size (6.1's compat) */
	if (sizeof(long) == 4) {
		t_info("# BLKBSZSET not tried: the 32-bit BLKBSZGET does not read it back");
		return;
	}
	if (lbs >= (__u64)sysconf(_SC_PAGESIZE)) {
		t_info("# BLKBSZSET not tried: %llu-byte blocks leave one soft block size",
		       (unsigned long long)lbs);
		return;
	}
	fd = open(b->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		t_error("open %s O_EXCL for BLKBSZSET: %m", b->path);
		return;
	}
	if (ioctl(fd, BLKBSZGET, &cur)) {
		t_error("BLKBSZGET: %m");
		goto out;
	}
	want = cur == (int)lbs ? 2 * (int)lbs : (int)lbs;
	if (ioctl(fd, BLKBSZSET, &want)) {
		t_error("BLKBSZSET %d on an O_EXCL open: %m", want);
		goto out;
	}
	if (t_block_query(ring, b->fd, BLKBSZGET, 0, 0, 0, &res))
		t_error("BLKBSZGET after BLKBSZSET %d: no completion", want);
	else if (ioctl(b->fd, BLKBSZGET, &got) || res != want || got != want)
		t_error("BLKBSZGET after BLKBSZSET %d: uring_cmd %s, ioctl %d",
			want, t_res_str(res), got);
	else
		t_info("BLKBSZGET after BLKBSZSET %d: %d (ioctl, uring_cmd)",
		       want, res);
	if (ioctl(fd, BLKBSZSET, &cur))
		t_error("BLKBSZSET %d (restore): %m", cur);
out:
	close(fd);
}

/*
 * BLKSECTGET and BLKRAGET share their code with the ioctl (blkdev_query*()),
 * so the comparisons above cannot see that code answer the wrong field
 * when both fields hold the same default. Move each answer off its
 * default, to a value the test chose, and ask again: queue/max_sectors_kb
 * lowered below queue/max_hw_sectors_kb (BLKSECTGET must follow it, not
 * the hardware limit), and queue/read_ahead_kb set to 72 KiB (BLKRAGET and
 * BLKFRAGET must answer 144 sectors). Both restored.
 */
static void one_off_default(struct io_uring *ring, const struct t_bdev *b,
			    const char *attr, __u64 kib, __u32 cmd,
			    const char *name, __u64 want)
{
	char path[PATH_MAX + 64];
	__u64 saved, got = ~0ULL, slot = POISON;
	int ret, res = 0;

	snprintf(path, sizeof(path), "%s/%s", b->diskdir, attr);
	if (t_read_u64(path, &saved)) {
		t_error("%s: cannot read %s", name, path);
		return;
	}
	ret = t_write_u64(path, kib);
	if (ret) {
		t_error("%s: cannot set %s to %llu: %s", name, path,
			(unsigned long long)kib, t_errname(ret));
		return;
	}
	if (cmd == BLKSECTGET) {
		unsigned short v;

		if (!ioctl(b->fd, cmd, &v))
			got = v;
		/* narrow: the answer in cqe->res */
		ret = t_block_query(ring, b->fd, cmd, 0, 0, 0, &res);
		if (!ret && res >= 0)
			slot = res;
	} else {
		long v;

		if (!ioctl(b->fd, cmd, &v))
			got = v;
		/* 64-bit wide: the answer at addr, 0 in cqe->res */
		ret = t_block_query(ring, b->fd, cmd, 0, (__u64)(uintptr_t)&slot,
				    0, &res);
		if (!ret && res)
			slot = POISON;
	}
	if (ret)
		t_error("%s with %s = %llu: no completion", name, attr,
			(unsigned long long)kib);
	else if (got != want || slot != want)
		t_error("%s with %s = %llu: ioctl %lld, uring_cmd %lld (res %s), want %llu",
			name, attr, (unsigned long long)kib, (long long)got,
			(long long)slot, t_res_str(res), (unsigned long long)want);
	else
		t_info("%-16s %llu with %s = %llu (ioctl, uring_cmd, as set)",
		       name, (unsigned long long)want, attr,
		       (unsigned long long)kib);
	ret = t_write_u64(path, saved);
	if (ret)
		t_error("%s: cannot restore %s to %llu: %s", name, path,
			(unsigned long long)saved, t_errname(ret));
}

static void check_off_defaults(struct io_uring *ring, const struct t_bdev *b)
{
	char path[PATH_MAX + 64];
	__u64 hw = 0, lbs = 512, kib;

	snprintf(path, sizeof(path), "%s/queue/max_hw_sectors_kb", b->diskdir);
	t_read_u64(path, &hw);
	snprintf(path, sizeof(path), "%s/queue/logical_block_size", b->diskdir);
	t_read_u64(path, &lbs);
	/* below the hardware limit, at least a page and a logical block */
	kib = hw / 2 > 8 ? hw / 2 : 8;
	if (kib * 1024 < lbs)
		kib = lbs / 1024;
	if (hw > kib)
		one_off_default(ring, b, "queue/max_sectors_kb", kib, BLKSECTGET,
				"BLKSECTGET", kib * 2 > 65535 ? 65535 : kib * 2);
	else
		t_info("# BLKSECTGET off its default not tried: max_hw_sectors_kb %llu",
		       (unsigned long long)hw);
	one_off_default(ring, b, "queue/read_ahead_kb", 72, BLKRAGET, "BLKRAGET", 144);
	one_off_default(ring, b, "queue/read_ahead_kb", 72, BLKFRAGET, "BLKFRAGET", 144);
}

int main(int argc, char **argv)
{
	static struct t_bdev b;
	struct io_uring ring;
	__u64 ioctl_val, sys_val, slot;
	char how[128];
	bool uring_ok;
	size_t i;
	int ret, res;

	t_bdev_open(&b, argc, argv, O_RDONLY);
	t_info("device %s (%s)", b.path, b.name);

	ret = t_ring_init(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init: %s", t_errname(ret));

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i];

		ret = t_query_ioctl(b.fd, q, &ioctl_val);
		if (ret) {
			t_error("ioctl %s: %s", q->name, t_errname(ret));
			continue;
		}

		/* narrow queries: answer in cqe->res without addr */
		uring_ok = true;
		if (!q->needs_addr) {
			if (t_block_query(&ring, b.fd, q->cmd, 0, 0, 0, &res))
				continue;
			uring_ok = t_check_query_answer("no addr:", q,
							ioctl_val, res, NULL);
		}

		/* every query with addr: all 64 bits of *addr written */
		slot = POISON;
		if (t_block_query(&ring, b.fd, q->cmd, 0,
				  (__u64)(uintptr_t)&slot, 0, &res))
			continue;
		uring_ok &= t_check_query_answer("with addr:", q, ioctl_val,
						 res, &slot);

		if (BLKBSZGET == q->cmd) {
			__u64 lbs = 0;

			if (t_bdev_attr_u64(&b, "queue/logical_block_size", &lbs))
				t_error("%s: no queue/logical_block_size", b.name);
			else
				check_bszset(&ring, &b, lbs);
			if (ioctl_val < lbs || ioctl_val > 65536 ||
			    (ioctl_val & (ioctl_val - 1)))
				t_error("BLKBSZGET %llu is not a power of two >= logical block size %llu",
					(unsigned long long)ioctl_val,
					(unsigned long long)lbs);
		}

		how[0] = '\0';
		if (sysfs_expect(&b, q, ioctl_val, &sys_val, how, sizeof(how))) {
			if (sys_val != ioctl_val)
				t_error("%s: ioctl/uring_cmd answer %llu, %s gives %llu",
					q->name, (unsigned long long)ioctl_val,
					how, (unsigned long long)sys_val);
			else
				t_info("%-16s %llu (ioctl%s, %s)", q->name,
				       (unsigned long long)ioctl_val,
				       uring_ok ? ", uring_cmd" : "", how);
		} else {
			t_info("%-16s %llu (ioctl%s)", q->name,
			       (unsigned long long)ioctl_val,
			       uring_ok ? ", uring_cmd" : "");
		}
	}

	check_off_defaults(&ring, &b);
	if (!t_cq_empty(&ring))
		t_error("unexpected extra completion in the CQ ring");
	io_uring_queue_exit(&ring);
	t_bdev_close(&b);
	return t_result();
}
