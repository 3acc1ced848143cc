// SPDX-License-Identifier: GPL-2.0
/*
 * uringcmd: a fio ioengine for io_uring commands (IORING_OP_URING_CMD) on
 * Linux block device nodes, as added by the uringcmd kernel series:
 *
 *   - NVMe admin commands on the namespace's block node (/dev/nvme0n1):
 *     identify controller, identify namespace, get log page, get features;
 *   - NVMe reads and writes as passthrough on the block node (and Flush
 *     for fio's fsync=/fdatasync=), discards (rw=trim) as Linux 6.12's
 *     BLOCK_URING_CMD_DISCARD;
 *   - block device queries (BLKBSZGET and friends) through
 *     BLOCK_URING_CMD_IOCTL, on any block device.
 *
 * Every command is built by the project's library (lib/uringcmd-nvme.h),
 * which is also where the table of block queries lives.
 *
 * Every command is one io_u, so iodepth, rate, runtime, latency percentiles
 * (slat included: the commit hook records it, as fio's io_uring engines do)
 * and JSON output work as for any engine. Admin answers and block queries
 * are checked against the same question asked through the synchronous
 * ioctl when the file is opened; a mismatch or an NVMe status fails the
 * job with the status decoded.
 *
 * The ring is set up with SQE128 and CQE32, the shape NVMe passthrough
 * needs; hipri (IOPOLL), sqthread_poll, fixedbufs and registerfiles follow
 * fio's io_uring engines.
 *
 * Built into fio 3.33 or newer (ioengine=uringcmd), or with
 * -DURINGCMD_EXTERNAL as a shared object for a fio binary of the same
 * version (see README.md).
 */
#include <stddef.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/fs.h>
/*
 * The project's library (-I lib/): liburing, <linux/nvme_ioctl.h> and
 * libnvme's <nvme/types.h> and <nvme/util.h>. Not libnvme's <nvme/ioctl.h>
 * (nor <libnvme.h>): it redefines struct nvme_uring_cmd.
 */
#include "uringcmd-nvme.h"

#include "../fio.h"
#include "../optgroup.h"
#include "../zbd.h"		/* f->zbd_info: the zone size, during the job */
#include "../oslib/blkzoned.h"	/* zonemode=zbd off NVMe: fio's block layer path */

/*
 * The oldest fio ops ABI this engine builds against: fio 3.33's (Debian
 * 12). Built into a fio tree, it takes that tree's headers, so any newer
 * fio fits as long as it compiles (tested: 3.33 and 3.41, whose version is
 * 39; the hooks 3.41 added, get_max_active_zones and finish_zone among
 * them, are optional, and fio's block-layer fallback answers them on the
 * block node). The shared object (URINGCMD_EXTERNAL) runs only in the fio
 * it was built for: fio refuses another FIO_IOOPS_VERSION when it loads
 * it, and uc_check_fio() another release of the same one. build.sh checks
 * a FIO_SRC tree for it before compiling, with a clearer message.
 */
#define UC_FIO_IOOPS_OLDEST	31
#if FIO_IOOPS_VERSION < UC_FIO_IOOPS_OLDEST
#error "uringcmd needs FIO_IOOPS_VERSION 31 (fio 3.33) or newer"
#endif
/*
 * num_range= (fio 3.37 on): trims of several ranges in one I/O unit, which
 * an engine takes with FIO_MULTI_RANGE_TRIM; fio.h's MAX_TRIM_RANGE came
 * with them and is the macro a tree that has them defines. Without it
 * (fio 3.33) fio has no such option and every trim is one range.
 */
#ifdef MAX_TRIM_RANGE
#define UC_MULTI_RANGE_TRIM	FIO_MULTI_RANGE_TRIM
#else
#define UC_MULTI_RANGE_TRIM	0
#endif
/*
 * Data placement (fio 3.34 on: fdp=1, then dataplacement=fdp|streams in
 * 3.36): fio picks a placement identifier for every write into
 * io_u->dtype and io_u->dspec, after asking the engine for the
 * namespace's identifiers (fdp_fetch_ruhs). FDP_DIR_DTYPE is in fdp.h
 * (3.34, 3.35) and dataplacement.h (3.36 on), which fio.h includes.
 * Without it (fio 3.33) the engine has options of those names only to
 * refuse them in one line (fio would say "Bad option").
 */
#ifdef FDP_DIR_DTYPE
#define UC_FDP	1
#else
#define UC_FDP	0
#endif
/* The version of the fio tree built against: fio's Makefile defines it. */
#ifdef FIO_VERSION
#define UC_FIO_VERSION	FIO_VERSION
#else
#define UC_FIO_VERSION	"fio-3.33"
#endif

/*
 * With check=1, the ioctl's reference answers and every command's buffer
 * are filled with different bytes before the kernel writes them, so that
 * an answer nobody wrote never equals its reference.
 */
#define UC_POISON_IOCTL	0x5a
#define UC_POISON_CMD	0xa5

enum uc_cmd {
	UC_CMD_IO = 1,		/* rw= decides: NVMe Read/Write/Flush, discard */
	UC_CMD_ID_CTRL,
	UC_CMD_ID_NS,
	UC_CMD_GET_LOG,
	UC_CMD_GET_FEATURES,
	UC_CMD_BLOCK_QUERY,
	UC_CMD_SMART_LOG,	/* nvme-cli's smart-log: get-log, log_id=2 */
};

/* fio's io_uring_cmd: what a write I/O unit issues (write_mode=) */
enum uc_write_mode {
	UC_WMODE_WRITE = 1,	/* NVMe Write */
	UC_WMODE_UNCOR,		/* Write Uncorrectable: no data */
	UC_WMODE_ZEROES,	/* Write Zeroes: no data, deac= sets DEAC */
};

/* fio's io_uring_cmd cmd_type=: NVMe is the only value there too */
#define UC_CMD_TYPE_NVME	1

struct uc_options {
	void *pad;		/* fio: engine options never start at offset 0 */
	unsigned int cmd;
	unsigned int log_id;
	unsigned int fid;
	unsigned int query;
	unsigned int check;
	unsigned int hipri;
	unsigned int fixedbufs;
	unsigned int registerfiles;
	unsigned int sqpoll_thread;
	unsigned int sqpoll_cpu;
	unsigned int sqpoll_cpu_set;
	unsigned int force_async;
	int nonvectored;		/* fio's: -1 (default) and 1 non-vectored */
	unsigned int md_per_io_size;	/* fio's io_uring_cmd names */
	unsigned int pi_act;
	char *pi_chk;
	unsigned int apptag;
	unsigned int apptag_mask;
	unsigned int prchk;		/* pi_chk parsed: NVME_IO_PRINFO_PRCHK_* */
	unsigned int cmd_type;		/* fio's io_uring_cmd names, its defaults */
	unsigned int readfua;
	unsigned int writefua;
	unsigned int write_mode;
	unsigned int deac;
#if !UC_FDP
	/* fio 3.34's data placement options, which fio 3.33 lacks: refused */
	unsigned int fdp;
	char *dataplacement;
	char *plids;
	char *plid_select;
	char *dp_scheme;
#endif
};

/* What an opened file answers through the synchronous ioctls. */
struct uc_file {
	__u32 nsid;
	unsigned int lba_shift;
	unsigned int ms;		/* metadata bytes per block */
	unsigned int lba_ext;		/* extended LBAs: data + metadata bytes a
					 * block, as the data buffer holds them;
					 * 0 where the metadata is separate or
					 * not transferred */
	unsigned int pi_type;		/* protection information type, 0: none */
	bool pi_first;			/* PI in the first 8 bytes of metadata */
	__u64 query;			/* cmd=block-query: the ioctl's answer */
	__u32 feature;			/* cmd=get-features: dword 0 */
	struct nvme_id_ctrl id_ctrl;	/* cmd=identify-ctrl */
	struct nvme_id_ns id_ns;
};

struct uc_data {
	struct io_uring ring;
	bool ring_ok;
	struct io_u **io_us;		/* by io_u->index, for fixedbufs */
	struct iovec *iovs;		/* by io_u->index, for NVME_URING_CMD_IO_VEC */
	unsigned char *md_buf;		/* md_per_io_size bytes by io_u->index */
	struct nvme_dsm_range *dsm;	/* num_range ranges by io_u->index */
	struct io_u **events;		/* completions of one getevents() */
	unsigned int nr_events;
	struct io_u **pending;		/* prepared, not yet submitted, in order */
	unsigned int pend_head;
	unsigned int queued;		/* how many of them */
	unsigned int prepped;		/* force_async: count to N */
	bool discard_missing;		/* said once: no BLOCK_URING_CMD_DISCARD */
	unsigned int logged;		/* error lines printed */
};

static const char *uc_cmd_name(unsigned int cmd)
{
	switch (cmd) {
	case UC_CMD_IO:			return "io";
	case UC_CMD_ID_CTRL:		return "identify-ctrl";
	case UC_CMD_ID_NS:		return "identify-ns";
	case UC_CMD_GET_LOG:		return "get-log";
	case UC_CMD_GET_FEATURES:	return "get-features";
	case UC_CMD_BLOCK_QUERY:	return "block-query";
	case UC_CMD_SMART_LOG:		return "smart-log";
	}
	return "?";
}

/* nvme-cli's smart-log is get-log of log page 2 (SMART / Health). */
static void uc_normalize(struct uc_options *o)
{
	if (o->cmd == UC_CMD_SMART_LOG) {
		o->cmd = UC_CMD_GET_LOG;
		o->log_id = NVME_LOG_LID_SMART;
	}
}

/*
 * num_range=N, N > 1: every trim of the job is one NVMe Dataset Management
 * command (deallocate) of up to N ranges, as fio's io_uring_cmd sends it,
 * rather than a BLOCK_URING_CMD_DISCARD (one range, the block layer's).
 */
static unsigned int uc_num_range(const struct thread_data *td)
{
#ifdef MAX_TRIM_RANGE
	return td->o.num_range;
#else
	return 1;
#endif
}

static bool uc_multi_range(const struct thread_data *td)
{
	return uc_num_range(td) > 1;
}

static bool uc_is_admin(unsigned int cmd)
{
	return cmd != UC_CMD_IO && cmd != UC_CMD_BLOCK_QUERY;
}

/*
 * Features whose Get Features returns a data structure, and its size:
 * libnvme's table (nvme_get_feature_length(), as nvme-cli uses it), 0 for
 * a feature it does not know.
 */
static __u32 uc_feature_data_len(unsigned int fid)
{
	__u32 len = 0;

	if (nvme_get_feature_length((int)fid, 0, &len))
		return 0;
	return len;
}

/* Features whose current value may change between two reads. */
static bool uc_feature_volatile(unsigned int fid)
{
	return fid == NVME_FEAT_FID_TIMESTAMP;
}

/* An NVMe status (cqe->res > 0) or an errno (< 0), in words. */
static void uc_res_str(int res, char *buf, size_t len)
{
	if (res > 0)
		uringcmd_nvme_res_str(res, buf, len);
	else
		snprintf(buf, len, "%s", strerror(-res));
}

