// SPDX-License-Identifier: GPL-2.0
/* Description: NVMe I/O passthrough through uring_cmd on the block node: plain, vectored, registered buffers, IOPOLL */
/*
 * Usage: nvme_bdev_io [BLOCKDEV [CHARDEV [CTRLDEV]]]  (see t_nvme_open())
 *
 * On 16 KiB at 1 MiB into the namespace (restored afterwards):
 *   - pwrite(O_DIRECT) a pattern, read it back with NVME_URING_CMD_IO on the
 *     block node and on /dev/ngXnY: both equal the pattern;
 *   - write a pattern with NVME_URING_CMD_IO on the block node: pread sees it;
 *   - the same with NVME_URING_CMD_IO_VEC over four iovecs;
 *   - Dataset Management (Deallocate) of two ranges on the block node,
 *     then through the ioctl: the same result, the ranges read back as
 *     Identify Namespace's DLFEAT says and as after the ioctl, the blocks
 *     around them as written;
 *   - the same with a registered buffer (IORING_URING_CMD_FIXED); a Read
 *     with IORING_URING_CMD_FIXED whose addr lies outside the registered
 *     buffer: -EFAULT from io_import_fixed() and the plain buffer at addr
 *     untouched, on the block node and ng (a path that ignored the flag
 *     and mapped addr as a user buffer would read into it);
 *   - a read on an IORING_SETUP_IOPOLL ring (polled when the namespace has
 *     poll queues, nvme.poll_queues=N; completed by interrupt otherwise);
 *     a PCIe namespace with poll queues must say queue/io_poll 1, and where
 *     the system has NVMe queue interrupts (nvmeXqY in /proc/interrupts),
 *     256 reads at QD 1 on the IOPOLL ring raise almost none of them while
 *     the same reads on a plain ring raise one each, or nearly;
 *   - on that ring, 32 Flushes (no data: never polled) each beside a read,
 *     on the block node and on /dev/ngXnY: all complete (6.1 polled the
 *     Flush's stale cookie and crashed in bio_poll(); fixed by "nvme:
 *     poll only the uring_cmds queued on a poll queue");
 *   - on that ring, 64 reads past the end of the namespace each behind a
 *     long read: the failed read completes with LBA Out of Range or
 *     Capacity Exceeded (6.1
 *     polled it after its completion had gone to task_work);
 *   - each command's result dword is posted in the big CQE (0 for I/O).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "t_nvme.h"

#define IO_LEN		(16 * 1024)
#define IO_OFF		(1024 * 1024)

static struct t_nvme n;
static int dfd;			/* the block node with O_DIRECT */
static __u64 slba;
static __u32 nlb;
static unsigned int seed;

static void full_pwrite(const void *buf)
{
	if (pwrite(dfd, buf, IO_LEN, IO_OFF) != IO_LEN)
		t_die("pwrite %d bytes at %d: %m", IO_LEN, IO_OFF);
}

static void full_pread(void *buf)
{
	memset(buf, 0, IO_LEN);
	if (pread(dfd, buf, IO_LEN, IO_OFF) != IO_LEN)
		t_die("pread %d bytes at %d: %m", IO_LEN, IO_OFF);
}

static void expect_ok(const char *what, const struct t_cqe *c)
{
	if (c->res)
		t_error("%s: res %s, expected 0", what, t_nvme_res_str(c->res));
}

/*
 * One Read or Write of the test range through @fd with @cmd_op: from or
 * into @buf, or over @iov (@nr_iov entries) if given, or from registered
 * buffer @buf_index if >= 0. False (reported) if it did not complete.
 */
static bool rw_one(struct io_uring *ring, int fd, const char *what,
		   __u32 cmd_op, __u8 opcode, void *buf,
		   const struct iovec *iov, int nr_iov, int buf_index,
		   struct t_cqe *c)
{
	struct nvme_uring_cmd cmd;
	struct io_uring_sqe *sqe;

