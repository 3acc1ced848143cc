/* SPDX-License-Identifier: GPL-2.0 */
/*
 * uringcmd-nvme.h - NVMe passthrough through io_uring, on /dev/nvmeXnY (the
 * block node, with the uringcmd series), /dev/ngXnY and /dev/nvmeX: command
 * builders, the SQE helpers and result decoding, in liburing's style.
 *
 * The ABI is Linux's: a ring set up with IORING_SETUP_SQE128 |
 * IORING_SETUP_CQE32 (uringcmd_nvme_queue_init()), IORING_OP_URING_CMD with
 * cmd_op NVME_URING_CMD_IO, _IO_VEC, _ADMIN or _ADMIN_VEC and a struct
 * nvme_uring_cmd in sqe->cmd. A completion carries in cqe->res 0, the NVMe
 * status (> 0: status code type and code, with the CRD, More and DNR bits,
 * as the passthrough ioctls return it) or -errno, and in cqe->big_cqe[0]
 * the command's result (dword 0).
 *
 * struct nvme_uring_cmd and NVME_URING_CMD_* come from the kernel's
 * <linux/nvme_ioctl.h>; the NVMe opcodes, identify and log structures and
 * status decoding from libnvme 1.3 (<nvme/types.h>, <nvme/util.h>).
 * libnvme 1.3's <nvme/ioctl.h> (and <libnvme.h>, <nvme/linux.h>,
 * <nvme/tree.h>, which include it) defines struct nvme_uring_cmd
 * and struct nvme_passthru_cmd itself: a file that includes this header
 * must not include those; use libnvme's functions from another file.
 *
 * Define URINGCMD_NO_LIBNVME where the program is not linked with libnvme
 * (Debian's libnvme-dev is not multiarch, so -m32 builds have its headers
 * only): statuses are then printed as numbers.
 */
#ifndef URINGCMD_NVME_H
#define URINGCMD_NVME_H

#include <endian.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <linux/nvme_ioctl.h>
#include <nvme/types.h>
#include <nvme/util.h>

#include "uringcmd.h"

#if defined(_LIBNVME_IOCTL_H)
#error "uringcmd-nvme.h: libnvme's <nvme/ioctl.h> redefines struct nvme_uring_cmd; include it in another file"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * uringcmd_nvme_queue_init() - a ring of the shape NVMe passthrough needs
 * @entries: as for io_uring_queue_init()
 * @ring: as for io_uring_queue_init()
 * @flags: more setup flags: IORING_SETUP_IOPOLL (I/O commands only),
 *	IORING_SETUP_SQPOLL, ...
 *
 * Return: 0 or -errno (-EINVAL before Linux 6.0, which lacks SQE128/CQE32).
 */
static inline int uringcmd_nvme_queue_init(unsigned int entries,
					   struct io_uring *ring,
					   unsigned int flags)
{
	return io_uring_queue_init(entries, ring, IORING_SETUP_SQE128 |
				   IORING_SETUP_CQE32 | flags);
}

/* ---- building commands -------------------------------------------------- */

/**
 * uringcmd_nvme_cmd() - a command with one data buffer
 * @c: the command to fill; everything not named here is zeroed
 * @opcode: nvme_admin_* or nvme_cmd_* (libnvme's enums)
 * @nsid: the namespace (0 or NVME_NSID_ALL where the command allows)
 * @buf: the data buffer, or NULL
 * @len: its length in bytes
 * @cdw10: command dword 10
 * @cdw11: command dword 11
 */
static inline void uringcmd_nvme_cmd(struct nvme_uring_cmd *c, __u8 opcode,
				     __u32 nsid, void *buf, __u32 len,
				     __u32 cdw10, __u32 cdw11)
{
	memset(c, 0, sizeof(*c));
	c->opcode = opcode;
	c->nsid = nsid;
	c->addr = (__u64)(uintptr_t)buf;
	c->data_len = len;
	c->cdw10 = cdw10;
	c->cdw11 = cdw11;
}

/**
 * uringcmd_nvme_identify() - Identify (admin), NVME_IDENTIFY_DATA_SIZE bytes
 * @c: the command to fill
 * @nsid: the namespace for the per-namespace CNS values, else 0
 * @cns: NVME_IDENTIFY_CNS_CTRL, NVME_IDENTIFY_CNS_NS, ...
 * @buf: 4096 bytes (struct nvme_id_ctrl, struct nvme_id_ns, ...)
 */
static inline void uringcmd_nvme_identify(struct nvme_uring_cmd *c, __u32 nsid,
					  __u8 cns, void *buf)
{
	uringcmd_nvme_cmd(c, nvme_admin_identify, nsid, buf,
			  NVME_IDENTIFY_DATA_SIZE, cns, 0);
}

