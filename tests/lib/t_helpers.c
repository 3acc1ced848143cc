// SPDX-License-Identifier: GPL-2.0
/* Shared helpers of the uringcmd in-guest tests; see t_helpers.h. */
#include "t_helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <net/if.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>
#include <linux/blkzoned.h>
#include <linux/magic.h>

extern char **environ;

/* ---- reporting --------------------------------------------------------- */

static unsigned int nr_errors;
static char first_error[512];
/*
 * Submissions and completion waits that failed (t_submit(), t_wait_cqe()).
 * Their callers report them with a message of their own, so they are not
 * printed here; a test that reported nothing else still fails on them.
 * Counted atomically: the load tests wait for completions in threads.
 */
static unsigned int nr_lost;
static char first_lost[256];

static void vreport(FILE *f, const char *tag, const char *fmt, va_list ap)
{
	fprintf(f, "%s: %s", program_invocation_short_name, tag);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	fflush(f);
}

void t_error(const char *fmt, ...)
{
	va_list ap;

	if (!nr_errors++) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
	va_start(ap, fmt);
	vreport(stderr, "error: ", fmt, ap);
	va_end(ap);
}

void t_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(stdout, "", fmt, ap);
	va_end(ap);
}

void t_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	va_start(ap, fmt);
	vreport(stderr, "FAIL: ", fmt, ap);
	va_end(ap);
	exit(T_EXIT_FAIL);
}

static void lost(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void lost(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&nr_lost, 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(first_lost, sizeof(first_lost), fmt, ap);
	va_end(ap);
}

/* The last line of a failed test: why it failed. False if nothing did. */
static bool report_failure(void)
{
	unsigned int lost_nr = __atomic_load_n(&nr_lost, __ATOMIC_RELAXED);

	fflush(stdout);
	if (nr_errors)
		fprintf(stderr, "%s: FAIL: %u check(s) failed, first: %s\n",
			program_invocation_short_name, nr_errors, first_error);
	else if (lost_nr)
		fprintf(stderr, "%s: FAIL: %u submission(s) or completion wait(s) failed, no check reported them; first: %s\n",
			program_invocation_short_name, lost_nr, first_lost);
	else
		return false;
	return true;
}

void t_skip(const char *fmt, ...)
{
	bool failed = nr_errors || __atomic_load_n(&nr_lost, __ATOMIC_RELAXED);
	va_list ap;

	/* a skip does not undo the failures seen before it */
	fflush(stderr);
	va_start(ap, fmt);
	vreport(stdout, failed ? "would skip: " : "SKIP: ", fmt, ap);
	va_end(ap);
	if (failed) {
		report_failure();
		exit(T_EXIT_FAIL);
	}
	exit(T_EXIT_SKIP);
}

unsigned int t_nr_errors(void)
{
	return nr_errors;
}

int t_result(void)
{
	return report_failure() ? T_EXIT_FAIL : T_EXIT_PASS;
}

const char *t_env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

unsigned int t_timeout_ms(void)
{
	const char *v = getenv("TEST_CQE_TIMEOUT_MS");
	unsigned long ms = v ? strtoul(v, NULL, 10) : 0;

	return ms ? (unsigned int)ms : 10000;
}

const char *t_errname(int err)
{
	const char *s;

	if (err < 0)
		err = -err;
	s = strerrorname_np(err);
	return s ? s : "E?";
}

const char *t_res_str(int res)
{
	static char bufs[8][48];
	static unsigned int next;
	char *b = bufs[next++ % 8];

	if (res < 0)
		snprintf(b, sizeof(bufs[0]), "%d (%s)", res, t_errname(res));
	else
		snprintf(b, sizeof(bufs[0]), "%d", res);
	return b;
}

/* ---- rings and completions --------------------------------------------- */

int t_ring_init(struct io_uring *ring, unsigned int entries, unsigned int flags)
{
	return io_uring_queue_init(entries, ring, flags);
}

struct io_uring_sqe *t_get_sqe(struct io_uring *ring)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	/*
	 * SQPOLL: 6.1 posts a batch's inline completions before it moves the
	 * SQ head (io_submit_sqes(): io_submit_state_end(), then
	 * io_commit_sqring()), so with every CQE of a full ring reaped the
	 * SQ ring can still look full for a moment: wait for its head.
	 */
	if (!sqe && (ring->flags & IORING_SETUP_SQPOLL) &&
	    io_uring_sqring_wait(ring) >= 0)
		sqe = io_uring_get_sqe(ring);
	if (!sqe)
		t_die("SQ ring full");
	return sqe;
}

