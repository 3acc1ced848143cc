/* SPDX-License-Identifier: GPL-2.0 */
/*
 * NVMe helpers of the uringcmd in-guest tests: finding a namespace's block
 * node, char devices and controller, building struct nvme_uring_cmd
 * commands, issuing them through io_uring (IORING_OP_URING_CMD) and through
 * the 6.1 passthrough ioctls, and naming NVMe statuses with libnvme.
 *
 * Commands are built and prepared with the project's library
 * (<uringcmd-nvme.h>: uringcmd_nvme_identify(), uringcmd_nvme_rw(), ...),
 * on libnvme's <nvme/types.h> and the kernel's <linux/nvme_ioctl.h>.
 */
#ifndef T_NVME_H
#define T_NVME_H

#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/nvme_ioctl.h>
#include <nvme/types.h>
#include <uringcmd-nvme.h>

#include "t_helpers.h"

/* A namespace under test and the nodes that reach it. */
struct t_nvme {
	char	bdev[PATH_MAX];	/* block node: /dev/nvme0n1 */
	char	name[NAME_MAX + 1];	/* nvme0n1 */
	char	chr[PATH_MAX];	/* generic char device: /dev/ng0n1 */
	char	ctrl[PATH_MAX];	/* controller char device: /dev/nvme0 */
	int	bfd;		/* block node, O_RDWR */
	int	cfd;		/* controller, O_RDWR */
	__u32	nsid;
	__u32	lbs;		/* logical block size in bytes */
	__u64	nlb;		/* namespace size in logical blocks */
	__u32	max_bytes;	/* largest transfer: queue/max_hw_sectors_kb */
	bool	head;		/* the block node is a multipath head */
};

/*
 * Open the namespace under test: argv[1] or $TEST_NVME_DEV or /dev/nvme0n1;
 * its ngXnY is argv[2] or $TEST_NVME_CHAR or derived from the name; its
 * controller argv[3] or $TEST_NVME_CTRL or found in sysfs (for a head node:
 * the controller of its first path). Skips the test if the block node does
 * not exist.
 */
void t_nvme_open(struct t_nvme *n, int argc, char **argv);
void t_nvme_close(struct t_nvme *n);

/* posix_memalign(4096) and zero, or die. */
void *t_alloc(size_t len);

/*
 * The same command through the 6.1 passthrough ioctl (NVME_IOCTL_ADMIN_CMD
 * or NVME_IOCTL_IO_CMD) on @fd. Returns the ioctl's value: 0, an NVMe
 * status (> 0) or -errno; the result dword in *@result if @result.
 */
int t_nvme_ioctl(int fd, unsigned long req, const struct nvme_uring_cmd *c,
		 __u32 *result);

/* io_uring_queue_init() with SQE128 | CQE32 | @flags; 0 or -errno. */
int t_nvme_ring(struct io_uring *ring, unsigned int entries,
		unsigned int flags);
/* Prepare @sqe as NVMe passthrough @cmd_op carrying @c. */
void t_nvme_prep(struct io_uring *ring, struct io_uring_sqe *sqe, int fd,
		 __u32 cmd_op, const struct nvme_uring_cmd *c,
		 __u64 user_data);
/*
 * Submit one passthrough command with @sqe_flags and wait for it (within
 * 3 * T_TIMEOUT_MS). 0 with the completion in *@out, or -errno if there
 * was no completion (reported with t_error()). Each command gets a
 * user_data of its own; a completion of another, or a second one in the
 * CQ right after it, is a t_error(): call it with nothing else in flight.
 */
int t_nvme_cmd(struct io_uring *ring, int fd, __u32 cmd_op,
	       const struct nvme_uring_cmd *c, __u8 sqe_flags,
	       struct t_cqe *out);

/*
 * Queue @nr commands on @n's block node with user_data 0..@nr-1 and submit
 * them: 4 KiB reads of block i * 4 KiB into @bufs + i * 4096, every eighth
 * an Identify Controller instead if @admin. Returns what io_uring_submit()
 * returns.
 */
