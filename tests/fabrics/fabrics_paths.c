// SPDX-License-Identifier: GPL-2.0
/* Description: passthrough on a fabrics multipath head: a path lost and the last one made inaccessible (ANA) with commands in flight, -EBUSY while a path may come back, -ENODEV once none can */
/*
 * Usage: fabrics_paths HEADDEV [ns-remove]   with $TEST_NVMET naming tests/nvmet.sh
 *
 * Run by run.sh on the head node of the in-guest nvmet subsystem's slow
 * namespace (every I/O completes 250 ms after the target starts it, so the
 * commands are in flight when the fault comes), reached over loop and over
 * tcp (tests/nvmet.sh up, its second head). It leaves one path (tcp).
 *   - the block node is a multipath head with two paths;
 *   - 64 commands in flight (reads and identify) when the loop controller is
 *     deleted: all 64 complete, and later commands go through tcp;
 *   - 64 commands in flight when the tcp port's ANA group becomes
 *     inaccessible: all 64 complete; the head then has no usable path but
 *     one that may come back (its controller is live), and admin and I/O
 *     commands fail at once with -EBUSY (an unknown cmd_op still gets
 *     -EOPNOTSUPP);
 *   - the group is optimized again: commands succeed.
 * Each fault is written within 250 ms of the submission, so it met every
 * read (the device holds each that long); each of the 64 ends with 0 and
 * its data (the blocks are stamped first, an identify equals the
 * controller's) or with what that fault may give: -EINTR or the status
 * the path returned (a Path Related Status; Invalid Namespace for the
 * namespace's removal), never failed over (io_uring_cmd.rst).
 * With "ns-remove" (run last): 64 reads in flight when the target disables
 * the namespace: all 64 complete; once the host has removed the namespace,
 * commands on the still-open head fail at once with -ENODEV.
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

#define QD	64

static struct t_nvme n;
static struct io_uring ring;
static unsigned char *bufs;
static const char *nvmet;

/* Path disks of the head nvmeSnN: nvmeScCnN, one per controller. */
static int nr_paths(void)
{
	unsigned int s, ns, ps, pc, pns;
	struct dirent *de;
	int nr = 0;
	DIR *d;

	if (sscanf(n.name, "nvme%un%u", &s, &ns) != 2)
		t_die("%s: not a namespace name", n.name);
	d = opendir("/sys/block");
	if (!d)
		t_die("opendir /sys/block: %m");
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "nvme%uc%un%u", &ps, &pc, &pns) == 3 &&
		    ps == s && pns == ns)
			nr++;
	closedir(d);
	return nr;
}

static void run_nvmet(const char *args)
{
	char cmd[PATH_MAX + 64];
	int ret;

	snprintf(cmd, sizeof(cmd), "%s %s", nvmet, args);
	ret = system(cmd);
	if (ret)
		t_error("'%s' failed: %#x", cmd, ret);
}

#define SLOW_MS	250	/* tests/nvmet.sh's SLOW_NS */

/*
 * What a command in flight may end with when its path goes (io_uring_cmd.rst:
 * -EINTR or the status the path returned, no failover): a Path Related
 * Status (the host's Command Aborted By Host or Host Pathing Error, the
 * target's ANA Inaccessible or Transition, its Internal Path Error for a
 * namespace it disabled - seen on the debug kernel); for the namespace's
 * removal also Invalid Namespace.
 */
static const int lost_path[] = { T_NVME_SCT_ANY(PATH), -EINTR, 0 };
static const int ns_gone[] = {
	T_NVME_SCT_ANY(PATH), T_NVME_SC(GENERIC, INVALID_NS), -EINTR, 0
};

/*
 * Submit @nr commands (every eighth an identify if @admin) and, the moment
 * some are measured outstanding, do what "nvmet.sh @args" would: the file
 * it writes is opened before the commands go out and written right after
 * the count, with no fork in between (a shell's start-up outlasts a batch
 * of reads over loop).
 */
