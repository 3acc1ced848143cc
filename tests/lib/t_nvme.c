// SPDX-License-Identifier: GPL-2.0
/* NVMe helpers of the uringcmd in-guest tests; see t_nvme.h. */
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fs.h>
#include <nvme/util.h>

#include "t_nvme.h"

void *t_alloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len ? len : 1))
		t_die("posix_memalign(%zu): out of memory", len);
	memset(p, 0, len);
	return p;
}

/* /sys/block/@name/@attr as a number; 0 if missing. */
static __u64 sys_block_u64(const char *name, const char *attr)
{
	char path[PATH_MAX];
	__u64 v = 0;

	snprintf(path, sizeof(path), "/sys/block/%s/%s", name, attr);
	if (t_read_u64(path, &v))
		return 0;
	return v;
}

/*
 * Name of the controller behind block disk @name ("nvme0"), or "". A
 * multipath head's device is its subsystem (nvme-subsysN): take the first
 * live controller listed there. A deleted one stays listed until its last
 * reference goes, after its /dev node is gone.
 */
static void find_ctrl(const char *name, char *ctrl, size_t len, bool *head)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	const char *base;
	bool live = false;
	DIR *d;

	*head = false;
	ctrl[0] = '\0';
	snprintf(path, sizeof(path), "/sys/block/%s/device", name);
	if (!realpath(path, target))
		return;
	base = basename(target);
	if (strncmp(base, "nvme-subsys", 11)) {
		snprintf(ctrl, len, "%s", base);
		return;
	}
	*head = true;
	d = opendir(target);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char state[32] = "";
		unsigned int c;
		char end;
		bool l;

		if (sscanf(de->d_name, "nvme%u%c", &c, &end) != 1)
			continue;
		l = snprintf(path, sizeof(path), "%s/%s/state", target,
			     de->d_name) < (int)sizeof(path) &&
		    !t_read_file(path, state, sizeof(state)) &&
		    !strcmp(state, "live");
		/* a live one first, then the lowest name */
		if (!ctrl[0] || (l && !live) ||
		    (l == live && strcmp(de->d_name, ctrl) < 0)) {
			snprintf(ctrl, len, "%s", de->d_name);
			live = l;
		}
	}
	closedir(d);
}

void t_nvme_open(struct t_nvme *n, int argc, char **argv)
{
	const char *bdev = argc > 1 && argv[1][0] ? argv[1] :
			   t_env_or("TEST_NVME_DEV", "/dev/nvme0n1");
	char path[PATH_MAX], target[PATH_MAX], ctrl[NAME_MAX + 1];
	struct stat st;
	__u64 size;
	int id;

	memset(n, 0, sizeof(*n));
	n->bfd = n->cfd = -1;
	snprintf(n->bdev, sizeof(n->bdev), "%s", bdev);
	if (stat(n->bdev, &st)) {
		if (errno == ENOENT)
			t_skip("%s does not exist", n->bdev);
		t_die("stat %s: %m", n->bdev);
	}
	if (!S_ISBLK(st.st_mode))
		t_die("%s is not a block device", n->bdev);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(st.st_rdev),
		 minor(st.st_rdev));
	if (!realpath(path, target))
		t_die("realpath %s: %m", path);
	snprintf(n->name, sizeof(n->name), "%s", basename(target));
	if (strncmp(n->name, "nvme", 4))
		t_skip("%s (%s) is not an NVMe namespace", n->bdev, n->name);

	if (argc > 2 && argv[2][0])
		snprintf(n->chr, sizeof(n->chr), "%s", argv[2]);
	else if (getenv("TEST_NVME_CHAR") && *getenv("TEST_NVME_CHAR") &&
		 !(argc > 1 && argv[1][0]))
		snprintf(n->chr, sizeof(n->chr), "%s", getenv("TEST_NVME_CHAR"));
	else
		snprintf(n->chr, sizeof(n->chr), "/dev/ng%s", n->name + 4);

	find_ctrl(n->name, ctrl, sizeof(ctrl), &n->head);
	if (argc > 3 && argv[3][0])
		snprintf(n->ctrl, sizeof(n->ctrl), "%s", argv[3]);
	else if (ctrl[0])
		snprintf(n->ctrl, sizeof(n->ctrl), "/dev/%s", ctrl);
	else
		snprintf(n->ctrl, sizeof(n->ctrl), "%s",
			 t_env_or("TEST_NVME_CTRL", "/dev/nvme0"));

	n->bfd = open(n->bdev, O_RDWR | O_CLOEXEC);
	if (n->bfd < 0)
		t_die("open %s: %m", n->bdev);
	n->cfd = open(n->ctrl, O_RDWR | O_CLOEXEC);
	if (n->cfd < 0)
		t_die("open %s: %m", n->ctrl);

	id = ioctl(n->bfd, NVME_IOCTL_ID);
	if (id <= 0)
		t_die("ioctl(%s, NVME_IOCTL_ID): %d (%m)", n->bdev, id);
	n->nsid = (__u32)id;
	if (ioctl(n->bfd, BLKSSZGET, &id) || id <= 0)
		t_die("BLKSSZGET on %s: %m", n->bdev);
	n->lbs = (__u32)id;
	if (ioctl(n->bfd, BLKGETSIZE64, &size))
		t_die("BLKGETSIZE64 on %s: %m", n->bdev);
	n->nlb = size / n->lbs;
	n->max_bytes = (__u32)sys_block_u64(n->name,
					    "queue/max_hw_sectors_kb") * 1024;
	t_info("%s: nsid %u, %llu blocks of %u bytes, max transfer %u, ctrl %s, char %s%s",
	       n->bdev, n->nsid, (unsigned long long)n->nlb, n->lbs,
	       n->max_bytes, n->ctrl, n->chr, n->head ? ", multipath head" : "");
}

