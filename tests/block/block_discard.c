// SPDX-License-Identifier: GPL-2.0
/* Description: Linux 6.12's BLOCK_URING_CMD_DISCARD: data equal to BLKDISCARD's, page cache invalidated, every errno, IOSQE_ASYNC and -EAGAIN retries with the SQ slot rewritten, links, many-bio ranges, overlapping ranges in parallel and on SQPOLL */
/*
 * Usage: block_discard [BLOCKDEV]   (or TEST_BLOCK_DEV; default: a new loop device)
 *
 * Written against 6.12's ABI only, as a program for 6.12 would be:
 * io_uring_prep_cmd_discard() (liburing 2.8's, from <uringcmd.h> on an
 * older liburing) and BLOCK_URING_CMD_DISCARD from <linux/blkdev.h>. It
 * destroys data in the first 24 MiB of the device.
 *
 * On every device: a read-only open gets -EBADF (-EOPNOTSUPP where the
 * device does not discard); non-zero ioprio, len, rw_flags, file_index or
 * __pad1 get -EINVAL; an IOPOLL ring gets -EOPNOTSUPP. On a device that
 * does not discard, a valid range gets -EOPNOTSUPP, as BLKDISCARD does; on
 * a read-only one, -EPERM. On a zoned device, a range gets what BLKDISCARD
 * gets. On the others:
 *   - misaligned offset or length, zero length, past the end, overflowing
 *     end: -EINVAL;
 *   - data: a range discarded through uring_cmd reads back (direct I/O)
 *     byte for byte as a range BLKDISCARD discarded (zeroes, which
 *     TEST_DISCARD_ZEROES=1 requires of BLKDISCARD), the blocks around it
 *     untouched; a buffered read after it sees the same bytes (the page
 *     cache of the range was invalidated);
 *   - a range of many bios (queue/discard_max_bytes lowered, and
 *     queue/nr_requests to 4, so that the split bios outnumber the tags),
 *     inline and with IOSQE_ASYNC: 0 and the whole range discarded;
 *   - the SQ slot rewritten right after io_uring_submit() (another range,
 *     a field that would be -EINVAL) for IOSQE_ASYNC, for the -EAGAIN retry
 *     of a many-bio range and for the retry of a range with cached pages:
 *     the submitted range is discarded, the other one untouched;
 *   - links: write -> discard -> read -> NOP in order, the read seeing the
 *     discarded bytes; a failed discard cancels what is linked to it;
 *   - 16 discards in one submission, each completing once, nothing else;
 *   - 128 random overlapping discards, 16 in flight, some IOSQE_ASYNC,
 *     over cached pages, on a plain and on an SQPOLL ring: each completes
 *     once with 0, the blocks a range covered read as discarded, the
 *     others as written, buffered reads as direct ones;
 *   - on a configfs null_blk, bio errors (its badblocks): -EIO in cqe->res
 *     for one bad block and for a many-bio range whose last block is bad,
 *     inline and IOSQE_ASYNC, as BLKDISCARD gets;
 *   - an IORING_SETUP_SQE128 ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include <linux/fs.h>

#include "t_helpers.h"

#define MiB		(1024ULL * 1024)
#define SLOT		MiB		/* regions start at slot boundaries */
#define NEED_SIZE	(24 * MiB)	/* 1 + 22 slots, and room at the end */
#define REG		(256 * 1024ULL)	/* an ordinary region */
#define BIG		(768 * 1024ULL)	/* the many-bio region */
#define NBATCH		16

static struct t_bdev bdev;
static int fd_dio = -1;		/* O_RDWR | O_DIRECT: commands, direct I/O */
static int fd_buf = -1;		/* O_RDWR: buffered reads (the page cache) */
static unsigned int lbs;
static __u64 dev_size;
static bool discards;		/* queue/discard_max_bytes != 0 */
static bool zoned;
static char *pat, *rbuf, *rbuf2, *ref;	/* BIG + 2 * lbs each, aligned */
static char *zeroes;			/* REG bytes of 0 */
static bool ref_ok;		/* ref holds a BLKDISCARDed REG region */
static bool really_discards;	/* BLKDISCARD changed the bytes */
static bool reads_zeroes;	/* TEST_DISCARD_ZEROES=1: discarded blocks read 0 */

/* restored at exit: queue/discard_max_bytes */
static char dmb_path[PATH_MAX + 32];
static __u64 dmb_saved, dmb_gran;
static bool dmb_changed;

/*
 * The kernel takes only multiples of the discard granularity up to
 * UINT_MAX and clamps them to the hardware limit, which is what the saved
 * value usually is and which need not be such a multiple: write it rounded
 * up, which the clamp brings back to the limit; where that is above
 * UINT_MAX (a loop device's 4 GiB - 512), the closest value below is all
 * that can be written.
 */
/* restored at exit too: queue/nr_requests, lowered for the many-bio ranges */
static char nrq_path[PATH_MAX + 32];
static __u64 nrq_saved;

