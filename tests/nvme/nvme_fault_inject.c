// SPDX-License-Identifier: GPL-2.0
/*
 * Description: with the kernel's fault injection, a failed NVMe completion
 * reaches uring_cmd on the block node exactly as it reaches uring_cmd on
 * the char devices and the 6.1 passthrough ioctls: the NVMe debugfs
 * fault_inject (per namespace for I/O, per controller for admin) makes
 * chosen statuses, which all three paths return alike, also with 64
 * commands in flight and half of them failing; fail_make_request fails
 * the namespace's bios but none of the three paths, which submit no bio;
 * fail_io_timeout drops a completion, so that the command times out
 * (timeout_ms), is aborted and the controller reset, and it still
 * completes once, with an error, on the block node and on the char device
 * alike, after which the device works.
 *
 * Needs CONFIG_FAULT_INJECTION_DEBUG_FS, CONFIG_FAIL_MAKE_REQUEST and
 * CONFIG_FAIL_IO_TIMEOUT (the debug kernel of make check DEBUG=1); skips
 * without them. Under lockdep the timeout part needs the drivers-nvme
 * backport "nvme: use srcu for iterating namespace list": without it,
 * 6.1's reset work flushes timeout_work under namespaces_rwsem, which the
 * timeout handler takes too (nvme_dev_disable -> nvme_start_freeze), and
 * lockdep reports the cycle.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_nvme.h"

#define DEBUGFS		"/sys/kernel/debug"
#define BUSY_RETRIES	5	/* another request may take the one failure */

static struct t_nvme n;
static struct io_uring ring;
static int chr_fd = -1;

static int write_str(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val));
	close(fd);
	return ret < 0 ? -errno : 0;
}

static void set(const char *dir, const char *file, long val)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	snprintf(buf, sizeof(buf), "%ld", val);
	if (write_str(path, buf))
		t_die("write %s to %s: %s", buf, path, strerror(errno));
}

/*
 * Arm the fault attribute in debugfs @dir (fail_make_request,
 * fail_io_timeout, an NVMe fault_inject) for @times failures (-1: no
 * limit) at @probability percent; probability goes last, it is the switch.
 */
static void arm_attr(const char *dir, int probability, int times)
{
	set(dir, "verbose", 0);		/* a stack dump per failure reads as a splat */
	set(dir, "interval", 1);
	set(dir, "times", times);
	set(dir, "probability", probability);
}

/* Fail the next @times requests of @dir's queue (-1: every one) with @status. */
static void arm(const char *dir, unsigned int status, int probability, int times)
{
	set(dir, "dont_retry", 1);
	set(dir, "status", status);
	arm_attr(dir, probability, times);
}

static void disarm(const char *dir)
{
	set(dir, "probability", 0);
	set(dir, "times", 0);
}

/* One command on one path: uring_cmd on @fd, or the ioctl if @ioctl_req. */
static int issue(int fd, __u32 cmd_op, unsigned long ioctl_req,
		 const struct nvme_uring_cmd *c)
{
	struct t_cqe cqe;

	if (ioctl_req)
		return t_nvme_ioctl(fd, ioctl_req, c, NULL);
	if (t_nvme_cmd(&ring, fd, cmd_op, c, 0, &cqe))
		t_die("no completion");
	return cqe.res;
}

struct path {
	const char *name;
	int fd;
	__u32 cmd_op;
	unsigned long ioctl_req;
};

/* The three ways to send an NVMe I/O command: both uring_cmd nodes, the ioctl. */
#define IO_PATHS	3
static void io_paths(struct path *p)
{
	p[0] = (struct path){ "uring_cmd on the block node", n.bfd, NVME_URING_CMD_IO, 0 };
	p[1] = (struct path){ "uring_cmd on the char device", chr_fd, NVME_URING_CMD_IO, 0 };
	p[2] = (struct path){ "NVME_IOCTL_IO_CMD", n.bfd, 0, NVME_IOCTL_IO_CMD };
}

/*
 * Every path gets @status from the injection: arm for one failure, issue,
 * and retry if something else on the queue took it.
 */
static void same_status(const char *dir, const char *what, unsigned int status,
			const struct path *paths, unsigned int npaths,
			const struct nvme_uring_cmd *c)
{
	int want = status | NVME_SC_DNR;
	unsigned int i, try;

	for (i = 0; i < npaths; i++) {
		int res = 0;

		for (try = 0; try < BUSY_RETRIES; try++) {
			arm(dir, status, 100, 1);
			res = issue(paths[i].fd, paths[i].cmd_op, paths[i].ioctl_req, c);
			disarm(dir);
			if (res)
				break;
		}
		if (res != want)
			t_error("%s with status %#x injected, %s: %s, expected %s", what,
				status, paths[i].name, t_nvme_res_str(res),
				t_nvme_res_str(want));
	}
}

