// SPDX-License-Identifier: GPL-2.0
/* Description: protection information through passthrough: PRACT and PRCHK give the same statuses and data on the block node (inline, IOSQE_ASYNC, polled), ng and the ioctl */
/*
 * Usage: nvme_pi [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *
 * On every namespace of CTRLDEV with protection information and a 16-bit
 * guard (run-nvme.sh --ns ms=8,pi=1; --ns ms=8,pi=3,...), through each of
 * uring_cmd on the block node (inline, IOSQE_ASYNC, and on an IOPOLL ring),
 * uring_cmd on ngXnY (inline and polled) and NVME_IOCTL_IO64_CMD; the
 * polled ways where the namespace polls, never left out silently when
 * nvme.poll_queues is set:
 *   - a write with PRACT (the controller generates the PI, no metadata
 *     buffer when the metadata is all PI) and application tag 0x1234, then
 *     a read with every PRCHK bit the type allows: 0, the data, and per
 *     block a guard equal to the CRC-16/T10-DIF of the data computed here,
 *     the application tag, and (types 1 and 2) the block's reference tag;
 *   - a read with PRACT (PI checked and stripped by the controller): 0 and
 *     the data;
 *   - PI written by hand with a bad guard, a bad application tag, or a bad
 *     reference tag (type 1), without checking; read back with the check
 *     for that field: End-to-end Guard, Application Tag and Reference Tag
 *     Check Error, the same status value on all three paths;
 *   - a write with PRCHK of PI with a bad guard: Guard Check Error, again
 *     the same everywhere.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_nvme.h"

#define NBLK	8
#define SLBA	128
#define APPTAG	0x1234

#define PRACT	((__u32)NVME_IO_PRINFO_PRACT << 16)
#define CHK_GRD	((__u32)NVME_IO_PRINFO_PRCHK_GUARD << 16)
#define CHK_APP	((__u32)NVME_IO_PRINFO_PRCHK_APP << 16)
#define CHK_REF	((__u32)NVME_IO_PRINFO_PRCHK_REF << 16)

/* The 8-byte PI tuple of a 16-bit guard format, big-endian on the wire. */
struct pi16 {
	__u16	guard;
	__u16	apptag;
	__u32	reftag;
} __attribute__((packed));

static struct io_uring ring, polled;
static bool have_poll;		/* queue/io_poll of the namespace */
static __u64 poll_queues;	/* nvme.poll_queues: PCIe namespaces poll */


static struct pi16 *pi_of(const struct t_nvme_fmt *f, unsigned char *meta,
			  unsigned int b)
{
	unsigned char *m = meta + (size_t)b * f->ms;

	return (struct pi16 *)(f->pi_first ? m : m + f->ms - 8);
}

static void cmd(struct nvme_uring_cmd *c, const struct t_nvme_fmt *f,
		__u8 opcode, __u64 slba, void *data, void *meta, __u32 prinfo)
{
	uringcmd_nvme_rw(c, opcode, f->nsid, data, NBLK * f->lbs, slba, NBLK);
	/* with PRACT and metadata that is only PI, none is transferred */
	if (meta && !(prinfo & PRACT && f->ms == 8)) {
		c->metadata = (__u64)(uintptr_t)meta;
		c->metadata_len = NBLK * f->ms;
	}
	c->cdw12 |= prinfo;
	c->cdw14 = (__u32)slba;			/* initial reference tag */
	c->cdw15 = APPTAG | 0xffffU << 16;	/* tag and mask */
}

/*
 * @c on every way (the polled ones where the namespace polls), the
 * metadata and data buffers re-poisoned before each; every way must give
 * @want (0 or the status code, SCT included, compared without DNR and
 * More) and the same value as the first. The data and metadata of the
 * last way are left in @data and @meta.
 */