void t_prep_uring_cmd(struct io_uring *ring, struct io_uring_sqe *sqe, int fd,
		      __u32 cmd_op, const void *payload, size_t len)
{
	size_t cmd_size = (ring->flags & IORING_SETUP_SQE128) ? 80 : 16;

	if (len > cmd_size)
		t_die("uring_cmd payload of %zu bytes exceeds the %zu-byte SQE area",
		      len, cmd_size);
	/* zeroes off/__pad1, addr, len, uring_cmd_flags, buf_index, ... */
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = cmd_op;
	sqe->__pad1 = 0;
	memset(sqe->cmd, 0, cmd_size);
	if (len)
		memcpy(sqe->cmd, payload, len);
}

void t_prep_block_query(struct io_uring *ring, struct io_uring_sqe *sqe,
			int fd, __u32 ioctl_cmd, __u32 flags, __u64 addr)
{
	struct block_uring_cmd *bc = (struct block_uring_cmd *)sqe->cmd;

	if (ring->flags & IORING_SETUP_SQE128)
		uringcmd_sqe128_clear(sqe);
	uringcmd_prep_block_query(sqe, fd, ioctl_cmd,
				  (__u64 *)(uintptr_t)addr);
	bc->flags = flags;
}

int t_wait_cqe(struct io_uring *ring, struct t_cqe *out, unsigned int timeout_ms)
{
	unsigned long long end = t_now_ms() + timeout_ms, now;
	struct io_uring_cqe *cqe = NULL;
	int ret;

	/*
	 * On an IORING_SETUP_IOPOLL ring the kernel ignores the timeout and
	 * returns whenever it should reschedule, which liburing reports as
	 * -ETIME: only the deadline here says when the wait is over.
	 */
	for (;;) {
		struct __kernel_timespec ts;
		unsigned long long left;

		now = t_now_ms();
		left = now < end ? end - now : 0;
		ts.tv_sec = left / 1000;
		ts.tv_nsec = (left % 1000) * 1000000LL;
		ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
		if (ret == -EINTR || (ret == -ETIME && t_now_ms() < end))
			continue;
		break;
	}
	if (ret) {
		lost("no completion within %u ms: %s", timeout_ms,
		     t_res_str(ret));
		return ret;
	}
	memset(out, 0, sizeof(*out));
	out->user_data = cqe->user_data;
	out->res = cqe->res;
	out->flags = cqe->flags;
	if (ring->flags & IORING_SETUP_CQE32) {
		out->big[0] = cqe->big_cqe[0];
		out->big[1] = cqe->big_cqe[1];
	}
	io_uring_cqe_seen(ring, cqe);
	return 0;
}

int t_submit(struct io_uring *ring, unsigned int nr)
{
	int ret = io_uring_submit(ring);

	if (ret < 0) {
		lost("io_uring_submit of %u SQE(s): %s", nr, t_res_str(ret));
		return ret;
	}
	if ((unsigned int)ret != nr) {
		t_error("io_uring_submit took %d SQEs, expected %u", ret, nr);
		return -EIO;
	}
	return 0;
}

int t_submit_wait_one(struct io_uring *ring, struct t_cqe *out,
		      unsigned int timeout_ms)
{
	int ret = t_submit(ring, 1);

	if (ret)
		return ret;
	return t_wait_cqe(ring, out, timeout_ms);
}

bool t_cq_empty(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;

	return io_uring_peek_cqe(ring, &cqe) != 0;
}

bool t_cq_quiet(struct io_uring *ring, const char *what)
{
	struct io_uring_cqe *cqe;
	int ret;

	t_sleep_ms(50);
	ret = io_uring_enter(ring->ring_fd, 0, 0, IORING_ENTER_GETEVENTS, NULL);
	if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
		t_error("%s: io_uring_enter(GETEVENTS): %s", what,
			t_errname(ret));
	if (io_uring_peek_cqe(ring, &cqe))
		return true;
	t_error("%s: a completion left over (user_data %#llx, res %s)", what,
		(unsigned long long)cqe->user_data, t_res_str(cqe->res));
	return false;
}