static bool restore_dmb(void)
{
	__u64 up, below, want, now = 0;

	if (nrq_saved) {
		if (t_write_u64(nrq_path, nrq_saved))
			fprintf(stderr, "could not restore %s to %llu\n", nrq_path,
				(unsigned long long)nrq_saved);
		nrq_saved = 0;
	}
	if (!dmb_changed)
		return true;
	dmb_changed = false;
	/*
	 * below UINT_MAX also where the saved value is far above it (an
	 * nvme-tcp namespace without a discard limit: UINT_MAX sectors)
	 */
	up = (dmb_saved + dmb_gran - 1) / dmb_gran * dmb_gran;
	below = (dmb_saved < UINT_MAX ? dmb_saved : UINT_MAX) / dmb_gran * dmb_gran;
	want = up <= UINT_MAX ? dmb_saved : below;
	t_write_u64(dmb_path, up <= UINT_MAX ? up : below);
	if (t_read_u64(dmb_path, &now) || now != want) {
		fprintf(stderr, "could not restore %s to %llu (it is %llu)\n",
			dmb_path, (unsigned long long)want,
			(unsigned long long)now);
		return false;
	}
	return true;
}

static void restore_dmb_at_exit(void)
{
	restore_dmb();
}

static void *alloc_buf(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		t_die("out of memory");
	return p;
}

static __u64 slot(unsigned int n)
{
	return (__u64)n * SLOT;
}

/* fields of an SQE to set after io_uring_prep_cmd_discard() */
enum tweak { T_NONE, T_IOPRIO, T_LEN, T_RW_FLAGS, T_FILE_INDEX, T_PAD1 };

static const char *const tweak_name[] = {
	"", "ioprio", "len", "rw_flags", "file_index", "__pad1",
};

static void prep_discard(struct io_uring_sqe *sqe, int fd, __u64 off,
			 __u64 len, enum tweak t)
{
	io_uring_prep_cmd_discard(sqe, fd, off, len);
	switch (t) {
	case T_NONE:
		break;
	case T_IOPRIO:
		sqe->ioprio = 1;
		break;
	case T_LEN:
		sqe->len = 1;
		break;
	case T_RW_FLAGS:
		sqe->rw_flags = 1U << 30;
		break;
	case T_FILE_INDEX:
		sqe->file_index = 1;
		break;
	case T_PAD1:
		sqe->__pad1 = 1;
		break;
	}
}

/* One discard: submit, wait, return cqe->res (or a t_error and -EIO). */
static int discard(struct io_uring *ring, int fd, __u64 off, __u64 len,
		   __u8 sqe_flags, enum tweak t)
{
	/* one user_data each: a late duplicate cannot pass for the next */
	static __u64 seq;
	__u64 want = 0xd15c000000000000ULL | ++seq;
	struct io_uring_sqe *sqe = t_get_sqe(ring);
	struct t_cqe c;
	int ret;

	prep_discard(sqe, fd, off, len, t);
	sqe->flags = sqe_flags;
	sqe->user_data = want;
	ret = t_submit_wait_one(ring, &c, T_TIMEOUT_MS);
	if (ret) {
		t_error("discard %llu+%llu: no completion: %s",
			(unsigned long long)off, (unsigned long long)len,
			t_res_str(ret));
		return -EIO;
	}
	if (c.user_data != want)
		t_error("discard: completion of user_data %#llx, not %#llx",
			(unsigned long long)c.user_data, (unsigned long long)want);
	if (!t_cq_empty(ring))
		t_error("discard: a second completion");
	return c.res;
}

static void expect(const char *what, int got, int want)
{
	if (got != want)
		t_error("%s: got %s, want %s", what, t_res_str(got),
			t_res_str(want));
}

static int ioctl_discard(__u64 off, __u64 len)
{
	__u64 range[2] = { off, len };

	return ioctl(fd_dio, BLKDISCARD, range) ? -errno : 0;
}

/* Write the pattern over [off - lbs, off + len + lbs). */
static void write_region(__u64 off, __u64 len)
{
	ssize_t n = pwrite(fd_dio, pat, len + 2 * lbs, off - lbs);

	if (n != (ssize_t)(len + 2 * lbs))
		t_die("pwrite %llu bytes at %llu: %s", len + 2ULL * lbs,
		      (unsigned long long)(off - lbs),
		      n < 0 ? strerror(errno) : "short write");
}

/* Read [off - lbs, off + len + lbs) into @buf through @fd; 0 or -errno. */
static int read_region(int fd, __u64 off, __u64 len, char *buf)
{
	ssize_t n = pread(fd, buf, len + 2 * lbs, off - lbs);

	if (n < 0)
		return -errno;
	return n == (ssize_t)(len + 2 * lbs) ? 0 : -ENODATA;
}

/*
 * Check a region that was discarded (by @how): the guard blocks keep the
 * pattern, the range reads as a BLKDISCARDed one (ref), and a buffered
 * read sees what a direct read sees.
 */
