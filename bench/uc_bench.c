// SPDX-License-Identifier: GPL-2.0
/*
 * uc_bench: latency, throughput and CPU cost of command paths, for
 * bench/run.sh.
 *
 *   uc_bench [options] SPEC                   one path
 *   uc_bench [options] pair SPEC vs SPEC      two paths, interleaved
 *
 * SPEC is [path options] and one of
 *   nop
 *   admin ioctl|uring DEV identify|smart|features
 *   query ioctl|uring DEV
 *   read uring|pt DEV
 *
 * Path options (before the SPEC they apply to, or before "pair" for both):
 *   -q QD        commands in flight (sync ioctl paths: threads; nop and
 *                query uring: the batch submitted and reaped at once)   [1]
 *   -P           IOPOLL ring (read paths)
 *   -F           registered file (IOSQE_FIXED_FILE)
 *   -C           IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN
 *   -B           registered buffers (read paths)
 *   -p PATH -l LABEL   names written into the JSON
 * Options of the run:
 *   -n N         one path: measured commands [10000]; pair: commands per
 *                slice [2000]
 *   -w W         warm-up commands, not measured  [one path: N/10; pair: N]
 *   -r R         pair: pairs of slices            [32]
 *   -L L         pair: pairs of latency slices after them (admin and
 *                read paths; 0: none)               [4]
 *   -g GROUP     name written into the JSON
 *
 * admin: Identify Controller, the SMART / health log (512 bytes) or Get
 * Features (Number of Queues, no data: the cheapest admin command) through
 * the synchronous NVME_IOCTL_ADMIN_CMD or NVME_URING_CMD_ADMIN on DEV (the
 * controller /dev/nvme0 or the namespace block node /dev/nvme0n1).
 * query: BLKBSZGET through ioctl() or BLOCK_URING_CMD_IOCTL.
 * read: 4 KiB random reads in the first 256 MiB of DEV, as an O_DIRECT
 * io_uring read or as NVMe Read passthrough (NVME_URING_CMD_IO on
 * /dev/ngXnY or the block node).
 *
 * One path prints one JSON object: IOPS over the measured commands and CPU
 * time per command: the process's (getrusage, all its threads) and the
 * whole guest's busy time (elapsed x CPUs minus the nohz idle and iowait
 * time of every CPU, /proc/timer_list: interrupts and kernel threads
 * included); then, for admin commands and reads, latency (from submission
 * to the reaping of each command's completion: mean, min, percentiles, a
 * CDF at every percent and at 99.5-99.99 %) from a separate latency slice
 * of N commands. The measured slices read no clock per command: they are
 * timed whole. Block queries and NOPs have no latency: a batch's round
 * trip is not a query's, and a clock read costs about what a query does.
 *
 * pair runs A and B in slices of N commands, ABBA order (A B, B A, A B,
 * ...), each path on its own ring or threads set up once, then -L pairs
 * of latency slices (not in the ratios), and prints one JSON object: both
 * paths' figures, every pair's IOPS and CPU per command, and the median
 * over the pairs of B's IOPS over A's, of B's CPU per command over A's and
 * of B's time per command minus A's, each with a 95 % confidence interval
 * (sign test: order statistics of the pairs; bench/report.py gives the
 * intervals over boots), and the verdict on the IOPS ratio, a resolved
 * difference first: "faster" (the interval above 1), "slower" (below 1),
 * either with ", by at most 2 %" when the interval also lies inside
 * 0.98-1.02, "within" (includes 1, inside 0.98-1.02), "unresolved".
 *
 * Exit status 0; 1 on an error, with one line saying what; 2 when the
 * kernel lacks the path (no uring_cmd on this node).
 */
#include <stddef.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include <uringcmd-nvme.h>	/* the project's library: lib/ */

#define UC_PROG "uc_bench"
#include "uc_common.h"

#define READ_SPAN	(256ULL << 20)
#define READ_BS		4096
#define BAND		0.02	/* "within": the interval inside 1 +- BAND */

enum kind { K_NOP, K_ADMIN, K_QUERY, K_READ };
enum admin_op { A_IDENTIFY, A_SMART, A_FEATURES };