/*
 * Submit the one SQE prepared, with a user_data of its own, and take its
 * completion: the CQE must carry that user_data, and nothing may follow
 * it, so that a duplicated completion of an earlier command cannot pass
 * for this one's answer.
 */
static int finish_one(struct io_uring *ring, struct io_uring_sqe *sqe,
		      const char *what, int *res)
{
	static __u64 next_user_data = 0x75c0000000000000ULL;
	__u64 want = ++next_user_data;
	struct t_cqe c;
	int ret;

	sqe->user_data = want;
	ret = t_submit_wait_one(ring, &c, T_TIMEOUT_MS);
	if (ret) {
		t_error("%s: no completion: %s", what, t_res_str(ret));
		return ret;
	}
	if (c.user_data != want) {
		t_error("%s: completion with user_data %#llx, submitted %#llx",
			what, (unsigned long long)c.user_data,
			(unsigned long long)want);
		return -EPROTO;
	}
	if (!t_cq_empty(ring)) {
		t_error("%s: a second completion followed", what);
		return -EPROTO;
	}
	*res = c.res;
	return 0;
}

int t_block_query(struct io_uring *ring, int fd, __u32 ioctl_cmd, __u32 flags,
		  __u64 addr, __u8 sqe_flags, int *res)
{
	struct io_uring_sqe *sqe = t_get_sqe(ring);

	t_prep_block_query(ring, sqe, fd, ioctl_cmd, flags, addr);
	sqe->flags = sqe_flags;
	return finish_one(ring, sqe, "block query", res);
}

int t_sock_cmd(struct io_uring *ring, int fd, __u32 op, __u8 sqe_flags,
	       int *res)
{
	struct io_uring_sqe *sqe = t_get_sqe(ring);

	if (ring->flags & IORING_SETUP_SQE128)
		uringcmd_sqe128_clear(sqe);
	io_uring_prep_cmd_sock(sqe, (int)op, fd, 0, 0, NULL, 0);
	sqe->flags = sqe_flags;
	return finish_one(ring, sqe, "socket command", res);
}

/* ---- block queries ----------------------------------------------------- */

