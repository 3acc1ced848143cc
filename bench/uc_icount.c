// SPDX-License-Identifier: GPL-2.0
/*
 * uc_icount: the cost of one command of a path as elapsed guest time over
 * N commands, for a guest booted with QEMU's instruction counter
 * (qemu/run-nvme.sh --icount-sleep: one vCPU, -icount shift=0,sleep=on;
 * or --icount, sleep=off), where 1 ns of running guest time is one retired
 * instruction. bench/icount.sh runs it.
 *
 *   uc_icount [-n N] [-r REPS] [-b BATCH] [-q QD] [-F] [-D] [-P]
 *             [-E EINVAL|EFAULT] [-p PATH] [-l LABEL] MODE [ARGS]
 *
 * MODE:
 *   getppid                 a bare system call
 *   nop                     io_uring NOPs, BATCH per io_uring_submit()
 *   ioctl DEV               ioctl(BLKBSZGET)
 *   query DEV               BLKBSZGET through BLOCK_URING_CMD_IOCTL, BATCH
 *                           per io_uring_submit() (-F: registered file)
 *   query1 DEV              the same, one per io_uring_submit_and_wait()
 *                           (-D: SINGLE_ISSUER|DEFER_TASKRUN)
 *   admin DEV identify|features       uring_cmd NVME_URING_CMD_ADMIN, QD
 *   admin-ioctl DEV identify|features NVME_IOCTL_ADMIN_CMD
 *   read DEV                4 KiB NVMe Read passthrough (NVME_URING_CMD_IO)
 *                           on a block or char node, QD (-P: IOPOLL ring)
 *   dread DEV               4 KiB O_DIRECT io_uring read, QD (-P: IOPOLL)
 *   discard DEV BYTES       BLOCK_URING_CMD_DISCARD of BYTES, QD
 *   blkdiscard DEV BYTES    ioctl(BLKDISCARD)
 *   punch DEV BYTES         fallocate(PUNCH_HOLE|KEEP_SIZE)
 *   rawcmd DEV CMD_OP       a uring_cmd of CMD_OP (a number) with a zeroed
 *                           command area, which the node's ->uring_cmd
 *                           must refuse with -EOPNOTSUPP (a cmd_op it does
 *                           not know), BATCH per io_uring_submit() (-F:
 *                           registered file): the steps of the query
 *                           path, from io_uring's uring_cmd path alone to
 *                           the block layer's dispatch
 *
 * -E makes admin and read commands ones the NVMe driver refuses, the
 * same on every node, with no command reaching the device: EINVAL, a
 * nonzero flags byte in struct nvme_uring_cmd, refused by
 * nvme_uring_cmd_io() once the whole dispatch (io_uring, the node's
 * ->uring_cmd, the driver) is done; EFAULT (Identify and reads only), a
 * buffer on a PROT_NONE page, refused by the mapping of the user buffer
 * after the request is allocated, which frees it again. Both complete
 * inline: no host thread takes part, so every figure is deterministic.
 *
 * The loop of N commands reads no clock: CLOCK_MONOTONIC,
 * CLOCK_PROCESS_CPUTIME_ID and the CPUs' idle time are read before and
 * after it. One warm-up run of N/10, then REPS (3) runs of N, each a
 * figure per command:
 *   elapsed  guest time (under icount: all instructions, idle included)
 *   cpu      the process's sum_exec_runtime (its user and kernel time,
 *            and interrupts that hit it), precise to the ns
 *   busy     elapsed x CPUs minus idle and iowait time, from the nohz
 *            idle accounting of every CPU (/proc/timer_list's
 *            idle_sleeptime and iowait_sleeptime, in ns): everything the
 *            guest executed, interrupts and kernel threads included
 *   timer_irqs  local timer interrupts per command: with sleep=off an
 *            idle guest's clock jumps to its next timer, so a wait on the
 *            host costs timer interrupts, as many as the host's delay
 *            allows; with sleep=on it follows the host's clock, and a
 *            short wait rarely meets a tick
 *   irqs     interrupts per command, every kind (/proc/stat's intr)
 *   ctxt     context switches per command (/proc/stat's ctxt): 2 when
 *            every command puts the task to sleep and the idle task
 *            runs until the completion's interrupt, 0 when none does
 * Device commands and reads wait on the emulated controller, whose
 * completions come from host threads at no fixed instruction: their
 * elapsed figure is not deterministic, busy and cpu are meant to be.
 *
 * Prints one JSON object. Exit status 0; 1 on an error (one line); 2 when
 * the kernel lacks the path.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <uringcmd-nvme.h>	/* the project's library: lib/ */