static void check_discarded(const char *how, __u64 off, __u64 len)
{
	long d;
	int ret;

	ret = read_region(fd_dio, off, len, rbuf);
	if (ret) {
		t_error("%s: direct read at %llu: %s", how,
			(unsigned long long)off, t_res_str(ret));
		return;
	}
	if (memcmp(rbuf, pat, lbs))
		t_error("%s: the block before the range changed", how);
	if (memcmp(rbuf + lbs + len, pat + lbs + len, lbs))
		t_error("%s: the block after the range changed", how);
	if (ref_ok) {
		/*
		 * ref is a REG region that BLKDISCARD changed (to zeroes, say),
		 * so longer ranges are compared per REG; or one it left as it
		 * was, so the range must hold the pattern still.
		 */
		__u64 o;

		for (o = 0; o < len; o += REG) {
			__u64 n = len - o < REG ? len - o : REG;
			const char *want = really_discards ? ref + lbs :
					   pat + lbs + o;

			d = t_memcmp_off(rbuf + lbs + o, want, n);
			if (d >= 0) {
				t_error("%s: byte %llu of the range differs from a BLKDISCARDed range (0x%02x, not 0x%02x)",
					how, (unsigned long long)(o + d),
					(unsigned char)rbuf[lbs + o + d],
					(unsigned char)want[d]);
				break;
			}
		}
	}
	ret = read_region(fd_buf, off, len, rbuf2);
	if (ret) {
		t_error("%s: buffered read at %llu: %s", how,
			(unsigned long long)off, t_res_str(ret));
		return;
	}
	d = t_memcmp_off(rbuf2, rbuf, len + 2 * lbs);
	if (d >= 0)
		t_error("%s: a buffered read differs from a direct read at byte %ld: stale page cache (0x%02x, not 0x%02x)",
			how, d - (long)lbs, (unsigned char)rbuf2[d],
			(unsigned char)rbuf[d]);
}

/* The region still holds the pattern, every byte. */
static void check_untouched(const char *how, __u64 off, __u64 len)
{
	long d;
	int ret = read_region(fd_dio, off, len, rbuf);

	if (ret) {
		t_error("%s: direct read at %llu: %s", how,
			(unsigned long long)off, t_res_str(ret));
		return;
	}
	d = t_memcmp_off(rbuf, pat, len + 2 * lbs);
	if (d >= 0)
		t_error("%s: the region at %llu changed at byte %ld", how,
			(unsigned long long)off, d - (long)lbs);
}

/* Bring [off, off + len) into the page cache. */
static void cache_region(__u64 off, __u64 len)
{
	if (pread(fd_buf, rbuf2, len, off) != (ssize_t)len)
		t_die("buffered read at %llu: %s", (unsigned long long)off,
		      strerror(errno));
}

static void test_field_errors(struct io_uring *ring)
{
	enum tweak t;
	char what[64];

	for (t = T_IOPRIO; t <= T_PAD1; t++) {
		snprintf(what, sizeof(what), "non-zero %s", tweak_name[t]);
		expect(what, discard(ring, fd_dio, slot(1), lbs, 0, t),
		       -EINVAL);
	}
}

static void test_iopoll(void)
{
	struct io_uring ring;
	int ret = t_ring_init(&ring, 4, IORING_SETUP_IOPOLL);

	if (ret) {
		t_error("IOPOLL ring: %s", t_res_str(ret));
		return;
	}
	expect("IOPOLL ring", discard(&ring, fd_dio, slot(1), lbs, 0, T_NONE),
	       -EOPNOTSUPP);
	/* reaped through io_do_iopoll(): posted once, nothing after it */
	t_cq_quiet(&ring, "IOPOLL ring");
	io_uring_queue_exit(&ring);
}

static void test_range_errors(struct io_uring *ring)
{
	__u64 top = ~0ULL & ~(__u64)(lbs - 1);

	expect("offset not a multiple of the block size",
	       discard(ring, fd_dio, slot(1) + lbs / 2 + 1, lbs, 0, T_NONE),
	       -EINVAL);
	expect("length not a multiple of the block size",
	       discard(ring, fd_dio, slot(1), lbs + 1, 0, T_NONE), -EINVAL);
	expect("zero length", discard(ring, fd_dio, slot(1), 0, 0, T_NONE),
	       -EINVAL);
	expect("range past the end",
	       discard(ring, fd_dio, dev_size - lbs, 2 * lbs, 0, T_NONE),
	       -EINVAL);
	expect("range at the end",
	       discard(ring, fd_dio, dev_size, lbs, 0, T_NONE), -EINVAL);
	expect("end overflowing",
	       discard(ring, fd_dio, top, 2 * lbs, 0, T_NONE), -EINVAL);
	expect("length overflowing",
	       discard(ring, fd_dio, lbs, top, 0, T_NONE), -EINVAL);
	expect("last block", discard(ring, fd_dio, dev_size - lbs, lbs, 0,
				     T_NONE), 0);
}

