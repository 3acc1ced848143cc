// SPDX-License-Identifier: GPL-2.0
/* Description: a zoned namespace through uring_cmd on the block node: zone queries, report, zone actions and Zone Append equal ng and the ioctl */
/*
 * Usage: nvme_zoned [BLOCKDEV [CHARDEV [CTRLDEV]]]
 *
 * On the first zoned namespace of CTRLDEV (run-nvme.sh --ns
 * zoned=on,zoned.zone_size=8M):
 *   - BLKGETZONESZ and BLKGETNRZONES through BLOCK_URING_CMD_IOCTL equal the
 *     ioctls and queue/chunk_sectors, queue/nr_zones, and are not 0;
 *   - Zone Management Receive (report zones) gives the same bytes through
 *     uring_cmd on the block node, on ngXnY and through NVME_IOCTL_IO64_CMD;
 *   - Zone Management Send open, close, finish and reset, each path on a
 *     zone of its own: every action 0 and the zone then Explicitly Opened,
 *     Closed, Full and Empty in a report;
 *   - Zone Append of two blocks, twice, each path on a zone of its own:
 *     the assigned LBAs (the result, from the big CQE or the ioctl) are the
 *     zone start and two past it, pread() finds the data there, and the
 *     write pointer stands four blocks in.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/blkzoned.h>
#include <linux/fs.h>

#include "t_nvme.h"

#define REPORT_LEN	4096

static struct t_nvme_fmt f;
static struct io_uring ring, qring;
static int bfd, cfd;
static __u64 zone_lbas;
static unsigned int nr_zones;

static int on_path(enum t_nvme_path p, const struct nvme_uring_cmd *c,
		   __u64 *result)
{
	return t_nvme_io_path(&ring, p, bfd, cfd, c, 0, result);
}

static void report_cmd(struct nvme_uring_cmd *c, void *buf, __u64 slba)
{
	uringcmd_nvme_rw(c, nvme_zns_cmd_mgmt_recv, f.nsid, buf, REPORT_LEN, slba, 1);
	c->cdw12 = REPORT_LEN / 4 - 1;		/* dwords, 0's based */
	c->cdw13 = NVME_ZNS_ZRA_REPORT_ZONES;	/* all zones, not partial */
}

/* The state of zone @z (NVME_ZNS_ZS_*) and its write pointer, via ng. */
static unsigned int zone_state(unsigned int z, __u64 *wp)
{
	struct nvme_zone_report *r = t_alloc(REPORT_LEN);
	struct nvme_uring_cmd c;
	unsigned int zs;
	int ret;

	report_cmd(&c, r, z * zone_lbas);
	ret = on_path(T_PATH_CHAR, &c, NULL);
	if (ret || !le64toh(r->nr_zones))
		t_die("report of zone %u: %s, %llu zones", z,
		      t_nvme_res_str(ret), (unsigned long long)le64toh(r->nr_zones));
	zs = r->entries[0].zs >> 4;
	if (wp)
		*wp = le64toh(r->entries[0].wp);
	free(r);
	return zs;
}

static void zone_queries(void)
{
	static const struct { const char *name; __u32 cmd; const char *attr; } q[] = {
		{ "BLKGETZONESZ", BLKGETZONESZ, "queue/chunk_sectors" },
		{ "BLKGETNRZONES", BLKGETNRZONES, "queue/nr_zones" },
	};
	char path[PATH_MAX];
	unsigned int i, v;
	__u64 sys;
	int res;

	for (i = 0; i < 2; i++) {
		if (ioctl(bfd, q[i].cmd, &v))
			t_die("ioctl %s: %m", q[i].name);
		snprintf(path, sizeof(path), "/sys/block/%.64s/%s", f.name, q[i].attr);
		if (t_read_u64(path, &sys))
			t_die("read %s: %m", path);
		if (t_block_query(&qring, bfd, q[i].cmd, 0, 0, 0, &res))
			t_die("%s through uring_cmd: no completion", q[i].name);
		if (res != (int)v || v != sys || !v)
			t_error("%s: uring_cmd %s, ioctl %u, %s %llu (none may be 0)",
				q[i].name, t_res_str(res), v, q[i].attr,
				(unsigned long long)sys);
		else
			t_info("%s: %u on every path", q[i].name, v);
	}
	if (ioctl(bfd, BLKGETZONESZ, &v) || ioctl(bfd, BLKGETNRZONES, &nr_zones))
		t_die("zone ioctls: %m");
	zone_lbas = (__u64)v * 512 / f.lbs;
}

static void report_equal(void)
{
	unsigned char *want = t_alloc(REPORT_LEN), *got = t_alloc(REPORT_LEN);
	struct nvme_uring_cmd c;
	unsigned int p;
	int ret;

	for (p = 0; p < T_NR_PATHS; p++) {
		unsigned char *buf = p ? got : want;
		char what[128];

		memset(buf, 0x5a + p, REPORT_LEN);
		report_cmd(&c, buf, 0);
		ret = on_path(p, &c, NULL);
		if (ret) {
			t_error("report zones, %s: %s", t_path_names[p],
				t_nvme_res_str(ret));
			continue;
		}
		if (!p) {
			if (le64toh(((struct nvme_zone_report *)want)->nr_zones) != nr_zones)
				t_error("report zones: %llu zones, BLKGETNRZONES %u",
					(unsigned long long)le64toh(((struct nvme_zone_report *)want)->nr_zones),
					nr_zones);
			continue;
		}
		snprintf(what, sizeof(what), "report zones, %s against %s",
			 t_path_names[p], t_path_names[0]);
		t_compare(what, got, want, REPORT_LEN);
	}
	free(want);
	free(got);
}

