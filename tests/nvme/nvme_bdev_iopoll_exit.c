// SPDX-License-Identifier: GPL-2.0
/* Description: exec, exit, SIGKILL and ring close with polled passthrough in flight end, and leave no kernel thread spinning */
/*
 * Usage: nvme_bdev_iopoll_exit [BLOCKDEV [CHARDEV [CTRLDEV]]]  (t_nvme_open())
 *
 * A child sets up an IORING_SETUP_IOPOLL ring (SQE128 | CQE32), submits 16
 * polled 64 KiB NVME_URING_CMD_IO reads on the block node or on its
 * /dev/ngXnY, and, with some of them still in flight:
 *   - exec: calls execve("/bin/true"); the kernel cancels the ring's
 *     requests in the exec'ing task (io_uring_task_cancel());
 *   - exit: calls _exit(); the ring goes away in the exit work;
 *   - kill: is killed with SIGKILL;
 *   - close: closes the ring (io_uring_queue_exit()) and lives on, so the
 *     ring's exit work reaps its commands while its task is still there;
 *   - close+stop (DEFER_TASKRUN rings): forks a holder of the ring's fd,
 *     closes its own and stops itself (SIGSTOP); the parent then kills the
 *     holder, whose exit drops the ring's last file reference. The ring's task can run no task_work until
 *     SIGCONT, and its commands are reaped (polled) only by the exit work,
 *     after the stop: it must complete them without the task (the
 *     fallback work, upstream af0a2ffef0e6). On a ring without DEFER_TASKRUN completions
 *     are the stopped task's own task_work, and the exit work waits for
 *     it, as upstream's does ("a synthetic situation", io_ring_exit_work()):
 *     not run there.
 * Each on a ring with IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
 * and on one without. The child must end (exec: /bin/true's status 0)
 * within the completion timeout, and afterwards no kernel thread may keep a
 * CPU busy: a kworker still polling the dead ring's commands.
 *
 * Since the 6.1.y backport of 9ce6c9875f3e ("nvme: always punt polled
 * uring_cmd end_io work to task_work") a polled completion is only queued
 * as task_work; on a DEFER_TASKRUN ring the IOPOLL reaping of ring exit
 * and of exec did not run that task_work and looped forever: an exec'ing
 * child that SIGKILL does not end, and a kworker at 100 % for a closed ring
 * (upstream b62e0efd8a85 and af0a2ffef0e6, in drivers-nvme/).
 *
 * Afterwards a polled read of the same blocks still returns pread()'s data.
 *
 * TEST_ENDINGS=exit,kill,close,stop,exec (any of them, comma-separated) runs only
 * those endings: a livelocked exec ends the test, since the child it leaves
 * keeps a CPU.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "t_nvme.h"

#define NR	16
#define XFER	(64 * 1024)

/* exec last: a livelocked one leaves a task that SIGKILL cannot end */
enum ending { END_EXIT, END_KILL, END_CLOSE, END_CLOSE_STOP, END_EXEC, NR_ENDINGS };
static const char *const ending_names[NR_ENDINGS] = {
	"exit", "SIGKILL", "ring close", "ring close, then stopped", "exec",
};
static const char *const ending_keys[NR_ENDINGS] = {
	"exit", "kill", "close", "stop", "exec",
};

static struct t_nvme n;
static __u32 xfer;
static bool stop;	/* a child could not be ended: the rest would hang too */

/* 16 polled reads of @xfer bytes at block (i * xfer) on @fd; in flight. */
static unsigned int submit_reads(struct io_uring *ring, int fd,
				 unsigned char *bufs)
{
	unsigned int i, tries;

	for (tries = 0; tries < T_OVERLAP_TRIES; tries++) {
		unsigned int ready;

		for (i = 0; i < NR; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
			struct nvme_uring_cmd c;

			if (!sqe)
				_exit(10);
			uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid,
					 bufs + (size_t)i * xfer, xfer,
					 (__u64)i * (xfer / n.lbs), xfer / n.lbs);
			uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_IO, &c);
			sqe->user_data = i;
		}
		if (io_uring_submit(ring) != NR)
			_exit(11);
		ready = io_uring_cq_ready(ring);
		if (ready < NR)
			return NR - ready;
		/* all done already: reap them and try again */
		io_uring_cq_advance(ring, ready);
	}
	return 0;
}

