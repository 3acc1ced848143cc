// SPDX-License-Identifier: GPL-2.0
/* Description: seeded fuzzer: random IORING_OP_URING_CMDs on block, NVMe, char, file, pipe and socket fds over changing rings; every SQE completes exactly once */
/*
 * Usage: uring_fuzz [--seed S] [--count N] [--time SECS] [--timeout-ms MS]
 *                   [--scratch /dev/nvmeXnY] [--failslab N] [--per-ring N]
 *                   [--discard BLOCKDEV]... [--drain] [-v] TARGET...
 *
 * TARGETs are paths: block nodes, char nodes (/dev/ngXnY, /dev/nvmeX),
 * regular files. The fuzzer adds a pipe, a temporary file and sockets of
 * its own (tcp, udp, udplite, raw, v4 and v6, unix, netlink; those that
 * socket() refuses are left out). It cycles through ring setups (64-byte
 * SQEs; SQE128 + CQE32; IOPOLL with SQE128; SQPOLL), setting each up and
 * tearing it down many times, and sends N random IORING_OP_URING_CMDs in
 * batches of 1..32: random or known cmd_op, random struct nvme_uring_cmd
 * and struct block_uring_cmd fields, good and bad pointers and lengths,
 * sqe->flags, uring_cmd_flags, registered buffers and files; and
 * BLOCK_URING_CMD_DISCARD with good and bad ranges and fields.
 *
 * Every SQE must give exactly one CQE (user_data is the command's sequence
 * number), within --timeout-ms (30 s, or $TEST_CQE_TIMEOUT_MS if larger);
 * a CQE32's second extra word and, for non-NVMe commands, its first must be
 * zero. Each result must be one the entry point gives for that cmd_op on
 * that kind of file (expect_of(): exactly one errno where the SQE decides
 * it, such as every discard on a block node); a block query's answer
 * equals the ioctl's. Anything else fails the run with the seed and the
 * command's description. The same seed and count send the same commands.
 *
 * Safety: NVMe admin commands that change the controller or the media are
 * rewritten to Identify (admin_deny[]); NVMe I/O commands that are not
 * known to be read-only are rewritten to Read, except on the --scratch
 * namespace. A command the controller carries out and that moves data to
 * the host never says more than the kernel maps for it (nvme_dma_guard():
 * the device would write past the buffer). Random timeouts are kept long
 * (no command times out into a controller reset). ioctl() is called only
 * to read the controller's effects log and the block nodes' answers at
 * start. Discards destroy data only on the --discard devices and the
 * --scratch namespace's block nodes; on any other device that discards,
 * one sent to the read-write open goes to its read-only open instead
 * (-EBADF), or with its length emptied (discard_sanitize()).
 *
 * --failslab N: N more commands after the --count ones, with the kernel's
 * failslab fault injection (CONFIG_FAILSLAB, debugfs) failing a share of
 * the slab allocations made in this task (task-filter, /proc/self/
 * make-it-fail, set only while a batch is submitted and reaped) and in
 * the io-wq workers created meanwhile, up to FAILSLAB_TIMES failures. The
 * same rules hold, -ENOMEM and -EAGAIN added to every entry point's
 * errnos; at least one allocation must have failed.
 *
 * --per-ring N: at most N commands per ring (100 to 1500 are drawn), so
 * that a short run still goes through every kind of ring.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <linux/blkpg.h>
#include <linux/blktrace_api.h>
#include <linux/blkzoned.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/sockios.h>

#include <nvme/util.h>

#include "t_nvme.h"

#ifndef IPPROTO_UDPLITE
#define IPPROTO_UDPLITE	136
#endif
#ifndef IPV6_ADDRFORM
#define IPV6_ADDRFORM	1
#endif

/* ---- seeded PRNG (splitmix64): every decision comes from here ---------- */

static uint64_t rng;

static uint64_t rnd64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static __u32 rnd32(void)
{
	return (__u32)(rnd64() >> 32);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd64() % n : 0;
}

static bool pct(unsigned int p)
{
	return below(100) < p;
}

#define PICK(arr)	((arr)[below(sizeof(arr) / sizeof((arr)[0]))])

/* ---- NVMe safety ---------------------------------------------------------- */

/*
 * Admin opcodes never sent, whatever the fuzzer draws: they are rewritten
 * to Identify (0x06) before the SQE is queued. The namespace under test is
 * used by other tests after this run, and the controller is the guest's
 * only one: a command that resets it, reformats or sanitizes the media,
 * changes its features or namespaces, or takes one of the driver's own
 * queues away (CVE-2022-3169: a reset or subsystem reset through
 * passthrough while I/O is in flight) must not be sent.
 * Opcodes >= 0xc0 (vendor specific) and odd opcodes not listed (data to the
 * controller: "send"/"set" commands) are rewritten as well.
 */
static const struct {
	__u8		opcode;
	const char	*why;
} admin_deny[] = {
	{ 0x00, "delete I/O SQ: takes a driver queue away" },
	{ 0x01, "create I/O SQ: driver-owned queue ids" },
	{ 0x04, "delete I/O CQ: takes a driver queue away" },
	{ 0x05, "create I/O CQ: driver-owned queue ids" },
	{ 0x08, "abort: aborts the driver's commands, escalates to a reset" },
	{ 0x09, "set features: changes controller state (queues, power, ...)" },
	{ 0x0c, "async event request: never completes by design, uses up AER slots" },
	{ 0x0d, "namespace management: creates/deletes namespaces (data loss)" },
	{ 0x10, "firmware commit: activates firmware, resets the controller" },
	{ 0x11, "firmware image download" },
	{ 0x14, "device self-test: can take the namespace offline for minutes" },
	{ 0x15, "namespace attachment: detaches the namespace under test" },
	{ 0x19, "directive send: changes streams/directives state" },
	{ 0x1c, "virtualization management: takes queue resources away" },
	{ 0x1d, "NVMe-MI send" },
	{ 0x20, "capacity management: creates/deletes endurance groups" },
	{ 0x24, "lockdown: prohibits commands until a reset" },
	{ 0x7c, "doorbell buffer config: the driver owns the shadow doorbells" },
	{ 0x7f, "fabrics commands: connect/property set" },
	{ 0x80, "format NVM: data loss on every namespace" },
	{ 0x81, "security send: locking ranges, TCG Opal state" },
	{ 0x84, "sanitize: data loss on the whole subsystem" },
};

#define NVME_ADMIN_SAFE		0x06	/* identify */
#define NVME_IO_SAFE		0x02	/* read */

static bool admin_denied(__u8 op)
{
	size_t i;

	if (op >= 0xc0 || (op & 1))
		return true;
	for (i = 0; i < sizeof(admin_deny) / sizeof(admin_deny[0]); i++)
		if (admin_deny[i].opcode == op)
			return true;
	return false;
}

/*
 * NVMe I/O opcodes allowed off the scratch namespace: the ones that read
 * or only compare (flush 0x00, read 0x02, compare 0x05, verify 0x0c,
 * reservation report 0x0e, zone management receive 0x7a), and the even
 * opcodes 0x20..0x78, reserved in the NVM command set (they exercise the
 * Invalid Opcode path). Everything else may write (write 0x01, write
 * uncorrectable 0x04, write zeroes 0x08, DSM 0x09, reservations
 * 0x0d/0x11/0x15, copy 0x19, zone send 0x79, zone append 0x7d, vendor).
 */
static bool io_read_only(__u8 op)
{
	switch (op) {
	case 0x00: case 0x02: case 0x05: case 0x0c: case 0x0e: case 0x7a:
		return true;
	}
	return !(op & 1) && op >= 0x20 && op <= 0x78;
}

static bool is_nvme_admin_op(__u32 op)
{
	return op == NVME_URING_CMD_ADMIN || op == NVME_URING_CMD_ADMIN_VEC;
}

static bool is_nvme_io_op(__u32 op)
{
	return op == NVME_URING_CMD_IO || op == NVME_URING_CMD_IO_VEC;
}

static bool is_nvme_op(__u32 op)
{
	return is_nvme_admin_op(op) || is_nvme_io_op(op);
}

/* ---- targets ---------------------------------------------------------------- */

enum tkind { TK_BLOCK, TK_CHAR, TK_FILE, TK_PIPE, TK_SOCK, TK_OTHER };

struct target {
	char		name[64];
	int		fd;
	enum tkind	kind;
	bool		nvme_ns;	/* block node or ngXnY of a namespace */
	bool		nvme_ctrl;	/* /dev/nvmeX */
	bool		scratch;	/* NVMe writes allowed */
	char		nskey[NAME_MAX + 1];	/* "nvme0n1" */
	__u32		nsid;
	__u32		lbs;
	__u16		ms;		/* metadata bytes per block */
	bool		ext;		/* ...inside the data (extended LBAs) */
	__u64		nlb;
	unsigned long	cmds;
	bool		rw;		/* opened O_RDWR */
	int		ro_twin;	/* tg[] index of its O_RDONLY open, or -1 */
	/* block nodes: what BLOCK_URING_CMD_DISCARD checks */
	bool		discards;	/* queue/discard_max_bytes != 0 */
	bool		discard_ok;	/* may be destroyed: --discard, --scratch */
	bool		ro_dev;		/* BLKROGET */
	__u64		bytes;		/* BLKGETSIZE64 */
	__u32		blksz;		/* BLKSSZGET */
	/* sockets: the protocol answers SIOCINQ/SIOCOUTQ; a listener */
	bool		sock_karg;
	bool		sock_listen;
	int		sock_inq;	/* bytes queued on purpose, or -1 */
	bool		have_cse;	/* acs/iocs from the effects log */
	__u64		max_xfer;	/* queue/max_hw_sectors_kb in bytes, 0: unknown */
	/* block nodes: each query's ioctl answer at open (0 or -errno) */
	int		q_err[URINGCMD_NR_BLOCK_QUERIES];
	__u64		q_val[URINGCMD_NR_BLOCK_QUERIES];
	/* the query whose answer the 32-bit BLKBSZGET number gets */
	const struct uringcmd_block_query *bszget32;
	unsigned long	nvme_sent;	/* NVMe commands it can carry out sent */
	unsigned long	nvme_ok;	/* ...that ended with res 0 */
	__u32		acs[256];	/* admin commands supported, effects */
	__u32		iocs[256];	/* I/O commands supported, effects */
};

#define MAX_TARGETS	96
static struct target tg[MAX_TARGETS];
static __u32 lbs_max = 4096;	/* largest LBA size of any namespace seen */
static unsigned int ntg;

static const char *scratch_path;
static char scratch_key[NAME_MAX + 1];
/* --discard: block devices nothing else reads, discards allowed there */
#define MAX_DESTROY	8
static const char *destroy_paths[MAX_DESTROY];
static unsigned int ndestroy;
/* tg[] indexes of the read-write opens that discards may destroy */
static unsigned int destroyable[MAX_TARGETS], ndestroyable;
static unsigned long n_discard_ro;	/* discards sent to a read-only twin */
static unsigned long n_discards, n_discards_done;	/* on block nodes; res 0 */

/* nvmeXnY of a block or char node (a partition: its disk), or "". */
static void nvme_key(const struct stat *st, char *key, size_t len, bool *ctrl)
{
	char link[PATH_MAX], real[PATH_MAX], part[PATH_MAX + 16], *base;
	unsigned int a, b;
	char c;

	key[0] = 0;
	*ctrl = false;
	snprintf(link, sizeof(link), "/sys/dev/%s/%u:%u",
		 S_ISBLK(st->st_mode) ? "block" : "char",
		 major(st->st_rdev), minor(st->st_rdev));
	if (!realpath(link, real))
		return;
	snprintf(part, sizeof(part), "%s/partition", real);
	if (S_ISBLK(st->st_mode) && !access(part, F_OK)) {
		base = strrchr(real, '/');
		if (base)
			*base = 0;
	}
	base = strrchr(real, '/');
	base = base ? base + 1 : real;
	if (sscanf(base, "nvme%un%u%c", &a, &b, &c) == 2 ||
	    sscanf(base, "ng%un%u%c", &a, &b, &c) == 2) {
		snprintf(key, len, "nvme%un%u", a, b);
	} else if (S_ISCHR(st->st_mode) &&
		   sscanf(base, "nvme%u%c", &a, &c) == 1) {
		*ctrl = true;
	}
}

/*
 * The namespace's metadata format, from Identify Namespace through the
 * admin ioctl on its own node (the DMA guard needs it); its size too when
 * the kernel gave the block node none (extended LBAs).
 */
static void nvme_ns_format(struct target *t)
{
	struct nvme_id_ns *id = t_alloc(NVME_IDENTIFY_DATA_SIZE);
	struct nvme_uring_cmd c;

	uringcmd_nvme_identify(&c, t->nsid, NVME_IDENTIFY_CNS_NS, id);
	if (!t_nvme_ioctl(t->fd, NVME_IOCTL_ADMIN_CMD, &c, NULL)) {
		t->ms = uringcmd_nvme_ns_ms(id);
		t->ext = uringcmd_nvme_ns_extended(id);
		if (t->ext)
			t->nlb = le64toh(id->nsze);
	}
	free(id);
}

static void nvme_ns_info(struct target *t)
{
	char p[PATH_MAX];
	__u64 v;

	t->nsid = 1;
	t->lbs = 512;
	t->nlb = 1 << 20;
	snprintf(p, sizeof(p), "/sys/block/%s/nsid", t->nskey);
	if (!t_read_u64(p, &v))
		t->nsid = (__u32)v;
	snprintf(p, sizeof(p), "/sys/block/%s/queue/logical_block_size",
		 t->nskey);
	if (!t_read_u64(p, &v) && v)
		t->lbs = (__u32)v;
	if (t->lbs > lbs_max)
		lbs_max = t->lbs;
	snprintf(p, sizeof(p), "/sys/block/%s/size", t->nskey);
	if (!t_read_u64(p, &v) && v)
		t->nlb = v * 512 / t->lbs;
	snprintf(p, sizeof(p), "/sys/block/%s/queue/max_hw_sectors_kb",
		 t->nskey);
	if (!t_read_u64(p, &v))
		t->max_xfer = v << 10;
	nvme_ns_format(t);
}

static struct target *add_target(const char *name, int fd, enum tkind kind)
{
	struct target *t;