struct slot {
	uint64_t t0;
	void *buf;
};

struct bench {
	enum kind kind;
	enum admin_op op;
	bool sync;		/* ioctl path */
	bool pt;		/* read: passthrough */
	bool iopoll, fixed_file, fast_ring, fixed_buf;
	const char *dev;
	int fd;
	unsigned int qd;
	const char *group, *path, *label;
	__u32 nsid;
	unsigned int lba_shift;
	__u64 span_blocks;	/* read: 4 KiB blocks to choose from */
	int bsz;		/* query: the answer expected */

	/* uring paths: one ring, set up once */
	struct io_uring ring;
	struct slot *slots;
	unsigned int *free_slots, nfree, seed;
	unsigned int side, slices;	/* the seed of each slice's reads */

	/* sync paths, QD > 1: QD threads, kept between slices */
	pthread_t *th;
	pthread_barrier_t go, done;
	unsigned int issued, slice_end;	/* atomic: no lock per command */
	bool quit;

	/* latency, in latency slices only */
	bool timed;
	uint64_t *lat;		/* ns, one per timed command */
	unsigned int nlat, cap;	/* nlat: atomic */
	/* figures of the measured slices */
	uint64_t wall_ns, cpu_ns, busy_ns, cmds;
};

/* one slice: wall time, process CPU time, whole-guest busy time */
struct slice {
	uint64_t wall_ns, cpu_ns, busy_ns;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void *xalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		die("out of memory");
	memset(p, 0, len);
	return p;
}

static const char *res_str(int res)
{
	static char buf[256];

	return uringcmd_nvme_res_str(res, buf, sizeof(buf));
}

/* A completion that is not a success: say what and stop. */
static void check_res(struct bench *b, int res, __u64 want)
{
	if (res >= 0 && (__u64)res == want)
		return;
	if (res == -EOPNOTSUPP || (res == -EINVAL && b->kind == K_QUERY)) {
		fprintf(stderr, "uc_bench: %s: %s: this kernel has no such "
			"uring_cmd on this node (the uringcmd series is needed)\n",
			b->dev, res_str(res));
		exit(2);
	}
	die("%s: %s %s: %s", b->dev, b->path ? b->path : "", b->group ? b->group : "",
	    res_str(res));
}

/* ---- one command of each kind ------------------------------------------- */

