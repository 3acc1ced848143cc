/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uringcmd.h - helpers for the io_uring commands of the uringcmd kernel
 * series on block devices and sockets, in liburing's style: each
 * uringcmd_prep_*() (or liburing-named io_uring_prep_*()) fills one SQE and
 * nothing more; what the completion carries is said beside each helper.
 *
 *   BLOCK_URING_CMD_IOCTL	read-only block ioctls ("block queries"), with
 *				the one table of which query answers where
 *   BLOCK_URING_CMD_DISCARD	Linux 6.12's discard: io_uring_prep_cmd_discard()
 *   SOCKET_URING_OP_*	socket SIOCINQ/SIOCOUTQ, GETSOCKOPT/SETSOCKOPT: io_uring_prep_cmd_sock()
 *
 * NVMe passthrough is in <uringcmd-nvme.h>.
 *
 * Header only, for liburing 2.3 (Debian 12) and newer. Helpers that a later
 * liburing has are defined here under liburing's name and signature only
 * when the liburing in use lacks them, so that a program written for the
 * newer liburing builds unchanged on both: io_uring_prep_cmd_sock() (2.5)
 * and io_uring_prep_cmd_discard() (2.8). The project's own helpers are
 * named uringcmd_*(), so that no future liburing name can clash with them.
 *
 * The block ABI comes from the kernel's <linux/blkdev.h> when the installed
 * uapi headers have it (a kernel with this series: make headers_install).
 * Debian 12's linux-libc-dev (6.1) has no <linux/blkdev.h>; then the ABI is
 * defined here, identical to the series' header and under its include
 * guard, so that including that header later changes nothing.
 *
 * The SQE128 rule: a command that does not use the 64 bytes of sqe->cmd
 * after its payload (every command here) fails with -EINVAL unless they are
 * zero. liburing's io_uring_prep_rw() clears only the first 16 bytes of
 * sqe->cmd, so on a ring set up with IORING_SETUP_SQE128 call
 * uringcmd_sqe128_clear() before the prep helper.
 */
#ifndef URINGCMD_H
#define URINGCMD_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/blkzoned.h>	/* BLKGETZONESZ, BLKGETNRZONES */
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#include <liburing.h>

#if defined(__has_include)
#if __has_include(<linux/blkdev.h>)
#include <linux/blkdev.h>
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The library's version: uringcmd.pc and uringcmd-nvme.pc say the same
 * (lib/Makefile reads it here). 0.2 added the probes and the man pages.
 */
#define URINGCMD_VERSION_MAJOR	0
#define URINGCMD_VERSION_MINOR	2
#define URINGCMD_VERSION	"0.2"
/* True when this library is @major.@minor or newer. */
#define URINGCMD_AT_LEAST(major, minor)					\
	(URINGCMD_VERSION_MAJOR > (major) ||				\
	 (URINGCMD_VERSION_MAJOR == (major) &&				\
	  URINGCMD_VERSION_MINOR >= (minor)))

/*
 * True when the liburing in use is @major.@minor or newer. liburing 2.4
 * and newer define IO_URING_VERSION_MAJOR/MINOR (<liburing/io_uring_version.h>,
 * included by <liburing.h>); 2.3 defines neither.
 */
#if defined(IO_URING_VERSION_MAJOR) && defined(IO_URING_VERSION_MINOR)
#define URINGCMD_LIBURING_AT_LEAST(major, minor)			\
	(IO_URING_VERSION_MAJOR > (major) ||				\
	 (IO_URING_VERSION_MAJOR == (major) &&				\
	  IO_URING_VERSION_MINOR >= (minor)))
#else
#define URINGCMD_LIBURING_AT_LEAST(major, minor)	0
#endif

/* ---- the block ABI, where the installed uapi headers lack it ------------ */

#ifndef _LINUX_BLKDEV_H
/*
 * No <linux/blkdev.h>: the definitions below stand in for the series'
 * include/uapi/linux/blkdev.h (see it for the full contract), under its
 * guard, so that including it later changes nothing.
 */
#define _LINUX_BLKDEV_H
#endif

