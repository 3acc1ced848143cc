// SPDX-License-Identifier: GPL-2.0
/* Description: polled metadata passthrough completes into the submitter's buffers, not into another poller's */
/*
 * Usage: nvme_meta_poll_owner [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *
 * Needs a namespace with separate metadata on CTRLDEV (run-nvme.sh --ns
 * ms=16) and poll queues (nvme.poll_queues=1: one poll queue that every
 * CPU and every namespace of the controller shares).
 *
 * The submitter writes a pattern of data and metadata, then reads it back
 * in rounds of 16 polled metadata reads (IORING_SETUP_IOPOLL), alternately
 * on the block node and on ngXnY, half of them into buffers one byte off
 * alignment so that the data is bounced and copied out on completion. A
 * child forked after the buffers were poisoned, so that it has the same
 * addresses mapped, polls the same poll queue all the while with polled
 * O_DIRECT reads of BLOCKDEV. Every read must return 0 with the pattern in
 * the submitter's buffers, and the child's copies of those buffers must
 * still hold the poison at the end.
 *
 * 6.1 completed a polled metadata command in whatever task reaped its CQE
 * (fixed by the drivers-nvme backport "nvme: always punt polled uring_cmd
 * end_io work to task_work"): the child received the submitter's metadata
 * and bounced data at the submitter's addresses, and the submitter got 0
 * with its buffers untouched.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_nvme.h"

#define QD		16
#define ROUNDS		100
#define NBLK		64
#define SLBA		256
#define POISON		0xa5
#define SLOT		8192	/* per command: data (+1 when bounced), meta */
#define META_OFF	6144

static struct t_nvme_fmt f;
static unsigned char *region;	/* QD slots, shared layout with the child */
static unsigned char *want_data, *want_meta;

/* t_error() for the first few failed checks; the rest are counted. */
static unsigned int nbad, nbad_node[2];	/* [1]: ng */
#define report(...) do { nbad_node[fd == cfd_g]++; \
	if (nbad++ < 8) t_error(__VA_ARGS__); } while (0)
static int cfd_g = -1;

static bool want(const struct t_nvme_fmt *x)
{
	return x->ms && !x->ext && x->bdev_bytes && x->lbs <= 4096 &&
	       x->ms <= 64;
}

static unsigned char *slot_data(unsigned int i)
{
	return region + (size_t)i * SLOT + (i & 1);
}

static unsigned char *slot_meta(unsigned int i)
{
	return region + (size_t)i * SLOT + META_OFF;
}

/* The poller: polled O_DIRECT reads of @dev until @stop reads EOF. */
static int poller(const char *dev, int stop, int report)
{
	struct io_uring ring;
	unsigned long reads = 0, changed = 0;
	void *buf = t_alloc(4096 * 8);
	struct pollfd p = { .fd = stop, .events = POLLIN };
	size_t i;
	int fd, ret;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || io_uring_queue_init(8, &ring, IORING_SETUP_IOPOLL))
		_exit(3);
	while (poll(&p, 1, 0) == 0) {
		struct io_uring_cqe *cqe;
		unsigned int k;

		for (k = 0; k < 8; k++)
			io_uring_prep_read(io_uring_get_sqe(&ring), fd,
					   (char *)buf + 4096 * k, 4096,
					   4096ULL * k);
		if (io_uring_submit(&ring) != 8)
			_exit(4);
		for (k = 0; k < 8; k++) {
			ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret)
				_exit(5);
			io_uring_cqe_seen(&ring, cqe);
		}
		reads += 8;
	}
	for (i = 0; i < (size_t)QD * SLOT; i++)
		changed += region[i] != POISON;
	if (dprintf(report, "%lu %lu\n", reads, changed) < 0)
		_exit(6);
	_exit(0);
}

static void setup_pattern(int bfd)
{
	void *data = t_alloc((size_t)NBLK * f.lbs);
	void *meta = t_alloc((size_t)NBLK * f.ms);
	struct nvme_uring_cmd c;
	unsigned int b;
	int ret;

	for (b = 0; b < NBLK; b++) {
		t_fill_pattern(want_data + (size_t)b * f.lbs, f.lbs, 0x1000 + b);
		t_fill_pattern(want_meta + (size_t)b * f.ms, f.ms, 0x2000 + b);
	}
	memcpy(data, want_data, (size_t)NBLK * f.lbs);
	memcpy(meta, want_meta, (size_t)NBLK * f.ms);
	uringcmd_nvme_rw(&c, nvme_cmd_write, f.nsid, data, NBLK * f.lbs, SLBA, NBLK);
	c.metadata = (__u64)(uintptr_t)meta;
	c.metadata_len = NBLK * f.ms;
	ret = t_nvme_ioctl64(bfd, NVME_IOCTL_IO64_CMD, &c, NULL);
	if (ret)
		t_die("writing the pattern with NVME_IOCTL_IO64_CMD: %s",
		      t_nvme_res_str(ret));
	free(data);
	free(meta);
}