int t_nvme_submit_mixed(struct io_uring *ring, const struct t_nvme *n,
			unsigned char *bufs, unsigned int nr, bool admin);
/*
 * Of the @nr commands submitted on @ring (none reaped yet), how many have
 * not completed: task_work run first (io_uring_enter(GETEVENTS)), so a
 * completion the device has posted counts as completed. What a fault
 * meant for commands "in flight" measured instead of assumed.
 */
unsigned int t_nvme_outstanding(struct io_uring *ring, unsigned int nr);
/*
 * t_nvme_submit_mixed(), and if every command completed before the fault
 * could hit one, reap them and submit again, up to @tries times, each try
 * with reads 4 times larger (up to 1 MiB or the device's transfer limit,
 * and what fits the namespace; into a buffer of the helper's own once over
 * 4 KiB), then from 4 KiB again. Returns how many were outstanding after the last submission (0:
 * never overlapped; the caller fails).
 */
#define T_OVERLAP_TRIES	8
unsigned int t_nvme_submit_overlapping(struct io_uring *ring,
				       const struct t_nvme *n,
				       unsigned char *bufs, unsigned int nr,
				       bool admin, unsigned int tries);

/* How a batch of commands in flight ended. */
struct t_nvme_tally {
	unsigned int	done;		/* completions reaped */
	unsigned int	ok;		/* res 0 */
	unsigned int	status;		/* an NVMe status */
	unsigned int	err;		/* -errno */
};
/*
 * Reap @nr completions of commands submitted with user_data 0..@nr-1, each
 * within T_NVME_TIMEOUT_MS, into @t. True if each came exactly once and
 * nothing else did (a duplicated, foreign or extra completion is a
 * t_error()); t->done says how many were reaped.
 */
bool t_nvme_reap(struct io_uring *ring, unsigned int nr,
		 struct t_nvme_tally *t);

/*
 * When the last t_nvme_submit_overlapping() called io_uring_submit()
 * (t_now_ms()): a fault started less than a device's least latency after
 * it met every command the device had not completed before.
 */
unsigned long long t_nvme_submitted_ms(void);

/* An NVMe status as cqe->res carries it, without DNR and More: libnvme's codes */
#define T_NVME_SC(sct, sc)	((NVME_SCT_##sct << NVME_SCT_SHIFT) | NVME_SC_##sc)
/* For t_nvme_reap_judged(): any status of that type (e.g. PATH, 3h) */
#define T_NVME_SCT_ANY(sct)	((NVME_SCT_##sct << NVME_SCT_SHIFT) | 0xff)

/*
 * Before a fault test: stamp every 4 KiB block that @nr commands of
 * t_nvme_submit_overlapping() can read on @n with a pattern of its own
 * (destroying that data) and keep the controller's Identify, so that
 * t_nvme_reap_judged() knows what each successful command must return.
 */
void t_nvme_judge_setup(const struct t_nvme *n, unsigned int nr);
/*
 * t_nvme_reap() of the last t_nvme_submit_overlapping() after a fault
 * (@what), each result judged: 0 with the data the command must return
 * (a read its blocks' stamps, an Identify the controller's vendor, serial,
 * model and firmware), or one of @allowed, ended by 0: NVMe status codes
 * (compared without the DNR and More bits) or -errnos. Anything else is
 * a t_error() naming the command (T_NVME_SCT_ANY() takes every code of a
 * status type). True if all came once and each passed.
 */
bool t_nvme_reap_judged(struct io_uring *ring, const char *what,
			const int *allowed, struct t_nvme_tally *t);

/* "0", "-22 (EINVAL)" or "0x4001 (Invalid Command Opcode: ...)". */
const char *t_nvme_res_str(int res);
/* True if @res is an NVMe status with status code type 0, code @sc. */
bool t_nvme_is_status(int res, unsigned int sc);

/* Compare two buffers, t_error() at the first difference; true if equal. */
bool t_compare(const char *what, const void *got, const void *want,
	       size_t len);

/*
 * Send one QMP command (a JSON object) to the QEMU running this guest, via
 * run-nvme.sh --qmp-agent and the results share ($UC_RESULTS/qmp). Returns
 * QEMU's answer (a static buffer: {"return": ...} or {"error": ...}), or
 * NULL with the reason printed if there is no agent or no answer in time.
 */