/**
 * uringcmd_nvme_identify_csi() - Identify (admin) of an I/O command set
 * @c: the command to fill
 * @nsid: the namespace for the per-namespace CNS values, else 0
 * @cns: NVME_IDENTIFY_CNS_CSI_NS, NVME_IDENTIFY_CNS_CSI_CTRL, ...
 * @csi: the command set: NVME_CSI_ZNS (struct nvme_zns_id_ns, ...)
 * @buf: 4096 bytes
 *
 * A namespace of another command set answers the per-namespace CNS values
 * with Invalid Field in Command.
 */
static inline void uringcmd_nvme_identify_csi(struct nvme_uring_cmd *c,
					      __u32 nsid, __u8 cns, __u8 csi,
					      void *buf)
{
	uringcmd_nvme_identify(c, nsid, cns, buf);
	c->cdw11 = (__u32)csi << 24;	/* CSI: bits 31:24 */
}

/**
 * uringcmd_nvme_get_log() - Get Log Page (admin), from offset 0
 * @c: the command to fill
 * @nsid: the namespace, or NVME_NSID_ALL for controller-wide logs
 * @lid: the log, NVME_LOG_LID_SMART (struct nvme_smart_log), ...
 * @buf: @len bytes
 * @len: bytes to read, a non-zero multiple of 4
 */
static inline void uringcmd_nvme_get_log(struct nvme_uring_cmd *c, __u32 nsid,
					 __u8 lid, void *buf, __u32 len)
{
	__u32 numd = len / 4 - 1;	/* 0's based dwords */

	uringcmd_nvme_cmd(c, nvme_admin_get_log_page, nsid, buf, len,
			  lid | (numd & 0xffff) << 16, numd >> 16);
}

/**
 * uringcmd_nvme_get_features() - Get Features (admin)
 * @c: the command to fill
 * @fid: the feature, NVME_FEAT_FID_NUM_QUEUES, ...
 * @sel: NVME_GET_FEATURES_SEL_CURRENT (0), _DEFAULT, _SAVED, _SUPPORTED
 * @buf: the data structure of features that have one, else NULL
 * @len: its length (4096 for LBA Range Type, 256 for APST, 8 for the
 *	Timestamp), else 0
 *
 * The value is the completion's result: cqe->big_cqe[0].
 */
static inline void uringcmd_nvme_get_features(struct nvme_uring_cmd *c,
					      __u8 fid, __u8 sel, void *buf,
					      __u32 len)
{
	uringcmd_nvme_cmd(c, nvme_admin_get_features, 0, buf, len,
			  fid | (__u32)(sel & 7) << 8, 0);
}

/**
 * uringcmd_nvme_set_features() - Set Features (admin)
 * @c: the command to fill
 * @fid: the feature
 * @cdw11: its value
 * @save: keep it across power cycles (bit 31 of cdw10)
 * @buf: the data structure of features that have one, else NULL
 * @len: its length, else 0
 */
static inline void uringcmd_nvme_set_features(struct nvme_uring_cmd *c,
					      __u8 fid, __u32 cdw11, bool save,
					      void *buf, __u32 len)
{
	uringcmd_nvme_cmd(c, nvme_admin_set_features, 0, buf, len,
			  fid | (save ? 1u << 31 : 0), cdw11);
}

/**
 * uringcmd_nvme_rw() - Read or Write (I/O) of whole logical blocks
 * @c: the command to fill
 * @opcode: nvme_cmd_read or nvme_cmd_write
 * @nsid: the namespace
 * @buf: the data, @len bytes
 * @len: @nlb logical blocks' worth of bytes (no metadata)
 * @slba: first logical block
 * @nlb: number of logical blocks, at least 1
 *
 * For NVME_URING_CMD_IO. uringcmd_nvme_rw_vec() for the vectored form,
 * uringcmd_nvme_set_metadata() for a separate metadata buffer.
 */
static inline void uringcmd_nvme_rw(struct nvme_uring_cmd *c, __u8 opcode,
				    __u32 nsid, void *buf, __u32 len,
				    __u64 slba, __u32 nlb)
{
	uringcmd_nvme_cmd(c, opcode, nsid, buf, len, (__u32)slba,
			  (__u32)(slba >> 32));
	c->cdw12 = nlb - 1;	/* 0's based */
}

/**
 * uringcmd_nvme_rw_vec() - Read or Write (I/O) from an iovec array
 * @c: the command to fill
 * @opcode: nvme_cmd_read or nvme_cmd_write
 * @nsid: the namespace
 * @iov: the buffers, together @nlb logical blocks
 * @nr_iov: how many
 * @slba: first logical block
 * @nlb: number of logical blocks, at least 1
 *
 * For NVME_URING_CMD_IO_VEC: addr is the array, data_len its length. Not
 * with registered buffers (IORING_URING_CMD_FIXED).
 */
