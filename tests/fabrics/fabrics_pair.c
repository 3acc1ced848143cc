// SPDX-License-Identifier: GPL-2.0
/* Description: passthrough on the head of a remote nvme-tcp namespace (another guest) while the target is paused, stopped, killed and rebooted or one link goes down: each command in flight ends once with a defined result, acknowledged data reads back, the host reconnects within ctrl_loss_tmo */
/*
 * Usage: fabrics_pair HEADDEV pause|stop|link|kill
 *
 * Run by tests/run.sh in the host guest of qemu/run-pair.sh (tests/pair.sh
 * host), on the multipath head of the target guest's namespace, reached
 * over two nvme-tcp controllers (two links), round-robin between them.
 * Environment (tests/pair.sh sets it):
 *   TEST_PAIR_TARGET        the target's results folder: its QMP agent
 *                           reads requests in qmp/ (run-nvme.sh --qmp-agent)
 *   TEST_PAIR_CTL           where run-pair.sh takes "kill" requests
 *   TEST_PAIR_CTRL_LOSS_TMO the controllers' ctrl_loss_tmo, seconds
 *   TEST_PAIR_NQN           the subsystem's NQN
 *   UC_RESULTS              this guest's results folder: its own QMP agent
 *                           (set_link) reads qmp/ there
 *
 * Before the fault, a read area and a write area of the namespace are
 * stamped with pwrite(O_DIRECT) and fsync (written and flushed). Then QD
 * commands are kept in flight on one ring: 16 KiB reads of the read area,
 * 16 KiB writes with FUA (durable once acknowledged) of blocks of the write
 * area not written before in this run, and one in eight an Identify
 * Controller, drawn at random. The fault is asked for while they run;
 * once QEMU (or run-pair.sh) answers it has happened, the commands not
 * completed are counted, the load goes on for SETTLE_MS (commands routed
 * to a lost link or a stopped target stay there, the others are
 * replaced), and those in flight then are counted again and judged (none
 * fails the test); no more are submitted:
 *   pause  target QEMU stopped 2 s (shorter than the 5 s keep-alive), cont
 *   stop   target QEMU stopped 12 s (the host's keep-alive expires and it
 *          resets both controllers), cont
 *   link   the host's second NIC down 10 s (QMP set_link), up
 *   kill   target QEMU SIGKILLed; run-pair.sh boots it again on the same
 *          drive image, and the host reconnects
 * Every command must complete exactly once within ctrl_loss_tmo plus a
 * minute, with 0 (a read with its stamps, an Identify with the
 * controller's serial, model and firmware) or what a lost path may give
 * (io_uring_cmd.rst; drivers-nvme 22): -EINTR (cancelled by the reset),
 * an NVMe Path Related Status, or -EBUSY (issued while no path was
 * usable). Both controllers must be live again within ctrl_loss_tmo of the
 * fault. Then the areas are read back with pread(O_DIRECT): the read area
 * and every unwritten block as stamped, every acknowledged write's blocks
 * with its data, a failed write's blocks either; and QD more commands must
 * all succeed. The kernel log is judged by run.sh.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_nvme.h"

#define QD		32
#define CHUNK		(16 * 1024)		/* bytes per read or write */
#define BLK		4096			/* stamp unit */
#define BLKS		(CHUNK / BLK)
#define READ_CHUNKS	256			/* 4 MiB read area, from 0 */
#define WRITE_CHUNKS	512			/* 8 MiB write area after it */
#define WRITE_BASE	((__u64)READ_CHUNKS * CHUNK)
#define AREA_BYTES	(WRITE_BASE + (__u64)WRITE_CHUNKS * CHUNK)
#define ID_LEN		72	/* Identify: vid, ssvid, sn, mn, fr */
#define MAX_CTRLS	4
#define SETTLE_MS	500	/* the load goes on that long after the fault */