static void all_paths(const char *what, const struct t_nvme_fmt *f, int bfd,
		      int cfd, struct nvme_uring_cmd *c, int want,
		      unsigned char *data, unsigned char *meta, bool poison,
		      unsigned char *got_data, unsigned char *got_meta)
{
	int res[T_NVME_NR_WAYS];
	unsigned int p;

	for (p = 0; p < T_NVME_NR_WAYS; p++) {
		const struct t_nvme_way *w = &t_nvme_ways[p];

		if (w->polled && !have_poll)
			continue;
		if (poison) {
			memset(data, 0x21 * (p + 1), (size_t)NBLK * f->lbs);
			memset(meta, 0x33 * (p + 1), (size_t)NBLK * f->ms);
		}
		res[p] = t_nvme_io_path(w->polled ? &polled : &ring, w->path,
					bfd, cfd, c, w->sqe_flags, NULL);
		if (want ? (res[p] <= 0 || (res[p] & 0x7ff) != want) : res[p])
			t_error("%s: %s, %s: %s, expected %s", f->name, what,
				w->name, t_nvme_res_str(res[p]),
				t_nvme_res_str(want));
		if (p && res[p] != res[0])
			t_error("%s: %s: %s gives %s, %s %s", f->name, what,
				w->name, t_nvme_res_str(res[p]),
				t_nvme_ways[0].name, t_nvme_res_str(res[0]));
		if (poison && got_data && !res[p] && p) {
			char m[1024];

			snprintf(m, sizeof(m), "%s: %s, %s against %s: data",
				 f->name, what, w->name, t_nvme_ways[0].name);
			t_compare(m, data, got_data, (size_t)NBLK * f->lbs);
			/* with PRACT and only PI, no metadata is moved */
			if (c->metadata_len) {
				snprintf(m, sizeof(m), "%s: %s, %s against %s: metadata",
					 f->name, what, w->name, t_nvme_ways[0].name);
				t_compare(m, meta, got_meta, (size_t)NBLK * f->ms);
			}
		}
		if (poison && got_data && !p) {
			memcpy(got_data, data, (size_t)NBLK * f->lbs);
			memcpy(got_meta, meta, (size_t)NBLK * f->ms);
		}
	}
}

/* Write @data with PI made by hand, one field of block 0 spoiled. */
static void write_raw(const struct t_nvme_fmt *f, int bfd, __u64 slba,
		      unsigned char *data, unsigned char *meta, int spoil)
{
	struct nvme_uring_cmd c;
	unsigned int b;
	int ret;

	memset(meta, 0, (size_t)NBLK * f->ms);
	for (b = 0; b < NBLK; b++) {
		struct pi16 *pi = pi_of(f, meta, b);

		pi->guard = htobe16(uringcmd_nvme_crc_t10dif(0, data + (size_t)b * f->lbs, f->lbs));
		pi->apptag = htobe16(APPTAG);
		pi->reftag = htobe32((__u32)(slba + b));
	}
	if (spoil == 'g')
		pi_of(f, meta, 0)->guard ^= htobe16(1);
	else if (spoil == 'a')
		pi_of(f, meta, 0)->apptag = htobe16(APPTAG ^ 0x0f0f);
	else if (spoil == 'r')
		pi_of(f, meta, 0)->reftag = htobe32((__u32)(slba + 7));
	cmd(&c, f, nvme_cmd_write, slba, data, meta, 0);
	ret = t_nvme_ioctl64(bfd, NVME_IOCTL_IO64_CMD, &c, NULL);
	if (ret)
		t_die("%s: unchecked write of PI by hand: %s", f->name,
		      t_nvme_res_str(ret));
}