	if (ntg >= MAX_TARGETS) {
		close(fd);
		return NULL;
	}
	t = &tg[ntg++];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->fd = fd;
	t->kind = kind;
	t->ro_twin = -1;
	t->sock_inq = -1;
	return t;
}

/*
 * The controller's Commands Supported and Effects log: which opcodes it
 * carries out at all (the DMA guard below leaves the others alone, they
 * end in Invalid Opcode before any data moves). Read once per target
 * through the 6.1 ioctl; without it every opcode counts as supported.
 */
static void nvme_effects(struct target *t)
{
	struct nvme_cmd_effects_log *log = t_alloc(sizeof(*log));
	struct nvme_uring_cmd c;
	size_t i;

	uringcmd_nvme_get_log(&c, 0, NVME_LOG_LID_CMD_EFFECTS, log, sizeof(*log));
	if (t_nvme_ioctl(t->fd, NVME_IOCTL_ADMIN_CMD, &c, NULL) == 0) {
		for (i = 0; i < 256; i++) {
			t->acs[i] = le32toh(log->acs[i]);
			t->iocs[i] = le32toh(log->iocs[i]);
		}
		t->have_cse = true;
	} else {
		t_info("# %s: no commands supported and effects log, every opcode counts as supported",
		       t->name);
	}
	free(log);
}

/*
 * The oracle for BLOCK_URING_CMD_IOCTL: every query's answer through the
 * ioctl on the same open file, taken once; nothing in the run changes
 * them (the fuzzer's ioctl numbers go only through uring_cmd, which
 * answers queries and nothing else).
 */
static void cache_queries(struct target *t)
{
	const struct uringcmd_block_query *ssz = uringcmd_block_query_find(BLKSSZGET),
					  *bsz = uringcmd_block_query_find(BLKBSZGET);
	__u32 v32 = 0;
	size_t i;
	int ret;

	for (i = 0; i < URINGCMD_NR_BLOCK_QUERIES; i++)
		t->q_err[i] = t_query_ioctl(t->fd, &uringcmd_block_queries[i],
					    &t->q_val[i]);
	/*
	 * The 32-bit BLKBSZGET answers what the kernel's own 32-bit ioctl
	 * does: 6.1's the logical block size, 6.12's block_size(). Asked
	 * here (t_ioctl32()), and judged by the query with that answer.
	 */
	t->bszget32 = ssz;
	ret = t_ioctl32(t->fd, _IOR(0x12, 112, int), &v32, sizeof(v32));
	if (ret)
		t_die("%s: the 32-bit ioctl(BLKBSZGET): %s", t->name, t_res_str(ret));
	if (v32 != t->q_val[ssz - uringcmd_block_queries]) {
		if (v32 != t->q_val[bsz - uringcmd_block_queries])
			t_die("%s: the 32-bit ioctl(BLKBSZGET) answers %u, neither BLKSSZGET's nor BLKBSZGET's answer",
			      t->name, v32);
		t->bszget32 = bsz;
	}
}

/*
 * Whether a block node's disk discards (queue/discard_max_bytes, a
 * partition's from its disk); one whose answer cannot be read counts as
 * discarding, so that the fuzzer treats it as one it could destroy.
 */
static bool bdev_discards(const struct stat *st)
{
	char link[64], real[PATH_MAX], p[PATH_MAX + 32], *base;
	__u64 v;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st->st_rdev), minor(st->st_rdev));
	if (!realpath(link, real))
		return true;
	snprintf(p, sizeof(p), "%s/partition", real);
	if (!access(p, F_OK)) {
		base = strrchr(real, '/');
		if (base)
			*base = 0;
	}
	snprintf(p, sizeof(p), "%s/queue/discard_max_bytes", real);
	return t_read_u64(p, &v) || v;
}

/* What BLOCK_URING_CMD_DISCARD looks at, through the ioctls. */
static void discard_info(struct target *t, const struct stat *st,
			 bool destroy)
{
	__u64 bytes = 0;
	int ro = 1, ssz = 512;

	t->discards = bdev_discards(st);
	t->discard_ok = destroy || t->scratch;
	if (ioctl(t->fd, BLKGETSIZE64, &bytes) ||
	    ioctl(t->fd, BLKSSZGET, &ssz) || ioctl(t->fd, BLKROGET, &ro))
		t_die("%s: the size, block size or read-only flag: %m", t->name);
	t->bytes = bytes;
	t->blksz = ssz;
	t->ro_dev = ro;
}

/*
 * @destroy: a block device whose data the fuzzer may discard (--discard);
 * the --scratch namespace's block nodes may be discarded too.
 */
static void open_path(const char *path, bool destroy)
{
	static const struct { int flags; const char *tag; } modes[] = {
		{ O_RDWR, "rw" }, { O_RDONLY, "ro" },
	};
	char name[64];
	struct stat st;
	enum tkind kind;
	bool ctrl = false;
	char key[NAME_MAX + 1] = "";
	size_t i;
	int fd, opened = 0, rw = -1;

	if (stat(path, &st)) {
		t_info("# %s: %s, left out", path, strerror(errno));
		return;
	}
	if (S_ISBLK(st.st_mode))
		kind = TK_BLOCK;
	else if (S_ISCHR(st.st_mode))
		kind = TK_CHAR;
	else if (S_ISREG(st.st_mode))
		kind = TK_FILE;
	else
		kind = TK_OTHER;
	if (kind == TK_BLOCK || kind == TK_CHAR)
		nvme_key(&st, key, sizeof(key), &ctrl);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		struct target *t;

		fd = open(path, modes[i].flags | O_CLOEXEC);
		if (fd < 0)
			continue;
		snprintf(name, sizeof(name), "%.56s(%s)", path, modes[i].tag);
		t = add_target(name, fd, kind);
		if (!t)
			return;
		opened++;
		t->rw = modes[i].flags == O_RDWR;
		if (t->rw)
			rw = t - tg;
		else if (rw >= 0)
			tg[rw].ro_twin = t - tg;
		t->nvme_ctrl = ctrl;
		if (key[0]) {
			t->nvme_ns = true;
			snprintf(t->nskey, sizeof(t->nskey), "%s", key);
			t->scratch = scratch_key[0] &&
				     !strcmp(key, scratch_key);
			nvme_ns_info(t);
		}
		if (t->nvme_ns || t->nvme_ctrl)
			nvme_effects(t);
		if (kind == TK_BLOCK) {
			cache_queries(t);
			discard_info(t, &st, destroy);
		}
	}
	if (!opened)
		t_info("# %s: cannot open: %s, left out", path, strerror(errno));
}

static struct target *add_fd(const char *name, int fd, enum tkind kind)
{
	return fd >= 0 ? add_target(name, fd, kind) : NULL;
}

/*
 * A socket whose protocol answers SIOCINQ/SIOCOUTQ through ->ioctl_karg()
 * (tcp, udp, udplite, raw), with @inq bytes queued on purpose (-1: not
 * known, a raw socket may see other traffic).
 */
static void add_sock(const char *name, int fd, int inq, bool listening)
{
	struct target *t = add_fd(name, fd, TK_SOCK);

	if (!t)
		return;
	t->sock_karg = true;
	t->sock_inq = inq;
	t->sock_listen = listening;
}

/* A connected pair on loopback through a listener; bytes left unread. */
static void tcp_pair(int fam, const char *tag)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char name[64];
	int l, c, s;

	memset(&ss, 0, sizeof(ss));
	if (fam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		sl = sizeof(*a);
	}
	l = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return;
	if (bind(l, (struct sockaddr *)&ss, sl) || listen(l, 4) ||
	    getsockname(l, (struct sockaddr *)&ss, &sl)) {
		close(l);
		return;
	}
	snprintf(name, sizeof(name), "tcp%s-listen", tag);
	add_sock(name, l, -1, true);
	c = socket(fam, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c < 0)
		return;
	if (connect(c, (struct sockaddr *)&ss, sl) && errno != EINPROGRESS) {
		close(c);
		return;
	}
	s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0) {
		close(c);
		return;
	}
	if (write(c, "uring_fuzz tcp bytes", 20) != 20 ||
	    write(s, "unread reply", 12) != 12)
		t_die("tcp%s: write: %m", tag);
	snprintf(name, sizeof(name), "tcp%s-client", tag);
	add_sock(name, c, 12, false);
	snprintf(name, sizeof(name), "tcp%s-server", tag);
	add_sock(name, s, 20, false);
}

/* A datagram socket bound on loopback with one datagram to itself queued. */
static int dgram_self(int fam, int proto, const char *name)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, queued = 0;

	memset(&ss, 0, sizeof(ss));
	if (fam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		sl = sizeof(*a);
	}
	fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, proto);
	if (fd < 0)
		return -1;
	/* no loopback: no datagram, nothing queued */
	if (bind(fd, (struct sockaddr *)&ss, sl) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl) ||
	    sendto(fd, "dgram", 5, 0, (struct sockaddr *)&ss, sl) != 5)
		t_info("# %s: no datagram to itself: %s", name, strerror(errno));
	else
		queued = 5;
	add_sock(name, fd, queued, false);
	return fd;
}

/* A v6 UDP socket connected to a v4-mapped address, then IPV6_ADDRFORM'ed. */
static void udp6_addrform(int v4fd)
{
	struct sockaddr_in a4;
	struct sockaddr_in6 a6;
	socklen_t sl = sizeof(a4);
	int fd, v = AF_INET;

	if (v4fd < 0 || getsockname(v4fd, (struct sockaddr *)&a4, &sl))
		return;
	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_port = a4.sin_port;
	a6.sin6_addr.s6_addr[10] = 0xff;
	a6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&a6.sin6_addr.s6_addr[12], &a4.sin_addr, 4);
	if (connect(fd, (struct sockaddr *)&a6, sizeof(a6)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_ADDRFORM, &v, sizeof(v))) {
		close(fd);
		return;
	}
	add_sock("udp6-addrform-v4", fd, 0, false);
}

/*
 * Whether the kernel has the socket option commands,
 * SOCKET_URING_OP_GETSOCKOPT and _SETSOCKOPT (Linux 6.7 and later, and the
 * 6.1 series): a GETSOCKOPT of SO_TYPE on a UDP socket, asked once. A
 * kernel without them gives -EOPNOTSUPP for every op but SIOCINQ/SIOCOUTQ.
 */
static bool sockopt_cmds;

static void probe_sockopt_cmds(void)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	int fd, type = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || io_uring_queue_init(2, &ring, 0)) {
		t_info("# socket option commands: not probed (%s)", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_cmd_sock(sqe, SOCKET_URING_OP_GETSOCKOPT, fd, SOL_SOCKET,
			       SO_TYPE, &type, sizeof(type));
	if (io_uring_submit_and_wait(&ring, 1) == 1 &&
	    !io_uring_peek_cqe(&ring, &cqe)) {
		sockopt_cmds = cqe->res == (int)sizeof(type) && type == SOCK_DGRAM;
		t_info("# socket option commands: GETSOCKOPT(SO_TYPE) gave %s%s",
		       t_res_str(cqe->res), sockopt_cmds ? ", SOCK_DGRAM: modelled" : "");
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
	close(fd);
}

/*
 * Wait (2 s at most) until every socket's queues are what was put there:
 * the bytes queued on purpose in, nothing out (the peer has acknowledged
 * the tcp bytes, loopback has taken the datagrams). From then on the
 * sockets are idle and ioctl(SIOCINQ/SIOCOUTQ) a fixed answer.
 */
static void sockets_settle(void)
{
	unsigned long long end = t_now_ms() + 2000;
	unsigned int i;
	int inq, outq;
	bool wait;

	do {
		wait = false;
		for (i = 0; i < ntg && !wait; i++) {
			const struct target *t = &tg[i];

			if (t->kind != TK_SOCK || !t->sock_karg ||
			    t->sock_listen)
				continue;
			if (ioctl(t->fd, SIOCINQ, &inq) ||
			    ioctl(t->fd, SIOCOUTQ, &outq))
				t_die("%s: ioctl(SIOCINQ/SIOCOUTQ): %m", t->name);
			wait = outq || (t->sock_inq >= 0 && inq != t->sock_inq);
			if (wait && t_now_ms() > end)
				t_die("%s: SIOCINQ %d, SIOCOUTQ %d after 2 s, want %d and 0",
				      t->name, inq, outq, t->sock_inq);
		}
		if (wait)
			t_sleep_ms(10);
	} while (wait);
}

static void own_targets(void)
{
	int p[2], sv[2], fd, u4;
	char tmpl[] = "/tmp/uring_fuzz.XXXXXX";

	if (!pipe2(p, O_CLOEXEC)) {
		(void)!write(p[1], "pipe", 4);
		add_fd("pipe-read", p[0], TK_PIPE);
		add_fd("pipe-write", p[1], TK_PIPE);
	}
	fd = mkostemp(tmpl, O_CLOEXEC);
	if (fd >= 0) {
		unlink(tmpl);
		if (ftruncate(fd, 1 << 20))
			t_info("# tmpfile: ftruncate: %s", strerror(errno));
		add_fd("tmpfile", fd, TK_FILE);
	}
	tcp_pair(AF_INET, "4");
	tcp_pair(AF_INET6, "6");
	add_sock("tcp4-unconnected", socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), 0, false);
	add_sock("tcp6-unconnected", socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0), 0, false);
	u4 = dgram_self(AF_INET, 0, "udp4");
	dgram_self(AF_INET6, 0, "udp6");
	dgram_self(AF_INET, IPPROTO_UDPLITE, "udplite4");
	dgram_self(AF_INET6, IPPROTO_UDPLITE, "udplite6");
	udp6_addrform(u4);
	add_sock("raw4-icmp", socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP), -1, false);
	add_sock("raw4-raw", socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW), -1, false);
	add_sock("raw6-icmp6", socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMPV6), -1, false);
	add_sock("raw6-udp", socket(AF_INET6, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_UDP), -1, false);
	if (!socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		(void)!write(sv[0], "unix", 4);
		add_fd("unix-stream-a", sv[0], TK_SOCK);
		add_fd("unix-stream-b", sv[1], TK_SOCK);
	}
	add_fd("netlink-route", socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), TK_SOCK);
	sockets_settle();
	probe_sockopt_cmds();
}

/* ---- memory: good and bad buffers ----------------------------------------- */