void t_nvme_close(struct t_nvme *n)
{
	if (n->bfd >= 0)
		close(n->bfd);
	if (n->cfd >= 0)
		close(n->cfd);
	n->bfd = n->cfd = -1;
}

int t_nvme_ioctl(int fd, unsigned long req, const struct nvme_uring_cmd *c,
		 __u32 *result)
{
	struct nvme_passthru_cmd p;
	int ret;

	uringcmd_nvme_to_passthru(c, &p);
	ret = ioctl(fd, req, &p);
	if (ret < 0)
		return -errno;
	if (result)
		*result = p.result;
	return ret;
}

int t_nvme_ring(struct io_uring *ring, unsigned int entries,
		unsigned int flags)
{
	return uringcmd_nvme_queue_init(entries, ring, flags);
}

void t_nvme_prep(struct io_uring *ring, struct io_uring_sqe *sqe, int fd,
		 __u32 cmd_op, const struct nvme_uring_cmd *c,
		 __u64 user_data)
{
	/* uringcmd_prep_nvme() writes all 80 bytes of an SQE128's cmd */
	if (!(ring->flags & IORING_SETUP_SQE128))
		t_die("NVMe passthrough needs an IORING_SETUP_SQE128 ring");
	uringcmd_prep_nvme(sqe, fd, cmd_op, c);
	sqe->user_data = user_data;
}

int t_nvme_cmd(struct io_uring *ring, int fd, __u32 cmd_op,
	       const struct nvme_uring_cmd *c, __u8 sqe_flags,
	       struct t_cqe *out)
{
	/* a user_data of its own for each command: a late duplicate of an
	 * earlier completion cannot pass for this one's */
	static __u64 seq;
	__u64 want = 0x5157000000000000ULL | ++seq;
	struct io_uring_sqe *sqe = t_get_sqe(ring);
	int ret;

	t_nvme_prep(ring, sqe, fd, cmd_op, c, want);
	sqe->flags = sqe_flags;
	ret = t_submit_wait_one(ring, out, T_NVME_TIMEOUT_MS);
	if (ret) {
		t_error("opcode %#x (cmd_op %#x): no completion: %s", c->opcode,
			cmd_op, t_res_str(ret));
	} else if (out->user_data != want) {
		t_error("opcode %#x: completion with user_data %#llx, not %#llx",
			c->opcode, (unsigned long long)out->user_data,
			(unsigned long long)want);
	} else if (!t_cq_empty(ring)) {
		t_error("opcode %#x: a second completion after user_data %#llx's",
			c->opcode, (unsigned long long)want);
	}
	return ret;
}