static void admin_cmd(const struct bench *b, struct nvme_uring_cmd *c, void *buf)
{
	switch (b->op) {
	case A_SMART:
		uringcmd_nvme_get_log(c, NVME_NSID_ALL, NVME_LOG_LID_SMART, buf,
				      sizeof(struct nvme_smart_log));
		return;
	case A_FEATURES:
		uringcmd_nvme_get_features(c, NVME_FEAT_FID_NUM_QUEUES,
					   NVME_GET_FEATURES_SEL_CURRENT, NULL, 0);
		return;
	case A_IDENTIFY:
		uringcmd_nvme_identify(c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
		return;
	}
}

static __u64 rand_block(struct bench *b)
{
	__u64 r = (__u64)rand_r(&b->seed) << 31 | rand_r(&b->seed);

	return r % b->span_blocks;
}

/* Fill @sqe with a command of a uring path, on slot @s's buffer. */
static void prep(struct bench *b, struct io_uring_sqe *sqe, unsigned int s)
{
	void *buf = b->slots[s].buf;
	struct nvme_uring_cmd c;
	__u64 blk;

	switch (b->kind) {
	case K_NOP:
		io_uring_prep_nop(sqe);
		return;
	case K_READ:
		blk = rand_block(b);
		if (!b->pt) {
			if (b->fixed_buf)
				io_uring_prep_read_fixed(sqe, b->fd, buf, READ_BS,
							 blk * READ_BS, s);
			else
				io_uring_prep_read(sqe, b->fd, buf, READ_BS,
						   blk * READ_BS);
			break;
		}
		blk <<= 12 - b->lba_shift;
		uringcmd_nvme_rw(&c, nvme_cmd_read, b->nsid, buf, READ_BS, blk,
				 READ_BS >> b->lba_shift);
		if (b->fixed_buf)
			uringcmd_prep_nvme_fixed(sqe, b->fd, NVME_URING_CMD_IO, &c, s);
		else
			uringcmd_prep_nvme(sqe, b->fd, NVME_URING_CMD_IO, &c);
		break;
	case K_ADMIN:
		admin_cmd(b, &c, buf);
		uringcmd_prep_nvme(sqe, b->fd, NVME_URING_CMD_ADMIN, &c);
		break;
	case K_QUERY:	/* a plain ring: 64-byte SQEs */
		uringcmd_prep_block_query(sqe, b->fd, BLKBSZGET, NULL);
		break;
	}
	if (b->fixed_file) {
		sqe->fd = 0;	/* the index in the registered files */
		sqe->flags |= IOSQE_FIXED_FILE;
	}
}

/* The answer a uring command must complete with. */
static __u64 want_res(const struct bench *b)
{
	if (b->kind == K_READ && !b->pt)
		return READ_BS;
	if (b->kind == K_QUERY)
		return b->bsz;
	return 0;
}

/* one command's latency, from any thread (latency slices only) */
static void record(struct bench *b, uint64_t ns)
{
	unsigned int i = __atomic_fetch_add(&b->nlat, 1, __ATOMIC_RELAXED);

	if (i < b->cap)
		b->lat[i] = ns;
	else
		__atomic_store_n(&b->nlat, b->cap, __ATOMIC_RELAXED);
}

/* Whether a path's latency means something: not for batched queries and
 * NOPs (the batch's round trip) nor for the ioctl query (a clock read
 * costs about what it does). */
static bool has_latency(const struct bench *b)
{
	return b->kind == K_ADMIN || b->kind == K_READ;
}

/* ---- uring paths: QD in flight, or batches of QD for nop and queries ---- */

static void setup_uring(struct bench *b)
{
	struct io_uring_params p = { 0 };
	unsigned int i;
	int ret;

	if (b->kind == K_QUERY && ioctl(b->fd, BLKBSZGET, &b->bsz))
		die("%s: BLKBSZGET: %s", b->dev, strerror(errno));
	if (b->kind == K_ADMIN || (b->kind == K_READ && b->pt))
		p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (b->iopoll)
		p.flags |= IORING_SETUP_IOPOLL;
	if (b->fast_ring)
		p.flags |= IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN;
	ret = io_uring_queue_init_params(b->qd < 8 ? 8 : b->qd, &b->ring, &p);
	if (ret)
		die("io_uring_queue_init (flags %#x): %s", p.flags, strerror(-ret));

	b->slots = calloc(b->qd, sizeof(*b->slots));
	b->free_slots = calloc(b->qd, sizeof(*b->free_slots));
	if (!b->slots || !b->free_slots)
		die("out of memory");
	for (i = 0; i < b->qd; i++) {
		b->slots[i].buf = xalloc(4096);
		b->free_slots[i] = i;
	}
	b->nfree = b->qd;

	if (b->fixed_file && b->kind != K_NOP) {
		ret = io_uring_register_files(&b->ring, &b->fd, 1);
		if (ret)
			die("io_uring_register_files: %s", strerror(-ret));
	}
	if (b->fixed_buf) {
		struct iovec *iov = calloc(b->qd, sizeof(*iov));

		if (!iov)
			die("out of memory");
		for (i = 0; i < b->qd; i++) {
			iov[i].iov_base = b->slots[i].buf;
			iov[i].iov_len = 4096;
		}
		ret = io_uring_register_buffers(&b->ring, iov, b->qd);
		if (ret)
			die("io_uring_register_buffers: %s", strerror(-ret));
		free(iov);
	}
}

/* @count commands: QD kept in flight (or whole batches), then drained. */
static void slice_uring(struct bench *b, unsigned int count)
{
	unsigned int submitted = 0, done = 0, inflight = 0;
	bool batch = b->kind == K_QUERY || b->kind == K_NOP;
	int ret;

	/* each slice reads its own blocks: its side's and number's seed */
	b->seed = 42 + b->side * 1000003u + b->slices++ * 7919u;
	while (done < count) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0;

		/* refill: all free slots, or a whole batch at once; submitted
		 * and waited for in one io_uring_enter() */
		if ((!batch || inflight == 0) && submitted < count) {
			uint64_t t0 = b->timed ? now_ns() : 0;

			while (b->nfree && submitted < count) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);
				unsigned int s = b->free_slots[--b->nfree];

				prep(b, sqe, s);
				sqe->user_data = s;
				b->slots[s].t0 = t0;
				submitted++;
				inflight++;
			}
			ret = io_uring_submit_and_wait(&b->ring, 1);
			if (ret < 0 && ret != -EINTR)
				die("io_uring_submit_and_wait: %s", strerror(-ret));
		}
		ret = io_uring_wait_cqe(&b->ring, &cqe);
		if (ret && ret != -EINTR && ret != -ETIME && ret != -EAGAIN)
			die("io_uring_wait_cqe: %s", strerror(-ret));
		io_uring_for_each_cqe(&b->ring, head, cqe) {
			unsigned int s = cqe->user_data;

			check_res(b, cqe->res, want_res(b));
			if (b->timed)
				record(b, now_ns() - b->slots[s].t0);
			done++;
			seen++;
			inflight--;
			b->free_slots[b->nfree++] = s;
		}
		io_uring_cq_advance(&b->ring, seen);
	}
}

