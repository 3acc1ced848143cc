// SPDX-License-Identifier: GPL-2.0
/*
 * uc_bench: latency and throughput of one command path, for bench/run.sh.
 *
 *   uc_bench [options] nop
 *   uc_bench [options] admin ioctl|uring DEV identify|smart
 *   uc_bench [options] query ioctl|uring DEV
 *   uc_bench [options] read uring|pt DEV
 *
 *   -q QD        commands in flight (sync ioctl paths: threads; query
 *                uring: the batch submitted and reaped at once)   [1]
 *   -n N         measured commands                              [10000]
 *   -w W         warm-up commands, not measured                 [N/10]
 *   -P           IOPOLL ring (read paths)
 *   -g GROUP -p PATH -l LABEL   names written into the JSON
 *
 * admin: Identify Controller or the SMART / health log (512 bytes) through
 * the synchronous NVME_IOCTL_ADMIN_CMD or NVME_URING_CMD_ADMIN on DEV (the
 * controller /dev/nvme0 or the namespace block node /dev/nvme0n1).
 * query: BLKBSZGET through ioctl() or BLOCK_URING_CMD_IOCTL.
 * read: 4 KiB random reads in the first 256 MiB of DEV, as an O_DIRECT
 * io_uring read or as NVMe Read passthrough (NVME_URING_CMD_IO on
 * /dev/ngXnY or the block node).
 *
 * Prints one JSON object: the figures of the measured commands (latency
 * from submission to the reaping of each command's completion; mean, min,
 * percentiles, 101-point CDF) and IOPS over the measured part. Exit status
 * 0; 1 on an error, with one line saying what; 2 when the kernel lacks the
 * path (no uring_cmd on this node).
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
#include <sys/stat.h>
#include <linux/fs.h>
#include <uringcmd-nvme.h>	/* the project's library: lib/ */

#define READ_SPAN	(256ULL << 20)
#define READ_BS		4096

enum kind { K_NOP, K_ADMIN, K_QUERY, K_READ };

struct bench {
	enum kind kind;
	bool sync;		/* ioctl path */
	bool pt;		/* read: passthrough */
	bool smart;		/* admin: SMART log, not identify */
	bool iopoll;
	const char *dev;
	int fd;
	unsigned int qd, n, warmup;
	const char *group, *path, *label;
	__u32 nsid;
	unsigned int lba_shift;
	__u64 span_blocks;	/* read: 4 KiB blocks to choose from */
	uint64_t *lat;		/* ns, one per measured command */
	unsigned int nlat;
	pthread_mutex_t lock;
	unsigned int issued;	/* sync threads: commands taken */
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("uc_bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

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
	if (b->smart)
		uringcmd_nvme_get_log(c, NVME_NSID_ALL, NVME_LOG_LID_SMART, buf,
				      sizeof(struct nvme_smart_log));
	else
		uringcmd_nvme_identify(c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
}

static __u64 rand_block(const struct bench *b, unsigned int *seed)
{
	__u64 r = (__u64)rand_r(seed) << 31 | rand_r(seed);

	return r % b->span_blocks;
}

/* Fill @sqe for command @i of a uring path. */
static void prep(struct bench *b, struct io_uring_sqe *sqe, void *buf,
		 unsigned int *seed)
{
	struct nvme_uring_cmd c;
	__u64 blk;

	switch (b->kind) {
	case K_NOP:
		io_uring_prep_nop(sqe);
		return;
	case K_READ:
		blk = rand_block(b, seed);
		if (!b->pt) {
			io_uring_prep_read(sqe, b->fd, buf, READ_BS, blk * READ_BS);
			return;
		}
		blk <<= 12 - b->lba_shift;
		uringcmd_nvme_rw(&c, nvme_cmd_read, b->nsid, buf, READ_BS, blk,
				 READ_BS >> b->lba_shift);
		uringcmd_prep_nvme(sqe, b->fd, NVME_URING_CMD_IO, &c);
		return;
	case K_ADMIN:
		admin_cmd(b, &c, buf);
		uringcmd_prep_nvme(sqe, b->fd, NVME_URING_CMD_ADMIN, &c);
		return;
	case K_QUERY:	/* a plain ring: 64-byte SQEs */
		uringcmd_prep_block_query(sqe, b->fd, BLKBSZGET, NULL);
		return;
	}
}

/* The answer a uring command must complete with. */
static __u64 want_res(const struct bench *b, int bsz)
{
	if (b->kind == K_READ && !b->pt)
		return READ_BS;
	if (b->kind == K_QUERY)
		return bsz;
	return 0;
}

/* ---- uring paths: QD in flight, or batches of QD for queries ------------ */

struct slot {
	uint64_t t0;
	void *buf;
};

static void run_uring(struct bench *b)
{
	struct io_uring_params p = { 0 };
	unsigned int total = b->warmup + b->n, submitted = 0, done = 0, i;
	unsigned int seed = 42, inflight = 0;
	struct slot *slots;
	struct io_uring ring;
	unsigned int *free_slots, nfree;
	int bsz = 0, ret;
	bool batch = b->kind == K_QUERY;
	uint64_t start = 0;

	if (b->kind == K_QUERY && ioctl(b->fd, BLKBSZGET, &bsz))
		die("%s: BLKBSZGET: %s", b->dev, strerror(errno));
	if (b->kind == K_ADMIN || (b->kind == K_READ && b->pt))
		p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	if (b->iopoll)
		p.flags |= IORING_SETUP_IOPOLL;
	ret = io_uring_queue_init_params(b->qd < 8 ? 8 : b->qd, &ring, &p);
	if (ret)
		die("io_uring_queue_init: %s", strerror(-ret));

	slots = calloc(b->qd, sizeof(*slots));
	free_slots = calloc(b->qd, sizeof(*free_slots));
	if (!slots || !free_slots)
		die("out of memory");
	for (i = 0; i < b->qd; i++) {
		slots[i].buf = xalloc(4096);
		free_slots[i] = i;
	}
	nfree = b->qd;

	while (done < total) {
		struct io_uring_cqe *cqe;
		unsigned int head, seen = 0;

		/* refill: all free slots, or for queries a whole batch at once */
		if (!batch || inflight == 0) {
			uint64_t t0 = now_ns();

			while (nfree && submitted < total) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
				unsigned int s = free_slots[--nfree];

				prep(b, sqe, slots[s].buf, &seed);
				sqe->user_data = s;
				slots[s].t0 = t0;
				submitted++;
				inflight++;
			}
			ret = io_uring_submit(&ring);
			if (ret < 0)
				die("io_uring_submit: %s", strerror(-ret));
		}
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret && ret != -EINTR && ret != -ETIME && ret != -EAGAIN)
			die("io_uring_wait_cqe: %s", strerror(-ret));
		io_uring_for_each_cqe(&ring, head, cqe) {
			unsigned int s = cqe->user_data;
			uint64_t t1 = now_ns();

			check_res(b, cqe->res, want_res(b, bsz));
			if (done >= b->warmup) {
				if (done == b->warmup)
					start = slots[s].t0;
				b->lat[b->nlat++] = t1 - slots[s].t0;
			}
			done++;
			seen++;
			inflight--;
			free_slots[nfree++] = s;
		}
		io_uring_cq_advance(&ring, seen);
	}
	/* elapsed from the first measured submission to the last completion */
	b->lat[b->nlat] = now_ns() - start;	/* read by report() */
	io_uring_queue_exit(&ring);
}