enum kind { K_READ, K_WRITE, K_IDENT };
/* a write chunk: its old stamp, a write of it in flight, acknowledged, failed */
enum wstate { W_OLD, W_PENDING, W_ACKED, W_FAILED };

struct slot {
	bool		busy;
	bool		at_fault;	/* in flight when the fault happened */
	enum kind	kind;
	unsigned int	chunk;
	__u64		seq;
	unsigned char	*buf;
};

/* how a set of commands ended */
struct tally {
	unsigned int	ok, status, eintr, ebusy, other;
	int		first_status;
};

static struct t_nvme n;
static struct io_uring ring;
static struct slot slots[QD];
static enum wstate wst[WRITE_CHUNKS];
static unsigned int next_write, next_read;
static unsigned int seed;
static unsigned char id_want[ID_LEN];
static __u64 next_seq = 1;
static unsigned int submitted, bad;
static struct tally all, met;
static bool refill;
static const char *nqn;
static char ctrls[MAX_CTRLS][NAME_MAX + 1];
static unsigned int nr_ctrls;
static bool went_down;

/* block @blk's stamp: its number, the writer (0: old, 1: new), a pattern */
static void stamp(unsigned char *b, __u64 blk, unsigned int gen)
{
	t_fill_pattern(b, BLK, seed ^ (unsigned int)blk ^ (gen ? 0x5eed0000u : 0));
	memcpy(b, &blk, sizeof(blk));
	memcpy(b + 8, &gen, sizeof(gen));
}

static void stamp_chunk(unsigned char *b, __u64 off, unsigned int gen)
{
	unsigned int k;

	for (k = 0; k < BLKS; k++)
		stamp(b + k * BLK, off / BLK + k, gen);
}

/* ---- the controllers of the subsystem ---------------------------------- */

static void find_ctrls(void)
{
	char path[PATH_MAX], val[256];
	struct dirent *de;
	DIR *d = opendir("/sys/class/nvme");

	if (!d)
		t_die("opendir /sys/class/nvme: %m");
	while ((de = readdir(d)) && nr_ctrls < MAX_CTRLS) {
		if (strncmp(de->d_name, "nvme", 4))
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/subsysnqn", de->d_name);
		if (t_read_file(path, val, sizeof(val)) || strcmp(val, nqn))
			continue;
		snprintf(ctrls[nr_ctrls++], NAME_MAX + 1, "%s", de->d_name);
	}
	closedir(d);
}

/* how many of the controllers are live; went_down once one was not */
static unsigned int live_ctrls(void)
{
	char path[PATH_MAX], val[64];
	unsigned int i, live = 0;

	for (i = 0; i < nr_ctrls; i++) {
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/state", ctrls[i]);
		if (!t_read_file(path, val, sizeof(val)) && !strcmp(val, "live"))
			live++;
	}
	if (live < nr_ctrls)
		went_down = true;
	return live;
}

/*
 * The subsystem's I/O policy (its iopolicy attribute) set to @policy; the
 * one it had into @old if @old. Round-robin for the faults, so that both
 * paths carry commands and losing one meets some; the block-node tests
 * before ran on numa's one path, as nvme_bdev_admin's comparisons want.
 */
static void set_iopolicy(const char *policy, char *old, size_t len)
{
	char path[PATH_MAX], val[256];
	struct dirent *de;
	DIR *d = opendir("/sys/class/nvme-subsystem");
	FILE *f;

	if (!d)
		t_die("opendir /sys/class/nvme-subsystem: %m");
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/class/nvme-subsystem/%s/subsysnqn",
			 de->d_name);
		if (t_read_file(path, val, sizeof(val)) || strcmp(val, nqn))
			continue;
		snprintf(path, sizeof(path), "/sys/class/nvme-subsystem/%s/iopolicy",
			 de->d_name);
		if (old && t_read_file(path, old, len))
			t_die("%s: %m", path);
		f = fopen(path, "w");
		if (!f || fputs(policy, f) < 0 || fclose(f))
			t_die("writing %s to %s: %m", policy, path);
		closedir(d);
		return;
	}
	t_die("no subsystem %s in /sys/class/nvme-subsystem", nqn);
}