/* ---- sync paths: QD threads each calling the ioctl ---------------------- */

static void sync_cmd(struct bench *b, void *buf)
{
	struct nvme_passthru_cmd ac;
	struct nvme_uring_cmd c;
	uint64_t t0 = 0;
	int bsz, ret;

	if (b->timed)
		t0 = now_ns();
	if (b->kind == K_QUERY) {
		ret = ioctl(b->fd, BLKBSZGET, &bsz);
	} else {
		admin_cmd(b, &c, buf);
		uringcmd_nvme_to_passthru(&c, &ac);
		ret = ioctl(b->fd, NVME_IOCTL_ADMIN_CMD, &ac);
	}
	if (b->timed)
		record(b, now_ns() - t0);
	if (ret)
		check_res(b, ret < 0 ? -errno : ret, 0);
}

/* commands until the slice's count is taken: an atomic counter, no lock
 * (the barriers order it between slices) */
static void sync_loop(struct bench *b, void *buf)
{
	for (;;) {
		unsigned int i = b->qd > 1 ?
			__atomic_fetch_add(&b->issued, 1, __ATOMIC_RELAXED) : b->issued++;

		if (i >= b->slice_end)
			return;
		sync_cmd(b, buf);
	}
}

static void *sync_thread(void *arg)
{
	struct bench *b = arg;
	void *buf = xalloc(4096);

	for (;;) {
		pthread_barrier_wait(&b->go);
		if (b->quit)
			break;
		sync_loop(b, buf);
		pthread_barrier_wait(&b->done);
	}
	free(buf);
	return NULL;
}

static void setup_sync(struct bench *b)
{
	unsigned int i;

	if (b->qd == 1) {
		b->slots = calloc(1, sizeof(*b->slots));
		if (!b->slots)
			die("out of memory");
		b->slots[0].buf = xalloc(4096);
		return;
	}
	b->th = calloc(b->qd, sizeof(*b->th));
	if (!b->th)
		die("out of memory");
	pthread_barrier_init(&b->go, NULL, b->qd + 1);
	pthread_barrier_init(&b->done, NULL, b->qd + 1);
	for (i = 0; i < b->qd; i++)
		if (pthread_create(&b->th[i], NULL, sync_thread, b))
			die("pthread_create failed");
}

static void slice_sync(struct bench *b, unsigned int count)
{
	b->issued = 0;
	b->slice_end = count;
	if (b->qd == 1) {	/* no thread hand-over in the figures */
		sync_loop(b, b->slots[0].buf);
		return;
	}
	pthread_barrier_wait(&b->go);
	pthread_barrier_wait(&b->done);
}

/* ---- slices and their cost ---------------------------------------------- */

static uint64_t cpu_self_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage: %s", strerror(errno));
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ULL +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/* busy time of every CPU of the guest so far: elapsed x CPUs minus idle
 * and iowait, from the nohz accounting (uc_common.h) */