/*
 * The arena: ARENA_RW readable and writable bytes, then PROT_NONE up to
 * 4 GiB past their end, so that a valid pointer with any 32-bit length
 * ends in the arena (the kernel faults on the guard) and never writes over
 * this program's other memory.
 */
#define ARENA_RW	(16UL << 20)
#define ARENA_SIZE	((1ULL << 32) + ARENA_RW + (1UL << 20))
#define RO_SIZE		(64UL << 10)
#define HOLE_SIZE	(64UL << 10)
#define MAX_IOV		1100

static unsigned char *arena, *ro_map, *hole;
/*
 * Where valid block-query answers go: a page of its own, one slot per SQE
 * of a batch, so that no NVMe transfer into the arena can race with the
 * check of an answer.
 */
static __u64 *answers;

static void make_hole(void)
{
	void *p = mmap(NULL, HOLE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		t_die("mmap: %m");
	munmap(p, HOLE_SIZE);
	hole = p;
}

/* The munmap'ed region, made again if something got mapped there since. */
static __u64 unmapped_addr(__u64 off)
{
	unsigned char vec[HOLE_SIZE / 4096];

	if (mincore(hole, HOLE_SIZE, vec) == 0 || errno != ENOMEM)
		make_hole();
	return (__u64)(uintptr_t)hole + off % HOLE_SIZE;
}

static void setup_memory(void)
{
	arena = mmap(NULL, ARENA_SIZE, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (arena == MAP_FAILED)
		t_die("mmap arena: %m");
	if (mprotect(arena, ARENA_RW, PROT_READ | PROT_WRITE))
		t_die("mprotect arena: %m");
	t_fill_pattern(arena, ARENA_RW, 0x5eed);
	answers = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (answers == MAP_FAILED)
		t_die("mmap: %m");
	ro_map = mmap(NULL, RO_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		      -1, 0);
	if (ro_map == MAP_FAILED)
		t_die("mmap: %m");
	make_hole();
}

enum ptrk {
	P_VALID, P_NULL, P_UNMAPPED, P_RO, P_KERNEL, P_MISALIGNED, P_LOW,
	P_GUARD, P_RANDOM, P_NR
};
static const char *const ptr_names[P_NR] = {
	"valid", "NULL", "unmapped", "read-only", "kernel", "misaligned",
	"low", "guard", "random",
};

static const __u64 kernel_addrs[] = {
	0xffff888000000000ULL,	/* direct map */
	0xffffffff81000000ULL,	/* kernel text */
	0xffffc90000000000ULL,	/* vmalloc */
	0xffffea0000000000ULL,	/* vmemmap */
	0xfffffffffffff000ULL,
	0xfffffffffffffff8ULL,
	0x0000800000000000ULL,	/* first non-canonical */
	0x8000000000000000ULL,
};

/* A pointer of class @k; @len is the length it will be used with. */
static __u64 make_ptr(enum ptrk k, __u32 len)
{
	__u64 off;

	switch (k) {
	case P_VALID:
		off = below(ARENA_RW);
		switch (below(4)) {
		case 0: off &= ~4095ULL; break;
		case 1: off &= ~511ULL; break;
		case 2:	/* cross a page boundary */
			off = (off & ~4095ULL) + 4096 - (len ? below(len) % 4096 : 8);
			off %= ARENA_RW;
			break;
		default: off &= ~3ULL; break;
		}
		return (__u64)(uintptr_t)arena + off;
	case P_MISALIGNED:
		return (__u64)(uintptr_t)arena + (below(ARENA_RW) | 1);
	case P_NULL:
		return 0;
	case P_UNMAPPED:
		return unmapped_addr(below(HOLE_SIZE));
	case P_RO:
		return (__u64)(uintptr_t)ro_map + (below(RO_SIZE) & ~(pct(80) ? 511ULL : 0));
	case P_KERNEL:
		return PICK(kernel_addrs) + (pct(20) ? below(4096) : 0);
	case P_LOW:
		return 0x1000 * (1 + below(15)) + (pct(20) ? below(4096) : 0);
	case P_GUARD:
		return (__u64)(uintptr_t)arena + ARENA_RW + below(1 << 20);
	default:
		/* full 64 bits: almost never a canonical user address */
		return rnd64() | (1ULL << 63);
	}
}

static enum ptrk pick_ptrk(void)
{
	unsigned int r = below(100);

	if (r < 55)
		return P_VALID;
	if (r < 62)
		return P_NULL;
	if (r < 68)
		return P_UNMAPPED;
	if (r < 75)
		return P_RO;
	if (r < 81)
		return P_KERNEL;
	if (r < 88)
		return P_MISALIGNED;
	if (r < 92)
		return P_LOW;
	if (r < 96)
		return P_GUARD;
	return P_RANDOM;
}

static __u32 pick_len(void)
{
	static const __u32 huge[] = {
		1U << 20, 2U << 20, (1U << 20) + 4096, 16U << 20, 1U << 31,
		0x7fffffff, 0xffffffff, 0xfffff000, 0x80000000 + 512,
	};

	switch (below(10)) {
	case 0: return 0;
	case 1: return 1 + below(64);
	case 2: return 512 * (1 + below(8));
	case 3: case 4: return 4096 * (1 + below(32));
	case 5: return PICK(huge);
	case 6: return rnd32();
	case 7: return 4096 + 1 + below(4095);	/* odd, crosses pages */
	default: return below(65536);
	}
}

/* ---- rings --------------------------------------------------------------- */

enum rkind { R_PLAIN, R_BIG, R_IOPOLL, R_SQPOLL, R_NR };
static const char *const rkind_names[R_NR] = {
	"plain", "sqe128+cqe32", "iopoll", "sqpoll",
};

struct ring {
	struct io_uring	ring;
	enum rkind	kind;
	unsigned int	flags;
	bool		big_sqe;
	bool		files;		/* tg[i].fd registered at index i */
	unsigned int	nbufs;		/* registered buffers */
	struct iovec	bufs[4];
	unsigned int	id;
};

static const char *ring_flags_str(unsigned int f)
{
	static char b[160];

	snprintf(b, sizeof(b), "%s%s%s%s%s%s%s%s%s",
		 f & IORING_SETUP_SQE128 ? "SQE128|" : "",
		 f & IORING_SETUP_CQE32 ? "CQE32|" : "",
		 f & IORING_SETUP_IOPOLL ? "IOPOLL|" : "",
		 f & IORING_SETUP_SQPOLL ? "SQPOLL|" : "",
		 f & IORING_SETUP_SUBMIT_ALL ? "SUBMIT_ALL|" : "",
		 f & IORING_SETUP_COOP_TASKRUN ? "COOP_TASKRUN|" : "",
		 f & IORING_SETUP_DEFER_TASKRUN ? "DEFER_TASKRUN|" : "",
		 f & IORING_SETUP_SINGLE_ISSUER ? "SINGLE_ISSUER|" : "",
		 f & IORING_SETUP_TASKRUN_FLAG ? "TASKRUN_FLAG|" : "");
	if (b[0])
		b[strlen(b) - 1] = 0;
	else
		snprintf(b, sizeof(b), "0");
	return b;
}

static unsigned int nrings;
static const unsigned int ring_extras = IORING_SETUP_SUBMIT_ALL |
	IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG |
	IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;

static void ring_setup(struct ring *r, enum rkind kind)
{
	struct io_uring_params p;
	unsigned int f = 0;
	int ret, i;

	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->id = ++nrings;
	switch (kind) {
	case R_PLAIN:
		break;
	case R_BIG:
		f = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
		break;
	case R_IOPOLL:
		f = IORING_SETUP_IOPOLL | IORING_SETUP_SQE128;
		if (pct(80))
			f |= IORING_SETUP_CQE32;
		if (pct(20))
			f |= IORING_SETUP_SQPOLL;
		break;
	case R_SQPOLL:
		f = IORING_SETUP_SQPOLL;
		if (pct(60))
			f |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
		break;
	default:
		break;
	}
	if (pct(30))
		f |= IORING_SETUP_SUBMIT_ALL;
	if (!(f & IORING_SETUP_SQPOLL)) {
		switch (below(4)) {
		case 0:
			f |= IORING_SETUP_COOP_TASKRUN;
			if (pct(50))
				f |= IORING_SETUP_TASKRUN_FLAG;
			break;
		case 1:
			f |= IORING_SETUP_SINGLE_ISSUER |
			     IORING_SETUP_DEFER_TASKRUN;
			break;
		default:
			break;
		}
	}
	memset(&p, 0, sizeof(p));
	p.flags = f;
	p.sq_thread_idle = 10 + below(200);
	ret = io_uring_queue_init_params(64, &r->ring, &p);
	if (ret == -EINVAL && (f & ring_extras)) {
		/* an optional flag this kernel refuses in this combination */
		t_info("# ring %u: io_uring_queue_init(%s): %s, retried without the optional flags",
		       r->id, ring_flags_str(f), t_errname(ret));
		f &= ~ring_extras;
		memset(&p, 0, sizeof(p));
		p.flags = f;
		p.sq_thread_idle = 50;
		ret = io_uring_queue_init_params(64, &r->ring, &p);
	}
	if (ret)
		t_die("ring %u (%s): io_uring_queue_init(%s): %s", r->id,
		      rkind_names[kind], ring_flags_str(f), t_errname(ret));
	r->flags = f;
	r->big_sqe = f & IORING_SETUP_SQE128;

	if (pct(50)) {
		int fds[MAX_TARGETS];

		for (i = 0; i < (int)ntg; i++)
			fds[i] = tg[i].fd;
		ret = io_uring_register_files(&r->ring, fds, ntg);
		if (ret)
			t_die("ring %u: io_uring_register_files: %s", r->id,
			      t_errname(ret));
		r->files = true;
	}
	if (pct(60)) {
		static const struct { size_t off, len; } b[] = {
			{ 0, 1 << 20 }, { 1 << 20, 64 << 10 },
			{ 2 << 20, 4096 }, { (3 << 20) + 512, 8192 },
		};

		r->nbufs = 1 + below(4);
		for (i = 0; i < (int)r->nbufs; i++) {
			r->bufs[i].iov_base = arena + b[i].off;
			r->bufs[i].iov_len = b[i].len;
		}
		ret = io_uring_register_buffers(&r->ring, r->bufs, r->nbufs);
		if (ret)
			t_die("ring %u: io_uring_register_buffers: %s", r->id,
			      t_errname(ret));
	}
}

/* ---- commands ------------------------------------------------------------ */

struct slot {
	__u64		seq;
	unsigned int	tgt;
	bool		fixed_file;
	int		fd_or_idx;
	__u32		cmd_op;
	__u8		sqe_flags;
	__u32		ucflags;
	__u16		buf_index;
	__u16		personality;
	__u32		pad1;
	unsigned char	cmd[80];
	unsigned int	cmdlen;
	enum ptrk	addr_k, md_k;
	bool		rewritten;	/* the NVMe safety filter changed it */
	bool		extra_fields;	/* sqe->addr, len, ioprio set at random */
	__u16		ioprio;		/* what sqe->ioprio, len and file_index */
	__u32		sqe_len;	/* (splice_fd_in) carry */
	__u32		file_index;
	__u64		dstart;		/* a discard's sqe->addr */
	bool		in_chain;	/* linked, or linked to: may be cancelled */
	bool		clean_query;	/* a block query that must be answered */
	bool		done;
	struct iovec	*iov;		/* IO_VEC/ADMIN_VEC array, kept till reaped */
};

#define MAX_BATCH	32
static struct slot slots[MAX_BATCH];

static const char *op_name(__u32 op)
{
	static char b[24];

	switch (op) {
	case NVME_URING_CMD_IO: return "NVME_URING_CMD_IO";
	case NVME_URING_CMD_IO_VEC: return "NVME_URING_CMD_IO_VEC";
	case NVME_URING_CMD_ADMIN: return "NVME_URING_CMD_ADMIN";
	case NVME_URING_CMD_ADMIN_VEC: return "NVME_URING_CMD_ADMIN_VEC";
	case BLOCK_URING_CMD_IOCTL: return "BLOCK_URING_CMD_IOCTL";
	case SOCKET_URING_OP_SIOCINQ: return "SOCKET_URING_OP_SIOCINQ";
	case SOCKET_URING_OP_SIOCOUTQ: return "SOCKET_URING_OP_SIOCOUTQ";
	case BLOCK_URING_CMD_DISCARD: return "BLOCK_URING_CMD_DISCARD";
	}
	snprintf(b, sizeof(b), "%#x", op);
	return b;
}

/* A discard's length: sqe->addr3, the first 8 bytes of sqe->cmd */
static __u64 discard_len(const struct slot *s)
{
	__u64 len;

	memcpy(&len, s->cmd, sizeof(len));
	return len;
}

static const char *describe(const struct slot *s, const struct ring *r)
{
	static char b[1024];
	int n;

	n = snprintf(b, sizeof(b),
		     "cmd %llu on ring %u (%s) %s%s fd %s%d: cmd_op %s sqe flags %#x uring_cmd_flags %#x buf_index %u%s%s",
		     (unsigned long long)s->seq, r->id, ring_flags_str(r->flags), tg[s->tgt].name,
		     tg[s->tgt].scratch ? " [scratch]" : "",
		     s->fixed_file ? "fixed " : "", s->fd_or_idx,
		     op_name(s->cmd_op), s->sqe_flags, s->ucflags, s->buf_index,
		     s->pad1 ? " __pad1 set" : "",
		     s->personality ? " personality set" : "");
	if (is_nvme_op(s->cmd_op) && s->cmdlen == 80) {
		struct nvme_uring_cmd c;

		memcpy(&c, s->cmd, sizeof(c));
		snprintf(b + n, sizeof(b) - n,
			 " nvme{opcode %#x%s flags %#x nsid %#x cdw2 %#x cdw3 %#x addr %#llx (%s) data_len %u metadata %#llx (%s) metadata_len %u cdw10 %#x cdw11 %#x cdw12 %#x cdw13 %#x cdw14 %#x cdw15 %#x timeout_ms %u}",
			 c.opcode, s->rewritten ? " (rewritten)" : "", c.flags,
			 c.nsid, c.cdw2, c.cdw3, (unsigned long long)c.addr,
			 ptr_names[s->addr_k], c.data_len,
			 (unsigned long long)c.metadata, ptr_names[s->md_k],
			 c.metadata_len, c.cdw10, c.cdw11, c.cdw12, c.cdw13,
			 c.cdw14, c.cdw15, c.timeout_ms);
	} else if (s->cmd_op == BLOCK_URING_CMD_IOCTL) {
		struct block_uring_cmd c;

		memcpy(&c, s->cmd, sizeof(c));
		snprintf(b + n, sizeof(b) - n,
			 " block{ioctl_cmd %#x flags %#x addr %#llx (%s)}",
			 c.ioctl_cmd, c.flags, (unsigned long long)c.addr,
			 ptr_names[s->addr_k]);
	} else if (s->cmd_op == BLOCK_URING_CMD_DISCARD) {
		snprintf(b + n, sizeof(b) - n,
			 " discard{start %#llx len %#llx ioprio %#x len %#x file_index %#x}",
			 (unsigned long long)s->dstart,
			 (unsigned long long)discard_len(s), s->ioprio,
			 s->sqe_len, s->file_index);
	} else {
		int i;

		n += snprintf(b + n, sizeof(b) - n, " payload");
		for (i = 0; i < 16 && n < (int)sizeof(b) - 4; i++)
			n += snprintf(b + n, sizeof(b) - n, " %02x", s->cmd[i]);
	}
	return b;
}

/* Block ioctl numbers: the queries, ioctls that change things, others. */
static __u32 pick_ioctl_cmd(void)
{
	static const __u32 other[] = {
		BLKROSET, BLKRRPART, BLKFLSBUF, BLKRASET, BLKFRASET,
		BLKSECTSET, BLKBSZSET, BLKDISCARD, BLKSECDISCARD, BLKZEROOUT,
		BLKTRACESETUP, BLKTRACESTART, BLKTRACESTOP, BLKTRACETEARDOWN,
		BLKPG, BLKREPORTZONE, BLKRESETZONE, BLKOPENZONE,
		BLKCLOSEZONE, BLKFINISHZONE, _IO(0x12, 0), _IO(0x12, 127),
		_IOR(0x12, 114, size_t), _IOR(0x12, 114, __u32),
		_IOR(0x12, 104, int), NVME_IOCTL_ID, NVME_IOCTL_ADMIN_CMD,
		NVME_IOCTL_IO_CMD, NVME_IOCTL_RESET, NVME_IOCTL_SUBSYS_RESET,
		NVME_IOCTL_RESCAN, 0x2285 /* SG_IO */, 0x0301 /* HDIO_GETGEO */,
		FIFREEZE, FITHAW, FS_IOC_GETFLAGS, FIONREAD,
		BLOCK_URING_CMD_IOCTL, NVME_URING_CMD_IO,
	};
	unsigned int r = below(100);
	__u32 cmd;

	if (r < 55)
		return uringcmd_block_queries[below(URINGCMD_NR_BLOCK_QUERIES)].cmd;
	if (r < 80)
		return PICK(other);
	if (r < 90) {
		/* a query with its size or direction bits changed */
		cmd = uringcmd_block_queries[below(URINGCMD_NR_BLOCK_QUERIES)].cmd;
		return cmd ^ (1U << below(32));
	}
	return rnd32();
}

static __u32 nvme_nsid(const struct target *t)
{
	static const __u32 odd[] = { 0, 2, 3, 0xffffffff, 0xfffffffe, 1 };

	if (t->nvme_ns && pct(90))
		return t->nsid;
	if (pct(60))
		return PICK(odd);
	return rnd32();
}

static bool drain;	/* --drain: also IOSQE_IO_DRAIN, see gen_cmd() */

static void gen_nvme(struct slot *s, const struct target *t,
		     const struct ring *r, struct nvme_uring_cmd *c)
{
	static const __u8 admin_ops[] = {
		0x06, 0x06, 0x06, 0x02, 0x02, 0x0a, 0x1a, 0x82, 0x86, 0x18,
		0x1e, 0x7e,
	};
	static const __u8 io_ops[] = {
		0x02, 0x02, 0x02, 0x02, 0x00, 0x05, 0x0c, 0x0e, 0x7a, 0x7e,
		0x01, 0x01, 0x08, 0x04, 0x09, 0x19, 0x7d,
	};
	bool admin = is_nvme_admin_op(s->cmd_op);
	bool vec = s->cmd_op == NVME_URING_CMD_IO_VEC ||
		   s->cmd_op == NVME_URING_CMD_ADMIN_VEC;
	__u32 lbs = t->lbs ? t->lbs : 512;
	__u64 nlb = t->nlb ? t->nlb : 1 << 20;
	__u32 blocks;

	memset(c, 0, sizeof(*c));
	if (pct(75))
		c->opcode = admin ? PICK(admin_ops) : PICK(io_ops);
	else if (pct(70))
		c->opcode = (__u8)rnd32();
	else
		c->opcode = PICK(admin_deny).opcode;	/* the filter's job */
	c->flags = pct(92) ? 0 : (__u8)(1 + below(255));
	c->nsid = admin ? (pct(50) ? 0 : nvme_nsid(t)) : nvme_nsid(t);
	if (pct(10))
		c->rsvd1 = (__u16)rnd32();
	if (pct(15))
		c->cdw2 = rnd32();
	if (pct(15))
		c->cdw3 = rnd32();

	blocks = 1 + below(pct(80) ? 8 : 256);
	if (admin) {
		if (c->opcode == 0x06) {
			c->cdw10 = pct(70) ? below(4) : (pct(50) ? below(0x20) : rnd32());
			c->data_len = 4096;
		} else if (c->opcode == 0x02) {
			__u32 numd = pct(70) ? 127 : below(4096);

			c->cdw10 = (numd << 16) | (pct(70) ? 1 + below(3) : below(256));
			c->data_len = (numd + 1) * 4;
		} else {
			c->cdw10 = pct(50) ? below(32) : rnd32();
			c->data_len = 4096;
		}
		c->cdw11 = pct(60) ? 0 : rnd32();
	} else {
		__u64 slba;

		if (pct(75))
			slba = below(nlb > blocks ? nlb - blocks : 1);
		else if (pct(50))
			slba = nlb - below(4);	/* at or past the end */
		else
			slba = rnd64();
		c->cdw10 = (__u32)slba;
		c->cdw11 = (__u32)(slba >> 32);
		c->cdw12 = blocks - 1;
		if (pct(15))
			c->cdw12 |= rnd32() & 0xffff0000;
		c->data_len = blocks * (t->ext ? lbs + t->ms : lbs);
	}
	if (pct(35))
		c->data_len = pick_len();
	if (pct(15))
		c->cdw13 = rnd32();
	if (pct(10))
		c->cdw14 = rnd32();
	if (pct(10))
		c->cdw15 = rnd32();

	/* data */
	s->addr_k = pick_ptrk();
	if (vec) {
		unsigned int n, i;

		n = pct(80) ? 1 + below(8) : (pct(50) ? 1024 + below(2) : below(MAX_IOV));
		if (pct(5))
			n = pct(50) ? 0 : rnd32();
		for (i = 0; i < n && i < MAX_IOV; i++) {
			__u32 len = pct(60) ? lbs * (1 + below(4)) : pick_len();
			enum ptrk k = pct(80) ? P_VALID : pick_ptrk();

			s->iov[i].iov_base = (void *)(uintptr_t)make_ptr(k, len);
			s->iov[i].iov_len = pct(3) ? rnd64() : len;
		}
		c->data_len = n;
		c->addr = s->addr_k == P_VALID || pct(50) ?
			  (__u64)(uintptr_t)s->iov : make_ptr(s->addr_k, n * 16);
		if (c->addr == (__u64)(uintptr_t)s->iov)
			s->addr_k = P_VALID;
	} else if ((s->ucflags & IORING_URING_CMD_FIXED) && r->nbufs &&
		   s->buf_index < r->nbufs && pct(75)) {
		const struct iovec *b = &r->bufs[s->buf_index];

		c->addr = (__u64)(uintptr_t)b->iov_base + below(b->iov_len);
		if (pct(50))
			c->addr &= ~511ULL;
		if (c->addr < (__u64)(uintptr_t)b->iov_base)
			c->addr = (__u64)(uintptr_t)b->iov_base;
		s->addr_k = P_VALID;
	} else {
		c->addr = make_ptr(s->addr_k, c->data_len);
	}

	/*
	 * metadata: mostly none, unless the namespace has some. There 6.1
	 * kmalloc()s metadata_len bytes for the copy: a length past what the
	 * page allocator gives (4 MiB) must fail with -ENOMEM and no WARN
	 * (drivers-nvme's "don't WARN on a passthrough metadata buffer too
	 * large to allocate"), so some are past it.
	 */
	s->md_k = P_NULL;
	if (t->ms && !t->ext) {
		if (pct(60)) {
			s->md_k = pct(90) ? P_VALID : pick_ptrk();
			c->metadata_len = pct(80) ? t->ms * blocks :
					  pct(75) ? below(1 << 20) :
					  (4U << 20) + below(60U << 20);
			c->metadata = make_ptr(s->md_k, c->metadata_len);
		}
	} else if (pct(12)) {
		s->md_k = pick_ptrk();
		c->metadata_len = pct(50) ? 8 * blocks : pick_len();
		c->metadata = make_ptr(s->md_k, c->metadata_len);
	} else if (pct(3)) {
		c->metadata_len = pick_len();	/* length without a buffer */
	}

	/*
	 * Short timeouts end in nvme_timeout(): an abort, then a controller
	 * reset. Keep them at the default (0) or at least a minute.
	 */
	if (pct(10))
		c->timeout_ms = 60000 + below(0xffffffffULL - 60000);
	if (pct(5))
		c->rsvd2 = rnd32();
}

/* ---- NVMe DMA guard -------------------------------------------------------- */

/*
 * The kernel maps data_len bytes (the iovecs' total for the _VEC ops) and
 * gives the controller PRPs for exactly those; the controller moves what
 * the command itself says: (NLB + 1) blocks, (NUMD + 1) dwords, 4096 bytes
 * of identify data. Nothing in 6.1 checks that the two agree: passthrough
 * trusts its caller (nvme-cli issue #329). When a read-direction command
 * says more than is mapped, the controller writes past the mapping: it
 * walks on through the rest of the driver's PRP list page (entries of
 * earlier commands, pages that may belong to anybody now) or takes the
 * caller's second page as a PRP list. Without an IOMMU, as in this guest,
 * that is random memory corruption done by the device, not a kernel bug:
 * a CI run of this fuzzer ended in "BUG: Bad rss-counter state" and in a
 * sleep(1) of the test runner whose argv[0] had turned into zeros.
 *
 * So a command that the controller supports and that moves data to the
 * host goes out only with a transfer no longer than the mapping: its
 * length field is cut down to the mapping, or, where it has none (identify
 * and get features move fixed sizes) or the mapping is too short, it
 * becomes a command without data (Keep Alive, Flush). Host-to-controller
 * transfers are left as they are: the controller only reads too much.
 */

/* Bytes the controller writes to host memory for @c, ~0 if not known. */
static __u64 nvme_to_host(const struct nvme_uring_cmd *c, bool admin,
			  __u32 lbs)
{
	__u64 numd;

	if (!(c->opcode & 2))	/* data direction: none or to the controller */
		return 0;
	if (admin) {
		switch (c->opcode) {
		case 0x02:	/* get log page: NUMDU:NUMDL */
			numd = ((__u64)(c->cdw11 & 0xffff) << 16) | c->cdw10 >> 16;
			return (numd + 1) * 4;
		case 0x06:	/* identify */
		case 0x0a:	/* get features: at most 4096 bytes */
			return 4096;
		case 0x1a:	/* directive receive: NUMD */
			return ((__u64)c->cdw10 + 1) * 4;
		case 0x82:	/* security receive: allocation length */
			return c->cdw11;
		case 0x86:	/* get LBA status: MNDW */
			return ((__u64)c->cdw12 + 1) * 4;
		}
		return ~0ULL;
	}
	switch (c->opcode) {
	case 0x02:	/* read: NLB */
		return ((__u64)(c->cdw12 & 0xffff) + 1) * lbs;
	case 0x0e:	/* reservation report: NUMD */
	case 0x7a:	/* zone management receive: NUMD */
		return ((__u64)(c->opcode == 0x0e ? c->cdw10 : c->cdw12) + 1) * 4;
	}
	return ~0ULL;
}

/* What the kernel maps for @c if the mapping succeeds at all. */
static __u64 nvme_mapped(const struct slot *s, const struct nvme_uring_cmd *c,
			 bool vec)
{
	__u64 sum = 0;
	__u32 i;

	if (!vec)
		return c->data_len;
	if (!s->iov || c->addr != (__u64)(uintptr_t)s->iov ||
	    c->data_len > MAX_IOV)
		return 0;	/* an iovec array the fuzzer did not write */
	for (i = 0; i < c->data_len; i++) {
		if (s->iov[i].iov_len > (1ULL << 40))
			return 0;	/* the kernel refuses it */
		sum += s->iov[i].iov_len;
	}
	return sum;
}

/*
 * A read on a namespace with metadata moves (NLB + 1) * ms bytes of it too:
 * inside the data buffer with extended LBAs, else to the metadata buffer,
 * which the kernel maps only with a data buffer, a metadata pointer and a
 * metadata_len; without one the command's MPTR is 0 and the controller
 * writes host physical address 0 on. Cut NLB to what both mappings hold,
 * or send a Flush.
 */
static void nvme_meta_guard(struct slot *s, const struct target *t,
			    struct nvme_uring_cmd *c, __u64 mapped)
{
	__u64 blk = t->ext ? t->lbs + t->ms : t->lbs;
	__u64 fit = mapped / blk, nlb = (__u64)(c->cdw12 & 0xffff) + 1;

	if (!t->ext)
		fit = c->metadata && c->metadata_len && mapped ?
		      (fit < c->metadata_len / t->ms ? fit : c->metadata_len / t->ms) : 0;
	if (nlb <= fit)
		return;
	if (fit)
		c->cdw12 = (c->cdw12 & ~0xffffU) |
			   (__u32)((fit > 0x10000 ? 0x10000 : fit) - 1);
	else
		c->opcode = 0x00;	/* flush: no data */
	memcpy(s->cmd, c, sizeof(*c));
	s->rewritten = true;
}

/*
 * Where a buffer is misaligned, the kernel copies through bounce pages it
 * allocates for the whole transfer before the controller sees the command
 * (bio_copy_user_iov(), GFP_KERNEL, so the OOM killer rather than a
 * failure), up to the queue's max_hw_sectors. A PCIe controller's MDTS
 * keeps that small; nvmet reports none, nvme-tcp's queues then take
 * UINT_MAX sectors, and one 1.1 GB admin command ran the 2 GiB guest out
 * of memory (tests/fuzz/README.md). So on a namespace whose
 * queue/max_hw_sectors_kb is above NVME_XFER_CAP (or not known), and for
 * every admin command (the admin queue's limit is not in sysfs, and
 * need not be its namespaces'), the transfer is cut to it: plain
 * data_len, or the fuzzer's own iovecs (an array elsewhere is replaced
 * by them) up to their running total.
 */
#define NVME_XFER_CAP	(4ULL << 20)

static void nvme_xfer_cap(struct slot *s, const struct target *t)
{
	bool vec = s->cmd_op == NVME_URING_CMD_IO_VEC ||
		   s->cmd_op == NVME_URING_CMD_ADMIN_VEC;
	struct nvme_uring_cmd c;
	bool changed = false;
	__u64 sum = 0;
	__u32 i;

	if (!is_nvme_admin_op(s->cmd_op) && t->max_xfer &&
	    t->max_xfer <= NVME_XFER_CAP)
		return;
	memcpy(&c, s->cmd, sizeof(c));
	if (!vec) {
		if (c.data_len > NVME_XFER_CAP) {
			c.data_len = NVME_XFER_CAP;
			changed = true;
		}
	} else if (c.data_len <= 1024) {	/* UIO_MAXIOV: -EINVAL first */
		if (c.addr != (__u64)(uintptr_t)s->iov) {
			c.addr = (__u64)(uintptr_t)s->iov;
			s->addr_k = P_VALID;
			changed = true;
		}
		for (i = 0; i < c.data_len; i++) {
			/* negative as a ssize_t: import_iovec()'s -EINVAL */
			if ((__s64)s->iov[i].iov_len < 0)
				continue;
			if (s->iov[i].iov_len > NVME_XFER_CAP - sum) {
				s->iov[i].iov_len = NVME_XFER_CAP - sum;
				changed = true;
			}
			sum += s->iov[i].iov_len;
		}
	}
	if (!changed)
		return;
	memcpy(s->cmd, &c, sizeof(c));
	s->rewritten = true;
}

static void nvme_dma_guard(struct slot *s, const struct target *t)
{
	struct nvme_uring_cmd c;
	bool admin = is_nvme_admin_op(s->cmd_op);
	bool vec = s->cmd_op == NVME_URING_CMD_IO_VEC ||
		   s->cmd_op == NVME_URING_CMD_ADMIN_VEC;
	__u32 lbs = t->nvme_ns ? t->lbs : lbs_max;
	__u64 mapped, need, n;

	memcpy(&c, s->cmd, sizeof(c));
	if (t->have_cse &&
	    !((admin ? t->acs : t->iocs)[c.opcode] & NVME_CMD_EFFECTS_CSUPP))
		return;		/* Invalid Opcode before any data moves */
	if (admin || c.nsid != t->nsid)
		lbs = lbs_max;	/* another namespace's blocks */
	mapped = nvme_mapped(s, &c, vec);
	if (!admin && c.opcode == 0x02 && c.nsid == t->nsid && t->ms) {
		nvme_meta_guard(s, t, &c, mapped);
		return;
	}
	need = nvme_to_host(&c, admin, lbs);
	if (need <= mapped)
		return;

	n = mapped / 4;		/* dwords that fit; the fields are 0's based */
	if (admin && c.opcode == 0x02 && n) {
		n = n > 0xffffffff ? 0xffffffff : n;
		c.cdw10 = (c.cdw10 & 0xffff) | (__u32)((n - 1) & 0xffff) << 16;
		c.cdw11 = (c.cdw11 & ~0xffffU) | (__u32)((n - 1) >> 16);
	} else if (!admin && c.opcode == 0x02 && mapped >= lbs) {
		n = mapped / lbs > 0x10000 ? 0x10000 : mapped / lbs;
		c.cdw12 = (c.cdw12 & ~0xffffU) | (__u32)(n - 1);
	} else if (!admin && (c.opcode == 0x0e || c.opcode == 0x7a) && n) {
		n = n > 0xffffffff ? 0xffffffff : n;
		*(c.opcode == 0x0e ? &c.cdw10 : &c.cdw12) = (__u32)(n - 1);
	}
	if (nvme_to_host(&c, admin, lbs) > mapped)
		c.opcode = admin ? 0x18 : 0x00;	/* keep alive, flush: no data */
	memcpy(s->cmd, &c, sizeof(c));
	s->rewritten = true;
}

/*
 * The last word on every SQE, after all mutations: whatever cmd_op ended
 * up in it, an NVMe command in it is made safe for the shared namespace.
 */
static void nvme_sanitize(struct slot *s, const struct target *t)
{
	__u8 *op = &s->cmd[0];

	if (is_nvme_admin_op(s->cmd_op) && admin_denied(*op)) {
		*op = NVME_ADMIN_SAFE;
		s->rewritten = true;
	} else if (is_nvme_io_op(s->cmd_op) && !io_read_only(*op) &&
		   !t->scratch) {
		*op = NVME_IO_SAFE;
		s->rewritten = true;
	}
	if (is_nvme_op(s->cmd_op) && (t->nvme_ns || t->nvme_ctrl) &&
	    s->cmdlen >= sizeof(struct nvme_uring_cmd)) {
		nvme_xfer_cap(s, t);
		nvme_dma_guard(s, t);
	}
}

static const __u32 known_ops[] = {
	NVME_URING_CMD_IO, NVME_URING_CMD_IO_VEC, NVME_URING_CMD_ADMIN,
	NVME_URING_CMD_ADMIN_VEC, BLOCK_URING_CMD_IOCTL,
	BLOCK_URING_CMD_DISCARD, SOCKET_URING_OP_SIOCINQ,
	SOCKET_URING_OP_SIOCOUTQ,
};

/*
 * A discard's range (sqe->addr, and sqe->addr3 in the payload): half of
 * them well-formed, inside the device and aligned to its logical block
 * size, from one block to all of it; the others misaligned, empty, past
 * the end, wrapping around, or random. Bytes of sqe->cmd past addr3 are
 * not the discard's: sometimes set, for the kernel to ignore.
 */
static void gen_discard(struct slot *s, const struct target *t)
{
	__u64 bs = t->kind == TK_BLOCK && t->blksz ? t->blksz : 512;
	__u64 size = t->kind == TK_BLOCK ? t->bytes : 1 << 20;
	__u64 nblk = size / bs, start, len;
	unsigned int i;

	start = below(nblk) * bs;
	len = (1 + below(pct(80) ? 256 : nblk)) * bs;
	if (pct(3)) {
		start = 0;
		len = size;
	}
	if (len > size - start)
		len = size - start;
	switch (below(12)) {
	case 6:
		start += 1 + below(bs - 1);
		break;
	case 7:
		len += 1 + below(bs - 1);
		break;
	case 8:
		len = 0;
		break;
	case 9:		/* ends past the device, or starts at its end */
		if (pct(50))
			len = size - start + bs * (1 + below(8));
		else
			start = size;
		break;
	case 10:	/* start + len wraps around */
		len = -(start & ~(bs - 1)) - bs * below(2);
		if (!start)
			start = bs;
		break;
	case 11:
		start = rnd64();
		len = rnd64();
		break;
	default:
		break;
	}
	s->dstart = start;
	memcpy(s->cmd, &len, sizeof(len));
	if (pct(10))
		for (i = sizeof(len); i < s->cmdlen; i++)
			s->cmd[i] = (unsigned char)rnd32();
}

/*
 * A discard through a read-write open of a device that discards and whose
 * data other tests still read (anything but --discard and --scratch) must
 * not destroy it: gen_cmd() sends such a discard through the device's
 * read-only open (-EBADF); where it cannot (no read-only open, or a
 * read-only device, -EPERM), its length becomes 0 here (-EINVAL before any
 * bio, whatever the kernel checks first). The last word, after every
 * mutation of the payload.
 */
static void discard_sanitize(struct slot *s, const struct target *t)
{
	if (s->cmd_op != BLOCK_URING_CMD_DISCARD || t->kind != TK_BLOCK ||
	    !t->rw || !t->discards || t->discard_ok)
		return;
	memset(s->cmd, 0, sizeof(__u64));
	s->rewritten = true;
}

static __u32 pick_cmd_op(const struct target *t)
{
	static const __u32 nvme_ns_ops[] = {
		NVME_URING_CMD_IO, NVME_URING_CMD_IO, NVME_URING_CMD_IO,
		NVME_URING_CMD_IO_VEC, NVME_URING_CMD_ADMIN,
		NVME_URING_CMD_ADMIN, NVME_URING_CMD_ADMIN_VEC,
		BLOCK_URING_CMD_IOCTL, BLOCK_URING_CMD_IOCTL,
	};
	static const __u32 nvme_ctrl_ops[] = {
		NVME_URING_CMD_ADMIN, NVME_URING_CMD_ADMIN,
		NVME_URING_CMD_ADMIN_VEC, NVME_URING_CMD_IO,
	};
	unsigned int r = below(100);

	if (r < 8)
		return rnd32();
	if (r < 12)	/* a known op with one bit flipped */
		return PICK(known_ops) ^ (1U << below(32));
	if (r < 25)
		return PICK(known_ops);
	if (t->kind == TK_BLOCK && t->discard_ok && pct(t->nvme_ns ? 20 : 60))
		return BLOCK_URING_CMD_DISCARD;
	if (t->nvme_ns && t->kind == TK_BLOCK)
		return PICK(nvme_ns_ops);
	if (t->nvme_ns)		/* ngXnY: no block queries there */
		return pct(80) ? PICK(nvme_ns_ops) : PICK(known_ops);
	if (t->nvme_ctrl)
		return PICK(nvme_ctrl_ops);
	if (t->kind == TK_BLOCK)
		return pct(70) ? BLOCK_URING_CMD_IOCTL :
		       pct(40) ? BLOCK_URING_CMD_DISCARD : PICK(known_ops);
	if (t->kind == TK_SOCK)
		return pct(50) ? SOCKET_URING_OP_SIOCINQ : SOCKET_URING_OP_SIOCOUTQ;
	return PICK(known_ops);
}


/*
 * The query a block-query payload asks, or NULL. The size_t-sized numbers
 * as a 32-bit program encodes them are answered too (block/ioctl.c, for
 * callers of either width): BLKBSZGET's gives what the kernel's 32-bit
 * ioctl gives (t->bszget32: the logical block size on 6.1, block_size()
 * on 6.12), and BLKGETSIZE64's the size in bytes; each is judged by the
 * table entry with that answer.
 */
static const struct uringcmd_block_query *slot_query(const struct target *t,
						     const struct slot *s,
						     struct block_uring_cmd *c)
{
	memcpy(c, s->cmd, sizeof(*c));
	if (c->ioctl_cmd == _IOR(0x12, 112, int))	/* BLKBSZGET_32 */
		return t->bszget32 ? t->bszget32 : uringcmd_block_query_find(BLKSSZGET);
	if (c->ioctl_cmd == _IOR(0x12, 114, int))	/* BLKGETSIZE64_32 */
		return uringcmd_block_query_find(BLKGETSIZE64);
	return uringcmd_block_query_find(c->ioctl_cmd);
}

/*
 * A well-formed block query on a block node: a known query, no flags,
 * the answer slot (or no addr where the answer fits cqe->res), nothing
 * else set in the SQE. Only a cancelled link may keep its answer away.
 */
static bool is_clean_query(const struct slot *s, const struct target *t,
			   const struct ring *r)
{
	const struct uringcmd_block_query *q;
	struct block_uring_cmd c;
	unsigned int i;

	if (t->kind != TK_BLOCK || s->cmd_op != BLOCK_URING_CMD_IOCTL)
		return false;
	q = slot_query(t, s, &c);
	if (!q || c.flags ||
	    !(c.addr == (__u64)(uintptr_t)&answers[s - slots] ||
	      (!c.addr && !q->needs_addr)))
		return false;
	if (s->ucflags || s->pad1 || s->personality || s->extra_fields ||
	    (s->sqe_flags & IOSQE_BUFFER_SELECT) ||
	    (s->fixed_file && (!r->files || s->fd_or_idx != (int)s->tgt)))
		return false;
	for (i = sizeof(c); i < s->cmdlen; i++)
		if (s->cmd[i])
			return false;
	return true;
}

static void gen_cmd(struct ring *r, struct io_uring_sqe *sqe, struct slot *s,
		    __u64 seq)
{
	const struct target *t;
	size_t sqe_size = r->big_sqe ? 128 : 64;
	unsigned int i;
	__u8 f = 0;

	s->seq = seq;
	s->tgt = below(ntg);
	if (ndestroyable && pct(4))	/* few targets, many discards */
		s->tgt = destroyable[below(ndestroyable)];
	t = &tg[s->tgt];
	s->cmd_op = pick_cmd_op(t);
	/*
	 * See discard_sanitize(): the read-only open, whatever the range; but
	 * a read-only device's read-write open keeps it (-EPERM, checked
	 * before the range, which discard_sanitize() empties)
	 */
	if (s->cmd_op == BLOCK_URING_CMD_DISCARD && t->kind == TK_BLOCK &&
	    t->rw && t->discards && !t->discard_ok && !t->ro_dev &&
	    t->ro_twin >= 0) {
		s->tgt = t->ro_twin;
		t = &tg[s->tgt];
		n_discard_ro++;
	}
	s->cmdlen = r->big_sqe ? 80 : 16;
	s->rewritten = false;
	s->done = false;
	s->addr_k = s->md_k = P_NULL;
	memset(s->cmd, 0, sizeof(s->cmd));

	/* io_uring-level fields first: gen_nvme looks at the buffer index */
	s->ucflags = 0;
	s->buf_index = 0;
	switch (below(20)) {
	case 0: case 1: case 2:
		s->ucflags = IORING_URING_CMD_FIXED;
		s->buf_index = pct(85) ? below(r->nbufs + 1) : (__u16)rnd32();
		break;
	case 3:
		s->ucflags = rnd32() | (pct(50) ? IORING_URING_CMD_FIXED : 0);
		s->buf_index = below(5);
		break;
	default:
		break;
	}

	if (is_nvme_op(s->cmd_op)) {
		struct nvme_uring_cmd c;

		gen_nvme(s, t, r, &c);
		memcpy(s->cmd, &c, sizeof(c));
	} else if (s->cmd_op == BLOCK_URING_CMD_IOCTL) {
		struct block_uring_cmd c;

		c.ioctl_cmd = pick_ioctl_cmd();
		c.flags = pct(90) ? 0 : (pct(50) ? 1U << below(32) : rnd32());
		s->addr_k = pct(30) ? P_NULL : pick_ptrk();
		c.addr = make_ptr(s->addr_k, 8);
		if (s->addr_k == P_VALID)	/* after make_ptr()'s draws */
			c.addr = (__u64)(uintptr_t)&answers[s - slots];
		answers[s - slots] = 0x5c5c5c5c5c5c5c5cULL;
		memcpy(s->cmd, &c, sizeof(c));
	} else if (s->cmd_op == BLOCK_URING_CMD_DISCARD) {
		gen_discard(s, t);
	} else if (pct(50)) {
		for (i = 0; i < s->cmdlen; i++)
			s->cmd[i] = (unsigned char)rnd32();
	}
	/* random payload bits over any command */
	if (pct(8)) {
		unsigned int flips = 1 + below(4);

		for (i = 0; i < flips; i++)
			s->cmd[below(s->cmdlen)] ^= 1U << below(8);
	}
	nvme_sanitize(s, t);
	discard_sanitize(s, t);

	/* sqe->flags: no CQE_SKIP_SUCCESS (one CQE per SQE is the rule) */
	if (pct(25))
		f |= IOSQE_ASYNC;
	if (pct(12))
		f |= IOSQE_IO_LINK;
	if (pct(3))
		f |= IOSQE_IO_HARDLINK;
	/*
	 * IOSQE_IO_DRAIN only with --drain: 6.1 stalls a drained request for
	 * ever when a later SQE of the same submission fails at init (its CQE
	 * is posted at once, cached_cq_tail overshoots and req_need_defer()'s
	 * != never turns false); uring_cmd_flags make such SQEs easy to get.
	 * Reproduced on the unpatched 6.1 tree: not this series' bug.
	 */
	if (pct(2) && drain)
		f |= IOSQE_IO_DRAIN;
	if (pct(1))
		f |= IOSQE_BUFFER_SELECT;
	s->fixed_file = false;
	s->fd_or_idx = t->fd;
	if (r->files && pct(30)) {
		s->fixed_file = true;
		s->fd_or_idx = pct(95) ? (int)s->tgt : (int)(ntg + below(8));
	} else if (!r->files && pct(1)) {
		s->fixed_file = true;	/* no files registered: -EBADF */
		s->fd_or_idx = below(4);
	}
	if (s->fixed_file)
		f |= IOSQE_FIXED_FILE;
	s->sqe_flags = f;
	s->in_chain = (f & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)) ||
		      (s > slots &&
		       (s[-1].sqe_flags & (IOSQE_IO_LINK | IOSQE_IO_HARDLINK)));
	s->pad1 = pct(2) ? 1 + below(0xffff) : 0;
	s->personality = pct(1) ? 1 + below(8) : 0;

	memset(sqe, 0, sqe_size);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->flags = f;
	sqe->fd = s->fd_or_idx;
	sqe->cmd_op = s->cmd_op;
	sqe->__pad1 = s->pad1;
	sqe->uring_cmd_flags = s->ucflags;
	sqe->buf_index = s->buf_index;
	sqe->personality = s->personality;
	sqe->user_data = seq;
	s->extra_fields = false;
	s->ioprio = 0;
	s->sqe_len = 0;
	s->file_index = 0;
	if (s->cmd_op == BLOCK_URING_CMD_DISCARD)
		sqe->addr = s->dstart;
	if (pct(5)) {	/* fields uring_cmd does not use */
		s->extra_fields = true;
		if (s->cmd_op != BLOCK_URING_CMD_DISCARD)
			sqe->addr = rnd64();
		s->sqe_len = rnd32();
		s->ioprio = (__u16)rnd32();
		s->file_index = rnd32();
	} else if (s->cmd_op == BLOCK_URING_CMD_DISCARD) {
		/* one field at a time, as block_discard.c sets them */
		switch (below(30)) {
		case 0:
			s->ioprio = 1 + below(0xfffe);
			break;
		case 1:
			s->sqe_len = 1 + below(1 << 20);
			break;
		case 2:
			s->file_index = 1 + below(64);
			break;
		default:
			break;
		}
	}
	sqe->ioprio = s->ioprio;
	sqe->len = s->sqe_len;
	sqe->file_index = s->file_index;
	memcpy(sqe->cmd, s->cmd, s->cmdlen);
	s->clean_query = is_clean_query(s, t, r);
}

/* ---- statistics ------------------------------------------------------------ */

static unsigned long errno_hist[4096];
static unsigned long n_ok, n_pos, n_nvme_status, n_rewritten, n_cmds;
static unsigned long kind_cmds[R_NR];

static void account(const struct slot *s, int res)
{
	n_cmds++;
	if (s->rewritten)
		n_rewritten++;
	if (res < 0 && res > -4096)
		errno_hist[-res]++;
	else if (res == 0)
		n_ok++;
	else if (is_nvme_op(s->cmd_op))
		n_nvme_status++;
	else
		n_pos++;
}

static void summary(unsigned long long ms)
{
	unsigned long top[5] = { 0 };
	int topi[5] = { 0 };
	char hist[256] = "";
	int i, j, n = 0;

	for (i = 1; i < 4096; i++) {
		for (j = 0; j < 5; j++) {
			if (errno_hist[i] > top[j]) {
				memmove(&top[j + 1], &top[j], (4 - j) * sizeof(top[0]));
				memmove(&topi[j + 1], &topi[j], (4 - j) * sizeof(topi[0]));
				top[j] = errno_hist[i];
				topi[j] = i;
				break;
			}
		}
	}
	for (j = 0; j < 5 && top[j]; j++)
		n += snprintf(hist + n, sizeof(hist) - n, "%s%s %lu",
			      j ? ", " : "", t_errname(topi[j]), top[j]);
	t_info("%lu commands in %.1f s (%.0f/s) on %u targets, %u rings (plain %lu, sqe128 %lu, iopoll %lu, sqpoll %lu): res 0 %lu, res > 0 %lu, NVMe status %lu; errno: %s; discards %lu (res 0 %lu, %lu sent through a read-only open); safety rewrites %lu",
	       n_cmds, ms / 1000.0, ms ? n_cmds * 1000.0 / ms : 0.0, ntg,
	       nrings, kind_cmds[R_PLAIN], kind_cmds[R_BIG],
	       kind_cmds[R_IOPOLL], kind_cmds[R_SQPOLL], n_ok, n_pos,
	       n_nvme_status, hist[0] ? hist : "none", n_discards,
	       n_discards_done, n_discard_ro, n_rewritten);
}

/* ---- failslab --------------------------------------------------------------- */

#define FAILSLAB_DIR		"/sys/kernel/debug/failslab"
#define FAILSLAB_PROBABILITY	"5"	/* percent of this task's allocations */
#define FAILSLAB_TIMES		5000	/* failures at most, over the phase */

static unsigned long failslab_count;	/* --failslab N */
static bool failslab_on;		/* this batch runs under failslab */
static int make_it_fail_fd = -1;
static unsigned long fs_cmds, fs_enomem, fs_eagain;

static int failslab_write(const char *attr, const char *val)
{
	char path[128];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", FAILSLAB_DIR, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
	close(fd);
	return ret;
}

/* make-it-fail of this task: failslab fails only its allocations */
static void failslab_task(bool on)
{
	if (make_it_fail_fd >= 0 &&
	    pwrite(make_it_fail_fd, on ? "1" : "0", 1, 0) != 1)
		t_die("/proc/self/make-it-fail: %m");
}

/* failslab off again, whatever way the fuzzer leaves */
static void failslab_off(void)
{
	failslab_task(false);
	failslab_write("probability", "0");
	failslab_write("times", "1");
}

static void failslab_setup(void)
{
	static const struct { const char *attr, *val; } cfg[] = {
		{ "probability", "0" },
		{ "task-filter", "Y" },		/* make-it-fail tasks only */
		{ "ignore-gfp-wait", "N" },	/* GFP_KERNEL fails too */
		{ "cache-filter", "N" },
		{ "verbose", "0" },		/* no stack dump per failure */
		{ "space", "0" },
		{ "interval", "1" },
	};
	char times[16];
	size_t i;
	int ret;

	if (access(FAILSLAB_DIR, F_OK))
		t_die("--failslab: no %s (CONFIG_FAILSLAB, debugfs mounted?)",
		      FAILSLAB_DIR);
	make_it_fail_fd = open("/proc/self/make-it-fail", O_WRONLY | O_CLOEXEC);
	if (make_it_fail_fd < 0)
		t_die("--failslab: /proc/self/make-it-fail: %m");
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		ret = failslab_write(cfg[i].attr, cfg[i].val);
		if (ret)
			t_die("--failslab: %s/%s: %s", FAILSLAB_DIR,
			      cfg[i].attr, strerror(-ret));
	}
	atexit(failslab_off);
	snprintf(times, sizeof(times), "%d", FAILSLAB_TIMES);
	if (failslab_write("times", times) ||
	    failslab_write("probability", FAILSLAB_PROBABILITY))
		t_die("--failslab: cannot arm %s: %m", FAILSLAB_DIR);
}