/* Print at most a few error lines per job: fio prints its own per io_u. */
static void uc_log(struct thread_data *td, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void uc_log(struct thread_data *td, const char *fmt, ...)
{
	struct uc_data *ld = td->io_ops_data;
	char msg[512];
	va_list ap;

	if (ld && ld->logged++ >= 8)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_err("fio: uringcmd: %s\n", msg);
}

/* ---- command construction -------------------------------------------- */

/*
 * The admin command @cmd for file @uf into @buf (@len bytes: the io_u's).
 * Returns the data length the command transfers.
 */
static __u32 uc_admin_cmd(const struct uc_options *o, const struct uc_file *uf,
			  unsigned int cmd, struct nvme_uring_cmd *c, void *buf,
			  __u32 len)
{
	switch (cmd) {
	case UC_CMD_ID_CTRL:
		uringcmd_nvme_identify(c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
		return NVME_IDENTIFY_DATA_SIZE;
	case UC_CMD_ID_NS:
		uringcmd_nvme_identify(c, uf->nsid, NVME_IDENTIFY_CNS_NS, buf);
		return NVME_IDENTIFY_DATA_SIZE;
	case UC_CMD_GET_LOG:
		uringcmd_nvme_get_log(c, NVME_NSID_ALL, o->log_id, buf, len);
		return len;
	case UC_CMD_GET_FEATURES:
		len = uc_feature_data_len(o->fid);
		uringcmd_nvme_get_features(c, o->fid, NVME_GET_FEATURES_SEL_CURRENT,
					   len ? buf : NULL, len);
		return len;
	}
	return 0;
}

static const struct uringcmd_block_query *uc_query_of(const struct uc_options *o)
{
	return &uringcmd_block_queries[o->query];
}

/* ---- opening a file: the ioctl answers and a probe of the ring path ----- */

/* @c through NVME_IOCTL_ADMIN_CMD: 0, an NVMe status or -errno. */
static int uc_ioctl_admin(int fd, const struct nvme_uring_cmd *c, __u32 *result)
{
	struct nvme_passthru_cmd p;
	int ret;

	uringcmd_nvme_to_passthru(c, &p);
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &p);
	if (ret < 0)
		return -errno;
	if (result)
		*result = p.result;
	return ret;
}

/*
 * Extended LBAs (FLBAS bit 4) whose metadata is transferred: the bytes a
 * block takes in the data buffer, its data then its metadata, as fio's
 * io_uring_cmd counts them (lba_ext); 0 otherwise. Not with PRACT and
 * metadata that is only the 8 bytes of PI: the controller inserts and
 * strips it, the buffer holds data only.
 */
static unsigned int uc_lba_ext(const struct uc_options *o, const struct nvme_id_ns *ns)
{
	unsigned int ms = uringcmd_nvme_ns_ms(ns);

	if (!uringcmd_nvme_ns_extended(ns) ||
	    (o->pi_act && (ns->dps & NVME_NS_DPS_PI_MASK) && ms == 8))
		return 0;
	return (1U << uringcmd_nvme_ns_lba_shift(ns)) + ms;
}

/* An offset or a length of the job in logical blocks. */
static __u64 uc_blocks(const struct uc_file *uf, __u64 bytes)
{
	return uf->lba_ext ? bytes / uf->lba_ext : bytes >> uf->lba_shift;
}

/*
 * Why a probe failed, in the user's terms. Linux 6.1 without the series
 * has no uring_cmd on block devices (-EOPNOTSUPP); later kernels have one
 * for BLOCK_URING_CMD_DISCARD only and refuse other cmd_ops (-EINVAL).
 */
static const char *uc_probe_hint(int res, bool nvme)
{
	switch (res) {
	case -EOPNOTSUPP:
	case -EINVAL:
		return nvme ? "this kernel does not pass NVMe commands from the block "
			"node through io_uring (it needs the uringcmd series, "
			"drivers-nvme/)" : "this kernel does not answer "
			"BLOCK_URING_CMD_IOCTL (it needs the uringcmd series, patches/)";
	case -ENOTTY:
		return "not a query this kernel answers through BLOCK_URING_CMD_IOCTL";
	case -EACCES:
	case -EPERM:
		return "NVMe passthrough needs CAP_SYS_ADMIN";
	}
	return NULL;
}

static int uc_probe_failed(struct thread_data *td, struct fio_file *f,
			   const char *what, int res, bool nvme)
{
	const char *hint = uc_probe_hint(res, nvme);
	char rs[256];

	uc_res_str(res, rs, sizeof(rs));
	uc_log(td, "%s: %s through io_uring failed: %s%s%s", f->file_name, what,
	       rs, hint ? ": " : "", hint ? hint : "");
	td_verror(td, res < 0 ? -res : EIO, "uringcmd probe");
	return 1;
}

/* A library probe that could not ask at all (ring setup, a second open). */
static int uc_probe_error(struct thread_data *td, struct fio_file *f,
			  const char *probe, int ret)
{
	uc_log(td, "%s: %s: %s", f->file_name, probe, strerror(-ret));
	td_verror(td, -ret, probe);
	return 1;
}

static int uc_open_query(struct thread_data *td, struct fio_file *f,
			 struct uc_file *uf)
{
	const struct uringcmd_block_query *q = uc_query_of(td->eo);
	union { __u64 u64; __u32 u; __u16 us; } v = { 0 };
	struct uringcmd_probe p;
	int ret;

	if (ioctl(f->fd, q->cmd, &v) < 0) {
		uc_log(td, "%s: ioctl(%s): %s", f->file_name, q->name, strerror(errno));
		td_verror(td, errno, "ioctl");
		return 1;
	}
	/* widened as the kernel widens it: signed answers sign-extended */
	if (q->ioctl_size == 2)
		uf->query = v.us;
	else if (q->ioctl_size == 4)
		uf->query = q->ioctl_signed ? (__u64)(__s64)(__s32)v.u : v.u;
	else
		uf->query = v.u64;

	/*
	 * Does the kernel answer block queries through io_uring at all? The
	 * library's probe asks BLKSSZGET; the job's own query is compared
	 * with the ioctl's answer above at every completion (check=1).
	 */
	ret = uringcmd_probe_block(f->fd, &p);
	if (ret)
		return uc_probe_error(td, f, "uringcmd_probe_block", ret);
	if (p.block_query <= 0)
		return uc_probe_failed(td, f, "BLKSSZGET", p.block_query ? p.block_query :
				       -EIO, false);
	return 0;
}

/* The one line for a kernel or device without BLOCK_URING_CMD_DISCARD. */
static void uc_no_discard(struct thread_data *td, struct fio_file *f)
{
	uc_log(td, "%s: rw=trim: no BLOCK_URING_CMD_DISCARD here (-EOPNOTSUPP): "
	       "the kernel lacks Linux 6.12's io_uring discard, or the device "
	       "cannot discard", f->file_name);
}

/*
 * rw=trim: is there a BLOCK_URING_CMD_DISCARD? The library's probe sends
 * one through a read-only open of the node, which a kernel that has the
 * command refuses with -EBADF (where the device discards) before it
 * discards anything; -EOPNOTSUPP where the kernel or the device lacks it.
 */
static int uc_probe_discard(struct thread_data *td, struct fio_file *f)
{
	struct uringcmd_probe p;
	int ret;

	ret = uringcmd_probe_block(f->fd, &p);
	if (ret)
		return uc_probe_error(td, f, "uringcmd_probe_block", ret);
	if (p.discard == -EBADF)
		return 0;
	if (p.discard == -EOPNOTSUPP) {
		uc_no_discard(td, f);
		td_verror(td, EOPNOTSUPP, "uringcmd discard");
		return 1;
	}
	uc_log(td, "%s: rw=trim: BLOCK_URING_CMD_DISCARD through a read-only open: "
	       "%s, expected -EBADF", f->file_name,
	       p.discard < 0 ? strerror(-p.discard) : "succeeded");
	td_verror(td, p.discard < 0 ? -p.discard : EIO, "uringcmd discard");
	return 1;
}

static int uc_open_nvme(struct thread_data *td, struct fio_file *f,
			struct uc_file *uf)
{
	struct uc_options *o = td->eo;
	struct uringcmd_probe p;
	struct nvme_uring_cmd c;
	unsigned int ms;
	int ret;

	ret = ioctl(f->fd, NVME_IOCTL_ID);
	if (ret <= 0) {
		uc_log(td, "%s: not an NVMe namespace block node (NVME_IOCTL_ID: %s); "
		       "cmd=%s needs one, such as /dev/nvme0n1", f->file_name,
		       ret < 0 ? strerror(errno) : "no namespace", uc_cmd_name(o->cmd));
		td_verror(td, ret < 0 ? errno : ENODEV, "NVME_IOCTL_ID");
		return 1;
	}
	uf->nsid = ret;

	/* the reference answers: poisoned unlike the commands' buffers */
	memset(&uf->id_ns, UC_POISON_IOCTL, sizeof(uf->id_ns));
	uringcmd_nvme_identify(&c, uf->nsid, NVME_IDENTIFY_CNS_NS, &uf->id_ns);
	ret = uc_ioctl_admin(f->fd, &c, NULL);
	if (ret) {
		char rs[256];

		uc_res_str(ret, rs, sizeof(rs));
		uc_log(td, "%s: identify namespace (ioctl): %s", f->file_name, rs);
		td_verror(td, ret < 0 ? -ret : EIO, "NVME_IOCTL_ADMIN_CMD");
		return 1;
	}
	uf->lba_shift = uringcmd_nvme_ns_lba_shift(&uf->id_ns);
	ms = uringcmd_nvme_ns_ms(&uf->id_ns);

	if (o->cmd == UC_CMD_IO) {
		unsigned long long lbs = 1ULL << uf->lba_shift;

		unsigned long long md = td->o.max_bs[DDIR_READ] > td->o.max_bs[DDIR_WRITE] ?
			td->o.max_bs[DDIR_READ] : td->o.max_bs[DDIR_WRITE];

		md = md / lbs * ms;
		uf->ms = ms;
		uf->pi_type = uf->id_ns.dps & NVME_NS_DPS_PI_MASK;
		uf->pi_first = uf->id_ns.dps & NVME_NS_DPS_PI_FIRST;
		uf->lba_ext = uc_lba_ext(o, &uf->id_ns);
		/* PRACT with metadata that is only PI: none is transferred */
		if (ms && !uf->lba_ext && !(o->pi_act && uf->pi_type && ms == 8) &&
		    o->md_per_io_size < md) {
			uc_log(td, "%s: the namespace has %u bytes of metadata per block: "
			       "set md_per_io_size=%llu or more (or pi_act=1 with 8 bytes "
			       "of PI)", f->file_name, ms, md);
			td_verror(td, EINVAL, "uringcmd open");
			return 1;
		}
		/*
		 * pi_act (default 1, as fio's) means nothing without PI: PRACT
		 * is set only on a PI namespace. An explicit pi_chk is refused.
		 */
		if (o->prchk && !uf->pi_type) {
			uc_log(td, "%s: pi_chk needs a namespace formatted with "
			       "protection information", f->file_name);
			td_verror(td, EINVAL, "uringcmd open");
			return 1;
		}
		if (uf->lba_ext) {
			/*
			 * As fio's io_uring_cmd: offsets and block sizes count
			 * data and metadata; the PI in the data buffer is what
			 * verify= would overwrite.
			 */
			lbs = uf->lba_ext;
			if (uf->pi_type && td->o.verify) {	/* != VERIFY_NONE */
				uc_log(td, "%s: for extended LBA, verify cannot be used "
				       "when E2E data protection is enabled", f->file_name);
				td_verror(td, EINVAL, "uringcmd open");
				return 1;
			}
			if (td_trim(td) && !uc_multi_range(td)) {
				uc_log(td, "%s: extended LBAs: rw=trim's discard counts "
				       "data bytes only, this job's offsets data and "
				       "metadata: %s", f->file_name, UC_MULTI_RANGE_TRIM ?
				       "use num_range=2 or more (Dataset Management)" :
				       "this fio has no num_range= (fio 3.37 on)");
				td_verror(td, EINVAL, "uringcmd open");
				return 1;
			}
		}
		if (td->o.min_bs[DDIR_READ] % lbs || td->o.min_bs[DDIR_WRITE] % lbs ||
		    td->o.min_bs[DDIR_TRIM] % lbs || td->o.max_bs[DDIR_READ] % lbs ||
		    td->o.max_bs[DDIR_WRITE] % lbs || td->o.bs_unaligned) {
			if (uf->lba_ext)
				uc_log(td, "%s: block sizes must be multiples of %llu (LBA "
				       "data size + metadata size: extended LBAs)",
				       f->file_name, lbs);
			else
				uc_log(td, "%s: block sizes must be multiples of the LBA "
				       "size %llu", f->file_name, lbs);
			td_verror(td, EINVAL, "uringcmd open");
			return 1;
		}
	}
	if (o->cmd == UC_CMD_ID_CTRL) {
		memset(&uf->id_ctrl, UC_POISON_IOCTL, sizeof(uf->id_ctrl));
		uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, &uf->id_ctrl);
		ret = uc_ioctl_admin(f->fd, &c, NULL);
	} else if (o->cmd == UC_CMD_GET_FEATURES) {
		__u32 len = uc_feature_data_len(o->fid);
		void *buf = len ? calloc(1, len) : NULL;

		uringcmd_nvme_get_features(&c, o->fid, NVME_GET_FEATURES_SEL_CURRENT,
					   buf, len);
		ret = uc_ioctl_admin(f->fd, &c, &uf->feature);
		free(buf);
	}
	if (ret) {
		char rs[256];

		uc_res_str(ret, rs, sizeof(rs));
		uc_log(td, "%s: %s (ioctl): %s", f->file_name, uc_cmd_name(o->cmd), rs);
		td_verror(td, ret < 0 ? -ret : EIO, "NVME_IOCTL_ADMIN_CMD");
		return 1;
	}

	/*
	 * Does the node take NVMe passthrough through io_uring? The library's
	 * probe: Identify Controller (admin) and Flush of the namespace (I/O).
	 */
	ret = uringcmd_nvme_probe(f->fd, uf->nsid, &p);
	if (ret)
		return uc_probe_error(td, f, "uringcmd_nvme_probe", ret);
	if (p.nvme_admin)
		return uc_probe_failed(td, f, "identify controller", p.nvme_admin, true);
	if (o->cmd == UC_CMD_IO && p.nvme_io)
		return uc_probe_failed(td, f, "flush", p.nvme_io, true);
	if (o->cmd == UC_CMD_IO && td_trim(td) && !uc_multi_range(td))
		return uc_probe_discard(td, f);
	return 0;
}

