// SPDX-License-Identifier: GPL-2.0
/* Description: NVMe admin commands through uring_cmd on the block node give what the ioctls and nvme-cli give */
/*
 * Usage: nvme_bdev_admin [BLOCKDEV [CHARDEV [CTRLDEV]]]  (see t_nvme_open())
 *
 * On the block node /dev/nvmeXnY, through NVME_URING_CMD_ADMIN and
 * NVME_URING_CMD_ADMIN_VEC, each checked against ioctl(NVME_IOCTL_ADMIN_CMD)
 * on the same node, upstream's uring_cmd on /dev/nvmeX, and nvme-cli:
 *   - Identify Controller and Identify Namespace, byte for byte, and equal
 *     to `nvme id-ctrl -b` / `nvme id-ns -b`;
 *   - the Error Information log, byte for byte; the SMART log's stable
 *     part byte for byte, and each of its counters (data units, commands,
 *     busy time, power cycles and hours, errors...) at most the ioctl's,
 *     read after it;
 *   - Get Features (Number of Queues, Temperature Threshold): the result
 *     dword in the big CQE equals the ioctl's result;
 *   - Set Features round trips through uring_cmd, each restored after: the
 *     Asynchronous Event Configuration (every controller, nvmet's too:
 *     one must happen) and, where the controller has it, the Temperature
 *     Threshold (nvmet has none).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "t_nvme.h"

static struct t_nvme n;
static struct io_uring ring;

/* @args run through nvme-cli into @buf; bytes read, or -1 (skipped). */
static ssize_t nvme_cli(const char *args, void *buf, size_t len)
{
	char cmd[PATH_MAX + 64];
	size_t got = 0, r;
	FILE *f;

	if (access("/usr/sbin/nvme", X_OK)) {
		t_info("nvme-cli not installed: no comparison with it");
		return -1;
	}
	snprintf(cmd, sizeof(cmd), "/usr/sbin/nvme %s %s 2>/dev/null", args,
		 n.bdev);
	f = popen(cmd, "r");
	if (!f)
		t_die("popen %s: %m", cmd);
	while (got < len && (r = fread((char *)buf + got, 1, len - got, f)) > 0)
		got += r;
	if (pclose(f))
		t_error("'%s' failed", cmd);
	return (ssize_t)got;
}

/* One admin command on the block node, the result dword in *@result. */
static int bdev_admin(const struct nvme_uring_cmd *c, __u32 *result)
{
	struct t_cqe cqe;

	if (t_nvme_cmd(&ring, n.bfd, NVME_URING_CMD_ADMIN, c, 0, &cqe))
		return -ETIME;
	if (result)
		*result = (__u32)cqe.big[0];
	return cqe.res;
}

/* what the buffers hold before a command: see test_identify() */
#define POISON	0xa5

static void expect_ok(const char *what, int res)
{
	if (res)
		t_error("%s: res %s, expected 0", what, t_nvme_res_str(res));
}

static void test_identify(void)
{
	unsigned char *u = t_alloc(4096), *i = t_alloc(4096);
	unsigned char *c = t_alloc(4096), *cli = t_alloc(8192);
	struct nvme_uring_cmd cmd;
	struct iovec iov[3];
	struct t_cqe cqe;
	ssize_t len;
	int res;

	/*
	 * Every buffer compared is first filled with the same non-zero
	 * poison: a command that moves nothing leaves it, and cannot match
	 * what the device wrote on the other side (two zeroed buffers would).
	 */
	memset(u, POISON, 4096);
	memset(i, POISON, 4096);
	memset(c, POISON, 4096);

	/* Identify Controller: block node, ioctl, /dev/nvmeX, nvme-cli */
	uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, u);
	expect_ok("uring_cmd identify controller", bdev_admin(&cmd, NULL));
	uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, i);
	res = t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL);
	expect_ok("ioctl identify controller", res);
	t_compare("identify controller: block-node uring_cmd vs ioctl", u, i,
		  4096);
	uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, c);
	if (!t_nvme_cmd(&ring, n.cfd, NVME_URING_CMD_ADMIN, &cmd, 0, &cqe)) {
		expect_ok("uring_cmd identify controller on the controller",
			  cqe.res);
		if (n.head) {
			/*
			 * A head routes to the path nvme_find_path() picks,
			 * maybe another controller of the subsystem: all but
			 * the controller ID (CNTLID, bytes 78-79) is the same.
			 */
			memcpy(c + 78, u + 78, 2);
		}
		t_compare("identify controller: block node vs controller char device",
			  u, c, 4096);
	}
	len = nvme_cli("id-ctrl -b", cli, 8192);
	if (len >= 0) {
		if (len != 4096)
			t_error("nvme id-ctrl -b: %zd bytes, expected 4096", len);
		else
			t_compare("identify controller: block node vs nvme id-ctrl -b",
				  u, cli, 4096);
	}
	t_info("vid %#06x, sn \"%.20s\", mn \"%.40s\"", u[0] | u[1] << 8,
	       (char *)u + 4, (char *)u + 24);

	/* the same through NVME_URING_CMD_ADMIN_VEC, over three iovecs */
	memset(c, POISON, 4096);
	iov[0] = (struct iovec){ c, 512 };
	iov[1] = (struct iovec){ c + 512, 1536 };
	iov[2] = (struct iovec){ c + 2048, 2048 };
	uringcmd_nvme_identify(&cmd, 0, NVME_IDENTIFY_CNS_CTRL, NULL);
	cmd.addr = (__u64)(uintptr_t)iov;
	cmd.data_len = 3;
	if (!t_nvme_cmd(&ring, n.bfd, NVME_URING_CMD_ADMIN_VEC, &cmd, 0,
			&cqe)) {
		expect_ok("ADMIN_VEC identify controller", cqe.res);
		t_compare("identify controller: ADMIN_VEC vs ADMIN", c, u, 4096);
	}

	/* Identify Namespace */
	memset(u, POISON, 4096);
	memset(i, POISON, 4096);
	uringcmd_nvme_identify(&cmd, n.nsid, NVME_IDENTIFY_CNS_NS, u);
	expect_ok("uring_cmd identify namespace", bdev_admin(&cmd, NULL));
	uringcmd_nvme_identify(&cmd, n.nsid, NVME_IDENTIFY_CNS_NS, i);
	expect_ok("ioctl identify namespace",
		  t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL));
	t_compare("identify namespace: block-node uring_cmd vs ioctl", u, i,
		  4096);
	len = nvme_cli("id-ns -b", cli, 8192);
	if (len >= 0) {
		if (len != 4096)
			t_error("nvme id-ns -b: %zd bytes, expected 4096", len);
		else
			t_compare("identify namespace: block node vs nvme id-ns -b",
				  u, cli, 4096);
	}
	free(u);
	free(i);
	free(c);
	free(cli);
}