	uringcmd_nvme_rw(&cmd, opcode, n.nsid, buf, IO_LEN, slba, nlb);
	if (iov) {
		cmd.addr = (__u64)(uintptr_t)iov;
		cmd.data_len = nr_iov;
	}
	sqe = t_get_sqe(ring);
	t_nvme_prep(ring, sqe, fd, cmd_op, &cmd, opcode);
	if (buf_index >= 0) {
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = buf_index;
	}
	if (t_submit_wait_one(ring, c, T_NVME_TIMEOUT_MS)) {
		t_error("%s: no completion", what);
		return false;
	}
	expect_ok(what, c);
	return true;
}

/*
 * IORING_URING_CMD_FIXED with addr outside registered buffer 0: the
 * kernel must go through io_uring_cmd_import_fixed() (-EFAULT), not map
 * addr as a plain user buffer (which would succeed and fill @buf).
 */
static void fixed_outside(struct io_uring *ring, int fd, const char *what,
			  unsigned char *buf)
{
	struct nvme_uring_cmd cmd;
	struct io_uring_sqe *sqe;
	struct t_cqe c;
	size_t i;

	memset(buf, 0x5a, IO_LEN);
	uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, buf, IO_LEN, slba, nlb);
	sqe = t_get_sqe(ring);
	t_nvme_prep(ring, sqe, fd, NVME_URING_CMD_IO, &cmd, nvme_cmd_read);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = 0;
	if (t_submit_wait_one(ring, &c, T_NVME_TIMEOUT_MS)) {
		t_error("%s: no completion", what);
		return;
	}
	if (c.res != -EFAULT)
		t_error("%s: res %s, expected -EFAULT (addr outside the registered buffer)",
			what, t_nvme_res_str(c.res));
	for (i = 0; i < IO_LEN; i++) {
		if (buf[i] != 0x5a) {
			t_error("%s: the plain buffer at addr was written (byte %zu)",
				what, i);
			break;
		}
	}
}

/* All NVMe queue interrupts so far (nvmeXqY lines of /proc/interrupts), -1 if none. */
static long long nvme_irqs(void)
{
	char line[4096], *p, *end;
	long long sum = -1;
	FILE *f = fopen("/proc/interrupts", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned int a, b;
		char *q = strstr(line, " nvme");

		if (!q || sscanf(q, " nvme%uq%u", &a, &b) != 2)
			continue;
		if (sum < 0)
			sum = 0;
		p = strchr(line, ':');
		/* the per-CPU counts after "NN:", up to the chip's name */
		for (p = p ? p + 1 : line;; p = end) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			sum += v;
		}
	}
	fclose(f);
	return sum;
}

#define IRQ_READS	256

/* IRQ_READS reads at QD 1 on @ring; the NVMe interrupts they raised, or -1. */
static long long irqs_over_reads(struct io_uring *ring, const char *what,
				 unsigned char *buf)
{
	long long before = nvme_irqs();
	struct t_cqe c;
	int i;

	for (i = 0; i < IRQ_READS; i++)
		if (!rw_one(ring, n.bfd, what, NVME_URING_CMD_IO, nvme_cmd_read,
			    buf, NULL, 0, -1, &c))
			return -1;
	return before < 0 ? -1 : nvme_irqs() - before;
}

/*
 * Polled, measured: with poll queues on PCIe, queue/io_poll must be 1; the
 * reads on the IOPOLL ring raise (almost) no NVMe interrupt, the same on
 * the plain ring (almost) one each. Fabrics have no such interrupts: a
 * note then.
 */
static void polled_measured(struct io_uring *poll, struct io_uring *plain,
			    __u64 io_poll, unsigned char *buf)
{
	char path[PATH_MAX], transport[32] = "";
	__u64 poll_queues = 0;
	long long polled, irq;

	snprintf(path, sizeof(path), "/sys/block/%s/device/transport", n.name);
	t_read_file(path, transport, sizeof(transport));
	t_read_u64("/sys/module/nvme/parameters/poll_queues", &poll_queues);
	if (!strncmp(transport, "pcie", 4) && poll_queues && !io_poll)
		t_error("%s: nvme.poll_queues=%llu on PCIe, but queue/io_poll is 0",
			n.name, (unsigned long long)poll_queues);
	if (!io_poll)
		return;
	polled = irqs_over_reads(poll, "polled read (interrupts counted)", buf);
	irq = irqs_over_reads(plain, "plain-ring read (interrupts counted)", buf);
	if (polled < 0 || irq < 0) {
		t_info("no NVMe queue interrupts in /proc/interrupts (%s): polling not measured",
		       transport[0] ? transport : "a head");
		return;
	}
	t_info("%d reads: %lld NVMe interrupts on the IOPOLL ring, %lld on a plain ring",
	       IRQ_READS, polled, irq);
	if (polled > IRQ_READS / 16)
		t_error("%d reads on the IOPOLL ring raised %lld NVMe interrupts: not polled",
			IRQ_READS, polled);
	if (irq < IRQ_READS / 2)
		t_error("%d reads on a plain ring raised only %lld NVMe interrupts: the count does not measure them",
			IRQ_READS, irq);
}