/* Slot 1: BLKDISCARD's reference; slot 2: uring_cmd, page cache primed. */
static void test_data(struct io_uring *ring)
{
	int ret;

	write_region(slot(1), REG);
	ret = ioctl_discard(slot(1), REG);
	if (ret) {
		t_error("BLKDISCARD: %s", t_res_str(ret));
		return;
	}
	ret = read_region(fd_dio, slot(1), REG, ref);
	if (ret) {
		t_error("read of the BLKDISCARDed region: %s", t_res_str(ret));
		return;
	}
	ref_ok = true;
	really_discards = memcmp(ref + lbs, pat + lbs, REG) != 0;
	if (reads_zeroes) {
		long d = t_memcmp_off(ref + lbs, zeroes, REG);

		/* the device says so: a discard that does nothing must fail */
		if (d >= 0)
			t_error("BLKDISCARD: byte %ld of the range reads 0x%02x, not 0 (TEST_DISCARD_ZEROES=1: discarded blocks read zeroes)",
				d, (unsigned char)ref[lbs + d]);
	} else if (!really_discards) {
		t_info("# BLKDISCARD left the data as it was: the data checks compare with that");
	}

	write_region(slot(2), REG);
	cache_region(slot(2), REG);
	expect("discard of a cached range",
	       discard(ring, fd_dio, slot(2), REG, 0, T_NONE), 0);
	check_discarded("discard of a cached range", slot(2), REG);

	write_region(slot(3), REG);
	expect("discard IOSQE_ASYNC",
	       discard(ring, fd_dio, slot(3), REG, IOSQE_ASYNC, T_NONE), 0);
	check_discarded("discard IOSQE_ASYNC", slot(3), REG);
}

/* Lower queue/discard_max_bytes so that BIG takes many bios. */
static unsigned int many_bios_setup(void)
{
	__u64 gran = 0, small;
	int ret;

	if (t_bdev_attr_u64(&bdev, "queue/discard_granularity", &gran) || !gran)
		gran = lbs;
	dmb_gran = gran;
	small = gran > lbs ? gran : lbs;
	if (small < 8192)
		small = 8192 / small * small;
	if (t_bdev_attr_u64(&bdev, "queue/discard_max_bytes", &dmb_saved))
		return 0;
	if (dmb_saved <= small)
		return BIG / dmb_saved;
	if (snprintf(dmb_path, sizeof(dmb_path), "%s/queue/discard_max_bytes",
		     bdev.diskdir) >= (int)sizeof(dmb_path))
		return 0;
	dmb_changed = true;
	ret = t_write_u64(dmb_path, small);
	if (ret) {
		t_info("# could not set %s to %llu: %s", dmb_path,
		       (unsigned long long)small, t_errname(-ret));
		restore_dmb();
		return 0;
	}
	/*
	 * And as few requests as the queue allows (4): the bios the block
	 * layer splits a range into then outnumber the tags a plug can hold,
	 * so a split that cannot wait for one is seen. An inline discard
	 * once posted -EAGAIN that way after part of its range was gone.
	 */
	snprintf(nrq_path, sizeof(nrq_path), "%s/queue/nr_requests", bdev.diskdir);
	if (!t_read_u64(nrq_path, &nrq_saved)) {
		ret = t_write_u64(nrq_path, 4);
		if (ret) {
			t_info("# could not set %s to 4: %s", nrq_path,
			       t_errname(-ret));
			nrq_saved = 0;
		}
	} else {
		nrq_saved = 0;
	}
	return BIG / small;
}

static bool test_many_bios(struct io_uring *ring)
{
	unsigned int nbios = many_bios_setup();

	if (nbios < 2) {
		t_error("cannot lower queue/discard_max_bytes of %s: no many-bio range",
			bdev.name);
		return false;
	}
	t_info("# many-bio ranges: %u bios of at most %llu bytes each%s", nbios,
	       (unsigned long long)(BIG / nbios),
	       nrq_saved ? ", 4 requests" : "");

	write_region(slot(5), BIG);
	expect("many-bio range", discard(ring, fd_dio, slot(5), BIG, 0, T_NONE),
	       0);
	check_discarded("many-bio range", slot(5), BIG);

	write_region(slot(6), BIG);
	expect("many-bio range IOSQE_ASYNC",
	       discard(ring, fd_dio, slot(6), BIG, IOSQE_ASYNC, T_NONE), 0);
	check_discarded("many-bio range IOSQE_ASYNC", slot(6), BIG);
	/* the rewrite tests use the small limit too; restored at the end */
	return true;
}