/*
 * The child: its own ring (SINGLE_ISSUER needs the submitter to create
 * it), the reads, then the ending. Reports how many reads were in flight
 * through @wfd; for END_CLOSE a second byte once the ring is closed.
 */
static void __attribute__((noreturn))
child(const char *node, unsigned int setup, enum ending how, int wfd)
{
	unsigned char *bufs = t_alloc((size_t)NR * xfer);
	struct io_uring ring;
	unsigned char out;
	int fd, ret;

	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		_exit(12);
	ret = t_nvme_ring(&ring, 2 * NR, IORING_SETUP_IOPOLL | setup);
	if (ret)
		_exit(13);
	out = (unsigned char)submit_reads(&ring, fd, bufs);
	if (write(wfd, &out, 1) != 1)
		_exit(14);
	switch (how) {
	case END_EXEC:
		execl("/bin/true", "true", (char *)NULL);
		_exit(15);
	case END_EXIT:
		_exit(0);
	case END_KILL:
		for (;;)
			pause();
	case END_CLOSE:
		io_uring_queue_exit(&ring);
		if (write(wfd, "c", 1) != 1)
			_exit(16);
		for (;;)
			pause();
	case END_CLOSE_STOP: {
		/* a holder of the ring's fd, which the parent kills later */
		pid_t holder = fork();

		if (holder < 0)
			_exit(18);
		if (!holder)
			for (;;)
				pause();
		if (write(wfd, &holder, sizeof(holder)) != sizeof(holder))
			_exit(19);
		io_uring_queue_exit(&ring);
		raise(SIGSTOP);
		for (;;)
			pause();
	}
	default:
		_exit(17);
	}
}

/*
 * CPU time (utime + stime, clock ticks) of the kernel threads that run a
 * ring's teardown: the workqueue workers of the exit work and the
 * fallback work. Not kmemleak's scanner, kcompactd and the like, whose
 * passes take seconds on the debug kernel.
 */
struct kthread_time {
	int			pid;
	unsigned long long	ticks;
	char			comm[32];
};

static unsigned int kthread_times(struct kthread_time *t, unsigned int max)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned int nr = 0;

	if (!d)
		t_die("opendir /proc: %m");
	while ((e = readdir(d)) && nr < max) {
		char path[64], buf[1024], *p, comm[32];
		unsigned long long ut, st;
		unsigned long flags;
		int pid = atoi(e->d_name), ppid;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (t_read_file(path, buf, sizeof(buf)))
			continue;
		/* comm may hold blanks: the fields go on after its ')' */
		p = strrchr(buf, ')');
		if (!p || sscanf(buf, "%*d (%31[^)]", comm) != 1)
			continue;
		/* 3 state, 4 ppid, ..., 9 flags, ..., 14 utime, 15 stime */
		if (sscanf(p + 2, "%*c %d %*d %*d %*d %*d %lu %*u %*u %*u %*u %llu %llu",
			   &ppid, &flags, &ut, &st) != 4)
			continue;
		if (!(flags & 0x00200000))	/* PF_KTHREAD */
			continue;
		if (strncmp(comm, "kworker/", 8))
			continue;
		t[nr].pid = pid;
		t[nr].ticks = ut + st;
		snprintf(t[nr].comm, sizeof(t[nr].comm), "%s", comm);
		nr++;
	}
	closedir(d);
	return nr;
}

/*
 * No kernel thread may be busy for more than half of each of three
 * 500 ms windows in a row: a transient job (an RCU or kmemleak pass) is
 * over by then, a livelocked exit work is not.
 */