#define UC_PROG "uc_icount"
#include "uc_common.h"

#define MAXQD	64

enum mode { M_GETPPID, M_NOP, M_IOCTL, M_QUERY, M_QUERY1, M_ADMIN, M_ADMIN_IOCTL,
	    M_READ, M_DREAD, M_DISCARD, M_BLKDISCARD, M_PUNCH, M_RAWCMD };
static const char *const mode_names[] = { "getppid", "nop", "ioctl", "query", "query1",
	"admin", "admin-ioctl", "read", "dread", "discard", "blkdiscard", "punch",
	"rawcmd" };

static struct {
	enum mode mode;
	unsigned int n, reps, batch, qd;
	int reject;		/* -E: 0, -EINVAL or -EFAULT */
	void *bad;		/* -E EFAULT: a PROT_NONE page */
	bool fixed_file, defer, iopoll, features;
	const char *dev, *path, *label;
	int fd, bsz;
	__u32 nsid;
	unsigned int lba_shift;
	uint64_t bytes, slots, dev_bytes, next;
	__u32 cmd_op;		/* rawcmd */
	struct io_uring ring;
	void *buf[MAXQD];
} g = { .n = 20000, .reps = 3, .batch = 1, .qd = 1, .fd = -1 };

static void fail_res(int res, const char *what)
{
	char buf[256];

	if (res == -EOPNOTSUPP || (res == -EINVAL && (g.mode == M_QUERY || g.mode == M_QUERY1))) {
		fprintf(stderr, "uc_icount: %s: %s: %s: this kernel has no such path\n",
			g.dev ? g.dev : "", what, uringcmd_nvme_res_str(res, buf, sizeof(buf)));
		exit(2);
	}
	die("%s: %s: %s", g.dev ? g.dev : "", what, uringcmd_nvme_res_str(res, buf, sizeof(buf)));
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* idle + iowait of every CPU, ns (nohz accounting, as /proc/stat's) */
static uint64_t idle_ns(void)
{
	struct uc_idle s;

	/* read while this task runs on the one CPU: no idle period is open */
	uc_idle_read(&s);
	return s.idle;
}

/* /proc/stat's interrupts (intr: every kind) and context switches so far */
static void stat_counts(uint64_t *intr, uint64_t *ctxt)
{
	static char line[1 << 16];
	unsigned long long v;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		die("/proc/stat: %s", strerror(errno));
	*intr = *ctxt = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "intr %llu", &v) == 1)
			*intr = v;
		else if (sscanf(line, "ctxt %llu", &v) == 1)
			*ctxt = v;
	}
	fclose(f);
}

/* local timer interrupts of every CPU so far (/proc/interrupts' LOC) */
static uint64_t timer_irqs(void)
{
	static char line[4096];
	unsigned long long v, sum = 0;
	FILE *f = fopen("/proc/interrupts", "r");
	int off;

	if (!f)
		die("/proc/interrupts: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		while (*p == ' ')
			p++;
		if (strncmp(p, "LOC:", 4))
			continue;
		for (p += 4; sscanf(p, "%llu%n", &v, &off) == 1; p += off)
			sum += v;
	}
	fclose(f);
	return sum;
}

/* ---- commands ------------------------------------------------------------- */

/* -E: what makes the driver refuse the command (see the top) */
static void spoil(struct nvme_uring_cmd *c)
{
	if (g.reject == -EINVAL)
		c->flags = 1;
	else if (g.reject == -EFAULT)
		c->addr = (uintptr_t)g.bad;
}

