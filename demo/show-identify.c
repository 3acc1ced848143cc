/*
 * Description: Identify Controller, Identify Namespace and the SMART log read
 * asynchronously through io_uring on the NVMe block node (NVME_URING_CMD_ADMIN
 * on /dev/nvmeXnY), all three in flight at once, printed next to what the
 * synchronous NVME_IOCTL_ADMIN_CMD on the same node returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uringcmd-nvme.h>	/* the project's library: lib/ */

static void *buf(void)
{
	void *p;

	if (posix_memalign(&p, 4096, 4096))
		exit(1);
	memset(p, 0, 4096);
	return p;
}

static int sync_admin(int fd, const struct nvme_uring_cmd *c, void *b)
{
	struct nvme_uring_cmd copy = *c;
	struct nvme_passthru_cmd a;

	copy.addr = (__u64)(uintptr_t)b;
	uringcmd_nvme_to_passthru(&copy, &a);
	return ioctl(fd, NVME_IOCTL_ADMIN_CMD, &a);
}

int main(int argc, char **argv)
{
	const char *dev = argc > 1 ? argv[1] : "/dev/nvme0n1";
	const char *what[3] = { "identify controller", "identify namespace",
				"SMART / health log" };
	struct nvme_uring_cmd c[3];
	void *ub[3], *ib[3];
	struct io_uring ring;
	struct nvme_id_ctrl *id;
	struct nvme_id_ns *ns;
	struct nvme_smart_log *smart;
	struct uringcmd_probe probe;
	char rs[256];
	int fd, nsid, ret, i;

	fd = open(dev, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", dev, strerror(errno));
		return 1;
	}
	nsid = ioctl(fd, NVME_IOCTL_ID);
	if (nsid <= 0) {
		fprintf(stderr, "%s: not an NVMe namespace\n", dev);
		return 1;
	}
	/* the library's probe first: does the node take passthrough at all? */
	ret = uringcmd_nvme_probe(fd, nsid, &probe);
	if (ret) {
		fprintf(stderr, "%s: uringcmd_nvme_probe: %s\n", dev, strerror(-ret));
		return 1;
	}
	if (probe.nvme_admin) {
		fprintf(stderr, "%s: Identify Controller through io_uring: %s%s\n", dev,
			uringcmd_nvme_res_str(probe.nvme_admin, rs, sizeof(rs)),
			probe.nvme_admin == -EOPNOTSUPP || probe.nvme_admin == -EINVAL ?
			": this kernel does not pass NVMe commands from the block node "
			"through io_uring (it needs the uringcmd series)" : "");
		return 1;
	}
	ret = uringcmd_nvme_queue_init(4, &ring, 0);
	if (ret) {
		fprintf(stderr, "io_uring_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	for (i = 0; i < 3; i++) {
		ub[i] = buf();
		ib[i] = buf();
	}
	uringcmd_nvme_identify(&c[0], 0, NVME_IDENTIFY_CNS_CTRL, ub[0]);
	uringcmd_nvme_identify(&c[1], nsid, NVME_IDENTIFY_CNS_NS, ub[1]);
	uringcmd_nvme_get_log(&c[2], NVME_NSID_ALL, NVME_LOG_LID_SMART, ub[2],
			      sizeof(struct nvme_smart_log));
	for (i = 0; i < 3; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

		uringcmd_prep_nvme(sqe, fd, NVME_URING_CMD_ADMIN, &c[i]);
		sqe->user_data = i;
	}
	printf("%s: 3 admin commands submitted in one io_uring_enter(): %d\n",
	       dev, io_uring_submit(&ring));
	for (i = 0; i < 3; i++) {
		struct io_uring_cqe *cqe;
		int same, st;

		if (io_uring_wait_cqe(&ring, &cqe)) {
			fprintf(stderr, "no completion\n");
			return 1;
		}
		st = sync_admin(fd, &c[cqe->user_data], ib[cqe->user_data]);
		same = !memcmp(ub[cqe->user_data], ib[cqe->user_data],
			       cqe->user_data == 2 ? 32 : 4096);
		printf("  %-20s cqe->res %s, same bytes as NVME_IOCTL_ADMIN_CMD (status %d): %s\n",
		       what[cqe->user_data],
		       uringcmd_nvme_res_str(cqe->res, rs, sizeof(rs)), st,
		       same ? "yes" : "NO");
		io_uring_cqe_seen(&ring, cqe);
	}
	id = ub[0];
	ns = ub[1];
	smart = ub[2];
	printf("  controller: vid %#06x, model \"%.40s\", serial \"%.20s\", firmware \"%.8s\"\n",
	       id->vid, id->mn, id->sn, id->fr);
	printf("  namespace %d: %llu blocks, LBA format %u of %u\n", nsid,
	       (unsigned long long)ns->nsze, uringcmd_nvme_ns_lbaf(ns),
	       ns->nlbaf + 1);
	printf("  health: critical warning %#x, temperature %d C, spare %u%%\n",
	       smart->critical_warning,
	       (smart->temperature[0] | smart->temperature[1] << 8) - 273,
	       smart->avail_spare);
	io_uring_queue_exit(&ring);
	return 0;
}