/* How many failures failslab has injected so far (times counts down). */
static long failslab_injected(void)
{
	char b[32];

	if (t_read_file(FAILSLAB_DIR "/times", b, sizeof(b)))
		return -1;
	return FAILSLAB_TIMES - strtol(b, NULL, 10);
}

/* ---- judging results ------------------------------------------------------ */

static unsigned int timeout_ms = 30000;
static uint64_t seed;
static unsigned long count = 100000;
static bool verbose;

/*
 * What a command may complete with: one of the errnos in @err, or a
 * result >= 0 where @ok. Derived per entry point from the kernel's code
 * (io_uring/io_uring.c and uring_cmd.c, block/ioctl.c, net/socket.c,
 * drivers/nvme/host/ioctl.c) and the series' ABI
 * (Documentation/userspace-api/io_uring_cmd.rst): where the SQE already
 * decides the answer, exactly one errno; otherwise the few the entry
 * point returns for a command of that cmd_op on that kind of file.
 */
struct expect {
	int		err[12];
	unsigned int	n;
	bool		ok;
};

static void allow(struct expect *e, int err)
{
	if (e->n < sizeof(e->err) / sizeof(e->err[0]))
		e->err[e->n++] = err;
}

static bool allowed(const struct expect *e, int err)
{
	unsigned int i;

	for (i = 0; i < e->n; i++)
		if (e->err[i] == err)
			return true;
	return false;
}