/* Linux 6.12's <linux/blkdev.h> has the discard but not the queries. */
#ifndef BLOCK_URING_CMD_DISCARD
#define BLOCK_URING_CMD_DISCARD			_IO(0x12, 0)
#endif
#ifndef BLOCK_URING_CMD_IOCTL
struct block_uring_cmd {
	__u32	ioctl_cmd;
	__u32	flags;
	__u64	addr;
};
#define BLOCK_URING_CMD_IOCTL	_IOWR(0x12, 0xc0, struct block_uring_cmd)
#endif

/* ---- common ------------------------------------------------------------- */

/**
 * uringcmd_sqe128_clear() - zero the second half of a 128-byte SQE
 * @sqe: an SQE of a ring set up with IORING_SETUP_SQE128
 *
 * The 64 bytes of sqe->cmd after the 16 that io_uring_prep_rw() clears.
 * Call it before a prep helper of this header on an SQE128 ring (NVMe
 * passthrough rings are); never on a ring of 64-byte SQEs, whose next SQE
 * it would overwrite.
 */
static inline void uringcmd_sqe128_clear(struct io_uring_sqe *sqe)
{
	memset((char *)sqe + 64, 0, 64);
}

/* ---- BLOCK_URING_CMD_DISCARD -------------------------------------------- */

#if !URINGCMD_LIBURING_AT_LEAST(2, 8)
/**
 * io_uring_prep_cmd_discard() - discard a byte range of a block device
 * @sqe: the SQE to fill
 * @fd: the block device, open for writing
 * @offset: first byte, a multiple of the logical block size
 * @nbytes: bytes to discard, a multiple of the logical block size
 *
 * liburing 2.8's helper (Debian 13's 2.9 has it), defined here only for an
 * older liburing, Debian 12's 2.3 among them; same signature
 * and same SQE: IORING_OP_URING_CMD, cmd_op BLOCK_URING_CMD_DISCARD, the
 * range in sqe->addr and sqe->addr3, no payload. The kernel invalidates
 * the page cache of the range first, but unlike the BLKDISCARD ioctl it
 * does not keep concurrent buffered I/O out: pages read or written during
 * the discard may be stale, as around a direct write.
 *
 * cqe->res: 0 once the range is discarded, or -errno: -EOPNOTSUPP where
 * the kernel has no BLOCK_URING_CMD_DISCARD (fall back to ioctl(BLKDISCARD)),
 * the device cannot discard, or the ring is IORING_SETUP_IOPOLL; -EBADF for
 * an fd not open for writing; -EPERM for a read-only device; -EINVAL for a
 * misaligned, empty or out-of-range request, or a non-zero ioprio, len,
 * rw_flags or file_index. After an error the range's data is undefined.
 */
static inline void io_uring_prep_cmd_discard(struct io_uring_sqe *sqe,
					     int fd, uint64_t offset,
					     uint64_t nbytes)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, 0, 0, 0);
	sqe->cmd_op = BLOCK_URING_CMD_DISCARD;
	sqe->addr = offset;
	sqe->addr3 = nbytes;
}
#endif

/* ---- BLOCK_URING_CMD_IOCTL: block queries ------------------------------- */

/**
 * struct uringcmd_block_query - one read-only block ioctl the series answers
 * @name: the ioctl's name, "BLKSSZGET"
 * @cmd: the ioctl number, the block_uring_cmd.ioctl_cmd to send
 * @needs_addr: the answer is stored only at block_uring_cmd.addr and the
 *	command completes with 0: the answer may not fit a positive int
 *	(sizes, the disk sequence, read-ahead), or is negative (BLKALIGNOFF
 *	is -1 for a misaligned device and stored sign-extended)
 * @ioctl_size: bytes the ioctl itself stores (2, 4 or 8, sizeof(long))
 * @ioctl_signed: the ioctl stores a signed type (int or long)
 * @help: what the answer is, in a few words
 *
 * The others (@needs_addr false) complete with the answer in cqe->res and
 * store it at addr as well when addr is set; an answer above INT_MAX is
 * only stored at addr (cqe->res 0), or fails with -EOVERFLOW without addr.
 */