int t_query_ioctl(int fd, const struct uringcmd_block_query *q, __u64 *val)
{
	union {
		__u16	u16;
		__u32	u32;
		__u64	u64;
		__u8	raw[16];
	} u;

	memset(&u, 0xa5, sizeof(u));
	if (ioctl(fd, q->cmd, &u) < 0)
		return -errno;
	switch (q->ioctl_size) {
	case 2:
		*val = q->ioctl_signed ? (__u64)(__s64)(__s16)u.u16 : u.u16;
		break;
	case 4:
		*val = q->ioctl_signed ? (__u64)(__s64)(__s32)u.u32 : u.u32;
		break;
	case 8:
		*val = u.u64;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

bool t_check_query_answer(const char *what, const struct uringcmd_block_query *q,
			  __u64 want, int res, const __u64 *slot)
{
	int want_res = q->needs_addr ? 0 : (int)want;
	bool ok = true;

	if (res != want_res) {
		t_error("%s %s: cqe->res %s, expected %d (ioctl answer %llu)",
			what, q->name, t_res_str(res), want_res,
			(unsigned long long)want);
		ok = false;
	}
	if (slot && *slot != want) {
		t_error("%s %s: *addr = %#llx, expected %#llx (ioctl answer)",
			what, q->name, (unsigned long long)*slot,
			(unsigned long long)want);
		ok = false;
	}
	return ok;
}

#define T_BATCH_TAG	0xb10c000000000000ULL
#define T_POISON	0xa5a5a5a5a5a5a5a5ULL

unsigned int t_query_batch(struct io_uring *ring, int fd, unsigned int nr,
			   __u8 sqe_flags, const char *what)
{
	unsigned int errs = t_nr_errors(), i, got = 0;
	__u64 *want, *slot;
	bool *seen, *use_addr;
	struct t_cqe c;
	int ret;

	want = calloc(nr, sizeof(*want));
	slot = calloc(nr, sizeof(*slot));
	seen = calloc(nr, sizeof(*seen));
	use_addr = calloc(nr, sizeof(*use_addr));
	if (!want || !slot || !seen || !use_addr)
		t_die("out of memory");

	for (i = 0; i < nr; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i % URINGCMD_NR_BLOCK_QUERIES];
		struct io_uring_sqe *sqe;

		ret = t_query_ioctl(fd, q, &want[i]);
		if (ret)
			t_die("%s: ioctl %s: %s", what, q->name, t_errname(ret));
		use_addr[i] = q->needs_addr || ((i / URINGCMD_NR_BLOCK_QUERIES) & 1);
		slot[i] = T_POISON;

		sqe = t_get_sqe(ring);
		t_prep_block_query(ring, sqe, fd, q->cmd, 0,
				   use_addr[i] ? (__u64)(uintptr_t)&slot[i] : 0);
		sqe->flags = sqe_flags;
		sqe->user_data = T_BATCH_TAG | i;
	}

	ret = io_uring_submit(ring);
	if (ret != (int)nr) {
		t_error("%s: io_uring_submit returned %s for %u SQEs", what,
			t_res_str(ret), nr);
		if (ret <= 0)
			goto out;
		nr = ret;
	}

	for (got = 0; got < nr; got++) {
		const struct uringcmd_block_query *q;

		ret = t_wait_cqe(ring, &c, T_TIMEOUT_MS);
		if (ret) {
			t_error("%s: %u of %u completions arrived, then %s",
				what, got, nr, t_res_str(ret));
			break;
		}
		i = (unsigned int)(c.user_data & 0xffffffffu);
		if ((c.user_data & ~0xffffffffULL) != T_BATCH_TAG || i >= nr) {
			t_error("%s: completion with unknown user_data %#llx res %s",
				what, (unsigned long long)c.user_data,
				t_res_str(c.res));
			continue;
		}
		if (seen[i]) {
			t_error("%s: request %u completed twice", what, i);
			continue;
		}
		seen[i] = true;
		q = &uringcmd_block_queries[i % URINGCMD_NR_BLOCK_QUERIES];
		t_check_query_answer(what, q, want[i], c.res,
				     use_addr[i] ? &slot[i] : NULL);
	}
	for (i = 0; i < nr; i++)
		if (!seen[i])
			t_error("%s: request %u (%s) never completed", what, i,
				uringcmd_block_queries[i % URINGCMD_NR_BLOCK_QUERIES].name);
	if (!t_cq_empty(ring))
		t_error("%s: extra completions beyond the %u requests", what, nr);
out:
	free(want);
	/*
	 * Requests that never completed may still write their slot: leak
	 * it rather than free memory the kernel might store to.
	 */
	if (got == nr)
		free(slot);
	free(seen);
	free(use_addr);
	return t_nr_errors() - errs;
}

/* ---- files and sysfs --------------------------------------------------- */

int t_read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

int t_read_u64(const char *path, __u64 *val)
{
	char buf[64], *end;
	unsigned long long v;
	int ret = t_read_file(path, buf, sizeof(buf));

	if (ret)
		return ret;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end)
		return -EINVAL;
	*val = v;
	return 0;
}

int t_write_u64(const char *path, __u64 val)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%llu\n", (unsigned long long)val) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static const char *attr_dir(const struct t_bdev *b, const char *attr)
{
	if (!strncmp(attr, "queue/", 6) || !strcmp(attr, "diskseq"))
		return b->diskdir;
	return b->sysdir;
}

int t_bdev_attr_str(const struct t_bdev *b, const char *attr, char *buf,
		    size_t len)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", attr_dir(b, attr), attr);
	return t_read_file(path, buf, len);
}

int t_bdev_attr_u64(const struct t_bdev *b, const char *attr, __u64 *val)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", attr_dir(b, attr), attr);
	return t_read_u64(path, val);
}

/* ---- block devices and loop devices ------------------------------------ */