#define KT_MAX	1024
static void no_spinning_kthread(const char *what)
{
	static struct kthread_time a[KT_MAX], b[KT_MAX];
	long hz = sysconf(_SC_CLK_TCK);
	unsigned int na, nb, i, j, w;
	int busy_pid = 0, last_pid = -1;
	char busy_comm[32] = "";

	na = kthread_times(a, KT_MAX);
	for (w = 0; w < 3; w++) {
		t_sleep_ms(500);
		nb = kthread_times(b, KT_MAX);
		busy_pid = 0;
		for (i = 0; i < nb && !busy_pid; i++)
			for (j = 0; j < na; j++)
				if (a[j].pid == b[i].pid &&
				    (b[i].ticks - a[j].ticks) * 1000 > (unsigned long long)hz * 250 &&
				    (last_pid < 0 || last_pid == b[i].pid)) {
					busy_pid = b[i].pid;
					snprintf(busy_comm, sizeof(busy_comm), "%s", b[i].comm);
					break;
				}
		if (!busy_pid)
			return;
		last_pid = busy_pid;
		memcpy(a, b, sizeof(b[0]) * nb);
		na = nb;
	}
	t_error("%s: kernel thread %d (%s) kept a CPU busy for 1.5 s after it (a ring's exit work polling forever?)",
		what, busy_pid, busy_comm);
	/* it will go on: every later case would see it too */
	stop = true;
}

/* Wait until @pid has stopped itself (SIGSTOP); false if it did not. */
static bool stopped(pid_t pid, const char *what)
{
	unsigned long long end = t_now_ms() + T_TIMEOUT_MS;
	int status;

	while (t_now_ms() < end) {
		pid_t r = waitpid(pid, &status, WNOHANG | WUNTRACED);

		if (r == pid && WIFSTOPPED(status))
			return true;
		if (r == pid) {
			t_error("%s: the child ended (status %#x) instead of stopping",
				what, status);
			return false;
		}
		t_sleep_ms(5);
	}
	t_error("%s: the child did not stop within %u ms", what, T_TIMEOUT_MS);
	return false;
}

static void one_case(const char *node, const char *node_name,
		     unsigned int setup, enum ending how)
{
	char what[160];
	int pfd[2], status;
	pid_t holder = -1;
	unsigned char c = 0, closed = 0;
	pid_t pid;

	snprintf(what, sizeof(what), "%s, %s ring, %s", node_name,
		 setup ? "DEFER_TASKRUN" : "IOPOLL", ending_names[how]);
	if (pipe2(pfd, O_CLOEXEC))
		t_die("pipe: %m");
	pid = fork();
	if (pid < 0)
		t_die("fork: %m");
	if (!pid) {
		close(pfd[0]);
		child(node, setup, how, pfd[1]);
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) != 1) {
		status = t_wait_pid(pid, T_TIMEOUT_MS);
		t_error("%s: the child did not submit (status %#x)", what, status);
		close(pfd[0]);
		return;
	}
	if (!c)
		t_error("%s: all %d reads had completed at submission, %d times: nothing was in flight",
			what, NR, T_OVERLAP_TRIES);
	if (how == END_KILL)
		kill(pid, SIGKILL);
	if (how == END_CLOSE && read(pfd[0], &closed, 1) != 1)
		t_error("%s: the child did not return from closing the ring", what);
	if (how == END_CLOSE_STOP &&
	    read(pfd[0], &holder, sizeof(holder)) != sizeof(holder)) {
		t_error("%s: the child did not fork its holder", what);
		holder = -1;
	}
	close(pfd[0]);
	if (how == END_CLOSE_STOP) {
		if (holder <= 0 || !stopped(pid, what)) {
			if (holder > 0)
				kill(holder, SIGKILL);
			kill(pid, SIGKILL);
			t_wait_pid(pid, T_TIMEOUT_MS);
			return;
		}
		/* the last reference goes: the ring dies with its task stopped */
		kill(holder, SIGKILL);
	}
	if (how == END_CLOSE || how == END_CLOSE_STOP) {
		/* the exit work runs while the child lives on (or is stopped) */
		no_spinning_kthread(what);
		kill(pid, SIGKILL);
	}
	status = t_wait_pid(pid, T_TIMEOUT_MS);
	if (status == -1) {
		t_error("%s with %u of %d polled reads in flight: the child was still there after %u ms",
			what, c, NR, T_TIMEOUT_MS);
		kill(pid, SIGKILL);
		status = t_wait_pid(pid, 5000);
		if (status == -1) {
			t_error("%s: SIGKILL did not end the child within 5 s either (livelocked in the kernel)",
				what);
			stop = true;
			return;
		}
	} else if (how == END_KILL || how == END_CLOSE || how == END_CLOSE_STOP ?
		   !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) :
		   !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		t_error("%s: child status %#x", what, status);
	}
	if (how != END_CLOSE && how != END_CLOSE_STOP && !stop)
		no_spinning_kthread(what);
	if (stop)
		return;
	t_info("%s with %u of %d polled reads in flight: ended", what, c, NR);
}