static void admin_cmd(struct nvme_uring_cmd *c, void *buf)
{
	if (g.features)
		uringcmd_nvme_get_features(c, NVME_FEAT_FID_NUM_QUEUES,
					   NVME_GET_FEATURES_SEL_CURRENT, NULL, 0);
	else
		uringcmd_nvme_identify(c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
	spoil(c);
}

/* the next command's range: the device in turn, BYTES at a time */
static uint64_t next_offset(void)
{
	uint64_t off = (g.next++ % g.slots) * g.bytes;

	return off;
}

static void prep(struct io_uring_sqe *sqe, unsigned int s)
{
	struct nvme_uring_cmd c;

	switch (g.mode) {
	case M_NOP:
		io_uring_prep_nop(sqe);
		break;
	case M_QUERY:
	case M_QUERY1:
		uringcmd_prep_block_query(sqe, g.fixed_file ? 0 : g.fd, BLKBSZGET, NULL);
		if (g.fixed_file)
			sqe->flags |= IOSQE_FIXED_FILE;
		break;
	case M_ADMIN:
		admin_cmd(&c, g.buf[s]);
		uringcmd_prep_nvme(sqe, g.fd, NVME_URING_CMD_ADMIN, &c);
		break;
	case M_READ:
		uringcmd_nvme_rw(&c, nvme_cmd_read, g.nsid, g.buf[s], 4096,
				 (next_offset() >> g.lba_shift), 4096 >> g.lba_shift);
		spoil(&c);
		uringcmd_prep_nvme(sqe, g.fd, NVME_URING_CMD_IO, &c);
		break;
	case M_DREAD:
		io_uring_prep_read(sqe, g.fd, g.buf[s], 4096, next_offset());
		break;
	case M_DISCARD:
		io_uring_prep_cmd_discard(sqe, g.fd, next_offset(), g.bytes);
		break;
	case M_RAWCMD:
		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, g.fixed_file ? 0 : g.fd, NULL, 0, 0);
		sqe->cmd_op = g.cmd_op;
		if (g.fixed_file)
			sqe->flags |= IOSQE_FIXED_FILE;
		break;
	default:
		die("no ring for %s", mode_names[g.mode]);
	}
	sqe->user_data = s;
}

static int want(void)
{
	if (g.reject)
		return g.reject;
	if (g.mode == M_QUERY || g.mode == M_QUERY1)
		return g.bsz;
	if (g.mode == M_RAWCMD)
		return -EOPNOTSUPP;
	return g.mode == M_DREAD ? 4096 : 0;
}

/* N commands in batches of BATCH, each batch one io_uring_submit() */
static void loop_batch(unsigned int n)
{
	unsigned int done = 0, i, b = g.batch, w = want();

	while (done < n) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0;
		int ret;

		for (i = 0; i < b; i++)
			prep(io_uring_get_sqe(&g.ring), 0);
		ret = io_uring_submit(&g.ring);
		if (ret != (int)b)
			fail_res(ret < 0 ? ret : -EIO, "io_uring_submit");
		while (seen < b) {
			unsigned int got = 0;

			io_uring_for_each_cqe(&g.ring, head, cqe) {
				if (cqe->res != (int)w)
					fail_res(cqe->res, mode_names[g.mode]);
				got++;
			}
			io_uring_cq_advance(&g.ring, got);
			seen += got;
			if (seen < b && (ret = io_uring_wait_cqe(&g.ring, &cqe)))
				fail_res(ret, "io_uring_wait_cqe");
		}
		done += b;
	}
}

/* N commands with QD kept in flight, one io_uring_submit_and_wait() a round */
static void loop_qd(unsigned int n)
{
	unsigned int submitted = 0, done = 0, nfree = g.qd, w = want();
	unsigned int free_slots[MAXQD], i;

	for (i = 0; i < g.qd; i++)
		free_slots[i] = i;
	while (done < n) {
		struct io_uring_cqe *cqe;
		unsigned int head, got = 0;
		int ret;

		while (nfree && submitted < n) {
			prep(io_uring_get_sqe(&g.ring), free_slots[--nfree]);
			submitted++;
		}
		ret = io_uring_submit_and_wait(&g.ring, 1);
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN)
			fail_res(ret, "io_uring_submit_and_wait");
		io_uring_for_each_cqe(&g.ring, head, cqe) {
			if (cqe->res != (int)w)
				fail_res(cqe->res, mode_names[g.mode]);
			free_slots[nfree++] = cqe->user_data;
			got++;
		}
		io_uring_cq_advance(&g.ring, got);
		done += got;
	}
}