/*
 * The file's size: the block node's, but for extended LBAs, whose offsets
 * count each block's metadata too (fio's io_uring_cmd: nsze times data and
 * metadata size); Linux gives such a namespace no capacity on PCIe, or its
 * data bytes only.
 */
static int fio_uringcmd_get_file_size(struct thread_data *td, struct fio_file *f)
{
	struct uc_options *o = td->eo;
	struct nvme_uring_cmd c;
	struct nvme_id_ns *ns;
	int fd, nsid, ret;

	if (fio_file_size_known(f))
		return 0;
	uc_normalize(o);
	if (o->cmd != UC_CMD_IO || f->filetype != FIO_TYPE_BLOCK)
		return generic_get_file_size(td, f);
	fd = open(f->file_name, O_RDONLY);
	if (fd < 0)
		return generic_get_file_size(td, f);	/* which says why */
	nsid = ioctl(fd, NVME_IOCTL_ID);
	ret = -1;
	if (nsid > 0 && !posix_memalign((void **)&ns, 4096, sizeof(*ns))) {
		uringcmd_nvme_identify(&c, (__u32)nsid, NVME_IDENTIFY_CNS_NS, ns);
		if (!uc_ioctl_admin(fd, &c, NULL) && uc_lba_ext(o, ns)) {
			f->real_file_size = le64toh(ns->nsze) * uc_lba_ext(o, ns);
			fio_file_set_size_known(f);
			ret = 0;
		}
		free(ns);
	}
	close(fd);
	return ret ? generic_get_file_size(td, f) : 0;
}

/* ---- data placement: fdp=1, dataplacement= ------------------------------ */

#if UC_FDP
/*
 * fdp=1 (dataplacement=fdp): fio asks for the namespace's placement
 * identifiers while it sets the files up, before the engine's init and
 * before the file is open, twice: how many (fruhs->nr_ruhs 0), then that
 * many. Reclaim Unit Handle Status (I/O Management Receive) through
 * io_uring on the block node, on a ring of its own (the job's is not
 * there yet), where fio's io_uring_cmd sends it through the ng node's
 * ioctl. fio then puts one identifier of them (fdp_pli=, fdp_pli_select=)
 * in every write's io_u->dspec, which uc_prep_io() sends. With
 * dataplacement=streams fio takes plids= as they are and never asks.
 *
 * Returns 0 or -errno with errno set, as fio's dp_init() reads it.
 */
static int fio_uringcmd_fetch_ruhs(struct thread_data *td, struct fio_file *f,
				   struct fio_ruhs_info *fruhs)
{
	__u32 i, nr, len = sizeof(struct nvme_fdp_ruh_status) +
		fruhs->nr_ruhs * sizeof(struct nvme_fdp_ruh_status_desc);
	struct nvme_fdp_ruh_status *st = NULL;
	struct nvme_uring_cmd c;
	struct io_uring ring;
	char why[160];
	int fd, nsid, ret;

	fd = open(f->file_name, O_RDONLY);
	if (fd < 0) {
		ret = -errno;
		uc_log(td, "%s: open: %s", f->file_name, strerror(-ret));
		goto out;
	}
	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		uc_log(td, "%s: fdp=1: not an NVMe namespace block node", f->file_name);
		ret = -ENOTTY;
		goto out;
	}
	ret = posix_memalign((void **)&st, 4096, len) ? -ENOMEM : 0;
	if (!ret)
		ret = uringcmd_nvme_queue_init(1, &ring, 0);
	if (ret) {
		uc_log(td, "%s: fdp=1: %s", f->file_name, strerror(-ret));
		goto out;
	}
	memset(st, 0, len);
	uringcmd_nvme_ruh_status(&c, (__u32)nsid, st, len);
	uringcmd_prep_nvme(io_uring_get_sqe(&ring), fd, NVME_URING_CMD_IO, &c);
	ret = uringcmd_probe_wait(&ring);
	io_uring_queue_exit(&ring);
	if (ret) {
		uc_res_str(ret, why, sizeof(why));
		uc_log(td, "%s: fdp=1: Reclaim Unit Handle Status (I/O Management "
		       "Receive): %s%s", f->file_name, why, ret > 0 ?
		       ": the namespace has no Flexible Data Placement" : "");
		ret = ret > 0 ? -EOPNOTSUPP : ret;
		goto out;
	}
	nr = le16toh(st->nruhsd);
	for (i = 0; i < fruhs->nr_ruhs && i < nr; i++)
		fruhs->plis[i] = le16toh(st->ruhss[i].pid);
	fruhs->nr_ruhs = nr;
out:
	free(st);
	if (fd >= 0)
		close(fd);
	errno = -ret;
	return ret;
}
#endif

/*
 * Data placement tags writes of NVMe I/O (cmd=io) only. On fio 3.33,
 * which has none of it, the options of fio 3.34's names are the engine's
 * and refused here in one line (fio alone would say "Bad option").
 */
static int uc_check_placement(struct thread_data *td)
{
	struct uc_options *o = td->eo;

#if UC_FDP
#ifdef FIO_MAX_DP_IDS
	bool placing = td->o.dp_type != FIO_DP_NONE;
#else
	bool placing = td->o.fdp;	/* fio 3.34 and 3.35: fdp=1 only */
#endif

	if (placing && o->cmd != UC_CMD_IO) {
		log_err("fio: uringcmd: fdp=1 and dataplacement= place NVMe writes: "
			"cmd=io only, not cmd=%s\n", uc_cmd_name(o->cmd));
		return 1;
	}
#else
	if (o->fdp || o->dataplacement || o->plids || o->plid_select || o->dp_scheme) {
		log_err("fio: uringcmd: fdp=, dataplacement=, fdp_pli=/plids=, "
			"fdp_pli_select=/plid_select= and dp_scheme= are fio 3.34's "
			"data placement, which %s lacks: build fio 3.41 with the "
			"engine (make fio-next)\n", UC_FIO_VERSION);
		return 1;
	}
#endif
	return 0;
}

/*
 * The setup hook runs before fio's own file setup, which asks for the
 * placement identifiers (fdp=1): so that a job fdp cannot apply to is
 * refused first. An engine with a setup hook sizes the files itself, as
 * fio's get_file_sizes() does (a block node that is not there fails here,
 * not only at open).
 */
static int fio_uringcmd_setup(struct thread_data *td)
{
	struct fio_file *f;
	unsigned int i;

	uc_normalize(td->eo);
	if (uc_check_placement(td))
		return 1;
	for_each_file(td, f, i) {
		if (fio_uringcmd_get_file_size(td, f)) {
			log_err("%s\n", td->verror);
			return 1;
		}
	}
	return 0;
}

static int fio_uringcmd_open_file(struct thread_data *td, struct fio_file *f)
{
	struct uc_options *o = td->eo;
	struct uc_data *ld = td->io_ops_data;
	struct uc_file *uf;
	struct stat st;
	int ret;

	uc_normalize(o);	/* fio may open files before init */
	ret = generic_open_file(td, f);
	if (ret)
		return ret;

	if (fstat(f->fd, &st) || !S_ISBLK(st.st_mode)) {
		uc_log(td, "%s: not a block device; uringcmd drives block nodes "
		       "(/dev/nvme0n1), fio's io_uring_cmd engine the char devices "
		       "(/dev/ng0n1)", f->file_name);
		td_verror(td, ENOTBLK, "uringcmd open");
		goto err_close;
	}

	uf = calloc(1, sizeof(*uf));
	if (!uf) {
		td_verror(td, ENOMEM, "calloc");
		goto err_close;
	}
	FILE_SET_ENG_DATA(f, uf);
	if (o->cmd == UC_CMD_BLOCK_QUERY)
		ret = uc_open_query(td, f, uf);
	else
		ret = uc_open_nvme(td, f, uf);
	if (ret)
		goto err_free;

	/* fio opens files for their size before init: no ring then */
	if (o->registerfiles && ld && ld->ring_ok) {
		ret = io_uring_register_files_update(&ld->ring, f->fileno, &f->fd, 1);
		if (ret < 0) {
			td_verror(td, -ret, "io_uring_register_files_update");
			goto err_free;
		}
	}
	return 0;

err_free:
	FILE_SET_ENG_DATA(f, NULL);
	free(uf);
err_close:
	if (generic_close_file(td, f))
		uc_log(td, "%s: close: %s", f->file_name, strerror(errno));
	return 1;
}

static int fio_uringcmd_close_file(struct thread_data *td, struct fio_file *f)
{
	struct uc_options *o = td->eo;
	struct uc_data *ld = td->io_ops_data;
	int none = -1;

	if (o->registerfiles && ld && ld->ring_ok)
		io_uring_register_files_update(&ld->ring, f->fileno, &none, 1);
	free(FILE_ENG_DATA(f));
	FILE_SET_ENG_DATA(f, NULL);
	return generic_close_file(td, f);
}