/* t_nvme_submit_mixed() with reads of @len bytes, @bufs holding nr * len */
/* the last batch submit_mixed_len() sent, for t_nvme_reap_judged() */
static struct {
	unsigned char	*bufs;
	unsigned int	nr, len;
	bool		admin;
	unsigned long long submitted_ms;	/* io_uring_submit() called */
} last;

unsigned long long t_nvme_submitted_ms(void)
{
	return last.submitted_ms;
}

static int submit_mixed_len(struct io_uring *ring, const struct t_nvme *n,
			    unsigned char *bufs, unsigned int nr, bool admin,
			    unsigned int len)
{
	unsigned int i;
	int ret;

	/* poisoned: a command that moved no data cannot pass for one that did */
	memset(bufs, 0xa5, (size_t)nr * len);
	last.bufs = bufs;
	last.nr = nr;
	last.len = len;
	last.admin = admin;
	for (i = 0; i < nr; i++) {
		struct io_uring_sqe *sqe = t_get_sqe(ring);
		unsigned char *b = bufs + (size_t)i * len;
		struct nvme_uring_cmd c;

		if (admin && i % 8 == 7) {
			uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, b);
			t_nvme_prep(ring, sqe, n->bfd, NVME_URING_CMD_ADMIN, &c, i);
		} else {
			uringcmd_nvme_rw(&c, nvme_cmd_read, n->nsid, b, len,
				  (__u64)i * (len / n->lbs), len / n->lbs);
			t_nvme_prep(ring, sqe, n->bfd, NVME_URING_CMD_IO, &c, i);
		}
	}
	/*
	 * Before, not after: a clock read between the submission and the
	 * count (a syscall where the guest's clocksource has no vDSO, on the
	 * debug kernel under TCG) let every command complete first.
	 */
	last.submitted_ms = t_now_ms();
	ret = io_uring_submit(ring);
	return ret;
}

int t_nvme_submit_mixed(struct io_uring *ring, const struct t_nvme *n,
			unsigned char *bufs, unsigned int nr, bool admin)
{
	return submit_mixed_len(ring, n, bufs, nr, admin, 4096);
}

unsigned int t_nvme_outstanding(struct io_uring *ring, unsigned int nr)
{
	unsigned int ready;

	io_uring_enter(ring->ring_fd, 0, 0, IORING_ENTER_GETEVENTS, NULL);
	ready = io_uring_cq_ready(ring);
	return ready < nr ? nr - ready : 0;
}

/*
 * The read size of try @i of t_nvme_submit_overlapping(): 4 times the last
 * try's (up to 1 MiB or the transfer limit, whichever is less, and what
 * fits the namespace), and after the largest 4 KiB again. A transport that
 * completes small reads before the next syscall (nvmet over loop) gets a
 * window from larger ones, and a kernel whose submission of large reads
 * outlasts the device (KASAN under TCG) from smaller ones.
 */
static unsigned int overlap_len(const struct t_nvme *n, unsigned int nr,
				unsigned int i)
{
	unsigned int cap = 1024 * 1024, len = 4096u << (2 * (i % 5));

	if (n->max_bytes && n->max_bytes < cap)
		cap = n->max_bytes;
	cap -= cap % n->lbs;
	if (len > cap)
		len = cap;
	if (len < 4096 || len % n->lbs || (__u64)nr * len > n->nlb * n->lbs)
		len = 4096;
	return len;
}

unsigned int t_nvme_submit_overlapping(struct io_uring *ring,
				       const struct t_nvme *n,
				       unsigned char *bufs, unsigned int nr,
				       bool admin, unsigned int tries)
{
	static unsigned char *big;
	static size_t big_len;
	struct t_nvme_tally t;
	unsigned int out = 0, i, len;
	int ret;

	for (i = 0; i < tries; i++) {
		unsigned char *b = bufs;

		len = overlap_len(n, nr, i);
		if (len > 4096) {
			if ((size_t)nr * len > big_len) {
				free(big);
				big_len = (size_t)nr * len;
				big = t_alloc(big_len);
			}
			b = big;
		}
		ret = submit_mixed_len(ring, n, b, nr, admin, len);
		if (ret != (int)nr)
			t_die("submitted %d of %u commands", ret, nr);
		out = t_nvme_outstanding(ring, nr);
		if (out) {
			if (len > 4096)
				t_info("%u of %u commands in flight with %u-byte reads",
				       out, nr, len);
			break;
		}
		if (i + 1 == tries)
			break;
		/* all done already: the fault would hit nothing */
		if (!t_nvme_reap(ring, nr, &t))
			t_die("%u commands without a fault: only %u completed",
			      nr, t.done);
	}
	return out;
}