static void zone_send(enum t_nvme_path p, unsigned int z, __u8 zsa,
		      unsigned int want_state, const char *name)
{
	struct nvme_uring_cmd c;
	unsigned int zs;
	int ret;

	uringcmd_nvme_rw(&c, nvme_zns_cmd_mgmt_send, f.nsid, NULL, 0, z * zone_lbas, 1);
	c.cdw12 = 0;
	c.cdw13 = zsa;
	ret = on_path(p, &c, NULL);
	zs = zone_state(z, NULL);
	if (ret || zs != want_state)
		t_error("zone %u: %s through %s: %s, state %#x, expected 0 and %#x",
			z, name, t_path_names[p], t_nvme_res_str(ret), zs,
			want_state);
}

static void zone_append(enum t_nvme_path p, unsigned int z)
{
	unsigned char *data = t_alloc(2 * f.lbs), *back = t_alloc(2 * f.lbs);
	__u64 zslba = z * zone_lbas, lba, wp;
	struct nvme_uring_cmd c;
	unsigned int k;
	int ret;

	for (k = 0; k < 2; k++) {
		char what[128];

		t_fill_pattern(data, 2 * f.lbs, 0xa000 + z * 2 + k);
		uringcmd_nvme_rw(&c, nvme_zns_cmd_append, f.nsid, data, 2 * f.lbs,
			  zslba, 2);
		lba = ~0ULL;
		ret = on_path(p, &c, &lba);
		if (ret || lba != zslba + 2 * k) {
			t_error("zone %u: Zone Append %u through %s: %s, assigned LBA %#llx, expected 0 and %#llx",
				z, k, t_path_names[p], t_nvme_res_str(ret),
				(unsigned long long)lba,
				(unsigned long long)(zslba + 2 * k));
			continue;
		}
		if (pread(bfd, back, 2 * f.lbs, (off_t)(lba * f.lbs)) != 2 * (ssize_t)f.lbs)
			t_die("pread at LBA %#llx: %m", (unsigned long long)lba);
		snprintf(what, sizeof(what), "zone %u: Zone Append %u through %s, read at the assigned LBA",
			 z, k, t_path_names[p]);
		t_compare(what, back, data, 2 * f.lbs);
	}
	if (zone_state(z, &wp) != NVME_ZNS_ZS_IMPL_OPEN || wp != zslba + 4)
		t_error("zone %u after two appends through %s: write pointer %#llx, expected %#llx, implicitly open",
			z, t_path_names[p], (unsigned long long)wp,
			(unsigned long long)(zslba + 4));
	free(data);
	free(back);
}

int main(int argc, char **argv)
{
	const char *ctrl = argc > 3 ? argv[3] : "/dev/nvme0";
	struct t_nvme_fmt fmts[32];
	unsigned int nr, i, p;

	nr = t_nvme_formats(ctrl, fmts, 32);
	for (i = 0; i < nr && !fmts[i].zoned; i++)
		;
	if (i == nr)
		t_skip("%s has no zoned namespace (run-nvme.sh --ns zoned=on)", ctrl);
	f = fmts[i];
	t_info("%s", t_nvme_fmt_str(&f));
	bfd = open(f.bdev, O_RDONLY | O_DIRECT | O_CLOEXEC);
	cfd = open(f.chr, O_RDWR | O_CLOEXEC);
	if (bfd < 0 || cfd < 0)
		t_die("open %s or %s: %m", f.bdev, f.chr);
	if (t_nvme_ring(&ring, 8, 0) || t_ring_init(&qring, 8, 0))
		t_die("rings: %m");

	zone_queries();
	if (nr_zones < 1 + 2 * T_NR_PATHS)
		t_die("%u zones, need %u", nr_zones, 1 + 2 * T_NR_PATHS);
	report_equal();
	for (p = 0; p < T_NR_PATHS; p++) {
		unsigned int z = 1 + p;

		zone_send(p, z, NVME_ZNS_ZSA_OPEN, NVME_ZNS_ZS_EXPL_OPEN, "open");
		zone_send(p, z, NVME_ZNS_ZSA_CLOSE, NVME_ZNS_ZS_CLOSED, "close");
		zone_send(p, z, NVME_ZNS_ZSA_FINISH, NVME_ZNS_ZS_FULL, "finish");
		zone_send(p, z, NVME_ZNS_ZSA_RESET, NVME_ZNS_ZS_EMPTY, "reset");
	}
	for (p = 0; p < T_NR_PATHS; p++)
		zone_append(p, 1 + T_NR_PATHS + p);
	/* every completion was matched: nothing may be left over */
	t_cq_quiet(&ring, "NVMe ring at exit");
	t_cq_quiet(&qring, "query ring at exit");
	return t_result();
}