struct uringcmd_block_query {
	const char	*name;
	__u32		cmd;
	bool		needs_addr;
	unsigned char	ioctl_size;
	bool		ioctl_signed;
	const char	*help;
};

#define URINGCMD_Q(c, addr, type, sgn, h)				\
	{ #c, (__u32)(c), addr, sizeof(type), sgn, h }
/* Every query BLOCK_URING_CMD_IOCTL answers; those in cqe->res first. */
static const struct uringcmd_block_query uringcmd_block_queries[] = {
	URINGCMD_Q(BLKROGET,	     false, int,	    true,  "read-only flag"),
	URINGCMD_Q(BLKBSZGET,	     false, int,	    true,  "soft block size"),
	URINGCMD_Q(BLKSSZGET,	     false, int,	    true,  "logical block size"),
	URINGCMD_Q(BLKPBSZGET,	     false, unsigned int,   false, "physical block size"),
	URINGCMD_Q(BLKIOMIN,	     false, unsigned int,   false, "minimum I/O size"),
	URINGCMD_Q(BLKIOOPT,	     false, unsigned int,   false, "optimal I/O size"),
	URINGCMD_Q(BLKDISCARDZEROES, false, unsigned int,   false, "discard zeroes data (always 0)"),
	URINGCMD_Q(BLKSECTGET,	     false, unsigned short, false, "max sectors per request"),
	URINGCMD_Q(BLKROTATIONAL,    false, unsigned short, false, "rotational flag"),
	URINGCMD_Q(BLKGETZONESZ,     false, __u32,	    false, "zone size in sectors (0: not zoned)"),
	URINGCMD_Q(BLKGETNRZONES,    false, __u32,	    false, "number of zones (0: not zoned)"),
	URINGCMD_Q(BLKALIGNOFF,	     true,  int,	    true,  "alignment offset (-1: misaligned)"),
	URINGCMD_Q(BLKGETSIZE64,     true,  __u64,	    false, "size in bytes"),
	URINGCMD_Q(BLKGETSIZE,	     true,  unsigned long,  false, "size in 512-byte sectors"),
	URINGCMD_Q(BLKGETDISKSEQ,    true,  __u64,	    false, "disk sequence number"),
	URINGCMD_Q(BLKRAGET,	     true,  long,	    true,  "read-ahead in sectors"),
	URINGCMD_Q(BLKFRAGET,	     true,  long,	    true,  "filesystem read-ahead in sectors"),
};
#undef URINGCMD_Q
#define URINGCMD_NR_BLOCK_QUERIES					\
	(sizeof(uringcmd_block_queries) / sizeof(uringcmd_block_queries[0]))

/**
 * uringcmd_block_query_find() - the table entry of ioctl @cmd
 * @cmd: an ioctl number such as BLKSSZGET
 *
 * Return: the entry in uringcmd_block_queries[], or NULL.
 */
static inline const struct uringcmd_block_query *
uringcmd_block_query_find(__u32 cmd)
{
	size_t i;

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++)
		if (uringcmd_block_queries[i].cmd == cmd)
			return &uringcmd_block_queries[i];
	return NULL;
}

/**
 * uringcmd_block_query_by_name() - the table entry named @name
 * @name: "BLKSSZGET", in any case
 *
 * Return: the entry in uringcmd_block_queries[], or NULL.
 */
static inline const struct uringcmd_block_query *
uringcmd_block_query_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const char *a = uringcmd_block_queries[i].name, *b = name;

		while (*a && (*a | 0x20) == (*b | 0x20))
			a++, b++;
		if (!*a && !*b)
			return &uringcmd_block_queries[i];
	}
	return NULL;
}