static inline void uringcmd_nvme_rw_vec(struct nvme_uring_cmd *c, __u8 opcode,
					__u32 nsid, const struct iovec *iov,
					__u32 nr_iov, __u64 slba, __u32 nlb)
{
	uringcmd_nvme_rw(c, opcode, nsid, (void *)(uintptr_t)iov, nr_iov, slba,
			 nlb);
}

/**
 * uringcmd_nvme_flush() - Flush (I/O)
 * @c: the command to fill
 * @nsid: the namespace
 */
static inline void uringcmd_nvme_flush(struct nvme_uring_cmd *c, __u32 nsid)
{
	uringcmd_nvme_cmd(c, nvme_cmd_flush, nsid, NULL, 0, 0, 0);
}

/**
 * uringcmd_nvme_dsm_deallocate() - Dataset Management (I/O): deallocate ranges
 * @c: the command to fill
 * @nsid: the namespace
 * @ranges: @nr ranges, each filled with uringcmd_nvme_dsm_range()
 * @nr: how many, 1 to 256
 *
 * One command for every range, as fio's io_uring_cmd sends num_range=
 * trims. What a deallocated block reads as is the namespace's DLFEAT
 * (bits 2:0): zeroes, all ones, or not reported.
 */
static inline void uringcmd_nvme_dsm_deallocate(struct nvme_uring_cmd *c, __u32 nsid,
						struct nvme_dsm_range *ranges,
						__u32 nr)
{
	uringcmd_nvme_cmd(c, nvme_cmd_dsm, nsid, ranges,
			  nr * (__u32)sizeof(*ranges), nr - 1, NVME_DSMGMT_AD);
}

/**
 * uringcmd_nvme_dsm_range() - one range of a Dataset Management command
 * @r: the range to fill (little-endian, as the controller reads it)
 * @slba: first logical block
 * @nlb: number of logical blocks, at least 1 (not 0's based)
 */
static inline void uringcmd_nvme_dsm_range(struct nvme_dsm_range *r, __u64 slba,
					   __u32 nlb)
{
	r->cattr = 0;
	r->nlb = htole32(nlb);
	r->slba = htole64(slba);
}

/**
 * uringcmd_nvme_zone_report() - Zone Management Receive (I/O): Report Zones
 * @c: the command to fill
 * @nsid: a zoned namespace (Zoned Namespace Command Set)
 * @slba: a logical block of the first zone to report
 * @buf: @len bytes: a struct nvme_zone_report, then its descriptors
 *	(struct nvme_zns_desc, 64 bytes each)
 * @len: a multiple of 4; 64 bytes of header plus 64 per descriptor wanted
 * @zrasf: which zones: NVME_ZNS_ZRAS_REPORT_ALL, _EMPTY, _FULL, ...
 *
 * A partial report: nr_zones counts the descriptors returned, not every
 * zone from @slba on. Little-endian fields, as libnvme's structures are.
 */
static inline void uringcmd_nvme_zone_report(struct nvme_uring_cmd *c, __u32 nsid,
					     __u64 slba, void *buf, __u32 len,
					     __u8 zrasf)
{
	uringcmd_nvme_cmd(c, nvme_zns_cmd_mgmt_recv, nsid, buf, len, (__u32)slba,
			  (__u32)(slba >> 32));
	c->cdw12 = (len >> 2) - 1;	/* dwords, 0's based */
	c->cdw13 = NVME_ZNS_ZRA_REPORT_ZONES | (__u32)zrasf << 8 | 1u << 16;
}

/**
 * uringcmd_nvme_zone_mgmt() - Zone Management Send (I/O), no data
 * @c: the command to fill
 * @nsid: a zoned namespace
 * @slba: the zone's first logical block (ignored with @all)
 * @zsa: the action: NVME_ZNS_ZSA_RESET, _OPEN, _CLOSE, _FINISH, _OFFLINE
 * @all: Select All, the action on every zone it applies to
 *
 * NVME_ZNS_ZSA_RESET moves the zone's write pointer back to its start
 * (the zone becomes Empty, its data unreadable as written).
 */
static inline void uringcmd_nvme_zone_mgmt(struct nvme_uring_cmd *c, __u32 nsid,
					   __u64 slba, __u8 zsa, bool all)
{
	uringcmd_nvme_cmd(c, nvme_zns_cmd_mgmt_send, nsid, NULL, 0, (__u32)slba,
			  (__u32)(slba >> 32));
	c->cdw13 = zsa | (all ? 1u << 8 : 0);
}