static void loop_sync(unsigned int n)
{
	struct nvme_passthru_cmd ac;
	struct nvme_uring_cmd c;
	unsigned int i;
	int bsz, ret = 0;

	switch (g.mode) {
	case M_GETPPID:
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return;
	case M_IOCTL:
		for (i = 0; i < n; i++)
			if (ioctl(g.fd, BLKBSZGET, &bsz) || bsz != g.bsz)
				fail_res(-errno, "BLKBSZGET");
		return;
	case M_ADMIN_IOCTL:
		for (i = 0; i < n; i++) {
			admin_cmd(&c, g.buf[0]);
			uringcmd_nvme_to_passthru(&c, &ac);
			ret = ioctl(g.fd, NVME_IOCTL_ADMIN_CMD, &ac);
			if (ret < 0)
				ret = -errno;
			if (ret != g.reject)
				fail_res(ret ? ret : -EIO, "NVME_IOCTL_ADMIN_CMD");
		}
		return;
	case M_BLKDISCARD:
		for (i = 0; i < n; i++) {
			uint64_t r[2] = { next_offset(), g.bytes };

			if (ioctl(g.fd, BLKDISCARD, r))
				fail_res(-errno, "BLKDISCARD");
		}
		return;
	case M_PUNCH:
		for (i = 0; i < n; i++)
			if (fallocate(g.fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				      next_offset(), g.bytes))
				fail_res(-errno, "fallocate(PUNCH_HOLE)");
		return;
	default:
		die("not a synchronous mode");
	}
}

static void run(unsigned int n)
{
	switch (g.mode) {
	case M_NOP:
	case M_QUERY:
	case M_RAWCMD:
		loop_batch(n);
		break;
	case M_QUERY1:
	case M_ADMIN:
	case M_READ:
	case M_DREAD:
	case M_DISCARD:
		loop_qd(n);
		break;
	default:
		loop_sync(n);
	}
}

/* ---- set-up ----------------------------------------------------------------- */

static void setup(void)
{
	struct io_uring_params p = { 0 };
	struct stat st;
	unsigned int i;
	int flags = O_RDONLY, ret;

	for (i = 0; i < g.qd; i++)
		if (posix_memalign(&g.buf[i], 4096, 4096))
			die("out of memory");
	if (g.reject == -EFAULT) {
		g.bad = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (g.bad == MAP_FAILED)
			die("mmap: %s", strerror(errno));
	}
	if (g.mode == M_GETPPID || g.mode == M_NOP)
		goto ring;
	if (g.mode == M_DISCARD || g.mode == M_BLKDISCARD || g.mode == M_PUNCH)
		flags = O_RDWR;
	if (g.mode == M_DREAD)
		flags |= O_DIRECT;
	g.fd = open(g.dev, flags);
	if (g.fd < 0)
		die("%s: %s", g.dev, strerror(errno));
	if (fstat(g.fd, &st))
		die("%s: fstat: %s", g.dev, strerror(errno));
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(g.fd, BLKBSZGET, &g.bsz) || ioctl(g.fd, BLKGETSIZE64, &g.dev_bytes))
			die("%s: BLKBSZGET: %s", g.dev, strerror(errno));
	} else if (g.mode == M_QUERY || g.mode == M_QUERY1 || g.mode == M_IOCTL ||
		   g.bytes) {
		die("%s: not a block device", g.dev);
	}
	if (g.mode == M_READ) {
		struct nvme_id_ns *id;
		struct nvme_passthru_cmd pc;
		struct nvme_uring_cmd c;
		int nsid = ioctl(g.fd, NVME_IOCTL_ID);

		if (nsid <= 0)
			die("%s: not an NVMe namespace node", g.dev);
		g.nsid = nsid;
		if (posix_memalign((void **)&id, 4096, sizeof(*id)))
			die("out of memory");
		uringcmd_nvme_identify(&c, nsid, NVME_IDENTIFY_CNS_NS, id);
		uringcmd_nvme_to_passthru(&c, &pc);
		if (ioctl(g.fd, NVME_IOCTL_ADMIN_CMD, &pc))
			die("%s: identify namespace failed", g.dev);
		g.lba_shift = uringcmd_nvme_ns_lba_shift(id);
		g.dev_bytes = le64toh(id->nsze) << g.lba_shift;
		free(id);
	}
	if (g.mode == M_READ || g.mode == M_DREAD)
		g.bytes = 4096;
	if (g.bytes) {
		if (g.dev_bytes < g.bytes)
			die("%s: smaller than %llu bytes", g.dev, (unsigned long long)g.bytes);
		g.slots = g.dev_bytes / g.bytes;
		/* reads: the first 256 MiB, in order, a step of 4 KiB + 1 MiB */
		if (g.mode == M_READ || g.mode == M_DREAD)
			g.slots = g.slots < 65536 ? g.slots : 65536;
	}
	if (g.mode == M_IOCTL || g.mode == M_ADMIN_IOCTL || g.mode == M_BLKDISCARD ||
	    g.mode == M_PUNCH)
		return;
