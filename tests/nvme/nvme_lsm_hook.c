// SPDX-License-Identifier: GPL-2.0
/* Description: the LSM hook security_uring_cmd() runs for every uring_cmd on the new paths: block node, ng, controller, block queries, sockets */
/*
 * Usage: nvme_lsm_hook [BLOCKDEV [CHARDEV [CTRLDEV]]]  (see t_nvme_open())
 *
 * LSMs see a uring_cmd only through security_uring_cmd(), which io_uring
 * calls in io_uring_cmd() before any ->uring_cmd. The guest loads no LSM
 * policy, so this counts the hook's calls instead: a kprobe on
 * security_uring_cmd (tracefs kprobe_events, hit count from kprobe_profile)
 * while it sends, 16 of each, Identify and Read on the block node (and on a
 * multipath head, when the block node is one), Read on /dev/ngXnY, Identify
 * on /dev/nvmeX, BLKSSZGET through BLOCK_URING_CMD_IOCTL on the block node,
 * SIOCINQ on a TCP socket. Each group must add at least 16 hits, and
 * every command must complete as it does without the probe. Skips when
 * the kernel has no kprobe events.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/fs.h>

#include "t_nvme.h"

#define PROBE	"uringcmd_lsm_hook"
#define NR	16

static char tracefs[64];

static int write_str(const char *file, const char *s, bool append)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static bool find_tracefs(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/kprobe_events", dirs[i]);
		if (access(path, W_OK) && i == 0)
			mount("tracefs", dirs[0], "tracefs", 0, NULL);
		if (!access(path, W_OK)) {
			snprintf(tracefs, sizeof(tracefs), "%s", dirs[i]);
			return true;
		}
	}
	return false;
}

/* The probe's hit count from kprobe_profile, or -1. */
static long long hits(void)
{
	char path[128], line[256], name[128];
	long long n, missed;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%127s %lld %lld", name, &n, &missed) == 3 &&
		    !strcmp(name, PROBE)) {
			fclose(f);
			return n;
		}
	}
	fclose(f);
	return -1;
}

static void probe_off(void)
{
	write_str("events/kprobes/" PROBE "/enable", "0", false);
	write_str("kprobe_events", "-:" PROBE "\n", true);
}

/* Run @body NR times; the hook must have run at least NR times. */
#define GROUP(what, body) do {						\
	long long before = hits(), after;				\
	unsigned int i;							\
									\
	for (i = 0; i < NR; i++) {					\
		body;							\
	}								\
	after = hits();							\
	if (after - before < NR)					\
		t_error("%s: security_uring_cmd() ran %lld times for %d commands", \
			what, after - before, NR);			\
	else								\
		t_info("%s: security_uring_cmd() ran %lld times for %d commands", \
		       what, after - before, NR);			\
} while (0)

static void nvme_ok(struct io_uring *ring, int fd, __u32 op,
		    const struct nvme_uring_cmd *c, const char *what)
{
	struct t_cqe cqe;

	if (t_nvme_cmd(ring, fd, op, c, 0, &cqe))
		return;
	if (cqe.res)
		t_error("%s: %s", what, t_nvme_res_str(cqe.res));
}

int main(int argc, char **argv)
{
	struct nvme_uring_cmd id, rd;
	struct io_uring ring, plain;
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	struct t_nvme n;
	void *buf;
	int cfd, ret, res, l, s, c;

	t_nvme_open(&n, argc, argv);
	if (!find_tracefs())
		t_skip("no writable kprobe_events (CONFIG_KPROBE_EVENTS, tracefs)");
	probe_off();	/* a probe left over by an earlier run */
	ret = write_str("kprobe_events", "p:" PROBE " security_uring_cmd\n", true);
	if (ret)
		t_skip("cannot add a kprobe on security_uring_cmd: %s", strerror(-ret));
	ret = write_str("events/kprobes/" PROBE "/enable", "1", false);
	if (ret) {
		probe_off();
		t_die("enabling the kprobe: %s", strerror(-ret));
	}

	buf = t_alloc(4096);
	ret = t_nvme_ring(&ring, 4, 0);
	if (ret) {
		probe_off();
		t_die("io_uring_queue_init(SQE128|CQE32): %s", strerror(-ret));
	}
	uringcmd_nvme_identify(&id, 0, NVME_IDENTIFY_CNS_CTRL, buf);
	uringcmd_nvme_rw(&rd, nvme_cmd_read, n.nsid, buf, n.lbs, 0, 1);

	GROUP(n.head ? "Identify on the head's block node" :
		       "Identify on the block node",
	      nvme_ok(&ring, n.bfd, NVME_URING_CMD_ADMIN, &id, "Identify"));
	GROUP(n.head ? "Read on the head's block node" : "Read on the block node",
	      nvme_ok(&ring, n.bfd, NVME_URING_CMD_IO, &rd, "Read"));
	cfd = open(n.chr, O_RDONLY);
	if (cfd >= 0) {
		GROUP("Read on the ng char device",
		      nvme_ok(&ring, cfd, NVME_URING_CMD_IO, &rd, "Read on ng"));
		close(cfd);
	}
	if (n.cfd >= 0)
		GROUP("Identify on the controller char device",
		      nvme_ok(&ring, n.cfd, NVME_URING_CMD_ADMIN, &id,
			      "Identify on the controller"));

	ret = t_ring_init(&plain, 4, 0);
	if (ret) {
		probe_off();
		t_die("io_uring_queue_init: %s", strerror(-ret));
	}
	GROUP("BLKSSZGET through BLOCK_URING_CMD_IOCTL",
	      if (!t_block_query(&plain, n.bfd, BLKSSZGET, 0, 0, 0, &res) &&
		  res != (int)n.lbs)
		      t_error("BLKSSZGET: res %d, expected %u", res, n.lbs));

	l = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l >= 0 && !bind(l, (struct sockaddr *)&a, sizeof(a)) &&
	    !listen(l, 1) && !getsockname(l, (struct sockaddr *)&a, &al) &&
	    (c = socket(AF_INET, SOCK_STREAM, 0)) >= 0 &&
	    !connect(c, (struct sockaddr *)&a, sizeof(a)) &&
	    (s = accept(l, NULL, NULL)) >= 0) {
		GROUP("SIOCINQ on a TCP socket",
		      if (!t_sock_cmd(&plain, s, SOCKET_URING_OP_SIOCINQ, 0,
				      &res) && res)
			      t_error("SIOCINQ: res %d, expected 0", res));
		close(s);
		close(c);
	} else {
		t_error("a TCP connection on loopback: %m");
	}
	if (l >= 0)
		close(l);

	io_uring_queue_exit(&plain);
	io_uring_queue_exit(&ring);
	probe_off();
	free(buf);
	t_nvme_close(&n);
	return t_result();
}