/* Read through @fd with @cmd_op into @buf (or @iov), check the pattern. */
static void check_read(struct io_uring *ring, int fd, const char *what,
		       __u32 cmd_op, const void *pat, void *buf,
		       const struct iovec *iov, int nr_iov, int buf_index)
{
	struct t_cqe c;

	memset(buf, 0, IO_LEN);
	if (!rw_one(ring, fd, what, cmd_op, nvme_cmd_read, buf, iov, nr_iov,
		    buf_index, &c))
		return;
	if (!c.res)
		t_compare(what, buf, pat, IO_LEN);
	if (c.big[0])
		t_error("%s: result dword %#llx, expected 0", what,
			(unsigned long long)c.big[0]);
}

/*
 * Submit @first (user_data 1) and @second (2) on @fd and reap both:
 * their cqe->res in @res[0] and @res[1]. False, after t_error(), if either
 * could not be submitted or never completed.
 */
static bool pair_round(struct io_uring *ring, int fd, const char *node,
		       unsigned int round, const struct nvme_uring_cmd *first,
		       const struct nvme_uring_cmd *second, int res[2])
{
	bool seen[2] = { false, false };
	struct t_cqe c;
	unsigned int k;

	res[0] = res[1] = INT_MIN;
	t_nvme_prep(ring, t_get_sqe(ring), fd, NVME_URING_CMD_IO, first, 1);
	t_nvme_prep(ring, t_get_sqe(ring), fd, NVME_URING_CMD_IO, second, 2);
	if (t_submit(ring, 2)) {
		t_error("%s, round %u: submitting two commands failed", node, round);
		return false;
	}
	for (k = 0; k < 2; k++) {
		if (t_wait_cqe(ring, &c, T_NVME_TIMEOUT_MS)) {
			t_error("%s, round %u: a command never completed", node, round);
			return false;
		}
		if (c.user_data < 1 || c.user_data > 2 || seen[c.user_data - 1]) {
			t_error("%s, round %u: a completion of user_data %llu (a duplicate or a stranger)",
				node, round, (unsigned long long)c.user_data);
			return false;
		}
		seen[c.user_data - 1] = true;
		res[c.user_data - 1] = c.res;
	}
	if (!t_cq_empty(ring)) {
		t_error("%s, round %u: a third completion for two commands",
			node, round);
		return false;
	}
	return true;
}

/* Flush + read pairs on an IOPOLL ring: every command completes with 0. */
static void flush_beside_read(struct io_uring *ring, int fd, const char *node,
			      void *buf)
{
	struct nvme_uring_cmd flush, rd;
	unsigned int i, k;
	int res[2];

	uringcmd_nvme_rw(&flush, nvme_cmd_flush, n.nsid, NULL, 0, 0, 1);
	uringcmd_nvme_rw(&rd, nvme_cmd_read, n.nsid, buf, IO_LEN, slba, nlb);
	for (i = 0; i < 32; i++) {
		if (!pair_round(ring, fd, node, i, &flush, &rd, res))
			return;
		for (k = 0; k < 2; k++)
			if (res[k])
				t_error("%s, round %u: %s: %s", node, i,
					k ? "read" : "Flush", t_nvme_res_str(res[k]));
	}
}