ring:
	if (g.mode == M_GETPPID)
		return;
	if (g.mode == M_ADMIN || g.mode == M_READ)
		p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (g.iopoll)
		p.flags |= IORING_SETUP_IOPOLL;
	if (g.defer)
		p.flags |= IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
	ret = io_uring_queue_init_params(g.batch > g.qd ? g.batch : g.qd < 8 ? 8 : g.qd,
					 &g.ring, &p);
	if (ret)
		die("io_uring_queue_init (flags %#x): %s", p.flags, strerror(-ret));
	if (g.fixed_file && (ret = io_uring_register_files(&g.ring, &g.fd, 1)))
		die("io_uring_register_files: %s", strerror(-ret));
}

static void usage(void)
{
	fprintf(stderr, "usage: uc_icount [-n N] [-r REPS] [-b BATCH] [-q QD] [-F] [-D] [-P] "
		"[-E EINVAL|EFAULT] [-p PATH] [-l LABEL] MODE [ARGS]\n"
		"MODE: getppid | nop | ioctl DEV | query DEV | query1 DEV |\n"
		"      admin DEV identify|features | admin-ioctl DEV identify|features |\n"
		"      read DEV | dread DEV | discard DEV BYTES | blkdiscard DEV BYTES |\n"
		"      punch DEV BYTES | rawcmd DEV CMD_OP\n");
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned int i, m, args, warm;
	long cpus;
	int opt;

	while ((opt = getopt(argc, argv, "+n:r:b:q:FDPE:p:l:")) != -1) {
		switch (opt) {
		case 'n': g.n = strtoul(optarg, NULL, 0); break;
		case 'r': g.reps = strtoul(optarg, NULL, 0); break;
		case 'b': g.batch = strtoul(optarg, NULL, 0); break;
		case 'q': g.qd = strtoul(optarg, NULL, 0); break;
		case 'F': g.fixed_file = true; break;
		case 'D': g.defer = true; break;
		case 'P': g.iopoll = true; break;
		case 'E':
			if (!strcmp(optarg, "EINVAL"))
				g.reject = -EINVAL;
			else if (!strcmp(optarg, "EFAULT"))
				g.reject = -EFAULT;
			else
				usage();
			break;
		case 'p': g.path = optarg; break;
		case 'l': g.label = optarg; break;
		default: usage();
		}
	}
	argv += optind;
	argc -= optind;
	if (argc < 1 || !g.reps || !g.batch || !g.qd || g.qd > MAXQD || g.batch > 4096)
		usage();
	for (m = 0; m < sizeof(mode_names) / sizeof(mode_names[0]); m++)
		if (!strcmp(argv[0], mode_names[m]))
			break;
	if (m == sizeof(mode_names) / sizeof(mode_names[0]))
		usage();
	g.mode = m;
	args = m <= M_NOP ? 1 : m == M_ADMIN || m == M_ADMIN_IOCTL || m >= M_DISCARD ? 3 : 2;
	if ((unsigned int)argc != args)
		usage();
	if (args > 1)
		g.dev = argv[1];
	if (m == M_ADMIN || m == M_ADMIN_IOCTL) {
		g.features = !strcmp(argv[2], "features");
		if (!g.features && strcmp(argv[2], "identify"))
			usage();
	} else if (m == M_RAWCMD) {
		g.cmd_op = strtoul(argv[2], NULL, 0);
	} else if (args == 3) {
		g.bytes = strtoull(argv[2], NULL, 0);
		if (!g.bytes)
			usage();
	}
	if (g.batch > 1 && m != M_NOP && m != M_QUERY && m != M_RAWCMD)
		die("-b applies to nop, query and rawcmd only");
	if (g.qd > 1 && m != M_ADMIN && m != M_READ && m != M_DREAD && m != M_DISCARD)
		die("-q applies to admin, read, dread and discard only");
	if (g.n % g.batch)
		die("N (%u) is not a multiple of the batch (%u)", g.n, g.batch);
	if (g.fixed_file && m != M_QUERY && m != M_QUERY1 && m != M_RAWCMD)
		die("-F applies to the query modes and rawcmd only");
	if (g.reject && m != M_ADMIN && m != M_ADMIN_IOCTL && m != M_READ)
		die("-E applies to admin, admin-ioctl and read only");
	if (g.reject == -EFAULT && m != M_READ && g.features)
		die("-E EFAULT: Get Features has no buffer to fault on");
	setup();
	cpus = sysconf(_SC_NPROCESSORS_ONLN);

	warm = g.n / 10 / g.batch * g.batch;
	run(warm > 0 ? warm : g.batch);
	printf("{");
	json_str("mode", mode_names[m]);
	json_str("path", g.path ? g.path : mode_names[m]);
	json_str("label", g.label ? g.label : mode_names[m]);
	json_str("dev", g.dev);
	printf("\"n\": %u, \"batch\": %u, \"qd\": %u, \"bytes\": %llu, \"fixed_file\": %s, "
	       "\"defer_taskrun\": %s, \"iopoll\": %s, \"reject\": %d, \"abi\": %zu, "
	       "\"cpus\": %ld, \"reps\": [",
	       g.n, g.batch, g.qd, (unsigned long long)g.bytes, g.fixed_file ? "true" : "false",
	       g.defer ? "true" : "false", g.iopoll ? "true" : "false", g.reject,
	       sizeof(long) * 8, cpus);
	fflush(stdout);
	for (i = 0; i < g.reps; i++) {
		uint64_t idle0, t0, c0, t1, c1, idle1, irq0, irq1, in0, in1, cs0, cs1;
		double el, busy;

		stat_counts(&in0, &cs0);
		irq0 = timer_irqs();
		idle0 = idle_ns();
		c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		t0 = clock_ns(CLOCK_MONOTONIC);
		run(g.n);
		t1 = clock_ns(CLOCK_MONOTONIC);
		c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
		idle1 = idle_ns();
		irq1 = timer_irqs();
		stat_counts(&in1, &cs1);
		el = (double)(t1 - t0);
		/* idle0/idle1 are read while this task runs: no idle period is
		 * open, and none falls between them and the clock reads */
		busy = el * cpus - (double)(idle1 - idle0);
		printf("%s{\"elapsed\": %.3f, \"cpu\": %.3f, \"busy\": %.3f, "
		       "\"timer_irqs\": %.4f, \"irqs\": %.4f, \"ctxt\": %.4f}", i ? ", " : "",
		       el / g.n, (double)(c1 - c0) / g.n, busy / g.n, (double)(irq1 - irq0) / g.n,
		       (double)(in1 - in0) / g.n, (double)(cs1 - cs0) / g.n);
	}
	printf("]}\n");
	return 0;
}