static void in_flight(unsigned int nr, bool admin, const char *args,
		      const int *allowed)
{
	char cmd[PATH_MAX + 64], line[PATH_MAX + 64], *val;
	struct t_nvme_tally t;
	unsigned long long gap;
	unsigned int out;
	size_t len;
	FILE *p;
	int fd;

	snprintf(cmd, sizeof(cmd), "%s file %s", nvmet, args);
	p = popen(cmd, "r");
	if (!p)
		t_die("popen '%s': %m", cmd);
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	if (pclose(p) || !(val = strchr(line, ' ')))
		t_die("'%s' named no file to write", cmd);
	*val++ = 0;
	len = strcspn(val, "\n");
	fd = open(line, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		t_die("open %s: %m", line);

	out = t_nvme_submit_overlapping(&ring, &n, bufs, nr, admin, T_OVERLAP_TRIES);
	gap = t_now_ms() - t_nvme_submitted_ms();
	if (write(fd, val, len) != (ssize_t)len)
		t_error("%s: writing '%.*s' to %s: %m", args, (int)len, val, line);
	close(fd);
	if (!out)
		t_error("%s: all %u commands had completed before it, %d times: nothing was in flight",
			args, nr, T_OVERLAP_TRIES);
	/* the slow namespace holds each read 250 ms: a fault sooner met them */
	if (gap >= SLOW_MS)
		t_error("%s: begun %llu ms after the submission, not within the namespace's %u ms: not shown to meet the reads",
			args, gap, SLOW_MS);
	if (!t_nvme_reap_judged(&ring, args, allowed, &t)) {
		t_error("%s: %u of %u commands in flight completed, not all as they may",
			args, t.done, nr);
		return;
	}
	t_info("%s %llu ms after the submission, %u of %u counted in flight: %u completed with their data, %u NVMe status, %u errno",
	       args, gap, out, nr, t.ok, t.status, t.err);
}

static int one(__u32 cmd_op, bool admin)
{
	struct nvme_uring_cmd cmd;
	struct t_cqe c;

	if (admin)
		uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, bufs);
	else
		uringcmd_nvme_rw(&cmd, nvme_cmd_read, n.nsid, bufs, 4096, 0,
			  4096 / n.lbs);
	if (t_nvme_cmd(&ring, n.bfd, cmd_op, &cmd, 0, &c))
		return INT32_MIN;
	return c.res;
}

/* Poll with identify until it answers @want; false after the deadline. */
static bool wait_res(int want)
{
	/* the host sees an ANA change within a second: one command timeout */
	unsigned long long end = t_now_ms() + T_TIMEOUT_MS;
	int res = INT32_MIN;

	while (t_now_ms() < end) {
		res = one(NVME_URING_CMD_ADMIN, true);
		if (res == want)
			return true;
		t_sleep_ms(100);
	}
	t_info("still %s after %u ms, not %s", t_nvme_res_str(res),
	       T_TIMEOUT_MS, t_nvme_res_str(want));
	return false;
}

static void expect(const char *what, int res, int want)
{
	if (res == INT32_MIN)
		return;
	if (res != want)
		t_error("%s: res %s, expected %s", what, t_nvme_res_str(res),
			t_nvme_res_str(want));
	else
		t_info("%s: %s", what, t_nvme_res_str(res));
}

/*
 * The namespace removed on the target with reads in flight; then -ENODEV on
 * the head, which stays open without paths. Under lockdep only when run.sh
 * says it allows the one report this trips (TEST_LOCKDEP_NS_REMOVE=1; main()
 * skips before it opens anything otherwise): on 6.1 the last close of a
 * head whose namespace is gone flushes partition_scan_work under
 * disk->open_mutex (nvme_mpath_remove_disk() from blkdev_put()), which
 * lockdep reports against nvme_partition_scan_work() taking open_mutex.
 */
static void ns_remove(void)
{
	unsigned long long end;
	char off[32];

	/* remove the namespace on the target with reads in flight */
	snprintf(off, sizeof(off), "ns-off %u", n.nsid);
	in_flight(QD, false, off, ns_gone);
	end = t_now_ms() + 3 * T_NVME_TIMEOUT_MS;
	while (nr_paths() && t_now_ms() < end)
		t_sleep_ms(50);
	if (nr_paths()) {
		t_error("the host did not remove the namespace: %d paths left",
			nr_paths());
	} else {
		expect("identify on a head without paths",
		       one(NVME_URING_CMD_ADMIN, true), -ENODEV);
		expect("read on a head without paths",
		       one(NVME_URING_CMD_IO, false), -ENODEV);
		expect("unknown cmd_op on a head without paths",
		       one(0x4e99, true), -EOPNOTSUPP);
	}
}