/**
 * uringcmd_prep_block_query() - ask a read-only block ioctl through io_uring
 * @sqe: the SQE to fill
 * @fd: an open block device (any open mode)
 * @ioctl_cmd: the query, one of uringcmd_block_queries[] (BLKSSZGET, ...)
 * @answer: where the answer is stored, widened to 64 bits (signed answers
 *	sign-extended); required for the queries with needs_addr, may be
 *	NULL for the others
 *
 * Sets IORING_OP_URING_CMD, cmd_op BLOCK_URING_CMD_IOCTL and a struct
 * block_uring_cmd payload in sqe->cmd. Not with IORING_URING_CMD_FIXED.
 *
 * cqe->res: the answer (a query without needs_addr whose answer fits), 0
 * once *@answer is written, or -errno: -EFAULT for a bad @answer, -EINVAL
 * for a needs_addr query without @answer or non-zero unused fields,
 * -EOVERFLOW for an answer above INT_MAX without @answer, -ENOTTY for an
 * ioctl that is not a query this kernel answers, -EOPNOTSUPP from a kernel
 * without the series (Linux 6.12 and later refuse it with -EINVAL).
 */
static inline void uringcmd_prep_block_query(struct io_uring_sqe *sqe, int fd,
					     __u32 ioctl_cmd, __u64 *answer)
{
	struct block_uring_cmd bc = {
		.ioctl_cmd	= ioctl_cmd,
		.addr		= (__u64)(uintptr_t)answer,
	};

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, 0, 0, 0);
	sqe->cmd_op = BLOCK_URING_CMD_IOCTL;
	memcpy(sqe->cmd, &bc, sizeof(bc));
}

/**
 * uringcmd_block_query_answer() - the answer of a completed block query
 * @q: the query asked
 * @res: its cqe->res
 * @answer: the @answer given to uringcmd_prep_block_query(), or NULL
 * @val: the answer, widened to 64 bits as the kernel stores it
 *
 * Return: 0 with *@val set, or @res (-errno) when the query failed.
 */
static inline int uringcmd_block_query_answer(const struct uringcmd_block_query *q,
					      int res, const __u64 *answer,
					      __u64 *val)
{
	if (res < 0)
		return res;
	*val = q->needs_addr || (!res && answer) ? *answer : (__u64)res;
	return 0;
}

/* ---- probing: which of the commands a node takes ------------------------- */

/**
 * struct uringcmd_probe - what the probes found, each a cqe->res
 * @block_query: BLKSSZGET through BLOCK_URING_CMD_IOCTL: the logical block
 *	size (> 0) where the kernel has the block queries (the uringcmd
 *	series); -EOPNOTSUPP where block devices take no uring_cmd (Linux
 *	6.1 without the series), -EINVAL where they take only Linux 6.12's
 * @discard: BLOCK_URING_CMD_DISCARD through a read-only open: -EBADF where
 *	the kernel has the command and the device discards (the open mode is
 *	checked before anything is discarded), -EOPNOTSUPP where either
 *	lacks it
 * @nvme_admin: Identify Controller through NVME_URING_CMD_ADMIN: 0 where
 *	the node takes admin commands, -EACCES where it would with
 *	CAP_SYS_ADMIN, -EOPNOTSUPP or -ENOTTY where it takes none (a block
 *	node without the series, /dev/ngXnY on Linux 6.1)
 * @nvme_io: Flush through NVME_URING_CMD_IO, the same answers for I/O
 *	commands (/dev/nvmeX takes none)
 */
struct uringcmd_probe {
	int	block_query;
	int	discard;
	int	nvme_admin;
	int	nvme_io;
};