static void io_statuses(void)
{
	static const unsigned int statuses[] = {
		NVME_SC_INTERNAL,
		NVME_SC_INVALID_FIELD,
		NVME_SCT_MEDIA << 8 | NVME_SC_READ_ERROR,	/* SCT 2: media */
		NVME_SC_NS_NOT_READY,
	};
	struct path paths[IO_PATHS];
	char dir[PATH_MAX];
	void *buf = t_alloc(4096);
	struct nvme_uring_cmd c;
	unsigned int i;

	io_paths(paths);
	snprintf(dir, sizeof(dir), DEBUGFS "/%s/fault_inject", n.name);
	uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, buf, 4096, 0, 4096 / n.lbs);
	for (i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		same_status(dir, "read", statuses[i], paths, IO_PATHS, &c);
	free(buf);
}

static void admin_statuses(void)
{
	struct path paths[] = {
		{ "uring_cmd on the block node", n.bfd, NVME_URING_CMD_ADMIN, 0 },
		{ "uring_cmd on the controller", n.cfd, NVME_URING_CMD_ADMIN, 0 },
		{ "NVME_IOCTL_ADMIN_CMD", n.bfd, 0, NVME_IOCTL_ADMIN_CMD },
	};
	char dir[PATH_MAX];
	void *buf = t_alloc(4096);
	struct nvme_uring_cmd c;

	snprintf(dir, sizeof(dir), DEBUGFS "/%s/fault_inject", basename(n.ctrl));
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
	same_status(dir, "identify", NVME_SC_INTERNAL, paths, 3, &c);
	same_status(dir, "identify", NVME_SC_INVALID_FIELD, paths, 3, &c);
	free(buf);
}

/* Half of 64 commands in flight fail: every one completes, once. */
static void under_load(void)
{
	char dir[PATH_MAX];
	unsigned char *bufs = t_alloc(64 * 4096);
	struct t_nvme_tally t = { 0 };

	snprintf(dir, sizeof(dir), DEBUGFS "/%s/fault_inject", n.name);
	arm(dir, NVME_SC_INTERNAL, 50, -1);
	if (t_nvme_submit_mixed(&ring, &n, bufs, 64, false) != 64)
		t_error("submitting 64 reads failed");
	else if (!t_nvme_reap(&ring, 64, &t))
		t_error("64 reads with half failing: only %u completed", t.done);
	disarm(dir);
	if (t.done == 64 && (t.ok + t.status != 64 || !t.ok || !t.status))
		t_error("64 reads with half failing: %u ok, %u NVMe status, %u errno",
			t.ok, t.status, t.err);
	free(bufs);
}

/*
 * fail_make_request fails bios where they are submitted
 * (submit_bio_noacct). Passthrough requests are executed without that
 * step, on every path alike: with the namespace's make-it-fail set, an
 * O_DIRECT read of block 0 fails with EIO (the injection is live) while
 * the same read through uring_cmd on both nodes and the ioctl succeeds.
 */
static void make_request(void)
{
	struct path paths[IO_PATHS];
	char attr[PATH_MAX];
	void *buf = t_alloc(4096);
	struct nvme_uring_cmd c;
	unsigned int i;
	ssize_t got;
	int fd, res;

	io_paths(paths);
	fd = open(n.bdev, O_RDONLY | O_DIRECT);
	if (fd < 0)
		t_die("open %s O_DIRECT: %s", n.bdev, strerror(errno));
	snprintf(attr, sizeof(attr), "/sys/block/%s/make-it-fail", n.name);
	if (write_str(attr, "1"))
		t_die("write 1 to %s: %s", attr, strerror(errno));
	arm_attr(DEBUGFS "/fail_make_request", 100, -1);

	got = pread(fd, buf, 4096, 0);
	if (got >= 0 || errno != EIO)
		t_error("O_DIRECT read under fail_make_request: %zd (%s), expected EIO",
			got, got < 0 ? strerror(errno) : "no error");
	uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, buf, 4096, 0, 4096 / n.lbs);
	for (i = 0; i < IO_PATHS; i++) {
		res = issue(paths[i].fd, paths[i].cmd_op, paths[i].ioctl_req, &c);
		if (res)
			t_error("read under fail_make_request, %s: %s, expected success",
				paths[i].name, t_nvme_res_str(res));
	}

	disarm(DEBUGFS "/fail_make_request");
	write_str(attr, "0");
	if (pread(fd, buf, 4096, 0) != 4096)
		t_error("O_DIRECT read after fail_make_request: %s", strerror(errno));
	close(fd);
	free(buf);
}

