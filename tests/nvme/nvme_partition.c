// SPDX-License-Identifier: GPL-2.0
/* Description: partitions of an NVMe namespace, of a loop device and of a misaligned nvmet namespace through every uring_cmd: block queries equal to the ioctl and sysfs, NVMe passthrough reaching the whole namespace under the ioctl's permission rule, discard kept inside the partition */
/*
 * Usage: nvme_partition [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *
 * Three disks get an MS-DOS partition table, written here and read by the
 * kernel's own parser (BLKRRPART; on the loop device, LO_FLAGS_PARTSCAN,
 * what losetup -P sets), with the same two partitions:
 *   p1 at 1 MiB, 8 MiB long (aligned);
 *   p2 at 10 MiB + one 512-byte block, 6 MiB long (misaligned), with free
 *      space before and after it;
 * on these disks:
 *   - namespace 2 of the controller under test ($TEST_NVME_PART_DEV, else
 *     the node of nsid 2 on CTRLDEV, whatever its name; else the namespace
 *     under test): PCIe;
 *   - a 64 MiB loop device (no NVMe);
 *   - the namespace of an nvmet subsystem in this guest, reached over the
 *     loop transport (a multipath head node), whose backing device is a
 *     dm-stripe of two loop devices with 4 KiB chunks: nvmet reports
 *     io_min 4 KiB (NPWG) with 512-byte blocks, so p2 is misaligned and
 *     BLKALIGNOFF answers 3584 there, where every other disk answers 0.
 *
 * On every partition node:
 *   - each block query through BLOCK_URING_CMD_IOCTL (without and with
 *     addr, the slot poisoned) equals the ioctl on the same node; size
 *     (BLKGETSIZE64, BLKGETSIZE), start and alignment equal sysfs, the
 *     table written and the alignment computed from the disk's limits;
 *   - BLKROSET on p2 makes BLKROGET 1 through uring_cmd on p2 only, and a
 *     discard there -EPERM;
 *   - BLOCK_URING_CMD_DISCARD (6.12's discard): a range past the
 *     partition's end or at it is -EINVAL, as BLKDISCARD is; a valid range
 *     at either end of p2 reads back like a range BLKDISCARD discarded,
 *     and the blocks outside the partition next to it are untouched.
 *
 * On the NVMe partitions, the passthrough rule of drivers/nvme/host/ioctl.c:
 * the passthrough ioctls on a partition node go to nvme_ioctl() with the
 * partition's bdev; for a caller with CAP_SYS_ADMIN (whatever the open
 * mode) a partition node reaches the whole namespace, with namespace LBAs,
 * and its controller; without it, 6.1 refuses everything and later
 * kernels every I/O command there (NVME_IOCTL_PARTITION). So
 * NVME_URING_CMD_* on a partition must do as the ioctl on it does:
 *   - Identify Controller/Namespace on p1 (uring_cmd) equal the ioctl on
 *     p1 and on the whole disk, byte for byte, buffers poisoned apart;
 *   - a Read of LBA 0 on p1 returns the partition table (outside p1); a
 *     Write on p1 to a block between p1 and p2 lands there (pread of the
 *     disk), and one to a block of p2 shows through p2's node; the ioctl
 *     on p1 does the same;
 *   - a read-only open of p1: Identify, Read and Write succeed through
 *     both, as on the whole node;
 *   - without CAP_SYS_ADMIN: a Read inside p1, a Read of LBA 0 and a Write
 *     between p1 and p2 -EACCES through both, on every kernel (later
 *     kernels than 6.1 refuse every command on a partition to such a
 *     caller, NVME_IOCTL_PARTITION), and the block written to stays as it
 *     was; Identify Controller what the ioctl on p1 gives (6.1: -EACCES;
 *     6.12: 0, admin commands go to the controller's rule); block queries
 *     answered;
 *   - a wrong nsid: -EINVAL through both.
 * The first block of each disk is restored, and its partitions dropped,
 * at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>

#include <linux/fs.h>
#include <linux/loop.h>

#include "t_nvme.h"

#define MiB		(1024ULL * 1024)
#define P1_START	(1 * MiB)
#define P1_LEN		(8 * MiB)
#define P2_START	(10 * MiB + 512)
#define P2_LEN		(6 * MiB)
#define GAP_OFF		(9 * MiB + 256 * 1024)	/* between p1 and p2 */
#define R		(64 * 1024ULL)		/* a discarded range */
#define G		(4096ULL)		/* guard around it */

#define NQN		"uringcmd-partition"
#define NVMET_CFG	"/sys/kernel/config/nvmet"
#define NVMET_SUB	NVMET_CFG "/subsystems/" NQN
#define NVMET_PORT	NVMET_CFG "/ports/7"
#define DM_NAME		"uringcmd-part-stripe"

struct part {
	char	path[PATH_MAX];
	char	sys[PATH_MAX];
	__u64	start;		/* bytes */
	__u64	len;
	int	fd;		/* O_RDWR | O_DIRECT */
};

struct disk {
	const char	*what;
	char		path[PATH_MAX];
	char		name[NAME_MAX + 1];
	int		fd;	/* O_RDWR | O_DIRECT */
	unsigned int	lbs;
	__u64		bytes;
	bool		nvme;
	__u32		nsid;
	void		*saved;	/* its first block, restored at exit */
	bool		written;
	bool		misaligned;	/* p2's BLKALIGNOFF must not be 0 */
	struct part	p[2];
};