/*
 * io_uring's own refusals, in io_init_req() and io_uring_cmd_prep()
 * order, before any file sees the command: each is posted as it is, even
 * in a link chain (io_submit_fail_init() keeps the request's own errno).
 */
static int uring_refusal(const struct slot *s, const struct ring *r)
{
	if (s->sqe_flags & IOSQE_BUFFER_SELECT)
		return EOPNOTSUPP;	/* uring_cmd selects no buffer */
	if (s->ioprio)
		return EINVAL;		/* uring_cmd has no ioprio */
	if (s->personality)
		return EINVAL;		/* none is registered */
	if (s->pad1)
		return EINVAL;
	if (s->ucflags & ~IORING_URING_CMD_FIXED)
		return EINVAL;
	if ((s->ucflags & IORING_URING_CMD_FIXED) && s->buf_index >= r->nbufs)
		return EFAULT;
	return 0;
}

/* file_operations->uring_cmd, and ->uring_cmd_iopoll */
static bool has_uring_cmd(const struct target *t)
{
	return t->kind == TK_BLOCK || t->kind == TK_SOCK ||
	       (t->kind == TK_CHAR && (t->nvme_ns || t->nvme_ctrl));
}

static bool has_iopoll(const struct target *t)
{
	return t->kind == TK_BLOCK || (t->kind == TK_CHAR && t->nvme_ns);
}