/* A SMART counter: 16 bytes little-endian; 128-bit compare. */
static int le128_cmp(const __u8 *a, const __u8 *b)
{
	int i;

	for (i = 15; i >= 0; i--)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

/*
 * Counters only grow: the uring_cmd log, read first, has none above the
 * ioctl's read after it (a poisoned counter the command never wrote would
 * be above).
 */
static void smart_counters(const struct nvme_smart_log *u,
			   const struct nvme_smart_log *i)
{
	static const struct { size_t off; const char *name; } c[] = {
		{ offsetof(struct nvme_smart_log, data_units_read), "data units read" },
		{ offsetof(struct nvme_smart_log, data_units_written), "data units written" },
		{ offsetof(struct nvme_smart_log, host_reads), "host read commands" },
		{ offsetof(struct nvme_smart_log, host_writes), "host write commands" },
		{ offsetof(struct nvme_smart_log, ctrl_busy_time), "controller busy time" },
		{ offsetof(struct nvme_smart_log, power_cycles), "power cycles" },
		{ offsetof(struct nvme_smart_log, power_on_hours), "power on hours" },
		{ offsetof(struct nvme_smart_log, unsafe_shutdowns), "unsafe shutdowns" },
		{ offsetof(struct nvme_smart_log, media_errors), "media errors" },
		{ offsetof(struct nvme_smart_log, num_err_log_entries), "error log entries" },
	};
	size_t k;

	for (k = 0; k < sizeof(c) / sizeof(c[0]); k++)
		if (le128_cmp((const __u8 *)u + c[k].off,
			      (const __u8 *)i + c[k].off) > 0)
			t_error("SMART %s: uring_cmd's is above the ioctl's read after it",
				c[k].name);
}

static void test_logs(void)
{
	struct nvme_smart_log *su = t_alloc(512), *si = t_alloc(512);
	unsigned char *eu = t_alloc(4096), *ei = t_alloc(4096);
	struct nvme_uring_cmd cmd;

	memset(eu, POISON, 4096);
	memset(ei, POISON, 4096);
	memset(su, POISON, 512);
	memset(si, POISON, 512);
	uringcmd_nvme_get_log(&cmd, NVME_NSID_ALL, NVME_LOG_LID_ERROR, eu, 4096);
	expect_ok("uring_cmd error log", bdev_admin(&cmd, NULL));
	uringcmd_nvme_get_log(&cmd, NVME_NSID_ALL, NVME_LOG_LID_ERROR, ei, 4096);
	expect_ok("ioctl error log",
		  t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL));
	t_compare("error log: uring_cmd vs ioctl", eu, ei, 4096);

	uringcmd_nvme_get_log(&cmd, NVME_NSID_ALL, NVME_LOG_LID_SMART, su, 512);
	expect_ok("uring_cmd SMART log", bdev_admin(&cmd, NULL));
	uringcmd_nvme_get_log(&cmd, NVME_NSID_ALL, NVME_LOG_LID_SMART, si, 512);
	expect_ok("ioctl SMART log",
		  t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, NULL));
	/* warning, temperature, spare, threshold, used; counters move */
	t_compare("SMART log health fields: uring_cmd vs ioctl", su, si,
		  offsetof(struct nvme_smart_log, data_units_read));
	smart_counters(su, si);
	t_info("SMART: critical warning %#x, temperature %u K",
	       su->critical_warning, su->temperature[0] | su->temperature[1] << 8);
	free(su);
	free(si);
	free(eu);
	free(ei);
}