static uint64_t busy_ns(void)
{
	struct uc_idle s;

	uc_idle_read(&s);
	return s.now * s.cpus - s.idle;
}

/*
 * One slice of @count commands; @rec: its figures count (a measured slice,
 * timed whole), else a warm-up or, with @b->timed, a latency slice.
 */
static struct slice run_slice(struct bench *b, unsigned int count, bool rec)
{
	uint64_t busy0, cpu0, t0;
	struct slice s;

	busy0 = busy_ns();
	cpu0 = cpu_self_ns();
	t0 = now_ns();
	if (b->sync)
		slice_sync(b, count);
	else
		slice_uring(b, count);
	s.wall_ns = now_ns() - t0;
	s.cpu_ns = cpu_self_ns() - cpu0;
	s.busy_ns = busy_ns() - busy0;
	if (rec) {
		b->wall_ns += s.wall_ns;
		b->cpu_ns += s.cpu_ns;
		b->busy_ns += s.busy_ns;
		b->cmds += count;
	}
	return s;
}

static void setup(struct bench *b, unsigned int cap)
{
	b->lat = calloc(cap ? cap : 1, sizeof(*b->lat));
	if (!b->lat)
		die("out of memory");
	b->cap = cap;
	if (b->sync)
		setup_sync(b);
	else
		setup_uring(b);
}

/* ---- output ---------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, unsigned int n, double q)
{
	unsigned int i = (unsigned int)(q * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

static const char *json_bool(bool v)
{
	return v ? "true" : "false";
}

/* One path's figures over its recorded slices, as a JSON object. */
static void print_point(struct bench *b)
{
	static const double tail[] = { 0.995, 0.998, 0.999, 0.9995, 0.9999 };
	unsigned int n = b->nlat, i;
	uint64_t sum = 0;

	if (!b->cmds || !b->wall_ns)
		die("nothing measured");
	if (n)
		qsort(b->lat, n, sizeof(*b->lat), cmp_u64);
	for (i = 0; i < n; i++)
		sum += b->lat[i];
	printf("{");
	json_str("group", b->group);
	json_str("path", b->path);
	json_str("label", b->label);
	json_str("dev", b->dev);
	printf("\"qd\": %u, \"iopoll\": %s, \"fixed_file\": %s, \"fast_ring\": %s, "
	       "\"fixed_buf\": %s, ", b->qd, json_bool(b->iopoll),
	       json_bool(b->fixed_file), json_bool(b->fast_ring), json_bool(b->fixed_buf));
	printf("\"n\": %llu, \"iops\": %.1f, \"cpu_ns_per_cmd\": %.1f, "
	       "\"busy_ns_per_cmd\": %.1f, \"busy_src\": \"nohz\", \"lat_n\": %u, ",
	       (unsigned long long)b->cmds, b->cmds * 1e9 / (double)b->wall_ns,
	       (double)b->cpu_ns / b->cmds, (double)b->busy_ns / b->cmds, n);
	if (!n) {	/* no latency for this path */
		printf("\"lat_ns\": {\"mean\": null, \"min\": null, \"p50\": null, "
		       "\"p99\": null, \"p999\": null, \"max\": null}, \"cdf\": []}");
		return;
	}
	printf("\"lat_ns\": {\"mean\": %.0f, \"min\": %llu, \"p50\": %llu, "
	       "\"p99\": %llu, \"p999\": %llu, \"max\": %llu}, ", (double)sum / n,
	       (unsigned long long)b->lat[0],
	       (unsigned long long)pct(b->lat, n, 0.50),
	       (unsigned long long)pct(b->lat, n, 0.99),
	       (unsigned long long)pct(b->lat, n, 0.999),
	       (unsigned long long)b->lat[n - 1]);
	/* every percent, then the tail in nines */
	printf("\"cdf\": [");
	for (i = 0; i < 100; i++)
		printf("%s[%llu, %.2f]", i ? ", " : "",
		       (unsigned long long)pct(b->lat, n, i / 100.0), i / 100.0);
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		printf(", [%llu, %.4f]", (unsigned long long)pct(b->lat, n, tail[i]),
		       tail[i]);
	printf(", [%llu, 1.0]]}", (unsigned long long)b->lat[n - 1]);
}