/* ---- zonemode=zbd: NVMe Zone Management on the block node ---------------- */

/*
 * fio's zbd layer asks the engine (get_zoned_model, report_zones, reset_wp,
 * get_max_open_zones) as it asks fio's io_uring_cmd on /dev/ngXnY: here
 * with the same NVMe commands (Identify of the Zoned Namespace Command
 * Set, Zone Management Receive and Send), through NVME_IOCTL_IO_CMD and
 * NVME_IOCTL_ADMIN_CMD on the block node, beside the job's passthrough
 * writes. fio calls them before the job opens its files (in the parent,
 * before init), so each asks on a descriptor of its own. A block device
 * that is not an NVMe namespace (cmd=block-query on null_blk) gets fio's
 * own answers from the block layer (BLKREPORTZONE, BLKRESETZONE).
 */
struct uc_zns {
	int fd;
	bool own_fd;		/* opened here, closed by uc_zns_put() */
	__u32 nsid;
	unsigned int lba_shift;
	__u64 zsze;		/* zone size in bytes, 0: not a ZNS namespace */
	__u32 mor;		/* Maximum Open Resources, 0's based */
};

/* @c through NVME_IOCTL_IO_CMD: 0, an NVMe status or -errno. */
static int uc_ioctl_io(int fd, const struct nvme_uring_cmd *c)
{
	struct nvme_passthru_cmd p;
	int ret;

	uringcmd_nvme_to_passthru(c, &p);
	ret = ioctl(fd, NVME_IOCTL_IO_CMD, &p);
	return ret < 0 ? -errno : ret;
}

static void uc_zns_put(struct uc_zns *z)
{
	if (z->own_fd && z->fd >= 0)
		close(z->fd);
	z->fd = -1;
}

/*
 * What fio's zbd hooks need of @f's namespace. Returns 0, 1 where @f is not
 * an NVMe namespace block node (the block layer answers then), or -errno.
 */
static int uc_zns_get(struct fio_file *f, int flags, struct uc_zns *z)
{
	struct nvme_uring_cmd c;
	struct nvme_zns_id_ns *zns;
	struct nvme_id_ns *ns;
	void *buf;
	int ret;

	memset(z, 0, sizeof(*z));
	z->fd = f->fd;
	if (z->fd < 0 || (flags != O_RDONLY && (fcntl(z->fd, F_GETFL) & O_ACCMODE) ==
			  O_RDONLY)) {
		z->fd = open(f->file_name, flags | O_CLOEXEC);
		if (z->fd < 0)
			return -errno;
		z->own_fd = true;
	}
	ret = ioctl(z->fd, NVME_IOCTL_ID);
	if (ret <= 0) {
		uc_zns_put(z);
		return 1;
	}
	z->nsid = ret;
	if (posix_memalign(&buf, 4096, NVME_IDENTIFY_DATA_SIZE)) {
		uc_zns_put(z);
		return -ENOMEM;
	}
	ns = buf;
	uringcmd_nvme_identify(&c, z->nsid, NVME_IDENTIFY_CNS_NS, ns);
	ret = uc_ioctl_admin(z->fd, &c, NULL);
	if (!ret) {
		unsigned int lbaf = uringcmd_nvme_ns_lbaf(ns);

		z->lba_shift = uringcmd_nvme_ns_lba_shift(ns);
		zns = buf;
		/* a namespace of another command set: Invalid Field */
		uringcmd_nvme_identify_csi(&c, z->nsid, NVME_IDENTIFY_CNS_CSI_NS,
					   NVME_CSI_ZNS, zns);
		if (!uc_ioctl_admin(z->fd, &c, NULL)) {
			z->zsze = le64toh(zns->lbafe[lbaf].zsze) << z->lba_shift;
			z->mor = le32toh(zns->mor);
		}
	}
	free(buf);
	if (ret) {
		uc_zns_put(z);
		return ret < 0 ? ret : -EIO;
	}
	return 0;
}

/* fio prints errno with a hook's failure */
static int uc_zbd_err(int ret)
{
	errno = -ret;
	return ret;
}

static int fio_uringcmd_get_zoned_model(struct thread_data *td, struct fio_file *f,
					enum zbd_zoned_model *model)
{
	struct uc_zns z;
	int ret;

	/* a char device or file: refused at open, with the engine's line */
	if (f->filetype != FIO_TYPE_BLOCK) {
		*model = ZBD_NONE;
		return 0;
	}
	ret = uc_zns_get(f, O_RDONLY, &z);
	if (ret == 1)
		return blkzoned_get_zoned_model(td, f, model);
	if (ret < 0)
		return uc_zbd_err(ret);
	*model = z.zsze ? ZBD_HOST_MANAGED : ZBD_NONE;
	uc_zns_put(&z);
	return 0;
}

/* a Zone Descriptor in fio's terms; false for a type fio does not know */
static bool uc_zone_of(const struct uc_zns *z, const struct nvme_zns_desc *d,
		       struct zbd_zone *out)
{
	out->start = le64toh(d->zslba) << z->lba_shift;
	out->len = z->zsze;
	out->wp = le64toh(d->wp) << z->lba_shift;
	out->capacity = le64toh(d->zcap) << z->lba_shift;
	if ((d->zt & 0xf) != NVME_ZONE_TYPE_SEQWRITE_REQ)
		return false;
	out->type = ZBD_ZONE_TYPE_SWR;
	switch (d->zs >> 4) {
	case NVME_ZNS_ZS_EMPTY:
		out->cond = ZBD_ZONE_COND_EMPTY;
		break;
	case NVME_ZNS_ZS_IMPL_OPEN:
		out->cond = ZBD_ZONE_COND_IMP_OPEN;
		break;
	case NVME_ZNS_ZS_EXPL_OPEN:
		out->cond = ZBD_ZONE_COND_EXP_OPEN;
		break;
	case NVME_ZNS_ZS_CLOSED:
		out->cond = ZBD_ZONE_COND_CLOSED;
		break;
	case NVME_ZNS_ZS_FULL:
		out->cond = ZBD_ZONE_COND_FULL;
		break;
	case NVME_ZNS_ZS_READ_ONLY:
		out->cond = ZBD_ZONE_COND_READONLY;
		break;
	default:	/* offline: nothing to read or write, as fio's nvme.c */
		out->cond = ZBD_ZONE_COND_OFFLINE;
		out->wp = out->start;
		break;
	}
	return true;
}

#define UC_ZONES_PER_REPORT	255	/* 16 KiB with the header: below any MDTS */

static int fio_uringcmd_report_zones(struct thread_data *td, struct fio_file *f,
				     uint64_t offset, struct zbd_zone *zones,
				     unsigned int nr_zones)
{
	struct nvme_zone_report *zr;
	struct nvme_uring_cmd c;
	unsigned int n = 0, i, got;
	struct uc_zns z;
	__u32 len;
	int ret;

	ret = uc_zns_get(f, O_RDONLY, &z);
	if (ret == 1)
		return blkzoned_report_zones(td, f, offset, zones, nr_zones);
	if (ret < 0)
		return uc_zbd_err(ret);
	if (!z.zsze) {
		uc_zns_put(&z);
		return uc_zbd_err(-EINVAL);
	}
	len = sizeof(*zr) + UC_ZONES_PER_REPORT * sizeof(struct nvme_zns_desc);
	if (posix_memalign((void **)&zr, 4096, len)) {
		uc_zns_put(&z);
		return uc_zbd_err(-ENOMEM);
	}
	while (n < nr_zones && offset < f->real_file_size) {
		memset(zr, 0, len);
		uringcmd_nvme_zone_report(&c, z.nsid, offset >> z.lba_shift, zr, len,
					  NVME_ZNS_ZRAS_REPORT_ALL);
		ret = uc_ioctl_io(z.fd, &c);
		if (ret) {
			char rs[256];

			uc_res_str(ret, rs, sizeof(rs));
			uc_log(td, "%s: Zone Management Receive at LBA %llu: %s",
			       f->file_name, (unsigned long long)(offset >> z.lba_shift), rs);
			ret = ret < 0 ? ret : -EIO;
			break;
		}
		got = le64toh(zr->nr_zones);
		if (!got)
			break;
		for (i = 0; i < got && i < UC_ZONES_PER_REPORT && n < nr_zones; i++) {
			if (!uc_zone_of(&z, &zr->entries[i], &zones[n])) {
				uc_log(td, "%s: zone at LBA %llu has type %#x, not "
				       "sequential write required", f->file_name,
				       (unsigned long long)le64toh(zr->entries[i].zslba),
				       zr->entries[i].zt & 0xf);
				ret = -EIO;
				goto out;
			}
			offset = zones[n].start + zones[n].len;
			n++;
		}
	}
out:
	free(zr);
	uc_zns_put(&z);
	if (ret < 0)
		return uc_zbd_err(ret);
	return n;
}

static int fio_uringcmd_reset_wp(struct thread_data *td, struct fio_file *f,
				 uint64_t offset, uint64_t length)
{
	struct nvme_uring_cmd c;
	struct uc_file *uf;
	struct uc_zns z;
	uint64_t end = offset + length;
	int ret;

	uf = f->fd >= 0 ? FILE_ENG_DATA(f) : NULL;
	if (uf && uf->nsid && f->zbd_info && f->zbd_info->zone_size &&
	    (fcntl(f->fd, F_GETFL) & O_ACCMODE) != O_RDONLY) {
		/* during the job: what the open and fio's zone setup found */
		memset(&z, 0, sizeof(z));
		z.fd = f->fd;
		z.nsid = uf->nsid;
		z.lba_shift = uf->lba_shift;
		z.zsze = f->zbd_info->zone_size;
		ret = 0;
	} else {
		ret = uc_zns_get(f, O_RDWR, &z);
	}
	if (ret == 1)
		return blkzoned_reset_wp(td, f, offset, length);
	if (ret < 0)
		return uc_zbd_err(ret);
	if (!z.zsze) {
		uc_zns_put(&z);
		return uc_zbd_err(-EINVAL);
	}
	for (; offset < end; offset += z.zsze) {
		uringcmd_nvme_zone_mgmt(&c, z.nsid, offset >> z.lba_shift,
					NVME_ZNS_ZSA_RESET, false);
		ret = uc_ioctl_io(z.fd, &c);
		if (ret) {
			char rs[256];

			uc_res_str(ret, rs, sizeof(rs));
			uc_log(td, "%s: Zone Management Send (reset) at LBA %llu: %s",
			       f->file_name, (unsigned long long)(offset >> z.lba_shift), rs);
			ret = ret < 0 ? ret : -EIO;
			break;
		}
	}
	uc_zns_put(&z);
	return ret < 0 ? uc_zbd_err(ret) : 0;
}

static int fio_uringcmd_get_max_open_zones(struct thread_data *td,
					   struct fio_file *f,
					   unsigned int *max_open_zones)
{
	struct uc_zns z;
	int ret;

	ret = uc_zns_get(f, O_RDONLY, &z);
	if (ret == 1)
		return blkzoned_get_max_open_zones(td, f, max_open_zones);
	if (ret < 0)
		return uc_zbd_err(ret);
	/* MOR is 0's based; all ones: no limit, which fio says with 0 */
	*max_open_zones = z.mor == 0xffffffff ? 0 : z.mor + 1;
	uc_zns_put(&z);
	return 0;
}

/* ---- queueing and completing ------------------------------------------ */