/**
 * uringcmd_nvme_ruh_status() - I/O Management Receive (I/O): Reclaim Unit Handle Status
 * @c: the command to fill
 * @nsid: a namespace of an endurance group with Flexible Data Placement
 * @buf: @len bytes: a struct nvme_fdp_ruh_status (16 bytes), then its
 *	descriptors (struct nvme_fdp_ruh_status_desc, 32 bytes each)
 * @len: a multiple of 4; 16 bytes for the count alone
 *
 * Management Operation 1 (NVME_IO_MGMT_RECV_RUH_STATUS, libnvme 1.3):
 * one descriptor for each placement handle the namespace may write
 * through, with its Placement Identifier (pid: what a write's DSPEC
 * names), the Reclaim Unit Handle it maps to (ruhid) and that handle's
 * Reclaim Unit Available Media Writes (ruamw, in logical blocks), which
 * falls by each block written through it. nruhsd counts every
 * descriptor, whether @len holds them all or not. Multi-byte fields are
 * little-endian (libnvme 1.3 declares them __u16, __u32, __u64).
 * fio's io_uring_cmd asks this for fdp=1 (its fdp_fetch_ruhs hook).
 * A namespace without FDP completes it with an NVMe status: Invalid
 * Opcode where the controller lacks the command (QEMU 7.2), FDP Disabled
 * or Invalid Field in Command (QEMU 10, in and outside an nvme-subsys).
 */
static inline void uringcmd_nvme_ruh_status(struct nvme_uring_cmd *c, __u32 nsid,
					    void *buf, __u32 len)
{
	uringcmd_nvme_cmd(c, nvme_cmd_io_mgmt_recv, nsid, buf, len,
			  NVME_IO_MGMT_RECV_RUH_STATUS, (len >> 2) - 1);
}

/*
 * The Flexible Data Placement directive type (NVMe TP 4146): libnvme 1.3
 * names only Streams' (NVME_DIRECTIVE_DTYPE_STREAMS, 1), and no libnvme
 * release this project knows of names FDP's.
 */
#define URINGCMD_NVME_DTYPE_FDP	2

/**
 * uringcmd_nvme_set_placement() - a data placement directive on a write
 * @c: a built Write or Write Zeroes
 * @dtype: the directive type: URINGCMD_NVME_DTYPE_FDP,
 *	NVME_DIRECTIVE_DTYPE_STREAMS, or 0 for none
 * @dspec: the directive's specific value: for FDP the placement handle,
 *	a Placement Identifier as uringcmd_nvme_ruh_status() lists them
 *	(its reclaim group in the high bits); for Streams the stream id
 *
 * DTYPE in cdw12 bits 23:20 (the control field's bits 7:4, cdw12 bits
 * 31:16, where libnvme's NVME_IO_DTYPE_STREAMS is 1 << 4), DSPEC in cdw13
 * bits 31:16, as fio's io_uring_cmd sends them for fdp=1 and
 * dataplacement=; the other bits of both dwords are kept. A controller
 * without the directive enabled fails the write (Invalid Field in
 * Command), or, for FDP, one given a placement handle the namespace does
 * not have (Invalid Placement Handle).
 */
static inline void uringcmd_nvme_set_placement(struct nvme_uring_cmd *c,
					       __u8 dtype, __u16 dspec)
{
	c->cdw12 = (c->cdw12 & ~(0xfu << 20)) | (__u32)(dtype & 0xf) << 20;
	c->cdw13 = (c->cdw13 & 0xffff) | (__u32)dspec << 16;
}

/**
 * uringcmd_nvme_set_metadata() - a separate metadata buffer for @c
 * @c: a built command
 * @md: the buffer
 * @len: its length: nlb times the metadata bytes per block
 *
 * For namespaces formatted with separate metadata (FLBAS bit 4 clear);
 * with extended LBAs the metadata is inside the data buffer.
 */
static inline void uringcmd_nvme_set_metadata(struct nvme_uring_cmd *c,
					      void *md, __u32 len)
{
	c->metadata = (__u64)(uintptr_t)md;
	c->metadata_len = len;
}

#define URINGCMD_NVME_TO_PASSTHRU(c, p)					\
	do {								\
		memset((p), 0, sizeof(*(p)));				\
		(p)->opcode = (c)->opcode;				\
		(p)->flags = (c)->flags;				\
		(p)->nsid = (c)->nsid;					\
		(p)->cdw2 = (c)->cdw2;					\
		(p)->cdw3 = (c)->cdw3;					\
		(p)->metadata = (c)->metadata;				\
		(p)->addr = (c)->addr;					\
		(p)->metadata_len = (c)->metadata_len;			\
		(p)->data_len = (c)->data_len;				\
		(p)->cdw10 = (c)->cdw10;				\
		(p)->cdw11 = (c)->cdw11;				\
		(p)->cdw12 = (c)->cdw12;				\
		(p)->cdw13 = (c)->cdw13;				\
		(p)->cdw14 = (c)->cdw14;				\
		(p)->cdw15 = (c)->cdw15;				\
		(p)->timeout_ms = (c)->timeout_ms;			\
	} while (0)