/* Run @argv (PATH lookup), stdout into @out if not NULL; exit status or -errno. */
static int run_cmd(char *const argv[], char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	int pfd[2] = { -1, -1 }, status, ret;
	size_t got = 0;
	pid_t pid;

	if (out && pipe2(pfd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	if (out)
		posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (out)
		close(pfd[1]);
	if (ret) {
		if (out)
			close(pfd[0]);
		return -ret;
	}
	if (out) {
		ssize_t n;

		while (got + 1 < outlen &&
		       (n = read(pfd[0], out + got, outlen - 1 - got)) > 0)
			got += n;
		out[got] = '\0';
		while (got && (out[got - 1] == '\n' || out[got - 1] == ' '))
			out[--got] = '\0';
		close(pfd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status))
		return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

static struct t_bdev *loops_to_clean[4];

static void loop_atexit(void)
{
	size_t i;

	for (i = 0; i < sizeof(loops_to_clean) / sizeof(loops_to_clean[0]); i++)
		if (loops_to_clean[i])
			t_loop_destroy(loops_to_clean[i]);
}

int t_loop_create(struct t_bdev *b, unsigned long long size,
		  unsigned int sector_size, bool ro)
{
	static bool atexit_done;
	char file[PATH_MAX + 32], out[PATH_MAX], ssz[16], sizeopt[64];
	char *argv[8];
	struct statfs sfs;
	int fd, ret, argc = 0;
	size_t i;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	if (!statfs("/dev/shm", &sfs) && sfs.f_type == TMPFS_MAGIC &&
	    !access("/dev/shm", W_OK)) {
		snprintf(file, sizeof(file), "/dev/shm/uringcmd-loop-XXXXXX");
	} else {
		char *mnt_argv[] = { "mount", "-t", "tmpfs", "-o", sizeopt,
				     "uringcmd-test", b->mnt, NULL };

		snprintf(b->mnt, sizeof(b->mnt), "/tmp/uringcmd-tmpfs-XXXXXX");
		if (!mkdtemp(b->mnt)) {
			ret = -errno;
			fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
			b->mnt[0] = '\0';
			return ret;
		}
		snprintf(sizeopt, sizeof(sizeopt), "size=%llu",
			 size + (1ULL << 20));
		ret = run_cmd(mnt_argv, NULL, 0);
		if (ret) {
			fprintf(stderr, "mount -t tmpfs %s failed: %d\n",
				b->mnt, ret);
			rmdir(b->mnt);
			b->mnt[0] = '\0';
			return ret < 0 ? ret : -EIO;
		}
		snprintf(file, sizeof(file), "%s/loop-XXXXXX", b->mnt);
	}

	fd = mkstemp(file);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "mkstemp %s: %s\n", file, strerror(errno));
		goto err_mnt;
	}
	if (ftruncate(fd, size)) {
		ret = -errno;
		fprintf(stderr, "ftruncate %s: %s\n", file, strerror(errno));
		close(fd);
		goto err_file;
	}
	close(fd);

	argv[argc++] = "losetup";
	argv[argc++] = "--find";
	argv[argc++] = "--show";
	if (ro)
		argv[argc++] = "--read-only";
	if (sector_size) {
		snprintf(ssz, sizeof(ssz), "%u", sector_size);
		argv[argc++] = "--sector-size";
		argv[argc++] = ssz;
	}
	argv[argc++] = file;
	argv[argc] = NULL;
	ret = run_cmd(argv, out, sizeof(out));
	if (ret || strncmp(out, "/dev/", 5)) {
		fprintf(stderr, "losetup --find --show %s failed (%d): %s\n",
			file, ret, out);
		ret = ret < 0 ? ret : -EIO;
		goto err_file;
	}
	/* the loop device holds the file open; nothing else needs its name */
	unlink(file);
	snprintf(b->path, sizeof(b->path), "%s", out);
	b->own_loop = true;

	if (!atexit_done) {
		atexit(loop_atexit);
		atexit_done = true;
	}
	for (i = 0; i < sizeof(loops_to_clean) / sizeof(loops_to_clean[0]); i++) {
		if (!loops_to_clean[i]) {
			loops_to_clean[i] = b;
			break;
		}
	}
	return 0;

err_file:
	unlink(file);
err_mnt:
	if (b->mnt[0]) {
		char *umount_argv[] = { "umount", b->mnt, NULL };

		run_cmd(umount_argv, NULL, 0);
		rmdir(b->mnt);
		b->mnt[0] = '\0';
	}
	return ret;
}

void t_loop_destroy(struct t_bdev *b)
{
	size_t i;

	if (b->fd >= 0) {
		close(b->fd);
		b->fd = -1;
	}
	if (b->own_loop) {
		char *argv[] = { "losetup", "--detach", b->path, NULL };

		if (run_cmd(argv, NULL, 0))
			fprintf(stderr, "warning: losetup --detach %s failed\n",
				b->path);
		b->own_loop = false;
	}
	if (b->mnt[0]) {
		char *argv[] = { "umount", b->mnt, NULL };

		if (run_cmd(argv, NULL, 0))
			fprintf(stderr, "warning: umount %s failed\n", b->mnt);
		else
			rmdir(b->mnt);
		b->mnt[0] = '\0';
	}
	for (i = 0; i < sizeof(loops_to_clean) / sizeof(loops_to_clean[0]); i++)
		if (loops_to_clean[i] == b)
			loops_to_clean[i] = NULL;
}

void t_bdev_open(struct t_bdev *b, int argc, char **argv, int open_flags)
{
	const char *dev = argc > 1 && argv[1][0] ? argv[1] :
			  t_env_or("TEST_BLOCK_DEV", NULL);
	char link[PATH_MAX], tmp[PATH_MAX * 2];
	struct stat st;
	int ret;

	if (dev) {
		memset(b, 0, sizeof(*b));
		b->fd = -1;
		snprintf(b->path, sizeof(b->path), "%s", dev);
	} else {
		ret = t_loop_create(b, 64ULL << 20, 0, false);
		if (ret)
			t_skip("no device given (argv[1] or TEST_BLOCK_DEV) and no loop device could be made: %s",
			       t_errname(ret));
		t_info("no device given, using a new loop device %s", b->path);
	}

	if (stat(b->path, &st)) {
		if (errno == ENOENT)
			t_skip("%s does not exist", b->path);
		t_die("stat %s: %s", b->path, strerror(errno));
	}
	if (!S_ISBLK(st.st_mode))
		t_die("%s is not a block device", b->path);

	b->fd = open(b->path, open_flags | O_CLOEXEC);
	if (b->fd < 0) {
		if (errno == ENXIO || errno == ENOMEDIUM || errno == ENOENT)
			t_skip("open %s: %s", b->path, strerror(errno));
		t_die("open %s: %s", b->path, strerror(errno));
	}

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_rdev), minor(st.st_rdev));
	if (!realpath(link, b->sysdir))
		t_die("realpath %s: %s", link, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s", b->sysdir);
	snprintf(b->name, sizeof(b->name), "%s", basename(tmp));

	snprintf(tmp, sizeof(tmp), "%s/partition", b->sysdir);
	b->is_partition = !access(tmp, F_OK);
	if (b->is_partition) {
		snprintf(tmp, sizeof(tmp), "%s/..", b->sysdir);
		if (!realpath(tmp, b->diskdir))
			t_die("realpath %s: %s", tmp, strerror(errno));
	} else {
		snprintf(b->diskdir, sizeof(b->diskdir), "%s", b->sysdir);
	}
}