/* One round of QD polled reads on @fd, each one checked. */
static void round_of_reads(struct io_uring *ring, int fd,
				   const char *node, unsigned int round)
{
	unsigned int i;
	bool seen[QD] = { false };

	memset(region, POISON, (size_t)QD * SLOT);
	for (i = 0; i < QD; i++) {
		unsigned int b = (round * QD + i) % NBLK;
		struct nvme_uring_cmd c;

		uringcmd_nvme_rw(&c, nvme_cmd_read, f.nsid, slot_data(i), f.lbs,
			  SLBA + b, 1);
		c.metadata = (__u64)(uintptr_t)slot_meta(i);
		c.metadata_len = f.ms;
		t_nvme_prep(ring, t_get_sqe(ring), fd, NVME_URING_CMD_IO, &c, i);
	}
	if (t_submit(ring, QD))
		t_die("%s, round %u: submitting %u reads failed", node, round, QD);
	for (i = 0; i < QD; i++) {
		struct t_cqe cqe;
		unsigned int s, b;

		if (t_wait_cqe(ring, &cqe, T_NVME_TIMEOUT_MS))
			t_die("%s, round %u: a read never completed", node, round);
		s = (unsigned int)cqe.user_data;
		if (s >= QD || seen[s])
			t_die("%s, round %u: completion with user_data %llu",
			      node, round, (unsigned long long)cqe.user_data);
		seen[s] = true;
		b = (round * QD + s) % NBLK;
		if (cqe.res) {
			report("%s, round %u, block %u: res %s, expected 0",
				node, round, SLBA + b, t_nvme_res_str(cqe.res));
			continue;
		}
		if (t_memcmp_off(slot_meta(s), want_meta + (size_t)b * f.ms,
				 f.ms) >= 0) {
			report("%s, round %u, block %u: metadata not in the submitter's buffer (first byte %#04x)",
				node, round, SLBA + b, slot_meta(s)[0]);
		}
		if (t_memcmp_off(slot_data(s), want_data + (size_t)b * f.lbs,
				 f.lbs) >= 0) {
			report("%s, round %u, block %u: %s data not in the submitter's buffer (first byte %#04x)",
				node, round, SLBA + b,
				s & 1 ? "bounced" : "mapped", slot_data(s)[0]);
		}
	}
	if (!t_cq_empty(ring))
		t_die("%s, round %u: more completions than commands", node, round);
}

int main(int argc, char **argv)
{
	const char *other = argc > 1 ? argv[1] : "/dev/nvme0n1";
	const char *ctrl = argc > 3 ? argv[3] : "/dev/nvme0";
	struct t_nvme_fmt fmts[32];
	unsigned int nr, i, round;
	unsigned long reads = 0, changed = 0;
	int stop[2], report[2], bfd, cfd, status;
	char path[PATH_MAX], line[64] = "";
	struct io_uring ring;
	__u64 io_poll = 0;
	pid_t child;
	FILE *rep;

	nr = t_nvme_formats(ctrl, fmts, 32);
	for (i = 0; i < nr && !want(&fmts[i]); i++)
		;
	if (i == nr)
		t_skip("%s has no namespace with separate metadata (run-nvme.sh --ns ms=16)",
		       ctrl);
	f = fmts[i];
	t_info("metadata namespace %s, poller on %s", t_nvme_fmt_str(&f), other);
	snprintf(path, sizeof(path), "/sys/block/%.64s/queue/io_poll", f.name);
	if (t_read_u64(path, &io_poll) || !io_poll)
		t_skip("%s has no poll queues (boot with nvme.poll_queues=1)", f.name);

	bfd = open(f.bdev, O_RDWR | O_CLOEXEC);
	cfd = open(f.chr, O_RDWR | O_CLOEXEC);
	if (bfd < 0 || cfd < 0)
		t_die("open %s or %s: %m", f.bdev, f.chr);
	cfd_g = cfd;
	want_data = t_alloc((size_t)NBLK * f.lbs);
	want_meta = t_alloc((size_t)NBLK * f.ms);
	setup_pattern(bfd);

	region = mmap(NULL, (size_t)QD * SLOT, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		t_die("mmap: %m");
	memset(region, POISON, (size_t)QD * SLOT);
	if (pipe(stop) || pipe(report))
		t_die("pipe: %m");
	child = fork();
	if (child < 0)
		t_die("fork: %m");
	if (child == 0) {
		close(stop[1]);
		close(report[0]);
		poller(other, stop[0], report[1]);
	}
	close(stop[0]);
	close(report[1]);

	if (t_nvme_ring(&ring, 64, IORING_SETUP_IOPOLL))
		t_die("IOPOLL ring: %m");
	for (round = 0; round < ROUNDS; round++)
		round_of_reads(&ring, round & 1 ? cfd : bfd,
				      round & 1 ? "ng" : "block node", round);
	io_uring_queue_exit(&ring);

	close(stop[1]);
	rep = fdopen(report[0], "r");
	if (!rep || !fgets(line, sizeof(line), rep) ||
	    sscanf(line, "%lu %lu", &reads, &changed) != 2)
		t_error("no report from the poller");
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		t_error("the poller failed (status %#x)", status);
	t_info("%u polled metadata reads, %u failed checks (block node %u, ng %u); the poller did %lu polled reads",
	       ROUNDS * QD, nbad, nbad_node[0], nbad_node[1], reads);
	if (!reads)
		t_error("the poller did no polled read: nothing competed for the poll queue");
	if (changed)
		t_error("%lu bytes of the submitter's buffers changed in the poller's copy: another process's memory received the passthrough data",
			changed);
	return t_result();
}