/*
 * The median of @v and its distribution-free 95 % confidence interval: the
 * order statistics x(k) and x(n + 1 - k) with k the largest such that
 * P(Binomial(n, 1/2) < k) <= 2.5 % (the sign test's interval; n >= 6).
 */
static void median_ci(double *v, unsigned int n, double *med, double *lo, double *hi)
{
	double p = 1, cdf = 0;
	unsigned int j, k = 0;

	qsort(v, n, sizeof(*v), cmp_double);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (j = 0; j < n; j++)
		p /= 2;			/* P(X = 0) */
	for (j = 0; j < n; j++) {
		if (cdf + p > 0.025)
			break;
		cdf += p;
		k = j + 1;
		p = p * (n - j) / (j + 1);	/* P(X = j + 1) */
	}
	*lo = v[k ? k - 1 : 0];
	*hi = v[k ? n - k : n - 1];
}

static void print_ci(const char *key, double *v, unsigned int n, double *med,
		     double *lo, double *hi)
{
	median_ci(v, n, med, lo, hi);
	printf("\"%s\": {\"median\": %.5f, \"lo\": %.5f, \"hi\": %.5f}, ", key,
	       *med, *lo, *hi);
}

/* a resolved difference first ("faster" or "slower", which the caller
 * qualifies inside the band), then "within" the band, else "unresolved" */
static const char *verdict(double lo, double hi)
{
	if (lo > 1)
		return "faster";
	if (hi < 1)
		return "slower";
	if (lo >= 1 - BAND && hi <= 1 + BAND)
		return "within";
	return "unresolved";
}

/* ---- the two modes ---------------------------------------------------------- */

/* a latency slice: every command timed, not in the figures */
static void run_timed(struct bench *b, unsigned int count)
{
	if (!has_latency(b))
		return;
	b->timed = true;
	run_slice(b, count, false);
	b->timed = false;
}

static void run_one(struct bench *b, unsigned int n, unsigned int warmup)
{
	setup(b, has_latency(b) ? n : 0);
	if (warmup)
		run_slice(b, warmup, false);
	run_slice(b, n, true);
	run_timed(b, n);
	print_point(b);
	putchar('\n');
}

/*
 * @pairs pairs of slices of @slice commands, A B then B A in turn, after a
 * warm-up slice of each.
 */
static void run_pair(struct bench *a, struct bench *b, const char *group,
		     unsigned int slice, unsigned int warmup, unsigned int pairs,
		     unsigned int lat_pairs)
{
	double *ratio = calloc(pairs, sizeof(double));
	double *cpu = calloc(pairs, sizeof(double));
	double *add = calloc(pairs, sizeof(double));
	struct slice (*s)[2] = calloc(pairs, sizeof(*s));
	double med, lo, hi;
	unsigned int i;

	if (!ratio || !cpu || !add || !s)
		die("out of memory");
	a->side = 1;
	b->side = 2;
	setup(a, has_latency(a) ? lat_pairs * slice : 0);
	setup(b, has_latency(b) ? lat_pairs * slice : 0);
	if (warmup) {
		run_slice(a, warmup, false);
		run_slice(b, warmup, false);
	}
	for (i = 0; i < pairs; i++) {
		if (i % 2 == 0) {
			s[i][0] = run_slice(a, slice, true);
			s[i][1] = run_slice(b, slice, true);
		} else {
			s[i][1] = run_slice(b, slice, true);
			s[i][0] = run_slice(a, slice, true);
		}
	}
	/* latency, apart from the measured slices: A B, B A, ... */
	for (i = 0; i < lat_pairs; i++) {
		run_timed(i % 2 ? b : a, slice);
		run_timed(i % 2 ? a : b, slice);
	}

	printf("{\"kind\": \"pair\", ");
	json_str("group", group);
	printf("\"slice\": %u, \"pairs_n\": %u, \"band\": %.2f, \"a\": ", slice,
	       pairs, BAND);
	print_point(a);
	printf(", \"b\": ");
	print_point(b);
	printf(", \"pairs\": [");
	for (i = 0; i < pairs; i++) {
		double ia = slice * 1e9 / s[i][0].wall_ns, ib = slice * 1e9 / s[i][1].wall_ns;
		double ca = (double)s[i][0].cpu_ns / slice, cb = (double)s[i][1].cpu_ns / slice;

		printf("%s[%.1f, %.1f, %.1f, %.1f]", i ? ", " : "", ia, ib, ca, cb);
		ratio[i] = ib / ia;
		cpu[i] = ca > 0 ? cb / ca : 1;
		add[i] = (double)s[i][1].wall_ns / slice - (double)s[i][0].wall_ns / slice;
	}
	printf("], ");
	print_ci("cpu_ratio", cpu, pairs, &med, &lo, &hi);
	print_ci("add_ns", add, pairs, &med, &lo, &hi);
	print_ci("ratio", ratio, pairs, &med, &lo, &hi);
	printf("\"verdict\": \"%s%s\"}\n", verdict(lo, hi),
	       lo >= 1 - BAND && hi <= 1 + BAND && (lo > 1 || hi < 1) ?
	       ", by at most 2 %" : "");
}

