// SPDX-License-Identifier: GPL-2.0
/* Description: metadata passthrough on the block node equals ng and NVME_IOCTL_IO64_CMD, data and metadata */
/*
 * Usage: nvme_meta_passthru [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *
 * On every namespace of CTRLDEV formatted with metadata (run-nvme.sh --ns
 * ms=16, --ns ms=8,mset=1, --ns ms=8,pi=1 ...), on 16 blocks:
 *   - a pattern of data and metadata written with NVME_IOCTL_IO64_CMD reads
 *     back the same, byte for byte, through uring_cmd on the block node
 *     (inline, IOSQE_ASYNC, and on an IOPOLL ring when the namespace has
 *     poll queues), through uring_cmd on ngXnY (inline and polled) and
 *     through the ioctl; every path reads into buffers poisoned with a
 *     value of its own;
 *   - a pattern written through uring_cmd on the block node reads back the
 *     same through the ioctl, and one written on ngXnY through the block
 *     node;
 *   - with separate metadata, bad metadata answers as the ioctl does on
 *     the block node and ng: an unmapped metadata pointer -EFAULT (read
 *     and write; 1 page and 10), a metadata_len of 8 MiB refused
 *     (-ENOMEM where the kernel copies the buffer, -E2BIG where it maps
 *     it) without a kernel WARN;
 *   - with separate metadata, a one-block Read with a metadata buffer of
 *     more than 4 pages (unaligned: bounced; aligned: pinned) answers as
 *     the ioctl with the block's metadata.
 * With nvme.poll_queues set the namespace must poll (queue/io_poll 1):
 * the polled paths are never left out silently.
 * Separate metadata (FLBAS bit 4 clear) travels in the metadata buffer
 * (metadata, metadata_len of struct nvme_uring_cmd); extended LBAs carry
 * it inside the data buffer, lbs + ms bytes a block, whose block node the
 * kernel gives no capacity but passthrough reaches all the same; unless
 * the metadata is only the 8 bytes of PI, which the kernel has the
 * controller insert and strip (PRACT): then the node has the data bytes
 * (nvme_update_disk_info(), 6.1 and 6.12). Protection
 * information is neither generated nor checked here (PRINFO 0): it is
 * nvme_pi's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t_nvme.h"

#define NBLK	16
#define SLBA	64

static struct io_uring plain, polled;
static bool have_poll;
static __u64 poll_queues;	/* nvme.poll_queues: PCIe namespaces poll */

/* The command for @f's blocks from SLBA, with its buffers. */
static void rw_cmd(struct nvme_uring_cmd *c, const struct t_nvme_fmt *f,
		   __u8 opcode, void *data, void *meta)
{
	__u32 dlen = NBLK * (f->ext ? f->lbs + f->ms : f->lbs);

	uringcmd_nvme_rw(c, opcode, f->nsid, data, dlen, SLBA, NBLK);
	if (!f->ext) {
		c->metadata = (__u64)(uintptr_t)meta;
		c->metadata_len = NBLK * f->ms;
	}
}

static int issue(const struct t_nvme_way *w, int bfd, int cfd,
		 const struct nvme_uring_cmd *c)
{
	return t_nvme_io_path(w->polled ? &polled : &plain, w->path, bfd, cfd,
			      c, w->sqe_flags, NULL);
}

static void write_via(const struct t_nvme_way *w, const struct t_nvme_fmt *f,
		      int bfd, int cfd, const void *data, const void *meta)
{
	struct nvme_uring_cmd c;
	int ret;

	rw_cmd(&c, f, nvme_cmd_write, (void *)data, (void *)meta);
	ret = issue(w, bfd, cfd, &c);
	if (ret)
		t_die("%s: write through %s: %s", f->name, w->name,
		      t_nvme_res_str(ret));
}