/* ---- sync paths: QD threads each calling the ioctl ---------------------- */

static void *sync_thread(void *arg)
{
	struct bench *b = arg;
	void *buf = xalloc(4096);
	struct nvme_passthru_cmd ac;
	uint64_t t0, t1;
	int bsz, ret;

	for (;;) {
		unsigned int i;

		pthread_mutex_lock(&b->lock);
		i = b->issued++;
		pthread_mutex_unlock(&b->lock);
		if (i >= b->warmup + b->n)
			break;
		t0 = now_ns();
		if (b->kind == K_QUERY) {
			ret = ioctl(b->fd, BLKBSZGET, &bsz);
		} else {
			struct nvme_uring_cmd c;

			admin_cmd(b, &c, buf);
			uringcmd_nvme_to_passthru(&c, &ac);
			ret = ioctl(b->fd, NVME_IOCTL_ADMIN_CMD, &ac);
		}
		t1 = now_ns();
		if (ret)
			check_res(b, ret < 0 ? -errno : ret, 0);
		if (i >= b->warmup) {
			pthread_mutex_lock(&b->lock);
			b->lat[b->nlat++] = t1 - t0;
			pthread_mutex_unlock(&b->lock);
		}
	}
	free(buf);
	return NULL;
}

static void run_sync(struct bench *b)
{
	pthread_t *th = calloc(b->qd, sizeof(*th));
	uint64_t start;
	unsigned int i;

	if (!th)
		die("out of memory");
	/* warm-up alone, so that the measured part starts with all threads */
	b->issued = 0;
	{
		unsigned int n = b->n;

		b->n = 0;
		sync_thread(b);
		b->n = n;
	}
	b->nlat = 0;
	b->issued = b->warmup;
	start = now_ns();
	if (b->qd == 1) {	/* no thread start-up in the figures */
		sync_thread(b);
		b->lat[b->nlat] = now_ns() - start;
		free(th);
		return;
	}
	for (i = 0; i < b->qd; i++)
		if (pthread_create(&th[i], NULL, sync_thread, b))
			die("pthread_create failed");
	for (i = 0; i < b->qd; i++)
		pthread_join(th[i], NULL);
	b->lat[b->nlat] = now_ns() - start;
	free(th);
}

