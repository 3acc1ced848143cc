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
#include <liburing.h>
#include <linux/fs.h>
#include <linux/blkdev.h>	/* the patched kernel's uapi: BLOCK_URING_CMD_IOCTL */

struct query {
	const char *name;
	unsigned int cmd;
	int wide;		/* answer only through addr */
	int ioctl_size;		/* bytes the ioctl stores */
	const char *sysfs;	/* queue/ attribute or disk attribute */
	unsigned long long sysfs_mul, sysfs_div;
};

static const struct query queries[] = {
	{ "BLKSSZGET", BLKSSZGET, 0, 4, "queue/logical_block_size", 1, 1 },
	{ "BLKPBSZGET", BLKPBSZGET, 0, 4, "queue/physical_block_size", 1, 1 },
	{ "BLKBSZGET", BLKBSZGET, 0, 4, NULL, 1, 1 },
	{ "BLKIOMIN", BLKIOMIN, 0, 4, "queue/minimum_io_size", 1, 1 },
	{ "BLKIOOPT", BLKIOOPT, 0, 4, "queue/optimal_io_size", 1, 1 },
	{ "BLKALIGNOFF", BLKALIGNOFF, 0, 4, "alignment_offset", 1, 1 },
	{ "BLKROGET", BLKROGET, 0, 4, "ro", 1, 1 },
	{ "BLKROTATIONAL", BLKROTATIONAL, 0, 2, "queue/rotational", 1, 1 },
	{ "BLKSECTGET", BLKSECTGET, 0, 2, "queue/max_sectors_kb", 2, 1 },
	{ "BLKDISCARDZEROES", BLKDISCARDZEROES, 0, 4, NULL, 1, 1 },
	{ "BLKGETSIZE64", BLKGETSIZE64, 1, 8, "size", 512, 1 },
	{ "BLKGETSIZE", BLKGETSIZE, 1, 8, "size", 1, 1 },
	{ "BLKGETDISKSEQ", BLKGETDISKSEQ, 1, 8, "diskseq", 1, 1 },
	{ "BLKRAGET", BLKRAGET, 1, 8, "queue/read_ahead_kb", 2, 1 },
};
#define NR_QUERIES (sizeof(queries) / sizeof(queries[0]))

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
	unsigned long long answers[NR_QUERIES] = { 0 };
	long long res[NR_QUERIES];
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
	ret = io_uring_queue_init(NR_QUERIES, &ring, 0);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}

	for (i = 0; i < NR_QUERIES; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct block_uring_cmd *bcmd = (struct block_uring_cmd *)sqe->cmd;

		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
		sqe->cmd_op = BLOCK_URING_CMD_IOCTL;
		bcmd->ioctl_cmd = queries[i].cmd;
		bcmd->flags = 0;
		bcmd->addr = (uintptr_t)&answers[i];
		sqe->user_data = i;
	}
	ret = io_uring_submit_and_wait(&ring, NR_QUERIES);
	if (ret != (int)NR_QUERIES) {
		fprintf(stderr, "submit: %s\n", ret < 0 ? strerror(-ret) : "short");
		return 1;
	}
	for (i = 0; i < NR_QUERIES; i++) {
		ret = io_uring_wait_cqe(&ring, &cqe);
		if (ret) {
			fprintf(stderr, "wait: %s\n", strerror(-ret));
			return 1;
		}
		res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}

	printf("%s: BLOCK_URING_CMD_IOCTL, %u queries in one submit\n\n",
	       argv[1], (unsigned int)NR_QUERIES);
	printf("%-17s %-8s %20s %20s %20s\n", "query", "cqe->res", "uring_cmd",
	       "ioctl", "sysfs");
	for (i = 0; i < NR_QUERIES; i++) {
		const struct query *q = &queries[i];
		unsigned long long ival = 0, sval;
		char ibuf[32], sbuf[32], rbuf[32];

		if (ioctl(fd, q->cmd, &ival) < 0)
			snprintf(ibuf, sizeof(ibuf), "%s", strerror(errno));
		else
			snprintf(ibuf, sizeof(ibuf), "%llu",
				 q->ioctl_size == 2 ? (ival & 0xffff) :
				 q->ioctl_size == 4 ? (ival & 0xffffffff) : ival);
		if (q->sysfs && !read_sysfs(argv[1], q->sysfs, &sval))
			snprintf(sbuf, sizeof(sbuf), "%llu",
				 sval * q->sysfs_mul / q->sysfs_div);
		else
			snprintf(sbuf, sizeof(sbuf), "-");
		if (res[i] < 0)
			snprintf(rbuf, sizeof(rbuf), "%s", strerror((int)-res[i]));
		else
			snprintf(rbuf, sizeof(rbuf), "%llu", answers[i]);
		printf("%-17s %-8lld %20s %20s %20s\n", q->name, res[i], rbuf,
		       ibuf, sbuf);
	}
	io_uring_queue_exit(&ring);
	return 0;
}