/* The fd of @f for an SQE: its index among the registered files, or its fd. */
static int uc_sqe_fd(const struct uc_options *o, const struct fio_file *f)
{
	return o->registerfiles ? (int)f->fileno : f->fd;
}

/* The layout uringcmd_nvme_pi16_*() need, of an opened PI namespace. */
static struct uringcmd_nvme_pi_layout uc_pi_layout(const struct uc_file *uf)
{
	struct uringcmd_nvme_pi_layout l = {
		.lbs = 1U << uf->lba_shift,
		.ms = uf->ms,
		.pi_first = uf->pi_first,
		.pi_type = uf->pi_type,
	};

	return l;
}

/* The I/O unit's separate metadata buffer, NULL without md_per_io_size. */
static unsigned char *uc_md_of(struct thread_data *td, const struct io_u *io_u)
{
	struct uc_options *o = td->eo;
	struct uc_data *ld = td->io_ops_data;

	return ld->md_buf ? ld->md_buf + (size_t)io_u->index * o->md_per_io_size :
			    NULL;
}

/*
 * Whether the host generates (writes) or checks (reads) the protection
 * information of @io_u: pi_act=0 on a PI namespace, as fio's io_uring_cmd.
 */
static bool uc_host_pi(const struct uc_options *o, const struct uc_file *uf,
		       const struct io_u *io_u)
{
	return !o->pi_act && uf->pi_type && uf->ms >= 8 &&
	       (io_u->ddir == DDIR_READ || (io_u->ddir == DDIR_WRITE &&
					    o->write_mode == UC_WMODE_WRITE));
}

/*
 * num_range: fio filled the I/O unit's buffer with io_u->number_trim
 * struct trim_range (byte offset and length) and xfer_buflen with their sum;
 * one Dataset Management command deallocates them all (fio's
 * fio_nvme_uring_cmd_trim_prep()).
 */
static void uc_prep_dsm(struct thread_data *td, struct io_u *io_u,
			struct io_uring_sqe *sqe, int fd)
{
#ifdef MAX_TRIM_RANGE
	struct uc_data *ld = td->io_ops_data;
	struct uc_file *uf = FILE_ENG_DATA(io_u->file);
	struct nvme_dsm_range *dsm = ld->dsm + (size_t)io_u->index * uc_num_range(td);
	const struct trim_range *r = (const struct trim_range *)io_u->xfer_buf;
	struct nvme_uring_cmd c;
	unsigned int i;

	for (i = 0; i < io_u->number_trim; i++)
		uringcmd_nvme_dsm_range(&dsm[i], uc_blocks(uf, r[i].start),
					(__u32)uc_blocks(uf, r[i].len));
	uringcmd_nvme_dsm_deallocate(&c, uf->nsid, dsm, io_u->number_trim);
	uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_IO, &c);
#endif
}

/*
 * fdp=1 or dataplacement=: the directive fio chose for this write (0, 0
 * for none), as fio's io_uring_cmd sends it on Write and Write Zeroes. Not
 * on Write Uncorrectable, whose cdw12 bits 31:16 are reserved.
 */
static void uc_placement(const struct io_u *io_u, struct nvme_uring_cmd *c)
{
#if UC_FDP
	if (io_u->dtype)
		uringcmd_nvme_set_placement(c, (__u8)io_u->dtype, (__u16)io_u->dspec);
#else
	(void)io_u;
	(void)c;
#endif
}

/* An NVMe Read/Write/Flush (or a discard for rw=trim) for @io_u. */
static void uc_prep_io(struct thread_data *td, struct io_u *io_u,
		       struct io_uring_sqe *sqe)
{
	struct uc_options *o = td->eo;
	struct uc_file *uf = FILE_ENG_DATA(io_u->file);
	int fd = uc_sqe_fd(o, io_u->file);
	__u64 slba = uc_blocks(uf, io_u->offset);
	__u32 nlb = (__u32)uc_blocks(uf, io_u->xfer_buflen);
	struct uc_data *ld = td->io_ops_data;
	struct iovec *iov = &ld->iovs[io_u->index];
	struct nvme_uring_cmd c;
	/* extended LBAs: the metadata is in the data buffer */
	unsigned char *md = uf->lba_ext ? NULL : uc_md_of(td, io_u);
	__u32 control = 0;	/* cdw12 bits 31:16, libnvme's NVME_IO_* */
	__u8 opcode;

	switch (io_u->ddir) {
	case DDIR_READ:
		opcode = nvme_cmd_read;
		if (o->readfua)
			control |= NVME_IO_FUA;
		break;
	case DDIR_WRITE:
		/* write_mode= and writefua, deac as fio's io_uring_cmd */
		if (o->write_mode == UC_WMODE_UNCOR) {
			/* no data, no metadata; cdw12 31:16 are reserved */
			uringcmd_nvme_rw(&c, nvme_cmd_write_uncor, uf->nsid, NULL, 0,
					 slba, nlb);
			uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_IO, &c);
			return;
		}
		if (o->writefua)
			control |= NVME_IO_FUA;
		if (o->write_mode == UC_WMODE_ZEROES) {
			if (o->deac)
				control |= NVME_IO_DEAC;
			if (uf->pi_type && o->pi_act)
				control |= NVME_IO_PRINFO_PRACT;
			uringcmd_nvme_rw(&c, nvme_cmd_write_zeroes, uf->nsid, NULL, 0,
					 slba, nlb);
			c.cdw12 |= control << 16;
			uc_placement(io_u, &c);
			uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_IO, &c);
			return;
		}
		opcode = nvme_cmd_write;
		break;
	case DDIR_TRIM:
		if (uc_multi_range(td)) {
			uc_prep_dsm(td, io_u, sqe, fd);
			return;
		}
		io_uring_prep_cmd_discard(sqe, fd, io_u->offset, io_u->xfer_buflen);
		return;
	default:	/* DDIR_SYNC, DDIR_DATASYNC: fio's fsync= */
		uringcmd_nvme_flush(&c, uf->nsid);
		uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_IO, &c);
		return;
	}
	if (o->nonvectored) {
		uringcmd_nvme_rw(&c, opcode, uf->nsid, io_u->xfer_buf,
				 io_u->xfer_buflen, slba, nlb);
	} else {
		iov->iov_base = io_u->xfer_buf;
		iov->iov_len = io_u->xfer_buflen;
		uringcmd_nvme_rw_vec(&c, opcode, uf->nsid, iov, 1, slba, nlb);
	}
	/* PRACT with metadata that is only PI: the controller moves none */
	if (uf->ms && md && !(o->pi_act && uf->pi_type && uf->ms == 8))
		uringcmd_nvme_set_metadata(&c, md, nlb * uf->ms);
	if (uf->pi_type) {
		/* PRINFO in bits 29:26; Types 1 and 2 check the LBA's reference tag */
		control |= (o->pi_act ? NVME_IO_PRINFO_PRACT : 0) | o->prchk;
		if (uf->pi_type != 3)
			c.cdw14 = slba & 0xffffffff;
		c.cdw15 = (o->apptag & 0xffff) | (o->apptag_mask & 0xffff) << 16;
		/* pi_act=0: the host's PI, as fio's io_uring_cmd computes it */
		if (io_u->ddir == DDIR_WRITE && (md || uf->lba_ext) &&
		    uc_host_pi(o, uf, io_u)) {
			struct uringcmd_nvme_pi_layout l = uc_pi_layout(uf);
			unsigned char *blk = io_u->xfer_buf;
			__u32 b;

			if (!uf->lba_ext)
				uringcmd_nvme_pi16_generate(&l, blk, md, slba, nlb,
							    (__u16)o->apptag);
			/* extended LBAs: block by block, each metadata after its data */
			for (b = 0; uf->lba_ext && b < nlb; b++, blk += uf->lba_ext)
				uringcmd_nvme_pi16_generate(&l, blk, blk + l.lbs, slba + b,
							    1, (__u16)o->apptag);
		}
	}
	c.cdw12 |= control << 16;
	if (io_u->ddir == DDIR_WRITE)
		uc_placement(io_u, &c);
	if (o->fixedbufs)
		uringcmd_prep_nvme_fixed(sqe, fd, NVME_URING_CMD_IO, &c, io_u->index);
	else
		uringcmd_prep_nvme(sqe, fd, o->nonvectored ? NVME_URING_CMD_IO :
				   NVME_URING_CMD_IO_VEC, &c);
}

/*
 * Whether check=1 reads the command's answer from its data buffer: the
 * identify data, the log page, a wide block query's value. Get Features
 * answers in the CQE and the narrow queries in cqe->res.
 */
static bool uc_answer_in_buf(const struct uc_options *o)
{
	switch (o->cmd) {
	case UC_CMD_ID_CTRL:
	case UC_CMD_ID_NS:
	case UC_CMD_GET_LOG:
		return true;
	case UC_CMD_BLOCK_QUERY:
		return uc_query_of(o)->needs_addr;
	default:
		return false;
	}
}

static enum fio_q_status fio_uringcmd_queue(struct thread_data *td,
					    struct io_u *io_u)
{
	struct uc_options *o = td->eo;
	struct uc_data *ld = td->io_ops_data;
	struct fio_file *f = io_u->file;
	int fd = uc_sqe_fd(o, f);
	struct io_uring_sqe *sqe;

	fio_ro_check(td, io_u);

	if (o->cmd == UC_CMD_IO && !ddir_rw(io_u->ddir) && !ddir_sync(io_u->ddir) &&
	    io_u->ddir != DDIR_TRIM) {
		io_u->error = EOPNOTSUPP;
		return FIO_Q_COMPLETED;
	}
	sqe = io_uring_get_sqe(&ld->ring);
	if (!sqe)
		return FIO_Q_BUSY;

	/* the ring is SQE128: what a command leaves unused must be zero */
	uringcmd_sqe128_clear(sqe);
	/*
	 * An answer checked must be one this command wrote: a buffer still
	 * holding the last command's answer (or zeroes, like a reference the
	 * kernel never filled) would pass for it.
	 */
	if (o->check && uc_answer_in_buf(o))
		memset(io_u->xfer_buf, UC_POISON_CMD, io_u->xfer_buflen);
	switch (o->cmd) {
	case UC_CMD_IO:
		uc_prep_io(td, io_u, sqe);
		break;
	case UC_CMD_BLOCK_QUERY: {
		const struct uringcmd_block_query *q = uc_query_of(o);

		uringcmd_prep_block_query(sqe, fd, q->cmd,
					  q->needs_addr ? io_u->xfer_buf : NULL);
		break;
	}
	default: {
		struct nvme_uring_cmd c;

		uc_admin_cmd(o, FILE_ENG_DATA(f), o->cmd, &c, io_u->xfer_buf,
			     io_u->xfer_buflen);
		if (o->fixedbufs)
			uringcmd_prep_nvme_fixed(sqe, fd, NVME_URING_CMD_ADMIN, &c,
						 io_u->index);
		else
			uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_ADMIN, &c);
		break;
	}
	}
	if (o->registerfiles)
		sqe->flags |= IOSQE_FIXED_FILE;
	/* as fio's io_uring engines: IOSQE_ASYNC on every N-th command */
	if (o->force_async && ++ld->prepped == o->force_async) {
		ld->prepped = 0;
		sqe->flags |= IOSQE_ASYNC;
	}
	io_uring_sqe_set_data(sqe, io_u);
	ld->pending[(ld->pend_head + ld->queued) % td->o.iodepth] = io_u;
	ld->queued++;
	return FIO_Q_QUEUED;
}