/*
 * A long read and, behind it, a read past the end of the namespace, on an
 * IOPOLL ring: polling the long read finds the failed one's completion,
 * which is not batched (an error) and goes to task_work while the failed
 * read is still on the poll list. 6.1 then polled that command's cookie,
 * by then task_work_cb: a GPF in bio_poll() (fixed by the drivers-nvme
 * patch "io_uring: stop polling a uring_cmd once its completion is in
 * task_work").
 */
static void error_behind_long_read(struct io_uring *ring, int fd,
				   const char *node)
{
	__u32 len = n.max_bytes < (256U << 10) ? n.max_bytes : 256U << 10;
	struct nvme_uring_cmd rd, bad;
	void *big = t_alloc(len), *small = t_alloc(n.lbs);
	unsigned int i;
	int res[2];

	uringcmd_nvme_rw(&rd, nvme_cmd_read, n.nsid, big, len, 0, len / n.lbs);
	uringcmd_nvme_rw(&bad, nvme_cmd_read, n.nsid, small, n.lbs, n.nlb, 1);
	for (i = 0; i < 64; i++) {
		if (!pair_round(ring, fd, node, i, &rd, &bad, res))
			break;
		if (res[0])
			t_error("%s, round %u: long read: %s", node, i,
				t_nvme_res_str(res[0]));
		/*
		 * QEMU says LBA Out of Range, nvmet's file backend Capacity
		 * Exceeded, its block device backend (qemu/run-pair.sh's
		 * target) Internal Error: it does not check the range, and
		 * the bio past the end fails with BLK_STS_IOERR
		 * (blk_to_nvme_status())
		 */
		if (!t_nvme_is_status(res[1], NVME_SC_LBA_RANGE) &&
		    !t_nvme_is_status(res[1], NVME_SC_CAP_EXCEEDED) &&
		    !t_nvme_is_status(res[1], NVME_SC_INTERNAL))
			t_error("%s, round %u: read past the end: %s, expected LBA Out of Range, Capacity Exceeded or Internal Error",
				node, i, t_nvme_res_str(res[1]));
	}
	free(big);
	free(small);
}

/* Write @pat through the block node with @cmd_op, check it with pread. */
static void check_write(struct io_uring *ring, const char *what,
			__u32 cmd_op, void *pat, const struct iovec *iov,
			int nr_iov, int buf_index, void *buf)
{
	struct t_cqe c;

	t_fill_pattern(pat, IO_LEN, ++seed);
	if (!rw_one(ring, n.bfd, what, cmd_op, nvme_cmd_write, pat, iov,
		    nr_iov, buf_index, &c))
		return;
	if (!c.res) {
		full_pread(buf);
		t_compare(what, buf, pat, IO_LEN);
	}
}

/*
 * Dataset Management, Deallocate, two ranges in one command: through
 * NVME_URING_CMD_IO on the block node, then through NVME_IOCTL_IO_CMD on
 * the same blocks written again. Both complete alike; the ranges read
 * back as the namespace's DLFEAT says (zeroes, or all ones) and as the
 * ioctl's did, every other block of the region as written.
 */