static const char *ctrl_states(void)
{
	static char out[256];
	char path[PATH_MAX], val[64];
	size_t len = 0;
	unsigned int i;

	out[0] = 0;
	for (i = 0; i < nr_ctrls; i++) {
		snprintf(path, sizeof(path), "/sys/class/nvme/%s/state", ctrls[i]);
		if (t_read_file(path, val, sizeof(val)))
			snprintf(val, sizeof(val), "gone");
		len += snprintf(out + len, sizeof(out) - len, "%s%s %s",
				i ? ", " : "", ctrls[i], val);
		if (len >= sizeof(out))
			break;
	}
	return out;
}

/* ---- the load ---------------------------------------------------------- */

/* xorshift32 from the run's seed: which kind of command comes next */
static unsigned int pick(void)
{
	static unsigned int x;

	if (!x)
		x = seed | 1;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

static void submit_slot(unsigned int i)
{
	struct slot *s = &slots[i];
	struct io_uring_sqe *sqe = t_get_sqe(&ring);
	struct nvme_uring_cmd c;
	__u64 off;
	unsigned int r = pick();

	s->seq = next_seq++;
	s->busy = true;
	s->at_fault = false;
	/*
	 * One in eight an Identify, of the rest half writes while fresh
	 * chunks last: drawn, not by turns, as the head's round-robin
	 * alternates the paths by turns too, and every Identify (and every
	 * write) would go down the same path
	 */
	if (r % 8 == 7) {
		s->kind = K_IDENT;
	} else if (r / 8 % 2 && next_write < WRITE_CHUNKS) {
		s->kind = K_WRITE;
		s->chunk = next_write++;
	} else {
		s->kind = K_READ;
		s->chunk = next_read++ % READ_CHUNKS;
	}
	submitted++;
	switch (s->kind) {
	case K_IDENT:
		memset(s->buf, 0xa5, CHUNK);
		uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, s->buf);
		t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_ADMIN, &c,
			    s->seq << 8 | i);
		return;
	case K_WRITE:
		off = WRITE_BASE + (__u64)s->chunk * CHUNK;
		stamp_chunk(s->buf, off, 1);
		wst[s->chunk] = W_PENDING;
		uringcmd_nvme_rw(&c, nvme_cmd_write, n.nsid, s->buf, CHUNK,
				 off / n.lbs, CHUNK / n.lbs);
		c.cdw12 |= 1u << 30;	/* FUA: acknowledged means durable */
		break;
	case K_READ:
		off = (__u64)s->chunk * CHUNK;
		memset(s->buf, 0xa5, CHUNK);
		uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, s->buf, CHUNK,
				 off / n.lbs, CHUNK / n.lbs);
		break;
	}
	t_nvme_prep(&ring, sqe, n.bfd, NVME_URING_CMD_IO, &c, s->seq << 8 | i);
}

static const char *kind_name(enum kind k)
{
	return k == K_IDENT ? "Identify" : k == K_WRITE ? "write" : "read";
}

/* NULL if a successful command's data are what they must be */
static const char *judge_ok(const struct slot *s)
{
	static unsigned char want[CHUNK];

	switch (s->kind) {
	case K_IDENT:
		return memcmp(s->buf, id_want, ID_LEN) ?
		       "Identify data differ from the controller's" : NULL;
	case K_WRITE:
		wst[s->chunk] = W_ACKED;
		return NULL;
	case K_READ:
		stamp_chunk(want, (__u64)s->chunk * CHUNK, 0);
		return memcmp(s->buf, want, CHUNK) ?
		       "read data differ from the blocks' stamps" : NULL;
	}
	return NULL;
}

