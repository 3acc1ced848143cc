/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the uringcmd in-guest tests: ring setup, IORING_OP_URING_CMD
 * SQE preparation, completion reaping with a deadline, block-query tables,
 * sysfs readers, throw-away loop devices and exit-code conventions.
 *
 * Every test is a standalone program: exit T_EXIT_PASS (0), T_EXIT_FAIL (1)
 * with the reason as the last line on stderr, or T_EXIT_SKIP (77) with the
 * reason as the last line on stdout.
 */
#ifndef T_HELPERS_H
#define T_HELPERS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <liburing.h>
#include <linux/types.h>
#include <linux/blkdev.h>	/* the patched kernel's new uapi header */
#include <uringcmd.h>		/* the project's library: ../../lib */

#ifndef BLOCK_URING_CMD_IOCTL
#error "BLOCK_URING_CMD_IOCTL missing: build against the patched kernel's headers (make HDRS=.../headers/include)"
#endif

#define T_EXIT_PASS	0
#define T_EXIT_FAIL	1
#define T_EXIT_SKIP	77

/*
 * How long any single wait for a completion may take before it is a
 * failure: 10 s, or $TEST_CQE_TIMEOUT_MS (for slow debug kernels).
 */
#define T_TIMEOUT_MS	t_timeout_ms()
unsigned int t_timeout_ms(void);

/* ---- reporting --------------------------------------------------------- */