bool t_nvme_reap(struct io_uring *ring, unsigned int nr,
		 struct t_nvme_tally *t)
{
	bool *seen = calloc(nr, sizeof(*seen));
	bool ok = true;
	struct t_cqe cqe;

	if (!seen)
		t_die("calloc: %m");
	memset(t, 0, sizeof(*t));
	for (t->done = 0; t->done < nr; t->done++) {
		if (t_wait_cqe(ring, &cqe, T_NVME_TIMEOUT_MS)) {
			ok = false;
			break;
		}
		/* matched, not counted: each of 0..nr-1 exactly once */
		if (cqe.user_data >= nr || seen[cqe.user_data]) {
			t_error("completion %u of %u: user_data %llu %s", t->done + 1,
				nr, (unsigned long long)cqe.user_data,
				cqe.user_data >= nr ? "was never submitted" :
				"completed twice");
			ok = false;
			break;
		}
		seen[cqe.user_data] = true;
		if (!cqe.res)
			t->ok++;
		else if (cqe.res > 0)
			t->status++;
		else
			t->err++;
	}
	if (ok && !t_cq_empty(ring)) {
		t_error("a completion beyond the %u submitted", nr);
		ok = false;
	}
	free(seen);
	return ok;
}

/* ---- judging commands a fault met ----------------------------------------- */

#define STAMP		4096
#define ID_LEN		72	/* vid, ssvid, sn, mn, fr: alike on every path */

static unsigned char judge_id[ID_LEN];
static __u64 judge_bytes;	/* stamped from byte 0 */

static void stamp(unsigned char *b, __u64 blk)
{
	t_fill_pattern(b, STAMP, 0x57a70000u ^ (unsigned int)blk);
	memcpy(b, &blk, sizeof(blk));
}

void t_nvme_judge_setup(const struct t_nvme *n, unsigned int nr)
{
	unsigned char *b, *id = t_alloc(4096);
	struct nvme_uring_cmd c;
	unsigned int i, len;
	size_t chunk;
	__u64 off, k;
	int fd, ret;

	judge_bytes = 0;
	for (i = 0; i < 5; i++) {
		len = overlap_len(n, nr, i);
		if ((__u64)nr * len > judge_bytes)
			judge_bytes = (__u64)nr * len;
	}
	/* one write of it all where it fits: a slow device takes it in parallel */
	chunk = judge_bytes < 64 * 1024 * 1024 ? judge_bytes : 64 * 1024 * 1024;
	b = t_alloc(chunk);
	fd = open(n->bdev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s O_DIRECT: %m", n->bdev);
	for (off = 0; off < judge_bytes; off += chunk) {
		size_t l = judge_bytes - off < chunk ? judge_bytes - off : chunk;

		for (k = 0; k < l / STAMP; k++)
			stamp(b + k * STAMP, off / STAMP + k);
		if (pwrite(fd, b, l, off) != (ssize_t)l)
			t_die("stamping %s at %llu: %m", n->bdev,
			      (unsigned long long)off);
	}
	if (fsync(fd))
		t_die("fsync %s: %m", n->bdev);
	close(fd);
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, id);
	ret = t_nvme_ioctl(n->bfd, NVME_IOCTL_ADMIN_CMD, &c, NULL);
	if (ret)
		t_die("Identify Controller on %s: %s", n->bdev,
		      t_nvme_res_str(ret));
	memcpy(judge_id, id, ID_LEN);
	free(b);
	free(id);
}

/* NULL if command @i's successful result holds what it must, else why */
static const char *judge_data(unsigned int i)
{
	static unsigned char want[STAMP];
	const unsigned char *got = last.bufs + (size_t)i * last.len;
	__u64 k, first = (__u64)i * last.len / STAMP;

	if (last.admin && i % 8 == 7)
		return memcmp(got, judge_id, ID_LEN) ?
		       "Identify data differ from the controller's" : NULL;
	if ((__u64)(i + 1) * last.len > judge_bytes)
		return "a read beyond the stamped blocks (t_nvme_judge_setup)";
	for (k = 0; k < last.len / STAMP; k++) {
		stamp(want, first + k);
		if (memcmp(got + k * STAMP, want, STAMP))
			return "read data differ from the blocks' stamps";
	}
	return NULL;
}