static struct disk disks[3];
static unsigned int nr_disks;
static struct io_uring ring, nring;	/* plain; SQE128 | CQE32 */
static struct t_bdev stripe_legs[2], part_loop;
static char dm_dev[PATH_MAX];
static char nvmet_ctrl[NAME_MAX + 1];
static bool nvmet_sub, nvmet_port, nvmet_link, dm_made;

/* ---- small tools ---------------------------------------------------------- */

static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

static void *xalloc(size_t len, int poison)
{
	void *p = t_alloc(len);

	memset(p, poison, len);
	return p;
}

static __u64 sys_u64(const char *dir, const char *attr)
{
	char path[PATH_MAX * 2];
	__u64 v;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	if (t_read_u64(path, &v)) {
		t_error("cannot read %s", path);
		return ~0ULL;
	}
	return v;
}

static void pread_all(int fd, void *buf, size_t len, __u64 off, const char *what)
{
	ssize_t n = pread(fd, buf, len, off);

	if (n != (ssize_t)len)
		t_die("%s: pread %zu at %llu: %s", what, len,
		      (unsigned long long)off, n < 0 ? strerror(errno) : "short");
}

static void pwrite_all(int fd, const void *buf, size_t len, __u64 off,
		       const char *what)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n != (ssize_t)len)
		t_die("%s: pwrite %zu at %llu: %s", what, len,
		      (unsigned long long)off, n < 0 ? strerror(errno) : "short");
}

/* ---- disks and partition tables -------------------------------------------- */

static void disk_open(struct disk *d, const char *what, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	__u64 v;

	memset(d, 0, sizeof(*d));
	d->what = what;
	snprintf(d->path, sizeof(d->path), "%s", path);
	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(d->name, sizeof(d->name), "%s", strrchr(tmp, '/') + 1);
	d->fd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (d->fd < 0 || fstat(d->fd, &st) || !S_ISBLK(st.st_mode))
		t_die("%s: open %s: %s", what, path, strerror(errno));
	if (ioctl(d->fd, BLKSSZGET, &d->lbs) || ioctl(d->fd, BLKGETSIZE64, &v))
		t_die("%s: BLKSSZGET/BLKGETSIZE64: %s", path, strerror(errno));
	d->bytes = v;
	if (d->bytes < P2_START + P2_LEN + MiB)
		t_die("%s: %llu bytes, the partitions need %llu", path,
		      (unsigned long long)d->bytes,
		      (unsigned long long)(P2_START + P2_LEN + MiB));
	if (d->lbs != 512)
		t_die("%s: %u-byte blocks; p2 needs 512", path, d->lbs);
	d->saved = xalloc(d->lbs, 0);
	pread_all(d->fd, d->saved, d->lbs, 0, path);
	d->nvme = !strncmp(d->name, "nvme", 4);
	if (d->nvme) {
		int id = ioctl(d->fd, NVME_IOCTL_ID);

		if (id <= 0)
			t_die("%s: NVME_IOCTL_ID: %s", path, strerror(errno));
		d->nsid = id;
	}
	nr_disks++;
}

/* An MS-DOS label with p1 and p2 (type 0x83) in block 0 of @d. */
static void write_table(struct disk *d)
{
	unsigned char *mbr = xalloc(d->lbs, 0);
	const __u64 start[2] = { P1_START, P2_START }, len[2] = { P1_LEN, P2_LEN };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		unsigned char *e = mbr + 446 + 16 * i;
		__u32 s = start[i] / d->lbs, n = len[i] / d->lbs;

		e[4] = 0x83;
		memcpy(e + 8, &s, 4);	/* little endian: x86 */
		memcpy(e + 12, &n, 4);
	}
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	memcpy(mbr + 440, "ucpt", 4);	/* disk signature */
	d->written = true;
	pwrite_all(d->fd, mbr, d->lbs, 0, d->path);
	free(mbr);
	if (fsync(d->fd))
		t_die("%s: fsync: %s", d->path, strerror(errno));
}

static int rescan(struct disk *d)
{
	unsigned int i;

	/* a head scans only once a path is live: -EINVAL until then */
	for (i = 0; i < 50; i++) {
		if (!ioctl(d->fd, BLKRRPART))
			return 0;
		if (errno != EBUSY && errno != EINVAL)
			return -errno;
		t_sleep_ms(100);
	}
	return -errno;
}

/* The partition nodes the kernel made, p1 and p2 (nvme0n2p1, loop3p1). */
static void open_parts(struct disk *d)
{
	unsigned int i, w;

	for (i = 0; i < 2; i++) {
		struct part *p = &d->p[i];
		const char *sep = strchr("0123456789",
					 d->name[strlen(d->name) - 1]) ? "p" : "";
		char sysp[PATH_MAX];

		snprintf(p->path, sizeof(p->path), "/dev/%s%s%u", d->name, sep,
			 i + 1);
		snprintf(p->sys, sizeof(p->sys), "/sys/class/block/%s%s%u",
			 d->name, sep, i + 1);
		p->start = i ? P2_START : P1_START;
		p->len = i ? P2_LEN : P1_LEN;
		snprintf(sysp, sizeof(sysp), "%s/partition", p->sys);
		for (w = 0; w < 100 && (access(sysp, F_OK) ||
					access(p->path, F_OK)); w++)
			t_sleep_ms(100);
		p->fd = open(p->path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (p->fd < 0)
			t_die("%s: no partition node %s after the table was read: %s",
			      d->what, p->path, strerror(errno));
	}
}

static void close_parts(struct disk *d)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		if (d->p[i].fd > 0) {
			close(d->p[i].fd);
			d->p[i].fd = -1;
		}
}