/* A polled read after it all returns what pread() reads. */
static void still_reads(const char *node, const char *node_name)
{
	unsigned char *got = t_alloc(xfer), *want = t_alloc(xfer);
	struct nvme_uring_cmd c;
	struct io_uring ring;
	struct t_cqe cqe;
	int fd, ret;

	fd = open(node, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s: %m", node);
	if (pread(n.bfd, want, xfer, 0) != (ssize_t)xfer)
		t_die("pread %s: %m", n.bdev);
	ret = t_nvme_ring(&ring, 4, IORING_SETUP_IOPOLL);
	if (ret)
		t_die("IOPOLL ring: %s", t_errname(ret));
	memset(got, 0xa5, xfer);
	uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, got, xfer, 0, xfer / n.lbs);
	if (!t_nvme_cmd(&ring, fd, NVME_URING_CMD_IO, &c, 0, &cqe)) {
		if (cqe.res)
			t_error("%s: polled read afterwards: %s", node_name,
				t_nvme_res_str(cqe.res));
		else
			t_compare("polled read afterwards", got, want, xfer);
	}
	t_cq_quiet(&ring, "polled read afterwards");
	io_uring_queue_exit(&ring);
	close(fd);
	free(got);
	free(want);
}

/* Is @how selected by TEST_ENDINGS (all when unset)? */
static bool selected(enum ending how)
{
	const char *list = getenv("TEST_ENDINGS"), *p;
	size_t len = strlen(ending_keys[how]);

	if (!list || !*list)
		return true;
	for (p = list; (p = strstr(p, ending_keys[how])); p += len)
		if ((p == list || p[-1] == ',') && (!p[len] || p[len] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const unsigned int setups[] = {
		0, IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	};
	char path[PATH_MAX];
	const char *nodes[2], *names[2] = { "block node", "char device" };
	__u64 io_poll = 0;
	unsigned int i, s, h;

	t_nvme_open(&n, argc, argv);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll", n.name);
	if (t_read_u64(path, &io_poll) || !io_poll)
		t_skip("%s: queue/io_poll is 0: no poll queues (nvme.poll_queues=1), nothing is polled",
		       n.name);
	xfer = XFER < n.max_bytes ? XFER : n.max_bytes;
	xfer -= xfer % n.lbs;
	if (!xfer || (__u64)NR * (xfer / n.lbs) > n.nlb)
		t_skip("%s: too small for %d reads of %u bytes", n.name, NR, xfer);
	nodes[0] = n.bdev;
	nodes[1] = n.chr;
	for (i = 0; i < 2 && !stop; i++) {
		if (access(nodes[i], R_OK)) {
			t_error("%s: %m", nodes[i]);
			continue;
		}
		for (s = 0; s < 2 && !stop; s++)
			for (h = 0; h < NR_ENDINGS && !stop; h++)
				if (selected(h) && (setups[s] || h != END_CLOSE_STOP))
					one_case(nodes[i], names[i], setups[s], h);
		if (!stop)
			still_reads(nodes[i], names[i]);
	}
	t_nvme_close(&n);
	return t_result();
}