/*
 * nvme_uring_cmd_io(), a command the node takes: its checks (flags, nsid,
 * fixed buffer with a vector: -EINVAL), mapping the buffers (-EFAULT,
 * -EINVAL, -ENOMEM, the metadata copy too), or an NVMe status (> 0).
 * Kernels differ in how they take a metadata buffer: 6.1 copies it
 * (kmalloc(), -ENOMEM past what it gives), later ones map the user's
 * pages (bio_integrity_map_user(): -E2BIG for more than the queue's
 * max_hw_sectors or BIO_MAX_VECS pages), so a namespace with separate
 * metadata may also answer -E2BIG for a buffer that large, and
 * -EOVERFLOW for one whose range wraps past the top of the address
 * space: they do not check it with access_ok() first, and
 * pin_user_pages_fast() refuses such a range so (seen on 6.12 under the
 * debug kernel's failslab, a 40-byte buffer at 0xfffffffffffffff8).
 */
static void expect_nvme(const struct target *t, const struct slot *s,
			struct expect *e)
{
	allow(e, EINVAL);
	allow(e, EFAULT);
	allow(e, ENOMEM);
	if (t && t->nvme_ns && t->ms && !t->ext) {
		struct nvme_uring_cmd c;
		__u64 pages;

		memcpy(&c, s->cmd, sizeof(c));
		pages = c.metadata ? ((c.metadata & 4095) + c.metadata_len + 4095) / 4096 : 0;
		if (c.metadata && c.metadata_len &&
		    ((!t->max_xfer || c.metadata_len > t->max_xfer) || pages > 256))
			allow(e, E2BIG);
		if (c.metadata && c.metadata_len &&
		    c.metadata + c.metadata_len < c.metadata)
			allow(e, EOVERFLOW);
	}
	e->ok = true;
}