/*
 * A completion dropped by fail_io_timeout: the command times out after
 * its timeout_ms, the driver aborts it and resets the controller, and the
 * command completes with an error. Returns its result.
 */
static int timed_out(const struct path *p)
{
	char attr[PATH_MAX];
	void *buf = t_alloc(4096);
	struct nvme_uring_cmd c;
	unsigned long long t0 = t_now_ms();
	int res = 0, try;

	snprintf(attr, sizeof(attr), "/sys/block/%s/io-timeout-fail", n.name);
	if (write_str(attr, "1"))
		t_die("write 1 to %s: %s", attr, strerror(errno));
	uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, buf, 4096, 0, 4096 / n.lbs);
	c.timeout_ms = 1000;
	for (try = 0; try < BUSY_RETRIES && !res; try++) {
		arm_attr(DEBUGFS "/fail_io_timeout", 100, 1);
		res = issue(p->fd, p->cmd_op, 0, &c);
		disarm(DEBUGFS "/fail_io_timeout");
	}
	write_str(attr, "0");
	t_info("%s: completion dropped: %s after %llu ms", p->name,
	       t_nvme_res_str(res), t_now_ms() - t0);
	/*
	 * The documented result (drivers-nvme/README.md): the timed-out
	 * command is cancelled by the reset (NVME_REQ_CANCELLED), which 6.1's
	 * passthrough completion reports as -EINTR, on both nodes alike.
	 */
	if (!res)
		t_error("%s: the dropped completion did not time out", p->name);
	else if (res != -EINTR)
		t_error("%s: a timed-out command: %s, expected -EINTR", p->name,
			t_nvme_res_str(res));
	free(buf);
	return res;
}

/* The device answers again after the reset (within 30 s). */
static void works_again(const char *after)
{
	void *buf = t_alloc(4096);
	struct nvme_uring_cmd c;
	int res = -1, i;

	uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, buf, 4096, 0, 4096 / n.lbs);
	for (i = 0; i < 60 && res; i++) {
		res = issue(n.bfd, NVME_URING_CMD_IO, 0, &c);
		if (res)
			t_sleep_ms(500);
	}
	if (res)
		t_error("after %s: reads still fail: %s", after, t_nvme_res_str(res));
	free(buf);
}

int main(int argc, char **argv)
{
	struct path bdev = { "uring_cmd on the block node", -1, NVME_URING_CMD_IO, 0 };
	struct path chr = { "uring_cmd on the char device", -1, NVME_URING_CMD_IO, 0 };
	char path[PATH_MAX];
	int res_b, res_c;

	t_nvme_open(&n, argc, argv);
	if (n.head)
		t_skip("%s is a multipath head: fault_inject is per path", n.bdev);
	snprintf(path, sizeof(path), DEBUGFS "/%s/fault_inject/status", n.name);
	if (access(path, W_OK))
		t_skip("no %s: needs CONFIG_FAULT_INJECTION_DEBUG_FS (make check DEBUG=1)",
		       path);
	if (access(DEBUGFS "/fail_io_timeout/times", W_OK))
		t_skip("no fail_io_timeout: needs CONFIG_FAIL_IO_TIMEOUT");
	if (access(DEBUGFS "/fail_make_request/times", W_OK))
		t_skip("no fail_make_request: needs CONFIG_FAIL_MAKE_REQUEST");
	chr_fd = open(n.chr, O_RDWR);
	if (chr_fd < 0)
		t_skip("%s: %s", n.chr, strerror(errno));
	if (t_nvme_ring(&ring, 64, 0))
		t_die("io_uring setup failed");

	io_statuses();
	admin_statuses();
	under_load();
	make_request();

	bdev.fd = n.bfd;
	chr.fd = chr_fd;
	res_b = timed_out(&bdev);
	works_again("a timeout on the block node");
	res_c = timed_out(&chr);
	works_again("a timeout on the char device");
	if (res_b != res_c)
		t_error("a timed-out command: block node %s, char device %s",
			t_nvme_res_str(res_b), t_nvme_res_str(res_c));
	io_uring_queue_exit(&ring);
	close(chr_fd);
	t_nvme_close(&n);
	return t_result();
}