static void dsm_deallocate(struct io_uring *ring, unsigned char *pat,
			   unsigned char *buf)
{
	struct nvme_dsm_range *r = t_alloc(4096);
	struct nvme_id_ns *id = t_alloc(NVME_IDENTIFY_DATA_SIZE);
	unsigned char *via_ioctl = t_alloc(IO_LEN), fill;
	const __u32 r1 = nlb / 8, n1 = nlb / 4 ? nlb / 4 : 1, r2 = nlb * 5 / 8;
	struct nvme_uring_cmd cmd;
	struct t_cqe c;
	__u32 b, rb;
	int ret;

	uringcmd_nvme_identify(&cmd, n.nsid, NVME_IDENTIFY_CNS_NS, id);
	ret = t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL);
	if (ret) {
		t_error("Identify Namespace: %s", t_nvme_res_str(ret));
		goto out;
	}
	rb = id->dlfeat & NVME_NS_DLFEAT_RB;
	fill = rb == NVME_NS_DLFEAT_RB_ALL_FS ? 0xff : 0;

	r[0] = (struct nvme_dsm_range){ .nlb = htole32(n1),
					.slba = htole64(slba + r1) };
	r[1] = (struct nvme_dsm_range){ .nlb = htole32(1),
					.slba = htole64(slba + r2) };
	uringcmd_nvme_cmd(&cmd, nvme_cmd_dsm, n.nsid, r, 2 * sizeof(*r),
			  1, NVME_DSMGMT_AD);

	t_fill_pattern(pat, IO_LEN, ++seed);
	full_pwrite(pat);
	if (t_nvme_cmd(ring, n.bfd, NVME_URING_CMD_IO, &cmd, 0, &c))
		goto out;
	full_pread(buf);
	full_pwrite(pat);
	ret = t_nvme_ioctl(n.bfd, NVME_IOCTL_IO_CMD, &cmd, NULL);
	full_pread(via_ioctl);
	if (c.res != ret) {
		t_error("DSM deallocate: uring_cmd %s, the ioctl %s",
			t_nvme_res_str(c.res), t_nvme_res_str(ret));
		goto out;
	}
	if (c.res) {
		/* a controller without DSM says so to both alike */
		t_info("# DSM deallocate: %s through both", t_nvme_res_str(c.res));
		goto out;
	}
	for (b = 0; b < nlb; b++) {
		bool gone = (b >= r1 && b < r1 + n1) || b == r2;
		const unsigned char *got = buf + (size_t)b * n.lbs;
		const unsigned char *was = pat + (size_t)b * n.lbs;
		__u32 i;

		if (!gone) {
			if (memcmp(got, was, n.lbs))
				t_error("DSM deallocate: block %u, outside the ranges, changed",
					b);
			continue;
		}
		if (memcmp(got, via_ioctl + (size_t)b * n.lbs, n.lbs))
			t_error("DSM deallocate: block %u reads otherwise than after the ioctl's",
				b);
		if (rb == NVME_NS_DLFEAT_RB_NR)
			continue;
		for (i = 0; i < n.lbs && got[i] == fill; i++)
			;
		if (i < n.lbs)
			t_error("DSM deallocate: block %u byte %u reads 0x%02x; DLFEAT %#x says 0x%02x",
				b, i, got[i], id->dlfeat, fill);
	}
	if (rb == NVME_NS_DLFEAT_RB_NR)
		t_info("# DSM deallocate: DLFEAT reports no read behaviour; compared with the ioctl's");
out:
	free(r);
	free(id);
	free(via_ioctl);
}