/* ---- output ---------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t pct(const uint64_t *v, unsigned int n, double q)
{
	unsigned int i = (unsigned int)(q * (n - 1) + 0.5);

	return v[i < n ? i : n - 1];
}

static void json_str(const char *key, const char *v)
{
	const char *s;

	printf("\"%s\": \"", key);
	for (s = v ? v : ""; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	printf("\", ");
}

static void report(struct bench *b)
{
	uint64_t elapsed = b->lat[b->nlat], sum = 0;
	unsigned int n = b->nlat, i;

	if (!n)
		die("nothing measured");
	qsort(b->lat, n, sizeof(*b->lat), cmp_u64);
	for (i = 0; i < n; i++)
		sum += b->lat[i];
	printf("{");
	json_str("group", b->group);
	json_str("path", b->path);
	json_str("label", b->label);
	json_str("dev", b->dev);
	printf("\"qd\": %u, \"iopoll\": %s, \"n\": %u, \"iops\": %.1f, ", b->qd,
	       b->iopoll ? "true" : "false", n, n * 1e9 / (double)elapsed);
	printf("\"lat_ns\": {\"mean\": %.0f, \"min\": %llu, \"p50\": %llu, "
	       "\"p99\": %llu, \"p999\": %llu, \"max\": %llu}, ", (double)sum / n,
	       (unsigned long long)b->lat[0],
	       (unsigned long long)pct(b->lat, n, 0.50),
	       (unsigned long long)pct(b->lat, n, 0.99),
	       (unsigned long long)pct(b->lat, n, 0.999),
	       (unsigned long long)b->lat[n - 1]);
	printf("\"cdf\": [");
	for (i = 0; i <= 100; i++)
		printf("%s[%llu, %.2f]", i ? ", " : "",
		       (unsigned long long)pct(b->lat, n, i / 100.0), i / 100.0);
	printf("]}\n");
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
	fprintf(stderr, "usage: uc_bench [-q QD] [-n N] [-w W] [-P] [-g GROUP -p PATH -l LABEL]\n"
		"       nop | admin ioctl|uring DEV identify|smart |\n"
		"       query ioctl|uring DEV | read uring|pt DEV\n");
	exit(1);
}

static bool is(const char *a, const char *b)
{
	return a && !strcmp(a, b);
}

int main(int argc, char **argv)
{
	struct bench b = { .qd = 1, .n = 10000, .fd = -1 };
	bool warmup_set = false;
	int opt;

	while ((opt = getopt(argc, argv, "q:n:w:Pg:p:l:")) != -1) {
		switch (opt) {
		case 'q': b.qd = strtoul(optarg, NULL, 0); break;
		case 'n': b.n = strtoul(optarg, NULL, 0); break;
		case 'w': b.warmup = strtoul(optarg, NULL, 0); warmup_set = true; break;
		case 'P': b.iopoll = true; break;
		case 'g': b.group = optarg; break;
		case 'p': b.path = optarg; break;
		case 'l': b.label = optarg; break;
		default: usage();
		}
	}
	argv += optind;
	argc -= optind;
	if (argc < 1 || !b.qd || b.qd > 256 || !b.n)
		usage();
	if (!warmup_set)
		b.warmup = b.n / 10;

	if (is(argv[0], "nop")) {
		b.kind = K_NOP;
	} else if (is(argv[0], "admin") && argc == 4) {
		b.kind = K_ADMIN;
		b.sync = is(argv[1], "ioctl");
		b.smart = is(argv[3], "smart");
		if (!b.smart && !is(argv[3], "identify"))
			usage();
	} else if (is(argv[0], "query") && argc == 3) {
		b.kind = K_QUERY;
		b.sync = is(argv[1], "ioctl");
	} else if (is(argv[0], "read") && argc == 3) {
		b.kind = K_READ;
		b.pt = is(argv[1], "pt");
		if (!b.pt && !is(argv[1], "uring"))
			usage();
	} else {
		usage();
	}
	if (b.kind != K_NOP) {
		if (!b.sync && !is(argv[1], "uring") && !is(argv[1], "pt"))
			usage();
		b.dev = argv[2];
		open_dev(&b);
	}
	if (b.sync && b.iopoll)
		die("-P applies to io_uring paths only");
	if (!b.path)
		b.path = b.sync ? "ioctl" : "uring";
	if (!b.group)
		b.group = argv[0];

	b.lat = calloc(b.n + 1, sizeof(*b.lat));	/* +1: the elapsed time */
	if (!b.lat)
		die("out of memory");
	pthread_mutex_init(&b.lock, NULL);
	if (b.sync)
		run_sync(&b);
	else
		run_uring(&b);
	report(&b);
	return 0;
}