/* ---- block queries ---------------------------------------------------------- */

static void check_queries(struct disk *d, struct part *p)
{
	__u64 gran, disk_ao, want_ao, ao = 0, size64 = 0, dsize = 0, slot;
	char what[PATH_MAX + 64];
	unsigned int i;
	int ret, res;

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++) {
		const struct uringcmd_block_query *q = &uringcmd_block_queries[i];
		__u64 want;

		ret = t_query_ioctl(p->fd, q, &want);
		if (ret) {
			t_error("%s: ioctl %s: %s", p->path, q->name,
				t_errname(-ret));
			continue;
		}
		snprintf(what, sizeof(what), "%s: %s without addr:", p->path,
			 q->name);
		if (!q->needs_addr) {
			if (t_block_query(&ring, p->fd, q->cmd, 0, 0, 0, &res))
				t_error("%s no completion", what);
			else
				t_check_query_answer(what, q, want, res, NULL);
		}
		snprintf(what, sizeof(what), "%s: %s with addr:", p->path,
			 q->name);
		memset(&slot, 0x5c, sizeof(slot));
		if (t_block_query(&ring, p->fd, q->cmd, 0,
				  (__u64)(uintptr_t)&slot, 0, &res))
			t_error("%s no completion", what);
		else
			t_check_query_answer(what, q, want, res, &slot);
		if (q->cmd == BLKALIGNOFF)
			ao = want;
		if (q->cmd == BLKGETSIZE64)
			size64 = want;
	}

	/* sysfs, the table written, the alignment from the disk's limits */
	if (sys_u64(p->sys, "start") * 512 != p->start)
		t_error("%s: sysfs start %llu sectors, the table says %llu",
			p->path, (unsigned long long)sys_u64(p->sys, "start"),
			(unsigned long long)(p->start / 512));
	if (sys_u64(p->sys, "size") * 512 != p->len || size64 != p->len)
		t_error("%s: BLKGETSIZE64 %llu, sysfs size %llu sectors, the table says %llu bytes",
			p->path, (unsigned long long)size64,
			(unsigned long long)sys_u64(p->sys, "size"),
			(unsigned long long)p->len);
	if (ioctl(d->fd, BLKGETSIZE64, &dsize) || dsize != d->bytes)
		t_error("%s: BLKGETSIZE64 changed", d->path);
	if ((__s64)ao != (__s64)(int)sys_u64(p->sys, "alignment_offset"))
		t_error("%s: BLKALIGNOFF %lld, sysfs alignment_offset %llu",
			p->path, (long long)ao,
			(unsigned long long)sys_u64(p->sys, "alignment_offset"));
	snprintf(what, sizeof(what), "/sys/class/block/%s", d->name);
	gran = sys_u64(what, "queue/physical_block_size");
	if (sys_u64(what, "queue/minimum_io_size") > gran)
		gran = sys_u64(what, "queue/minimum_io_size");
	disk_ao = sys_u64(what, "alignment_offset");
	want_ao = (gran + disk_ao - p->start % gran) % gran;
	if (ao != want_ao)
		t_error("%s: BLKALIGNOFF %lld; a partition at byte %llu of a disk with %llu-byte granularity and alignment offset %llu has %llu",
			p->path, (long long)ao, (unsigned long long)p->start,
			(unsigned long long)gran, (unsigned long long)disk_ao,
			(unsigned long long)want_ao);
	if (d->misaligned && p->start % gran && !ao)
		t_error("%s: BLKALIGNOFF 0 at a misaligned start", p->path);
	if (d->misaligned && gran <= d->lbs)
		t_error("%s: granularity %llu: no misaligned partition possible (nvmet's NPWG should carry the dm-stripe's 4 KiB io_min)",
			d->path, (unsigned long long)gran);
	t_info("%s: start %llu, %llu bytes, alignment offset %lld (granularity %llu)",
	       p->path, (unsigned long long)p->start, (unsigned long long)size64,
	       (long long)ao, (unsigned long long)gran);
}

/* p2 read-only while the disk is not: BLKROGET and discard see it */
static int discard(int fd, __u64 off, __u64 len);

static void check_ro_partition(struct disk *d)
{
	struct part *p = &d->p[1];
	int one = 1, zero = 0, res = 0, want;
	char dir[PATH_MAX];

	if (ioctl(p->fd, BLKROSET, &one)) {
		t_error("%s: BLKROSET 1: %s", p->path, strerror(errno));
		return;
	}
	if (t_block_query(&ring, p->fd, BLKROGET, 0, 0, 0, &res) || res != 1)
		t_error("%s read-only: BLKROGET through uring_cmd %s, want 1",
			p->path, t_res_str(res));
	if (t_block_query(&ring, d->fd, BLKROGET, 0, 0, 0, &res) || res != 0)
		t_error("%s: BLKROGET %s while only its p2 is read-only",
			d->path, t_res_str(res));
	if (sys_u64(p->sys, "ro") != 1)
		t_error("%s: sysfs ro is not 1", p->path);
	snprintf(dir, sizeof(dir), "/sys/class/block/%s", d->name);
	want = sys_u64(dir, "queue/discard_max_bytes") ? -EPERM : -EOPNOTSUPP;
	res = discard(p->fd, 0, d->lbs);
	if (res != want)
		t_error("%s read-only: discard %s, want %s", p->path,
			t_res_str(res), t_res_str(want));
	if (ioctl(p->fd, BLKROSET, &zero))
		t_die("%s: BLKROSET 0: %s", p->path, strerror(errno));
}