static void count(struct tally *t, int res)
{
	if (!res) {
		t->ok++;
	} else if (res > 0) {
		if (!t->status++)
			t->first_status = res;
	} else if (res == -EINTR) {
		t->eintr++;
	} else if (res == -EBUSY) {
		t->ebusy++;
	} else {
		t->other++;
	}
}

static void complete(const struct io_uring_cqe *cqe)
{
	unsigned int i = cqe->user_data & 0xff;
	struct slot *s = &slots[i];
	const char *why = NULL;

	if (i >= QD || !s->busy || s->seq != cqe->user_data >> 8) {
		t_error("a completion of no command in flight: user_data %#llx (res %s)",
			(unsigned long long)cqe->user_data,
			t_nvme_res_str(cqe->res));
		bad++;
		return;
	}
	s->busy = false;
	count(&all, cqe->res);
	if (s->at_fault)
		count(&met, cqe->res);
	if (!cqe->res) {
		why = judge_ok(s);
	} else {
		/* a lost path's results (io_uring_cmd.rst, drivers-nvme 22) */
		if (!((cqe->res > 0 && (cqe->res & 0x700) == NVME_SCT_PATH << NVME_SCT_SHIFT) ||
		      cqe->res == -EINTR || cqe->res == -EBUSY))
			why = "not a result a lost path may give";
		if (s->kind == K_WRITE)
			wst[s->chunk] = W_FAILED;
	}
	if (why && bad++ < 4)
		t_error("%s %llu: %s: %s", kind_name(s->kind),
			(unsigned long long)s->seq, t_nvme_res_str(cqe->res), why);
}

static unsigned int busy(void)
{
	unsigned int i, nr = 0;

	for (i = 0; i < QD; i++)
		nr += slots[i].busy;
	return nr;
}

/*
 * Reap what has completed (waiting up to @wait_ms for the first), and with
 * refill set submit a new command in each freed slot.
 */
static void pump(unsigned int wait_ms)
{
	struct __kernel_timespec ts = {
		.tv_sec = wait_ms / 1000,
		.tv_nsec = (wait_ms % 1000) * 1000000LL,
	};
	struct io_uring_cqe *cqe;
	unsigned int i, nr = 0;

	if (wait_ms && busy())
		io_uring_wait_cqe_timeout(&ring, &cqe, &ts);
	else if (wait_ms)
		t_sleep_ms(wait_ms);
	while (!io_uring_peek_cqe(&ring, &cqe)) {
		complete(cqe);
		io_uring_cqe_seen(&ring, cqe);
	}
	if (!refill)
		return;
	for (i = 0; i < QD; i++) {
		if (!slots[i].busy) {
			submit_slot(i);
			nr++;
		}
	}
	if (nr)
		t_submit(&ring, nr);
}

/* ---- asking for the fault ---------------------------------------------- */

