// SPDX-License-Identifier: GPL-2.0
/* Description: NVMe passthrough on the block node under load: QD 1-64, admin and I/O mixed, 4 threads with their own rings */
/*
 * Usage: nvme_bdev_load [BLOCKDEV [CHARDEV [CTRLDEV]]]  (see t_nvme_open())
 *
 * Four threads, each with its own SQE128/CQE32 ring, run rounds at queue
 * depths 1, 2, 4, 8, 16, 32 and 64: every round submits QD commands in one
 * io_uring_submit() (every fourth an Identify Controller, the others 4 KiB
 * reads at random LBAs of the first 64 MiB, one thread's reads on an IOPOLL
 * ring where the admin commands are left out), then reaps QD completions.
 * Every command must complete exactly once, with status 0; every buffer
 * is poisoned before its command, every read must equal a pread(O_DIRECT)
 * of its block (nothing writes there meanwhile) and every identify the
 * ioctl's (on a head, up to MDTS: a path's controller may answer). The admin
 * tag set is 30 deep, so 4 x 16 admin commands at QD 64 also exercise
 * -EAGAIN and the retry from io-wq.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_nvme.h"

#define NR_THREADS	4
#define MAX_QD		64
#define ROUNDS		3
#define SPAN		(64ULL << 20)

static struct t_nvme n;
static unsigned char id_want[4096];
static int dfd;		/* the block node, O_DIRECT: the reads' reference */

#define POISON		0x5a
#define MDTS_OFF	77	/* Identify Controller: MDTS, then CNTLID */

struct worker {
	pthread_t	thread;
	int		index;
	bool		iopoll;
	unsigned long	done;
	unsigned long	admin;
	char		err[256];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	unsigned char *bufs = t_alloc((size_t)MAX_QD * 4096);
	unsigned char *ref = t_alloc(4096);
	__u64 blks[MAX_QD];
	bool seen[MAX_QD];
	/*
	 * On a head, another path's controller may answer: compare what
	 * comes before MDTS, which (with CNTLID, and the transport's sizes
	 * further on) differs between an nvmet subsystem's controllers.
	 */
	size_t id_len = n.head ? MDTS_OFF : 4096;
	struct io_uring ring;
	unsigned int seed = (unsigned int)w->index * 7919 + 1;
	__u64 nblocks = (SPAN < n.nlb * n.lbs ? SPAN : n.nlb * n.lbs) / 4096;
	unsigned int qd, round, i;
	int ret;