/* Print a failed check to stderr and remember it; the test goes on. */
void t_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print to stdout (progress and details). */
void t_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Fail now: print the reason to stderr and exit T_EXIT_FAIL. */
void t_die(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/*
 * Skip now: print the reason to stdout and exit T_EXIT_SKIP; after a
 * failure (a t_error(), or a t_submit()/t_wait_cqe() that failed) exit
 * T_EXIT_FAIL instead, naming the first one, as t_result() does.
 */
void t_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Number of t_error() calls so far. */
unsigned int t_nr_errors(void);
/*
 * Exit code for the end of main(): T_EXIT_FAIL after any t_error() (the
 * first error is repeated as the last line of stderr), or after a
 * t_submit()/t_wait_cqe() failure no check reported (a lost completion
 * fails the test even where the caller ignored it), else T_EXIT_PASS.
 */
int t_result(void);

/* Value of environment variable @name, or @def when unset or empty. */
const char *t_env_or(const char *name, const char *def);
/* Short name for an errno value such as "EOPNOTSUPP" (for messages). */
const char *t_errname(int err);
/* Format a CQE result: "4096" or "-95 (EOPNOTSUPP)"; static buffer ring. */
const char *t_res_str(int res);

/* ---- rings and completions --------------------------------------------- */

/* A completion copied out of the CQ ring (big[] only valid with CQE32). */
struct t_cqe {
	__u64	user_data;
	__s32	res;
	__u32	flags;
	__u64	big[2];
};

/* io_uring_queue_init() with @flags; 0 or -errno. */
int t_ring_init(struct io_uring *ring, unsigned int entries, unsigned int flags);
/* io_uring_get_sqe(), failing the test if the SQ ring is full. */
struct io_uring_sqe *t_get_sqe(struct io_uring *ring);

/*
 * Prepare @sqe as IORING_OP_URING_CMD on @fd with @cmd_op; the whole
 * command area (16 bytes, or 80 on an IORING_SETUP_SQE128 ring) is zeroed
 * and @len bytes of @payload copied to its start. sqe->flags is 0.
 */
void t_prep_uring_cmd(struct io_uring *ring, struct io_uring_sqe *sqe, int fd,
		      __u32 cmd_op, const void *payload, size_t len);
/*
 * uringcmd_prep_block_query() on a ring of either SQE size, with @flags
 * and a raw @addr (the error tests pass bad ones).
 */
void t_prep_block_query(struct io_uring *ring, struct io_uring_sqe *sqe,
			int fd, __u32 ioctl_cmd, __u32 flags, __u64 addr);

/*
 * Wait up to @timeout_ms for one completion, copy it to @out and mark it
 * seen. 0, -ETIME on timeout, or another -errno. A failure prints nothing
 * (the caller says what was lost) but fails the test at t_result().
 */
int t_wait_cqe(struct io_uring *ring, struct t_cqe *out, unsigned int timeout_ms);
/*
 * io_uring_submit() expecting exactly @nr SQEs taken; 0 or -errno/-EIO. A
 * short submission is a t_error(); an error from io_uring_submit() fails
 * the test at t_result(), as in t_wait_cqe().
 */
int t_submit(struct io_uring *ring, unsigned int nr);
/* t_submit(ring, 1) + t_wait_cqe(); 0 or -errno. */
int t_submit_wait_one(struct io_uring *ring, struct t_cqe *out,
		      unsigned int timeout_ms);
/* True when the CQ ring holds no completion right now. */
bool t_cq_empty(struct io_uring *ring);
/*
 * Before a ring goes: 50 ms, then io_uring_enter(GETEVENTS), which runs
 * task_work and polls an IOPOLL ring once, and the CQ must still be
 * empty; a completion posted twice (patch 0001's IOPOLL hazard) shows up
 * only there. t_error()s with @what and returns false otherwise.
 */
bool t_cq_quiet(struct io_uring *ring, const char *what);

/*
 * One block query through uring_cmd, with @sqe_flags (e.g. IOSQE_ASYNC):
 * submit, wait, and store cqe->res in *@res. 0, or -errno if no completion
 * could be had (the test should treat that as a failure).
 */
int t_block_query(struct io_uring *ring, int fd, __u32 ioctl_cmd, __u32 flags,
		  __u64 addr, __u8 sqe_flags, int *res);
/* One socket command (io_uring_prep_cmd_sock(), SOCKET_URING_OP_*), as above. */
int t_sock_cmd(struct io_uring *ring, int fd, __u32 op, __u8 sqe_flags,
	       int *res);

/* ---- block queries ----------------------------------------------------- */

/*
 * The queries are the library's table: uringcmd_block_queries[],
 * URINGCMD_NR_BLOCK_QUERIES, uringcmd_block_query_find() (<uringcmd.h>).
 */

/*
 * Answer @q with the real ioctl, widened to 64 bits the way the kernel
 * widens it for uring_cmd (signed answers sign-extended). 0 or -errno.
 */
int t_query_ioctl(int fd, const struct uringcmd_block_query *q, __u64 *val);

/*
 * Compare one uring_cmd answer (@res, and *@slot if @slot) with the ioctl
 * answer @want for @q, t_error()ing each mismatch; @what names the case in
 * messages. Returns true if everything matched.
 */
bool t_check_query_answer(const char *what, const struct uringcmd_block_query *q,
			  __u64 want, int res, const __u64 *slot);

/*
 * Submit @nr block queries on @fd in one io_uring_submit() (cycling
 * through uringcmd_block_queries[], narrow ones alternately with and without addr),
 * each with @sqe_flags and a distinct user_data, then reap @nr completions
 * (each within T_TIMEOUT_MS) and check each against the ioctl answer and
 * that every request completed exactly once and nothing else did. The
 * ring needs @nr free SQEs. Returns the number of failed checks (each
 * reported with t_error()).
 */
unsigned int t_query_batch(struct io_uring *ring, int fd, unsigned int nr,
			   __u8 sqe_flags, const char *what);

/* ---- block devices, sysfs and loop devices ----------------------------- */

struct t_bdev {
	char	path[PATH_MAX];		/* as given: /dev/nvme0n1 */
	char	name[NAME_MAX + 1];	/* kernel name: nvme0n1 */
	char	sysdir[PATH_MAX];	/* /sys/devices/.../nvme0n1 */
	char	diskdir[PATH_MAX];	/* the whole disk's dir (== sysdir unless a partition) */
	bool	is_partition;
	int	fd;
	/* set when the helper created a loop device for the test */
	bool	own_loop;
	char	mnt[PATH_MAX];		/* tmpfs mounted by the helper, or "" */
};

/*
 * Pick the device under test: argv[1], else $TEST_BLOCK_DEV, else a 64 MiB
 * loop device made for this run (destroyed at exit). Opens it with
 * @open_flags. Skips the test if the device does not exist or no loop
 * device can be made; fails it if the path is not a block device.
 */
void t_bdev_open(struct t_bdev *b, int argc, char **argv, int open_flags);
void t_bdev_close(struct t_bdev *b);

/*
 * Read a sysfs attribute of @b: @attr is relative to its sysfs directory,
 * e.g. "size", "ro", "queue/logical_block_size"; "queue/..." and
 * "diskseq" of a partition are read from its whole disk. 0 or -errno.
 */
int t_bdev_attr_u64(const struct t_bdev *b, const char *attr, __u64 *val);
int t_bdev_attr_str(const struct t_bdev *b, const char *attr, char *buf,
		    size_t len);

/* Read a whole small file into @buf, trailing newline removed. 0/-errno. */
int t_read_file(const char *path, char *buf, size_t len);
/* Read a file holding one unsigned decimal number. 0 or -errno. */
int t_read_u64(const char *path, __u64 *val);
/* Write one unsigned decimal number to a file (a sysfs attribute). 0/-errno. */
int t_write_u64(const char *path, __u64 val);

/*
 * Create a loop device over a file of @size bytes on a tmpfs with
 * `losetup` (read-only if @ro, logical block size @sector_size if not 0).
 * Fills b->path and b->mnt; the device is detached by t_loop_destroy()
 * and at exit. 0 or -errno (with the reason printed).
 */
int t_loop_create(struct t_bdev *b, unsigned long long size,
		  unsigned int sector_size, bool ro);
void t_loop_destroy(struct t_bdev *b);

/* ---- 32-bit callers ---------------------------------------------------- */

/*
 * ioctl(@fd, @cmd, @arg) as a 32-bit program makes it, so that a test can
 * ask the kernel's own compat ioctl (compat_blkdev_ioctl() and the like)
 * instead of expecting a kernel version's answer: from a 64-bit program,
 * the i386 system call (int $0x80, in a child, with @len bytes of @arg
 * copied below 4 GiB and back); in a 32-bit build, ioctl() itself. The
 * ioctl's return value, or -errno; -ENOSYS if the kernel runs no 32-bit
 * system calls (no IA32_EMULATION, or ia32_emulation=0: the child is
 * killed) or this is not x86.
 */
int t_ioctl32(int fd, __u32 cmd, void *arg, size_t len);

/* ---- sockets ----------------------------------------------------------- */

/* True if the loopback interface "lo" is administratively up. */
bool t_lo_is_up(void);
/* ioctl(fd, req, &int); 0 or -errno. */
int t_sock_ioctl(int fd, unsigned long req, int *val);

/* ---- misc -------------------------------------------------------------- */

/* Fill @buf with a pattern derived from @seed and the byte offset. */
void t_fill_pattern(void *buf, size_t len, unsigned int seed);
/* Offset of the first differing byte, or -1 if equal. */
long t_memcmp_off(const void *a, const void *b, size_t len);
/* Milliseconds on CLOCK_MONOTONIC. */
unsigned long long t_now_ms(void);
/* Sleep @ms milliseconds. */
void t_sleep_ms(unsigned int ms);
/*
 * Wait for child @pid to end within @ms: its wait status, or -1 if it is
 * still there (not reaped; the caller kills it or reports it).
 */
int t_wait_pid(pid_t pid, unsigned int ms);

/* ---- kmemleak (the debug kernel) ----------------------------------------- */

/*
 * Leaks of the objects a test just made, where kmemleak is: wait 6 s,
 * scan twice (kmemleak reports an object only when it is older than 5 s
 * and unchanged since the previous scan, so one scan right after the
 * commands reports none), then count the unreferenced objects whose
 * record (its allocation backtrace) names function @fn, which must be one
 * the compiler cannot inline; any is a t_error() naming @what, with the
 * first record in the output. Returns
 * that count, or -1 if there is no kmemleak to ask (nothing is checked).
 * The objects stay listed for tests/run.sh's own scan.
 */
int t_kmemleak_check(const char *fn, const char *what);

#endif /* T_HELPERS_H */