void t_bdev_close(struct t_bdev *b)
{
	if (b->own_loop || b->mnt[0]) {
		t_loop_destroy(b);
		return;
	}
	if (b->fd >= 0)
		close(b->fd);
	b->fd = -1;
}

/* ---- sockets ----------------------------------------------------------- */

bool t_lo_is_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up;

	if (fd < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	up = !ioctl(fd, SIOCGIFFLAGS, &ifr) && (ifr.ifr_flags & IFF_UP);
	close(fd);
	return up;
}

int t_sock_ioctl(int fd, unsigned long req, int *val)
{
	int v = INT_MIN;

	if (ioctl(fd, req, &v) < 0)
		return -errno;
	*val = v;
	return 0;
}

/* ---- misc -------------------------------------------------------------- */

void t_fill_pattern(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	__u32 x = seed * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)(x ^ (i >> 9));
	}
}

long t_memcmp_off(const void *a, const void *b, size_t len)
{
	const unsigned char *x = a, *y = b;
	size_t i;

	for (i = 0; i < len; i++)
		if (x[i] != y[i])
			return (long)i;
	return -1;
}

unsigned long long t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

void t_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int t_wait_pid(pid_t pid, unsigned int ms)
{
	unsigned long long end = t_now_ms() + ms;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0)
			t_die("waitpid %d: %m", (int)pid);
		if (t_now_ms() >= end)
			return -1;
		t_sleep_ms(20);
	}
}