/* Read through @w into poisoned buffers; compare with @data, @meta. */
static void check_via(const struct t_nvme_way *w, unsigned int poison,
		      const struct t_nvme_fmt *f, int bfd, int cfd,
		      const void *data, const void *meta, const char *what)
{
	size_t dlen = (size_t)NBLK * (f->ext ? f->lbs + f->ms : f->lbs);
	size_t mlen = f->ext ? 0 : (size_t)NBLK * f->ms;
	unsigned char *d = t_alloc(dlen), *m = t_alloc(mlen);
	struct nvme_uring_cmd c;
	char msg[1024];
	int ret;

	memset(d, poison, dlen);
	memset(m, poison, mlen);
	rw_cmd(&c, f, nvme_cmd_read, d, m);
	ret = issue(w, bfd, cfd, &c);
	if (ret) {
		t_error("%s: %s, read through %s: %s, expected 0", f->name,
			what, w->name, t_nvme_res_str(ret));
	} else {
		snprintf(msg, sizeof(msg), "%s: %s, %s: data%s", f->name, what,
			 w->name, f->ext ? " with interleaved metadata" : "");
		t_compare(msg, d, data, dlen);
		if (mlen) {
			snprintf(msg, sizeof(msg), "%s: %s, %s: metadata",
				 f->name, what, w->name);
			t_compare(msg, m, meta, mlen);
		}
	}
	free(d);
	free(m);
}

/*
 * Bad metadata on a namespace with separate metadata: each path answers
 * what the ioctl answers, the same code behind them. A metadata pointer
 * into nothing: -EFAULT, for a write (copied in before the command) and a
 * read (copied out after it); also 40 KiB of it, more pages than the
 * block layer pins through its on-stack array (UIO_FASTIOV, 8), whose
 * page array must be freed on that error (6.12's bio_integrity_map_user()
 * left it: kmemleak on the debug kernel). A metadata_len of 8 MiB:
 * refused, and no WARN from the page allocator, which run.sh's kernel
 * log check would see.
 * How depends on how the kernel takes the buffer, and the ioctl tells:
 * 6.1 copies it, past what it will allocate (-ENOMEM; the drivers-nvme
 * patch "nvme: don't WARN on a passthrough metadata buffer too large to
 * allocate"); later kernels map the user's pages (bio_integrity_map_user(),
 * -E2BIG for more than BIO_MAX_VECS pages or the queue's max_hw_sectors).
 */
static void bad_metadata(const struct t_nvme_fmt *f, int bfd, int cfd,
			 void *data, void *meta)
{
	static const struct { const char *what; __u8 op; __u64 ptr; __u32 len; } cases[] = {
		{ "read, metadata pointer unmapped", nvme_cmd_read, 0x1000, 0 },
		{ "write, metadata pointer unmapped", nvme_cmd_write, 0x1000, 0 },
		{ "read, 40 KiB of metadata unmapped", nvme_cmd_read, 0x1000, 40 << 10 },
		{ "read, metadata_len 8 MiB", nvme_cmd_read, 0, 8 << 20 },
	};
	const unsigned int paths[] = { 0, 3 };	/* block node, ng */
	unsigned int i, p;

	if (f->ext)
		return;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct nvme_uring_cmd c;
		int want, got;

		rw_cmd(&c, f, cases[i].op, data, meta);
		if (cases[i].ptr)
			c.metadata = cases[i].ptr;
		if (cases[i].len)
			c.metadata_len = cases[i].len;
		want = issue(&t_nvme_ways[5], bfd, cfd, &c);
		if (!cases[i].ptr ? want != -ENOMEM && want != -E2BIG :
		    want != -EFAULT)
			t_error("%s: %s: the ioctl answers %s, expected %s", f->name,
				cases[i].what, t_nvme_res_str(want),
				!cases[i].ptr ? "-ENOMEM (a copy) or -E2BIG (mapped)" :
						"-EFAULT");
		for (p = 0; p < 2; p++) {
			got = issue(&t_nvme_ways[paths[p]], bfd, cfd, &c);
			if (got != want)
				t_error("%s: %s through %s: %s, the ioctl %s",
					f->name, cases[i].what, t_nvme_ways[paths[p]].name,
					t_nvme_res_str(got), t_nvme_res_str(want));
		}
		t_info("%s: %s: %s on every path", f->name, cases[i].what,
		       t_nvme_res_str(want));
	}
}