/* @res (an NVMe status) is @want, or of its type for T_NVME_SCT_ANY() */
static bool status_in(int res, int want)
{
	if ((want & 0xff) == 0xff)
		return (res & 0x700) == (want & 0x700);
	return (res & 0x7ff) == want;
}

bool t_nvme_reap_judged(struct io_uring *ring, const char *what,
			const int *allowed, struct t_nvme_tally *t)
{
	bool *seen = calloc(last.nr, sizeof(*seen));
	unsigned int bad = 0;
	bool ok = true;
	struct t_cqe cqe;

	if (!seen)
		t_die("calloc: %m");
	memset(t, 0, sizeof(*t));
	for (t->done = 0; t->done < last.nr; t->done++) {
		const char *why = NULL;
		unsigned int i;
		const int *a;

		if (t_wait_cqe(ring, &cqe, T_NVME_TIMEOUT_MS)) {
			ok = false;
			break;
		}
		if (cqe.user_data >= last.nr || seen[cqe.user_data]) {
			t_error("%s: completion %u of %u: user_data %llu %s", what,
				t->done + 1, last.nr,
				(unsigned long long)cqe.user_data,
				cqe.user_data >= last.nr ? "was never submitted" :
				"completed twice");
			ok = false;
			break;
		}
		i = cqe.user_data;
		seen[i] = true;
		if (!cqe.res) {
			t->ok++;
			why = judge_data(i);
		} else {
			if (cqe.res > 0)
				t->status++;
			else
				t->err++;
			for (a = allowed; *a; a++)
				if (cqe.res > 0 ? *a > 0 && status_in(cqe.res, *a) :
				    cqe.res == *a)
					break;
			if (!*a)
				why = "not a result this fault may give";
		}
		if (why && bad++ < 4)
			t_error("%s: %s %u: %s: %s", what,
				last.admin && i % 8 == 7 ? "Identify" : "read", i,
				t_nvme_res_str(cqe.res), why);
	}
	if (bad > 4)
		t_error("%s: %u more commands judged wrong", what, bad - 4);
	if (ok && !t_cq_empty(ring)) {
		t_error("%s: a completion beyond the %u submitted", what, last.nr);
		ok = false;
	}
	free(seen);
	return ok && !bad;
}

const char *t_nvme_res_str(int res)
{
	static char bufs[4][160];
	static unsigned int next;
	char *b = bufs[next++ % 4];

	if (res <= 0)
		return t_res_str(res);
	/* the -m32 builds (URINGCMD_NO_LIBNVME) print the number only */
	return uringcmd_nvme_res_str(res, b, sizeof(bufs[0]));
}

bool t_nvme_is_status(int res, unsigned int sc)
{
	return uringcmd_nvme_res_is_status(res, NVME_SCT_GENERIC, sc);
}

bool t_compare(const char *what, const void *got, const void *want,
	       size_t len)
{
	long off = t_memcmp_off(got, want, len);

	if (off >= 0) {
		t_error("%s: differs at byte %ld: %#04x, expected %#04x", what,
			off, ((const unsigned char *)got)[off],
			((const unsigned char *)want)[off]);
		return false;
	}
	t_info("%s: %zu bytes equal", what, len);
	return true;
}

static const char *qmp_dir(void)
{
	static char dir[PATH_MAX - 128];

	snprintf(dir, sizeof(dir), "%s/qmp", t_env_or("UC_RESULTS", "/run/results"));
	return dir;
}

bool t_qmp_available(void)
{
	return !access(qmp_dir(), W_OK);
}

