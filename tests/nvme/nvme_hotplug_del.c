// SPDX-License-Identifier: GPL-2.0
/* Description: QMP device_del of a namespace with 64 passthrough commands in flight on its block node */
/*
 * Usage: nvme_hotplug_del   (NVMe namespace 2 of the guest, /dev/nvme0n2 or
 * $TEST_NVME_HOTPLUG_DEV, QEMU device $TEST_NVME_HOTPLUG_ID or nvme0-ns2;
 * needs run-nvme.sh --qmp-agent, skipped without it, and skipped where
 * QEMU cannot unplug a namespace: QEMU 7.2, Debian 12's, answers "Bus
 * 'nvme0' does not support hotplugging"; there fabrics_paths removes a
 * namespace with commands in flight through nvmet instead)
 *
 * 56 reads and 8 identify are submitted on the namespace's block node, then
 * QEMU removes the namespace (QMP device_del): every command completes (with
 * data, an NVMe status or -errno) within the deadline; once the kernel has
 * removed the namespace, I/O passthrough on the still-open node fails with
 * an errno at once, and admin commands still reach the controller, as the
 * NVME_IOCTL_ADMIN_CMD ioctl does. Destructive: the namespace stays gone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "t_nvme.h"

#define QD	64

static struct t_nvme n;

int main(void)
{
	const char *dev = t_env_or("TEST_NVME_HOTPLUG_DEV", "/dev/nvme0n2");
	const char *id = t_env_or("TEST_NVME_HOTPLUG_ID", "nvme0-ns2");
	char *args[] = { "nvme_hotplug_del", (char *)dev, "", "", NULL };
	struct t_nvme_tally t;
	unsigned int out;
	unsigned char *bufs = t_alloc((size_t)QD * 4096);
	char json[256], path[PATH_MAX];
	struct nvme_uring_cmd c;
	unsigned long long end;
	struct io_uring ring;
	const char *resp;
	struct t_cqe cqe;
	int ret;

	if (!t_qmp_available())
		t_skip("no QMP agent (run-nvme.sh --qmp-agent)");
	if (access(dev, F_OK))
		t_skip("%s does not exist", dev);
	t_nvme_open(&n, 4, args);
	if ((__u64)QD * 4096 > n.nlb * n.lbs || n.lbs > 4096)
		t_skip("%s is too small or has blocks over 4 KiB", n.bdev);
	ret = t_nvme_ring(&ring, QD, 0);
	if (ret)
		t_die("ring: %s", t_errname(ret));

	out = t_nvme_submit_overlapping(&ring, &n, bufs, QD, true, T_OVERLAP_TRIES);
	snprintf(json, sizeof(json),
		 "{\"execute\": \"device_del\", \"arguments\": {\"id\": \"%s\"}}",
		 id);
	resp = t_qmp(json);
	if (!resp)
		t_die("QMP device_del %s: no answer", id);
	if (strstr(resp, "does not support hotplugging")) {
		/* QEMU 7.2 (Debian 12): the NVMe bus has no hot-unplug */
		t_nvme_reap(&ring, QD, &t);
		t_skip("this QEMU cannot unplug an NVMe namespace (%s); %u of %d commands completed",
		       resp, t.done, QD);
	}
	if (!strstr(resp, "\"return\""))
		t_die("QMP device_del %s: %s", id, resp);
	t_info("QMP device_del %s: %s", id, resp);

	if (!out)
		t_error("device_del: all %d commands had completed before it, %d times: nothing was in flight",
			QD, T_OVERLAP_TRIES);
	if (!t_nvme_reap(&ring, QD, &t))
		t_error("only %u of %d commands in flight completed", t.done, QD);
	t_info("device_del with %u of %d in flight: %u completed, %u NVMe status, %u errno",
	       out, QD, t.ok, t.status, t.err);

	snprintf(path, sizeof(path), "/sys/block/%s", n.name);
	end = t_now_ms() + 3 * T_NVME_TIMEOUT_MS;
	while (!access(path, F_OK) && t_now_ms() < end)
		t_sleep_ms(50);
	if (!access(path, F_OK)) {
		t_error("%s still there after device_del", path);
	} else {
		uringcmd_nvme_rw(&c, nvme_cmd_read, n.nsid, bufs, 4096, 0, 4096 / n.lbs);
		if (!t_nvme_cmd(&ring, n.bfd, NVME_URING_CMD_IO, &c, 0, &cqe)) {
			if (cqe.res >= 0)
				t_error("read on the removed namespace: res %s, expected an errno",
					t_nvme_res_str(cqe.res));
			else
				t_info("read on the removed namespace: %s",
				       t_nvme_res_str(cqe.res));
		}
		uringcmd_nvme_identify(&c, 0, NVME_IDENTIFY_CNS_CTRL, bufs);
		if (!t_nvme_cmd(&ring, n.bfd, NVME_URING_CMD_ADMIN, &c, 0, &cqe))
			t_info("identify through the removed namespace's node: %s",
			       t_nvme_res_str(cqe.res));
	}
	io_uring_queue_exit(&ring);
	t_nvme_close(&n);
	free(bufs);
	return t_result();
}