/* ---- discard ---------------------------------------------------------------- */

static int discard(int fd, __u64 off, __u64 len)
{
	struct io_uring_sqe *sqe = t_get_sqe(&ring);
	struct t_cqe c;

	io_uring_prep_cmd_discard(sqe, fd, off, len);
	sqe->user_data = 0xd15c;
	if (t_submit_wait_one(&ring, &c, T_TIMEOUT_MS)) {
		t_error("discard %llu+%llu: no completion",
			(unsigned long long)off, (unsigned long long)len);
		return -ETIME;
	}
	if (c.user_data != 0xd15c || !t_cq_empty(&ring))
		t_error("discard: a foreign or second completion");
	return c.res;
}

static int ioctl_discard(int fd, __u64 off, __u64 len)
{
	__u64 range[2] = { off, len };

	return ioctl(fd, BLKDISCARD, range) ? -errno : 0;
}

/*
 * Discard [poff, poff + R) of @p through uring_cmd and the same-sized
 * range 1 MiB before it through BLKDISCARD (same alignment on the disk);
 * the G bytes around each are on the disk, outside @p where the range
 * touches its end. Both windows must read back the same, guards intact.
 */
static void discard_window(struct disk *d, struct part *p, __u64 poff,
			   const char *how)
{
	const __u64 win = R + 2 * G, doff = p->start + poff - G;
	const __u64 ref_poff = poff + MiB <= p->len - R ? poff + MiB : poff - MiB;
	const __u64 rdoff = p->start + ref_poff - G;
	unsigned char *pat = xalloc(win, 0), *a = xalloc(win, 1),
		      *b = xalloc(win, 2);
	long off;
	int ret;

	t_fill_pattern(pat, win, (unsigned int)poff ^ 0x9a47);
	pwrite_all(d->fd, pat, win, doff, d->path);
	pwrite_all(d->fd, pat, win, rdoff, d->path);
	ret = discard(p->fd, poff, R);
	if (ret)
		t_error("%s: %s: discard %llu+%llu: %s", p->path, how,
			(unsigned long long)poff, R, t_res_str(ret));
	ret = ioctl_discard(p->fd, ref_poff, R);
	if (ret)
		t_error("%s: BLKDISCARD %llu+%llu: %s", p->path,
			(unsigned long long)ref_poff, R, t_res_str(ret));
	pread_all(d->fd, a, win, doff, d->path);
	pread_all(d->fd, b, win, rdoff, d->path);
	if (memcmp(a, pat, G))
		t_error("%s: %s: the %llu bytes before the range changed",
			p->path, how, G);
	if (memcmp(a + G + R, pat + G + R, G))
		t_error("%s: %s: the %llu bytes after the range changed",
			p->path, how, G);
	off = t_memcmp_off(a + G, b + G, R);
	if (off >= 0)
		t_error("%s: %s: byte %ld of the range reads 0x%02x; BLKDISCARD's range reads 0x%02x",
			p->path, how, off, a[G + off], b[G + off]);
	if (!memcmp(b + G, pat + G, R)) {
		if (!strcmp(t_env_or("TEST_DISCARD_ZEROES", "0"), "1"))
			t_error("%s: BLKDISCARD left the data as it was; TEST_DISCARD_ZEROES=1 wants zeroes",
				p->path);
		else
			t_info("# %s: BLKDISCARD left the data as it was: compared with that",
			       p->path);
	}
	free(pat);
	free(a);
	free(b);
}

static void check_discard(struct disk *d)
{
	struct part *p = &d->p[1];
	const char *dm = "queue/discard_max_bytes";
	char dir[PATH_MAX];
	int u, i;

	snprintf(dir, sizeof(dir), "/sys/class/block/%s", d->name);
	if (!sys_u64(dir, dm)) {
		u = discard(p->fd, 0, d->lbs);
		i = ioctl_discard(p->fd, 0, d->lbs);
		if (u != -EOPNOTSUPP || i != -EOPNOTSUPP)
			t_error("%s does not discard: uring_cmd %s, BLKDISCARD %s, want -EOPNOTSUPP",
				p->path, t_res_str(u), t_res_str(i));
		return;
	}
	/* past the end of the partition, though not of the disk */
	u = discard(p->fd, p->len - d->lbs, 2 * d->lbs);
	i = ioctl_discard(p->fd, p->len - d->lbs, 2 * d->lbs);
	if (u != -EINVAL || i != -EINVAL)
		t_error("%s: a range over the partition's end: uring_cmd %s, BLKDISCARD %s, want -EINVAL",
			p->path, t_res_str(u), t_res_str(i));
	u = discard(p->fd, p->len, d->lbs);
	i = ioctl_discard(p->fd, p->len, d->lbs);
	if (u != -EINVAL || i != -EINVAL)
		t_error("%s: a range at the partition's end: uring_cmd %s, BLKDISCARD %s, want -EINVAL",
			p->path, t_res_str(u), t_res_str(i));
	discard_window(d, p, p->len - R, "the last blocks");
	discard_window(d, p, 0, "the first blocks");
}

/* ---- NVMe passthrough through a partition ----------------------------------- */