int main(int argc, char **argv)
{
	bool rm = argc > 2 && !strcmp(argv[2], "ns-remove");
	unsigned long long end;
	int ret, i;

	nvmet = getenv("TEST_NVMET");
	if (!nvmet || argc < 2)
		t_skip("needs HEADDEV and $TEST_NVMET (run by tests/run.sh)");
	/* before anything is opened: the skip is about the last close */
	if (rm && !access("/proc/lockdep", F_OK) &&
	    strcmp(t_env_or("TEST_LOCKDEP_NS_REMOVE", "0"), "1"))
		t_skip("lockdep kernel: closing a head whose namespace is gone trips a 6.1 lockdep report (nvme_mpath_remove_disk flushing partition_scan_work under open_mutex)");
	t_nvme_open(&n, 2, argv);
	if (!n.head)
		t_die("%s is not a multipath head node", n.bdev);
	if (!rm && nr_paths() != 2)
		t_error("%s has %d paths, expected 2 (loop and tcp)", n.bdev,
			nr_paths());
	bufs = t_alloc((size_t)QD * 4096);
	t_nvme_judge_setup(&n, QD);
	ret = t_nvme_ring(&ring, QD, 0);
	if (ret)
		t_die("ring: %s", t_errname(ret));
	if (rm) {
		ns_remove();
		goto out;
	}
	expect("identify on the head, two paths", one(NVME_URING_CMD_ADMIN, true), 0);
	expect("read on the head, two paths", one(NVME_URING_CMD_IO, false), 0);

	/*
	 * Lose the loop path with commands in flight. Not tcp: on 6.1 the
	 * target's tcp queue teardown (nvmet_tcp_release_queue_work flushing
	 * io_work, which flushes nvmet-wq) trips a known lockdep report that
	 * later kernels fixed in nvmet_tcp_install_queue(); run.sh deletes the
	 * tcp controller only after the last test.
	 */
	in_flight(QD, true, "drop loop", lost_path);
	end = t_now_ms() + T_NVME_TIMEOUT_MS;
	while (nr_paths() != 1 && t_now_ms() < end)
		t_sleep_ms(50);
	if (nr_paths() != 1)
		t_error("%d paths after dropping loop, expected 1", nr_paths());
	for (i = 0; i < 4; i++) {
		expect("identify on the head, tcp path only",
		       one(NVME_URING_CMD_ADMIN, true), 0);
		expect("read on the head, tcp path only",
		       one(NVME_URING_CMD_IO, false), 0);
	}

	/*
	 * No usable path: the tcp port's ANA group becomes inaccessible with
	 * commands in flight. The controller stays live (no teardown), but
	 * nvme_find_path() has nothing to pick: -EBUSY, a path may come back.
	 */
	in_flight(QD, true, "ana tcp inaccessible", lost_path);
	if (!wait_res(-EBUSY))
		t_error("no -EBUSY after the last path became inaccessible");
	expect("identify on a head without a usable path",
	       one(NVME_URING_CMD_ADMIN, true), -EBUSY);
	expect("read on a head without a usable path",
	       one(NVME_URING_CMD_IO, false), -EBUSY);
	expect("unknown cmd_op on a head without a usable path",
	       one(0x4e99, true), -EOPNOTSUPP);

	/* the path is optimized again: commands go through */
	run_nvmet("ana tcp optimized");
	if (!wait_res(0))
		t_error("identify still fails after the path is optimized again");
	expect("identify on the head, path back",
	       one(NVME_URING_CMD_ADMIN, true), 0);
	expect("read on the head, path back", one(NVME_URING_CMD_IO, false), 0);
out:
	io_uring_queue_exit(&ring);
	t_nvme_close(&n);
	return t_result();
}