/**
 * uringcmd_nvme_to_passthru() - the same command for the passthrough ioctls
 * @c: a built command
 * @p: the struct nvme_passthru_cmd for NVME_IOCTL_ADMIN_CMD / _IO_CMD
 *
 * For comparing with the synchronous path, or falling back to it.
 */
static inline void uringcmd_nvme_to_passthru(const struct nvme_uring_cmd *c,
					     struct nvme_passthru_cmd *p)
{
	URINGCMD_NVME_TO_PASSTHRU(c, p);
}

/**
 * uringcmd_nvme_to_passthru64() - the same for NVME_IOCTL_ADMIN64_CMD / _IO64_CMD
 * @c: a built command
 * @p: the struct nvme_passthru_cmd64 to fill (64-bit result)
 */
static inline void uringcmd_nvme_to_passthru64(const struct nvme_uring_cmd *c,
					       struct nvme_passthru_cmd64 *p)
{
	URINGCMD_NVME_TO_PASSTHRU(c, p);
}

/* ---- the SQE ------------------------------------------------------------ */

/**
 * uringcmd_prep_nvme() - NVMe passthrough: one command in one SQE
 * @sqe: an SQE of an SQE128 ring (uringcmd_nvme_queue_init())
 * @fd: /dev/nvmeXnY, /dev/ngXnY, or /dev/nvmeX (admin only)
 * @cmd_op: NVME_URING_CMD_ADMIN, _ADMIN_VEC, _IO or _IO_VEC
 * @c: the command, copied into sqe->cmd (all 80 bytes are written)
 *
 * cqe->res: 0, the NVMe status (> 0; uringcmd_nvme_res_str() names it) or
 * -errno: -EACCES without CAP_SYS_ADMIN, -EINVAL for an I/O command with
 * another namespace's nsid, -EOPNOTSUPP for a ring without SQE128/CQE32,
 * an admin command on an IOPOLL ring, or a kernel without passthrough on
 * that node, -ENODEV on a multipath head without a usable path, -EFAULT
 * for a bad buffer. The result dword: uringcmd_nvme_cqe_result().
 */
static inline void uringcmd_prep_nvme(struct io_uring_sqe *sqe, int fd,
				      __u32 cmd_op,
				      const struct nvme_uring_cmd *c)
{
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, 0, 0, 0);
	sqe->cmd_op = cmd_op;
	memset(sqe->cmd, 0, 80);
	memcpy(sqe->cmd, c, sizeof(*c));
}

/**
 * uringcmd_prep_nvme_fixed() - uringcmd_prep_nvme() on a registered buffer
 * @sqe: an SQE of an SQE128 ring
 * @fd: as for uringcmd_prep_nvme()
 * @cmd_op: NVME_URING_CMD_ADMIN or NVME_URING_CMD_IO (not the _VEC forms)
 * @c: the command; c->addr within the registered buffer
 * @buf_index: the buffer registered with io_uring_register_buffers() that
 *	holds c->addr .. c->addr + c->data_len
 */
static inline void uringcmd_prep_nvme_fixed(struct io_uring_sqe *sqe, int fd,
					    __u32 cmd_op,
					    const struct nvme_uring_cmd *c,
					    unsigned int buf_index)
{
	uringcmd_prep_nvme(sqe, fd, cmd_op, c);
	sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
	sqe->buf_index = (__u16)buf_index;
}

/* ---- results ------------------------------------------------------------ */

/**
 * uringcmd_nvme_cqe_result() - the result dword of a passthrough completion
 * @cqe: a 32-byte CQE (IORING_SETUP_CQE32)
 *
 * Return: cqe->big_cqe[0], the command's result (dword 0 and 1).
 */
static inline __u64 uringcmd_nvme_cqe_result(const struct io_uring_cqe *cqe)
{
	return cqe->big_cqe[0];
}

/**
 * uringcmd_nvme_res_is_status() - @res is an NVMe status with code @sc
 * @res: cqe->res, or what a passthrough ioctl returned
 * @sct: status code type (NVME_SCT_GENERIC, ...)
 * @sc: status code (NVME_SC_INVALID_OPCODE, ...)
 *
 * The CRD, More and DNR bits are ignored, as in libnvme's
 * nvme_status_code_type() and nvme_status_code().
 *
 * Return: true for that status.
 */
