/*
 * Description: print every block query of BLOCK_URING_CMD_IOCTL on a block
 * device next to what ioctl() and sysfs say, all submitted in one batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uringcmd.h>	/* the project's library (lib/): the query table */

/* What sysfs says for a query, where it says it: attribute, scale. */
struct sysfs_view {
	const char *query;
	const char *attr;	/* queue/ attribute or disk attribute */
	unsigned long long mul, div;
};

static const struct sysfs_view views[] = {
	{ "BLKSSZGET",		"queue/logical_block_size", 1, 1 },
	{ "BLKPBSZGET",		"queue/physical_block_size", 1, 1 },
	{ "BLKIOMIN",		"queue/minimum_io_size", 1, 1 },
	{ "BLKIOOPT",		"queue/optimal_io_size", 1, 1 },
	{ "BLKALIGNOFF",	"alignment_offset", 1, 1 },
	{ "BLKROGET",		"ro", 1, 1 },
	{ "BLKROTATIONAL",	"queue/rotational", 1, 1 },
	{ "BLKSECTGET",		"queue/max_sectors_kb", 2, 1 },
	{ "BLKGETZONESZ",	"queue/chunk_sectors", 1, 1 },
	{ "BLKGETNRZONES",	"queue/nr_zones", 1, 1 },
	{ "BLKGETSIZE64",	"size", 512, 1 },
	{ "BLKGETSIZE",		"size", 1, 1 },
	{ "BLKGETDISKSEQ",	"diskseq", 1, 1 },
	{ "BLKRAGET",		"queue/read_ahead_kb", 2, 1 },
	{ "BLKFRAGET",		"queue/read_ahead_kb", 2, 1 },
};

static const struct sysfs_view *view_of(const char *query)
{
	size_t i;

	for (i = 0; i < sizeof(views) / sizeof(views[0]); i++)
		if (!strcmp(views[i].query, query))
			return &views[i];
	return NULL;
}

static int read_sysfs(const char *dev, const char *attr, unsigned long long *val)
{
	char path[PATH_MAX], copy[PATH_MAX];
	FILE *f;
	int ok;

	snprintf(copy, sizeof(copy), "%s", dev);
	snprintf(path, sizeof(path), "/sys/class/block/%s/%s", basename(copy), attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%llu", val) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_cqe *cqe;
	struct uringcmd_probe probe;
	__u64 answers[URINGCMD_NR_BLOCK_QUERIES] = { 0 };
	int res[URINGCMD_NR_BLOCK_QUERIES];
	unsigned int i;
	int fd, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s /dev/BLOCKDEV\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* the library's probe first: does this kernel answer at all? */
	ret = uringcmd_probe_block(fd, &probe);
	if (ret) {
		fprintf(stderr, "%s: uringcmd_probe_block: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	if (probe.block_query <= 0) {
		fprintf(stderr, "%s: BLKSSZGET through io_uring: %s: this kernel does not "
			"answer BLOCK_URING_CMD_IOCTL (it needs the uringcmd series)\n",
			argv[1], strerror(probe.block_query ? -probe.block_query : EIO));
		return 1;
	}
	ret = io_uring_queue_init(URINGCMD_NR_BLOCK_QUERIES, &ring, 0);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		/* with addr, so every answer is there whatever cqe->res says */
		uringcmd_prep_block_query(sqe, fd, uringcmd_block_queries[i].cmd,
					  &answers[i]);
		sqe->user_data = i;
	}
	ret = io_uring_submit_and_wait(&ring, URINGCMD_NR_BLOCK_QUERIES);
	if (ret != (int)URINGCMD_NR_BLOCK_QUERIES) {
		fprintf(stderr, "submit: %s\n", ret < 0 ? strerror(-ret) : "short");
		return 1;
	}
	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret) {
			fprintf(stderr, "wait: %s\n", strerror(-ret));
			return 1;
		}
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}

	printf("%s: BLOCK_URING_CMD_IOCTL, %u queries in one submit\n",
	       argv[1], (unsigned int)URINGCMD_NR_BLOCK_QUERIES);
	printf("(uringcmd_probe_block: block queries answered, discard %s)\n\n",
	       probe.discard == -EBADF ? "too" : "not (BLOCK_URING_CMD_DISCARD "
	       "missing or the device does not discard)");
	printf("%-17s %-8s %20s %20s %20s\n", "query", "cqe->res", "uring_cmd",
	       "ioctl", "sysfs");
	printf("(cqe->res 0 for the queries answered only at addr, marked *)\n");
	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i];
		const struct sysfs_view *v = view_of(q->name);
		unsigned long long ival = 0, sval;
		char ibuf[32], sbuf[32], rbuf[32], name[24];
		__u64 val;

		if (ioctl(fd, q->cmd, &ival) < 0)
			snprintf(ibuf, sizeof(ibuf), "%s", strerror(errno));
		else if (q->ioctl_size == 2)
			snprintf(ibuf, sizeof(ibuf), "%llu", ival & 0xffff);
		else if (q->ioctl_size == 4 && q->ioctl_signed)
			snprintf(ibuf, sizeof(ibuf), "%d", (int)(ival & 0xffffffff));
		else if (q->ioctl_size == 4)
			snprintf(ibuf, sizeof(ibuf), "%llu", ival & 0xffffffff);
		else
			snprintf(ibuf, sizeof(ibuf), "%llu", ival);
		if (v && !read_sysfs(argv[1], v->attr, &sval))
			snprintf(sbuf, sizeof(sbuf), "%llu", sval * v->mul / v->div);
		else
			snprintf(sbuf, sizeof(sbuf), "-");
		if (uringcmd_block_query_answer(q, res[i], &answers[i], &val))
			snprintf(rbuf, sizeof(rbuf), "%s", strerror(-res[i]));
		else if (q->ioctl_signed)
			snprintf(rbuf, sizeof(rbuf), "%lld", (long long)val);
		else
			snprintf(rbuf, sizeof(rbuf), "%llu", (unsigned long long)val);
		snprintf(name, sizeof(name), "%s%s", q->name, q->needs_addr ? "*" : "");
		printf("%-17s %-8d %20s %20s %20s\n", name, res[i], rbuf, ibuf,
		       sbuf);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