#if defined(__x86_64__)
/* The i386 ioctl (number 54) through int $0x80: the kernel's compat path. */
static long t_int80_ioctl(__u32 fd, __u32 cmd, __u32 arg)
{
	long ret;

	asm volatile("int $0x80"
		     : "=a"(ret)
		     : "a"(54L), "b"((long)fd), "c"((long)cmd), "d"((long)arg)
		     : "memory", "cc", "r8", "r9", "r10", "r11");
	return ret;
}

int t_ioctl32(int fd, __u32 cmd, void *arg, size_t len)
{
	/* shared with the child, below 4 GiB: [0] the result, then the argument */
	long page = sysconf(_SC_PAGESIZE);
	long *low;
	pid_t pid;
	int status, ret;

	if (len > (size_t)page - sizeof(long))
		t_die("t_ioctl32: %zu bytes of argument", len);
	low = mmap(NULL, page, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (low == MAP_FAILED)
		t_die("mmap(MAP_32BIT): %m");
	if ((uintptr_t)low + page > 0x100000000ULL)
		t_die("mmap(MAP_32BIT) gave %p, above 4 GiB", (void *)low);
	if (len)
		memcpy(low + 1, arg, len);
	low[0] = -EINTR;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		t_die("fork: %m");
	if (!pid) {
		low[0] = t_int80_ioctl(fd, cmd, len ? (__u32)(uintptr_t)(low + 1) : 0);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		t_die("waitpid: %m");
	if (WIFSIGNALED(status)) {
		ret = -ENOSYS;	/* int $0x80 refused: no 32-bit system calls */
	} else {
		ret = (int)low[0];
		if (len)
			memcpy(arg, low + 1, len);
	}
	munmap(low, page);
	return ret;
}
#elif defined(__i386__)
int t_ioctl32(int fd, __u32 cmd, void *arg, size_t len)
{
	int ret = ioctl(fd, cmd, arg);

	(void)len;
	return ret < 0 ? -errno : ret;
}
#else
int t_ioctl32(int fd, __u32 cmd, void *arg, size_t len)
{
	(void)fd; (void)cmd; (void)arg; (void)len;
	return -ENOSYS;
}
#endif

#define T_KMEMLEAK	"/sys/kernel/debug/kmemleak"

/* "scan" into kmemleak */
static bool t_kmemleak_scan(void)
{
	int fd = open(T_KMEMLEAK, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0) {
		t_error("open %s: %m", T_KMEMLEAK);
		return false;
	}
	ok = write(fd, "scan", 4) == 4;
	if (!ok)
		t_error("write scan to %s: %m", T_KMEMLEAK);
	close(fd);
	return ok;
}

int t_kmemleak_check(const char *fn, const char *what)
{
	char line[512], rec[4096] = "", first[4096] = "";
	bool in_rec = false, counted = false;
	int n = 0;
	FILE *f;

	if (access(T_KMEMLEAK, W_OK))
		return -1;
	t_sleep_ms(6000);
	if (!t_kmemleak_scan() || !t_kmemleak_scan())
		return 0;
	f = fopen(T_KMEMLEAK, "re");
	if (!f) {
		t_error("open %s: %m", T_KMEMLEAK);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "unreferenced object", 19)) {
			in_rec = true;
			counted = false;
			rec[0] = '\0';
		}
		if (in_rec && strlen(rec) + strlen(line) < sizeof(rec))
			strcat(rec, line);
		if (in_rec && !counted && strstr(line, fn)) {
			n++;
			counted = true;
		}
		if (counted && n == 1)
			snprintf(first, sizeof(first), "%s", rec);
	}
	fclose(f);
	if (n) {
		t_info("the first of them:\n%s", first);
		t_error("kmemleak: %d unreferenced objects allocated through %s() (%s)",
			n, fn, what);
	} else {
		t_info("kmemleak: no unreferenced object allocated through %s()", fn);
	}
	return n;
}