static inline bool uringcmd_nvme_res_is_status(int res, unsigned int sct,
					       unsigned int sc)
{
	return res > 0 && nvme_status_code_type((__u16)res) == sct &&
	       nvme_status_code((__u16)res) == sc;
}

/**
 * uringcmd_nvme_res_errno() - a passthrough result as one errno
 * @res: cqe->res, or what a passthrough ioctl returned
 *
 * Return: 0, -errno for an errno, or for an NVMe status the errno libnvme's
 * nvme_status_to_errno() gives it, negated (-EIO without libnvme).
 */
static inline int uringcmd_nvme_res_errno(int res)
{
	if (res <= 0)
		return res;
#ifdef URINGCMD_NO_LIBNVME
	return -EIO;
#else
	return -(int)nvme_status_to_errno(res, false);
#endif
}

/**
 * uringcmd_nvme_res_str() - a passthrough result in words
 * @res: cqe->res, or what a passthrough ioctl returned
 * @buf: where to write "0", "-22 (Invalid argument)" or
 *	"NVMe status 0x4001 (Invalid Command Opcode: ...)"
 * @len: its size
 *
 * Statuses are named by libnvme's nvme_status_to_string() (by number with
 * URINGCMD_NO_LIBNVME).
 *
 * Return: @buf.
 */
static inline const char *uringcmd_nvme_res_str(int res, char *buf, size_t len)
{
	if (res < 0)
		snprintf(buf, len, "%d (%s)", res, strerror(-res));
	else if (!res)
		snprintf(buf, len, "0");
	else
#ifdef URINGCMD_NO_LIBNVME
		snprintf(buf, len, "NVMe status %#x", res);
#else
		snprintf(buf, len, "NVMe status %#x (%s)", res,
			 nvme_status_to_string(res, false));
#endif
	return buf;
}

/* ---- protection information -------------------------------------------- */

/**
 * uringcmd_nvme_crc_t10dif() - the guard of 16-bit protection information
 * @crc: 0 to start, or the guard of the bytes before @buf to go on
 * @buf: the bytes
 * @len: how many
 *
 * CRC-16/T10-DIF: polynomial 0x8bb7, initial value 0, no reflection, as the
 * kernel's crc_t10dif() and the NVMe 16-bit guard. The guard of a logical
 * block covers its data (and, with PI in the last bytes of the metadata,
 * the metadata bytes before it); it is stored big-endian.
 *
 * Return: the CRC.
 */
static inline __u16 uringcmd_nvme_crc_t10dif(__u16 crc, const void *buf,
					     size_t len)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i;
	int b;

	for (i = 0; i < len; i++) {
		crc ^= (__u16)(p[i] << 8);
		for (b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (__u16)((crc << 1) ^ 0x8bb7) :
					     (__u16)(crc << 1);
	}
	return crc;
}

/**
 * struct uringcmd_nvme_pi16 - protection information of a 16-bit guard format
 * @guard: CRC-16/T10-DIF (uringcmd_nvme_crc_t10dif()), big-endian
 * @apptag: application tag, big-endian
 * @reftag: reference tag (types 1 and 2: the LBA's low 32 bits), big-endian
 *
 * The 8 bytes in the first or the last bytes of each block's metadata (DPS
 * bit 3, "PI first").
 */
struct uringcmd_nvme_pi16 {
	__u16	guard;
	__u16	apptag;
	__u32	reftag;
} __attribute__((packed));

/**
 * struct uringcmd_nvme_pi_layout - where PI is and how it is checked
 * @lbs: data bytes per logical block
 * @ms: metadata bytes per logical block (separate metadata), 8 or more
 * @pi_first: PI in the first 8 bytes of the metadata, else in the last
 * @pi_type: 1, 2 or 3 (DPS bits 2:0)
 */
struct uringcmd_nvme_pi_layout {
	unsigned int	lbs;
	unsigned int	ms;
	bool		pi_first;
	unsigned int	pi_type;
};

static inline struct uringcmd_nvme_pi16 *
uringcmd_nvme_pi16_of(const struct uringcmd_nvme_pi_layout *l, void *md,
		      __u32 b)
{
	unsigned char *m = (unsigned char *)md + (size_t)b * l->ms;

	return (struct uringcmd_nvme_pi16 *)(l->pi_first ? m : m + l->ms - 8);
}

/* The guard of block @b: its data, then the metadata bytes before its PI. */
static inline __u16 uringcmd_nvme_pi16_guard(const struct uringcmd_nvme_pi_layout *l,
					     const void *data, const void *md,
					     __u32 b)
{
	__u16 crc;

	crc = uringcmd_nvme_crc_t10dif(0, (const unsigned char *)data +
				       (size_t)b * l->lbs, l->lbs);
	if (!l->pi_first)
		crc = uringcmd_nvme_crc_t10dif(crc, (const unsigned char *)md +
					       (size_t)b * l->ms, l->ms - 8);
	return crc;
}