/* one prepared SQE of @ring submitted and waited for: its cqe->res */
static inline int uringcmd_probe_wait(struct io_uring *ring)
{
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/**
 * uringcmd_probe_block() - does this block device take the block commands?
 * @fd: an open block device, any open mode
 * @p: where @p->block_query and @p->discard are stored
 *
 * Sends two commands on a ring of its own: BLKSSZGET through
 * BLOCK_URING_CMD_IOCTL on @fd, and a discard of the first logical block
 * through a second, read-only open of the same node (/proc/self/fd), which
 * a kernel that has the command refuses with -EBADF before it discards
 * anything. Nothing is written. Ask the kernel this way, not its version.
 *
 * Return: 0 with @p filled in, -ENOTBLK for a file that is not a block
 * device (a char device may complete any uring_cmd in its own way:
 * /dev/null completes every one with 0), or -errno from the ring setup or
 * the second open.
 */
static inline int uringcmd_probe_block(int fd, struct uringcmd_probe *p)
{
	struct io_uring_sqe *sqe;
	struct io_uring ring;
	char path[32];
	struct stat st;
	__u64 answer;
	int ret, rofd;

	if (fstat(fd, &st))
		return errno ? -errno : -EIO;	/* never 0 with @p unfilled */
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rofd = open(path, O_RDONLY | O_CLOEXEC);
	if (rofd < 0)
		return errno ? -errno : -EIO;
	ret = io_uring_queue_init(2, &ring, 0);
	if (ret) {
		close(rofd);
		return ret;
	}
	sqe = io_uring_get_sqe(&ring);
	uringcmd_prep_block_query(sqe, fd, BLKSSZGET, &answer);
	p->block_query = uringcmd_probe_wait(&ring);
	if (p->block_query == 0)
		p->block_query = (int)answer;
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cmd_discard(sqe, rofd, 0, 4096);
	p->discard = uringcmd_probe_wait(&ring);
	io_uring_queue_exit(&ring);
	close(rofd);
	return 0;
}

/* ---- sockets: SIOCINQ, SIOCOUTQ, GETSOCKOPT and SETSOCKOPT ---------------- */

#if !URINGCMD_LIBURING_AT_LEAST(2, 5)
/*
 * sqe->cmd_op of IORING_OP_URING_CMD on a socket (enum io_uring_socket_op
 * of the kernel's <linux/io_uring.h>), which liburing 2.5 and later have in
 * <liburing/io_uring.h>. The kernel's header cannot be included beside
 * liburing: both use the include guard LINUX_IO_URING_H.
 */
enum {
	SOCKET_URING_OP_SIOCINQ		= 0,
	SOCKET_URING_OP_SIOCOUTQ,
	SOCKET_URING_OP_GETSOCKOPT,
	SOCKET_URING_OP_SETSOCKOPT,
};

/**
 * io_uring_prep_cmd_sock() - a socket command through io_uring
 * @sqe: the SQE to fill
 * @cmd_op: SOCKET_URING_OP_SIOCINQ, _SIOCOUTQ, _GETSOCKOPT or _SETSOCKOPT
 * @fd: the socket
 * @level: the option's level (SOL_SOCKET: GETSOCKOPT takes no other);
 *	0 for SIOCINQ/SIOCOUTQ
 * @optname: the option; 0 for SIOCINQ/SIOCOUTQ
 * @optval: the option's buffer, kept until the completion; NULL for
 *	SIOCINQ/SIOCOUTQ
 * @optlen: its length in bytes (a value, not a pointer); 0 for
 *	SIOCINQ/SIOCOUTQ
 *
 * liburing 2.5's helper (Debian 13's 2.9 has it), defined here only for an
 * older liburing, Debian 12's 2.3 among them; same SQE:
 * the optval, level, optname and optlen fields that liburing 2.3's struct
 * io_uring_sqe lacks are addr3, the two halves of addr and file_index.
 *
 * cqe->res: what ioctl(SIOCINQ) / ioctl(SIOCOUTQ) stores (bytes queued),
 * or -errno: -EINVAL where the ioctl fails so (a listening TCP socket),
 * -EOPNOTSUPP for a protocol without them. GETSOCKOPT: the length
 * getsockopt(2) would store in its optlen; SETSOCKOPT: 0; or the errno
 * the system call would give.
 */
static inline void io_uring_prep_cmd_sock(struct io_uring_sqe *sqe, int cmd_op,
					  int fd, int level, int optname,
					  void *optval, int optlen)
{
	__u32 lvl_name[2] = { (__u32)level, (__u32)optname };

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, 0, 0, 0);
	sqe->addr3 = (__u64)(uintptr_t)optval;
	memcpy(&sqe->addr, lvl_name, sizeof(lvl_name));
	sqe->file_index = (__u32)optlen;
	sqe->cmd_op = (__u32)cmd_op;
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* URINGCMD_H */