static int uring_admin(int fd, struct nvme_uring_cmd *c)
{
	struct t_cqe cqe;

	if (t_nvme_cmd(&nring, fd, NVME_URING_CMD_ADMIN, c, 0, &cqe))
		return -ETIME;
	return cqe.res;
}

static int uring_io(int fd, struct nvme_uring_cmd *c)
{
	struct t_cqe cqe;

	if (t_nvme_cmd(&nring, fd, NVME_URING_CMD_IO, c, 0, &cqe))
		return -ETIME;
	return cqe.res;
}

static void expect2(const char *what, int u, int i, int want)
{
	if (u != want || i != want)
		t_error("%s: uring_cmd %s, ioctl %s, want %s", what,
			t_nvme_res_str(u), t_nvme_res_str(i),
			t_nvme_res_str(want));
}

static void check_identify(struct disk *d, struct part *p)
{
	static const __u8 cns[2] = { NVME_IDENTIFY_CNS_CTRL, NVME_IDENTIFY_CNS_NS };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		void *u = xalloc(4096, 0xa5), *i = xalloc(4096, 0x5a),
		     *w = xalloc(4096, 0x3c);
		struct nvme_uring_cmd c;
		char what[PATH_MAX + 64];
		int ru, ri, rw;

		snprintf(what, sizeof(what), "%s: Identify %s", p->path,
			 k ? "Namespace" : "Controller");
		uringcmd_nvme_identify(&c, k ? d->nsid : 0, cns[k], u);
		ru = uring_admin(p->fd, &c);
		uringcmd_nvme_identify(&c, k ? d->nsid : 0, cns[k], i);
		ri = t_nvme_ioctl(p->fd, NVME_IOCTL_ADMIN_CMD, &c, NULL);
		uringcmd_nvme_identify(&c, k ? d->nsid : 0, cns[k], w);
		rw = t_nvme_ioctl(d->fd, NVME_IOCTL_ADMIN_CMD, &c, NULL);
		expect2(what, ru, ri, 0);
		if (rw)
			t_error("%s on %s: ioctl %s", what, d->path,
				t_nvme_res_str(rw));
		if (!ru && !ri && !rw) {
			t_compare(what, u, i, 4096);
			t_compare(what, u, w, 4096);
		}
		free(u);
		free(i);
		free(w);
	}
	{
		struct nvme_uring_cmd c;
		void *u = xalloc(4096, 0);

		uringcmd_nvme_rw(&c, nvme_cmd_read, d->nsid + 1, u, d->lbs, 0, 1);
		expect2("a Read with another namespace's nsid through a partition",
			uring_io(p->fd, &c),
			t_nvme_ioctl(p->fd, NVME_IOCTL_IO_CMD, &c, NULL), -EINVAL);
		free(u);
	}
}

/* Write @len bytes at namespace byte @off through @fd's passthrough (uring or ioctl). */
static int nvme_write(struct disk *d, int fd, bool uring, const void *buf,
		      __u64 off, __u32 len)
{
	struct nvme_uring_cmd c;

	uringcmd_nvme_rw(&c, nvme_cmd_write, d->nsid, (void *)buf, len,
			 off / d->lbs, len / d->lbs);
	return uring ? uring_io(fd, &c) :
		       t_nvme_ioctl(fd, NVME_IOCTL_IO_CMD, &c, NULL);
}

static int nvme_read(struct disk *d, int fd, bool uring, void *buf, __u64 off,
		     __u32 len)
{
	struct nvme_uring_cmd c;

	uringcmd_nvme_rw(&c, nvme_cmd_read, d->nsid, buf, len, off / d->lbs,
			 len / d->lbs);
	return uring ? uring_io(fd, &c) :
		       t_nvme_ioctl(fd, NVME_IOCTL_IO_CMD, &c, NULL);
}

/* Namespace LBAs through p1: the table, the gap, p2 */
static void check_whole_namespace(struct disk *d, int pfd, const char *how)
{
	const __u32 len = 4096;
	void *want = xalloc(len, 0), *got = xalloc(len, 0x11),
	     *saved = xalloc(len, 0);
	unsigned int k;
	char what[PATH_MAX + 96];

	for (k = 0; k < 2; k++) {
		bool uring = !k;
		const char *path = uring ? "uring_cmd" : "ioctl";
		int ret;

		/* LBA 0: the partition table, outside p1 */
		pread_all(d->fd, want, len, 0, d->path);
		memset(got, 0x11 + k, len);
		snprintf(what, sizeof(what), "%s: %s Read of LBA 0 through p1",
			 how, path);
		ret = nvme_read(d, pfd, uring, got, 0, len);
		if (ret)
			t_error("%s: %s", what, t_nvme_res_str(ret));
		else
			t_compare(what, got, want, len);

		/* a Write between p1 and p2: pread of the disk sees it */
		pread_all(d->fd, saved, len, GAP_OFF, d->path);
		t_fill_pattern(want, len, 0x9a10 + k);
		snprintf(what, sizeof(what), "%s: %s Write between p1 and p2 through p1",
			 how, path);
		ret = nvme_write(d, pfd, uring, want, GAP_OFF, len);
		if (ret) {
			t_error("%s: %s", what, t_nvme_res_str(ret));
		} else {
			memset(got, 0x22, len);
			pread_all(d->fd, got, len, GAP_OFF, d->path);
			t_compare(what, got, want, len);
		}
		pwrite_all(d->fd, saved, len, GAP_OFF, d->path);

		/* a Write to p2's first blocks: p2's node sees it */
		t_fill_pattern(want, len, 0x9a20 + k);
		snprintf(what, sizeof(what), "%s: %s Write to p2 through p1",
			 how, path);
		ret = nvme_write(d, pfd, uring, want, P2_START, len);
		if (ret) {
			t_error("%s: %s", what, t_nvme_res_str(ret));
		} else {
			memset(got, 0x33, len);
			pread_all(d->p[1].fd, got, len, 0, d->p[1].path);
			t_compare(what, got, want, len);
		}
	}
	free(want);
	free(got);
	free(saved);
}