/* ---- set-up ------------------------------------------------------------------ */

static void open_dev(struct bench *b)
{
	struct stat st;
	int flags = O_RDONLY;

	if (b->kind == K_READ && !b->pt)
		flags |= O_DIRECT;
	b->fd = open(b->dev, flags);
	if (b->fd < 0)
		die("%s: %s", b->dev, strerror(errno));
	if (fstat(b->fd, &st))
		die("%s: fstat: %s", b->dev, strerror(errno));
	if (b->kind == K_QUERY && !S_ISBLK(st.st_mode))
		die("%s: not a block device", b->dev);
	if (b->kind == K_READ) {
		struct nvme_id_ns *id = xalloc(sizeof(*id));
		struct nvme_passthru_cmd p;
		struct nvme_uring_cmd c;
		int nsid, ret;

		if (!b->pt) {
			b->span_blocks = READ_SPAN / READ_BS;
			free(id);
			return;
		}
		nsid = ioctl(b->fd, NVME_IOCTL_ID);
		if (nsid <= 0)
			die("%s: not an NVMe namespace node (NVME_IOCTL_ID: %s)", b->dev,
			    nsid < 0 ? strerror(errno) : "no namespace");
		b->nsid = nsid;
		uringcmd_nvme_identify(&c, nsid, NVME_IDENTIFY_CNS_NS, id);
		uringcmd_nvme_to_passthru(&c, &p);
		ret = ioctl(b->fd, NVME_IOCTL_ADMIN_CMD, &p);
		if (ret)
			die("%s: identify namespace: %s", b->dev,
			    res_str(ret < 0 ? -errno : ret));
		b->lba_shift = uringcmd_nvme_ns_lba_shift(id);
		if (b->lba_shift > 12)
			die("%s: LBA size above 4 KiB", b->dev);
		b->span_blocks = READ_SPAN / READ_BS;
		if ((le64toh(id->nsze) << b->lba_shift) < READ_SPAN)
			b->span_blocks = (le64toh(id->nsze) << b->lba_shift) / READ_BS;
		free(id);
	} else if (b->kind == K_ADMIN && !S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode)) {
		die("%s: not an NVMe device node", b->dev);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: uc_bench [-n N] [-w W] [-g GROUP] [PATH-OPTIONS] SPEC\n"
		"       uc_bench [-n N] [-w W] [-r PAIRS] [-L PAIRS] [-g GROUP] [PATH-OPTIONS] pair SPEC vs SPEC\n"
		"SPEC:  [-q QD] [-P] [-F] [-C] [-B] [-p PATH] [-l LABEL]\n"
		"       nop | admin ioctl|uring DEV identify|smart|features |\n"
		"       query ioctl|uring DEV | read uring|pt DEV\n");
	exit(1);
}

static bool is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

/* the options of a run, beside those of a path */
struct run {
	unsigned int n, warmup, pairs, lat_pairs;
	bool warmup_set;
};

/*
 * Options from @argv[1] on into @b (and @r: NULL where only path options
 * are allowed); the index of the first operand.
 */