/* Mark sectors [@first, @last] bad (@bad) or good on a configfs null_blk. */
static bool set_badblocks(const char *path, __u64 first, __u64 last, bool bad)
{
	char v[64];
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int len = snprintf(v, sizeof(v), "%c%llu-%llu", bad ? '+' : '-',
			   (unsigned long long)first, (unsigned long long)last);
	bool ok = fd >= 0 && write(fd, v, len) == len;

	if (!ok)
		t_error("%s \"%s\": %s", path, v, strerror(errno));
	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * A bio that fails reaches cqe->res. On a null_blk made through configfs,
 * sectors marked in its badblocks attribute fail every command touching
 * them with BLK_STS_IOERR, discards included: one bad block (one bio) and
 * a many-bio range whose last block alone is bad (the error comes from the
 * chain's last bio) give -EIO inline and with IOSQE_ASYNC, as BLKDISCARD
 * does. Elsewhere nothing can fail a discard bio, and the test says so.
 */
static void test_bio_error(struct io_uring *ring, bool many)
{
	char path[PATH_MAX];
	struct { const char *what; __u64 off, len; } c[2] = {
		{ "bad block", slot(17), lbs },
		{ "many-bio range, last block bad", slot(18), BIG },
	};
	unsigned int i;

	snprintf(path, sizeof(path), "/sys/kernel/config/nullb/%s/badblocks",
		 bdev.name);
	if (access(path, W_OK)) {
		t_info("# %s has no null_blk badblocks: no bio error injected here",
		       bdev.name);
		return;
	}
	for (i = 0; i < 2; i++) {
		__u64 bad = (c[i].off + c[i].len - lbs) / 512;
		char what[96];

		if (i == 1 && !many)
			continue;
		if (!set_badblocks(path, bad, bad + lbs / 512 - 1, true))
			return;
		expect(c[i].what, discard(ring, fd_dio, c[i].off, c[i].len, 0, T_NONE),
		       -EIO);
		snprintf(what, sizeof(what), "%s, IOSQE_ASYNC", c[i].what);
		expect(what, discard(ring, fd_dio, c[i].off, c[i].len, IOSQE_ASYNC,
				     T_NONE), -EIO);
		snprintf(what, sizeof(what), "%s, BLKDISCARD", c[i].what);
		expect(what, ioctl_discard(c[i].off, c[i].len), -EIO);
		if (!set_badblocks(path, bad, bad + lbs / 512 - 1, false))
			return;
		expect("the same range once the block is good again",
		       discard(ring, fd_dio, c[i].off, c[i].len, 0, T_NONE), 0);
	}
	t_info("# bio errors (null_blk badblocks) reach cqe->res: -EIO");
}

/*
 * Submit a discard of @off, then rewrite the SQ slot it was read from
 * before waiting: another range (@decoy) and a field that is -EINVAL.
 * The kernel must work on what was submitted.
 */
static void rewrite_case(struct io_uring *ring, const char *how, __u64 off,
			 __u64 len, __u64 decoy, __u8 sqe_flags, bool cached)
{
	struct io_uring_sqe *sqe;
	struct t_cqe c;
	int ret;

	write_region(off, len);
	write_region(decoy, len);
	if (cached)
		cache_region(off, len);
	sqe = t_get_sqe(ring);
	prep_discard(sqe, fd_dio, off, len, T_NONE);
	sqe->flags = sqe_flags;
	sqe->user_data = 7;
	ret = t_submit(ring, 1);
	if (ret) {
		t_error("%s: submit: %s", how, t_res_str(ret));
		return;
	}
	/* the slot is the application's again: reuse it */
	memset(sqe, 0x5a, sizeof(*sqe));
	prep_discard(sqe, fd_dio, decoy, len, T_IOPRIO);
	sqe->user_data = 8;

	ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
	if (ret) {
		t_error("%s: no completion: %s", how, t_res_str(ret));
		return;
	}
	if (c.user_data != 7)
		t_error("%s: completion of user_data %llu, not 7", how,
			(unsigned long long)c.user_data);
	expect(how, c.res, 0);
	if (!t_cq_empty(ring))
		t_error("%s: a second completion", how);
	check_discarded(how, off, len);
	check_untouched(how, decoy, len);
}

static void test_rewrite(struct io_uring *ring, bool many)
{
	rewrite_case(ring, "IOSQE_ASYNC, slot rewritten", slot(7), REG,
		     slot(8), IOSQE_ASYNC, false);
	rewrite_case(ring, "cached range retried from io-wq, slot rewritten",
		     slot(9), REG, slot(10), 0, true);
	if (many)
		rewrite_case(ring, "many-bio range retried from io-wq, slot rewritten",
			     slot(11), BIG, slot(12), 0, false);
}

static void test_links(struct io_uring *ring)
{
	struct io_uring_sqe *sqe;
	struct t_cqe c;
	bool seen[4] = { false };
	unsigned int i;
	int ret, want;

	/* write -> discard -> read -> NOP */
	memset(rbuf, 0, REG + 2 * lbs);
	write_region(slot(13), REG);
	sqe = t_get_sqe(ring);
	io_uring_prep_write(sqe, fd_dio, pat + lbs, REG, slot(13));
	sqe->flags = IOSQE_IO_LINK;
	sqe->user_data = 0;
	sqe = t_get_sqe(ring);
	prep_discard(sqe, fd_dio, slot(13), REG, T_NONE);
	sqe->flags = IOSQE_IO_LINK;
	sqe->user_data = 1;
	sqe = t_get_sqe(ring);
	io_uring_prep_read(sqe, fd_dio, rbuf + lbs, REG, slot(13));
	sqe->flags = IOSQE_IO_LINK;
	sqe->user_data = 2;
	sqe = t_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 3;
	ret = t_submit(ring, 4);
	if (ret) {
		t_error("write -> discard -> read -> NOP: submit: %s",
			t_res_str(ret));
		return;
	}
	for (i = 0; i < 4; i++) {
		ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
		if (ret) {
			t_error("write -> discard -> read -> NOP: %u of 4 completions, then %s",
				i, t_res_str(ret));
			return;
		}
		if (c.user_data != i || seen[i]) {
			t_error("write -> discard -> read -> NOP: completion %u is user_data %llu",
				i, (unsigned long long)c.user_data);
			continue;
		}
		seen[i] = true;
		want = (i == 0 || i == 2) ? (int)REG : 0;
		if (c.res != want)
			t_error("write -> discard -> read -> NOP: step %u: %s, want %s",
				i, t_res_str(c.res), t_res_str(want));
	}
	if (!t_cq_empty(ring))
		t_error("write -> discard -> read -> NOP: an extra completion");
	if (ref_ok && memcmp(rbuf + lbs, ref + lbs, REG))
		t_error("write -> discard -> read: the linked read did not see the discarded bytes");

	/* a failed discard cancels the NOP linked to it */
	sqe = t_get_sqe(ring);
	prep_discard(sqe, fd_dio, slot(13), 0, T_NONE);
	sqe->flags = IOSQE_IO_LINK;
	sqe->user_data = 10;
	sqe = t_get_sqe(ring);
	io_uring_prep_nop(sqe);
	sqe->user_data = 11;
	ret = t_submit(ring, 2);
	if (ret) {
		t_error("bad discard -> NOP: submit: %s", t_res_str(ret));
		return;
	}
	for (i = 0; i < 2; i++) {
		ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
		if (ret) {
			t_error("bad discard -> NOP: %u of 2 completions, then %s",
				i, t_res_str(ret));
			return;
		}
		if (c.user_data != 10 + i)
			t_error("bad discard -> NOP: completion %u is user_data %llu",
				i, (unsigned long long)c.user_data);
		else
			expect(i ? "NOP after a bad discard" : "bad discard in a link",
			       c.res, i ? -ECANCELED : -EINVAL);
	}
	if (!t_cq_empty(ring))
		t_error("bad discard -> NOP: an extra completion");
}

/* NBATCH discards of REG / NBATCH each in slots 14-15, one submission. */
static void test_batch(struct io_uring *ring)
{
	const __u64 len = REG / NBATCH;
	bool seen[NBATCH] = { false };
	struct t_cqe c;
	unsigned int i;
	int ret;

	write_region(slot(14), REG);
	for (i = 0; i < NBATCH; i++) {
		struct io_uring_sqe *sqe = t_get_sqe(ring);

		prep_discard(sqe, fd_dio, slot(14) + i * len, len, T_NONE);
		sqe->flags = (i & 1) ? IOSQE_ASYNC : 0;
		sqe->user_data = 100 + i;
	}
	ret = t_submit(ring, NBATCH);
	if (ret) {
		t_error("batch: submit: %s", t_res_str(ret));
		return;
	}
	for (i = 0; i < NBATCH; i++) {
		unsigned long long u;

		ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
		if (ret) {
			t_error("batch: %u of %u completions, then %s", i,
				NBATCH, t_res_str(ret));
			return;
		}
		u = c.user_data;
		if (u < 100 || u >= 100 + NBATCH || seen[u - 100]) {
			t_error("batch: unexpected or repeated user_data %llu", u);
			continue;
		}
		seen[u - 100] = true;
		if (c.res)
			t_error("batch: discard %llu: %s", u - 100,
				t_res_str(c.res));
	}
	if (!t_cq_empty(ring))
		t_error("batch: an extra completion");
	check_discarded("batch of 16", slot(14), REG);
}

static void test_sqe128(void)
{
	struct io_uring ring;
	int ret = t_ring_init(&ring, 4, IORING_SETUP_SQE128);

	if (ret) {
		t_error("SQE128 ring: %s", t_res_str(ret));
		return;
	}
	write_region(slot(16), REG);
	expect("SQE128 ring", discard(&ring, fd_dio, slot(16), REG, 0, T_NONE),
	       0);
	check_discarded("SQE128 ring", slot(16), REG);
	io_uring_queue_exit(&ring);
}

/*
 * Overlapping discards in parallel, as liburing's cmd-discard sends them:
 * OVL_NR random ranges inside OVL_LEN bytes at slot 19, OVL_INFLIGHT in
 * flight, a quarter with IOSQE_ASYNC, the region's pages cached first.
 * Every command completes once with 0; afterwards each block that some
 * range covered reads as discarded (zeroes where TEST_DISCARD_ZEROES=1,
 * else zeroes or the pattern, whole blocks), every other block and the
 * guards keep the pattern, and a buffered read sees what a direct one does.
 */
#define OVL_LEN		(4 * MiB)
#define OVL_NR		128
#define OVL_INFLIGHT	16

static void test_overlap(struct io_uring *ring, const char *how)
{
	const __u64 off = slot(19), nblk = OVL_LEN / lbs;
	__u64 gran = 0, x = 0x5eed0d15cULL, want_ud;
	unsigned int sent = 0, done = 0, inflight = 0, queued, i;
	unsigned char *covered = calloc(nblk, 1);
	bool *seen = calloc(OVL_NR, sizeof(*seen));
	char *o_pat = alloc_buf(OVL_LEN + 2 * lbs);
	char *o_buf = alloc_buf(OVL_LEN + 2 * lbs);
	char *o_buf2 = alloc_buf(OVL_LEN + 2 * lbs);
	struct t_cqe c;
	long d;
	int ret;

	if (!covered || !seen)
		t_die("out of memory");
	if (t_bdev_attr_u64(&bdev, "queue/discard_granularity", &gran) ||
	    gran < lbs)
		gran = lbs;
	t_fill_pattern(o_pat, OVL_LEN + 2 * lbs, 0x0e1a);
	if (pwrite(fd_dio, o_pat, OVL_LEN + 2 * lbs, off - lbs) !=
	    (ssize_t)(OVL_LEN + 2 * lbs))
		t_die("%s: pwrite: %s", how, strerror(errno));
	if (pread(fd_buf, o_buf2, OVL_LEN, off) != (ssize_t)OVL_LEN)
		t_die("%s: buffered read: %s", how, strerror(errno));

	want_ud = 0x0e1a000000000000ULL;
	while (done < OVL_NR) {
		for (queued = 0; sent < OVL_NR && inflight < OVL_INFLIGHT;
		     queued++) {
			struct io_uring_sqe *sqe = t_get_sqe(ring);
			__u64 ngran = OVL_LEN / gran, start, len, b;

			/* xorshift64: the same ranges on every run */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			start = x % ngran;
			len = 1 + (x >> 32) % 64;
			if (start + len > ngran)
				len = ngran - start;
			for (b = start * gran / lbs;
			     b < (start + len) * gran / lbs; b++)
				covered[b] = 1;
			prep_discard(sqe, fd_dio, off + start * gran,
				     len * gran, T_NONE);
			sqe->flags = (x >> 20) % 4 ? 0 : IOSQE_ASYNC;
			sqe->user_data = want_ud | sent;
			sent++;
			inflight++;
		}
		/*
		 * SQPOLL: io_uring_submit() counts what the SQ thread has not
		 * taken yet, earlier SQEs too; the CQEs are what is checked.
		 */
		if (!queued)
			ret = 0;
		else if (ring->flags & IORING_SETUP_SQPOLL)
			ret = io_uring_submit(ring) < 0 ? -EIO : 0;
		else
			ret = t_submit(ring, queued);
		if (ret) {
			t_error("%s: submit: %s", how, t_res_str(ret));
			goto out;
		}
		ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
		if (ret) {
			t_error("%s: %u of %u completions, then %s", how, done,
				OVL_NR, t_res_str(ret));
			goto out;
		}
		i = c.user_data & 0xffff;
		if ((c.user_data & ~0xffffULL) != want_ud || i >= sent ||
		    seen[i]) {
			t_error("%s: unexpected or repeated user_data %#llx",
				how, (unsigned long long)c.user_data);
			goto out;
		}
		seen[i] = true;
		done++;
		inflight--;
		if (c.res)
			t_error("%s: discard %u: %s", how, i, t_res_str(c.res));
	}
	t_cq_quiet(ring, how);

	if (pread(fd_dio, o_buf, OVL_LEN + 2 * lbs, off - lbs) !=
	    (ssize_t)(OVL_LEN + 2 * lbs))
		t_die("%s: direct read: %s", how, strerror(errno));
	if (memcmp(o_buf, o_pat, lbs) ||
	    memcmp(o_buf + lbs + OVL_LEN, o_pat + lbs + OVL_LEN, lbs))
		t_error("%s: a block around the region changed", how);
	for (i = 0; i < nblk; i++) {
		const char *got = o_buf + lbs + (size_t)i * lbs;
		const char *was = o_pat + lbs + (size_t)i * lbs;
		bool zero = !memcmp(got, zeroes, lbs), same = !memcmp(got, was, lbs);

		if (covered[i] ? (reads_zeroes ? zero : zero || same) : same)
			continue;
		t_error("%s: block %u of the region (%s) reads neither %s", how,
			i, covered[i] ? "discarded" : "never discarded",
			covered[i] ? (reads_zeroes ? "zeroes" : "zeroes nor as written") :
			"as written");
		break;
	}
	if (pread(fd_buf, o_buf2, OVL_LEN, off) != (ssize_t)OVL_LEN)
		t_die("%s: buffered read: %s", how, strerror(errno));
	d = t_memcmp_off(o_buf2, o_buf + lbs, OVL_LEN);
	if (d >= 0)
		t_error("%s: a buffered read differs from a direct read at byte %ld: stale page cache",
			how, d);
out:
	if (done < sent) {
		/* the ring goes with the test: nothing may stay in flight */
		t_die("%s: %u discards still in flight", how, sent - done);
	}
	free(covered);
	free(seen);
	free(o_pat);
	free(o_buf);
	free(o_buf2);
}

/* The same on an SQPOLL ring: the SQ thread issues them, inline and async. */
static void test_overlap_sqpoll(void)
{
	struct io_uring ring;
	int ret = t_ring_init(&ring, 32, IORING_SETUP_SQPOLL);

	if (ret) {
		t_error("SQPOLL ring: %s", t_res_str(ret));
		return;
	}
	test_overlap(&ring, "overlapping discards, SQPOLL");
	io_uring_queue_exit(&ring);
}

/* A zoned device: uring_cmd gets what BLKDISCARD gets, range for range. */
static void test_zoned(struct io_uring *ring)
{
	__u64 zs = 0;
	int a, b;

	if (t_bdev_attr_u64(&bdev, "queue/chunk_sectors", &zs) || !zs)
		zs = 16;
	zs <<= 9;
	a = discard(ring, fd_dio, 0, zs, 0, T_NONE);
	b = ioctl_discard(zs, zs);
	expect("zoned: a zone through uring_cmd, against BLKDISCARD", a, b);
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	char model[32] = "";
	__u64 v;
	int fd_ro, ret;
	bool many;

	t_bdev_open(&bdev, argc, argv, O_RDONLY);
	fd_ro = bdev.fd;
	if (t_bdev_attr_u64(&bdev, "queue/logical_block_size", &v))
		t_die("%s: no queue/logical_block_size", bdev.name);
	lbs = v;
	if (ioctl(fd_ro, BLKGETSIZE64, &dev_size))
		t_die("BLKGETSIZE64: %s", strerror(errno));
	discards = !t_bdev_attr_u64(&bdev, "queue/discard_max_bytes", &v) && v;
	zoned = !t_bdev_attr_str(&bdev, "queue/zoned", model, sizeof(model)) &&
		strcmp(model, "none");
	atexit(restore_dmb_at_exit);
	reads_zeroes = !strcmp(t_env_or("TEST_DISCARD_ZEROES", "0"), "1");

	ret = t_ring_init(&ring, 32, 0);
	if (ret)
		t_die("ring: %s", t_res_str(ret));

	/* 6.12's order: no discard support first, then the open mode */
	expect("read-only open", discard(&ring, fd_ro, 0, lbs, 0, T_NONE),
	       discards ? -EBADF : -EOPNOTSUPP);

	fd_dio = open(bdev.path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd_dio < 0) {
		/* a read-only device this kernel will not open for writing */
		if (errno != EROFS && errno != EACCES)
			t_die("open %s O_RDWR: %s", bdev.path, strerror(errno));
		t_info("# %s cannot be opened for writing (%s): read-only open checked",
		       bdev.path, strerror(errno));
		io_uring_queue_exit(&ring);
		return t_result();
	}
	fd_buf = open(bdev.path, O_RDWR | O_CLOEXEC);
	if (fd_buf < 0)
		t_die("open %s O_RDWR: %s", bdev.path, strerror(errno));

	test_field_errors(&ring);
	test_iopoll();

	if (!discards) {
		expect("device that does not discard",
		       discard(&ring, fd_dio, 0, lbs, 0, T_NONE), -EOPNOTSUPP);
		expect("BLKDISCARD on it", ioctl_discard(0, lbs), -EOPNOTSUPP);
		goto out;
	}
	if (!t_bdev_attr_u64(&bdev, "ro", &v) && v) {
		expect("read-only device",
		       discard(&ring, fd_dio, 0, lbs, 0, T_NONE), -EPERM);
		goto out;
	}
	if (zoned) {
		test_zoned(&ring);
		goto out;
	}
	if (dev_size < NEED_SIZE)
		t_die("%s has %llu bytes; the test needs %llu", bdev.path,
		      (unsigned long long)dev_size,
		      (unsigned long long)NEED_SIZE);

	pat = alloc_buf(BIG + 2 * lbs);
	rbuf = alloc_buf(BIG + 2 * lbs);
	rbuf2 = alloc_buf(BIG + 2 * lbs);
	ref = alloc_buf(BIG + 2 * lbs);
	zeroes = calloc(1, REG);
	if (!zeroes)
		t_die("out of memory");
	t_fill_pattern(pat, BIG + 2 * lbs, 0x6d12);

	test_range_errors(&ring);
	test_data(&ring);
	many = test_many_bios(&ring);
	test_rewrite(&ring, many);
	test_links(&ring);
	test_batch(&ring);
	test_overlap(&ring, "overlapping discards");
	test_overlap_sqpoll();
	test_bio_error(&ring, many);
	test_sqe128();
	if (!restore_dmb())
		t_error("queue/discard_max_bytes not restored");
out:
	io_uring_queue_exit(&ring);
	close(fd_buf);
	close(fd_dio);
	return t_result();
}