const char *t_qmp(const char *json);
/* True if a QMP agent is there (run-nvme.sh --qmp-agent). */
bool t_qmp_available(void);

/* ---- namespace formats -------------------------------------------------- */

/* One namespace of a controller and its format (Identify Namespace). */
struct t_nvme_fmt {
	char	name[NAME_MAX + 1];	/* nvme0n3 */
	char	bdev[PATH_MAX];		/* /dev/nvme0n3 */
	char	chr[PATH_MAX];		/* /dev/ng0n3 */
	__u32	nsid;
	__u32	lbs;		/* data bytes per logical block */
	__u16	ms;		/* metadata bytes per logical block */
	bool	ext;		/* metadata inside the data buffer (FLBAS bit 4) */
	__u8	pi;		/* protection information type, 0: none */
	bool	pi_first;	/* PI in the first bytes of the metadata */
	bool	zoned;		/* the block node is zoned (queue/zoned) */
	__u64	nsze;		/* namespace size in logical blocks */
	__u64	bdev_bytes;	/* the block node's size: 0 if the kernel hid it */
};

/*
 * Every namespace of controller @ctrl (its char device, /dev/nvme0), in
 * nsid order, up to @max of them, identified through the admin ioctl;
 * where they are multipath heads, the heads (/dev/nvme0n3 of the
 * subsystem, /dev/ng0n3) with a path through @ctrl.
 * Returns how many were found; dies if the controller cannot be read.
 */
unsigned int t_nvme_formats(const char *ctrl, struct t_nvme_fmt *out,
			    unsigned int max);
/* "nvme0n4 (nsid 4, 512+16 separate, PI type 1)" for messages. */
const char *t_nvme_fmt_str(const struct t_nvme_fmt *f);

/* How a command reaches a namespace, for comparing the paths. */
enum t_nvme_path {
	T_PATH_BDEV,		/* NVME_URING_CMD_IO on the block node */
	T_PATH_CHAR,		/* NVME_URING_CMD_IO on /dev/ngXnY */
	T_PATH_IOCTL,		/* NVME_IOCTL_IO64_CMD on the block node */
	T_NR_PATHS,
};
extern const char *const t_path_names[T_NR_PATHS];

/*
 * The ways a test sends one passthrough command to compare them: the block
 * node inline, with IOSQE_ASYNC and polled (an IOPOLL ring), ng inline and
 * polled, and NVME_IOCTL_IO64_CMD, in that order (t_nvme_ways[0], the block
 * node, is what the others are compared with).
 */
struct t_nvme_way {
	const char		*name;
	enum t_nvme_path	path;
	__u8			sqe_flags;
	bool			polled;
};
#define T_NVME_NR_WAYS	6
extern const struct t_nvme_way t_nvme_ways[T_NVME_NR_WAYS];

/*
 * The same command through NVME_IOCTL_IO64_CMD or NVME_IOCTL_ADMIN64_CMD
 * on @fd: 0, an NVMe status (> 0) or -errno; the 64-bit result in
 * *@result if @result.
 */
int t_nvme_ioctl64(int fd, unsigned long req, const struct nvme_uring_cmd *c,
		   __u64 *result);

/*
 * Issue I/O command @c on @path: uring_cmd on @bfd (with @sqe_flags) or
 * @cfd through @ring (SQE128 | CQE32, any setup flags), or the ioctl on
 * @bfd. Returns 0, an NVMe status or -errno, the result (big CQE or the
 * ioctl's) in *@result if @result; a missing completion is t_error()ed and
 * returns -ETIME.
 */
int t_nvme_io_path(struct io_uring *ring, enum t_nvme_path path, int bfd,
		   int cfd, const struct nvme_uring_cmd *c, __u8 sqe_flags,
		   __u64 *result);

/* How long one NVMe command may take before it is a failure. */
#define T_NVME_TIMEOUT_MS	(3 * T_TIMEOUT_MS)

#endif /* T_NVME_H */