/*
 * Asynchronous Event Configuration: QEMU and nvmet both have it for Get and
 * Set (nvmet has no Temperature Threshold), so a Set Features through the
 * block node runs on every controller here. One bit nvmet accepts
 * (namespace attribute notices) toggled, read back, restored.
 */
#define AEC_NS_ATTR	(1U << 8)	/* Namespace Attribute Notices */

static void aec_round_trip(void)
{
	struct nvme_uring_cmd cmd;
	__u32 orig = 0, got = 0, want;
	int res;

	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
			  NVME_FEAT_FID_ASYNC_EVENT, 0);
	res = t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, &orig);
	if (res) {
		t_error("ioctl get features (async event configuration): %s",
			t_nvme_res_str(res));
		return;
	}
	want = orig ^ AEC_NS_ATTR;
	uringcmd_nvme_cmd(&cmd, nvme_admin_set_features, 0, NULL, 0,
			  NVME_FEAT_FID_ASYNC_EVENT, want);
	expect_ok("uring_cmd set features (async event configuration)",
		  bdev_admin(&cmd, NULL));
	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
			  NVME_FEAT_FID_ASYNC_EVENT, 0);
	got = ~want;
	expect_ok("uring_cmd get features (async event configuration)",
		  bdev_admin(&cmd, &got));
	if (got != want)
		t_error("async event configuration read back %#x, set %#x", got,
			want);
	uringcmd_nvme_cmd(&cmd, nvme_admin_set_features, 0, NULL, 0,
			  NVME_FEAT_FID_ASYNC_EVENT, orig);
	expect_ok("uring_cmd set features (async event configuration, restore)",
		  bdev_admin(&cmd, NULL));
	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
			  NVME_FEAT_FID_ASYNC_EVENT, 0);
	got = ~orig;
	t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, &got);
	if (got != orig)
		t_error("async event configuration %#x after restore, was %#x",
			got, orig);
	else
		t_info("async event configuration %#x -> %#x -> restored", orig,
		       want);
}

static void test_features(void)
{
	__u32 ru = 0, ri = 0, orig, got = 0;
	struct nvme_uring_cmd cmd;
	int res;

	/* Number of Queues: the answer is in the result dword only */
	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
		     NVME_FEAT_FID_NUM_QUEUES, 0);
	expect_ok("uring_cmd get features (number of queues)",
		  bdev_admin(&cmd, &ru));
	expect_ok("ioctl get features (number of queues)",
		  t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, &ri));
	if (ru != ri || !ru)
		t_error("number of queues: uring_cmd result %#x, ioctl %#x",
			ru, ri);
	else
		t_info("number of queues: result %#x in the big CQE", ru);

	aec_round_trip();

	/* Temperature Threshold: set through uring_cmd, read back, restore */
	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
		     NVME_FEAT_FID_TEMP_THRESH, 0);
	res = t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, &orig);
	if (res) {
		t_info("no temperature threshold feature (%s): no set/get round trip",
		       t_nvme_res_str(res));
		return;
	}
	uringcmd_nvme_cmd(&cmd, nvme_admin_set_features, 0, NULL, 0,
		     NVME_FEAT_FID_TEMP_THRESH, (orig & 0xffff) - 1);
	expect_ok("uring_cmd set features (temperature threshold)",
		  bdev_admin(&cmd, NULL));
	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
		     NVME_FEAT_FID_TEMP_THRESH, 0);
	expect_ok("uring_cmd get features (temperature threshold)",
		  bdev_admin(&cmd, &got));
	if ((got & 0xffff) != (orig & 0xffff) - 1)
		t_error("temperature threshold read back %#x, set %#x", got,
			(orig & 0xffff) - 1);
	uringcmd_nvme_cmd(&cmd, nvme_admin_set_features, 0, NULL, 0,
		     NVME_FEAT_FID_TEMP_THRESH, orig & 0xffff);
	expect_ok("uring_cmd set features (restore)", bdev_admin(&cmd, NULL));
	uringcmd_nvme_cmd(&cmd, nvme_admin_get_features, 0, NULL, 0,
		     NVME_FEAT_FID_TEMP_THRESH, 0);
	t_nvme_ioctl(n.bfd, NVME_IOCTL_ADMIN_CMD, &cmd, &got);
	if ((got & 0xffff) != (orig & 0xffff))
		t_error("temperature threshold %#x after restore, was %#x",
			got, orig);
	else
		t_info("temperature threshold %u K -> %u K -> restored",
		       orig & 0xffff, (orig & 0xffff) - 1);
}

int main(int argc, char **argv)
{
	int ret;

	t_nvme_open(&n, argc, argv);
	ret = t_nvme_ring(&ring, 8, 0);
	if (ret)
		t_die("io_uring_queue_init(SQE128|CQE32): %s", t_errname(ret));
	test_identify();
	test_logs();
	test_features();
	/* every completion was matched: nothing may be left over */
	t_cq_quiet(&ring, "the test's ring at exit");
	io_uring_queue_exit(&ring);
	t_nvme_close(&n);
	return t_result();
}