int main(int argc, char **argv)
{
	struct io_uring ring, poll;
	unsigned char *orig, *pat, *buf, *fixed;
	struct iovec iov[4], reg;
	char path[PATH_MAX];
	__u64 io_poll = 0;
	int cfd, ret, i;

	t_nvme_open(&n, argc, argv);
	if ((__u64)IO_OFF + IO_LEN > n.nlb * n.lbs)
		t_skip("%s is too small", n.bdev);
	if (IO_LEN % n.lbs)
		t_skip("logical block size %u does not divide %d", n.lbs, IO_LEN);
	slba = IO_OFF / n.lbs;
	nlb = IO_LEN / n.lbs;
	seed = (unsigned int)getpid() << 8;
	dfd = open(n.bdev, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		t_die("open %s O_DIRECT: %m", n.bdev);
	cfd = open(n.chr, O_RDWR | O_CLOEXEC);
	if (cfd < 0 && errno != ENOENT)
		t_die("open %s: %m", n.chr);
	if (cfd < 0)
		t_info("no %s: the char-device comparisons are left out (a SKIP at the end)",
		       n.chr);

	orig = t_alloc(IO_LEN);
	pat = t_alloc(IO_LEN);
	buf = t_alloc(IO_LEN);
	fixed = t_alloc(IO_LEN);
	full_pread(orig);

	ret = t_nvme_ring(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init(SQE128|CQE32): %s", t_errname(ret));

	/* pwrite, then passthrough reads on the block node and on ngXnY */
	t_fill_pattern(pat, IO_LEN, ++seed);
	full_pwrite(pat);
	full_pread(buf);
	if (t_memcmp_off(buf, pat, IO_LEN) >= 0) {
		/* only run-nvme.sh --null's namespaces read zeroes */
		if (!strcmp(t_env_or("TEST_NVME_NULL", "0"), "1"))
			t_skip("%s does not keep written data (TEST_NVME_NULL=1: a read-zeroes namespace)",
			       n.bdev);
		t_die("%s lost O_DIRECT data: pread after pwrite differs at byte %ld",
		      n.bdev, t_memcmp_off(buf, pat, IO_LEN));
	}
	check_read(&ring, n.bfd, "IO read on the block node of a pwrite() pattern",
		   NVME_URING_CMD_IO, pat, buf, NULL, 0, -1);
	if (cfd >= 0)
		check_read(&ring, cfd, "IO read on the char device of the same pattern",
			   NVME_URING_CMD_IO, pat, buf, NULL, 0, -1);

	/* passthrough write on the block node, pread */
	check_write(&ring, "IO write on the block node, pread", NVME_URING_CMD_IO,
		    pat, NULL, 0, -1, buf);
	check_read(&ring, n.bfd, "IO read back of the IO write",
		   NVME_URING_CMD_IO, pat, buf, NULL, 0, -1);

	/* vectored: four uneven pieces */
	iov[0] = (struct iovec){ pat, 4096 };
	iov[1] = (struct iovec){ pat + 4096, 2048 };
	iov[2] = (struct iovec){ pat + 6144, 2048 };
	iov[3] = (struct iovec){ pat + 8192, 8192 };
	check_write(&ring, "IO_VEC write over 4 iovecs, pread", NVME_URING_CMD_IO_VEC,
		    pat, iov, 4, -1, buf);
	for (i = 0; i < 4; i++)
		iov[i].iov_base = buf + ((unsigned char *)iov[i].iov_base - pat);
	check_read(&ring, n.bfd, "IO_VEC read over 4 iovecs",
		   NVME_URING_CMD_IO_VEC, pat, buf, iov, 4, -1);

	dsm_deallocate(&ring, pat, buf);

	/* registered buffer */
	reg = (struct iovec){ fixed, IO_LEN };
	ret = io_uring_register_buffers(&ring, &reg, 1);
	if (ret) {
		t_error("io_uring_register_buffers: %s", t_errname(ret));
	} else {
		check_write(&ring, "IO write from a registered buffer, pread",
			    NVME_URING_CMD_IO, fixed, NULL, 0, 0, buf);
		memcpy(pat, fixed, IO_LEN);
		check_read(&ring, n.bfd, "IO read into a registered buffer",
			   NVME_URING_CMD_IO, pat, fixed, NULL, 0, 0);
		fixed_outside(&ring, n.bfd, "FIXED read, addr outside the registered buffer, block node",
			      buf);
		if (cfd >= 0)
			fixed_outside(&ring, cfd, "FIXED read, addr outside the registered buffer, ng",
				      buf);
		io_uring_unregister_buffers(&ring);
	}

	/* IOPOLL */
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll", n.name);
	t_read_u64(path, &io_poll);
	ret = t_nvme_ring(&poll, 8, IORING_SETUP_IOPOLL);
	if (ret) {
		t_error("io_uring_queue_init(IOPOLL|SQE128|CQE32): %s",
			t_errname(ret));
	} else {
		check_read(&poll, n.bfd, io_poll ? "IO read on an IOPOLL ring (poll queues)" :
			   "IO read on an IOPOLL ring (no poll queues)",
			   NVME_URING_CMD_IO, pat, buf, NULL, 0, -1);
		polled_measured(&poll, &ring, io_poll, buf);
		flush_beside_read(&poll, n.bfd, "IOPOLL, block node", buf);
		error_behind_long_read(&poll, n.bfd, "IOPOLL, block node");
		if (cfd >= 0) {
			flush_beside_read(&poll, cfd, "IOPOLL, char device", buf);
			error_behind_long_read(&poll, cfd, "IOPOLL, char device");
		}
		io_uring_queue_exit(&poll);
	}

	full_pwrite(orig);
	io_uring_queue_exit(&ring);
	if (cfd >= 0)
		close(cfd);
	close(dfd);
	t_nvme_close(&n);
	if (cfd < 0)	/* t_skip() fails instead after any failed check */
		t_skip("no %s: the char-device comparisons did not run", n.chr);
	return t_result();
}