/* Write @body into @dir/req.@name (atomically): an agent's request */
static void request(const char *dir, const char *name, const char *body)
{
	char req[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *f;

	snprintf(req, sizeof(req), "%s/req.%s.%d", dir, name, getpid());
	snprintf(tmp, sizeof(tmp), "%s.tmp", req);
	f = fopen(tmp, "w");
	if (!f)
		t_die("%s: %m (no agent there?)", tmp);
	fputs(body, f);
	if (fclose(f) || rename(tmp, req))
		t_die("writing %s: %m", req);
}

/*
 * Keep the load going until @dir/resp.@name appears (the agent's answer,
 * into @answer), within @ms; false if it did not.
 */
static bool await(const char *dir, const char *name, char *answer,
		  size_t len, unsigned int ms)
{
	unsigned long long end = t_now_ms() + ms;
	char resp[PATH_MAX];

	snprintf(resp, sizeof(resp), "%s/resp.%s.%d", dir, name, getpid());
	while (t_now_ms() < end) {
		if (!t_read_file(resp, answer, len)) {
			unlink(resp);
			return true;
		}
		pump(5);
		live_ctrls();
	}
	t_error("no answer to '%s' in %s within %u ms", name, dir, ms);
	return false;
}

static void qmp(const char *dir, const char *name, const char *json)
{
	char answer[4096];

	request(dir, name, json);
	if (await(dir, name, answer, sizeof(answer), T_NVME_TIMEOUT_MS) &&
	    !strstr(answer, "\"return\""))
		t_error("QMP %s: %s", json, answer);
}

/* hold @ms, reaping what completes */
static void hold(unsigned int ms)
{
	unsigned long long end = t_now_ms() + ms;

	while (t_now_ms() < end) {
		pump(20);
		live_ctrls();
	}
}

/* ---- before and after ---------------------------------------------------- */

static void stamp_areas(void)
{
	unsigned char *b = t_alloc(AREA_BYTES);
	__u64 off;
	int fd;

	for (off = 0; off < AREA_BYTES; off += CHUNK)
		stamp_chunk(b + off, off, 0);
	fd = open(n.bdev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s O_DIRECT: %m", n.bdev);
	if (pwrite(fd, b, AREA_BYTES, 0) != (ssize_t)AREA_BYTES)
		t_die("stamping %s: %m", n.bdev);
	if (fsync(fd))
		t_die("fsync %s: %m", n.bdev);
	close(fd);
	free(b);
}

/* The areas read back: what was flushed or acknowledged is there */
static void verify_areas(unsigned int *acked, unsigned int *failed)
{
	unsigned char *b = t_alloc(AREA_BYTES), want[BLK];
	unsigned int c, k, wrong = 0;
	__u64 off, blk;
	int fd;

	*acked = *failed = 0;
	fd = open(n.bdev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s O_DIRECT: %m", n.bdev);
	if (pread(fd, b, AREA_BYTES, 0) != (ssize_t)AREA_BYTES) {
		t_error("reading the areas back from %s: %m", n.bdev);
		goto out;
	}
	for (off = 0; off < AREA_BYTES; off += BLK) {
		bool old_ok, new_ok;

		blk = off / BLK;
		c = off < WRITE_BASE ? UINT_MAX : (off - WRITE_BASE) / CHUNK;
		stamp(want, blk, 0);
		old_ok = !memcmp(b + off, want, BLK);
		stamp(want, blk, 1);
		new_ok = c != UINT_MAX && !memcmp(b + off, want, BLK);
		if (c == UINT_MAX || wst[c] == W_OLD)
			new_ok = false;
		else if (wst[c] == W_ACKED)
			old_ok = false;
		if (!old_ok && !new_ok && wrong++ < 4)
			t_error("block %llu (%s) reads back wrong after the fault",
				(unsigned long long)blk,
				c == UINT_MAX ? "read area, stamped and flushed" :
				wst[c] == W_OLD ? "never written, stamped and flushed" :
				wst[c] == W_ACKED ? "write acknowledged (FUA)" :
				"write failed: old or new");
	}
	for (c = 0; c < WRITE_CHUNKS; c++) {
		*acked += wst[c] == W_ACKED;
		*failed += wst[c] == W_FAILED;
	}
	for (k = 0; k < WRITE_CHUNKS; k++)
		if (wst[k] == W_PENDING)
			t_error("write of chunk %u still pending", k);
	if (wrong > 4)
		t_error("%u blocks in all read back wrong", wrong);
out:
	close(fd);
	free(b);
}

static unsigned int total(const struct tally *t)
{
	return t->ok + t->status + t->eintr + t->ebusy + t->other;
}

static void tally_str(char *out, size_t len, const struct tally *t)
{
	char st[160] = "";

	if (t->status)
		snprintf(st, sizeof(st), " (the first %s)",
			 t_nvme_res_str(t->first_status));
	snprintf(out, len, "%u ok, %u NVMe status%s, %u -EINTR, %u -EBUSY",
		 t->ok, t->status, st, t->eintr, t->ebusy);
}

int main(int argc, char **argv)
{
	const char *fault, *target, *ctl, *own;
	unsigned int tmo_s, in_flight, acked, failed, i, at_moment;
	unsigned long long t_fault, t_live = 0, deadline, t_load, t_asked;
	char own_qmp[PATH_MAX], target_qmp[PATH_MAX], answer[512];
	char s_all[256], s_met[256], policy[64];
	struct nvme_uring_cmd c;
	int ret;

	target = getenv("TEST_PAIR_TARGET");
	ctl = getenv("TEST_PAIR_CTL");
	nqn = getenv("TEST_PAIR_NQN");
	own = t_env_or("UC_RESULTS", "/run/results");
	tmo_s = atoi(t_env_or("TEST_PAIR_CTRL_LOSS_TMO", "120"));
	if (argc < 3 || !target || !ctl || !nqn)
		t_skip("needs HEADDEV FAULT and $TEST_PAIR_* (run by tests/pair.sh host)");
	fault = argv[2];
	if (strcmp(fault, "pause") && strcmp(fault, "stop") &&
	    strcmp(fault, "link") && strcmp(fault, "kill"))
		t_die("fault '%s': pause, stop, link or kill", fault);
	snprintf(own_qmp, sizeof(own_qmp), "%s/qmp", own);
	snprintf(target_qmp, sizeof(target_qmp), "%s/qmp", target);

	t_nvme_open(&n, 2, argv);
	if (!n.head)
		t_die("%s is not a multipath head node", n.bdev);
	find_ctrls();
	if (nr_ctrls != 2)
		t_die("%u controllers of %s, expected 2 (one a link)", nr_ctrls, nqn);
	if (live_ctrls() != 2)
		t_die("not both controllers live before the fault: %s", ctrl_states());
	went_down = false;
	if (n.nlb * n.lbs < AREA_BYTES || CHUNK % n.lbs)
		t_die("%s is too small or has %u-byte blocks", n.bdev, n.lbs);
	seed = (unsigned int)t_now_ms() ^ (unsigned int)getpid() << 16;
	set_iopolicy("round-robin", policy, sizeof(policy));

	for (i = 0; i < QD; i++)
		slots[i].buf = t_alloc(CHUNK);
	uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, slots[0].buf);
	ret = t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &c, NULL);
	if (ret)
		t_die("Identify Controller on %s: %s", n.bdev, t_nvme_res_str(ret));
	memcpy(id_want, slots[0].buf, ID_LEN);
	stamp_areas();
	ret = t_nvme_ring(&ring, QD, 0);
	if (ret)
		t_die("ring: %s", t_errname(ret));

	/* the load, then the fault asked for while it runs */
	refill = true;
	t_load = t_now_ms();
	pump(0);
	hold(200);
	t_asked = t_now_ms();
	if (!strcmp(fault, "pause") || !strcmp(fault, "stop")) {
		request(target_qmp, "stop", "{\"execute\": \"stop\"}");
		await(target_qmp, "stop", answer, sizeof(answer), T_NVME_TIMEOUT_MS);
	} else if (!strcmp(fault, "link")) {
		request(own_qmp, "link", "{\"execute\": \"set_link\", \"arguments\": {\"name\": \"nic1\", \"up\": false}}");
		await(own_qmp, "link", answer, sizeof(answer), T_NVME_TIMEOUT_MS);
	} else {
		request(ctl, "kill", "kill");
		await(ctl, "kill", answer, sizeof(answer), T_NVME_TIMEOUT_MS);
		answer[strcspn(answer, "\n")] = 0;
		if (strncmp(answer, "killed", 6))
			t_die("kill: %s", answer);
	}
	t_fault = t_now_ms();
	/*
	 * What the fault met: the commands not completed the moment it was
	 * done (task_work run first, so a posted completion counts as
	 * completed), then, the load going on for SETTLE_MS, those in
	 * flight after it, which are the ones counted and judged: commands
	 * routed to a lost link or a stopped target stay, the others are
	 * replaced (over loop or a fast link, the moment may find none).
	 */
	io_uring_enter(ring.ring_fd, 0, 0, IORING_ENTER_GETEVENTS, NULL);
	at_moment = busy() - io_uring_cq_ready(&ring);
	hold(SETTLE_MS);
	refill = false;
	pump(0);
	in_flight = 0;
	for (i = 0; i < QD; i++) {
		slots[i].at_fault = slots[i].busy;
		in_flight += slots[i].busy;
	}
	if (!in_flight)
		t_error("%s: no command was in flight %u ms after it", fault,
			SETTLE_MS);

	if (!strcmp(fault, "pause") || !strcmp(fault, "stop")) {
		hold((!strcmp(fault, "pause") ? 2000 : 12000) - SETTLE_MS);
		qmp(target_qmp, "cont", "{\"execute\": \"cont\"}");
	} else if (!strcmp(fault, "link")) {
		hold(10000 - SETTLE_MS);
		qmp(own_qmp, "link-up", "{\"execute\": \"set_link\", \"arguments\": {\"name\": \"nic1\", \"up\": true}}");
	}

	/* every command ends, within ctrl_loss_tmo and a minute */
	deadline = t_fault + tmo_s * 1000ULL + 60000;
	while (busy() && t_now_ms() < deadline) {
		pump(50);
		live_ctrls();
	}
	if (busy())
		t_error("%s: %u commands never completed (%u s after it)", fault,
			busy(), (unsigned int)((t_now_ms() - t_fault) / 1000));
	/* both controllers live again within ctrl_loss_tmo */
	deadline = t_fault + tmo_s * 1000ULL;
	while (live_ctrls() != 2 && t_now_ms() < deadline)
		t_sleep_ms(50);
	if (live_ctrls() != 2)
		t_die("%s: the controllers are not live %u s after it: %s", fault,
		      tmo_s, ctrl_states());
	t_live = t_now_ms();

	verify_areas(&acked, &failed);
	/* and commands succeed again */
	memset(&all, 0, sizeof(all));
	refill = true;
	while (total(&all) < 2 * QD && t_now_ms() < t_live + T_NVME_TIMEOUT_MS)
		pump(50);
	refill = false;
	while (busy() && t_now_ms() < t_live + 2 * T_NVME_TIMEOUT_MS)
		pump(50);
	if (busy())
		t_error("after the fault: %u commands never completed", busy());
	if (all.ok != total(&all) || total(&all) < 2 * QD)
		t_error("after the reconnect: %u commands completed, %u of them not ok",
			total(&all), total(&all) - all.ok);

	tally_str(s_met, sizeof(s_met), &met);
	t_info("%s: asked for %llu ms after the load began, done %llu ms later",
	       fault, t_asked - t_load, t_fault - t_asked);
	t_info("%s: %u of %u commands in flight the moment it was done, %u %u ms on; these ended: %s",
	       fault, at_moment, QD, in_flight, SETTLE_MS, s_met);
	t_info("%s: controllers %s, live again %llu ms after it (ctrl_loss_tmo %u s); %u commands in all",
	       fault, went_down ? "went down" : "stayed live",
	       t_live - t_fault, tmo_s, submitted);
	t_info("%s: %u FUA writes acknowledged and read back, %u failed (old or new data), read and unwritten areas as stamped",
	       fault, acked, failed);
	snprintf(s_all, sizeof(s_all), "%s", ctrl_states());
	t_info("%s: after it, %s", fault, s_all);
	set_iopolicy(policy, NULL, 0);
	io_uring_queue_exit(&ring);
	t_nvme_close(&n);
	return t_result();
}
