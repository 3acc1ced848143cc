/* SPDX-License-Identifier: (GPL-2.0 OR MIT) */
/*
 * uringcmd.h - helpers for the io_uring commands of the uringcmd kernel
 * series on block devices and sockets, in liburing's style: each
 * uringcmd_prep_*() (or liburing-named io_uring_prep_*()) fills one SQE and
 * nothing more; what the completion carries is said beside each helper.
 *
 *   BLOCK_URING_CMD_IOCTL	read-only block ioctls ("block queries"), with
 *				the one table of which query answers where
 *   BLOCK_URING_CMD_DISCARD	Linux 6.12's discard: io_uring_prep_cmd_discard()
 *   SOCKET_URING_OP_SIOC*	socket SIOCINQ/SIOCOUTQ: io_uring_prep_cmd_sock()
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
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
#define _LINUX_BLKDEV_H
/* The series' include/uapi/linux/blkdev.h; see it for the full contract. */
#define BLOCK_URING_CMD_DISCARD			_IO(0x12, 0)
struct block_uring_cmd {
	__u32	ioctl_cmd;
	__u32	flags;
	__u64	addr;
};
#define BLOCK_URING_CMD_IOCTL	_IOWR(0x12, 0xc0, struct block_uring_cmd)
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

/* Block ioctls newer than some uapi headers (all answered by the series). */
#ifndef BLKGETZONESZ
#define BLKGETZONESZ	_IOR(0x12, 132, __u32)
#endif
#ifndef BLKGETNRZONES
#define BLKGETNRZONES	_IOR(0x12, 133, __u32)
#endif
#ifndef BLKGETDISKSEQ
#define BLKGETDISKSEQ	_IOR(0x12, 128, __u64)
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
 * liburing 2.8's helper, defined only for an older liburing; same signature
 * and same SQE: IORING_OP_URING_CMD, cmd_op BLOCK_URING_CMD_DISCARD, the
 * range in sqe->addr and sqe->addr3, no payload. Unlike the BLKDISCARD
 * ioctl it does not invalidate the page cache of the range nor exclude
 * concurrent buffered writes.
 *
 * cqe->res: 0 once the range is discarded, or -errno: -EOPNOTSUPP where
 * the kernel has no BLOCK_URING_CMD_DISCARD (fall back to ioctl(BLKDISCARD))
 * or the device cannot discard, -EINVAL for a misaligned or out-of-range
 * request, -EBADF for an fd not open for writing.
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

#ifdef __cplusplus
}
#endif

#endif /* URINGCMD_H */