/*
 * The first @nr pending commands are in the kernel now: their issue time
 * and submission latency. fio records slat only through io_u_queued(),
 * which an engine with a commit hook must call itself (backend.c), and
 * FIO_ASYNCIO_SETS_ISSUE_TIME tells fio not to stamp issue_time at queue
 * time; as fio's io_uring engines do.
 */
static void uc_queued(struct thread_data *td, unsigned int nr)
{
	struct uc_data *ld = td->io_ops_data;
	bool stamp = fio_fill_issue_time(td);
	struct timespec now;

	if (stamp)
		fio_gettime(&now, NULL);
	while (nr--) {
		struct io_u *io_u = ld->pending[ld->pend_head];

		ld->pend_head = (ld->pend_head + 1) % td->o.iodepth;
		ld->queued--;
		if (!stamp)
			continue;
		memcpy(&io_u->issue_time, &now, sizeof(now));
		io_u_queued(td, io_u);
	}
	if (stamp && td->o.read_iolog_file)
		memcpy(&td->last_issue, &now, sizeof(now));
}

static int fio_uringcmd_commit(struct thread_data *td)
{
	struct uc_data *ld = td->io_ops_data;
	int ret;

	while (ld->queued) {
		/*
		 * As fio's io_uring engines, the submitting enter also asks for
		 * events (IORING_ENTER_GETEVENTS, no wait): with DEFER_TASKRUN
		 * it posts completions that arrived meanwhile, which
		 * getevents then reaps without entering again. SQPOLL needs
		 * no enter to submit, and gets none.
		 */
		if (ld->ring.flags & IORING_SETUP_SQPOLL)
			ret = io_uring_submit(&ld->ring);
		else
			ret = io_uring_submit_and_get_events(&ld->ring);
		if (ret > 0) {
			io_u_mark_submit(td, ret);
			uc_queued(td, (unsigned int)ret < ld->queued ?
				  (unsigned int)ret : ld->queued);
			continue;
		}
		if (ret == -EAGAIN || ret == -EINTR || ret == -EBUSY) {
			usleep(1);
			continue;
		}
		if (!ret)
			break;
		td_verror(td, -ret, "io_uring_submit");
		return ret;
	}
	return 0;
}

/* Check an admin answer against what the ioctl said at open time. */
static int uc_check_admin(struct thread_data *td, struct io_u *io_u,
			  const struct io_uring_cqe *cqe)
{
	struct uc_options *o = td->eo;
	struct uc_file *uf = FILE_ENG_DATA(io_u->file);
	const char *fname = io_u->file->file_name;

	switch (o->cmd) {
	case UC_CMD_ID_CTRL: {
		const struct nvme_id_ctrl *id = io_u->xfer_buf;

		if (id->vid != uf->id_ctrl.vid || id->ssvid != uf->id_ctrl.ssvid ||
		    memcmp(id->sn, uf->id_ctrl.sn, sizeof(id->sn)) ||
		    memcmp(id->mn, uf->id_ctrl.mn, sizeof(id->mn))) {
			uc_log(td, "%s: identify-ctrl answer differs from the ioctl's: "
			       "VID %#x SN '%.20s', expected VID %#x SN '%.20s'", fname,
			       le16toh(id->vid), id->sn,
			       le16toh(uf->id_ctrl.vid), uf->id_ctrl.sn);
			return EIO;
		}
		break;
	}
	case UC_CMD_ID_NS: {
		const struct nvme_id_ns *id = io_u->xfer_buf;

		if (id->nsze != uf->id_ns.nsze || id->flbas != uf->id_ns.flbas ||
		    memcmp(id->lbaf, uf->id_ns.lbaf, sizeof(id->lbaf))) {
			uc_log(td, "%s: identify-ns answer differs from the ioctl's: "
			       "NSZE %llu FLBAS %#x, expected NSZE %llu FLBAS %#x", fname,
			       (unsigned long long)le64toh(id->nsze), id->flbas,
			       (unsigned long long)le64toh(uf->id_ns.nsze),
			       uf->id_ns.flbas);
			return EIO;
		}
		break;
	}
	case UC_CMD_GET_LOG:
		if (o->log_id == NVME_LOG_LID_SMART) {
			const struct nvme_smart_log *s = io_u->xfer_buf;
			unsigned int kelvin = s->temperature[0] | s->temperature[1] << 8;

			/* the composite temperature is in Kelvin, never 0 */
			if (kelvin < 173 || kelvin > 473) {
				uc_log(td, "%s: SMART log composite temperature %u K "
				       "is not a temperature", fname, kelvin);
				return EIO;
			}
		}
		break;
	case UC_CMD_GET_FEATURES: {
		__u32 dw0;

		memcpy(&dw0, cqe->big_cqe, sizeof(dw0));	/* the CQE's result */
		if (!uc_feature_volatile(o->fid) && dw0 != uf->feature) {
			uc_log(td, "%s: get-features fid %#x answers %#x, the ioctl %#x",
			       fname, o->fid, dw0, uf->feature);
			return EIO;
		}
		break;
	}
	}
	return 0;
}

static int uc_check_query(struct thread_data *td, struct io_u *io_u, int res)
{
	const struct uringcmd_block_query *q = uc_query_of(td->eo);
	struct uc_file *uf = FILE_ENG_DATA(io_u->file);
	__u64 answer = 0;

	uringcmd_block_query_answer(q, res, q->needs_addr ? io_u->xfer_buf : NULL,
				    &answer);
	if (answer == uf->query)
		return 0;
	uc_log(td, "%s: %s answers %llu, the ioctl %llu", io_u->file->file_name,
	       q->name, (unsigned long long)answer, (unsigned long long)uf->query);
	return EIO;
}

static void uc_complete(struct thread_data *td, struct io_u *io_u,
			const struct io_uring_cqe *cqe)
{
	struct uc_options *o = td->eo;
	struct uc_data *ld = td->io_ops_data;
	int res = cqe->res;

	io_u->error = 0;
	if (io_u->ddir == DDIR_TRIM && res == -EOPNOTSUPP && !uc_multi_range(td)) {
		if (!ld->discard_missing)
			uc_no_discard(td, io_u->file);
		ld->discard_missing = true;
		io_u->error = EOPNOTSUPP;
		return;
	}
	if (res < 0 || (res > 0 && o->cmd != UC_CMD_BLOCK_QUERY)) {
		char rs[256];

		uc_res_str(res, rs, sizeof(rs));
		if (o->cmd == UC_CMD_IO)
			uc_log(td, "%s: %s of %llu bytes at %llu: %s",
			       io_u->file->file_name, io_ddir_name(io_u->ddir),
			       io_u->xfer_buflen, io_u->offset, rs);
		else
			uc_log(td, "%s: %s: %s", io_u->file->file_name,
			       uc_cmd_name(o->cmd), rs);
		io_u->error = res < 0 ? -res : EIO;
		return;
	}
	if (o->cmd == UC_CMD_IO && io_u->ddir == DDIR_READ && o->prchk) {
		struct uc_file *uf = FILE_ENG_DATA(io_u->file);
		unsigned char *md = uc_md_of(td, io_u);

		if ((md || uf->lba_ext) && uc_host_pi(o, uf, io_u)) {
			struct uringcmd_nvme_pi_layout l = uc_pi_layout(uf);
			struct uringcmd_nvme_pi_error e;
			__u64 slba = uc_blocks(uf, io_u->offset);
			__u32 nlb = (__u32)uc_blocks(uf, io_u->xfer_buflen);
			unsigned char *blk = io_u->xfer_buf;
			int bad = 0;
			__u32 b;

			if (!uf->lba_ext)
				bad = uringcmd_nvme_pi16_check(&l, blk, md, slba, nlb,
							       o->prchk, (__u16)o->apptag,
							       (__u16)o->apptag_mask, &e);
			/* extended LBAs: block by block, as they were generated */
			for (b = 0; uf->lba_ext && !bad && b < nlb; b++, blk += uf->lba_ext) {
				bad = uringcmd_nvme_pi16_check(&l, blk, blk + l.lbs, slba + b,
							       1, o->prchk, (__u16)o->apptag,
							       (__u16)o->apptag_mask, &e);
				e.block = b;
			}
			if (bad) {
				uc_log(td, "%s: read at LBA %llu: %s check failed: "
				       "expected %#x, the block holds %#x (pi_act=0: "
				       "checked by the host)", io_u->file->file_name,
				       (unsigned long long)(slba + e.block),
				       e.field == NVME_IO_PRINFO_PRCHK_GUARD ? "guard" :
				       e.field == NVME_IO_PRINFO_PRCHK_APP ?
				       "application tag" : "reference tag",
				       e.expected, e.actual);
				io_u->error = EIO;
				return;
			}
		}
	}
	if (!o->check)
		return;
	if (o->cmd == UC_CMD_BLOCK_QUERY)
		io_u->error = uc_check_query(td, io_u, res);
	else if (uc_is_admin(o->cmd))
		io_u->error = uc_check_admin(td, io_u, cqe);
}

static unsigned int uc_reap(struct thread_data *td, unsigned int max)
{
	struct uc_data *ld = td->io_ops_data;
	struct io_uring_cqe *cqe;
	unsigned int head, n = 0;

	io_uring_for_each_cqe(&ld->ring, head, cqe) {
		struct io_u *io_u = io_uring_cqe_get_data(cqe);

		n++;
		uc_complete(td, io_u, cqe);
		ld->events[ld->nr_events++] = io_u;
		if (ld->nr_events == max)
			break;
	}
	io_uring_cq_advance(&ld->ring, n);
	return n;
}

static int fio_uringcmd_getevents(struct thread_data *td, unsigned int min,
				  unsigned int max, const struct timespec *t)
{
	struct uc_data *ld = td->io_ops_data;
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	bool posted = false;
	int ret;

	ld->nr_events = 0;
	for (;;) {
		uc_reap(td, max);
		if (ld->nr_events >= min) {
			/*
			 * DEFER_TASKRUN: completions are posted only when this
			 * task enters the kernel for events. A wait below does
			 * (one io_uring_enter(), as fio's own engine); a caller
			 * that does not wait (min 0) and found none gets them
			 * posted once here, not on every call: at QD 1 that
			 * was a third system call per I/O.
			 */
			if (!ld->nr_events && !posted &&
			    (ld->ring.flags & IORING_SETUP_DEFER_TASKRUN)) {
				io_uring_get_events(&ld->ring);
				posted = true;
				continue;
			}
			break;
		}
		/* one enter waits for all still missing, as fio's engine */
		if (t) {
			ts.tv_sec = t->tv_sec;
			ts.tv_nsec = t->tv_nsec;
			ret = io_uring_wait_cqes(&ld->ring, &cqe, min - ld->nr_events,
						 &ts, NULL);
			if (ret == -ETIME && !(ld->ring.flags & IORING_SETUP_IOPOLL))
				break;
		} else {
			ret = io_uring_wait_cqe_nr(&ld->ring, &cqe, min - ld->nr_events);
		}
		if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -ETIME) {
			td_verror(td, -ret, "io_uring_wait_cqe");
			return ret;
		}
	}
	return ld->nr_events;
}

static struct io_u *fio_uringcmd_event(struct thread_data *td, int event)
{
	struct uc_data *ld = td->io_ops_data;

	return ld->events[event];
}

/* ---- setting up --------------------------------------------------------- */