static void one_namespace(const struct t_nvme_fmt *f)
{
	size_t dlen = (size_t)NBLK * f->lbs, mlen = (size_t)NBLK * f->ms;
	unsigned char *pat = t_alloc(dlen), *data = t_alloc(dlen);
	unsigned char *meta = t_alloc(mlen), *d0 = t_alloc(dlen);
	unsigned char *m0 = t_alloc(mlen);
	__u32 chk = CHK_GRD | CHK_APP | (f->pi != 3 ? CHK_REF : 0);
	const int media = NVME_SCT_MEDIA << NVME_SCT_SHIFT;
	struct nvme_uring_cmd c;
	char path[128];
	__u64 io_poll = 0;
	unsigned int b;
	int bfd, cfd;

	t_info("%s", t_nvme_fmt_str(f));
	bfd = open(f->bdev, O_RDWR | O_CLOEXEC);
	cfd = open(f->chr, O_RDWR | O_CLOEXEC);
	if (bfd < 0 || cfd < 0)
		t_die("open %s or %s: %m", f->bdev, f->chr);
	snprintf(path, sizeof(path), "/sys/block/%.64s/queue/io_poll", f->name);
	have_poll = !t_read_u64(path, &io_poll) && io_poll;
	/* with poll queues the polled ways are never left out silently */
	if (!have_poll && poll_queues)
		t_error("%s: nvme.poll_queues=%llu, yet queue/io_poll is 0: the polled ways cannot run",
			f->name, (unsigned long long)poll_queues);
	else if (!have_poll)
		t_info("%s: no poll queues (nvme.poll_queues=0): the polled ways were not run",
		       f->name);

	/* PRACT write on each path, checked read on each path */
	t_fill_pattern(pat, dlen, 0x9000 + f->nsid);
	memcpy(data, pat, dlen);
	cmd(&c, f, nvme_cmd_write, SLBA, data, meta, PRACT);
	all_paths("write with PRACT", f, bfd, cfd, &c, 0, data, meta, false,
		  NULL, NULL);
	cmd(&c, f, nvme_cmd_read, SLBA, data, meta, chk);
	all_paths("read with PRCHK", f, bfd, cfd, &c, 0, data, meta, true,
		  d0, m0);
	t_compare("read with PRCHK: data", d0, pat, dlen);
	for (b = 0; b < NBLK; b++) {
		const struct pi16 *pi = pi_of(f, m0, b);
		__u16 guard = uringcmd_nvme_crc_t10dif(0, pat + (size_t)b * f->lbs, f->lbs);

		if (be16toh(pi->guard) != guard || be16toh(pi->apptag) != APPTAG ||
		    (f->pi != 3 && be32toh(pi->reftag) != SLBA + b))
			t_error("%s: block %u: PI guard %#06x apptag %#06x reftag %#x, expected %#06x %#06x %#x",
				f->name, b, be16toh(pi->guard), be16toh(pi->apptag),
				be32toh(pi->reftag), guard, APPTAG, SLBA + b);
	}
	cmd(&c, f, nvme_cmd_read, SLBA, data, meta, PRACT | chk);
	all_paths("read with PRACT", f, bfd, cfd, &c, 0, data, meta, true,
		  d0, m0);
	t_compare("read with PRACT: data", d0, pat, dlen);

	/* a spoiled field, read back with its check */
	write_raw(f, bfd, SLBA + NBLK, pat, meta, 'g');
	cmd(&c, f, nvme_cmd_read, SLBA + NBLK, data, meta, CHK_GRD);
	all_paths("bad guard, read with PRCHK guard", f, bfd, cfd, &c,
		  media | NVME_SC_GUARD_CHECK, data, meta, true, NULL, NULL);
	write_raw(f, bfd, SLBA + NBLK, pat, meta, 'a');
	cmd(&c, f, nvme_cmd_read, SLBA + NBLK, data, meta, CHK_APP);
	all_paths("bad application tag, read with PRCHK app", f, bfd, cfd, &c,
		  media | NVME_SC_APPTAG_CHECK, data, meta, true, NULL, NULL);
	if (f->pi == 1) {
		write_raw(f, bfd, SLBA + NBLK, pat, meta, 'r');
		cmd(&c, f, nvme_cmd_read, SLBA + NBLK, data, meta, CHK_REF);
		all_paths("bad reference tag, read with PRCHK ref", f, bfd, cfd,
			  &c, media | NVME_SC_REFTAG_CHECK, data, meta, true,
			  NULL, NULL);
	}

	/* a spoiled guard written with its check */
	write_raw(f, bfd, SLBA + 2 * NBLK, pat, meta, 0);
	pi_of(f, meta, 0)->guard ^= htobe16(1);
	memcpy(data, pat, dlen);
	cmd(&c, f, nvme_cmd_write, SLBA + 2 * NBLK, data, meta, CHK_GRD);
	all_paths("bad guard, write with PRCHK guard", f, bfd, cfd, &c,
		  media | NVME_SC_GUARD_CHECK, data, meta, false, NULL, NULL);

	close(bfd);
	close(cfd);
	free(pat);
	free(data);
	free(meta);
	free(d0);
	free(m0);
}

int main(int argc, char **argv)
{
	const char *ctrl = argc > 3 ? argv[3] : "/dev/nvme0";
	struct t_nvme_fmt fmts[32];
	unsigned int nr, i, done = 0;

	nr = t_nvme_formats(ctrl, fmts, 32);
	t_read_u64("/sys/module/nvme/parameters/poll_queues", &poll_queues);
	if (t_nvme_ring(&ring, 8, 0) || t_nvme_ring(&polled, 8, IORING_SETUP_IOPOLL))
		t_die("rings: %m");
	for (i = 0; i < nr; i++) {
		/* 16-bit guard formats: 8 bytes of PI, separate metadata */
		if (!fmts[i].pi || fmts[i].ext || fmts[i].ms < 8 ||
		    fmts[i].ms > 64 || fmts[i].lbs > 4096)
			continue;
		one_namespace(&fmts[i]);
		done++;
	}
	if (!done)
		t_skip("%s has no namespace with protection information (run-nvme.sh --ns ms=8,pi=1)",
		       ctrl);
	/* every completion was matched: nothing may be left over */
	t_cq_quiet(&ring, "the test's ring at exit");
	t_cq_quiet(&polled, "the IOPOLL ring at exit");
	return t_result();
}