/**
 * uringcmd_nvme_pi16_generate() - the host's PI for a write without PRACT
 * @l: the namespace's layout
 * @data: @nlb blocks of data
 * @md: their separate metadata, @nlb times @l->ms bytes
 * @slba: the first block's LBA
 * @nlb: how many blocks
 * @apptag: the application tag
 *
 * Fills every block's guard, application tag and (types 1 and 2) reference
 * tag, the LBA's low 32 bits; type 3 gets the reference tag 0. The command
 * then carries PRACT clear and cdw14 = (__u32)@slba.
 */
static inline void uringcmd_nvme_pi16_generate(const struct uringcmd_nvme_pi_layout *l,
					       const void *data, void *md,
					       __u64 slba, __u32 nlb, __u16 apptag)
{
	__u32 b;

	for (b = 0; b < nlb; b++) {
		struct uringcmd_nvme_pi16 *pi = uringcmd_nvme_pi16_of(l, md, b);

		pi->guard = htobe16(uringcmd_nvme_pi16_guard(l, data, md, b));
		pi->apptag = htobe16(apptag);
		pi->reftag = htobe32(l->pi_type == 3 ? 0 : (__u32)(slba + b));
	}
}

/**
 * struct uringcmd_nvme_pi_error - the first mismatch uringcmd_nvme_pi16_check() found
 * @block: its index in the I/O (LBA: slba + block)
 * @field: NVME_IO_PRINFO_PRCHK_GUARD, _APP or _REF
 * @expected: what the host computed (the application tag masked)
 * @actual: what the metadata holds (masked likewise)
 */
struct uringcmd_nvme_pi_error {
	__u32		block;
	unsigned int	field;
	__u32		expected;
	__u32		actual;
};

/**
 * uringcmd_nvme_pi16_check() - check PI returned by a read without PRACT
 * @l: the namespace's layout
 * @data: @nlb blocks of data
 * @md: their separate metadata
 * @slba: the first block's LBA
 * @nlb: how many blocks
 * @prchk: the fields to check: NVME_IO_PRINFO_PRCHK_GUARD, _APP, _REF
 *         (libnvme's values, the bits of pi_chk)
 * @apptag: the expected application tag
 * @apptag_mask: its bits that are compared
 * @err: filled with the first mismatch
 *
 * As the controller checks: a block whose application tag is FFFFh (types 1
 * and 2), or whose application tag is FFFFh and reference tag FFFFFFFFh
 * (type 3), is not checked; type 3 has no reference tag check.
 *
 * Return: 0, or -EIO with @err filled.
 */
static inline int uringcmd_nvme_pi16_check(const struct uringcmd_nvme_pi_layout *l,
					   const void *data, const void *md,
					   __u64 slba, __u32 nlb, unsigned int prchk,
					   __u16 apptag, __u16 apptag_mask,
					   struct uringcmd_nvme_pi_error *err)
{
	__u32 b;

	for (b = 0; b < nlb; b++) {
		const struct uringcmd_nvme_pi16 *pi =
			uringcmd_nvme_pi16_of(l, (void *)(uintptr_t)md, b);
		__u16 app = be16toh(pi->apptag);
		__u32 ref = be32toh(pi->reftag);

		err->block = b;
		if (app == 0xffff && (l->pi_type != 3 || ref == 0xffffffff))
			continue;
		if (prchk & NVME_IO_PRINFO_PRCHK_GUARD) {
			err->field = NVME_IO_PRINFO_PRCHK_GUARD;
			err->expected = uringcmd_nvme_pi16_guard(l, data, md, b);
			err->actual = be16toh(pi->guard);
			if (err->expected != err->actual)
				return -EIO;
		}
		if (prchk & NVME_IO_PRINFO_PRCHK_APP) {
			err->field = NVME_IO_PRINFO_PRCHK_APP;
			err->expected = apptag & apptag_mask;
			err->actual = app & apptag_mask;
			if (err->expected != err->actual)
				return -EIO;
		}
		if ((prchk & NVME_IO_PRINFO_PRCHK_REF) && l->pi_type != 3) {
			err->field = NVME_IO_PRINFO_PRCHK_REF;
			err->expected = (__u32)(slba + b);
			err->actual = ref;
			if (err->expected != err->actual)
				return -EIO;
		}
	}
	return 0;
}

/* ---- probing ------------------------------------------------------------ */