/* blkdev_uring_ioctl(): flags and the SQE128 tail first, then the query */
static void expect_query(const struct target *t, const struct slot *s,
			 const struct ring *r, struct expect *e)
{
	const struct uringcmd_block_query *q;
	struct block_uring_cmd c;
	unsigned int i;
	int qerr;

	q = slot_query(t, s, &c);
	if (c.flags) {
		allow(e, EINVAL);
		return;
	}
	if (r->big_sqe)
		for (i = sizeof(c); i < s->cmdlen; i++)
			if (s->cmd[i]) {
				allow(e, EINVAL);
				return;
			}
	if (!q) {
		allow(e, ENOTTY);
		return;
	}
	qerr = t->q_err[q - uringcmd_block_queries];
	if (qerr) {
		allow(e, -qerr);
		return;
	}
	allow(e, EINVAL);	/* a 64-bit answer without addr */
	allow(e, EOVERFLOW);	/* above INT_MAX without addr */
	if (c.addr && c.addr != (__u64)(uintptr_t)&answers[s - slots])
		allow(e, EFAULT);
	e->ok = true;
}

/*
 * blkdev_cmd_discard(), after blkdev_uring_cmd()'s IOPOLL check: one
 * answer for every discard, as tests/block/block_discard.c wants them.
 * -EAGAIN is retried from io-wq and never posted; -EIO would be a bio
 * error, which none of these devices gives.
 */
static void expect_discard(const struct target *t, const struct slot *s,
			   const struct ring *r, struct expect *e)
{
	__u64 start = s->dstart, len = discard_len(s), end;

	if (r->flags & IORING_SETUP_IOPOLL)
		allow(e, EOPNOTSUPP);	/* as 6.12's unpolled block nodes */
	else if (!t->discards)
		allow(e, EOPNOTSUPP);
	else if (!t->rw)
		allow(e, EBADF);
	else if (t->ro_dev)
		allow(e, EPERM);
	else if (((start | len) & (t->blksz - 1)) || !len ||
		 __builtin_add_overflow(start, len, &end) || end > t->bytes)
		allow(e, EINVAL);
	else
		e->ok = true;
}

/* blkdev_uring_cmd(): the block layer's numbers (type 0x12), the driver's */
static void expect_block(const struct target *t, const struct slot *s,
			 const struct ring *r, struct expect *e)
{
	bool big = (r->flags & IORING_SETUP_SQE128) &&
		   (r->flags & IORING_SETUP_CQE32);

	if (_IOC_TYPE(s->cmd_op) == 0x12) {
		/* rw_flags is uring_cmd_flags: IORING_URING_CMD_FIXED here */
		if (s->sqe_len || s->ucflags || s->file_index)
			allow(e, EINVAL);
		else if (s->cmd_op == BLOCK_URING_CMD_IOCTL)
			expect_query(t, s, r, e);
		else if (s->cmd_op == BLOCK_URING_CMD_DISCARD)
			expect_discard(t, s, r, e);
		else
			allow(e, EOPNOTSUPP);
		return;
	}
	/* loop and null_blk have no blk_mq_ops->uring_cmd nor fops one */
	if (!t->nvme_ns || !is_nvme_op(s->cmd_op)) {
		allow(e, EOPNOTSUPP);
		return;
	}
	/* a multipath head without a usable path, before anything else */
	allow(e, EBUSY);
	allow(e, ENODEV);
	if (is_nvme_admin_op(s->cmd_op) && (r->flags & IORING_SETUP_IOPOLL))
		allow(e, EOPNOTSUPP);
	else if (!big)
		allow(e, EOPNOTSUPP);
	else
		expect_nvme(t, s, e);
}

static void expect_of(const struct target *t, const struct slot *s,
		      const struct ring *r, struct expect *e)
{
	bool big = (r->flags & IORING_SETUP_SQE128) &&
		   (r->flags & IORING_SETUP_CQE32);
	int err = uring_refusal(s, r);

	e->n = 0;
	e->ok = false;
	if (err) {
		allow(e, err);
		return;
	}
	if (s->in_chain)
		allow(e, ECANCELED);	/* a link before it failed */
	/* a registered file that is not there, when it is issued */
	if (s->fixed_file && (!r->files || s->fd_or_idx >= (int)ntg)) {
		allow(e, EBADF);
		return;
	}
	if (!has_uring_cmd(t) ||
	    ((r->flags & IORING_SETUP_IOPOLL) && !has_iopoll(t))) {
		allow(e, EOPNOTSUPP);
		return;
	}
	switch (t->kind) {
	case TK_BLOCK:
		expect_block(t, s, r, e);
		return;
	case TK_SOCK:
		/*
		 * The socket option commands, where the kernel has them, with
		 * the SQE's level, optname, optval and optlen: 0, or random
		 * (a real option of a real level by a 1 in 2^32 chance), so
		 * whatever the system calls give such arguments, or what a
		 * protocol without ->ioctl gives (-EOPNOTSUPP)
		 */
		if (sockopt_cmds && (s->cmd_op == SOCKET_URING_OP_GETSOCKOPT ||
				     s->cmd_op == SOCKET_URING_OP_SETSOCKOPT)) {
			e->ok = true;
			allow(e, EOPNOTSUPP);
			allow(e, ENOPROTOOPT);
			allow(e, EINVAL);
			allow(e, EFAULT);
			allow(e, EPERM);
			allow(e, ENOTCONN);
			allow(e, ENOMEM);
			allow(e, ENOBUFS);
			return;
		}
		/* sock_uring_cmd(): the protocol's ->ioctl_karg() */
		if ((s->cmd_op != SOCKET_URING_OP_SIOCINQ &&
		     s->cmd_op != SOCKET_URING_OP_SIOCOUTQ) || !t->sock_karg)
			allow(e, EOPNOTSUPP);
		else if (t->sock_listen)
			allow(e, EINVAL);	/* tcp_ioctl_karg() */
		else
			e->ok = true;
		return;
	default:
		break;
	}
	/* NVMe char devices: nvme_ns_uring_cmd(), nvme_ctrl_uring_cmd() */
	if (!big)
		allow(e, EOPNOTSUPP);
	else if (t->nvme_ns ? is_nvme_io_op(s->cmd_op) :
		 is_nvme_admin_op(s->cmd_op))
		expect_nvme(t, s, e);
	else
		allow(e, ENOTTY);
	/* a head's ngXnY without a usable path */
	if (t->nvme_ns)
		allow(e, EINVAL);
}

static const char *expect_str(const struct expect *e)
{
	static char b[160];
	unsigned int i;
	int n = 0;

	for (i = 0; i < e->n; i++)
		n += snprintf(b + n, sizeof(b) - n, "%s-%s", i ? ", " : "",
			      t_errname(e->err[i]));
	snprintf(b + n, sizeof(b) - n, "%s%s", e->n && e->ok ? ", " : "",
		 e->ok ? "res >= 0" : "");
	return b;
}

/*
 * The NVMe commands a node carries out at all (I/O on ngXnY, admin on the
 * controller, both on the block node), for the share of res 0 below.
 */
static bool nvme_runs_here(const struct target *t, const struct slot *s)
{
	if (t->nvme_ctrl)
		return is_nvme_admin_op(s->cmd_op);
	if (t->nvme_ns && t->kind == TK_CHAR)
		return is_nvme_io_op(s->cmd_op);
	return t->nvme_ns && is_nvme_op(s->cmd_op);
}

/*
 * A socket's answer against ioctl(SIOCINQ/SIOCOUTQ) on the same socket,
 * asked after the CQE: the fuzzer's sockets are idle (nothing is sent or
 * read after own_targets() let them settle), so both must agree; and
 * SIOCINQ against the bytes queued on purpose, the independent answer
 * (the ioctl and the uring_cmd share ->ioctl_karg()).
 */
static const char *sock_mismatch(const struct target *t, const struct slot *s,
				 int res)
{
	static char b[160];
	bool inq = s->cmd_op == SOCKET_URING_OP_SIOCINQ;
	int v;

	if (ioctl(t->fd, inq ? SIOCINQ : SIOCOUTQ, &v)) {
		snprintf(b, sizeof(b), "answered; ioctl(%s) fails: %s",
			 inq ? "SIOCINQ" : "SIOCOUTQ", strerror(errno));
		return b;
	}
	if (res != v) {
		snprintf(b, sizeof(b), "ioctl(%s) answers %d",
			 inq ? "SIOCINQ" : "SIOCOUTQ", v);
		return b;
	}
	if (inq && t->sock_inq >= 0 && res != t->sock_inq) {
		snprintf(b, sizeof(b), "SIOCINQ: %d bytes are queued",
			 t->sock_inq);
		return b;
	}
	return NULL;
}

/*
 * A block query's answer against the ioctl's on the same open file:
 * cqe->res, and the 64-bit slot where the query used it.
 */
static const char *query_mismatch(const struct target *t, const struct slot *s,
				  int res)
{
	static char b[200];
	const struct uringcmd_block_query *q;
	struct block_uring_cmd c;
	__u64 want;
	int want_res;

	q = slot_query(t, s, &c);
	if (!q)
		return "an ioctl number that is not a query was answered";
	if (c.flags)
		return "a query with flags set was answered";
	if (t->q_err[q - uringcmd_block_queries]) {
		snprintf(b, sizeof(b), "%s answered; the ioctl fails with %s",
			 q->name, t_errname(-t->q_err[q - uringcmd_block_queries]));
		return b;
	}
	want = t->q_val[q - uringcmd_block_queries];
	want_res = q->needs_addr || want > INT_MAX ? 0 : (int)want;
	if (res != want_res) {
		snprintf(b, sizeof(b), "%s: res %d, the ioctl's answer %llu wants %d",
			 q->name, res, (unsigned long long)want, want_res);
		return b;
	}
	if (c.addr == (__u64)(uintptr_t)&answers[s - slots] &&
	    answers[s - slots] != want) {
		snprintf(b, sizeof(b), "%s: *addr %#llx, the ioctl's answer %#llx",
			 q->name, (unsigned long long)answers[s - slots],
			 (unsigned long long)want);
		return b;
	}
	return NULL;
}

static void fail_cmd(const struct slot *s, const struct ring *r,
		     const char *what) __attribute__((noreturn));

static void judge(struct ring *r, struct slot *s, int res)
{
	struct target *t = &tg[s->tgt];
	const char *bad = NULL;
	char what[480], want[240];
	struct expect e;

	if (failslab_on) {
		fs_cmds++;
		fs_enomem += res == -ENOMEM;
		fs_eagain += res == -EAGAIN;
	}
	expect_of(t, s, r, &e);
	/*
	 * The NVMe commands this node carries out, that reached its driver:
	 * the right kind on the right ring, not refused by io_uring nor
	 * cancelled by a link
	 */
	if (!failslab_on && is_nvme_op(s->cmd_op) && nvme_runs_here(t, s) &&
	    e.ok && res != -ECANCELED) {
		t->nvme_sent++;
		t->nvme_ok += !res;
	}
	if (failslab_on) {	/* an allocation failslab failed */
		allow(&e, ENOMEM);
		allow(&e, EAGAIN);	/* the request's own, io-wq's */
	}
	if (s->cmd_op == BLOCK_URING_CMD_DISCARD && t->kind == TK_BLOCK) {
		n_discards++;
		n_discards_done += !res;
	}
	if (res < 0) {
		if (res <= -4096 || !allowed(&e, -res)) {
			snprintf(want, sizeof(want), "this entry point gives %s here",
				 expect_str(&e));
			bad = want;
		} else if (s->clean_query && res != -ECANCELED &&
			 !(failslab_on && (res == -ENOMEM || res == -EAGAIN))) {
			bad = "a well-formed query failed";
		}
	} else if (!e.ok) {
		snprintf(want, sizeof(want), "success where this entry point gives %s",
			 expect_str(&e));
		bad = want;
	} else if (t->kind == TK_BLOCK && s->cmd_op == BLOCK_URING_CMD_IOCTL) {
		bad = query_mismatch(t, s, res);
	} else if (s->cmd_op == BLOCK_URING_CMD_DISCARD && res) {
		bad = "a discard completes with 0 or -errno";
	} else if (t->kind == TK_SOCK && (s->cmd_op == SOCKET_URING_OP_SIOCINQ ||
					  s->cmd_op == SOCKET_URING_OP_SIOCOUTQ)) {
		bad = sock_mismatch(t, s, res);
	}
	if (!bad)
		return;
	snprintf(what, sizeof(what), "command %llu: res %s: %s",
		 (unsigned long long)s->seq, t_res_str(res), bad);
	fail_cmd(s, r, what);
}

/*
 * The share of NVMe passthrough commands that ended with res 0, per node,
 * among those that reached its driver (I/O on ng, admin on the
 * controller, both on the block node; on an SQE128 | CQE32 ring, admin
 * not on an IOPOLL one; not refused by io_uring, not cancelled): a
 * regression that refused them all (say with -EINVAL, which the driver
 * may give) would otherwise pass. None in NVME_MIN_SAMPLE (a controller:
 * NVME_MIN_SAMPLE_CTRL) fails, and so does a share under NVME_MIN_OK_PCT
 * of NVME_MIN_SAMPLE_PCT or more.
 */
#define NVME_MIN_SAMPLE		50
#define NVME_MIN_SAMPLE_CTRL	100
#define NVME_MIN_OK_PCT		1
#define NVME_MIN_SAMPLE_PCT	300

/* The length of @name without its "(rw)" or "(ro)": the node's path. */
static size_t node_len(const char *name)
{
	const char *p = strrchr(name, '(');

	return p ? (size_t)(p - name) : strlen(name);
}

/*
 * Per node (its read-write and read-only opens together). In 20000
 * commands the namespace nodes get 55 to 140 and 15 to 40% of them end
 * with res 0; the controller gets some 75, 1 to 4 of them res 0 (admin
 * commands are mostly refused or cut down by the DMA guard; a 2% floor
 * over 100 failed seeds 42 and 20261206 by chance). So the floor is none
 * at all in 50 (a controller: in 100), and 1% once there are 300: a path
 * that refuses everything still fails, a seed does not by chance.
 */