/*
 * A one-block Read with a metadata buffer of more than 4 pages, on a
 * namespace with separate metadata: the device writes one block's
 * metadata, the rest of the buffer stays as it was. Unaligned with an odd
 * length (the kernel bounces it: its pages and a bounce buffer, more than
 * BIO_INLINE_VECS vectors) and page-aligned (its 5 pages pinned): each
 * path answers as the ioctl, with the same bytes. 6.12.118 unpinned
 * pages that were never pinned there (bio_integrity_alloc()'s vectors
 * rounded up for uring_cmd's bios, from fs_bio_set): a crash, fixed by
 * patches-6.12's "block: bio-integrity: unpin only the user pages that
 * were mapped".
 */
static void wide_metadata(const struct t_nvme_fmt *f, int bfd, int cfd)
{
	static const struct { const char *what; size_t off; __u32 len; } cases[] = {
		{ "unaligned, 14875 bytes at page offset 0xa00", 0xa00, 14875 },
		{ "page-aligned, 5 pages", 0, 5 * 4096 },
	};
	const unsigned int paths[] = { 5, 0, 3 };	/* ioctl, block node, ng */
	size_t map = 8 * 4096;
	unsigned char *want = NULL, *m, *data = t_alloc(f->lbs);
	unsigned int i, p;

	if (f->ext)
		return;
	m = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		t_die("mmap: %m");
	want = t_alloc(map);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret[3];

		for (p = 0; p < 3; p++) {
			struct nvme_uring_cmd c;

			memset(m, 0x5a + p, map);
			uringcmd_nvme_rw(&c, nvme_cmd_read, f->nsid, data, f->lbs, SLBA, 1);
			c.metadata = (__u64)(uintptr_t)(m + cases[i].off);
			c.metadata_len = cases[i].len;
			ret[p] = issue(&t_nvme_ways[paths[p]], bfd, cfd, &c);
			if (!p) {
				memcpy(want, m, map);
				continue;
			}
			if (ret[p] != ret[0]) {
				t_error("%s: read, metadata %s, through %s: %s, the ioctl %s",
					f->name, cases[i].what, t_nvme_ways[paths[p]].name,
					t_nvme_res_str(ret[p]), t_nvme_res_str(ret[0]));
				continue;
			}
			if (!ret[p]) {
				char msg[1024];

				snprintf(msg, sizeof(msg), "%.64s: read, metadata %s, through %s: the block's metadata",
					 f->name, cases[i].what, t_nvme_ways[paths[p]].name);
				t_compare(msg, m + cases[i].off, want + cases[i].off, f->ms);
			}
		}
		t_info("%s: read, metadata %s: %s on every path", f->name,
		       cases[i].what, t_nvme_res_str(ret[0]));
	}
	munmap(m, map);
	free(want);
	free(data);
}