static bool drop_sys_admin(void)
{
	cap_value_t cap = CAP_SYS_ADMIN;
	cap_t caps = cap_get_proc();
	bool ok = caps && !cap_set_flag(caps, CAP_EFFECTIVE, 1, &cap, CAP_CLEAR) &&
		  !cap_set_proc(caps);

	if (caps)
		cap_free(caps);
	return ok;
}

/*
 * In a child without CAP_SYS_ADMIN, on p1 open read-write: I/O through the
 * partition is refused through both, -EACCES on every kernel (6.1 asks
 * for CAP_SYS_ADMIN for every command; later kernels for every command on
 * a partition, NVME_IOCTL_PARTITION, as its LBAs are the namespace's): a
 * Read inside p1, a Read of LBA 0 (the table, outside p1), and a Write
 * between p1 and p2, after which that block must still hold what it held.
 * Identify Controller, which holds no LBA, gets what the ioctl on p1 gives
 * (6.1: -EACCES; later kernels hand it to the controller's rule, which
 * lets it through). Block queries answered.
 */
static void check_nocap(struct disk *d, struct part *p)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		t_die("fork: %m");
	if (!pid) {
		struct nvme_uring_cmd c;
		void *buf = xalloc(4096, 0), *before = xalloc(4096, 0),
		     *after = xalloc(4096, 0x77);
		__u64 size = 0;
		int res, ri;

		/*
		 * No t_die() here: its exit() would run the parent's atexit()
		 * cleanup. Rings of its own: nothing issued with the parent's.
		 */
		if (!drop_sys_admin() || t_ring_init(&ring, 8, 0) ||
		    t_nvme_ring(&nring, 8, 0)) {
			fprintf(stderr, "child: cannot drop CAP_SYS_ADMIN or set up rings: %m\n");
			_exit(T_EXIT_FAIL);
		}
		uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, buf);
		ri = t_nvme_ioctl(p->fd, NVME_IOCTL_ADMIN_CMD, &c, NULL);
		if (ri && ri != -EACCES)
			t_error("without CAP_SYS_ADMIN: ioctl Identify through p1: %s, expected 0 or -EACCES",
				t_nvme_res_str(ri));
		t_info("without CAP_SYS_ADMIN: ioctl Identify through p1: %s",
		       t_nvme_res_str(ri));
		expect2("without CAP_SYS_ADMIN: Identify through p1 (the ioctl's answer)",
			uring_admin(p->fd, &c), ri, ri);
		uringcmd_nvme_rw(&c, nvme_cmd_read, d->nsid, buf, d->lbs,
				 p->start / d->lbs, 1);
		expect2("without CAP_SYS_ADMIN: Read inside p1 through p1",
			uring_io(p->fd, &c),
			t_nvme_ioctl(p->fd, NVME_IOCTL_IO_CMD, &c, NULL),
			-EACCES);
		uringcmd_nvme_rw(&c, nvme_cmd_read, d->nsid, buf, d->lbs, 0, 1);
		expect2("without CAP_SYS_ADMIN: Read of LBA 0 (outside p1) through p1",
			uring_io(p->fd, &c),
			t_nvme_ioctl(p->fd, NVME_IOCTL_IO_CMD, &c, NULL),
			-EACCES);
		if (pread(d->fd, before, d->lbs, GAP_OFF) != (ssize_t)d->lbs) {
			t_error("without CAP_SYS_ADMIN: pread %s at %llu: %m", d->path,
				(unsigned long long)GAP_OFF);
		} else {
			t_fill_pattern(buf, d->lbs, 0x9a30);
			uringcmd_nvme_rw(&c, nvme_cmd_write, d->nsid, buf, d->lbs,
					 GAP_OFF / d->lbs, 1);
			expect2("without CAP_SYS_ADMIN: Write between p1 and p2 through p1",
				uring_io(p->fd, &c),
				t_nvme_ioctl(p->fd, NVME_IOCTL_IO_CMD, &c, NULL),
				-EACCES);
			if (pread(d->fd, after, d->lbs, GAP_OFF) != (ssize_t)d->lbs)
				t_error("without CAP_SYS_ADMIN: pread %s at %llu: %m",
					d->path, (unsigned long long)GAP_OFF);
			else if (memcmp(before, after, d->lbs))
				t_error("without CAP_SYS_ADMIN: a Write through p1 changed the block between p1 and p2 (outside the partition)");
		}
		if (t_block_query(&ring, p->fd, BLKGETSIZE64, 0,
				  (__u64)(uintptr_t)&size, 0, &res) ||
		    res || size != p->len)
			t_error("without CAP_SYS_ADMIN: BLKGETSIZE64 through p1: %s, %llu",
				t_res_str(res), (unsigned long long)size);
		res = t_result();
		fflush(NULL);
		_exit(res);	/* not exit(): the parent's atexit() cleanup */
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		t_error("%s: the checks without CAP_SYS_ADMIN failed (above)",
			p->path);
}