static int parse_opts(struct bench *b, struct run *r, int argc, char **argv)
{
	int opt;

	optind = 0;	/* glibc: start afresh, at argv[1] */
	while ((opt = getopt(argc, argv, "+q:n:w:r:L:PFCBg:p:l:")) != -1) {
		if (!r && strchr("nwrLg", opt))
			usage();
		switch (opt) {
		case 'q': b->qd = strtoul(optarg, NULL, 0); break;
		case 'n': r->n = strtoul(optarg, NULL, 0); break;
		case 'w': r->warmup = strtoul(optarg, NULL, 0); r->warmup_set = true; break;
		case 'r': r->pairs = strtoul(optarg, NULL, 0); break;
		case 'L': r->lat_pairs = strtoul(optarg, NULL, 0); break;
		case 'P': b->iopoll = true; break;
		case 'F': b->fixed_file = true; break;
		case 'C': b->fast_ring = true; break;
		case 'B': b->fixed_buf = true; break;
		case 'g': b->group = optarg; break;
		case 'p': b->path = optarg; break;
		case 'l': b->label = optarg; break;
		default: usage();
		}
	}
	if (!b->qd || b->qd > 256)
		usage();
	return optind;
}

/* The SPEC's operands @argv[0..argc-1] into @b, and its device opened. */
static void parse_spec(struct bench *b, int argc, char **argv)
{
	if (argc < 1)
		usage();
	if (is(argv[0], "nop") && argc == 1) {
		b->kind = K_NOP;
	} else if (is(argv[0], "admin") && argc == 4) {
		b->kind = K_ADMIN;
		if (is(argv[3], "smart"))
			b->op = A_SMART;
		else if (is(argv[3], "features"))
			b->op = A_FEATURES;
		else if (is(argv[3], "identify"))
			b->op = A_IDENTIFY;
		else
			usage();
	} else if (is(argv[0], "query") && argc == 3) {
		b->kind = K_QUERY;
	} else if (is(argv[0], "read") && argc == 3) {
		b->kind = K_READ;
		b->pt = is(argv[1], "pt");
		if (!b->pt && !is(argv[1], "uring"))
			usage();
	} else {
		usage();
	}
	if (b->kind != K_NOP) {
		b->sync = is(argv[1], "ioctl");
		if (b->kind == K_READ ? b->sync : !b->sync && !is(argv[1], "uring"))
			usage();
		b->dev = argv[2];
		open_dev(b);
	}
	if (b->sync && (b->iopoll || b->fixed_file || b->fast_ring || b->fixed_buf))
		die("-P, -F, -C and -B apply to io_uring paths only");
	if (b->fixed_buf && b->kind != K_READ)
		die("-B applies to the read paths only");
	if (!b->path)
		b->path = b->sync ? "ioctl" : "uring";
	if (!b->group)
		b->group = argv[0];
}

int main(int argc, char **argv)
{
	struct bench t = { .qd = 1, .fd = -1 }, a, b;
	struct run r = { .pairs = 32, .lat_pairs = 4 };
	unsigned int n;
	int i, k;

	k = parse_opts(&t, &r, argc, argv);
	argv += k;
	argc -= k;
	if (argc < 1)
		usage();
	if (!is(argv[0], "pair")) {
		n = r.n ? r.n : 10000;
		parse_spec(&t, argc, argv);
		run_one(&t, n, r.warmup_set ? r.warmup : n / 10);
		return 0;
	}

	for (i = 1; i < argc && !is(argv[i], "vs"); i++)
		;
	if (i >= argc || r.pairs < 6)
		usage();
	a = t;
	b = t;
	/* argv[0] ("pair") and argv[i] ("vs") stand where getopt skips argv[0] */
	k = parse_opts(&a, NULL, i, argv);
	parse_spec(&a, i - k, argv + k);
	k = parse_opts(&b, NULL, argc - i, argv + i);
	parse_spec(&b, argc - i - k, argv + i + k);
	n = r.n ? r.n : 2000;
	run_pair(&a, &b, t.group ? t.group : "pair", n,
		 r.warmup_set ? r.warmup : n, r.pairs, r.lat_pairs);
	return 0;
}