static void one_namespace(const struct t_nvme_fmt *f)
{
	size_t dlen = (size_t)NBLK * (f->ext ? f->lbs + f->ms : f->lbs);
	size_t mlen = (size_t)NBLK * f->ms;
	void *data = t_alloc(dlen), *meta = t_alloc(mlen);
	char path[PATH_MAX];
	__u64 io_poll = 0;
	unsigned int i;
	int bfd, cfd;

	t_info("%s", t_nvme_fmt_str(f));
	bfd = open(f->bdev, O_RDWR | O_CLOEXEC);
	cfd = open(f->chr, O_RDWR | O_CLOEXEC);
	if (bfd < 0 || cfd < 0)
		t_die("open %s or %s: %m", f->bdev, f->chr);
	snprintf(path, sizeof(path), "/sys/block/%.64s/queue/io_poll", f->name);
	have_poll = !t_read_u64(path, &io_poll) && io_poll;
	if (f->ext && f->pi && f->ms == 8) {
		if (f->bdev_bytes != f->nsze * f->lbs)
			t_error("%s: extended LBAs of PI only, yet the block node has %llu bytes, not %llu",
				f->name, (unsigned long long)f->bdev_bytes,
				(unsigned long long)(f->nsze * f->lbs));
	} else if (f->ext && f->bdev_bytes) {
		t_error("%s: extended LBAs, yet the block node has %llu bytes",
			f->name, (unsigned long long)f->bdev_bytes);
	}

	t_fill_pattern(data, dlen, 0x3000 + f->nsid);
	t_fill_pattern(meta, mlen, 0x4000 + f->nsid);
	write_via(&t_nvme_ways[5], f, bfd, cfd, data, meta);
	for (i = 0; i < T_NVME_NR_WAYS; i++) {
		if (t_nvme_ways[i].polled && !have_poll)
			continue;
		check_via(&t_nvme_ways[i], 0x11 * (i + 1), f, bfd, cfd, data, meta,
			  "written with the ioctl");
	}

	t_fill_pattern(data, dlen, 0x5000 + f->nsid);
	t_fill_pattern(meta, mlen, 0x6000 + f->nsid);
	write_via(&t_nvme_ways[0], f, bfd, cfd, data, meta);
	check_via(&t_nvme_ways[5], 0x77, f, bfd, cfd, data, meta,
		  "written through the block node");

	t_fill_pattern(data, dlen, 0x7000 + f->nsid);
	t_fill_pattern(meta, mlen, 0x8000 + f->nsid);
	write_via(&t_nvme_ways[3], f, bfd, cfd, data, meta);
	check_via(&t_nvme_ways[0], 0x88, f, bfd, cfd, data, meta,
		  "written through ng");
	bad_metadata(f, bfd, cfd, data, meta);
	wide_metadata(f, bfd, cfd);
	if (!have_poll && poll_queues)
		t_error("%s: nvme.poll_queues=%llu, yet queue/io_poll is 0: the polled paths cannot run",
			f->name, (unsigned long long)poll_queues);
	else if (!have_poll)
		t_info("%s: no poll queues (nvme.poll_queues=0): the polled paths were not run",
		       f->name);

	close(bfd);
	close(cfd);
	free(data);
	free(meta);
}

int main(int argc, char **argv)
{
	const char *ctrl = argc > 3 ? argv[3] : "/dev/nvme0";
	struct t_nvme_fmt fmts[32];
	unsigned int nr, i, done = 0;

	nr = t_nvme_formats(ctrl, fmts, 32);
	t_read_u64("/sys/module/nvme/parameters/poll_queues", &poll_queues);
	if (t_nvme_ring(&plain, 8, 0) || t_nvme_ring(&polled, 8, IORING_SETUP_IOPOLL))
		t_die("rings: %m");
	for (i = 0; i < nr; i++) {
		if (!fmts[i].ms || fmts[i].ms > 64 || fmts[i].lbs > 4096)
			continue;
		one_namespace(&fmts[i]);
		done++;
	}
	if (!done)
		t_skip("%s has no namespace with metadata (run-nvme.sh --ns ms=16)", ctrl);
	/* every completion was matched: nothing may be left over */
	t_cq_quiet(&plain, "plain ring at exit");
	t_cq_quiet(&polled, "IOPOLL ring at exit");
	/* the page arrays of bad_metadata()'s 40 KiB case, on the debug kernel */
	t_kmemleak_check("bio_integrity_map_user",
			 "reads with 40 KiB of unmapped metadata");
	return t_result();
}