	ret = t_nvme_ring(&ring, MAX_QD, w->iopoll ? IORING_SETUP_IOPOLL : 0);
	if (ret) {
		snprintf(w->err, sizeof(w->err), "ring setup: %s",
			 t_errname(ret));
		goto out;
	}
	for (qd = 1; qd <= MAX_QD; qd *= 2) {
		for (round = 0; round < ROUNDS; round++) {
			for (i = 0; i < qd; i++) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
				struct nvme_uring_cmd c;
				void *b = bufs + (size_t)i * 4096;

				memset(b, POISON, 4096);
				if (!w->iopoll && i % 4 == 3) {
					uringcmd_nvme_identify(&c, 0,
							NVME_IDENTIFY_CNS_CTRL, b);
					t_nvme_prep(&ring, sqe, n.bfd,
						    NVME_URING_CMD_ADMIN, &c, i);
				} else {
					__u64 blk = rand_r(&seed) % nblocks;

					blks[i] = blk;
					uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, b,
						  4096, blk * (4096 / n.lbs),
						  4096 / n.lbs);
					t_nvme_prep(&ring, sqe, n.bfd,
						    NVME_URING_CMD_IO, &c, i);
				}
				seen[i] = false;
			}
			ret = io_uring_submit(&ring);
			if (ret != (int)qd) {
				snprintf(w->err, sizeof(w->err),
					 "QD %u: submitted %d", qd, ret);
				goto out_ring;
			}
			for (i = 0; i < qd; i++) {
				struct t_cqe c;

				ret = t_wait_cqe(&ring, &c, T_NVME_TIMEOUT_MS);
				if (ret) {
					snprintf(w->err, sizeof(w->err),
						 "QD %u: completion %u of %u missing: %s",
						 qd, i + 1, qd, t_errname(ret));
					goto out_ring;
				}
				if (c.user_data >= qd || seen[c.user_data]) {
					snprintf(w->err, sizeof(w->err),
						 "QD %u: unexpected or repeated completion %llu",
						 qd, (unsigned long long)c.user_data);
					goto out_ring;
				}
				seen[c.user_data] = true;
				if (c.res) {
					snprintf(w->err, sizeof(w->err),
						 "QD %u: command %llu: res %s", qd,
						 (unsigned long long)c.user_data,
						 t_nvme_res_str(c.res));
					goto out_ring;
				}
				if (!w->iopoll && c.user_data % 4 == 3) {
					unsigned char *b = bufs + c.user_data * 4096;

					if (memcmp(b, id_want, id_len)) {
						snprintf(w->err, sizeof(w->err),
							 "QD %u: identify data differs from the ioctl's at byte %ld",
							 qd, t_memcmp_off(b, id_want, id_len));
						goto out_ring;
					}
					w->admin++;
				} else {
					unsigned char *b = bufs + c.user_data * 4096;
					__u64 off = blks[c.user_data] * 4096;

					if (pread(dfd, ref, 4096, off) != 4096) {
						snprintf(w->err, sizeof(w->err),
							 "pread at %llu: %s",
							 (unsigned long long)off,
							 strerror(errno));
						goto out_ring;
					}
					if (memcmp(b, ref, 4096)) {
						snprintf(w->err, sizeof(w->err),
							 "QD %u: read of block %llu differs from pread at byte %ld",
							 qd, (unsigned long long)blks[c.user_data],
							 t_memcmp_off(b, ref, 4096));
						goto out_ring;
					}
				}
				w->done++;
			}
			if (!t_cq_empty(&ring)) {
				snprintf(w->err, sizeof(w->err),
					 "QD %u: more completions than commands", qd);
				goto out_ring;
			}
		}
	}
out_ring:
	io_uring_queue_exit(&ring);
out:
	free(bufs);
	free(ref);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker w[NR_THREADS];
	struct nvme_uring_cmd c;
	unsigned long total = 0, admin = 0, want = 0;
	char path[PATH_MAX];
	__u64 io_poll = 0;
	unsigned int qd;
	int i;

	t_nvme_open(&n, argc, argv);
	if (n.lbs > 4096)
		t_skip("logical block size %u is over 4096", n.lbs);
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, id_want);
	if (t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &c, NULL))
		t_die("ioctl identify failed");
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll", n.name);
	t_read_u64(path, &io_poll);
	dfd = open(n.bdev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dfd < 0)
		t_die("open %s O_DIRECT: %m", n.bdev);

	for (qd = 1; qd <= MAX_QD; qd *= 2)
		want += qd * ROUNDS;
	want *= NR_THREADS;
	for (i = 0; i < NR_THREADS; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].index = i;
		w[i].iopoll = i == 0;
		if (pthread_create(&w[i].thread, NULL, work, &w[i]))
			t_die("pthread_create: %m");
	}
	for (i = 0; i < NR_THREADS; i++) {
		pthread_join(w[i].thread, NULL);
		if (w[i].err[0])
			t_error("thread %d%s: %s", i,
				w[i].iopoll ? " (IOPOLL)" : "", w[i].err);
		total += w[i].done;
		admin += w[i].admin;
	}
	if (total != want)
		t_error("%lu of %lu commands completed", total, want);
	else
		t_info("%lu commands (%lu identify) completed once each, status 0; IOPOLL thread %s",
		       total, admin, io_poll ? "polled" : "on a queue without poll queues");
	close(dfd);
	t_nvme_close(&n);
	return t_result();
}