const char *t_qmp(const char *json)
{
	static char resp[4096];
	static unsigned int seq;
	char req[PATH_MAX], tmp[PATH_MAX + 8], out[PATH_MAX];
	unsigned long long end;
	FILE *f;

	snprintf(req, sizeof(req), "%s/req.%d.%u", qmp_dir(), getpid(), seq);
	snprintf(tmp, sizeof(tmp), "%s.tmp", req);
	snprintf(out, sizeof(out), "%s/resp.%d.%u", qmp_dir(), getpid(), seq++);
	f = fopen(tmp, "w");
	if (!f) {
		t_info("no QMP agent (%s: %m)", tmp);
		return NULL;
	}
	fputs(json, f);
	if (fclose(f) || rename(tmp, req)) {
		t_info("cannot write %s: %m", req);
		return NULL;
	}
	end = t_now_ms() + T_NVME_TIMEOUT_MS;
	while (t_now_ms() < end) {
		if (!t_read_file(out, resp, sizeof(resp))) {
			unlink(out);
			return resp;
		}
		t_sleep_ms(50);
	}
	t_info("no answer to QMP %s", json);
	return NULL;
}

int t_nvme_ioctl64(int fd, unsigned long req, const struct nvme_uring_cmd *c,
		   __u64 *result)
{
	struct nvme_passthru_cmd64 p;
	int ret;

	uringcmd_nvme_to_passthru64(c, &p);
	ret = ioctl(fd, req, &p);
	if (ret < 0)
		return -errno;
	if (result)
		*result = p.result;
	return ret;
}

const char *const t_path_names[T_NR_PATHS] = {
	[T_PATH_BDEV]	= "uring_cmd on the block node",
	[T_PATH_CHAR]	= "uring_cmd on ng",
	[T_PATH_IOCTL]	= "NVME_IOCTL_IO64_CMD",
};

const struct t_nvme_way t_nvme_ways[T_NVME_NR_WAYS] = {
	{ "block node", T_PATH_BDEV, 0, false },
	{ "block node, IOSQE_ASYNC", T_PATH_BDEV, IOSQE_ASYNC, false },
	{ "block node, polled", T_PATH_BDEV, 0, true },
	{ "ng", T_PATH_CHAR, 0, false },
	{ "ng, polled", T_PATH_CHAR, 0, true },
	{ "NVME_IOCTL_IO64_CMD", T_PATH_IOCTL, 0, false },
};

int t_nvme_io_path(struct io_uring *ring, enum t_nvme_path path, int bfd,
		   int cfd, const struct nvme_uring_cmd *c, __u8 sqe_flags,
		   __u64 *result)
{
	struct t_cqe cqe;

	if (path == T_PATH_IOCTL)
		return t_nvme_ioctl64(bfd, NVME_IOCTL_IO64_CMD, c, result);
	if (t_nvme_cmd(ring, path == T_PATH_BDEV ? bfd : cfd,
		       NVME_URING_CMD_IO, c, sqe_flags, &cqe))
		return -ETIME;
	if (result)
		*result = cqe.big[0];
	return cqe.res;
}

static int fmt_cmp(const void *a, const void *b)
{
	const struct t_nvme_fmt *x = a, *y = b;

	return x->nsid < y->nsid ? -1 : x->nsid > y->nsid;
}

/*
 * The folder that holds the block nodes of controller @cname's namespaces:
 * /sys/class/nvme/@cname, or, where they are multipath heads (the
 * controller holds only nvme0c0n1-style paths), its subsystem's folder
 * in /sys/class/nvme-subsystem, whose entries include the controller.
 * *@heads tells which.
 */
static void ns_dir(const char *cname, char *dir, size_t len, bool *heads)
{
	char path[PATH_MAX + NAME_MAX + 2];
	unsigned int a, b, c;
	struct dirent *de;
	bool paths = false;
	DIR *d;

	*heads = false;
	snprintf(dir, len, "/sys/class/nvme/%s", cname);
	d = opendir(dir);
	if (!d)
		t_die("opendir %s: %m", dir);
	while ((de = readdir(d)))
		paths |= sscanf(de->d_name, "nvme%uc%un%u", &a, &b, &c) == 3;
	closedir(d);
	if (!paths)
		return;
	d = opendir("/sys/class/nvme-subsystem");
	if (!d)
		t_die("opendir /sys/class/nvme-subsystem: %m");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme-subsystem/%s/%s",
			 de->d_name, cname);
		if (!access(path, F_OK)) {
			snprintf(dir, len, "/sys/class/nvme-subsystem/%s",
				 de->d_name);
			*heads = true;
			break;
		}
	}
	closedir(d);
	if (!*heads)
		t_die("%s has multipath namespaces but no subsystem in /sys/class/nvme-subsystem",
		      cname);
}