/**
 * uringcmd_nvme_node() - is @fd an NVMe node?
 * @fd: an open file
 *
 * An NVMe namespace's block node (a path's or a multipath head's), its
 * generic char node /dev/ngXnY or a controller /dev/nvmeX, as sysfs files
 * the device (/sys/dev/{block,char}/MAJOR:MINOR under an nvme class).
 * Check before sending a command to a node a user named: another char
 * device may complete a uring_cmd in its own way (/dev/null completes
 * every one with 0).
 *
 * Return: true for an NVMe node.
 */
static inline bool uringcmd_nvme_node(int fd)
{
	char link[64], path[PATH_MAX];
	struct stat st;

	if (fstat(fd, &st) || !(S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)))
		return false;
	snprintf(link, sizeof(link), "/sys/dev/%s/%u:%u",
		 S_ISBLK(st.st_mode) ? "block" : "char", major(st.st_rdev),
		 minor(st.st_rdev));
	if (!realpath(link, path))
		return false;
	return strstr(path, "/nvme") != NULL;
}

/**
 * uringcmd_nvme_probe() - does this NVMe node take passthrough commands?
 * @fd: /dev/nvmeXnY, /dev/ngXnY or /dev/nvmeX
 * @nsid: the namespace for the I/O probe; 0: no I/O probe (@p->nvme_io
 *	is then -EOPNOTSUPP)
 * @p: where @p->nvme_admin and @p->nvme_io are stored
 *
 * Sends, on a ring of its own, Identify Controller through
 * NVME_URING_CMD_ADMIN and Flush of @nsid through NVME_URING_CMD_IO (no
 * data; the device writes back its volatile cache), each waited for. An
 * NVMe status (> 0) means the node took the command and the device
 * refused it.
 *
 * Return: 0 with @p filled in, -ENODEV for a node that is not NVMe
 * (uringcmd_nvme_node()), or -errno from the ring setup or the buffer.
 */
static inline int uringcmd_nvme_probe(int fd, __u32 nsid,
				      struct uringcmd_probe *p)
{
	struct nvme_uring_cmd c;
	struct io_uring ring;
	void *buf;
	int ret;

	if (!uringcmd_nvme_node(fd))
		return -ENODEV;
	if (posix_memalign(&buf, 4096, NVME_IDENTIFY_DATA_SIZE))
		return -ENOMEM;
	ret = uringcmd_nvme_queue_init(2, &ring, 0);
	if (ret) {
		free(buf);
		return ret;
	}
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
	uringcmd_prep_nvme(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_ADMIN, &c);
	p->nvme_admin = uringcmd_probe_wait(&ring);
	p->nvme_io = -EOPNOTSUPP;
	if (nsid) {
		uringcmd_nvme_flush(&c, nsid);
		uringcmd_prep_nvme(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_IO, &c);
		p->nvme_io = uringcmd_probe_wait(&ring);
	}
	io_uring_queue_exit(&ring);
	free(buf);
	return 0;
}

/* ---- the namespace's format --------------------------------------------- */

/**
 * uringcmd_nvme_ns_lbaf() - the LBA format in use (0 to 63)
 * @ns: Identify Namespace data
 *
 * FLBAS bits 3:0 and, for namespaces with more than 16 formats, bits 6:5
 * as the high bits: libnvme's nvme_id_ns_flbas_to_lbaf_inuse().
 *
 * Return: the index into @ns->lbaf[].
 */
static inline unsigned int uringcmd_nvme_ns_lbaf(const struct nvme_id_ns *ns)
{
	__u8 idx;

	nvme_id_ns_flbas_to_lbaf_inuse(ns->flbas, &idx);
	return idx;
}

/** uringcmd_nvme_ns_lba_shift() - log2 of the data bytes per logical block */
static inline unsigned int uringcmd_nvme_ns_lba_shift(const struct nvme_id_ns *ns)
{
	return ns->lbaf[uringcmd_nvme_ns_lbaf(ns)].ds;
}

/** uringcmd_nvme_ns_ms() - metadata bytes per logical block */
static inline unsigned int uringcmd_nvme_ns_ms(const struct nvme_id_ns *ns)
{
	return le16toh(ns->lbaf[uringcmd_nvme_ns_lbaf(ns)].ms);
}

/**
 * uringcmd_nvme_ns_extended() - metadata inside the data buffer
 * @ns: Identify Namespace data
 *
 * True for extended LBAs (FLBAS bit 4) with metadata: the data buffer
 * holds each block's metadata after its data; no separate buffer.
 *
 * Return: true for extended LBAs.
 */
static inline bool uringcmd_nvme_ns_extended(const struct nvme_id_ns *ns)
{
	return uringcmd_nvme_ns_ms(ns) && (ns->flbas & NVME_NS_FLBAS_META_EXT);
}

#ifdef __cplusplus
}
#endif

#endif /* URINGCMD_NVME_H */