static void nvme_shares(void)
{
	unsigned int i, j;

	for (i = 0; i < ntg; i++) {
		const struct target *t = &tg[i];
		unsigned long sent = 0, ok = 0;
		size_t len = node_len(t->name);
		bool first = true;

		for (j = 0; j < ntg; j++) {
			if (node_len(tg[j].name) != len ||
			    strncmp(tg[j].name, t->name, len))
				continue;
			if (j < i)
				first = false;
			sent += tg[j].nvme_sent;
			ok += tg[j].nvme_ok;
		}
		if (!first || !sent)
			continue;
		t_info("# %.*s: %lu of %lu NVMe commands that reached it res 0 (%.1f%%)",
		       (int)len, t->name, ok, sent, 100.0 * ok / sent);
		if ((!ok && sent >= (t->nvme_ctrl ? NVME_MIN_SAMPLE_CTRL :
							NVME_MIN_SAMPLE)) ||
		    (sent >= NVME_MIN_SAMPLE_PCT && ok * 100 < NVME_MIN_OK_PCT * sent))
			t_error("%.*s: %lu of %lu NVMe commands ended with res 0, under %d%% (seed %" PRIu64 ")",
				(int)len, t->name, ok, sent, NVME_MIN_OK_PCT,
				seed);
	}
}

/* ---- submit and reap ---------------------------------------------------- */


static void
fail_cmd(const struct slot *s, const struct ring *r, const char *what)
{
	fflush(stdout);
	fprintf(stderr, "uring_fuzz: seed %" PRIu64 ": %s\n", seed,
		describe(s, r));
	t_die("%s (seed %" PRIu64 ", repeat: --seed %" PRIu64 " --count %lu%s%.0lu)",
	      what, seed, seed, count, failslab_count ? " --failslab " : "",
	      failslab_count);
}

static void check_cqe(struct ring *r, struct io_uring_cqe *cqe, __u64 base,
		      unsigned int n)
{
	__u64 ud = cqe->user_data;
	struct slot *s;
	char what[160];

	if (ud < base || ud >= base + n)
		t_die("ring %u: CQE with user_data %llu, not one of commands %llu..%llu (seed %" PRIu64 ")",
		      r->id, (unsigned long long)ud, (unsigned long long)base,
		      (unsigned long long)(base + n - 1), seed);
	s = &slots[ud - base];
	if (s->done) {
		snprintf(what, sizeof(what), "command %llu completed twice (res %s)",
			 (unsigned long long)ud, t_res_str(cqe->res));
		fail_cmd(s, r, what);
	}
	s->done = true;
	if (cqe->flags) {
		snprintf(what, sizeof(what), "command %llu: cqe flags %#x",
			 (unsigned long long)ud, cqe->flags);
		fail_cmd(s, r, what);
	}
	if (r->flags & IORING_SETUP_CQE32) {
		__u64 big0 = cqe->big_cqe[0], big1 = cqe->big_cqe[1];

		if (big1 || (big0 && !is_nvme_op(s->cmd_op))) {
			snprintf(what, sizeof(what),
				 "command %llu: res %s, CQE32 extra words %#llx %#llx not zero",
				 (unsigned long long)ud, t_res_str(cqe->res),
				 (unsigned long long)big0,
				 (unsigned long long)big1);
			fail_cmd(s, r, what);
		}
	}
	account(s, cqe->res);
	judge(r, s, cqe->res);
	if (verbose)
		t_info("%s -> %s", describe(s, r),
		       is_nvme_op(s->cmd_op) ? t_nvme_res_str(cqe->res) :
		       t_res_str(cqe->res));
}

/* The kernel's view of a ring (SQ/CQ heads and tails), for a hang report. */
static void dump_fdinfo(int fd)
{
	char path[64], line[256];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	fflush(stdout);
	while (fgets(line, sizeof(line), f) && n++ < 60)
		fprintf(stderr, "uring_fuzz: fdinfo: %s", line);
	fclose(f);
}

/* Queue @n commands starting at @base, submit them all, reap all @n. */
static void run_batch(struct ring *r, __u64 base, unsigned int n)
{
	struct io_uring *ring = &r->ring;
	unsigned long long deadline;
	unsigned int i, got = 0;
	bool iopoll_self = (r->flags & IORING_SETUP_IOPOLL) &&
			   !(r->flags & IORING_SETUP_SQPOLL);

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe)
			t_die("ring %u: SQ ring full with %u queued (seed %" PRIu64 ")",
			      r->id, i, seed);
		gen_cmd(r, sqe, &slots[i], base + i);
	}

	deadline = t_now_ms() + timeout_ms;
	failslab_task(failslab_on);
	for (;;) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { .tv_nsec = 100 * 1000000 };
		int ret;

		/*
		 * Without IORING_SETUP_SUBMIT_ALL, submission stops after an
		 * SQE that fails to initialise; the rest stay in the SQ ring
		 * and go with the next io_uring_enter().
		 */
		if (io_uring_sq_ready(ring)) {
			ret = io_uring_submit(ring);
			if (ret < 0 && ret != -EAGAIN && ret != -EBUSY &&
			    ret != -EINTR && !(failslab_on && ret == -ENOMEM))
				t_die("ring %u: io_uring_submit: %s (seed %" PRIu64 ", commands %llu..%llu)",
				      r->id, t_errname(ret), seed,
				      (unsigned long long)base,
				      (unsigned long long)(base + n - 1));
		}
		while (!io_uring_peek_cqe(ring, &cqe)) {
			check_cqe(r, cqe, base, n);
			io_uring_cqe_seen(ring, cqe);
			got++;
		}
		if (got == n)
			break;
		if (t_now_ms() > deadline) {
			dump_fdinfo(ring->ring_fd);
			for (i = 0; i < n; i++)
				if (!slots[i].done)
					fprintf(stderr, "uring_fuzz: not completed: %s\n",
						describe(&slots[i], r));
			for (i = 0; i < n; i++) {
				if (!slots[i].done) {
					char what[96];

					snprintf(what, sizeof(what),
						 "command %llu never completed (%u of %u in its batch did)",
						 (unsigned long long)slots[i].seq, got, n);
					fail_cmd(&slots[i], r, what);
				}
			}
		}
		if (iopoll_self) {
			ret = io_uring_enter(ring->ring_fd, 0, 0,
					     IORING_ENTER_GETEVENTS, NULL);
			if (ret < 0 && ret != -EINTR && ret != -EAGAIN &&
			    ret != -EBUSY && !(failslab_on && ret == -ENOMEM))
				t_die("ring %u: io_uring_enter(GETEVENTS): %s",
				      r->id, t_errname(ret));
		} else {
			ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
			if (ret < 0 && ret != -ETIME && ret != -EINTR &&
			    ret != -EAGAIN && ret != -EBUSY &&
			    !(failslab_on && ret == -ENOMEM))
				t_die("ring %u: io_uring_wait_cqe_timeout: %s",
				      r->id, t_errname(ret));
		}
	}
	failslab_task(false);
	/* nothing more may come: a second CQE for any of them fails here */
	{
		struct io_uring_cqe *cqe;

		if (!io_uring_peek_cqe(ring, &cqe))
			check_cqe(r, cqe, base, n);
	}
	kind_cmds[r->kind] += n;
}

/*
 * Before a ring goes: 100 ms more, task_work run, and still no CQE. One
 * that came late would otherwise be thrown away with the ring.
 */
static void late_cqes(struct ring *r)
{
	struct io_uring_cqe *cqe;
	int ret;

	/* GETEVENTS runs task_work, and polls an IOPOLL ring once */
	t_sleep_ms(100);
	ret = io_uring_enter(r->ring.ring_fd, 0, 0, IORING_ENTER_GETEVENTS,
			     NULL);
	if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
		t_die("ring %u: io_uring_enter(GETEVENTS) before exit: %s",
		      r->id, t_errname(ret));
	if (!io_uring_peek_cqe(&r->ring, &cqe))
		t_die("ring %u: a CQE (user_data %llu, res %s) after every command had completed (seed %" PRIu64 ")",
		      r->id, (unsigned long long)cqe->user_data,
		      t_res_str(cqe->res), seed);
}

/* ---- main ------------------------------------------------------------------ */

static void usage(void)
{
	fprintf(stderr,
		"usage: uring_fuzz [--seed S] [--count N] [--time SECS] [--timeout-ms MS]\n"
		"                  [--scratch /dev/nvmeXnY] [--failslab N] [--per-ring N]\n"
		"                  [--discard BLOCKDEV]... [--drain]\n"
		"                  [-v] TARGET...\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "time", required_argument, NULL, 't' },
		{ "timeout-ms", required_argument, NULL, 'T' },
		{ "scratch", required_argument, NULL, 'S' },
		{ "failslab", required_argument, NULL, 'F' },
		{ "per-ring", required_argument, NULL, 'R' },
		{ "discard", required_argument, NULL, 'd' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "drain", no_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long start, time_limit_ms = 0, last_report;
	unsigned long per_ring_max = 0;
	bool have_seed = false;
	const char *env;
	__u64 seq = 0;
	unsigned int epoch = 0;
	int c, i;

	while ((c = getopt_long(argc, argv, "s:n:t:T:S:F:R:d:vDh", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			have_seed = true;
			break;
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 't':
			time_limit_ms = strtoull(optarg, NULL, 0) * 1000;
			break;
		case 'T':
			timeout_ms = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			scratch_path = optarg;
			break;
		case 'F':
			failslab_count = strtoul(optarg, NULL, 0);
			break;
		case 'R':
			per_ring_max = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			if (ndestroy == MAX_DESTROY)
				t_die("--discard: at most %d devices", MAX_DESTROY);
			destroy_paths[ndestroy++] = optarg;
			break;
		case 'v':
			verbose = true;
			break;
		case 'D':
			drain = true;
			break;
		case 'h':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	env = getenv("TEST_CQE_TIMEOUT_MS");
	if (env && strtoul(env, NULL, 10) > timeout_ms)
		timeout_ms = strtoul(env, NULL, 10);
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003ULL ^ (uint64_t)ts.tv_nsec ^
		       ((uint64_t)getpid() << 32);
	}
	/* first line: the seed, so that a failing run can be repeated */
	t_info("seed %" PRIu64 " count %lu (repeat with --seed %" PRIu64 " --count %lu%s)",
	       seed, count, seed, count, failslab_count ? " --failslab N" : "");
	if (optind >= argc && !scratch_path && !ndestroy)
		t_skip("no TARGET given (block/char nodes or files; see tests/fuzz/README.md)");
	rng = seed;
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (scratch_path) {
		struct stat st;
		bool ctrl;

		if (stat(scratch_path, &st) ||
		    !(S_ISBLK(st.st_mode) || S_ISCHR(st.st_mode)))
			t_die("--scratch %s: not a block or char node", scratch_path);
		nvme_key(&st, scratch_key, sizeof(scratch_key), &ctrl);
		if (!scratch_key[0])
			t_die("--scratch %s: not an NVMe namespace", scratch_path);
		t_info("# scratch namespace %s: NVMe writes allowed there only",
		       scratch_key);
		open_path(scratch_path, false);
	}
	for (i = 0; i < (int)ndestroy; i++)
		open_path(destroy_paths[i], true);
	for (i = optind; i < argc; i++)
		open_path(argv[i], false);
	own_targets();
	if (!ntg)
		t_die("no target could be opened");
	for (i = 0; i < (int)ntg; i++) {
		if (tg[i].kind == TK_BLOCK && tg[i].rw && tg[i].discard_ok)
			destroyable[ndestroyable++] = i;
		t_info("# target %d: %s%s%s%s", i, tg[i].name,
		       tg[i].nvme_ns ? " (NVMe namespace)" : "",
		       tg[i].nvme_ctrl ? " (NVMe controller)" : "",
		       tg[i].kind != TK_BLOCK ? "" :
		       !tg[i].discards ? " (no discard)" :
		       tg[i].discard_ok ? " (discards)" :
		       tg[i].rw ? " (discards only through its read-only open)" :
		       "");
	}

	setup_memory();
	for (i = 0; i < MAX_BATCH; i++) {
		slots[i].iov = calloc(MAX_IOV, sizeof(struct iovec));
		if (!slots[i].iov)
			t_die("calloc: %m");
	}

	if (failslab_count)
		failslab_setup();
	start = last_report = t_now_ms();
	while (seq < count + failslab_count) {
		struct ring r;
		unsigned long per_ring = 100 + below(1400);

		if (per_ring_max && per_ring > per_ring_max)
			per_ring = per_ring_max;

		ring_setup(&r, (enum rkind)(epoch++ % R_NR));
		if (verbose)
			t_info("# ring %u: %s (%s), files %d, buffers %u",
			       r.id, rkind_names[r.kind], ring_flags_str(r.flags),
			       r.files, r.nbufs);
		while (per_ring && seq < count + failslab_count) {
			unsigned int n = 1 + below(MAX_BATCH);
			/* the --count commands, then the failslab ones */
			__u64 end = seq < count ? count : count + failslab_count;

			if (n > per_ring)
				n = per_ring;
			if (n > end - seq)
				n = end - seq;
			if (seq == count && !failslab_on) {
				failslab_on = true;
				t_info("# %llu commands done, %lu more under failslab",
				       (unsigned long long)seq, failslab_count);
			}
			run_batch(&r, seq, n);
			seq += n;
			per_ring -= n;
			if (t_now_ms() - last_report >= 30000) {
				last_report = t_now_ms();
				t_info("# %llu commands, %.0f/s", (unsigned long long)seq,
				       seq * 1000.0 / (last_report - start));
			}
			if (time_limit_ms && t_now_ms() - start >= time_limit_ms)
				break;
		}
		late_cqes(&r);
		io_uring_queue_exit(&r.ring);
		if (verbose)
			t_info("# ring %u done at %llu commands, %llu ms",
			       r.id, (unsigned long long)seq,
			       t_now_ms() - start);
		if (time_limit_ms && t_now_ms() - start >= time_limit_ms) {
			t_info("# time limit reached after %llu commands",
			       (unsigned long long)seq);
			break;
		}
	}
	if (failslab_count) {
		long injected = failslab_injected();

		failslab_off();
		t_info("failslab: %lu commands, %ld allocations failed, res -ENOMEM %lu, -EAGAIN %lu",
		       fs_cmds, injected, fs_enomem, fs_eagain);
		/* a phase that failed nothing tested nothing */
		if (fs_cmds && injected <= 0)
			t_error("failslab: %lu commands, no allocation failed (%s not live?)",
				fs_cmds, FAILSLAB_DIR);
	}
	summary(t_now_ms() - start);
	nvme_shares();
	/* every well-formed one must succeed; a long run without any did not test them */
	if (ndestroyable && count >= 5000 && !n_discards_done)
		t_error("no discard succeeded in %lu commands on %u devices it may destroy (seed %" PRIu64 ")",
			count, ndestroyable, seed);
	return t_result();
}