unsigned int t_nvme_formats(const char *ctrl, struct t_nvme_fmt *out,
			    unsigned int max)
{
	const char *cname = strrchr(ctrl, '/') ? strrchr(ctrl, '/') + 1 : ctrl;
	struct nvme_id_ns *id = t_alloc(NVME_IDENTIFY_DATA_SIZE);
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 16], buf[64];
	unsigned int nr = 0, ctrl_nr;
	struct nvme_uring_cmd c;
	struct dirent *de;
	bool heads;
	DIR *d;
	int fd, ret;

	if (sscanf(cname, "nvme%u", &ctrl_nr) != 1)
		t_die("%s is not an NVMe controller", ctrl);
	fd = open(ctrl, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s: %m", ctrl);
	ns_dir(cname, dir, sizeof(dir), &heads);
	d = opendir(dir);
	if (!d)
		t_die("opendir %s: %m", dir);
	while ((de = readdir(d)) && nr < max) {
		struct t_nvme_fmt *f = &out[nr];
		unsigned int cn, ns;
		__u64 v;
		char end;

		/* nvme0n3, not the nvme0c0n3 path of a multipath head */
		if (sscanf(de->d_name, "nvme%un%u%c", &cn, &ns, &end) != 2 ||
		    (!heads && cn != ctrl_nr))
			continue;
		/* a head with a path through this controller */
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/nvme%uc%un%u",
			 cname, cn, ctrl_nr, ns);
		if (heads && access(path, F_OK))
			continue;
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", de->d_name);
		snprintf(f->bdev, sizeof(f->bdev), "/dev/%s", f->name);
		snprintf(f->chr, sizeof(f->chr), "/dev/ng%s", f->name + 4);
		snprintf(path, sizeof(path), "%s/%s/nsid", dir, f->name);
		if (t_read_u64(path, &v))
			t_die("read %s: %m", path);
		f->nsid = (__u32)v;
		snprintf(path, sizeof(path), "%s/%s/size", dir, f->name);
		if (!t_read_u64(path, &v))
			f->bdev_bytes = v * 512;
		snprintf(path, sizeof(path), "%s/%s/queue/zoned", dir, f->name);
		f->zoned = !t_read_file(path, buf, sizeof(buf)) &&
			   strcmp(buf, "none");

		uringcmd_nvme_identify(&c, f->nsid, NVME_IDENTIFY_CNS_NS, id);
		ret = t_nvme_ioctl(fd, NVME_IOCTL_ADMIN_CMD, &c, NULL);
		if (ret)
			t_die("Identify Namespace %u on %s: %s", f->nsid, ctrl,
			      t_nvme_res_str(ret));
		f->lbs = 1u << uringcmd_nvme_ns_lba_shift(id);
		f->ms = uringcmd_nvme_ns_ms(id);
		f->ext = uringcmd_nvme_ns_extended(id);
		f->pi = id->dps & NVME_NS_DPS_PI_MASK;
		f->pi_first = id->dps & NVME_NS_DPS_PI_FIRST;
		f->nsze = le64toh(id->nsze);
		nr++;
	}
	closedir(d);
	close(fd);
	free(id);
	qsort(out, nr, sizeof(*out), fmt_cmp);
	return nr;
}

const char *t_nvme_fmt_str(const struct t_nvme_fmt *f)
{
	static char bufs[4][128];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	int len;

	len = snprintf(b, sizeof(bufs[0]), "%s (nsid %u, %u", f->name,
		       f->nsid, f->lbs);
	if (f->ms)
		len += snprintf(b + len, sizeof(bufs[0]) - len, "+%u %s",
				f->ms, f->ext ? "extended" : "separate");
	if (f->pi)
		len += snprintf(b + len, sizeof(bufs[0]) - len, ", PI type %u%s",
				f->pi, f->pi_first ? " first" : "");
	if (f->zoned)
		len += snprintf(b + len, sizeof(bufs[0]) - len, ", zoned");
	snprintf(b + len, sizeof(bufs[0]) - len, ")");
	return b;
}