/* The running fio must be the one this engine was compiled against. */
static int uc_check_fio(void)
{
#ifdef URINGCMD_EXTERNAL
	if (strcmp(fio_version_string, UC_FIO_VERSION)) {
		log_err("fio: uringcmd: this engine was built for %s, not %s; "
			"rebuild it against this fio's source (fio-engine/README.md)\n",
			UC_FIO_VERSION, fio_version_string);
		return 1;
	}
#endif
	return 0;
}

static int uc_check_options(struct thread_data *td)
{
	struct uc_options *o = td->eo;
	const char *name;

	uc_normalize(o);
	name = uc_cmd_name(o->cmd);
	if (o->cmd != UC_CMD_IO) {
		/*
		 * An admin command or a query reads no device range: without a
		 * bound fio would issue size/bs of them, a billion identifies
		 * for a 4 TB namespace.
		 */
		if (!td->o.number_ios && !fio_option_is_set(&td->o, io_size) &&
		    !fio_option_is_set(&td->o, timeout)) {
			log_err("fio: uringcmd: cmd=%s is not bounded by the device: "
				"set number_ios=, io_size= or runtime=\n", name);
			return 1;
		}
		if (o->hipri && uc_is_admin(o->cmd)) {
			log_err("fio: uringcmd: hipri polls I/O queues; cmd=%s is an "
				"admin command, which an IOPOLL ring refuses: drop hipri\n",
				name);
			return 1;
		}
		if (td_write(td) || td_trim(td)) {
			log_err("fio: uringcmd: cmd=%s only reads: use rw=read or "
				"rw=randread\n", name);
			return 1;
		}
		if (td->o.verify) {	/* != VERIFY_NONE */
			log_err("fio: uringcmd: verify= checks data written by cmd=io; "
				"cmd=%s is checked by check=1\n", name);
			return 1;
		}
	}
	/*
	 * Nothing orders passthrough writes to one zone (no zone write lock,
	 * as mq-deadline's for the block layer's writes), and fio's zbd layer
	 * may have several in flight: said (on stderr, unbuffered in a job's
	 * process), not refused, as fio's io_uring_cmd allows it (README.md,
	 * zonemode=zbd).
	 */
	if (td->o.zone_mode == ZONE_MODE_ZBD && td_write(td) && td->o.iodepth > 1)
		log_err("fio: uringcmd: zonemode=zbd writes at iodepth=%u may reach a "
			"zone out of order and fail with Zone Invalid Write: "
			"passthrough has no zone write lock; use iodepth=1\n",
			td->o.iodepth);
	if (o->cmd == UC_CMD_IO && td_trim(td) && o->hipri && !uc_multi_range(td)) {
		log_err("fio: uringcmd: hipri polls I/O queues; a discard cannot be "
			"polled (an IOPOLL ring gets -EOPNOTSUPP, as on Linux 6.12): "
			"drop hipri for rw=trim\n");
		return 1;
	}
	if (uc_is_admin(o->cmd) && td->o.min_bs[DDIR_READ] != td->o.max_bs[DDIR_READ]) {
		log_err("fio: uringcmd: cmd=%s needs one block size (bs=)\n", name);
		return 1;
	}
	if ((o->cmd == UC_CMD_ID_CTRL || o->cmd == UC_CMD_ID_NS) &&
	    td->o.min_bs[DDIR_READ] != NVME_IDENTIFY_DATA_SIZE) {
		log_err("fio: uringcmd: cmd=%s transfers %d bytes: set bs=4k\n", name,
			NVME_IDENTIFY_DATA_SIZE);
		return 1;
	}
	if (o->cmd == UC_CMD_GET_LOG && (td->o.min_bs[DDIR_READ] % 4 ||
	    td->o.min_bs[DDIR_READ] > (4ULL << 20))) {
		log_err("fio: uringcmd: cmd=get-log reads bs= bytes of the log: a "
			"multiple of 4, at most 4 MiB\n");
		return 1;
	}
	if (o->cmd == UC_CMD_GET_FEATURES &&
	    td->o.min_bs[DDIR_READ] < uc_feature_data_len(o->fid)) {
		log_err("fio: uringcmd: get-features fid %#x returns %u bytes: bs= "
			"must hold them\n", o->fid, uc_feature_data_len(o->fid));
		return 1;
	}
	if (o->cmd == UC_CMD_BLOCK_QUERY && td->o.min_bs[DDIR_READ] < 8) {
		log_err("fio: uringcmd: cmd=block-query needs bs=8 or more\n");
		return 1;
	}
	if (o->pi_chk) {
		char *list = strdup(o->pi_chk), *tok, *save = NULL;

		if (!list)
			return 1;
		for (tok = strtok_r(list, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (!strcasecmp(tok, "GUARD")) {
				o->prchk |= NVME_IO_PRINFO_PRCHK_GUARD;
			} else if (!strcasecmp(tok, "REFTAG")) {
				o->prchk |= NVME_IO_PRINFO_PRCHK_REF;
			} else if (!strcasecmp(tok, "APPTAG")) {
				o->prchk |= NVME_IO_PRINFO_PRCHK_APP;
			} else {
				log_err("fio: uringcmd: pi_chk=%s: GUARD, REFTAG and "
					"APPTAG, comma-separated\n", o->pi_chk);
				free(list);
				return 1;
			}
		}
		free(list);
	}
	/* pi_act is on by default (as fio's): only what a user set is refused */
	if ((o->md_per_io_size || o->prchk) && o->cmd != UC_CMD_IO) {
		log_err("fio: uringcmd: md_per_io_size and pi_chk go with cmd=io\n");
		return 1;
	}
	/* as fio's io_uring_cmd: write_mode= replaces the job's writes */
	if (o->write_mode != UC_WMODE_WRITE && !td_write(td)) {
		log_err("fio: uringcmd: write_mode=%s replaces writes, and rw= has "
			"none\n", o->write_mode == UC_WMODE_ZEROES ? "zeroes" : "uncor");
		return 1;
	}
	if (o->fixedbufs && uc_multi_range(td) && td_trim(td)) {
		log_err("fio: uringcmd: fixedbufs registers data buffers, and the "
			"ranges of num_range=%u trims are not data: drop fixedbufs\n",
			uc_num_range(td));
		return 1;
	}
	if (o->fixedbufs && !o->nonvectored) {
		log_err("fio: uringcmd: fixedbufs needs nonvectored=1 (registered "
			"buffers are not vectored)\n");
		return 1;
	}
	if (o->registerfiles && td->o.nr_files != td->o.open_files) {
		log_err("fio: uringcmd: registerfiles needs nr_files == open_files\n");
		return 1;
	}
	return 0;
}

static int fio_uringcmd_init(struct thread_data *td)
{
	struct uc_options *o = td->eo;
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };
	struct uc_data *ld;
	int ret;

	if (uc_check_fio() || uc_check_options(td))
		return 1;

	ld = calloc(1, sizeof(*ld));
	if (!ld)
		return 1;
	td->io_ops_data = ld;
	ld->io_us = calloc(td->o.iodepth, sizeof(*ld->io_us));
	ld->events = calloc(td->o.iodepth, sizeof(*ld->events));
	ld->iovs = calloc(td->o.iodepth, sizeof(*ld->iovs));
	ld->pending = calloc(td->o.iodepth, sizeof(*ld->pending));
	if (!ld->io_us || !ld->events || !ld->iovs || !ld->pending)
		return 1;
	if (o->md_per_io_size) {
		ld->md_buf = calloc(td->o.iodepth, o->md_per_io_size);
		if (!ld->md_buf)
			return 1;
	}
	if (uc_multi_range(td)) {
		ld->dsm = calloc((size_t)td->o.iodepth * uc_num_range(td), sizeof(*ld->dsm));
		if (!ld->dsm)
			return 1;
	}

	if (o->hipri)
		p.flags |= IORING_SETUP_IOPOLL;
	if (o->sqpoll_thread) {
		p.flags |= IORING_SETUP_SQPOLL;
		if (o->sqpoll_cpu_set) {
			p.flags |= IORING_SETUP_SQ_AFF;
			p.sq_thread_cpu = o->sqpoll_cpu;
		}
	} else {
		/*
		 * As fio's io_uring engines set the ring up
		 * (fio_ioring_cmd_queue_init()): no IPI to run completions
		 * (COOP_TASKRUN), one issuer whose task work waits until it
		 * reaps (SINGLE_ISSUER, DEFER_TASKRUN; not with SQPOLL, whose
		 * thread is the issuer), each dropped where a kernel refuses it.
		 */
		p.flags |= IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER |
			   IORING_SETUP_DEFER_TASKRUN;
	}
	for (;;) {
		struct io_uring_params q = p;

		ret = io_uring_queue_init_params(td->o.iodepth, &ld->ring, &q);
		if (ret != -EINVAL)
			break;
		if (p.flags & IORING_SETUP_DEFER_TASKRUN)
			p.flags &= ~(IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_SINGLE_ISSUER);
		else if (p.flags & IORING_SETUP_COOP_TASKRUN)
			p.flags &= ~IORING_SETUP_COOP_TASKRUN;
		else
			break;
	}
	if (ret) {
		log_err("fio: uringcmd: io_uring_queue_init (SQE128|CQE32%s%s): %s%s\n",
			o->hipri ? "|IOPOLL" : "", o->sqpoll_thread ? "|SQPOLL" : "",
			strerror(-ret), ret == -EINVAL ?
			" (needs Linux 6.0 or later for SQE128/CQE32)" : "");
		td_verror(td, -ret, "io_uring_queue_init");
		return 1;
	}
	ld->ring_ok = true;

	if (o->registerfiles) {
		ret = io_uring_register_files_sparse(&ld->ring, td->o.nr_files);
		if (ret) {
			td_verror(td, -ret, "io_uring_register_files_sparse");
			return 1;
		}
	}
	return 0;
}

static int fio_uringcmd_io_u_init(struct thread_data *td, struct io_u *io_u)
{
	struct uc_data *ld = td->io_ops_data;

	ld->io_us[io_u->index] = io_u;
	return 0;
}

/* The I/O buffers exist only now: register them for fixedbufs. */
static int fio_uringcmd_post_init(struct thread_data *td)
{
	struct uc_options *o = td->eo;
	struct uc_data *ld = td->io_ops_data;
	struct iovec *iovs;
	unsigned int i;
	int ret;

	if (!o->fixedbufs)
		return 0;
	iovs = calloc(td->o.iodepth, sizeof(*iovs));
	if (!iovs)
		return 1;
	for (i = 0; i < td->o.iodepth; i++) {
		iovs[i].iov_base = ld->io_us[i]->buf;
		iovs[i].iov_len = td_max_bs(td);
	}
	ret = io_uring_register_buffers(&ld->ring, iovs, td->o.iodepth);
	free(iovs);
	if (ret) {
		log_err("fio: uringcmd: fixedbufs: io_uring_register_buffers: %s%s\n",
			strerror(-ret), ret == -ENOMEM ?
			" (raise ulimit -l, or use smaller iodepth/bs)" : "");
		td_verror(td, -ret, "io_uring_register_buffers");
		return 1;
	}
	return 0;
}

static void fio_uringcmd_cleanup(struct thread_data *td)
{
	struct uc_data *ld = td->io_ops_data;

	if (!ld)
		return;
	if (ld->ring_ok)
		io_uring_queue_exit(&ld->ring);
	free(ld->io_us);
	free(ld->events);
	free(ld->iovs);
	free(ld->pending);
	free(ld->md_buf);
	free(ld->dsm);
	free(ld);
	td->io_ops_data = NULL;
}