static void check_passthru(struct disk *d)
{
	struct part *p = &d->p[0];
	int rofd;

	check_identify(d, p);
	check_whole_namespace(d, p->fd, p->path);
	rofd = open(p->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (rofd < 0) {
		t_error("open %s read-only: %m", p->path);
	} else {
		char how[PATH_MAX + 32];

		snprintf(how, sizeof(how), "%s read-only", p->path);
		check_whole_namespace(d, rofd, how);
		close(rofd);
	}
	check_nocap(d, p);
}

/* ---- the disks ------------------------------------------------------------ */

/*
 * The table, then the kernel's scan: BLKRRPART, or for a loop device
 * LO_FLAGS_PARTSCAN, which is what losetup -P sets (a loop device
 * without it refuses BLKRRPART).
 */
static void test_disk(struct disk *d, bool misaligned)
{
	struct loop_info64 li;
	int ret;

	t_info("== %s: %s", d->what, d->path);
	d->misaligned = misaligned;
	write_table(d);
	if (!strncmp(d->name, "loop", 4)) {
		if (ioctl(d->fd, LOOP_GET_STATUS64, &li))
			t_die("%s: LOOP_GET_STATUS64: %m", d->path);
		li.lo_flags |= LO_FLAGS_PARTSCAN;
		if (ioctl(d->fd, LOOP_SET_STATUS64, &li))
			t_die("%s: LOOP_SET_STATUS64 with LO_FLAGS_PARTSCAN: %m",
			      d->path);
	} else {
		ret = rescan(d);
		if (ret)
			t_die("%s: BLKRRPART: %s", d->path, t_errname(-ret));
	}
	open_parts(d);
	check_queries(d, &d->p[0]);
	check_queries(d, &d->p[1]);
	check_ro_partition(d);
	check_discard(d);
	if (d->nvme)
		check_passthru(d);
	close_parts(d);
}

/* ---- nvmet over a dm-stripe ------------------------------------------------ */

static void nvmet_teardown(void)
{
	char path[PATH_MAX];

	if (nvmet_ctrl[0]) {
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/delete_controller",
			 nvmet_ctrl);
		if (write_str(path, "1"))
			fprintf(stderr, "warning: cannot delete %s\n", nvmet_ctrl);
		nvmet_ctrl[0] = '\0';
	}
	if (nvmet_link && unlink(NVMET_PORT "/subsystems/" NQN))
		fprintf(stderr, "warning: unlink the port's subsystem: %m\n");
	nvmet_link = false;
	if (nvmet_port && rmdir(NVMET_PORT))
		fprintf(stderr, "warning: rmdir %s: %m\n", NVMET_PORT);
	nvmet_port = false;
	if (nvmet_sub) {
		write_str(NVMET_SUB "/namespaces/1/enable", "0");
		rmdir(NVMET_SUB "/namespaces/1");
		if (rmdir(NVMET_SUB))
			fprintf(stderr, "warning: rmdir %s: %m\n", NVMET_SUB);
		nvmet_sub = false;
	}
	if (dm_made) {
		char *argv[] = { "dmsetup", "remove", "--noudevsync", DM_NAME, NULL };

		if (run(argv))
			fprintf(stderr, "warning: dmsetup remove %s failed\n", DM_NAME);
		dm_made = false;
	}
}