static int fio_uringcmd_sqpoll_cb(void *data, unsigned long long *val)
{
	struct uc_options *o = data;

	o->sqpoll_cpu = *val;
	o->sqpoll_cpu_set = 1;
	return 0;
}

/* block_query=: any case, one of the library's table */
static int fio_uringcmd_query_cb(void *data, const char *str)
{
	const struct uringcmd_block_query *q = uringcmd_block_query_by_name(str);
	struct uc_options *o = data;

	if (!q) {
		log_err("fio: uringcmd: block_query=%s is not a query "
			"BLOCK_URING_CMD_IOCTL answers (fio --enghelp=uringcmd "
			"lists them)\n", str);
		return 1;
	}
	o->query = q - uringcmd_block_queries;
	return 0;
}

static struct fio_option options[] = {
	{
		.name	= "cmd",
		.lname	= "uring_cmd to issue",
		.type	= FIO_OPT_STR,
		.off1	= offsetof(struct uc_options, cmd),
		.help	= "The command each I/O unit issues",
		.def	= "io",
		.posval = {
			  { .ival = "io",
			    .oval = UC_CMD_IO,
			    .help = "NVMe Read/Write (Flush for fsync=) passthrough on the block node, per rw=",
			  },
			  { .ival = "identify-ctrl",
			    .oval = UC_CMD_ID_CTRL,
			    .help = "NVMe Identify Controller (bs=4k)",
			  },
			  { .ival = "id-ctrl",
			    .oval = UC_CMD_ID_CTRL,
			    .help = "identify-ctrl, as nvme-cli spells it",
			  },
			  { .ival = "identify-ns",
			    .oval = UC_CMD_ID_NS,
			    .help = "NVMe Identify Namespace (bs=4k)",
			  },
			  { .ival = "id-ns",
			    .oval = UC_CMD_ID_NS,
			    .help = "identify-ns, as nvme-cli spells it",
			  },
			  { .ival = "get-log",
			    .oval = UC_CMD_GET_LOG,
			    .help = "NVMe Get Log Page log_id, bs= bytes of it",
			  },
			  { .ival = "smart-log",
			    .oval = UC_CMD_SMART_LOG,
			    .help = "get-log of log_id=2, SMART / health (bs=512), as nvme-cli",
			  },
			  { .ival = "get-features",
			    .oval = UC_CMD_GET_FEATURES,
			    .help = "NVMe Get Features fid (current value)",
			  },
			  { .ival = "get-feature",
			    .oval = UC_CMD_GET_FEATURES,
			    .help = "get-features, as nvme-cli spells it",
			  },
			  { .ival = "block-query",
			    .oval = UC_CMD_BLOCK_QUERY,
			    .help = "Block device query block_query= (any block device)",
			  },
		},
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "log_id",
		.lname	= "Log page identifier",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, log_id),
		.help	= "Log page of cmd=get-log (2: SMART / health)",
		.def	= "2",
		.minval	= 0,
		.maxval	= 255,
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "fid",
		.lname	= "Feature identifier",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, fid),
		.help	= "Feature of cmd=get-features (7: number of queues)",
		.def	= "7",
		.minval	= 0,
		.maxval	= 255,
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "block_query",
		.lname	= "Block device query",
		.type	= FIO_OPT_STR_STORE,
		.cb	= fio_uringcmd_query_cb,
		.help	= "The ioctl cmd=block-query asks (BLOCK_URING_CMD_IOCTL), any case: "
			  "BLKROGET BLKBSZGET BLKSSZGET BLKPBSZGET BLKIOMIN BLKIOOPT "
			  "BLKDISCARDZEROES BLKSECTGET BLKROTATIONAL BLKGETZONESZ "
			  "BLKGETNRZONES BLKALIGNOFF BLKGETSIZE64 BLKGETSIZE "
			  "BLKGETDISKSEQ BLKRAGET BLKFRAGET",
		.def	= "BLKBSZGET",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "check",
		.lname	= "Check answers",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct uc_options, check),
		.help	= "Compare each admin answer or block query with the ioctl's",
		.def	= "1",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "hipri",
		.lname	= "High Priority",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct uc_options, hipri),
		.help	= "Use polled IO completions (IORING_SETUP_IOPOLL)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "fixedbufs",
		.lname	= "Fixed (pre-mapped) IO buffers",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct uc_options, fixedbufs),
		.help	= "Pre map IO buffers (IORING_URING_CMD_FIXED)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "registerfiles",
		.lname	= "Register file set",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct uc_options, registerfiles),
		.help	= "Pre-open/register files",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "sqthread_poll",
		.lname	= "Kernel SQ thread polling",
		.type	= FIO_OPT_STR_SET,
		.off1	= offsetof(struct uc_options, sqpoll_thread),
		.help	= "Offload submission/completion to kernel thread",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "sqthread_poll_cpu",
		.lname	= "SQ Thread Poll CPU",
		.type	= FIO_OPT_INT,
		.cb	= fio_uringcmd_sqpoll_cb,
		.help	= "What CPU to run SQ thread polling on",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "force_async",
		.lname	= "Force async",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, force_async),
		.help	= "Set IOSQE_ASYNC every N requests",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "nonvectored",
		.lname	= "Non-vectored",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, nonvectored),
		.def	= "-1",
		.minval	= -1,
		.maxval	= 1,
		.help	= "Use NVME_URING_CMD_IO (-1, the default, or 1) or NVME_URING_CMD_IO_VEC (0), as fio's io_uring_cmd",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "cmd_type",
		.lname	= "Uring cmd type",
		.type	= FIO_OPT_STR,
		.off1	= offsetof(struct uc_options, cmd_type),
		.help	= "Specify uring-cmd type (fio's io_uring_cmd; nvme, the only one)",
		.def	= "nvme",
		.posval = {
			  { .ival = "nvme",
			    .oval = UC_CMD_TYPE_NVME,
			    .help = "Issue nvme-uring-cmd",
			  },
		},
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "readfua",
		.lname	= "Read fua flag support",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct uc_options, readfua),
		.help	= "Set FUA flag (force unit access) for all Read operations",
		.def	= "0",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "writefua",
		.lname	= "Write fua flag support",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct uc_options, writefua),
		.help	= "Set FUA flag (force unit access) for all Write operations",
		.def	= "0",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "write_mode",
		.lname	= "Additional Write commands support (Write Uncorrectable, Write Zeroes)",
		.type	= FIO_OPT_STR,
		.off1	= offsetof(struct uc_options, write_mode),
		.help	= "Issue Write Uncorrectable or Zeroes command instead of Write command",
		.def	= "write",
		.posval = {
			  { .ival = "write",
			    .oval = UC_WMODE_WRITE,
			    .help = "Issue Write commands for write operations",
			  },
			  { .ival = "uncor",
			    .oval = UC_WMODE_UNCOR,
			    .help = "Issue Write Uncorrectable commands for write operations",
			  },
			  { .ival = "zeroes",
			    .oval = UC_WMODE_ZEROES,
			    .help = "Issue Write Zeroes commands for write operations",
			  },
		},
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "deac",
		.lname	= "Deallocate bit for write zeroes command",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct uc_options, deac),
		.help	= "Set DEAC (deallocate) flag for write zeroes command",
		.def	= "0",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "md_per_io_size",
		.lname	= "Separate Metadata Buffer Size per I/O",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, md_per_io_size),
		.def	= "0",
		.help	= "Size of the separate metadata buffer per I/O (bytes)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "pi_act",
		.lname	= "Protection Information Action",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct uc_options, pi_act),
		.def	= "1",
		.help	= "Protection Information Action bit (pi_act=1 or pi_act=0; 0: the host generates and checks PI)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "pi_chk",
		.lname	= "Protection Information Check",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct uc_options, pi_chk),
		.def	= NULL,
		.help	= "Control of Protection Information Checking (pi_chk=GUARD,REFTAG,APPTAG)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "apptag",
		.lname	= "Application Tag used in Protection Information",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, apptag),
		.def	= "0x1234",
		.help	= "Application Tag used in Protection Information field (Default: 0x1234)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "apptag_mask",
		.lname	= "Application Tag Mask",
		.type	= FIO_OPT_INT,
		.off1	= offsetof(struct uc_options, apptag_mask),
		.def	= "0xffff",
		.help	= "Application Tag Mask used with Application Tag (Default: 0xffff)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
#if !UC_FDP
	/* fio 3.34's names, taken here only to refuse them (fio_uringcmd_setup) */
	{
		.name	= "fdp",
		.lname	= "Flexible data placement (fio 3.34 on)",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct uc_options, fdp),
		.def	= "0",
		.help	= "Refused: data placement needs fio 3.34 or newer",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "dataplacement",
		.alias	= "data_placement",
		.lname	= "Data Placement interface (fio 3.36 on)",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct uc_options, dataplacement),
		.help	= "Refused: data placement needs fio 3.34 or newer",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "plids",
		.alias	= "fdp_pli",
		.lname	= "Data Placement ID indices (fio 3.34 on)",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct uc_options, plids),
		.help	= "Refused: data placement needs fio 3.34 or newer",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "plid_select",
		.alias	= "fdp_pli_select",
		.lname	= "Data Placement ID selection (fio 3.34 on)",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct uc_options, plid_select),
		.help	= "Refused: data placement needs fio 3.34 or newer",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
	{
		.name	= "dp_scheme",
		.lname	= "Data Placement Scheme (fio 3.38 on)",
		.type	= FIO_OPT_STR_STORE,
		.off1	= offsetof(struct uc_options, dp_scheme),
		.help	= "Refused: data placement needs fio 3.34 or newer",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_IOURING,
	},
#endif
	{
		.name	= NULL,
	},
};

#ifdef URINGCMD_EXTERNAL
/* fio dlopen()s a bare engine name and looks up this symbol. */
struct ioengine_ops ioengine = {
#else
static struct ioengine_ops ioengine = {
#endif
	.name			= "uringcmd",
	.version		= FIO_IOOPS_VERSION,
	.flags			= FIO_NO_OFFLOAD | FIO_MEMALIGN | FIO_RAWIO | FIO_NOEXTEND |
				  FIO_ASYNCIO_SETS_ISSUE_TIME | UC_MULTI_RANGE_TRIM,
	.setup			= fio_uringcmd_setup,
	.init			= fio_uringcmd_init,
	.post_init		= fio_uringcmd_post_init,
	.io_u_init		= fio_uringcmd_io_u_init,
	.queue			= fio_uringcmd_queue,
	.commit			= fio_uringcmd_commit,
	.getevents		= fio_uringcmd_getevents,
	.event			= fio_uringcmd_event,
	.cleanup		= fio_uringcmd_cleanup,
	.open_file		= fio_uringcmd_open_file,
	.close_file		= fio_uringcmd_close_file,
	.get_file_size		= fio_uringcmd_get_file_size,
	.get_zoned_model	= fio_uringcmd_get_zoned_model,
	.report_zones		= fio_uringcmd_report_zones,
	.reset_wp		= fio_uringcmd_reset_wp,
	.get_max_open_zones	= fio_uringcmd_get_max_open_zones,
#if UC_FDP
	.fdp_fetch_ruhs		= fio_uringcmd_fetch_ruhs,
#endif
	.options		= options,
	.option_struct_size	= sizeof(struct uc_options),
};

#ifndef URINGCMD_EXTERNAL
static void fio_init fio_uringcmd_register(void)
{
	register_ioengine(&ioengine);
}

static void fio_exit fio_uringcmd_unregister(void)
{
	unregister_ioengine(&ioengine);
}
#endif