/* /dev/dm-N of DM_NAME */
static bool find_dm(void)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *e;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (e = readdir(dir))) {
		char path[PATH_MAX], name[128];

		if (strncmp(e->d_name, "dm-", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dm/name", e->d_name);
		if (!t_read_file(path, name, sizeof(name)) && !strcmp(name, DM_NAME)) {
			snprintf(dm_dev, sizeof(dm_dev), "/dev/%s", e->d_name);
			found = true;
		}
	}
	closedir(dir);
	return found;
}

/* The namespace block node of subsystem NQN (a head node): nvmeXnY */
static bool find_nvmet_ns(char *out, size_t len)
{
	DIR *dir = opendir("/sys/block");
	struct dirent *e;
	bool found = false;

	if (!dir)
		return false;
	while (!found && (e = readdir(dir))) {
		char path[PATH_MAX], nqn[256];
		const char *s = e->d_name;

		if (strncmp(s, "nvme", 4) || strchr(s + 4, 'c'))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/device/subsysnqn", s);
		if (!t_read_file(path, nqn, sizeof(nqn)) && !strcmp(nqn, NQN)) {
			snprintf(out, len, "/dev/%s", s);
			found = true;
		}
	}
	closedir(dir);
	return found;
}

static void nvmet_setup(char *ns, size_t len)
{
	char table[PATH_MAX * 2 + 64], answer[128] = "";
	char *dm_argv[] = { "dmsetup", "create", "--noudevsync", DM_NAME,
			    "--table", table, NULL };
	unsigned int w;
	int fd, ret;
	ssize_t n;
	char *p;

	/* 2 x 16 MiB in 4 KiB chunks: io_min 4 KiB, 512-byte blocks */
	snprintf(table, sizeof(table), "0 %llu striped 2 8 %s 0 %s 0",
		 (32 * MiB) >> 9, stripe_legs[0].path, stripe_legs[1].path);
	ret = run(dm_argv);
	if (ret)
		t_die("dmsetup create %s --table '%s' exited %d", DM_NAME, table,
		      ret);
	dm_made = true;
	if (!find_dm())
		t_die("no /sys/block/dm-*/dm/name %s after dmsetup create", DM_NAME);

	if (access(NVMET_CFG, F_OK))
		mount("configfs", "/sys/kernel/config", "configfs", 0, NULL);
	if (mkdir(NVMET_SUB, 0755))
		t_die("mkdir %s: %m (nvmet, configfs)", NVMET_SUB);
	nvmet_sub = true;
	if (write_str(NVMET_SUB "/attr_allow_any_host", "1") ||
	    mkdir(NVMET_SUB "/namespaces/1", 0755) ||
	    write_str(NVMET_SUB "/namespaces/1/device_path", dm_dev) ||
	    write_str(NVMET_SUB "/namespaces/1/enable", "1"))
		t_die("nvmet namespace on %s: %m", dm_dev);
	if (mkdir(NVMET_PORT, 0755))
		t_die("mkdir %s: %m", NVMET_PORT);
	nvmet_port = true;
	if (write_str(NVMET_PORT "/addr_trtype", "loop"))
		t_die("nvmet loop port: %m");
	if (symlink(NVMET_SUB, NVMET_PORT "/subsystems/" NQN))
		t_die("nvmet port link: %m");
	nvmet_link = true;

	fd = open("/dev/nvme-fabrics", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_die("/dev/nvme-fabrics: %m");
	if (write(fd, "transport=loop,nqn=" NQN, strlen("transport=loop,nqn=" NQN)) < 0)
		t_die("connect over loop to %s: %m", NQN);
	n = read(fd, answer, sizeof(answer) - 1);
	close(fd);
	if (n <= 0 || strncmp(answer, "instance=", 9))
		t_die("/dev/nvme-fabrics answered '%s'", answer);
	answer[n] = '\0';
	p = strchr(answer, ',');
	if (p)
		*p = '\0';
	snprintf(nvmet_ctrl, sizeof(nvmet_ctrl), "nvme%s", answer + 9);
	for (w = 0; w < 300 && !find_nvmet_ns(ns, len); w++)
		t_sleep_ms(100);
	if (w == 300)
		t_die("no namespace of %s (controller %s) after 30 s", NQN, nvmet_ctrl);
	/* the head scans its partitions once a path is live */
	for (w = 0; w < 100; w++) {
		char path[PATH_MAX];
		__u64 sz;

		snprintf(path, sizeof(path), "/sys/block/%s/size", strrchr(ns, '/') + 1);
		if (!t_read_u64(path, &sz) && sz)
			break;
		t_sleep_ms(100);
	}
}

/* ---- setup and teardown ------------------------------------------------------ */

static void restore_disks(void)
{
	unsigned int i;

	for (i = 0; i < nr_disks; i++) {
		struct disk *d = &disks[i];

		close_parts(d);
		if (d->written) {
			if (pwrite(d->fd, d->saved, d->lbs, 0) != d->lbs ||
			    fsync(d->fd))
				fprintf(stderr, "warning: %s: block 0 not restored: %m\n",
					d->path);
			else if (rescan(d) && !strncmp(d->name, "nvme", 4))
				fprintf(stderr, "warning: %s: BLKRRPART after the restore failed\n",
					d->path);
			d->written = false;
		}
		close(d->fd);
	}
	nr_disks = 0;
	nvmet_teardown();
}

static void restore_at_exit(void)
{
	restore_disks();
}

int main(int argc, char **argv)
{
	struct t_nvme n;
	char path[PATH_MAX + 8], nvmet_ns[PATH_MAX];
	struct disk *d;
	const char *dev;
	unsigned int i;
	int ret;

	t_nvme_open(&n, argc, argv);
	/*
	 * Namespace 2 by its nsid, not by its name: 6.12 scans namespaces
	 * in parallel, so nvme0n2 may be another one.
	 */
	snprintf(path, sizeof(path), "%s", n.bdev);
	{
		static struct t_nvme_fmt f[32];
		unsigned int nr = t_nvme_formats(n.ctrl, f, 32);

		for (i = 0; i < nr; i++)
			if (f[i].nsid == 2)
				snprintf(path, sizeof(path), "%s", f[i].bdev);
	}
	dev = t_env_or("TEST_NVME_PART_DEV", path);
	t_nvme_close(&n);

	ret = t_ring_init(&ring, 8, 0);
	if (ret)
		t_die("ring: %s", t_res_str(ret));
	ret = t_nvme_ring(&nring, 8, 0);
	if (ret)
		t_die("SQE128 | CQE32 ring: %s", t_res_str(ret));
	/* the loop devices first: their atexit() then runs after ours */
	ret = t_loop_create(&part_loop, 64 * MiB, 0, false);
	for (i = 0; !ret && i < 2; i++)
		ret = t_loop_create(&stripe_legs[i], 16 * MiB, 0, false);
	if (ret)
		t_die("loop devices: %s", t_errname(-ret));
	atexit(restore_at_exit);

	d = &disks[nr_disks];
	disk_open(d, "NVMe namespace", dev);
	test_disk(d, false);

	d = &disks[nr_disks];
	disk_open(d, "loop device with partscan", part_loop.path);
	test_disk(d, false);

	nvmet_setup(nvmet_ns, sizeof(nvmet_ns));
	d = &disks[nr_disks];
	disk_open(d, "nvmet namespace on a dm-stripe of 4 KiB chunks", nvmet_ns);
	test_disk(d, true);

	restore_disks();
	io_uring_queue_exit(&nring);
	io_uring_queue_exit(&ring);
	return t_result();
}
